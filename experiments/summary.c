// SPDX-License-Identifier: MIT
/*
 * summary.c - the summary metrics of a campaign (summary.h).
 *
 * Pairs of broadcasts are matched on (condition, repetition, index): the
 * runs of one condition and repetition share the load schedule (same seed,
 * restarted for each algorithm, seed 000 s3 "using the same load
 * dynamics"), and the application's broadcast i starts at the same planned
 * offset in every run, so broadcast i of two algorithms met the same load.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "gbutil.h"

/* the most sizes the by-size table lists (a sweep, not a campaign of decreasing sizes) */
#define BY_SIZE_MAX 32

void gx_stat_of(double *v, int n, struct gx_stat *st)
{
	double s = 0;

	st->n = n;
	st->mean = st->median = st->min = st->max = NAN;
	if (n < 1)
		return;
	gb_sort_doubles(v, (size_t)n);
	for (int i = 0; i < n; i++)
		s += v[i];
	st->mean = s / n;
	st->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	st->min = v[0];
	st->max = v[n - 1];
}

void gx_summary_release(struct gx_summary *s)
{
	for (int a = 0; s->a && a < s->nalgos; a++)
		free(s->a[a].by_size);
	free(s->a);
	free(s->rows);
	free(s->conds);
	memset(s, 0, sizeof(*s));
	s->ref = s->native = -1;
}

/* The row of algorithm @a with the same (cond, rep, index) as @r, or NULL. */
static const struct gx_row *partner(const struct gx_row *rows, int nrows, int a,
				    const struct gx_row *r)
{
	for (int i = 0; i < nrows; i++)
		if (rows[i].algo == a && rows[i].cond == r->cond && rows[i].rep == r->rep &&
		    rows[i].index == r->index)
			return &rows[i];
	return NULL;
}

static int by_size(const struct gx_row *rows, int nrows, int a, double *v,
		   struct gx_algo_summary *as)
{
	double *sizes = malloc(sizeof(double) * (size_t)(nrows ? nrows : 1));
	int ns = 0;

	if (!sizes)
		return -ENOMEM;
	for (int i = 0; i < nrows; i++) {
		int seen = 0;

		if (rows[i].algo != a)
			continue;
		for (int k = 0; k < ns && !seen; k++)
			seen = sizes[k] == rows[i].size;
		if (!seen)
			sizes[ns++] = rows[i].size;
	}
	gb_sort_doubles(sizes, (size_t)ns);
	as->by_size = calloc((size_t)(2 * ns + 1), sizeof(*as->by_size));
	if (!as->by_size) {
		free(sizes);
		return -ENOMEM;
	}
	for (int k = 0; k < ns; k++)
		for (int l = 0; l < 2; l++) {
			int n = 0;

			for (int i = 0; i < nrows; i++)
				if (rows[i].algo == a && rows[i].size == sizes[k] &&
				    rows[i].loaded == l)
					v[n++] = rows[i].completion;
			if (!n)
				continue;
			struct gx_size_stat *ss = &as->by_size[as->nby_size++];

			ss->size = sizes[k];
			ss->loaded = l;
			gx_stat_of(v, n, &ss->t);
		}
	free(sizes);
	return 0;
}

int gx_summarize(const struct gx_row *rows, int nrows, const char *const *algos, int nalgos,
		 const char *const *models, int nmodels, const char *ref, struct gx_summary *out)
{
	double *v = NULL, *w = NULL;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->ref = out->native = -1;
	if (nalgos < 0 || nmodels < 0 || nmodels > GX_MAX_MODELS)
		return -EINVAL;
	for (int i = 0; i < nrows; i++)
		if (rows[i].algo < 0 || rows[i].algo >= nalgos)
			return -EINVAL;
	out->a = calloc((size_t)(nalgos ? nalgos : 1), sizeof(*out->a));
	v = malloc(sizeof(double) * (size_t)(nrows + 1));
	w = malloc(sizeof(double) * (size_t)(nrows + 1));
	if (!out->a || !v || !w)
		goto cleanup;
	out->nalgos = nalgos;
	out->nmodels = nmodels;
	for (int m = 0; m < nmodels; m++)
		snprintf(out->models[m], sizeof(out->models[m]), "%s", models[m]);
	for (int a = 0; a < nalgos; a++) {
		snprintf(out->a[a].name, sizeof(out->a[a].name), "%s", algos[a]);
		out->a[a].monitor_share_max = NAN;
		out->a[a].target_relay_loaded_share = NAN;
		out->a[a].mpich_wan_unloaded_share = NAN;
		out->a[a].short_loads = NAN;
		if (ref && !strcmp(algos[a], ref))
			out->ref = a;
		if (!strcmp(algos[a], "native"))
			out->native = a;
	}

	for (int a = 0; a < nalgos; a++) {
		struct gx_algo_summary *as = &out->a[a];
		int n = 0, nl = 0, nu = 0;
		double sa = 0, sn = 0;

		for (int i = 0; i < nrows; i++)
			if (rows[i].algo == a) {
				as->broadcasts++;
				as->fallbacks += rows[i].fallback != 0;
				as->mismatches += rows[i].mismatches;
				v[n++] = rows[i].completion;
			}
		gx_stat_of(v, n, &as->all);
		/* loaded and unloaded apart: completion, and time per byte */
		for (int l = 1; l >= 0; l--) {
			double sum_t = 0, sum_b = 0;

			n = 0;
			for (int i = 0; i < nrows; i++)
				if (rows[i].algo == a && rows[i].loaded == l) {
					v[n++] = rows[i].completion;
					sum_t += rows[i].completion;
					sum_b += rows[i].size;
				}
			gx_stat_of(v, n, l ? &as->loaded : &as->unloaded);
			*(l ? &as->loaded_s_per_mib : &as->unloaded_s_per_mib) =
				sum_b > 0 ? sum_t / (sum_b / 1048576.0) : NAN;
		}

		/* improvement over the reference, per paired broadcast */
		n = 0;
		for (int i = 0; out->ref >= 0 && i < nrows; i++) {
			const struct gx_row *r = &rows[i], *p;

			if (r->algo != a || !(p = partner(rows, nrows, out->ref, r)) ||
			    !(p->completion > 0))
				continue;
			double imp = (p->completion - r->completion) / p->completion * 100;

			if (r->loaded && p->loaded)
				v[nl++] = imp;
			else if (!r->loaded && !p->loaded)
				w[nu++] = imp;
			else
				as->imp_mixed++;
			n++;
		}
		gx_stat_of(v, nl, &as->imp_loaded);
		gx_stat_of(w, nu, &as->imp_unloaded);

		/* ratio to native over the paired broadcasts */
		for (int i = 0; out->native >= 0 && i < nrows; i++) {
			const struct gx_row *r = &rows[i], *p;

			if (r->algo != a || !(p = partner(rows, nrows, out->native, r)))
				continue;
			sa += r->completion;
			sn += p->completion;
			as->ratio_n++;
		}
		as->ratio_native = as->ratio_n && sn > 0 ? sa / sn : NAN;

		n = 0;
		for (int i = 0; i < nrows; i++)
			if (rows[i].algo == a && isfinite(rows[i].wan_bytes) && rows[i].size > 0)
				v[n++] = rows[i].wan_bytes / rows[i].size;
		gx_stat_of(v, n, &as->crossings);
		for (int l = 1; l >= 0; l--) {
			n = 0;
			for (int i = 0; i < nrows; i++)
				if (rows[i].algo == a && rows[i].loaded == l &&
				    isfinite(rows[i].wan_bytes) && rows[i].size > 0)
					v[n++] = rows[i].wan_bytes / rows[i].size;
			gx_stat_of(v, n, l ? &as->crossings_loaded : &as->crossings_unloaded);
		}

		for (int m = 0; m < nmodels; m++) {
			n = 0;
			for (int i = 0; i < nrows; i++) {
				double p = rows[i].pred[m];

				if (rows[i].algo != a || !isfinite(p) || !(p > 0))
					continue;
				v[n] = (rows[i].completion - p) / p;
				w[n] = fabs(v[n]);
				n++;
			}
			gx_stat_of(v, n, &as->model_err[m]);
			gx_stat_of(w, n, &as->model_abs[m]);
		}
		if ((ret = by_size(rows, nrows, a, v, as)) < 0)
			goto cleanup;
	}
	ret = 0;
cleanup:
	free(v);
	free(w);
	if (ret < 0)
		gx_summary_release(out);
	return ret;
}

static const char *const metric_names[] = {
	"n", "mean", "median", "loaded_n", "loaded_mean", "loaded_median", "unloaded_n",
	"unloaded_mean", "unloaded_median", "improvement_loaded_mean", "improvement_loaded_min",
	"improvement_loaded_max", "improvement_unloaded_mean", "improvement_unloaded_min",
	"improvement_unloaded_max", "ratio_to_native", "crossings", "crossings_max",
	"loaded_crossings", "unloaded_crossings", "loaded_s_per_mib", "unloaded_s_per_mib",
	"fallbacks", "failed_runs", "runs", "mismatches", "broadcasts", "monitor_wan_share_max",
	"target_relay_loaded_share", "mpich_wan_unloaded_share", "short_loads", NULL,
};

int gx_summary_metric_resampled(const char *metric)
{
	static const char *const resampled[] = {
		"mean", "median", "loaded_mean", "loaded_median", "unloaded_mean",
		"unloaded_median", "improvement_loaded_mean", "improvement_unloaded_mean",
		"ratio_to_native", "crossings", "loaded_crossings", "unloaded_crossings",
		"loaded_s_per_mib", "unloaded_s_per_mib", NULL,
	};

	if (!strncmp(metric, "model_error_", 12))
		return 1;
	for (int i = 0; resampled[i]; i++)
		if (!strcmp(metric, resampled[i]))
			return 1;
	return 0;
}

const char *const *gx_summary_metric_names(void)
{
	return metric_names;
}

int gx_summary_metric_base(const struct gx_summary *s, const char *metric)
{
	if (!strncmp(metric, "improvement_", 12))
		return s->ref;
	if (!strcmp(metric, "ratio_to_native"))
		return s->native;
	return -1;
}

int gx_summary_metric(const struct gx_summary *s, int a, const char *metric, double *v)
{
	const struct gx_algo_summary *as;
	const struct gx_stat *st = NULL;
	const char *field = NULL, *p;

	if (a < 0 || a >= s->nalgos)
		return -EINVAL;
	as = &s->a[a];
	if (!strncmp(metric, "model_error_", 12)) {
		for (int m = 0; m < s->nmodels; m++)
			if (!strcmp(metric + 12, s->models[m])) {
				*v = as->model_abs[m].mean;
				return 0;
			}
		return -ENOENT;
	}
	/* single figures, matched before the [prefix_]field statistics below */
	enum { REAL, INT, LLONG };
	static const struct {
		const char *name;
		size_t off;
		int type;
	} figures[] = {
		{ "ratio_to_native", offsetof(struct gx_algo_summary, ratio_native), REAL },
		{ "crossings_max", offsetof(struct gx_algo_summary, crossings.max), REAL },
		{ "loaded_crossings", offsetof(struct gx_algo_summary, crossings_loaded.mean), REAL },
		{ "unloaded_crossings", offsetof(struct gx_algo_summary, crossings_unloaded.mean),
		  REAL },
		{ "loaded_s_per_mib", offsetof(struct gx_algo_summary, loaded_s_per_mib), REAL },
		{ "unloaded_s_per_mib", offsetof(struct gx_algo_summary, unloaded_s_per_mib), REAL },
		{ "fallbacks", offsetof(struct gx_algo_summary, fallbacks), INT },
		{ "failed_runs", offsetof(struct gx_algo_summary, failed_runs), INT },
		{ "runs", offsetof(struct gx_algo_summary, runs), INT },
		{ "broadcasts", offsetof(struct gx_algo_summary, broadcasts), INT },
		{ "mismatches", offsetof(struct gx_algo_summary, mismatches), LLONG },
		{ "monitor_wan_share_max", offsetof(struct gx_algo_summary, monitor_share_max),
		  REAL },
		{ "target_relay_loaded_share",
		  offsetof(struct gx_algo_summary, target_relay_loaded_share), REAL },
		{ "mpich_wan_unloaded_share",
		  offsetof(struct gx_algo_summary, mpich_wan_unloaded_share), REAL },
		{ "short_loads", offsetof(struct gx_algo_summary, short_loads), REAL },
	};
	for (size_t i = 0; i < sizeof(figures) / sizeof(figures[0]); i++) {
		const char *f = (const char *)as + figures[i].off;

		if (strcmp(metric, figures[i].name))
			continue;
		*v = figures[i].type == REAL ? *(const double *)f :
		     figures[i].type == INT  ? *(const int *)f :
					       (double)*(const long long *)f;
		return 0;
	}
	/* [prefix_]field: n, mean, median (min, max for improvements) */
	static const struct {
		const char *prefix;
		size_t off;
	} stats[] = {
		{ "loaded_", offsetof(struct gx_algo_summary, loaded) },
		{ "unloaded_", offsetof(struct gx_algo_summary, unloaded) },
		{ "improvement_loaded_", offsetof(struct gx_algo_summary, imp_loaded) },
		{ "improvement_unloaded_", offsetof(struct gx_algo_summary, imp_unloaded) },
		{ "crossings", offsetof(struct gx_algo_summary, crossings) },
	};
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]) && !st; i++) {
		size_t l = strlen(stats[i].prefix);

		if (!strncmp(metric, stats[i].prefix, l)) {
			st = (const struct gx_stat *)((const char *)as + stats[i].off);
			field = metric + l;
			if (!*field)
				field = "mean";
		}
	}
	if (!st) {
		st = &as->all;
		field = metric;
	}
	p = field;
	if (!strcmp(p, "n"))
		*v = st->n;
	else if (!strcmp(p, "mean"))
		*v = st->mean;
	else if (!strcmp(p, "median"))
		*v = st->median;
	else if (!strcmp(p, "min") && st != &as->all)
		*v = st->min;
	else if (!strcmp(p, "max") && st != &as->all)
		*v = st->max;
	else
		return -ENOENT;
	return 0;
}

/* "1.234" or "-" for a missing value; @w wide. */
static void num(FILE *f, int w, int prec, double x)
{
	if (isfinite(x))
		fprintf(f, " %*.*f", w, prec, x);
	else
		fprintf(f, " %*s", w, "-");
}

/* "12.3 [-4.5, 60.2] (17)" */
static void imp(FILE *f, const struct gx_stat *st)
{
	char buf[64];

	if (!st->n)
		snprintf(buf, sizeof(buf), "-");
	else
		snprintf(buf, sizeof(buf), "%.2f [%.2f, %.2f] (%d)", st->mean, st->min, st->max,
			 st->n);
	fprintf(f, " %-28s", buf);
}

const char *gx_size_text(double b, char *buf, size_t len)
{
	static const char *const unit[] = { "G", "M", "K" };
	static const double mult[] = { 1073741824.0, 1048576.0, 1024.0 };

	for (int u = 0; u < 3; u++)
		if (b >= mult[u] && fmod(b, mult[u]) == 0) {
			snprintf(buf, len, "%.0f%s", b / mult[u], unit[u]);
			return buf;
		}
	snprintf(buf, len, "%.0f", b);
	return buf;
}

/* algorithm @a's statistic of @size and load @l, or NULL */
static const struct gx_stat *size_stat(const struct gx_algo_summary *as, double size, int l)
{
	for (int k = 0; k < as->nby_size; k++)
		if (as->by_size[k].size == size && as->by_size[k].loaded == l)
			return &as->by_size[k].t;
	return NULL;
}

/*
 * The median completion time of each message size, per algorithm, with its
 * ratio to the size before: a sweep's steps (seed 002 s5's "perturbations")
 * read off the text.  Only for a sweep: 2 to BY_SIZE_MAX sizes, one of them
 * broadcast more than once (a campaign of decreasing sizes has none).
 */
static void write_by_size(const struct gx_summary *s, int w, FILE *f)
{
	for (int l = 0; l < 2; l++) {
		double sizes[BY_SIZE_MAX];
		int ns = 0, many = 0, over = 0;

		for (int a = 0; a < s->nalgos; a++)
			for (int k = 0; k < s->a[a].nby_size; k++) {
				const struct gx_size_stat *ss = &s->a[a].by_size[k];
				int seen = 0;

				if (ss->loaded != l)
					continue;
				many |= ss->t.n > 1;
				for (int j = 0; j < ns && !seen; j++)
					seen = sizes[j] == ss->size;
				if (!seen && ns < BY_SIZE_MAX)
					sizes[ns++] = ss->size;
				else if (!seen)
					over = 1;
			}
		if (ns < 2 || !many || over)
			continue;
		gb_sort_doubles(sizes, (size_t)ns);
		fprintf(f, "\nmedian completion time (s) by message size, %s broadcasts, and x its "
			"ratio to the size before:\n%-8s", l ? "loaded" : "unloaded", "size");
		for (int a = 0; a < s->nalgos; a++)
			fprintf(f, " %-*s", a + 1 < s->nalgos ? (w > 17 ? w : 17) : 0,
				s->a[a].name);
		fputc('\n', f);
		for (int j = 0; j < ns; j++) {
			char lab[32];

			gx_size_text(sizes[j], lab, sizeof(lab));
			fprintf(f, "%-8s", lab);
			for (int a = 0; a < s->nalgos; a++) {
				const struct gx_stat *t = size_stat(&s->a[a], sizes[j], l);
				const struct gx_stat *p = j ? size_stat(&s->a[a], sizes[j - 1], l) : NULL;
				char cell[48];

				if (!t || !t->n)
					snprintf(cell, sizeof(cell), "-");
				else if (p && p->n && p->median > 0)
					snprintf(cell, sizeof(cell), "%.4g x%.2f", t->median,
						 t->median / p->median);
				else
					snprintf(cell, sizeof(cell), "%.4g", t->median);
				fprintf(f, " %-*s", a + 1 < s->nalgos ? (w > 17 ? w : 17) : 0,
					cell);
			}
			fputc('\n', f);
		}
	}
}

void gx_summary_write_text(const struct gx_summary *s, const char *title, FILE *f)
{
	int w = 9;

	for (int a = 0; a < s->nalgos; a++)
		if ((int)strlen(s->a[a].name) > w)
			w = (int)strlen(s->a[a].name);
	fprintf(f, "%s\n\ncompletion time (s):\n", title);
	fprintf(f, "%-*s %4s %4s %9s %9s | %8s %9s %9s | %10s %9s %9s | %8s\n", w, "algorithm",
		"runs", "fail", "median", "mean", "loaded n", "median", "mean", "unloaded n",
		"median", "mean", "x_native");
	for (int a = 0; a < s->nalgos; a++) {
		const struct gx_algo_summary *as = &s->a[a];

		fprintf(f, "%-*s %4d %4d", w, as->name, as->runs, as->failed_runs);
		num(f, 9, 4, as->all.median);
		num(f, 9, 4, as->all.mean);
		fprintf(f, " | %8d", as->loaded.n);
		num(f, 9, 4, as->loaded.median);
		num(f, 9, 4, as->loaded.mean);
		fprintf(f, " | %10d", as->unloaded.n);
		num(f, 9, 4, as->unloaded.median);
		num(f, 9, 4, as->unloaded.mean);
		fprintf(f, " |");
		num(f, 8, 3, as->ratio_native);
		fputc('\n', f);
	}
	fprintf(f, "\n%-*s %-28s %-28s %5s %9s %9s %15s", w, "algorithm",
		s->ref >= 0 ? "vs mpich-g2, loaded %" : "(no mpich-g2: no improvement)",
		s->ref >= 0 ? "vs mpich-g2, unloaded %" : "", "mixed", "crossings", "fallbacks",
		"s/MiB l, u");
	for (int m = 0; m < s->nmodels; m++) {
		char h[48];

		snprintf(h, sizeof(h), "err_%s", s->models[m]);
		fprintf(f, " %*s", strlen(h) > 12 ? (int)strlen(h) : 12, h);
	}
	fputc('\n', f);
	for (int a = 0; a < s->nalgos; a++) {
		const struct gx_algo_summary *as = &s->a[a];

		fprintf(f, "%-*s", w, as->name);
		imp(f, &as->imp_loaded);
		imp(f, &as->imp_unloaded);
		fprintf(f, " %5d", as->imp_mixed);
		num(f, 9, 2, as->crossings.mean);
		fprintf(f, " %9d", as->fallbacks);
		num(f, 7, 3, as->loaded_s_per_mib);
		num(f, 7, 3, as->unloaded_s_per_mib);
		for (int m = 0; m < s->nmodels; m++)
			num(f, strlen(s->models[m]) + 4 > 12 ? (int)strlen(s->models[m]) + 4 : 12,
			    3, as->model_abs[m].mean);
		fputc('\n', f);
	}
	fprintf(f, "\nvs mpich-g2: (t_mpich-g2 - t) / t_mpich-g2 x 100 per pair of broadcasts (same "
		"condition, repetition, index),\n  mean [min, max] (pairs), loaded: both met a load, "
		"unloaded: neither, mixed: one did;\ncrossings: wide-area IP bytes during a broadcast "
		"/ its payload, mean;\ns/MiB l, u: sum of t / sum of sizes, loaded and unloaded "
		"broadcasts;\nerr_<model>: mean |measured - predicted| / predicted;\n"
		"x_native: sum of t / sum of native's t over the same broadcasts.\n");
	write_by_size(s, w, f);
}

int gx_summary_subset(const struct gx_summary *s, int (*keep)(const struct gx_row *r, void *ctx),
		      void *ctx, struct gx_summary *out)
{
	const char *algos[s->nalgos + 1], *models[GX_MAX_MODELS];
	struct gx_row *rows;
	int n = 0, ret;

	memset(out, 0, sizeof(*out));
	out->ref = out->native = -1;
	if (!s->rows)
		return -EINVAL;
	if (!(rows = malloc(sizeof(*rows) * (size_t)(s->nrows + 1))))
		return -ENOMEM;
	for (int i = 0; i < s->nrows; i++)
		if (keep(&s->rows[i], ctx))
			rows[n++] = s->rows[i];
	for (int a = 0; a < s->nalgos; a++)
		algos[a] = s->a[a].name;
	for (int m = 0; m < s->nmodels && m < GX_MAX_MODELS; m++)
		models[m] = s->models[m];
	ret = gx_summarize(rows, n, algos, s->nalgos, models, s->nmodels,
			   s->ref >= 0 ? s->a[s->ref].name : NULL, out);
	if (ret < 0) {
		free(rows);
		return ret;
	}
	out->rows = rows;
	out->nrows = n;
	if (s->conds && s->nconds > 0) {
		if (!(out->conds = malloc(sizeof(*out->conds) * (size_t)s->nconds))) {
			gx_summary_release(out);
			return -ENOMEM;
		}
		memcpy(out->conds, s->conds, sizeof(*out->conds) * (size_t)s->nconds);
		out->nconds = s->nconds;
	}
	/* the caller's figures of whole runs stay the whole campaign's */
	for (int a = 0; a < s->nalgos; a++) {
		struct gx_algo_summary *o = &out->a[a];
		const struct gx_algo_summary *i = &s->a[a];

		o->runs = i->runs;
		o->failed_runs = i->failed_runs;
		o->dirs_missing = i->dirs_missing;
		o->missing_in = i->missing_in;
		o->monitor_share_max = i->monitor_share_max;
		o->short_loads = i->short_loads;
		o->target_relay_loaded_share = i->target_relay_loaded_share;
		o->mpich_wan_unloaded_share = i->mpich_wan_unloaded_share;
	}
	return 0;
}
