/* SPDX-License-Identifier: MIT */
/*
 * cost_priv.h - what the cost models' files share (cost.c, cost_pipe.c,
 * cost_contention.c); not API.
 */
#ifndef GRIDBED_COST_PRIV_H
#define GRIDBED_COST_PRIV_H

#include "gbcore.h"

/*
 * gb_cost_tree_order_ok() - parent-first order of @t into @q, 1 if it lists
 * each of the n nodes once (so child lists describe a spanning tree), else
 * 0.  @mark: n scratch ints.
 */
int gb_cost_tree_order_ok(const struct gb_tree *t, int *q, int *mark);

/* What a send of @size bytes from i to j keeps i busy: Delta or g(m). */
typedef double (*gb_edge_fn)(const struct gb_netmodel *m, int i, int j, double size);

/* Mateescu's busy time, Delta = gb_nm_delta(): the gb_edge_fn of the one-port models. */
double gb_edge_delta(const struct gb_netmodel *m, int i, int j, double size);

/*
 * gb_cost_oneport_seg() - the segmented one-port schedule of cost_pipe.c
 * over @t, each send of a segment keeping its sender @busy; @seg <= 0 or
 * >= @size is the unsegmented schedule.  gb_cost_mateescu_seg() is it with
 * Delta, gb_cost_plogp_seg() with g(m) over the pLogP tree.
 */
double gb_cost_oneport_seg(const struct gb_netmodel *m, const struct gb_tree *t, double size,
			   double seg, double *arrival, gb_edge_fn busy);

#endif
