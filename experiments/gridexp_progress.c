// SPDX-License-Identifier: MIT
/*
 * gridexp_progress.c - the campaign's planned durations: the progress line
 * of the runs (elapsed, an estimate of what remains) and --dry-run (what
 * would run, the load intervals, the planned durations).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbexp.h"
#include "gbload.h"
#include "gbutil.h"
#include "gridexp_priv.h"

void fmt_dur(double s, char *buf, size_t len)
{
	long t = s > 0 && isfinite(s) ? (long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* Planned real seconds of one run's application (the sum of its gaps, on
 * the wall clock: x the dilation, as synthapp stretches them). */
double planned_app(const struct runner *R)
{
	return gx_pattern_offset(&R->c.app.pat, gx_pattern_count(&R->c.app.pat),
				 R->scale * (R->dilate >= 1 ? R->dilate : 1.0));
}

/*
 * Expected real seconds of one run: the application's planned time plus
 * what the runs so far took beyond theirs (launch, broadcasts that outlast
 * their gaps, teardown); 15 s before the first run ends.
 */
static double per_run(const struct runner *R)
{
	return planned_app(R) + (R->run_wall_n ? fmax(R->run_wall_sum / R->run_wall_n -
						      planned_app(R), 0) : 15.0);
}

/* The current run's rest (at least 1 s) and the runs after it. */
static double remaining(const struct runner *R, double run_elapsed)
{
	return fmax(per_run(R) - run_elapsed, 1.0) + per_run(R) * (R->nruns - R->run_k);
}

/* Repetitions x conditions x the algorithms that run this time. */
int count_runs(const struct runner *R)
{
	int n = 0;

	for (int rep = 1; rep <= R->c.repetitions; rep++)
		for (int c = 0; c < R->c.nconds; c++)
			for (int a = 0; a < R->c.nalgos; a++)
				n += R->use[a];
	return n;
}

/* Off a terminal: at most one progress line a minute, and only when a broadcast has completed. */
#define LINE_EVERY 60.0

/* The progress line: updated in place on a terminal; @end: the run is over. */
void progress(struct runner *R, const char *label, int bcast, int nb, double run_t0,
	      const char *end)
{
	char el[32], rem[32];
	double now = gb_now();

	if (!end && !R->tty && (bcast == R->line_bcast || now - R->line_t < LINE_EVERY))
		return;
	fmt_dur(now - R->t_start, el, sizeof(el));
	fmt_dur(end ? per_run(R) * (R->nruns - R->run_k) : remaining(R, now - run_t0), rem,
		sizeof(rem));
	if (end) {
		if (R->tty)
			fputc('\r', stderr);
		fprintf(stderr, ME ": run %d/%d %s: broadcast %d/%d, %s; elapsed %s, remaining ~%s"
			"%s\n", R->run_k, R->nruns, label, bcast, nb, end, el, rem,
			R->tty ? "          " : "");
	} else if (R->tty) {
		fprintf(stderr, "\r" ME ": run %d/%d %s  broadcast %d/%d  elapsed %s  remaining "
			"~%s   ", R->run_k, R->nruns, label, bcast, nb, el, rem);
	} else {
		fprintf(stderr, ME ": run %d/%d %s: broadcast %d/%d; elapsed %s, remaining ~%s\n",
			R->run_k, R->nruns, label, bcast, nb, el, rem);
	}
	R->line_t = now;
	R->line_bcast = end ? 0 : bcast;
	fflush(stderr);
}

/* --dry-run: what would run, the load intervals, the planned durations. */
int dry_run(struct runner *R)
{
	const struct gx_campaign *c = &R->c;
	char d1[32], d2[32];
	int n = count_runs(R);
	double lo = INFINITY;

	for (int i = 0; i < gx_pattern_count(&c->app.pat); i++)
		lo = fmin(lo, gx_pattern_size(&c->app.pat, i));
	fmt_dur(planned_app(R), d1, sizeof(d1));
	fmt_dur(n * (planned_app(R) + 15), d2, sizeof(d2));
	printf("campaign %s (%s): topology %s, %d hosts, root %s, scale %g, time dilation x%g\n",
	       c->name, c->path, c->topology, c->topo->nhosts, c->app.root, R->scale, R->dilate);
	printf("application: %d broadcasts, %.0f .. %.0f bytes, planned %s per run (the sum of "
	       "the scaled gaps)\n", gx_pattern_count(&c->app.pat), lo,
	       gx_pattern_max_size(&c->app.pat), d1);
	printf("runs: %d (repetitions x conditions x algorithms); at least %s with ~15 s of "
	       "launch per run, more where broadcasts outlast their gaps\n", n, d2);
	printf("ranks: %s order%s; start: %s; wait: %s\n", gx_order_name(c->ranks.order),
	       c->ranks.order == GX_ORDER_SHUFFLE ? " (seeded)" : "",
	       c->app.start_clock ? "clock (no barrier)" : "barrier",
	       c->app.wait_sleep ? "sleep" : "spin");
	if (rank_hosts(R) < 0)
		return 1;
	if (R->hosts) {
		printf("  rank order: ");
		for (const char *p = R->hosts; *p; p++)
			putchar(*p == ',' ? ' ' : *p);
		printf("\n");
	}
	if (gx_campaign_needs_monitor(c) && c->monitor.oracle)
		printf("monitor: the oracle, the emulator's configuration instead of gridmon's "
		       "measurements (monitor: {oracle: true}), through every run, also those of an "
		       "algorithm that does not read it\n");
	else if (gx_campaign_needs_monitor(c))
		printf("gridmon: runs through every run, also those of an algorithm that does not "
		       "read it (they share its probe traffic)\n");
	if (gx_campaign_needs_phoenixd(c, R->use)) {
		struct gx_phoenixd_set ps;

		printf("phoenixd: runs once on the grid before the runs; the phoenix runs use "
		       "the trees it converges to\n");
		if (gx_phoenixd_settings(c, R->dilate >= 1 ? R->dilate : 1, &ps) == 0)
			printf("  rounds of %d ms of the topology's time (%.0f ms of wall clock at "
			       "k = %g), a serial every %d round%s, serials batched %g ms, at most "
			       "%.0f s of wall clock\n", ps.round_ms, ps.wall_round_ms, ps.dilate,
			       ps.serial_every, ps.serial_every == 1 ? "" : "s", ps.coalesce_ms,
			       ps.timeout_s);
	}
	for (int rep = 1; rep <= c->repetitions; rep++)
		for (int k = 0; k < c->nconds; k++) {
			struct gb_load_sched s;
			struct gb_diag d;
			char line[GB_DIAG_LINE_MAX];

			gb_load_sched_init(&s);
			if (gx_campaign_schedule(c, k, rep, &s, &d) < 0) {
				fprintf(stderr, "%s\n", gb_diag_format(&d, NULL, line, sizeof(line)));
				return 2;
			}
			s.scale = R->scale;
			printf("condition %s, repetition %d: %d load interval%s (%s mode)\n",
			       c->conds[k].name, rep, s.n, s.n == 1 ? "" : "s",
			       gb_load_mode_name(c->conds[k].mode));
			if (c->conds[k].procs) {
				char *list = cond_host_list(c, k);

				if (!list) {
					gb_load_sched_release(&s);
					return 1;
				}
				printf("  procs %d: ", c->conds[k].procs);
				for (const char *p = list; *p; p++)
					putchar(*p == ',' ? ' ' : *p);
				printf("\n");
				free(list);
			}
			for (int i = 0; i < s.n; i++) {
				const struct gb_load_iv *iv = &s.iv[i];
				const struct gb_topo *t = c->topo;

				printf("  load %d: %.3f .. %.3f s, %.0f %%", i + 1,
				       iv->start * s.scale, (iv->start + iv->duration) * s.scale,
				       iv->fraction * 100);
				/* where: the flows' ends (a link's own ends, or a host pair) */
				for (int f = 0; f < iv->nflows; f++)
					printf(", %s>%s", t->nodes[iv->fsrc[f]].name,
					       t->nodes[iv->fdst[f]].name);
				putchar('\n');
			}
			for (int a = 0; a < c->nalgos; a++) {
				char id[128];

				if (!R->use[a])
					continue;
				char seg[GB_STRIPES_FMT_MAX + 80] = "", sv[32], st[GB_STRIPES_FMT_MAX];
				const char *lib;

				gx_run_id(c, k, a, rep, id, sizeof(id));
				if ((lib = gx_campaign_library(c, c->algos[a].bcast))) {
					printf("  run %s: LD_PRELOAD=%s (its own MPI_Bcast)\n", id, lib);
					continue;
				}
				if (strcmp(c->algos[a].bcast, "native") &&
				    algo_bcast_env(&c->algos[a], sv, sizeof(sv), st, sizeof(st)) == 0)
					snprintf(seg, sizeof(seg), ", GRIDBED_SEGMENT=%s, GRIDBED_STRIPES=%s",
						 sv, st);
				printf("  run %s: GRIDBED_BCAST=%s%s%s%s%s\n", id,
				       gx_campaign_spec(c, c->algos[a].bcast), seg,
				       c->algos[a].advisor ? ", gridadvisor --planner " : "",
				       c->algos[a].advisor ? gx_campaign_spec(c, c->algos[a].planner)
				       : "",
				       c->algos[a].monitor ? (c->monitor.oracle ? ", the oracle's matrix" :
							      ", gridmon's matrix") : "");
			}
			gb_load_sched_release(&s);
		}
	return 0;
}
