// SPDX-License-Identifier: MIT
/*
 * gridexp_calibrate.c - `gridexp calibrate FILE.yaml` and `gridexp run
 * --dilate auto`: the time dilation chosen by measurement (issue 44, part 5).
 *
 * On a small box many ranks make the CPU rather than the network set what
 * is timed; dilating the network k times (docs/architecture.md, "Time dilation") gives
 * the CPU k times longer for the same virtual traffic, at k times the wall
 * clock.  The smallest faithful k is the cheapest honest one, and it is a
 * property of the machine, the grid and the largest broadcast, so it is
 * measured, not chosen by hand:
 *
 *	S = the campaign's largest broadcast, G = the scaled gap after it
 *	    (the campaign's own rhythm: the fidelity monitor judges a run's CPU
 *	    pressure over the whole run, so gaps shorter than the campaign's
 *	    would count broadcasts that never overlap in it);
 *	A = the first CAL_ALGOS of its algorithms that plan from the topology
 *	    or a matrix (the advisor's and phoenixd's runs cost their daemons'
 *	    CPU besides, and are left out: the answer is a lower bound, which
 *	    the campaign's own fidelity monitor then checks on every run)
 *	L = the heaviest load interval of the campaign's conditions (their
 *	    schedules for repetition 1: the largest sum of its flows' rates),
 *	    held through the whole calibration, in the condition's mode; none
 *	    when the campaign has no load.  Session 34 found why: three
 *	    unloaded broadcasts chose k = 3 for teragrid-paper, and its whole
 *	    runs under the paper's loads were marked for CPU pressure at
 *	    k = 3 and needed 4 (a load's packets cross the delay line hop by
 *	    hop, and the monitor's probes too);
 *	M = the campaign's gridmon settings, its period scaled, when it runs
 *	    gridmon (and A has an algorithm that reads it), else the oracle
 *	for k in 1, 1.5, 2, 3, 5, 10, 20, up to K (--max-k K, run --dilate auto:K;
 *	    default 20):
 *	    run a campaign of CAL_BROADCASTS broadcasts of S bytes, G apart,
 *	    with A, under L, at dilation k, the monitor M
 *	    if the fidelity monitor marks no run and no broadcast, and no link's
 *	    delay is below the delay line's own cost per traversal (gridemu up's
 *	    calibration, meta.json's session "delay_line": such a link is slower
 *	    than configured, which no fidelity mark shows): k is the answer
 *	    if it marked something while the hypervisor took CAL_STEAL_AGAIN
 *	    or more of the CPUs' time in a run (a vCPU not run releases late
 *	    what the harness would have released on time), run k once more;
 *	    that second try stands
 *	no k up to K faithful: said in one line, status 1 (run does not run)
 *
 * K bounds the wall clock, which grows with k (the gaps run k times longer):
 * a test or a quick look on a busy box says "not faithful below K" rather
 * than climbing to 20.  K is one of the ladder's k, so that the answer's
 * "every k up to K strayed" names the last k tried.
 *
 * Everything it made goes into a temporary directory that is removed at the
 * end (the calibration runs are not results of the campaign); the table,
 * one line per k tried, is printed, and `run --dilate auto` writes it into
 * the results as calibrate.json beside meta.json.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appsched.h"
#include "gbutil.h"
#include "gridexp_priv.h"
#include "results.h"

#define CAL_BROADCASTS 3
#define CAL_ALGOS 2
/* A k marked while the hypervisor took this share of the CPUs' time or more
 * in one of its runs is tried once more (session 45 saw 5-8 % stolen behind
 * every run t/8017's quiet campaign had marked, 0-0.8 % behind the others);
 * the second try stands. */
#define CAL_STEAL_AGAIN 0.05

/* What one calibration campaign told the loop (cal_step). */
struct cal_try {
	int marked;		/* a run or a broadcast strayed */
	int below;		/* link directions below the delay line's cost; -1: none */
	double steal;		/* the largest share the hypervisor took in a run; -1: not said */
};

/* Whether a calibration step that told @t, on its first try (@again 0), is
 * tried once more: CAL_STEAL_AGAIN's rule. */
static int cal_again(const struct cal_try *t, int again)
{
	return !again && t->marked && t->steal >= CAL_STEAL_AGAIN;
}

/* 1.5: teragrid-paper's application takes 2520 s x its scale 0.12 x k of
 * wall clock a run, so its three paper algorithms fit issue 44's 30 minutes
 * only below k = 2 (docs/measurements.md, session 47); without the rung, a
 * machine that strays at k = 1 is next tried at 2, which doubles the wall
 * clock. */
static const double ladder[] = { 1, 1.5, 2, 3, 5, 10, 20 };	/* CAL_LADDER */
#define NLADDER (sizeof(ladder) / sizeof(ladder[0]))

int cal_on_ladder(double k)
{
	for (size_t i = 0; i < NLADDER; i++)
		if (k == ladder[i])
			return 1;
	return 0;
}

/* The load the calibration holds (L above): the interval of @c's
 * conditions' schedules (repetition 1) whose flows send the most, written
 * to @f as an inline load of @secs seconds from the start of the run; *@what
 * gets its words for the progress line, "" when @c has no load. */
static void cal_load(const struct gx_campaign *c, double secs, FILE *f, char *what,
		     size_t len)
{
	const struct gb_topo *t = c->topo;
	struct gb_load_sched s;
	struct gb_diag d;
	double best = 0;
	int bk = -1, bi = -1;

	gb_load_sched_init(&s);
	*what = '\0';
	for (int k = 0; k < c->nconds; k++) {
		memset(&d, 0, sizeof(d));
		if (gx_campaign_schedule(c, k, 1, &s, &d) < 0)
			continue;       /* checked at load: not expected */
		for (int i = 0; i < s.n; i++) {
			double w = 0;

			for (int fl = 0; fl < s.iv[i].nflows; fl++)
				w += s.iv[i].fraction * (double)s.iv[i].fcap[fl];
			if (w > best) {
				best = w;
				bk = k;
				bi = i;
			}
		}
	}
	/* the best condition's schedule again (deterministic: seed, repetition 1) */
	memset(&d, 0, sizeof(d));
	if (bk >= 0 && gx_campaign_schedule(c, bk, 1, &s, &d) < 0)
		bi = -1;
	if (bi >= 0) {
		const struct gb_load_iv *iv = &s.iv[bi];

		fprintf(f, "load:\n  name: calibrate\n  mode: %s\n  loads:\n"
			"    - {start: 0s, duration: %.3fs, fraction: %.4f",
			c->conds[bk].mode == GB_LOAD_SHAPE ? "shape" : "traffic", secs, iv->fraction);
		if (iv->link >= 0)
			fprintf(f, ", link: %s, dir: %s", t->links[iv->link].name,
				iv->dir == 0 ? "a>b" : iv->dir == 1 ? "b>a" : "both");
		if (iv->src >= 0 && iv->dst >= 0)
			fprintf(f, ", src: %s, dst: %s", t->nodes[iv->src].name,
				t->nodes[iv->dst].name);
		fprintf(f, "}\n");
		if (iv->src >= 0 && iv->dst >= 0)
			snprintf(what, len, "under a load of %.0f %% from %s to %s", iv->fraction * 100,
				 t->nodes[iv->src].name, t->nodes[iv->dst].name);
		else
			snprintf(what, len, "under a load of %.0f %% of %s", iv->fraction * 100,
				 t->links[iv->link].name);
	} else {
		fprintf(f, "load: none\n");
	}
	gb_load_sched_release(&s);
}

/* The monitor the calibration runs (M above), with the campaign's period
 * scaled by @scale, the calibration's own being 1. */
static void cal_monitor(const struct gx_campaign *c, double scale, FILE *f)
{
	const struct gx_monitor *m = &c->monitor;

	if (!gx_campaign_needs_monitor(c) || m->oracle) {
		fprintf(f, "monitor: {oracle: true}\n");
		return;
	}
	fprintf(f, "monitor: {period: %.6fs", m->period * scale);
	if (m->bytes_per_probe[0])
		fprintf(f, ", bytes_per_probe: %s", m->bytes_per_probe);
	if (m->max_bytes[0])
		fprintf(f, ", max_bytes_per_period: %s", m->max_bytes);
	if (m->rtt_count > 0)
		fprintf(f, ", rtt_count: %d", m->rtt_count);
	if (m->concurrency >= 0)
		fprintf(f, ", concurrency: %d", m->concurrency);
	if (m->fixed)
		fprintf(f, ", transfer: fixed");
	if (m->publish_change >= 0)
		fprintf(f, ", publish_change: %g", m->publish_change);
	if (m->sites_free)
		fprintf(f, ", sites_free: true");
	if (m->duplex)
		fprintf(f, ", duplex: true");
	if (m->warm)
		fprintf(f, ", warm: true");
	fprintf(f, "}\n");
}

/* The calibration campaign of @c: its grid, root and application's
 * settings, CAL_BROADCASTS broadcasts of its largest size, the algorithms
 * that need no advisor or phoenixd, its heaviest load held throughout
 * (@load gets its words), its monitor. */
static int cal_yaml(const struct gx_campaign *c, double scale, FILE *f, int *nalgos,
		    double *gap, char *load, size_t loadlen)
{
	double big = 0;
	int n = gx_pattern_count(&c->app.pat);

	*gap = 0;
	for (int i = 0; i < n; i++)
		if (gx_pattern_size(&c->app.pat, i) > big) {
			big = gx_pattern_size(&c->app.pat, i);
			*gap = gx_pattern_gap(&c->app.pat, i) * scale;
		}
	if (!(*gap > 0))
		*gap = 1;
	fprintf(f, "name: %.40s-calibrate\ntopology: %s\nbackend: %s\nscale: 1\n"
		"repetitions: 1\nseed: %llu\nalgorithms: [", c->name, c->topology,
		c->backend[0] ? c->backend : "auto", (unsigned long long)c->seed);
	*nalgos = 0;
	for (int a = 0; a < c->nalgos && *nalgos < CAL_ALGOS; a++) {
		if (c->algos[a].advisor || !strcmp(c->algos[a].bcast, "phoenix"))
			continue;
		fprintf(f, "%s%s", (*nalgos)++ ? ", " : "", c->algos[a].label);
	}
	fprintf(f, "]\napp:\n  root: %s\n  broadcasts: %d\n  size: {first: %.0f, last: %.0f}\n"
		"  gap: {first: %.6fs, factor: 1}\n", c->app.root, CAL_BROADCASTS, big, big,
		*gap);
	if (c->app.segment >= 0)
		fprintf(f, "  segment: %.0f\n", c->app.segment);
	if (c->app.wait_sleep)
		fprintf(f, "  wait: sleep\n");
	if (c->app.start_clock)
		fprintf(f, "  start: clock\n");
	/* the load outlasts the broadcasts; the run stops it when they end */
	cal_load(c, (CAL_BROADCASTS + 2) * *gap + 120, f, load, loadlen);
	cal_monitor(c, scale, f);
	return *nalgos ? 0 : -ENOENT;
}

/* What the runs of a calibration campaign said of themselves: summary.json's
 * "fidelity" (experiments/report_fidelity.c) and its slowest broadcast. */
struct cal_runs {
	int runs, rs, bc, bs;	/* runs monitored, strayed; broadcasts, strayed */
	double tmax;		/* the slowest broadcast's completion time (s) */
	double cpu;		/* the largest CPU pressure share of a run; -1: none says */
	double steal;		/* the largest share the hypervisor took in a run; -1 */
	char why[512];		/* "<run>: <why>" of each strayed run, and "<run>
				   broadcast <i>: <why>" of each strayed broadcast of
				   a run that did not stray as a whole; "; " between */
};

/* Append "@run: @why", or "@run broadcast @bcast: @why" when @bcast >= 0,
 * to @r->why, "; " after what it holds; what does not fit is cut. */
static void why_add(struct cal_runs *r, const char *run, int bcast, const char *why)
{
	size_t at = strlen(r->why);

	if (bcast >= 0)
		snprintf(r->why + at, sizeof(r->why) - at, "%s%s broadcast %d: %s",
			 at ? "; " : "", run, bcast, why);
	else
		snprintf(r->why + at, sizeof(r->why) - at, "%s%s: %s", at ? "; " : "", run, why);
}

/* The larger of *@m and @o's number @key, when it has one. */
static void max_of(double *m, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (json_is_number(v) && json_number_value(v) > *m)
		*m = json_number_value(v);
}

/* Results directory @dir's summary.json into @r.  Returns 0, -ENOENT (no
 * summary), -EINVAL (no "fidelity" in it). */
static int cal_read(const char *dir, struct cal_runs *r)
{
	char path[PATH_MAX];
	json_t *j, *fj, *a, *run, *b;
	const char *k;
	size_t i, n;

	memset(r, 0, sizeof(*r));
	r->cpu = r->steal = -1;
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (!(j = json_load_file(path, 0, NULL)))
		return -ENOENT;
	fj = json_object_get(j, "fidelity");
	r->runs = (int)json_integer_value(json_object_get(fj, "runs_monitored"));
	r->rs = (int)json_integer_value(json_object_get(fj, "runs_strayed"));
	r->bc = (int)json_integer_value(json_object_get(fj, "broadcasts_monitored"));
	r->bs = (int)json_integer_value(json_object_get(fj, "broadcasts_strayed"));
	json_array_foreach(json_object_get(fj, "runs"), i, run) {
		const char *id = json_string_value(json_object_get(run, "run")) ?: "?";

		max_of(&r->cpu, run, "cpu_some_share");
		max_of(&r->steal, run, "cpu_steal_share");
		if (json_is_true(json_object_get(run, "strayed")))
			why_add(r, id, -1, json_string_value(json_object_get(run, "why")) ?: "?");
		else
			json_array_foreach(json_object_get(run, "strayed_broadcasts"), n, b)
				why_add(r, id, (int)json_integer_value(json_object_get(b, "index")),
					json_string_value(json_object_get(b, "why")) ?: "?");
	}
	json_object_foreach(json_object_get(j, "algorithms"), k, a)
		max_of(&r->tmax, json_object_get(json_object_get(a, "completion"), "all"), "max");
	json_decref(j);
	return fj ? 0 : -EINVAL;
}

/* The link directions of results directory @dir's grid whose delay was
 * below the delay line's cost per traversal (meta.json's first session,
 * "delay_line": gridemu up's calibration), -1 if it does not say (the
 * netem backend has no delay line). */
static int cal_below(const char *dir)
{
	char path[PATH_MAX];
	json_t *j, *v;
	int below = -1;

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	if (!(j = json_load_file(path, 0, NULL)))
		return -1;
	v = json_object_get(json_object_get(json_array_get(json_object_get(j, "sessions"), 0),
					    "delay_line"), "below");
	if (json_is_integer(v))
		below = (int)json_integer_value(v);
	json_decref(j);
	return below;
}

/*
 * One calibration campaign at dilation @k in @tmpl, from the calibration
 * file @file; its row appended to @rows (again: 1 on the second try of @k),
 * its line printed, what the loop decides on in @t.  Returns 0 when it ran
 * (faithful or not), 128 + the signal when it was interrupted, 1 when its
 * runs gave no fidelity figures (said in one line).
 */
static int cal_step(const char *prefix, const char *file, const char *tmpl, double k, int again,
		    json_t *rows, struct cal_try *t)
{
	struct run_opts r = { .file = file, .files = NULL, .nfiles = 1, .out_root = tmpl,
			      .prefix = prefix, .plots = 0, .task = -1, .dilate = k };
	int st;
	double t0 = gb_now();
	struct cal_runs rr;
	char out[PATH_MAX];

	memset(t, 0, sizeof(*t));
	r.files = &r.file;
	st = do_run(&r, out, sizeof(out));
	if (st >= 128)          /* interrupted: everything is torn down */
		return st;
	if (cal_read(out, &rr) < 0 || rr.runs == 0) {
		warnx("calibrate: k = %g: no fidelity figures (the runs failed: see the "
		      "messages above)", k);
		return 1;
	}
	t->steal = rr.steal;
	t->below = cal_below(out);
	t->marked = rr.rs || rr.bs;
	json_array_append_new(rows, json_pack("{s:f, s:b, s:i, s:i, s:i, s:i, s:f, s:o, s:o, "
		"s:f, s:o, s:s}", "k", k, "again", again, "runs", rr.runs, "runs_strayed", rr.rs,
		"broadcasts", rr.bc, "broadcasts_strayed", rr.bs, "max_completion_s", rr.tmax,
		"max_cpu_some_share", rr.cpu >= 0 ? json_real(rr.cpu) : json_null(),
		"max_cpu_steal_share", t->steal >= 0 ? json_real(t->steal) : json_null(),
		"wall_s", gb_now() - t0, "links_below",
		t->below >= 0 ? json_integer(t->below) : json_null(), "why", rr.why));
	printf("calibrate: k = %-3g %d of %d broadcasts and %d of %d runs strayed, the "
	       "slowest took %.3f s, CPU pressure at most %.0f %% of a run, %.0f s of wall "
	       "clock", k, rr.bs, rr.bc, rr.rs, rr.runs, rr.tmax, rr.cpu * 100, gb_now() - t0);
	/* the machine's part: a vCPU the hypervisor did not run releases its
	 * packets late, which marks a k the harness itself could hold */
	if (t->steal >= 0)
		printf("; the hypervisor took at most %.1f %% of the CPUs' time in a run",
		       t->steal * 100);
	if (t->below > 0)
		printf("; %d link direction%s below the delay line's cost", t->below,
		       t->below == 1 ? "" : "s");
	if (rr.why[0])
		printf("; %s", rr.why);
	if (again)
		printf(" (k = %g again)", k);
	printf("\n");
	if (cal_again(t, again))
		printf("calibrate: k = %g again: marked while the hypervisor took %.1f %% of the "
		       "CPUs' time\n", k, t->steal * 100);
	fflush(stdout);
	gb_rmtree(out);
	return 0;
}

int do_calibrate(const struct run_opts *o, double *k, json_t **table)
{
	struct gx_campaign c;
	struct gb_diag d;
	char tmpl[] = "/tmp/gridexp-calibrate.XXXXXX", file[PATH_MAX];
	int nalgos, ret = 2, len = 0, for_run = o->dilate < 0;   /* @k may be &o->dilate */
	int tried_all = 0;
	size_t n = 0;
	double gap, max_k = o->max_k > 0 ? o->max_k : ladder[NLADDER - 1];
	char ks[64] = "", load[160] = "";
	json_t *rows = json_array();
	FILE *f;

	*k = 0;
	*table = NULL;
	if (gx_campaign_load(o->file, &c, &d) < 0) {
		print_diag(&d);
		json_decref(rows);
		return 2;
	}
	if (!mkdtemp(tmpl)) {
		warnx("calibrate: cannot create a folder in /tmp: %s", strerror(errno));
		goto out;
	}
	snprintf(file, sizeof(file), "%s/calibrate.yaml", tmpl);
	if (!(f = fopen(file, "we"))) {
		warnx("calibrate: cannot write '%s': %s", file, strerror(errno));
		goto out;
	}
	if (cal_yaml(&c, o->scale > 0 ? o->scale : c.scale, f, &nalgos, &gap, load,
		     sizeof(load)) < 0) {
		fclose(f);
		warnx("calibrate: %s has no algorithm that runs without the advisor or phoenixd "
		      "to calibrate with", o->file);
		goto out;
	}
	fclose(f);
	/* the ladder up to K (the parser took K from it) */
	while (n < NLADDER && ladder[n] <= max_k) {
		len += snprintf(ks + len, sizeof(ks) - (size_t)len, "%s%g", n ? ", " : "",
				ladder[n]);
		n++;
	}
	fprintf(stderr, ME ": calibrate: the largest broadcast of %s, %d times %.3f s apart "
		"(its scaled gap) with %d algorithm%s, %s, at k = %s until the fidelity "
		"monitor marks none\n", c.name, CAL_BROADCASTS, gap, nalgos,
		nalgos == 1 ? "" : "s", load[0] ? load : "unloaded", ks);
	ret = 1;
	for (size_t i = 0; i < n; i++) {
		struct cal_try t;
		int again = 0, st;

		while (!(st = cal_step(o->prefix, file, tmpl, ladder[i], again, rows, &t)) &&
		       cal_again(&t, again))
			again = 1;
		if (st) {               /* interrupted (128 + the signal), or no figures (1) */
			ret = st;
			break;
		}
		/* faithful: nothing marked, and every link's delay at least the
		 * delay line's own cost per traversal (a link below it is slower
		 * than configured, which no fidelity mark shows) */
		if (!t.marked && t.below <= 0) {
			*k = ladder[i];
			ret = 0;
			break;
		}
		tried_all = i == n - 1;
	}
	/* one line; run --dilate auto then runs nothing */
	if (ret == 1 && tried_all)
		warnx("calibrate: every k up to %g strayed: this machine cannot run %s "
		      "faithfully %s%s", ladder[n - 1], c.name, n < NLADDER ?
		      "so little dilated (a larger K may find a k)" : "at any k of the ladder",
		      for_run ? "; not run" : "");
	if (!ret)
		printf("calibrate: k = %g, the smallest at which the fidelity monitor marked "
		       "nothing and no link was below the delay line's cost\n", *k);
	*table = json_pack("{s:s, s:i, s:f, s:O, s:f, s:o}", "format", "gridexp-calibrate",
			   "broadcasts", CAL_BROADCASTS, "gap_s", gap, "tried", rows, "max_k",
			   ladder[n - 1], "chosen", *k > 0 ? json_real(*k) : json_null());
out:
	json_decref(rows);
	if (tmpl[0] && strcmp(tmpl, "/tmp/gridexp-calibrate.XXXXXX"))
		gb_rmtree(tmpl);
	gx_campaign_release(&c);
	return ret;
}
