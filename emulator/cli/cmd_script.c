// SPDX-License-Identifier: MIT
/*
 * cmd_script.c - gridemu script: the iproute2 script equivalent to `gridemu up`
 * (gb_write_script()).
 */
#include "gbemu.h"
#include "gbutil.h"
#include "gridemu_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int script_main(int argc, char **argv)
{
	unsigned flags = 0;
	const char *file = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--down"))
			flags |= GB_SCRIPT_DOWN;
		else if (!strcmp(argv[i], "--no-netem"))
			flags |= GB_SCRIPT_NO_NETEM;
		else if (argv[i][0] != '-' && !file)
			file = argv[i];
		else {
			int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
			fprintf(help ? stdout : stderr,
				"usage: gridemu script FILE [--down] [--no-netem]\n"
				"  Print the iproute2 shell script equivalent to 'gridemu up FILE'\n"
				"  (--no-netem: rate only, for kernels without sch_netem).\n");
			return help ? 0 : 2;
		}
	}
	if (!file)
		return gb_refuse("gridemu", "script: which topology file?");
	struct gb_topo *t = NULL;
	struct gb_diag d;
	char line[GB_DIAG_LINE_MAX];
	int err;
	if ((err = gb_topo_load(file, &t, &d)) < 0) {
		/* a file that cannot be read has no line and column to name */
		if (err == -EINVAL && d.line > 0)
			return gb_refuse("gridemu", "%s",
					 gb_diag_format(&d, NULL, line, sizeof(line)));
		return gb_refuse("gridemu", "cannot read topology '%s': %s", file, strerror(-err));
	}
	const char *p = gridemu_prefix();
	gb_write_script(t, p && *p ? p : GB_PREFIX_DEFAULT, flags, stdout);
	gb_topo_free(t);
	return 0;
}
