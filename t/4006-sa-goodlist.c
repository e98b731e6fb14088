/* SPDX-License-Identifier: MIT */
/*
 * 4006-sa-goodlist - driverSA's good_list (seed 000 §2.2: "broadcast
 * trees whose estimated broadcast completion times are within 10 % of the
 * minimum") holds only such trees.
 *
 * gb_sa_driver() hands back good_list as frozen at the switch to the
 * refinement phase.  Every tree in it is re-evaluated with the registry's
 * cost model, independently of the annealer:
 *   - valid, rooted at the root;
 *   - cost within 10 % of the list's minimum, and equal to the cost the
 *     list recorded;
 *   - sorted by cost (the refinement phase cycles through it in order);
 *   - no tree twice; at most GB_SA_GOOD_MAX trees;
 *   - the list's minimum is >= the final best (refinement may improve it)
 *     and is the best the randomization phase found, so it is <= the first
 *     initial tree's cost.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gbplan.h"
#include "gbsa.h"
#include "tap.h"

static void check(const char *what, const struct gb_netmodel *m, struct gb_plan_args *a)
{
	struct gb_sa_goodlist g = { 0 };
	struct gb_sa_stats st = { 0 };
	struct gb_tree t;
	const char *model = a->model ? a->model : "mateescu";
	gb_cost_fn cost = gb_costmodel_find(model)->cost;
	int valid = 1, within = 1, recorded = 1, sorted = 1, unique = 1;
	double min = INFINITY;

	if (gb_tree_init(&t, m->n, a->root) < 0)
		bail("oom");
	if (gb_sa_driver(m, a, &t, &st, &g) < 0)
		bail("%s: driverSA failed", what);
	ok(g.n >= 1 && g.n <= GB_SA_GOOD_MAX, "%s: %d trees in good_list (max %d)", what, g.n,
	   GB_SA_GOOD_MAX);
	for (int i = 0; i < g.n; i++) {
		double c = cost(m, &g.trees[i], a->size, NULL);

		valid &= gb_tree_check(&g.trees[i], NULL) == 0 && g.trees[i].root == a->root;
		recorded &= fabs(c - g.cost[i]) <= 1e-9 * fmax(1, c);
		if (c < min)
			min = c;
		if (i > 0)
			sorted &= g.cost[i - 1] <= g.cost[i];
		for (int j = 0; j < i; j++)
			unique &= !gb_tree_equal(&g.trees[i], &g.trees[j]);
	}
	for (int i = 0; i < g.n; i++) {
		double c = cost(m, &g.trees[i], a->size, NULL);

		if (!(c <= min * GB_SA_GOOD_RATIO * (1 + 1e-12))) {
			within = 0;
			diag("  tree %d: %.9g > 1.1 x %.9g", i, c, min);
		}
	}
	ok(valid, "%s: every tree is valid and rooted at %d", what, a->root);
	ok(within, "%s: every tree within 10 %% of the list's best (%.6g s)", what, min);
	ok(recorded, "%s: recorded costs match the %s model", what, model);
	ok(sorted && unique, "%s: sorted by cost, no tree twice", what);
	ok(st.best_cost <= min && min <= st.initial_cost,
	   "%s: final best %.6g <= list best %.6g <= first initial %.6g", what, st.best_cost,
	   min, st.initial_cost);
	gb_sa_goodlist_release(&g);
	gb_sa_goodlist_release(&g);
	gb_tree_release(&t);
}

int main(void)
{
	struct gb_netmodel m;
	struct gb_plan_args a = { 0, 1048576, 6, 0, NULL };

	if (gb_nm_gen_gupta_fig3(&m, 32, 6) < 0)
		bail("model");
	check("fig3 32 nodes, 1 MB", &m, &a);
	a.seed = 7;
	a.size = 1024;
	check("fig3 32 nodes, 1 KB", &m, &a);
	gb_nm_release(&m);

	if (gb_nm_gen_grid(&m, 2, 2, 4, 6) < 0)
		bail("model");
	a.root = 5;
	a.size = 1048576;
	check("grid 2x2x4, 1 MB", &m, &a);
	a.model = "contention";
	check("grid 2x2x4, 1 MB, contention", &m, &a);
	a.model = NULL;
	a.budget_s = 0.02;
	check("grid 2x2x4, 1 MB, 20 ms budget", &m, &a);
	gb_nm_release(&m);
	return done_testing();
}
