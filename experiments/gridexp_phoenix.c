// SPDX-License-Identifier: MIT
/*
 * gridexp_phoenix.c - phoenixd: the Phoenix trees (seed 001 s3), from the
 * real protocol, once per session, each checked here.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gbexp.h"
#include "gbio.h"
#include "gbutil.h"
#include "gridexp_priv.h"

/*
 * Run phoenixd on the campaign's grid until its trees are stable, check
 * every tree it reports (gx_wan_check(), independently of phoenixd's own
 * count) and point the runs at them (GRIDBED_PHOENIX_TREES): the `phoenix`
 * planner then uses the tree the protocol converged to for the root, never
 * its simulation.  Once per session: a resumed campaign's grid is new, so
 * are its trees (phoenixd/s<S>/).
 *
 * The settings are gx_phoenixd_settings()'s for the grid's k.  Those for
 * grids of more than 16 hosts are phoenix-fig5.sh's, measured at 168 hosts
 * on 2 cores (docs/measurements.md): rounds of 2 s of wall clock, a serial
 * every 2 rounds and serials batched for 10 ms keep the protocol's traffic
 * within what the userspace delay line carries; convergence then takes
 * 3-5 min on a quiet box, and took 15 min (367 rounds) at k = 10 on a box
 * shared with other jobs, hence the 30 min timeout.  phoenixd runs on the
 * topology's clock (phoenixd.h), so on a grid dilated k times its round is
 * 2000 / k ms of the topology's time: the same datagrams a wall-clock
 * second as at k = 1, where 2000 ms of the topology's time would take k
 * times the wall clock (issue 48: at k = 10, +80 s of topology time after
 * 16 minutes).
 */
int phoenixd_run(struct runner *R)
{
	const struct gb_topo *t = R->c.topo;
	struct gx_phoenixd_set ps;
	int session = 1, n = 0, st, nopt = 0, nvalid = 0, ret;
	char dir[PATH_MAX], log[PATH_MAX], path[PATH_MAX], rms[16], se[16], co[32], fo[16];
	char tmo[32], wall[64] = "";
	char *argv[24];
	double t0 = gb_now(), last = 0;
	struct proc p;
	json_error_t je;
	json_t *sum, *ini, *res;
	FILE *csv;
	char *buf = NULL;
	size_t blen = 0;

	if (gx_phoenixd_settings(&R->c, R->dilate >= 1 ? R->dilate : 1, &ps) < 0) {
		warnx("phoenixd: no settings for time dilation x%g", R->dilate);
		return -1;
	}
	/* the next session's directory, claimed by mkdir (Slurm tasks may share the results) */
	snprintf(dir, sizeof(dir), "%s/phoenixd", R->out);
	gb_mkdir_p(dir, 0755);
	for (;; session++) {
		snprintf(dir, sizeof(dir), "%s/phoenixd/s%d", R->out, session);
		if (mkdir(dir, 0755) == 0)
			break;
		if (errno != EEXIST) {
			warnx("cannot create '%s': %s", dir, strerror(errno));
			return -1;
		}
	}
	snprintf(log, sizeof(log), "%s/log", dir);
	snprintf(rms, sizeof(rms), "%d", ps.round_ms);
	snprintf(se, sizeof(se), "%d", ps.serial_every);
	snprintf(co, sizeof(co), "%g", ps.coalesce_ms);
	/* phoenixd's --timeout is on the topology's clock */
	snprintf(tmo, sizeof(tmo), "%.0f", ceil(ps.timeout_s / ps.dilate));
	if (ps.dilate > 1)
		snprintf(wall, sizeof(wall), " (%.0f ms of wall clock at k = %g)", ps.wall_round_ms,
			 ps.dilate);
	argv[n++] = R->phoenixd;       /* the grid: $GRIDBED_PREFIX */
	argv[n++] = "run";
	argv[n++] = "--grid";
	argv[n++] = "--out";
	argv[n++] = dir;
	argv[n++] = "--round-ms";
	argv[n++] = rms;
	argv[n++] = "--serial-every";
	argv[n++] = se;
	argv[n++] = "--coalesce-ms";
	argv[n++] = co;
	argv[n++] = "--timeout";
	argv[n++] = tmo;
	if (ps.fanout) {
		snprintf(fo, sizeof(fo), "%d", ps.fanout);
		argv[n++] = "--fanout";
		argv[n++] = fo;
	}
	argv[n++] = "--verbose";
	argv[n] = NULL;
	fprintf(stderr, ME ": phoenixd: %d processes, rounds of %s ms%s, until the trees are "
		"stable (at most %.0f s of wall clock; progress in %s)\n", t->nhosts, rms, wall,
		ps.timeout_s, log);
	if (spawn(&p, argv, log, NULL) < 0) {
		warnx("cannot run phoenixd: %s", strerror(errno));
		return -1;
	}
	while (!proc_poll(&p)) {
		if (got_signal) {
			proc_stop(&p, 10);
			return -1;
		}
		if (gb_now() - last > (R->tty ? 0.5 : 30)) {
			char el[32];

			last = gb_now();
			fmt_dur(last - t0, el, sizeof(el));
			fprintf(stderr, R->tty ? "\r" ME ": phoenixd converging ... %s   " :
				ME ": phoenixd converging ... %s\n", el);
		}
		nap(0.1);
	}
	if (R->tty)
		fputc('\n', stderr);
	st = proc_exit_status(&p);
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	sum = st == 0 ? gb_json_load_file(path, &je, &ret) : NULL;
	ini = json_object_get(sum, "initial");
	if (!sum || !json_is_true(json_object_get(ini, "converged"))) {
		warnx("phoenixd did not converge (exit %d); see %s", st, log);
		json_decref(sum);
		return -1;
	}
	/* every root's tree, checked here */
	if (!(csv = open_memstream(&buf, &blen))) {
		json_decref(sum);
		return -1;
	}
	fprintf(csv, "root,cluster,valid,wan_edges,wan_optimal,why\n");
	for (int h = 0; h < t->nhosts; h++) {
		struct gx_wan_check w;

		snprintf(path, sizeof(path), "%s/initial/%s.json", dir, t->nodes[h].name);
		ret = gx_wan_check(t, path, &w);
		if (ret == -ENOENT)
			snprintf(w.why, sizeof(w.why), "no tree file");
		nvalid += w.valid && !strcmp(w.root, t->nodes[h].name);
		nopt += w.optimal && !strcmp(w.root, t->nodes[h].name);
		if (!w.optimal && R->px_bad++ < 3)
			warnx("phoenixd's tree for root %s is not wide-area optimal: %s",
			      t->nodes[h].name, w.why);
		fprintf(csv, "%s,%s,%d,%d,%d,\"%s\"\n", t->nodes[h].name,
			t->clusters[t->nodes[h].cluster].name, w.valid, w.wan_edges, w.optimal,
			w.why);
	}
	fclose(csv);
	snprintf(path, sizeof(path), "%s/wan-check.csv", dir);
	if (!buf || gx_write_atomic(path, buf, blen) < 0)
		warnx("cannot write %s", path);
	free(buf);
	/* time_s is the topology's (phoenixd's clock); wall_s is the whole step's, start to exit */
	res = json_pack("{s:s,s:O,s:i,s:f,s:f,s:i,s:f,s:f,s:f,s:i,s:i,s:s,s:s}", "dir", dir,
			"initial", ini, "round_ms", ps.round_ms, "wall_round_ms", ps.wall_round_ms,
			"dilate", ps.dilate, "serial_every", ps.serial_every, "coalesce_ms",
			ps.coalesce_ms, "timeout_s", ps.timeout_s, "wall_s", gb_now() - t0,
			"trees", t->nhosts, "wan_optimal_gridexp", nopt, "wan_check", path,
			"log", log);
	fprintf(stderr, ME ": phoenixd converged after %.1f s%s (%lld rounds, %lld messages, "
		"%lld parent changes, %lld by shortcut); wide-area optimal trees: %d of %d "
		"(gridexp's check), %lld (phoenixd's own); the step took %.0f s of wall clock\n",
		json_number_value(json_object_get(ini, "time_s")),
		ps.dilate > 1 ? " of the topology's time" : "",
		json_integer_value(json_object_get(ini, "rounds")),
		json_integer_value(json_object_get(ini, "messages")),
		json_integer_value(json_object_get(ini, "changes")),
		json_integer_value(json_object_get(ini, "shortcuts")), nopt, t->nhosts,
		json_integer_value(json_object_get(ini, "wan_optimal")), gb_now() - t0);
	json_decref(sum);
	meta_session_add(R, "phoenixd", res);
	snprintf(R->ptrees, sizeof(R->ptrees), "%s", dir);
	return nvalid == t->nhosts ? 0 : (warnx("phoenixd reported %d valid trees of %d",
						 nvalid, t->nhosts), -1);
}
