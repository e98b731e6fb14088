// SPDX-License-Identifier: MIT
/*
 * cmd_exec.c - gridemu exec: run a command inside a node's namespace
 * (gb_grid_exec()).
 */
#include "gbemu.h"
#include "gbutil.h"
#include "gridemu_cli.h"

#include <stdio.h>
#include <string.h>

int exec_main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: gridemu exec NODE -- CMD [ARG...]\n"
		       "  Run CMD inside NODE's network namespace.\n");
		return 0;
	}
	if (argc < 2)
		return gb_refuse("gridemu",
				 "exec: which node? (gridemu exec NODE -- CMD [ARG...])");
	if (argc < 3 || strcmp(argv[2], "--"))
		return gb_refuse("gridemu",
				 "exec: '--' must follow NODE (gridemu exec NODE -- CMD [ARG...])");
	if (argc < 4)
		return gb_refuse("gridemu",
				 "exec: no command after '--' (gridemu exec NODE -- CMD [ARG...])");
	struct gb_grid g;
	struct gb_err e = { "" };
	int r = gridemu_open(&g, 0);
	if (r)
		return r;
	/* Without the state file we still exec: it names the node's namespace
	 * directly, which is what a user debugging a half-built grid wants. */
	gb_grid_exec(&g, argv[1], argv + 3, &e);
	gb_grid_close(&g);
	return gridemu_fail(e.msg[0] && strstr(e.msg, "no node") ? 2 : 127, e.msg);
}
