// SPDX-License-Identifier: MIT
/*
 * cmd_nodes.c - `gridtree nodes`: every node of a network model with its
 * cluster and site, as CSV, for scripts that join per-host records (a
 * campaign's ranks.csv, say) with the grid's structure.
 *
 *   gridtree nodes (--matrix FILE | --topo FILE)
 *
 * prints "name,cluster,site" and then one line per node, in the model's
 * order (a topology's host order, or the matrix file's).
 */
#include <getopt.h>
#include <stdio.h>

#include "gbcore.h"
#include "toolcli.h"

#define PROG "gridtree nodes"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gridtree nodes (--matrix FILE | --topo FILE)\n"
		"  --matrix FILE   network model in the matrix JSON format\n"
		"  --topo FILE     network model of a topology's hosts\n"
		"prints CSV: name,cluster,site, one line per node in the model's order.\n");
}

int gb_cmd_nodes(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "matrix", required_argument, NULL, 'm' },
		{ "topo", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct tool_cli cli = { PROG, usage };
	struct gb_netmodel m = { 0 };
	const char *matrix = NULL, *topo = NULL;
	int c, st;

	optind = 0;
	while ((c = tool_getopt(argc, argv, "m:t:h", lopts, &cli, &st)) != -1) {
		if (c == 'm')
			matrix = optarg;
		else if (c == 't')
			topo = optarg;
	}
	if (st >= 0)
		return st;
	if (!matrix == !topo) {
		fprintf(stderr, PROG ": need one of --matrix, --topo (see --help)\n");
		return TOOL_EXIT_USAGE;
	}
	if ((st = tool_load_model_cli(PROG, &m, topo, matrix, 0.0)))
		return st;
	printf("name,cluster,site\n");
	for (int i = 0; i < m.n; i++)
		printf("%s,%s,%s\n", m.nodes[i].name, m.cluster_names[m.nodes[i].cluster],
		       m.site_names[m.nodes[i].site]);
	gb_nm_release(&m);
	return fflush(stdout) ? 1 : 0;
}
