/* SPDX-License-Identifier: MIT */
/*
 * 3005-planner-props - properties every registered planner must have
 * (issue 3, "Tests that must exist: Properties").  The test iterates over
 * gb_planners[], so a planner is covered as soon as it is registered.
 *
 * For random models of many shapes (1 node, 2 nodes, one cluster, many
 * sites, flat random matrices) and random roots and sizes:
 *   - the tree is valid (spanning, acyclic) and rooted at the given root;
 *   - it is the same tree when planned twice with the same seed (anytime
 *     planners: with the paper's fixed invocation counts, budget 0);
 *   - every cost model gives it a finite time;
 *   - cluster-level planners (and magpie, mpich-g2) enter each cluster
 *     through exactly one wide-area edge (one coordinator per cluster).
 * Nothing here is timed: the anytime planners' time budget is t/3011's,
 * a file of its own so that the sanitizer pass can run this one beside
 * other files at nice 19 and that one with nothing beside it
 * (cmake/bootstrap, BUDGET_C).
 *
 * Under the sanitizers (GRIDBED_SANITIZED, set by cmake/bootstrap's second
 * pass) one model per shape instead of two, and the paper's fixed counts
 * (so determinism) up to 12 nodes instead of 20: the plain pass runs all.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbplan.h"
#include "tap.h"

struct shape {
	const char *what;
	int kind; /* 0 grid, 1 uniform */
	int a, b, c;
};

static const struct shape shapes[] = {
	{ "1 node", 0, 1, 1, 1 },
	{ "2 nodes, 2 sites", 0, 2, 1, 1 },
	{ "one cluster of 7", 0, 1, 1, 7 },
	{ "3 sites x 2 clusters x 2", 0, 3, 2, 2 },
	{ "2 sites x 3 clusters x 3 (18)", 0, 2, 3, 3 },
	{ "4 sites x 1 cluster x 5 (20)", 0, 4, 1, 5 },
	{ "flat random 9", 1, 9, 0, 0 },
	{ "flat random 16", 1, 16, 0, 0 },
	{ "teragrid-like 4 x 2 x 8 (64)", 0, 4, 2, 8 },
};
#define NSHAPES ((int)(sizeof(shapes) / sizeof(shapes[0])))

static int make(const struct shape *s, uint64_t seed, struct gb_netmodel *m)
{
	if (s->kind == 1)
		return gb_nm_gen_uniform(m, s->a, 0.1 * GB_MBIT, 10 * GB_MBIT, 1e-3, 1e-5, seed);
	return gb_nm_gen_grid(m, s->a, s->b, s->c, seed);
}

static int one_entry_per_cluster(const struct gb_netmodel *m, const struct gb_tree *t)
{
	int *in = calloc(m->nclusters, sizeof(int)), good = 1;

	for (int v = 0; v < m->n; v++) {
		int p = t->parent[v];

		if (p >= 0 && m->nodes[p].cluster != m->nodes[v].cluster)
			in[m->nodes[v].cluster]++;
	}
	for (int c = 0; c < m->nclusters; c++) {
		int want = c == m->nodes[t->root].cluster ? 0 : 1;
		int has = 0;

		for (int v = 0; v < m->n; v++)
			has |= m->nodes[v].cluster == c;
		good &= !has || in[c] == want;
	}
	free(in);
	return good;
}

static void props(const struct gb_planner *p)
{
	struct gb_rng r;
	int valid = 1, rooted = 1, det = 1, finite = 1, entry = 1, runs = 0;
	int is_anytime = p->flags & GB_PLAN_ANYTIME;
	int is_cluster = (p->flags & GB_PLAN_CLUSTER) || !strcmp(p->name, "magpie") ||
			 !strcmp(p->name, "mpich-g2");
	struct gb_err why = { "" };

	const int per_shape = getenv("GRIDBED_SANITIZED") ? 1 : 2;
	/* the largest model planned with fixed counts: under the sanitizers,
	 * sa-contention's simulations at fixed counts on 16-20 nodes were 88 s */
	const int fixed_max = getenv("GRIDBED_SANITIZED") ? 12 : 20;

	gb_rng_seed(&r, 3005);
	for (int s = 0; s < NSHAPES; s++) {
		for (int k = 0; k < per_shape; k++) {
			static const double sizes[] = { 1, 65536, 1048576 };
			struct gb_netmodel m;
			struct gb_tree t1, t2;
			struct gb_plan_args a;
			int ret;

			if (make(&shapes[s], 100 * s + k, &m) < 0)
				bail("model %s", shapes[s].what);
			a.root = (int)gb_rng_below(&r, m.n);
			a.size = sizes[gb_rng_below(&r, 3)];
			a.seed = gb_rng_next(&r);
			a.model = NULL;
			/* Determinism needs the paper's fixed counts (budget 0),
			 * which can take long on big models: keep those for the
			 * small ones, give the big ones a short budget. */
			a.budget_s = is_anytime && m.n > fixed_max ? 0.02 : 0;
			ret = gb_plan(p, &m, &a, &t1);
			runs++;
			if (ret < 0) {
				valid = 0;
				diag("%s on %s: gb_plan returned %d", p->name, shapes[s].what, ret);
				gb_nm_release(&m);
				continue;
			}
			if (gb_tree_check(&t1, &why) < 0) {
				valid = 0;
				diag("%s on %s: %s", p->name, shapes[s].what, why.msg);
			}
			rooted &= t1.root == a.root && t1.parent[a.root] == -1 && t1.n == m.n;
			for (int i = 0; i < gb_ncostmodels; i++)
				finite &= isfinite(gb_costmodels[i].cost(&m, &t1, a.size, NULL));
			if (is_cluster && !one_entry_per_cluster(&m, &t1)) {
				entry = 0;
				diag("%s on %s: a cluster is entered more than once", p->name,
				     shapes[s].what);
			}
			if (a.budget_s == 0) {
				if (gb_plan(p, &m, &a, &t2) < 0 || !gb_tree_equal(&t1, &t2)) {
					det = 0;
					diag("%s on %s: not deterministic for seed %llu", p->name,
					     shapes[s].what, (unsigned long long)a.seed);
				}
				gb_tree_release(&t2);
			}
			gb_tree_release(&t1);
			gb_nm_release(&m);
		}
	}
	ok(valid, "%s: valid trees on %d models", p->name, runs);
	ok(rooted, "%s: rooted at the given root", p->name);
	ok(det, "%s: deterministic for a seed", p->name);
	ok(finite, "%s: finite time under every cost model", p->name);
	if (is_cluster)
		ok(entry, "%s: one wide-area entry per cluster", p->name);
	else
		skip(1, "not a cluster-level planner");
}

int main(void)
{
	ok(gb_nplanners >= 5, "%d planners registered", gb_nplanners);
	for (int i = 0; i < gb_nplanners; i++) {
		ok(gb_planner_find(gb_planners[i].name) == &gb_planners[i] &&
		   gb_planners[i].summary && gb_planners[i].plan,
		   "'%s' is found by name", gb_planners[i].name);
		props(&gb_planners[i]);
	}
	ok(gb_planner_find("nonesuch") == NULL, "unknown names are not found");
	return done_testing();
}
