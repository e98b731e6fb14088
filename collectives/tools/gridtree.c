/* SPDX-License-Identifier: MIT */
/*
 * gridtree - plan and score broadcast trees (issue 3).
 *
 *	gridtree list
 *	gridtree plan --algo NAME (--topo FILE | --matrix FILE) --root NODE --size BYTES
 *	              [--seed N] [--budget-ms N] [--model M] [--o SECONDS]
 *	              [--format text|json|dot] [--arrivals] [--stripes K]
 *	gridtree eval (--tree FILE | --algo NAME --root NODE [--seed N] [--budget-ms N]
 *	              [--model M]) (--topo FILE | --matrix FILE) --size BYTES [--format text|json]
 *	              [--arrivals] [--stripes K]
 *	gridtree sim gupta-fig3|fkaier ...
 *	gridtree pools --matrix FILE --percent P
 *	gridtree nodes (--topo FILE | --matrix FILE)
 *
 * Subcommands are dispatched from a table; each has --help.  Exit status:
 * 0 success, 1 failure, 2 usage error or bad input (a file that is
 * malformed or cannot be read; docs/exit-status.md).  Errors are one line
 * on stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_impl.h"
#include "toolcli.h"

#define EXIT_USAGE 2

/* Default initiation cost o for models built from a topology file: the
 * topology says nothing about hosts' software overhead; 10 us is the order
 * of an MPI_Send's fixed cost over TCP on a LAN (seed 003 slide 18 measured
 * 35-300 us on 2003 hardware). */
#define DEFAULT_O 10e-6

__attribute__((format(printf, 1, 0))) static void vsay(const char *fmt, va_list ap)
{
	fputs("gridtree: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* Say what is wrong with the command line and exit with EXIT_USAGE. */
__attribute__((format(printf, 1, 2))) static void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

/* Say what failed; returns the exit status 1. */
__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	return 1;
}

/* ------------------------------------------------------------------ */
/* Shared option handling                                              */
/* ------------------------------------------------------------------ */

enum { OPT_ALGO = 256, OPT_TOPO, OPT_MATRIX, OPT_ROOT, OPT_SIZE, OPT_SEED, OPT_BUDGET,
       OPT_MODEL, OPT_O, OPT_FORMAT, OPT_TREE, OPT_ARRIVALS, OPT_STRIPES };

/* The options of the commands that load a model (plan, eval): cmd_opt(). */
struct cmd_opts {
	const char *topo;       /* --topo */
	const char *matrix;     /* --matrix */
	double o;               /* --o */
	int format;             /* --format: 0 text, 1 json, 2 dot */
	int dot;                /* whether dot is a format of this command */
	int arrivals;           /* --arrivals (text only) */
	int stripes;            /* --stripes (text only): segments down this many trees */
};

/* struct cmd_opts' options, for an option table. */
#define CMD_OPTIONS                                            \
	{ "topo", required_argument, NULL, OPT_TOPO },         \
	{ "matrix", required_argument, NULL, OPT_MATRIX },     \
	{ "o", required_argument, NULL, OPT_O },               \
	{ "format", required_argument, NULL, OPT_FORMAT },     \
	{ "arrivals", no_argument, NULL, OPT_ARRIVALS },       \
	{ "stripes", required_argument, NULL, OPT_STRIPES }

/* Load the model named by --topo or --matrix; prints the error.  Returns 0
 * or the exit status (2: the file is at fault). */
static int load_model(const struct cmd_opts *co, struct gb_netmodel *m)
{
	if (!!co->topo == !!co->matrix)
		die_usage("give exactly one of --topo FILE and --matrix FILE");
	return tool_load_model_cli("gridtree", m, co->topo, co->matrix, co->o);
}

static int parse_node(const struct gb_netmodel *m, const char *s)
{
	int v = gb_nm_find_node(m, s);
	char *end;
	long x;

	if (v >= 0)
		return v;
	/* a plain index is accepted when no node carries that name */
	x = strtol(s, &end, 10);
	if (*s && !*end && x >= 0 && x < m->n)
		return (int)x;
	return -1;
}

static double parse_size_opt(const char *s)
{
	double b;

	if (gb_parse_size(s, &b) < 0)
		die_usage("size '%s' is not a size (use bytes, or 64K, 1M, ...)", s);
	if (b > GB_MSG_MAX)
		die_usage("size '%s' is above %.0f bytes, the largest message gridbcast sends", s,
			  GB_MSG_MAX);
	return b;
}

static double parse_double_opt(const char *what, const char *s)
{
	char *end;
	double x = strtod(s, &end);

	if (!*s || *end || !isfinite(x) || x < 0)
		die_usage("%s '%s' is not a non-negative number", what, s);
	return x;
}

static uint64_t parse_u64_opt(const char *what, const char *s)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (!*s || *end || errno || *s == '-')
		die_usage("%s '%s' is not a non-negative integer", what, s);
	return x;
}

static int parse_format(const char *s, int allow_dot)
{
	if (strcmp(s, "text") == 0)
		return 0;
	if (strcmp(s, "json") == 0)
		return 1;
	if (allow_dot && strcmp(s, "dot") == 0)
		return 2;
	die_usage("unknown format '%s' (use text, json%s)", s, allow_dot ? " or dot" : "");
	return -1;
}

/* Take option @c if it is one of struct cmd_opts': 1 if it was, else 0. */
static int cmd_opt(struct cmd_opts *co, int c, const char *arg)
{
	if (c == OPT_TOPO)
		co->topo = arg;
	else if (c == OPT_MATRIX)
		co->matrix = arg;
	else if (c == OPT_O)
		co->o = parse_double_opt("initiation cost", arg);
	else if (c == OPT_FORMAT)
		co->format = parse_format(arg, co->dot);
	else if (c == OPT_ARRIVALS)
		co->arrivals = 1;
	else if (c == OPT_STRIPES) {
		co->stripes = (int)parse_u64_opt("stripes", arg);
		if (co->stripes < 1 || co->stripes > GB_STRIPES_MAX)
			die_usage("stripes '%s' is not a number of trees from 1 to %d", arg,
				  GB_STRIPES_MAX);
	} else
		return 0;
	return 1;
}

static void model_summary(FILE *f, const struct cmd_opts *co, const struct gb_netmodel *m)
{
	fprintf(f, "model      %s: %d nodes, %d clusters, %d sites%s\n",
		co->topo ? co->topo : co->matrix, m->n, m->nclusters, m->nsites,
		m->path ? ", routed paths" : "");
}

static void print_tree_text(FILE *f, const struct gb_netmodel *m, const struct gb_tree *t)
{
	fprintf(f, "tree       children in send order; * leaves the site, + leaves the cluster\n");
	for (int k = 0; k < t->n; k++) {
		if (!t->nchild[k])
			continue;
		fprintf(f, "  %s ->", m->nodes[k].name);
		for (int i = 0; i < t->nchild[k]; i++) {
			int v = t->child[t->cstart[k] + i];
			const char *mark = "";

			if (m->nodes[v].site != m->nodes[k].site)
				mark = "*";
			else if (m->nodes[v].cluster != m->nodes[k].cluster)
				mark = "+";
			fprintf(f, " %s%s", m->nodes[v].name, mark);
		}
		fputc('\n', f);
	}
}

/* A matrix with the hosts' TCP stack: its bandwidths as a message of @size
 * gets them (slow start after idle, core/nm_tcp.c), as gridadvisor and
 * libgridbcast plan.  A topology's model is left as it is. */
static int at_size(struct gb_netmodel *m, double size)
{
	struct gb_netmodel s;

	memset(&s, 0, sizeof(s));
	if (!m->tcp_restart)
		return 0;
	if (gb_nm_for_size(&s, m, size) < 0) {
		gb_nm_release(m);
		return fail("out of memory");
	}
	gb_nm_release(m);
	*m = s;
	return 0;
}

/* Returns the segment size of the second column (0: whole only). */
static double print_costs(FILE *f, const struct gb_netmodel *m, const struct gb_tree *t,
			  double size, const char *highlight, int k)
{
	/* the segment size libgridbcast's root would choose (GRIDBED_SEGMENT=auto) */
	double seg = gb_seg_choose(m, t, size, 1, 0, NULL);

	fprintf(f, "predicted  completion time of %.0f B, whole", size);
	if (seg > 0)
		fprintf(f, "; and in segments of %.0f B, the root's choice", seg);
	if (seg > 0 && k > 1)
		fprintf(f, "; and those down %d trees (stripes)", k);
	fprintf(f, "\n");
	for (int i = 0; i < gb_ncostmodels; i++) {
		double c = gb_costmodels[i].cost(m, t, size, NULL);
		int hl = highlight && strcmp(highlight, gb_costmodels[i].name) == 0;

		fprintf(f, "  %-11s %12.6f s", gb_costmodels[i].name, c);
		if (seg > 0)
			fprintf(f, "   %12.6f s", gb_costmodels[i].cost_seg(m, t, size, seg, NULL));
		if (seg > 0 && k > 1) {
			double x = gb_cost_predict(&gb_costmodels[i], m, t, size, seg, k, NULL);

			if (isnan(x))
				fprintf(f, "   %12s  ", "-");
			else
				fprintf(f, "   %12.6f s", x);
		}
		fprintf(f, "%s\n", hl ? "   (optimised)" : "");
	}
	return seg;
}

/* When each node has the whole message under every model, in segments of
 * @seg bytes (print_costs()'s choice; 0: whole): to set beside a run's
 * per-rank times (gridbcast --ranks, recv_after_root). */
static int print_arrivals(FILE *f, const struct gb_netmodel *m, const struct gb_tree *t,
			  double size, double seg, int k)
{
	double *arr = calloc((size_t)m->n * (size_t)gb_ncostmodels, sizeof(double));

	if (!arr)
		return fail("out of memory");
	if (seg <= 0)
		k = 1;
	for (int i = 0; i < gb_ncostmodels; i++)
		if (isnan(gb_cost_predict(&gb_costmodels[i], m, t, size, seg, k,
					  arr + (size_t)i * m->n)))
			for (int v = 0; v < m->n; v++)
				arr[(size_t)i * m->n + v] = NAN;
	fprintf(f, "arrivals   when each node has the message (s), %s%s\n  %-16s",
		seg > 0 ? "in the root's segments" : "whole", k > 1 ? " down the stripes" : "",
		"node");
	for (int i = 0; i < gb_ncostmodels; i++)
		fprintf(f, " %12s", gb_costmodels[i].name);
	fprintf(f, "\n");
	for (int v = 0; v < m->n; v++) {
		fprintf(f, "  %-16s", m->nodes[v].name);
		for (int i = 0; i < gb_ncostmodels; i++)
			if (isnan(arr[(size_t)i * m->n + v]))
				fprintf(f, " %12s", "-");
			else
				fprintf(f, " %12.6f", arr[(size_t)i * m->n + v]);
		fprintf(f, "\n");
	}
	free(arr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* list                                                                */
/* ------------------------------------------------------------------ */

static void usage_list(FILE *f)
{
	fprintf(f, "usage: gridtree list [--names]\n"
		"  Print the planner registry (in registry order) and the cost models.\n"
		"  --names   planner names only, one per line (for scripts)\n");
}

static int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "names", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct tool_cli cli = { "gridtree: list", usage_list };
	int names = 0, c, st;

	while ((c = tool_getopt(argc, argv, "h", opts, &cli, &st)) != -1)
		if (c == 'n')
			names = 1;
	if (st >= 0)
		return st;
	if (names) {
		for (int i = 0; i < gb_nplanners; i++)
			printf("%s\n", gb_planners[i].name);
		return 0;
	}
	printf("planners:\n");
	for (int i = 0; i < gb_nplanners; i++) {
		const struct gb_planner *p = &gb_planners[i];
		char fl[32] = "";

		snprintf(fl, sizeof(fl), "%s%s%s", p->flags & GB_PLAN_ANYTIME ? "anytime " : "",
			 p->flags & GB_PLAN_STATIC ? "static " : "",
			 p->flags & GB_PLAN_CLUSTER ? "cluster " : "");
		printf("  %-14s %-9s %s\n", p->name, fl, p->summary);
	}
	printf("cost models:\n");
	for (int i = 0; i < gb_ncostmodels; i++)
		printf("  %-14s %s\n", gb_costmodels[i].name, gb_costmodels[i].summary);
	return 0;
}

/* ------------------------------------------------------------------ */
/* plan                                                                */
/* ------------------------------------------------------------------ */

static void usage_plan(FILE *f)
{
	fprintf(f,
		"usage: gridtree plan --algo NAME (--topo FILE | --matrix FILE) --root NODE\n"
		"                     --size BYTES [--seed N] [--budget-ms N] [--model M]\n"
		"                     [--o SECONDS] [--format text|json|dot] [--arrivals]\n"
		"                     [--stripes K]\n"
		"  Plan a broadcast tree and print it with its predicted time under every\n"
		"  cost model.\n"
		"  --algo NAME      a planner of 'gridtree list', plugin:FILE.so (a planner\n"
		"                   plugin) or external:PROGRAM (docs/plugins.md)\n"
		"  --topo FILE      a topology (static latencies and bottleneck bandwidths)\n"
		"  --matrix FILE    a matrix file (docs/formats.md), e.g. from gridmon\n"
		"  --root NODE      root node, by name (or index)\n"
		"  --size BYTES     message size: bytes, or 64K, 1M (= 1048576), ...\n"
		"  --seed N         seed for randomised planners (default 1)\n"
		"  --budget-ms N    time budget of anytime planners (default: paper's),\n"
		"                   and of plugins and external planners (default 5000)\n"
		"  --model M        cost model the planner optimises (default: its own)\n"
		"  --o SECONDS      initiation cost per node with --topo (default %g)\n"
		"  --format F       text (default), json (docs/formats.md) or dot\n"
		"  --arrivals       (text) when each node has the message, per model\n"
		"  --stripes K      (text) also predict the root's segments down K trees\n"
		"                   (GRIDBED_STRIPES; the models that have that schedule)\n",
		DEFAULT_O);
}

/* The planning options (plan, and eval --algo): plan_opt(). */
struct plan_opts {
	const struct gb_planner *p; /* --algo */
	const char *root;           /* --root */
	struct gb_plan_args a;      /* --seed, --budget-ms, --model; the size */
};

#define PLAN_OPTIONS                                               \
	{ "algo", required_argument, NULL, OPT_ALGO },             \
	{ "root", required_argument, NULL, OPT_ROOT },             \
	{ "seed", required_argument, NULL, OPT_SEED },             \
	{ "budget-ms", required_argument, NULL, OPT_BUDGET },      \
	{ "model", required_argument, NULL, OPT_MODEL }

/* Take option @c of PLAN_OPTIONS into @po; 0 when @c is not one of them. */
static int plan_opt(struct plan_opts *po, int c, const char *arg)
{
	struct gb_err err;

	switch (c) {
	case OPT_ALGO:
		po->p = gb_planner_find(arg);
		if (!po->p && !strchr(arg, ':'))
			die_usage("unknown planner '%s' (see 'gridtree list')", arg);
		if (!po->p && gb_planner_resolve(arg, &po->p, &err) < 0)
			die_usage("--algo: %s", err.msg);
		return 1;
	case OPT_ROOT:
		po->root = arg;
		return 1;
	case OPT_SEED:
		po->a.seed = parse_u64_opt("seed", arg);
		return 1;
	case OPT_BUDGET:
		po->a.budget_s = parse_double_opt("budget", arg) * 1e-3;
		return 1;
	case OPT_MODEL:
		if (!gb_costmodel_find(arg))
			die_usage("unknown cost model '%s' (see 'gridtree list')", arg);
		po->a.model = arg;
		return 1;
	}
	return 0;
}

/* Plan @po's tree (its --root given) on @m into @t, timing it in *@dt;
 * prints the error.  Returns 0 or the exit status (2: --root names no node). */
static int plan_tree(struct plan_opts *po, const struct gb_netmodel *m, struct gb_tree *t,
		     double *dt)
{
	struct gb_err why = { "" };
	double t0;
	int ret;

	po->a.root = parse_node(m, po->root);
	if (po->a.root < 0) {
		fail("unknown root node '%s'", po->root);
		return EXIT_USAGE;
	}
	t0 = gb_now();
	ret = gb_plan_err(po->p, m, &po->a, t, &why);
	*dt = gb_now() - t0;
	if (ret < 0) {
		if (po->p->path)
			return fail("%s", why.msg);
		return fail("planner '%s' failed: %s", po->p->name, strerror(-ret));
	}
	return 0;
}

static int cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
		PLAN_OPTIONS,
		CMD_OPTIONS,
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct tool_cli cli = { "gridtree: plan", usage_plan };
	struct cmd_opts co = { NULL, NULL, DEFAULT_O, 0, 1, 0, 1 };
	struct plan_opts po = { NULL, NULL, { 0, -1, 1, 0, NULL } };
	const struct gb_planner *p;
	struct gb_netmodel m = { 0 };
	struct gb_tree t = { 0 };
	int c, st, ret;
	double dt, seg;

	while ((c = tool_getopt(argc, argv, "h", opts, &cli, &st)) != -1) {
		if (cmd_opt(&co, c, optarg) || plan_opt(&po, c, optarg))
			continue;
		if (c == OPT_SIZE)
			po.a.size = parse_size_opt(optarg);
	}
	if (st >= 0)
		return st;
	if (!(p = po.p))
		die_usage("plan: --algo is required");
	if (co.arrivals && co.format)
		die_usage("plan: --arrivals goes with the text format only");
	if (!po.root)
		die_usage("plan: --root is required");
	if (po.a.size < 0)
		die_usage("plan: --size is required");
	if ((ret = load_model(&co, &m)) || (ret = at_size(&m, po.a.size)))
		return ret;
	if ((ret = plan_tree(&po, &m, &t, &dt))) {
		gb_nm_release(&m);
		return ret;
	}
	if (co.format == 1) {
		if (gb_tree_save_json(&t, &m, p->name, po.a.size, "-") < 0)
			ret = fail("cannot write the tree: %s", strerror(EIO));
	} else if (co.format == 2) {
		if (gb_tree_write_dot(&t, &m, stdout) < 0)
			ret = fail("cannot write the tree: %s", strerror(EIO));
	} else {
		printf("planner    %s: %s\n", p->name, p->summary);
		model_summary(stdout, &co, &m);
		printf("root       %s, size %.0f B, seed %llu", m.nodes[po.a.root].name, po.a.size,
		       (unsigned long long)po.a.seed);
		if ((p->flags & GB_PLAN_ANYTIME) && po.a.budget_s > 0)
			printf(", budget %.0f ms", po.a.budget_s * 1e3);
		else if (p->flags & GB_PLAN_ANYTIME)
			printf(", no budget (the paper's fixed invocation counts)");
		printf("\nplanning   %.3f ms\n", dt * 1e3);
		print_tree_text(stdout, &m, &t);
		seg = print_costs(stdout, &m, &t, po.a.size, po.a.model, co.stripes);
		if (co.arrivals && print_arrivals(stdout, &m, &t, po.a.size, seg, co.stripes))
			ret = 1;
	}
	gb_tree_release(&t);
	gb_nm_release(&m);
	return ret;
}

/* ------------------------------------------------------------------ */
/* eval                                                                */
/* ------------------------------------------------------------------ */

static void usage_eval(FILE *f)
{
	fprintf(f,
		"usage: gridtree eval (--tree FILE | --algo NAME --root NODE [--seed N]\n"
		"                     [--budget-ms N] [--model M])\n"
		"                     (--topo FILE | --matrix FILE) --size BYTES\n"
		"                     [--o SECONDS] [--format text|json] [--arrivals]\n"
		"                     [--stripes K]\n"
		"  Score a tree under every cost model: an existing one (--tree: the JSON of\n"
		"  'gridtree plan --format json'; nodes are matched by name), or the one\n"
		"  --algo plans (a planner, plugin:FILE.so or external:PROGRAM, with plan's\n"
		"  options).  --arrivals (text): when each node has the message, per model.\n"
		"  --stripes K (text): also the root's segments down K trees\n"
		"  (GRIDBED_STRIPES).\n");
}

static int cmd_eval(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, OPT_TREE },
		PLAN_OPTIONS,
		CMD_OPTIONS,
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct tool_cli cli = { "gridtree: eval", usage_eval };
	struct cmd_opts co = { NULL, NULL, DEFAULT_O, 0, 0, 0, 1 };
	struct plan_opts po = { NULL, NULL, { 0, -1, 1, 0, NULL } };
	const char *tree = NULL;
	struct gb_netmodel m = { 0 };
	struct gb_tree t = { 0 };
	double seg, dt;
	struct gb_err err = { "" };
	int c, st, ret;

	while ((c = tool_getopt(argc, argv, "h", opts, &cli, &st)) != -1) {
		if (cmd_opt(&co, c, optarg) || plan_opt(&po, c, optarg))
			continue;
		switch (c) {
		case OPT_TREE:
			tree = optarg;
			break;
		case OPT_SIZE:
			po.a.size = parse_size_opt(optarg);
			break;
		}
	}
	if (st >= 0)
		return st;
	if (!tree == !po.p)
		die_usage("eval: give exactly one of --tree FILE and --algo NAME");
	if (tree && (po.root || po.a.model || po.a.budget_s > 0))
		die_usage("eval: --root, --budget-ms and --model go with --algo");
	if (po.p && !po.root)
		die_usage("eval: --root is required with --algo");
	if (co.arrivals && co.format)
		die_usage("eval: --arrivals goes with the text format only");
	if (po.a.size < 0)
		die_usage("eval: --size is required");
	if ((ret = load_model(&co, &m)) || (ret = at_size(&m, po.a.size)))
		return ret;
	if (po.p && (ret = plan_tree(&po, &m, &t, &dt))) {
		gb_nm_release(&m);
		return ret;
	}
	if (tree && (ret = gb_tree_load_json(&t, &m, tree, &err)) < 0) {
		/* the tree file is the user's input: malformed or unreadable, exit 2 */
		gb_nm_release(&m);
		if (err.msg[0])
			fail("%s", err.msg);
		else
			fail("cannot load tree '%s': %s", tree, strerror(-ret));
		return tool_input_status(ret);
	}
	ret = 0;
	if (co.format == 1) {
		json_t *o = json_object();

		for (int i = 0; o && i < gb_ncostmodels; i++) {
			double x = gb_costmodels[i].cost(&m, &t, po.a.size, NULL);

			json_object_set_new(o, gb_costmodels[i].name,
					    isfinite(x) ? json_real(x) : json_null());
		}
		if (!o || json_dumpf(o, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) < 0)
			ret = fail("cannot write the result");
		else
			putchar('\n');
		json_decref(o);
	} else {
		model_summary(stdout, &co, &m);
		if (tree)
			printf("tree       %s, root %s\n", tree, m.nodes[t.root].name);
		else
			printf("tree       planned by %s, root %s, seed %llu\n", po.p->name,
			       m.nodes[t.root].name, (unsigned long long)po.a.seed);
		seg = print_costs(stdout, &m, &t, po.a.size, NULL, co.stripes);
		if (co.arrivals && print_arrivals(stdout, &m, &t, po.a.size, seg, co.stripes))
			ret = 1;
	}
	gb_tree_release(&t);
	gb_nm_release(&m);
	return ret;
}

/* ------------------------------------------------------------------ */
/* sim, pools: implemented by the SA and pLogP files                   */
/* ------------------------------------------------------------------ */

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* A table of commands, and how its usage and errors read. */
struct cmdset {
	const struct cmd *cmds;
	void (*usage)(FILE *f);
	int help_word;          /* "help" prints the usage too, as --help and -h do */
	const char *kind;       /* "command": unknown command 'NAME' */
	const char *prefix;     /* before NAME in that message: "sim " */
	const char *path;       /* (see 'PATH --help') */
};

/* Run the command of @set named by argv[1], with argv[1] as its argv[0]. */
static int dispatch(const struct cmdset *set, int argc, char **argv)
{
	if (argc < 2)
		die_usage("which %s? (see '%s --help')", set->kind, set->path);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    (set->help_word && strcmp(argv[1], "help") == 0)) {
		set->usage(stdout);
		return 0;
	}
	for (int i = 0; set->cmds[i].name; i++) {
		if (strcmp(set->cmds[i].name, argv[1]) == 0) {
			optind = 1;
			return set->cmds[i].fn(argc - 1, argv + 1);
		}
	}
	die_usage("unknown %s '%s%s' (see '%s --help')", set->kind, set->prefix, argv[1],
		  set->path);
	return EXIT_USAGE;
}

static const struct cmd sims[] = {
	{ "gupta-fig3", gb_sim_gupta_fig3,
	  "seed 000 Fig. 3: best estimated time over planning time, 32 nodes, 1 MB" },
	{ "fkaier", gb_sim_fkaier,
	  "seed 002 s4.2: broadcast time against clusters, every pLogP heuristic" },
	{ NULL, NULL, NULL },
};

static void usage_sim(FILE *f)
{
	fprintf(f, "usage: gridtree sim STUDY [options]   (gridtree sim STUDY --help)\n"
		"  Reproduce a simulation study of the papers.  Studies in this build:\n");
	for (int i = 0; sims[i].name; i++)
		fprintf(f, "  %-12s %s\n", sims[i].name, sims[i].summary);
	if (!sims[0].name)
		fprintf(f, "  (none: built without the SA and pLogP planners)\n");
}

static int cmd_sim(int argc, char **argv)
{
	static const struct cmdset set = { sims, usage_sim, 0, "study", "sim ", "gridtree sim" };

	return dispatch(&set, argc, argv);
}

static int cmd_pools(int argc, char **argv)
{
	return gb_cmd_pools(argc, argv);
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

static const struct cmd cmds[] = {
	{ "list", cmd_list, "print the planners and cost models" },
	{ "plan", cmd_plan, "plan a tree and predict its time under every model" },
	{ "eval", cmd_eval, "score an existing tree under every model" },
	{ "sim", cmd_sim, "reproduce a paper's simulation study" },
	{ "pools", cmd_pools, "form clusteredSA's bandwidth pools (seed 000 s2.4)" },
	{ "nodes", gb_cmd_nodes, "every node with its cluster and site (CSV)" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gridtree COMMAND [options]   (gridtree COMMAND --help)\n");
	for (int i = 0; cmds[i].name; i++)
		fprintf(f, "  %-6s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "exit: 0 ok; 1 failure; 2 bad input: an option, or a malformed or unreadable\n"
		"  topology, matrix or tree file (docs/exit-status.md)\n");
}

int main(int argc, char **argv)
{
	static const struct cmdset set = { cmds, usage, 1, "command", "", "gridtree" };

	return dispatch(&set, argc, argv);
}
