// SPDX-License-Identifier: MIT
/*
 * cmd_up.c - gridemu up: build the grid of a topology file (gb_grid_up()),
 * and say what its calibration and CPU shares came to.
 */
#include "calibrate.h"
#include "cgroup.h"
#include "dilate.h"
#include "gbemu.h"
#include "gbutil.h"
#include "gridemu_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

static int usage_up(FILE *f)
{
	fprintf(f, "usage: gridemu up FILE [--backend auto|netem|tap] [--dilate K [--kernel-cubic]]\n"
		"                 [--no-calibrate] [--recalibrate]\n"
		"                 [--part SITE|HUB,... --peer ADDR [--peer-prefix P]] [--quiet]\n"
		"  Build the grid described by topology FILE (see docs/topology-format.md).\n"
		"  auto picks netem when the kernel has sch_netem, else the tap delay line.\n"
		"  The tap delay line's own cost per link traversal is measured and subtracted\n"
		"  from every delay (~0.1 s); --no-calibrate leaves it in (status shows it).\n"
		"  A measurement of this machine, delay line and links at most 10 minutes old,\n"
		"  at about today's load, is reused, with its age; --recalibrate measures afresh.\n"
		"  --dilate K: time dilation (K >= 1): the wire carries every delay x K and every\n"
		"  rate / K, so the CPUs look K times faster; gridbed's tools report times / K.\n"
		"  There, hosts that run cubic run gbcubic, CUBIC on the topology's clock, loaded\n"
		"  into the kernel until the last dilated grid is down; --kernel-cubic keeps the\n"
		"  kernel's cubic, whose clock is this machine's (for comparisons).\n"
		"  --part, --peer: one grid across two machines (docs/scale-out.md): build only\n"
		"  these sites (with their clusters and hosts) and hubs; the rest is built by\n"
		"  the machine at ADDR, whose grid has prefix P (default: ours).  Links between\n"
		"  the two are VXLANs over the machines' own network (UDP 4789), from this\n"
		"  machine's address that faces ADDR, and only ADDR's frames pass; anyone who\n"
		"  can forge ADDR still can (docs/scale-out.md, \"Trust\").\n");
	return f == stdout ? 0 : 2;
}

/* The first congestion control of @g's hosts that runs on the kernel's
 * clock (gb_tcp_cc_clocked()) on this grid, or NULL when none does: cubic
 * does not where the grid runs gbcubic for it. */
static const char *clock_cc(const struct gb_grid *g)
{
	for (int i = 0; i < g->topo->nhosts; i++) {
		const char *cc = g->topo->nodes[i].tcp.congestion;

		if (!cc[0])
			cc = GB_TCP_DEFAULT_CC;
		if (gb_tcp_cc_clocked(cc) && !(g->cubic_as[0] && !strcmp(cc, "cubic")))
			return cc;
	}
	return NULL;
}

int up_main(int argc, char **argv)
{
	static const struct option lo[] = { { "backend", required_argument, 0, 'b' },
					    { "no-calibrate", no_argument, 0, 'C' },
					    { "recalibrate", no_argument, 0, 'F' },
					    { "dilate", required_argument, 0, 'd' },
					    { "kernel-cubic", no_argument, 0, 'K' },
					    { "quiet", no_argument, 0, 'q' },
					    { "help", no_argument, 0, 'h' },
					    { "part", required_argument, 0, 'P' },
					    { "peer", required_argument, 0, 'R' },
					    { "peer-prefix", required_argument, 0, 'X' },
					    { 0, 0, 0, 0 } };
	struct gb_up_opts o = { .backend = "auto" };
	int quiet = 0, c;
	opterr = 0;     /* one line of ours names the fault, not getopt's and the usage */
	while ((c = getopt_long(argc, argv, ":b:d:qh", lo, NULL)) != -1) {
		if (c == 'b')
			o.backend = optarg;
		else if (c == 'C')
			o.no_calibrate = 1;
		else if (c == 'F')
			o.recalibrate = 1;
		else if (c == 'd') {
			char *end;

			o.dilate = strtod(optarg, &end);
			if (end == optarg || *end || !(o.dilate >= 1 && o.dilate <= GB_DILATE_MAX)) {
				fprintf(stderr, "gridemu: up: --dilate '%s' is not a number in "
					"[1, %g]\n", optarg, GB_DILATE_MAX);
				return 2;
			}
		}
		else if (c == 'K')
			o.kernel_cubic = 1;
		else if (c == 'q')
			quiet = 1;
		else if (c == 'P')
			o.part = optarg;
		else if (c == 'R')
			o.peer = optarg;
		else if (c == 'X')
			o.peer_prefix = optarg;
		else if (c == 'h')
			return usage_up(stdout);
		else {
			return gb_refuse("gridemu", "up: %s '%s' (see gridemu up --help)",
					 c == ':' ? "option needs a value:" : "unknown option",
					 argv[optind - 1]);
		}
	}
	if (o.no_calibrate && o.recalibrate)
		return gb_refuse("gridemu", "up: --recalibrate and --no-calibrate exclude each other");
	if (o.kernel_cubic && !(o.dilate > 1))
		return gb_refuse("gridemu", "up: --kernel-cubic is for a dilated grid (--dilate K > 1)");
	if (optind != argc - 1)
		return gb_refuse("gridemu", "up: %s (see gridemu up --help)", optind == argc ?
				 "which topology file?" : "one topology file only");

	struct gb_grid g;
	struct gb_err e = { "" };
	int r = gridemu_open(&g, 1);
	if (r)
		return r;
	double t0 = gb_now();
	int err = gb_grid_up(&g, argv[optind], &o, &e);
	double el = gb_now() - t0;
	char dil[64] = "";

	if (g.dilate > 1.0)
		snprintf(dil, sizeof(dil), "time dilated x%g, ", g.dilate);
	if (err < 0) {
		gb_grid_close(&g);
		return gridemu_fail(err == -EINVAL || err == -EEXIST || err == -EADDRINUSE ? 2 : 1, e.msg);
	}
	if (!quiet)
		printf("grid '%s' up: %d hosts, %d nodes, %d links, backend %s, prefix %s, "
		       "%sin %.3f s\n", g.topo->name, g.topo->nhosts, g.topo->nnodes,
		       g.topo->nlinks, gb_grid_backend(&g), g.prefix, dil, el);
	{
		struct gb_calib cal;
		char line[512], warn[512];

		if (gb_grid_calib_read(&g, &cal, NULL) == 0) {
			gb_calib_describe(g.topo, &cal, line, sizeof(line), warn, sizeof(warn));
			if (!quiet)
				printf("%s\n", line);
			if (cal.cache_bad)
				fprintf(stderr, "gridemu: warning: %s; measured afresh\n", cal.cache);
			if (warn[0])
				fprintf(stderr, "gridemu: warning: %s\n", warn);
		}
	}
	/* a congestion control that runs on the machine's clock is not dilated
	 * with the wire (docs/topology-format.md, "The hosts' TCP stack") */
	if (g.dilate > 1.0 && !quiet) {
		const char *cc = clock_cc(&g);
		int cubic = cc && !strcmp(cc, "cubic");

		if (cc)
			printf("note: hosts run %s, whose window grows on this machine's clock, not "
			       "the topology's: at x%g a path with losses recovers faster than the "
			       "network emulated (reno does not; docs/topology-format.md)%s%s\n",
			       cc, g.dilate, cubic && g.cubic_why[0] ? "; not gbcubic: " : "",
			       cubic ? g.cubic_why : "");
		else if (g.cubic_as[0] && gb_tcp_hosts_run(g.topo, "cubic"))
			printf("hosts' cubic runs as %s, on the topology's clock\n", g.cubic_as);
	}
	/* heterogeneous CPUs asked for but not enforceable: say so, always */
	{
		char cpu[256];

		if (!strncmp(gb_cgroup_describe(g.topo, cpu, sizeof(cpu)), "none", 4))
			fprintf(stderr, "gridemu: warning: the topology gives clusters a cpu share, "
				"but no CPU controller enforces it (%s)\n", cpu + 6);
	}
	gb_grid_close(&g);
	return 0;
}
