/* SPDX-License-Identifier: MIT */
/*
 * plan_static.c - the planners that need only the topology: binomial,
 * flat, chain, mpich-g2 and magpie.  None of them looks at latencies or
 * bandwidths; they only read node indices (the MPI rank order) and the
 * cluster and site of each node.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan_impl.h"

/*
 * binomial - MPICH's MPIR_Bcast_binomial relative to the root, over all
 * nodes in rank order:
 *
 *	relative rank r = (rank - root) mod p
 *	p = 8, root 3:   3 -> 7, 5, 4;  7 -> 1, 0;  5 -> 6;  1 -> 2
 *	                 (relative 0 -> 4, 2, 1; 4 -> 6, 5; 2 -> 3; 6 -> 7)
 *
 * Children are in MPICH's send order, largest subtree first.
 */
int gb_plan_binomial(const struct gb_netmodel *m, const struct gb_plan_args *a,
		     struct gb_tree *out)
{
	int *mem = NULL, *par = NULL, n = m->n, ret = -ENOMEM;
	double *key = NULL;

	mem = malloc(sizeof(int) * n);
	par = malloc(sizeof(int) * n);
	key = calloc(n, sizeof(double));
	if (!mem || !par || !key)
		goto cleanup;
	for (int r = 0; r < n; r++) {
		mem[r] = (r + a->root) % n;
		par[r] = -1;
	}
	gb_binomial(mem, n, par, key, 0);
	ret = gb_tree_from_parents(out, par, key);
cleanup:
	free(mem);
	free(par);
	free(key);
	return ret;
}

/*
 * flat - the root sends to every other node, in increasing rank order
 * (MPICH-G2's flat_tree_bcast loops over its set the same way; we do not
 * rotate the order to the root, as it does not).
 */
int gb_plan_flat(const struct gb_netmodel *m, const struct gb_plan_args *a, struct gb_tree *out)
{
	int *par = malloc(sizeof(int) * m->n), ret;

	if (!par)
		return -ENOMEM;
	for (int v = 0; v < m->n; v++)
		par[v] = v == a->root ? -1 : a->root;
	ret = gb_tree_from_parents(out, par, NULL);
	free(par);
	return ret;
}

/*
 * chain - the root sends to the next rank, which sends to the next, and so
 * on round the ranks: root -> root + 1 -> ... -> root - 1 (mod n).  This is
 * Open MPI's "pipeline" broadcast (coll/tuned algorithm 3, a chain of
 * fanout 1 in shifted rank order, coll/base's build_chain()), so that
 * libgridbcast's executor can be set beside Open MPI's on the same tree and
 * segment size (collectives/bcast/bench/bcast-teragrid.sh --only overhead;
 * issue 14).  Not grid-aware: it crosses the wide area wherever rank order
 * does.
 */
int gb_plan_chain(const struct gb_netmodel *m, const struct gb_plan_args *a,
		  struct gb_tree *out)
{
	int *par = malloc(sizeof(int) * m->n), ret;

	if (!par)
		return -ENOMEM;
	for (int r = 0; r < m->n; r++) {
		int v = (a->root + r) % m->n;

		par[v] = r == 0 ? -1 : (a->root + r - 1) % m->n;
	}
	ret = gb_tree_from_parents(out, par, NULL);
	free(par);
	return ret;
}

/*
 * Lowest-ranked member of each group, i.e. MPICH-G2's master after
 * numbering cluster ids in rank order, except that the root masters every
 * group that contains it (update_cluster_ids() rotates the ids of those
 * groups so that the root's are all zero).
 */
void gb_group_masters(const struct gb_netmodel *m, int root, int *site_master, int *cl_master)
{
	for (int s = 0; s < m->nsites; s++)
		site_master[s] = -1;
	for (int c = 0; c < m->nclusters; c++)
		cl_master[c] = -1;
	for (int v = m->n - 1; v >= 0; v--) {
		site_master[m->nodes[v].site] = v;
		cl_master[m->nodes[v].cluster] = v;
	}
	site_master[m->nodes[root].site] = root;
	cl_master[m->nodes[root].cluster] = root;
}

/* The work arrays of the multilevel planners (mpich-g2, magpie). */
struct levels {
	int *smaster, *cmaster;     /* gb_group_masters() */
	int *gid, *start, *list;    /* gb_group_bucket() */
	int *mem, *par;             /* a level's members, the tree's parents (-1) */
	double *key, *sent;         /* send order keys, sends per sender (0) */
};

static void levels_free(struct levels *w)
{
	free(w->smaster);
	free(w->cmaster);
	free(w->gid);
	free(w->start);
	free(w->list);
	free(w->mem);
	free(w->par);
	free(w->key);
	free(w->sent);
}

/* Allocate @w for @m, with the masters for @root and no parents yet.
 * Return: 0 or -ENOMEM (nothing left allocated). */
static int levels_alloc(struct levels *w, const struct gb_netmodel *m, int root)
{
	int n = m->n, ng = m->nsites > m->nclusters ? m->nsites : m->nclusters;

	w->smaster = malloc(sizeof(int) * m->nsites);
	w->cmaster = malloc(sizeof(int) * m->nclusters);
	w->gid = calloc(n, sizeof(int));
	w->start = malloc(sizeof(int) * (ng + 1));
	w->list = malloc(sizeof(int) * n);
	w->mem = malloc(sizeof(int) * n);
	w->par = malloc(sizeof(int) * n);
	w->key = calloc(n, sizeof(double));
	w->sent = calloc(n, sizeof(double));
	if (!w->smaster || !w->cmaster || !w->gid || !w->start || !w->list || !w->mem ||
	    !w->par || !w->key || !w->sent) {
		levels_free(w);
		return -ENOMEM;
	}
	gb_group_masters(m, root, w->smaster, w->cmaster);
	for (int v = 0; v < n; v++)
		w->par[v] = -1;
	return 0;
}

/*
 * Counting sort of the nodes by group (gid[v], -1 = left out), keeping
 * rank order inside each group: group g is list[start[g] .. start[g+1]-1].
 * O(n + ngroups), so the multilevel planners stay linear in n.
 */
void gb_group_bucket(int n, int ngroups, const int *gid, int *start, int *list)
{
	for (int g = 0; g <= ngroups; g++)
		start[g] = 0;
	for (int v = 0; v < n; v++)
		if (gid[v] >= 0)
			start[gid[v] + 1]++;
	for (int g = 0; g < ngroups; g++)
		start[g + 1] += start[g];
	for (int v = 0; v < n; v++)
		if (gid[v] >= 0)
			list[start[gid[v]]++] = v;
	for (int g = ngroups; g > 0; g--)
		start[g] = start[g - 1];
	start[0] = 0;
}

/* Position of @v in set[0..k-1] (0 if absent). */
static int index_of(const int *set, int k, int v)
{
	for (int i = 0; i < k; i++)
		if (set[i] == v)
			return i;
	return 0;
}

/*
 * Append a binomial over set[0..k-1] (rank order) rooted at set[ri]:
 * MPICH-G2's binomial_bcast() uses relative index (idx - root_idx) mod k.
 * Keys continue after @base so that sends of earlier levels come first.
 */
static void level_binomial(const int *set, int k, int ri, int *mem, int *par, double *key,
			   const double *base)
{
	for (int r = 0; r < k; r++)
		mem[r] = set[(ri + r) % k];
	/* gb_binomial() numbers each sender's sends 0, 1, ...: shift them
	 * past what that sender already sent at higher levels. */
	gb_binomial(mem, k, par, key, 0);
	for (int r = 1; r < k; r++)
		key[mem[r]] += base[par[mem[r]]];
}

/*
 * One lower level of mpich-g2: the nodes grouped by @gid (-1: in no group)
 * into @ngroups groups, each a binomial rooted at its @master, in group
 * order; @sent counts each sender's sends so far.
 */
static void level_groups(int n, int ngroups, const int *gid, const int *master, int *start,
			 int *list, int *mem, int *par, double *key, double *sent)
{
	gb_group_bucket(n, ngroups, gid, start, list);
	for (int g = 0; g < ngroups; g++) {
		const int *set = list + start[g];
		int k = start[g + 1] - start[g];

		if (k < 2)
			continue;
		level_binomial(set, k, index_of(set, k, master[g]), mem, par, key, sent);
		for (int r = 1; r < k; r++)
			sent[par[mem[r]]]++;
	}
}

/*
 * mpich-g2 - MPICH-G2's topology-aware broadcast (mpid/globus2
 * topology_intra_fns.c, MPID_FN_Bcast; seed 000 s3, Fig. 7), with the three
 * levels of a gridbed topology:
 *
 *	level 0, wide area: the site masters; flat tree from the root's site
 *	         master (the root) to the others, in rank order
 *	level 1, site:      in each site, the cluster masters; binomial rooted
 *	         at the site master
 *	level 2, cluster:   in each cluster, all its nodes; binomial rooted at
 *	         the cluster master
 *
 *	root ──flat──► site masters ──binomial──► cluster masters
 *	                                 ──binomial──► cluster nodes
 *
 * A process walks the levels top down (for lvl = 0 .. depth-1), so its
 * sends at a higher level all precede its sends at a lower one.
 *
 * Choices:
 *  - a group's member order is rank order and the binomial's relative
 *    index is (index - root index) mod size, as in binomial_bcast();
 *  - cluster ids are taken as numbered by first appearance in rank order,
 *    so a group's master is its lowest-ranked member unless the group
 *    contains the root (update_cluster_ids()' rotation makes the root the
 *    master there);
 *  - levels with fewer than 2 members are skipped, as MPICH-G2 does.
 */
int gb_plan_mpichg2(const struct gb_netmodel *m, const struct gb_plan_args *a,
		    struct gb_tree *out)
{
	struct levels w;
	int n = m->n, ret, root = a->root;

	if ((ret = levels_alloc(&w, m, root)) < 0)
		return ret;
	int *smaster = w.smaster, *cmaster = w.cmaster, *gid = w.gid, *start = w.start;
	int *list = w.list, *mem = w.mem, *par = w.par;
	double *key = w.key, *sent = w.sent;

	/* level 0: flat among site masters, in rank order */
	for (int v = 0; v < n; v++) {
		if (v == root || smaster[m->nodes[v].site] != v)
			continue;
		par[v] = root;
		key[v] = sent[root]++;
	}
	/* level 1: per site, binomial among its cluster masters */
	for (int v = 0; v < n; v++)
		gid[v] = cmaster[m->nodes[v].cluster] == v ? m->nodes[v].site : -1;
	level_groups(n, m->nsites, gid, smaster, start, list, mem, par, key, sent);
	/* level 2: per cluster, binomial among all its nodes */
	for (int v = 0; v < n; v++)
		gid[v] = m->nodes[v].cluster;
	level_groups(n, m->nclusters, gid, cmaster, start, list, mem, par, key, sent);
	ret = gb_tree_from_parents(out, par, key);
	levels_free(&w);
	return ret;
}

/*
 * magpie - MagPIe's wide-area-optimal broadcast (Kielmann et al., PPoPP'99,
 * as summarised in the issue and seed 002 s3.3):
 *
 *	root ──► coordinator of every other cluster (one wide-area send each,
 *	         clusters in index order), then
 *	each coordinator ──binomial──► its cluster
 *
 * Choices: a cluster's coordinator is its lowest-ranked node (the root in
 * its own cluster); the root makes all its wide-area sends before its
 * local binomial ones, so remote clusters start as early as possible.
 */
int gb_plan_magpie(const struct gb_netmodel *m, const struct gb_plan_args *a,
		   struct gb_tree *out)
{
	struct levels w;
	int n = m->n, ret, root = a->root, nwan = 0;

	if ((ret = levels_alloc(&w, m, root)) < 0)
		return ret;
	int *cmaster = w.cmaster, *gid = w.gid, *start = w.start, *list = w.list;
	int *mem = w.mem, *par = w.par;
	double *key = w.key;

	for (int v = 0; v < n; v++)
		gid[v] = m->nodes[v].cluster;
	for (int c = 0; c < m->nclusters; c++) {
		int v = cmaster[c];

		if (v < 0 || v == root)
			continue;
		par[v] = root;
		key[v] = nwan++;
	}
	gb_group_bucket(n, m->nclusters, gid, start, list);
	for (int c = 0; c < m->nclusters; c++) {
		const int *set = list + start[c];
		int k = start[c + 1] - start[c], ri;

		if (k < 2)
			continue;
		ri = index_of(set, k, cmaster[c]);
		for (int r = 0; r < k; r++)
			mem[r] = set[(ri + r) % k];
		gb_binomial(mem, k, par, key, c == m->nodes[root].cluster ? nwan : 0);
	}
	ret = gb_tree_from_parents(out, par, key);
	levels_free(&w);
	return ret;
}
