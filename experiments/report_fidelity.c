// SPDX-License-Identifier: MIT
/*
 * report_fidelity.c - the fidelity monitor's word in a campaign's summary
 * (emulator/grid/fidelity.h judges; experiments/gridexp_fidelity.c writes
 * each run's run.json "fidelity" and fidelity.csv).
 *
 * summary.json "fidelity" has the counts over the complete runs and, in
 * "runs", one object a monitored run:
 *   {"run", "strayed", "why", "broadcasts", "broadcasts_strayed",
 *    "late_share", "lateness_p99_ns", "cpu_some_share", "cpu_steal_share",
 *    "dilate", "strayed_broadcasts": [{"index", "why"}]}
 * so that a pipeline reads which run or broadcast was marked, and why,
 * from one file (gridexp calibrate does).  summary.txt has the counts in
 * one line and, under it, one line a strayed run or broadcast.
 */
#include <limits.h>
#include <stdio.h>

#include "fidelity.h"
#include "report_priv.h"

/* A number of @o's, or JSON null when it has none. */
static json_t *num_or_null(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_real(json_number_value(v)) : json_null();
}

/* The broadcasts runs/@id/fidelity.csv of @dir marks: [{index, why}]. */
static json_t *strayed_broadcasts(const char *dir, const char *id)
{
	char path[PATH_MAX];
	struct gx_csv t = { 0 };
	json_t *a = json_array();
	int ci, cs, cw;

	snprintf(path, sizeof(path), "%s/runs/%s/fidelity.csv", dir, id);
	if (!a || gx_csv_read(path, &t) < 0)
		return a;
	ci = gx_csv_col(&t, "index");
	cs = gx_csv_col(&t, "strayed");
	cw = gx_csv_col(&t, "why");
	for (int i = 0; ci >= 0 && cs >= 0 && cw >= 0 && i < t.nrows; i++)
		if (gx_csv_num(&t, i, cs) == 1)
			json_array_append_new(a, json_pack("{s:i, s:s}", "index",
							   (int)gx_csv_num(&t, i, ci), "why",
							   gx_csv_str(&t, i, cw)));
	gx_csv_release(&t);
	return a;
}

void gx_run_fidelity(const char *dir, struct run *r, json_t *run_json)
{
	json_t *fj = json_object_get(run_json, "fidelity");

	json_decref(r->fid);
	r->fid = NULL;
	r->fid_strayed = json_is_object(fj) ? json_is_true(json_object_get(fj, "strayed")) : -1;
	r->fid_bcasts = (int)json_integer_value(json_object_get(fj, "broadcasts"));
	r->fid_bcasts_strayed = (int)json_integer_value(json_object_get(fj, "broadcasts_strayed"));
	if (r->fid_strayed < 0)
		return;
	r->fid = json_pack("{s:s, s:b, s:s, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o}",
			   "run", r->id, "strayed", r->fid_strayed,
			   "why", json_string_value(json_object_get(fj, "why")) ?: "",
			   "broadcasts", r->fid_bcasts, "broadcasts_strayed", r->fid_bcasts_strayed,
			   "late_share", num_or_null(fj, "late_share"),
			   "lateness_p99_ns", num_or_null(fj, "lateness_p99_ns"),
			   "cpu_some_share", num_or_null(fj, "cpu_some_share"),
			   "cpu_steal_share", num_or_null(fj, "cpu_steal_share"),
			   "dilate", num_or_null(fj, "dilate"),
			   "strayed_broadcasts", r->fid_bcasts_strayed > 0 ?
			   strayed_broadcasts(dir, r->id) : json_array());
}

void gx_run_fidelity_release(struct run *r)
{
	json_decref(r->fid);
	r->fid = NULL;
}

/* The fidelity monitor's counts over the complete runs. */
static void fidelity_count(const struct coll *C, int *runs, int *rs, int *bc, int *bs)
{
	*runs = *rs = *bc = *bs = 0;
	for (int k = 0; k < C->nruns; k++) {
		const struct run *r = &C->runs[k];

		if (!r->complete || r->fid_strayed < 0)
			continue;
		(*runs)++;
		*rs += r->fid_strayed;
		*bc += r->fid_bcasts;
		*bs += r->fid_bcasts_strayed;
	}
}

json_t *gx_fidelity_json(const struct coll *C)
{
	json_t *a = json_array();
	int runs, rs, bc, bs;

	fidelity_count(C, &runs, &rs, &bc, &bs);
	for (int k = 0; a && k < C->nruns; k++)
		if (C->runs[k].complete && C->runs[k].fid)
			json_array_append(a, C->runs[k].fid);
	return json_pack("{s:i, s:i, s:i, s:i, s:f, s:f, s:o}", "runs_monitored", runs,
			 "runs_strayed", rs, "broadcasts_monitored", bc, "broadcasts_strayed", bs,
			 "max_late_share", GB_FID_MAX_LATE_SHARE, "max_cpu_some_share",
			 GB_FID_MAX_CPU_SOME, "runs", a ? a : json_array());
}

void gx_fidelity_text(const struct coll *C, int each, FILE *f)
{
	int runs, rs, bc, bs;
	size_t i;
	json_t *b;

	fidelity_count(C, &runs, &rs, &bc, &bs);
	if (!runs) {
		fprintf(f, "\nfidelity: no run was monitored\n");
		return;
	}
	fprintf(f, "\nfidelity: %d of %d runs and %d of %d broadcasts strayed (more than %.0f %% "
		"of the packets released late, a packet lost by the machine, or CPU pressure more "
		"than %.0f %% of the time)%s\n", rs, runs, bs, bc, GB_FID_MAX_LATE_SHARE * 100,
		GB_FID_MAX_CPU_SOME * 100, rs || bs ? ": their times are the machine's as much as "
		"the network's; see runs/*/fidelity.csv and run.json \"fidelity\"" : "");
	for (int k = 0; each && k < C->nruns; k++) {
		const struct run *r = &C->runs[k];

		if (!r->complete || !r->fid)
			continue;
		if (r->fid_strayed)
			fprintf(f, "  %s: %s\n", r->id,
				json_string_value(json_object_get(r->fid, "why")));
		json_array_foreach(json_object_get(r->fid, "strayed_broadcasts"), i, b)
			fprintf(f, "  %s broadcast %d: %s\n", r->id,
				(int)json_integer_value(json_object_get(b, "index")),
				json_string_value(json_object_get(b, "why")));
	}
}
