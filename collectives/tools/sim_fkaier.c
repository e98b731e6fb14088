// SPDX-License-Identifier: MIT
/*
 * sim_fkaier.c - `gridtree sim fkaier`: the simulation study of Fkaier,
 * Cérin, Steffenel, Jemni (seed 002 §4.2, Figures 2 and 3).
 *
 *   for each setting s in {Table 1, Table 2 left, Table 2 right}:
 *     for each number of clusters k:
 *       for d in 1 .. draws (the paper: "the mean of 100 iterations"):
 *         c = gb_clmodel_gen_fkaier(k, s, seed(s, k, d))   L, g, T uniform
 *         for each pLogP heuristic h:
 *           t[h][d] = gb_clmodel_cost(c, gb_plogp_schedule(c, h), overlap 1)
 *       report mean_d t[h][d], and mean_d t[h][d] / min_h t[h][d]
 *
 * The makespan is the paper's, max_j(arrival_j + T_j) (overlap 1); the
 * one-port "wide-area sends first" makespan that the expanded node tree
 * really has (overlap 0) is reported beside it.  Every draw has its own
 * seed, a hash of (--seed, setting, k, d), so that the figure for one k does
 * not depend on which other k were asked for.
 *
 * Outputs in --out (default results/sim/fkaier/), each written atomically:
 *   fkaier.csv             one row per (setting, k, heuristic)
 *   fkaier-<setting>.csv   wide table per setting, for gnuplot
 *   mostcrit-factors.csv   how often MostCrit satisfied factor (1), (2), (3)
 *   meta.json              parameters, seeds, git revision
 *   fkaier.gp              the gnuplot script; fkaier-<setting>.png from it
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gbplan.h"
#include "plan_impl.h"
#include "gbutil.h"
#include "toolcli.h"

#define PROG "gridtree sim fkaier"

static const struct setting {
	const char *name;
	const char *label;
	int table;           /* gb_clmodel_gen_fkaier()'s @table */
} settings[] = {
	{ "table1", "Table 1: Grid'5000 settings (L 1-15 us, g 100-600 ms, T 200-3000 ms)", 0 },
	{ "table2-x5", "Table 2 left: L, g x5, T /5 (L 5-75 us, g 500-3000 ms, T 40-600 ms)", 1 },
	{ "table2-x10", "Table 2 right: L, g x10, T /10 (L 10-150 us, g 1-6 s, T 20-300 ms)", 2 },
};
#define NSET ((int)(sizeof(settings) / sizeof(settings[0])))
#define NH GB_PLOGP_NHEUR

/* Accumulated over the draws of one (setting, k). */
struct acc {
	double sum[NH], sum2[NH], ratio[NH], wan[NH], plan_s[NH];
	int wins[NH];
	long factor[3];
	int mismatch;        /* heuristic bookkeeping vs gb_clmodel_cost() */
};

struct opts {
	struct tool_simout io;   /* --out, --no-plot, --quiet */
	int draws;
	uint64_t seed;
	int kmin, kmax, kstep;
	int use[NSET];
	double lat_scale;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gridtree sim fkaier [--out DIR] [--draws N] [--seed N]\n"
		"                           [--clusters MIN:MAX[:STEP]] [--setting NAME]...\n"
		"                           [--lat-unit us|ms] [--no-plot] [--quiet]\n"
		"\n"
		"Reproduces seed 002's simulation study (Fkaier et al., section 4.2):\n"
		"broadcast time against the number of clusters for every pLogP heuristic,\n"
		"the mean of --draws random instances (default 100) per point, under\n"
		"Table 1 and both Table 2 settings.\n"
		"\n"
		"  --out DIR          output folder (default results/sim/fkaier)\n"
		"  --draws N          instances per point (default 100)\n"
		"  --seed N           base seed (default 1)\n"
		"  --clusters A:B:S   numbers of clusters (default 2:64:2)\n"
		"  --setting NAME     table1, table2-x5 or table2-x10; repeatable (default all)\n"
		"  --lat-unit U       unit of the tables' L column: us, as the paper's text\n"
		"                     says (default), or ms\n"
		"  --no-plot          do not run gnuplot\n"
		"  --quiet            print only the summary\n");
}

static int parse_int(const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end || *v < lo || *v > hi ? -EINVAL : 0;
}

static int parse_clusters(const char *s, struct opts *o)
{
	int a, b, st = 1, n;
	char tail;

	n = sscanf(s, "%d:%d:%d%c", &a, &b, &st, &tail);
	if (n == 1 && sscanf(s, "%d%c", &a, &tail) == 1)
		b = a;
	else if (n != 2 && n != 3)
		return -EINVAL;
	if (a < 1 || b < a || b > 4096 || st < 1)
		return -EINVAL;
	o->kmin = a;
	o->kmax = b;
	o->kstep = st;
	return 0;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t draw_seed(uint64_t seed, int set, int k, int d)
{
	return mix(mix(mix(seed ^ ((uint64_t)set << 56)) ^ (uint64_t)k) ^ (uint64_t)d);
}

/* One (setting, k) point: @draws instances, every heuristic on each. */
static int run_point(const struct opts *o, int s, int k, struct acc *A)
{
	struct gb_clmodel c = { 0 };
	struct gb_tree ct = { 0 };
	double *arr = NULL, t[NH];
	int err = 0;

	memset(A, 0, sizeof(*A));
	arr = malloc((size_t)k * sizeof(double));
	if (!arr)
		return -ENOMEM;
	for (int d = 0; d < o->draws; d++) {
		double best = INFINITY;

		err = gb_clmodel_gen_fkaier(&c, k, settings[s].table, draw_seed(o->seed, s, k, d));
		if (err)
			goto cleanup;
		if (o->lat_scale != 1.0)
			for (size_t x = 0; x < (size_t)k * k; x++)
				c.L[x] *= o->lat_scale;
		for (int h = 0; h < NH; h++) {
			int f[3];
			double t0 = gb_now(), mine = 0.0;

			err = gb_plogp_schedule(&c, h, &ct, arr, f);
			A->plan_s[h] += gb_now() - t0;
			if (err)
				goto cleanup;
			t[h] = gb_clmodel_cost(&c, &ct, 1, NULL);
			A->wan[h] += gb_clmodel_cost(&c, &ct, 0, NULL);
			for (int j = 0; j < k; j++)
				mine = fmax(mine, arr[j] + c.T[j]);
			if (!(fabs(mine - t[h]) <= 1e-9 * fmax(1.0, t[h])))
				A->mismatch++;
			if (h == GB_PLOGP_MOSTCRIT)
				for (int x = 0; x < 3; x++)
					A->factor[x] += f[x];
			gb_tree_release(&ct);
			if (t[h] < best)
				best = t[h];
		}
		for (int h = 0; h < NH; h++) {
			A->sum[h] += t[h];
			A->sum2[h] += t[h] * t[h];
			A->ratio[h] += t[h] / best;
			A->wins[h] += t[h] <= best * (1 + 1e-12);
		}
		gb_clmodel_release(&c);
	}
cleanup:
	gb_tree_release(&ct);
	gb_clmodel_release(&c);
	free(arr);
	return err;
}

static int write_gnuplot(const struct opts *o)
{
	struct tool_out a;
	FILE *f = tool_gnuplot_begin(PROG, &a, o->io.out, "fkaier.gp", 1000, 900,
		"# seed 002 s4.2, Figures 2 and 3: broadcast time against the number of\n"
		"# clusters, mean of %d draws.  Run in this folder: gnuplot fkaier.gp\n", o->draws);

	if (!f)
		return -1;
	fprintf(f,
		"set datafile separator ','\n"
		"set key outside right top\n"
		"set grid\n"
		"set xlabel 'number of clusters'\n");
	for (int s = 0; s < NSET; s++) {
		if (!o->use[s])
			continue;
		fprintf(f, "\nset output 'fkaier-%s.png'\n", settings[s].name);
		fprintf(f, "set multiplot layout 2,1 title \"%s%s\"\n", settings[s].label,
			o->lat_scale != 1.0 ? " [L in ms]" : "");
		fprintf(f, "set ylabel 'broadcast time (s), max_j(arrival_j + T_j)'\n");
		fprintf(f, "plot for [h=2:%d] 'fkaier-%s.csv' using 1:h with linespoints "
			   "title columnheader(h)\n", NH + 1, settings[s].name);
		fprintf(f, "set ylabel 'mean ratio to the best heuristic of each draw'\n");
		fprintf(f, "plot for [h=%d:%d] 'fkaier-%s.csv' using 1:h with linespoints "
			   "title columnheader(h)\n", NH + 2, 2 * NH + 1, settings[s].name);
		fprintf(f, "unset multiplot\n");
	}
	return tool_out_end(PROG, &a);
}

static int write_meta(const struct opts *o, double elapsed)
{
	json_t *j = json_object(), *sets = json_array(), *heur = json_array();
	int err;

	for (int s = 0; s < NSET; s++)
		if (o->use[s])
			json_array_append_new(sets, json_string(settings[s].name));
	for (int h = 0; h < NH; h++)
		json_array_append_new(heur, json_string(gb_plogp_heur_name(h)));
	json_object_set_new(j, "study", json_string("seed 002 s4.2 (Fkaier et al.), Figures 2-3"));
	json_object_set_new(j, "settings", sets);
	json_object_set_new(j, "heuristics", heur);
	json_object_set_new(j, "draws", json_integer(o->draws));
	json_object_set_new(j, "seed", json_integer((json_int_t)o->seed));
	json_object_set_new(j, "seed_rule", json_string("per draw: splitmix hash of "
							"(seed, setting, clusters, draw)"));
	json_object_set_new(j, "clusters_min", json_integer(o->kmin));
	json_object_set_new(j, "clusters_max", json_integer(o->kmax));
	json_object_set_new(j, "clusters_step", json_integer(o->kstep));
	json_object_set_new(j, "lat_unit", json_string(o->lat_scale != 1.0 ? "ms" : "us"));
	json_object_set_new(j, "makespan", json_string("max_j(arrival_j + T_j), "
						       "gb_clmodel_cost overlap=1"));
	json_object_set_new(j, "git_rev", json_string(gb_git_revision()));
	json_object_set_new(j, "elapsed_s", json_real(elapsed));
	err = tool_json_save(PROG, j, o->io.out, "meta.json");
	json_decref(j);
	return err;
}

int gb_sim_fkaier(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "draws", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "clusters", required_argument, NULL, 'k' },
		{ "setting", required_argument, NULL, 'S' },
		{ "lat-unit", required_argument, NULL, 'L' },
		TOOL_SIMOUT_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct tool_cli cli = { PROG, usage };
	struct opts o = { .io = { "results/sim/fkaier", 1, 0 }, .draws = 100, .seed = 1,
			  .kmin = 2, .kmax = 64, .kstep = 2, .lat_scale = 1.0 };
	struct tool_out longf = { 0 }, widef = { 0 }, factf = { 0 };
	struct acc *acc = NULL;
	int any = 0, ret = 1, nk, c, st;
	double t0 = gb_now(), ratio_avg[NSET][NH] = { { 0 } };
	long mism = 0;

	optind = 0;
	while ((c = tool_getopt(argc, argv, "o:d:s:k:S:L:Pqh", lopts, &cli, &st)) != -1) {
		long v;
		const char *arg = optarg;

		if (tool_simout_opt(&o.io, c, arg))
			continue;
		switch (c) {
		case 'd':
			if (parse_int(arg, 1, 1000000, &v)) {
				fprintf(stderr, PROG ": bad --draws '%s'\n", arg);
				return 2;
			}
			o.draws = (int)v;
			break;
		case 's': {
			char *end;

			errno = 0;
			o.seed = strtoull(arg, &end, 0);
			if (errno || end == arg || *end) {
				fprintf(stderr, PROG ": bad --seed '%s'\n", arg);
				return 2;
			}
			break;
		}
		case 'k':
			if (parse_clusters(arg, &o)) {
				fprintf(stderr, PROG ": bad --clusters '%s' (use MIN:MAX[:STEP])\n",
					arg);
				return 2;
			}
			break;
		case 'S': {
			int s;

			for (s = 0; s < NSET && strcmp(arg, settings[s].name); s++)
				;
			if (s == NSET) {
				fprintf(stderr, PROG ": unknown setting '%s' (table1, table2-x5, "
						"table2-x10)\n", arg);
				return 2;
			}
			o.use[s] = 1;
			any = 1;
			break;
		}
		case 'L':
			if (strcmp(arg, "us") == 0) {
				o.lat_scale = 1.0;
			} else if (strcmp(arg, "ms") == 0) {
				o.lat_scale = 1000.0;
			} else {
				fprintf(stderr, PROG ": bad --lat-unit '%s' (us or ms)\n", arg);
				return 2;
			}
			break;
		}
	}
	if (st >= 0)
		return st;
	if (!any)
		for (int s = 0; s < NSET; s++)
			o.use[s] = 1;
	nk = (o.kmax - o.kmin) / o.kstep + 1;
	acc = calloc((size_t)nk, sizeof(*acc));
	if (!acc) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	if (tool_simout_mkdir(PROG, &o.io))
		goto cleanup;
	if (tool_out_begin(PROG, &longf, o.io.out, "fkaier.csv"))
		goto cleanup;
	fprintf(longf.f, "setting,clusters,heuristic,draws,mean_s,sd_s,mean_ratio_to_best,"
			 "wins,mean_wan_first_s,plan_us\n");
	if (tool_out_begin(PROG, &factf, o.io.out, "mostcrit-factors.csv"))
		goto cleanup;
	fprintf(factf.f, "setting,clusters,share_ecef,share_ecef_la,share_bottomup\n");

	for (int s = 0; s < NSET; s++) {
		char name[64];

		if (!o.use[s])
			continue;
		snprintf(name, sizeof(name), "fkaier-%s.csv", settings[s].name);
		if (tool_out_begin(PROG, &widef, o.io.out, name))
			goto cleanup;
		fprintf(widef.f, "clusters");
		for (int h = 0; h < NH; h++)
			fprintf(widef.f, ",%s", gb_plogp_heur_name(h));
		for (int h = 0; h < NH; h++)
			fprintf(widef.f, ",%s", gb_plogp_heur_name(h));
		fprintf(widef.f, "\n");
		if (!o.io.quiet) {
			printf("\n%s%s, mean of %d draws: broadcast time (s)\n", settings[s].label,
			       o.lat_scale != 1.0 ? " [L in ms]" : "", o.draws);
			printf("%8s", "clusters");
			for (int h = 0; h < NH; h++)
				printf(" %12s", gb_plogp_heur_name(h));
			printf("  mostcrit factors (1)/(2)/(3)\n");
		}
		for (int x = 0; x < nk; x++) {
			int k = o.kmin + x * o.kstep, err;
			struct acc *A = &acc[x];
			double share[3];
			long nf;

			err = run_point(&o, s, k, A);
			if (err) {
				fprintf(stderr, PROG ": %s at %d clusters: %s\n",
					settings[s].name, k, strerror(-err));
				goto cleanup;
			}
			mism += A->mismatch;
			fprintf(widef.f, "%d", k);
			for (int h = 0; h < NH; h++)
				fprintf(widef.f, ",%.9g", A->sum[h] / o.draws);
			for (int h = 0; h < NH; h++)
				fprintf(widef.f, ",%.9g", A->ratio[h] / o.draws);
			fprintf(widef.f, "\n");
			for (int h = 0; h < NH; h++) {
				double mean = A->sum[h] / o.draws;
				double var = A->sum2[h] / o.draws - mean * mean;

				ratio_avg[s][h] += A->ratio[h] / o.draws / nk;
				fprintf(longf.f, "%s,%d,%s,%d,%.9g,%.9g,%.9g,%d,%.9g,%.3f\n",
					settings[s].name, k, gb_plogp_heur_name(h), o.draws, mean,
					sqrt(var > 0 ? var : 0), A->ratio[h] / o.draws, A->wins[h],
					A->wan[h] / o.draws, A->plan_s[h] / o.draws * 1e6);
			}
			nf = A->factor[0] + A->factor[1] + A->factor[2];
			for (int f = 0; f < 3; f++)
				share[f] = nf ? (double)A->factor[f] / nf : 0.0;
			fprintf(factf.f, "%s,%d,%.4f,%.4f,%.4f\n", settings[s].name, k, share[0],
				share[1], share[2]);
			if (!o.io.quiet) {
				printf("%8d", k);
				for (int h = 0; h < NH; h++)
					printf(" %12.4f", A->sum[h] / o.draws);
				printf("  %.2f/%.2f/%.2f\n", share[0], share[1], share[2]);
			}
		}
		if (tool_out_end(PROG, &widef))
			goto cleanup;
	}
	c = tool_out_end(PROG, &longf);
	c |= tool_out_end(PROG, &factf);
	if (c)
		goto cleanup;

	printf("\nsummary: mean over %d..%d clusters of (time / best heuristic of the draw)\n",
	       o.kmin, o.kmax);
	printf("%-12s", "setting");
	for (int h = 0; h < NH; h++)
		printf(" %12s", gb_plogp_heur_name(h));
	printf("\n");
	for (int s = 0; s < NSET; s++) {
		if (!o.use[s])
			continue;
		printf("%-12s", settings[s].name);
		for (int h = 0; h < NH; h++)
			printf(" %12.4f", ratio_avg[s][h]);
		printf("\n");
	}
	if (mism)
		fprintf(stderr, PROG ": %ld schedules disagree with gb_clmodel_cost()\n", mism);
	if (write_meta(&o, gb_now() - t0) || write_gnuplot(&o))
		goto cleanup;
	printf("wrote %s/fkaier.csv, fkaier-<setting>.csv, mostcrit-factors.csv, meta.json\n",
	       o.io.out);
	if (o.io.plot)
		tool_plot(PROG, o.io.out, "fkaier.gp", "fkaier-*.png", 0);
	ret = mism ? 1 : 0;
cleanup:
	tool_out_discard(&longf);
	tool_out_discard(&factf);
	tool_out_discard(&widef);
	free(acc);
	return ret;
}
