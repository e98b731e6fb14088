// SPDX-License-Identifier: MIT
/*
 * results.c - a run's result files (results.h): reading its CSVs, and
 * wan.csv, the wide-area bytes per broadcast, computed from them.
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

/* ------------------------------------------------------------------ */
/* CSV                                                                 */
/* ------------------------------------------------------------------ */

/* One record from *@p (advanced); fields are new strings. */
static int csv_record(const char **p, char ***out, int *n)
{
	const char *s = *p;
	char **f = NULL, *field;
	int nf = 0, cap = 0;

	*out = NULL;
	*n = 0;
	if (!*s)
		return 0;
	for (;;) {
		size_t len = 0, fcap = 16;

		field = malloc(fcap);
		if (!field)
			goto nomem;
		if (*s == '"') {
			for (s++; *s; s++) {
				if (*s == '"' && s[1] == '"')
					s++;
				else if (*s == '"') {
					s++;
					break;
				}
				if (len + 2 > fcap && !(field = realloc(field, fcap *= 2)))
					goto nomem;
				field[len++] = *s;
			}
		}
		while (*s && *s != ',' && *s != '\n' && *s != '\r') {
			if (len + 2 > fcap && !(field = realloc(field, fcap *= 2)))
				goto nomem;
			field[len++] = *s++;
		}
		field[len] = '\0';
		if (nf == cap) {
			char **nfp = realloc(f, sizeof(char *) * (size_t)(cap = cap ? 2 * cap : 16));

			if (!nfp)
				goto nomem;
			f = nfp;
		}
		f[nf++] = field;
		field = NULL;
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '\r')
			s++;
		if (*s == '\n')
			s++;
		break;
	}
	*p = s;
	*out = f;
	*n = nf;
	return 1;
nomem:
	free(field);
	for (int i = 0; i < nf; i++)
		free(f[i]);
	free(f);
	return -ENOMEM;
}

void gx_csv_release(struct gx_csv *t)
{
	for (int i = 0; t->head && i < t->ncols; i++)
		free(t->head[i]);
	free(t->head);
	for (int r = 0; t->rows && r < t->nrows; r++) {
		for (int i = 0; i < t->ncols; i++)
			free(t->rows[r][i]);
		free(t->rows[r]);
	}
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

int gx_csv_read(const char *path, struct gx_csv *t)
{
	char *buf = NULL, **f;
	const char *p;
	size_t len;
	int n, cap = 0, ret;

	memset(t, 0, sizeof(*t));
	ret = gb_read_file(path, (size_t)1 << 30, &buf, &len);
	if (ret < 0)
		return ret;
	p = buf;
	ret = csv_record(&p, &t->head, &t->ncols);
	if (ret <= 0) {
		free(buf);
		return ret < 0 ? ret : -EINVAL;
	}
	while ((ret = csv_record(&p, &f, &n)) > 0) {
		char **row;

		if (n == 1 && !f[0][0]) {       /* a blank line */
			free(f[0]);
			free(f);
			continue;
		}
		row = calloc((size_t)t->ncols, sizeof(char *));
		if (!row) {
			ret = -ENOMEM;
			break;
		}
		for (int i = 0; i < t->ncols; i++)
			row[i] = i < n ? f[i] : strdup("");
		for (int i = t->ncols; i < n; i++)
			free(f[i]);
		free(f);
		if (t->nrows == cap) {
			char ***nr = realloc(t->rows, sizeof(char **) *
					     (size_t)(cap = cap ? 2 * cap : 64));

			if (!nr) {
				ret = -ENOMEM;
				for (int i = 0; i < t->ncols; i++)
					free(row[i]);
				free(row);
				break;
			}
			t->rows = nr;
		}
		t->rows[t->nrows++] = row;
	}
	free(buf);
	if (ret < 0) {
		gx_csv_release(t);
		return ret;
	}
	return 0;
}

int gx_csv_col(const struct gx_csv *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->head[i], name))
			return i;
	return -1;
}

const char *gx_csv_str(const struct gx_csv *t, int row, int col)
{
	if (row < 0 || row >= t->nrows || col < 0 || col >= t->ncols || !t->rows[row][col])
		return "";
	return t->rows[row][col];
}

double gx_csv_num(const struct gx_csv *t, int row, int col)
{
	const char *s = gx_csv_str(t, row, col);
	char *end;
	double v;

	if (!*s)
		return NAN;
	v = strtod(s, &end);
	return *end ? NAN : v;
}

/* ------------------------------------------------------------------ */
/* Samples around a broadcast                                          */
/* ------------------------------------------------------------------ */

void gx_bracket(const double *t, size_t stride, int n, double s, double u, int *a, int *z)
{
	*a = *z = -1;
	for (int k = 0; k < n; k++) {
		double v = *(const double *)((const char *)t + (size_t)k * stride);

		if (v <= s)
			*a = k;
		if (v >= u) {
			*z = k;
			break;
		}
	}
}

double gx_wall_end(double s, double c, double k)
{
	/* completion_time is the topology's: k times longer on the wall clock */
	return s + c * (k >= 1 ? k : 1);
}

/* ------------------------------------------------------------------ */
/* Wide-area bytes per broadcast                                       */
/* ------------------------------------------------------------------ */

int gx_wan_compute(const char *rundir)
{
	struct gx_csv b, c;
	char path[PATH_MAX], *out = NULL;
	size_t olen = 0;
	double *ts = NULL;
	FILE *f;
	int ret, cs, cc, cz, ct, cd;

	snprintf(path, sizeof(path), "%s/broadcasts.csv", rundir);
	if ((ret = gx_csv_read(path, &b)) < 0)
		return ret;
	snprintf(path, sizeof(path), "%s/capture.csv", rundir);
	if ((ret = gx_csv_read(path, &c)) < 0) {
		gx_csv_release(&b);
		return ret;
	}
	cs = gx_csv_col(&b, "start_time");
	cc = gx_csv_col(&b, "completion_time");
	cz = gx_csv_col(&b, "size");
	cd = gx_csv_col(&b, "dilate");
	ct = gx_csv_col(&c, "t_mono");
	ts = malloc(sizeof(*ts) * ((size_t)c.nrows + 1));
	if (!ts || !(f = open_memstream(&out, &olen))) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (int r = 0; r < c.nrows; r++)
		ts[r] = gx_csv_num(&c, r, ct);
	fprintf(f, "index,size,wan_bytes,crossings,max_link_crossings\n");
	for (int i = 0; i < b.nrows; i++) {
		/* start_time is the wall clock's, completion_time the topology's */
		double s = gx_csv_num(&b, i, cs);
		double e = gx_wall_end(s, gx_csv_num(&b, i, cc),
				       cd >= 0 ? gx_csv_num(&b, i, cd) : 1) + GX_CAPTURE_LAG;
		double size = gx_csv_num(&b, i, cz), total = 0, maxl = 0;
		int lo, hi;

		gx_bracket(ts, sizeof(*ts), c.nrows, s, e, &lo, &hi);
		if (hi < 0)
			hi = c.nrows - 1;
		/* rows come when a counter changes (and, since session 43, every
		 * heartbeat): a first row long after the end is later traffic, such
		 * as the application's gather at mid-gap; the counters stood still
		 * from the row before it, which is at or before the end */
		else if (hi > lo && ts[hi] > e + GX_CAPTURE_QUIET)
			hi--;
		if (lo < 0 || hi < lo || !isfinite(s) || !isfinite(e)) {
			fprintf(f, "%d,%.0f,,,\n", i, size);
			continue;
		}
		for (int k = 0; k < c.ncols; k++) {
			double d;

			if (k == ct || !strcmp(c.head[k], "wan_ip_bytes"))
				continue;
			d = gx_csv_num(&c, hi, k) - gx_csv_num(&c, lo, k);
			total += d;
			if (size > 0 && d / size > maxl)
				maxl = d / size;
		}
		fprintf(f, "%d,%.0f,%.0f,%.6f,%.6f\n", i, size, total, size > 0 ? total / size : NAN,
			maxl);
	}
	if (fclose(f) == EOF) {
		ret = -ENOMEM;
		goto cleanup;
	}
	snprintf(path, sizeof(path), "%s/wan.csv", rundir);
	ret = gx_write_atomic(path, out, olen);
cleanup:
	free(out);
	free(ts);
	gx_csv_release(&b);
	gx_csv_release(&c);
	return ret;
}
