/* SPDX-License-Identifier: MIT */
/*
 * adapt.c - the adaptation controller of one wide-area boundary rank:
 * compression on/off per function group (seed 004 s5, local) and the
 * ghost-zone depth (s6, global through the driver's agree callback).  The
 * timeline is in gbstencil.h; it is a function of iteration numbers and
 * cycle boundaries only, so every boundary rank runs through the same
 * phases at the same iterations, and the collective behind agree() is
 * entered by all of them together.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gbstencil.h"
#include "gbutil.h"

enum phase { WARMUP, COMP, GHOST, STEADY };

struct gb_st_adapt {
	struct gb_st_adapt_cfg cfg;
	unsigned char *comp;
	int depth;
	enum phase phase;
	int group;              /* COMP: the group on trial */
	int trial;              /* a trial window is running (COMP, GHOST) */
	int ghost_done;         /* the ghost phase has run (or is off) */
	double base;            /* COMP: comm/it before; GHOST: rate before */
	long cycle_start;       /* iteration the last compression cycle began */
	/* the current window: where it began, and one sample per cycle since
	 * (communication s and wall s per iteration of that cycle) */
	long w_it;
	double w_t, w_comm;
	double *s_comm, *s_time;
	int ns;
	/* the previous boundary */
	long p_it;
	double p_t, p_comm;
	struct gb_st_event *ev;
	int nev, capev;
};

const char *gb_st_ev_name(int kind)
{
	static const char *const names[GB_ST_EV_NKINDS] = {
		"comp-try", "comp-keep", "comp-revert", "ghost-try", "ghost-keep",
		"ghost-revert", "ghost-settle",
	};

	return kind >= 0 && kind < GB_ST_EV_NKINDS ? names[kind] : "?";
}

int gb_st_adapt_new(const struct gb_st_adapt_cfg *cfg, const unsigned char *comp,
		    struct gb_st_adapt **out)
{
	struct gb_st_adapt *a;

	if (!cfg || !out || cfg->ngroups < 0 || cfg->monitor < 1 || cfg->reeval < 0 ||
	    cfg->warmup < 0 || cfg->ghost_step < 1 || cfg->ghost_init < 1 ||
	    cfg->ghost_max < cfg->ghost_init || !(cfg->eps >= 0))
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->cfg = *cfg;
	a->comp = calloc(cfg->ngroups ? cfg->ngroups : 1, 1);
	if (!a->comp) {
		free(a);
		return -ENOMEM;
	}
	a->s_comm = malloc(sizeof(double) * (cfg->monitor + 1));
	a->s_time = malloc(sizeof(double) * (cfg->monitor + 1));
	if (!a->s_comm || !a->s_time) {
		gb_st_adapt_free(a);
		return -ENOMEM;
	}
	if (comp)
		memcpy(a->comp, comp, cfg->ngroups);
	a->depth = cfg->ghost_init;
	a->phase = WARMUP;
	a->ghost_done = !cfg->ghost;
	a->w_it = -1;
	a->p_it = -1;
	*out = a;
	return 0;
}

void gb_st_adapt_free(struct gb_st_adapt *a)
{
	if (!a)
		return;
	free(a->comp);
	free(a->ev);
	free(a->s_comm);
	free(a->s_time);
	free(a);
}

int gb_st_adapt_comp(const struct gb_st_adapt *a, int g)
{
	return a && g >= 0 && g < a->cfg.ngroups ? a->comp[g] : 0;
}

int gb_st_adapt_depth(const struct gb_st_adapt *a)
{
	return a->depth;
}

int gb_st_adapt_settled(const struct gb_st_adapt *a)
{
	return a->ghost_done;
}

int gb_st_adapt_events(const struct gb_st_adapt *a, const struct gb_st_event **ev)
{
	*ev = a->ev;
	return a->nev;
}

static void event(struct gb_st_adapt *a, long it, int kind, int group, int value, double before,
		  double after)
{
	if (a->nev == a->capev) {
		int cap = a->capev ? 2 * a->capev : 32;
		struct gb_st_event *n = realloc(a->ev, sizeof(*n) * cap);

		if (!n)
			return;	/* the log is a record, never a reason to stop */
		a->ev = n;
		a->capev = cap;
	}
	a->ev[a->nev++] = (struct gb_st_event){ .it = it, .kind = kind, .group = group,
						.value = value, .rank = -1, .before = before,
						.after = after };
}

static void open_window(struct gb_st_adapt *a, long it, double t, double comm)
{
	a->w_it = it;
	a->w_t = t;
	a->w_comm = comm;
	a->ns = 0;
}

/* The median of a window's per-cycle samples (sorts them in place). */
static double median(double *v, int n)
{
	if (n < 1)
		return 0;
	return gb_median(v, (size_t)n);
}

/* Start the next phase at a boundary; returns 1 if it changed a state. */
static int next_phase(struct gb_st_adapt *a, long it, double t, double comm, int first_window);

static int start_comp_cycle(struct gb_st_adapt *a, long it, double t, double comm)
{
	a->phase = COMP;
	a->group = -1;	/* the first window measures the current states */
	a->trial = 0;
	a->cycle_start = it;
	open_window(a, it, t, comm);
	return 0;
}

static int settle(struct gb_st_adapt *a, long it, double t, double comm, double before,
		  double after);

static int start_ghost(struct gb_st_adapt *a, long it, double t, double comm)
{
	if (a->depth + a->cfg.ghost_step > a->cfg.ghost_max)
		return settle(a, it, t, comm, 0, 0);	/* no room to widen */
	a->phase = GHOST;
	a->trial = 0;
	open_window(a, it, t, comm);
	return 0;
}

static int settle(struct gb_st_adapt *a, long it, double t, double comm, double before,
		  double after)
{
	event(a, it, GB_ST_EV_GHOST_SETTLE, -1, a->depth, before, after);
	a->ghost_done = 1;
	return next_phase(a, it, t, comm, 0);
}

static int next_phase(struct gb_st_adapt *a, long it, double t, double comm, int first_window)
{
	int want_comp = a->cfg.compress && a->cfg.ngroups > 0;

	if (!a->ghost_done && (a->phase == COMP || !want_comp))
		return start_ghost(a, it, t, comm);
	if (want_comp && (first_window || it >= a->cycle_start + a->cfg.reeval))
		return start_comp_cycle(a, it, t, comm);
	a->phase = STEADY;
	open_window(a, it, t, comm);
	return 0;
}

static int tick_comp(struct gb_st_adapt *a, long it, double t, double comm, double per_it)
{
	int g, changed = 0;

	if (a->group >= 0) {
		g = a->group;
		if (per_it < a->base * (1 - a->cfg.eps)) {
			event(a, it, GB_ST_EV_COMP_KEEP, g, a->comp[g], a->base, per_it);
			a->base = per_it;
		} else {
			a->comp[g] = !a->comp[g];
			changed = 1;
			event(a, it, GB_ST_EV_COMP_REVERT, g, a->comp[g], a->base, per_it);
		}
	} else {
		a->base = per_it;
	}
	g = ++a->group;
	if (g >= a->cfg.ngroups) {
		next_phase(a, it, t, comm, 0);
		return changed;
	}
	a->comp[g] = !a->comp[g];
	event(a, it, GB_ST_EV_COMP_TRY, g, a->comp[g], a->base, 0);
	open_window(a, it, t, comm);
	return 1;
}

static int tick_ghost(struct gb_st_adapt *a, long it, double t, double comm, double rate)
{
	int step = a->cfg.ghost_step;

	if (a->trial) {
		if (!(rate > a->base * (1 + a->cfg.eps))) {
			a->depth -= step;
			event(a, it, GB_ST_EV_GHOST_REVERT, -1, a->depth, a->base, rate);
			settle(a, it, t, comm, a->base, rate);
			return 1;
		}
		event(a, it, GB_ST_EV_GHOST_KEEP, -1, a->depth, a->base, rate);
	}
	a->base = rate;
	if (a->depth + step > a->cfg.ghost_max) {
		settle(a, it, t, comm, rate, 0);
		return 0;
	}
	a->depth += step;
	a->trial = 1;
	event(a, it, GB_ST_EV_GHOST_TRY, -1, a->depth, a->base, 0);
	open_window(a, it, t, comm);
	return 1;
}

int gb_st_adapt_tick(struct gb_st_adapt *a, long it, double t, double comm,
		     double (*agree)(void *ctx, double local), void *ctx)
{
	long n;

	if (!a)
		return 0;
	/* one sample per cycle, per iteration of the cycle */
	if (a->p_it >= 0 && it > a->p_it && a->w_it >= 0 && a->p_it >= a->w_it &&
	    a->ns <= a->cfg.monitor) {
		a->s_comm[a->ns] = (comm - a->p_comm) / (double)(it - a->p_it);
		a->s_time[a->ns] = (t - a->p_t) / (double)(it - a->p_it);
		a->ns++;
	}
	a->p_it = it;
	a->p_t = t;
	a->p_comm = comm;
	if (a->phase == WARMUP) {
		if (it < a->cfg.warmup)
			return 0;
		return next_phase(a, it, t, comm, 1);
	}
	if (a->phase == STEADY) {
		if (a->cfg.compress && a->cfg.ngroups > 0 && it >= a->cycle_start + a->cfg.reeval)
			start_comp_cycle(a, it, t, comm);
		return 0;
	}
	n = it - a->w_it;
	if (n < a->cfg.monitor)
		return 0;
	if (a->phase == COMP)
		return tick_comp(a, it, t, comm, median(a->s_comm, a->ns));
	/* GHOST: everyone on the boundary decides on the same number */
	{
		double local = median(a->s_time, a->ns);
		double agreed = agree ? agree(ctx, local) : local;

		return tick_ghost(a, it, t, comm, agreed > 0 ? 1.0 / agreed : 0);
	}
}
