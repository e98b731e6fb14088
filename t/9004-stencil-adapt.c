/* SPDX-License-Identifier: MIT */
/*
 * 9004-stencil-adapt - the adaptation controller (seed 004 s5, s6, s7) on a
 * simulated rank: compression that pays is kept, compression that costs or
 * does nothing is switched back, the ghost depth widens while the rate
 * improves and settles, compression is re-evaluated every M iterations,
 * the agreement is asked for exactly at ghost-window ends, and the same
 * inputs give the same decisions.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gbstencil.h"
#include "tap.h"

/* communication s per iteration of each group, compressed or not:
 * group 0 gains from compression, group 1 loses, group 2 does not care */
static const double cost[3][2] = { { 0.010, 0.004 }, { 0.002, 0.005 }, { 0.003, 0.003 } };

static int nagree;

static double agree(void *ctx, double local)
{
	(void)ctx;
	nagree++;
	return local;
}

/* The simulated rank's clock, communication time and iteration. */
static struct {
	double t, comm;
	int valid;
	long it;
} sim;

/* Run @iters more iterations with boundaries every depth-th one, as the
 * driver calls it; iteration time 0.05/d + 0.005 d + communication. */
static void simulate(struct gb_st_adapt *a, long iters, double (*ag)(void *, double))
{
	for (long end = sim.it + iters; sim.it < end; sim.it++) {
		int d;
		double c = 0;

		if (sim.valid < 1) {
			gb_st_adapt_tick(a, sim.it, sim.t, sim.comm, ag, NULL);
			sim.valid = gb_st_adapt_depth(a);
		}
		d = gb_st_adapt_depth(a);
		for (int g = 0; g < 3; g++)
			c += cost[g][gb_st_adapt_comp(a, g)];
		sim.t += 0.05 / d + 0.005 * d + c;
		sim.comm += c;
		sim.valid--;
	}
}

static int count(const struct gb_st_event *ev, int n, int kind, int group)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += ev[i].kind == kind && (group < -1 || ev[i].group == group);
	return k;
}

int main(void)
{
	struct gb_st_adapt_cfg cfg = {
		.ngroups = 3, .monitor = 5, .reeval = 100, .warmup = 10, .eps = 0.02,
		.compress = 1, .ghost = 1, .ghost_step = 1, .ghost_init = 1, .ghost_max = 6,
	};
	struct gb_st_adapt *a = NULL, *b = NULL;
	const struct gb_st_event *ev, *ev2;
	int n, n2;

	plan(21);
	ok(gb_st_adapt_new(&cfg, NULL, &a) == 0, "controller");
	simulate(a, 80, agree);
	n = gb_st_adapt_events(a, &ev);
	ok(gb_st_adapt_comp(a, 0) && !gb_st_adapt_comp(a, 1) && !gb_st_adapt_comp(a, 2),
	   "compression kept where it pays (group 0) only");
	is_int(count(ev, n, GB_ST_EV_COMP_TRY, -2), 3, "each group tried once");
	is_int(count(ev, n, GB_ST_EV_COMP_KEEP, 0), 1, "group 0 kept");
	is_int(count(ev, n, GB_ST_EV_COMP_REVERT, 1), 1, "group 1 (costs) switched back");
	is_int(count(ev, n, GB_ST_EV_COMP_REVERT, 2), 1, "group 2 (no gain) switched back");
	ok(n > 0 && ev[0].kind == GB_ST_EV_COMP_TRY && ev[0].it >= 15,
	   "first decision after warm-up and one window (at %ld)", n ? ev[0].it : -1L);
	is_int(gb_st_adapt_depth(a), 3, "ghost depth settles where the rate peaks (3)");
	ok(gb_st_adapt_settled(a), "settled");
	is_int(count(ev, n, GB_ST_EV_GHOST_KEEP, -2), 2, "depths 2 and 3 kept");
	is_int(count(ev, n, GB_ST_EV_GHOST_REVERT, -2), 1, "depth 4 reverted");
	is_int(nagree, 4, "agreement asked at the 4 ghost window ends only");
	{
		int i_settle = -1, i_last_comp = -1;

		for (int i = 0; i < n; i++) {
			if (ev[i].kind == GB_ST_EV_GHOST_SETTLE)
				i_settle = i;
			if (ev[i].group >= 0)
				i_last_comp = i;
		}
		ok(i_settle > i_last_comp, "compression first, then the ghost zones (s8.2)");
	}

	/* re-evaluation every M iterations, from the start of the last cycle */
	simulate(a, 400, agree);
	n = gb_st_adapt_events(a, &ev);
	ok(count(ev, n, GB_ST_EV_COMP_TRY, -2) >= 6, "compression re-evaluated (%d trials)",
	   count(ev, n, GB_ST_EV_COMP_TRY, -2));
	ok(gb_st_adapt_comp(a, 0) && !gb_st_adapt_comp(a, 1), "and the same choice again");
	is_int(count(ev, n, GB_ST_EV_GHOST_SETTLE, -2), 1, "the ghost depth is not revisited");

	/* determinism */
	nagree = 0;
	memset(&sim, 0, sizeof(sim));
	ok(gb_st_adapt_new(&cfg, NULL, &b) == 0, "second controller");
	simulate(b, 80, agree);
	simulate(b, 400, agree);
	n2 = gb_st_adapt_events(b, &ev2);
	ok(n == n2 && !memcmp(ev, ev2, sizeof(*ev) * n), "same inputs, same decisions");
	gb_st_adapt_free(b);
	gb_st_adapt_free(a);

	/* no room to widen: settles at once, without a window */
	cfg.ghost_init = cfg.ghost_max = 2;
	cfg.compress = 0;
	nagree = 0;
	memset(&sim, 0, sizeof(sim));
	ok(gb_st_adapt_new(&cfg, NULL, &a) == 0, "capped controller");
	simulate(a, 50, agree);
	ok(gb_st_adapt_depth(a) == 2 && gb_st_adapt_settled(a) && nagree == 0,
	   "ghost_max = init: stays, settles, no agreement needed");
	gb_st_adapt_free(a);
	cfg.ghost_init = 3;
	is_int(gb_st_adapt_new(&cfg, NULL, &a), -EINVAL, "init above max: -EINVAL");
	return done_testing();
}
