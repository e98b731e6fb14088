// SPDX-License-Identifier: MIT
/*
 * check.c - expectations on a campaign's summary (`gridexp check`), so that
 * a user's CI can rank a new planner against the others:
 *
 *   - {metric: loaded_mean, algo: adaptive, le: {times: 0.9, of: mpich-g2}}
 *   - {metric: ratio_to_native, algo: "*", le: 1.5}
 *   - {metric: loaded_mean, algo: mpich-g2, ge: {times: 1.3, metric: unloaded_mean}}
 *
 * A relative bound is `times` x a metric: of another algorithm (`of`), or
 * another metric (`metric`) of the same algorithm, or both.
 * One line per (expectation, algorithm): "PASS" or "FAIL", the metric's
 * value and the bound.  A metric without data fails: an expectation about
 * loaded broadcasts in a campaign that had none has not been met.  So does
 * a line over pooled directories (one per seed) that rests on an algorithm
 * some directory has no complete run of: its pooled figure would stand for
 * fewer seeds than the others' (Fig. 8's criteria hold "over 3 seeds").
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap.h"
#include "gbexp.h"
#include "gbplan.h"
#include "gbyaml.h"

static const char *const cmp_names[] = { "le", "lt", "ge", "gt", "eq" };
static const char *const cmp_signs[] = { "<=", "<", ">=", ">", "==" };

static int get_num(struct gb_yaml *y, const yaml_node_t *n, const char *what, double *out)
{
	const char *s = gb_yaml_str(n);
	char *end;

	if (!s || !*s)
		return gb_yaml_fail(y, n, "%s must be a number, got %s", what, gb_yaml_kind(y, n));
	*out = strtod(s, &end);
	if (*end || !isfinite(*out))
		return gb_yaml_fail(y, n, "%s '%s' is not a number", what, gb_yaml_quote(y, s));
	return 0;
}

static int get_word(struct gb_yaml *y, const yaml_node_t *n, const char *what, char *out,
		    size_t len)
{
	const char *s = gb_yaml_str(n);

	if (!s || !*s || strlen(s) >= len)
		return gb_yaml_fail(y, n, "%s must be a name, got %s", what, gb_yaml_kind(y, n));
	snprintf(out, len, "%s", s);
	return 0;
}

/* A metric's name, known to the summary (or model_error_<model>). */
static int get_metric(struct gb_yaml *y, const yaml_node_t *n, const char *subj, char *out,
		      size_t len)
{
	const char *const *m = gx_summary_metric_names();
	int ret;

	if ((ret = get_word(y, n, "metric", out, len)) < 0)
		return ret;
	while (*m && strcmp(*m, out))
		m++;
	if (!*m && strncmp(out, "model_error_", 12))
		return gb_yaml_fail(y, n, "%s: unknown metric '%s' (see docs/formats.md, "
				    "\"Expectations\")", subj, gb_yaml_quote(y, out));
	return 0;
}

/* The figures of whole runs, which the summary's caller fills: `where` cannot restrict them. */
static int whole_runs(const char *metric)
{
	static const char *const m[] = { "runs", "failed_runs", "monitor_wan_share_max",
					 "short_loads", "target_relay_loaded_share",
					 "mpich_wan_unloaded_share", NULL };

	for (int i = 0; m[i]; i++)
		if (!strcmp(m[i], metric))
			return 1;
	return 0;
}

static int get_size(struct gb_yaml *y, const yaml_node_t *n, const char *what, double *out)
{
	const char *s = gb_yaml_str(n);

	if (!s || gb_parse_size(s, out) < 0 || *out != floor(*out) || *out < 0)
		return gb_yaml_fail(y, n, "%s %s is not a size in bytes (use 1M, 64K, 1000)", what,
				    gb_yaml_kind(y, n));
	return 0;
}

/* `where: {condition: NAME, size: {ge: B, le: B}}` (docs/formats.md). */
static int parse_where(struct gb_yaml *y, const yaml_node_t *w, const char *subj,
		       struct gx_expect *e)
{
	static const char *const wkeys[] = { "condition", "size", NULL };
	static const char *const skeys[] = { "ge", "le", NULL };
	const yaml_node_t *v, *sz;
	char what[96];
	int ret;

	snprintf(what, sizeof(what), "%s: where", subj);
	if (w->type != YAML_MAPPING_NODE)
		return gb_yaml_fail(y, w, "%s must be a mapping {condition: NAME, size: {ge: B, "
				    "le: B}}", what);
	if ((ret = gb_yaml_check_map(y, w, what, wkeys)) < 0)
		return ret;
	if ((v = gb_yaml_get(y, w, "condition"))) {
		if ((ret = get_word(y, v, "where: condition", e->where_cond,
				    sizeof(e->where_cond))) < 0)
			return ret;
		e->where |= GX_WHERE_COND;
		e->where_line = GB_YLINE(v);
		e->where_col = GB_YCOL(v);
	}
	if ((sz = gb_yaml_get(y, w, "size"))) {
		snprintf(what, sizeof(what), "%s: where: size", subj);
		if (sz->type != YAML_MAPPING_NODE)
			return gb_yaml_fail(y, sz, "%s must be a mapping {ge: B, le: B}", what);
		if ((ret = gb_yaml_check_map(y, sz, what, skeys)) < 0)
			return ret;
		if ((v = gb_yaml_get(y, sz, "ge"))) {
			if ((ret = get_size(y, v, "where: size: ge", &e->where_ge)) < 0)
				return ret;
			e->where |= GX_WHERE_GE;
		}
		if ((v = gb_yaml_get(y, sz, "le"))) {
			if ((ret = get_size(y, v, "where: size: le", &e->where_le)) < 0)
				return ret;
			e->where |= GX_WHERE_LE;
		}
		if (!(e->where & (GX_WHERE_GE | GX_WHERE_LE)))
			return gb_yaml_fail(y, sz, "%s: give 'ge', 'le' or both", what);
		if ((e->where & GX_WHERE_GE) && (e->where & GX_WHERE_LE) &&
		    e->where_ge > e->where_le)
			return gb_yaml_fail(y, sz, "%s: ge %.0f is above le %.0f: no size is kept",
					    what, e->where_ge, e->where_le);
	}
	if (!e->where)
		return gb_yaml_fail(y, w, "%s: give 'condition', 'size' or both", subj);
	return 0;
}

static int parse_one(struct gb_yaml *y, const yaml_node_t *n, int idx, struct gx_expect *e)
{
	static const char *const keys[] = { "metric", "algo", "le", "lt", "ge", "gt", "eq",
					    "where", NULL };
	static const char *const bkeys[] = { "times", "of", "metric", NULL };
	const yaml_node_t *v, *b = NULL;
	char subj[48];
	int ret;

	snprintf(subj, sizeof(subj), "expectation %d", idx + 1);
	memset(e, 0, sizeof(*e));
	e->line = GB_YLINE(n);
	e->col = GB_YCOL(n);
	if ((ret = gb_yaml_check_map(y, n, subj, keys)) < 0)
		return ret;
	if (!(v = gb_yaml_get(y, n, "metric")))
		return gb_yaml_fail(y, n, "%s: 'metric' is missing", subj);
	if ((ret = get_metric(y, v, subj, e->metric, sizeof(e->metric))) < 0)
		return ret;
	if (!(v = gb_yaml_get(y, n, "algo")))
		return gb_yaml_fail(y, n, "%s: 'algo' is missing (a name or \"*\")", subj);
	if ((ret = get_word(y, v, "algo", e->algo, sizeof(e->algo))) < 0)
		return ret;
	e->cmp = -1;
	for (int c = 0; c < 5; c++)
		if ((v = gb_yaml_get(y, n, cmp_names[c]))) {
			if (e->cmp >= 0)
				return gb_yaml_fail(y, v, "%s: give one comparison (le, lt, ge, gt "
						    "or eq)", subj);
			e->cmp = c;
			b = v;
		}
	if (e->cmp < 0)
		return gb_yaml_fail(y, n, "%s: a comparison is missing (le, lt, ge, gt or eq)",
				    subj);
	if (b->type == YAML_MAPPING_NODE) {
		if ((ret = gb_yaml_check_map(y, b, subj, bkeys)) < 0)
			return ret;
		if (!(v = gb_yaml_get(y, b, "times")))
			return gb_yaml_fail(y, b, "%s: 'times' is missing", subj);
		if ((ret = get_num(y, v, "times", &e->value)) < 0)
			return ret;
		snprintf(e->bmetric, sizeof(e->bmetric), "%s", e->metric);
		if (!gb_yaml_get(y, b, "of") && !gb_yaml_get(y, b, "metric"))
			return gb_yaml_fail(y, b, "%s: a relative bound needs 'of' (the algorithm "
					    "compared with) or 'metric' (its own metric compared "
					    "with), or both", subj);
		if ((v = gb_yaml_get(y, b, "metric")) &&
		    (ret = get_metric(y, v, subj, e->bmetric, sizeof(e->bmetric))) < 0)
			return ret;
		if ((v = gb_yaml_get(y, b, "of")) &&
		    (ret = get_word(y, v, "of", e->of, sizeof(e->of))) < 0)
			return ret;
	} else if ((ret = get_num(y, b, cmp_names[e->cmp], &e->value)) < 0) {
		return ret;
	}
	if (!(v = gb_yaml_get(y, n, "where")))
		return 0;
	if ((ret = parse_where(y, v, subj, e)) < 0)
		return ret;
	if (whole_runs(e->metric) || (e->bmetric[0] && whole_runs(e->bmetric)))
		return gb_yaml_fail(y, v, "%s: metric '%s' is a figure of whole runs; 'where' "
				    "keeps broadcasts", subj,
				    whole_runs(e->metric) ? e->metric : e->bmetric);
	return 0;
}

int gx_expect_load(const char *path, struct gx_expect **out, int *nout, struct gb_diag *d)
{
	struct gb_yaml y;
	yaml_node_t *root, *list;
	yaml_node_item_t *it;
	char *buf = NULL;
	size_t len;
	int n = 0, ret;

	*out = NULL;
	*nout = 0;
	gb_yaml_init(&y, path, d, "an expectation file");
	if ((ret = gb_read_file(path, 1u << 20, &buf, &len)) < 0) {
		if (d) {
			snprintf(d->file, sizeof(d->file), "%s", path);
			snprintf(d->msg, sizeof(d->msg), "cannot read: %s", strerror(-ret));
		}
		return ret;
	}
	if ((ret = gb_yaml_load(&y, buf, len)) < 0)
		goto cleanup;
	root = gb_yaml_root(&y);
	list = root;
	if (root && root->type == YAML_MAPPING_NODE) {
		static const char *const keys[] = { "expect", NULL };

		if ((ret = gb_yaml_check_map(&y, root, NULL, keys)) < 0)
			goto cleanup;
		list = gb_yaml_get(&y, root, "expect");
	}
	if (!list) {
		ret = gb_yaml_fail_at(&y, 1, 1, "no expectations (a list of {metric, algo, "
				      "le|lt|ge|gt|eq})");
		goto cleanup;
	}
	if ((ret = gb_yaml_list(&y, list, "expect", &it, &n)) < 0)
		goto cleanup;
	if (n < 1) {
		ret = gb_yaml_fail(&y, list, "no expectations");
		goto cleanup;
	}
	*out = calloc((size_t)n, sizeof(**out));
	if (!*out) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (int i = 0; i < n; i++)
		if ((ret = parse_one(&y, gb_yaml_node(&y, it[i]), i, &(*out)[i])) < 0)
			goto cleanup;
	*nout = n;
cleanup:
	if (ret < 0) {
		free(*out);
		*out = NULL;
	}
	gb_yaml_release(&y);
	free(buf);
	return ret;
}

static int in_list(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return 1;
	return 0;
}

/* "a, b, c" of @names, cut to fit @buf */
static const char *list_text(const char *const *names, int n, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "", names[i] ?: "?");
	return buf;
}

int gx_expect_names(const struct gx_expect *e, int n, const char *const *algos, int nalgos,
		    const char *path, struct gb_err *err)
{
	char have[512];

	for (int i = 0; i < n; i++) {
		const char *metric[2] = { e[i].metric, e[i].bmetric };
		const char *bad = NULL, *what = NULL;

		if (strcmp(e[i].algo, "*") && !in_list(algos, nalgos, e[i].algo))
			bad = e[i].algo, what = "algo";
		else if (e[i].of[0] && !in_list(algos, nalgos, e[i].of))
			bad = e[i].of, what = "of";
		if (bad) {
			gb_err_set(err, "%s:%d:%d: expectation %d: %s '%s' is not an algorithm "
				   "of the campaign (%s%s)", path, e[i].line, e[i].col, i + 1, what,
				   bad, list_text(algos, nalgos, have, sizeof(have)),
				   !strcmp(what, "algo") ? ", or \"*\"" : "");
			return -EINVAL;
		}
		for (int k = 0; k < 2; k++)
			if (!strncmp(metric[k], "model_error_", 12) &&
			    !gb_costmodel_find(metric[k] + 12)) {
				size_t h = 0;

				for (int c = 0; c < gb_ncostmodels && h < sizeof(have); c++)
					h += (size_t)snprintf(have + h, sizeof(have) - h, "%s%s",
							      c ? ", " : "", gb_costmodels[c].name);
				gb_err_set(err, "%s:%d:%d: expectation %d: metric '%s' names no "
					   "cost model (%s)", path, e[i].line, e[i].col, i + 1,
					   metric[k], have);
				return -EINVAL;
			}
	}
	return 0;
}

int gx_expect_conds(const struct gx_expect *e, int n, const char *const *conds, int nconds,
		    const char *path, struct gb_err *err)
{
	char have[512];

	for (int i = 0; i < n; i++)
		if ((e[i].where & GX_WHERE_COND) && !in_list(conds, nconds, e[i].where_cond)) {
			gb_err_set(err, "%s:%d:%d: expectation %d: where: condition '%s' is "
				   "not a load condition of the campaign (%s)", path,
				   e[i].where_line, e[i].where_col, i + 1, e[i].where_cond,
				   list_text(conds, nconds, have, sizeof(have)));
			return -EINVAL;
		}
	return 0;
}

/* The rows an expectation's `where` keeps: its condition (index) and sizes. */
struct where_ctx {
	const struct gx_expect *e;
	int cond;
};

static int where_keeps(const struct gx_row *r, void *ctx)
{
	const struct where_ctx *w = ctx;
	const struct gx_expect *e = w->e;

	return (!(e->where & GX_WHERE_COND) || r->cond == w->cond) &&
	       (!(e->where & GX_WHERE_GE) || r->size >= e->where_ge) &&
	       (!(e->where & GX_WHERE_LE) || r->size <= e->where_le);
}

/* " [p4, size 1K-64K]": @e's restriction as its lines print it; "" without. */
static const char *where_text(const struct gx_expect *e, char *buf, size_t len)
{
	char lo[32], hi[32], sz[80] = "";
	int c = e->where & GX_WHERE_COND, ge = e->where & GX_WHERE_GE, le = e->where & GX_WHERE_LE;

	buf[0] = '\0';
	if (!e->where)
		return buf;
	gx_size_text(e->where_ge, lo, sizeof(lo));
	gx_size_text(e->where_le, hi, sizeof(hi));
	if (ge && le)
		snprintf(sz, sizeof(sz), "size %s-%s", lo, hi);
	else if (ge || le)
		snprintf(sz, sizeof(sz), "size %s %s", ge ? ">=" : "<=", ge ? lo : hi);
	snprintf(buf, len, " [%s%s%s]", c ? e->where_cond : "", c && sz[0] ? ", " : "", sz);
	return buf;
}

/*
 * The summary expectation @e (number @i) is evaluated on: @s itself without
 * `where`, else the summary of the rows it keeps in *@sub (released by the
 * caller).  -EINVAL (@err) for a condition @s does not have.
 */
static int where_summary(const struct gx_expect *e, int i, const struct gx_summary *s,
			 struct gx_summary *sub, const struct gx_summary **use, struct gb_err *err)
{
	struct where_ctx w = { e, -1 };
	int ret;

	memset(sub, 0, sizeof(*sub));
	*use = s;
	if (!e->where)
		return 0;
	if (e->where & GX_WHERE_COND) {
		for (int k = 0; s->conds && k < s->nconds; k++)
			if (!strcmp(s->conds[k], e->where_cond))
				w.cond = k;
		if (w.cond < 0) {
			gb_err_set(err, "expectation %d (line %d): no load condition '%s' in "
				   "the campaign", i + 1, e->line, e->where_cond);
			return -EINVAL;
		}
	}
	if (!s->rows) {
		gb_err_set(err, "expectation %d (line %d): 'where' needs the broadcasts' "
			   "rows, which this summary lacks", i + 1, e->line);
		return -EINVAL;
	}
	if ((ret = gx_summary_subset(s, where_keeps, &w, sub)) < 0) {
		gb_err_set(err, "expectation %d (line %d): %s", i + 1, e->line,
			   strerror(-ret));
		return ret;
	}
	*use = sub;
	return 0;
}

static int algo_of(const struct gx_summary *s, const char *name)
{
	for (int a = 0; a < s->nalgos; a++)
		if (!strcmp(s->a[a].name, name))
			return a;
	return -1;
}

static int holds(int cmp, double x, double bound)
{
	switch (cmp) {
	case GX_LE: return x <= bound;
	case GX_LT: return x < bound;
	case GX_GE: return x >= bound;
	case GX_GT: return x > bound;
	default: return x == bound;
	}
}

static int no_metric(const struct gx_expect *e, int i, const char *metric, struct gb_err *err)
{
	gb_err_set(err, "expectation %d (line %d): no metric '%s'", i + 1, e->line, metric);
	return -EINVAL;
}

/*
 * Of the algorithms expectation @e rests on for algorithm @a (@a itself, its
 * `of`, the reference of an improvement, native of a ratio), the first that
 * a pooled results directory has no complete run of, or -1.  Its pooled
 * figure stands for fewer seeds than the others', so the line is not met.
 */
static int partial_algo(const struct gx_summary *s, const struct gx_expect *e, int a, int of)
{
	int on[4] = { a, of, gx_summary_metric_base(s, e->metric),
		      gx_summary_metric_base(s, e->bmetric) };

	for (int k = 0; k < 4; k++)
		if (on[k] >= 0 && on[k] < s->nalgos && s->a[on[k]].dirs_missing)
			return on[k];
	return -1;
}

/* The statistic of line @l on summary @s: the metric, or its ratio to (or,
 * where that is not positive, its difference from) the bound; NAN: no data. */
static double line_stat(const struct gx_expect *e, const struct gx_check_line *l,
			const struct gx_summary *s, int of)
{
	double v, ref;

	if (gx_summary_metric(s, l->algo, e->metric, &v) < 0 || !isfinite(v))
		return NAN;
	if (!e->bmetric[0])
		return v;
	if (gx_summary_metric(s, of >= 0 ? of : l->algo, e->bmetric, &ref) < 0 ||
	    !isfinite(ref))
		return NAN;
	if (l->ratio)
		return ref > 0 ? v / ref : NAN;
	return v - e->value * ref;
}

/* Where the interval [lo, hi] stands against @thr for comparison @cmp. */
static const char *interval_verdict(int cmp, double lo, double hi, double thr)
{
	int better, worse;

	switch (cmp) {
	case GX_LE: better = hi <= thr; worse = lo > thr; break;
	case GX_LT: better = hi < thr; worse = lo >= thr; break;
	case GX_GE: better = lo >= thr; worse = hi < thr; break;
	default: better = lo > thr; worse = hi <= thr; break;	/* GX_GT */
	}
	return better ? "better" : worse ? "worse" : "not distinguishable";
}

/* The point estimate of every line of @e[i] into @c (appended). */
static int eval_points(const struct gx_expect *e, int i, const struct gx_summary *s,
		       struct gx_check *c, int cap, struct gb_err *err)
{
	int all = !strcmp(e->algo, "*"), of = -1;

	if (!all && algo_of(s, e->algo) < 0) {
		gb_err_set(err, "expectation %d (line %d): no algorithm '%s' in the "
			   "campaign", i + 1, e->line, e->algo);
		return -EINVAL;
	}
	if (e->of[0] && (of = algo_of(s, e->of)) < 0) {
		gb_err_set(err, "expectation %d (line %d): no algorithm '%s' in the "
			   "campaign", i + 1, e->line, e->of);
		return -EINVAL;
	}
	for (int a = 0; a < s->nalgos; a++) {
		double v, ref = NAN, bound = e->value;
		char b[160], wt[GX_NAME_MAX + 64];
		int part;

		if (!all && strcmp(s->a[a].name, e->algo))
			continue;
		if (all && a == of)
			continue;      /* "every algorithm x 0.9 of itself" is not meant */
		if (c->n >= cap)
			return -ENOMEM;
		struct gx_check_line *l = &c->l[c->n];

		memset(l, 0, sizeof(*l));
		l->expect = i;
		l->algo = a;
		l->est = l->lo = l->hi = NAN;
		if (gx_summary_metric(s, a, e->metric, &v) < 0)
			return no_metric(e, i, e->metric, err);
		if (e->bmetric[0] && gx_summary_metric(s, of >= 0 ? of : a, e->bmetric, &ref) < 0)
			return no_metric(e, i, e->bmetric, err);
		if (e->bmetric[0]) {
			bound = e->value * ref;
			snprintf(b, sizeof(b), "%g x %s's %s %.6g = %.6g", e->value,
				 of >= 0 ? e->of : s->a[a].name, e->bmetric, ref, bound);
		} else {
			snprintf(b, sizeof(b), "%.6g", bound);
		}
		part = partial_algo(s, e, a, of);
		l->pass = isfinite(v) && isfinite(bound) && holds(e->cmp, v, bound) && part < 0;
		if (!(isfinite(v) && isfinite(bound)))
			snprintf(l->why, sizeof(l->why), "  (no data)");
		else if (part >= 0)
			snprintf(l->why, sizeof(l->why), "  (pooled: %s has no complete run in %s)",
				 s->a[part].name, s->a[part].missing_in);
		snprintf(l->text, sizeof(l->text), "%s %s%s = %.6g %s %s", e->metric,
			 s->a[a].name, where_text(e, wt, sizeof(wt)), v, cmp_signs[e->cmp], b);
		l->verdict = l->pass ? "holds" : "fails";
		/* an interval for a statistic of single broadcasts, compared one way */
		l->ci = e->cmp != GX_EQ && gx_summary_metric_resampled(e->metric) &&
			(!e->bmetric[0] || gx_summary_metric_resampled(e->bmetric));
		l->ratio = e->bmetric[0] && ref > 0;
		l->diff = e->bmetric[0] && !l->ratio;
		l->thr = !e->bmetric[0] ? e->value : l->ratio ? e->value : 0;
		l->est = line_stat(e, l, s, of);
		c->n++;
	}
	return 0;
}

/* What each resample of eval_intervals() fills: every line's statistic. */
struct resampled {
	const struct gx_expect *e;
	const struct gx_summary *s;
	struct gx_check *c;
	double *stat;   /* [line][resample] */
	int resamples;
	int sel;        /* the lines resampled: -1 those without `where`, else expectation sel's */
};

/* Line @l is one of those @sel selects (struct resampled). */
static int selected(const struct gx_expect *e, const struct gx_check_line *l, int sel)
{
	return sel < 0 ? !e[l->expect].where : l->expect == sel;
}

static int one_resample(const struct gx_summary *rs, int r, void *ctx)
{
	struct resampled *x = ctx;

	for (int k = 0; k < x->c->n; k++) {
		const struct gx_check_line *l = &x->c->l[k];
		const struct gx_expect *ek = &x->e[l->expect];
		int of = ek->of[0] ? algo_of(x->s, ek->of) : -1;

		if (!selected(x->e, l, x->sel))
			continue;

		x->stat[(size_t)k * (size_t)x->resamples + (size_t)r] =
			l->ci ? line_stat(ek, l, rs, of) : NAN;
	}
	return 0;
}

/*
 * The intervals of the lines @sel selects (struct resampled) that have one:
 * @o->resamples resamples of @s's rows, each summarised again
 * (gx_boot_each()); @s is the summary those lines were evaluated on.
 * Without `where` (@sel < 0), the resampling's blocks and slots go to @c.
 */
static int eval_intervals(const struct gx_expect *e, const struct gx_summary *s,
			  const struct gx_check_opts *o, struct gx_check *c, int sel)
{
	struct resampled x = { e, s, c, NULL, o->resamples, sel };
	int ret, nci = 0;

	for (int k = 0; k < c->n; k++)
		nci += c->l[k].ci && selected(e, &c->l[k], sel);
	if (!nci || !s->rows || s->nrows < 1) {
		for (int k = 0; k < c->n; k++)
			if (selected(e, &c->l[k], sel))
				c->l[k].ci = 0;
		return 0;
	}
	if (!(x.stat = malloc(sizeof(double) * (size_t)c->n * (size_t)o->resamples)))
		return -ENOMEM;
	if ((ret = gx_boot_each(s, o->resamples, o->seed, one_resample, &x,
				sel < 0 ? &c->nblocks : NULL, sel < 0 ? &c->nslots : NULL)) < 0)
		goto out;
	for (int k = 0; k < c->n; k++) {
		struct gx_check_line *l = &c->l[k];
		int m;

		if (!l->ci || !selected(e, l, sel))
			continue;
		m = gx_interval(x.stat + (size_t)k * (size_t)o->resamples, o->resamples,
				o->level, &l->lo, &l->hi);
		l->used = m;
		if (!isfinite(l->lo) || !isfinite(l->est)) {
			/* too little data to resample: not distinguishable */
			l->lo = l->hi = NAN;
			l->verdict = "not distinguishable";
			if (!l->why[0])
				snprintf(l->why, sizeof(l->why), "  (data in %d of %d resamples)", m,
					 o->resamples);
			l->pass = 0;
			continue;
		}
		l->verdict = interval_verdict(e[l->expect].cmp, l->lo, l->hi, l->thr);
		l->pass = l->pass && !strcmp(l->verdict, "better");
	}
	ret = 0;
out:
	free(x.stat);
	return ret;
}

int gx_expect_eval(const struct gx_expect *e, int n, const struct gx_summary *s,
		   const struct gx_check_opts *o, struct gx_check *c, struct gb_err *err)
{
	int cap = n * (s->nalgos + 1) + 1, ret;
	struct gx_summary *sub = NULL;
	const struct gx_summary **use = NULL;

	memset(c, 0, sizeof(*c));
	if (o && (o->resamples != 0 && o->resamples < 100)) {
		gb_err_set(err, "--resamples %d: give 0 (no intervals) or at least 100",
			   o->resamples);
		return -EINVAL;
	}
	if (o && o->resamples && !(o->level >= 0.5 && o->level < 1)) {
		gb_err_set(err, "--level %g: give a confidence from 0.5 to below 1", o->level);
		return -EINVAL;
	}
	c->opts = o ? *o : (struct gx_check_opts){ GX_CHECK_LEVEL, 0, GX_CHECK_SEED };
	/* the summary of each expectation's `where` (a zeroed one without) */
	if (!(c->l = calloc((size_t)cap, sizeof(*c->l))) ||
	    !(sub = calloc((size_t)n + 1, sizeof(*sub))) ||
	    !(use = calloc((size_t)n + 1, sizeof(*use)))) {
		ret = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < n; i++)
		if ((ret = where_summary(&e[i], i, s, &sub[i], &use[i], err)) < 0 ||
		    (ret = eval_points(&e[i], i, use[i], c, cap, err)) < 0)
			goto fail;
	if (c->opts.resamples > 0) {
		int any = 0;

		/* the lines without `where` on every row; each `where` on its own rows */
		ret = eval_intervals(e, s, &c->opts, c, -1);
		for (int i = 0; i < n && ret >= 0; i++)
			if (e[i].where)
				ret = eval_intervals(e, use[i], &c->opts, c, i);
		if (ret < 0) {
			gb_err_set(err, "cannot resample: %s", strerror(-ret));
			goto fail;
		}
		/* the first line says the whole set's blocks and slots */
		for (int k = 0; k < c->n; k++)
			any |= c->l[k].ci;
		if (any && !c->nslots && s->rows && s->nrows > 0 &&
		    (ret = gx_boot_each(s, 0, c->opts.seed, NULL, NULL, &c->nblocks,
					&c->nslots)) < 0) {
			gb_err_set(err, "cannot resample: %s", strerror(-ret));
			goto fail;
		}
	}
	if (c->opts.resamples == 0)
		for (int k = 0; k < c->n; k++)
			c->l[k].ci = 0;
	for (int k = 0; k < c->n; k++)
		c->failures += !c->l[k].pass;
	ret = 0;
	goto out;
fail:
	gx_check_release(c);
out:
	for (int i = 0; sub && i < n; i++)
		gx_summary_release(&sub[i]);
	free(sub);
	free(use);
	return ret;
}

void gx_check_release(struct gx_check *c)
{
	free(c->l);
	memset(c, 0, sizeof(*c));
}

int gx_expect_check(const struct gx_expect *e, int n, const struct gx_summary *s,
		    const struct gx_check_opts *o, FILE *out, struct gb_err *err)
{
	struct gx_check c;
	int ret = gx_expect_eval(e, n, s, o, &c, err);

	if (ret < 0)
		return ret;
	gx_check_write_text(&c, out);
	ret = c.failures;
	gx_check_release(&c);
	return ret;
}
