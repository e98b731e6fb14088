// SPDX-License-Identifier: MIT
/*
 * report.c - a campaign's summary and plots from its results directory
 * alone (`gridexp report DIR`; `gridexp run` ends with the same call, so
 * the two give the same bytes).  This file collects the rows and writes the
 * summaries; report_fidelity.c says what the fidelity monitor marked,
 * report_plots.c draws the plots, results.c reads the CSVs.
 *
 * Inputs: meta.json (the campaign's algorithms, conditions, runs) and, per
 * complete run (runs/<id>/complete exists), run.json, broadcasts.csv,
 * ranks.csv and wan.csv.  Outputs, each written atomically: summary.json,
 * summary.txt (with report_branches.c's tables: where the broadcasts
 * ended, how long their edges took) and gnuplot PNGs:
 *   completion-<cond>-r<rep>.png  completion time against broadcast index,
 *       one line per algorithm, the broadcasts that met a load shaded
 *       (seed 000 Fig. 8);
 *   arrivals-<cond>-r<rep>.png    when each host returned from MPI_Bcast,
 *       after the root began: the median over the run's broadcasts when
 *       they have one size, else the first one's; hosts in topology order,
 *       clusters marked (seed 001 Fig. 5);
 *   sizes.png                     median completion time against message
 *       size, log-log, unloaded and loaded apart (seed 002 Fig. 4), when
 *       the campaign has several sizes;
 *   procs.png                     median completion time against the
 *       number of processors, one line per algorithm and size, unloaded
 *       broadcasts (seed 003 slide 19), when two conditions or more set
 *       `procs`.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gbio.h"
#include "gbexp.h"
#include "gbyaml.h"
#include "results.h"
#include "report_priv.h"

/* ------------------------------------------------------------------ */
/* Collecting the rows (struct coll: report_priv.h)                   */
/* ------------------------------------------------------------------ */

/* @err said (gb_err_vset()); -EINVAL */
static __attribute__((format(printf, 2, 3))) int rfail(struct gb_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gb_err_vset(err, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* @dir's meta.json into *@meta; -ENOENT (not a results directory) or
 * another -errno with @err said. */
static int read_meta(const char *dir, json_t **meta, struct gb_err *err)
{
	char path[PATH_MAX];
	json_error_t je;
	int ret;

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	if ((*meta = gb_json_load_file(path, &je, &ret)))
		return 0;
	if (ret == -ENOENT || ret == -ENOTDIR) {
		rfail(err, "'%s' is not a campaign's results directory (no meta.json)",
		      dir);
		return -ENOENT;
	}
	return rfail(err, "%s: %s", path, ret == -EINVAL ? je.text : strerror(-ret));
}

static int load_meta(struct coll *C, struct gb_err *err)
{
	char path[PATH_MAX];
	json_t *camp, *a, *runs;
	size_t i;
	int ret;

	snprintf(path, sizeof(path), "%s/meta.json", C->dir);
	if ((ret = read_meta(C->dir, &C->meta, err)) < 0)
		return ret;
	camp = json_object_get(C->meta, "campaign");
	snprintf(C->name, sizeof(C->name), "%s",
		 json_string_value(json_object_get(camp, "name")) ?: "?");
	snprintf(C->stamp, sizeof(C->stamp), "%s",
		 json_string_value(json_object_get(C->meta, "results_id")) ?: "?");
	json_array_foreach(json_object_get(camp, "algorithms"), i, a) {
		if (C->nalgos < GX_MAX_ALGOS)
			C->algos[C->nalgos++] = json_string_value(json_object_get(a, "label"));
	}
	json_array_foreach(json_object_get(camp, "conditions"), i, a) {
		if (C->nconds < GX_MAX_CONDS)
			C->conds[C->nconds++] = json_string_value(json_object_get(a, "name"));
	}
	runs = json_object_get(C->meta, "runs");
	if (!C->nalgos || !json_is_array(runs))
		return rfail(err, "%s: no algorithms or runs", path);
	C->runs = calloc(json_array_size(runs) + 1, sizeof(*C->runs));
	if (!C->runs)
		return -ENOMEM;
	json_array_foreach(runs, i, a) {
		struct run *r = &C->runs[C->nruns++];

		snprintf(r->id, sizeof(r->id), "%s",
			 json_string_value(json_object_get(a, "id")) ?: "");
		r->algo = (int)json_integer_value(json_object_get(a, "algo"));
		r->cond = (int)json_integer_value(json_object_get(a, "cond"));
		r->rep = (int)json_integer_value(json_object_get(a, "rep"));
		if (r->algo < 0 || r->algo >= C->nalgos || r->cond < 0 || r->cond >= C->nconds)
			return rfail(err, "%s: run '%s' names no algorithm or condition",
				     path, r->id);
	}
	return 0;
}

static int add_model(struct coll *C, const char *name)
{
	for (int m = 0; m < C->nmodels; m++)
		if (!strcmp(C->models[m], name))
			return m;
	if (C->nmodels >= GX_MAX_MODELS)
		return -1;
	snprintf(C->models[C->nmodels], sizeof(C->models[0]), "%s", name);
	C->mp[C->nmodels] = C->models[C->nmodels];
	return C->nmodels++;
}

/* The loads run @r met (load.csv's rows at @path; none without the file),
 * and those that ran more than 5 % light ("short"). */
static void count_loads(const char *path, struct run *r)
{
	struct gx_csv lc;
	int st;

	if (gx_csv_read(path, &lc) < 0)
		return;
	st = gx_csv_col(&lc, "status");
	for (int i = 0; st >= 0 && i < lc.nrows; i++) {
		r->loads++;
		r->loads_short += !strncmp(gx_csv_str(&lc, i, st), "short", 5);
	}
	gx_csv_release(&lc);
}

static int read_run(struct coll *C, struct run *r, struct gb_err *err)
{
	char path[PATH_MAX];
	struct gx_csv b, w;
	json_error_t je;
	json_t *rj;
	int ret, pc[GX_MAX_MODELS], cidx, cs, cc, cz, cl, cf, cm, wi, wb;

	snprintf(path, sizeof(path), "%s/runs/%s/complete", C->dir, r->id);
	if (access(path, F_OK) != 0)
		return 0;
	r->complete = 1;
	snprintf(path, sizeof(path), "%s/runs/%s/run.json", C->dir, r->id);
	rj = gb_json_load_file(path, &je, &ret);
	if (!rj)
		return rfail(err, "%s: %s", path, ret == -EINVAL ? je.text : strerror(-ret));
	r->failed = strcmp(json_string_value(json_object_get(rj, "status")) ?: "", "ok") != 0;
	gx_run_fidelity(C->dir, r, rj);
	{
		json_t *mj = json_object_get(rj, "monitor_share");

		r->mon_share = json_is_number(json_object_get(mj, "max")) ?
			json_number_value(json_object_get(mj, "max")) : NAN;
		snprintf(r->mon_link, sizeof(r->mon_link), "%s",
			 json_string_value(json_object_get(mj, "link")) ?: "");
	}
	json_decref(rj);
	snprintf(path, sizeof(path), "%s/runs/%s/broadcasts.csv", C->dir, r->id);
	ret = gx_csv_read(path, &b);
	if (ret == -ENOENT)
		return 0;      /* a run that failed before its first broadcast */
	if (ret < 0)
		return rfail(err, "%s: %s", path, strerror(-ret));
	memset(&w, 0, sizeof(w));
	/* wan.csv is derived from broadcasts.csv and capture.csv: derived again
	 * (a run without capture.csv keeps the wan.csv it has, if any) */
	snprintf(path, sizeof(path), "%s/runs/%s", C->dir, r->id);
	gx_wan_compute(path);
	snprintf(path, sizeof(path), "%s/runs/%s/wan.csv", C->dir, r->id);
	if (gx_csv_read(path, &w) < 0)
		memset(&w, 0, sizeof(w));
	for (int k = 0; k < b.ncols; k++)
		if (!strncmp(b.head[k], "pred_", 5) && strcmp(b.head[k], "pred_model"))
			add_model(C, b.head[k] + 5);
	for (int m = 0; m < C->nmodels; m++) {
		char col[48];

		snprintf(col, sizeof(col), "pred_%s", C->models[m]);
		pc[m] = gx_csv_col(&b, col);
	}
	cidx = gx_csv_col(&b, "index");
	cs = gx_csv_col(&b, "start_time");
	cc = gx_csv_col(&b, "completion_time");
	cz = gx_csv_col(&b, "size");
	cl = gx_csv_col(&b, "load_state");
	cf = gx_csv_col(&b, "fallback");
	cm = gx_csv_col(&b, "mismatches");
	wi = gx_csv_col(&w, "index");
	wb = gx_csv_col(&w, "wan_bytes");
	if (cidx < 0 || cs < 0 || cc < 0 || cz < 0) {
		gx_csv_release(&b);
		gx_csv_release(&w);
		return rfail(err, "%s/runs/%s/broadcasts.csv: columns index, size, "
			     "start_time, completion_time are required", C->dir, r->id);
	}
	int first = C->nrows;

	for (int i = 0; i < b.nrows; i++) {
		struct gx_row *row;

		if (C->nrows == C->crows) {
			struct gx_row *nr = realloc(C->rows, sizeof(*nr) *
						    (size_t)(C->crows = C->crows ? 2 * C->crows :
							     256));
			if (!nr) {
				gx_csv_release(&b);
				gx_csv_release(&w);
				return -ENOMEM;
			}
			C->rows = nr;
		}
		row = &C->rows[C->nrows++];
		memset(row, 0, sizeof(*row));
		row->algo = r->algo;
		row->cond = r->cond;
		row->rep = r->rep;
		row->index = (int)gx_csv_num(&b, i, cidx);
		row->size = gx_csv_num(&b, i, cz);
		row->start = gx_csv_num(&b, i, cs);
		row->completion = gx_csv_num(&b, i, cc);
		row->loaded = !strcmp(gx_csv_str(&b, i, cl), "loaded");
		row->fallback = cf >= 0 && gx_csv_num(&b, i, cf) > 0;
		row->mismatches = cm >= 0 ? (long long)gx_csv_num(&b, i, cm) : 0;
		for (int m = 0; m < GX_MAX_MODELS; m++)
			row->pred[m] = m < C->nmodels && pc[m] >= 0 ? gx_csv_num(&b, i, pc[m]) : NAN;
		row->wan_bytes = NAN;
		for (int k = 0; wi >= 0 && wb >= 0 && k < w.nrows; k++)
			if ((int)gx_csv_num(&w, k, wi) == row->index)
				row->wan_bytes = gx_csv_num(&w, k, wb);
	}
	gx_csv_release(&b);
	gx_csv_release(&w);
	if (C->topo) {
		json_t *cj = json_array_get(json_object_get(json_object_get(C->meta, "campaign"),
							    "conditions"), (size_t)r->cond);
		const char *tg = json_string_value(json_object_get(cj, "target"));
		int target = tg ? gb_topo_find_cluster(C->topo, tg) : -1;

		snprintf(path, sizeof(path), "%s/runs/%s/ranks.csv", C->dir, r->id);
		if ((ret = gx_run_trees(C->topo, path, target, C->rows + first, C->nrows - first,
					&r->trees)) < 0)
			return rfail(err, "%s: %s", path, strerror(-ret));
	}
	snprintf(path, sizeof(path), "%s/runs/%s/load.csv", C->dir, r->id);
	count_loads(path, r);
	return 0;
}

/* meta.json and every complete run of @dir into @C (initialised here). */
static int coll_load(struct coll *C, const char *dir, struct gb_err *err)
{
	int ret;

	memset(C, 0, sizeof(*C));
	C->dir = dir;
	if ((ret = load_meta(C, err)) < 0)
		return ret;
	{
		char path[PATH_MAX];
		struct gb_diag d;

		/* for the trees' mechanism counts; results without a copy have none */
		snprintf(path, sizeof(path), "%s/topology.yaml", dir);
		if (gb_topo_load(path, &C->topo, &d) < 0)
			C->topo = NULL;
	}
	for (int k = 0; k < C->nruns; k++)
		if ((ret = read_run(C, &C->runs[k], err)) < 0)
			return ret;
	return 0;
}

static void coll_release(struct coll *C)
{
	json_decref(C->meta);
	gb_topo_free(C->topo);
	for (int k = 0; C->runs && k < C->nruns; k++)
		gx_run_fidelity_release(&C->runs[k]);
	free(C->runs);
	free(C->rows);
	memset(C, 0, sizeof(*C));
}

/* ------------------------------------------------------------------ */
/* summary.json                                                        */
/* ------------------------------------------------------------------ */

static json_t *jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *jstat(const struct gx_stat *st)
{
	return json_pack("{s:i,s:o,s:o,s:o,s:o}", "n", st->n, "mean", jnum(st->mean), "median",
			 jnum(st->median), "min", jnum(st->min), "max", jnum(st->max));
}

/*
 * Why run @r is not complete, from what the directory says: the Slurm task
 * that had it (meta.json "slurm": the newest job with it, and that task's
 * fate when gridexp slurm recorded it), else what is left of it (runs/ID.tmp:
 * interrupted), else not run yet.
 */
static void incomplete_reason(const struct coll *C, const struct run *r, char *buf, size_t len)
{
	char path[PATH_MAX], left[PATH_MAX + 64] = "";
	json_t *jobs = json_object_get(C->meta, "slurm"), *job, *t;
	size_t i, k;

	snprintf(path, sizeof(path), "%s/runs/%s.tmp", C->dir, r->id);
	if (access(path, F_OK) == 0)
		snprintf(left, sizeof(left), "runs/%s.tmp is what is left of it", r->id);
	for (i = json_array_size(jobs); i-- > 0;) {
		job = json_array_get(jobs, i);
		json_array_foreach(json_object_get(job, "tasks"), k, t) {
			const char *id = json_string_value(json_object_get(job, "job")) ?: "?";
			const char *st = json_string_value(json_object_get(t, "state"));
			int task = (int)json_integer_value(json_object_get(t, "task"));

			if (strcmp(json_string_value(json_object_get(t, "run")) ?: "", r->id))
				continue;
			if (st)
				snprintf(buf, len, "slurm job %s task %d ended %s, exit %s (see "
					 "slurm/%s-%d.out)%s%s", id, task, st,
					 json_string_value(json_object_get(t, "exit")) ?: "?", id, task,
					 *left ? "; " : "", left);
			else
				snprintf(buf, len, "slurm job %s task %d has not completed it (see "
					 "slurm/%s-%d.out)", id, task, id, task);
			return;
		}
	}
	if (*left)
		snprintf(buf, len, "interrupted (%s)", left);
	else
		snprintf(buf, len, "not run yet");
}

/* The runs that are not complete, and why: [{run, reason}]; their lines to @f. */
static json_t *incomplete_json(const struct coll *C, FILE *f)
{
	json_t *a = json_array();
	char why[512];
	int n = 0;

	for (int k = 0; k < C->nruns; k++) {
		const struct run *r = &C->runs[k];

		if (r->complete)
			continue;
		incomplete_reason(C, r, why, sizeof(why));
		json_array_append_new(a, json_pack("{s:s,s:s}", "run", r->id, "reason", why));
		if (f)
			fprintf(f, "%s%s: %s\n", n++ ? "" : "\nruns not complete:\n", r->id, why);
	}
	return a;
}

/* The time dilation the results were taken at (1 for results from before it existed). */
static double meta_dilate(const struct coll *C)
{
	json_t *d = json_object_get(C->meta, "dilate");

	return json_is_number(d) ? json_number_value(d) : 1.0;
}

/*
 * Broadcasts followed, in their run, by a gap shorter than twice their own
 * completion time (*@shortg of *@of that have a next one): the next began
 * before the network had been idle for as long as the broadcast took.  The
 * paper's gaps are 20 or more times its broadcasts; issue 44 asks a faithful
 * campaign's scale to leave at least twice.  Starts are the root's wire
 * clock, so the gap is divided by the dilation; completion times are the
 * topology's already.  *@scale_x is the largest 2 x completion / gap: the
 * factor by which the campaign's scale would have to grow for every gap to
 * be twice its broadcast, if the broadcasts took as long (1 or less: none
 * short; 0 when no broadcast has a next one).
 */
static void short_gaps(const struct coll *C, double k, int *shortg, int *of, double *scale_x)
{
	*shortg = *of = 0;
	*scale_x = 0;
	for (int i = 0; i < C->nrows; i++) {
		const struct gx_row *r = &C->rows[i];

		for (int j = 0; j < C->nrows; j++) {
			const struct gx_row *n = &C->rows[j];

			if (n->algo != r->algo || n->cond != r->cond || n->rep != r->rep ||
			    n->index != r->index + 1)
				continue;
			double gap = (n->start - r->start) / k;
			double need = gap > 0 ? 2 * r->completion / gap : 0;

			(*of)++;
			*shortg += gap < 2 * r->completion;
			if (need > *scale_x)
				*scale_x = need;
			break;
		}
	}
}

static void gaps_text(const struct coll *C, double k, FILE *f)
{
	int sg, of;
	double x;

	short_gaps(C, k, &sg, &of, &x);
	if (!of)
		return;
	fprintf(f, "gaps: %d of %d broadcasts were followed by a gap shorter than twice "
		"their completion time", sg, of);
	if (sg)
		fprintf(f, " (the next began before the network had been idle as long: the "
			"scale is too small for them; at %.2f times the scale every gap would be "
			"twice its broadcast, if the broadcasts took as long)", x);
	fputc('\n', f);
}

static json_t *summary_json(const struct coll *C, const struct gx_summary *s, int complete,
			    int failed)
{
	json_t *j = json_object(), *al = json_object();

	json_object_set_new(j, "format", json_string("gridbed-campaign-summary"));
	json_object_set_new(j, "campaign", json_string(C->name));
	json_object_set_new(j, "results_id", json_string(C->stamp));
	json_object_set_new(j, "runs", json_integer(C->nruns));
	json_object_set_new(j, "runs_complete", json_integer(complete));
	json_object_set_new(j, "runs_failed", json_integer(failed));
	json_object_set_new(j, "reference", s->ref >= 0 ? json_string(GX_REFERENCE) :
			    json_null());
	json_object_set(j, "tcp", json_object_get(C->meta, "tcp") ?: json_null());
	json_object_set_new(j, "dilate", json_real(meta_dilate(C)));
	for (int a = 0; a < s->nalgos; a++) {
		const struct gx_algo_summary *as = &s->a[a];
		json_t *o = json_object(), *me = json_object(), *bs = json_array();

		json_object_set_new(o, "runs", json_integer(as->runs));
		json_object_set_new(o, "failed_runs", json_integer(as->failed_runs));
		json_object_set_new(o, "broadcasts", json_integer(as->broadcasts));
		json_object_set_new(o, "fallbacks", json_integer(as->fallbacks));
		json_object_set_new(o, "mismatches", json_integer(as->mismatches));
		json_object_set_new(o, "completion", json_pack("{s:o,s:o,s:o}", "all",
							       jstat(&as->all), "loaded",
							       jstat(&as->loaded), "unloaded",
							       jstat(&as->unloaded)));
		json_object_set_new(o, "improvement_pct", json_pack("{s:o,s:o,s:i}", "loaded",
								    jstat(&as->imp_loaded),
								    "unloaded",
								    jstat(&as->imp_unloaded),
								    "mixed_pairs",
								    as->imp_mixed));
		json_object_set_new(o, "ratio_to_native", jnum(as->ratio_native));
		json_object_set_new(o, "ratio_pairs", json_integer(as->ratio_n));
		json_object_set_new(o, "monitor_wan_share_max", jnum(as->monitor_share_max));
		json_object_set_new(o, "short_loads", jnum(as->short_loads));
		json_object_set_new(o, "target_relay_loaded_share",
				    jnum(as->target_relay_loaded_share));
		json_object_set_new(o, "mpich_wan_unloaded_share",
				    jnum(as->mpich_wan_unloaded_share));
		json_object_set_new(o, "s_per_mib",
				    json_pack("{s:o,s:o}", "loaded", jnum(as->loaded_s_per_mib),
					      "unloaded", jnum(as->unloaded_s_per_mib)));
		json_object_set_new(o, "crossings", jstat(&as->crossings));
		json_object_set_new(o, "crossings_by_load",
				    json_pack("{s:o,s:o}", "loaded", jstat(&as->crossings_loaded),
					      "unloaded", jstat(&as->crossings_unloaded)));
		for (int m = 0; m < s->nmodels; m++)
			json_object_set_new(me, s->models[m],
					    json_pack("{s:i,s:o,s:o}", "n", as->model_err[m].n,
						      "mean", jnum(as->model_err[m].mean),
						      "mean_abs", jnum(as->model_abs[m].mean)));
		json_object_set_new(o, "model_error", me);
		for (int k = 0; k < as->nby_size; k++)
			json_array_append_new(bs, json_pack("{s:f,s:s,s:o}", "size",
							    as->by_size[k].size, "load",
							    as->by_size[k].loaded ? "loaded" :
							    "unloaded", "completion",
							    jstat(&as->by_size[k].t)));
		json_object_set_new(o, "by_size", bs);
		json_object_set_new(al, as->name, o);
	}
	json_object_set_new(j, "algorithms", al);
	return j;
}


/*
 * After the tables: the rank order when it is not the topology's, and what
 * phoenixd did in each session (meta.json), so that a campaign with the
 * phoenix planner says where its trees came from and whether they were
 * wide-area optimal.
 */
static void write_setup_text(const struct coll *C, FILE *f)
{
	json_t *camp = json_object_get(C->meta, "campaign");
	json_t *ranks = json_object_get(camp, "ranks"), *ss = json_object_get(C->meta, "sessions");
	const char *order = json_string_value(json_object_get(ranks, "order"));
	double k_run = meta_dilate(C);
	json_t *se;
	size_t i;

	if (order && strcmp(order, "topology"))
		fprintf(f, "ranks: %s order (seed %lld): the root is rank 0, the other hosts "
			"%s; see each run's rankmap.json\n", order,
			json_integer_value(json_object_get(ranks, "seed")),
			strcmp(order, "shuffle") ? "dealt round robin over the clusters" :
			"in a seeded random order that ignores the clusters");
	json_array_foreach(ss, i, se) {
		json_t *p = json_object_get(se, "phoenixd"), *in = json_object_get(p, "initial");
		json_t *tcp = json_object_get(se, "tcp"), *st;
		char wall[96];
		double dk;
		size_t k;

		/* the hosts' TCP stack (issue 18), read back from the grid */
		json_array_foreach(tcp, k, st) {
			size_t nh = json_array_size(json_object_get(st, "hosts"));
			const char *cc = json_string_value(json_object_get(st, "congestion")) ?: "";

			fprintf(f, "tcp (session %zu): %s (", i + 1,
				json_string_value(json_object_get(st, "text")) ?: "?");
			if (json_array_size(tcp) == 1)
				fprintf(f, "every host)\n");
			else
				fprintf(f, "%zu host%s, first %s)\n", nh, nh == 1 ? "" : "s",
					json_string_value(json_array_get(json_object_get(st, "hosts"),
									  0)) ?: "?");
			/* CUBIC and BBR run on the hosts' clock, which dilation does
			 * not slow (docs/topology-format.md, "The hosts' TCP stack") */
			if (k_run > 1 && gb_tcp_cc_clocked(cc))
				fprintf(f, "  note: %s grows its window on the hosts' clock, not the "
					"topology's: at x%g a transfer that loses packets recovers "
					"faster than on the network emulated (reno does not; "
					"docs/topology-format.md)\n", cc, k_run);
		}
		if (!p)
			continue;
		/* on a dilated grid, the round on both clocks (gx_phoenixd_settings()) */
		dk = json_number_value(json_object_get(p, "dilate"));
		wall[0] = 0;
		if (dk > 1)
			snprintf(wall, sizeof(wall), " of the topology's time (%.0f ms of wall clock "
				 "at k = %g)", json_number_value(json_object_get(p, "wall_round_ms")),
				 dk);
		fprintf(f, "phoenixd (session %zu): converged after %.1f s, %lld rounds of %lld ms%s, "
			"%lld messages (%lld bytes), %lld parent changes (%lld by shortcut); "
			"wide-area optimal trees: %lld of %lld (gridexp's check), %lld "
			"(phoenixd's own)\n", i + 1,
			json_number_value(json_object_get(in, "time_s")),
			json_integer_value(json_object_get(in, "rounds")),
			json_integer_value(json_object_get(p, "round_ms")), wall,
			json_integer_value(json_object_get(in, "messages")),
			json_integer_value(json_object_get(in, "bytes")),
			json_integer_value(json_object_get(in, "changes")),
			json_integer_value(json_object_get(in, "shortcuts")),
			json_integer_value(json_object_get(p, "wan_optimal_gridexp")),
			json_integer_value(json_object_get(p, "trees")),
			json_integer_value(json_object_get(in, "wan_optimal")));
	}
}

/* ------------------------------------------------------------------ */
/* gx_report()                                                         */
/* ------------------------------------------------------------------ */

/*
 * The summary of @C's rows into @s, with the complete and failed runs, in
 * all and per algorithm.
 */
static int coll_summarize(const struct coll *C, struct gx_summary *s, int *complete,
			  int *failed, struct gb_err *err)
{
	int ret = gx_summarize(C->rows, C->nrows, C->algos, C->nalgos, C->mp, C->nmodels,
			       GX_REFERENCE, s);

	if (ret < 0) {
		rfail(err, "cannot summarise: %s", strerror(-ret));
		return ret;
	}
	/* the rows too, for gridexp check's intervals (bootstrap.h) */
	if (C->nrows > 0) {
		if (!(s->rows = malloc(sizeof(*s->rows) * (size_t)C->nrows))) {
			gx_summary_release(s);
			rfail(err, "cannot summarise: %s", strerror(ENOMEM));
			return -ENOMEM;
		}
		memcpy(s->rows, C->rows, sizeof(*s->rows) * (size_t)C->nrows);
		s->nrows = C->nrows;
	}
	/* and the conditions' names, for an expectation's `where` */
	if (C->nconds > 0) {
		if (!(s->conds = calloc((size_t)C->nconds, sizeof(*s->conds)))) {
			gx_summary_release(s);
			rfail(err, "cannot summarise: %s", strerror(ENOMEM));
			return -ENOMEM;
		}
		for (int k = 0; k < C->nconds; k++)
			snprintf(s->conds[k], sizeof(s->conds[k]), "%s", C->conds[k] ?: "");
		s->nconds = C->nconds;
	}
	int tl[GX_MAX_ALGOS][4] = { { 0 } };

	*complete = *failed = 0;
	for (int k = 0; k < C->nruns; k++) {
		const struct run *r = &C->runs[k];

		*complete += r->complete;
		*failed += r->complete && r->failed;
		s->a[r->algo].runs += r->complete;
		s->a[r->algo].failed_runs += r->complete && r->failed;
		if (!r->complete)
			continue;
		struct gx_algo_summary *as = &s->a[r->algo];

		if (!isnan(r->mon_share) && !(as->monitor_share_max >= r->mon_share))
			as->monitor_share_max = r->mon_share;
		as->short_loads = (isnan(as->short_loads) ? 0 : as->short_loads) + r->loads_short;
		tl[r->algo][0] += r->trees.loaded;
		tl[r->algo][1] += r->trees.relay;
		tl[r->algo][2] += r->trees.unloaded;
		tl[r->algo][3] += r->trees.mpich_wan;
	}
	for (int a = 0; a < s->nalgos && a < GX_MAX_ALGOS; a++) {
		s->a[a].target_relay_loaded_share = tl[a][0] ? (double)tl[a][1] / tl[a][0] : NAN;
		s->a[a].mpich_wan_unloaded_share = tl[a][2] ? (double)tl[a][3] / tl[a][2] : NAN;
	}
	return 0;
}

/* One line: the most of a wide-area direction gridmon's own probes took over a run. */
static void monitor_share_text(const struct coll *C, FILE *f)
{
	const struct run *top = NULL;
	int n = 0;

	for (int k = 0; k < C->nruns; k++) {
		const struct run *r = &C->runs[k];

		if (!r->complete || isnan(r->mon_share))
			continue;
		n++;
		if (!top || r->mon_share > top->mon_share)
			top = r;
	}
	if (top)
		fprintf(f, "monitor: its probes took at most %.1f %% of a wide-area direction over "
			"a run (%s in %s; %d runs recorded; runs/*/monitor-share.csv)\n",
			top->mon_share * 100, top->mon_link[0] ? top->mon_link : "-", top->id, n);
}

/* One line: the loads that ran more than 5 % light, and their runs. */
static void short_loads_text(const struct coll *C, FILE *f)
{
	int loads = 0, shorts = 0, runs = 0;

	for (int k = 0; k < C->nruns; k++) {
		const struct run *r = &C->runs[k];

		if (!r->complete)
			continue;
		loads += r->loads;
		shorts += r->loads_short;
		runs += r->loads_short > 0;
	}
	if (!loads)
		return;
	fprintf(f, "loads: %d of %d sent more than 5 %% short of their rate, in %d run%s%s\n",
		shorts, loads, runs, runs == 1 ? "" : "s", shorts ? " (marked: they did not meet "
		"the same load dynamics; runs/*/load.csv \"short\")" : "");
	for (int k = 0; shorts && k < C->nruns; k++)
		if (C->runs[k].complete && C->runs[k].loads_short)
			fprintf(f, "  %s: %d of %d loads short\n", C->runs[k].id,
				C->runs[k].loads_short, C->runs[k].loads);
}

int gx_report(const char *dir, int do_plots, FILE *out, struct gx_summary *sout, struct gb_err *err)
{
	struct coll C;
	struct gx_summary s;
	char path[PATH_MAX], title[512], *text = NULL, *js = NULL;
	size_t tlen = 0;
	json_t *j = NULL, *branches = NULL, *notdone = NULL, *intervals = NULL;
	FILE *f;
	int ret, complete = 0, failed = 0;

	memset(&s, 0, sizeof(s));
	if ((ret = coll_load(&C, dir, err)) < 0)
		goto cleanup;
	if ((ret = coll_summarize(&C, &s, &complete, &failed, err)) < 0)
		goto cleanup;
	snprintf(title, sizeof(title), "campaign %s (results %s): %d of %d runs complete, %d "
		 "failed, %d broadcasts, time dilation x%g%s", C.name, C.stamp, complete, C.nruns,
		 failed, C.nrows, meta_dilate(&C), meta_dilate(&C) > 1 ? " (times are the "
		 "topology's: measured / k)" : " (none)");
	if (!(f = open_memstream(&text, &tlen))) {
		ret = -ENOMEM;
		goto cleanup;
	}
	gx_summary_write_text(&s, title, f);
	if (gx_report_intervals(&s, f, &intervals) < 0) {
		fclose(f);
		ret = -ENOMEM;
		goto cleanup;
	}
	gx_fidelity_text(&C, 1, f);
	gaps_text(&C, meta_dilate(&C), f);
	monitor_share_text(&C, f);
	short_loads_text(&C, f);
	notdone = incomplete_json(&C, f);
	ret = gx_report_branches(&C, f, &branches);
	write_setup_text(&C, f);
	if (fclose(f) == EOF || ret < 0) {
		ret = -ENOMEM;
		goto cleanup;
	}
	j = summary_json(&C, &s, complete, failed);
	if (j)
		json_object_set_new(j, "fidelity", gx_fidelity_json(&C));
	if (j) {
		int sg, of;
		double x;

		short_gaps(&C, meta_dilate(&C), &sg, &of, &x);
		json_object_set_new(j, "gaps", json_pack("{s:i, s:i, s:f}", "short", sg, "of", of,
							 "scale_x", x));
	}
	if (j && notdone)
		json_object_set(j, "incomplete", notdone);
	if (j && branches)
		json_object_set_new(j, "ended_in", branches);
	branches = NULL;
	if (j && intervals)
		json_object_set_new(j, "intervals", intervals);
	intervals = NULL;
	js = j ? json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) :
		 NULL;
	if (!js) {
		ret = -ENOMEM;
		goto cleanup;
	}
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	if ((ret = gx_write_atomic(path, text, tlen)) < 0) {
		rfail(err, "cannot write '%s': %s", path, strerror(-ret));
		goto cleanup;
	}
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	{
		size_t jl = strlen(js);
		char *jn = realloc(js, jl + 2);

		if (!jn) {
			ret = -ENOMEM;
			goto cleanup;
		}
		js = jn;
		js[jl] = '\n';
		js[jl + 1] = '\0';
	}
	if ((ret = gx_write_atomic(path, js, strlen(js))) < 0) {
		rfail(err, "cannot write '%s': %s", path, strerror(-ret));
		goto cleanup;
	}
	if (out)
		fwrite(text, 1, tlen, out);
	if (do_plots && (ret = gx_report_plots(&C, &s)) < 0) {
		rfail(err, "gnuplot failed to draw the plots in '%s' (is gnuplot-nox "
		      "installed?)", dir);
		goto cleanup;
	}
	ret = 0;
	if (sout) {
		*sout = s;
		memset(&s, 0, sizeof(s));
	}
cleanup:
	json_decref(notdone);
	gx_summary_release(&s);
	json_decref(branches);
	json_decref(intervals);
	json_decref(j);
	free(js);
	free(text);
	coll_release(&C);
	return ret;
}

/* ------------------------------------------------------------------ */
/* gx_report_pool(): several results directories of one campaign       */
/* ------------------------------------------------------------------ */

static int name_index(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (names[i] && name && !strcmp(names[i], name))
			return i;
	return -1;
}

/*
 * Directory @D's runs and rows appended to @P, with @D's algorithm,
 * condition and model indices turned into @P's and its repetitions moved
 * past @repoff (so that a broadcast pairs only with its own directory's).
 * *@maxrep: @D's largest repetition.
 */
static int pool_add(struct coll *P, const struct coll *D, int repoff, int *maxrep,
		    struct gb_err *err)
{
	int amap[GX_MAX_ALGOS], cmap[GX_MAX_CONDS], mmap[GX_MAX_MODELS];

	for (int a = 0; a < D->nalgos; a++)
		if ((amap[a] = name_index(P->algos, P->nalgos, D->algos[a])) < 0)
			return rfail(err, "'%s': algorithm '%s' is not in '%s' (pool the "
				     "results of one campaign)", D->dir, D->algos[a] ?: "?", P->dir);
	for (int c = 0; c < D->nconds; c++)
		if ((cmap[c] = name_index(P->conds, P->nconds, D->conds[c])) < 0)
			return rfail(err, "'%s': condition '%s' is not in '%s' (pool the "
				     "results of one campaign)", D->dir, D->conds[c] ?: "?", P->dir);
	for (int m = 0; m < D->nmodels; m++)
		mmap[m] = add_model(P, D->models[m]);
	*maxrep = 0;
	for (int k = 0; k < D->nruns; k++) {
		struct run *r = &P->runs[P->nruns++];

		*r = D->runs[k];
		r->fid = NULL;  /* D's to release; the pooled text lists no run */
		r->algo = amap[r->algo];
		r->cond = cmap[r->cond];
		if (D->runs[k].rep > *maxrep)
			*maxrep = D->runs[k].rep;
		r->rep += repoff;
	}
	for (int i = 0; i < D->nrows; i++) {
		struct gx_row *row = &P->rows[P->nrows++];

		*row = D->rows[i];
		row->algo = amap[row->algo];
		row->cond = cmap[row->cond];
		row->rep += repoff;
		for (int m = 0; m < GX_MAX_MODELS; m++)
			row->pred[m] = NAN;
		for (int m = 0; m < D->nmodels; m++)
			if (mmap[m] >= 0)
				row->pred[mmap[m]] = D->rows[i].pred[m];
	}
	return 0;
}

/*
 * Per algorithm of @P, the directories of @D (named @dirs) without a complete
 * run of it, into @s: its pooled figures then stand for fewer seeds than the
 * others', and `gridexp check` fails what rests on them.
 */
static void pool_coverage(const struct coll *P, const struct coll *D, const char *const *dirs,
			  int ndirs, struct gx_summary *s)
{
	for (int a = 0; a < P->nalgos && a < s->nalgos; a++)
		for (int d = 0; d < ndirs; d++) {
			int da = name_index(D[d].algos, D[d].nalgos, P->algos[a]), have = 0;

			for (int k = 0; da >= 0 && k < D[d].nruns; k++)
				have |= D[d].runs[k].algo == da && D[d].runs[k].complete;
			if (have)
				continue;
			if (!s->a[a].dirs_missing++)
				s->a[a].missing_in = dirs[d];
		}
}

/* The strings @field of meta.json's campaign.@list[] of @dir, as gx_results_algos(). */
static int results_names(const char *dir, const char *list, const char *field,
			 char (*names)[GX_NAME_MAX], int max, struct gb_err *err)
{
	char path[PATH_MAX];
	json_t *meta, *a;
	size_t i;
	int ret, n = 0;

	if ((ret = read_meta(dir, &meta, err)) < 0)
		return ret;
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	json_array_foreach(json_object_get(json_object_get(meta, "campaign"), list), i, a) {
		const char *l = json_string_value(json_object_get(a, field));

		if (l && n < max)
			snprintf(names[n++], GX_NAME_MAX, "%s", l);
	}
	json_decref(meta);
	if (!n)
		return rfail(err, "%s: no %s", path, list);
	return n;
}

int gx_results_algos(const char *dir, char (*labels)[GX_NAME_MAX], int max, struct gb_err *err)
{
	return results_names(dir, "algorithms", "label", labels, max, err);
}

int gx_results_conds(const char *dir, char (*names)[GX_NAME_MAX], int max, struct gb_err *err)
{
	return results_names(dir, "conditions", "name", names, max, err);
}

int gx_report_pool(const char *const *dirs, int ndirs, FILE *out, struct gx_summary *sout,
		   struct gb_err *err)
{
	struct coll *D = NULL, P;
	struct gx_summary s;
	char title[512];
	int ret, nruns = 0, nrows = 0, repoff = 0, complete, failed, same_k = 1;

	memset(&P, 0, sizeof(P));
	memset(&s, 0, sizeof(s));
	if (ndirs < 1)
		return rfail(err, "no results directory");
	/* the same directory twice (DIR DIR/, a link to it) would count its
	 * broadcasts twice */
	for (int d = 0; d < ndirs; d++) {
		struct stat a, b;

		for (int e = 0; e < d; e++)
			if (stat(dirs[d], &a) == 0 && stat(dirs[e], &b) == 0 &&
			    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
				return rfail(err, "'%s' and '%s' are the same results "
					     "directory (each is pooled once)", dirs[e], dirs[d]);
	}
	if (!(D = calloc((size_t)ndirs, sizeof(*D))))
		return -ENOMEM;
	for (int d = 0; d < ndirs; d++) {
		if ((ret = coll_load(&D[d], dirs[d], err)) < 0)
			goto cleanup;
		if (strcmp(D[d].name, D[0].name)) {
			ret = rfail(err, "'%s' holds campaign '%s' and '%s' campaign '%s' (pool "
				    "the results of one campaign)", dirs[d], D[d].name, dirs[0],
				    D[0].name);
			goto cleanup;
		}
		same_k &= meta_dilate(&D[d]) == meta_dilate(&D[0]);
		nruns += D[d].nruns;
		nrows += D[d].nrows;
	}
	/* the pool: the first directory's names, every directory's runs and rows */
	P.dir = dirs[0];
	snprintf(P.name, sizeof(P.name), "%s", D[0].name);
	memcpy(P.algos, D[0].algos, sizeof(P.algos));
	P.nalgos = D[0].nalgos;
	memcpy(P.conds, D[0].conds, sizeof(P.conds));
	P.nconds = D[0].nconds;
	P.runs = calloc((size_t)nruns + 1, sizeof(*P.runs));
	P.rows = calloc((size_t)nrows + 1, sizeof(*P.rows));
	P.crows = nrows;
	if (!P.runs || !P.rows) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (int d = 0; d < ndirs; d++) {
		int maxrep = 0;

		if ((ret = pool_add(&P, &D[d], repoff, &maxrep, err)) < 0)
			goto cleanup;
		repoff += maxrep;
	}
	if ((ret = coll_summarize(&P, &s, &complete, &failed, err)) < 0)
		goto cleanup;
	pool_coverage(&P, D, dirs, ndirs, &s);
	snprintf(title, sizeof(title), "campaign %s, %d results directories pooled: %d of %d runs "
		 "complete, %d failed, %d broadcasts, time dilation %s%g%s", P.name, ndirs,
		 complete, P.nruns, failed, P.nrows, same_k ? "x" : "mixed, the first x",
		 meta_dilate(&D[0]), same_k && meta_dilate(&D[0]) > 1 ? " (times are the "
		 "topology's: measured / k)" : "");
	if (out) {
		json_t *iv = NULL;

		gx_summary_write_text(&s, title, out);
		gx_report_intervals(&s, out, &iv);
		json_decref(iv);
		gx_fidelity_text(&P, 0, out);
		gaps_text(&P, meta_dilate(&D[0]), out);
		monitor_share_text(&P, out);
		short_loads_text(&P, out);
		fprintf(out, "\npooled (a broadcast pairs only with its own directory's):\n");
		for (int d = 0; d < ndirs; d++) {
			json_t *camp = json_object_get(D[d].meta, "campaign");
			int c = 0;

			for (int k = 0; k < D[d].nruns; k++)
				c += D[d].runs[k].complete;
			fprintf(out, "%s: results %s, seed %lld, scale %g, x%g, %d of %d runs "
				"complete, %d broadcasts\n", dirs[d], D[d].stamp,
				json_integer_value(json_object_get(camp, "seed")),
				json_number_value(json_object_get(D[d].meta, "scale")),
				meta_dilate(&D[d]), c, D[d].nruns, D[d].nrows);
		}
		for (int a = 0; a < s.nalgos; a++)
			if (s.a[a].dirs_missing && s.a[a].dirs_missing < ndirs)
				fprintf(out, "%s: no complete run in %d of %d directories (%s first): "
					"its figures pool fewer seeds, and `gridexp check` fails what "
					"rests on them\n", s.a[a].name, s.a[a].dirs_missing, ndirs,
					s.a[a].missing_in);
	}
	ret = 0;
	if (sout) {
		*sout = s;
		memset(&s, 0, sizeof(s));
	}
cleanup:
	gx_summary_release(&s);
	coll_release(&P);       /* P has no meta.json of its own: D[0]'s names */
	for (int d = 0; D && d < ndirs; d++)
		coll_release(&D[d]);
	free(D);
	return ret;
}
