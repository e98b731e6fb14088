/* SPDX-License-Identifier: MIT */
/*
 * gridbcast - the MPI broadcast benchmark of issue 4: run planners' trees
 * and OpenMPI's own MPI_Bcast on the same ranks, verify every buffer, and
 * record one CSV row per broadcast (docs/architecture.md, decision 7).
 *
 *	gridemu mpirun -- gridbcast --algo all --sizes 1K,1M --reps 5 --out r.csv
 *
 * First every pair of ranks exchanges one byte (gb_connect_all(), unless
 * --no-connect), so that no timed broadcast opens a connection.  Per size,
 * every algorithm is planned first (gb_bcast_prepare(): planning is not
 * part of a broadcast's time); then per repetition, for every
 * algorithm in turn (interleaved, so that slow drifts hit all alike):
 *
 *	warm-up broadcasts (--warmup, default 1), untimed
 *	MPI_Barrier
 *	the broadcast: every rank records t_begin .. t_send_done
 *	verify: every rank checks every byte against the pattern of
 *	        (size, repetition, index); mismatches are summed to the root
 *	gather the per-rank times to the root (outside the measured interval)
 *
 * completion = max over ranks (t_recv_done) - root's t_begin (decision 4).
 * For native MPI_Bcast a rank's receive time is only known as its return
 * time, an upper bound; the all_returned column (max t_send_done - root's
 * t_begin) is measured alike for every algorithm.
 *
 * The broadcast root writes the files and prints the summary.  Exit status:
 * 0; 1 a mismatch, a timing-order violation or an error; 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "gb_connect.h"
#include "gbio.h"
#include "gbtopo.h"
#include "gbutil.h"
#include "gridbcast.h"

#define MAX_ALGOS 64
#define MAX_SIZES 64

struct opts {
	const char *algos[MAX_ALGOS];
	int nalgos;
	double sizes[MAX_SIZES];
	int nsizes;
	int reps, warmup;
	int connect;            /* gb_connect_all() first (--no-connect: 0) */
	const char *root;
	const char *out, *ranks;
	const char *campaign, *run_id, *load_state;
	struct gb_bcast_opts bo;
	int quiet;
	double window_s;        /* --window-ms: 0 = barriers */
	/* the grid's time dilation k (docs/architecture.md, decision 9,
	 * $GRIDBED_DILATE): windows are k times longer on the wall clock and
	 * every duration written or printed is divided by k */
	double dilate;
};

/* What the start windows saw, counted at the root (--window-ms). */
static long long window_late, window_over;

/* One timed broadcast, at the root. */
struct row {
	int algo, size, rep, index;
	double start, completion, all_returned;
	long long mismatches;
	int violations;
	uint64_t hdr_bytes;
};

/* What is known per (algorithm, size) after planning. */
struct plan {
	const char *tree_via;
	char model[256];
	char pred_model[256];
	double pred[8];
	double plan_s;
	double seg;              /* bytes per segment the root used, 0: whole */
	int stripes;             /* trees its segments went down */
};

static int world_rank;

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gridbcast: rank %d: ", world_rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

/* Bad input: one line naming the fault (rank 0 says it), exit 2 on every
 * rank, before anything is planned, timed or written. */
__attribute__((format(printf, 1, 2), noreturn)) static void refuse(const char *fmt, ...)
{
	va_list ap;

	if (!world_rank) {
		va_start(ap, fmt);
		gb_vrefuse("gridbcast", fmt, ap);
		va_end(ap);
	}
	MPI_Finalize();
	exit(GB_EXIT_USAGE);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gridbcast --algo LIST --sizes LIST --reps N --out FILE.csv [options]\n"
		"\n"
		"  --algo LIST       planners (gridtree list) or 'all'; native is always added;\n"
		"                    'adaptive': gridadvisor's trees ($GRIDBED_ADVISOR_DIR)\n"
		"  --sizes LIST      message sizes: bytes or K/M/G suffixes (1K = 1024)\n"
		"  --reps N          timed broadcasts per algorithm and size\n"
		"  --root HOST       the root: a host name of the topology or a rank number\n"
		"                    (default: the topology's root, else rank 0)\n"
		"  --out FILE.csv    one row per broadcast (and FILE.json: run metadata)\n"
		"  --ranks FILE.csv  one row per rank and broadcast (arrival CDFs)\n"
		"  --warmup N        untimed broadcasts before each timed one (default 1)\n"
		"  --no-connect      do not open every pair's connection first (then a\n"
		"                    broadcast's first use of an edge pays for it)\n"
		"  --isend           Isend + Waitall to the children instead of blocking sends\n"
		"  --segment B       bytes per segment (K/M suffixes), 0 for whole messages,\n"
		"                    'auto' (default: chosen per broadcast from the model;\n"
		"                    $GRIDBED_SEGMENT)\n"
		"  --stripes K       segmented messages go down K trees, segment j down\n"
		"                    tree j mod K: the tree with each cluster's hosts\n"
		"                    rotated by j mod K (default 1; $GRIDBED_STRIPES);\n"
		"                    or by size, SIZE:K,...[,K]: '2M:4,1' is 4 trees up\n"
		"                    to 2 MiB, 1 above\n"
		"  --shared          ablation: measured trees reach the ranks by a local file\n"
		"  --wait spin|sleep how ranks wait for messages and at the barriers around\n"
		"                    each broadcast: MPI's own (spin, default) or asleep in\n"
		"                    epoll_wait(2) (for many ranks per core; $GRIDBED_BCAST_WAIT)\n"
		"  --window-ms W     start every timed broadcast at a common time T on\n"
		"                    CLOCK_MONOTONIC (the root sends T = now + W) and let\n"
		"                    nothing else start before T + W, instead of barriers\n"
		"  --campaign NAME   (default $GRIDBED_CAMPAIGN or 'adhoc')\n"
		"  --run-id ID       (default $GRIDBED_RUN_ID or a timestamp)\n"
		"  --seed N, --budget-ms N   planner seed and anytime budget\n"
		"  --quiet           no summary table\n"
		"\n"
		"Columns of --out: campaign,run_id,algorithm,root,size,index,start_time,\n"
		"completion_time,pred_<model>... ,load_state, then rep,root_rank,ranks,mode,\n"
		"tree_via,model,pred_model,hdr_bytes,all_returned,lower_bound,mismatches,\n"
		"order_violations,plan_time,segment.  Times in seconds (start_time:\n"
		"CLOCK_MONOTONIC), sizes, hdr_bytes and segment (per segment, 0: whole) in\n"
		"bytes.  load_state is $GRIDBED_LOAD_STATE or 'none'.\n"
		"Exit: 0 ok; 1 a mismatch, a timing-order violation or an error; 2 bad input\n"
		"(docs/exit-status.md).\n");
}

static void split_list(char *s, const char **out, int max, int *n)
{
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		if (*n >= max)
			die("too many list entries (max %d)", max);
		out[(*n)++] = tok;
	}
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "algo", required_argument, NULL, 'a' },
		{ "sizes", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'n' },
		{ "root", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' },
		{ "ranks", required_argument, NULL, 'R' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "no-connect", no_argument, NULL, 'C' },
		{ "isend", no_argument, NULL, 'I' },
		{ "segment", required_argument, NULL, 'G' },
		{ "stripes", required_argument, NULL, 'k' },
		{ "shared", no_argument, NULL, 'S' },
		{ "wait", required_argument, NULL, 'W' },
		{ "window-ms", required_argument, NULL, 'T' },
		{ "campaign", required_argument, NULL, 'c' },
		{ "run-id", required_argument, NULL, 'i' },
		{ "seed", required_argument, NULL, 'e' },
		{ "budget-ms", required_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sz[MAX_SIZES];
	int c, nsz = 0, all = 0;
	char *end;

	if (gb_bcast_opts_env(&o->bo) < 0)
		die("%s", gb_bcast_strerror());
	o->reps = -1;
	o->warmup = 1;
	o->connect = 1;
	o->campaign = getenv("GRIDBED_CAMPAIGN") ? getenv("GRIDBED_CAMPAIGN") : "adhoc";
	o->run_id = getenv("GRIDBED_RUN_ID");
	o->load_state = getenv("GRIDBED_LOAD_STATE") && *getenv("GRIDBED_LOAD_STATE") ?
				getenv("GRIDBED_LOAD_STATE") : "none";
	o->algos[o->nalgos++] = "native";
	opterr = 0;     /* refuse() says it in one line */
	while ((c = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
		switch (c) {
		case 'a': {
			const char *tmp[MAX_ALGOS];
			const struct gb_planner *pl;
			struct gb_err why;
			int nt = 0;

			split_list(optarg, tmp, MAX_ALGOS, &nt);
			if (!nt)
				refuse("--algo '%s' names no algorithm", optarg);
			for (int i = 0; i < nt; i++) {
				if (!strcmp(tmp[i], "all")) {
					all = 1;
					continue;
				}
				if (strcmp(tmp[i], "native") && strcmp(tmp[i], "adaptive") &&
				    !gb_planner_find(tmp[i]) && !strchr(tmp[i], ':'))
					refuse("unknown algorithm '%s' (see gridtree list)", tmp[i]);
				if (strchr(tmp[i], ':') &&
				    gb_planner_resolve(tmp[i], &pl, &why) < 0)
					refuse("--algo: %s", why.msg);
				if (strcmp(tmp[i], "native") && o->nalgos < MAX_ALGOS)
					o->algos[o->nalgos++] = tmp[i];
			}
			break;
		}
		case 's':
			nsz = 0;
			split_list(optarg, sz, MAX_SIZES, &nsz);
			if (!nsz)
				refuse("--sizes '%s' names no size", optarg);
			break;
		case 'n':
			o->reps = (int)strtol(optarg, &end, 10);
			if (!*optarg || *end || o->reps < 1)
				refuse("--reps '%s' is not a number of broadcasts (1 or more)", optarg);
			break;
		case 'r': o->root = optarg; break;
		case 'o': o->out = optarg; break;
		case 'R': o->ranks = optarg; break;
		case 'w':
			o->warmup = (int)strtol(optarg, &end, 10);
			if (!*optarg || *end || o->warmup < 0)
				refuse("--warmup '%s' is not a number of broadcasts (0 or more)",
				       optarg);
			break;
		case 'I': o->bo.flags |= GB_BCAST_ISEND; break;
		case 'C': o->connect = 0; break;
		case 'G':
			if (gb_parse_segment(optarg, &o->bo.segment) < 0) {
				if (!world_rank)
					fprintf(stderr, "gridbcast: --segment: '%s' is not 'auto', "
						"0 or a size in bytes\n", optarg);
				goto usage_exit;
			}
			break;
		case 'k':
			{
				struct gb_err why;

				if (gb_stripes_parse_why(optarg, &o->bo.stripes, &why) < 0)
					refuse("--stripes: '%s' is not a number of trees from 1 to "
					       "%d, nor a table 'SIZE:K,...[,K]': %s", optarg,
					       GB_STRIPES_MAX, why.msg);
			}
			break;
		case 'S': o->bo.flags |= GB_BCAST_SHARED; break;
		case 'W':
			if (!strcmp(optarg, "sleep"))
				o->bo.flags |= GB_BCAST_SLEEP;
			else if (!strcmp(optarg, "spin"))
				o->bo.flags &= ~GB_BCAST_SLEEP;
			else {
				if (!world_rank)
					fprintf(stderr, "gridbcast: --wait: '%s' is neither spin "
						"nor sleep\n", optarg);
				goto usage_exit;
			}
			break;
		case 'T':
			o->window_s = strtod(optarg, &end) / 1e3;
			if (*end || !(o->window_s >= 0) || o->window_s > 600) {
				if (!world_rank)
					fprintf(stderr, "gridbcast: --window-ms: '%s' is not a "
						"time in ms (0 to 600000)\n", optarg);
				goto usage_exit;
			}
			break;
		case 'c': o->campaign = optarg; break;
		case 'i': o->run_id = optarg; break;
		case 'e': o->bo.seed = strtoull(optarg, NULL, 0); break;
		case 'b': o->bo.budget_s = atof(optarg) / 1e3; break;
		case 'q': o->quiet = 1; break;
		case 'h':
			if (!world_rank)
				usage(stdout);
			MPI_Finalize();
			exit(0);
		case ':':
			refuse("option '%s' needs a value", argv[optind - 1]);
		default:
			refuse("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (all)
		for (int i = 0; i < gb_nplanners; i++) {
			int dup = 0;

			for (int k = 0; k < o->nalgos; k++)
				dup |= !strcmp(o->algos[k], gb_planners[i].name);
			if (!dup && o->nalgos < MAX_ALGOS)
				o->algos[o->nalgos++] = gb_planners[i].name;
		}
	for (int i = 0; i < nsz; i++) {
		if (gb_parse_size(sz[i], &o->sizes[i]) < 0 || o->sizes[i] > GB_MSG_MAX) {
			if (!world_rank)
				fprintf(stderr, "gridbcast: size '%s' is not a size (use bytes, or "
					"64K, 1M, ...)\n", sz[i]);
			goto usage_exit;
		}
	}
	o->nsizes = nsz;
	if (optind < argc)
		refuse("unexpected argument '%s'", argv[optind]);
	if (!nsz)
		refuse("--sizes is required");
	if (o->reps < 1)
		refuse("--reps is required");
	if (!o->out || !*o->out)
		refuse("--out FILE.csv is required");
	return;
usage_exit:
	MPI_Finalize();
	exit(2);
}

/* The root's rank: a host name of the topology, or a rank number. */
static int find_root(const char *s, const int *hosts, int n)
{
	const struct gb_topo *t = gb_bcast_topology();
	char *end;
	long r;

	if (!s) {
		for (int i = 0; t && i < n; i++)
			if (hosts[i] == t->root)
				return i;
		return 0;
	}
	if (t) {
		int h = gb_topo_find_node(t, s);

		for (int i = 0; h >= 0 && i < n; i++)
			if (hosts[i] == h)
				return i;
	}
	r = strtol(s, &end, 10);
	if (*s && !*end && r >= 0 && r < n)
		return (int)r;
	return -1;
}

static void host_name(const int *hosts, int r, char *buf, size_t len)
{
	const struct gb_topo *t = gb_bcast_topology();

	if (t && hosts[r] >= 0)
		snprintf(buf, len, "%s", t->nodes[hosts[r]].name);
	else
		snprintf(buf, len, "%d", r);
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

/* A CSV field: quoted when it holds a comma, quote or newline. */
static void csv_str(FILE *f, const char *s)
{
	gb_csv_field(f, s);
}

/* A duration (9 significant digits) or, with @abs, a CLOCK_MONOTONIC time
 * (ns resolution); NAN is an empty field. */
static void csv_num2(FILE *f, double x, int abs)
{
	if (!isfinite(x))
		fputc(',', f);
	else
		fprintf(f, abs ? ",%.9f" : ",%.9g", x);
}

static void csv_num(FILE *f, double x)
{
	csv_num2(f, x, 0);
}

static double percentile(double *v, int n, double p)
{
	double x, fr;
	int i;

	if (n < 1)
		return NAN;
	for (int a = 1; a < n; a++)          /* insertion sort: n is small */
		for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
			double t = v[b];

			v[b] = v[b - 1];
			v[b - 1] = t;
		}
	x = p * (n - 1);
	i = (int)x;
	fr = x - i;
	return i + 1 < n ? v[i] * (1 - fr) + v[i + 1] * fr : v[i];
}

static double median_of(const struct row *rows, int nrows, int algo, int size, double *p10,
			double *p90)
{
	double *v = malloc(sizeof(double) * (nrows ? nrows : 1)), m;
	int k = 0;

	if (!v)
		return NAN;
	for (int i = 0; i < nrows; i++)
		if (rows[i].algo == algo && rows[i].size == size)
			v[k++] = rows[i].completion;
	m = percentile(v, k, 0.5);
	if (p10)
		*p10 = percentile(v, k, 0.1);
	if (p90)
		*p90 = percentile(v, k, 0.9);
	free(v);
	return m;
}

static void write_meta(const struct opts *o, const char *csv, const char *run_id, int n,
		       const int *hosts, int root, const struct plan *plans)
{
	const struct gb_topo *t = gb_bcast_topology();
	json_t *j = json_object(), *hs = json_array(), *al = json_array(), *sz = json_array();
	struct utsname u;
	char path[1024], name[64];
	size_t l = strlen(csv);
	int ret;

	if (!j || !hs || !al || !sz)
		die("out of memory");
	snprintf(path, sizeof(path), "%.*s.json", (int)(l > 4 && !strcmp(csv + l - 4, ".csv") ?
							l - 4 : l), csv);
	uname(&u);
	json_object_set_new(j, "format", json_string("gridbed-run"));
	json_object_set_new(j, "tool", json_string("gridbcast"));
	json_object_set_new(j, "campaign", json_string(o->campaign));
	json_object_set_new(j, "run_id", json_string(run_id));
	json_object_set_new(j, "git_revision", json_string(gb_git_revision()));
	json_object_set_new(j, "kernel", json_string(u.release));
	json_object_set_new(j, "topology", t ? json_string(t->path) : json_null());
	json_object_set_new(j, "prefix", getenv("GRIDBED_PREFIX") ?
			    json_string(getenv("GRIDBED_PREFIX")) : json_null());
	json_object_set_new(j, "rankmap", getenv("GRIDBED_RANKMAP") ?
			    json_string(getenv("GRIDBED_RANKMAP")) : json_null());
	/* the hosts' TCP stack, as gridemu mpirun read it back into the rank map */
	json_object_set_new(j, "tcp", gb_rankmap_tcp_json());
	json_object_set_new(j, "matrix", getenv("GRIDBED_MATRIX") ?
			    json_string(getenv("GRIDBED_MATRIX")) : json_null());
	json_object_set_new(j, "load_state", json_string(o->load_state));
	json_object_set_new(j, "ranks", json_integer(n));
	json_object_set_new(j, "root_rank", json_integer(root));
	json_object_set_new(j, "reps", json_integer(o->reps));
	json_object_set_new(j, "warmup", json_integer(o->warmup));
	json_object_set_new(j, "connect", json_boolean(o->connect));
	json_object_set_new(j, "seed", json_integer((json_int_t)o->bo.seed));
	json_object_set_new(j, "budget_s", json_real(o->bo.budget_s));
	json_object_set_new(j, "mode", json_string(o->bo.flags & GB_BCAST_ISEND ? "isend" :
						   "blocking"));
	json_object_set_new(j, "wait", json_string(o->bo.flags & GB_BCAST_SLEEP ? "sleep" :
						   "spin"));
	json_object_set_new(j, "segment", o->bo.segment < 0 ? json_string("auto") :
			    json_real(o->bo.segment));
	/* one number of trees as before; a table by size as gridbcast --stripes reads it */
	json_object_set_new(j, "stripes", gb_stripes_json(&o->bo.stripes));
	json_object_set_new(j, "window_s", json_real(o->window_s));
	json_object_set_new(j, "dilate", json_real(o->dilate));
	json_object_set_new(j, "window_late_starts", json_integer(window_late));
	json_object_set_new(j, "window_overruns", json_integer(window_over));
	json_object_set_new(j, "tree_shared_ablation",
			    json_boolean(o->bo.flags & GB_BCAST_SHARED));
	for (int r = 0; r < n; r++) {
		host_name(hosts, r, name, sizeof(name));
		json_array_append_new(hs, json_string(name));
	}
	json_object_set_new(j, "hosts", hs);
	for (int a = 0; a < o->nalgos; a++)
		json_array_append_new(al, json_string(o->algos[a]));
	json_object_set_new(j, "algorithms", al);
	for (int s = 0; s < o->nsizes; s++)
		json_array_append_new(sz, json_real(o->sizes[s]));
	json_object_set_new(j, "sizes", sz);
	json_object_set_new(j, "model", json_string(plans[o->nsizes * (o->nalgos > 1 ? 1 : 0)]
						     .pred_model));
	ret = gb_json_save_atomic(j, path);
	if (ret < 0)
		fprintf(stderr, "gridbcast: cannot write '%s': %s\n", path, strerror(-ret));
	json_decref(j);
}

/* ------------------------------------------------------------------ */
/* Starting a timed broadcast                                          */
/* ------------------------------------------------------------------ */

static void sleep_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - (double)(time_t)t) * 1e9) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * Before a timed broadcast: a barrier, or with --window-ms W a common start
 * time.  A barrier lets the root begin while other ranks are still
 * finishing it: with 168 ranks on 2 cores its last messages and wake-ups
 * overlap the broadcast by up to 300 ms (docs/measurements.md).  Every
 * process here reads the same CLOCK_MONOTONIC (docs/architecture.md, decision
 * 4), so the root instead sends a start time T = now + W and every rank
 * sleeps until T (the others until T - W/2, then wait for the data), as
 * ReproMPI's window-based synchronisation does with synchronised clocks.
 * *@late is 1 when T had passed on arrival.
 */
static int sync_start(const struct opts *o, int root, double *t, long long *late)
{
	MPI_Request r;

	*t = 0;
	*late = 0;
	if (o->window_s <= 0)
		return gb_bcast_barrier(MPI_COMM_WORLD, o->bo.flags);
	if (world_rank == root)
		*t = gb_now() + o->window_s * o->dilate;
	if (MPI_Ibcast(t, 1, MPI_DOUBLE, root, MPI_COMM_WORLD, &r) != MPI_SUCCESS ||
	    gb_bcast_wait(&r, NULL, o->bo.flags) < 0)
		return -EIO;
	*late = gb_now() > *t;
	/* the others are waiting for the data, asleep, by T: 168 ranks
	 * waking at T would take the CPU from the root's first sends */
	sleep_until(world_rank == root ? *t : *t - o->window_s * o->dilate / 2);
	return 0;
}

/*
 * After it: with a window, nothing (verification, gathering, the next
 * warm-up) before T + W; *@over is 1 if this rank was not done by then.
 * Without, a sleeping barrier in the sleep mode (the gather would spin).
 */
static int sync_end(const struct opts *o, double t, long long *over)
{
	*over = 0;
	if (o->window_s > 0) {
		*over = gb_now() > t + o->window_s * o->dilate;
		sleep_until(t + o->window_s * o->dilate);
		return 0;
	}
	if (o->bo.flags & GB_BCAST_SLEEP)
		return gb_bcast_barrier(MPI_COMM_WORLD, o->bo.flags);
	return 0;
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	struct opts o;
	struct plan *plans = NULL;
	struct row *rows = NULL;
	struct gb_bcast_rankrec *rec = NULL;
	FILE *rf = NULL, *of = NULL;
	char *rtmp = NULL, *otmp = NULL, run_id[64], name[64];
	int n, rank, root, *hosts = NULL, nrows = 0, index = 0, ret, status = 0;
	double maxsize = 0, lb_cache = NAN;
	uint8_t *buf;
	const char *mode;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	rank = world_rank;
	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, &o);
	if (gb_env_dilation(&o.dilate) < 0)
		die("GRIDBED_DILATE '%s' is not a number in [1, 1000]", getenv("GRIDBED_DILATE"));
	mode = o.bo.flags & GB_BCAST_ISEND ? "isend" : "blocking";

	hosts = malloc(sizeof(int) * n);
	if (!hosts)
		die("out of memory");
	ret = gb_bcast_comm_hosts(MPI_COMM_WORLD, hosts);
	if (ret < 0)
		die("%s", gb_bcast_strerror());
	root = find_root(o.root, hosts, n);
	if (root < 0) {
		if (!rank)
			fprintf(stderr, "gridbcast: root '%s' is neither a host of the job nor a "
				"rank\n", o.root);
		MPI_Finalize();
		return 2;
	}
	for (int s = 0; s < o.nsizes; s++)
		if (o.sizes[s] > maxsize)
			maxsize = o.sizes[s];
	buf = malloc((size_t)maxsize + 1);
	plans = calloc((size_t)o.nalgos * o.nsizes, sizeof(*plans));
	rec = calloc(n, sizeof(*rec));
	rows = calloc((size_t)o.nalgos * o.nsizes * o.reps, sizeof(*rows));
	if (!buf || !plans || !rec || !rows)
		die("out of memory");
	if (o.connect && gb_connect_all(MPI_COMM_WORLD) < 0)
		die("cannot connect every pair of ranks");

	if (rank == root) {
		time_t now = time(NULL);
		struct tm tmv;

		if (o.run_id)
			snprintf(run_id, sizeof(run_id), "%s", o.run_id);
		else {
			gmtime_r(&now, &tmv);
			strftime(name, sizeof(name), "%Y%m%dT%H%M%SZ", &tmv);
			snprintf(run_id, sizeof(run_id), "%s-%d", name, (int)getpid());
		}
		of = gb_atomic_open(o.out, &otmp);
		if (!of)
			die("cannot write '%s': %s", o.out, strerror(errno));
		if (o.ranks && !(rf = gb_atomic_open(o.ranks, &rtmp)))
			die("cannot write '%s': %s", o.ranks, strerror(errno));
		fprintf(of, "campaign,run_id,algorithm,root,size,index,start_time,completion_time");
		for (int m = 0; m < gb_ncostmodels; m++)
			fprintf(of, ",pred_%s", gb_costmodels[m].name);
		fprintf(of, ",load_state,rep,root_rank,ranks,mode,tree_via,model,pred_model,"
			"hdr_bytes,all_returned,lower_bound,mismatches,order_violations,"
			"plan_time,segment,dilate\n");
		if (rf)
			fprintf(rf, "campaign,run_id,algorithm,size,index,rank,host,parent,t_begin,"
				"t_recv_done,t_send_done,t_send_start,parent_send_start,"
				"recv_after_root,nchild,hdr_bytes\n");
	}

	for (int s = 0; s < o.nsizes; s++) {
		double size = o.sizes[s], lb = NAN;
		int count = (int)size;

		/* plan everything first: not part of any broadcast's time */
		for (int a = 0; a < o.nalgos; a++) {
			struct plan *p = &plans[a * o.nsizes + s];
			struct gb_bcast_info info;

			if (gb_bcast_prepare(o.algos[a], root, size, MPI_COMM_WORLD, &o.bo,
					     &info) < 0)
				die("%s", gb_bcast_strerror());
			p->tree_via = info.tree_via;
			snprintf(p->model, sizeof(p->model), "%s", info.model);
			p->plan_s = info.plan_s;
			p->stripes = 1;
			for (int m = 0; m < gb_ncostmodels && m < 8; m++)
				p->pred[m] = NAN;
			if (rank == root && info.tree &&
			    gb_bcast_predict(MPI_COMM_WORLD, info.tree, size, 0, 1, p->pred,
					     p->pred_model, sizeof(p->pred_model)) < 0)
				die("%s", gb_bcast_strerror());
		}
		if (rank == root && gb_bcast_topology() &&
		    gb_bcast_lower_bound(gb_bcast_topology(), hosts, n, root, size, &lb) < 0)
			lb = NAN;
		lb_cache = lb;

		for (int rep = 0; rep < o.reps; rep++) {
			for (int a = 0; a < o.nalgos; a++) {
				struct plan *p = &plans[a * o.nsizes + s];
				struct gb_bcast_timing tm;
				struct gb_bcast_info ri;
				long long bad, tbad = 0, win[3] = { 0, 0, 0 }, twin[3] = { 0, 0, 0 };
				double t_win = 0;
				int adaptive = !strcmp(o.algos[a], "adaptive");
				uint64_t seed = gb_pattern_seed((uint64_t)size, (uint64_t)rep,
								(uint64_t)index);

				for (int w = 0; w < o.warmup; w++)
					if (gb_bcast_run(buf, count, MPI_BYTE, root, MPI_COMM_WORLD,
							 o.algos[a], &o.bo, NULL, NULL) < 0)
						die("%s", gb_bcast_strerror());
				if (rank == root)
					gb_pattern_fill(buf, (size_t)count, seed);
				else
					memset(buf, 0, (size_t)count);
				if (sync_start(&o, root, &t_win, &win[1]) < 0)
					die("barrier failed");
				if (gb_bcast_run(buf, count, MPI_BYTE, root, MPI_COMM_WORLD,
						 o.algos[a], &o.bo, &tm, &ri) < 0)
					die("%s", gb_bcast_strerror());
				/* adaptive: the tree (advisor or fallback) is this
				 * call's, so are its label and predictions */
				if (adaptive && rank == root) {
					p->tree_via = ri.tree_via;
					snprintf(p->model, sizeof(p->model), "%s", ri.model);
				}
				/* segmented: the predictions are of the schedule that
				 * ran (the root chose the segment size in the call) */
				if (rank == root && ri.tree &&
				    (adaptive || (double)tm.seg_bytes != p->seg ||
				     tm.stripes != p->stripes)) {
					p->seg = (double)tm.seg_bytes;
					p->stripes = tm.stripes;
					if (gb_bcast_predict(MPI_COMM_WORLD, ri.tree, size, p->seg,
							     p->stripes, p->pred, p->pred_model,
							     sizeof(p->pred_model)) < 0)
						die("%s", gb_bcast_strerror());
				}
				/* asleep, ranks that are done leave the CPU to the
				 * others until the last one is (the gather spins) */
				if (sync_end(&o, t_win, &win[2]) < 0)
					die("barrier failed");
				bad = (long long)gb_pattern_check(buf, (size_t)count, seed);
				if (gb_bcast_gather(&tm, root, MPI_COMM_WORLD, rec) < 0)
					die("%s", gb_bcast_strerror());
				win[0] = bad;
				MPI_Reduce(win, twin, 3, MPI_LONG_LONG, MPI_SUM, root,
					   MPI_COMM_WORLD);
				tbad = twin[0];
				window_late += twin[1];
				window_over += twin[2];
				if (rank == root) {
					struct row *r = &rows[nrows++];

					r->algo = a;
					r->size = s;
					r->rep = rep;
					r->index = index;
					r->start = rec[root].t_begin;
					r->completion = gb_bcast_completion(rec, n, root) / o.dilate;
					r->all_returned = gb_bcast_all_returned(rec, n, root) / o.dilate;
					r->mismatches = tbad;
					r->violations = gb_bcast_order_violations(rec, n);
					for (int i = 0; i < n; i++)
						r->hdr_bytes += rec[i].hdr_bytes;
					if (tbad || r->violations) {
						fprintf(stderr, "gridbcast: %s %.0f B rep %d: %lld "
							"mismatching bytes, %d order violations\n",
							o.algos[a], size, rep, tbad, r->violations);
						status = 1;
					}
					fprintf(of, "%s,%s,%s,", o.campaign, run_id, o.algos[a]);
					host_name(hosts, root, name, sizeof(name));
					csv_str(of, name);
					fprintf(of, ",%.0f,%d,%.9f,%.9g", size, index, r->start,
						r->completion);
					for (int m = 0; m < gb_ncostmodels; m++)
						csv_num(of, p->pred[m]);
					fputc(',', of);
					csv_str(of, o.load_state);
					fprintf(of, ",%d,%d,%d,%s,%s,", rep, root, n, mode,
						p->tree_via);
					csv_str(of, p->model);
					fputc(',', of);
					csv_str(of, p->pred_model);
					fprintf(of, ",%llu", (unsigned long long)r->hdr_bytes);
					csv_num(of, r->all_returned);
					csv_num(of, lb_cache);
					fprintf(of, ",%lld,%d", tbad, r->violations);
					csv_num(of, rep == 0 ? p->plan_s : 0);
					fprintf(of, ",%.0f,%g\n", p->seg, o.dilate);
					for (int i = 0; rf && i < n; i++) {
						host_name(hosts, i, name, sizeof(name));
						fprintf(rf, "%s,%s,%s,%.0f,%d,%d,", o.campaign,
							run_id, o.algos[a], size, index, i);
						csv_str(rf, name);
						fprintf(rf, ",%d", rec[i].parent);
						csv_num2(rf, rec[i].t_begin, 1);
						csv_num2(rf, rec[i].t_recv_done, 1);
						csv_num2(rf, rec[i].t_send_done, 1);
						csv_num2(rf, rec[i].t_send_start, 1);
						csv_num2(rf, rec[i].parent_send_start, 1);
						csv_num(rf, (rec[i].t_recv_done - rec[root].t_begin) /
							o.dilate);
						fprintf(rf, ",%d,%llu\n", rec[i].nchild,
							(unsigned long long)rec[i].hdr_bytes);
					}
				}
				index++;
			}
		}
	}

	if (rank == root) {
		if (gb_atomic_close(of, otmp, o.out, 1, 0) < 0)
			die("cannot write '%s'", o.out);
		if (rf && gb_atomic_close(rf, rtmp, o.ranks, 1, 0) < 0)
			die("cannot write '%s'", o.ranks);
		write_meta(&o, o.out, run_id, n, hosts, root, plans);
	}
	if (rank == root && !o.quiet) {
		host_name(hosts, root, name, sizeof(name));
		printf("gridbcast: %d ranks, root %s (rank %d), %s sends, %d reps, warm-up %d\n",
		       n, name, root, mode, o.reps, o.warmup);
		printf("trees planned from: %s\n", plans[o.nalgos > 1 ? o.nsizes : 0].model);
		printf("predictions from:   %s\n", plans[o.nalgos > 1 ? o.nsizes : 0].pred_model);
		if (o.dilate > 1)
			printf("time dilation x%g: the times below are the topology's (measured / %g)\n",
			       o.dilate, o.dilate);
		printf("%-14s %9s %10s %10s %10s %8s %8s %10s %10s %10s %9s\n", "algorithm", "size",
		       "median_s", "p10_s", "p90_s", "x_native", "x_lb", "pred_mat", "pred_plogp",
		       "pred_cont", "hdr_B");
		for (int s = 0; s < o.nsizes; s++) {
			double nat = median_of(rows, nrows, 0, s, NULL, NULL), lb = NAN;

			if (gb_bcast_topology())
				gb_bcast_lower_bound(gb_bcast_topology(), hosts, n, root,
						     o.sizes[s], &lb);
			for (int a = 0; a < o.nalgos; a++) {
				struct plan *p = &plans[a * o.nsizes + s];
				double p10, p90, med = median_of(rows, nrows, a, s, &p10, &p90);
				uint64_t hb = 0;

				for (int i = 0; i < nrows; i++)
					if (rows[i].algo == a && rows[i].size == s)
						hb = rows[i].hdr_bytes;
				printf("%-14s %9.0f %10.6f %10.6f %10.6f %8.3f %8.3f %10.6f "
				       "%10.6f %10.6f %9llu\n", o.algos[a], o.sizes[s], med, p10,
				       p90, med / nat, med / lb, p->pred[0], p->pred[1], p->pred[2],
				       (unsigned long long)hb);
			}
		}
		printf("lower bound: max over hosts of path latency + size / bottleneck; "
		       "x_lb = median / bound\n");
		if (o.window_s > 0)
			printf("start windows of %.0f ms: %lld late starts, %lld overruns (rank "
			       "broadcasts)\n", o.window_s * 1e3, window_late, window_over);
		for (int a = 0; a < o.nalgos; a++) {
			struct gb_bcast_adaptive_stats as;

			if (strcmp(o.algos[a], "adaptive"))
				continue;
			gb_bcast_adaptive_stats(&as);
			printf("adaptive: %llu lookups (warm-ups included), %llu advisor trees, "
			       "%llu fallbacks%s%s\n", (unsigned long long)as.calls,
			       (unsigned long long)as.advisor, (unsigned long long)as.fallbacks,
			       as.fallbacks ? "; last: " : "", as.fallbacks ? as.last_why : "");
		}
	}
	MPI_Bcast(&status, 1, MPI_INT, root, MPI_COMM_WORLD);
	free(buf);
	free(plans);
	free(rec);
	free(rows);
	free(hosts);
	MPI_Finalize();
	return status;
}
