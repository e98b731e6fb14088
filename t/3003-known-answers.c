/* SPDX-License-Identifier: MIT */
/*
 * 3003-known-answers - trees and costs computed by hand for the planners
 * of collectives/plan/plan_static.c and plan_mateescu.c (issue 3, "Known
 * answers").  The pLogP family has its own in t/5xxx.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbplan.h"
#include "gbtopo.h"
#include "tap.h"

static const char *srcdir(void)
{
	const char *s = getenv("GRIDBED_SRC");

	return s ? s : GRIDBED_SOURCE_DIR;
}

/* "a b c" == names of u's children in send order */
static int kids(const struct gb_netmodel *m, const struct gb_tree *t, const char *u,
		const char *want)
{
	char got[512] = "";
	int v = gb_nm_find_node(m, u);

	if (v < 0)
		return 0;
	for (int i = 0; i < t->nchild[v]; i++) {
		if (i)
			strcat(got, " ");
		strcat(got, m->nodes[t->child[t->cstart[v] + i]].name);
	}
	if (strcmp(got, want)) {
		diag("  %s -> '%s', expected '%s'", u, got, want);
		return 0;
	}
	return 1;
}

static int run_plan(const char *algo, const struct gb_netmodel *m, int root, double size,
		struct gb_tree *t)
{
	struct gb_plan_args a = { root, size, 1, 0, NULL };
	const struct gb_planner *p = gb_planner_find(algo);

	if (!p)
		bail("planner '%s' not registered", algo);
	return gb_plan(p, m, &a, t);
}

/*
 * MPICH's rule for p = 8, root 3.  Relative rank r = (rank - 3) mod 8;
 * r receives from r - lowbit(r) and sends to r + 4, r + 2, r + 1 below its
 * lowest set bit (largest subtree first):
 *
 *	rank:      3   4   5   6   7   0   1   2
 *	relative:  0   1   2   3   4   5   6   7
 *
 *	3 (r0) -> 7 (r4), 5 (r2), 4 (r1)
 *	7 (r4) -> 1 (r6), 0 (r5)
 *	5 (r2) -> 6 (r3)
 *	1 (r6) -> 2 (r7)
 */
static void test_binomial(void)
{
	static const int parent[8] = { 7, 7, 1, -1, 3, 3, 5, 3 };
	struct gb_netmodel m;
	struct gb_tree t;
	int ok_par = 1;

	if (gb_nm_gen_uniform(&m, 8, 1e6, 2e6, 1e-3, 0, 1) < 0)
		bail("model");
	is_int(run_plan("binomial", &m, 3, 1024, &t), 0, "binomial p=8 root 3");
	for (int v = 0; v < 8; v++)
		ok_par &= t.parent[v] == parent[v];
	ok(ok_par, "parents follow MPICH's rule");
	ok(kids(&m, &t, "n3", "n7 n5 n4"), "3 -> 7 5 4");
	ok(kids(&m, &t, "n7", "n1 n0"), "7 -> 1 0");
	ok(kids(&m, &t, "n5", "n6") && kids(&m, &t, "n1", "n2"), "5 -> 6, 1 -> 2");
	ok(t.nchild[0] + t.nchild[2] + t.nchild[4] + t.nchild[6] == 0, "0 2 4 6 are leaves");
	gb_tree_release(&t);

	is_int(run_plan("flat", &m, 3, 1024, &t), 0, "flat p=8 root 3");
	ok(kids(&m, &t, "n3", "n0 n1 n2 n4 n5 n6 n7"), "flat: root sends in rank order");
	gb_tree_release(&t);

	/* Open MPI's pipeline chain (coll/base build_chain, fanout 1) from
	 * root 3: 3 -> 4 -> 5 -> 6 -> 7 -> 0 -> 1 -> 2 */
	is_int(run_plan("chain", &m, 3, 1024, &t), 0, "chain p=8 root 3");
	ok(kids(&m, &t, "n3", "n4") && kids(&m, &t, "n7", "n0") && kids(&m, &t, "n1", "n2"),
	   "chain: 3 -> 4, 7 -> 0 (round the ranks), 1 -> 2");
	ok(t.nchild[2] == 0 && t.parent[3] == -1, "chain: 2 is the last, 3 the root");
	ok_par = 1;
	for (int r = 1; r < 8; r++)
		ok_par &= t.parent[(3 + r) % 8] == (3 + r - 1) % 8 && t.nchild[(3 + r - 1) % 8] == 1;
	ok(ok_par, "chain: every rank's parent is the one before it from the root on");
	gb_tree_release(&t);
	gb_nm_release(&m);
}

/*
 * MPICH-G2 and MagPIe on the TeraGrid framework (seed 000 Figs. 6-7).
 * Hosts in rank order: c1 0-7, c2 8-15 (SDSC); c3 16-27, c4 28-35, c5 36-39
 * (NCSA); c6 40-47, c7 48-55 (ANL); c8 56-63 (PSC).
 *
 * Root c2-1:
 *   WAN level: site masters SDSC c2-1 (the root), NCSA c3-1, ANL c6-1,
 *              PSC c8-1; flat in rank order: c2-1 -> c3-1 c6-1 c8-1
 *   site level: SDSC {c1-1, c2-1} rooted at c2-1 (index 1): c2-1 -> c1-1
 *              NCSA {c3-1, c4-1, c5-1} rooted at c3-1: c3-1 -> c5-1 c4-1
 *              ANL {c6-1, c7-1}: c6-1 -> c7-1;  PSC has one cluster
 *   cluster level: binomial of 8 from the master: m -> m+4 m+2 m+1 ...
 *              c3 (12 hosts): c3-1 -> c3-9 c3-5 c3-3 c3-2, c3-9 -> c3-11 c3-10
 *   a node's sends follow the levels: WAN, then site, then cluster.
 *
 * Root c3-5 (not its cluster's lowest rank): the rotation makes c3-5 the
 * master of c3, NCSA and the WAN; other groups keep their lowest rank.
 *   WAN: c3-5 -> c1-1 c6-1 c8-1 (rank order); NCSA: c3-5 -> c5-1 c4-1;
 *   SDSC: c1-1 -> c2-1;  c3 binomial over c3-5..c3-12, c3-1..c3-4
 *   (relative order rotated to c3-5): c3-5 -> c3-1 c3-9 c3-7 c3-6.
 */
static void test_teragrid(void)
{
	char path[512];
	struct gb_topo *tp = NULL;
	struct gb_diag d;
	struct gb_netmodel m;
	struct gb_tree t;
	int root;

	snprintf(path, sizeof(path), "%s/topologies/teragrid.yaml", srcdir());
	if (access(path, R_OK) != 0 || gb_topo_load(path, &tp, &d) < 0) {
		skip(13, "topologies/teragrid.yaml not available");
		return;
	}
	if (gb_nm_from_topo(&m, tp, 10e-6) < 0)
		bail("model of teragrid");
	root = gb_nm_find_node(&m, "c2-1");
	is_int(run_plan("mpich-g2", &m, root, 1048576, &t), 0, "mpich-g2 on teragrid, root c2-1");
	ok(kids(&m, &t, "c2-1", "c3-1 c6-1 c8-1 c1-1 c2-5 c2-3 c2-2"),
	   "root: flat over site masters, then SDSC, then its cluster");
	ok(kids(&m, &t, "c3-1", "c5-1 c4-1 c3-9 c3-5 c3-3 c3-2"), "NCSA master");
	ok(kids(&m, &t, "c6-1", "c7-1 c6-5 c6-3 c6-2") && kids(&m, &t, "c8-1", "c8-5 c8-3 c8-2"),
	   "ANL and PSC masters");
	ok(kids(&m, &t, "c1-1", "c1-5 c1-3 c1-2") && kids(&m, &t, "c3-9", "c3-11 c3-10") &&
	   kids(&m, &t, "c3-11", "c3-12") && kids(&m, &t, "c5-1", "c5-3 c5-2"),
	   "binomial inside clusters");
	gb_tree_release(&t);

	root = gb_nm_find_node(&m, "c3-5");
	is_int(run_plan("mpich-g2", &m, root, 1048576, &t), 0, "mpich-g2 on teragrid, root c3-5");
	ok(kids(&m, &t, "c3-5", "c1-1 c6-1 c8-1 c5-1 c4-1 c3-1 c3-9 c3-7 c3-6"),
	   "root is master of its site and cluster");
	ok(kids(&m, &t, "c1-1", "c2-1 c1-5 c1-3 c1-2"), "other sites keep their lowest rank");
	ok(kids(&m, &t, "c3-1", "c3-3 c3-2") && kids(&m, &t, "c3-9", "c3-11 c3-10"),
	   "c3 binomial rotated to the root (c3-1 is relative 8)");
	gb_tree_release(&t);

	root = gb_nm_find_node(&m, "c2-1");
	is_int(run_plan("magpie", &m, root, 1048576, &t), 0, "magpie on teragrid, root c2-1");
	ok(kids(&m, &t, "c2-1", "c1-1 c3-1 c4-1 c5-1 c6-1 c7-1 c8-1 c2-5 c2-3 c2-2"),
	   "magpie: root to every coordinator, then its own binomial");
	ok(kids(&m, &t, "c3-1", "c3-9 c3-5 c3-3 c3-2") && kids(&m, &t, "c7-1", "c7-5 c7-3 c7-2"),
	   "magpie: coordinators run a binomial only");
	/* every wide-area edge of magpie leaves the root */
	{
		int bad = 0;

		for (int v = 0; v < m.n; v++)
			if (t.parent[v] >= 0 && m.nodes[t.parent[v]].cluster != m.nodes[v].cluster)
				bad += t.parent[v] != root;
		is_int(bad, 0, "magpie: one inter-cluster message per cluster, all from the root");
	}
	gb_tree_release(&t);
	gb_nm_release(&m);
	gb_topo_free(tp);
}

/*
 * Mateescu on a 5-node example, by hand.  o = 0.5 s and B = 2000 B/s with
 * m = 1000 B, so Delta(u,v) = 0.5 + 0.5 = 1 everywhere; latencies
 * (symmetric):
 *
 *	L    1   2   3   4
 *	0    1   2   6  10
 *	1        1   2   8
 *	2            4   2
 *	3                1
 *
 * Extended Dijkstra (slides 8-10), neighbours in index order:
 *   dequeue 0 (0):  1: 0+1+1=2 (d0=1), 2: 1+2+1=4 (d0=2), 3: 2+6+1=9 (d0=3),
 *                   4: 3+10+1=14 (d0=4)            parents 1,2,3,4 <- 0
 *   dequeue 1 (2):  2: 2+1+1=4, not < 4; 3: 2+2+1=5 < 9 (d1=3);
 *                   4: 3+8+1=12 < 14               parents 3,4 <- 1
 *   dequeue 2 (4):  3: 4+4+1=9, no; 4: 4+2+1=7 < 12   parent 4 <- 2
 *   dequeue 3 (5):  4: 5+1+1=7, not < 7
 *   tree: 0 -> {1, 2}, 1 -> {3}, 2 -> {4}
 *
 * Labelling (slides 11-14):
 *   label(3) = label(4) = 0
 *   label(1) = 0 + L(1,3) + 1*1 = 3;  label(2) = 0 + L(2,4) + 1 = 3
 *   at 0: label + w is 3+1 = 4 for 1 and 3+2 = 5 for 2, so 0 sends to 2 first
 *   label(0) = max(5 + 1*1, 4 + 2*1) = 6
 *
 * Mateescu model of that tree: 0->2 over [0,1], 2 has it at 1+2 = 3;
 * 0->1 over [1,2], 1 has it at 2+1 = 3; 4 at 3+1+2 = 6; 3 at 3+1+2 = 6.
 * Completion 6 = label(0).  Sending to 1 first would give 7.
 */
static void test_mateescu(void)
{
	static const double L[5][5] = {
		{ 0, 1, 2, 6, 10 }, { 1, 0, 1, 2, 8 }, { 2, 1, 0, 4, 2 },
		{ 6, 2, 4, 0, 1 }, { 10, 8, 2, 1, 0 },
	};
	static const int parent[5] = { -1, 0, 0, 1, 2 };
	struct gb_netmodel m;
	struct gb_tree t;
	double arr[5];
	int ok_par = 1;

	if (gb_nm_init(&m, 5) < 0)
		bail("init");
	for (int i = 0; i < 5; i++) {
		m.o[i] = 0.5;
		for (int j = 0; j < 5; j++) {
			m.lat[i * 5 + j] = L[i][j];
			if (i != j)
				m.bw[i * 5 + j] = 2000;
		}
	}
	is_int(run_plan("mateescu", &m, 0, 1000, &t), 0, "mateescu on the 5-node example");
	for (int v = 0; v < 5; v++)
		ok_par &= t.parent[v] == parent[v];
	ok(ok_par, "E-SSSP tree 0 -> {1, 2}, 1 -> 3, 2 -> 4");
	ok(kids(&m, &t, "n0", "n2 n1"), "labelling: 0 sends to 2 before 1");
	is_double(gb_cost_mateescu(&m, &t, 1000, arr), 6.0, 1e-12, "mateescu cost 6 = label(0)");
	ok(arr[2] == 3 && arr[1] == 3 && arr[4] == 6 && arr[3] == 6, "arrival times 3 3 6 6");
	gb_tree_release(&t);

	/* the root need not be node 0: from 4, by the same rules
	 *   dequeue 4: 0: 0+10+1=11 (d4=1), 1: 1+8+1=10 (d4=2), 2: 2+2+1=5 (d4=3),
	 *              3: 3+1+1=5 (d4=4)
	 *   dequeue 2 (5): 0: 5+2+1=8 < 11 (d2=6); 1: 6+1+1=8 < 10 (d2=7)
	 *   dequeue 3 (5): 0: 5+6+1=12 no; 1: 5+2+1=8, not < 8
	 *   tree: 4 -> {2, 3}, 2 -> {0, 1}
	 *   labels: 0, 1, 3 leaves; 2: keys 0+2=2 (n0), 0+1=1 (n1): sends 0 then 1,
	 *   label(2) = max(2+1, 1+2) = 3; 4: keys 3+2=5 (n2), 0+1=1 (n3): 2 first,
	 *   label(4) = max(5+1, 1+2) = 6 */
	is_int(run_plan("mateescu", &m, 4, 1000, &t), 0, "mateescu from node 4");
	ok(kids(&m, &t, "n4", "n2 n3") && kids(&m, &t, "n2", "n0 n1"), "4 -> 2 3, 2 -> 0 1");
	is_double(gb_cost_mateescu(&m, &t, 1000, NULL), 6.0, 1e-12, "cost 6");
	gb_tree_release(&t);
	gb_nm_release(&m);
}

int main(void)
{
	test_binomial();
	test_teragrid();
	test_mateescu();
	return done_testing();
}
