// SPDX-License-Identifier: MIT
/*
 * cmd_down.c - gridemu down: remove everything a prefix's grid created, also
 * after a crash (gb_grid_down()).
 */
#include "gbemu.h"
#include "gbutil.h"
#include "gridemu_cli.h"

#include <stdio.h>
#include <string.h>

int down_main(int argc, char **argv)
{
	if (argc > 1) {
		int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
		fprintf(help ? stdout : stderr,
			"usage: gridemu down\n  Remove everything the grid of this prefix created, "
			"even after a crash.\n");
		return help ? 0 : 2;
	}
	struct gb_grid g;
	struct gb_err e = { "" };
	int removed = 0, r = gridemu_open(&g, 1);
	if (r)
		return r;
	double t0 = gb_now();
	int err = gb_grid_down(&g, &removed, &e);
	gb_grid_close(&g);
	if (err < 0)
		return gridemu_fail(1, e.msg);
	printf("grid '%s' down: %d namespaces removed in %.3f s\n", g.prefix, removed, gb_now() - t0);
	return 0;
}
