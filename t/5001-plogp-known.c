// SPDX-License-Identifier: MIT
/*
 * 5001-plogp-known - every pLogP heuristic (seed 002 §3.2-§4.1) on two
 * hand-made 4-cluster examples, schedules and makespans computed by hand.
 *
 * Notation: c_ij = g_ij + L_ij; a step picks j in B and its best sender i in
 * A; then a_j = RT_i + c_ij, RT_i += g_ij, RT_j = a_j.  best_j =
 * min_i RT_i + c_ij.  "paper" is max_j (a_j + T_j) (gb_clmodel_cost overlap
 * 1); "wan-first" is max_j (a_j + W_j + T_j), W_j = sum of j's g
 * (overlap 0), what the expanded node tree does.  L = 1 everywhere.
 *
 * ===================== Example A =====================
 *   g  | 0  1  2  3        c  | 0  1  2  3        T = [3, 7, 2, 12]
 *   0  | -  1  2  5        0  | -  2  3  6
 *   1  | 1  -  9  9        1  | 2  - 10 10
 *   2  | 2  9  -  6        2  | 3 10  -  7
 *   3  | 5  9  6  -        3  | 6 10  7  -
 *
 * ECEF:  s1 best = {1:2, 2:3, 3:6}: 0->1, a1 = 2, RT0 = 1.
 *        s2 best_2 = min(1+3, 2+10) = 4, best_3 = min(1+6, 2+10) = 7: 0->2,
 *           a2 = 4, RT0 = 3.
 *        s3 best_3 = min(3+6, 2+10, 4+7) = 9: 0->3, a3 = 9.
 *        paper max(0+3, 2+7, 4+2, 9+12) = 21; wan-first W0 = 8: max(11, 9, 6, 21) = 21.
 * ECEF-LA (F_j = min_{k in B\j} c_jk):
 *        s1 F = {1: min(10,10) = 10, 2: min(10,7) = 7, 3: min(10,7) = 7}
 *           E = {1: 12, 2: 10, 3: 13}: 0->2, a2 = 3, RT0 = 2.
 *        s2 best_1 = min(2+2, 3+10) = 4, best_3 = min(2+6, 3+7) = 8;
 *           F1 = c13 = 10, F3 = c31 = 10; E = {1: 14, 3: 18}: 0->1, a1 = 4, RT0 = 3.
 *        s3 best_3 = min(3+6, 4+10, 3+7) = 9: 0->3, a3 = 9.
 *        paper max(3, 11, 5, 21) = 21; wan-first 21.
 * ECEF-LAt (F_j = min_{k in B\j} c_jk + T_k):
 *        s1 F1 = min(10+2, 10+12) = 12, F2 = min(10+7, 7+12) = 17,
 *           F3 = min(10+7, 7+2) = 9; E = {1: 14, 2: 20, 3: 15}: 0->1, a1 = 2, RT0 = 1.
 *        s2 best_2 = 4, best_3 = 7 (both from 0); F2 = c23+T3 = 19, F3 = c32+T2 = 9;
 *           E = {2: 23, 3: 16}: 0->3, a3 = 7, RT0 = 6.
 *        s3 best_2 = min(6+3, 2+10, 7+7) = 9: 0->2, a2 = 9.
 *        paper max(3, 9, 11, 19) = 19; wan-first 19.
 * ECEF-LAT (F_j = max_{k in B\j} c_jk + T_k):
 *        s1 F1 = max(12, 22) = 22, F2 = max(17, 19) = 19, F3 = max(17, 9) = 17;
 *           E = {1: 24, 2: 22, 3: 23}: 0->2, a2 = 3, RT0 = 2.
 *        s2 best_1 = min(2+2, 3+10) = 4, best_3 = min(2+6, 3+7) = 8;
 *           F1 = c13+T3 = 22, F3 = c31+T1 = 17; E = {1: 26, 3: 25}: 0->3, a3 = 8, RT0 = 7.
 *        s3 best_1 = min(7+2, 3+10, 8+10) = 9: 0->1, a1 = 9.
 *        paper max(3, 16, 5, 20) = 20; wan-first 20.
 * BottomUp (max best_j + T_j):
 *        s1 E = {1: 2+7 = 9, 2: 3+2 = 5, 3: 6+12 = 18}: 0->3, a3 = 6, RT0 = 5.
 *        s2 best_1 = min(5+2, 6+10) = 7, best_2 = min(5+3, 6+7) = 8;
 *           E = {1: 14, 2: 10}: 0->1, a1 = 7, RT0 = 6.
 *        s3 best_2 = min(6+3, 7+10, 6+7) = 9: 0->2, a2 = 9.
 *        paper max(3, 14, 11, 18) = 18; wan-first 18.
 * MostCrit (mean absolute deviation of E1 = best, E2 = best + F(LA), E3 = best + T):
 *        s1 E1 = {2, 3, 6}: mean 11/3, MD = (5/3 + 2/3 + 7/3)/3 = 14/9
 *           E2 = {12, 10, 13}: mean 35/3, MD = (1/3 + 5/3 + 4/3)/3 = 10/9
 *           E3 = {9, 5, 18}: mean 32/3, MD = (5/3 + 17/3 + 22/3)/3 = 44/9  -> (3)
 *           BottomUp's step: 0->3, a3 = 6.
 *        s2 E1 = {7, 8}: MD 1/2; E2 = {7+10, 8+10}: MD 1/2; E3 = {14, 10}: MD 2 -> (3)
 *           0->1, a1 = 7.
 *        s3 one candidate (not counted): 0->2, a2 = 9.   Same as BottomUp: 18 / 18.
 *
 * ===================== Example B =====================
 *   g  | 0  1  2  3        c  | 0  1  2  3        T = [16, 12, 11, 11]
 *   0  | -  5  1  2        0  | -  6  2  3
 *   1  | 5  -  9  6        1  | 6  - 10  7
 *   2  | 1  9  -  3        2  | 2 10  -  4
 *   3  | 2  6  3  -        3  | 3  7  4  -
 *
 * ECEF:  s1 best = {1: 6, 2: 2, 3: 3}: 0->2, a2 = 2, RT0 = 1.
 *        s2 best_1 = min(1+6, 2+10) = 7, best_3 = min(1+3, 2+4) = 4: 0->3, a3 = 4, RT0 = 3.
 *        s3 best_1 = min(3+6, 2+10, 4+7) = 9: 0->1, a1 = 9.
 *        paper max(16, 9+12, 2+11, 4+11) = 21; wan-first W0 = 8: max(24, 21, 13, 15) = 24.
 * ECEF-LA: s1 F = {1: min(10,7) = 7, 2: min(10,4) = 4, 3: min(7,4) = 4};
 *           E = {1: 13, 2: 6, 3: 7}: 0->2.
 *        s2 best_1 = 7, best_3 = 4; F1 = c13 = 7, F3 = c31 = 7; E = {1: 14, 3: 11}: 0->3.
 *        s3 0->1, a1 = 9.  As ECEF: 21 / 24.
 * ECEF-LAt: s1 F1 = min(10+11, 7+11) = 18, F2 = min(10+12, 4+11) = 15,
 *           F3 = min(7+12, 4+11) = 15; E = {1: 24, 2: 17, 3: 18}: 0->2.
 *        s2 F1 = c13+T3 = 18, F3 = c31+T1 = 19; E = {1: 25, 3: 23}: 0->3.
 *        s3 0->1, a1 = 9.  As ECEF: 21 / 24.
 * ECEF-LAT: s1 F1 = max(21, 18) = 21, F2 = max(22, 15) = 22, F3 = max(19, 15) = 19;
 *           E = {1: 27, 2: 24, 3: 22}: 0->3, a3 = 3, RT0 = 2.
 *        s2 best_1 = min(2+6, 3+7) = 8, best_2 = min(2+2, 3+4) = 4;
 *           F1 = c12+T2 = 21, F2 = c21+T1 = 22; E = {1: 29, 2: 26}: 0->2, a2 = 4, RT0 = 3.
 *        s3 best_1 = min(3+6, 3+7, 4+10) = 9: 0->1, a1 = 9.
 *        paper max(16, 21, 15, 14) = 21; wan-first 24.
 * BottomUp: s1 E = {1: 6+12 = 18, 2: 2+11 = 13, 3: 3+11 = 14}: 0->1, a1 = 6, RT0 = 5.
 *        s2 best_2 = min(5+2, 6+10) = 7, best_3 = min(5+3, 6+7) = 8;
 *           E = {2: 18, 3: 19}: 0->3, a3 = 8, RT0 = 7.
 *        s3 best_2 = min(7+2, 6+10, 8+4) = 9: 0->2, a2 = 9.
 *        paper max(16, 18, 20, 19) = 20; wan-first W0 = 8: 24.
 * MostCrit: s1 E1 = {6, 2, 3}: mean 11/3, MD = (7/3 + 5/3 + 2/3)/3 = 14/9
 *           E2 = {13, 6, 7}: mean 26/3, MD = (13/3 + 8/3 + 5/3)/3 = 26/9   -> (2)
 *           E3 = {18, 13, 14}: mean 15, MD = (3 + 2 + 1)/3 = 2 = 18/9
 *           ECEF-LA's step: 0->2, a2 = 2, RT0 = 1, RT2 = 2.
 *        s2 best_1 = 7 (0), best_3 = 4 (0): E1 = {7, 4}: MD 3/2;
 *           E2 = {7+7, 4+7}: MD 3/2; E3 = {7+12, 4+11}: MD 2   -> (3)
 *           BottomUp's step: 0->1, a1 = 7, RT0 = 6.
 *        s3 best_3 = min(6+3, 7+7, 2+4) = 6 from 2: 2->3, a3 = 6.
 *        paper max(16, 7+12, 2+11, 6+11) = 19 (the best of the six);
 *        wan-first W0 = 6, W2 = 3: max(22, 19, 16, 17) = 22.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gbplan.h"
#include "tap.h"

struct expect {
	int h;
	int send[3][2];     /* decision order: from, to */
	double arr[4];
	double paper, wan_first;
	int factor[3];
};

struct example {
	const char *name;
	int g[4][4];
	double T[4];
	struct expect e[GB_PLOGP_NHEUR];
};

static const struct example examples[] = {
	{ "A", { { 0, 1, 2, 5 }, { 1, 0, 9, 9 }, { 2, 9, 0, 6 }, { 5, 9, 6, 0 } },
	  { 3, 7, 2, 12 },
	  {
		  { GB_PLOGP_ECEF, { { 0, 1 }, { 0, 2 }, { 0, 3 } }, { 0, 2, 4, 9 }, 21, 21,
		    { 0 } },
		  { GB_PLOGP_ECEF_LA, { { 0, 2 }, { 0, 1 }, { 0, 3 } }, { 0, 4, 3, 9 }, 21, 21,
		    { 0 } },
		  { GB_PLOGP_ECEF_LAT_MIN, { { 0, 1 }, { 0, 3 }, { 0, 2 } }, { 0, 2, 9, 7 }, 19,
		    19, { 0 } },
		  { GB_PLOGP_ECEF_LAT_MAX, { { 0, 2 }, { 0, 3 }, { 0, 1 } }, { 0, 9, 3, 8 }, 20,
		    20, { 0 } },
		  { GB_PLOGP_BOTTOMUP, { { 0, 3 }, { 0, 1 }, { 0, 2 } }, { 0, 7, 9, 6 }, 18, 18,
		    { 0 } },
		  { GB_PLOGP_MOSTCRIT, { { 0, 3 }, { 0, 1 }, { 0, 2 } }, { 0, 7, 9, 6 }, 18, 18,
		    { 0, 0, 2 } },
	  } },
	{ "B", { { 0, 5, 1, 2 }, { 5, 0, 9, 6 }, { 1, 9, 0, 3 }, { 2, 6, 3, 0 } },
	  { 16, 12, 11, 11 },
	  {
		  { GB_PLOGP_ECEF, { { 0, 2 }, { 0, 3 }, { 0, 1 } }, { 0, 9, 2, 4 }, 21, 24,
		    { 0 } },
		  { GB_PLOGP_ECEF_LA, { { 0, 2 }, { 0, 3 }, { 0, 1 } }, { 0, 9, 2, 4 }, 21, 24,
		    { 0 } },
		  { GB_PLOGP_ECEF_LAT_MIN, { { 0, 2 }, { 0, 3 }, { 0, 1 } }, { 0, 9, 2, 4 }, 21,
		    24, { 0 } },
		  { GB_PLOGP_ECEF_LAT_MAX, { { 0, 3 }, { 0, 2 }, { 0, 1 } }, { 0, 9, 4, 3 }, 21,
		    24, { 0 } },
		  { GB_PLOGP_BOTTOMUP, { { 0, 1 }, { 0, 3 }, { 0, 2 } }, { 0, 6, 9, 8 }, 20, 24,
		    { 0 } },
		  { GB_PLOGP_MOSTCRIT, { { 0, 2 }, { 0, 1 }, { 2, 3 } }, { 0, 7, 2, 6 }, 19, 22,
		    { 0, 1, 1 } },
	  } },
};

static int load(struct gb_clmodel *c, const struct example *x)
{
	if (gb_clmodel_init(c, 4))
		return -1;
	c->root = 0;
	for (int i = 0; i < 4; i++) {
		c->T[i] = x->T[i];
		for (int j = 0; j < 4; j++) {
			c->g[i * 4 + j] = x->g[i][j];
			c->L[i * 4 + j] = i == j ? 0 : 1;
		}
	}
	return 0;
}

/* The cluster tree has exactly the expected parents and per-sender send orders. */
static int same_schedule(const struct gb_tree *ct, const struct expect *e)
{
	int pos[4] = { 0 };

	if (ct->n != 4 || ct->root != 0 || ct->parent[0] != -1)
		return 0;
	for (int s = 0; s < 3; s++) {
		int from = e->send[s][0], to = e->send[s][1];

		if (ct->parent[to] != from || pos[from] >= ct->nchild[from] ||
		    ct->child[ct->cstart[from] + pos[from]] != to)
			return 0;
		pos[from]++;
	}
	for (int v = 0; v < 4; v++)
		if (pos[v] != ct->nchild[v])
			return 0;
	return 1;
}

static void run_example(const struct example *x)
{
	struct gb_clmodel c;

	if (load(&c, x))
		bail("out of memory");
	for (int k = 0; k < GB_PLOGP_NHEUR; k++) {
		const struct expect *e = &x->e[k];
		const char *name = gb_plogp_heur_name(e->h);
		struct gb_tree ct = { 0 };
		double arr[4];
		int f[3], ok_arr = 1, err;

		err = gb_plogp_schedule(&c, e->h, &ct, arr, f);
		is_int(err, 0, "%s %s: schedules", x->name, name);
		if (err) {
			skip(5, "no schedule");
			continue;
		}
		ok(same_schedule(&ct, e), "%s %s: schedule %d->%d, %d->%d, %d->%d", x->name, name,
		   e->send[0][0], e->send[0][1], e->send[1][0], e->send[1][1], e->send[2][0],
		   e->send[2][1]);
		for (int j = 0; j < 4; j++)
			ok_arr &= arr[j] == e->arr[j];
		ok(ok_arr, "%s %s: arrivals %g %g %g %g", x->name, name, e->arr[0], e->arr[1],
		   e->arr[2], e->arr[3]);
		is_double(gb_clmodel_cost(&c, &ct, 1, NULL), e->paper, 1e-12,
			  "%s %s: paper makespan max(a_j + T_j) = %g", x->name, name, e->paper);
		is_double(gb_clmodel_cost(&c, &ct, 0, NULL), e->wan_first, 1e-12,
			  "%s %s: wide-area-first makespan = %g", x->name, name, e->wan_first);
		ok(f[0] == e->factor[0] && f[1] == e->factor[1] && f[2] == e->factor[2],
		   "%s %s: MostCrit factor counts %d/%d/%d", x->name, name, e->factor[0],
		   e->factor[1], e->factor[2]);
		gb_tree_release(&ct);
	}
	gb_clmodel_release(&c);
}

int main(void)
{
	struct gb_clmodel c;
	struct gb_tree ct = { 0 };
	double arr[2];
	int f[3];

	for (size_t x = 0; x < sizeof(examples) / sizeof(examples[0]); x++)
		run_example(&examples[x]);

	/* Names: the heuristics are the registry's cluster planners. */
	for (int h = 0; h < GB_PLOGP_NHEUR; h++) {
		const struct gb_planner *p = gb_planner_find(gb_plogp_heur_name(h));

		ok(p && (p->flags & GB_PLAN_CLUSTER) && gb_plogp_heur_find(p->name) == h,
		   "'%s' is registered as a cluster planner", gb_plogp_heur_name(h));
	}
	is_int(gb_plogp_heur_find("nope"), -ENOENT, "unknown heuristic: -ENOENT");
	ok(gb_plogp_heur_name(GB_PLOGP_NHEUR) == NULL, "name out of range: NULL");

	/* Degenerate sizes: one cluster (nothing to send), two clusters. */
	if (gb_clmodel_init(&c, 1))
		bail("out of memory");
	c.T[0] = 5;
	for (int h = 0; h < GB_PLOGP_NHEUR; h++) {
		int err = gb_plogp_schedule(&c, h, &ct, arr, f);

		ok(!err && ct.n == 1 && ct.nchild[0] == 0 &&
		   gb_clmodel_cost(&c, &ct, 1, NULL) == 5,
		   "%s: one cluster, makespan T_0", gb_plogp_heur_name(h));
		gb_tree_release(&ct);
	}
	gb_clmodel_release(&c);
	if (gb_clmodel_init(&c, 2))
		bail("out of memory");
	c.root = 1;
	c.g[1 * 2 + 0] = 2;
	c.L[1 * 2 + 0] = 0.5;
	c.T[0] = 1;
	c.T[1] = 3;
	for (int h = 0; h < GB_PLOGP_NHEUR; h++) {
		int err = gb_plogp_schedule(&c, h, &ct, arr, f);

		/* 1 -> 0: a0 = 2.5; max(2.5 + 1, 0 + 3) = 3.5 */
		ok(!err && ct.root == 1 && ct.parent[0] == 1 && arr[0] == 2.5 &&
		   gb_clmodel_cost(&c, &ct, 1, NULL) == 3.5,
		   "%s: two clusters rooted at 1, makespan 3.5", gb_plogp_heur_name(h));
		gb_tree_release(&ct);
	}
	is_int(gb_plogp_schedule(&c, GB_PLOGP_NHEUR, &ct, NULL, NULL), -EINVAL,
	       "unknown heuristic number: -EINVAL");
	c.root = 2;
	is_int(gb_plogp_schedule(&c, GB_PLOGP_ECEF, &ct, NULL, NULL), -EINVAL,
	       "root out of range: -EINVAL");
	gb_clmodel_release(&c);
	return done_testing();
}
