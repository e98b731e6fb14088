// SPDX-License-Identifier: MIT
/*
 * sa_tree.c - the trees the simulated annealers of seed 000 work on
 * (plan_sa.c, plan_sa_clustered.c) and good_list (§2.2, Fig. 1 line 12).
 *
 * A tree is parent[] plus each node's send order as a linked list, so that
 * transform_tree (§2.2) moves a subtree in O(siblings) and a copy is three
 * memcpy.  good_list keeps the trees within 10 % of the best it has seen:
 * at most a given number (when full, a better tree replaces the worst);
 * duplicates (same 64-bit hash of root, parents and send orders) are kept
 * once; when the best improves, trees no longer within 10 % are dropped.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sa_impl.h"

/* ------------------------------------------------------------------ */
/* Trees as the annealer sees them                                     */
/* ------------------------------------------------------------------ */

int sa_tree_alloc(struct sa_tree *t, int k)
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

void sa_tree_free(struct sa_tree *t)
{
	free(t->parent);
	free(t->first);
	free(t->next);
	t->parent = t->first = t->next = NULL;
}

void sa_tree_clear(struct sa_tree *t, int k, int root)
{
	t->root = root;
	for (int v = 0; v < k; v++)
		t->parent[v] = t->first[v] = t->next[v] = -1;
}

void sa_tree_copy(struct sa_tree *d, const struct sa_tree *s, int k)
{
	d->root = s->root;
	memcpy(d->parent, s->parent, sizeof(int) * (size_t)k);
	memcpy(d->first, s->first, sizeof(int) * (size_t)k);
	memcpy(d->next, s->next, sizeof(int) * (size_t)k);
}

int sa_nchild(const struct sa_tree *t, int y)
{
	int c = 0;

	for (int v = t->first[y]; v >= 0; v = t->next[v])
		c++;
	return c;
}

/* Remove x from its parent's send order. */
void sa_detach(struct sa_tree *t, int x)
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
void sa_attach(struct sa_tree *t, int x, int y, int pos)
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
void sa_append_chain(struct sa_tree *t, int y, int x)
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

uint64_t sa_mix(uint64_t z)
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
/* good_list                                                           */
/* ------------------------------------------------------------------ */

void sa_good_release(struct sa_good *g)
{
	free(g->buf);
	free(g->root);
	free(g->cost);
	free(g->hash);
	memset(g, 0, sizeof(*g));
}

int sa_good_init(struct sa_good *g, int k, int cap)
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

void sa_good_reset(struct sa_good *g, double now)
{
	g->n = 0;
	g->best = INFINITY;
	g->t_best = now;
}

void sa_good_get(const struct sa_good *g, int i, struct sa_tree *t)
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
void sa_good_offer(struct sa_good *g, const struct sa_tree *t, double cost)
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
void sa_good_sort(struct sa_good *g)
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
