/* SPDX-License-Identifier: MIT */
/*
 * gbsa.h - the simulated-annealing family of seed 000 (Gupta & Vadhiyar,
 * "Application-Oriented Adaptive MPI_Bcast for Grids") below the planner
 * registry: basicSA (Fig. 1), driverSA (Fig. 2) and clusteredSA (Fig. 4)
 * with their statistics, for tests, benchmarks and `gridtree sim
 * gupta-fig3`.  The planners "sa", "clustered-sa" and "sa-contention" in
 * gb_planners[] are thin wrappers over these (plan_sa.c,
 * plan_sa_clustered.c).
 *
 * Pool formation (§2.4, Table 1) is in gbplan.h: gb_pools_form().
 *
 * Conventions as in gbcore.h: 0 or a negative errno, nothing printed.
 */
#ifndef GRIDBED_GBSA_H
#define GRIDBED_GBSA_H

#include "gbplan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The paper's constants (Fig. 1, Fig. 2, §2.4). */
#define GB_SA_T0            100.0  /**< initialTemp */
#define GB_SA_TMIN          1.0    /**< minTemp (Fig. 1; the text says 0) */
#define GB_SA_FACTOR        0.8    /**< TEMP_FACTOR */
#define GB_SA_BOLTZMANN     1.0    /**< BoltzmanConst */
#define GB_SA_ITERS         80     /**< total_iter_for_temp */
#define GB_SA_ACCEPT_BREAK  20     /**< num_accept that ends a temperature */
#define GB_SA_ACCEPT_STOP   0.03   /**< stop below 3 % accepts, no new best */
#define GB_SA_GOOD_RATIO    1.10   /**< good_list: within 10 % of the best */
#define GB_SA_RANDOM_INVOC  50     /**< randomization phase, no time budget */
#define GB_SA_REFINE_INVOC  25     /**< refinement phase, no time budget */
#define GB_SA_SWITCH_RATIO  1.5    /**< Fig. 2 line 15 */
#define GB_SA_POOL_MAX      16     /**< §2.4: SA is best up to 16 nodes */

/**
 * GB_SA_COST_UNIT - the unit, in seconds, of the costs that enter the
 * Boltzmann factor exp(-diff / (BoltzmanConst * curTemp)).  The paper does
 * not say: milliseconds; see plan_sa.c ("Cost unit") for the measurements
 * behind the choice.
 */
#define GB_SA_COST_UNIT     1e-3

/** GB_SA_GOOD_MAX - capacity of good_list (the paper gives none). */
#define GB_SA_GOOD_MAX      64

/** GB_SA_MAX_TEMPS - room for Fig. 1's temperatures: 100 * 0.8^i > 1 for
 *  i = 0..20, so it visits at most 21. */
#define GB_SA_MAX_TEMPS     32

/** Why a basicSA run ended (Fig. 1). */
enum gb_sa_stop {
	GB_SA_STOP_NONE = 0,     /**< not run */
	GB_SA_STOP_MINTEMP = 1,  /**< line 6: curTemp <= minTemp */
	GB_SA_STOP_FROZEN = 2,   /**< lines 33-35: <= 3 % accepted, no new best */
	GB_SA_STOP_DEADLINE = 3, /**< our time budget (a->budget_s) */
};

/** One temperature of a basicSA run (Fig. 1 lines 7-37). */
struct gb_sa_temp_stats {
	double temp;           /**< curTemp */
	int tries;             /**< transformations evaluated (<= 80) */
	int accepts;           /**< num_accept (the loop ends at 20) */
	int uphill;            /**< accepts of a costlier tree (line 24) */
	int best_found;        /**< best_found at the end of the temperature */
};

/**
 * struct gb_sa_schedule - the schedule one basicSA run followed, for tests
 * of Fig. 1.  Filled by gb_sa_basic() when gb_sa_stats.schedule points to
 * one; costs nothing otherwise.
 */
struct gb_sa_schedule {
	int ntemps;                                    /**< temperatures visited */
	struct gb_sa_temp_stats t[GB_SA_MAX_TEMPS];
	long evaluations;      /**< broadcast_cost calls, initial tree included */
	enum gb_sa_stop stop;
};

/** Phases reported to a trace callback. */
enum gb_sa_phase {
	GB_SA_RANDOM = 0,   /**< Fig. 2 lines 3-19 */
	GB_SA_REFINE = 1,   /**< Fig. 2 lines 21-35 */
};

/**
 * gb_sa_trace_fn - called after every basicSA invocation of a driverSA run.
 * @t:     seconds since the driverSA started
 * @cost:  the cost of the tree this invocation returned
 * @best:  the best cost so far in this driverSA
 */
typedef void (*gb_sa_trace_fn)(void *ctx, double t, enum gb_sa_phase phase, double cost,
			       double best);

/**
 * struct gb_sa_stats - what a run did.  Zero it (or leave the pointer
 * NULL); set @trace/@trace_ctx to follow driverSA invocations (the trace
 * of a clustered run reports every pool's driverSA in turn).
 */
struct gb_sa_stats {
	gb_sa_trace_fn trace;
	void *trace_ctx;

	double initial_cost;   /**< basicSA: the initial tree; driverSA: the
				    first random initial tree */
	double best_cost;      /**< under the optimised model */
	long evaluations;      /**< cost-model evaluations */
	int random_invocations;
	int refine_invocations;
	double switch_s;       /**< driverSA: when refinement began (s) */
	int driver_runs;       /**< clusteredSA: driverSA runs */
	int planned_runs;      /**< clusteredSA: total_pools of Fig. 4 line 2 */
	int pool_sets;         /**< clusteredSA: pool sets tried, all levels */
	double elapsed_s;
	int timed_out;         /**< stopped by the deadline inside basicSA */
	double pool_percent;   /**< clusteredSA: the percentage (10/25/50/75)
				    of the top-level pool set whose tree was
				    returned; 0 if none (driverSA over all, or
				    MPICH-G2's tree) */
	int mpichg2;           /**< clusteredSA: 1 if MPICH-G2's tree was
				    returned (it cost less; plan_sa_clustered.c) */
	struct gb_sa_schedule *schedule; /**< optional; gb_sa_basic() only */
};

/**
 * struct gb_sa_goodlist - a copy of good_list at the end of a driverSA run
 * (trees within 10 % of the best, seed 000 §2.2), sorted by cost.
 */
struct gb_sa_goodlist {
	int n;
	struct gb_tree *trees;
	double *cost;          /**< as the SA evaluated it */
};

/** gb_sa_goodlist_release() - free a good list; safe to call twice. */
void gb_sa_goodlist_release(struct gb_sa_goodlist *g);

/**
 * gb_sa_basic() - one basicSA run (Fig. 1) from @initial over all nodes of
 * @m, updating a fresh good_list.
 * @a:       root (must be @initial's), size, seed, model (NULL = mateescu);
 *           a->budget_s > 0 is a deadline for this run.
 * @out:     initialised by the caller (gb_tree_init(out, m->n, a->root)).
 * @st:      optional.
 * Never returns a tree worse than @initial under the model.
 */
GB_WUR int gb_sa_basic(const struct gb_netmodel *m, const struct gb_plan_args *a,
		       const struct gb_tree *initial, struct gb_tree *out,
		       struct gb_sa_stats *st);

/**
 * gb_sa_driver() - driverSA (Fig. 2) over all nodes of @m, rooted at
 * a->root: 50 + 25 basicSA invocations when a->budget_s <= 0, else as many
 * as fit in the budget (see plan_sa.c for the switch rule).
 * @out:     initialised by the caller.
 * @good:    optional: receives good_list as it was at the switch to the
 *           refinement phase (Fig. 2 line 20 freezes it); release it with
 *           gb_sa_goodlist_release().
 */
GB_WUR int gb_sa_driver(const struct gb_netmodel *m, const struct gb_plan_args *a,
			struct gb_tree *out, struct gb_sa_stats *st,
			struct gb_sa_goodlist *good);

/**
 * gb_sa_clustered() - clusteredSA (Fig. 4): pools by the 10/25/50/75 %
 * rules (line 11 drops sets with a pool over 16 unless it would drop all),
 * driverSA in every pool (clusteredSA in a pool over 16), clusteredSA
 * again over the pool roots; MPICH-G2's tree if it costs less
 * (plan_sa_clustered.c, "Choices").  a->budget_s > 0 is shared over all driverSA runs.
 * Invariant: into every pool of the returned set exactly one tree edge
 * comes from outside it (st->pool_percent names the set).
 * Return: 0, -EINVAL (bad arguments or model name), -ENOMEM.
 */
GB_WUR int gb_sa_clustered(const struct gb_netmodel *m, const struct gb_plan_args *a,
			   struct gb_tree *out, struct gb_sa_stats *st);

/*
 * Pool formation in two steps (sa_pools.c), so that clusteredSA scans the
 * bandwidth matrix once for its four percentages: gb_pools_form() is
 * gb_pools_maxbw() then gb_pools_form_max(), with the same result.
 */

/** gb_pools_maxbw() - the largest bandwidth of the set (see gb_pools_threshold()). */
int gb_pools_maxbw(const struct gb_netmodel *m, const int *nodes, int k, double *max);

/** gb_pools_form_max() - gb_pools_form() with the set's largest bandwidth given. */
int gb_pools_form_max(const struct gb_netmodel *m, const int *nodes, int k, double percent,
		      double maxbw, int cap, int *pool);

#ifdef __cplusplus
}
#endif
#endif
