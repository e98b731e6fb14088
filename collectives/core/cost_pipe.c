/* SPDX-License-Identifier: MIT */
/*
 * cost_pipe.c - Mateescu's one-port model (seed 000 s2.2, seed 003 slide 3)
 * for a tree that forwards its message in segments (issue 14), and the
 * choice of a segment size from it.
 *
 * The schedule is the one libgridbcast runs (collectives/bcast/bcast_pipe.c):
 * the message is cut into S segments of @seg bytes (the last one shorter);
 * every node sends segment j to each child, in the tree's send order, then
 * segment j + 1, and so on; a node may forward segment j as soon as it has
 * it.  A node's sends use one port, as in the unsegmented model:
 *
 *	for u in parent-first order:
 *		port = 0
 *		for j in 0 .. S-1:
 *			for v in children(u), in send order:
 *				start = max(port, have[u][j])
 *				port = start + o(u) + s_j / B(u, v)
 *				have[v][j] = port + L(u, v)
 *	return max over v of have[v][S-1]
 *
 * With S = 1 this is gb_cost_mateescu() exactly.  Choices where the papers
 * say nothing (none of them pipelines):
 *  - o(u) is paid per segment: it is the model's per-message cost.
 *  - B is the bandwidth of the whole message (callers pass the model for
 *    the total size, gb_nm_for_size()): the segments of one broadcast
 *    follow each other on one connection, which leaves TCP's slow start
 *    once, not once per segment.
 *  - A node receives and sends at the same time (full duplex); only its
 *    sends queue behind each other.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost_priv.h"

double gb_cost_oneport_seg(const struct gb_netmodel *m, const struct gb_tree *t, double size,
			   double seg, double *arrival, gb_edge_fn busy)
{
	int n = t ? t->n : 0, *q = NULL;
	double *have = NULL, best = 0;
	long S;

	if (!m || !t || n != m->n || n < 1 || !(size >= 0) || !(seg >= 0))
		return NAN;
	S = (seg <= 0 || seg >= size) ? 1 : (long)ceil(size / seg);
	if (S == 1)
		seg = size;
	if (S > GB_SEG_MAX_COUNT)
		return NAN;
	q = malloc(sizeof(int) * n);
	have = malloc(sizeof(double) * (size_t)n * (size_t)S);
	if (!q || !have || gb_tree_order(t, q) != n) {
		best = NAN;
		goto cleanup;
	}
	for (size_t i = 0; i < (size_t)n * (size_t)S; i++)
		have[i] = -1;
	for (long j = 0; j < S; j++)
		have[(size_t)t->root * S + j] = 0;
	for (int k = 0; k < n; k++) {
		int u = q[k], nc = t->nchild[u];
		const int *kids = t->child + t->cstart[u];
		double port = 0;

		for (long j = 0; j < S && nc > 0; j++) {
			double sj = j < S - 1 ? seg : size - seg * (double)(S - 1);
			double hu = have[(size_t)u * S + j];

			for (int i = 0; i < nc; i++) {
				int v = kids[i];
				double *hv = &have[(size_t)v * S + j];

				if (j == 0 && hv[0] >= 0) { /* reached twice: not a tree */
					best = NAN;
					goto cleanup;
				}
				port = fmax(port, hu) + busy(m, u, v, sj);
				*hv = port + m->lat[(size_t)u * n + v];
			}
		}
	}
	for (int v = 0; v < n; v++) {
		double a = have[(size_t)v * S + S - 1];

		if (arrival)
			arrival[v] = a;
		if (a > best)
			best = a;
	}
cleanup:
	free(q);
	free(have);
	return best;
}

double gb_cost_mateescu_seg(const struct gb_netmodel *m, const struct gb_tree *t,
			    double size, double seg, double *arrival)
{
	return gb_cost_oneport_seg(m, t, size, seg, arrival, gb_edge_delta);
}

void gb_cost_all(const struct gb_netmodel *m, const struct gb_tree *t, double size, double seg,
		 double *pred)
{
	gb_cost_all_stripes(m, t, size, seg, 1, pred);
}

double gb_cost_predict(const struct gb_costmodel *c, const struct gb_netmodel *m,
		       const struct gb_tree *t, double size, double seg, int stripes,
		       double *arrival)
{
	if (seg <= 0)
		return c->cost(m, t, size, arrival);
	if (stripes > 1 && seg < size)
		return c->cost_stripes ? c->cost_stripes(m, t, stripes, size, seg, arrival) : NAN;
	return c->cost_seg ? c->cost_seg(m, t, size, seg, arrival) : NAN;
}

void gb_cost_all_stripes(const struct gb_netmodel *m, const struct gb_tree *t, double size,
			 double seg, int stripes, double *pred)
{
	for (int i = 0; i < gb_ncostmodels; i++)
		pred[i] = gb_cost_predict(&gb_costmodels[i], m, t, size, seg, stripes, NULL);
}

double gb_seg_choose(const struct gb_netmodel *m, const struct gb_tree *t, double size,
		     double elem, double max_seg, double *pred)
{
	double whole = gb_cost_mateescu_seg(m, t, size, 0, NULL), best_t = whole;
	double choice = 0, choice_t = whole, cand[64], ct[64], s0 = GB_SEG_MIN;
	int nc = 0;

	if (pred)
		*pred = whole;
	if (!isfinite(whole) || !(elem > 0))
		return 0;
	if (max_seg <= 0)
		max_seg = GB_SEG_MAX;
	/* a message of more than GB_SEG_MAX_COUNT x max_seg bytes: the
	 * smallest power of two that keeps the count in range */
	while (size / s0 > GB_SEG_MAX_COUNT)
		s0 *= 2;
	if (max_seg < s0)
		max_seg = s0;
	for (double s = s0; s <= max_seg && s < size && nc < 64; s *= 2) {
		double se = floor(s / elem) * elem;

		if (se <= 0 || se >= size || size / se > GB_SEG_MAX_COUNT)
			continue;
		cand[nc] = se;
		ct[nc] = gb_cost_mateescu_seg(m, t, size, se, NULL);
		if (isfinite(ct[nc]) && ct[nc] < best_t)
			best_t = ct[nc];
		nc++;
	}
	if (!(best_t * (1 + GB_SEG_SLACK) < whole))
		return 0;       /* segmenting does not pay enough */
	/* the largest segment whose prediction is within GB_SEG_SLACK of the
	 * best one: fewer segments cost less CPU than the model's o says */
	for (int i = 0; i < nc; i++)
		if (isfinite(ct[i]) && ct[i] <= best_t * (1 + GB_SEG_SLACK) && cand[i] > choice) {
			choice = cand[i];
			choice_t = ct[i];
		}
	if (pred)
		*pred = choice_t;
	return choice;
}
