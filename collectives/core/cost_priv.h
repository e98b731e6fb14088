/* SPDX-License-Identifier: MIT */
/*
 * cost_priv.h - what the cost models' two files share (cost.c,
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

#endif
