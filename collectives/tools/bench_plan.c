/* SPDX-License-Identifier: MIT */
/*
 * bench_plan - how long every registered planner takes to plan (issue 3,
 * "Measurements").  A benchmark, not a test: it prints figures and checks
 * nothing but prints the targets next to what it measured.
 *
 *	bench_plan [--quick] [--csv FILE] [--max-s S] [--topo FILE]
 *
 * Table 1: planning time at N = 16, 64, 256, 1024, 4096 nodes.  The model
 * is gb_nm_gen_grid() with 4 nodes per cluster and 4 clusters per site, so
 * N nodes are N/4 clusters and the cluster-level heuristics (GB_PLAN_CLUSTER)
 * are measured at 4, 16, 64 and 256 clusters (N = 4096 would be 1024
 * clusters: not run).  Anytime planners are given a budget (100 ms, 20 ms
 * with --quick) and their time is how well they keep it.  A combination
 * predicted to take more than --max-s (2 s) is skipped and marked so: the
 * prediction extrapolates the planner's last two sizes.
 *
 * Table 2: SA quality against budget on teragrid at 1 MB: the cost the
 * anytime planners reach in 5, 20, 100 and 1000 ms, as a ratio to the best
 * tree of all planners (any budget) under the same cost model.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_impl.h"
#include "toolcli.h"

static const int sizes_n[] = { 16, 64, 256, 1024, 4096 };
#define NSIZES ((int)(sizeof(sizes_n) / sizeof(sizes_n[0])))
#define NPC 4       /* nodes per cluster */
#define CPS 4       /* clusters per site */
#define MAX_CLUSTERS 256

struct cell {
	int status;     /* 0 measured, 1 skipped (prediction), 2 not applicable, 3 failed */
	double sec;     /* per call */
	int reps;
	double predicted;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_plan [--quick] [--csv FILE] [--max-s S] [--topo FILE]\n"
		"  Planning time of every planner at N = 16 .. 4096 nodes, and SA quality\n"
		"  against budget on teragrid at 1 MB.\n"
		"  --quick      CI mode: fewer repetitions, shorter budgets, N <= 1024\n"
		"  --csv FILE   also write one CSV row per measurement\n"
		"  --max-s S    skip a combination predicted to take longer (default 2)\n"
		"  --topo FILE  topology for table 2 (default topologies/teragrid.yaml)\n");
}

static int make_model(int n, struct gb_netmodel *m)
{
	int nc = n / NPC, cps = nc < CPS ? nc : CPS;

	return gb_nm_gen_grid(m, nc / cps, cps, NPC, 4242);
}

static void fmt_time(char *buf, size_t len, double s)
{
	if (s < 1e-3)
		snprintf(buf, len, "%.1f us", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%.2f ms", s * 1e3);
	else
		snprintf(buf, len, "%.2f s", s);
}

/* Time one planner on one model: repeat until @min_total seconds. */
static int measure(const struct gb_planner *p, const struct gb_netmodel *m, double budget,
		   double min_total, struct cell *c)
{
	struct gb_plan_args a = { 0, 1048576, 1, budget, NULL };
	double total = 0;
	int reps = 0;

	do {
		struct gb_tree t;
		double t0 = gb_now();
		int ret = gb_plan(p, m, &a, &t);

		total += gb_now() - t0;
		if (ret < 0)
			return ret;
		gb_tree_release(&t);
		reps++;
		a.root = (a.root + 1) % m->n;
	} while (total < min_total && reps < 100000);
	c->sec = total / reps;
	c->reps = reps;
	c->status = 0;
	return 0;
}

struct opts {
	int quick;
	const char *topo;
	double max_s, budget, min_total;
	int nsz;
	FILE *csv;
};

/* Decide whether to run cell (i, s): not applicable, skipped on prediction,
 * or to be measured (status 0). */
static void plan_cell(const struct gb_planner *p, struct cell *row, int s, const struct opts *o)
{
	struct cell *ce = &row[s];
	double prev, k = 2, ratio;

	if (s >= o->nsz || ((p->flags & GB_PLAN_CLUSTER) && sizes_n[s] / NPC > MAX_CLUSTERS)) {
		ce->status = 2;
		return;
	}
	if ((p->flags & GB_PLAN_ANYTIME) || s == 0)
		return;
	if (row[s - 1].status) {
		ce->status = row[s - 1].status == 2 ? 2 : 1;
		ce->predicted = INFINITY;
		return;
	}
	/* extrapolate from the last two sizes, at least quadratically once the
	 * time is above timer noise */
	prev = row[s - 1].sec;
	ratio = (double)sizes_n[s] / sizes_n[s - 1];
	if (s >= 2 && row[s - 2].status == 0 && row[s - 2].sec > 0 && prev > 1e-4)
		k = fmax(2, log(prev / row[s - 2].sec) / log(ratio));
	ce->predicted = prev * pow(ratio, k);
	if (ce->predicted > o->max_s)
		ce->status = 1;
}

static void cell_text(const struct cell *ce, char *buf, size_t len)
{
	switch (ce->status) {
	case 0:
		fmt_time(buf, len, ce->sec);
		break;
	case 1:
		if (isinf(ce->predicted))
			snprintf(buf, len, "skip");
		else
			snprintf(buf, len, "skip ~%.0fs", ce->predicted);
		break;
	case 2:
		snprintf(buf, len, "-");
		break;
	default:
		snprintf(buf, len, "FAILED");
		break;
	}
}

static const char *kind_of(const struct gb_planner *p)
{
	if (p->flags & GB_PLAN_ANYTIME)
		return "anytime";
	if (p->flags & GB_PLAN_CLUSTER)
		return "cluster";
	return p->flags & GB_PLAN_STATIC ? "static" : "model";
}

/* A table's header line: "planner", @col2 (@w2 wide), then @n columns @w
 * wide, labelled by @label. */
static void table_head(const char *col2, int w2, int n, int w,
		       void (*label)(char *buf, size_t len, int i))
{
	printf("%-14s %-*s", "planner", w2, col2);
	for (int i = 0; i < n; i++) {
		char h[32];

		label(h, sizeof(h), i);
		printf(" %*s", w, h);
	}
	printf("\n");
}

static void size_label(char *buf, size_t len, int s)
{
	snprintf(buf, len, "N=%d", sizes_n[s]);
}

static void time_table(struct cell (*cells)[NSIZES], struct gb_netmodel *models,
		       const struct opts *o)
{
	printf("planning time per call, 1 MB, gb_nm_gen_grid models (%d nodes per cluster)%s\n",
	       NPC, o->quick ? ", --quick" : "");
	printf("anytime planners get a %.0f ms budget; cluster heuristics run at N/%d "
	       "clusters\n\n", o->budget * 1e3, NPC);
	table_head("kind", 8, NSIZES, 14, size_label);
	for (int i = 0; i < gb_nplanners; i++) {
		const struct gb_planner *p = &gb_planners[i];
		int anytime = p->flags & GB_PLAN_ANYTIME;

		printf("%-14s %-8s", p->name, kind_of(p));
		fflush(stdout);
		for (int s = 0; s < NSIZES; s++) {
			struct cell *ce = &cells[i][s];
			char buf[32];

			plan_cell(p, cells[i], s, o);
			if (ce->status == 0 &&
			    measure(p, &models[s], o->budget, anytime ? 0 : o->min_total, ce) < 0)
				ce->status = 3;
			cell_text(ce, buf, sizeof(buf));
			printf(" %14s", buf);
			fflush(stdout);
			if (!o->csv || ce->status == 2)
				continue;
			fprintf(o->csv, "time,%s,%d,%d,%.0f,%.9g,%d,%s,,\n", p->name, sizes_n[s],
				sizes_n[s] / NPC, anytime ? o->budget * 1e3 : 0.0,
				ce->status == 0 ? ce->sec : NAN, ce->reps,
				ce->status == 0 ? "ok" : ce->status == 1 ? "skipped" : "failed");
		}
		printf("\n");
	}
	printf("\n'skip ~Xs': predicted above %.0f s from the smaller sizes; '-': not run\n"
	       "(cluster heuristics are measured up to %d clusters%s)\n", o->max_s, MAX_CLUSTERS,
	       o->quick ? "; --quick stops at 1024 nodes" : "");

	/* the targets, where this run measured them */
	printf("\ntargets (issue 3), on this machine:\n");
	{
		const struct gb_planner *mt = gb_planner_find("mateescu");
		const struct gb_planner *mc = gb_planner_find("mostcrit");
		const struct cell *a = mt ? &cells[mt - gb_planners][1] : NULL;
		const struct cell *b = mc ? &cells[mc - gb_planners][2] : NULL;

		if (a && a->status == 0)
			printf("  mateescu at 64 nodes under 100 us:    %8.1f us  %s\n",
			       a->sec * 1e6, a->sec < 100e-6 ? "met" : "MISSED");
		if (b && b->status == 0)
			printf("  mostcrit at 64 clusters under 1 ms:   %8.1f us  %s\n",
			       b->sec * 1e6, b->sec < 1e-3 ? "met" : "MISSED");
	}
}

/*
 * Anytime quality against budget: the cost an anytime planner reaches in
 * each budget, over the best tree any planner finds (anytime ones at the
 * largest budget), under the mateescu and the contention models.
 */
static const double budgets_ms[] = { 5, 20, 50, 100, 1000 };

static void budget_label(char *buf, size_t len, int b)
{
	snprintf(buf, len, "%.0f ms", budgets_ms[b]);
}

static void quality_row(const struct gb_planner *p, const struct gb_netmodel *tm, int root,
			const double *best, int nb, const struct opts *o, double *cs)
{
	static const char *mname[2] = { "mateescu", "contention" };
	double r[2][8];

	for (int b = 0; b < nb; b++) {
		struct gb_plan_args a = { root, 1048576, 1, budgets_ms[b] * 1e-3, NULL };
		struct gb_tree t;

		if (gb_plan(p, tm, &a, &t) < 0) {
			r[0][b] = r[1][b] = NAN;
			continue;
		}
		for (int k = 0; k < 2; k++)
			r[k][b] = gb_costmodel_find(mname[k])->cost(tm, &t, a.size, NULL) / best[k];
		if (!strcmp(p->name, "clustered-sa"))
			cs[b] = r[0][b];
		gb_tree_release(&t);
	}
	for (int k = 0; k < 2; k++) {
		printf("%-14s %-11s", k ? "" : p->name, mname[k]);
		for (int b = 0; b < nb; b++) {
			printf(" %9.4f", r[k][b]);
			if (o->csv)
				fprintf(o->csv, "quality,%s,%d,%d,%.0f,,,ok,%s,%.6f\n", p->name,
					tm->n, tm->nclusters, budgets_ms[b], mname[k], r[k][b]);
		}
		printf("\n");
	}
}

static void quality_table(const struct opts *o)
{
	int nb = o->quick ? 4 : 5, root;
	struct gb_netmodel tm;
	double best[2] = { INFINITY, INFINITY }, cs[8];

	for (int b = 0; b < 8; b++)
		cs[b] = NAN;
	if (tool_load_model(&tm, o->topo, NULL, 10e-6, NULL) < 0) {
		printf("\nanytime quality: skipped, cannot load '%s'\n", o->topo);
		return;
	}
	root = gb_nm_find_node(&tm, "c2-1");
	if (root < 0)
		root = 0;
	for (int i = 0; i < gb_nplanners; i++) {
		struct gb_plan_args a = { root, 1048576, 1, 0, NULL };
		struct gb_tree t;

		if (gb_planners[i].flags & GB_PLAN_ANYTIME)
			a.budget_s = budgets_ms[nb - 1] * 1e-3;
		if (gb_plan(&gb_planners[i], &tm, &a, &t) < 0)
			continue;
		best[0] = fmin(best[0], gb_cost_mateescu(&tm, &t, a.size, NULL));
		best[1] = fmin(best[1], gb_cost_contention(&tm, &t, a.size, NULL));
		gb_tree_release(&t);
	}
	printf("\nanytime quality on %s (%d nodes), root %s, 1 MB: cost / best of all planners\n",
	       o->topo, tm.n, tm.nodes[root].name);
	printf("best: mateescu model %.4f s, contention model %.4f s\n", best[0], best[1]);
	table_head("model", 11, nb, 9, budget_label);
	for (int i = 0; i < gb_nplanners; i++)
		if (gb_planners[i].flags & GB_PLAN_ANYTIME)
			quality_row(&gb_planners[i], &tm, root, best, nb, o, cs);
	/* budgets_ms[2] is 50 ms, [4] is 1000 ms */
	if (isfinite(cs[2]) && isfinite(cs[4]))
		printf("\n  clustered-sa within 2 %% of its 1000 ms result in 50 ms: "
		       "%+.2f %%  %s\n", 100 * (cs[2] / cs[4] - 1),
		       cs[2] <= 1.02 * cs[4] ? "met" : "MISSED");
	gb_nm_release(&tm);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "csv", required_argument, NULL, 'c' },
		{ "max-s", required_argument, NULL, 'm' },
		{ "topo", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct tool_cli cli = { "bench_plan", usage };
	struct opts o = { 0, GRIDBED_SOURCE_DIR "/topologies/teragrid.yaml", 2.0, 0, 0, 0, NULL };
	struct cell (*cells)[NSIZES] = NULL;
	struct gb_netmodel models[NSIZES];
	const char *csv = NULL;
	int c, st, ret = 1;

	memset(models, 0, sizeof(models));
	while ((c = tool_getopt(argc, argv, "h", lopts, &cli, &st)) != -1) {
		switch (c) {
		case 'q':
			o.quick = 1;
			break;
		case 'c':
			csv = optarg;
			break;
		case 'm':
			o.max_s = atof(optarg);
			if (!(o.max_s > 0)) {
				fprintf(stderr, "bench_plan: --max-s '%s' is not a positive "
					"number\n", optarg);
				return 2;
			}
			break;
		case 't':
			o.topo = optarg;
			break;
		}
	}
	if (st >= 0)
		return st;
	o.budget = o.quick ? 0.02 : 0.1;
	o.min_total = o.quick ? 0.01 : 0.2;
	o.nsz = o.quick ? NSIZES - 1 : NSIZES;
	if (csv) {
		o.csv = fopen(csv, "w");
		if (!o.csv) {
			fprintf(stderr, "bench_plan: cannot write '%s': %s\n", csv,
				strerror(errno));
			return 1;
		}
		fprintf(o.csv, "table,planner,n,clusters,budget_ms,seconds,reps,status,"
			"ratio_model,ratio\n");
	}
	cells = calloc(gb_nplanners, sizeof(*cells));
	if (!cells)
		goto cleanup;
	for (int s = 0; s < o.nsz; s++) {
		if (make_model(sizes_n[s], &models[s]) < 0) {
			fprintf(stderr, "bench_plan: cannot build a %d-node model\n", sizes_n[s]);
			goto cleanup;
		}
	}
	time_table(cells, models, &o);
	quality_table(&o);
	ret = 0;
cleanup:
	for (int s = 0; s < NSIZES; s++)
		gb_nm_release(&models[s]);
	free(cells);
	if (o.csv && fclose(o.csv) != 0) {
		fprintf(stderr, "bench_plan: cannot write '%s'\n", csv);
		ret = 1;
	}
	return ret;
}
