/* SPDX-License-Identifier: MIT */
/*
 * sa_impl.h - what sa_tree.c (trees, good_list), plan_sa.c (basicSA,
 * driverSA) and plan_sa_clustered.c (clusteredSA) share: the annealer's
 * tree, a node set with its cost evaluation, good_list and driverSA over
 * a node set.  Internal to libgbplan; the public API is gbsa.h.
 */
#ifndef GRIDBED_SA_IMPL_H
#define GRIDBED_SA_IMPL_H

#include <stdint.h>

#include "gbplan.h"
#include "gbsa.h"

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

struct sa_good {
	int cap, n, k;
	int *buf;               /* cap * 3k: parent, first, next */
	int *root;
	double *cost;
	uint64_t *hash;
	double best;
	double t_best;          /* gb_now() when best last improved */
};

/* Trees over k local nodes: allocate (-ENOMEM), free (twice is fine),
 * clear to a lone @root, copy. */
int sa_tree_alloc(struct sa_tree *t, int k);
void sa_tree_free(struct sa_tree *t);
void sa_tree_clear(struct sa_tree *t, int k, int root);
void sa_tree_copy(struct sa_tree *d, const struct sa_tree *s, int k);
/* How many children y has; remove x from its parent's send order; make x
 * the pos-th child (0 = sent first) of y. */
int sa_nchild(const struct sa_tree *t, int y);
void sa_detach(struct sa_tree *t, int x);
void sa_attach(struct sa_tree *t, int x, int y, int pos);
/* Append the chain x -> next[x] -> ... at the end of y's send order. */
void sa_append_chain(struct sa_tree *t, int y, int x);
/* A 64-bit mixing step (splitmix64's finaliser), for hashes. */
uint64_t sa_mix(uint64_t z);
/*
 * A node set to plan over: nodes[0..k-1] model nodes (NULL = all, in
 * model order), fixed_root a local index or -1, @cm NULL for the built-in
 * Mateescu evaluation.  0 or -ENOMEM; release is safe after a failed init.
 */
void sa_prob_release(struct sa_prob *p);
int sa_prob_init(struct sa_prob *p, const struct gb_netmodel *m, const int *nodes, int k,
		 int fixed_root, double size, const struct gb_costmodel *cm,
		 struct gb_rng *rng);
/* The cost of @t under the problem's model; *far = the latest node. */
double sa_eval(struct sa_prob *p, const struct sa_tree *t, int *far);
/* good_list (§2.2) for trees over k nodes, at most @cap of them. */
int sa_good_init(struct sa_good *g, int k, int cap);
void sa_good_release(struct sa_good *g);
/* Empty it (best unknown, last improvement @now); copy out tree i;
 * update_good_list (Fig. 1 line 12; @g may be NULL: Fig. 2's dummy_list);
 * sort by increasing cost (ties by hash), for the refinement phase. */
void sa_good_reset(struct sa_good *g, double now);
void sa_good_get(const struct sa_good *g, int i, struct sa_tree *t);
void sa_good_offer(struct sa_good *g, const struct sa_tree *t, double cost);
void sa_good_sort(struct sa_good *g);
/*
 * driverSA (Fig. 2) over the node set of @p with time budget @td (<= 0:
 * none); @good is sized for p->k and left frozen as of the switch.
 */
int sa_driver(struct sa_prob *p, double td, struct sa_tree *best, double *best_cost,
	      struct gb_sa_stats *st, struct sa_good *good);
/* Conversions to and from gb_tree (send order = child order). */
int sa_to_gb(const struct sa_tree *t, int k, struct gb_tree *out);
void sa_from_gb(const struct gb_tree *g, struct sa_tree *t);
/* The common argument checks of the gb_sa_*() entry points: 0 or -EINVAL. */
int sa_check_args(const struct gb_netmodel *m, const struct gb_plan_args *a,
		  const struct gb_tree *out);
/* The model to optimise, by name (@def if NULL): *cm NULL for Mateescu. */
int sa_model(const char *name, const char *def, const struct gb_costmodel **cm);

#endif
