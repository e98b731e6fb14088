/* SPDX-License-Identifier: MIT */
/*
 * bench_sa - quality of the SA planners against their time budget (issue 3,
 * "Measurements"), in more depth than bench_plan's table 2: several seeds
 * per budget (anytime results depend on the seed and on the clock), the
 * mean and the worst, the time really taken, and the paper's fixed
 * invocation counts for comparison.  A benchmark, not a test: it prints
 * figures and the target next to them, and asserts nothing.
 *
 *	bench_sa [--topo FILE | --matrix FILE] [--root NODE] [--size BYTES]
 *	         [--seeds N] [--csv FILE]
 *
 * Default: topologies/teragrid.yaml (o = 10 us per node), root c2-1 (the
 * paper roots its broadcasts in C2), 1 MB, seeds 1..3.  If the topology
 * cannot be loaded, a generated teragrid-like model (gb_nm_gen_grid 4 sites
 * x 2 clusters x 8 nodes) stands in, and the output says so.
 *
 *   best[model] = min over every registered planner (anytime ones at 1000
 *                 ms, seed 1) and every SA tree measured below, of the cost
 *                 of its tree under the model
 *   for sa, clustered-sa (mateescu model) and sa-contention (contention):
 *     for budget in 5, 20, 50, 100, 1000 ms and none (50 + 25 invocations):
 *       for seed in 1..N: cost / best[model]
 *   target: clustered-sa within 2 % of its 1000 ms result in 50 ms, i.e.
 *           cost(50 ms) / cost(1000 ms) <= 1.02, per seed
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbplan.h"
#include "toolcli.h"

#define NBUD 6
static const double budgets_ms[NBUD] = { 5, 20, 50, 100, 1000, 0 };
#define MAXSEEDS 20

static const struct {
	const char *planner;
	const char *model;
} subjects[] = {
	{ "sa", "mateescu" },
	{ "clustered-sa", "mateescu" },
	{ "sa-contention", "contention" },
};
#define NSUBJ ((int)(sizeof(subjects) / sizeof(subjects[0])))

struct meas {
	double cost[MAXSEEDS];
	double el[MAXSEEDS];
	int ok[MAXSEEDS];
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_sa [--topo FILE | --matrix FILE] [--root NODE] [--size BYTES]\n"
		"                [--seeds N] [--csv FILE]\n"
		"  SA quality against budget: cost at 5, 20, 50, 100, 1000 ms and with the\n"
		"  paper's fixed invocation counts, as a ratio to the best of all planners.\n"
		"  --topo FILE    topology (default topologies/teragrid.yaml)\n"
		"  --matrix FILE  a matrix file instead\n"
		"  --root NODE    root node name (default c2-1, else node 0)\n"
		"  --size BYTES   message size (default 1M)\n"
		"  --seeds N      seeds per budget (default 3, at most %d)\n"
		"  --csv FILE     also write one row per run\n", MAXSEEDS);
}

static int load(struct gb_netmodel *m, const char *topo, const char *matrix, const char **what)
{
	struct gb_err err;

	*what = matrix ? matrix : topo;
	if (tool_load_model(m, matrix ? NULL : topo, matrix, 10e-6, &err) == 0)
		return 0;
	if (matrix) {
		fprintf(stderr, "bench_sa: %s\n", err.msg);
		return -1;
	}
	*what = "generated teragrid-like model (gb_nm_gen_grid 4x2x8, seed 1)";
	fprintf(stderr, "bench_sa: cannot load '%s'; using a %s\n", topo, *what);
	return gb_nm_gen_grid(m, 4, 2, 8, 1) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "matrix", required_argument, NULL, 'm' },
		{ "root", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 'z' },
		{ "seeds", required_argument, NULL, 's' },
		{ "csv", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct tool_cli cli = { "bench_sa", usage };
	const char *topo = GRIDBED_SOURCE_DIR "/topologies/teragrid.yaml", *matrix = NULL;
	const char *rootname = "c2-1", *csv = NULL, *what;
	double size = 1048576, best_m = INFINITY, best_c = INFINITY;
	int nseeds = 3, c, st, root;
	struct gb_netmodel m = { 0 };
	struct meas (*res)[NBUD] = NULL;
	FILE *out = NULL;
	char *end;

	while ((c = tool_getopt(argc, argv, "t:m:r:z:s:c:h", lopts, &cli, &st)) != -1) {
		switch (c) {
		case 't':
			topo = optarg;
			break;
		case 'm':
			matrix = optarg;
			break;
		case 'r':
			rootname = optarg;
			break;
		case 'z':
			if (gb_parse_size(optarg, &size) || !(size > 0)) {
				fprintf(stderr, "bench_sa: bad --size '%s'\n", optarg);
				return 2;
			}
			break;
		case 's':
			nseeds = (int)strtol(optarg, &end, 10);
			if (*end || nseeds < 1 || nseeds > MAXSEEDS) {
				fprintf(stderr, "bench_sa: bad --seeds '%s'\n", optarg);
				return 2;
			}
			break;
		case 'c':
			csv = optarg;
			break;
		}
	}
	if (st >= 0)
		return st;
	if (load(&m, topo, matrix, &what) < 0)
		return 1;
	root = gb_nm_find_node(&m, rootname);
	if (root < 0)
		root = 0;
	res = calloc(NSUBJ, sizeof(*res));
	if (!res)
		return 1;
	if (csv) {
		out = fopen(csv, "w");
		if (!out) {
			fprintf(stderr, "bench_sa: cannot write '%s': %s\n", csv, strerror(errno));
			return 1;
		}
		fprintf(out, "planner,model,budget_ms,seed,cost_s,ratio,elapsed_s\n");
	}

	/* Every planner once: the reference. */
	for (int i = 0; i < gb_nplanners; i++) {
		struct gb_plan_args a = { root, size, 1, 0, NULL };
		struct gb_tree t;

		if (gb_planners[i].flags & GB_PLAN_ANYTIME)
			a.budget_s = 1.0;
		if (gb_plan(&gb_planners[i], &m, &a, &t) < 0)
			continue;
		best_m = fmin(best_m, gb_cost_mateescu(&m, &t, size, NULL));
		best_c = fmin(best_c, gb_cost_contention(&m, &t, size, NULL));
		gb_tree_release(&t);
	}

	/* The SA planners at every budget and seed. */
	for (int s = 0; s < NSUBJ; s++) {
		const struct gb_planner *p = gb_planner_find(subjects[s].planner);
		int cont = !strcmp(subjects[s].model, "contention");

		for (int b = 0; b < NBUD && p; b++) {
			for (int k = 0; k < nseeds; k++) {
				struct gb_plan_args a = { root, size, (uint64_t)k + 1,
							  budgets_ms[b] * 1e-3, NULL };
				struct meas *x = &res[s][b];
				struct gb_tree t;
				double t0 = gb_now();

				if (gb_plan(p, &m, &a, &t) < 0)
					continue;
				x->el[k] = gb_now() - t0;
				x->cost[k] = cont ? gb_cost_contention(&m, &t, size, NULL) :
						    gb_cost_mateescu(&m, &t, size, NULL);
				x->ok[k] = 1;
				best_m = fmin(best_m, gb_cost_mateescu(&m, &t, size, NULL));
				best_c = fmin(best_c, gb_cost_contention(&m, &t, size, NULL));
				gb_tree_release(&t);
			}
		}
	}

	printf("SA quality against budget on %s\n", what);
	printf("%d nodes, %d clusters, root %s, %.0f bytes, seeds 1..%d\n", m.n, m.nclusters,
	       m.nodes[root].name, size, nseeds);
	printf("best of all planners: %.6f s (mateescu model), %.6f s (contention model)\n\n",
	       best_m, best_c);
	printf("cost / best, mean [worst] over seeds; time taken, mean\n");
	printf("%-14s %-10s", "planner", "model");
	for (int b = 0; b < NBUD; b++) {
		char h[24];

		if (budgets_ms[b] > 0)
			snprintf(h, sizeof(h), "%.0f ms", budgets_ms[b]);
		else
			snprintf(h, sizeof(h), "50+25 (no budget)");
		printf(" %18s", h);
	}
	printf("\n");
	for (int s = 0; s < NSUBJ; s++) {
		double best = strcmp(subjects[s].model, "contention") ? best_m : best_c;

		printf("%-14s %-10s", subjects[s].planner, subjects[s].model);
		for (int b = 0; b < NBUD; b++) {
			const struct meas *x = &res[s][b];
			double sum = 0, worst = 0;
			int n = 0;
			char cell[40];

			for (int k = 0; k < nseeds; k++) {
				if (!x->ok[k])
					continue;
				sum += x->cost[k] / best;
				worst = fmax(worst, x->cost[k] / best);
				n++;
				if (out)
					fprintf(out, "%s,%s,%.0f,%d,%.9f,%.6f,%.6f\n",
						subjects[s].planner, subjects[s].model,
						budgets_ms[b], k + 1, x->cost[k],
						x->cost[k] / best, x->el[k]);
			}
			if (n)
				snprintf(cell, sizeof(cell), "%.4f [%.4f]", sum / n, worst);
			else
				snprintf(cell, sizeof(cell), "failed");
			printf(" %18s", cell);
		}
		printf("\n%-25s", "");
		for (int b = 0; b < NBUD; b++) {
			double sum = 0;
			int n = 0;
			char cell[40];

			for (int k = 0; k < nseeds; k++)
				if (res[s][b].ok[k]) {
					sum += res[s][b].el[k];
					n++;
				}
			snprintf(cell, sizeof(cell), "%.1f ms", n ? sum / n * 1e3 : NAN);
			printf(" %18s", cell);
		}
		printf("\n");
	}

	/* The target, seed by seed. */
	{
		const struct meas *c50 = &res[1][2], *c1000 = &res[1][4];
		double worst = 0, sum = 0;
		int n = 0;

		printf("\nclustered-sa, cost(50 ms) / cost(1000 ms) per seed:");
		for (int k = 0; k < nseeds; k++) {
			if (!c50->ok[k] || !c1000->ok[k])
				continue;
			double r = c50->cost[k] / c1000->cost[k];

			printf(" %.4f", r);
			worst = fmax(worst, r);
			sum += r;
			n++;
		}
		printf("\ntarget: clustered-sa within 2 %% of its 1000 ms result in 50 ms: "
		       "mean %.4f, worst %.4f  %s\n", n ? sum / n : NAN, worst,
		       n && worst <= 1.02 ? "met" : "MISSED");
	}
	if (out && fclose(out))
		fprintf(stderr, "bench_sa: cannot write '%s'\n", csv);
	free(res);
	gb_nm_release(&m);
	return 0;
}
