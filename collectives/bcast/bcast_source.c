/* SPDX-License-Identifier: MIT */
/*
 * bcast_source.c - where a broadcast's tree comes from, and the one place
 * that picks (issue 45): gb_bcast_prepare(), gb_bcast_run() and the
 * public gb_bcast_tree() (gridbcast.h).
 *
 * A tree source turns an algorithm name into a cache entry (the tree at
 * the root, or the word that it will arrive in the header); the executor
 * (bcast_exec.c, bcast_pipe.c) then runs whatever tree it is handed and
 * never calls back into planning (t/0095-layering.t checks it).  As in
 * Open MPI's coll/han, choosing is a table apart from the algorithms:
 *
 *	source     algorithm names          entry                  header
 *	native     native                   none: MPI's MPI_Bcast  -
 *	adaptive   adaptive                 the advisor's tree,    always
 *	                                    else its fallback's    (bcast_adaptive.c)
 *	plugin     plugin:PATH              gb_bcast_get_entry()   as planned
 *	external   external:PATH            gb_bcast_get_entry()   as planned
 *	planner    the registry's names     gb_bcast_get_entry()   as planned
 *	           (phoenix: phoenixd's trees when GRIDBED_PHOENIX_TREES names
 *	           them, bcast_tree.c)
 *
 * "as planned": static planners plan on every rank (no header), measured
 * ones at the root (header), the shared-file ablation through a file
 * (bcast_tree.c).  A plugin or external planner that fails at the root
 * gives a labelled fallback tree, not an error (bcast_tree.c).
 */
#include <errno.h>
#include <string.h>

#include "bcast_impl.h"

/* An entry for (@algo, @root, @size) of @c; *e = NULL for MPI's own. */
typedef int source_entry_fn(struct gb_bcast_comm *c, const char *algo, int root, double size,
			    const struct gb_bcast_opts *o, struct gb_bcast_entry **e,
			    double *plan_s);

struct tree_source {
	const char *name;
	const char *prefix;      /* algorithm names it takes: this one, or starting
				    with it when it ends in ':'; NULL: any other */
	source_entry_fn *entry;  /* NULL: the MPI library's own broadcast */
	int always_header;       /* the tree always rides in the header */
};

static int planner_entry(struct gb_bcast_comm *c, const char *algo, int root, double size,
			 const struct gb_bcast_opts *o, struct gb_bcast_entry **e,
			 double *plan_s)
{
	const struct gb_planner *p;
	struct gb_err err;
	int ret = gb_planner_resolve(algo, &p, &err);

	if (ret < 0) {
		gb_bcast_seterr("%s", err.msg);
		return ret;
	}
	return gb_bcast_get_entry(c, p, root, size, o, e, plan_s);
}

static int adaptive_entry(struct gb_bcast_comm *c, const char *algo, int root, double size,
			  const struct gb_bcast_opts *o, struct gb_bcast_entry **e,
			  double *plan_s)
{
	(void)algo;
	return gb_bcast_adaptive_entry(c, root, size, o, e, plan_s);
}

static const struct tree_source sources[] = {
	{ "native", "native", NULL, 0 },
	{ "adaptive", "adaptive", adaptive_entry, 1 },
	{ "plugin", "plugin:", planner_entry, 0 },
	{ "external", "external:", planner_entry, 0 },
	{ "planner", NULL, planner_entry, 0 },
};

static const struct tree_source *source_for(const char *algo)
{
	size_t n = sizeof(sources) / sizeof(sources[0]);

	for (size_t i = 0; i < n; i++) {
		const char *pf = sources[i].prefix;
		size_t len = pf ? strlen(pf) : 0;

		if (!pf)
			return &sources[i];
		if (pf[len - 1] == ':' ? !strncmp(algo, pf, len) : !strcmp(algo, pf))
			return &sources[i];
	}
	return NULL;    /* not reached: the last source takes any name */
}

/* Source @src's entry of one call; *e = NULL for MPI's own broadcast. */
static int select_entry(const struct tree_source *src, const char *algo, int root, double size,
			MPI_Comm comm, const struct gb_bcast_opts *o, struct gb_bcast_comm **c,
			struct gb_bcast_entry **e, double *plan_s)
{
	int ret;

	*e = NULL;
	*plan_s = 0;
	if (!src) {
		gb_bcast_seterr("no algorithm named");
		return -EINVAL;
	}
	if (!src->entry)
		return 0;
	ret = gb_bcast_comm_get(comm, c);
	if (ret < 0)
		return ret;
	if (root < 0 || root >= (*c)->n) {
		gb_bcast_seterr("root %d is not a rank of the communicator (size %d)", root,
				(*c)->n);
		return -EINVAL;
	}
	return src->entry(*c, algo, root, size, o, e, plan_s);
}

int gb_bcast_prepare(const char *algo, int root, double size, MPI_Comm comm,
		     const struct gb_bcast_opts *o, struct gb_bcast_info *info)
{
	const struct tree_source *src = algo ? source_for(algo) : NULL;
	struct gb_bcast_comm *c;
	struct gb_bcast_entry *e;
	double plan_s;
	int ret = select_entry(src, algo, root, size, comm, o, &c, &e, &plan_s);

	if (ret == 0)
		gb_bcast_set_info(info, e, plan_s);
	return ret;
}

int gb_bcast_run(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
		 const char *algo, const struct gb_bcast_opts *o, struct gb_bcast_timing *tm,
		 struct gb_bcast_info *info)
{
	const struct tree_source *src = algo ? source_for(algo) : NULL;
	struct gb_bcast_opts eo;
	struct gb_bcast_comm *c;
	struct gb_bcast_entry *e;
	double plan_s;
	int tsize = 0, ret;

	if (src && !src->entry) {
		gb_bcast_set_info(info, NULL, 0);
		return gb_bcast_native(buf, count, dt, root, comm, tm);
	}
	if (count < 0 || MPI_Type_size(dt, &tsize) != MPI_SUCCESS) {
		gb_bcast_seterr("bad root, count or datatype");
		return -EINVAL;
	}
	ret = select_entry(src, algo, root, (double)count * tsize, comm, o, &c, &e, &plan_s);
	if (ret < 0)
		return ret;
	eo = gb_bcast_call_opts(c, e, o, root, tsize);
	eo.flags &= ~GB_BCAST_PIGGYBACK;
	if (src->always_header)
		eo.flags &= ~GB_BCAST_SHARED;
	if (src->always_header || !strcmp(e->tree_via, "piggyback"))
		eo.flags |= GB_BCAST_PIGGYBACK;
	ret = gb_bcast_exec(buf, count, dt, root, comm, e->t.n ? &e->t : NULL, &eo, tm);
	gb_bcast_set_info(info, e, plan_s);
	return ret;
}

int gb_bcast_tree(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
		  const struct gb_tree *t, const struct gb_bcast_opts *o,
		  struct gb_bcast_timing *tm)
{
	struct gb_bcast_comm *c;
	int tsize = 0, ret;

	/* the ranks' clusters, which stripes need (gridbcast.h), come from
	 * the planning side's model of the ranks */
	if (o && count > 0 && dt != MPI_DATATYPE_NULL && MPI_Type_size(dt, &tsize) == MPI_SUCCESS &&
	    gb_stripes_for(&o->stripes, (double)count * tsize) > 1) {
		ret = gb_bcast_comm_get(comm, &c);
		if (ret == 0)
			ret = gb_bcast_planning_init(c);
		if (ret < 0)
			return ret;
	}
	return gb_bcast_exec(buf, count, dt, root, comm, t, o, tm);
}
