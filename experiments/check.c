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

static int parse_one(struct gb_yaml *y, const yaml_node_t *n, int idx, struct gx_expect *e)
{
	static const char *const keys[] = { "metric", "algo", "le", "lt", "ge", "gt", "eq",
					    NULL };
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
		if ((v = gb_yaml_get(y, b, "of")))
			return get_word(y, v, "of", e->of, sizeof(e->of));
		return 0;
	}
	return get_num(y, b, cmp_names[e->cmp], &e->value);
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
		    const char *path, char *err, size_t errlen)
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
			snprintf(err, errlen, "%s:%d:%d: expectation %d: %s '%s' is not an algorithm "
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
				snprintf(err, errlen, "%s:%d:%d: expectation %d: metric '%s' names no "
					 "cost model (%s)", path, e[i].line, e[i].col, i + 1,
					 metric[k], have);
				return -EINVAL;
			}
	}
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

static int no_metric(const struct gx_expect *e, int i, const char *metric, char *err,
		     size_t errlen)
{
	snprintf(err, errlen, "expectation %d (line %d): no metric '%s'", i + 1, e->line, metric);
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

int gx_expect_check(const struct gx_expect *e, int n, const struct gx_summary *s, FILE *out,
		    char *err, size_t errlen)
{
	int failures = 0;

	for (int i = 0; i < n; i++) {
		int all = !strcmp(e[i].algo, "*"), of = -1;
		double ref = NAN;

		if (!all && algo_of(s, e[i].algo) < 0) {
			snprintf(err, errlen, "expectation %d (line %d): no algorithm '%s' in the "
				 "campaign", i + 1, e[i].line, e[i].algo);
			return -EINVAL;
		}
		if (e[i].of[0] && (of = algo_of(s, e[i].of)) < 0) {
			snprintf(err, errlen, "expectation %d (line %d): no algorithm '%s' in the "
				 "campaign", i + 1, e[i].line, e[i].of);
			return -EINVAL;
		}
		for (int a = 0; a < s->nalgos; a++) {
			double v, bound = e[i].value;
			char b[160], why[PATH_MAX + 96];
			int ok, part;

			if (!all && strcmp(s->a[a].name, e[i].algo))
				continue;
			if (all && a == of)
				continue;      /* "every algorithm x 0.9 of itself" is not meant */
			if (gx_summary_metric(s, a, e[i].metric, &v) < 0)
				return no_metric(&e[i], i, e[i].metric, err, errlen);
			if (e[i].bmetric[0] && gx_summary_metric(s, of >= 0 ? of : a, e[i].bmetric,
							       &ref) < 0)
				return no_metric(&e[i], i, e[i].bmetric, err, errlen);
			if (e[i].bmetric[0]) {
				bound = e[i].value * ref;
				snprintf(b, sizeof(b), "%g x %s's %s %.6g = %.6g", e[i].value,
					 of >= 0 ? e[i].of : s->a[a].name, e[i].bmetric, ref, bound);
			} else {
				snprintf(b, sizeof(b), "%.6g", bound);
			}
			part = partial_algo(s, &e[i], a, of);
			ok = isfinite(v) && isfinite(bound) && holds(e[i].cmp, v, bound) && part < 0;
			if (!(isfinite(v) && isfinite(bound)))
				snprintf(why, sizeof(why), "  (no data)");
			else if (part >= 0)
				snprintf(why, sizeof(why), "  (pooled: %s has no complete run in %s)",
					 s->a[part].name, s->a[part].missing_in);
			else
				why[0] = '\0';
			fprintf(out, "%s %s %s = %.6g %s %s%s\n", ok ? "PASS" : "FAIL", e[i].metric,
				s->a[a].name, v, cmp_signs[e[i].cmp], b, why);
			failures += !ok;
		}
	}
	return failures;
}
