/* SPDX-License-Identifier: MIT */
/*
 * 4003-sa-determinism - with no time budget (the paper's fixed 50 + 25
 * invocations per driverSA) the SA planners are functions of (model, root,
 * size, seed): planned twice, they give the same tree, send orders
 * included.  t/3005 checks this on small models; here the models are
 * larger than a pool (> 16 nodes), so clusteredSA really forms pools,
 * recurses on the roots and reuses solved pools.
 *
 * (With a budget the number of invocations depends on the clock, and so
 * may the tree: no determinism is promised then.)
 *
 * Under the sanitizers (GRIDBED_SANITIZED, set by cmake/bootstrap's second
 * pass) one seed, the 24-node shape only (it forms pools too) and no
 * sa-contention: the plain pass runs all of them, and what ASan looks for
 * does not depend on the seed or the size.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gbplan.h"
#include "tap.h"

int main(void)
{
	static const char *const algos[] = { "sa", "clustered-sa", "sa-contention" };
	static const struct {
		const char *what;
		int s, c, n;
	} shapes[] = {
		{ "grid 2x2x6 (24)", 2, 2, 6 },
		{ "grid 4x2x8 (64)", 4, 2, 8 },
	};

	const int nseeds = getenv("GRIDBED_SANITIZED") ? 1 : 2;
	const int nshapes = getenv("GRIDBED_SANITIZED") ? 1 : 2;

	for (int a = 0; a < 3; a++) {
		const struct gb_planner *p = gb_planner_find(algos[a]);

		if (!p)
			bail("planner '%s' not registered", algos[a]);
		for (int s = 0; s < nshapes; s++) {
			/* sa-contention on 64 nodes costs seconds: one shape; under
			 * the sanitizers none (30 s for the 24 nodes: its
			 * simulations run sanitized in t/3005, on up to 12 nodes) */
			if (a == 2 && (s == 1 || getenv("GRIDBED_SANITIZED")))
				continue;
			for (int seed = 1; seed <= nseeds; seed++) {
				struct gb_netmodel m;
				struct gb_plan_args args = { 5 + seed, 1048576, 1000 + seed, 0,
							     NULL };
				struct gb_tree t1, t2, t3;
				int r1, r2, r3;

				if (gb_nm_gen_grid(&m, shapes[s].s, shapes[s].c, shapes[s].n,
						   40 + seed) < 0)
					bail("model");
				r1 = gb_plan(p, &m, &args, &t1);
				r2 = gb_plan(p, &m, &args, &t2);
				ok(r1 == 0 && r2 == 0 && gb_tree_equal(&t1, &t2),
				   "%s on %s, seed %llu: same tree twice", algos[a], shapes[s].what,
				   (unsigned long long)args.seed);
				/* Another root: still valid and rooted there. */
				args.root = m.n - 1;
				r3 = gb_plan(p, &m, &args, &t3);
				ok(r3 == 0 && t3.root == m.n - 1, "%s on %s: root %d honoured",
				   algos[a], shapes[s].what, m.n - 1);
				if (r1 == 0)
					gb_tree_release(&t1);
				if (r2 == 0)
					gb_tree_release(&t2);
				if (r3 == 0)
					gb_tree_release(&t3);
				gb_nm_release(&m);
			}
		}
	}
	return done_testing();
}
