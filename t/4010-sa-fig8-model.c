/* SPDX-License-Identifier: MIT */
/*
 * 4010-sa-fig8-model - what seed 000 s3 says the adaptive broadcast does
 * under Fig. 8's loads, checked in the models alone, with a perfect monitor
 * (issue 13): topologies/teragrid.yaml with C3's uplink losing a fraction F
 * of its capacity in the direction the campaigns load (c3>NCSA, what a load
 * from a C3 host to a host elsewhere takes; F = 50, 70, 84, 90 %, the
 * paper's 50-90 % range), and clusteredSA planned on that loaded model
 * (root c2-1, 128 KB and 1 MB, seeds 1-3, no time budget):
 *
 *  (a) where C3 is "a major bottleneck" (the loads that slow MPICH-G2's
 *      tree in this model, 84 and 90 %: C3's uplink left at 16 and 10
 *      Mbit/s), "C3 is pushed to the lowermost level": no tree edge goes
 *      from a C3 host to a host of another cluster (MPICH-G2's tree has
 *      two: C3 feeds C4 and C5).  At 50 and 70 % C3's uplink keeps 50 and
 *      30 Mbit/s, no less than the 30 Mbit/s backbone, and is no
 *      bottleneck; there the count is reported (when this was written, 11
 *      of 12 trees had no edge out of C3; the twelfth, 70 %, 128 KB, seed
 *      3, had one, and cost 4 % more than seeds 1 and 2's);
 *  (b) never worse than MPICH-G2's tree under its own (Mateescu's) model,
 *      at every load;
 *  (c) at 84 and 90 %, strictly better than MPICH-G2's tree.
 *
 * The contention model's figures are reported, not asserted: the paper
 * compares measured times, and experiments/fig8-model.sh prints the whole
 * table (docs/measurements.md, issue 13, session 8).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbplan.h"
#include "gbsa.h"
#include "gbtopo.h"
#include "tap.h"

static const char *srcdir(void)
{
	const char *s = getenv("GRIDBED_SRC");

	return s ? s : GRIDBED_SOURCE_DIR;
}

/* teragrid with c3's uplink at (1 - @f) of its rate, switch -> router only. */
static int load_loaded(struct gb_netmodel *m, double f)
{
	char path[512];
	struct gb_topo *t = NULL;
	struct gb_diag d;
	int l, ret;

	snprintf(path, sizeof(path), "%s/topologies/teragrid.yaml", srcdir());
	if (access(path, R_OK) != 0 || gb_topo_load(path, &t, &d) < 0)
		return -1;
	l = gb_topo_find_link(t, "c3-NCSA");
	if (l < 0 || t->nodes[t->links[l].a].cluster != gb_topo_find_cluster(t, "c3")) {
		gb_topo_free(t);
		return -1;
	}
	t->links[l].ab.rate_bps = (uint64_t)llround((double)t->links[l].ab.rate_bps * (1 - f));
	ret = gb_nm_from_topo(m, t, 10e-6);
	gb_topo_free(t);
	return ret;
}

/* Tree edges from a host of cluster @c to a node of another cluster. */
static int forwards_out(const struct gb_netmodel *m, const struct gb_tree *t, int c)
{
	int k = 0;

	for (int v = 0; v < m->n; v++) {
		int p = t->parent[v];

		k += p >= 0 && m->nodes[p].cluster == c && m->nodes[v].cluster != c;
	}
	return k;
}

int main(void)
{
	static const double loads[] = { 0.50, 0.70, 0.84, 0.90 };
	static const double sizes[] = { 131072, 1048576 };
	/* the sanitizer pass checks memory safety on one seed, the plain one judges three */
	const uint64_t nseeds = getenv("GRIDBED_SANITIZED") ? 1 : 3;
	struct gb_netmodel m;

	if (load_loaded(&m, 0) < 0)
		skip_all("topologies/teragrid.yaml not available (or has no c3-NCSA uplink)");
	gb_nm_release(&m);
	plan(4 + 2 * 2);      /* (b) at every load; (a), (c) at the two heavy ones */
	for (int li = 0; li < 4; li++) {
		int runs = 0, n_low = 0, n_own = 0, n_win = 0, heavy = loads[li] > 0.8;
		int c3, root;

		if (load_loaded(&m, loads[li]) < 0)
			bail("teragrid");
		c3 = m.nodes[gb_nm_find_node(&m, "c3-1")].cluster;
		root = gb_nm_find_node(&m, "c2-1");
		for (int si = 0; si < 2; si++) {
			struct gb_plan_args ga = { root, sizes[si], 1, 0, NULL };
			struct gb_tree g2;
			double c2, c2c;

			if (gb_plan(gb_planner_find("mpich-g2"), &m, &ga, &g2) < 0)
				bail("mpich-g2");
			c2 = gb_cost_mateescu(&m, &g2, sizes[si], NULL);
			c2c = gb_cost_contention(&m, &g2, sizes[si], NULL);
			if (si == 0 && li == 0)
				diag("MPICH-G2's tree: %d edges out of C3", forwards_out(&m, &g2, c3));
			for (uint64_t seed = 1; seed <= nseeds; seed++) {
				struct gb_plan_args a = { root, sizes[si], seed, 0, NULL };
				struct gb_sa_stats st = { 0 };
				struct gb_tree t;
				double c, cc;
				int out;

				if (gb_tree_init(&t, m.n, root) < 0)
					bail("oom");
				if (gb_sa_clustered(&m, &a, &t, &st) < 0)
					bail("clusteredSA failed at %.0f %%, %.0f B, seed %llu",
					     100 * loads[li], sizes[si], (unsigned long long)seed);
				runs++;
				c = gb_cost_mateescu(&m, &t, sizes[si], NULL);
				cc = gb_cost_contention(&m, &t, sizes[si], NULL);
				out = forwards_out(&m, &t, c3);
				n_low += out == 0;
				n_own += c <= c2 * (1 + 1e-12);
				n_win += c < c2 * (1 - 1e-9);
				diag("load %.0f %%, %7.0f B, seed %llu: clusteredSA %.3f s (contention "
				     "%.3f), MPICH-G2 %.3f s (%.3f); %d edges out of C3",
				     100 * loads[li], sizes[si], (unsigned long long)seed, c, cc, c2,
				     c2c, out);
				gb_tree_release(&t);
			}
			gb_tree_release(&g2);
		}
		if (heavy)
			is_int(n_low, runs, "load %.0f %% on c3>NCSA: (a) C3 forwards to no other "
			       "cluster (%d trees)", 100 * loads[li], runs);
		else
			diag("load %.0f %% on c3>NCSA: C3 forwards to no other cluster in %d of %d "
			     "trees (not asserted: no bottleneck)", 100 * loads[li], n_low, runs);
		is_int(n_own, runs, "load %.0f %%: (b) never worse than MPICH-G2's tree under "
		       "Mateescu's model", 100 * loads[li]);
		if (heavy)      /* (c): only where MPICH-G2's tree is slowed */
			is_int(n_win, runs, "load %.0f %%: (c) strictly better than MPICH-G2's tree, "
			       "which this load slows", 100 * loads[li]);
		gb_nm_release(&m);
	}
	return done_testing();
}
