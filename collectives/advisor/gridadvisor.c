/* SPDX-License-Identifier: MIT */
/*
 * gridadvisor - the broadcast advisor of Gupta & Vadhiyar (seed 000 s2.5,
 * Fig. 5): a persistent service that keeps broadcast trees planned for the
 * sizes the application is about to use, on the latest measured matrix.
 *
 *	gridadvisor --matrix FILE --out DIR [--applog FILE] [--planner NAME]
 *	            [--topology FILE] [--root HOST|RANK] [--scale F] [--once]
 *	            [--min-size 1K --max-size 2M] [-v]
 *
 *	loop until SIGTERM/SIGINT (--once: one pass):
 *	    matrix file changed (new version)?   reload; every size is due again
 *	    application log grew?                 predict (gb_adv_predict())
 *	    application running?  mode 2: sizes p, 2p, p/2 round-robin, budget
 *	                                  = time left until the predicted call,
 *	                                  shared by the sizes not yet planned
 *	    else                  mode 1: 1K, 2K, ... 2M round-robin, no budget
 *	                                  (the paper's fixed iteration counts)
 *	    plan (any planner of the registry), write DIR/tree-<B>.json
 *	    atomically, append one line to DIR/advisor.csv
 *
 * Choices where the paper is silent (the paper's service, too, ran forever):
 *   - "no time limit" in mode 1 is the planners' budget 0: the SA family's
 *     fixed 50 + 25 basicSA invocations (driverSA with an empty time
 *     duration, seed 000 s2.2); a plan of teragrid's 64 nodes takes ~0.1 s;
 *   - mode 1 makes one pass per matrix version and then only refreshes the
 *     trees (one pass per refresh period, 300 s, the monitor's period, times
 *     --scale) so that they stay fresh for the adaptive broadcast's age
 *     limit ($GRIDBED_ADVISOR_MAXAGE) without burning a core on identical
 *     plans;
 *   - mode 2's budget: the predicted call's time minus now, divided by the
 *     sizes still to plan in the pass, so that all three trees exist by the
 *     predicted call (at least 5 ms; --max-budget caps it).  Later passes
 *     (anytime planners only) re-plan with other seeds while time is left
 *     and replace a tree only when it is predicted faster on the same
 *     matrix;
 *   - the application is running while the time since its last call is at
 *     most three predicted gaps (one call: one refresh period); after that
 *     the advisor is back in mode 1;
 *   - trees are planned for one root (--root, default the topology's root,
 *     else node 0); the adaptive broadcast relabels for another root;
 *   - a matrix labelled "oracle" (gridmon --print-configured) makes every
 *     tree file and CSV line say so: an ablation, never a measurement
 *     (docs/architecture.md, decision 6).
 *
 * Signals: SIGTERM/SIGINT end the service with status 0, at once even in
 * the middle of a plan (no file is open then; every file is written
 * atomically, so nothing is left half-written).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gbadvisor.h"
#include "gbplan.h"
#include "gbtopo.h"
#include "gbutil.h"

#define REFRESH_S 300.0   /* schedule seconds between mode-1 refresh passes */
#define MIN_BUDGET 0.005  /* s: a mode-2 plan gets at least this */
#define MIN_PASS 0.05     /* s: later mode-2 passes need this much per plan */
#define POLL_S 0.02       /* s between looks at the matrix and the log */

static volatile sig_atomic_t stop, planning;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
	if (planning)
		_exit(0); /* only the planner is running: nothing to finish */
}

struct adv {
	/* options */
	const char *matrix, *out, *applog, *topo_path, *root_arg;
	const struct gb_planner *p;
	double scale, min_size, max_size, max_budget;
	int once, verbose, window;
	uint64_t seed;

	/* the matrix */
	struct gb_netmodel m;
	int have_m, oracle;
	char generator[96];
	struct stat mst;
	int root;
	struct gb_topo *topo;

	/* the application log and its prediction */
	struct gb_applog log;
	struct gb_adv_pred pred;

	/* mode 1: the sizes and the pass */
	double sizes[64];
	int nsizes, m1_next, m1_done;
	double m1_pass_start;

	/* mode 2 */
	double m2_size[3];
	int m2_next, m2_pass;
	double m2_start;       /* when the pass began */

	int csvfd;
	long decisions;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gridadvisor --matrix FILE --out DIR [--applog FILE] [--planner NAME]\n"
		"                   [--topology FILE] [--root HOST|RANK] [--scale F] [--once]\n"
		"                   [--min-size 1K --max-size 2M] [--seed N] [--window N]\n"
		"                   [--max-budget S] [-v]\n"
		"  --matrix FILE     the matrix to plan on (gridmon --out; re-read when its\n"
		"                    version changes); an oracle matrix (gridmon\n"
		"                    --print-configured) labels everything 'oracle'\n"
		"  --out DIR         tree files DIR/tree-<bytes>.json and DIR/advisor.csv\n"
		"  --applog FILE     the application log (GRIDBED_APPLOG); empty or absent:\n"
		"                    mode 1 (sizes --min-size .. --max-size, powers of two)\n"
		"  --planner NAME    any planner of 'gridtree list' (default clustered-sa)\n"
		"  --topology FILE   check the matrix's nodes; its root is the default root\n"
		"  --root HOST|RANK  the root the trees are planned for (default: the\n"
		"                    topology's root, else the matrix's first node)\n"
		"  --scale F         time scale: the refresh period is 300 s x F (default 1)\n"
		"  --once            one pass (mode 1: every size; mode 2: p, 2p, p/2), then exit\n"
		"  --seed N          planner seed (default 1)\n"
		"  --window N        calls the regression looks back at (default %d, 0: all)\n"
		"  --max-budget S    cap of a mode-2 plan's budget (default: none)\n"
		"  -v, --verbose     one line per decision on stderr\n"
		"Runs until SIGTERM or SIGINT (exit 0).  Formats: docs/formats.md.\n"
		"Exit: 0 ok; 1 failure; 2 bad input (docs/exit-status.md).\n",
		GB_ADV_WINDOW);
}

/* ---- the matrix ---------------------------------------------------- */

static int same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/*
 * Load the matrix if it changed.  Return: 1 a new matrix, 0 unchanged, -1
 * no file, -2 a file that is not a usable matrix (@err says why).
 */
static int matrix_poll(struct adv *A, struct gb_err *err)
{
	struct gb_netmodel m;
	struct gb_err why = { "" };
	struct stat st;
	char gen[96];
	int oracle = 0;

	err->msg[0] = '\0';
	if (stat(A->matrix, &st) < 0) {
		gb_err_set(err, "cannot read '%s': %s", A->matrix, strerror(errno));
		return -1;
	}
	if (A->have_m && same_stat(&st, &A->mst))
		return 0;
	memset(&m, 0, sizeof(m));
	if (gb_nm_load_json(&m, A->matrix, err) < 0 ||
	    gb_nm_check(&m, &why) < 0 ||
	    gb_adv_matrix_label(A->matrix, &oracle, gen, sizeof(gen)) < 0) {
		if (!err->msg[0] && why.msg[0])
			gb_err_set(err, "%s", why.msg);
		else if (!err->msg[0])
			gb_err_set(err, "'%s' is not a matrix file", A->matrix);
		gb_nm_release(&m);
		A->mst = st;       /* say it once per version of the file */
		return -2;
	}
	A->mst = st;
	if (A->have_m && m.version == A->m.version && m.version != 0 &&
	    oracle == A->oracle && m.n == A->m.n) {
		gb_nm_release(&m);     /* rewritten, same version: nothing new */
		return 0;
	}
	if (A->have_m && m.n != A->m.n) {
		gb_err_set(err, "matrix '%s' now has %d nodes, not %d: ignored", A->matrix,
			   m.n, A->m.n);
		gb_nm_release(&m);
		return -2;
	}
	gb_nm_release(&A->m);
	A->m = m;
	A->have_m = 1;
	A->oracle = oracle;
	snprintf(A->generator, sizeof(A->generator), "%s", gen[0] ? gen : "unknown");
	return 1;
}

/* --root and --topology against the first matrix; exit status 2 on bad input. */
static int check_first_matrix(struct adv *A)
{
	const struct gb_netmodel *m = &A->m;
	char *end;

	if (A->topo) {
		for (int i = 0; i < m->n; i++) {
			int h = gb_topo_find_node(A->topo, m->nodes[i].name);

			if (h < 0 || h >= A->topo->nhosts) {
				fprintf(stderr, "gridadvisor: --topology: matrix node '%s' is not a "
					"host of '%s'\n", m->nodes[i].name, A->topo_path);
				return 2;
			}
		}
	}
	A->root = 0;
	if (A->root_arg) {
		long r;

		A->root = gb_nm_find_node(m, A->root_arg);
		r = strtol(A->root_arg, &end, 10);
		if (A->root < 0 && *A->root_arg && !*end && r >= 0 && r < m->n)
			A->root = (int)r;
		if (A->root < 0) {
			fprintf(stderr, "gridadvisor: --root: '%s' is neither a node of matrix '%s' "
				"nor a node index below %d\n", A->root_arg, A->matrix, m->n);
			return 2;
		}
	} else if (A->topo && A->topo->root >= 0) {
		int r = gb_nm_find_node(m, A->topo->nodes[A->topo->root].name);

		A->root = r >= 0 ? r : 0;
	}
	return 0;
}

/* ---- output -------------------------------------------------------- */

static int csv_open(struct adv *A)
{
	char path[1024];
	struct stat st;
	static const char hdr[] =
		"wall_time,mono_time,mode,source,planner,root,predicted_size,predicted_gap,history,"
		"planned_size,budget_s,plan_s,predicted_cost,cost_model,matrix_version,seed,pass,"
		"written,file\n";

	snprintf(path, sizeof(path), "%s/advisor.csv", A->out);
	A->csvfd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (A->csvfd < 0 || fstat(A->csvfd, &st) < 0) {
		fprintf(stderr, "gridadvisor: --out: cannot write '%s': %s\n", path,
			strerror(errno));
		return -1;
	}
	if (st.st_size == 0 && write(A->csvfd, hdr, sizeof(hdr) - 1) < 0)
		return -1;
	return 0;
}

/* @x with @prec decimals, or an empty field for NAN */
static void num(char *buf, size_t len, double x, int prec)
{
	if (isfinite(x))
		snprintf(buf, len, "%.*f", prec, x);
	else
		buf[0] = 0;
}

/* One decision = one line, one write(2) on an O_APPEND file (never torn). */
static void csv_line(struct adv *A, int mode, double size, double budget, double plan_s,
		     double cost, const char *model, uint64_t seed, int pass, int written,
		     const char *file)
{
	char line[2048], ps[32], pg[32], c[32];
	struct timespec wt;
	int len;

	clock_gettime(CLOCK_REALTIME, &wt);
	num(ps, sizeof(ps), mode == 2 ? A->pred.size : NAN, 0);
	num(pg, sizeof(pg), mode == 2 ? A->pred.gap : NAN, 6);
	num(c, sizeof(c), cost, 9);
	len = snprintf(line, sizeof(line),
		       "%.6f,%.6f,%d,%s,%s,%s,%s,%s,%d,%.0f,%.6f,%.6f,%s,%s,%llu,%llu,%d,%d,%s\n",
		       (double)wt.tv_sec + wt.tv_nsec / 1e9, gb_now(), mode,
		       A->oracle ? "oracle" : "measured", A->p->name, A->m.nodes[A->root].name, ps,
		       pg, mode == 2 ? A->pred.n : 0, size, budget, plan_s, c, model,
		       (unsigned long long)A->m.version, (unsigned long long)seed, pass, written,
		       file);
	if (len > 0 && (size_t)len < sizeof(line) && write(A->csvfd, line, (size_t)len) < 0)
		fprintf(stderr, "gridadvisor: cannot append to %s/advisor.csv: %s\n", A->out,
			strerror(errno));
	A->decisions++;
}

/*
 * Plan @size with @budget and @seed, write the tree file (unless
 * @only_if_better and the file on disk is as good on the same matrix) and
 * the CSV line.  Return: 0 (also when a plugin or external planner failed:
 * printed, and the previous tree kept), or -1 after printing why.
 */
static int plan_one(struct adv *A, int mode, double size, double budget, uint64_t seed, int pass,
		    int only_if_better)
{
	const char *model = gb_adv_cost_model(A->p);
	const struct gb_costmodel *cm = gb_costmodel_find(model);
	struct gb_advtree_meta meta;
	struct gb_plan_args a;
	struct gb_tree t;
	char path[1024] = "";
	struct gb_err err = { "" };
	double t0, plan_s, cost;
	int ret, written = 0;

	memset(&a, 0, sizeof(a));
	a.root = A->root;
	a.size = size;
	a.seed = seed;
	a.budget_s = budget;
	/* what a message of this size gets: slow start after idle (nm_tcp.c) */
	struct gb_netmodel ms;
	memset(&ms, 0, sizeof(ms));
	if (gb_nm_for_size(&ms, &A->m, size) < 0) {
		fprintf(stderr, "gridadvisor: out of memory planning %.0f B\n", size);
		return -1;
	}
	t0 = gb_now();
	planning = 1;
	if (stop)
		_exit(0);
	ret = gb_plan_err(A->p, &ms, &a, &t, &err);
	planning = 0;
	plan_s = gb_now() - t0;
	if (ret < 0 && A->p->path) {
		/* a plugin's fault is contained (docs/plugins.md): say it, keep the
		 * tree file there is, and go on to the next size and pass */
		fprintf(stderr, "gridadvisor: %s (%.0f B); keeping the previous tree\n", err.msg,
			size);
		gb_nm_release(&ms);
		return 0;
	}
	if (ret < 0) {
		fprintf(stderr, "gridadvisor: planner '%s' failed for %.0f B: %s\n", A->p->name,
			size, strerror(-ret));
		gb_nm_release(&ms);
		return -1;
	}
	cost = cm ? cm->cost(&ms, &t, size, NULL) : NAN;
	gb_nm_release(&ms);
	if (only_if_better) {
		struct gb_advtree old;

		gb_advtree_path(A->out, size, path, sizeof(path));
		if (gb_advtree_load(path, &old, NULL) == 0) {
			int keep = old.meta.matrix_version == A->m.version &&
				   old.meta.oracle == A->oracle &&
				   !strcmp(old.meta.planner, A->p->name) &&
				   !strcmp(old.meta.cost_model, model) &&
				   isfinite(old.meta.predicted_cost) &&
				   !(cost < old.meta.predicted_cost);

			gb_advtree_release(&old);
			if (keep)
				goto log;
		}
	}
	memset(&meta, 0, sizeof(meta));
	snprintf(meta.planner, sizeof(meta.planner), "%s", A->p->name);
	meta.size = size;
	meta.mode = mode;
	meta.oracle = A->oracle;
	snprintf(meta.matrix, sizeof(meta.matrix), "%s", A->matrix);
	meta.matrix_version = A->m.version;
	snprintf(meta.generator, sizeof(meta.generator), "%s", A->generator);
	snprintf(meta.cost_model, sizeof(meta.cost_model), "%s", model);
	meta.predicted_cost = cost;
	meta.planned_mono = gb_now();
	meta.planned_wall = (double)time(NULL);
	meta.plan_seconds = plan_s;
	meta.budget_s = budget;
	meta.seed = seed;
	meta.pred_size = mode == 2 ? A->pred.size : NAN;
	meta.pred_gap = mode == 2 ? A->pred.gap : NAN;
	meta.history = mode == 2 ? A->pred.n : 0;
	ret = gb_advtree_save(A->out, &meta, &t, &A->m, path, sizeof(path));
	if (ret < 0) {
		fprintf(stderr, "gridadvisor: --out: cannot write the tree for %.0f B in '%s': %s\n",
			size, A->out, strerror(-ret));
		gb_tree_release(&t);
		return -1;
	}
	written = 1;
log:
	gb_tree_release(&t);
	csv_line(A, mode, size, budget, plan_s, cost, model, seed, pass, written, path);
	if (A->verbose)
		fprintf(stderr, "gridadvisor: mode %d%s: %.0f B, budget %.3f s, planned in %.3f s, "
			"%s %.6f s, matrix v%llu%s\n", mode, pass ? " (later pass)" : "", size,
			budget, plan_s, model, cost, (unsigned long long)A->m.version,
			written ? "" : ", kept the better tree on disk");
	return 0;
}

/* ---- the two modes ------------------------------------------------- */

static int app_running(struct adv *A, double now)
{
	const struct gb_applog *l = &A->log;
	double last, idle;

	if (!l->n)
		return 0;
	if (A->once)
		return 1;  /* one pass over what the log says */
	last = l->e[l->n - 1].t;
	if (l->n == 1 || !isfinite(A->pred.gap)) {
		idle = REFRESH_S * A->scale;
	} else {
		double g = l->e[l->n - 1].t - l->e[l->n - 2].t;

		idle = 3 * fmax(A->pred.gap, g);
	}
	return now - last <= idle;
}

static void m2_new_prediction(struct adv *A)
{
	gb_adv_predict(A->log.e, A->log.n, A->window, &A->pred);
	A->m2_size[0] = A->pred.size;
	A->m2_size[1] = A->pred.size * 2;
	A->m2_size[2] = fmax(1, floor(A->pred.size / 2));
	A->m2_next = 0;
	A->m2_pass = 0;
	A->m2_start = gb_now();
}

/* One mode-2 step.  Return: 1 a plan was made, 0 nothing to do now, -1 error. */
static int m2_step(struct adv *A)
{
	double now = gb_now(), budget, left;
	int k = A->m2_next;

	if (A->once && A->m2_pass > 0)
		return 0;
	if (!isfinite(A->pred.gap)) {
		/* one call so far: no gap to share; plan as mode 1 would */
		if (A->m2_pass > 0)
			return 0;
		budget = 0;
	} else {
		left = A->once ? A->pred.gap - (now - A->m2_start) : A->pred.next_t - now;
		budget = fmax(left, 0) / (3 - k);
		if (A->m2_pass > 0) {
			if (!(A->p->flags & GB_PLAN_ANYTIME) || budget < MIN_PASS)
				return 0;
		}
		budget = fmax(budget, MIN_BUDGET);
		if (A->max_budget > 0)
			budget = fmin(budget, A->max_budget);
	}
	if (plan_one(A, 2, A->m2_size[k], budget, A->seed + (uint64_t)A->m2_pass, A->m2_pass,
		     A->m2_pass > 0) < 0)
		return -1;
	if (++A->m2_next == 3) {
		A->m2_next = 0;
		A->m2_pass++;
	}
	return 1;
}

static int m1_step(struct adv *A)
{
	double now = gb_now();

	if (A->m1_done) {
		if (A->once || now - A->m1_pass_start < REFRESH_S * A->scale)
			return 0;
		A->m1_done = 0;    /* refresh: keep the trees fresh */
		A->m1_next = 0;
	}
	if (A->m1_next == 0)
		A->m1_pass_start = now;
	if (plan_one(A, 1, A->sizes[A->m1_next], 0, A->seed, 0, 0) < 0)
		return -1;
	if (++A->m1_next == A->nsizes) {
		A->m1_next = 0;
		A->m1_done = 1;
	}
	return 1;
}

/* ---- main ---------------------------------------------------------- */

static int parse_size_opt(const char *opt, const char *s, double *v)
{
	if (gb_parse_size(s, v) < 0 || *v < 1 || *v > 2147483647.0) {
		fprintf(stderr, "gridadvisor: %s: '%s' is not a size from 1 byte to 2G (use 1K, "
			"2M)\n", opt, s);
		return -1;
	}
	return 0;
}

static int parse_args(struct adv *A, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "matrix", required_argument, NULL, 'm' },
		{ "out", required_argument, NULL, 'o' },
		{ "applog", required_argument, NULL, 'a' },
		{ "planner", required_argument, NULL, 'p' },
		{ "topology", required_argument, NULL, 't' },
		{ "root", required_argument, NULL, 'r' },
		{ "scale", required_argument, NULL, 's' },
		{ "once", no_argument, NULL, '1' },
		{ "min-size", required_argument, NULL, 'n' },
		{ "max-size", required_argument, NULL, 'x' },
		{ "seed", required_argument, NULL, 'e' },
		{ "window", required_argument, NULL, 'w' },
		{ "max-budget", required_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *planner = "clustered-sa";
	char *end;
	struct gb_err err;
	int c;

	A->scale = 1;
	A->min_size = 1024;
	A->max_size = 2 * 1048576;
	A->window = GB_ADV_WINDOW;
	A->seed = 1;
	opterr = 0;     /* one line of ours names the fault, not getopt's and the usage */
	while ((c = getopt_long(argc, argv, ":vh", lo, NULL)) != -1) {
		switch (c) {
		case 'm': A->matrix = optarg; break;
		case 'o': A->out = optarg; break;
		case 'a': A->applog = optarg; break;
		case 'p': planner = optarg; break;
		case 't': A->topo_path = optarg; break;
		case 'r': A->root_arg = optarg; break;
		case 's':
			A->scale = strtod(optarg, &end);
			if (*end || !(A->scale > 0) || !isfinite(A->scale)) {
				return gb_refuse("gridadvisor",
						 "--scale: '%s' is not a positive number", optarg);
			}
			break;
		case '1': A->once = 1; break;
		case 'n':
			if (parse_size_opt("--min-size", optarg, &A->min_size) < 0)
				return 2;
			break;
		case 'x':
			if (parse_size_opt("--max-size", optarg, &A->max_size) < 0)
				return 2;
			break;
		case 'e':
			errno = 0;
			A->seed = strtoull(optarg, &end, 0);
			if (*end || !*optarg || errno) {
				return gb_refuse("gridadvisor", "--seed: '%s' is not an integer",
						 optarg);
			}
			break;
		case 'w':
			A->window = (int)strtol(optarg, &end, 10);
			if (*end || !*optarg || A->window < 0 || A->window > 100000) {
				return gb_refuse("gridadvisor", "--window: '%s' is not 0..100000",
						 optarg);
			}
			break;
		case 'b':
			A->max_budget = strtod(optarg, &end);
			if (*end || !(A->max_budget > 0)) {
				fprintf(stderr, "gridadvisor: --max-budget: '%s' is not a positive "
					"number of seconds\n", optarg);
				return 2;
			}
			break;
		case 'v': A->verbose = 1; break;
		case 'h': usage(stdout); exit(0);
		case ':':
			fprintf(stderr, "gridadvisor: option '%s' needs a value (see gridadvisor "
				"--help)\n", argv[optind - 1]);
			return 2;
		default:
			return gb_refuse("gridadvisor",
					 "unknown option '%s' (see gridadvisor --help)",
					 argv[optind - 1]);
		}
	}
	if (optind != argc || !A->matrix || !A->out) {
		return gb_refuse("gridadvisor", "%s%s%s (see gridadvisor --help)", optind != argc ?
				 "unexpected argument '" : !A->matrix ? "--matrix FILE is required"
				 : "--out DIR is required", optind != argc ? argv[optind] : "",
				 optind != argc ? "'" : "");
	}
	A->p = gb_planner_find(planner);
	if (!A->p && !strchr(planner, ':')) {
		return gb_refuse("gridadvisor",
				 "--planner: unknown planner '%s' (see gridtree list)", planner);
	}
	if (!A->p && gb_planner_resolve(planner, &A->p, &err) < 0)
		return gb_refuse("gridadvisor", "--planner: %s", err.msg);
	if (A->min_size > A->max_size) {
		return gb_refuse("gridadvisor", "--min-size %.0f is above --max-size %.0f",
				 A->min_size, A->max_size);
	}
	for (double s = A->min_size; s <= A->max_size && A->nsizes < 64; s *= 2)
		A->sizes[A->nsizes++] = s;
	if (A->topo_path) {
		struct gb_diag d;
		char line[GB_DIAG_LINE_MAX];
		int ret;

		memset(&d, 0, sizeof(d));
		ret = gb_topo_load(A->topo_path, &A->topo, &d);
		if (ret == -EINVAL) {
			return gb_refuse("gridadvisor", "%s",
					 gb_diag_format(&d, A->topo_path, line, sizeof(line)));
		}
		if (ret < 0) {
			return gb_refuse("gridadvisor", "--topology: cannot read '%s': %s",
					 A->topo_path, strerror(-ret));
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct adv A;
	struct timespec nap = { 0, (long)(POLL_S * 1e9) };
	int ret, r, waited = 0;

	memset(&A, 0, sizeof(A));
	A.csvfd = -1;
	ret = parse_args(&A, argc, argv);
	if (ret)
		goto cleanup;
	gb_catch_signals(on_signal, 0); /* sleeps end */

	/* The first matrix: --once needs it now; the service waits for
	 * gridmon's first round (a campaign may start both together). */
	for (;;) {
		struct gb_err err;

		r = matrix_poll(&A, &err);
		if (r > 0)
			break;
		if (r == -2 || (r == -1 && A.once)) {
			fprintf(stderr, "gridadvisor: --matrix: %s\n", err.msg);
			ret = 2;
			goto cleanup;
		}
		if (!waited++)
			fprintf(stderr, "gridadvisor: waiting for the matrix '%s'\n", A.matrix);
		nanosleep(&nap, NULL);
		if (stop) {
			ret = 0;
			goto cleanup;
		}
	}
	ret = check_first_matrix(&A);
	if (ret)
		goto cleanup;
	if (mkdir(A.out, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "gridadvisor: --out: cannot create '%s': %s\n", A.out,
			strerror(errno));
		ret = 1;
		goto cleanup;
	}
	ret = 1;
	if (csv_open(&A) < 0)
		goto cleanup;
	if (A.applog && gb_applog_init(&A.log, A.applog) < 0)
		goto cleanup;
	if (A.verbose)
		fprintf(stderr, "gridadvisor: %s on %s matrix '%s' v%llu (%d nodes), root %s, %s\n",
			A.p->name, A.oracle ? "ORACLE" : "measured", A.matrix,
			(unsigned long long)A.m.version, A.m.n, A.m.nodes[A.root].name,
			A.applog ? A.applog : "no application log");

	while (!stop) {
		struct gb_err err;
		int did = 0;

		r = matrix_poll(&A, &err);
		if (r == -2)
			fprintf(stderr, "gridadvisor: --matrix: %s; planning on v%llu\n", err.msg,
				(unsigned long long)A.m.version);
		if (r > 0) {
			/* a new matrix: every size is due again */
			A.m1_next = 0;
			A.m1_done = 0;
			A.m2_next = 0;
			A.m2_pass = 0;
			A.m2_start = gb_now();
			if (A.verbose)
				fprintf(stderr, "gridadvisor: matrix v%llu\n",
					(unsigned long long)A.m.version);
		}
		if (A.applog) {
			r = gb_applog_poll(&A.log);
			if (r < 0) {
				fprintf(stderr, "gridadvisor: --applog: cannot read '%s': %s\n",
					A.applog, strerror(-r));
				goto cleanup;
			}
			if (r > 0 || (A.log.n == 0 && A.pred.n))
				m2_new_prediction(&A);
		}
		if (app_running(&A, gb_now()))
			r = m2_step(&A);
		else
			r = m1_step(&A);
		if (r < 0)
			goto cleanup;
		did = r;
		if (A.once && !did)
			break;
		if (!did)
			nanosleep(&nap, NULL);
	}
	ret = 0;
cleanup:
	if (A.csvfd >= 0)
		close(A.csvfd);
	gb_applog_release(&A.log);
	gb_nm_release(&A.m);
	gb_topo_free(A.topo);
	return ret;
}
