/* SPDX-License-Identifier: MIT */
/*
 * gridbed/planner.h - the ABI of a gridbed planner plugin (docs/plugins.md).
 *
 * A plugin is a shared object that defines two symbols:
 *
 *	GRIDBED_PLANNER_DEFINE_ABI;       // const unsigned gridbed_planner_abi
 *	int gridbed_plan(const struct gridbed_model *m,
 *			 const struct gridbed_request *r,
 *			 int *parent, double *order, char *err, size_t errlen);
 *
 * and is named as `plugin:PATH` wherever a planner name goes: gridtree
 * plan|eval --algo, gridbcast --algo, $GRIDBED_BCAST for libgridbcast.so,
 * adaptive:plugin:PATH for the advisor, and a campaign file's algorithms.
 *
 * gridbed never loads a plugin into its own process.  Each request runs in
 * a fresh process (the plugin host, collectives/plugin/), so a plugin that
 * crashes, leaks or hangs costs that process only: gridbed reports the
 * fault in one line and, inside a broadcast, falls back to a labelled
 * built-in tree (docs/plugins.md, "When a plugin fails").
 *
 * This header depends on the C standard library only, and it is the whole
 * contract: a plugin needs nothing else of gridbed to build.
 *
 *	cc -shared -fPIC -I gridbed/include -o myplanner.so myplanner.c
 *
 * Versioning: GRIDBED_PLANNER_ABI changes whenever a struct below or the
 * signature of gridbed_plan() changes; gridbed refuses a plugin built
 * against another version, naming both numbers.  Fields are only ever
 * appended to the structs, so a plugin may read every field of the version
 * it was built for.
 */
#ifndef GRIDBED_PLANNER_H
#define GRIDBED_PLANNER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI this header describes. */
#define GRIDBED_PLANNER_ABI 1

/**
 * struct gridbed_model - what the planner knows of the network: the
 * communicator's ranks as nodes 0 .. n-1 (node i is rank i), measured by
 * gridmon when the broadcast has a matrix, else derived from the topology.
 *
 * Matrices are row-major n x n: lat[i * n + j] is the one-way latency from
 * node i to node j in seconds, bw[i * n + j] the bandwidth from i to j in
 * bytes per second (the diagonal is unused: lat 0, bw infinite), o[i] the
 * time node i takes to start one message (s).  Matrices need not be
 * symmetric.  All pointers stay valid during the call only.
 */
struct gridbed_model {
	unsigned abi;                  /**< GRIDBED_PLANNER_ABI of gridbed */
	int n;                         /**< nodes (ranks), >= 1 */
	const char *const *name;       /**< n host names */
	const int *cluster;            /**< n cluster indices, 0 .. nclusters-1 */
	const int *site;               /**< n site indices, 0 .. nsites-1 */
	int nclusters;
	int nsites;
	const char *const *cluster_name;   /**< nclusters names */
	const char *const *site_name;      /**< nsites names */
	const double *lat;             /**< n x n, s */
	const double *bw;              /**< n x n, B/s */
	const double *o;               /**< n, s */
	unsigned long long version;    /**< the matrix's version (gridmon), 0 if static */
};

/** struct gridbed_request - one broadcast to plan. */
struct gridbed_request {
	int root;                      /**< the broadcast's root, 0 .. n-1 */
	double size;                   /**< message size, bytes */
	unsigned long long seed;       /**< for any randomness: same seed, same tree */
	double budget_s;               /**< answer within this time (s); see below */
};

/**
 * gridbed_plan() - the plugin's planner (the symbol gridbed looks up).
 * @m:      the network model.
 * @r:      the request.
 * @parent: n entries, each -1 on entry: set parent[v] for every node v
 *          other than r->root; parent[r->root] must stay -1.
 * @order:  n entries, order[v] = v on entry: the children of every node are
 *          sent to in increasing order[child] (ties by index).
 * @err:    room for a one-line reason when the planner fails.
 *
 * The result must be a spanning tree of the n nodes rooted at r->root;
 * gridbed checks it and refuses any other.  The process is killed when it
 * has not answered after r->budget_s plus a grace of 0.2 s and a quarter
 * of the budget (process start); that is an error, like a crash.
 *
 * Return: 0 on success, anything else on failure (then @err is reported).
 */
typedef int gridbed_plan_fn(const struct gridbed_model *m, const struct gridbed_request *r,
			    int *parent, double *order, char *err, size_t errlen);

/* What a plugin defines (declared here so that its definitions are checked
 * against the ABI). */
gridbed_plan_fn gridbed_plan;
extern const unsigned gridbed_planner_abi;

/** The plugin's declaration of the ABI it was built for. */
#define GRIDBED_PLANNER_DEFINE_ABI \
	const unsigned gridbed_planner_abi = GRIDBED_PLANNER_ABI

#ifdef __cplusplus
}
#endif
#endif
