// SPDX-License-Identifier: MIT
/*
 * plan_sa_clustered.c - clusteredSA of seed 000 (Gupta & Vadhiyar), Fig. 4,
 * over driverSA (plan_sa.c) and the pools of §2.4 (sa_pools.c); registered
 * as "clustered-sa" and "sa-contention" (the same optimising our contention
 * model instead of Mateescu's; not in the paper).
 *
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
#include "sa_impl.h"

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
