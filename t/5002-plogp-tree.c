// SPDX-License-Identifier: MIT
/*
 * 5002-plogp-tree - the pLogP planners' node trees (seed 002 §3.3: a
 * broadcast between coordinators, then a binomial in every cluster):
 *
 *   - valid, rooted at the given root, deterministic;
 *   - exactly one wide-area edge into each non-root cluster, none into the
 *     root's, always into its coordinator (the root, or the lowest index);
 *   - every coordinator sends across the wide area first, and in the order
 *     of the cluster schedule gb_plogp_schedule() made;
 *   - the cluster-level makespan of the schedule (gb_clmodel_cost, wide-area
 *     sends first) equals coll's `plogp` cost model on the node tree, and,
 *     as g(m) = Delta when the model has no gap_fixed, the `mateescu` model
 *     too, coordinator by coordinator.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbplan.h"
#include "tap.h"

static int close_rel(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* A model whose clusters interleave in node order (cluster = v % 3). */
static int interleaved(struct gb_netmodel *m, int n, uint64_t seed)
{
	struct gb_rng r;
	int err = gb_nm_init(m, n);

	if (err)
		return err;
	err = gb_nm_set_groups(m, 3, 1);
	if (err)
		return err;
	gb_rng_seed(&r, seed);
	for (int v = 0; v < n; v++) {
		m->nodes[v].cluster = v % 3;
		m->o[v] = gb_rng_range(&r, 1e-6, 1e-5);
	}
	for (int u = 0; u < n; u++)
		for (int v = 0; v < n; v++) {
			int wide = u % 3 != v % 3;

			if (u == v)
				continue;
			m->lat[u * n + v] = wide ? gb_rng_range(&r, 5e-3, 50e-3)
						 : gb_rng_range(&r, 1e-4, 5e-4);
			m->bw[u * n + v] = wide ? gb_rng_range(&r, 1e6, 1e7)
						: gb_rng_range(&r, 5e7, 1.2e8);
		}
	return 0;
}

static void check(const struct gb_netmodel *m, const char *mname, int root, double size)
{
	struct gb_clmodel c = { 0 };

	if (gb_clmodel_from_nm(&c, m, root, size))
		bail("gb_clmodel_from_nm failed on %s", mname);
	for (int h = 0; h < GB_PLOGP_NHEUR; h++) {
		const char *name = gb_plogp_heur_name(h);
		const struct gb_planner *p = gb_planner_find(name);
		struct gb_plan_args a = { .root = root, .size = size, .seed = 1 };
		struct gb_tree t = { 0 }, t2 = { 0 }, ct = { 0 };
		int *wide_in = calloc(c.nc, sizeof(int));
		double *carr = malloc(sizeof(double) * c.nc), *narr = malloc(sizeof(double) * m->n);
		int err, one_in = 1, into_coord = 1, wan_first = 1, same_order = 1, coord_ok = 1;
		double cl, pl, ma;

		if (!p || !wide_in || !carr || !narr)
			bail("no planner '%s' or out of memory", name);
		err = gb_plan(p, m, &a, &t);
		is_int(err, 0, "%s %s root %d size %g: gb_plan (tree checked)", mname, name, root,
		       size);
		if (err) {
			skip(6, "no tree");
			goto next;
		}
		if (gb_plogp_schedule(&c, h, &ct, carr, NULL))
			bail("gb_plogp_schedule failed");

		for (int v = 0; v < m->n; v++) {
			int u = t.parent[v], cv = m->nodes[v].cluster;

			if (u < 0 || m->nodes[u].cluster == cv)
				continue;
			for (int j = 0; j < c.nc; j++)
				if (c.nmcluster[j] == cv) {
					wide_in[j]++;
					into_coord &= c.coord[j] == v;
				}
		}
		for (int j = 0; j < c.nc; j++) {
			int low = -1;

			one_in &= wide_in[j] == (j == c.root ? 0 : 1);
			for (int v = 0; v < m->n && low < 0; v++)
				if (m->nodes[v].cluster == c.nmcluster[j])
					low = v;
			coord_ok &= c.coord[j] == (j == c.root ? root : low);
		}
		ok(one_in && into_coord && coord_ok,
		   "%s %s: one wide-area edge into each non-root cluster, into its coordinator",
		   mname, name);

		/* Coordinator j's children: ct's children (as coordinators), then
		 * only intra-cluster nodes. */
		for (int j = 0; j < c.nc; j++) {
			int u = c.coord[j], x = 0;

			for (; x < t.nchild[u] && x < ct.nchild[j]; x++)
				same_order &= t.child[t.cstart[u] + x] ==
					      c.coord[ct.child[ct.cstart[j] + x]];
			same_order &= x == ct.nchild[j];
			for (; x < t.nchild[u]; x++)
				wan_first &= m->nodes[t.child[t.cstart[u] + x]].cluster ==
					     m->nodes[u].cluster;
		}
		ok(same_order && wan_first,
		   "%s %s: coordinators send wide-area first, in the cluster schedule's order",
		   mname, name);

		err = gb_plan(p, m, &a, &t2);
		ok(!err && gb_tree_equal(&t, &t2), "%s %s: deterministic", mname, name);

		cl = gb_clmodel_cost(&c, &ct, 0, NULL);
		pl = gb_cost_plogp(m, &t, size, NULL);
		ma = gb_cost_mateescu(m, &t, size, narr);
		ok(close_rel(cl, pl), "%s %s: cluster-level makespan %.9g == plogp model %.9g",
		   mname, name, cl, pl);
		if (m->gap_fixed) {
			skip(2, "model has gap_fixed: g(m) != Delta");
		} else {
			int arr_ok = 1;

			ok(close_rel(cl, ma), "%s %s: ... == mateescu model %.9g", mname, name,
			   ma);
			for (int j = 0; j < c.nc; j++)
				arr_ok &= close_rel(carr[j], narr[c.coord[j]]);
			ok(arr_ok, "%s %s: coordinators' arrivals agree with mateescu's", mname,
			   name);
		}
next:
		gb_tree_release(&t);
		gb_tree_release(&t2);
		gb_tree_release(&ct);
		free(wide_in);
		free(carr);
		free(narr);
	}
	gb_clmodel_release(&c);
}

int main(void)
{
	static const struct {
		int sites, cps, npc;
		uint64_t seed;
	} grids[] = { { 2, 2, 4, 1 }, { 3, 2, 5, 2 }, { 4, 4, 3, 3 }, { 1, 1, 6, 4 } };
	char name[64];

	for (size_t g = 0; g < sizeof(grids) / sizeof(grids[0]); g++) {
		struct gb_netmodel m = { 0 };

		if (gb_nm_gen_grid(&m, grids[g].sites, grids[g].cps, grids[g].npc, grids[g].seed))
			bail("gb_nm_gen_grid failed");
		snprintf(name, sizeof(name), "grid%dx%dx%d", grids[g].sites, grids[g].cps,
			 grids[g].npc);
		check(&m, name, 0, 1 << 20);
		check(&m, name, m.n - 2, 1024);
		gb_nm_release(&m);
	}
	{
		struct gb_netmodel m = { 0 };

		if (interleaved(&m, 11, 7))
			bail("cannot build the interleaved model");
		check(&m, "interleaved11", 7, 65536);
		check(&m, "interleaved11", 0, 1 << 20);
		gb_nm_release(&m);
	}
	return done_testing();
}
