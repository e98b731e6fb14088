// SPDX-License-Identifier: MIT
/*
 * cmd_demo.c - gridemu demo: up, a summary, a fidelity table measured over the
 * data plane, down.
 */
#include "gbemu.h"
#include "gbutil.h"
#include "gridemu_cli.h"
#include "probe.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t interrupted;
static void on_int(int sig)
{
	interrupted = 1;
}

/* One path from the root host to every other cluster. */
int demo_main(int argc, char **argv)
{
	const char *file = argc > 1 ? argv[1] : GRIDBED_SOURCE_DIR "/topologies/teragrid.yaml";
	const char *backend = argc > 2 ? argv[2] : "auto";
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: gridemu demo [FILE [BACKEND]]\n"
		       "  Up, summary, fidelity table, down (default: topologies/teragrid.yaml).\n");
		return 0;
	}
	struct gb_grid g;
	struct gb_err e = { "" };
	struct gb_up_opts o = { .backend = backend };
	int r = gridemu_open(&g, 1);
	if (r)
		return r;
	gb_catch_signals(on_int, 0);

	double t0 = gb_now();
	int err = gb_grid_up(&g, file, &o, &e);
	if (err < 0) {
		gb_grid_close(&g);
		return gridemu_fail(err == -EINVAL || err == -EEXIST || err == -EADDRINUSE ? 2 : 1, e.msg);
	}
	printf("== grid up in %.3f s ==\n", gb_now() - t0);
	const struct gb_topo *t = g.topo;
	printf("grid '%s': %d hosts in %d clusters at %d sites, %d nodes, %d links, backend %s\n",
	       t->name, t->nhosts, t->nclusters, t->nsites, t->nnodes, t->nlinks, gb_grid_backend(&g));
	for (int c = 0; c < t->nclusters; c++)
		printf("  %-8s site %-8s %3d hosts  %s .. %s\n", t->clusters[c].name,
		       t->sites[t->clusters[c].site].name, t->clusters[c].nhosts,
		       t->nodes[t->clusters[c].first_host].name,
		       t->nodes[t->clusters[c].first_host + t->clusters[c].nhosts - 1].name);

	int src = t->root >= 0 && t->root < t->nhosts ? t->root : 0;
	printf("\n== fidelity: from %s, 20 UDP echoes and 3 s of TCP per path"
	       " (goodput after a 0.75 s warm-up) ==\n",
	       t->nodes[src].name);
	printf("%-16s %10s %10s %10s %8s %12s %12s %7s\n", "path", "rtt-conf", "rtt-p50",
	       "rtt-p99", "err", "bottleneck", "tcp", "ratio");
	struct gb_probe_opts po = { .count = 20, .interval = 0.005, .tcp_seconds = 3 };
	for (int c = 0; c < t->nclusters && !interrupted; c++) {
		int d = t->clusters[c].first_host;
		if (d == src)
			d = t->clusters[c].nhosts > 1 ? d + 1 : -1;
		if (d < 0)
			continue;
		struct gb_probe_result pr;
		if (gb_probe(&g, src, d, &po, &pr, &e) < 0) {
			fprintf(stderr, "gridemu: %s\n", e.msg);
			continue;
		}
		double rtt;
		uint64_t rate;
		char path[64];
		gridemu_path_info(t, src, d, &rtt, &rate);
		snprintf(path, sizeof(path), "%s>%s", t->nodes[src].name, t->nodes[d].name);
		printf("%-16s %8.3fms %8.3fms %8.3fms %+7.1f%% %7.1fMbit/s %7.1fMbit/s %6.1f%%\n",
		       path, rtt * 1e3, pr.rtt_p50 * 1e3, pr.rtt_p99 * 1e3,
		       rtt > 0 ? (pr.rtt_p50 - rtt) / rtt * 100 : 0, (double)rate / 1e6,
		       pr.tcp_bps / 1e6, rate ? pr.tcp_bps / (double)rate * 100 : 0);
		fflush(stdout);
	}
	t0 = gb_now();
	int removed = 0;
	err = gb_grid_down(&g, &removed, &e);
	gb_grid_close(&g);
	if (err < 0)
		return gridemu_fail(1, e.msg);
	printf("\n== grid down in %.3f s (%d namespaces removed) ==\n", gb_now() - t0, removed);
	return interrupted ? 130 : 0;
}
