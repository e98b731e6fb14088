/* SPDX-License-Identifier: MIT */
/*
 * 4009-sa-schedule - basicSA follows the annealing schedule of seed 000
 * Fig. 1, as recorded by gb_sa_basic() in gb_sa_stats.schedule:
 *
 *   initialTemp = 100, TEMP_FACTOR = 0.8, minTemp = 1 (line 2; the text of
 *   §2.2 says 0), at most total_iter_for_temp = 80 transformations per
 *   temperature (line 8), a temperature ends at the 20th accept (lines
 *   30-32), the run ends when <= 3 % of the 80 tries were accepted and no
 *   new best was found (lines 33-35), one broadcast_cost per tree
 *   (lines 4, 10).
 *
 * The constants below are Fig. 1's, written again here rather than taken
 * from gbsa.h, so that a change of the header's values fails the test.
 *
 * Why a greedy hill-climber fails it (checked by hand: basicSA made greedy
 * locally, the test failed, then reverted):
 *   - the flat model, where every tree costs the same, has every move at
 *     diff = 0, which Fig. 1 accepts (exp(0) = 1 > randN): 20 accepts at
 *     each of the 21 temperatures, to minTemp.  A climber that accepts only
 *     improvements accepts nothing and stops at the first temperature;
 *   - on random models the first temperature (100, costs in ms) accepts
 *     costlier trees (uphill > 0) and reaches 20 accepts before 80 tries;
 *     a climber accepts no uphill move.
 * Seeds are looped over; every one must pass.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gbplan.h"
#include "gbsa.h"
#include "tap.h"

#define FIG1_INITIAL_TEMP   100.0  /* Fig. 1 line 2 */
#define FIG1_MIN_TEMP       1.0    /* Fig. 1 line 2 */
#define FIG1_TEMP_FACTOR    0.8    /* Fig. 1 line 2 */
#define FIG1_ITER_FOR_TEMP  80     /* Fig. 1 line 2, total_iter_for_temp */
#define FIG1_ACCEPT_BREAK   20     /* Fig. 1 line 30 */
#define FIG1_STOP_FRACTION  0.03   /* Fig. 1 line 33 */

/* 100 * 0.8^i > 1 for i = 0..20 and not for i = 21. */
#define FIG1_NTEMPS         21

/* A star from the root, children in index order. */
static void star(struct gb_tree *t, int n, int root)
{
	int *par = malloc(sizeof(int) * n);
	double *key = malloc(sizeof(double) * n);

	if (!par || !key || gb_tree_init(t, n, root) < 0)
		bail("oom");
	for (int v = 0; v < n; v++) {
		par[v] = v == root ? -1 : root;
		key[v] = v;
	}
	if (gb_tree_from_parents(t, par, key) < 0)
		bail("star");
	free(par);
	free(key);
}

/* Checks that hold for every run; returns 1 if all do (diag otherwise). */
static int schedule_ok(const struct gb_sa_schedule *s, const char *what)
{
	long tries = 0;
	int good = 1;

	if (s->ntemps < 1 || s->ntemps > FIG1_NTEMPS) {
		diag("%s: %d temperatures", what, s->ntemps);
		return 0;
	}
	for (int i = 0; i < s->ntemps; i++) {
		const struct gb_sa_temp_stats *t = &s->t[i];
		double want = FIG1_INITIAL_TEMP * pow(FIG1_TEMP_FACTOR, i);
		int frozen = t->accepts <= FIG1_STOP_FRACTION * FIG1_ITER_FOR_TEMP &&
			     !t->best_found;

		tries += t->tries;
		if (fabs(t->temp - want) > 1e-9 * want || !(t->temp > FIG1_MIN_TEMP)) {
			diag("%s: temperature %d is %.12g, Fig. 1 gives %.12g", what, i, t->temp,
			     want);
			good = 0;
		}
		if (t->tries > FIG1_ITER_FOR_TEMP || t->accepts > FIG1_ACCEPT_BREAK ||
		    t->accepts > t->tries || t->uphill > t->accepts) {
			diag("%s: T=%g: %d tries, %d accepts, %d uphill", what, t->temp, t->tries,
			     t->accepts, t->uphill);
			good = 0;
		}
		/* The for loop ends at 20 accepts or after 80 tries, not earlier. */
		if (t->accepts < FIG1_ACCEPT_BREAK && t->tries != FIG1_ITER_FOR_TEMP) {
			diag("%s: T=%g left after %d tries with %d accepts", what, t->temp,
			     t->tries, t->accepts);
			good = 0;
		}
		/* Lines 33-35 end the run at the first frozen temperature. */
		if (frozen != (i == s->ntemps - 1 && s->stop == GB_SA_STOP_FROZEN)) {
			diag("%s: T=%g: %d accepts, best_found %d, but stop %d at %d of %d", what,
			     t->temp, t->accepts, t->best_found, s->stop, i, s->ntemps);
			good = 0;
		}
	}
	if (s->stop == GB_SA_STOP_MINTEMP && s->ntemps != FIG1_NTEMPS) {
		diag("%s: reached minTemp after %d temperatures", what, s->ntemps);
		good = 0;
	}
	if (s->stop != GB_SA_STOP_MINTEMP && s->stop != GB_SA_STOP_FROZEN) {
		diag("%s: stopped for reason %d", what, s->stop);
		good = 0;
	}
	if (s->evaluations != 1 + tries) {
		diag("%s: %ld evaluations for %ld tries", what, s->evaluations, tries);
		good = 0;
	}
	return good;
}

/* Every tree costs the same: no latency, no injection, unlimited links. */
static void flat_model(void)
{
	struct gb_netmodel m;
	int n = 8, good = 1, all20 = 1;
	long evals = 0;

	if (gb_nm_init(&m, n) < 0)
		bail("oom");
	for (int i = 0; i < n; i++) {
		m.o[i] = 0;
		for (int j = 0; j < n; j++) {
			m.lat[i * n + j] = 0;
			m.bw[i * n + j] = INFINITY;
		}
	}
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct gb_plan_args a = { 0, 65536, seed, 0, NULL };
		struct gb_sa_schedule sch;
		struct gb_sa_stats st = { 0 };
		struct gb_tree init, out;

		st.schedule = &sch;
		star(&init, n, 0);
		if (gb_tree_init(&out, n, 0) < 0 || gb_sa_basic(&m, &a, &init, &out, &st) < 0)
			bail("gb_sa_basic on the flat model");
		good &= schedule_ok(&sch, "flat model");
		good &= sch.stop == GB_SA_STOP_MINTEMP && sch.ntemps == FIG1_NTEMPS;
		for (int i = 0; i < sch.ntemps; i++)
			all20 &= sch.t[i].tries == FIG1_ACCEPT_BREAK &&
				 sch.t[i].accepts == FIG1_ACCEPT_BREAK && sch.t[i].uphill == 0;
		evals = sch.evaluations;
		good &= st.evaluations == sch.evaluations;
		gb_tree_release(&init);
		gb_tree_release(&out);
	}
	ok(good, "flat model: 21 temperatures 100 * 0.8^i down to minTemp 1 (Fig. 1 lines 2, 6, 37)");
	ok(all20, "  every move accepted (diff 0), every temperature left at its 20th accept "
	   "(lines 24, 30)");
	is_int((int)evals, 1 + FIG1_NTEMPS * FIG1_ACCEPT_BREAK,
	       "  1 + 21 * 20 broadcast_cost evaluations (lines 4, 10)");
	gb_nm_release(&m);
}

/* Random 10-node models at 1 MB from a star: sends of 80-170 ms. */
static void random_models(void)
{
	int good = 1, hot = 1, froze = 0, runs = 0;

	for (uint64_t ms = 1; ms <= 3; ms++) {
		struct gb_netmodel m;

		if (gb_nm_gen_uniform(&m, 10, 50 * GB_MBIT, 100 * GB_MBIT, 5e-3, 1e-5, ms) < 0)
			bail("model");
		for (uint64_t seed = 1; seed <= 4; seed++) {
			struct gb_plan_args a = { (int)(seed % 10), 1048576, seed, 0, NULL };
			struct gb_sa_schedule sch;
			struct gb_sa_stats st = { 0 };
			struct gb_tree init, out;
			char what[64];

			snprintf(what, sizeof(what), "model %llu, seed %llu",
				 (unsigned long long)ms, (unsigned long long)seed);
			st.schedule = &sch;
			star(&init, m.n, a.root);
			if (gb_tree_init(&out, m.n, a.root) < 0 ||
			    gb_sa_basic(&m, &a, &init, &out, &st) < 0)
				bail("gb_sa_basic");
			runs++;
			good &= schedule_ok(&sch, what) && st.evaluations == sch.evaluations;
			/* Hot: the first temperature accepts costlier trees and
			 * reaches 20 accepts before its 80 tries run out. */
			if (!(sch.t[0].uphill > 0 && sch.t[0].accepts == FIG1_ACCEPT_BREAK &&
			      sch.t[0].tries < FIG1_ITER_FOR_TEMP)) {
				hot = 0;
				diag("%s: T=100: %d tries, %d accepts, %d uphill", what,
				     sch.t[0].tries, sch.t[0].accepts, sch.t[0].uphill);
			}
			froze += sch.stop == GB_SA_STOP_FROZEN;
			gb_tree_release(&init);
			gb_tree_release(&out);
		}
		gb_nm_release(&m);
	}
	ok(good, "random models, %d runs: the schedule of Fig. 1 (temperatures, <= 80 tries, "
	   "break at 20 accepts, 3 %% stop, evaluations counted)", runs);
	ok(hot, "  at temperature 100 costlier trees are accepted and 20 accepts end it early");
	ok(froze > 0, "  the 3 %% rule ends some runs before minTemp (%d of %d)", froze, runs);
}

int main(void)
{
	flat_model();
	random_models();
	return done_testing();
}
