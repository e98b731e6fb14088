// SPDX-License-Identifier: MIT
/*
 * report_intervals.c - the report's confidence intervals next to the means
 * (issue 45): gx_report_intervals() in report_priv.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bootstrap.h"
#include "gbexp.h"
#include "report_priv.h"

/* The metrics of the table, in its order, with their column titles. */
static const char *const metrics[] = { "loaded_mean", "unloaded_mean",
				       "improvement_loaded_mean", "improvement_unloaded_mean" };
#define NM (sizeof(metrics) / sizeof(metrics[0]))

struct collect {
	int nalgos, resamples;
	double *v;  /* [algo][metric][resample] */
};

static int collect(const struct gx_summary *rs, int r, void *ctx)
{
	struct collect *c = ctx;

	for (int a = 0; a < c->nalgos; a++)
		for (size_t m = 0; m < NM; m++) {
			double x = NAN;

			gx_summary_metric(rs, a, metrics[m], &x);
			c->v[((size_t)a * NM + m) * (size_t)c->resamples + (size_t)r] = x;
		}
	return 0;
}

int gx_report_intervals(const struct gx_summary *s, FILE *f, json_t **out)
{
	struct collect c = { s->nalgos, GX_CHECK_RESAMPLES, NULL };
	const double level = GX_CHECK_LEVEL;
	int nblocks = 0, nslots = 0, ret;
	json_t *j, *al;

	*out = NULL;
	if (!s->rows || s->nrows < 1 || s->nalgos < 1)
		return 0;
	if (!(c.v = malloc(sizeof(double) * (size_t)s->nalgos * NM * (size_t)c.resamples)))
		return -ENOMEM;
	ret = gx_boot_each(s, c.resamples, GX_CHECK_SEED, collect, &c, &nblocks, &nslots);
	if (ret < 0) {
		free(c.v);
		return ret == -EINVAL ? 0 : ret;
	}
	j = json_pack("{s:f, s:i, s:i, s:i, s:i}", "level", level, "resamples", c.resamples,
		      "seed", GX_CHECK_SEED, "blocks", nblocks, "broadcasts", nslots);
	al = json_object();
	fprintf(f, "\n%g %% intervals (a paired bootstrap over %d broadcasts in %d block%s, a "
		"seed each; %d resamples, seed %d; gridexp check's):\n", 100 * level, nslots,
		nblocks, nblocks == 1 ? "" : "s", c.resamples, GX_CHECK_SEED);
	fprintf(f, "%-9s %-26s %-26s %-26s %-26s\n", "algorithm", "loaded mean (s)",
		"unloaded mean (s)", s->ref >= 0 ? "gain loaded %" : "-",
		s->ref >= 0 ? "gain unloaded %" : "-");
	for (int a = 0; j && al && a < s->nalgos; a++) {
		json_t *ja = json_object();

		if (!s->a[a].broadcasts) {
			json_decref(ja);
			continue;
		}
		fprintf(f, "%-9s", s->a[a].name);
		for (size_t m = 0; m < NM; m++) {
			double est = NAN, lo, hi;
			char cell[64];

			gx_summary_metric(s, a, metrics[m], &est);
			gx_interval(c.v + ((size_t)a * NM + m) * (size_t)c.resamples, c.resamples,
				    level, &lo, &hi);
			if (!isfinite(est) || (m >= 2 && a == s->ref))
				snprintf(cell, sizeof(cell), "-");
			else if (!isfinite(lo))
				snprintf(cell, sizeof(cell), "%.4g [-]", est);
			else
				snprintf(cell, sizeof(cell), "%.4g [%.4g, %.4g]", est, lo, hi);
			fprintf(f, " %-26s", cell);
			if (ja && isfinite(est) && !(m >= 2 && a == s->ref))
				json_object_set_new(ja, metrics[m],
						    isfinite(lo) ? json_pack("{s:f, s:f, s:f}", "estimate",
									     est, "lo", lo, "hi", hi)
								 : json_pack("{s:f, s:n, s:n}", "estimate",
									     est, "lo", "hi"));
		}
		fputc('\n', f);
		json_object_set_new(al, s->a[a].name, ja);
	}
	free(c.v);
	if (!j || !al) {
		json_decref(j);
		json_decref(al);
		return -ENOMEM;
	}
	json_object_set_new(j, "algorithms", al);
	*out = j;
	return 0;
}
