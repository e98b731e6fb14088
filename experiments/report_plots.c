// SPDX-License-Identifier: MIT
/*
 * report_plots.c - the report's plots (report.c's header lists them): a
 * gnuplot script per figure from the collected rows, run by gnuplot in the
 * results directory.
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
#include "report_priv.h"

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

/*
 * Close the script @f being written into *@script: 1 when it has something
 * to draw (@have), else 0 with *@script freed; -ENOMEM if it cannot close.
 */
static int gp_finish(FILE *f, char **script, int have)
{
	if (fclose(f) == EOF)
		return -ENOMEM;
	if (!have) {
		free(*script);
		*script = NULL;
		return 0;
	}
	return 1;
}

static const struct gx_row *find_row(const struct coll *C, int a, int c, int r, int i)
{
	for (int k = 0; k < C->nrows; k++)
		if (C->rows[k].algo == a && C->rows[k].cond == c && C->rows[k].rep == r &&
		    C->rows[k].index == i)
			return &C->rows[k];
	return NULL;
}

/*
 * The plot command over the algorithms whose bit is set in @plotted (a
 * campaign run with --only has algorithms without points: gnuplot would
 * warn about each empty block); their colours stay those of their index,
 * and with @points so do their point types.
 */
static void plot_line(FILE *f, const struct coll *C, unsigned plotted, const char *style,
		      int points)
{
	int first = 1;

	fprintf(f, "plot ");
	for (int a = 0; a < C->nalgos; a++) {
		if (!(plotted & (1u << a)))
			continue;
		fprintf(f, "%s$a%d using 1:2 %s", first ? "" : ", ", a, style);
		if (points)
			fprintf(f, " pt %d", 5 + 2 * (a % 4));
		fprintf(f, " lc %d title '%s'", a + 1, C->algos[a]);
		first = 0;
	}
	fprintf(f, "\n");
}

static int plot_completion(const struct coll *C, int c, int rep, const struct gx_summary *s,
			   char *name, size_t nlen, char **script)
{
	size_t len;
	FILE *f = open_memstream(script, &len);
	int maxi = -1, ref = s->ref >= 0 ? s->ref : 0, have = 0, open_from = -1;
	unsigned plotted = 0;

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

			if (r) {
				fprintf(f, "%d %.9g\n", i, r->completion);
				plotted |= 1u << a;
			}
		}
		fprintf(f, "EOD\n");
	}
	plot_line(f, C, plotted, "with linespoints", 0);
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
	unsigned plotted = 0;
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
				plotted |= 1u << a;
			}
			free(v[h]);
		}
		free(v);
		free(nv);
		fprintf(f, "EOD\n");
	}
	gb_topo_free(t);
	plot_line(f, C, plotted, "with points ps 1.2", 1);
	return gp_finish(f, script, have);
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

/* The condition's processor count (`procs`, meta.json's echo), 0: all hosts. */
static int cond_procs(const struct coll *C, int c)
{
	json_t *cj = json_array_get(json_object_get(json_object_get(C->meta, "campaign"),
						    "conditions"), (size_t)c);

	return (int)json_integer_value(json_object_get(cj, "procs"));
}

/*
 * Seed 003 slide 19: median completion time against the number of
 * processors, one line per algorithm and message size, from the conditions
 * that set `procs` (a campaign with fewer than two has no such plot).
 * Broadcasts under load are left out: the slides' runs had none.
 */
static int plot_procs(const struct coll *C, char **script)
{
	double sizes[GX_MAX_SIZES], *v;
	int procs[GX_MAX_CONDS], nsizes = 0, nprocs = 0, have = 0;
	size_t len;
	FILE *f;

	for (int c = 0; c < C->nconds && c < GX_MAX_CONDS; c++)
		nprocs += (procs[c] = cond_procs(C, c)) > 0;
	if (nprocs < 2)
		return 0;
	for (int k = 0; k < C->nrows; k++) {
		int i = 0;

		while (i < nsizes && sizes[i] != C->rows[k].size)
			i++;
		if (i == nsizes && nsizes < GX_MAX_SIZES)
			sizes[nsizes++] = C->rows[k].size;
	}
	if (!(v = malloc(sizeof(double) * (size_t)(C->nrows ? C->nrows : 1))))
		return -ENOMEM;
	if (!(f = open_memstream(script, &len))) {
		free(v);
		return -ENOMEM;
	}
	gp_head(f, "procs.png", "");
	fprintf(f, "set title \"%s: median completion time against the number of processors, "
		"unloaded broadcasts\" noenhanced\n", C->name);
	fprintf(f, "set logscale y\nset xlabel 'processors'\nset ylabel 'completion time (s)'\n"
		"set xtics 1\n");
	for (int a = 0; a < C->nalgos; a++)
		for (int i = 0; i < nsizes; i++) {
			fprintf(f, "$a%d_%d << EOD\n", a, i);
			for (int c = 0; c < C->nconds && c < GX_MAX_CONDS; c++) {
				int n = 0;

				for (int k = 0; k < C->nrows && procs[c] > 0; k++)
					if (C->rows[k].algo == a && C->rows[k].cond == c &&
					    C->rows[k].size == sizes[i] && !C->rows[k].loaded)
						v[n++] = C->rows[k].completion;
				if (n) {
					fprintf(f, "%d %.9g\n", procs[c], median_of(v, n));
					have = 1;
				}
			}
			fprintf(f, "EOD\n");
		}
	fprintf(f, "plot ");
	for (int a = 0, first = 1; a < C->nalgos; a++)
		for (int i = 0; i < nsizes; i++) {
			fprintf(f, "%s$a%d_%d using 1:2 with linespoints lc %d pt %d dt %d "
				"title '%s, %.0f B'", first ? "" : ", ", a, i, a + 1, 5 + 2 * (i % 4),
				1 + i % 5, C->algos[a], sizes[i]);
			first = 0;
		}
	fprintf(f, "\n");
	free(v);
	return gp_finish(f, script, have);
}

int gx_report_plots(const struct coll *C, const struct gx_summary *s)
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
	script = NULL;
	snprintf(name, sizeof(name), "procs.png");
	if ((ret = plot_procs(C, &script)) > 0)
		bad |= gnuplot(C->dir, script, names, 1) < 0;
	free(script);
	return bad ? -EIO : 0;
}
