// SPDX-License-Identifier: MIT
/*
 * plan_sa.c - the simulated-annealing planners of seed 000 (Gupta &
 * Vadhiyar): basicSA (Fig. 1), driverSA (Fig. 2) and clusteredSA (Fig. 4),
 * registered as "sa", "clustered-sa" and "sa-contention".
 *
 *   sa             driverSA over all nodes (as the paper does up to 16)
 *   clustered-sa   clusteredSA: pools (sa_pools.c), driverSA in each pool,
 *                  clusteredSA again over the pool roots
 *   sa-contention  clusteredSA optimising our "contention" cost model
 *                  instead of Mateescu's (not in the paper; the paper blames
 *                  contention for Mateescu's real-world results, §3 Fig. 9)
 *
 * Every random choice draws from one gb_rng seeded with args->seed, so with
 * no time budget (args->budget_s <= 0: 50 + 25 invocations per driverSA) a
 * plan is a function of (model, root, size, seed, cost model).  With a
 * budget the number of invocations depends on the clock and so does the
 * result: determinism is only promised without a budget.
 *
 * ------------------------------------------------------------------------
 * basicSA (Fig. 1), as implemented:
 *
 *	T = 100; cur = initial; best = cur
 *	while T > 1:                                    (minTemp 1, Fig. 1)
 *	    accepts = 0; best_found = 0
 *	    repeat 80 times:
 *	        new = transform_tree(cur)
 *	        update_good_list(new)
 *	        if cost(new) < cost(best): best = cur = new; accepts++; best_found = 1
 *	        elif U[0,1) < exp(-(cost(new) - cost(cur)) / (1.0 * T)): cur = new; accepts++
 *	        if accepts == 20: break
 *	    if accepts <= 3 % of 80 (i.e. <= 2) and not best_found: break
 *	    T = 0.8 * T
 *
 *   so at most 21 temperatures (100 * 0.8^20 = 1.15 > 1 > 0.92); costs in
 *   the exponent are in milliseconds (see "Cost unit" below).
 *
 * transform_tree (§2.2): "a random node on the path of the tree leading to
 * the leaf node with the longest estimated broadcast completion time is
 * chosen and made the child of another random node in the tree":
 *
 *	        r                      far = argmax arrival (first in DFS order
 *	       / \                           on ties)
 *	      a   b        x  uniform on the path r..far without r (the root
 *	     / \                  cannot move: every node is in its subtree)
 *	    x   c          y  uniform on the nodes outside x's subtree (x's
 *	    |                     current parent included: then the move only
 *	   far                    reorders x among its siblings)
 *	                   x becomes a child of y at a uniform position among
 *	                   the |children(y)| + 1 slots of y's send order
 *
 *   The paper does not say where in the send order the moved node goes;
 *   a uniform slot lets the search optimise send orders too, which
 *   Mateescu's model is very sensitive to.
 *
 * Cost unit.  The temperatures (100 .. 1) and the Boltzmann constant (1.0)
 * only mean something against a unit of cost, which the paper does not
 * give.  We measure costs in milliseconds inside the Boltzmann factor
 * (GB_SA_COST_UNIT): in seconds, a 1 MB broadcast on 100 Mbit/s links
 * differs between neighbouring trees by 0.01-0.1, so exp(-diff/T) >= 0.9
 * at every temperature and basicSA degenerates into a random walk.  Mean
 * best cost of driverSA (no budget, 8 seeds, 1 MB) with the unit in s / ms
 * / us: 32 nodes of Fig. 3's matrix 7.42 / 5.79 / 5.89 s; gb_nm_gen_grid
 * 4x2x8 = 64 nodes 2.77 / 1.03 / 1.08 s (at 1 KB on 16 nodes all three are
 * within 1 %).
 *
 * good_list (§2.2) holds the trees within 10 % of the best cost it has seen;
 * update_good_list is called for every transformed tree (Fig. 1 line 12)
 * and, our addition, for the initial tree, so that the list's best is the
 * run's best.  Choices: at most GB_SA_GOOD_MAX trees (when full, a better
 * tree replaces the worst); duplicates (same 64-bit hash of root, parents
 * and send orders) are kept once; when the best improves, trees no longer
 * within 10 % are dropped.
 *
 * ------------------------------------------------------------------------
 * driverSA (Fig. 2), as implemented:
 *
 *	randomization: repeat
 *	    basicSA(random tree rooted at the root, good_list)
 *	    no budget: stop after 50
 *	    budget T:  stop when  last >= 1.5 * remaining
 *	               remaining = T - elapsed,
 *	               last = now - (time good_list's best last improved)
 *	refinement (good_list frozen: Fig. 2 line 20 passes dummy_list):
 *	    repeat: basicSA(next tree of good_list, by increasing cost, with
 *	            wrap-around); keep the best
 *	    no budget: stop after 25;  budget: stop when remaining <= 0
 *
 * Our reading of the switch (lines 12-17): "last_time = time since best tree
 * in good_list has not changed" is the age of the current best, i.e. the
 * length of the sliding window that starts at the last improvement and ends
 * now.  With no improvement after t_b the switch comes at
 *	t - t_b >= 1.5 (T - t)   <=>   t >= 0.6 T + 0.4 t_b,
 * so between 60 % and 100 % of the budget; at t = T it always happens.
 * The budget is checked between invocations (as in Fig. 2) and, because one
 * basicSA on many nodes can outlast a small budget, every 8 evaluations
 * inside basicSA, which then returns its best so far.
 *
 * Random initial trees (generateRandomTree): the root is the broadcast root
 * when the node set holds it (§2.3), else a uniform node of the set; every
 * other node, in a uniformly shuffled order, becomes a child of a uniform
 * node already placed, at a uniform slot of its send order (a random
 * recursive tree).
 *
 * Trivial node sets are not annealed: one node, two nodes with the root
 * fixed (one tree), or two nodes without a root (both trees evaluated).
 *
 * ------------------------------------------------------------------------
 * clusteredSA (Fig. 4), as implemented (see also sa_pools.c):
 *
 *	clustered(S, root):                              root may be "none"
 *	    if |S| <= 16: return driverSA(S)                  (lines 4-6)
 *	    sets = { pools(S, p) : p in 10, 25, 50, 75 }      (lines 7-10)
 *	    drop sets that divide nothing and repeated sets   (ours, below)
 *	    if none is left: return driverSA(S)               (lines 24-28)
 *	    drop sets with a pool > 16, unless that drops all (line 11, §2.4)
 *	    for each set:
 *	        tree_p = clustered(pool) for every pool       (line 17: this is
 *	                                                       driverSA when
 *	                                                       |pool| <= 16)
 *	        R = the pools' roots; tree_R = clustered(R, root)   (line 33)
 *	        combine: each pool root sends to its tree_R children and to its
 *	                 pool children; both orders (wide-area first, pool
 *	                 first) are evaluated and the cheaper kept (line 36)
 *	        keep the set whose combined tree costs least, evaluated with
 *	        the cost model on S (lines 37-39)
 *	at the top: MPICH-G2's tree if it costs less (ours, below)
 *
 *	  S = teragrid (64), root c2-1; pools at 50 % and 75 %:
 *	      {SDSC 16} {NCSA 24} {ANL 16} {PSC 8}  -> 4 roots, driverSA
 *	        c2-1 ==WAN==> r(NCSA), r(ANL), r(PSC): one edge into each pool
 *
 * Choices where Fig. 4 is silent, and why:
 *  - Line 11, literally, and §2.4's "if all the 4 pool sets contain pools
 *    of larger sizes, then the algorithm proceeds with the 4 pool sets":
 *    pools are never re-formed or capped.  (An earlier version re-formed
 *    them with a cap of 16 in node-index order, which cut through clusters
 *    and sites: issue 13.)  On teragrid.yaml every set has a pool over 16
 *    (NCSA's 24 nodes have 100 Mbit/s between them), so all are kept.
 *  - A pool over 16 nodes (only the fallback of line 11 keeps one) is
 *    planned by clusteredSA, not by driverSA: for a pool of at most 16
 *    nodes clusteredSA is driverSA (lines 4-6), so this changes nothing
 *    Fig. 4 specifies, and for a larger pool it applies §2.4's finding
 *    that SA alone gives poor trees above 16 nodes ("clusteredSA
 *    generates highly efficient broadcast trees ... for any number of
 *    nodes").  It also keeps lines 19-28's property inside the big pool:
 *    its own pools are joined only through their roots.
 *  - A pool set that divides nothing is dropped: one pool holding all of
 *    S (line 24's count == 1; planning it is driverSA over more than 16
 *    nodes, which is what clusteredSA exists to avoid), or every pool a
 *    single node (the next level would be S again and never end).  Only
 *    when no set divides is driverSA run on S, which is what lines 24-28
 *    return for a single pool.  Two percentages giving the same partition
 *    are one set (the same trees; the memo below would reuse them).
 *  - A pool without the broadcast root is rooted where driverSA's random
 *    initial trees put it (§2.3: only a contained root is fixed); its
 *    root then represents it at the next level.  A clusteredSA without
 *    a root (a big pool without the broadcast root) is rooted where the
 *    tree over its pool roots is.
 *  - The next level (line 33) anneals the roots with their own matrices
 *    only, as the paper does: it does not see the pools' own broadcast
 *    times.  pCost (line 38) is then the cost of the combined tree under
 *    the model, not a formula over nCost and pCostList, so pool sets are
 *    compared on what their trees really cost.
 *  - Never worse than MPICH-G2.  At the top level MPICH-G2's tree (flat
 *    over sites, binomial in sites and clusters; plan_static.c) is one
 *    more candidate of line 39, kept if it costs less under the model
 *    being optimised.  The paper does not list it; the reason is general:
 *    a search should not lose a known tree, as Fig. 1 line 5 makes basicSA
 *    never return worse than its initial tree, and MPICH-G2's tree is in
 *    clusteredSA's search space (one communication into each site's
 *    pool) where a stochastic search can miss it.  It costs one
 *    evaluation and needs only the model's sites and clusters (without
 *    them it is skipped).  gb_sa_stats.mpichg2 says when it was returned.
 *  - The time budget is shared as in lines 2-3 (new_td = T / total_pools,
 *    total_pools counted by a dry run that takes the first node of each
 *    pool as its root), but recomputed before every driverSA as (time left)
 *    / (runs left), so that a run finishing early (trivial pools, memo
 *    hits) or a dry-run miscount (random pool roots) cannot break the
 *    budget.  One-node pools need no driverSA and are not counted.
 *  - The same pool (same nodes, same fixed root) in several pool sets or
 *    levels is one driverSA problem: it is solved once per clusteredSA run
 *    and its tree reused (a memo), which keeps the no-budget mode
 *    deterministic and spends a budget on distinct problems only.
 *
 * What it gives: on teragrid.yaml (configured, and with measured-like
 * noise that moves no bandwidth across a threshold) the tree enters every
 * remote site exactly once, as MPICH-G2's does (t/4008).  Under Mateescu's
 * contention-free model that structure costs something: a tree that sends
 * to several nodes of a remote site at once can be cheaper, which is the
 * trade the paper makes (§2.1: "involves only one communication between
 * the clusters"); sa-contention optimises a model that sees the shared
 * links instead.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbplan.h"
#include "gbsa.h"
#include "plan_impl.h"

/* Gives dense injection/latency matrices to node sets up to this size. */
#define SA_DENSE_MAX 256

/* ------------------------------------------------------------------ */
/* Trees as the annealer sees them                                     */
/* ------------------------------------------------------------------ */

/*
 * A tree over local nodes 0..k-1: parent[], and the send order of every
 * node as a linked list first[] -> next[] -> ... -> -1.  Moving a subtree
 * is O(siblings), copying is three memcpy.
 */
struct sa_tree {
	int root;
	int *parent;
	int *first;
	int *next;
};

static int sa_tree_alloc(struct sa_tree *t, int k)
{
	size_t sz = sizeof(int) * (size_t)(k > 0 ? k : 1);

	t->root = 0;
	t->parent = malloc(sz);
	t->first = malloc(sz);
	t->next = malloc(sz);
	if (!t->parent || !t->first || !t->next) {
		free(t->parent);
		free(t->first);
		free(t->next);
		t->parent = t->first = t->next = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void sa_tree_free(struct sa_tree *t)
{
	free(t->parent);
	free(t->first);
	free(t->next);
	t->parent = t->first = t->next = NULL;
}

static void sa_tree_clear(struct sa_tree *t, int k, int root)
{
	t->root = root;
	for (int v = 0; v < k; v++)
		t->parent[v] = t->first[v] = t->next[v] = -1;
}

static void sa_tree_copy(struct sa_tree *d, const struct sa_tree *s, int k)
{
	d->root = s->root;
	memcpy(d->parent, s->parent, sizeof(int) * (size_t)k);
	memcpy(d->first, s->first, sizeof(int) * (size_t)k);
	memcpy(d->next, s->next, sizeof(int) * (size_t)k);
}

static int sa_nchild(const struct sa_tree *t, int y)
{
	int c = 0;

	for (int v = t->first[y]; v >= 0; v = t->next[v])
		c++;
	return c;
}

/* Remove x from its parent's send order. */
static void sa_detach(struct sa_tree *t, int x)
{
	int p = t->parent[x];

	if (p < 0)
		return;
	if (t->first[p] == x) {
		t->first[p] = t->next[x];
	} else {
		int v = t->first[p];

		while (t->next[v] != x)
			v = t->next[v];
		t->next[v] = t->next[x];
	}
	t->next[x] = -1;
	t->parent[x] = -1;
}

/* Make x the pos-th child (0 = sent first) of y. */
static void sa_attach(struct sa_tree *t, int x, int y, int pos)
{
	t->parent[x] = y;
	if (pos == 0) {
		t->next[x] = t->first[y];
		t->first[y] = x;
		return;
	}
	int v = t->first[y];

	for (int i = 1; i < pos; i++)
		v = t->next[v];
	t->next[x] = t->next[v];
	t->next[v] = x;
}

/* Append the chain x -> next[x] -> ... at the end of y's send order. */
static void sa_append_chain(struct sa_tree *t, int y, int x)
{
	if (x < 0)
		return;
	if (t->first[y] < 0) {
		t->first[y] = x;
		return;
	}
	int v = t->first[y];

	while (t->next[v] >= 0)
		v = t->next[v];
	t->next[v] = x;
}

static uint64_t sa_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Root, parents and send orders determine the tree: hash first[] and next[]. */
static uint64_t sa_tree_hash(const struct sa_tree *t, int k)
{
	uint64_t h = sa_mix(0x9e3779b97f4a7c15ULL ^ (uint64_t)(uint32_t)t->root);

	for (int v = 0; v < k; v++) {
		uint64_t w = ((uint64_t)(uint32_t)t->first[v] << 32) | (uint32_t)t->next[v];

		h = sa_mix(h ^ w) + (uint64_t)v;
	}
	return h;
}

/* ------------------------------------------------------------------ */
/* A node set to plan over, with its cost evaluation                   */
/* ------------------------------------------------------------------ */

struct sa_prob {
	int k;
	int fixed_root;         /* local index of the broadcast root, or -1 */
	double size;
	const struct gb_netmodel *m;
	const int *map;         /* local -> model node, NULL = identity */

	/* Built-in Mateescu model: dense Delta and L over the set, or NULL
	 * (large sets) to read the model through map[]. */
	double *delta;
	double *lat;

	/* Any other cost model: the model restricted to the set, and a
	 * gb_tree to hand it. */
	const struct gb_costmodel *cm;
	struct gb_netmodel sub;
	const struct gb_netmodel *mm;
	struct gb_tree gt;
	int have_gt;

	/* scratch, k entries each */
	double *arr;
	int *stack;
	int *mark;
	int *cand;
	int stamp;
	struct sa_tree cur, nw, init, out;

	struct gb_rng *rng;
	double deadline;        /* gb_now() value; 0 = none */
	int timed_out;
	unsigned check_mask;    /* look at the clock every check_mask+1 evaluations */
	long evals;
};

static void sa_prob_release(struct sa_prob *p)
{
	free(p->delta);
	free(p->lat);
	free(p->arr);
	free(p->stack);
	free(p->mark);
	free(p->cand);
	p->delta = p->lat = p->arr = NULL;
	p->stack = p->mark = p->cand = NULL;
	sa_tree_free(&p->cur);
	sa_tree_free(&p->nw);
	sa_tree_free(&p->init);
	sa_tree_free(&p->out);
	if (p->have_gt)
		gb_tree_release(&p->gt);
	p->have_gt = 0;
	if (p->mm == &p->sub)
		gb_nm_release(&p->sub);
	p->mm = NULL;
}

/*
 * Set up a node set: nodes[0..k-1] are model nodes (NULL = all of them),
 * fixed_root a local index or -1.  @cm NULL selects the built-in Mateescu
 * evaluation.
 */
static int sa_prob_init(struct sa_prob *p, const struct gb_netmodel *m, const int *nodes, int k,
			int fixed_root, double size, const struct gb_costmodel *cm,
			struct gb_rng *rng)
{
	size_t kk = (size_t)(k > 0 ? k : 1);
	int ret = -ENOMEM;

	memset(p, 0, sizeof(*p));
	/* All nodes in model order: read the model itself, copy nothing. */
	if (nodes && k == m->n) {
		int id = 1;

		for (int i = 0; i < k && id; i++)
			id = nodes[i] == i;
		if (id)
			nodes = NULL;
	}
	p->k = k;
	p->fixed_root = fixed_root;
	p->size = size;
	p->m = m;
	p->map = nodes;
	p->cm = cm;
	p->rng = rng;
	p->check_mask = cm ? 0 : 7;

	p->arr = malloc(sizeof(double) * kk);
	p->stack = malloc(sizeof(int) * kk);
	p->mark = calloc(kk, sizeof(int));
	p->cand = malloc(sizeof(int) * kk);
	if (!p->arr || !p->stack || !p->mark || !p->cand)
		goto cleanup;
	if (sa_tree_alloc(&p->cur, k) || sa_tree_alloc(&p->nw, k) ||
	    sa_tree_alloc(&p->init, k) || sa_tree_alloc(&p->out, k))
		goto cleanup;

	if (!cm) {
		if (k <= SA_DENSE_MAX) {
			p->delta = malloc(sizeof(double) * kk * kk);
			p->lat = malloc(sizeof(double) * kk * kk);
			if (!p->delta || !p->lat)
				goto cleanup;
			for (int i = 0; i < k; i++) {
				int u = nodes ? nodes[i] : i;

				for (int j = 0; j < k; j++) {
					int v = nodes ? nodes[j] : j;

					p->delta[(size_t)i * kk + j] = gb_nm_delta(m, u, v, size);
					p->lat[(size_t)i * kk + j] = m->lat[(size_t)u * m->n + v];
				}
			}
		}
	} else {
		if (nodes) {
			ret = gb_nm_sub(&p->sub, m, nodes, k);
			if (ret < 0)
				goto cleanup;
			p->mm = &p->sub;
		} else {
			p->mm = m;
		}
		ret = gb_tree_init(&p->gt, k, fixed_root >= 0 ? fixed_root : 0);
		if (ret < 0)
			goto cleanup;
		p->have_gt = 1;
	}
	return 0;

cleanup:
	sa_prob_release(p);
	return ret < 0 ? ret : -ENOMEM;
}

static inline double sa_delta(const struct sa_prob *p, int u, int v)
{
	if (p->delta)
		return p->delta[(size_t)u * p->k + v];
	return gb_nm_delta(p->m, p->map ? p->map[u] : u, p->map ? p->map[v] : v, p->size);
}

static inline double sa_lat(const struct sa_prob *p, int u, int v)
{
	if (p->lat)
		return p->lat[(size_t)u * p->k + v];
	int a = p->map ? p->map[u] : u, b = p->map ? p->map[v] : v;

	return p->m->lat[(size_t)a * p->m->n + b];
}

/*
 * Mateescu's model (seed 000 §2.2, seed 003; gbcore.h gb_cost_mateescu):
 * u holds the message at arr[u] and sends to its children in order, busy
 * Delta(u,c) for each; c holds it Delta(u,c) + L(u,c) after its send began.
 * O(k), no allocation: this is the annealer's inner loop.
 */
static double sa_eval_mateescu(struct sa_prob *p, const struct sa_tree *t, int *far)
{
	double *arr = p->arr, max = 0;
	int *stack = p->stack, sp = 0, amax = t->root;

	arr[t->root] = 0;
	stack[sp++] = t->root;
	while (sp > 0) {
		int u = stack[--sp];
		double busy = arr[u];

		if (p->delta) {
			const double *dr = p->delta + (size_t)u * p->k;
			const double *lr = p->lat + (size_t)u * p->k;

			for (int c = t->first[u]; c >= 0; c = t->next[c]) {
				double a;

				busy += dr[c];
				a = busy + lr[c];
				arr[c] = a;
				if (a > max) {
					max = a;
					amax = c;
				}
				stack[sp++] = c;
			}
		} else {
			for (int c = t->first[u]; c >= 0; c = t->next[c]) {
				double a;

				busy += sa_delta(p, u, c);
				a = busy + sa_lat(p, u, c);
				arr[c] = a;
				if (a > max) {
					max = a;
					amax = c;
				}
				stack[sp++] = c;
			}
		}
	}
	*far = amax;
	return max;
}

/* Any registered cost model, through a gb_tree. */
static double sa_eval_model(struct sa_prob *p, const struct sa_tree *t, int *far)
{
	struct gb_tree *g = &p->gt;
	int k = p->k, pos = 0, amax = t->root;
	double cost, max = -INFINITY;

	g->root = t->root;
	for (int v = 0; v < k; v++) {
		g->parent[v] = t->parent[v];
		g->cstart[v] = pos;
		g->nchild[v] = 0;
		for (int c = t->first[v]; c >= 0; c = t->next[c]) {
			g->child[pos++] = c;
			g->nchild[v]++;
		}
	}
	cost = p->cm->cost(p->mm, g, p->size, p->arr);
	if (isnan(cost))
		cost = INFINITY;
	for (int v = 0; v < k; v++) {
		if (p->arr[v] > max) {
			max = p->arr[v];
			amax = v;
		}
	}
	*far = amax;
	return cost;
}

static double sa_eval(struct sa_prob *p, const struct sa_tree *t, int *far)
{
	p->evals++;
	return p->cm ? sa_eval_model(p, t, far) : sa_eval_mateescu(p, t, far);
}

static int sa_out_of_time(struct sa_prob *p)
{
	if (p->deadline <= 0)
		return 0;
	if (!p->timed_out && ((unsigned long)p->evals & p->check_mask) == 0 &&
	    gb_now() >= p->deadline)
		p->timed_out = 1;
	return p->timed_out;
}

/* generateRandomTree (Fig. 2 line 4); see the header comment. */
static void sa_random_tree(struct sa_prob *p, struct sa_tree *t)
{
	int k = p->k, *placed = p->cand, np = 0, nrest = 0;
	int root = p->fixed_root >= 0 ? p->fixed_root : (int)gb_rng_below(p->rng, (uint32_t)k);
	int *rest = p->stack;

	sa_tree_clear(t, k, root);
	for (int v = 0; v < k; v++)
		if (v != root)
			rest[nrest++] = v;
	for (int i = nrest - 1; i > 0; i--) {
		int j = (int)gb_rng_below(p->rng, (uint32_t)i + 1), tmp = rest[i];

		rest[i] = rest[j];
		rest[j] = tmp;
	}
	placed[np++] = root;
	for (int i = 0; i < nrest; i++) {
		int v = rest[i];
		int y = placed[gb_rng_below(p->rng, (uint32_t)np)];
		int pos = (int)gb_rng_below(p->rng, (uint32_t)sa_nchild(t, y) + 1);

		sa_attach(t, v, y, pos);
		placed[np++] = v;
	}
}

/* transform_tree (Fig. 1 line 9, §2.2); see the header comment. */
static void sa_transform(struct sa_prob *p, const struct sa_tree *cur, int far,
			 struct sa_tree *nw)
{
	int k = p->k, d = 0, x, y, nc = 0, sp = 0;
	int *path = p->cand, *stack = p->stack;

	sa_tree_copy(nw, cur, k);
	for (int v = far; v != cur->root && v >= 0; v = cur->parent[v])
		path[d++] = v;
	if (d == 0)
		return;
	x = path[gb_rng_below(p->rng, (uint32_t)d)];

	/* Mark x's subtree: it cannot hold x's new parent. */
	if (++p->stamp == 0) {
		memset(p->mark, 0, sizeof(int) * (size_t)k);
		p->stamp = 1;
	}
	stack[sp++] = x;
	while (sp > 0) {
		int u = stack[--sp];

		p->mark[u] = p->stamp;
		for (int c = cur->first[u]; c >= 0; c = cur->next[c])
			stack[sp++] = c;
	}
	for (int v = 0; v < k; v++)
		if (p->mark[v] != p->stamp)
			p->cand[nc++] = v;
	y = p->cand[gb_rng_below(p->rng, (uint32_t)nc)];

	sa_detach(nw, x);
	sa_attach(nw, x, y, (int)gb_rng_below(p->rng, (uint32_t)sa_nchild(nw, y) + 1));
}

/* ------------------------------------------------------------------ */
/* good_list                                                           */
/* ------------------------------------------------------------------ */

struct sa_good {
	int cap, n, k;
	int *buf;               /* cap * 3k: parent, first, next */
	int *root;
	double *cost;
	uint64_t *hash;
	double best;
	double t_best;          /* gb_now() when best last improved */
};

static void sa_good_release(struct sa_good *g)
{
	free(g->buf);
	free(g->root);
	free(g->cost);
	free(g->hash);
	memset(g, 0, sizeof(*g));
}

static int sa_good_init(struct sa_good *g, int k, int cap)
{
	memset(g, 0, sizeof(*g));
	g->cap = cap;
	g->k = k;
	g->buf = malloc(sizeof(int) * 3 * (size_t)cap * (size_t)(k > 0 ? k : 1));
	g->root = malloc(sizeof(int) * (size_t)cap);
	g->cost = malloc(sizeof(double) * (size_t)cap);
	g->hash = malloc(sizeof(uint64_t) * (size_t)cap);
	if (!g->buf || !g->root || !g->cost || !g->hash) {
		sa_good_release(g);
		return -ENOMEM;
	}
	g->best = INFINITY;
	return 0;
}

static void sa_good_reset(struct sa_good *g, double now)
{
	g->n = 0;
	g->best = INFINITY;
	g->t_best = now;
}

static void sa_good_get(const struct sa_good *g, int i, struct sa_tree *t)
{
	size_t k = (size_t)g->k;
	const int *b = g->buf + (size_t)i * 3 * k;

	t->root = g->root[i];
	memcpy(t->parent, b, sizeof(int) * k);
	memcpy(t->first, b + k, sizeof(int) * k);
	memcpy(t->next, b + 2 * k, sizeof(int) * k);
}

static void sa_good_put(struct sa_good *g, int i, const struct sa_tree *t, double cost,
			uint64_t h)
{
	size_t k = (size_t)g->k;
	int *b = g->buf + (size_t)i * 3 * k;

	g->root[i] = t->root;
	memcpy(b, t->parent, sizeof(int) * k);
	memcpy(b + k, t->first, sizeof(int) * k);
	memcpy(b + 2 * k, t->next, sizeof(int) * k);
	g->cost[i] = cost;
	g->hash[i] = h;
}

static void sa_good_move(struct sa_good *g, int dst, int src)
{
	size_t k3 = 3 * (size_t)g->k;

	memmove(g->buf + (size_t)dst * k3, g->buf + (size_t)src * k3, sizeof(int) * k3);
	g->root[dst] = g->root[src];
	g->cost[dst] = g->cost[src];
	g->hash[dst] = g->hash[src];
}

/* update_good_list (Fig. 1 line 12). */
static void sa_good_offer(struct sa_good *g, const struct sa_tree *t, double cost)
{
	uint64_t h;
	int slot;

	if (!g || !isfinite(cost))
		return;
	if (!(cost <= g->best * GB_SA_GOOD_RATIO))
		return;
	h = sa_tree_hash(t, g->k);
	for (int i = 0; i < g->n; i++)
		if (g->hash[i] == h)
			return;
	if (cost < g->best) {
		int w = 0;

		g->best = cost;
		g->t_best = gb_now();
		for (int i = 0; i < g->n; i++) {
			if (g->cost[i] <= cost * GB_SA_GOOD_RATIO) {
				if (w != i)
					sa_good_move(g, w, i);
				w++;
			}
		}
		g->n = w;
	}
	if (g->n < g->cap) {
		slot = g->n++;
	} else {
		slot = 0;
		for (int i = 1; i < g->n; i++)
			if (g->cost[i] > g->cost[slot])
				slot = i;
		if (!(cost < g->cost[slot]))
			return;
	}
	sa_good_put(g, slot, t, cost, h);
}

/*
 * By increasing cost (ties by hash: deterministic), for the refinement.
 * Insertion sort, swapping entries in place: at most GB_SA_GOOD_MAX of them.
 */
static void sa_good_sort(struct sa_good *g)
{
	int n = g->n;

	for (int i = 1; i < n; i++) {
		for (int j = i; j > 0; j--) {
			int a = j - 1, b = j;

			if (g->cost[a] < g->cost[b] ||
			    (g->cost[a] == g->cost[b] && g->hash[a] <= g->hash[b]))
				break;
			size_t k3 = 3 * (size_t)g->k;
			int *pa = g->buf + (size_t)a * k3, *pb = g->buf + (size_t)b * k3;

			for (size_t q = 0; q < k3; q++) {
				int tmp = pa[q];

				pa[q] = pb[q];
				pb[q] = tmp;
			}
			int r = g->root[a];
			double c = g->cost[a];
			uint64_t h = g->hash[a];

			g->root[a] = g->root[b];
			g->cost[a] = g->cost[b];
			g->hash[a] = g->hash[b];
			g->root[b] = r;
			g->cost[b] = c;
			g->hash[b] = h;
		}
	}
}

/* ------------------------------------------------------------------ */
/* basicSA (Fig. 1)                                                    */
/* ------------------------------------------------------------------ */

/*
 * Anneal from @init (p->init may be passed) into @best; returns best's cost.
 * Uses p->cur and p->nw.  @good may be NULL (Fig. 2's dummy_list).  @sch,
 * if not NULL, records the schedule (gb_sa_schedule); NULL costs a test
 * per step and draws nothing, so results do not depend on it.
 */
static double sa_basic(struct sa_prob *p, const struct sa_tree *init, struct sa_tree *best,
		       struct sa_good *good, double *init_cost, struct gb_sa_schedule *sch)
{
	struct sa_tree *cur = &p->cur, *nw = &p->nw, tmp;
	double cur_cost, best_cost, temp = GB_SA_T0;
	int cur_far, new_far, k = p->k;
	const double stop_accepts = GB_SA_ACCEPT_STOP * GB_SA_ITERS;
	long evals0 = p->evals;
	struct gb_sa_temp_stats *ts = NULL;

	if (init != cur)
		sa_tree_copy(cur, init, k);
	cur_cost = sa_eval(p, cur, &cur_far);
	if (init_cost)
		*init_cost = cur_cost;
	sa_tree_copy(best, cur, k);
	best_cost = cur_cost;
	sa_good_offer(good, cur, cur_cost);

	if (sch) {
		memset(sch, 0, sizeof(*sch));
		sch->stop = GB_SA_STOP_MINTEMP;
	}
	while (temp > GB_SA_TMIN) {
		int accepts = 0, best_found = 0;

		if (sch) {
			ts = sch->ntemps < GB_SA_MAX_TEMPS ? &sch->t[sch->ntemps++] : NULL;
			if (ts)
				ts->temp = temp;
		}
		for (int it = 0; it < GB_SA_ITERS; it++) {
			double new_cost;

			if (sa_out_of_time(p)) {
				if (sch)
					sch->stop = GB_SA_STOP_DEADLINE;
				goto out;
			}
			sa_transform(p, cur, cur_far, nw);
			new_cost = sa_eval(p, nw, &new_far);
			if (ts)
				ts->tries++;
			sa_good_offer(good, nw, new_cost);
			if (new_cost < best_cost) {
				sa_tree_copy(best, nw, k);
				best_cost = new_cost;
				tmp = *cur;
				*cur = *nw;
				*nw = tmp;
				cur_cost = new_cost;
				cur_far = new_far;
				accepts++;
				best_found = 1;
			} else {
				double diff = (new_cost - cur_cost) / GB_SA_COST_UNIT;
				double rnd = gb_rng_uniform(p->rng);

				if (rnd < exp(-diff / (GB_SA_BOLTZMANN * temp))) {
					if (ts && diff > 0)
						ts->uphill++;
					tmp = *cur;
					*cur = *nw;
					*nw = tmp;
					cur_cost = new_cost;
					cur_far = new_far;
					accepts++;
				}
			}
			if (ts) {
				ts->accepts = accepts;
				ts->best_found = best_found;
			}
			if (accepts == GB_SA_ACCEPT_BREAK)
				break;
		}
		if (accepts <= stop_accepts && !best_found) {
			if (sch)
				sch->stop = GB_SA_STOP_FROZEN;
			break;
		}
		temp *= GB_SA_FACTOR;
	}
out:
	if (sch)
		sch->evaluations = p->evals - evals0;
	return best_cost;
}

/* ------------------------------------------------------------------ */
/* driverSA (Fig. 2)                                                   */
/* ------------------------------------------------------------------ */

static void sa_trace(struct gb_sa_stats *st, double t, enum gb_sa_phase ph, double cost,
		     double best)
{
	if (st && st->trace)
		st->trace(st->trace_ctx, t, ph, cost, best);
}

/* The node sets that need no annealing: see the header comment. */
static int sa_trivial(struct sa_prob *p, struct sa_tree *best, double *best_cost)
{
	int far;

	if (p->k > 2)
		return 0;
	if (p->k == 1 || p->fixed_root >= 0) {
		int r = p->k == 1 ? 0 : p->fixed_root;

		sa_tree_clear(best, p->k, r);
		if (p->k == 2)
			sa_attach(best, 1 - r, r, 0);
		*best_cost = sa_eval(p, best, &far);
		return 1;
	}
	double c[2];

	for (int r = 0; r < 2; r++) {
		sa_tree_clear(&p->nw, 2, r);
		sa_attach(&p->nw, 1 - r, r, 0);
		c[r] = sa_eval(p, &p->nw, &far);
	}
	int r = c[1] < c[0] ? 1 : 0;

	sa_tree_clear(best, 2, r);
	sa_attach(best, 1 - r, r, 0);
	*best_cost = c[r];
	return 1;
}

/*
 * driverSA over the node set of @p with time budget @td (<= 0: none).
 * @good is a good list sized for p->k (left frozen as of the switch).
 */
static int sa_driver(struct sa_prob *p, double td, struct sa_tree *best, double *best_cost,
		     struct gb_sa_stats *st, struct sa_good *good)
{
	double t0 = gb_now(), cost, ic;
	int rcount = 0, fcount = 0, k = p->k;

	p->deadline = td > 0 ? t0 + td : 0;
	p->timed_out = 0;
	*best_cost = INFINITY;
	if (sa_trivial(p, best, best_cost)) {
		if (st && st->initial_cost == 0)
			st->initial_cost = *best_cost;
		return 0;
	}
	sa_good_reset(good, t0);

	/* Randomization phase, Fig. 2 lines 3-19. */
	for (;;) {
		sa_random_tree(p, &p->init);
		cost = sa_basic(p, &p->init, &p->out, good, &ic, NULL);
		if (st && rcount == 0 && st->random_invocations == 0)
			st->initial_cost = ic;
		rcount++;
		if (cost < *best_cost) {
			sa_tree_copy(best, &p->out, k);
			*best_cost = cost;
		}
		double now = gb_now();

		sa_trace(st, now - t0, GB_SA_RANDOM, cost, *best_cost);
		if (td <= 0) {
			if (rcount == GB_SA_RANDOM_INVOC)
				break;
		} else {
			double remaining = td - (now - t0);
			double last = now - good->t_best;

			if (last >= GB_SA_SWITCH_RATIO * remaining)
				break;
		}
	}
	if (st) {
		st->random_invocations += rcount;
		st->switch_s = gb_now() - t0;
	}

	/* Refinement phase, lines 20-35: good_list frozen, in cost order. */
	sa_good_sort(good);
	for (int i = 0; good->n > 0; i = (i + 1) % good->n) {
		sa_good_get(good, i, &p->init);
		cost = sa_basic(p, &p->init, &p->out, NULL, NULL, NULL);
		fcount++;
		if (cost < *best_cost) {
			sa_tree_copy(best, &p->out, k);
			*best_cost = cost;
		}
		double now = gb_now();

		sa_trace(st, now - t0, GB_SA_REFINE, cost, *best_cost);
		if (td <= 0) {
			if (fcount == GB_SA_REFINE_INVOC)
				break;
		} else if (now - t0 >= td) {
			break;
		}
	}
	if (st) {
		st->refine_invocations += fcount;
		if (p->timed_out)
			st->timed_out = 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Conversions and the public entry points                             */
/* ------------------------------------------------------------------ */

/* Cost model to optimise: NULL (built-in Mateescu) or a registry entry. */
static int sa_model(const char *name, const char *def, const struct gb_costmodel **cm)
{
	const struct gb_costmodel *c = gb_costmodel_find(name ? name : def);

	if (!c)
		return -EINVAL;
	*cm = strcmp(c->name, "mateescu") == 0 ? NULL : c;
	return 0;
}

static int sa_to_gb(const struct sa_tree *t, int k, struct gb_tree *out)
{
	double *order = malloc(sizeof(double) * (size_t)(k > 0 ? k : 1));
	int ret;

	if (!order)
		return -ENOMEM;
	for (int v = 0; v < k; v++) {
		int i = 0;

		for (int c = t->first[v]; c >= 0; c = t->next[c])
			order[c] = i++;
	}
	order[t->root] = 0;
	out->root = t->root;
	ret = gb_tree_from_parents(out, t->parent, order);
	free(order);
	return ret;
}

static void sa_from_gb(const struct gb_tree *g, struct sa_tree *t)
{
	sa_tree_clear(t, g->n, g->root);
	for (int v = 0; v < g->n; v++) {
		t->parent[v] = g->parent[v];
		for (int i = g->nchild[v] - 1; i >= 0; i--) {
			int c = g->child[g->cstart[v] + i];

			t->next[c] = t->first[v];
			t->first[v] = c;
		}
	}
}

static int sa_check_args(const struct gb_netmodel *m, const struct gb_plan_args *a,
			 const struct gb_tree *out)
{
	if (!m || !a || !out || m->n < 1 || a->root < 0 || a->root >= m->n || !(a->size >= 0))
		return -EINVAL;
	if (out->n != m->n || !out->parent)
		return -EINVAL;
	return 0;
}

void gb_sa_goodlist_release(struct gb_sa_goodlist *g)
{
	if (!g)
		return;
	for (int i = 0; g->trees && i < g->n; i++)
		gb_tree_release(&g->trees[i]);
	free(g->trees);
	free(g->cost);
	g->trees = NULL;
	g->cost = NULL;
	g->n = 0;
}

int gb_sa_basic(const struct gb_netmodel *m, const struct gb_plan_args *a,
		const struct gb_tree *initial, struct gb_tree *out, struct gb_sa_stats *st)
{
	struct sa_prob p = { 0 };
	struct sa_good good = { 0 };
	const struct gb_costmodel *cm;
	struct gb_rng rng;
	double t0 = gb_now(), cost, ic;
	int ret;

	ret = sa_check_args(m, a, out);
	if (ret < 0)
		return ret;
	if (!initial || initial->n != m->n || initial->root != a->root ||
	    gb_tree_check(initial, NULL, 0) < 0)
		return -EINVAL;
	ret = sa_model(a->model, "mateescu", &cm);
	if (ret < 0)
		return ret;
	gb_rng_seed(&rng, a->seed);
	ret = sa_prob_init(&p, m, NULL, m->n, a->root, a->size, cm, &rng);
	if (ret < 0)
		goto cleanup;
	ret = sa_good_init(&good, m->n, GB_SA_GOOD_MAX);
	if (ret < 0)
		goto cleanup;
	sa_good_reset(&good, t0);
	p.deadline = a->budget_s > 0 ? t0 + a->budget_s : 0;
	sa_from_gb(initial, &p.init);
	cost = sa_basic(&p, &p.init, &p.out, &good, &ic, st ? st->schedule : NULL);
	ret = sa_to_gb(&p.out, m->n, out);
	if (st) {
		st->initial_cost = ic;
		st->best_cost = cost;
		st->evaluations += p.evals;
		st->timed_out = p.timed_out;
		st->elapsed_s = gb_now() - t0;
	}
cleanup:
	sa_good_release(&good);
	sa_prob_release(&p);
	return ret;
}

static int sa_goodlist_export(const struct sa_good *g, struct gb_sa_goodlist *out,
			      struct sa_prob *p)
{
	int ret = 0;

	out->n = 0;
	out->trees = calloc((size_t)(g->n > 0 ? g->n : 1), sizeof(*out->trees));
	out->cost = calloc((size_t)(g->n > 0 ? g->n : 1), sizeof(*out->cost));
	if (!out->trees || !out->cost) {
		gb_sa_goodlist_release(out);
		return -ENOMEM;
	}
	for (int i = 0; i < g->n; i++) {
		sa_good_get(g, i, &p->nw);
		ret = gb_tree_init(&out->trees[i], g->k, p->nw.root);
		if (ret < 0)
			break;
		out->n++;
		ret = sa_to_gb(&p->nw, g->k, &out->trees[i]);
		if (ret < 0)
			break;
		out->cost[i] = g->cost[i];
	}
	if (ret < 0)
		gb_sa_goodlist_release(out);
	return ret;
}

int gb_sa_driver(const struct gb_netmodel *m, const struct gb_plan_args *a,
		 struct gb_tree *out, struct gb_sa_stats *st, struct gb_sa_goodlist *goodout)
{
	struct sa_prob p = { 0 };
	struct sa_good good = { 0 };
	struct sa_tree best = { 0 };
	const struct gb_costmodel *cm;
	struct gb_rng rng;
	double t0 = gb_now(), cost;
	int ret;

	ret = sa_check_args(m, a, out);
	if (ret < 0)
		return ret;
	ret = sa_model(a->model, "mateescu", &cm);
	if (ret < 0)
		return ret;
	gb_rng_seed(&rng, a->seed);
	ret = sa_prob_init(&p, m, NULL, m->n, a->root, a->size, cm, &rng);
	if (ret < 0)
		goto cleanup;
	ret = sa_good_init(&good, m->n, GB_SA_GOOD_MAX);
	if (ret < 0)
		goto cleanup;
	ret = sa_tree_alloc(&best, m->n);
	if (ret < 0)
		goto cleanup;
	/* The budget counts from our entry: subtract the set-up time. */
	double td = a->budget_s > 0 ? a->budget_s - (gb_now() - t0) : 0;

	if (a->budget_s > 0 && td <= 0)
		td = 1e-9;
	ret = sa_driver(&p, td, &best, &cost, st, &good);
	if (ret < 0)
		goto cleanup;
	ret = sa_to_gb(&best, m->n, out);
	if (ret < 0)
		goto cleanup;
	if (goodout)
		ret = sa_goodlist_export(&good, goodout, &p);
	if (st) {
		st->best_cost = cost;
		st->evaluations += p.evals;
		st->driver_runs++;
		st->elapsed_s = gb_now() - t0;
	}
cleanup:
	sa_tree_free(&best);
	sa_good_release(&good);
	sa_prob_release(&p);
	return ret;
}

/* ------------------------------------------------------------------ */
/* clusteredSA (Fig. 4)                                                */
/* ------------------------------------------------------------------ */

/*
 * Memo of driverSA results within one clusteredSA run.  Different pool sets
 * (percentages, recursion levels) often contain the very same pool: the same
 * nodes with the same fixed root are the same driverSA problem, so it is
 * solved once and its tree reused.  This changes no result's distribution,
 * keeps runs deterministic, and spends the budget on distinct problems.
 */
struct cl_memo_ent {
	uint64_t h;
	int k, root;            /* root: fixed local root or -1 */
	int *mem;               /* model nodes; NULL marks an empty slot */
	struct sa_tree t;       /* t.parent NULL until solved */
	double cost;
};

struct cl_memo {
	struct cl_memo_ent *e;  /* open addressing, cap a power of two */
	size_t cap, n;
};

static void cl_memo_free(struct cl_memo *mm)
{
	for (size_t i = 0; i < mm->cap; i++) {
		free(mm->e[i].mem);
		sa_tree_free(&mm->e[i].t);
	}
	free(mm->e);
	memset(mm, 0, sizeof(*mm));
}

static uint64_t cl_key(const int *nodes, int k, int root)
{
	uint64_t h = sa_mix(((uint64_t)(uint32_t)k << 32) ^ (uint32_t)root);

	for (int i = 0; i < k; i++)
		h = sa_mix(h ^ (uint64_t)(uint32_t)nodes[i]) + (uint64_t)i;
	return h;
}

/* The entry of (nodes, root), created if new (*isnew = 1); NULL: no memory.
 * The pointer is valid until the next cl_memo_get(). */
static struct cl_memo_ent *cl_memo_get(struct cl_memo *mm, const int *nodes, int k, int root,
				       int *isnew)
{
	uint64_t h = cl_key(nodes, k, root);
	size_t i;

	if ((mm->n + 1) * 2 > mm->cap) {
		size_t ncap = mm->cap ? mm->cap * 2 : 64;
		struct cl_memo_ent *ne = calloc(ncap, sizeof(*ne));

		if (!ne)
			return NULL;
		for (size_t j = 0; j < mm->cap; j++) {
			if (!mm->e[j].mem)
				continue;
			for (i = mm->e[j].h & (ncap - 1); ne[i].mem; i = (i + 1) & (ncap - 1))
				;
			ne[i] = mm->e[j];
		}
		free(mm->e);
		mm->e = ne;
		mm->cap = ncap;
	}
	for (i = h & (mm->cap - 1); mm->e[i].mem; i = (i + 1) & (mm->cap - 1)) {
		struct cl_memo_ent *e = &mm->e[i];

		if (e->h == h && e->k == k && e->root == root &&
		    memcmp(e->mem, nodes, sizeof(int) * (size_t)k) == 0) {
			*isnew = 0;
			return e;
		}
	}
	mm->e[i].mem = malloc(sizeof(int) * (size_t)k);
	if (!mm->e[i].mem)
		return NULL;
	memcpy(mm->e[i].mem, nodes, sizeof(int) * (size_t)k);
	mm->e[i].h = h;
	mm->e[i].k = k;
	mm->e[i].root = root;
	mm->n++;
	*isnew = 1;
	return &mm->e[i];
}

/* A pool set: pool[i] is the pool of local node i, pools numbered in order
 * of their first member. */
struct cl_set {
	int npools;
	double percent;
	int *pool;
};

struct cl_run {
	const struct gb_netmodel *m;
	double size;
	const struct gb_costmodel *cm;
	struct gb_rng rng;
	double deadline;        /* 0 = no budget */
	int planned, done;
	struct gb_sa_stats *st;
	struct cl_memo memo;    /* solved pools */
	struct cl_set top[4];   /* the pool sets of all nodes, formed once */
	int ntop;
	double percent;         /* the top-level set of the best tree so far */
	int mpichg2;            /* MPICH-G2's tree is the best */
};

static void cl_sets_free(struct cl_set *s, int n)
{
	for (int i = 0; i < n; i++) {
		free(s[i].pool);
		s[i].pool = NULL;
	}
}

static int cl_max_pool(const struct cl_set *s, int k, int *count)
{
	int max = 0;

	memset(count, 0, sizeof(int) * (size_t)s->npools);
	for (int i = 0; i < k; i++)
		count[s->pool[i]]++;
	for (int j = 0; j < s->npools; j++)
		if (count[j] > max)
			max = count[j];
	return max;
}

/*
 * Fig. 4 lines 7-11 (header comment, "Choices"): the four pool sets of
 * nodes[0..k-1], uncapped; those that divide nothing (one pool, or every
 * pool a single node) and repeats dropped; then line 11, unless it would
 * leave no set ("proceeds with the 4 pool sets", §2.4).  Fills sets[0..3];
 * returns how many were kept (0: no set divides), or -errno.
 */
static int cl_form_sets(const struct gb_netmodel *m, const int *nodes, int k,
			struct cl_set sets[4])
{
	static const double percents[4] = { 10, 25, 50, 75 };
	int *count = malloc(sizeof(int) * (size_t)k);
	int nsets = 0, nsmall = 0, ret;
	int small[4] = { 0 };
	double maxbw;

	if (!count)
		return -ENOMEM;
	ret = gb_pools_maxbw(m, nodes, k, &maxbw);
	for (int q = 0; q < 4 && ret >= 0; q++) {
		struct cl_set s = { 0 };
		int dup = 0;

		s.pool = malloc(sizeof(int) * (size_t)k);
		if (!s.pool) {
			ret = -ENOMEM;
			break;
		}
		ret = gb_pools_form_max(m, nodes, k, percents[q], maxbw, 0, s.pool);
		if (ret < 0) {
			free(s.pool);
			break;
		}
		s.npools = ret;
		s.percent = percents[q];
		for (int i = 0; i < nsets && !dup; i++)
			dup = sets[i].npools == s.npools &&
			      memcmp(sets[i].pool, s.pool, sizeof(int) * (size_t)k) == 0;
		if (dup || s.npools < 2 || s.npools >= k) {
			free(s.pool);
			continue;
		}
		small[nsets] = cl_max_pool(&s, k, count) <= GB_SA_POOL_MAX;
		nsmall += small[nsets];
		sets[nsets++] = s;
	}
	free(count);
	if (ret < 0) {
		cl_sets_free(sets, nsets);
		return ret;
	}
	/* Line 11, only if some set survives it. */
	if (nsmall > 0 && nsmall < nsets) {
		int w = 0;

		for (int i = 0; i < nsets; i++) {
			if (small[i])
				sets[w++] = sets[i];
			else
				free(sets[i].pool);
		}
		nsets = w;
	}
	return nsets;
}

/* The pool sets of nodes[0..k-1]: the cached ones for the whole model. */
static int cl_sets(struct cl_run *r, const int *nodes, int k, struct cl_set sets[4], int *owned)
{
	*owned = k != r->m->n;
	if (!*owned) {
		memcpy(sets, r->top, sizeof(r->top));
		return r->ntop;
	}
	return cl_form_sets(r->m, nodes, k, sets);
}

/*
 * The members of every pool, grouped: pool j is order[start[j] ..
 * start[j+1]-1], local indices increasing.  @start has npools + 1 entries.
 */
static void cl_csr(const struct cl_set *s, int k, int *start, int *order)
{
	memset(start, 0, sizeof(int) * (size_t)(s->npools + 1));
	for (int i = 0; i < k; i++)
		start[s->pool[i] + 1]++;
	for (int j = 0; j < s->npools; j++)
		start[j + 1] += start[j];
	for (int i = 0; i < k; i++)
		order[start[s->pool[i]]++] = i;
	for (int j = s->npools; j > 0; j--)
		start[j] = start[j - 1];
	start[0] = 0;
}

static void cl_sort_ints(int *a, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
			int t = a[j];

			a[j] = a[j - 1];
			a[j - 1] = t;
		}
}

static int cl_cmp_int(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	return (a > b) - (a < b);
}

/*
 * Fig. 4 line 2: the number of distinct driverSA runs a clusteredSA over
 * nodes[0..k-1] will make, taking the first node of a pool as its root.
 */
static int cl_count(struct cl_run *r, struct cl_memo *seen, const int *nodes, int k, int root)
{
	struct cl_set sets[4];
	int nsets, total = 0, owned = 1, isnew;
	int *start = NULL, *order = NULL, *pn = NULL;

	if (k <= GB_SA_POOL_MAX) {
		if (k < 2 || !cl_memo_get(seen, nodes, k, root, &isnew))
			return k >= 2;
		return isnew;
	}
	nsets = cl_sets(r, nodes, k, sets, &owned);
	if (nsets <= 0)
		return cl_memo_get(seen, nodes, k, root, &isnew) ? isnew : 1;
	start = malloc(sizeof(int) * (size_t)(k + 1));
	order = malloc(sizeof(int) * (size_t)k);
	pn = malloc(sizeof(int) * (size_t)k);
	if (!start || !order || !pn) {
		total = 1;
		goto cleanup;
	}
	for (int s = 0; s < nsets; s++) {
		int np = sets[s].npools, rroot = 0;

		cl_csr(&sets[s], k, start, order);
		for (int j = 0; j < np; j++) {
			const int *mem = order + start[j];
			int c = start[j + 1] - start[j], pr = -1;

			for (int q = 0; q < c; q++) {
				if (mem[q] == root)
					pr = q;
				pn[q] = nodes[mem[q]];
			}
			/* A pool over 16 nodes is a clusteredSA of its own. */
			total += cl_count(r, seen, pn, c, pr);
		}
		/* The roots: the root for its pool, the first member elsewhere. */
		for (int j = 0; j < np; j++)
			pn[j] = root >= 0 && sets[s].pool[root] == j ? root : order[start[j]];
		if (np > 1024)
			qsort(pn, (size_t)np, sizeof(int), cl_cmp_int);
		else
			cl_sort_ints(pn, np);
		rroot = -1;
		for (int i = 0; i < np; i++) {
			if (pn[i] == root)
				rroot = i;
			pn[i] = nodes[pn[i]];
		}
		if (np > 1)
			total += cl_count(r, seen, pn, np, rroot);
	}
cleanup:
	if (owned)
		cl_sets_free(sets, nsets);
	free(start);
	free(order);
	free(pn);
	return total;
}

/* One driverSA run on nodes[0..k-1] with its share of the budget, or the
 * memo's answer when the same problem was solved before. */
static int cl_driver(struct cl_run *r, const int *nodes, int k, int root, struct sa_tree *out,
		     double *cost)
{
	struct sa_prob p;
	struct sa_good good = { 0 };
	struct cl_memo_ent *e;
	double td = 0;
	int ret, isnew;

	e = cl_memo_get(&r->memo, nodes, k, root, &isnew);
	if (!e)
		return -ENOMEM;
	if (!isnew && e->t.parent) {
		sa_tree_copy(out, &e->t, k);
		*cost = e->cost;
		return 0;
	}
	ret = sa_prob_init(&p, r->m, nodes, k, root, r->size, r->cm, &r->rng);
	if (ret < 0)
		return ret;
	ret = sa_good_init(&good, k, GB_SA_GOOD_MAX);
	if (ret < 0)
		goto cleanup;
	if (r->deadline > 0) {
		int left = r->planned - r->done;

		td = (r->deadline - gb_now()) / (left > 1 ? left : 1);
		if (td <= 0)
			td = 1e-9;
	}
	ret = sa_driver(&p, td, out, cost, r->st, &good);
	if (ret < 0)
		goto cleanup;
	if (k >= 2)
		r->done++;
	if (r->st) {
		r->st->evaluations += p.evals;
		r->st->driver_runs++;
	}
	/* No cl_memo_get() since e was found: the pointer is still good. */
	ret = sa_tree_alloc(&e->t, k);
	if (ret < 0)
		goto cleanup;
	sa_tree_copy(&e->t, out, k);
	e->cost = *cost;
cleanup:
	sa_good_release(&good);
	sa_prob_release(&p);
	return ret;
}

/*
 * Lines 36-39: the pool roots rnodes[] (level-local) take their wide-area
 * children from @ntree (over the roots) either before (@wan_first) or after
 * their pool children in @cand.  Result in @comb.
 */
static void cl_combine(const struct sa_tree *cand, const struct sa_tree *ntree,
		       const int *rnodes, int nr, int k, int root, int wan_first,
		       struct sa_tree *comb)
{
	sa_tree_copy(comb, cand, k);
	comb->root = root;
	for (int i = 0; i < nr; i++) {
		int v = rnodes[i], wan = -1, last = -1;

		comb->parent[v] = ntree->parent[i] >= 0 ? rnodes[ntree->parent[i]] : -1;
		for (int c = ntree->first[i]; c >= 0; c = ntree->next[c]) {
			int w = rnodes[c];

			if (last < 0)
				wan = w;
			else
				comb->next[last] = w;
			last = w;
		}
		if (last < 0)
			continue;
		if (wan_first) {
			comb->next[last] = comb->first[v];
			comb->first[v] = wan;
		} else {
			comb->next[last] = -1;
			sa_append_chain(comb, v, wan);
		}
	}
}

/*
 * clusteredSA over nodes[0..k-1] (model indices, increasing) with the
 * broadcast root at local index @root; @out is a tree over the local
 * indices.  Returns 0 or -errno; *cost is out's cost on this node set.
 */
static int cl_clustered(struct cl_run *r, const int *nodes, int k, int root,
			struct sa_tree *out, double *cost)
{
	struct cl_set sets[4];
	struct sa_prob lvl = { 0 };
	struct sa_tree cand = { 0 }, ntree = { 0 }, ptree = { 0 }, comb = { 0 };
	int *start = NULL, *order = NULL, *pnodes = NULL, *rnodes = NULL;
	int nsets = 0, ret = 0, far, owned = 1;

	/* Lines 4-6. */
	if (k <= GB_SA_POOL_MAX)
		return cl_driver(r, nodes, k, root, out, cost);
	nsets = cl_sets(r, nodes, k, sets, &owned);
	if (nsets < 0)
		return nsets;
	if (nsets == 0)
		return cl_driver(r, nodes, k, root, out, cost);
	if (r->st)
		r->st->pool_sets += nsets;

	ret = -ENOMEM;
	start = malloc(sizeof(int) * (size_t)(k + 1));
	order = malloc(sizeof(int) * (size_t)k);
	pnodes = malloc(sizeof(int) * (size_t)k);
	rnodes = malloc(sizeof(int) * (size_t)k);
	if (!start || !order || !pnodes || !rnodes)
		goto cleanup;
	if (sa_tree_alloc(&cand, k) || sa_tree_alloc(&ntree, k) || sa_tree_alloc(&ptree, k) ||
	    sa_tree_alloc(&comb, k))
		goto cleanup;
	/* Combined trees are evaluated over the whole node set (lines 37-39). */
	ret = sa_prob_init(&lvl, r->m, nodes, k, root, r->size, r->cm, &r->rng);
	if (ret < 0)
		goto cleanup;

	*cost = INFINITY;
	for (int s = 0; s < nsets; s++) {
		const struct cl_set *ps = &sets[s];
		int np = ps->npools, nr = 0, rroot = -1;
		double pc, nc;

		/* Lines 13-23: driverSA in every pool. */
		sa_tree_clear(&cand, k, root);
		cl_csr(ps, k, start, order);
		for (int j = 0; j < np; j++) {
			const int *mem = order + start[j];
			int c = start[j + 1] - start[j], proot = -1;

			for (int i = 0; i < c; i++) {
				pnodes[i] = nodes[mem[i]];
				if (mem[i] == root)
					proot = i;
			}
			/* Line 17; for a pool over 16 nodes (only in the
			 * fallback of line 11) clusteredSA, which is driverSA
			 * itself up to 16 (lines 4-6): header comment. */
			ret = cl_clustered(r, pnodes, c, proot, &ptree, &pc);
			if (ret < 0)
				goto cleanup;
			/* Pool-local -> level-local. */
			for (int i = 0; i < c; i++) {
				int v = mem[i];

				cand.parent[v] = ptree.parent[i] >= 0 ? mem[ptree.parent[i]] : -1;
				cand.first[v] = ptree.first[i] >= 0 ? mem[ptree.first[i]] : -1;
				cand.next[v] = ptree.next[i] >= 0 ? mem[ptree.next[i]] : -1;
			}
			rnodes[j] = mem[ptree.root];
		}
		{
			/* Lines 27-35: clusteredSA over the pool roots, in
			 * increasing order (so, model order). */
			nr = np;
			if (nr > 1024)
				qsort(rnodes, (size_t)nr, sizeof(int), cl_cmp_int);
			else
				cl_sort_ints(rnodes, nr);
			for (int i = 0; i < nr; i++)
				if (rnodes[i] == root)
					rroot = i;
			if (root >= 0 && rroot < 0) {
				ret = -EPROTO;  /* the root's pool is rooted at the root */
				goto cleanup;
			}
			for (int i = 0; i < nr; i++)
				pnodes[i] = nodes[rnodes[i]];
			ret = cl_clustered(r, pnodes, nr, rroot, &ntree, &nc);
			if (ret < 0)
				goto cleanup;
			/* Lines 36-39: both send orders at the pool roots.  An
			 * unrooted set (a pool over 16 nodes without the
			 * broadcast root) is rooted where the roots' tree is. */
			int troot = root >= 0 ? root : rnodes[ntree.root];

			cl_combine(&cand, &ntree, rnodes, nr, k, troot, 1, &comb);
			pc = sa_eval(&lvl, &comb, &far);
			cl_combine(&cand, &ntree, rnodes, nr, k, troot, 0, &ptree);
			nc = sa_eval(&lvl, &ptree, &far);
			if (nc < pc) {
				pc = nc;
				sa_tree_copy(&comb, &ptree, k);
			}
		}
		if (pc < *cost || s == 0) {
			*cost = pc;
			sa_tree_copy(out, &comb, k);
			if (k == r->m->n)
				r->percent = ps->percent;
		}
	}
	ret = 0;
	if (r->st)
		r->st->evaluations += lvl.evals;
cleanup:
	if (owned)
		cl_sets_free(sets, nsets);
	sa_prob_release(&lvl);
	sa_tree_free(&cand);
	sa_tree_free(&ntree);
	sa_tree_free(&ptree);
	sa_tree_free(&comb);
	free(start);
	free(order);
	free(pnodes);
	free(rnodes);
	return ret;
}

/*
 * MPICH-G2's tree as one more candidate of line 39 (header comment,
 * "Never worse than MPICH-G2"): @best becomes it if it costs less under
 * the optimised model.  Needs only the model's sites and clusters.
 */
static int cl_keep_mpichg2(struct cl_run *r, const struct gb_plan_args *a, struct sa_tree *best,
			   double *cost)
{
	const struct gb_netmodel *m = r->m;
	struct sa_prob p = { 0 };
	struct gb_tree g2 = { 0 };
	double c2;
	int ret, far;

	if (m->nsites < 1 || m->nclusters < 1)
		return 0;
	ret = gb_tree_init(&g2, m->n, a->root);
	if (ret < 0)
		return ret;
	ret = gb_plan_mpichg2(m, a, &g2);
	if (ret < 0)
		goto cleanup;
	ret = sa_prob_init(&p, m, NULL, m->n, a->root, r->size, r->cm, &r->rng);
	if (ret < 0)
		goto cleanup;
	sa_from_gb(&g2, &p.init);
	c2 = sa_eval(&p, &p.init, &far);
	if (r->st)
		r->st->evaluations += p.evals;
	if (c2 < *cost) {
		sa_tree_copy(best, &p.init, m->n);
		*cost = c2;
		r->mpichg2 = 1;
		r->percent = 0;
	}
cleanup:
	sa_prob_release(&p);
	gb_tree_release(&g2);
	return ret;
}

static int sa_clustered_model(const struct gb_netmodel *m, const struct gb_plan_args *a,
			      const char *defmodel, struct gb_tree *out, struct gb_sa_stats *st)
{
	struct cl_run r = { 0 };
	struct cl_memo seen = { 0 };
	struct sa_tree best = { 0 };
	int *nodes = NULL;
	double t0 = gb_now(), cost;
	int ret;

	ret = sa_check_args(m, a, out);
	if (ret < 0)
		return ret;
	ret = sa_model(a->model, defmodel, &r.cm);
	if (ret < 0)
		return ret;
	r.m = m;
	r.size = a->size;
	r.st = st;
	r.deadline = a->budget_s > 0 ? t0 + a->budget_s : 0;
	gb_rng_seed(&r.rng, a->seed);

	ret = -ENOMEM;
	nodes = malloc(sizeof(int) * (size_t)m->n);
	if (!nodes || sa_tree_alloc(&best, m->n))
		goto cleanup;
	for (int i = 0; i < m->n; i++)
		nodes[i] = i;
	r.ntop = 0;
	if (m->n > GB_SA_POOL_MAX) {
		ret = cl_form_sets(m, nodes, m->n, r.top);
		if (ret < 0)
			goto cleanup;
		r.ntop = ret;
	}
	r.planned = cl_count(&r, &seen, nodes, m->n, a->root);
	ret = cl_clustered(&r, nodes, m->n, a->root, &best, &cost);
	if (ret < 0)
		goto cleanup;
	ret = cl_keep_mpichg2(&r, a, &best, &cost);
	if (ret < 0)
		goto cleanup;
	ret = sa_to_gb(&best, m->n, out);
	if (st) {
		st->best_cost = cost;
		st->planned_runs = r.planned;
		st->pool_percent = r.percent;
		st->mpichg2 = r.mpichg2;
		st->elapsed_s = gb_now() - t0;
	}
cleanup:
	cl_sets_free(r.top, r.ntop);
	cl_memo_free(&r.memo);
	cl_memo_free(&seen);
	sa_tree_free(&best);
	free(nodes);
	return ret;
}

int gb_sa_clustered(const struct gb_netmodel *m, const struct gb_plan_args *a,
		    struct gb_tree *out, struct gb_sa_stats *st)
{
	return sa_clustered_model(m, a, "mateescu", out, st);
}

/* ------------------------------------------------------------------ */
/* Registry entries (planners.c)                                       */
/* ------------------------------------------------------------------ */

int gb_plan_sa(const struct gb_netmodel *m, const struct gb_plan_args *a, struct gb_tree *out)
{
	return gb_sa_driver(m, a, out, NULL, NULL);
}

int gb_plan_clustered_sa(const struct gb_netmodel *m, const struct gb_plan_args *a,
			 struct gb_tree *out)
{
	return sa_clustered_model(m, a, "mateescu", out, NULL);
}

int gb_plan_sa_contention(const struct gb_netmodel *m, const struct gb_plan_args *a,
			  struct gb_tree *out)
{
	return sa_clustered_model(m, a, "contention", out, NULL);
}
