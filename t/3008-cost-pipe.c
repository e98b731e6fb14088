/* SPDX-License-Identifier: MIT */
/*
 * 3008-cost-pipe - the cost models of a segmented, pipelined tree
 * (collectives/core/cost_pipe.c, issue 14), against answers worked by hand:
 *   - one segment is gb_cost_mateescu() exactly, on a planned tree;
 *   - a chain of k hops, S equal segments: the last node has the message
 *     after (S + k - 1) x (o + s/B) + k x L (the pipeline's fill and drain);
 *   - a node with two children sends segment j to both before j + 1: the
 *     second child's last segment leaves after 2S sends;
 *   - a short last segment, and a child that waits for its parent's
 *     segments (a slow first hop feeding a fast second one);
 *   - gb_seg_choose(): no segments for a message that gains nothing
 *     (one hop), segments within the eager limit for a deep chain, whole
 *     elements, and NAN / 0 for an invalid tree.
 *   - the other two models (issue 14): gb_cost_contention_seg(), the
 *     executor's schedule (a node's sends concurrent, sharing its NIC,
 *     a window of GB_PIPE_WINDOW segments), equals Mateescu's on a chain
 *     with nothing shared; a star's children share the root's NIC; a fast
 *     child runs at most the window ahead of a slow sibling; flows share
 *     a link in inverse proportion to their round trips; about twice
 *     Mateescu's where two pipelines cross one uplink;
 *     gb_cost_plogp_seg() sends a coordinator's wide-area segments before
 *     its cluster's; both are their unsegmented model for one segment;
 *   - gb_cost_contention_stripes(): two stripes into a cluster of two,
 *     worked by hand (the root's flows share its NIC; a node forwards
 *     nothing before segment 0, then each segment as it arrives), one
 *     stripe is the segmented schedule, and the one-port models do not
 *     predict stripes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbcore.h"
#include "gbplan.h"
#include "tap.h"

/* n nodes, every pair: latency L, bandwidth B, o per send. */
static void uniform(struct gb_netmodel *m, int n, double L, double B, double o)
{
	if (gb_nm_init(m, n) < 0)
		bail("gb_nm_init");
	for (int i = 0; i < n; i++) {
		m->o[i] = o;
		for (int j = 0; j < n; j++) {
			m->lat[(size_t)i * n + j] = i == j ? 0 : L;
			m->bw[(size_t)i * n + j] = i == j ? 0 : B;
		}
	}
}

/* A tree of n nodes rooted at 0 from parent[]. */
static void tree(struct gb_tree *t, const int *par, int n)
{
	if (gb_tree_init(t, n, 0) < 0 || gb_tree_from_parents(t, par, NULL) < 0)
		bail("cannot build a tree");
}

/* The chain 0 -> 1 -> ... -> n-1. */
static void chain(struct gb_tree *t, int n)
{
	int par[16];

	par[0] = -1;
	for (int i = 1; i < n; i++)
		par[i] = i - 1;
	tree(t, par, n);
}

int main(void)
{
	struct gb_netmodel m;
	struct gb_tree t;
	double arr[8], got, want, pred, slowed;
	const double L = 0.01, B = 1e6, o = 1e-4;
	int par3[3] = { -1, 0, 0 };

	plan(37);

	/* a chain of 4 hops (5 nodes), 1 MB in 10 segments of 100 kB */
	uniform(&m, 5, L, B, o);
	chain(&t, 5);
	is_double(gb_cost_mateescu_seg(&m, &t, 1e6, 0, NULL), gb_cost_mateescu(&m, &t, 1e6, NULL),
		  1e-12, "segment 0: the unsegmented model");
	is_double(gb_cost_mateescu_seg(&m, &t, 1e6, 2e6, NULL),
		  gb_cost_mateescu(&m, &t, 1e6, NULL), 1e-12,
		  "a segment larger than the message: the unsegmented model");
	want = (10 + 4 - 1) * (o + 1e5 / B) + 4 * L;
	got = gb_cost_mateescu_seg(&m, &t, 1e6, 1e5, arr);
	is_double(got, want, 1e-9, "chain of 4 hops, 10 segments: (S + k - 1)(o + s/B) + kL");
	is_double(arr[1], 10 * (o + 1e5 / B) + L, 1e-9,
		  "the first hop's node has the message after S sends and one latency");
	/* 1 MB in segments of 300 kB: 300, 300, 300, 100 */
	/* node k has full segment j at (j + k) d3 + kL; the short one waits
	 * for the port behind segment 2, so it trails by one short send */
	want = (3 + 4 - 1) * (o + 0.3) + (o + 0.1) + 4 * L;
	is_double(gb_cost_mateescu_seg(&m, &t, 1e6, 3e5, NULL), want, 1e-9,
		  "a short last segment trails the full ones by one short send");
	gb_tree_release(&t);

	/* a root with two children, 4 segments: sends alternate c1, c2 */
	tree(&t, par3, 3);
	gb_nm_release(&m);
	uniform(&m, 3, L, B, o);
	got = gb_cost_mateescu_seg(&m, &t, 4e5, 1e5, arr);
	is_double(arr[1], 7 * (o + 0.1) + L, 1e-9, "first child: its last segment is send 7 of 8");
	is_double(arr[2], 8 * (o + 0.1) + L, 1e-9, "second child: send 8 of 8");
	is_double(got, arr[2], 0, "the completion is the last arrival");
	gb_tree_release(&t);

	/* a slow first hop (B/10) into a fast second one: node 2 waits for
	 * each segment, so it has the last one one fast send after node 1 */
	chain(&t, 3);
	m.bw[0 * 3 + 1] = B / 10;
	got = gb_cost_mateescu_seg(&m, &t, 4e5, 1e5, arr);
	want = 4 * (o + 1.0) + L + (o + 0.1) + L;
	is_double(got, want, 1e-9, "a fast hop behind a slow one waits for every segment");
	gb_tree_release(&t);
	gb_nm_release(&m);

	/* contention, nothing shared (one cluster: every link private):
	 * the Mateescu schedule, segment by segment */
	uniform(&m, 5, L, B, o);
	chain(&t, 5);
	is_double(gb_cost_contention_seg(&m, &t, 1e6, 1e5, arr),
		  gb_cost_mateescu_seg(&m, &t, 1e6, 1e5, NULL), 1e-9,
		  "contention, chain of 4 hops, 10 segments: Mateescu's figure");
	is_double(arr[1], 10 * (o + 1e5 / B) + L, 1e-9,
		  "contention: the first hop's node has the message after S sends");
	is_double(gb_cost_contention_seg(&m, &t, 1e6, 3e5, NULL),
		  gb_cost_mateescu_seg(&m, &t, 1e6, 3e5, NULL), 1e-9,
		  "contention: a short last segment, as Mateescu's");
	gb_tree_release(&t);
	gb_nm_release(&m);
	/* a star of 3 children: each segment's three flows run at once, B/3
	 * each through the root's NIC (capacity B, its largest pair), and
	 * each flow waits o: S (o + 3s/B) + L, where one port takes
	 * 3S (o + s/B) + L for the last child */
	uniform(&m, 4, L, B, o);
	{
		int par_star[4] = { -1, 0, 0, 0 };

		tree(&t, par_star, 4);
	}
	is_double(gb_cost_contention_seg(&m, &t, 4e5, 1e5, arr), 4 * (o + 0.3) + L, 1e-9,
		  "contention: a star's segments share the root's NIC, S (o + 3s/B) + L");
	is_double(arr[1], arr[3], 1e-9, "contention: ... and its children finish together");
	gb_tree_release(&t);
	gb_nm_release(&m);
	/* the window: child 1 at B, child 2 at B/10 (o = 0, 20 segments of
	 * 0.1 s at B).  Child 2 takes 1 s a segment; child 1 may start
	 * segment j once child 2 has sent j - 7, so segment 19 starts when
	 * child 2 has sent 12 (at 12 s) and runs at 0.9 B beside it */
	uniform(&m, 3, L, B, 0);
	m.bw[0 * 3 + 2] = B / 10;
	tree(&t, par3, 3);
	gb_cost_contention_seg(&m, &t, 2e6, 1e5, arr);
	is_double(arr[1], 12.0 + 0.1 / 0.9 + L, 1e-9,
		  "contention: a fast child runs at most GB_PIPE_WINDOW segments ahead");
	gb_tree_release(&t);
	gb_nm_release(&m);
	uniform(&m, 3, L, B, o);
	chain(&t, 3);
	m.bw[0 * 3 + 1] = B / 10;
	is_double(gb_cost_contention_seg(&m, &t, 4e5, 1e5, NULL),
		  gb_cost_mateescu_seg(&m, &t, 4e5, 1e5, NULL), 1e-9,
		  "contention: a fast hop behind a slow one waits for every segment");
	gb_tree_release(&t);
	gb_nm_release(&m);

	/* pLogP: a coordinator's wide-area segments go before its cluster's.
	 * Clusters {0, 1} and {2, 3}; the tree lists 0's local child first. */
	{
		int par4[4] = { -1, 0, 0, 2 };
		double key_local_first[4] = { 0, 0, 1, 0 }, key_wan_first[4] = { 0, 1, 0, 0 };
		struct gb_tree t2;

		uniform(&m, 4, L, B, o);
		m.nodes[2].cluster = m.nodes[3].cluster = 1;
		m.nclusters = 2;
		if (gb_tree_init(&t, 4, 0) < 0 ||
		    gb_tree_from_parents(&t, par4, key_local_first) < 0 ||
		    gb_tree_init(&t2, 4, 0) < 0 || gb_tree_from_parents(&t2, par4, key_wan_first) < 0)
			bail("cannot build the two-cluster trees");
		is_double(gb_cost_plogp_seg(&m, &t, 4e5, 1e5, NULL),
			  gb_cost_mateescu_seg(&m, &t2, 4e5, 1e5, NULL), 1e-9,
			  "pLogP, 4 segments: the wide-area child's segments first");
		ok(gb_cost_mateescu_seg(&m, &t, 4e5, 1e5, NULL) >
		   gb_cost_mateescu_seg(&m, &t2, 4e5, 1e5, NULL) + 1e-6,
		   "... which is not the tree's own (local-first) order");
		is_double(gb_cost_plogp_seg(&m, &t, 4e5, 0, NULL), gb_cost_plogp(&m, &t, 4e5, NULL),
			  0, "pLogP, segment 0: the unsegmented model");
		gb_tree_release(&t2);
		gb_tree_release(&t);
		m.nclusters = 1;
		m.nodes[2].cluster = m.nodes[3].cluster = 0;
		gb_nm_release(&m);
	}

	/* contention on a grid: one segment is the unsegmented simulation */
	{
		static const char *const algos[] = { "binomial", "flat", "mpich-g2", "pipeline" };
		int same = 1;

		if (gb_nm_gen_grid(&m, 3, 2, 4, 11) < 0)
			bail("gb_nm_gen_grid");
		for (int a = 0; a < 4; a++) {
			const struct gb_planner *p = gb_planner_find(algos[a]);
			struct gb_plan_args args = { 0, 1048576, 1, 0, NULL };
			double c, mt;

			if (!p || gb_plan(p, &m, &args, &t) < 0)
				bail("cannot plan '%s'", algos[a]);
			same &= gb_cost_contention_seg(&m, &t, 1048576, 0, NULL) ==
				gb_cost_contention(&m, &t, 1048576, NULL);
			same &= gb_cost_plogp_seg(&m, &t, 1048576, 0, NULL) ==
				gb_cost_plogp(&m, &t, 1048576, NULL);
			c = gb_cost_contention_seg(&m, &t, 1048576, 65536, NULL);
			mt = gb_cost_mateescu_seg(&m, &t, 1048576, 65536, NULL);
			diag("%s, 1 MiB in 64 KiB segments: contention %.4f s, mateescu %.4f s",
			     algos[a], c, mt);
			gb_tree_release(&t);
		}
		ok(same, "one segment: contention and pLogP are their unsegmented models exactly");
		gb_nm_release(&m);
	}

	/* flows sharing a link get rates inversely proportional to their round
	 * trips: the root's two flows share its NIC (B); child 2's RTT is 4 x
	 * child 1's, so they run at 0.8 B and 0.2 B (o = 0, 2 segments of
	 * 0.1 s at B).  Child 1 has both at 0.25 s; child 2 has sent half a
	 * segment by then, the rest of it alone at B by 0.30 s, the second
	 * by 0.40 s */
	{
		uniform(&m, 3, L, B, 0);
		m.lat[0 * 3 + 2] = m.lat[2 * 3 + 0] = 4 * L;
		tree(&t, par3, 3);
		gb_cost_contention_seg(&m, &t, 2e5, 1e5, arr);
		is_double(arr[1], 0.25 + L, 1e-9, "contention: the short round trip takes 0.8 B");
		is_double(arr[2], 0.40 + 4 * L, 1e-9, "contention: ... the long one 0.2 B, then B");
		gb_tree_release(&t);
		gb_nm_release(&m);
	}

	/* two wide-area flows through one uplink: 0 -> 1 inside cluster 0,
	 * then 0 -> 2 and 1 -> 3 across.  Mateescu sends both at B; in the
	 * contention model they share cluster 0's uplink (capacity B, the
	 * largest pair across it), so the pipeline runs at about B / 2. */
	{
		int par4[4] = { -1, 0, 0, 1 };

		uniform(&m, 4, 1e-4, 1e8, o);
		m.nclusters = m.nsites = 2;
		for (int v = 2; v < 4; v++)
			m.nodes[v].cluster = m.nodes[v].site = 1;
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++)
				if ((i < 2) != (j < 2)) {
					m.bw[i * 4 + j] = B;
					m.lat[i * 4 + j] = L;
				}
		tree(&t, par4, 4);
		slowed = gb_cost_contention_seg(&m, &t, 1e6, 1e5, NULL) /
			 gb_cost_mateescu_seg(&m, &t, 1e6, 1e5, NULL);
		ok(slowed > 1.8 && slowed < 2.05,
		   "two pipelines through one uplink: contention %.2f x Mateescu's (about 2)", slowed);
		gb_tree_release(&t);
		m.nclusters = m.nsites = 1;
		for (int v = 2; v < 4; v++)
			m.nodes[v].cluster = m.nodes[v].site = 0;
		gb_nm_release(&m);
	}

	/* striped (issue 14): root 0 alone in cluster and site 0, nodes 1 and 2
	 * in cluster and site 1; 0 -> 1, 2 at B (latency L), 1 <-> 2 at
	 * B2 = 10 B (latency l), o = 0; a message of m in 2 segments.  Stripe 0
	 * is 0 -> 1 -> 2 (segment 0), stripe 1 is 0 -> 2 -> 1 (segment 1).
	 * Both leave 0 at once and share its NIC (and cluster 1's way in),
	 * B/2 each, so 1 has segment 0 and 2 has segment 1 at m/B + L; 1
	 * forwards segment 0 to 2 at once; 2 forwards nothing before it has
	 * segment 0 (it learns the segment size from it), so 2 has both at
	 * m/B + L + m/(2 B2) + l, 1 at m/B + L + m/B2 + 2l.  One stripe
	 * (0 -> 1 -> 2): 1 has both at m/B + L, 2 at m/B + L + m/(2 B2) + l.
	 * In four segments (0, 2 down stripe 0; 1, 3 down stripe 1) the root
	 * sends segments 2 and 3 by m/B, 1 and 2 arrive at m/B + L, and 1 and
	 * 2 forward them to each other at once, B2 each way: both have all at
	 * m/B + L + m/(4 B2) + l, as with one stripe.  Forwarding in segment
	 * order, 2 would hold segment 3 until segment 2 came: m/(4 B2) + l
	 * later. */
	{
		const double B2 = 1e7, l = 0.001, msg = 1e6;
		double p[8];
		int par[3] = { -1, 0, 1 };

		uniform(&m, 3, L, B, 0);
		m.lat[1 * 3 + 2] = m.lat[2 * 3 + 1] = l;
		m.bw[1 * 3 + 2] = m.bw[2 * 3 + 1] = B2;
		m.nclusters = m.nsites = 2;
		for (int v = 1; v < 3; v++)
			m.nodes[v].cluster = m.nodes[v].site = 1;
		tree(&t, par, 3);
		is_double(gb_cost_contention_stripes(&m, &t, 2, msg, msg / 2, arr),
			  msg / B + L + msg / B2 + 2 * l, 1e-9,
			  "2 stripes: the root's two flows share its NIC, and 2 forwards after segment 0");
		ok(fabs(arr[2] - (msg / B + L + msg / (2 * B2) + l)) < 1e-9 &&
		   fabs(arr[1] - (msg / B + L + msg / B2 + 2 * l)) < 1e-9,
		   "  node 2 has both segments first (%.4f), node 1 after 2 forwarded segment 1 "
		   "(%.4f)", arr[2], arr[1]);
		is_double(gb_cost_contention_stripes(&m, &t, 2, msg, msg / 4, arr),
			  msg / B + L + msg / (4 * B2) + l, 1e-9,
			  "2 stripes of 2 segments each: a node forwards each segment as it arrives");
		ok(fabs(arr[1] - arr[2]) < 1e-9, "  1 and 2 have all at once (%.4f, %.4f)", arr[1],
		   arr[2]);
		is_double(gb_cost_contention_stripes(&m, &t, 1, msg, msg / 4, NULL),
			  msg / B + L + msg / (4 * B2) + l, 1e-9, "  as with 1 stripe of 4");
		is_double(gb_cost_contention_stripes(&m, &t, 1, msg, msg / 2, NULL),
			  msg / B + L + msg / (2 * B2) + l, 1e-9, "1 stripe: the chain");
		ok(gb_cost_contention_stripes(&m, &t, 1, msg, msg / 2, NULL) ==
		   gb_cost_contention_seg(&m, &t, msg, msg / 2, NULL),
		   "  which is gb_cost_contention_seg()");
		gb_cost_all_stripes(&m, &t, msg, msg / 2, 2, p);
		ok(isnan(p[0]) && isnan(p[1]) && fabs(p[2] - (msg / B + L + msg / B2 + 2 * l)) < 1e-9,
		   "gb_cost_all_stripes(): no one-port prediction of 2 stripes, the contention "
		   "model's");
		ok(isnan(gb_cost_contention_stripes(&m, &t, GB_STRIPES_MAX + 1, msg, msg / 2, NULL)),
		   "too many stripes: NAN");
		gb_tree_release(&t);
		m.nclusters = m.nsites = 1;
		for (int v = 1; v < 3; v++)
			m.nodes[v].cluster = m.nodes[v].site = 0;
		gb_nm_release(&m);
	}

	/* the choice */
	uniform(&m, 2, L, B, o);
	chain(&t, 2);
	is_double(gb_seg_choose(&m, &t, 1e6, 1, 0, &pred), 0, 0,
		  "one hop: segments only add o, so the whole message");
	is_double(pred, gb_cost_mateescu(&m, &t, 1e6, NULL), 1e-12,
		  "... and the prediction is the unsegmented one");
	gb_tree_release(&t);
	gb_nm_release(&m);
	uniform(&m, 8, L, B, 1e-5);
	chain(&t, 8);
	got = gb_seg_choose(&m, &t, 1e6, 12, 0, &pred);
	ok(got > 0 && got <= GB_SEG_MAX && fmod(got, 12) == 0,
	   "a chain of 7 hops: segments of whole 12-byte elements within the eager limit (%.0f)",
	   got);
	ok(pred < 0.5 * gb_cost_mateescu(&m, &t, 1e6, NULL),
	   "... predicted at less than half the whole message's time (%.3f s)", pred);
	t.nchild[2] = 0;        /* 3 .. 7 are no longer reached */
	ok(isnan(gb_cost_mateescu_seg(&m, &t, 1e6, 1e5, NULL)) &&
	   gb_seg_choose(&m, &t, 1e6, 1, 0, NULL) == 0,
	   "a broken tree: NAN, and no segments");
	gb_tree_release(&t);
	gb_nm_release(&m);
	return done_testing();
}
