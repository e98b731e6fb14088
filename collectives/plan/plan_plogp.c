// SPDX-License-Identifier: MIT
/*
 * plan_plogp.c - the pLogP family of grid broadcast heuristics: ECEF,
 * ECEF-LA, ECEF-LAt, ECEF-LAT, BottomUp and MostCrit (Fkaier, Cérin,
 * Steffenel, Jemni, "A new heuristic for broadcasting in clusters of
 * clusters", seed 002 §3.2-§4.1).
 *
 * The model (seed 002 §2.1, §3.3) is a struct gb_clmodel: every cluster has
 * a coordinator; the wide-area broadcast runs between coordinators under
 * pLogP, one-port:
 *
 *   coordinator i, free at RT_i, sends to j:   j has the message at
 *                                              RT_i + g_ij(m) + L_ij,
 *                                              i is free again at RT_i + g_ij(m)
 *
 * and each coordinator then broadcasts in its cluster, which takes T_j.  The
 * paper's objective is max_j (arrival_j + T_j).
 *
 * All six heuristics are one greedy loop over the sets A (clusters that have
 * the message) and B (the others), and differ only in the rule that picks
 * the next receiver j in B:
 *
 *   A = {root}, RT_root = 0
 *   while B is not empty:
 *       for j in B: best_j = min_{i in A} RT_i + g_ij + L_ij,  i_j = its argmin
 *       pick j by the heuristic's rule (table below), i = i_j
 *       arrival_j = RT_i + g_ij + L_ij;  RT_i += g_ij;  RT_j = arrival_j
 *       move j from B to A
 *
 *   heuristic      rule                                  F_j, over k in B \ {j}
 *   ecef           min best_j                            -
 *   ecef-la        min best_j + F_j                      min_k g_jk + L_jk
 *   ecef-lat-min   min best_j + F_j   (paper: ECEF-LAt)  min_k g_jk + L_jk + T_k
 *   ecef-lat-max   min best_j + F_j   (paper: ECEF-LAT)  max_k g_jk + L_jk + T_k
 *   bottomup       max best_j + T_j                      -
 *   mostcrit       per step, the rule of ecef, ecef-la or bottomup whose set
 *                    E1 = {best_j}, E2 = {best_j + F_j (ecef-la's)},
 *                    E3 = {best_j + T_j},   j in B,
 *                  has the largest mean deviation (§4.1)
 *
 * Because F_j and T_j do not depend on the sender, every rule's sender is
 * i_j, so one structure serves them all: for each j in B an indexed binary
 * heap of the senders in A keyed by RT_i + g_ij + L_ij.  A step raises one
 * key (the sender's RT) and adds one sender in every heap of B: O(k log k)
 * per step, O(k^2 log k) in all, ECEF's bound in the paper (§3.2,
 * O(N^2 log N)).  The look-ahead F_j is the top of a per-j heap of the
 * other clusters, built once in O(k), whose tops are dropped lazily as they
 * leave B: O(k^2 log k) at worst, well under the paper's O(N^4) for
 * ECEF-LA.  The sender costs are stored transposed so that each receiver's
 * heap reads one contiguous row.
 *
 * Choices where the paper is ambiguous:
 *
 *  1. The cluster-level view is gb_clmodel_from_nm() (coll's code, shared
 *     with the plogp cost model): the root coordinates its cluster and the
 *     lowest-index node any other; L and g(m) = gb_nm_gap() (gap_fixed or
 *     o, + m/B) between coordinators; T_j = gb_binomial_time(), the exact
 *     completion time of the MPICH binomial tree that gb_tree_expand() puts
 *     in cluster j, under the same one-port rule.
 *  2. ECEF-LAt and ECEF-LAT select with min(RT_i + g_ij + L_ij + F_j), as
 *     ECEF-LA does (§3.3: "as in ECEF-LA heuristic"), and differ only in F.
 *     Reading "the one that maximizes F" as "select the max F_j" would never
 *     pick the most loaded cluster first (it is not in its own F), the
 *     opposite of the stated intent "choose the coordinator that has the
 *     greatest load"; with F = max, min(best_j + F_j) favours exactly it.
 *  3. F_j ranges over B \ {j} (g_jj is undefined); F_j = 0 when j is the
 *     last cluster of B.
 *  4. BottomUp: the paper writes max_{j in B} min_{i in A} (g_ij + L_ij + T_j)
 *     without RT_i, yet MostCrit's set E3 has RT_i and §4.1 calls factor (3)
 *     "one iteration of BottomUp".  We include RT_i in both: the sender is
 *     the one that reaches j first given what it has already sent, and a
 *     MostCrit factor-(3) step is exactly a BottomUp step.
 *  5. "Mean deviation" is the mean absolute deviation from the mean,
 *     (1/|B|) sum |e - mean(E)|.  Ties between factors go to the lowest
 *     factor number; deviations within 1e-12 (relative) count as ties, so
 *     that rounding cannot decide between E1 and E3 = E1 + const when all T
 *     are equal.  The last step (|B| = 1) has no choice: every factor picks
 *     the same pair, and it is not counted in MostCrit's factor statistics.
 *  6. Ties between receivers, and between senders, go to the lowest cluster
 *     index: the planners are deterministic and need no seed.
 *  7. The node tree (gb_tree_expand()): a coordinator sends to its
 *     wide-area children first, in schedule order, then runs the binomial
 *     in its cluster.  Every coordinator's arrival is then exactly the
 *     schedule's; the price is that cluster j's local broadcast starts
 *     W_j = sum of j's wide-area gaps late, which gb_clmodel_cost(overlap 0)
 *     and gb_cost_plogp() account for.  The paper's objective (overlap 1)
 *     assumes a full overlap that a one-port coordinator cannot do; sending
 *     locally first would instead delay every wide-area subtree.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gbplan.h"
#include "plan_impl.h"

static const char *const heur_names[GB_PLOGP_NHEUR] = {
	[GB_PLOGP_ECEF] = "ecef",
	[GB_PLOGP_ECEF_LA] = "ecef-la",
	[GB_PLOGP_ECEF_LAT_MIN] = "ecef-lat-min",
	[GB_PLOGP_ECEF_LAT_MAX] = "ecef-lat-max",
	[GB_PLOGP_BOTTOMUP] = "bottomup",
	[GB_PLOGP_MOSTCRIT] = "mostcrit",
};

const char *gb_plogp_heur_name(int h)
{
	return h >= 0 && h < GB_PLOGP_NHEUR ? heur_names[h] : NULL;
}

int gb_plogp_heur_find(const char *name)
{
	for (int h = 0; name && h < GB_PLOGP_NHEUR; h++)
		if (strcmp(name, heur_names[h]) == 0)
			return h;
	return -ENOENT;
}

struct fent {
	double key;
	int idx;
};

/* The state of one greedy run over the k clusters of a gb_clmodel. */
struct eng {
	int k;
	int ld;           /* row stride of ct, heap and hpos: k + 8, so that rows of
			   * a power-of-two k do not share cache sets (-18 % L1
			   * misses at k = 128 under cachegrind) */
	int root;
	const double *g;  /* k*k: g_ij */
	const double *T;  /* k */
	double *ct;       /* transposed: ct[j*ld + i] = g_ij + L_ij, so that each
			   * receiver's heap reads one contiguous row */
	double *rt;       /* ready time of each cluster in A */
	int *heap;        /* heap[b*ld + pos]: the senders of A, min RT_i + c_ib on top */
	int *hpos;        /* hpos[b*ld + i]: i's position in b's heap */
	int *hsize;
	char *inb;        /* 1 while in B */
	int *bl, nb;      /* the members of B, unordered */
	int fkind;        /* 0: no F; 1: ECEF-LA's; 2: ECEF-LAt's (min); 3: ECEF-LAT's (max) */
	struct fent *fh;  /* fh[j*(k-1) ..]: j's look-ahead candidates, a binary heap */
	int *fn;          /* its size; dead tops (left B) are popped lazily */
	double *e;        /* 3*k scratch: E1, E2, E3 */
};

static void eng_release(struct eng *E)
{
	free(E->ct);
	free(E->rt);
	free(E->heap);
	free(E->hpos);
	free(E->hsize);
	free(E->inb);
	free(E->bl);
	free(E->fh);
	free(E->fn);
	free(E->e);
	memset(E, 0, sizeof(*E));
}

static inline double hkey(const struct eng *E, int b, int i)
{
	return E->rt[i] + E->ct[(size_t)b * E->ld + i];
}

/* Is sender x strictly better than y for receiver b?  Ties: lower index. */
static inline int hless(const struct eng *E, int b, int x, int y)
{
	double kx = hkey(E, b, x), ky = hkey(E, b, y);

	return kx < ky || (kx == ky && x < y);
}

static void hswap(struct eng *E, int b, int p1, int p2)
{
	int *h = E->heap + (size_t)b * E->ld, *pos = E->hpos + (size_t)b * E->ld;
	int t = h[p1];

	h[p1] = h[p2];
	h[p2] = t;
	pos[h[p1]] = p1;
	pos[h[p2]] = p2;
}

static void hup(struct eng *E, int b, int x)
{
	int *h = E->heap + (size_t)b * E->ld;

	while (x > 0 && hless(E, b, h[x], h[(x - 1) / 2])) {
		hswap(E, b, x, (x - 1) / 2);
		x = (x - 1) / 2;
	}
}

static void hdown(struct eng *E, int b, int x)
{
	int *h = E->heap + (size_t)b * E->ld, n = E->hsize[b];

	for (;;) {
		int l = 2 * x + 1, r = l + 1, s = x;

		if (l < n && hless(E, b, h[l], h[s]))
			s = l;
		if (r < n && hless(E, b, h[r], h[s]))
			s = r;
		if (s == x)
			return;
		hswap(E, b, x, s);
		x = s;
	}
}

static void hinsert(struct eng *E, int b, int i)
{
	int x = E->hsize[b]++;

	E->heap[(size_t)b * E->ld + x] = i;
	E->hpos[(size_t)b * E->ld + i] = x;
	hup(E, b, x);
}

/*
 * The look-ahead F_j = min (or max) over q in B \ {j} of key(j, q).  Each j
 * keeps a binary heap of its k-1 candidates, built in O(k) (max variants
 * store -key); F_j is the top once the tops that left B are popped.  Every
 * candidate is popped at most once: O(k^2 log k) in all, and in practice
 * the O(k^2) of building the heaps.
 */
static inline int fless(const struct fent *a, const struct fent *b)
{
	return a->key < b->key;
}

static void fsift(struct fent *h, int n, int x)
{
	for (;;) {
		int l = 2 * x + 1, r = l + 1, s = x;
		struct fent t;

		if (l < n && fless(&h[l], &h[s]))
			s = l;
		if (r < n && fless(&h[r], &h[s]))
			s = r;
		if (s == x)
			return;
		t = h[x];
		h[x] = h[s];
		h[s] = t;
		x = s;
	}
}

static int fheap_build(struct eng *E)
{
	int k = E->k, w = k - 1;
	double sign = E->fkind == 3 ? -1.0 : 1.0;

	E->fh = malloc((size_t)k * w * sizeof(*E->fh));
	E->fn = malloc((size_t)k * sizeof(int));
	if (!E->fh || !E->fn)
		return -ENOMEM;
	for (int j = 0; j < k; j++) {
		struct fent *h = E->fh + (size_t)j * w;
		int x = 0;

		for (int q = 0; q < k; q++) {
			if (q == j)
				continue;
			h[x].key = sign * (E->ct[(size_t)q * E->ld + j] +
					   (E->fkind >= 2 ? E->T[q] : 0.0));
			h[x++].idx = q;
		}
		for (x = w / 2 - 1; x >= 0; x--)
			fsift(h, w, x);
		E->fn[j] = w;
	}
	return 0;
}

/* F_j over the current B \ {j}; 0 when j is alone in B (choice 3). */
static double flook(struct eng *E, int j)
{
	struct fent *h = E->fh + (size_t)j * (E->k - 1);
	int *n = &E->fn[j];

	while (*n > 0 && !E->inb[h[0].idx]) {
		h[0] = h[--*n];
		fsift(h, *n, 0);
	}
	if (*n == 0)
		return 0.0;
	return E->fkind == 3 ? -h[0].key : h[0].key;
}

static double mean_dev(const double *x, int n)
{
	double mean = 0.0, dev = 0.0;

	for (int a = 0; a < n; a++)
		mean += x[a];
	mean /= n;
	for (int a = 0; a < n; a++)
		dev += fabs(x[a] - mean);
	return dev / n;
}

/* Position in E->bl of the minimum (sign 1) or maximum (sign -1) of v[]. */
static int pick(const struct eng *E, const double *v, int sign)
{
	int best = 0;

	for (int a = 1; a < E->nb; a++) {
		double d = sign * (v[a] - v[best]);

		if (d < 0 || (d == 0 && E->bl[a] < E->bl[best]))
			best = a;
	}
	return best;
}

/*
 * The next receiver, as a position in E->bl.  *factor receives MostCrit's
 * factor (0, 1, 2 for the paper's (1), (2), (3)), else -1.
 */
static int choose(struct eng *E, int h, int *factor)
{
	double *e1 = E->e, *e2 = E->e + E->k, *e3 = E->e + 2 * (size_t)E->k;

	*factor = -1;
	for (int a = 0; a < E->nb; a++) {
		int b = E->bl[a];
		double best = hkey(E, b, E->heap[(size_t)b * E->ld]);

		e1[a] = best;
		e2[a] = E->fkind ? best + flook(E, b) : best;
		e3[a] = best + E->T[b];
	}
	switch (h) {
	case GB_PLOGP_ECEF:
		return pick(E, e1, 1);
	case GB_PLOGP_ECEF_LA:
	case GB_PLOGP_ECEF_LAT_MIN:
	case GB_PLOGP_ECEF_LAT_MAX:
		return pick(E, e2, 1);
	case GB_PLOGP_BOTTOMUP:
		return pick(E, e3, -1);
	default: {
		/* MostCrit (§4.1): satisfy the factor whose set is most dispersed;
		 * with one candidate left there is nothing to choose (choice 5). */
		double d[3] = { mean_dev(e1, E->nb), mean_dev(e2, E->nb), mean_dev(e3, E->nb) };
		int f = 0;

		if (E->nb == 1)
			return 0;
		for (int x = 1; x < 3; x++)
			if (d[x] - d[f] > 1e-12 * fmax(fabs(d[x]), fabs(d[f])))
				f = x;
		*factor = f;
		return f == 0 ? pick(E, e1, 1) : f == 1 ? pick(E, e2, 1) : pick(E, e3, -1);
	}
	}
}

static int eng_init(struct eng *E, const struct gb_clmodel *c, int h)
{
	int k = c->nc;

	E->k = k;
	E->ld = k + 8;
	E->root = c->root;
	E->g = c->g;
	E->T = c->T;
	E->ct = malloc((size_t)k * E->ld * sizeof(double));
	E->rt = calloc((size_t)k, sizeof(double));
	E->heap = malloc((size_t)k * E->ld * sizeof(int));
	E->hpos = malloc((size_t)k * E->ld * sizeof(int));
	E->hsize = calloc((size_t)k, sizeof(int));
	E->inb = calloc((size_t)k, 1);
	E->bl = malloc((size_t)k * sizeof(int));
	E->e = malloc(3 * (size_t)k * sizeof(double));
	if (!E->ct || !E->rt || !E->heap || !E->hpos || !E->hsize || !E->inb || !E->bl || !E->e)
		return -ENOMEM;
	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++)
			E->ct[(size_t)j * E->ld + i] = c->g[(size_t)i * k + j] +
						       c->L[(size_t)i * k + j];
	E->fkind = h == GB_PLOGP_ECEF_LA || h == GB_PLOGP_MOSTCRIT ? 1 :
		   h == GB_PLOGP_ECEF_LAT_MIN ? 2 : h == GB_PLOGP_ECEF_LAT_MAX ? 3 : 0;
	if (k < 2)
		E->fkind = 0;
	return E->fkind ? fheap_build(E) : 0;
}

int gb_plogp_schedule(const struct gb_clmodel *c, int h, struct gb_tree *ct, double *arrival,
		      int *factor)
{
	struct eng E = { 0 };
	int *parent = NULL, nsend = 0, k, err, init = 0;
	double *order = NULL;

	if (!c || !ct || c->nc < 1 || c->root < 0 || c->root >= c->nc || !c->L || !c->g ||
	    !c->T || h < 0 || h >= GB_PLOGP_NHEUR)
		return -EINVAL;
	k = c->nc;
	parent = malloc((size_t)k * sizeof(int));
	order = malloc((size_t)k * sizeof(double));
	if (!parent || !order) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = eng_init(&E, c, h);
	if (err)
		goto cleanup;
	for (int j = 0; j < k; j++) {
		parent[j] = -1;
		order[j] = 0.0;
		if (arrival)
			arrival[j] = 0.0;
	}
	if (factor)
		factor[0] = factor[1] = factor[2] = 0;

	/* A = {root}: every heap of B holds the root alone. */
	for (int b = 0; b < k; b++) {
		if (b == E.root)
			continue;
		E.inb[b] = 1;
		E.bl[E.nb++] = b;
		hinsert(&E, b, E.root);
	}

	while (E.nb > 0) {
		int f, a = choose(&E, h, &f);
		int j = E.bl[a], i = E.heap[(size_t)j * E.ld];

		E.rt[j] = E.rt[i] + E.ct[(size_t)j * E.ld + i];
		E.rt[i] += E.g[(size_t)i * k + j];
		parent[j] = i;
		order[j] = nsend++;
		if (arrival)
			arrival[j] = E.rt[j];
		if (factor && f >= 0)
			factor[f]++;

		E.inb[j] = 0;
		E.bl[a] = E.bl[--E.nb];
		for (int x = 0; x < E.nb; x++) {
			int b = E.bl[x];

			hdown(&E, b, E.hpos[(size_t)b * E.ld + i]);
			hinsert(&E, b, j);
		}
	}
	err = gb_tree_init(ct, k, c->root);
	if (err)
		goto cleanup;
	init = 1;
	err = gb_tree_from_parents(ct, parent, order);
cleanup:
	if (err && init)
		gb_tree_release(ct);
	eng_release(&E);
	free(parent);
	free(order);
	return err;
}

/* ------------------------------------------------------------------ */
/* Planner entry points (registered in planners.c)                     */
/* ------------------------------------------------------------------ */

/* Cluster view, schedule, expansion into @out (already gb_tree_init()ed). */
static int plan_plogp(const struct gb_netmodel *m, const struct gb_plan_args *a,
		      struct gb_tree *out, int h)
{
	struct gb_clmodel c = { 0 };
	struct gb_tree ct = { 0 };
	int err;

	if (!m || !a || !out)
		return -EINVAL;
	err = gb_clmodel_from_nm(&c, m, a->root, a->size);
	if (err)
		goto cleanup;
	err = gb_plogp_schedule(&c, h, &ct, NULL, NULL);
	if (err)
		goto cleanup;
	err = gb_tree_expand(out, m, &c, &ct);
cleanup:
	gb_tree_release(&ct);
	gb_clmodel_release(&c);
	return err;
}

int gb_plan_ecef(const struct gb_netmodel *m, const struct gb_plan_args *a,
		 struct gb_tree *out)
{
	return plan_plogp(m, a, out, GB_PLOGP_ECEF);
}

int gb_plan_ecef_la(const struct gb_netmodel *m, const struct gb_plan_args *a,
		    struct gb_tree *out)
{
	return plan_plogp(m, a, out, GB_PLOGP_ECEF_LA);
}

int gb_plan_ecef_lat_min(const struct gb_netmodel *m, const struct gb_plan_args *a,
			 struct gb_tree *out)
{
	return plan_plogp(m, a, out, GB_PLOGP_ECEF_LAT_MIN);
}

int gb_plan_ecef_lat_max(const struct gb_netmodel *m, const struct gb_plan_args *a,
			 struct gb_tree *out)
{
	return plan_plogp(m, a, out, GB_PLOGP_ECEF_LAT_MAX);
}

int gb_plan_bottomup(const struct gb_netmodel *m, const struct gb_plan_args *a,
		     struct gb_tree *out)
{
	return plan_plogp(m, a, out, GB_PLOGP_BOTTOMUP);
}

int gb_plan_mostcrit(const struct gb_netmodel *m, const struct gb_plan_args *a,
		     struct gb_tree *out)
{
	return plan_plogp(m, a, out, GB_PLOGP_MOSTCRIT);
}
