// SPDX-License-Identifier: MIT
/*
 * sim_gupta.c - `gridtree sim gupta-fig3`: seed 000's Figure 3, the
 * transition between the randomization and refinement phases of driverSA.
 *
 * The paper (§2.3): "estimated broadcast times corresponding to efficient
 * broadcast trees determined by simulated annealing invocations are plotted
 * against time progression.  The message size used for broadcast was 1 MB.
 * 32 nodes were used for broadcast trees with the bandwidth matrix values
 * between the nodes randomly generated with a uniform distribution between
 * 0.1 and 10 Mbps".
 *
 *   m = gb_nm_gen_gupta_fig3(32 nodes, --seed)       (latency, o = 0)
 *   for run r in 0 .. runs-1:
 *       driverSA(m, root 0, 1 MB, budget, SA seed = --seed + r)
 *       one CSV row per basicSA invocation: time, phase, its cost, best so far
 *
 * A time budget is what makes driverSA switch phases by Fig. 2's sliding
 * window (lines 12-17), so the figure needs one; its x axis is the time
 * since driverSA started.  The paper does not give its budget; ours
 * defaults to 100 ms, a few hundred invocations on this machine, since the
 * shape (scattered random-phase results, then refinement results hugging
 * the best) is what the figure shows.  The mateescu planner's cost on the
 * same matrix is drawn as a reference line.
 *
 * Outputs in --out (default results/sim/gupta-fig3/), written atomically:
 *   gupta-fig3.csv   run,invocation,phase,t_s,cost_s,best_s
 *   runs.csv         run,seed,random,refine,switch_s,best_s,elapsed_s
 *   meta.json        parameters, seeds, git revision
 *   gupta-fig3.gp    gnuplot script; gupta-fig3.png from it if gnuplot runs
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gbplan.h"
#include "gbsa.h"
#include "plan_impl.h"
#include "gbutil.h"
#include "toolcli.h"

#define PROG "gridtree sim gupta-fig3"

struct row {
	int run, inv;
	enum gb_sa_phase phase;
	double t, cost, best;
};

struct rows {
	struct row *r;
	size_t n, cap;
	int run, inv;
	int oom;
};

struct runinfo {
	uint64_t seed;
	struct gb_sa_stats st;
	double elapsed;
};

struct opts {
	struct tool_simout io;   /* --out, --no-plot, --quiet */
	uint64_t seed;
	int nodes;
	double size;
	double budget_s;
	int runs;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gridtree sim gupta-fig3 [--out DIR] [--seed N] [--nodes N] [--size BYTES]\n"
		"                               [--budget-ms MS] [--runs R] [--no-plot] [--quiet]\n"
		"  --out DIR        output folder (default results/sim/gupta-fig3)\n"
		"  --seed N         matrix seed; run r anneals with seed N + r (default 1)\n"
		"  --nodes N        nodes (default 32, as in the paper)\n"
		"  --size BYTES     message size (default 1M, as in the paper)\n"
		"  --budget-ms MS   driverSA time budget (default 100)\n"
		"  --runs R         independent driverSA runs on the same matrix (default 1)\n"
		"  --no-plot        do not run gnuplot\n");
}

static void on_trace(void *ctx, double t, enum gb_sa_phase ph, double cost, double best)
{
	struct rows *rs = ctx;

	if (rs->n == rs->cap) {
		size_t nc = rs->cap ? rs->cap * 2 : 1024;
		struct row *nr = realloc(rs->r, nc * sizeof(*nr));

		if (!nr) {
			rs->oom = 1;
			return;
		}
		rs->r = nr;
		rs->cap = nc;
	}
	rs->r[rs->n++] = (struct row){ rs->run, rs->inv++, ph, t, cost, best };
}

static int write_csv(const struct opts *o, const struct rows *rs, const struct runinfo *ri)
{
	struct tool_out a;

	if (tool_out_begin(PROG, &a, o->io.out, "gupta-fig3.csv"))
		return -1;
	fprintf(a.f, "run,invocation,phase,t_s,cost_s,best_s\n");
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *r = &rs->r[i];

		fprintf(a.f, "%d,%d,%s,%.9f,%.9f,%.9f\n", r->run, r->inv,
			r->phase == GB_SA_RANDOM ? "random" : "refine", r->t, r->cost, r->best);
	}
	if (tool_out_end(PROG, &a))
		return -1;
	if (tool_out_begin(PROG, &a, o->io.out, "runs.csv"))
		return -1;
	fprintf(a.f, "run,seed,random,refine,switch_s,best_s,elapsed_s\n");
	for (int r = 0; r < o->runs; r++)
		fprintf(a.f, "%d,%llu,%d,%d,%.9f,%.9f,%.9f\n", r,
			(unsigned long long)ri[r].seed, ri[r].st.random_invocations,
			ri[r].st.refine_invocations, ri[r].st.switch_s, ri[r].st.best_cost,
			ri[r].elapsed);
	return tool_out_end(PROG, &a);
}

static int write_gnuplot(const struct opts *o, const struct runinfo *ri, double ref)
{
	struct tool_out a;
	FILE *f = tool_gnuplot_begin(PROG, &a, o->io.out, "gupta-fig3.gp", 900, 600,
		"# seed 000 Fig. 3: estimated broadcast time of every basicSA invocation of\n"
		"# driverSA against time (%d nodes, %.0f bytes, bandwidths uniform in\n"
		"# 0.1-10 Mbit/s, budget %.0f ms).  Run in this folder: gnuplot gupta-fig3.gp\n",
		o->nodes, o->size, o->budget_s * 1e3);

	if (!f)
		return -1;
	fprintf(f,
		"set output 'gupta-fig3.png'\n"
		"set datafile separator ','\n"
		"set key top right\n"
		"set grid\n"
		"set title 'driverSA: randomization and refinement phases (seed 000 Fig. 3)'\n"
		"set xlabel 'time since driverSA started (ms)'\n"
		"set ylabel 'estimated broadcast time (s)'\n"
		"set logscale y\n");
	fprintf(f, "set arrow from %.6f, graph 0 to %.6f, graph 1 nohead dt 2 lc rgb '#555555'\n",
		ri[0].st.switch_s * 1e3, ri[0].st.switch_s * 1e3);
	fprintf(f, "set label 'switch to refinement' at %.6f, graph 0.05 offset 0.5,0\n",
		ri[0].st.switch_s * 1e3);
	fprintf(f,
		"plot 'gupta-fig3.csv' using ($1 == 0 && strcol(3) eq 'random' ? $4 * 1e3 : 1/0):5 "
		"with points pt 7 ps 0.5 lc rgb '#1f77b4' title 'randomization phase', \\\n"
		"     'gupta-fig3.csv' using ($1 == 0 && strcol(3) eq 'refine' ? $4 * 1e3 : 1/0):5 "
		"with points pt 7 ps 0.5 lc rgb '#d62728' title 'refinement phase', \\\n"
		"     'gupta-fig3.csv' using ($1 == 0 ? $4 * 1e3 : 1/0):6 with steps lw 2 "
		"lc rgb 'black' title 'best so far'");
	if (isfinite(ref))
		fprintf(f, ", \\\n     %.9f with lines dt 3 lc rgb '#2ca02c' "
			"title 'mateescu planner'", ref);
	fprintf(f, "\n");
	return tool_out_end(PROG, &a);
}

static int write_meta(const struct opts *o, const struct runinfo *ri, double ref)
{
	json_t *j = json_object(), *runs = json_array();
	int err;

	for (int r = 0; r < o->runs; r++) {
		json_t *x = json_object();

		json_object_set_new(x, "sa_seed", json_integer((json_int_t)ri[r].seed));
		json_object_set_new(x, "random_invocations",
				    json_integer(ri[r].st.random_invocations));
		json_object_set_new(x, "refine_invocations",
				    json_integer(ri[r].st.refine_invocations));
		json_object_set_new(x, "switch_s", json_real(ri[r].st.switch_s));
		json_object_set_new(x, "best_s", json_real(ri[r].st.best_cost));
		json_object_set_new(x, "elapsed_s", json_real(ri[r].elapsed));
		json_array_append_new(runs, x);
	}
	json_object_set_new(j, "study", json_string("seed 000 s2.3 (Gupta & Vadhiyar), Figure 3"));
	json_object_set_new(j, "matrix", json_string("gb_nm_gen_gupta_fig3: bw uniform 0.1-10 "
						     "Mbit/s, latency 0, o 0"));
	json_object_set_new(j, "matrix_seed", json_integer((json_int_t)o->seed));
	json_object_set_new(j, "nodes", json_integer(o->nodes));
	json_object_set_new(j, "size_bytes", json_real(o->size));
	json_object_set_new(j, "root", json_integer(0));
	json_object_set_new(j, "budget_s", json_real(o->budget_s));
	json_object_set_new(j, "cost_model", json_string("mateescu"));
	json_object_set_new(j, "mateescu_planner_s", isfinite(ref) ? json_real(ref) : json_null());
	json_object_set_new(j, "runs", runs);
	json_object_set_new(j, "git_rev", json_string(gb_git_revision()));
	err = tool_json_save(PROG, j, o->io.out, "meta.json");
	json_decref(j);
	return err;
}

/* The mateescu planner's cost on the matrix, for the reference line. */
static double mateescu_ref(const struct gb_netmodel *m, double size)
{
	const struct gb_planner *p = gb_planner_find("mateescu");
	struct gb_plan_args a = { .root = 0, .size = size };
	struct gb_tree t = { 0 };
	double c = NAN;

	if (p && gb_plan(p, m, &a, &t) == 0) {
		c = gb_cost_mateescu(m, &t, size, NULL);
		gb_tree_release(&t);
	}
	return c;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-' ? -EINVAL : 0;
}

int gb_sim_gupta_fig3(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 'z' },
		{ "budget-ms", required_argument, NULL, 'b' },
		{ "runs", required_argument, NULL, 'r' },
		TOOL_SIMOUT_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct tool_cli cli = { PROG, usage };
	struct opts o = { .io = { "results/sim/gupta-fig3", 1, 0 }, .seed = 1, .nodes = 32,
			  .size = 1048576, .budget_s = 0.1, .runs = 1 };
	struct gb_netmodel m = { 0 };
	struct rows rs = { 0 };
	struct runinfo *ri = NULL;
	double ref;
	int c, ret, st, status = 1;
	uint64_t v;

	optind = 0;
	while ((c = tool_getopt(argc, argv, "o:s:n:z:b:r:Pqh", lopts, &cli, &st)) != -1) {
		const char *arg = optarg;

		if (tool_simout_opt(&o.io, c, arg))
			continue;
		switch (c) {
		case 's':
			if (parse_u64(arg, &o.seed)) {
				fprintf(stderr, PROG ": bad --seed '%s'\n", arg);
				return 2;
			}
			break;
		case 'n':
			if (parse_u64(arg, &v) || v < 2 || v > 4096) {
				fprintf(stderr, PROG ": bad --nodes '%s' (2 to 4096)\n", arg);
				return 2;
			}
			o.nodes = (int)v;
			break;
		case 'z':
			if (gb_parse_size(arg, &o.size) || !(o.size > 0)) {
				fprintf(stderr, PROG ": bad --size '%s' (e.g. 1M)\n", arg);
				return 2;
			}
			break;
		case 'b':
			if (parse_u64(arg, &v) || v < 1 || v > 3600000) {
				fprintf(stderr, PROG ": bad --budget-ms '%s'\n", arg);
				return 2;
			}
			o.budget_s = (double)v / 1e3;
			break;
		case 'r':
			if (parse_u64(arg, &v) || v < 1 || v > 1000) {
				fprintf(stderr, PROG ": bad --runs '%s' (1 to 1000)\n", arg);
				return 2;
			}
			o.runs = (int)v;
			break;
		}
	}
	if (st >= 0)
		return st;
	if (tool_simout_mkdir(PROG, &o.io))
		return 1;
	ret = gb_nm_gen_gupta_fig3(&m, o.nodes, o.seed);
	if (ret < 0) {
		fprintf(stderr, PROG ": cannot generate the matrix: %s\n", strerror(-ret));
		return 1;
	}
	ri = calloc((size_t)o.runs, sizeof(*ri));
	if (!ri) {
		fprintf(stderr, PROG ": %s\n", strerror(ENOMEM));
		goto cleanup;
	}
	ref = mateescu_ref(&m, o.size);
	for (int r = 0; r < o.runs; r++) {
		struct gb_plan_args a = { .root = 0, .size = o.size, .seed = o.seed + (uint64_t)r,
					  .budget_s = o.budget_s };
		struct gb_tree t = { 0 };
		double t0;

		rs.run = r;
		rs.inv = 0;
		ri[r].seed = a.seed;
		ri[r].st.trace = on_trace;
		ri[r].st.trace_ctx = &rs;
		ret = gb_tree_init(&t, m.n, 0);
		if (ret == 0) {
			t0 = gb_now();
			ret = gb_sa_driver(&m, &a, &t, &ri[r].st, NULL);
			ri[r].elapsed = gb_now() - t0;
		}
		gb_tree_release(&t);
		if (ret < 0 || rs.oom) {
			fprintf(stderr, PROG ": driverSA failed: %s\n",
				strerror(ret < 0 ? -ret : ENOMEM));
			goto cleanup;
		}
		if (!o.io.quiet)
			printf("run %d (sa seed %llu): %d random + %d refine invocations, "
			       "switch at %.1f ms of %.0f, best %.3f s\n", r,
			       (unsigned long long)a.seed,
			       ri[r].st.random_invocations, ri[r].st.refine_invocations,
			       ri[r].st.switch_s * 1e3, o.budget_s * 1e3, ri[r].st.best_cost);
	}
	if (!o.io.quiet && isfinite(ref))
		printf("mateescu planner on the same matrix: %.3f s\n", ref);
	if (write_csv(&o, &rs, ri) || write_meta(&o, ri, ref) || write_gnuplot(&o, ri, ref))
		goto cleanup;
	if (!o.io.quiet)
		printf("data: %s/gupta-fig3.csv\n", o.io.out);
	if (o.io.plot)
		tool_plot(PROG, o.io.out, "gupta-fig3.gp", "gupta-fig3.png", o.io.quiet);
	status = 0;
cleanup:
	free(rs.r);
	free(ri);
	gb_nm_release(&m);
	return status;
}
