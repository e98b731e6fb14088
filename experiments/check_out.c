// SPDX-License-Identifier: MIT
/*
 * check_out.c - what `gridexp check` prints of an evaluated check
 * (gx_expect_eval(), check.c): text, TAP or JUnit XML (gbexp.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gbexp.h"

/* "; ratio 0.87, 95 % interval [0.81, 0.93]: better" for a line with an
 * interval, "" otherwise. */
static const char *interval_text(const struct gx_check *c, const struct gx_check_line *l,
				 char *buf, size_t len)
{
	buf[0] = '\0';
	if (!l->ci)
		return buf;
	if (!isfinite(l->lo))
		snprintf(buf, len, "; no interval: %s", l->verdict);
	else
		snprintf(buf, len, "; %s%.4g, %g %% interval [%.4g, %.4g]: %s",
			 l->ratio ? "ratio " : l->diff ? "difference " : "", l->est,
			 100 * c->opts.level, l->lo, l->hi, l->verdict);
	return buf;
}

/* How the intervals were made, or "" when no line has one. */
static const char *method_text(const struct gx_check *c, char *buf, size_t len)
{
	int any = 0;

	for (int k = 0; k < c->n; k++)
		any |= c->l[k].ci;
	buf[0] = '\0';
	if (any)
		snprintf(buf, len, "intervals: %g %%, a paired bootstrap over %d broadcasts in %d "
			 "block%s (a seed each), %d resamples, seed %llu", 100 * c->opts.level,
			 c->nslots, c->nblocks, c->nblocks == 1 ? "" : "s", c->opts.resamples,
			 (unsigned long long)c->opts.seed);
	return buf;
}

void gx_check_write_text(const struct gx_check *c, FILE *out)
{
	char m[256], iv[160];

	if (*method_text(c, m, sizeof(m)))
		fprintf(out, "%s\n", m);
	for (int k = 0; k < c->n; k++) {
		const struct gx_check_line *l = &c->l[k];

		fprintf(out, "%s %s%s%s\n", l->pass ? "PASS" : "FAIL", l->text,
			interval_text(c, l, iv, sizeof(iv)), l->why);
	}
}

void gx_check_write_tap(const struct gx_check *c, FILE *out)
{
	char m[256], iv[160];

	fprintf(out, "TAP version 13\n1..%d\n", c->n);
	if (*method_text(c, m, sizeof(m)))
		fprintf(out, "# %s\n", m);
	for (int k = 0; k < c->n; k++) {
		const struct gx_check_line *l = &c->l[k];

		/* '#' starts a directive in TAP: none may appear in the description */
		fprintf(out, "%sok %d - %s%s%s\n", l->pass ? "" : "not ", k + 1, l->text,
			interval_text(c, l, iv, sizeof(iv)), l->why);
	}
}

/* @s with XML's five special characters escaped. */
static void xml_put(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n')
				fputc(*s, f);
		}
}

int gx_check_write_junit(const struct gx_check *c, const char *suite, FILE *out)
{
	char iv[160];

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
		"  <testsuite name=\"");
	xml_put(out, suite);
	fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\">\n", c->n,
		c->failures);
	fprintf(out, "    <properties>\n"
		"      <property name=\"level\" value=\"%g\"/>\n"
		"      <property name=\"resamples\" value=\"%d\"/>\n"
		"      <property name=\"seed\" value=\"%llu\"/>\n"
		"      <property name=\"blocks\" value=\"%d\"/>\n"
		"      <property name=\"broadcasts\" value=\"%d\"/>\n"
		"    </properties>\n", c->opts.level, c->opts.resamples,
		(unsigned long long)c->opts.seed, c->nblocks, c->nslots);
	for (int k = 0; k < c->n; k++) {
		const struct gx_check_line *l = &c->l[k];

		fputs("    <testcase classname=\"", out);
		xml_put(out, suite);
		fputs("\" name=\"", out);
		xml_put(out, l->text);
		fputs("\"", out);
		if (l->pass) {
			fputs("/>\n", out);
			continue;
		}
		fputs(">\n      <failure message=\"", out);
		xml_put(out, l->verdict);
		xml_put(out, l->why);
		fputs("\" type=\"expectation\">", out);
		xml_put(out, l->text);
		xml_put(out, interval_text(c, l, iv, sizeof(iv)));
		xml_put(out, l->why);
		fputs("</failure>\n    </testcase>\n", out);
	}
	fputs("  </testsuite>\n</testsuites>\n", out);
	return ferror(out) ? -EIO : 0;
}
