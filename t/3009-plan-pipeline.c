/* SPDX-License-Identifier: MIT */
/*
 * 3009-plan-pipeline - the "pipeline" planner (collectives/plan/plan_pipe.c,
 * issue 14): MPICH-G2's levels, each shaped for segmented forwarding by the
 * segmented one-port model.
 *
 *   - never worse than MPICH-G2's tree under that model at the segment size
 *     the root would choose (its first candidate is MPICH-G2's tree), on
 *     random grids, roots and sizes;
 *   - a tree MPICH-G2's tree itself where segmenting cannot pay (a message
 *     of one segment);
 *   - every site and every cluster entered by one edge (one coordinator
 *     each, as mpich-g2);
 *   - on topologies/teragrid.yaml at 1 MiB and 8 MiB from c2-1, where the
 *     root's port would send three whole copies over the wide area, the
 *     wide area is a chain (some site master's parent is another remote
 *     site master), predicted faster than MPICH-G2's tree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbplan.h"
#include "gbtopo.h"
#include "tap.h"

static const char *srcdir(void)
{
	const char *s = getenv("GRIDBED_SRC");

	return s ? s : GRIDBED_SOURCE_DIR;
}

/* The model at its best segment size (what the root runs), for @t. */
static double seg_cost(const struct gb_netmodel *m, const struct gb_tree *t, double size)
{
	double pred = NAN;

	gb_seg_choose(m, t, size, 1, 0, &pred);
	return pred;
}

/* 1 if every site and every cluster is entered by exactly one tree edge. */
static int one_entry(const struct gb_netmodel *m, const struct gb_tree *t)
{
	int *cin = calloc((size_t)m->nclusters, sizeof(int));
	int *sin = calloc((size_t)m->nsites, sizeof(int)), good = 1;

	for (int v = 0; v < m->n; v++) {
		int p = t->parent[v];

		if (p < 0)
			continue;
		cin[m->nodes[v].cluster] += m->nodes[p].cluster != m->nodes[v].cluster;
		sin[m->nodes[v].site] += m->nodes[p].site != m->nodes[v].site;
	}
	for (int c = 0; c < m->nclusters; c++)
		good &= cin[c] <= 1;
	for (int s = 0; s < m->nsites; s++)
		good &= sin[s] <= 1;
	free(cin);
	free(sin);
	return good;
}

static int plan_with(const char *name, const struct gb_netmodel *m, int root, double size,
		     struct gb_tree *t)
{
	struct gb_plan_args a = { root, size, 1, 0, NULL };

	return gb_plan(gb_planner_find(name), m, &a, t);
}

int main(void)
{
	static const int shapes[][3] = { { 1, 1, 6 }, { 2, 2, 3 }, { 3, 2, 4 }, { 4, 2, 8 },
					 { 7, 1, 3 } };
	static const double sizes[] = { 4096, 65536, 1048576, 8388608 };
	int worse = 0, entries = 0, runs = 0, small_same = 0, small_runs = 0;
	char path[512];

	plan(6);
	ok(gb_planner_find("pipeline") != NULL, "the pipeline planner is registered");
	for (int si = 0; si < (int)(sizeof(shapes) / sizeof(shapes[0])); si++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct gb_netmodel m;

			if (gb_nm_gen_grid(&m, shapes[si][0], shapes[si][1], shapes[si][2], seed) < 0)
				bail("gb_nm_gen_grid");
			for (int zi = 0; zi < 4; zi++) {
				int root = (int)((seed * 7 + (uint64_t)zi * 5) % (uint64_t)m.n);
				struct gb_tree p, g;
				double cp, cg;

				if (plan_with("pipeline", &m, root, sizes[zi], &p) < 0 ||
				    plan_with("mpich-g2", &m, root, sizes[zi], &g) < 0)
					bail("planning failed");
				cp = seg_cost(&m, &p, sizes[zi]);
				cg = seg_cost(&m, &g, sizes[zi]);
				runs++;
				worse += !(cp <= cg * (1 + 1e-12));
				entries += one_entry(&m, &p);
				if (sizes[zi] <= GB_SEG_MIN) {
					small_runs++;
					small_same += gb_tree_equal(&p, &g);
				}
				gb_tree_release(&p);
				gb_tree_release(&g);
			}
			gb_nm_release(&m);
		}
	ok(worse == 0, "never worse than MPICH-G2's tree under the segmented model (%d of %d "
	   "worse)", worse, runs);
	ok(entries == runs, "every site and cluster entered once (%d of %d trees)", entries, runs);
	ok(small_same == small_runs, "MPICH-G2's own tree for a message of one segment (%d of %d)",
	   small_same, small_runs);

	snprintf(path, sizeof(path), "%s/topologies/teragrid.yaml", srcdir());
	struct gb_topo *topo = NULL;
	struct gb_diag d;
	struct gb_netmodel tm;

	if (access(path, R_OK) != 0 || gb_topo_load(path, &topo, &d) < 0 ||
	    gb_nm_from_topo(&tm, topo, 10e-6) < 0)
		bail("cannot load %s", path);
	gb_topo_free(topo);
	for (int zi = 2; zi < 4; zi++) {
		int root = gb_nm_find_node(&tm, "c2-1"), chained = 0;
		struct gb_tree p, g;
		double cp, cg;

		if (plan_with("pipeline", &tm, root, sizes[zi], &p) < 0 ||
		    plan_with("mpich-g2", &tm, root, sizes[zi], &g) < 0)
			bail("planning on teragrid failed");
		for (int v = 0; v < tm.n; v++) {
			int u = p.parent[v];

			chained += u >= 0 && u != root && tm.nodes[u].site != tm.nodes[v].site;
		}
		cp = seg_cost(&tm, &p, sizes[zi]);
		cg = seg_cost(&tm, &g, sizes[zi]);
		ok(chained >= 1 && cp < cg, "teragrid, %.0f KiB from c2-1: a wide-area chain (%d "
		   "wide-area edges not from the root), %.3f s against MPICH-G2's %.3f s",
		   sizes[zi] / 1024, chained, cp, cg);
		gb_tree_release(&p);
		gb_tree_release(&g);
	}
	gb_nm_release(&tm);
	return done_testing();
}
