// SPDX-License-Identifier: MIT
/*
 * synthapp - the synthetic application of Gupta & Vadhiyar (seed 000 s3),
 * an ordinary MPI program that calls MPI_Bcast.  Which broadcast runs is
 * the business of the MPI library underneath: gridexp runs it with
 * libgridbcast.so preloaded and GRIDBED_BCAST=<algorithm> (native included),
 * as the paper ran one application with each broadcast in turn.
 *
 *	synthapp --dir RUNDIR --root HOST [pattern] [--scale F] [ids] [knobs]
 *
 * The pattern (appsched.h): "about 60 MPI_Bcasts ... The root initially
 * broadcasts a message of 1 MBytes.  The message size is then decreased
 * linearly ... The time interval between broadcasts is initially set to
 * 90 seconds and then decremented exponentially", every time multiplied by
 * the campaign's scale.  Broadcast i is planned at origin + offset_i, start
 * to start, so that broadcast i meets the same load in every run of a
 * condition; a broadcast that overruns its slot delays the next one, which
 * then starts at once.  The `late` column is the planned start to t_begin:
 * the barrier's time, and any such delay.
 *
 * Time dilation (docs/architecture.md, decision 9): on a grid brought up with
 * `--dilate K` ($GRIDBED_DILATE from gridemu mpirun) the schedule is
 * stretched by K on the wall clock, as the load's and the monitor's are,
 * and every duration written (completion_time, late, the *_after_root
 * columns) is divided by K; absolute times (start_time, planned_start,
 * t_begin, t_end) stay on the one clock, where they meet the load's
 * intervals.  broadcasts.csv says K in its `dilate` column.
 *
 * Choices where the paper is silent: the gaps are start to start (so the
 * timelines of two algorithms stay aligned with the load's); the
 * exponential decrease is a factor per broadcast (the campaign's); the
 * sizes end at first / N by default; a barrier before every broadcast (the
 * paper's application computes between broadcasts and times nothing; we
 * need every rank in the call before the root's t_begin); every pair of
 * ranks exchanges one byte first (gb_connect_all()), so that no broadcast pays
 * for opening a connection.
 *
 * One broadcast, the same way for every algorithm:
 *
 *	sleep until the planned start
 *	MPI_Barrier (not with --start-clock, for hundreds of ranks on a few
 *	             cores: there the root calls at the planned start on the
 *	             one clock, docs/architecture.md, decision 4, and every other
 *	             rank calls min(0.5 s, a quarter of the gap) before it, so
 *	             that all wait inside MPI_Bcast when the root begins, as
 *	             after a barrier on a machine with a core per rank.  With
 *	             all 168 ranks called at the same instant on 2 cores their
 *	             wake-ups spread over 100-340 ms, longer than the
 *	             broadcast, and the completion time depended on where the
 *	             root fell in that order (65-94 ms in one run, 135-186 ms
 *	             in the next).  `late` is then the latest of the root's
 *	             start and any rank's entry after the planned start; the
 *	             previous broadcast's times are gathered at mid-gap)
 *	t_begin = CLOCK_MONOTONIC; MPI_Bcast(buf, size, MPI_BYTE, root); t_end = ...
 *	check every byte against the pattern of (size, run seed, index)
 *	... until shortly before the next planned start, then, outside any
 *	    measured interval: MPI_Gather of (t_begin, t_end) and MPI_Reduce of
 *	    the mismatches to the root, which writes the rows
 *
 * completion = max over ranks (t_end) - root's t_begin (docs/architecture.md
 * decision 4 on one clock; a rank's return from MPI_Bcast is when it has
 * the whole message and has passed it on, for every algorithm alike).  The
 * gather waits until just before the next broadcast so that its messages
 * stay out of the wide-area byte counts of this one.
 *
 * Handshake with gridexp (files in --dir): after MPI_Init (and, with
 * --warmup, gb_connect_all() of gb_connect.h: a connection between every
 * pair of ranks, so that no algorithm pays for connection set-up inside a
 * timed broadcast) the root
 * writes ready.json; gridexp then starts the load schedule and writes
 * go.json with the load intervals in CLOCK_MONOTONIC seconds; the root
 * reads it, and every rank starts from a common origin (MPI_Allreduce max).
 *
 * What only the library knows (tree, tree_via, model, header bytes,
 * fallback) comes from libgridbcast's per-call record
 * ($GRIDBED_BCAST_RECORD, docs/gridbcast.md), read by the root after each
 * call.  The root then predicts the tree's time under every cost model
 * (libgbplan) on the same model for every algorithm: $GRIDBED_MATRIX if set,
 * else the topology's static model.  All of that happens after the call.
 *
 * Files (atomic: temporary + rename after every broadcast; --dir):
 *   broadcasts.csv  one row per broadcast (docs/architecture.md, decision 7)
 *   ranks.csv       one row per rank and broadcast: when it returned, and
 *                   (from libgridbcast, per edge) when its message arrived
 *                   and when its parent began sending it
 *
 * Test knob: --fail-rank R --fail-at K makes rank R exit(3) just before
 * broadcast K (as a crashing rank would), to test that gridexp records a
 * failed run and goes on.
 *
 * Exit: 0; 1 a mismatching byte or an error; 2 bad usage; 3 the knob.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "appsched.h"
#include "bcast_core.h"
#include "gb_connect.h"
#include "gbio.h"
#include "gbplan.h"
#include "gbtopo.h"
#include "gridbcast.h"
#include "gbutil.h"
#include "synthapp_priv.h"

/*
 * Before a planned start, the previous broadcast's times are gathered and
 * written: that work starts early by its own last duration x 1.5 (at least
 * GUARD, at most half the gap), so that the broadcast still starts on time
 * and its timeline stays aligned with the load's.
 */
#define GUARD 0.05

struct opts {
	const char *dir, *root, *campaign, *run_id, *algo, *cond;
	int rep;
	struct gx_pattern pat;
	double scale, go_timeout;
	double dilate;          /* the grid's time dilation k: durations written / k */
	int warmup, fail_rank, fail_at;
	int start_clock;        /* --start-clock: no barrier before a broadcast */
	uint64_t seed;
};

int world_rank, nranks;

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "synthapp: rank %d: ", world_rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

/* Bad usage: one line on rank 0 ("synthapp: ..."), exit status 2. */
static __attribute__((format(printf, 1, 2), noreturn)) void refuse(const char *fmt, ...)
{
	va_list ap;

	if (!world_rank) {
		va_start(ap, fmt);
		gb_vrefuse("synthapp", fmt, ap);
		va_end(ap);
	}
	MPI_Finalize();
	exit(GB_EXIT_USAGE);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: synthapp --dir DIR --root HOST|RANK [--broadcasts N --size-first B\n"
		"                --size-last B | --sizes LIST --reps N] [--gap-first T]\n"
		"                [--gap-factor F] [--scale F] [--campaign C] [--run-id ID]\n"
		"                [--algo LABEL] [--cond NAME] [--rep N] [--seed N] [--warmup]\n"
		"                [--start-clock] [--go-timeout S] [--fail-rank R --fail-at K]\n"
		"  Run under gridemu mpirun with libgridbcast.so preloaded (gridexp does).\n"
		"  Writes DIR/broadcasts.csv and DIR/ranks.csv; waits for DIR/go.json.\n"
		"Exit: 0; 1 a mismatching byte or an error; 2 bad usage; 3 the fail knob\n"
		"(docs/exit-status.md).\n");
}

static void sleep_until(double t)
{
	struct timespec ts;

	if (t <= gb_now())
		return;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "root", required_argument, NULL, 'r' },
		{ "broadcasts", required_argument, NULL, 'n' },
		{ "size-first", required_argument, NULL, 'f' },
		{ "size-last", required_argument, NULL, 'l' },
		{ "sizes", required_argument, NULL, 'S' },
		{ "reps", required_argument, NULL, 'R' },
		{ "gap-first", required_argument, NULL, 'g' },
		{ "gap-factor", required_argument, NULL, 'G' },
		{ "scale", required_argument, NULL, 's' },
		{ "campaign", required_argument, NULL, 'c' },
		{ "run-id", required_argument, NULL, 'i' },
		{ "algo", required_argument, NULL, 'a' },
		{ "cond", required_argument, NULL, 'C' },
		{ "rep", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 'e' },
		{ "warmup", no_argument, NULL, 'w' },
		{ "start-clock", no_argument, NULL, 'K' },
		{ "go-timeout", required_argument, NULL, 't' },
		{ "fail-rank", required_argument, NULL, 'F' },
		{ "fail-at", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end, *tok;
	int c, li, bad = 0;

	memset(o, 0, sizeof(*o));
	o->pat.broadcasts = 60;
	o->pat.size_first = 1048576;
	o->pat.size_last = -1;
	o->pat.gap_first = 90;
	o->pat.gap_factor = 0.97;
	o->pat.reps = 1;
	o->scale = 1;
	o->campaign = "adhoc";
	o->run_id = "run";
	o->cond = "none";
	o->rep = 1;
	o->seed = 1;
	o->go_timeout = 600;
	o->fail_rank = o->fail_at = -1;
	o->algo = getenv("GRIDBED_BCAST") ? getenv("GRIDBED_BCAST") : "native";
	opterr = 0;	/* the faults below, one line each, not getopt's and the usage */
	while ((c = getopt_long(argc, argv, ":h", lo, &li)) != -1) {
		switch (c) {
		case 'd': o->dir = optarg; break;
		case 'r': o->root = optarg; break;
		case 'n': o->pat.broadcasts = (int)strtol(optarg, &end, 10); bad |= *end != 0; break;
		case 'f': bad |= gb_parse_size(optarg, &o->pat.size_first) < 0; break;
		case 'l': bad |= gb_parse_size(optarg, &o->pat.size_last) < 0; break;
		case 'S':
			for (tok = strtok(optarg, ","); tok; tok = strtok(NULL, ",")) {
				if (o->pat.nsizes >= GX_MAX_SIZES ||
				    gb_parse_size(tok, &o->pat.sizes[o->pat.nsizes++]) < 0)
					refuse("--sizes: '%s' is not a size (at most %d sizes)", tok,
					       GX_MAX_SIZES);
			}
			break;
		case 'R': o->pat.reps = (int)strtol(optarg, &end, 10); bad |= *end != 0; break;
		case 'g': bad |= gb_parse_duration(optarg, &o->pat.gap_first) < 0; break;
		case 'G': o->pat.gap_factor = strtod(optarg, &end); bad |= *end != 0; break;
		case 's': o->scale = strtod(optarg, &end); bad |= *end || !(o->scale > 0); break;
		case 'c': o->campaign = optarg; break;
		case 'i': o->run_id = optarg; break;
		case 'a': o->algo = optarg; break;
		case 'C': o->cond = optarg; break;
		case 'p': o->rep = (int)strtol(optarg, &end, 10); bad |= *end != 0; break;
		case 'e': o->seed = strtoull(optarg, &end, 10); bad |= *end != 0; break;
		case 'w': o->warmup = 1; break;
		case 'K': o->start_clock = 1; break;
		case 't': o->go_timeout = strtod(optarg, &end); bad |= *end != 0; break;
		case 'F': o->fail_rank = (int)strtol(optarg, &end, 10); bad |= *end != 0; break;
		case 'A': o->fail_at = (int)strtol(optarg, &end, 10); bad |= *end != 0; break;
		case 'h':
			if (!world_rank)
				usage(stdout);
			MPI_Finalize();
			exit(0);
		case ':': refuse("option '%s' needs a value", argv[optind - 1]);
		default: refuse("unknown option '%s' (see --help)", argv[optind - 1]);
		}
		if (bad)
			refuse("--%s: '%s' is not valid (see --help)", lo[li].name, optarg);
	}
	if (o->pat.size_last < 0)
		o->pat.size_last = round(o->pat.size_first / (o->pat.broadcasts > 0 ?
							      o->pat.broadcasts : 1));
	if (optind < argc)
		refuse("unexpected argument '%s' (see --help)", argv[optind]);
	if (!o->dir || !o->root)
		refuse("%s is required (see --help)", !o->dir ? "--dir DIR" : "--root HOST|RANK");
	if (gx_pattern_count(&o->pat) < 1)
		refuse("no broadcast to make: --broadcasts or --sizes, at least one");
	if (o->pat.reps < 1)
		refuse("--reps: %d is not at least 1", o->pat.reps);
	if (gx_pattern_max_size(&o->pat) > 2147483647.0)
		refuse("a size above 2147483647 bytes (%.0f)", gx_pattern_max_size(&o->pat));
}

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */


/* A prediction (9 significant digits); NAN is an empty field. */
static void csv_num(FILE *f, double x)
{
	fputc(',', f);
	if (isfinite(x))
		fprintf(f, "%.9g", x);
}

/* The run's first three CSV fields: campaign, run id, algorithm. */
static void run_fields(FILE *f, const struct opts *o)
{
	gb_csv_field(f, o->campaign);
	fputc(',', f);
	gb_csv_field(f, o->run_id);
	fputc(',', f);
	gb_csv_field(f, o->algo);
}

/* The text in memory *@buf (open_memstream's) becomes o->dir/@name. */
static void rows_put(FILE *f, char **buf, size_t *len, const struct opts *o, const char *name,
		     int sync)
{
	char path[4096];
	int ret;

	if (fclose(f) == EOF)
		die("out of memory");
	snprintf(path, sizeof(path), "%s/%s", o->dir, name);
	if ((ret = gb_write_file(path, *buf, *len, sync)) < 0)
		die("cannot write '%s': %s", path, strerror(-ret));
	free(*buf);
	*buf = NULL;
}

/* ",<(t - t0) / k>", or "," when t is unknown */
static void after(FILE *f, double t, double t0, double k)
{
	if (isfinite(t))
		fprintf(f, ",%.9f", (t - t0) / k);
	else
		fputc(',', f);
}

/* The rows so far, both files, rewritten whole (they are small). */
static void write_rows(const struct opts *o, const struct brow *rows, int nrows, int root,
		       char (*host)[32], int sync)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!(f = open_memstream(&buf, &len)))
		die("out of memory");
	fprintf(f, "campaign,run_id,algorithm,root,size,index,start_time,completion_time");
	for (int m = 0; m < gb_ncostmodels; m++)
		fprintf(f, ",pred_%s", gb_costmodels[m].name);
	fprintf(f, ",load_state,condition,rep,planned_start,late,bcast,used,tree_via,model,"
		"pred_model,hdr_bytes,fallback,mismatches,ranks,seg_bytes,dilate,stripes\n");
	for (int i = 0; i < nrows; i++) {
		const struct brow *r = &rows[i];

		run_fields(f, o);
		fputc(',', f);
		gb_csv_field(f, host[root]);
		fprintf(f, ",%.0f,%d,%.9f,%.9f", r->size, i, r->start, r->completion / o->dilate);
		for (int m = 0; m < gb_ncostmodels; m++)
			csv_num(f, r->pred[m]);
		fprintf(f, ",%s,", r->loaded < 0 ? "none" : r->loaded ? "loaded" : "unloaded");
		gb_csv_field(f, o->cond);
		fprintf(f, ",%d,%.9f,%.9f,", o->rep, r->planned, r->late / o->dilate);
		gb_csv_field(f, getenv("GRIDBED_BCAST") ? getenv("GRIDBED_BCAST") : "native");
		fputc(',', f);
		gb_csv_field(f, r->used);
		fputc(',', f);
		gb_csv_field(f, r->tree_via);
		fputc(',', f);
		gb_csv_field(f, r->model);
		fputc(',', f);
		gb_csv_field(f, r->pred_model);
		fprintf(f, ",%llu,%d,%lld,%d,%.0f,%g,%d\n", r->hdr_bytes, r->fallback,
			r->mismatches, nranks, r->seg_bytes, o->dilate,
			r->stripes > 1 ? r->stripes : 1);
	}
	rows_put(f, &buf, &len, o, "broadcasts.csv", sync);

	if (!(f = open_memstream(&buf, &len)))
		die("out of memory");
	fprintf(f, "campaign,run_id,algorithm,index,size,rank,host,parent,t_begin,t_end,"
		"end_after_root,recv_after_root,parent_send_after_root,"
		"send_start_after_root,send_done_after_root\n");
	for (int i = 0; i < nrows; i++)
		for (int k = 0; k < nranks; k++) {
			const struct brow *r = &rows[i];
			double t0 = r->t[root].t_begin;

			run_fields(f, o);
			fprintf(f, ",%d,%.0f,%d,", i, r->size, k);
			gb_csv_field(f, host[k]);
			fprintf(f, ",%d,%.9f,%.9f,%.9f", r->parent[k], r->t[k].t_begin,
				r->t[k].t_end, (r->t[k].t_end - t0) / o->dilate);
			after(f, r->t[k].t_recv, t0, o->dilate);
			after(f, r->psend[k], t0, o->dilate);
			after(f, r->t[k].t_send_start, t0, o->dilate);
			after(f, r->t[k].t_send_done, t0, o->dilate);
			fputc('\n', f);
		}
	rows_put(f, &buf, &len, o, "ranks.csv", sync);
}

/*
 * Per-edge times, from the preloaded libgridbcast (gridbcast_last_timing(),
 * looked up once with dlsym so that this program also runs on MPI alone):
 * when the message reached this rank, when its sends began and ended, and
 * (@cs, nranks entries) when it began sending to each of its children.
 * All NAN when the last call ran no tree of the library's (native).
 */
static void library_times(struct times *me, double *cs)
{
	typedef int (*last_fn)(struct gb_bcast_timing *);
	static last_fn fn;
	static int looked;
	struct gb_bcast_timing tm;

	if (!looked) {
		fn = (last_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "gridbcast_last_timing");
		looked = 1;
	}
	me->t_recv = me->t_send_start = me->t_send_done = NAN;
	for (int k = 0; k < nranks; k++)
		cs[k] = NAN;
	if (!fn || fn(&tm) < 0)
		return;
	me->t_recv = tm.t_recv_done;
	if (tm.nchild > 0) {
		me->t_send_start = tm.t_send_start;
		me->t_send_done = tm.t_send_done;
	}
	for (int k = 0; tm.child_start && k < nranks; k++)
		cs[k] = isfinite(tm.child_start[k]) ? tm.child_start[k] : NAN;
}

/* @psend[k]: when rank k's parent began sending to it, from every rank's
 * child_start row (@cs, nranks x nranks); NAN for the root and unknowns. */
static void edge_starts(const double *cs, double *psend)
{
	for (int k = 0; k < nranks; k++)
		psend[k] = NAN;
	for (int p = 0; p < nranks; p++)
		for (int k = 0; k < nranks; k++)
			if (isfinite(cs[(size_t)p * (size_t)nranks + (size_t)k]))
				psend[k] = cs[(size_t)p * (size_t)nranks + (size_t)k];
}

/* ------------------------------------------------------------------ */
/* The handshake with gridexp                                          */
/* ------------------------------------------------------------------ */

struct go {
	double *iv;             /* [2k], [2k+1]: a load interval, CLOCK_MONOTONIC s */
	int niv;
	int has_load;
};

static void handshake(const struct opts *o, int root, struct go *g)
{
	char path[4096], *text = NULL;
	json_t *j, *a;
	json_error_t je;
	double t0 = gb_now();
	int ret;

	snprintf(path, sizeof(path), "%s/ready.json", o->dir);
	j = json_pack("{s:i,s:i,s:s?,s:i,s:f}", "ranks", nranks, "root_rank", root, "rankmap",
		      getenv("GRIDBED_RANKMAP"), "pid", (int)getpid(), "t_ready", t0);
	text = j ? json_dumps(j, JSON_INDENT(1)) : NULL;
	if (!text || gb_write_file(path, text, strlen(text), 1) < 0)
		die("cannot write '%s'", path);
	free(text);
	json_decref(j);
	snprintf(path, sizeof(path), "%s/go.json", o->dir);
	while (access(path, R_OK) != 0) {
		if (gb_now() - t0 > o->go_timeout)
			die("no %s after %.0f s (is gridexp running?)", path, o->go_timeout);
		sleep_until(gb_now() + 0.01);
	}
	j = gb_json_load_file(path, &je, &ret);
	if (!j)
		die("cannot read '%s': %s", path, ret == -EINVAL ? je.text : strerror(-ret));
	a = json_object_get(j, "intervals");
	g->has_load = json_is_true(json_object_get(j, "load"));
	g->niv = json_is_array(a) ? (int)json_array_size(a) : 0;
	g->iv = calloc((size_t)g->niv * 2 + 2, sizeof(double));
	if (!g->iv)
		die("out of memory");
	for (int i = 0; i < g->niv; i++) {
		json_t *p = json_array_get(a, (size_t)i);

		g->iv[2 * i] = json_number_value(json_array_get(p, 0));
		g->iv[2 * i + 1] = json_number_value(json_array_get(p, 1));
	}
	json_decref(j);
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

/*
 * start: clock: how long before broadcast @i's planned start the ranks but
 * the root enter MPI_Bcast (see the top of this file).
 */
static double early_entry(const struct opts *o, int i)
{
	return fmin(0.5, 0.25 * o->scale * gx_pattern_gap(&o->pat, i));
}

static int overlaps(const struct go *g, double a, double b)
{
	for (int i = 0; i < g->niv; i++)
		if (g->iv[2 * i] < b && g->iv[2 * i + 1] > a)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct models M;
	struct go g = { NULL, 0, 0 };
	struct brow *rows;
	struct times mine = { NAN, NAN, NAN, NAN, NAN };
	double *mycs, *allcs = NULL;    /* child_start rows: mine, and all at the root */
	uint8_t *buf;
	const char *record = getenv("GRIDBED_BCAST_RECORD");
	double origin, maxsize, lead = GUARD;
	long long bad = 0;
	int root, nb, status = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	parse_args(argc, argv, &o);
	if (gb_env_dilation(&o.dilate) < 0) {
		if (!world_rank)
			fprintf(stderr, "synthapp: GRIDBED_DILATE '%s' is not a number in [1, 1000]\n",
				getenv("GRIDBED_DILATE"));
		MPI_Finalize();
		return 2;
	}
	o.scale *= o.dilate;    /* the schedule on the wall clock */
	models_init(&M);
	root = find_root(o.root, &M);
	if (root < 0) {
		if (!world_rank)
			fprintf(stderr, "synthapp: root '%s' is neither a host of the job nor a "
				"rank\n", o.root);
		MPI_Finalize();
		return 2;
	}
	nb = gx_pattern_count(&o.pat);
	maxsize = gx_pattern_max_size(&o.pat);
	buf = malloc((size_t)maxsize + 1);
	rows = calloc((size_t)nb, sizeof(*rows));
	mycs = malloc(sizeof(double) * (size_t)nranks);
	if (!buf || !rows || !mycs)
		die("out of memory");
	if (world_rank == root) {
		allcs = malloc(sizeof(double) * (size_t)nranks * (size_t)nranks);
		if (!allcs)
			die("out of memory");
		for (int i = 0; i < nb; i++) {
			rows[i].parent = malloc(sizeof(int) * (size_t)nranks);
			rows[i].t = calloc((size_t)nranks, sizeof(struct times));
			rows[i].psend = malloc(sizeof(double) * (size_t)nranks);
			if (!rows[i].parent || !rows[i].t || !rows[i].psend)
				die("out of memory");
		}
	}

	if (o.warmup && gb_connect_all(MPI_COMM_WORLD) < 0)
		die("cannot connect every pair of ranks");
	if (world_rank == root)
		handshake(&o, root, &g);
	origin = gb_now();
	MPI_Allreduce(MPI_IN_PLACE, &origin, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	origin += GUARD;
	if (o.start_clock)   /* room for the others to enter the first one early */
		origin += early_entry(&o, 0);

	for (int i = 0; i <= nb; i++) {
		double planned = origin + (i < nb ? gx_pattern_offset(&o.pat, i, o.scale) : 0);
		double size = i < nb ? gx_pattern_size(&o.pat, i) : 0;
		uint64_t seed;
		long long mis = 0;

		/* the previous broadcast's records, just before this one */
		if (i > 0) {
			struct brow *r = &rows[i - 1];
			struct gb_tree t;
			double t_fin;

			if (o.start_clock)   /* mid-gap, the last one's too */
				sleep_until(origin + gx_pattern_offset(&o.pat, i - 1, o.scale) +
					    0.5 * o.scale * gx_pattern_gap(&o.pat, i - 1));
			else if (i == nb)
				sleep_until(gb_now() + GUARD);
			else
				sleep_until(planned - fmin(lead, 0.5 * o.scale *
							   gx_pattern_gap(&o.pat, i - 1)));
			t_fin = gb_now();
			MPI_Gather(&mine, TIMES_N, MPI_DOUBLE, world_rank == root ? r->t : NULL,
				   TIMES_N, MPI_DOUBLE, root, MPI_COMM_WORLD);
			MPI_Gather(mycs, nranks, MPI_DOUBLE, allcs, nranks, MPI_DOUBLE, root,
				   MPI_COMM_WORLD);
			MPI_Reduce(&bad, &mis, 1, MPI_LONG_LONG, MPI_SUM, root, MPI_COMM_WORLD);
			if (world_rank == root) {
				double tmax = -INFINITY;

				memset(&t, 0, sizeof(t));
				for (int k = 0; k < nranks; k++) {
					tmax = fmax(tmax, r->t[k].t_end);
					/* clock: late also counts a rank that entered
					 * after the root began */
					if (o.start_clock)
						r->late = fmax(r->late, r->t[k].t_begin -
							       r->planned);
				}
				r->completion = tmax - r->t[root].t_begin;
				edge_starts(allcs, r->psend);
				r->mismatches = mis;
				r->loaded = g.has_load ? overlaps(&g, r->start, r->start +
								  r->completion) : -1;
				for (int k = 0; k < nranks; k++)
					r->parent[k] = -1;
				read_record(&M, record, r->size, r, &t);
				predict(&M, &t, r);
				gb_tree_release(&t);
				write_rows(&o, rows, i, root, M.host, i == nb);
				if (mis) {
					fprintf(stderr, "synthapp: broadcast %d (%.0f B): %lld "
						"mismatching bytes\n", i - 1, r->size, mis);
					status = 1;
				}
			}
			lead = fmax(GUARD, 1.5 * (gb_now() - t_fin));
		}
		if (i == nb)
			break;
		if (world_rank == o.fail_rank && i == o.fail_at) {
			fprintf(stderr, "synthapp: rank %d: exiting before broadcast %d (the "
				"fail_rank/fail_at test knob)\n", world_rank, i);
			exit(3);
		}

		seed = gb_pattern_seed((uint64_t)size, o.seed, (uint64_t)i);
		if (world_rank == root)
			gb_pattern_fill(buf, (size_t)size, seed);
		else
			memset(buf, 0, (size_t)size);
		/* clock: the others wait inside MPI_Bcast before the root begins */
		sleep_until(o.start_clock && world_rank != root ?
			    planned - early_entry(&o, i) :
			    planned);
		if (!o.start_clock)
			MPI_Barrier(MPI_COMM_WORLD);
		mine.t_begin = gb_now();
		MPI_Bcast(buf, (int)size, MPI_BYTE, root, MPI_COMM_WORLD);
		mine.t_end = gb_now();
		library_times(&mine, mycs);
		bad = (long long)gb_pattern_check(buf, (size_t)size, seed);
		if (world_rank == root) {
			rows[i].size = size;
			rows[i].planned = planned;
			rows[i].start = mine.t_begin;
			rows[i].late = mine.t_begin - planned;
		}
	}
	/* not MPI_Bcast: that would be a broadcast of the application */
	MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (world_rank == root)
		for (int i = 0; i < nb; i++) {
			free(rows[i].parent);
			free(rows[i].t);
		}
	free(rows);
	free(buf);
	free(g.iv);
	MPI_Finalize();
	return status;
}
