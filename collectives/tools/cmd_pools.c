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
#include "plan_impl.h"
#include "toolcli.h"

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
	static const struct tool_cli cli = { PROG, usage };
	struct gb_netmodel m = { 0 };
	const char *matrix = NULL, *topo = NULL;
	double percent = NAN;
	int cap = 0, c, ret, st, status = 1;
	int *pool = NULL;
	char *end;

	optind = 0;
	while ((c = tool_getopt(argc, argv, "m:t:p:c:h", lopts, &cli, &st)) != -1) {
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
		}
	}
	if (st >= 0)
		return st;
	if (!matrix == !topo || isnan(percent)) {
		fprintf(stderr, PROG ": need --percent and one of --matrix, --topo (see --help)\n");
		return 2;
	}
	if ((status = tool_load_model_cli(PROG, &m, topo, matrix, 0.0)))
		goto cleanup;
	status = 1;
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
