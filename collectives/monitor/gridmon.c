/* SPDX-License-Identifier: MIT */
/*
 * gridmon - the communication benchmark of Gupta & Vadhiyar (seed 000 s2.5):
 * keeps the latency and bandwidth matrices of the live grid fresh.
 *
 *	gridmon [--out FILE] [--period 300s] [--scale F] [--once | --rounds N]
 *	        [--bytes-per-probe 2M] [--max-bytes-per-period B] [--rtt-count N]
 *	        [--port N] [--timeout S] [-v]
 *	gridmon --print-configured [--out FILE]      (oracle, an ablation)
 *
 * Every period (300 s in the paper, times --scale), one round:
 *
 *	rep(c) = the first host of cluster c; sec(c) = its second host
 *	for each cluster A:
 *	    for each cluster B != A:  pair(rep(A) -> rep(B))   off-diagonal A,B
 *	    if A has 2+ hosts:        pair(rep(A) -> sec(A))   diagonal A,A
 *	pair = median RTT/2 of small UDP echoes (latency),
 *	       goodput of a fixed-size TCP transfer after warm-up (bandwidth),
 *	       median send() time of a probe on rep(A) (o of every host of A)
 *	expand: node i of A -> node j of B gets (A,B); i, j both in A get (A,A)
 *	write the matrix file (docs/formats.md) with version+1, atomically
 *
 * Choices where the paper is silent:
 *   - pairs are measured one at a time, so probes never compete with each
 *     other, only with the grid's own traffic;
 *   - a 1-host cluster has no intra-cluster pair: its diagonal is marked not
 *     measured (it has no node pair that would use it);
 *   - a pair that fails keeps its previous value and is reported as stale;
 *     a first round with a failed pair writes nothing;
 *   - the probe budget: --max-bytes-per-period caps the round's bytes by
 *     shrinking the TCP transfer of every pair alike (never below 64 KiB).
 *
 * It never reads the emulator's link configuration: only the host list,
 * cluster membership and data addresses of the live grid (decision 6).
 * --print-configured is the labelled exception: an oracle for the accuracy
 * benchmark.
 */
#include "gbplan.h"
#include "gbemu.h"
#include "gridmon.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIN_TCP_BYTES 65536ULL

struct mon {
	struct gb_grid g;
	int nc;               /* clusters */
	double *clat, *cbw;   /* nc x nc, cluster level; NAN = not measured */
	double *co;           /* nc: o of each cluster's representative */
	int *stale;           /* nc x nc: the last attempt failed */
	uint64_t version;
	uint64_t bytes_round;
	double round_s;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gridmon [--out FILE] [--period 300s] [--scale F] [--once | --rounds N]\n"
		"               [--bytes-per-probe SIZE] [--max-bytes-per-period SIZE]\n"
		"               [--rtt-count N] [--port N] [--timeout S] [-v]\n"
		"       gridmon --print-configured [--out FILE]   (oracle: the emulator's config)\n");
}

/* Cluster-level values into the per-node matrix file (docs/formats.md). */
static json_t *matrix_json(struct mon *M, const double *clat, const double *cbw,
			   const double *co, int oracle)
{
	const struct gb_topo *t = M->g.topo;
	int n = t->nhosts, nc = M->nc;
	json_t *root = json_object(), *nodes = json_array(), *o = json_array();
	json_t *lat = json_array(), *bw = json_array();
	char ts[64];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (int i = 0; i < n; i++) {
		const struct gb_node *nd = &t->nodes[i];
		const struct gb_cluster *c = &t->clusters[nd->cluster];
		json_array_append_new(nodes, json_pack("{s:s,s:s,s:s}", "name", nd->name,
						       "cluster", c->name, "site",
						       t->sites[c->site].name));
		json_array_append_new(o, json_real(isnan(co[nd->cluster]) ? 0 : co[nd->cluster]));
		json_t *lr = json_array(), *br = json_array();
		for (int j = 0; j < n; j++) {
			double l = clat[nd->cluster * nc + t->nodes[j].cluster];
			double b = cbw[nd->cluster * nc + t->nodes[j].cluster];
			if (i == j || isnan(l) || isnan(b)) {
				/* the diagonal, or an unmeasured 1-host cluster's */
				json_array_append_new(lr, json_null());
				json_array_append_new(br, json_null());
				continue;
			}
			json_array_append_new(lr, json_real(l));
			json_array_append_new(br, json_real(b));
		}
		json_array_append_new(lat, lr);
		json_array_append_new(bw, br);
	}
	json_object_set_new(root, "format", json_string("gridbed-matrix"));
	json_object_set_new(root, "version", json_integer((json_int_t)M->version));
	json_object_set_new(root, "timestamp", json_string(ts));
	json_object_set_new(root, "generator", json_string(oracle ?
				"gridmon --print-configured (ORACLE: the emulator's configuration)" :
				"gridmon"));
	if (oracle)
		json_object_set_new(root, "oracle", json_true());
	json_object_set_new(root, "units", json_pack("{s:s,s:s}", "time", "s", "bandwidth", "B/s"));
	json_object_set_new(root, "nodes", nodes);
	json_object_set_new(root, "o", o);
	json_object_set_new(root, "lat", lat);
	json_object_set_new(root, "bw", bw);

	/* The cluster-level view, as measured, with what was not measured. */
	json_t *cl = json_object(), *names = json_array(), *reps = json_array();
	json_t *jl = json_array(), *jb = json_array(), *js = json_array();
	for (int a = 0; a < nc; a++) {
		json_array_append_new(names, json_string(t->clusters[a].name));
		json_array_append_new(reps,
				      json_string(t->nodes[t->clusters[a].first_host].name));
		json_t *lr = json_array(), *br = json_array(), *sr = json_array();
		for (int b = 0; b < nc; b++) {
			double l = clat[a * nc + b], w = cbw[a * nc + b];
			json_array_append_new(lr, isnan(l) ? json_null() : json_real(l));
			json_array_append_new(br, isnan(w) ? json_null() : json_real(w));
			json_array_append_new(sr, json_boolean(M->stale && M->stale[a * nc + b]));
		}
		json_array_append_new(jl, lr);
		json_array_append_new(jb, br);
		json_array_append_new(js, sr);
	}
	json_object_set_new(cl, "clusters", names);
	json_object_set_new(cl, "representatives", reps);
	json_object_set_new(cl, "lat", jl);
	json_object_set_new(cl, "bw", jb);
	if (!oracle) {
		json_object_set_new(cl, "stale", js);
		json_object_set_new(cl, "bytes_sent", json_integer((json_int_t)M->bytes_round));
		json_object_set_new(cl, "round_seconds", json_real(M->round_s));
	} else {
		json_decref(js);
	}
	json_object_set_new(root, "clusters", cl);
	return root;
}

/* Write atomically: a temporary file next to @path, then rename. */
static int write_json(json_t *j, const char *path)
{
	char tmp[4096];
	if (!path || !strcmp(path, "-")) {
		int r = json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
		fputc('\n', stdout);
		fflush(stdout);
		return r < 0 ? -EIO : 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	if (json_dump_file(j, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(6)) < 0) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path) < 0) {
		int err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}

/* --print-configured: the oracle, from the live grid's link parameters. */
static int print_configured(struct mon *M, const char *out)
{
	const struct gb_topo *t = M->g.topo;
	int nc = M->nc, ret;
	double *lat = calloc((size_t)(nc * nc), sizeof(double));
	double *bw = calloc((size_t)(nc * nc), sizeof(double));
	double *o = calloc((size_t)nc, sizeof(double));

	if (!lat || !bw || !o) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (int a = 0; a < nc; a++) {
		for (int b = 0; b < nc; b++) {
			int s = t->clusters[a].first_host, d = t->clusters[b].first_host;
			uint64_t dns = 0, rate = 0;
			if (a == b) {
				if (t->clusters[a].nhosts < 2) {
					lat[a * nc + b] = bw[a * nc + b] = NAN;
					continue;
				}
				d = s + 1;
			}
			if (gb_topo_path_metrics(t, s, d, &dns, &rate) < 0) {
				lat[a * nc + b] = bw[a * nc + b] = NAN;
				continue;
			}
			lat[a * nc + b] = (double)dns / 1e9;
			bw[a * nc + b] = (double)rate / 8.0;
		}
	}
	json_t *j = matrix_json(M, lat, bw, o, 1);
	ret = write_json(j, out);
	json_decref(j);
cleanup:
	free(lat);
	free(bw);
	free(o);
	return ret;
}

static const char *node_name(struct mon *M, int i)
{
	return M->g.topo->nodes[i].name;
}

/* One round over every cluster pair; returns the number of failed pairs. */
static int round_once(struct mon *M, const struct gb_mon_opts *po, int verbose)
{
	const struct gb_topo *t = M->g.topo;
	int nc = M->nc, failed = 0;
	double t0 = gb_now();

	M->bytes_round = 0;
	for (int a = 0; a < nc && !stop; a++) {
		int s = t->clusters[a].first_host;
		double o_round = NAN;
		for (int b = 0; b < nc && !stop; b++) {
			int d = t->clusters[b].first_host;
			struct gb_mon_result r;
			if (a == b) {
				if (t->clusters[a].nhosts < 2)
					continue; /* not measured: see the header */
				d = s + 1;
			}
			int err = gb_mon_pair(M->g.nsfd[s], M->g.nsfd[d], t->nodes[d].addr, po, &r);
			M->bytes_round += r.bytes_sent;
			if (err < 0) {
				fprintf(stderr, "gridmon: pair '%s' -> '%s': %s\n", node_name(M, s),
					node_name(M, d), strerror(-err));
				M->stale[a * nc + b] = 1;
				failed++;
				continue;
			}
			M->stale[a * nc + b] = 0;
			M->clat[a * nc + b] = r.rtt_p50 / 2;
			M->cbw[a * nc + b] = po->tcp_bytes ? r.bw : NAN;
			/* o of the representative: the smallest of this round's
			 * per-pair medians, since a busy core only ever adds to it */
			if (isnan(o_round) || r.o_send < o_round)
				o_round = r.o_send;
			if (verbose)
				fprintf(stderr,
					"gridmon: %s -> %s: rtt p50 %.3f ms min %.3f ms (%d/%d), "
					"bw %.2f Mbit/s over %.3f s, o %.2f us\n",
					node_name(M, s), node_name(M, d), r.rtt_p50 * 1e3,
					r.rtt_min * 1e3, r.rtt_received, r.rtt_sent, r.bw * 8 / 1e6,
					r.bw_seconds, r.o_send * 1e6);
		}
		if (!isnan(o_round))
			M->co[a] = o_round;
	}
	M->round_s = gb_now() - t0;
	return failed;
}

static int parse_bytes(const char *s, uint64_t *v)
{
	double d;
	if (gb_parse_size(s, &d) < 0 || d < 0 || d > 1e15)
		return -EINVAL;
	*v = (uint64_t)d;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "period", required_argument, NULL, 'p' },
		{ "scale", required_argument, NULL, 's' },
		{ "once", no_argument, NULL, '1' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "bytes-per-probe", required_argument, NULL, 'b' },
		{ "max-bytes-per-period", required_argument, NULL, 'B' },
		{ "rtt-count", required_argument, NULL, 'n' },
		{ "port", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 't' },
		{ "print-configured", no_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mon M;
	struct gb_err e = { "" };
	struct gb_mon_opts po = { .rtt_count = 10, .tcp_bytes = 4 << 20, .warm_frac = 0.25,
				  .port = 47100, .timeout = 30 };
	const char *out = "-";
	uint64_t period_ns = 300ULL * 1000000000ULL, cap = 0;
	double scale = 1;
	long rounds = 0;
	int oracle = 0, verbose = 0, opt, ret = 1, written = 0;
	char *end;

	memset(&M, 0, sizeof(M));
	M.g.lockfd = -1;
	while ((opt = getopt_long(argc, argv, "o:v1h", lo, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'p':
			if (gb_parse_time(optarg, &period_ns) < 0 || !period_ns) {
				fprintf(stderr, "gridmon: period '%s' is not a time (use 300s)\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			scale = strtod(optarg, &end);
			if (*end || !(scale > 0)) {
				fprintf(stderr, "gridmon: scale '%s' is not a positive number\n",
					optarg);
				return 2;
			}
			break;
		case '1': rounds = 1; break;
		case 'r':
			rounds = strtol(optarg, &end, 10);
			if (*end || rounds < 1) {
				fprintf(stderr, "gridmon: rounds '%s' is not a positive integer\n",
					optarg);
				return 2;
			}
			break;
		case 'b':
			if (parse_bytes(optarg, &po.tcp_bytes) < 0) {
				fprintf(stderr, "gridmon: bytes-per-probe '%s' is not a size\n",
					optarg);
				return 2;
			}
			break;
		case 'B':
			if (parse_bytes(optarg, &cap) < 0) {
				fprintf(stderr, "gridmon: max-bytes-per-period '%s' is not a size\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			po.rtt_count = (int)strtol(optarg, &end, 10);
			if (*end || po.rtt_count < 1 || po.rtt_count > 10000) {
				fprintf(stderr, "gridmon: rtt-count '%s' is not 1..10000\n", optarg);
				return 2;
			}
			break;
		case 'P':
			po.port = (int)strtol(optarg, &end, 10);
			if (*end || po.port < 1 || po.port > 65534) {
				fprintf(stderr, "gridmon: port '%s' is not 1..65534\n", optarg);
				return 2;
			}
			break;
		case 't':
			po.timeout = strtod(optarg, &end);
			if (*end || !(po.timeout > 0)) {
				fprintf(stderr, "gridmon: timeout '%s' is not positive\n", optarg);
				return 2;
			}
			break;
		case 'C': oracle = 1; break;
		case 'v': verbose = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	int err = gb_grid_open(&M.g, NULL, 0, &e);
	if (err >= 0)
		err = gb_grid_attach(&M.g, &e);
	if (err < 0) {
		fprintf(stderr, "gridmon: %s\n", e.msg[0] ? e.msg : strerror(-err));
		gb_grid_close(&M.g);
		return 1;
	}
	/* Long runs must not keep `gridemu link set` waiting. */
	gb_grid_unlock(&M.g);
	M.nc = M.g.topo->nclusters;
	if (oracle) {
		err = print_configured(&M, out);
		if (err < 0)
			fprintf(stderr, "gridmon: cannot write '%s': %s\n", out, strerror(-err));
		gb_grid_close(&M.g);
		return err < 0;
	}

	size_t nn = (size_t)(M.nc * M.nc);
	M.clat = malloc(nn * sizeof(double));
	M.cbw = malloc(nn * sizeof(double));
	M.stale = calloc(nn, sizeof(int));
	M.co = malloc((size_t)M.nc * sizeof(double));
	if (!M.clat || !M.cbw || !M.stale || !M.co) {
		fprintf(stderr, "gridmon: out of memory\n");
		goto cleanup;
	}
	for (size_t i = 0; i < nn; i++)
		M.clat[i] = M.cbw[i] = NAN;
	for (int a = 0; a < M.nc; a++)
		M.co[a] = NAN;

	/* The probe budget: pairs x (echoes both ways + transfer) <= cap. */
	int npairs = 0;
	for (int a = 0; a < M.nc; a++)
		npairs += M.nc - 1 + (M.g.topo->clusters[a].nhosts > 1);
	uint64_t udp = (uint64_t)po.rtt_count * 64 * 2;
	if (cap && npairs && (udp + po.tcp_bytes) * (uint64_t)npairs > cap) {
		uint64_t per = cap / (uint64_t)npairs;
		po.tcp_bytes = per > udp + MIN_TCP_BYTES ? per - udp : MIN_TCP_BYTES;
		fprintf(stderr, "gridmon: probe budget %llu B per period: %d pairs of %llu B\n",
			(unsigned long long)cap, npairs, (unsigned long long)po.tcp_bytes);
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the sleep must end */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	double period = (double)period_ns / 1e9 * scale;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long k = 0; !stop && (!rounds || k < rounds); k++) {
		int failed = round_once(&M, &po, verbose);
		if (stop)
			break;
		int complete = 1;
		for (int a = 0; a < M.nc; a++)
			for (int b = 0; b < M.nc; b++)
				if ((a != b || M.g.topo->clusters[a].nhosts > 1) &&
				    isnan(M.clat[a * M.nc + b]))
					complete = 0;
		if (!complete) {
			fprintf(stderr, "gridmon: round %ld: %d pair(s) never measured, "
				"nothing written\n", k + 1, failed);
		} else {
			M.version++;
			json_t *j = matrix_json(&M, M.clat, M.cbw, M.co, 0);
			json_object_set_new(j, "period_s", json_real(period));
			json_object_set_new(j, "bytes_per_probe",
					    json_integer((json_int_t)po.tcp_bytes));
			/* the hosts' TCP stack the probes ran on (issue 18) */
			json_t *tcp = gb_grid_tcp_json(&M.g);
			json_object_set_new(j, "tcp", tcp ? tcp : json_null());
			if (cap)
				json_object_set_new(j, "max_bytes_per_period",
						    json_integer((json_int_t)cap));
			err = write_json(j, out);
			json_decref(j);
			if (err < 0) {
				fprintf(stderr, "gridmon: cannot write '%s': %s\n", out,
					strerror(-err));
				goto cleanup;
			}
			written++;
			if (verbose)
				fprintf(stderr, "gridmon: version %llu, %llu B sent in %.3f s\n",
					(unsigned long long)M.version,
					(unsigned long long)M.bytes_round, M.round_s);
		}
		if (rounds && k + 1 >= rounds)
			break;
		/* Rounds start on a fixed grid: start + k * period.  A round
		 * longer than the period is followed at once by the next. */
		double ns = (double)next.tv_nsec + period * 1e9;
		next.tv_sec += (time_t)(ns / 1e9);
		next.tv_nsec = (long)fmod(ns, 1e9);
		while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	ret = written ? 0 : 1;
cleanup:
	free(M.clat);
	free(M.cbw);
	free(M.stale);
	free(M.co);
	gb_grid_close(&M.g);
	return ret;
}
