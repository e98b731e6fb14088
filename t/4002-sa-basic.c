/* SPDX-License-Identifier: MIT */
/*
 * 4002-sa-basic - basicSA and driverSA (seed 000 Figs. 1-2) never return a
 * tree worse than the one they started from, and the annealer's own O(n)
 * Mateescu evaluation agrees with the registry's gb_cost_mateescu().
 *
 * For random models (Fig. 3's flat 0.1-10 Mbit/s matrices, hierarchical
 * grids), random roots and seeds, and initial trees that are random or
 * come from the static planners (binomial, flat, mateescu):
 *   - gb_sa_basic() returns a valid tree with the same root whose cost,
 *     recomputed independently, is <= the initial tree's;
 *   - the initial cost it reports equals gb_cost_mateescu(initial), and the
 *     best cost it reports equals gb_cost_mateescu(result);
 *   - the same holds when it optimises the contention model;
 *   - gb_sa_driver()'s best is <= its first random initial tree's cost.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbplan.h"
#include "gbsa.h"
#include "tap.h"

static int close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

/* A random recursive tree with random send orders, rooted at @root. */
static int random_tree(struct gb_tree *t, int n, int root, struct gb_rng *r)
{
	int *parent = malloc(sizeof(int) * n), *perm = malloc(sizeof(int) * n), ret;
	double *key = malloc(sizeof(double) * n);

	if (!parent || !perm || !key)
		bail("oom");
	for (int i = 0; i < n; i++)
		perm[i] = i;
	perm[root] = 0;
	perm[0] = root;
	for (int i = n - 1; i > 1; i--) {
		int j = 1 + (int)gb_rng_below(r, i), x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	parent[root] = -1;
	key[root] = 0;
	for (int i = 1; i < n; i++) {
		parent[perm[i]] = perm[gb_rng_below(r, i)];
		key[perm[i]] = gb_rng_uniform(r);
	}
	ret = gb_tree_init(t, n, root);
	if (ret == 0)
		ret = gb_tree_from_parents(t, parent, key);
	free(parent);
	free(perm);
	free(key);
	return ret;
}

static int make(int which, uint64_t seed, struct gb_netmodel *m)
{
	switch (which) {
	case 0:
		return gb_nm_gen_gupta_fig3(m, 32, seed);
	case 1:
		return gb_nm_gen_grid(m, 2, 2, 4, seed);
	case 2:
		return gb_nm_gen_grid(m, 4, 2, 8, seed);
	default:
		return gb_nm_gen_uniform(m, 9, 1 * GB_MBIT, 100 * GB_MBIT, 1e-3, 2e-5, seed);
	}
}

static const char *const model_names[] = { "fig3 32 nodes", "grid 2x2x4", "grid 4x2x8",
					    "uniform 9" };

static void basic(void)
{
	static const char *const starts[] = { "random", "binomial", "flat", "mateescu" };
	int runs = 0, valid = 1, notworse = 1, agree = 1, cagree = 1, improved = 0;
	struct gb_rng r;

	gb_rng_seed(&r, 4002);
	for (int w = 0; w < 4; w++) {
		for (int s = 0; s < 3; s++) {
			struct gb_netmodel m;

			if (make(w, 10 * w + s, &m) < 0)
				bail("model %s", model_names[w]);
			for (int st = 0; st < 4; st++) {
				struct gb_plan_args a = { (int)gb_rng_below(&r, m.n), 1048576,
							  gb_rng_next(&r), 0, NULL };
				struct gb_tree init, out;
				struct gb_sa_stats stats = { 0 };
				double c0, c1;
				int ret;

				if (st == 0) {
					ret = random_tree(&init, m.n, a.root, &r);
				} else {
					const struct gb_planner *p = gb_planner_find(starts[st]);

					ret = p ? gb_plan(p, &m, &a, &init) : -1;
				}
				if (ret < 0)
					bail("initial tree %s: %d", starts[st], ret);
				if (gb_tree_init(&out, m.n, a.root) < 0)
					bail("oom");
				ret = gb_sa_basic(&m, &a, &init, &out, &stats);
				runs++;
				if (ret < 0 || gb_tree_check(&out, NULL) < 0 ||
				    out.root != a.root) {
					valid = 0;
					diag("%s, %s start: ret %d", model_names[w], starts[st],
					     ret);
				} else {
					c0 = gb_cost_mateescu(&m, &init, a.size, NULL);
					c1 = gb_cost_mateescu(&m, &out, a.size, NULL);
					if (!(c1 <= c0)) {
						notworse = 0;
						diag("%s, %s start: %.9g > %.9g", model_names[w],
						     starts[st], c1, c0);
					}
					improved += c1 < c0;
					if (!close_to(stats.initial_cost, c0) ||
					    !close_to(stats.best_cost, c1)) {
						agree = 0;
						diag("%s: SA says %.12g -> %.12g, "
						     "model %.12g -> %.12g",
						     model_names[w], stats.initial_cost,
						     stats.best_cost, c0, c1);
					}
				}
				gb_tree_release(&out);

				/* The same from the contention model's point of view. */
				a.model = "contention";
				memset(&stats, 0, sizeof(stats));
				if (gb_tree_init(&out, m.n, a.root) < 0)
					bail("oom");
				ret = gb_sa_basic(&m, &a, &init, &out, &stats);
				if (ret < 0 || gb_tree_check(&out, NULL) < 0) {
					valid = 0;
				} else {
					c0 = gb_cost_contention(&m, &init, a.size, NULL);
					c1 = gb_cost_contention(&m, &out, a.size, NULL);
					if (!(c1 <= c0) || !close_to(stats.best_cost, c1)) {
						cagree = 0;
						diag("%s, contention: %.9g -> %.9g (SA says %.9g)",
						     model_names[w], c0, c1, stats.best_cost);
					}
				}
				gb_tree_release(&out);
				gb_tree_release(&init);
			}
			gb_nm_release(&m);
		}
	}
	ok(valid, "basicSA: valid trees, same root (%d runs)", runs);
	ok(notworse, "basicSA: never worse than its initial tree (mateescu)");
	ok(improved > runs / 2, "basicSA: improves most starts (%d of %d)", improved, runs);
	ok(agree, "the annealer's evaluation agrees with gb_cost_mateescu()");
	ok(cagree, "basicSA on the contention model: never worse, costs agree");
}

static void driver(void)
{
	int good = 1, runs = 0;

	for (int w = 0; w < 4; w++) {
		for (int s = 0; s < 2; s++) {
			struct gb_netmodel m;
			struct gb_plan_args a = { s * 3 % 9, 65536, 77 + s, 0, NULL };
			struct gb_sa_stats st = { 0 };
			struct gb_tree t;
			double c;

			if (make(w, 500 + s, &m) < 0 || gb_tree_init(&t, m.n, a.root) < 0)
				bail("model");
			if (gb_sa_driver(&m, &a, &t, &st, NULL) < 0) {
				good = 0;
				diag("%s: driverSA failed", model_names[w]);
			} else {
				c = gb_cost_mateescu(&m, &t, a.size, NULL);
				if (!(c <= st.initial_cost) || !close_to(c, st.best_cost) ||
				    st.random_invocations != GB_SA_RANDOM_INVOC ||
				    st.refine_invocations != GB_SA_REFINE_INVOC) {
					good = 0;
					diag("%s: best %.9g (says %.9g), first initial %.9g, "
					     "%d + %d invocations", model_names[w], c, st.best_cost,
					     st.initial_cost, st.random_invocations,
					     st.refine_invocations);
				}
			}
			runs++;
			gb_tree_release(&t);
			gb_nm_release(&m);
		}
	}
	ok(good, "driverSA: 50 + 25 invocations, best <= first initial tree (%d runs)", runs);
}

static void bad_input(void)
{
	struct gb_netmodel m;
	struct gb_tree init, out;
	struct gb_plan_args a = { 0, 1024, 1, 0, NULL };

	if (gb_nm_gen_grid(&m, 1, 1, 4, 1) < 0 || gb_tree_init(&out, 4, 0) < 0 ||
	    gb_tree_init(&init, 4, 1) < 0)
		bail("setup");
	is_int(gb_sa_basic(&m, &a, &init, &out, NULL), -22,
	       "basicSA: an initial tree with another root is -EINVAL");
	a.model = "nonesuch";
	is_int(gb_sa_driver(&m, &a, &out, NULL, NULL), -22, "an unknown cost model is -EINVAL");
	a.model = NULL;
	a.root = 4;
	is_int(gb_sa_driver(&m, &a, &out, NULL, NULL), -22, "a root out of range is -EINVAL");
	gb_tree_release(&init);
	gb_tree_release(&out);
	gb_nm_release(&m);
}

int main(void)
{
	basic();
	driver();
	bad_input();
	return done_testing();
}
