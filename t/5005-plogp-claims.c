// SPDX-License-Identifier: MIT
/*
 * 5005-plogp-claims - what seed 002 §4.2 claims about its simulation, on
 * the same kind of instances (gb_clmodel_gen_fkaier(), mean of 100 draws,
 * makespan max_j(arrival_j + T_j)), at 10, 20 and 40 clusters.
 *
 * Table 1 (Figure 2), asserted because it reproduces:
 *   (a) "our new heuristic (noted MostCrit) gives exactly the same values as
 *       BottomUp": equal makespans (we see it on every draw; we assert 95 %
 *       of the draws, as a rare difference would not be a bug);
 *   (b) it does so because "factor (3) ... will be retained": MostCrit
 *       satisfies factor (3) in most steps (we see 92-96 %, assert 80 %);
 *   (c) "all heuristics give almost the same completion time": every mean
 *       within 15 % of the best mean.
 *
 * Table 2 (Figure 3) claims that "bottomUp keeps giving good performances as
 * well as our new heuristic 'MostCrit' ... Other heuristics behave worse".
 * That does NOT reproduce: with T much smaller than g, BottomUp's
 * max_j(best_j + T_j) picks the farthest cluster first and is the worst
 * heuristic by far, and MostCrit, which often takes BottomUp's step, sits
 * in between.  No reading of BottomUp we tried changes that (see the
 * report).  The figures are printed as diagnostics and the claim is
 * skipped with that reason rather than asserted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbplan.h"
#include "tap.h"

#define NH GB_PLOGP_NHEUR
#define DRAWS 100

struct point {
	double mean[NH];
	int mc_eq_bu;          /* draws where MostCrit == BottomUp */
	long fac[3];
};

static void run(int table, int k, struct point *p)
{
	memset(p, 0, sizeof(*p));
	for (int d = 0; d < DRAWS; d++) {
		struct gb_clmodel c;
		double t[NH];

		if (gb_clmodel_gen_fkaier(&c, k, table, 5005000u + 1000u * k + d))
			bail("gb_clmodel_gen_fkaier failed");
		for (int h = 0; h < NH; h++) {
			struct gb_tree ct = { 0 };
			int f[3];

			if (gb_plogp_schedule(&c, h, &ct, NULL, f))
				bail("gb_plogp_schedule failed");
			t[h] = gb_clmodel_cost(&c, &ct, 1, NULL);
			p->mean[h] += t[h] / DRAWS;
			if (h == GB_PLOGP_MOSTCRIT)
				for (int x = 0; x < 3; x++)
					p->fac[x] += f[x];
			gb_tree_release(&ct);
		}
		p->mc_eq_bu += t[GB_PLOGP_MOSTCRIT] == t[GB_PLOGP_BOTTOMUP];
		gb_clmodel_release(&c);
	}
}

static void show(int table, int k, const struct point *p)
{
	static const char *const tname[3] = { "table 1", "table 2 left", "table 2 right" };
	char line[256];
	int n = snprintf(line, sizeof(line), "%s, %2d clusters:", tname[table], k);

	for (int h = 0; h < NH && n < (int)sizeof(line); h++)
		n += snprintf(line + n, sizeof(line) - n, " %s %.3f", gb_plogp_heur_name(h),
			      p->mean[h]);
	diag("%s", line);
}

int main(void)
{
	static const int ks[] = { 10, 20, 40 };

	for (size_t x = 0; x < sizeof(ks) / sizeof(ks[0]); x++) {
		int k = ks[x];
		struct point p;
		double best = INFINITY, worst = 0;
		long nf;

		run(0, k, &p);
		show(0, k, &p);
		for (int h = 0; h < NH; h++) {
			best = fmin(best, p.mean[h]);
			worst = fmax(worst, p.mean[h]);
		}
		nf = p.fac[0] + p.fac[1] + p.fac[2];
		ok(p.mc_eq_bu >= 0.95 * DRAWS,
		   "table 1, %d clusters: MostCrit == BottomUp on %d of %d draws", k, p.mc_eq_bu,
		   DRAWS);
		ok(nf > 0 && p.fac[2] >= 0.8 * nf,
		   "table 1, %d clusters: MostCrit satisfies factor (3) in %.1f %% of its steps", k,
		   nf ? 100.0 * p.fac[2] / nf : 0.0);
		ok(worst <= 1.15 * best,
		   "table 1, %d clusters: all heuristics within 15 %% (worst/best = %.3f)", k,
		   worst / best);
	}
	for (int table = 1; table <= 2; table++)
		for (size_t x = 0; x < sizeof(ks) / sizeof(ks[0]); x++) {
			struct point p;
			double others = INFINITY;

			run(table, ks[x], &p);
			show(table, ks[x], &p);
			for (int h = 0; h < GB_PLOGP_BOTTOMUP; h++)
				others = fmin(others, p.mean[h]);
			diag("  BottomUp / best ECEF-family = %.2f, "
			     "MostCrit / best ECEF-family = %.2f",
			     p.mean[GB_PLOGP_BOTTOMUP] / others,
			     p.mean[GB_PLOGP_MOSTCRIT] / others);
			skip(1, "seed 002's Table 2 claim (BottomUp and MostCrit best) does not "
				"reproduce: see the diagnostics and the report");
		}
	return done_testing();
}
