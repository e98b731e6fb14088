/* SPDX-License-Identifier: MIT */
/*
 * plan_impl.h - the planner functions behind the registry (planners.c) and
 * the gridtree subcommands that live in other helpers' files.
 *
 * Internal to collectives/: users go through gb_planners[] / gb_plan().
 * Every gb_plan_* follows the gb_plan_fn contract of gbplan.h: @out is
 * already gb_tree_init()ed to (m->n, a->root); return 0 or -errno.
 *
 * Who implements what:
 *   plan_static.c    binomial, flat, chain, mpich-g2, magpie
 *   plan_mateescu.c  mateescu
 *   plan_sa.c        sa (basicSA, driverSA)
 *   plan_sa_clustered.c  clustered-sa, sa-contention (clusteredSA)
 *   plan_plogp.c     ecef .. mostcrit
 *   plan_pipe.c      pipeline
 */
#ifndef GRIDBED_PLAN_IMPL_H
#define GRIDBED_PLAN_IMPL_H

#include "gbplan.h"

int gb_plan_binomial(const struct gb_netmodel *m, const struct gb_plan_args *a,
		     struct gb_tree *out);
int gb_plan_flat(const struct gb_netmodel *m, const struct gb_plan_args *a, struct gb_tree *out);
int gb_plan_chain(const struct gb_netmodel *m, const struct gb_plan_args *a,
		  struct gb_tree *out);
int gb_plan_mpichg2(const struct gb_netmodel *m, const struct gb_plan_args *a,
		    struct gb_tree *out);
int gb_plan_magpie(const struct gb_netmodel *m, const struct gb_plan_args *a,
		   struct gb_tree *out);
int gb_plan_pipeline(const struct gb_netmodel *m, const struct gb_plan_args *a,
		     struct gb_tree *out);  /* plan_pipe.c */
int gb_plan_mateescu(const struct gb_netmodel *m, const struct gb_plan_args *a,
		     struct gb_tree *out);

int gb_plan_sa(const struct gb_netmodel *m, const struct gb_plan_args *a, struct gb_tree *out);
int gb_plan_clustered_sa(const struct gb_netmodel *m, const struct gb_plan_args *a,
			 struct gb_tree *out);
int gb_plan_sa_contention(const struct gb_netmodel *m, const struct gb_plan_args *a,
			  struct gb_tree *out);

int gb_plan_ecef(const struct gb_netmodel *m, const struct gb_plan_args *a, struct gb_tree *out);
int gb_plan_ecef_la(const struct gb_netmodel *m, const struct gb_plan_args *a,
		    struct gb_tree *out);
int gb_plan_ecef_lat_min(const struct gb_netmodel *m, const struct gb_plan_args *a,
			 struct gb_tree *out);
int gb_plan_ecef_lat_max(const struct gb_netmodel *m, const struct gb_plan_args *a,
			 struct gb_tree *out);
int gb_plan_bottomup(const struct gb_netmodel *m, const struct gb_plan_args *a,
		     struct gb_tree *out);
int gb_plan_mostcrit(const struct gb_netmodel *m, const struct gb_plan_args *a,
		     struct gb_tree *out);
int gb_plan_phoenix(const struct gb_netmodel *m, const struct gb_plan_args *a,
		    struct gb_tree *out);  /* plan_phoenix.c */

/* ------------------------------------------------------------------ */
/* Plugins and external planners (docs/plugins.md)                     */
/* ------------------------------------------------------------------ */

/** What a child process did (plan_child.c). */
struct gb_child_result {
	char *out;             /**< its standard output, NUL-terminated (malloc'd) */
	size_t outlen;
	int status;            /**< waitpid() status */
	int timed_out;         /**< killed at the deadline */
	int too_much;          /**< killed for writing too much */
	double elapsed_s;      /**< fork to exit */
	char errline[256];     /**< the last non-empty line of its standard error */
};

/**
 * gb_child_run() - run argv[0] (a path) with @in as its standard input,
 * collecting its output, and kill it (its whole process group) when it is
 * still running @timeout_s after the fork.  Return: 0 once the child is
 * reaped (whatever it did: see @r), or a negative errno when it could not
 * be started; release @r with gb_child_result_release() after a 0.
 */
GB_WUR int gb_child_run(char *const argv[], const void *in, size_t inlen, double timeout_s,
			struct gb_child_result *r);
void gb_child_result_release(struct gb_child_result *r);

/**
 * gb_child_fault() - 0 when @r is a clean exit, else a one-line reason in
 * @e ("overran its budget of ...", "crashed (signal 11, ...)", the
 * child's own last line on standard error) and a negative errno.
 */
int gb_child_fault(const struct gb_child_result *r, double budget_s, struct gb_err *e);

/** gb_plan_external() - the plugin or external planner @p on (@m, @a) (plan_external.c). */
int gb_plan_external(const struct gb_planner *p, const struct gb_netmodel *m,
		     const struct gb_plan_args *a, struct gb_tree *out, struct gb_err *e);

/** gb_plugin_probe() - load plugin @path in the plugin host and check its ABI (plan_external.c). */
int gb_plugin_probe(const char *path, struct gb_err *e);

/**
 * gb_plugin_host() - the plugin host program: $GRIDBED_PLUGIN_HOST, else
 * the one built beside this library (GB_PLUGIN_HOST_DEFAULT).
 */
const char *gb_plugin_host(void);

/**
 * gb_group_masters() - MPICH-G2's master of every site (@site_master,
 * m->nsites entries) and cluster (@cl_master, m->nclusters entries): the
 * lowest-ranked member, or @root in the groups that contain it; -1 for an
 * empty group (plan_static.c).
 */
void gb_group_masters(const struct gb_netmodel *m, int root, int *site_master, int *cl_master);

/**
 * gb_group_bucket() - counting sort of nodes 0 .. n-1 by group (@gid[v],
 * -1 = left out), rank order inside a group: group g is
 * list[start[g] .. start[g+1]-1] (@start: ngroups + 1 entries; plan_static.c).
 */
void gb_group_bucket(int n, int ngroups, const int *gid, int *start, int *list);

/*
 * gridtree subcommands implemented next to the algorithms they exercise.
 * They are CLI code (they print, and return a process exit status: 0 ok,
 * 1 failure, 2 usage error) and are linked into the gridtree binary only:
 * list their source files in GRIDTREE_EXTRA_SRCS (collectives/CMakeLists.txt).
 * argv[0] is the subcommand's own name ("gupta-fig3", "fkaier", "pools").
 */
int gb_sim_gupta_fig3(int argc, char **argv);  /* gridtree sim gupta-fig3  (sa helper) */
int gb_cmd_pools(int argc, char **argv);       /* gridtree pools           (sa helper) */
int gb_sim_fkaier(int argc, char **argv);      /* gridtree sim fkaier   (plogp helper) */

#endif
