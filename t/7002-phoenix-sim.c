/* SPDX-License-Identifier: MIT */
/*
 * 7002-phoenix-sim - the Phoenix protocol (seed 001 s3) run by the
 * discrete-event simulator (collectives/phoenix/phoenix_sim.c) over network models:
 *
 *   - on topologies/three-clusters.yaml it converges, and the tree of every
 *     root is a valid spanning tree that is wide-area optimal (exactly one
 *     wide-area edge into each cluster but the root's);
 *   - after the latency between clusters b and c is raised to 30 ms (what
 *     `gridemu link set siteB-siteC delay 30ms` does), it converges again,
 *     still wide-area optimal, and the trees of the roots in cluster a now
 *     enter c from a instead of through b;
 *   - it is deterministic for a seed;
 *   - on the paper's platform (topologies/phoenix.yaml, 168 hosts in 3
 *     clusters) and on random grids, every tree is wide-area optimal too;
 *   - the `phoenix` planner (which simulates only the requested root's tree)
 *     returns wide-area optimal trees with children sent most-descendants
 *     first (s5).
 * Nothing here is timed: rounds and messages are virtual and reproducible.
 * Under the sanitizers (GRIDBED_SANITIZED, set by cmake/bootstrap's second
 * pass) the random grids use 2 seeds instead of 6.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbtopo.h"
#include "gbplan.h"
#include "phoenix.h"
#include "tap.h"

#ifndef GRIDBED_SOURCE_DIR
#define GRIDBED_SOURCE_DIR "."
#endif

static void load(struct gb_netmodel *m, const char *name)
{
	char path[512];
	const char *src = getenv("GRIDBED_SRC");
	struct gb_topo *t = NULL;
	struct gb_diag d;

	snprintf(path, sizeof(path), "%s/topologies/%s", src ? src : GRIDBED_SOURCE_DIR, name);
	if (gb_topo_load(path, &t, &d) < 0)
		bail("cannot load %s: %s", path, d.msg);
	if (gb_nm_from_topo(m, t, 10e-6) < 0)
		bail("cannot model %s", path);
	gb_topo_free(t);
}

/* Every tree: valid, wide-area optimal.  Returns how many are both. */
static int check_all(const struct phx_sim *s, const struct gb_netmodel *m, int *cycles)
{
	int n = m->n, good = 0, *par = malloc(sizeof(int) * n), *cl = malloc(sizeof(int) * n);

	*cycles = 0;
	for (int v = 0; v < n; v++)
		cl[v] = m->nodes[v].cluster;
	for (int r = 0; r < n; r++) {
		struct gb_tree t;
		int valid;

		phx_sim_parents(s, r, par, NULL);
		*cycles += phx_parents_have_cycle(par, n);
		valid = gb_tree_init(&t, n, r) == 0 &&
			phx_tree_build(&t, par, NULL, PHX_ORDER_DESC) == 0 &&
			gb_tree_check(&t, NULL) == 0;
		gb_tree_release(&t);
		good += valid && phx_wan_check(par, n, r, cl, m->nclusters, NULL, NULL) == 1;
	}
	free(par);
	free(cl);
	return good;
}

/* Cluster name the tree of @root enters cluster @want from, or "". */
static const char *entered_from(const struct phx_sim *s, const struct gb_netmodel *m, int root,
				const char *want)
{
	for (int v = 0; v < m->n; v++) {
		int p = v == root ? -1 : s->nodes[v].parent[root];

		if (p >= 0 && m->nodes[p].cluster != m->nodes[v].cluster &&
		    !strcmp(m->cluster_names[m->nodes[v].cluster], want))
			return m->cluster_names[m->nodes[p].cluster];
	}
	return "";
}

static int in_cluster(const struct gb_netmodel *m, int v, const char *name)
{
	return !strcmp(m->cluster_names[m->nodes[v].cluster], name);
}

static void report(const char *what, const struct phx_sim_result *r)
{
	diag("%s: %s, %d rounds, %.1f s virtual, %llu messages (%llu bytes), %llu changes, "
	     "%llu shortcuts", what, r->converged ? "converged" : "NOT converged", r->rounds,
	     r->time_s, (unsigned long long)r->msgs, (unsigned long long)r->bytes,
	     (unsigned long long)r->changes, (unsigned long long)r->shortcuts);
}

static void test_three_clusters(void)
{
	struct gb_netmodel m;
	struct phx_sim_opts o;
	struct phx_sim s;
	struct phx_sim_result r;
	int cyc, bfrom = 1, afrom = 1, na = 0;

	load(&m, "three-clusters.yaml");
	phx_sim_opts_default(&o);
	o.seed = 7002;
	o.noise_rel = 0.02;
	o.noise_abs_s = 20e-6;
	if (phx_sim_init(&s, &m, &o) < 0 || phx_sim_run(&s, &r) < 0)
		bail("sim");
	report("three-clusters", &r);
	ok(r.converged, "three-clusters: converges (%d rounds, %llu messages)", r.rounds,
	   (unsigned long long)r.msgs);
	is_int(check_all(&s, &m, &cyc), m.n, "every root's tree is valid and wide-area optimal");
	is_int(cyc, 0, "no cycles");
	for (int v = 0; v < m.n; v++) {
		if (!in_cluster(&m, v, "a"))
			continue;
		na++;
		/* a-c 6 ms direct, a-b-c 8 ms: Fig. 1 prefers b (4 < 6) */
		bfrom &= !strcmp(entered_from(&s, &m, v, "c"), "b");
	}
	ok(na == 4 && bfrom, "roots in a: cluster c is entered from b (latency(c,b) 4 < 6 ms)");

	/* gridemu link set siteB-siteC delay 30ms: +26 ms between b and c */
	for (int i = 0; i < m.n; i++)
		for (int j = 0; j < m.n; j++)
			if ((in_cluster(&m, i, "b") && in_cluster(&m, j, "c")) ||
			    (in_cluster(&m, i, "c") && in_cluster(&m, j, "b")))
				phx_sim_set_lat(&s, i, j, m.lat[(size_t)i * m.n + j] + 0.026);
	if (phx_sim_run(&s, &r) < 0)
		bail("sim");
	report("after b-c +26 ms", &r);
	ok(r.converged, "re-converges after the latency change (%d rounds, %llu messages)",
	   r.rounds, (unsigned long long)r.msgs);
	ok(r.changes > 0, "parents did change (%llu, %llu by shortcut)",
	   (unsigned long long)r.changes, (unsigned long long)r.shortcuts);
	is_int(check_all(&s, &m, &cyc), m.n, "every tree is still valid and wide-area optimal");
	for (int v = 0; v < m.n; v++)
		if (in_cluster(&m, v, "a"))
			afrom &= !strcmp(entered_from(&s, &m, v, "c"), "a");
	ok(afrom, "roots in a: cluster c is now entered from a");
	phx_sim_release(&s);
	gb_nm_release(&m);
}

static void test_determinism(void)
{
	struct gb_netmodel m;
	struct phx_sim_opts o;
	struct phx_sim s1, s2, s3;
	struct phx_sim_result r1, r2, r3;
	int same = 1, differ = 0;
	int *p1, *p2;

	load(&m, "three-clusters.yaml");
	phx_sim_opts_default(&o);
	o.noise_rel = 0.05;
	o.noise_abs_s = 20e-6;
	o.seed = 11;
	if (phx_sim_init(&s1, &m, &o) < 0 || phx_sim_run(&s1, &r1) < 0 ||
	    phx_sim_init(&s2, &m, &o) < 0 || phx_sim_run(&s2, &r2) < 0)
		bail("sim");
	o.seed = 12;
	if (phx_sim_init(&s3, &m, &o) < 0 || phx_sim_run(&s3, &r3) < 0)
		bail("sim");
	p1 = malloc(sizeof(int) * m.n);
	p2 = malloc(sizeof(int) * m.n);
	for (int r = 0; r < m.n; r++) {
		phx_sim_parents(&s1, r, p1, NULL);
		phx_sim_parents(&s2, r, p2, NULL);
		same &= !memcmp(p1, p2, sizeof(int) * m.n);
		phx_sim_parents(&s3, r, p2, NULL);
		differ |= memcmp(p1, p2, sizeof(int) * m.n) != 0;
	}
	ok(same && r1.rounds == r2.rounds && r1.msgs == r2.msgs && r1.bytes == r2.bytes,
	   "same seed: same trees, rounds and messages");
	diag("another seed gives %s trees (%llu vs %llu messages)", differ ? "other" : "the same",
	     (unsigned long long)r1.msgs, (unsigned long long)r3.msgs);
	free(p1);
	free(p2);
	phx_sim_release(&s1);
	phx_sim_release(&s2);
	phx_sim_release(&s3);
	gb_nm_release(&m);
}

static void test_phoenix_yaml(void)
{
	struct gb_netmodel m;
	struct phx_sim_opts o;
	struct phx_sim s;
	struct phx_sim_result r;
	int cyc;

	load(&m, "phoenix.yaml");
	phx_sim_opts_default(&o);
	o.seed = 1;
	o.noise_rel = 0.02;
	o.noise_abs_s = 20e-6;
	if (phx_sim_init(&s, &m, &o) < 0 || phx_sim_run(&s, &r) < 0)
		bail("sim");
	report("phoenix.yaml (168 hosts)", &r);
	ok(r.converged, "phoenix.yaml, 168 hosts: converges (%d rounds, %llu messages)", r.rounds,
	   (unsigned long long)r.msgs);
	is_int(check_all(&s, &m, &cyc), 168, "all 168 trees valid and wide-area optimal");
	is_int(cyc, 0, "no cycles");
	phx_sim_release(&s);
	gb_nm_release(&m);
}

static void test_random_grids(void)
{
	static const int shape[][3] = { { 3, 1, 4 }, { 2, 3, 3 }, { 4, 2, 5 } };
	/* seeds 0, 1 (noiseless, noisy) under the sanitizers: the plain pass runs 6 */
	const uint64_t nseeds = getenv("GRIDBED_SANITIZED") ? 2 : 6;
	int runs = 0, conv = 0, opt = 0, cyc_total = 0;

	for (int k = 0; k < 3; k++) {
		for (uint64_t seed = 0; seed < nseeds; seed++) {
			struct gb_netmodel m;
			struct phx_sim_opts o;
			struct phx_sim s;
			struct phx_sim_result r;
			int cyc;

			if (gb_nm_gen_grid(&m, shape[k][0], shape[k][1], shape[k][2], seed) < 0)
				bail("gen");
			phx_sim_opts_default(&o);
			o.seed = seed + 1;
			o.noise_rel = seed % 2 ? 0.02 : 0;
			o.noise_abs_s = seed % 2 ? 20e-6 : 0;
			if (phx_sim_init(&s, &m, &o) < 0 || phx_sim_run(&s, &r) < 0)
				bail("sim");
			runs++;
			conv += r.converged;
			opt += check_all(&s, &m, &cyc) == m.n;
			cyc_total += cyc;
			phx_sim_release(&s);
			gb_nm_release(&m);
		}
	}
	is_int(conv, runs, "random grids (3 shapes x %d seeds): all converge", (int)nseeds);
	is_int(opt, runs, "... and every tree of every run is wide-area optimal");
	is_int(cyc_total, 0, "... without cycles");
}

static void test_planner(void)
{
	const struct gb_planner *p = gb_planner_find("phoenix");
	struct gb_netmodel m;
	struct gb_plan_args a = { 0, 1024, 5, 0, NULL };
	struct gb_tree t;
	int *desc, order_ok = 1, cl[12];

	ok(p != NULL && p->flags == 0, "planner 'phoenix' is registered, flags 0");
	if (!p)
		return;
	load(&m, "three-clusters.yaml");
	if (gb_plan(p, &m, &a, &t) < 0)
		bail("gb_plan phoenix");
	desc = calloc(m.n, sizeof(int));
	for (int v = 0; v < m.n; v++)
		for (int u = t.parent[v]; u >= 0; u = t.parent[u])
			desc[u]++;
	for (int v = 0; v < m.n; v++) {
		const int *ch = t.child + t.cstart[v];

		for (int i = 1; i < t.nchild[v]; i++)
			order_ok &= desc[ch[i - 1]] >= desc[ch[i]];
	}
	ok(order_ok, "s5: children are sent most-descendants first");
	for (int v = 0; v < m.n; v++)
		cl[v] = m.nodes[v].cluster;
	is_int(phx_wan_check(t.parent, m.n, 0, cl, m.nclusters, NULL, NULL), 1,
	       "the planned tree is wide-area optimal");
	free(desc);
	gb_tree_release(&t);
	gb_nm_release(&m);

	/* the experiment's platform, one root per cluster */
	load(&m, "phoenix.yaml");
	{
		static const char *roots[] = { "c1-1", "c2-1", "c3-1" };
		int *c168 = malloc(sizeof(int) * m.n), good = 0;

		for (int v = 0; v < m.n; v++)
			c168[v] = m.nodes[v].cluster;
		for (int i = 0; i < 3; i++) {
			a.root = gb_nm_find_node(&m, roots[i]);
			if (gb_plan(p, &m, &a, &t) < 0)
				bail("gb_plan phoenix on phoenix.yaml");
			good += phx_wan_check(t.parent, m.n, a.root, c168, m.nclusters, NULL,
					      NULL) == 1;
			gb_tree_release(&t);
		}
		is_int(good, 3, "phoenix.yaml: planned trees from c1-1, c2-1, c3-1 are wide-area "
		       "optimal");
		free(c168);
	}
	gb_nm_release(&m);
}

int main(void)
{
	test_three_clusters();
	test_determinism();
	test_phoenix_yaml();
	test_random_grids();
	test_planner();
	return done_testing();
}
