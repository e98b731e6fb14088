/* SPDX-License-Identifier: MIT */
/*
 * planners.c - the planner registry (docs/architecture.md, decision 5).
 *
 * One line per algorithm, in the order issue 3 lists them; `gridtree list`
 * prints this table and the tests and benchmarks iterate over it, so a
 * planner registered here is covered everywhere.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbio.h"
#include "plan_impl.h"

const struct gb_planner gb_planners[] = {
	{ "binomial", "MPICH's binomial tree relative to the root, largest subtree first",
	  gb_plan_binomial, GB_PLAN_STATIC, NULL },
	{ "flat", "the root sends to every node in turn", gb_plan_flat, GB_PLAN_STATIC, NULL },
	{ "chain", "each rank sends to the next from the root on: Open MPI's pipeline "
	  "broadcast's chain (issue 14's executor overhead)", gb_plan_chain, GB_PLAN_STATIC, NULL },
	{ "mpich-g2", "MPICH-G2 multilevel: flat over WAN, binomial in sites and clusters",
	  gb_plan_mpichg2, GB_PLAN_STATIC, NULL },
	{ "magpie", "MagPIe: root to every cluster coordinator, then binomial in clusters",
	  gb_plan_magpie, GB_PLAN_STATIC, NULL },
	{ "mateescu", "extended Dijkstra with injection time + vertex labelling "
	  "(seed 003 slides 8-14)", gb_plan_mateescu, 0, NULL },
	{ "sa", "driverSA over all nodes (seed 000 Figs. 1-2)", gb_plan_sa, GB_PLAN_ANYTIME, NULL },
	{ "clustered-sa", "clusteredSA on bandwidth pools (seed 000 Fig. 4)",
	  gb_plan_clustered_sa, GB_PLAN_ANYTIME, NULL },
	{ "ecef", "Early Completion Edge First over clusters (seed 002 s3.2)", gb_plan_ecef,
	  GB_PLAN_CLUSTER, NULL },
	{ "ecef-la", "ECEF with look-ahead (seed 002 s3.2)", gb_plan_ecef_la, GB_PLAN_CLUSTER, NULL },
	{ "ecef-lat-min", "ECEF-LAt: look-ahead min(g + L + T) (seed 002 s3.3)",
	  gb_plan_ecef_lat_min, GB_PLAN_CLUSTER, NULL },
	{ "ecef-lat-max", "ECEF-LAT: look-ahead max(g + L + T) (seed 002 s3.3)",
	  gb_plan_ecef_lat_max, GB_PLAN_CLUSTER, NULL },
	{ "bottomup", "BottomUp: most loaded cluster by its best sender (seed 002 s3.3)",
	  gb_plan_bottomup, GB_PLAN_CLUSTER, NULL },
	{ "mostcrit", "MostCrit: the factor with the largest mean deviation (seed 002 s4.1)",
	  gb_plan_mostcrit, GB_PLAN_CLUSTER, NULL },
	{ "sa-contention", "clustered-sa optimising the contention model (ours)",
	  gb_plan_sa_contention, GB_PLAN_ANYTIME, NULL },
	{ "pipeline", "mpich-g2's levels, each shaped as chain or binomial for segmented "
	  "forwarding by the segmented one-port model (ours, issue 14)", gb_plan_pipeline, 0, NULL },
	{ "phoenix", "latency-aware dynamic trees, Fig. 1 + Fig. 3 shortcuts (seed 001 s3)",
	  gb_plan_phoenix, 0, NULL },
};
const int gb_nplanners = sizeof(gb_planners) / sizeof(gb_planners[0]);

const struct gb_planner *gb_planner_find(const char *name)
{
	for (int i = 0; i < gb_nplanners; i++)
		if (name && strcmp(gb_planners[i].name, name) == 0)
			return &gb_planners[i];
	return NULL;
}

/*
 * Plugins and external planners, resolved once per process and never
 * freed: broadcasts cache trees by planner pointer (bcast_tree.c), so one
 * name must always give one pointer.
 */
static struct {
	pthread_mutex_t lock;
	int n;
	struct gb_planner p[GB_PLAN_DYN_MAX];
	char name[GB_PLAN_DYN_MAX][PATH_MAX + 16];
	char path[GB_PLAN_DYN_MAX][PATH_MAX];
} D = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int resolve_dynamic(const char *kind, const char *file, unsigned flag,
			   const struct gb_planner **out, struct gb_err *err)
{
	char abs[PATH_MAX];
	int ret = 0, i;

	if (!*file) {
		gb_err_set(err, "%s: needs a file, as in %s:./myplanner%s", kind, kind,
			   flag == GB_PLAN_PLUGIN ? ".so" : ".py");
		return -EINVAL;
	}
	if (!realpath(file, abs)) {
		ret = -errno;
		gb_err_set(err, "%s:%s: %s", kind, file, strerror(errno));
		return ret;
	}
	pthread_mutex_lock(&D.lock);
	for (i = 0; i < D.n; i++)
		if ((D.p[i].flags & flag) && !strcmp(D.path[i], abs)) {
			*out = &D.p[i];
			goto unlock;
		}
	if (D.n == GB_PLAN_DYN_MAX) {
		ret = -ENOSPC;
		gb_err_set(err, "%s:%s: more than %d plugins and external planners in one "
			   "process", kind, file, GB_PLAN_DYN_MAX);
		goto unlock;
	}
	if (flag == GB_PLAN_EXTERNAL && access(abs, X_OK) < 0) {
		ret = -ENOEXEC;
		gb_err_set(err, "external:%s: not executable (chmod +x, and start it with "
			   "a #! line)", file);
		goto unlock;
	}
	if (flag == GB_PLAN_PLUGIN) {
		struct gb_err pe = { "" };

		ret = gb_plugin_probe(abs, &pe);
		if (ret < 0) {
			if (pe.msg[0])
				gb_err_set(err, "%s", pe.msg);
			goto unlock;
		}
	}
	snprintf(D.path[D.n], sizeof(D.path[D.n]), "%s", abs);
	snprintf(D.name[D.n], sizeof(D.name[D.n]), "%s:%s", kind, abs);
	D.p[D.n] = (struct gb_planner){
		.name = D.name[D.n],
		.summary = flag == GB_PLAN_PLUGIN ? "a planner plugin (docs/plugins.md)" :
			"an external planner (docs/plugins.md)",
		.flags = flag,
		.path = D.path[D.n],
	};
	*out = &D.p[D.n++];
unlock:
	pthread_mutex_unlock(&D.lock);
	return ret;
}

int gb_planner_resolve(const char *name, const struct gb_planner **p, struct gb_err *err)
{
	*p = NULL;
	if (!name) {
		gb_err_set(err, "no planner named");
		return -EINVAL;
	}
	if (!strncmp(name, "plugin:", 7))
		return resolve_dynamic("plugin", name + 7, GB_PLAN_PLUGIN, p, err);
	if (!strncmp(name, "external:", 9))
		return resolve_dynamic("external", name + 9, GB_PLAN_EXTERNAL, p, err);
	*p = gb_planner_find(name);
	if (!*p) {
		gb_err_set(err, "unknown planner '%s' (gridtree list; or plugin:PATH, "
			   "external:PATH)", name);
		return -ENOENT;
	}
	return 0;
}

int gb_plan_err(const struct gb_planner *p, const struct gb_netmodel *m,
		const struct gb_plan_args *a, struct gb_tree *out, struct gb_err *e)
{
	struct gb_err why;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!p || !m || !a || m->n < 1 || a->root < 0 || a->root >= m->n || !(a->size >= 0) ||
	    !isfinite(a->size)) {
		gb_err_set(e, "bad planner arguments");
		return -EINVAL;
	}
	if (a->model && !gb_costmodel_find(a->model)) {
		gb_err_set(e, "unknown cost model '%s'", a->model);
		return -EINVAL;
	}
	ret = gb_tree_init(out, m->n, a->root);
	if (ret < 0)
		return ret;
	if (p->path) {
		ret = gb_plan_external(p, m, a, out, e);
	} else {
		ret = p->plan(m, a, out);
		if (ret < 0)
			gb_err_set(e, "%s: %s", p->name, strerror(-ret));
	}
	if (ret == 0 && gb_tree_check(out, &why) < 0) {
		ret = -EPROTO;
		gb_err_set(e, "%s: not a spanning tree: %s", p->name, why.msg);
	}
	if (ret == 0 && out->root != a->root) {
		ret = -EPROTO;
		gb_err_set(e, "%s: the tree is not rooted at node %d", p->name, a->root);
	}
	if (ret < 0)
		gb_tree_release(out);
	return ret;
}

int gb_plan(const struct gb_planner *p, const struct gb_netmodel *m,
	    const struct gb_plan_args *a, struct gb_tree *out)
{
	return gb_plan_err(p, m, a, out, NULL);
}
