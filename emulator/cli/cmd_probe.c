// SPDX-License-Identifier: MIT
/*
 * cmd_probe.c - gridemu probe: UDP echo RTTs and TCP goodput between two nodes
 * over the data plane (gb_probe()).
 */
#include "gbemu.h"
#include "gbutil.h"
#include "gridemu_cli.h"
#include "probe.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find_node_or_die(const struct gb_topo *t, const char *name)
{
	int i = gb_topo_find_node(t, name);
	if (i < 0)
		fprintf(stderr, "gridemu: no node '%s' in grid '%s'\n", name, t->name);
	return i;
}

int probe_main(int argc, char **argv)
{
	struct gb_probe_opts o = { .count = 20, .interval = 0.01, .tcp_seconds = 2 };
	const char *pos[2] = { NULL, NULL };
	int np = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--count") && i + 1 < argc)
			o.count = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tcp") && i + 1 < argc)
			o.tcp_seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--interval") && i + 1 < argc) {
			char *end;

			o.interval = strtod(argv[++i], &end);
			if (*end || !(o.interval >= 0 && o.interval <= 10))
				return gb_refuse("gridemu",
						 "probe: --interval must be seconds in [0, 10]");
		}
		else if (argv[i][0] != '-' && np < 2)
			pos[np++] = argv[i];
		else {
			int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
			fprintf(help ? stdout : stderr,
				"usage: gridemu probe SRC DST [--count N] [--interval S] [--tcp SECONDS]\n"
				"  UDP echo RTTs (N echoes, S seconds apart, default 20 and 0.01) and\n"
				"  TCP goodput from SRC to DST over the data plane.\n");
			return help ? 0 : 2;
		}
	}
	if (np != 2)
		return gb_refuse("gridemu", "probe: need SRC and DST");
	struct gb_grid g;
	struct gb_err e = { "" };
	int r = gridemu_attach(&g);
	if (r)
		return r;
	int s = find_node_or_die(g.topo, pos[0]), d = find_node_or_die(g.topo, pos[1]);
	if (s < 0 || d < 0) {
		gb_grid_close(&g);
		return 2;
	}
	struct gb_probe_result pr;
	if (gb_probe(&g, s, d, &o, &pr, &e) < 0) {
		gb_grid_close(&g);
		return gridemu_fail(1, e.msg);
	}
	double rtt;
	uint64_t rate;
	gridemu_path_info(g.topo, s, d, &rtt, &rate);
	printf("%s -> %s: %d/%d echoes, rtt min/p50/p99/max %.3f/%.3f/%.3f/%.3f ms "
	       "(configured %.3f ms)", pos[0], pos[1], pr.received, pr.sent, pr.rtt_min * 1e3,
	       pr.rtt_p50 * 1e3, pr.rtt_p99 * 1e3, pr.rtt_max * 1e3, rtt * 1e3);
	if (o.tcp_seconds > 0)
		printf(", tcp %.2f Mbit/s (bottleneck %.2f Mbit/s)", pr.tcp_bps / 1e6,
		       (double)rate / 1e6);
	printf("\n");
	gb_grid_close(&g);
	return 0;
}
