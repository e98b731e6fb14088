// SPDX-License-Identifier: MIT
/*
 * bench_topo - how long loading (parse + validate + address + route) and
 * the first gb_topo_default_limit() call (the round-trip cache) take.
 * Prints figures; asserts nothing (docs/architecture.md, practice 5: speed targets live in
 * benchmarks, not tests).
 *
 *   topologies/gen-big.sh 1024 > /tmp/big.yaml
 *   build/topologies/bench_topo topologies/teragrid.yaml /tmp/big.yaml
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gbtopo.h"
#include "gbutil.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_topo FILE.yaml...\n");
		return 2;
	}
	printf("%-28s %6s %6s %12s %12s\n", "topology", "nodes", "hosts", "load_ms", "limits_ms");
	for (int i = 1; i < argc; i++) {
		double best_load = 1e9, best_lim = 1e9;
		struct gb_topo *t = NULL;
		struct gb_diag d;
		int nodes = 0, hosts = 0;

		for (int rep = 0; rep < 5; rep++) { /* best of 5 */
			double t0 = gb_now(), t1, t2;
			int r = gb_topo_load(argv[i], &t, &d);

			if (r < 0) {
				fprintf(stderr, "bench_topo: %s:%d:%d: %s\n", d.file, d.line, d.col,
					d.msg[0] ? d.msg : strerror(-r));
				return 2;
			}
			t1 = gb_now();
			(void)gb_topo_default_limit(t, 0);
			t2 = gb_now();
			if (t1 - t0 < best_load)
				best_load = t1 - t0;
			if (t2 - t1 < best_lim)
				best_lim = t2 - t1;
			nodes = t->nnodes;
			hosts = t->nhosts;
			gb_topo_free(t);
		}
		printf("%-28s %6d %6d %12.2f %12.2f\n", argv[i], nodes, hosts, best_load * 1e3,
		       best_lim * 1e3);
	}
	return 0;
}
