/* SPDX-License-Identifier: MIT */
/*
 * 8025-report-trees - gx_run_trees() (experiments/report_trees.c): the
 * paper's mechanism counted in the trees a run's ranks report, on three
 * sites (A: clusters a, t; B: b; C: c), the load's target cluster t:
 *   broadcast 0, loaded:   a-1 -> b-1, c-1, t-1; t-1 -> t-2 (t relays to
 *                          nobody outside: the lowermost level);
 *   broadcast 1, loaded:   a-1 -> t-1; t-1 -> b-1 (t relays); b-1 -> c-1;
 *   broadcast 2, unloaded: MPICH-G2's structure, a-1 -> b-1, c-1, t-1;
 *   broadcast 3, unloaded: b-1 -> c-1 (a second site reached from B: not
 *                          MPICH-G2's structure);
 *   broadcast 4, unloaded: two roots (native's unknown parents): counted
 *                          nowhere.
 * Then a run of 3 ranks (a condition's `procs: 3`: a-1, t-1, b-1; t-2 and
 * site C have none), whose trees are judged over its ranks:
 *   broadcast 0, unloaded: a-1 -> t-1, b-1: MPICH-G2's structure (no edge
 *                          into C, which has no rank);
 *   broadcast 1, loaded:   a-1 -> t-1; t-1 -> b-1 (t relays).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_priv.h"
#include "tap.h"

static const char topo[] =
	"name: trees\n"
	"sites:\n"
	"  - name: A\n"
	"    clusters: [{name: a, hosts: 1}, {name: t, hosts: 2}]\n"
	"  - name: B\n"
	"    clusters: [{name: b, hosts: 1}]\n"
	"  - name: C\n"
	"    clusters: [{name: c, hosts: 1}]\n"
	"links:\n"
	"  - {a: A, b: B, delay: 5ms, rate: 10mbit}\n"
	"  - {a: B, b: C, delay: 5ms, rate: 10mbit}\n";

/* rank: 0 a-1, 1 t-1, 2 t-2, 3 b-1, 4 c-1; parents by broadcast */
static const int parents[5][5] = {
	{ -1, 0, 1, 0, 0 },
	{ -1, 0, 1, 1, 3 },
	{ -1, 0, 1, 0, 0 },
	{ -1, 0, 1, 0, 3 },
	{ -1, -1, 1, 0, 0 },
};
static const char *const hosts[5] = { "a-1", "t-1", "t-2", "b-1", "c-1" };

int main(void)
{
	char dir[] = "/tmp/gb-8025.XXXXXX", path[64];
	struct gb_topo *t = NULL;
	struct gb_diag d;
	char line[GB_DIAG_LINE_MAX];
	struct gx_row rows[5];
	struct gx_tree_counts c;
	FILE *f;

	plan(10);
	if (!mkdtemp(dir))
		bail("mkdtemp");
	if (gb_topo_parse(topo, sizeof(topo) - 1, "trees.yaml", &t, &d) < 0)
		bail("%s", gb_diag_format(&d, NULL, line, sizeof(line)));
	snprintf(path, sizeof(path), "%s/ranks.csv", dir);
	if (!(f = fopen(path, "w")))
		bail("cannot write %s", path);
	fputs("index,rank,host,parent\n", f);
	memset(rows, 0, sizeof(rows));
	for (int x = 0; x < 5; x++) {
		rows[x].index = x;
		rows[x].loaded = x < 2;
		for (int k = 0; k < 5; k++)
			fprintf(f, "%d,%d,%s,%d\n", x, k, hosts[k], parents[x][k]);
	}
	fclose(f);

	int target = gb_topo_find_cluster(t, "t");
	is_int(gx_run_trees(t, path, target, rows, 5, &c), 0, "a hand-written ranks.csv");
	is_int(c.loaded, 2, "two loaded broadcasts with one tree each");
	is_int(c.relay, 1, "in one of them the target t sends to another cluster");
	is_int(c.unloaded, 2, "two unloaded broadcasts counted (the one with two roots is not)");
	is_int(c.mpich_wan, 1, "one has MPICH-G2's structure: one edge into each other site, "
	       "all from the root's");
	is_int(gx_run_trees(t, path, -1, rows, 5, &c) == 0 ? c.relay : -1, 0,
	       "without a target cluster, nothing relays");

	/* procs: 3, ranks 0 a-1, 1 t-1, 2 b-1 */
	if (!(f = fopen(path, "w")))
		bail("cannot write %s", path);
	fputs("index,rank,host,parent\n"
	      "0,0,a-1,-1\n0,1,t-1,0\n0,2,b-1,0\n"
	      "1,0,a-1,-1\n1,1,t-1,0\n1,2,b-1,1\n", f);
	fclose(f);
	rows[0].loaded = 0;
	rows[1].loaded = 1;
	is_int(gx_run_trees(t, path, target, rows, 2, &c) == 0 ? c.unloaded : -1, 1,
	       "3 ranks of 5 hosts: the unloaded tree is judged over the run's ranks");
	is_int(c.mpich_wan, 1, "  MPICH-G2's structure: one edge into B, none into C (no rank)");
	is_int(c.loaded * 10 + c.relay, 11, "  the loaded one: t relays");
	unlink(path);
	is_int(gx_run_trees(t, path, target, rows, 5, &c) == 0 ? c.loaded + c.unloaded : -1, 0,
	       "no ranks.csv: nothing counted, no error");
	rmdir(dir);
	gb_topo_free(t);
	return done_testing();
}
