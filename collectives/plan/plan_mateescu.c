/* SPDX-License-Identifier: MIT */
/*
 * plan_mateescu.c - Mateescu & Taylor, "Efficient Broadcast on
 * Computational Grids" (seed 003): an extended single-source shortest path
 * that charges the sender's injection time, then a vertex labelling that
 * orders each node's sends.  Gupta & Vadhiyar ran it over all N nodes
 * (seed 000 s3: "initiation costs of all 64 nodes, and latencies and
 * bandwidths of all the links (64x64)"), and so do we: the graph is
 * complete, w(u,v) = L(u,v) and Delta(u,v) = o(u) + m/B(u,v).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_impl.h"

struct lab_ctx {
	const struct gb_netmodel *m;
	const double *label;
	int u;
};

/* decreasing label(v) + w(u,v), ties by increasing index */
static int cmp_label(const void *pa, const void *pb, void *arg)
{
	const struct lab_ctx *c = arg;
	int a = *(const int *)pa, b = *(const int *)pb;
	size_t n = c->m->n;
	double ka = c->label[a] + c->m->lat[c->u * n + a];
	double kb = c->label[b] + c->m->lat[c->u * n + b];

	if (ka != kb)
		return ka > kb ? -1 : 1;
	return (a > b) - (a < b);
}

/*
 * Extended Dijkstra, seed 003 slides 8-10:
 *
 *	dist[*] = inf; dist[root] = 0; parent[root] = NULL
 *	while (u = dequeue_min(queue)):
 *		for v in neighbours(u):
 *			if v in queue and dist[v] > dist[u] + w(u,v) + Delta(u,v):
 *				dist[v] = dist[u] + w(u,v) + Delta(u,v)
 *				dist[u] = dist[u] + Delta(u,v)    u is busy longer
 *				parent[v] = u
 *
 * Then the labelling of slides 11-14, children before parents:
 *
 *	label(leaf) = 0
 *	sort children v_1, v_2, ... by decreasing label(v_i) + w(u,v_i)
 *	label(u) = max_i label(v_i) + w(u,v_i) + i * Delta(u,v_i)
 *
 * and u sends to v_1, v_2, ... in that order (slide 15).
 *
 * Choices where the slides are silent or ambiguous:
 *  - slide 10's increase_key(queue, u, ...) acts on a u that dequeue_min
 *    has already removed; we read it as "u's distance grows for the rest
 *    of its own neighbour scan" and do not re-insert u (re-inserting would
 *    turn the algorithm into a different, greedy scheduler);
 *  - the distance charged to u is not given back when a child it adopted
 *    is later taken by another node (the slides do not undo it);
 *  - neighbours are scanned in index order (the graph is complete); ties
 *    in dequeue_min and in the label sort go to the lower index;
 *  - the dense O(N^2) variant (array scan instead of a heap) is used: on a
 *    complete graph it is the optimal Dijkstra.
 */
int gb_plan_mateescu(const struct gb_netmodel *m, const struct gb_plan_args *a,
		     struct gb_tree *out)
{
	struct lab_ctx ctx;
	double *dist = NULL, *label = NULL, *key = NULL;
	int *par = NULL, *q = NULL, *tmp = NULL;
	char *done = NULL;
	size_t n = m->n;
	int ret = -ENOMEM;

	dist = malloc(sizeof(double) * n);
	label = calloc(n, sizeof(double));
	key = calloc(n, sizeof(double));
	par = malloc(sizeof(int) * n);
	q = malloc(sizeof(int) * n);
	tmp = malloc(sizeof(int) * n);
	done = calloc(n, 1);
	if (!dist || !label || !key || !par || !q || !tmp || !done)
		goto cleanup;
	for (size_t v = 0; v < n; v++) {
		dist[v] = INFINITY;
		par[v] = -1;
	}
	dist[a->root] = 0;
	for (size_t it = 0; it < n; it++) {
		size_t u = n;
		double du;

		for (size_t v = 0; v < n; v++)
			if (!done[v] && (u == n || dist[v] < dist[u]))
				u = v;
		if (u == n || isinf(dist[u])) {
			ret = -EINVAL; /* unreachable: not on a complete graph */
			goto cleanup;
		}
		done[u] = 1;
		du = dist[u];
		for (size_t v = 0; v < n; v++) {
			double d, delta;

			if (done[v])
				continue;
			delta = gb_nm_delta(m, (int)u, (int)v, a->size);
			d = du + m->lat[u * n + v] + delta;
			if (dist[v] > d) {
				dist[v] = d;
				du += delta;
				par[v] = (int)u;
			}
		}
		dist[u] = du;
	}

	ret = gb_tree_from_parents(out, par, NULL);
	if (ret < 0)
		goto cleanup;
	if (gb_tree_order(out, q) != (int)n) {
		ret = -EINVAL;
		goto cleanup;
	}
	ctx.m = m;
	ctx.label = label;
	for (size_t k = n; k-- > 0;) {
		int u = q[k], nc = out->nchild[u];

		label[u] = 0;
		if (!nc)
			continue;
		memcpy(tmp, &out->child[out->cstart[u]], sizeof(int) * nc);
		ctx.u = u;
		qsort_r(tmp, nc, sizeof(int), cmp_label, &ctx);
		for (int i = 0; i < nc; i++) {
			int v = tmp[i];
			double l = label[v] + m->lat[(size_t)u * n + v] +
				   (i + 1) * gb_nm_delta(m, u, v, a->size);

			if (l > label[u])
				label[u] = l;
		}
	}
	/* gb_tree_from_parents sorts by increasing key, ties by index: the
	 * same order as cmp_label. */
	for (size_t v = 0; v < n; v++)
		if (par[v] >= 0)
			key[v] = -(label[v] + m->lat[(size_t)par[v] * n + v]);
	ret = gb_tree_from_parents(out, par, key);
cleanup:
	free(dist);
	free(label);
	free(key);
	free(par);
	free(q);
	free(tmp);
	free(done);
	return ret;
}
