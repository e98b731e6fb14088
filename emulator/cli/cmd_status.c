// SPDX-License-Identifier: MIT
/*
 * cmd_status.c - gridemu status: hosts, addresses and live link parameters
 * (gb_grid_status()), as text or JSON.
 */
#include "gbemu.h"
#include "gbutil.h"
#include "gridemu_cli.h"

#include <stdio.h>
#include <string.h>

int status_main(int argc, char **argv)
{
	int json = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else {
			int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
			fprintf(help ? stdout : stderr, "usage: gridemu status [--json]\n");
			return help ? 0 : 2;
		}
	}
	struct gb_grid g;
	int r = gridemu_attach(&g);
	if (r)
		return r;
	/* exit 1 when the data plane is broken (a dead or stalled delay line) */
	r = gb_grid_status(&g, stdout, json);
	gb_grid_close(&g);
	return r;
}
