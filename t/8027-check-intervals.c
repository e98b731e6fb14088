// SPDX-License-Identifier: MIT
/*
 * 8027-check-intervals: `gridexp check`'s confidence intervals
 * (experiments/bootstrap.c, check.c, check_out.c) on data with a known
 * answer, without a grid (issue 45, "Verdicts with confidence"):
 *
 *   - a planted difference (the candidate's broadcasts take 0.8 x the
 *     reference's, with noise): the interval of the ratio holds 0.8, the
 *     line "le 0.9 x" is better and passes, "ge 0.9 x" is worse and fails;
 *   - no difference: "le 1.0 x" and "ge 1.0 x" are both not
 *     distinguishable, and both fail, where the point estimate alone
 *     passes one of them;
 *   - coverage: over 100 data sets with a known ratio of means, the 95 %
 *     interval holds it in 88-99 of them;
 *   - blocks: with the difference varying from seed to seed, the interval
 *     over seeds as blocks is wider than over the same rows taken as one
 *     seed;
 *   - the same seed gives the same interval, --level 0.5 a narrower one;
 *   - a count or a figure of whole runs gets no interval;
 *   - TAP and JUnit writers: the plan and one line per check, escaped XML.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap.h"
#include "gbexp.h"
#include "tap.h"

static const char *const algos[] = { "mpich-g2", "mine" };
static char exp_path[64];

/* A normal draw (Box-Muller). */
static double gauss(struct gb_rng *r)
{
	double u = gb_rng_uniform(r), v = gb_rng_uniform(r);

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/*
 * @nrep seeds x @per broadcasts, every other one loaded: the reference's
 * completion is 1 s x (1 + 0.3 N), the candidate's that x @ratio x
 * (1 + @block_sd N_seed) x (1 + 0.2 N).  Returns the row count.
 */
static int make_rows(struct gx_row *rows, int nrep, int per, double ratio, double block_sd,
		     uint64_t seed)
{
	struct gb_rng r;
	int n = 0;

	gb_rng_seed(&r, seed);
	for (int rep = 1; rep <= nrep; rep++) {
		double blk = 1 + block_sd * gauss(&r);

		for (int i = 0; i < per; i++) {
			double ref = 1 + 0.3 * fabs(gauss(&r));

			for (int a = 0; a < 2; a++) {
				struct gx_row *w = &rows[n++];

				memset(w, 0, sizeof(*w));
				w->algo = a;
				w->rep = rep;
				w->index = i;
				w->size = 1048576;
				w->loaded = i % 2;
				w->wan_bytes = NAN;
				for (int m = 0; m < GX_MAX_MODELS; m++)
					w->pred[m] = NAN;
				w->completion = a ? ref * ratio * blk * (1 + 0.2 * gauss(&r)) : ref;
				if (w->completion < 0.01)
					w->completion = 0.01;
			}
		}
	}
	return n;
}

static void summarize(struct gx_row *rows, int n, struct gx_summary *s)
{
	if (gx_summarize(rows, n, algos, 2, NULL, 0, "mpich-g2", s) < 0)
		bail("summarize");
	s->rows = malloc(sizeof(*rows) * (size_t)n);
	if (!s->rows)
		bail("malloc");
	memcpy(s->rows, rows, sizeof(*rows) * (size_t)n);
	s->nrows = n;
}

static void load(const char *text, struct gx_expect **e, int *n)
{
	struct gb_diag d;
	FILE *f = fopen(exp_path, "w");

	if (!f)
		bail("cannot write %s", exp_path);
	fputs(text, f);
	fclose(f);
	if (gx_expect_load(exp_path, e, n, &d) < 0)
		bail("expectations: %s", d.msg);
}

static int eval(const char *text, const struct gx_summary *s, const struct gx_check_opts *o,
		struct gx_check *c)
{
	struct gx_expect *e;
	struct gb_err err = { "" };
	int n, r;

	load(text, &e, &n);
	r = gx_expect_eval(e, n, s, o, c, &err);
	free(e);
	if (r < 0)
		diag("eval: %s", err.msg);
	return r;
}

static const struct gx_check_opts dflt = { 0.95, 2000, 1 };

static void test_planted(void)
{
	static struct gx_row rows[2 * 3 * 40];
	struct gx_summary s;
	struct gx_check c;
	int n = make_rows(rows, 3, 40, 0.8, 0, 11);

	summarize(rows, n, &s);
	ok(eval("- {metric: mean, algo: mine, le: {times: 0.9, of: mpich-g2}}\n"
		"- {metric: mean, algo: mine, ge: {times: 0.9, of: mpich-g2}}\n"
		"- {metric: improvement_loaded_mean, algo: mine, ge: 10}\n", &s, &dflt, &c) == 0 &&
	   c.n == 3, "a planted 0.8 x: three lines evaluated");
	if (c.n == 3) {
		const struct gx_check_line *l = c.l;

		ok(l[0].ci && l[0].ratio && l[0].lo < 0.8 && l[0].hi > 0.8 && l[0].hi < 0.9,
		   "  the ratio's interval [%.3f, %.3f] holds 0.8 and lies below 0.9", l[0].lo,
		   l[0].hi);
		ok(l[0].pass && !strcmp(l[0].verdict, "better"), "  le 0.9 x: better, PASS");
		ok(!l[1].pass && !strcmp(l[1].verdict, "worse"), "  ge 0.9 x: worse, FAIL");
		ok(l[2].ci && !l[2].ratio && l[2].lo > 10 && l[2].pass,
		   "  the loaded improvement %.1f %% [%.1f, %.1f] clears 10 %%", l[2].est, l[2].lo,
		   l[2].hi);
		is_int(c.nblocks, 3, "  three seeds, three blocks");
		is_int(c.nslots, 120, "  120 broadcasts resampled in pairs");
	}
	gx_check_release(&c);
	gx_summary_release(&s);
}

static void test_none(void)
{
	static struct gx_row rows[2 * 3 * 40];
	struct gx_summary s;
	struct gx_check c, p;
	const char *text = "- {metric: mean, algo: mine, le: {times: 1.0, of: mpich-g2}}\n"
			   "- {metric: mean, algo: mine, ge: {times: 1.0, of: mpich-g2}}\n";
	int n = make_rows(rows, 3, 40, 1.0, 0, 12);

	summarize(rows, n, &s);
	ok(eval(text, &s, &dflt, &c) == 0 && c.n == 2, "no difference: two lines");
	if (c.n == 2) {
		ok(c.l[0].lo < 1 && c.l[0].hi > 1, "  the ratio's interval [%.3f, %.3f] holds 1",
		   c.l[0].lo, c.l[0].hi);
		ok(!c.l[0].pass && !c.l[1].pass &&
		   !strcmp(c.l[0].verdict, "not distinguishable") &&
		   !strcmp(c.l[1].verdict, "not distinguishable"),
		   "  le and ge: both not distinguishable, both FAIL");
	}
	struct gx_check_opts point = { 0.95, 0, 1 };

	ok(eval(text, &s, &point, &p) == 0 && p.n == 2 && p.l[0].pass + p.l[1].pass == 1 &&
	   !p.l[0].ci, "  --resamples 0: the point estimate alone passes one of them");
	gx_check_release(&p);
	gx_check_release(&c);
	gx_summary_release(&s);
}

static void test_coverage(void)
{
	static struct gx_row rows[2 * 3 * 30];
	const struct gx_check_opts o = { 0.95, 400, 7 };
	int covered = 0, sets = 100;

	for (int k = 0; k < sets; k++) {
		struct gx_summary s;
		struct gx_check c;
		int n = make_rows(rows, 3, 30, 0.8, 0, 1000 + (uint64_t)k);

		summarize(rows, n, &s);
		/* E[ref * 0.8 * (1 + 0.2 N)] / E[ref] = 0.8: the true ratio of means */
		if (eval("- {metric: mean, algo: mine, le: {times: 0.9, of: mpich-g2}}\n", &s, &o,
			 &c) == 0 && c.n == 1 && c.l[0].lo <= 0.8 && 0.8 <= c.l[0].hi)
			covered++;
		gx_check_release(&c);
		gx_summary_release(&s);
	}
	ok(covered >= 88 && covered <= 99, "coverage: the 95 %% interval held the true ratio in "
	   "%d of %d data sets", covered, sets);
}

static void test_blocks(void)
{
	static struct gx_row rows[2 * 4 * 30];
	struct gx_summary s3, s1;
	struct gx_check c3, c1;
	const char *text = "- {metric: mean, algo: mine, le: {times: 1.0, of: mpich-g2}}\n";
	int n = make_rows(rows, 4, 30, 0.8, 0.15, 21);

	summarize(rows, n, &s3);
	for (int i = 0; i < n; i++) {	/* the same rows as one seed */
		rows[i].index += 30 * rows[i].rep;
		rows[i].rep = 1;
	}
	summarize(rows, n, &s1);
	ok(eval(text, &s3, &dflt, &c3) == 0 && eval(text, &s1, &dflt, &c1) == 0 &&
	   c3.n == 1 && c1.n == 1 && c1.nblocks == 1 && c3.nblocks == 4,
	   "a difference that varies from seed to seed: 4 blocks, and 1");
	if (c3.n == 1 && c1.n == 1)
		ok(c3.l[0].hi - c3.l[0].lo > 1.5 * (c1.l[0].hi - c1.l[0].lo),
		   "  seeds as blocks: width %.3f, more than 1.5 x the %.3f of one block",
		   c3.l[0].hi - c3.l[0].lo, c1.l[0].hi - c1.l[0].lo);
	gx_check_release(&c3);
	gx_check_release(&c1);
	gx_summary_release(&s3);
	gx_summary_release(&s1);
}

static void test_repro_and_kinds(void)
{
	static struct gx_row rows[2 * 3 * 40];
	struct gx_summary s;
	struct gx_check a, b, h, k;
	const struct gx_check_opts half = { 0.5, 2000, 1 };
	const char *text = "- {metric: loaded_mean, algo: mine, le: {times: 0.9, of: mpich-g2}}\n";
	int n = make_rows(rows, 3, 40, 0.8, 0, 31);

	summarize(rows, n, &s);
	int ra = eval(text, &s, &dflt, &a), rb = eval(text, &s, &dflt, &b);

	ok(ra == 0 && rb == 0 && a.n == 1 && b.n == 1 && a.l[0].lo == b.l[0].lo &&
	   a.l[0].hi == b.l[0].hi, "the same seed, the same interval [%.4f, %.4f]",
	   a.n ? a.l[0].lo : NAN, a.n ? a.l[0].hi : NAN);
	ok(eval(text, &s, &half, &h) == 0 && h.n == 1 && a.n == 1 &&
	   h.l[0].hi - h.l[0].lo < a.l[0].hi - a.l[0].lo, "--level 0.5: a narrower interval");
	ok(eval("- {metric: broadcasts, algo: mine, ge: 100}\n"
		"- {metric: failed_runs, algo: mine, eq: 0}\n"
		"- {metric: improvement_loaded_max, algo: mine, ge: 1000}\n", &s, &dflt, &k) == 0 &&
	   k.n == 3 && !k.l[0].ci && !k.l[1].ci && !k.l[2].ci && k.l[0].pass && k.l[1].pass &&
	   !k.l[2].pass,
	   "a count, an eq and an extreme: no interval, the point estimate decides");

	/* the writers */
	char *txt = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&txt, &len);

	gx_check_write_tap(&a, f);
	fclose(f);
	ok(txt && !strncmp(txt, "TAP version 13\n1..1\n# intervals: 95 %, a paired bootstrap", 57) &&
	   strstr(txt, "\nok 1 - loaded_mean mine = "), "TAP: the version, the plan, the method, ok 1");
	free(txt);
	f = open_memstream(&txt, &len);
	gx_check_write_junit(&k, "a<b>&\"c\".yaml", f);
	fclose(f);
	ok(txt && strstr(txt, "<testsuite name=\"a&lt;b&gt;&amp;&quot;c&quot;.yaml\" tests=\"3\" "
			 "failures=\"1\"") && strstr(txt, "<failure message=\"fails\""),
	   "JUnit: the suite's name escaped, three cases, one failure");
	free(txt);
	gx_check_release(&a);
	gx_check_release(&b);
	gx_check_release(&h);
	gx_check_release(&k);
	gx_summary_release(&s);
}

static void test_bad(void)
{
	struct gx_summary s;
	struct gx_check c;
	static struct gx_row rows[2 * 1 * 10];
	const struct gx_check_opts few = { 0.95, 50, 1 }, lvl = { 1.0, 2000, 1 };
	int n = make_rows(rows, 1, 10, 1, 0, 41);

	summarize(rows, n, &s);
	ok(eval("- {metric: mean, algo: mine, le: 2}\n", &s, &few, &c) == -EINVAL,
	   "50 resamples are refused");
	ok(eval("- {metric: mean, algo: mine, le: 2}\n", &s, &lvl, &c) == -EINVAL,
	   "a level of 1 is refused");
	gx_summary_release(&s);
}

int main(void)
{
	int fd;

	snprintf(exp_path, sizeof(exp_path), "/tmp/gridbed-8027-XXXXXX");
	if ((fd = mkstemp(exp_path)) < 0)
		bail("mkstemp");
	close(fd);
	test_planted();
	test_none();
	test_coverage();
	test_blocks();
	test_repro_and_kinds();
	test_bad();
	unlink(exp_path);
	return done_testing();
}
