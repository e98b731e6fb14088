/* SPDX-License-Identifier: MIT */
/*
 * bench_advisor - benchmark, not a test: how well the broadcast advisor
 * (gbadvisor.h, gridadvisor) serves seed 000 s3's synthetic application.
 *
 *	bench_advisor predict [--calls N] [--windows 0,2,4,8,16] [--out F.csv]
 *	    one-step-ahead prediction error of the next size and of the gap
 *	    before the next call, per regression window
 *	bench_advisor replay --dir DIR --applog FILE [--calls N] [--scale F]
 *	                     [--maxage S] [--nranks N] [--out F.csv]
 *	    play the application's calls in real time (gaps x F): at each call
 *	    append its log line, as MPI_Bcast does, then look up the tree the
 *	    adaptive broadcast would use (gb_advtree_pick(), the same code) and
 *	    record the size it was planned for.  A gridadvisor must be running
 *	    on DIR and FILE (collectives/advisor/bench/advisor.sh starts one).  No MPI:
 *	    the broadcasts themselves are not run.
 *	bench_advisor matrix --topo FILE --out F.json
 *	    the topology's configured model as a matrix file labelled oracle,
 *	    to drive gridadvisor without a live grid
 *
 * Prints a table; --out writes CSV (atomically).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gbio.h"
#include "gbadvisor.h"
#include "gbtopo.h"
#include "gbutil.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_advisor predict [--calls N] [--windows LIST] [--out F.csv]\n"
		"       bench_advisor replay --dir DIR --applog FILE [--calls N] [--scale F]\n"
		"                            [--maxage S] [--nranks N] [--out F.csv]\n"
		"       bench_advisor matrix --topo FILE --out F.json\n");
}

/* CSV written to F.tmp, renamed at the end */
static FILE *csv_open(const char *out, char *tmp, size_t len)
{
	FILE *f;

	if (!out)
		return NULL;
	snprintf(tmp, len, "%s.tmp", out);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "bench_advisor: --out: cannot write '%s': %s\n", tmp, strerror(errno));
		exit(2);
	}
	return f;
}

static int csv_close(FILE *f, const char *tmp, const char *out)
{
	if (!f)
		return 0;
	if (fclose(f) != 0 || rename(tmp, out) < 0) {
		fprintf(stderr, "bench_advisor: cannot write '%s': %s\n", out, strerror(errno));
		return 1;
	}
	return 0;
}

static int cmd_predict(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "calls", required_argument, NULL, 'n' },
		{ "windows", required_argument, NULL, 'w' },
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int n = 60, win[32], nw = 0, c;
	const char *out = NULL;
	char wl[256] = "0,2,3,4,8,16", tmp[1024];

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'w': snprintf(wl, sizeof(wl), "%s", optarg); break;
		case 'o': out = optarg; break;
		default: usage(stderr); return 2;
		}
	}
	if (n < 4 || n > 100000) {
		fprintf(stderr, "bench_advisor: --calls: %d is not 4..100000\n", n);
		return 2;
	}
	for (char *t = strtok(wl, ","); t && nw < 32; t = strtok(NULL, ","))
		win[nw++] = atoi(t);
	struct gb_applog_entry *h = malloc(sizeof(*h) * (size_t)n);
	double *es = malloc(sizeof(double) * (size_t)n), *eg = malloc(sizeof(double) * (size_t)n);
	if (!h || !es || !eg)
		return 1;
	gb_adv_synthetic(n, 0, 1, 64, h);
	FILE *f = csv_open(out, tmp, sizeof(tmp));
	if (f)
		fprintf(f, "window,call,size,pred_size,size_err,gap,pred_gap,gap_err\n");
	printf("prediction on the synthetic application (%d calls, 1 MiB linearly down, gaps "
	       "90 s x 0.93^k):\n", n);
	printf("one step ahead from calls 0..k-1 to call k, k >= 2 (size) and k >= 3 (gap: two "
	       "gaps seen)\n");
	printf("%8s %14s %14s %14s %14s %14s\n", "window", "size_err_mean", "size_err_max",
	       "gap_err_mean", "gap_err_median", "gap_err_max");
	for (int w = 0; w < nw; w++) {
		int ns = 0, ng = 0;
		double ms = 0, xs = 0, mg = 0, xg = 0;

		for (int k = 2; k < n; k++) {
			struct gb_adv_pred p;
			double gap = h[k].t - h[k - 1].t;

			gb_adv_predict(h, k, win[w], &p);
			es[ns] = fabs(p.size - h[k].size) / h[k].size;
			ms += es[ns];
			xs = fmax(xs, es[ns]);
			ns++;
			if (k >= 3) {
				eg[ng] = fabs(p.gap - gap) / gap;
				mg += eg[ng];
				xg = fmax(xg, eg[ng]);
				ng++;
			}
			if (f)
				fprintf(f, "%d,%d,%.0f,%.0f,%.6g,%.6f,%.6f,%.6g\n", win[w], k, h[k].size,
					p.size, fabs(p.size - h[k].size) / h[k].size, gap, p.gap,
					fabs(p.gap - gap) / gap);
		}
		printf("%8d %13.4f%% %13.4f%% %13.2f%% %13.2f%% %13.2f%%\n", win[w], 100 * ms / ns,
		       100 * xs, 100 * mg / ng, 100 * gb_median(eg, (size_t)ng), 100 * xg);
	}
	printf("window 0 = the whole history\n");
	free(h);
	free(es);
	free(eg);
	return csv_close(f, tmp, out);
}

static void sleep_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - floor(t)) * 1e9) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int cmd_replay(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "applog", required_argument, NULL, 'a' },
		{ "calls", required_argument, NULL, 'n' },
		{ "scale", required_argument, NULL, 's' },
		{ "maxage", required_argument, NULL, 'm' },
		{ "nranks", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *log = NULL, *out = NULL;
	double scale = 0.01, maxage = 600;
	int n = 60, nranks = 64, c, fd, exact = 0, near10 = 0, fb = 0, mode2 = 0;
	char tmp[1024];
	struct gb_err why;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'a': log = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 's': scale = atof(optarg); break;
		case 'm': maxage = atof(optarg); break;
		case 'r': nranks = atoi(optarg); break;
		case 'o': out = optarg; break;
		default: usage(stderr); return 2;
		}
	}
	if (!dir || !log || n < 1 || n > 100000 || !(scale > 0) || nranks < 1) {
		usage(stderr);
		return 2;
	}
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "bench_advisor: --applog: cannot write '%s': %s\n", log,
			strerror(errno));
		return 2;
	}
	struct gb_applog_entry *h = malloc(sizeof(*h) * (size_t)n);
	if (!h)
		return 1;
	gb_adv_synthetic(n, gb_now() + 0.2, scale, nranks, h);
	FILE *f = csv_open(out, tmp, sizeof(tmp));
	if (f)
		fprintf(f, "call,t,size,gap_before,tree_size,tree_mode,tree_age,tree_budget,exact,"
			"within10,fallback,why\n");
	for (int k = 0; k < n; k++) {
		struct gb_advtree a;
		char line[128];
		double now;
		int len, got;

		sleep_until(h[k].t);
		now = gb_now();
		len = snprintf(line, sizeof(line), "%.9f %.0f 0 %d adaptive\n", now, h[k].size,
			       nranks);
		if (write(fd, line, (size_t)len) != len) {
			fprintf(stderr, "bench_advisor: cannot append to '%s'\n", log);
			return 1;
		}
		why.msg[0] = 0;
		got = gb_advtree_pick(dir, h[k].size, maxage, gb_now(), &a, &why) == 0;
		int ex = got && fabs(a.meta.size - h[k].size) <= 1; /* sizes are rounded */
		int nr = got && fabs(a.meta.size - h[k].size) <= 0.1 * h[k].size;

		exact += ex;
		near10 += nr;
		fb += !got;
		mode2 += got && a.meta.mode == 2;
		if (f) {
			fprintf(f, "%d,%.6f,%.0f,%.6f,", k, now, h[k].size,
				k ? h[k].t - h[k - 1].t : NAN);
			if (got)
				fprintf(f, "%.0f,%d,%.6f,%.6f,%d,%d,0,\n", a.meta.size, a.meta.mode,
					gb_now() - a.meta.planned_mono, a.meta.budget_s, ex, nr);
			else
				fprintf(f, ",,,,0,0,1,\"%s\"\n", why.msg);
		}
		if (got)
			gb_advtree_release(&a);
	}
	close(fd);
	printf("replay: %d calls, gaps x %g (%.1f s in all): served by a tree planned for the "
	       "exact size %d (%.1f %%), within 10 %% %d (%.1f %%), a mode-2 tree %d, no fresh "
	       "tree %d\n", n, scale, h[n - 1].t - h[0].t, exact, 100.0 * exact / n, near10,
	       100.0 * near10 / n, mode2, fb);
	free(h);
	return csv_close(f, tmp, out);
}

static int cmd_matrix(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *topo = NULL, *out = NULL;
	struct gb_topo *t = NULL;
	struct gb_netmodel m;
	struct gb_diag d;
	json_error_t je;
	json_t *j;
	int c, ret;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 't': topo = optarg; break;
		case 'o': out = optarg; break;
		default: usage(stderr); return 2;
		}
	}
	if (!topo || !out) {
		usage(stderr);
		return 2;
	}
	memset(&d, 0, sizeof(d));
	memset(&m, 0, sizeof(m));
	ret = gb_topo_load(topo, &t, &d);
	if (ret < 0) {
		fprintf(stderr, "bench_advisor: %s:%d:%d: %s\n", topo, d.line, d.col,
			ret == -EINVAL ? d.msg : strerror(-ret));
		return 2;
	}
	if (gb_nm_from_topo(&m, t, 10e-6) < 0 || gb_nm_save_json(&m, out) < 0) {
		fprintf(stderr, "bench_advisor: cannot write '%s'\n", out);
		return 1;
	}
	/* label it: the configured values, never a measurement (decision 6) */
	j = gb_json_load_file(out, &je, &ret);
	if (!j)
		return 1;
	json_object_set_new(j, "oracle", json_true());
	json_object_set_new(j, "generator", json_string("bench_advisor matrix (the topology's "
							"configured model: ORACLE)"));
	ret = gb_json_save_atomic(j, out);
	json_decref(j);
	gb_nm_release(&m);
	gb_topo_free(t);
	return ret < 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "predict"))
		return cmd_predict(argc - 1, argv + 1);
	if (!strcmp(argv[1], "replay"))
		return cmd_replay(argc - 1, argv + 1);
	if (!strcmp(argv[1], "matrix"))
		return cmd_matrix(argc - 1, argv + 1);
	fprintf(stderr, "bench_advisor: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
