// SPDX-License-Identifier: MIT
/*
 * report.c - a campaign's summary and plots from its results directory
 * alone (`gridexp report DIR`; `gridexp run` ends with the same call, so
 * the two give the same bytes).
 *
 * Inputs: meta.json (the campaign's algorithms, conditions, runs) and, per
 * complete run (runs/<id>/complete exists), run.json, broadcasts.csv,
 * ranks.csv and wan.csv.  Outputs, each written atomically: summary.json,
 * summary.txt and gnuplot PNGs:
 *   completion-<cond>-r<rep>.png  completion time against broadcast index,
 *       one line per algorithm, the broadcasts that met a load shaded
 *       (seed 000 Fig. 8);
 *   arrivals-<cond>-r<rep>.png    when each host returned from MPI_Bcast,
 *       after the root began: the median over the run's broadcasts when
 *       they have one size, else the first one's; hosts in topology order,
 *       clusters marked (seed 001 Fig. 5);
 *   sizes.png                     median completion time against message
 *       size, log-log, unloaded and loaded apart (seed 002 Fig. 4), when
 *       the campaign has several sizes.
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
/* Wide-area bytes per broadcast                                       */
/* ------------------------------------------------------------------ */

int gx_wan_compute(const char *rundir)
{
	struct gx_csv b, c;
	char path[PATH_MAX], *out = NULL;
	size_t olen = 0;
	FILE *f;
	int ret, cs, cc, cz, ct;

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
	ct = gx_csv_col(&c, "t_mono");
	if (!(f = open_memstream(&out, &olen))) {
		ret = -ENOMEM;
		goto cleanup;
	}
	fprintf(f, "index,size,wan_bytes,crossings,max_link_crossings\n");
	for (int i = 0; i < b.nrows; i++) {
		double s = gx_csv_num(&b, i, cs), e = s + gx_csv_num(&b, i, cc) + GX_CAPTURE_LAG;
		double size = gx_csv_num(&b, i, cz), total = 0, maxl = 0;
		int lo = -1, hi = -1;

		for (int r = 0; r < c.nrows; r++) {
			double t = gx_csv_num(&c, r, ct);

			if (t <= s)
				lo = r;
			if (t >= e && hi < 0)
				hi = r;
		}
		if (hi < 0)
			hi = c.nrows - 1;
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
	gx_csv_release(&b);
	gx_csv_release(&c);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Collecting the rows                                                 */
/* ------------------------------------------------------------------ */

struct run {
	char id[128];
	int algo, cond, rep;
	int complete, failed;
};

struct coll {
	const char *dir;
	json_t *meta;
	char name[64], stamp[64];
	const char *algos[GX_MAX_ALGOS];
	int nalgos;
	const char *conds[GX_MAX_CONDS];
	int nconds;
	struct run *runs;
	int nruns;
	char models[GX_MAX_MODELS][32];
	const char *mp[GX_MAX_MODELS];
	int nmodels;
	struct gx_row *rows;
	int nrows, crows;
};

static __attribute__((format(printf, 3, 4))) int rfail(char *err, size_t len, const char *fmt,
						       ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int load_meta(struct coll *C, char *err, size_t errlen)
{
	char path[PATH_MAX];
	json_error_t je;
	json_t *camp, *a, *runs;
	size_t i;
	int ret;

	snprintf(path, sizeof(path), "%s/meta.json", C->dir);
	C->meta = gb_json_load_file(path, &je, &ret);
	if (!C->meta) {
		if (ret == -ENOENT || ret == -ENOTDIR) {
			rfail(err, errlen, "'%s' is not a campaign's results directory (no "
			      "meta.json)", C->dir);
			return -ENOENT;
		}
		return rfail(err, errlen, "%s: %s", path, ret == -EINVAL ? je.text :
			     strerror(-ret));
	}
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
		return rfail(err, errlen, "%s: no algorithms or runs", path);
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
			return rfail(err, errlen, "%s: run '%s' names no algorithm or condition",
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

static int read_run(struct coll *C, struct run *r, char *err, size_t errlen)
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
		return rfail(err, errlen, "%s: %s", path, ret == -EINVAL ? je.text : strerror(-ret));
	r->failed = strcmp(json_string_value(json_object_get(rj, "status")) ?: "", "ok") != 0;
	json_decref(rj);
	snprintf(path, sizeof(path), "%s/runs/%s/broadcasts.csv", C->dir, r->id);
	ret = gx_csv_read(path, &b);
	if (ret == -ENOENT)
		return 0;      /* a run that failed before its first broadcast */
	if (ret < 0)
		return rfail(err, errlen, "%s: %s", path, strerror(-ret));
	memset(&w, 0, sizeof(w));
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
		return rfail(err, errlen, "%s/runs/%s/broadcasts.csv: columns index, size, "
			     "start_time, completion_time are required", C->dir, r->id);
	}
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
	return 0;
}

static void coll_release(struct coll *C)
{
	json_decref(C->meta);
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
		json_object_set_new(o, "crossings", jstat(&as->crossings));
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

/* ------------------------------------------------------------------ */
/* Plots                                                               */
/* ------------------------------------------------------------------ */

/* Run gnuplot in @dir on @script; rename every "@name.tmp" it made. */
static int gnuplot(const char *dir, const char *script, const char *const *names, int nnames)
{
	int fd[2], status = 0;
	pid_t pid;
	size_t len = strlen(script), off = 0;

	if (pipe2(fd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fd[0], 0);
		if (null >= 0)
			dup2(null, 1);
		if (chdir(dir) < 0)
			_exit(127);
		execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(fd[0]);
	while (off < len) {
		ssize_t w = write(fd[1], script + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	for (int i = 0; i < nnames; i++) {
		char a[PATH_MAX], b[PATH_MAX];

		snprintf(a, sizeof(a), "%s/%s.tmp", dir, names[i]);
		snprintf(b, sizeof(b), "%s/%s", dir, names[i]);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			if (rename(a, b) < 0)
				status = 1;
		} else {
			unlink(a);
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOENT;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/* gnuplot's string: single quotes, no quote inside (names are words). */
static void gp_head(FILE *f, const char *out, const char *title)
{
	fprintf(f, "set terminal png size 1000,600 font ',10'\nset output '%s.tmp'\n", out);
	fprintf(f, "set title \"%s\" noenhanced\nset key outside right noenhanced\nset grid\n",
		title);
}

static const struct gx_row *find_row(const struct coll *C, int a, int c, int r, int i)
{
	for (int k = 0; k < C->nrows; k++)
		if (C->rows[k].algo == a && C->rows[k].cond == c && C->rows[k].rep == r &&
		    C->rows[k].index == i)
			return &C->rows[k];
	return NULL;
}

static int plot_completion(const struct coll *C, int c, int rep, const struct gx_summary *s,
			   char *name, size_t nlen, char **script)
{
	size_t len;
	FILE *f = open_memstream(script, &len);
	int maxi = -1, ref = s->ref >= 0 ? s->ref : 0, have = 0, open_from = -1;

	if (!f)
		return -ENOMEM;
	snprintf(name, nlen, "completion-%s-r%d.png", C->conds[c], rep);
	for (int k = 0; k < C->nrows; k++)
		if (C->rows[k].cond == c && C->rows[k].rep == rep) {
			maxi = C->rows[k].index > maxi ? C->rows[k].index : maxi;
			have = 1;
		}
	if (!have) {
		fclose(f);
		free(*script);
		*script = NULL;
		return 0;
	}
	gp_head(f, name, "");
	fprintf(f, "set title \"%s: completion time per broadcast (condition %s, repetition %d);"
		" shaded: broadcasts of %s that met a load\" noenhanced\n", C->name, C->conds[c],
		rep, C->algos[ref]);
	fprintf(f, "set xlabel 'broadcast index'\nset ylabel 'completion time (s)'\n"
		"set xrange [-0.5:%d.5]\nset yrange [0:*]\n", maxi);
	/* shade the reference's loaded broadcasts, consecutive ones merged */
	for (int i = 0; i <= maxi + 1; i++) {
		const struct gx_row *r = i <= maxi ? find_row(C, ref, c, rep, i) : NULL;
		int l = r && r->loaded;

		if (l && open_from < 0)
			open_from = i;
		if (!l && open_from >= 0) {
			fprintf(f, "set object rect from %g, graph 0 to %g, graph 1 fc rgb "
				"'#dddddd' fs solid 1.0 noborder behind\n", open_from - 0.5, i - 0.5);
			open_from = -1;
		}
	}
	for (int a = 0; a < C->nalgos; a++) {
		fprintf(f, "$a%d << EOD\n", a);
		for (int i = 0; i <= maxi; i++) {
			const struct gx_row *r = find_row(C, a, c, rep, i);

			if (r)
				fprintf(f, "%d %.9g\n", i, r->completion);
		}
		fprintf(f, "EOD\n");
	}
	fprintf(f, "plot ");
	for (int a = 0; a < C->nalgos; a++)
		fprintf(f, "%s$a%d using 1:2 with linespoints title '%s'", a ? ", " : "", a,
			C->algos[a]);
	fprintf(f, "\n");
	return fclose(f) == EOF ? -ENOMEM : 1;
}

/* Median of @v[0 .. @n-1] (sorted here). */
static double median_of(double *v, int n)
{
	struct gx_stat st;

	gx_stat_of(v, n, &st);
	return st.median;
}

/*
 * Seed 001 Fig. 5: when each node returned from the broadcast, after the
 * root began, one point per host and algorithm.  Hosts are in the
 * topology's order (the copy in the results), so that every algorithm's
 * point for a host stands at the same x whatever the rank order, and the
 * clusters are marked.  The value is the median over the run's broadcasts
 * when they all have one size (the paper's repeated 1 KB broadcast), else
 * the first broadcast's (a campaign of decreasing sizes).
 */
static int plot_arrivals(const struct coll *C, int c, int rep, char *name, size_t nlen,
			 char **script)
{
	size_t len;
	FILE *f = open_memstream(script, &len);
	char path[PATH_MAX];
	struct gb_topo *t = NULL;
	struct gb_diag d;
	int have = 0, one_size = 1, nb = 0;
	double size0 = NAN;

	if (!f)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/topology.yaml", C->dir);
	if (gb_topo_load(path, &t, &d) < 0) {
		fclose(f);
		free(*script);
		*script = NULL;
		return 0;
	}
	for (int k = 0; k < C->nrows; k++)
		if (C->rows[k].cond == c && C->rows[k].rep == rep) {
			if (isnan(size0))
				size0 = C->rows[k].size;
			one_size &= C->rows[k].size == size0;
			nb = C->rows[k].index + 1 > nb ? C->rows[k].index + 1 : nb;
		}
	snprintf(name, nlen, "arrivals-%s-r%d.png", C->conds[c], rep);
	gp_head(f, name, "");
	fprintf(f, "set title \"%s (%s, r%d): when each node returned from MPI_Bcast\\n%s\" "
		"noenhanced\n", C->name, C->conds[c], rep, one_size && nb > 1 ?
		"median over the run's broadcasts" : "the first broadcast");
	fprintf(f, "set xlabel 'node (hosts in topology order, grouped by cluster)'\n"
		"set ylabel 'time after the root began (s)'\nset yrange [0:*]\n"
		"set xrange [0:%d]\n", t->nhosts + 1);
	for (int k = 0; k < t->nclusters; k++) {
		const struct gb_cluster *cl = &t->clusters[k];

		if (k)
			fprintf(f, "set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc "
				"'gray'\n", cl->first_host + 0.5, cl->first_host + 0.5);
		fprintf(f, "set label '%s' at %g, graph 0.97 center noenhanced\n", cl->name,
			cl->first_host + (cl->nhosts + 1) / 2.0);
	}
	for (int a = 0; a < C->nalgos; a++) {
		double **v = calloc((size_t)t->nhosts, sizeof(double *));
		int *nv = calloc((size_t)t->nhosts, sizeof(int));

		if (!v || !nv) {
			free(v);
			free(nv);
			fclose(f);
			gb_topo_free(t);
			return -ENOMEM;
		}
		fprintf(f, "$a%d << EOD\n", a);
		for (int k = 0; k < C->nruns; k++) {
			const struct run *r = &C->runs[k];
			struct gx_csv tb;
			int ci, ch, ce;

			if (!r->complete || r->algo != a || r->cond != c || r->rep != rep)
				continue;
			snprintf(path, sizeof(path), "%s/runs/%s/ranks.csv", C->dir, r->id);
			if (gx_csv_read(path, &tb) < 0)
				continue;
			ci = gx_csv_col(&tb, "index");
			ch = gx_csv_col(&tb, "host");
			ce = gx_csv_col(&tb, "end_after_root");
			for (int i = 0; ch >= 0 && i < tb.nrows; i++) {
				int h = gb_topo_find_node(t, tb.rows[i][ch]);
				double e = gx_csv_num(&tb, i, ce);

				if (h < 0 || h >= t->nhosts || !isfinite(e) ||
				    (!(one_size && nb > 1) && gx_csv_num(&tb, i, ci) != 0))
					continue;
				if (!(nv[h] & (nv[h] - 1))) {   /* 0, 1, 2, 4, ...: grow */
					double *g = realloc(v[h], sizeof(double) *
							    (size_t)(nv[h] ? 2 * nv[h] : 1));

					if (!g)
						continue;
					v[h] = g;
				}
				v[h][nv[h]++] = e;
			}
			gx_csv_release(&tb);
		}
		for (int h = 0; h < t->nhosts; h++) {
			if (nv[h]) {
				fprintf(f, "%d %.9g\n", h + 1, median_of(v[h], nv[h]));
				have = 1;
			}
			free(v[h]);
		}
		free(v);
		free(nv);
		fprintf(f, "EOD\n");
	}
	gb_topo_free(t);
	fprintf(f, "plot ");
	for (int a = 0; a < C->nalgos; a++)
		fprintf(f, "%s$a%d using 1:2 with points pt %d ps 1.2 title '%s'", a ? ", " : "",
			a, 5 + 2 * (a % 4), C->algos[a]);
	fprintf(f, "\n");
	if (fclose(f) == EOF)
		return -ENOMEM;
	if (!have) {
		free(*script);
		*script = NULL;
		return 0;
	}
	return 1;
}

static int plot_sizes(const struct coll *C, const struct gx_summary *s, char **script)
{
	size_t len;
	FILE *f;
	int nsizes = 0;

	for (int a = 0; a < s->nalgos; a++)
		for (int k = 0; k < s->a[a].nby_size; k++)
			nsizes = k + 1 > nsizes ? k + 1 : nsizes;
	if (nsizes < 2)
		return 0;
	if (!(f = open_memstream(script, &len)))
		return -ENOMEM;
	gp_head(f, "sizes.png", "");
	fprintf(f, "set title \"%s: median completion time against message size, broadcasts "
		"without and with load\" noenhanced\n", C->name);
	fprintf(f, "set logscale xy\nset format x '%%.0s%%cB'\nset xlabel 'message size'\n"
		"set ylabel 'completion time (s)'\n");
	for (int a = 0; a < s->nalgos; a++)
		for (int l = 0; l < 2; l++) {
			fprintf(f, "$a%d_%d << EOD\n", a, l);
			for (int k = 0; k < s->a[a].nby_size; k++)
				if (s->a[a].by_size[k].loaded == l && s->a[a].by_size[k].size > 0)
					fprintf(f, "%.0f %.9g\n", s->a[a].by_size[k].size,
						s->a[a].by_size[k].t.median);
			fprintf(f, "EOD\n");
		}
	fprintf(f, "plot ");
	for (int a = 0, first = 1; a < s->nalgos; a++)
		for (int l = 0; l < 2; l++) {
			int any = 0;

			for (int k = 0; k < s->a[a].nby_size; k++)
				any |= s->a[a].by_size[k].loaded == l;
			if (!any)
				continue;
			fprintf(f, "%s$a%d_%d using 1:2 with linespoints lc %d pt %d title '%s%s'",
				first ? "" : ", ", a, l, a + 1, l ? 6 : 7, s->a[a].name,
				l ? " (loaded)" : "");
			first = 0;
		}
	fprintf(f, "\n");
	return fclose(f) == EOF ? -ENOMEM : 1;
}

static int plots(const struct coll *C, const struct gx_summary *s)
{
	char *script = NULL, name[256];
	const char *names[1] = { name };
	int ret, bad = 0;

	for (int c = 0; c < C->nconds; c++)
		for (int rep = 1; rep <= 1000; rep++) {
			int any = 0;

			for (int k = 0; k < C->nruns; k++)
				any |= C->runs[k].cond == c && C->runs[k].rep == rep;
			if (!any)
				break;
			if ((ret = plot_completion(C, c, rep, s, name, sizeof(name), &script)) > 0)
				bad |= gnuplot(C->dir, script, names, 1) < 0;
			free(script);
			script = NULL;
			if ((ret = plot_arrivals(C, c, rep, name, sizeof(name), &script)) > 0)
				bad |= gnuplot(C->dir, script, names, 1) < 0;
			free(script);
			script = NULL;
		}
	snprintf(name, sizeof(name), "sizes.png");
	if ((ret = plot_sizes(C, s, &script)) > 0)
		bad |= gnuplot(C->dir, script, names, 1) < 0;
	free(script);
	return bad ? -EIO : 0;
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
		size_t k;

		/* the hosts' TCP stack (issue 18), read back from the grid */
		json_array_foreach(tcp, k, st) {
			size_t nh = json_array_size(json_object_get(st, "hosts"));

			fprintf(f, "tcp (session %zu): %s (", i + 1,
				json_string_value(json_object_get(st, "text")) ?: "?");
			if (json_array_size(tcp) == 1)
				fprintf(f, "every host)\n");
			else
				fprintf(f, "%zu host%s, first %s)\n", nh, nh == 1 ? "" : "s",
					json_string_value(json_array_get(json_object_get(st, "hosts"),
									  0)) ?: "?");
		}
		if (!p)
			continue;
		fprintf(f, "phoenixd (session %zu): converged after %.1f s, %lld rounds of %lld ms, "
			"%lld messages (%lld bytes), %lld parent changes (%lld by shortcut); "
			"wide-area optimal trees: %lld of %lld (gridexp's check), %lld "
			"(phoenixd's own)\n", i + 1,
			json_number_value(json_object_get(in, "time_s")),
			json_integer_value(json_object_get(in, "rounds")),
			json_integer_value(json_object_get(p, "round_ms")),
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

int gx_report(const char *dir, int do_plots, FILE *out, struct gx_summary *sout, char *err,
	      size_t errlen)
{
	struct coll C;
	struct gx_summary s;
	char path[PATH_MAX], title[512], *text = NULL, *js = NULL;
	size_t tlen = 0;
	json_t *j = NULL;
	FILE *f;
	int ret, complete = 0, failed = 0, incomplete = 0;

	memset(&C, 0, sizeof(C));
	memset(&s, 0, sizeof(s));
	C.dir = dir;
	if ((ret = load_meta(&C, err, errlen)) < 0)
		goto cleanup;
	for (int k = 0; k < C.nruns; k++)
		if ((ret = read_run(&C, &C.runs[k], err, errlen)) < 0)
			goto cleanup;
	ret = gx_summarize(C.rows, C.nrows, C.algos, C.nalgos, C.mp, C.nmodels, GX_REFERENCE, &s);
	if (ret < 0) {
		rfail(err, errlen, "cannot summarise: %s", strerror(-ret));
		goto cleanup;
	}
	for (int k = 0; k < C.nruns; k++) {
		struct run *r = &C.runs[k];

		complete += r->complete;
		incomplete += !r->complete;
		failed += r->complete && r->failed;
		s.a[r->algo].runs += r->complete;
		s.a[r->algo].failed_runs += r->complete && r->failed;
	}
	snprintf(title, sizeof(title), "campaign %s (results %s): %d of %d runs complete, %d "
		 "failed, %d broadcasts", C.name, C.stamp, complete, C.nruns, failed, C.nrows);
	if (!(f = open_memstream(&text, &tlen))) {
		ret = -ENOMEM;
		goto cleanup;
	}
	gx_summary_write_text(&s, title, f);
	write_setup_text(&C, f);
	if (fclose(f) == EOF) {
		ret = -ENOMEM;
		goto cleanup;
	}
	j = summary_json(&C, &s, complete, failed);
	js = j ? json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) :
		 NULL;
	if (!js) {
		ret = -ENOMEM;
		goto cleanup;
	}
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	if ((ret = gx_write_atomic(path, text, tlen)) < 0) {
		rfail(err, errlen, "cannot write '%s': %s", path, strerror(-ret));
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
		rfail(err, errlen, "cannot write '%s': %s", path, strerror(-ret));
		goto cleanup;
	}
	if (out)
		fwrite(text, 1, tlen, out);
	if (do_plots && (ret = plots(&C, &s)) < 0) {
		rfail(err, errlen, "gnuplot failed to draw the plots in '%s' (is gnuplot-nox "
		      "installed?)", dir);
		goto cleanup;
	}
	ret = 0;
	if (sout) {
		*sout = s;
		memset(&s, 0, sizeof(s));
	}
cleanup:
	(void)incomplete;
	gx_summary_release(&s);
	json_decref(j);
	free(js);
	free(text);
	coll_release(&C);
	return ret;
}
