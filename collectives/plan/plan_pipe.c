/* SPDX-License-Identifier: MIT */
/*
 * plan_pipe.c - "pipeline": a multilevel tree shaped for forwarding in
 * segments (issue 14).  Ours: none of the seeds pipelines.
 *
 * The tree keeps MPICH-G2's three levels and masters (plan_static.c,
 * seed 000 s3 Fig. 7): the site masters, the cluster masters of each
 * site, the hosts of each cluster.  Each level's shape is chosen by the
 * segmented one-port model (gb_cost_mateescu_seg(), the schedule
 * libgridbcast runs) among:
 *
 *	wide area: MPICH-G2's flat fan-out from the root, or a chain
 *	           root -> s1 -> s2 -> ... through the other site masters
 *	site:      a binomial over its cluster masters (MPICH-G2's), or a
 *	           chain through them in rank order
 *	cluster:   a binomial over its hosts (MPICH-G2's), or F chains from
 *	           its master, F = 1, 2 or 4 (the rest of its hosts in rank
 *	           order, cut into F runs of equal length, longest first)
 *
 * Every combination is built and costed at the segment size the root
 * would choose for it (gb_seg_choose(), as libgridbcast's
 * GRIDBED_SEGMENT=auto does).  MPICH-G2's own tree is the first candidate;
 * another wins only if the root would forward it in segments and it is
 * predicted strictly faster (ties to the earlier candidate).  So where
 * segmenting does not pay (a message of one segment, a shallow grid), the
 * tree is MPICH-G2's.
 *
 * Why chains: a node forwards segment j while it receives segment j + 1,
 * so the time of a chain is about its slowest link's share of the whole
 * message plus one segment per hop; a flat fan-out sends one whole copy
 * per remote site through the sender's port (and, on teragrid, through
 * the one LA-CHI trunk), one after another (issue 14, "Why").
 *
 * Choices where nothing is written down:
 *  - the wide-area chain tries every order of the other site masters when
 *    there are at most PIPE_MAX_PERM of them (5! = 120 orders), else the
 *    greedy order: next, the unvisited site master with the largest
 *    bandwidth from the chain's end (ties: lowest index);
 *  - a node's sends are in level order, top down, as in mpich-g2: its
 *    wide-area child, then its site children, then its cluster children;
 *  - the shapes of all sites (and of all clusters) are chosen together,
 *    one shape per level: the per-group choice would multiply the
 *    candidates, and the shipped grids' groups are alike;
 *  - by default the model is the one-port model: it knows no shared
 *    links, so a fan-out over one trunk costs what its sender's port
 *    costs, and the chain is preferred only where one port is the
 *    bottleneck.  gb_plan_args.model (gridtree --model) names another
 *    model to score the candidates with, in its segmented schedule
 *    (gb_costmodel.cost_seg: "contention" charges the shared trunk); the
 *    segment size is still the root's choice, gb_seg_choose(), as it is
 *    at run time.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_impl.h"

#define PIPE_MAX_PERM 5

static const int cluster_fan[] = { 0, 1, 2, 4 };	/* 0: binomial */
#define NFAN ((int)(sizeof(cluster_fan) / sizeof(cluster_fan[0])))

struct pipe_ws {
	const struct gb_netmodel *m;
	const struct gb_costmodel *cm;  /* scores candidates; NULL: mateescu */
	int root;
	int *smaster, *cmaster;
	int *par, *mem, *list, *start, *gid;
	double *key, *sent;
	int *order, nother;	/* the other site masters, in chain order */
};

static void ws_free(struct pipe_ws *w)
{
	free(w->smaster);
	free(w->cmaster);
	free(w->par);
	free(w->mem);
	free(w->list);
	free(w->start);
	free(w->gid);
	free(w->key);
	free(w->sent);
	free(w->order);
}

static int ws_alloc(struct pipe_ws *w, const struct gb_netmodel *m, int root)
{
	int n = m->n, ng = m->nsites > m->nclusters ? m->nsites : m->nclusters;

	memset(w, 0, sizeof(*w));
	w->m = m;
	w->root = root;
	w->smaster = malloc(sizeof(int) * (size_t)m->nsites);
	w->cmaster = malloc(sizeof(int) * (size_t)m->nclusters);
	w->par = malloc(sizeof(int) * (size_t)n);
	w->mem = malloc(sizeof(int) * (size_t)n);
	w->list = malloc(sizeof(int) * (size_t)n);
	w->start = malloc(sizeof(int) * (size_t)(ng + 1));
	w->gid = malloc(sizeof(int) * (size_t)n);
	w->key = malloc(sizeof(double) * (size_t)n);
	w->sent = malloc(sizeof(double) * (size_t)n);
	w->order = malloc(sizeof(int) * (size_t)(m->nsites + 1));
	if (!w->smaster || !w->cmaster || !w->par || !w->mem || !w->list || !w->start ||
	    !w->gid || !w->key || !w->sent || !w->order) {
		ws_free(w);
		return -ENOMEM;
	}
	gb_group_masters(m, root, w->smaster, w->cmaster);
	/* in rank order: the flat fan-out's order (mpich-g2's), and the first
	 * of the chain's permutations */
	for (int v = 0; v < n; v++)
		if (v != root && w->smaster[m->nodes[v].site] == v)
			w->order[w->nother++] = v;
	return 0;
}

/* Group g's members (by w->gid), in rank order rotated to @master, into
 * w->mem; their count.  Group 0's call sorts every group (gb_group_bucket()). */
static int group(struct pipe_ws *w, int ngroups, int g, int master)
{
	int k, ri = 0;

	if (g == 0)
		gb_group_bucket(w->m->n, ngroups, w->gid, w->start, w->list);
	k = w->start[g + 1] - w->start[g];
	for (int i = 0; i < k; i++)
		if (w->list[w->start[g] + i] == master)
			ri = i;
	for (int r = 0; r < k; r++)
		w->mem[r] = w->list[w->start[g] + (ri + r) % k];
	return k;
}

/* v's parent is u, sent after u's sends so far. */
static void edge(struct pipe_ws *w, int u, int v)
{
	w->par[v] = u;
	w->key[v] = w->sent[u]++;
}

/* mem[0 .. k-1]: a binomial rooted at mem[0] (0 fans) or @fan chains from it. */
static void shape(struct pipe_ws *w, int k, int fan)
{
	if (k < 2)
		return;
	if (fan == 0) {
		/* gb_binomial() numbers each sender's sends 0, 1, ...: shift them
		 * past what that sender already sent at higher levels */
		gb_binomial(w->mem, k, w->par, w->key, 0);
		for (int r = 1; r < k; r++)
			w->key[w->mem[r]] += w->sent[w->par[w->mem[r]]];
		for (int r = 1; r < k; r++)
			w->sent[w->par[w->mem[r]]]++;
		return;
	}
	int rest = k - 1, f = fan < rest ? fan : rest, at = 1;

	for (int c = 0; c < f; c++) {
		int len = rest / f + (c < rest % f);

		for (int i = 0; i < len; i++, at++)
			edge(w, i ? w->mem[at - 1] : w->mem[0], w->mem[at]);
	}
}

/* Build the candidate (@chain: wide area chained in w->order; @site_fan,
 * @cl_fan: 0 binomial, else chains) into @t. */
static int build(struct pipe_ws *w, int chain, int site_fan, int cl_fan, struct gb_tree *t)
{
	const struct gb_netmodel *m = w->m;
	int n = m->n, prev = w->root;

	for (int v = 0; v < n; v++) {
		w->par[v] = -1;
		w->key[v] = 0;
		w->sent[v] = 0;
	}
	for (int i = 0; i < w->nother; i++) {
		edge(w, chain ? prev : w->root, w->order[i]);
		prev = w->order[i];
	}
	for (int v = 0; v < n; v++)
		w->gid[v] = w->cmaster[m->nodes[v].cluster] == v ? m->nodes[v].site : -1;
	for (int s = 0; s < m->nsites; s++)
		shape(w, group(w, m->nsites, s, w->smaster[s]), site_fan);
	for (int v = 0; v < n; v++)
		w->gid[v] = m->nodes[v].cluster;
	for (int c = 0; c < m->nclusters; c++)
		shape(w, group(w, m->nclusters, c, w->cmaster[c]), cl_fan);
	return gb_tree_from_parents(t, w->par, w->key);
}

/* Next lexicographic permutation of a[0 .. k-1]; 0 after the last. */
static int next_perm(int *a, int k)
{
	int i = k - 2, j = k - 1, x;

	while (i >= 0 && a[i] >= a[i + 1])
		i--;
	if (i < 0)
		return 0;
	while (a[j] <= a[i])
		j--;
	x = a[i], a[i] = a[j], a[j] = x;
	for (int l = i + 1, r = k - 1; l < r; l++, r--)
		x = a[l], a[l] = a[r], a[r] = x;
	return 1;
}

/* w->order greedily: next the unvisited site master with the largest bandwidth. */
static void greedy_order(struct pipe_ws *w)
{
	const struct gb_netmodel *m = w->m;
	int cur = w->root;

	for (int i = 0; i < w->nother; i++) {
		int best = i;

		for (int j = i + 1; j < w->nother; j++)
			if (m->bw[cur * m->n + w->order[j]] > m->bw[cur * m->n + w->order[best]])
				best = j;
		int x = w->order[i];

		w->order[i] = w->order[best];
		w->order[best] = x;
		cur = w->order[i];
	}
}

struct pick {
	double t;
	int chain, site_fan, cl_fan;
	int *order;
};

/* Cost the candidate (@chain, fans; w->order) at the root's segment size;
 * keep it in @best if cheaper.  Only MPICH-G2's tree (the first candidate)
 * counts unsegmented: the others are there for segmented forwarding. */
static int consider(struct pipe_ws *w, double size, int chain, int sf, int cf,
		    struct gb_tree *t, struct pick *best)
{
	double pred = NAN, seg;
	int ret = build(w, chain, sf, cf, t), first = !chain && !sf && !cf;

	if (ret < 0)
		return ret;
	seg = gb_seg_choose(w->m, t, size, 1, 0, &pred);
	if (!(seg > 0) && !first)
		return 0;
	if (w->cm)
		pred = w->cm->cost_seg(w->m, t, size, seg, NULL);
	if (isfinite(pred) && (!isfinite(best->t) || pred < best->t)) {
		best->t = pred;
		best->chain = chain;
		best->site_fan = sf;
		best->cl_fan = cf;
		memcpy(best->order, w->order, sizeof(int) * (size_t)w->nother);
	}
	return 0;
}

int gb_plan_pipeline(const struct gb_netmodel *m, const struct gb_plan_args *a,
		     struct gb_tree *out)
{
	struct pipe_ws w;
	struct pick best = { .t = NAN };
	int ret, perms;

	if (m->nsites < 1 || m->nclusters < 1)
		return -EINVAL;
	if ((ret = ws_alloc(&w, m, a->root)) < 0)
		return ret;
	w.cm = a->model ? gb_costmodel_find(a->model) : NULL;
	if (w.cm && (!w.cm->cost_seg || !strcmp(w.cm->name, "mateescu")))
		w.cm = NULL;	/* mateescu: gb_seg_choose()'s own prediction */
	best.order = malloc(sizeof(int) * (size_t)(m->nsites + 1));
	if (!best.order) {
		ws_free(&w);
		return -ENOMEM;
	}
	memcpy(best.order, w.order, sizeof(int) * (size_t)w.nother);
	perms = w.nother <= PIPE_MAX_PERM;
	for (int chain = 0; chain < (w.nother >= 2 ? 2 : 1) && ret == 0; chain++) {
		int more = 1;

		if (chain && !perms)
			greedy_order(&w);

		while (more && ret == 0) {
			for (int sf = 0; sf < 2 && ret == 0; sf++)
				for (int cf = 0; cf < NFAN && ret == 0; cf++)
					ret = consider(&w, a->size, chain, sf, cluster_fan[cf], out,
						       &best);
			/* the flat fan-out's order is rank order; only a chain's varies */
			more = chain && perms && next_perm(w.order, w.nother);
		}
	}
	if (ret == 0 && !isfinite(best.t))
		ret = -EINVAL;
	if (ret == 0) {
		memcpy(w.order, best.order, sizeof(int) * (size_t)w.nother);
		ret = build(&w, best.chain, best.site_fan, best.cl_fan, out);
	}
	free(best.order);
	ws_free(&w);
	return ret;
}
