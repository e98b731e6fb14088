/* SPDX-License-Identifier: MIT */
/*
 * bcast_adaptive.c - GRIDBED_BCAST=adaptive: the advisor's trees
 * (gbadvisor.h), for libgridbcast: the "adaptive" tree source that
 * bcast_source.c chooses; bcast_tree.c plans and caches every planner's
 * tree (the fallback's too).
 *
 * Seed 000 s2.5: "MPI_Bcast then reads the current best broadcast tree,
 * corresponding to the message size, generated from clusteredSA".
 *
 *	root:   nearest planned size in $GRIDBED_ADVISOR_DIR that is younger
 *	        than $GRIDBED_ADVISOR_MAXAGE s (gb_advtree_pick())
 *	          found: relabel for this root, restrict to the job's hosts
 *	                 (gb_advtree_for_ranks()); tree_via "advisor"
 *	                 ("advisor-oracle" for a tree planned on the oracle)
 *	          none:  plan $GRIDBED_ADVISOR_FALLBACK (mpich-g2) as that
 *	                 planner would; tree_via "fallback:<planner>", counted
 *	others: the tree arrives in the header (bcast_core.h)
 *
 * Choices:
 *  - The tree always travels in the header, the fallback's too (even a
 *    static planner's): only the root knows whether a fresh advisor tree
 *    was there, and its bytes are counted like every piggybacked tree's.
 *  - Nothing is cached: the advisor replaces its trees at any time, and
 *    the lookup (a directory scan and one small JSON file at the root)
 *    happens before the broadcast's t_begin.
 *  - GRIDBED_TREE_SHARED does not apply (the fallback is planned at the
 *    root only, so nobody meets at its barrier).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcast_impl.h"
#include "gbadvisor.h"

#define ADVISOR_MAXAGE 600.0
#define ADVISOR_FALLBACK "mpich-g2"

static struct gb_bcast_adaptive_stats AS;

void gb_bcast_adaptive_stats(struct gb_bcast_adaptive_stats *s)
{
	*s = AS;
}

uint64_t gb_bcast_adaptive_fallbacks(void)
{
	return AS.fallbacks;
}

/* Every rank checks the environment, so a mistake fails everywhere alike. */
static int adaptive_env(const struct gb_planner **fallback, double *maxage)
{
	const char *f = getenv("GRIDBED_ADVISOR_FALLBACK"), *a = getenv("GRIDBED_ADVISOR_MAXAGE");
	char *end;
	double k;

	if (!f || !*f)
		f = ADVISOR_FALLBACK;
	*fallback = gb_planner_find(f);
	if (!*fallback) {
		gb_bcast_seterr("GRIDBED_ADVISOR_FALLBACK: unknown planner '%s' (see gridtree list)",
				f);
		return -ENOENT;
	}
	*maxage = ADVISOR_MAXAGE;
	if (a && *a) {
		*maxage = strtod(a, &end);
		if (*end || !(*maxage >= 0)) {
			gb_bcast_seterr("GRIDBED_ADVISOR_MAXAGE: '%s' is not a number of seconds", a);
			return -EINVAL;
		}
	}
	/* the age is the topology's time; the files age on the wall clock,
	 * k times faster on a dilated grid (docs/architecture.md, decision 9) */
	if (gb_env_dilation(&k) < 0) {
		gb_bcast_seterr("GRIDBED_DILATE: '%s' is not a number in [1, 1000]",
				getenv("GRIDBED_DILATE"));
		return -EINVAL;
	}
	*maxage *= k;
	return 0;
}

/* The root's tree from the advisor into @e; -ENOENT (and @why) if none fits. */
static int advisor_tree(struct gb_bcast_comm *c, struct gb_bcast_entry *e, double maxage,
			struct gb_err *why)
{
	const char *dir = getenv("GRIDBED_ADVISOR_DIR");
	char (*names)[32] = NULL;
	struct gb_advtree a;
	int ret;

	if (!dir || !*dir) {
		gb_err_set(why, "GRIDBED_ADVISOR_DIR is not set");
		return -ENOENT;
	}
	ret = gb_advtree_pick(dir, e->size, maxage, gb_now(), &a, why);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0)
		return -ENOENT;     /* an unreadable directory is no tree either */
	names = malloc(sizeof(*names) * c->n);
	if (!names) {
		gb_advtree_release(&a);
		return -ENOMEM;
	}
	for (int i = 0; i < c->n; i++)
		gb_bcast_rank_name(c, i, names[i], sizeof(names[i]));
	ret = gb_advtree_for_ranks(&a, (const char (*)[32])names, c->n, e->root, &e->t, why);
	if (ret == 0) {
		e->tree_via = a.meta.oracle ? "advisor-oracle" : "advisor";
		snprintf(e->model, sizeof(e->model), "advisor %.150s (%s for %.0f B, %s matrix "
			 "v%llu%s)", a.path, a.meta.planner, a.meta.size,
			 a.meta.oracle ? "ORACLE" : "measured",
			 (unsigned long long)a.meta.matrix_version,
			 a.n != c->n ? ", restricted to the job's hosts" : "");
	}
	free(names);
	gb_advtree_release(&a);
	return ret == -ENOMEM ? ret : ret < 0 ? -ENOENT : 0;
}

int gb_bcast_adaptive_entry(struct gb_bcast_comm *c, int root, double size,
			    const struct gb_bcast_opts *o, struct gb_bcast_entry **out,
			    double *plan_s)
{
	struct gb_bcast_entry *e = &c->adaptive, *fe;
	struct gb_bcast_opts fo;
	const struct gb_planner *fp = NULL;
	double t0 = gb_now(), maxage = ADVISOR_MAXAGE, ps;
	struct gb_err why = { "" };
	int ret;

	*plan_s = 0;
	ret = gb_bcast_planning_init(c);
	if (ret == 0)
		ret = adaptive_env(&fp, &maxage);
	if (ret < 0)
		return ret;
	gb_tree_release(&e->t);
	memset(e, 0, sizeof(*e));
	e->root = root;
	e->size = size;
	*out = e;
	if (c->rank != root) {
		e->tree_via = "piggyback";
		snprintf(e->model, sizeof(e->model), "planned at the root");
		return 0;
	}
	AS.calls++;
	ret = advisor_tree(c, e, maxage, &why);
	if (ret == 0) {
		AS.advisor++;
		*plan_s = gb_now() - t0;
		return 0;
	}
	if (ret != -ENOENT)
		return ret;
	memset(&fo, 0, sizeof(fo));
	if (o)
		fo = *o;
	fo.flags &= ~GB_BCAST_SHARED;
	ret = gb_bcast_get_entry(c, fp, root, size, &fo, &fe, &ps);
	if (ret == 0)
		ret = gb_tree_copy(&e->t, &fe->t);
	if (ret < 0)
		return ret;
	AS.fallbacks++;
	snprintf(AS.last_why, sizeof(AS.last_why), "%s", why.msg);
	snprintf(c->adaptive_via, sizeof(c->adaptive_via), "fallback:%s", fp->name);
	e->tree_via = c->adaptive_via;
	snprintf(e->model, sizeof(e->model), "%.110s (no advisor tree: %.120s)", fe->model, why.msg);
	*plan_s = gb_now() - t0;
	return 0;
}
