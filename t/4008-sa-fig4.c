/* SPDX-License-Identifier: MIT */
/*
 * 4008-sa-fig4 - clusteredSA (seed 000 Fig. 4) on topologies/teragrid.yaml
 * keeps the properties the paper states for it (issue 13, cause 1):
 *
 *  (a) pools are joined only through their roots (Fig. 4 lines 19-28):
 *      into every pool of the top-level pool set whose tree was returned,
 *      exactly one tree edge comes from outside the pool (none into the
 *      root's pool);
 *  (b) on the configured (unloaded) teragrid, from several roots, seeds and
 *      sizes (1 KB, 128 KB, 1 MB), the tree enters every remote site
 *      exactly once: MPICH-G2's wide-area structure (§2.1: "only one
 *      communication between the clusters");
 *  (c) the same on a perturbed model standing in for a measured one (see
 *      perturb());
 *  (d) its cost under its own model (mateescu) is never above MPICH-G2's
 *      tree's under that model.
 *
 * The seeds are looped over, never picked: every seed of the loop must
 * pass.  No time budget, so every plan is a function of its inputs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbplan.h"
#include "gbsa.h"
#include "gbtopo.h"
#include "tap.h"

static const char *srcdir(void)
{
	const char *s = getenv("GRIDBED_SRC");

	return s ? s : GRIDBED_SOURCE_DIR;
}

static int load_teragrid(struct gb_netmodel *m)
{
	char path[512];
	struct gb_topo *t = NULL;
	struct gb_diag d;
	int ret;

	snprintf(path, sizeof(path), "%s/topologies/teragrid.yaml", srcdir());
	if (access(path, R_OK) != 0 || gb_topo_load(path, &t, &d) < 0)
		return -1;
	ret = gb_nm_from_topo(m, t, 10e-6);
	gb_topo_free(t);
	return ret;
}

/*
 * A stand-in for a measured matrix: not a measurement.  gridmon measures
 * cluster x cluster (seed 000 §2.5; docs/formats.md) and gives every host
 * its cluster's values, so every directed cluster pair's latency and
 * bandwidth (the diagonal, intra-cluster, included) is multiplied by its
 * own seeded factor, uniform in [1 - spread, 1 + spread].
 */
static void perturb(struct gb_netmodel *m, uint64_t seed, double spread)
{
	int nc = m->nclusters, n = m->n;
	double *fl = malloc(sizeof(double) * nc * nc), *fb = malloc(sizeof(double) * nc * nc);
	struct gb_rng r;

	if (!fl || !fb)
		bail("oom");
	gb_rng_seed(&r, seed);
	for (int i = 0; i < nc * nc; i++) {
		fl[i] = gb_rng_range(&r, 1 - spread, 1 + spread);
		fb[i] = gb_rng_range(&r, 1 - spread, 1 + spread);
	}
	for (int u = 0; u < n; u++)
		for (int v = 0; v < n; v++) {
			int q = m->nodes[u].cluster * nc + m->nodes[v].cluster;

			if (u == v)
				continue;
			m->lat[u * n + v] *= fl[q];
			m->bw[u * n + v] *= fb[q];
		}
	free(fl);
	free(fb);
}

/* (b), (c): tree edges into each site from another; 1 if every site but
 * the root's is entered exactly once and the root's never.  *worst: the
 * largest count. */
static int one_entry_per_site(const struct gb_netmodel *m, const struct gb_tree *t, int *worst)
{
	int in[64] = { 0 }, good = 1;

	*worst = 0;
	for (int v = 0; v < m->n; v++) {
		int p = t->parent[v];

		if (p >= 0 && m->nodes[p].site != m->nodes[v].site)
			in[m->nodes[v].site]++;
	}
	for (int s = 0; s < m->nsites && s < 64; s++) {
		good &= in[s] == (s == m->nodes[t->root].site ? 0 : 1);
		if (in[s] > *worst)
			*worst = in[s];
	}
	return good;
}

/* (a): re-form the returned pool set and count edges into each pool. */
static int one_entry_per_pool(const struct gb_netmodel *m, const struct gb_tree *t,
			      double percent)
{
	int *pool = malloc(sizeof(int) * m->n), *in = calloc(m->n, sizeof(int));
	int np, good = 1;

	if (!pool || !in)
		bail("oom");
	np = gb_pools_form(m, NULL, m->n, percent, 0, pool);
	good = np > 1;
	for (int v = 0; v < m->n && good; v++) {
		int p = t->parent[v];

		if (p >= 0 && pool[p] != pool[v])
			in[pool[v]]++;
	}
	for (int j = 0; j < np && good; j++)
		good = in[j] == (j == pool[t->root] ? 0 : 1);
	free(pool);
	free(in);
	return good;
}

/* @sites: assert (b)/(c); else only report the site entries. */
static void check_model(const struct gb_netmodel *m, const char *what, int sites)
{
	static const char *const roots[] = { "c2-1", "c3-5", "c8-8" };
	static const double sizes[] = { 1024, 131072, 1048576 };
	/* The sanitizer pass (10x slower: 160 s for all three seeds) checks
	 * memory safety on one seed; the plain pass judges all three. */
	const uint64_t nseeds = getenv("GRIDBED_SANITIZED") ? 1 : 3;
	int n_site = 0, n_pool = 0, n_cost = 0, runs = 0, n_g2 = 0;

	for (int ri = 0; ri < 3; ri++) {
		int root = gb_nm_find_node(m, roots[ri]);

		if (root < 0)
			bail("no node %s", roots[ri]);
		for (int si = 0; si < 3; si++) {
			struct gb_plan_args ga = { root, sizes[si], 1, 0, NULL };
			struct gb_tree g2;
			double c2;

			if (gb_plan(gb_planner_find("mpich-g2"), m, &ga, &g2) < 0)
				bail("mpich-g2");
			c2 = gb_cost_mateescu(m, &g2, sizes[si], NULL);
			for (uint64_t seed = 1; seed <= nseeds; seed++) {
				struct gb_plan_args a = { root, sizes[si], seed, 0, NULL };
				struct gb_sa_stats st = { 0 };
				struct gb_tree t;
				int worst, ret;
				double c;

				if (gb_tree_init(&t, m->n, root) < 0)
					bail("oom");
				ret = gb_sa_clustered(m, &a, &t, &st);
				runs++;
				if (ret < 0) {
					diag("%s: root %s, %.0f B, seed %llu: error %d", what,
					     roots[ri], sizes[si], (unsigned long long)seed, ret);
					gb_tree_release(&t);
					continue;
				}
				c = gb_cost_mateescu(m, &t, sizes[si], NULL);
				if (one_entry_per_site(m, &t, &worst))
					n_site++;
				else if (sites)
					diag("%s: root %s, %.0f B, seed %llu: a site entered %d times",
					     what, roots[ri], sizes[si], (unsigned long long)seed, worst);
				if (st.mpichg2) {
					n_g2++;
					n_pool++;   /* MPICH-G2's tree: no pool set to check */
				} else if (one_entry_per_pool(m, &t, st.pool_percent)) {
					n_pool++;
				} else {
					diag("%s: root %s, %.0f B, seed %llu: a pool of the %.0f %% set "
					     "entered more than once", what, roots[ri], sizes[si],
					     (unsigned long long)seed, st.pool_percent);
				}
				if (c <= c2 * (1 + 1e-12))
					n_cost++;
				else
					diag("%s: root %s, %.0f B, seed %llu: %.6f s > MPICH-G2 %.6f s",
					     what, roots[ri], sizes[si], (unsigned long long)seed, c,
					     c2);
				gb_tree_release(&t);
			}
			gb_tree_release(&g2);
		}
	}
	is_int(n_pool, runs, "%s: (a) one edge into every pool of the returned set "
	       "(%d runs; MPICH-G2's tree returned in %d)", what, runs, n_g2);
	if (sites)
		is_int(n_site, runs, "%s: (b/c) every remote site entered exactly once", what);
	else
		diag("%s: every remote site entered exactly once in %d of %d runs (not asserted)",
		     what, n_site, runs);
	is_int(n_cost, runs, "%s: (d) mateescu cost <= MPICH-G2's tree's", what);
}

int main(void)
{
	struct gb_netmodel m;

	if (load_teragrid(&m) < 0)
		skip_all("topologies/teragrid.yaml not available");
	check_model(&m, "teragrid, configured", 1);
	gb_nm_release(&m);

	/*
	 * (c) with a spread of 5 %: measurement noise on the unloaded grid
	 * moves no pair across any threshold of §2.4, whatever the seed.  On
	 * the configured model the largest bandwidth is 100 Mbit/s (inside
	 * sites), and the wide-area pairs are 45, 30 and 20 Mbit/s.  With
	 * +-5 % the thresholds 10/25/50/75 % of the largest (95..105) are
	 * 9.5..10.5, 23.8..26.3, 47.5..52.5, 71.3..78.8, and the pairs lie in
	 * 95..105 (inside sites) and 42.8..47.3, 28.5..31.5, 19..21 (between):
	 * never on the other side of a threshold.  So the pools are those of
	 * the configured model, and the tree must enter each site once.
	 *
	 * With a spread of 30 % (the example) pairs do cross the
	 * thresholds (e.g. 30 Mbit/s becomes 21..39 against 25 % of up to
	 * 130): the pools of §2.4 follow the bandwidths, as the paper wants
	 * (§2.1: "the sizes and structures of the pools change as the
	 * bandwidths of the links change"), and need not be sites.  There
	 * (a) and (d) are asserted, and the site entries only reported.
	 */
	static const double spreads[2] = { 0.05, 0.30 };

	for (int sp = 0; sp < 2; sp++) {
		for (uint64_t ps = 1; ps <= 3; ps++) {
			char what[96];

			if (load_teragrid(&m) < 0)
				bail("teragrid");
			perturb(&m, 0x4008 + 100 * (uint64_t)sp + ps, spreads[sp]);
			snprintf(what, sizeof(what), "teragrid perturbed +-%.0f %% (stand-in %llu)",
				 100 * spreads[sp], (unsigned long long)ps);
			check_model(&m, what, sp == 0);
			gb_nm_release(&m);
		}
	}
	return done_testing();
}
