/* SPDX-License-Identifier: MIT */
/*
 * planners.c - the planner registry (docs/architecture.md, decision 5).
 *
 * One line per algorithm, in the order issue 3 lists them; `gridtree list`
 * prints this table and the tests and benchmarks iterate over it, so a
 * planner registered here is covered everywhere.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "plan_impl.h"

const struct gb_planner gb_planners[] = {
	{ "binomial", "MPICH's binomial tree relative to the root, largest subtree first",
	  gb_plan_binomial, GB_PLAN_STATIC },
	{ "flat", "the root sends to every node in turn", gb_plan_flat, GB_PLAN_STATIC },
	{ "chain", "each rank sends to the next from the root on: Open MPI's pipeline "
	  "broadcast's chain (issue 14's executor overhead)", gb_plan_chain, GB_PLAN_STATIC },
	{ "mpich-g2", "MPICH-G2 multilevel: flat over WAN, binomial in sites and clusters",
	  gb_plan_mpichg2, GB_PLAN_STATIC },
	{ "magpie", "MagPIe: root to every cluster coordinator, then binomial in clusters",
	  gb_plan_magpie, GB_PLAN_STATIC },
	{ "mateescu", "extended Dijkstra with injection time + vertex labelling "
	  "(seed 003 slides 8-14)", gb_plan_mateescu, 0 },
	{ "sa", "driverSA over all nodes (seed 000 Figs. 1-2)", gb_plan_sa, GB_PLAN_ANYTIME },
	{ "clustered-sa", "clusteredSA on bandwidth pools (seed 000 Fig. 4)",
	  gb_plan_clustered_sa, GB_PLAN_ANYTIME },
	{ "ecef", "Early Completion Edge First over clusters (seed 002 s3.2)", gb_plan_ecef,
	  GB_PLAN_CLUSTER },
	{ "ecef-la", "ECEF with look-ahead (seed 002 s3.2)", gb_plan_ecef_la, GB_PLAN_CLUSTER },
	{ "ecef-lat-min", "ECEF-LAt: look-ahead min(g + L + T) (seed 002 s3.3)",
	  gb_plan_ecef_lat_min, GB_PLAN_CLUSTER },
	{ "ecef-lat-max", "ECEF-LAT: look-ahead max(g + L + T) (seed 002 s3.3)",
	  gb_plan_ecef_lat_max, GB_PLAN_CLUSTER },
	{ "bottomup", "BottomUp: most loaded cluster by its best sender (seed 002 s3.3)",
	  gb_plan_bottomup, GB_PLAN_CLUSTER },
	{ "mostcrit", "MostCrit: the factor with the largest mean deviation (seed 002 s4.1)",
	  gb_plan_mostcrit, GB_PLAN_CLUSTER },
	{ "sa-contention", "clustered-sa optimising the contention model (ours)",
	  gb_plan_sa_contention, GB_PLAN_ANYTIME },
	{ "pipeline", "mpich-g2's levels, each shaped as chain or binomial for segmented "
	  "forwarding by the segmented one-port model (ours, issue 14)", gb_plan_pipeline, 0 },
	{ "phoenix", "latency-aware dynamic trees, Fig. 1 + Fig. 3 shortcuts (seed 001 s3)",
	  gb_plan_phoenix, 0 },
};
const int gb_nplanners = sizeof(gb_planners) / sizeof(gb_planners[0]);

const struct gb_planner *gb_planner_find(const char *name)
{
	for (int i = 0; i < gb_nplanners; i++)
		if (name && strcmp(gb_planners[i].name, name) == 0)
			return &gb_planners[i];
	return NULL;
}

int gb_plan(const struct gb_planner *p, const struct gb_netmodel *m,
	    const struct gb_plan_args *a, struct gb_tree *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	if (!p || !m || !a || m->n < 1 || a->root < 0 || a->root >= m->n || !(a->size >= 0) ||
	    !isfinite(a->size))
		return -EINVAL;
	if (a->model && !gb_costmodel_find(a->model))
		return -EINVAL;
	ret = gb_tree_init(out, m->n, a->root);
	if (ret < 0)
		return ret;
	ret = p->plan(m, a, out);
	if (ret == 0 && gb_tree_check(out, NULL, 0) < 0)
		ret = -EPROTO;
	if (ret == 0 && out->root != a->root)
		ret = -EPROTO;
	if (ret < 0)
		gb_tree_release(out);
	return ret;
}
