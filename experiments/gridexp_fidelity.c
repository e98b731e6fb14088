// SPDX-License-Identifier: MIT
/*
 * gridexp_fidelity.c - one run's fidelity monitor (issue 16; fidelity.h
 * has the counters and the stated thresholds): the grid sampled when the
 * broadcasts may start, every FID_PERIOD while they run, and when the
 * application has ended; then the whole run and every broadcast judged.
 * A broadcast is judged over the samples around it (the last at or before
 * its start, the first at or after its end) by the delay line's counts;
 * its CPU pressure (of up to one period more than the broadcast) is
 * reported, and counts for the whole run only (fidelity.h says why).
 * Files: fidelity.csv (one row per broadcast) and run.json's "fidelity".
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fidelity.h"
#include "gbio.h"
#include "gbutil.h"
#include "gridexp_priv.h"
#include "results.h"

#define FID_PERIOD 0.1

/* Append a sample (a failed one is skipped: the run goes on). */
static void fid_push(struct runner *R, struct run *r, struct tq_hist *hist)
{
	struct gb_fid_sample s;

	if (gb_fid_sample(&R->g, R->cgexp.on ? R->cgexp.pressure : NULL, &s, hist) < 0)
		return;
	if (r->nfid == r->cfid) {
		int c = r->cfid ? 2 * r->cfid : 256;
		struct gb_fid_sample *p = realloc(r->fid, sizeof(*p) * (size_t)c);

		if (!p)
			return;
		r->fid = p;
		r->cfid = c;
	}
	r->fid[r->nfid++] = s;
}

void fidelity_start(struct runner *R, struct run *r)
{
	free(r->fid);
	r->fid = NULL;
	r->nfid = r->cfid = 0;
	free(r->fid_h0);
	r->fid_h0 = calloc(1, sizeof(*r->fid_h0));
	fid_push(R, r, r->fid_h0);
	r->fid_last = gb_now();
}

void fidelity_tick(struct runner *R, struct run *r)
{
	if (r->nfid && gb_now() - r->fid_last >= FID_PERIOD) {
		fid_push(R, r, NULL);
		r->fid_last = gb_now();
	}
}

/* The last sample at or before @t (else the first), the first at or after @u (else the last). */
static void around(const struct run *r, double t, double u, int *a, int *b)
{
	gx_bracket(&r->fid[0].t, sizeof(r->fid[0]), r->nfid, t, u, a, b);
	if (*a < 0)
		*a = 0;
	if (*b < 0)
		*b = r->nfid - 1;
}

static json_t *verdict_json(const struct gb_fid_verdict *v)
{
	return json_pack("{s:f, s:I, s:I, s:I, s:f, s:o, s:I, s:I, s:I, s:b, s:s}",
			 "seconds", v->seconds, "packets", (json_int_t)v->packets,
			 "late", (json_int_t)v->late, "lost", (json_int_t)v->lost,
			 "late_share", v->late_share, "cpu_some_share",
			 v->cpu_some_share >= 0 ? json_real(v->cpu_some_share) : json_null(),
			 "lateness_p50_ns", (json_int_t)v->p50_ns,
			 "lateness_p99_ns", (json_int_t)v->p99_ns,
			 "lateness_max_ns", (json_int_t)v->max_ns, "strayed", v->strayed,
			 "why", v->why);
}

json_t *fidelity_finish(struct runner *R, struct run *r)
{
	struct tq_hist *h1 = calloc(1, sizeof(*h1));
	struct gb_fid_verdict run, b;
	struct gx_csv t = { 0 };
	char path[PATH_MAX], *ftmp = NULL;
	FILE *f = NULL;
	json_t *j = NULL;
	int nb = 0, strayed = 0, cs, cc;

	if (!r->nfid || !h1)
		goto out;
	fid_push(R, r, h1);
	gb_fid_judge(&r->fid[0], &r->fid[r->nfid - 1], r->fid_h0, h1, 1, &run);
	snprintf(path, sizeof(path), "%s/broadcasts.csv", r->tmp);
	if (gx_csv_read(path, &t) == 0) {
		snprintf(path, sizeof(path), "%s/fidelity.csv", r->tmp);
		f = gb_atomic_open(path, &ftmp);
	}
	cs = gx_csv_col(&t, "start_time");
	cc = gx_csv_col(&t, "completion_time");
	if (f)
		fprintf(f, "index,start_time,seconds,packets,late,late_share,lost,cpu_some_share,"
			"strayed,why,cpu_steal_share\n");
	for (int i = 0; f && cs >= 0 && cc >= 0 && i < t.nrows; i++) {
		double s = gx_csv_num(&t, i, cs), c = gx_csv_num(&t, i, cc);
		int a, z;

		if (!isfinite(s) || !isfinite(c))
			continue;
		around(r, s, gx_wall_end(s, c, R->dilate), &a, &z);
		gb_fid_judge(&r->fid[a], &r->fid[z], NULL, NULL, 0, &b);
		nb++;
		strayed += b.strayed;
		fprintf(f, "%d,%.6f,%.6f,%llu,%llu,%.6f,%llu,", i, s, b.seconds,
			(unsigned long long)b.packets, (unsigned long long)b.late, b.late_share,
			(unsigned long long)b.lost);
		if (b.cpu_some_share >= 0)
			fprintf(f, "%.4f", b.cpu_some_share);
		fprintf(f, ",%d,", b.strayed);
		gb_csv_field(f, b.why);
		fputc(',', f);
		if (b.cpu_steal_share >= 0)
			fprintf(f, "%.4f", b.cpu_steal_share);
		fputc('\n', f);
	}
	if (f && gb_atomic_close(f, ftmp, path, 0, 0) < 0)
		warnx("cannot write %s", path);
	j = verdict_json(&run);
	if (j) {
		json_object_set_new(j, "delay_line", json_boolean(r->fid[0].delay_line));
		json_object_set_new(j, "samples", json_integer(r->nfid));
		json_object_set_new(j, "broadcasts", json_integer(nb));
		json_object_set_new(j, "broadcasts_strayed", json_integer(strayed));
		json_object_set_new(j, "dilate", json_real(R->dilate >= 1 ? R->dilate : 1.0));
		/* reported, not judged: the harness's own cost (fidelity.h) */
		json_object_set_new(j, "cpu_busy_share", run.cpu_busy_share >= 0 ?
				    json_real(run.cpu_busy_share) : json_null());
		json_object_set_new(j, "delay_line_cpu_share", run.delay_line_cpu_share >= 0 ?
				    json_real(run.delay_line_cpu_share) : json_null());
		json_object_set_new(j, "cpu_steal_share", run.cpu_steal_share >= 0 ?
				    json_real(run.cpu_steal_share) : json_null());
		/* whose CPU pressure: the experiment's cgroup, or the machine's */
		json_object_set_new(j, "cpu_pressure_of",
				    json_string(R->cgexp.on ? "experiment" : "machine"));
		json_object_set_new(j, "machine_cpu_some_share", run.machine_some_share >= 0 ?
				    json_real(run.machine_some_share) : json_null());
		json_object_set_new(j, "thresholds", json_pack("{s:f, s:f, s:b, s:f}",
			"late_ns", GB_FID_LATE_NS, "late_share", GB_FID_MAX_LATE_SHARE, "lost", 1,
			"cpu_some_share_of_run", GB_FID_MAX_CPU_SOME));
	}
out:
	gx_csv_release(&t);
	free(h1);
	free(r->fid_h0);
	r->fid_h0 = NULL;
	free(r->fid);
	r->fid = NULL;
	r->nfid = r->cfid = 0;
	return j;
}
