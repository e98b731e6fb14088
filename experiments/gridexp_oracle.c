// SPDX-License-Identifier: MIT
/*
 * gridexp_oracle.c - `monitor: {oracle: true}`: a perfect monitor, the
 * labelled ablation of issue 13.  Instead of gridmon's measurements, the
 * matrix the measured planners and the advisor read is the emulator's
 * configuration (`gridmon --print-configured`), and while a load of the
 * run's schedule is on, its directed links carry (1 - fraction) of their
 * rate there (`--derate`): what seed 000's monitor would report if it saw
 * every load at once and without error.
 *
 * Choices:
 *  - a new version at the session's start (no load), whenever the set of
 *    loads that are on changes (checked every tick of the run's loop, on the
 *    wall clock: go.json's intervals), and at a run's end if a load was
 *    still on (no load between runs);
 *  - a load takes its fraction of each directed link it is sized for
 *    (gb_load_resolve()'s dl[]), in traffic and shape mode alike: in
 *    traffic mode TCP beside the flow gets more than that (the flow loses
 *    packets too; docs/measurements.md, session 5), which the oracle does not
 *    know; so it is the paper's reading of a load, not a measurement.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gbload.h"
#include "gbutil.h"
#include "gridexp_priv.h"

/* Bit i: interval i of @r's schedule is on at @t (CLOCK_MONOTONIC s). */
static uint64_t loads_on(const struct runner *R, const struct run *r, double t)
{
	uint64_t on = 0;

	for (int i = 0; r && r->go && r->load.pid > 0 && i < r->sched.n && i < 64; i++) {
		const struct gb_load_iv *v = &r->sched.iv[i];
		double a = r->load_t0 + gb_load_wall(&r->sched, R->dilate, v->start);
		double b = r->load_t0 + gb_load_wall(&r->sched, R->dilate, v->start + v->duration);

		if (t >= a && t < b)
			on |= 1ULL << i;
	}
	return on;
}

int oracle_write(struct runner *R, const struct run *r, uint64_t on)
{
	const struct gb_topo *t = R->c.topo;
	char ver[32], log[PATH_MAX], der[64][96];
	char *argv[10 + 2 * 64 * 2];
	int n = 0, nd = 0, st;

	snprintf(ver, sizeof(ver), "%llu", (unsigned long long)(R->mon_seen + 1));
	snprintf(log, sizeof(log), "%s/monitor/gridmon-s%d.log", R->out, R->mon_session);
	argv[n++] = R->gridmon;
	argv[n++] = "--print-configured";
	argv[n++] = "--out";
	argv[n++] = R->matrix;
	argv[n++] = "--version";
	argv[n++] = ver;
	argv[n++] = "--avoid";  /* the representatives gridmon would measure */
	argv[n++] = R->c.app.root;
	for (int i = 0; r && i < r->sched.n && i < 64; i++) {
		const struct gb_load_iv *v = &r->sched.iv[i];

		if (!(on & (1ULL << i)))
			continue;
		for (int k = 0; k < v->ndl && nd < 64; k++, nd++) {
			int dl = v->dl[k];

			snprintf(der[nd], sizeof(der[nd]), "%s:%s:%.6f", t->links[dl / 2].name,
				 dl & 1 ? "ba" : "ab", v->fraction);
			argv[n++] = "--derate";
			argv[n++] = der[nd];
		}
	}
	argv[n] = NULL;
	if ((st = run_tool(argv, log)) != 0)
		return st < 0 ? st : -EIO;
	R->oracle_on = on;
	matrix_poll(R);
	return 0;
}

void oracle_tick(struct runner *R, const struct run *r)
{
	uint64_t on = loads_on(R, r, gb_now());

	if (R->c.monitor.oracle && on != R->oracle_on && oracle_write(R, r, on) < 0)
		warnx("the oracle's matrix could not be written (see %s/monitor/gridmon-s%d.log)",
		      R->out, R->mon_session);
}
