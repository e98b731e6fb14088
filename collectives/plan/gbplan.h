/* SPDX-License-Identifier: MIT */
/*
 * gbplan.h - libgbplan (collectives/plan/): the planner registry, the pools
 * of clusteredSA and the pLogP cluster-level heuristics.  Pure C over
 * gbcore.h: no MPI, no emulator headers, no root (t/0095-layering.t).
 *
 * Conventions: functions return 0 or a negative errno and print nothing.
 */
#ifndef GRIDBED_GBPLAN_H
#define GRIDBED_GBPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "gbcore.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Planners                                                            */
/* ------------------------------------------------------------------ */

struct gb_plan_args {
	int root;
	double size;           /**< bytes */
	uint64_t seed;
	double budget_s;       /**< anytime planners: time budget; <= 0 = paper default */
	const char *model;     /**< cost model to optimise, NULL = planner default */
};

/**
 * gb_plan_fn - a planner.
 * @out: already set up by the caller with gb_tree_init(out, m->n, a->root);
 *       fill it with gb_tree_from_parents() (or gb_tree_copy()).  On error,
 *       return a negative errno; the caller releases @out either way.
 * Planners are deterministic for (model, args): all randomness comes from a
 * struct gb_rng seeded with a->seed.
 */
typedef int (*gb_plan_fn)(const struct gb_netmodel *m, const struct gb_plan_args *a,
			  struct gb_tree *out);

#define GB_PLAN_ANYTIME  (1u << 0)  /**< honours budget_s */
#define GB_PLAN_STATIC   (1u << 1)  /**< needs only topology, not measurements */
#define GB_PLAN_CLUSTER  (1u << 2)  /**< plans over clusters (pLogP family) */
#define GB_PLAN_PLUGIN   (1u << 3)  /**< "plugin:PATH": a shared object (docs/plugins.md) */
#define GB_PLAN_EXTERNAL (1u << 4)  /**< "external:PATH": a command (docs/plugins.md) */

struct gb_planner {
	const char *name;
	const char *summary;   /**< one line, with the paper and section */
	gb_plan_fn plan;       /**< built-ins only; NULL for plugins and external planners */
	unsigned flags;
	const char *path;      /**< plugins and external planners: the file, absolute */
};

/** The time (s) a plugin or an external planner gets when the caller gives no budget. */
#define GB_PLAN_EXTERN_BUDGET 5.0

/** The planner registry (docs/architecture.md, decision 5), in `gridtree list` order. */
extern const struct gb_planner gb_planners[];
extern const int gb_nplanners;
const struct gb_planner *gb_planner_find(const char *name);

/**
 * gb_planner_resolve() - the planner called @name: a built-in of the
 * registry, "plugin:PATH" (a shared object with the ABI of
 * include/gridbed/planner.h) or "external:PATH" (a command that reads a
 * plan request as JSON on standard input and prints a tree file;
 * docs/plugins.md).  PATH is taken relative to the working directory.
 * A plugin is loaded once here, in a process of its own (the plugin
 * host), to check the file, its symbols and its ABI; an external command
 * must be an executable file.  Resolved planners live as long as the
 * process, and resolving one name twice gives the same pointer.
 * Return: 0; -ENOENT (no such planner or file), -EINVAL (not a plugin of
 * this ABI), -ENOEXEC (not executable), -ENOSPC (too many distinct
 * plugins, GB_PLAN_DYN_MAX), with a one-line reason in the optional @err
 * that names the file.
 */
GB_WUR int gb_planner_resolve(const char *name, const struct gb_planner **p,
			      struct gb_err *err);

/** Distinct plugins and external planners one process may resolve. */
#define GB_PLAN_DYN_MAX 16

/**
 * gb_plan() - run a planner with argument checks: @out is initialised here
 * (release it with gb_tree_release() on success), the result is checked
 * with gb_tree_check() (-EPROTO if a planner returned an invalid tree).
 */
GB_WUR int gb_plan(const struct gb_planner *p, const struct gb_netmodel *m,
		   const struct gb_plan_args *a, struct gb_tree *out);

/**
 * gb_plan_err() - gb_plan() with a one-line reason in @e (util/gbutil.h;
 * may be NULL) when it fails.
 * Plugins and external planners run in a child process killed after
 * their budget (a->budget_s, else GB_PLAN_EXTERN_BUDGET) plus a grace of
 * 0.2 s and a quarter of the budget: -ETIME.  A child that crashes gives
 * -ECHILD, one that fails -EPROTO, and a result that is not a spanning
 * tree of @m rooted at a->root -EPROTO, each with the reason.
 */
GB_WUR int gb_plan_err(const struct gb_planner *p, const struct gb_netmodel *m,
		       const struct gb_plan_args *a, struct gb_tree *out, struct gb_err *e);

/* ------------------------------------------------------------------ */
/* Pools for clusteredSA (seed 000 §2.4, Table 1; sa_pools.c)          */
/* ------------------------------------------------------------------ */

/**
 * gb_pools_threshold() - @percent % of the largest bandwidth between the
 * nodes of the set (the diagonal counts when it is finite and > 0, as in
 * the paper's Table 1), in B/s.  @nodes may be NULL (nodes 0 .. k-1).
 */
int gb_pools_threshold(const struct gb_netmodel *m, const int *nodes, int k, double percent,
		       double *thr);

/**
 * gb_pools_form() - divide nodes[0 .. k-1] (NULL: 0 .. k-1) into pools:
 * greedily in set order, a node joins the open pool when the mean of the
 * two directions of its bandwidth to every member is at least
 * gb_pools_threshold(), and the pool has fewer than @cap nodes (0: no cap).
 * @pool: k entries: pool[i] is the pool of the i-th node, pools numbered
 *        0, 1, ... in order of their first node.
 * Return: the number of pools, or -EINVAL.  Rule and choices: sa_pools.c.
 */
int gb_pools_form(const struct gb_netmodel *m, const int *nodes, int k, double percent,
		  int cap, int *pool);

/* ------------------------------------------------------------------ */
/* pLogP cluster level (seed 002 §3.2-§4.1; plan_plogp.c)              */
/* ------------------------------------------------------------------ */

/*
 * The pLogP heuristics work on a struct gb_clmodel (above): build it with
 * gb_clmodel_from_nm() or gb_clmodel_gen_fkaier(), schedule with
 * gb_plogp_schedule(), score the schedule with gb_clmodel_cost() (overlap 1
 * is the paper's makespan max_j(arrival_j + T_j)) and turn it into a node
 * tree with gb_tree_expand().  The planners gb_plan_ecef() .. do all four.
 */

/** The pLogP heuristics, in `gridtree list` order. */
enum gb_plogp_heur {
	GB_PLOGP_ECEF = 0,      /**< "ecef": earliest completing edge first (s3.2) */
	GB_PLOGP_ECEF_LA,       /**< "ecef-la": with look-ahead F_j (s3.2) */
	GB_PLOGP_ECEF_LAT_MIN,  /**< "ecef-lat-min": the paper's ECEF-LAt (s3.3) */
	GB_PLOGP_ECEF_LAT_MAX,  /**< "ecef-lat-max": the paper's ECEF-LAT (s3.3) */
	GB_PLOGP_BOTTOMUP,      /**< "bottomup": most loaded cluster first (s3.3) */
	GB_PLOGP_MOSTCRIT,      /**< "mostcrit": most dispersed factor first (s4.1) */
	GB_PLOGP_NHEUR
};

/** gb_plogp_heur_name() - the planner name of heuristic @h, or NULL. */
const char *gb_plogp_heur_name(int h);

/** gb_plogp_heur_find() - the heuristic called @name, or -ENOENT. */
int gb_plogp_heur_find(const char *name);

/**
 * gb_plogp_schedule() - run heuristic @h on @c: the cluster schedule, as a
 * tree over the c->nc clusters rooted at c->root whose child lists are the
 * coordinators' wide-area send orders.
 * @ct:      initialised here (gb_tree_init); release with gb_tree_release().
 * @arrival: optional, nc entries: when each coordinator has the message
 *           under the heuristic's own pLogP bookkeeping (0 for the root).
 * @factor:  optional, 3 entries: MostCrit's choices, how many steps
 *           satisfied factor (1), (2) and (3) of s4.1 (zeros otherwise);
 *           the last step, with a single candidate, is not counted.
 * Deterministic: ties go to the lowest cluster index.
 * O(nc^2 log nc) time, O(nc^2) memory.
 * Return: 0, -EINVAL or -ENOMEM.
 */
GB_WUR int gb_plogp_schedule(const struct gb_clmodel *c, int h, struct gb_tree *ct,
			     double *arrival, int *factor);

#ifdef __cplusplus
}
#endif
#endif
