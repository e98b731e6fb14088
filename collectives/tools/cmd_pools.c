// SPDX-License-Identifier: MIT
/*
 * cmd_pools.c - `gridtree pools`: the pool formation of seed 000 §2.4
 * (Table 1), the first step of clusteredSA, on its own.
 *
 *   gridtree pools (--matrix FILE | --topo FILE) --percent P [--cap N]
 *
 * prints one pool per line, its nodes' names separated by spaces, pools in
 * order of their first node.  The rule is gb_pools_form()'s (sa_pools.c).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbplan.h"
#include "gbtopo.h"
#include "plan_impl.h"

#define PROG "gridtree pools"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gridtree pools (--matrix FILE | --topo FILE) --percent P [--cap N]\n"
		"  --matrix FILE   network model in the matrix JSON format\n"
		"  --topo FILE     network model of a topology's hosts\n"
		"  --percent P     a pool's node pairs have at least P %% of the largest\n"
		"                  bandwidth (seed 000 uses 10, 25, 50 and 75)\n"
		"  --cap N         close a pool at N nodes (clusteredSA uses 16); 0 = none\n"
		"prints one pool per line (node names), in order of their first node.\n");
}

static int load_model(struct gb_netmodel *m, const char *matrix, const char *topo)
{
	char err[512] = "";
	int ret;

	if (matrix) {
		ret = gb_nm_load_json(m, matrix, err, sizeof(err));
		if (ret < 0)
			fprintf(stderr, PROG ": %s\n", err[0] ? err : strerror(-ret));
		return ret;
	}
	struct gb_topo *t = NULL;
	struct gb_diag d = { 0 };

	ret = gb_topo_load(topo, &t, &d);
	if (ret < 0) {
		if (ret == -EINVAL)
			fprintf(stderr, PROG ": %s:%d:%d: %s\n", d.file, d.line, d.col, d.msg);
		else
			fprintf(stderr, PROG ": cannot read '%s': %s\n", topo, strerror(-ret));
		return ret;
	}
	ret = gb_nm_from_topo(m, t, 0.0);
	if (ret < 0)
		fprintf(stderr, PROG ": cannot model '%s': %s\n", topo, strerror(-ret));
	gb_topo_free(t);
	return ret;
}

int gb_cmd_pools(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "matrix", required_argument, NULL, 'm' },
		{ "topo", required_argument, NULL, 't' },
		{ "percent", required_argument, NULL, 'p' },
		{ "cap", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gb_netmodel m = { 0 };
	const char *matrix = NULL, *topo = NULL;
	double percent = NAN;
	int cap = 0, c, ret, status = 1;
	int *pool = NULL;
	char *end;

	optind = 0;
	while ((c = getopt_long(argc, argv, "m:t:p:c:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			matrix = optarg;
			break;
		case 't':
			topo = optarg;
			break;
		case 'p':
			errno = 0;
			percent = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(percent >= 0 && percent <= 100)) {
				fprintf(stderr, PROG ": bad --percent '%s' (0 to 100)\n", optarg);
				return 2;
			}
			break;
		case 'c': {
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0 || v > 1000000) {
				fprintf(stderr, PROG ": bad --cap '%s'\n", optarg);
				return 2;
			}
			cap = (int)v;
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!matrix == !topo || isnan(percent)) {
		fprintf(stderr, PROG ": need --percent and one of --matrix, --topo\n");
		usage(stderr);
		return 2;
	}
	if (load_model(&m, matrix, topo) < 0)
		goto cleanup;
	pool = malloc(sizeof(int) * (size_t)m.n);
	if (!pool) {
		fprintf(stderr, PROG ": %s\n", strerror(ENOMEM));
		goto cleanup;
	}
	ret = gb_pools_form(&m, NULL, m.n, percent, cap, pool);
	if (ret < 0) {
		fprintf(stderr, PROG ": cannot form pools: %s\n", strerror(-ret));
		goto cleanup;
	}
	for (int j = 0; j < ret; j++) {
		const char *sep = "";

		for (int i = 0; i < m.n; i++) {
			if (pool[i] != j)
				continue;
			printf("%s%s", sep, m.nodes[i].name);
			sep = " ";
		}
		putchar('\n');
	}
	status = fflush(stdout) ? 1 : 0;
cleanup:
	free(pool);
	gb_nm_release(&m);
	return status;
}
