/* SPDX-License-Identifier: MIT */
/*
 * driver.c - the grid-aware stencil driver (gbstdriver.h, seed 004): its
 * machines, benchmark, layout, fields and lifecycle.  The halo exchange is
 * driver_halo.c, checksums, dumps and reports driver_results.c.
 *
 * One iteration of a rank on the machine boundary, ghost depth d = 3:
 *
 *	it    wide face   update region along L            other faces
 *	t     exchange    interior + 2 ghost layers         exchange (span: +2)
 *	t+1   -           interior + 1                      exchange (span: +1)
 *	t+2   -           interior                          exchange
 *	t+3   exchange    interior + 2 ...
 *
 *	      machine A                 |WAN|             machine B
 *	 ... [rank a: n_L points][ghost d]   [ghost d][rank b: n_L points] ...
 *	        a updates b's d-1 nearest layers itself, and b a's, from the
 *	        same operands their owners use, so nobody waits for the WAN
 *	        in between.
 *
 * Choices where the paper is open (besides those in gbstencil.h):
 *  - a machine is a topology cluster, machines are lined up in the
 *    topology's cluster order (what DUROC's job layout would list);
 *  - s4.1's benchmark is a 5-point relaxation sweep on a 96 x 96 array
 *    (in cache: it measures the processor, not memory), run by all ranks
 *    at once for bench_s seconds of wall time: the paper times its loop
 *    with getrusage(), i.e. CPU time, which on dedicated processors is the
 *    same thing; under a CPU quota only wall time shows the slowdown.  A
 *    machine's speed is the mean of its ranks';
 *  - s6's global decision uses a topology-aware reduction (the paper's
 *    "upper left processor" exchange): the maximum over each machine's
 *    boundary ranks, then between the machines' leaders, then back;
 *  - one wide-area depth for all machine boundaries (with two machines
 *    there is only one).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gbstdriver.h"
#include "gbtopo.h"
#include "gridbcast.h"
#include "gbutil.h"
#include "driver_priv.h"

void gb_st_opts_default(struct gb_st_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = GB_ST_GRID;
	o->features = GB_ST_F_ALL;
	o->reduce = 0.2;
	o->bench_s = 1.0;
	o->monitor = 20;
	o->reeval = 300;
	o->warmup = 20;
	o->eps = 0.05;
	o->zlevel = 1;
	o->ghost_max = 8;
	o->ghost_fixed = 0;
	o->compress_fixed = -1;
}

const struct gb_st_layout *gb_st_layout_of(const struct gb_st *s)
{
	return &s->lay;
}

const struct gb_st_geom *gb_st_geometry(const struct gb_st *s)
{
	return &s->geo;
}

static int has(const struct gb_st *s, unsigned f)
{
	return s->o.mode == GB_ST_GRID && (s->o.features & f);
}

/* ------------------------------------------------------------------ */
/* Machines (s3.3 step 1: the job layout)                              */
/* ------------------------------------------------------------------ */

static int find_machines(struct gb_st *s)
{
	struct gb_st_layout *l = &s->lay;
	const struct gb_topo *t;
	int *hosts = NULL, *cl2m = NULL, ret;

	hosts = malloc(sizeof(int) * s->size);
	l->rank_mach = calloc(s->size, sizeof(int));
	if (!hosts || !l->rank_mach) {
		ret = -ENOMEM;
		goto cleanup;
	}
	ret = gb_bcast_comm_hosts(s->comm, hosts);
	if (ret < 0) {
		fail(s, "cannot map ranks to hosts: %s", gb_bcast_strerror());
		goto cleanup;
	}
	t = gb_bcast_topology();
	if (!t) {
		l->nmach = 1;
		snprintf(l->source, sizeof(l->source),
			 "none (no rank map, GRIDBED_TOPOLOGY or grid): one machine");
	} else {
		const char *rm = getenv("GRIDBED_RANKMAP");

		snprintf(l->topology, sizeof(l->topology), "%s", t->path);
		if (rm && *rm)
			snprintf(l->source, sizeof(l->source), "rank map %s", rm);
		else
			snprintf(l->source, sizeof(l->source), "topology %s (rank r on host r)",
				 t->path);
		cl2m = malloc(sizeof(int) * (t->nclusters ? t->nclusters : 1));
		if (!cl2m) {
			ret = -ENOMEM;
			goto cleanup;
		}
		for (int c = 0; c < t->nclusters; c++)
			cl2m[c] = -1;
		for (int r = 0; r < s->size; r++)
			cl2m[t->nodes[hosts[r]].cluster] = 0;
		l->nmach = 0;
		for (int c = 0; c < t->nclusters; c++)
			if (cl2m[c] == 0)
				cl2m[c] = l->nmach++;
	}
	l->mach_name = calloc(l->nmach, sizeof(*l->mach_name));
	l->mach_np = calloc(l->nmach, sizeof(int));
	l->mach_speed = calloc(l->nmach, sizeof(double));
	l->kl = calloc(l->nmach, sizeof(int));
	if (!l->mach_name || !l->mach_np || !l->mach_speed || !l->kl) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (int r = 0; r < s->size; r++) {
		int m = t ? cl2m[t->nodes[hosts[r]].cluster] : 0;

		l->rank_mach[r] = m;
		l->mach_np[m]++;
		snprintf(l->mach_name[m], sizeof(l->mach_name[m]), "%s",
			 t ? t->clusters[t->nodes[hosts[r]].cluster].name : "all");
	}
	ret = 0;
cleanup:
	free(hosts);
	free(cl2m);
	return ret;
}

/* ------------------------------------------------------------------ */
/* s4.1: the benchmark loop                                            */
/* ------------------------------------------------------------------ */

#define BN 96

static double bench_loop(double secs)
{
	double *a = malloc(sizeof(double) * BN * BN), *b = malloc(sizeof(double) * BN * BN);
	double t0, el, sink = 0;
	long sweeps = 0;

	if (!a || !b) {
		free(a);
		free(b);
		return 0;
	}
	for (int i = 0; i < BN * BN; i++)
		a[i] = b[i] = (double)(i % 17) / 17.0;
	t0 = gb_now();
	do {
		for (int i = 1; i < BN - 1; i++)
			for (int j = 1; j < BN - 1; j++)
				b[i * BN + j] = 0.25 * (a[(i - 1) * BN + j] + a[(i + 1) * BN + j] +
							a[i * BN + j - 1] + a[i * BN + j + 1]);
		double *x = a;
		a = b;
		b = x;
		sweeps++;
		el = gb_now() - t0;
	} while (el < secs);
	sink = a[BN + 1];
	free(a);
	free(b);
	/* keep the loop from being optimised away */
	return (double)sweeps * (BN - 2) * (BN - 2) / el + (sink != sink);
}

static int measure_speeds(struct gb_st *s)
{
	struct gb_st_layout *l = &s->lay;
	double *sum = calloc(l->nmach, sizeof(double)), t0;
	int ret;

	if (!sum)
		return -ENOMEM;
	MPI_Barrier(s->comm);
	t0 = gb_now();
	sum[l->rank_mach[s->rank]] = bench_loop(s->o.bench_s);
	s->st.t_bench = gb_now() - t0;
	ret = MPI_Allreduce(sum, l->mach_speed, l->nmach, MPI_DOUBLE, MPI_SUM, s->comm);
	free(sum);
	if (ret != MPI_SUCCESS)
		return fail(s, "benchmark: MPI_Allreduce failed"), -EIO;
	for (int m = 0; m < l->nmach; m++) {
		l->mach_speed[m] /= l->mach_np[m];
		if (!(l->mach_speed[m] > 0))
			return fail(s, "benchmark: machine '%s' measured no speed", l->mach_name[m]);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Layout: s3 topology, placement, s4 slabs                            */
/* ------------------------------------------------------------------ */

static int layout(struct gb_st *s)
{
	struct gb_st_layout *l = &s->lay;
	const struct gb_st_opts *o = &s->o;
	int nd = o->ndim, ncell = s->size, *cellidx = NULL, *mlist = NULL, *first = NULL;
	int *cellrank = NULL, *len[GB_ST_MAXDIM] = { 0 }, *cellmach = NULL, me = -1, ret;
	int stride[GB_ST_MAXDIM];
	char b1[64];

	ret = -ENOMEM;
	cellrank = malloc(sizeof(int) * ncell);
	cellmach = malloc(sizeof(int) * ncell);
	mlist = malloc(sizeof(int) * ncell);
	first = calloc(l->nmach + 1, sizeof(int));
	if (!cellrank || !cellmach || !mlist || !first)
		goto cleanup;
	l->nranks = s->size;
	l->L = gb_st_longest(nd, o->grid);
	if (has(s, GB_ST_F_TOPO)) {
		/* s3.3, and the machines' ranks, in rank order, fill their cuboids */
		ret = gb_st_topo_grid(nd, o->grid, l->nmach, l->mach_np, l->k, l->kl, NULL);
		if (ret < 0)
			goto cleanup;
		for (int m = 0; m < l->nmach; m++)
			first[m + 1] = first[m] + l->mach_np[m];
		{
			int *pos = calloc(l->nmach, sizeof(int));

			if (!pos) {
				ret = -ENOMEM;
				goto cleanup;
			}
			for (int r = 0; r < s->size; r++) {
				int m = l->rank_mach[r];

				mlist[first[m] + pos[m]++] = r;
			}
			free(pos);
		}
		ret = -ENOMEM;
		cellidx = malloc(sizeof(int) * ncell);
		if (!cellidx)
			goto cleanup;
		ret = gb_st_place_grid(nd, l->k, l->L, l->nmach, l->kl, cellidx);
		if (ret < 0)
			goto cleanup;
		for (int c = 0; c < ncell; c++)
			cellrank[c] = mlist[cellidx[c]];
	} else {
		/* the classical layout: MPI_Dims_create-like, row-major ranks */
		ret = gb_st_topo_even(nd, s->size, l->k);
		if (ret < 0)
			goto cleanup;
		for (int c = 0; c < ncell; c++)
			cellrank[c] = c;
		/* positions along L per machine only mean something in s3.3 */
		memset(l->kl, 0, sizeof(int) * l->nmach);
	}
	for (int c = 0; c < ncell; c++) {
		cellmach[c] = l->rank_mach[cellrank[c]];
		if (cellrank[c] == s->rank)
			me = c;
	}
	for (int d = nd - 1, st = 1; d >= 0; d--) {
		stride[d] = st;
		st *= l->k[d];
	}
	for (int d = 0; d < nd; d++) {
		s->coord[d] = me / stride[d] % l->k[d];
		if (o->grid[d] < l->k[d]) {
			ret = fail(s, "grid %s: dimension %d has %d points for %d processors",
				   gb_st_fmt_dims(nd, o->grid, b1, sizeof(b1)), d, o->grid[d],
				   l->k[d]);
			goto cleanup;
		}
	}

	/* s4: slabs along L by speed (grid-aware), everything else even */
	ret = -ENOMEM;
	l->slab = malloc(sizeof(int) * l->k[l->L]);
	if (!l->slab)
		goto cleanup;
	for (int d = 0; d < nd; d++) {
		len[d] = malloc(sizeof(int) * l->k[d]);
		if (!len[d])
			goto cleanup;
		ret = gb_st_split_even(o->grid[d], l->k[d], len[d]);
		if (ret < 0)
			goto cleanup;
	}
	if (has(s, GB_ST_F_TOPO) && (has(s, GB_ST_F_BALANCE) || has(s, GB_ST_F_OVERLAP)) &&
	    l->nmach > 1) {
		double *w = malloc(sizeof(double) * l->k[l->L]), *sp = NULL;

		ret = -ENOMEM;
		sp = malloc(sizeof(double) * l->nmach);
		if (!w || !sp) {
			free(w);
			free(sp);
			goto cleanup;
		}
		for (int m = 0; m < l->nmach; m++)
			sp[m] = has(s, GB_ST_F_BALANCE) ? l->mach_speed[m] : 1.0;
		ret = gb_st_slab_weights(l->nmach, l->kl, sp,
					 has(s, GB_ST_F_OVERLAP) ? o->reduce : 0, w);
		if (ret == 0)
			ret = gb_st_balance(o->grid[l->L], l->k[l->L], w, 1, len[l->L]);
		free(w);
		free(sp);
		if (ret < 0) {
			fail(s, "cannot balance %d points over %d slabs", o->grid[l->L],
			     l->k[l->L]);
			goto cleanup;
		}
	}
	memcpy(l->slab, len[l->L], sizeof(int) * l->k[l->L]);
	for (int d = 0; d < nd; d++) {
		s->geo.n[d] = len[d][s->coord[d]];
		s->geo.off[d] = 0;
		for (int i = 0; i < s->coord[d]; i++)
			s->geo.off[d] += len[d][i];
	}
	l->wan_face = gb_st_wan_face(nd, l->k, len, cellmach);

	/* neighbours; the thinnest slab next to a machine boundary caps s6 */
	l->ghost_cap = INT32_MAX;
	for (int d = 0; d < nd; d++)
		for (int side = 0; side < 2; side++) {
			struct face *f = &s->face[d][side];
			int c = s->coord[d] + (side ? 1 : -1);

			f->dim = d;
			f->side = side;
			f->nbr = c < 0 || c >= l->k[d] ? -1 : cellrank[me + (c - s->coord[d]) * stride[d]];
			f->wan = f->nbr >= 0 && l->rank_mach[f->nbr] != l->rank_mach[s->rank];
			s->is_wan |= f->wan;
		}
	l->nwan = 0;
	for (int c = 0; c < ncell; c++) {
		int wan = 0;

		for (int d = 0; d < nd; d++) {
			int x = c / stride[d] % l->k[d];

			if ((x > 0 && cellmach[c - stride[d]] != cellmach[c]) ||
			    (x + 1 < l->k[d] && cellmach[c + stride[d]] != cellmach[c])) {
				wan = 1;
				if (d == l->L && len[d][x] < l->ghost_cap)
					l->ghost_cap = len[d][x];
			}
		}
		l->nwan += wan;
	}
	if (l->ghost_cap > o->ghost_max)
		l->ghost_cap = o->ghost_max;
	if (l->ghost_cap < 1)
		l->ghost_cap = 1;
	ret = 0;
cleanup:
	for (int d = 0; d < GB_ST_MAXDIM; d++)
		free(len[d]);
	free(cellidx);
	free(cellrank);
	free(cellmach);
	free(mlist);
	free(first);
	return ret;
}

static int check_opts(struct gb_st *s)
{
	const struct gb_st_opts *o = &s->o;

	if (o->ndim < 1 || o->ndim > GB_ST_MAXDIM)
		return fail(s, "%d dimensions (1 to %d)", o->ndim, GB_ST_MAXDIM);
	for (int d = 0; d < o->ndim; d++)
		if (o->grid[d] < 1)
			return fail(s, "grid dimension %d has %d points", d, o->grid[d]);
	if (o->mode != GB_ST_STANDARD && o->mode != GB_ST_GRID)
		return fail(s, "unknown mode %d", (int)o->mode);
	if (!(o->reduce >= 0 && o->reduce < 1))
		return fail(s, "reduce %g is not in [0, 1)", o->reduce);
	if (o->monitor < 1 || o->reeval < 0 || o->warmup < 0 || !(o->eps >= 0))
		return fail(s, "bad adaptation parameters (N %d, M %d, warm-up %d, eps %g)",
			    o->monitor, o->reeval, o->warmup, o->eps);
	if (o->zlevel < 1 || o->zlevel > 9)
		return fail(s, "zlib level %d is not 1..9", o->zlevel);
	if (o->ghost_max < 1 || o->ghost_fixed < 0)
		return fail(s, "bad ghost depths (max %d, fixed %d)", o->ghost_max, o->ghost_fixed);
	if (o->compress_fixed < -1 || o->compress_fixed > 1)
		return fail(s, "compress_fixed %d is not -1, 0 or 1", o->compress_fixed);
	if (!(o->bench_s > 0) || o->bench_s > 600)
		return fail(s, "benchmark length %g s is not in (0, 600]", o->bench_s);
	return 0;
}

/* gb_st_create()'s steps on @s, allocated; its words in s->why */
static int create(struct gb_st *s, MPI_Comm comm, const struct gb_st_opts *o)
{
	int ret;

	s->comm = comm;
	s->side_comm = s->lead_comm = MPI_COMM_NULL;
	s->o = *o;
	MPI_Comm_rank(comm, &s->rank);
	MPI_Comm_size(comm, &s->size);
	if ((ret = check_opts(s)) < 0)
		return ret;
	if ((ret = find_machines(s)) < 0)
		return ret;
	if (has(s, GB_ST_F_TOPO) && has(s, GB_ST_F_BALANCE) && s->lay.nmach > 1 &&
	    (ret = measure_speeds(s)) < 0)
		return ret;
	if ((ret = layout(s)) < 0) {
		if (!s->why.msg[0])
			fail(s, "cannot lay out grid on %d ranks: %s", s->size, strerror(-ret));
		return ret;
	}
	s->geo.ndim = o->ndim;
	s->geo.L = s->lay.L;
	return 0;
}

int gb_st_create(MPI_Comm comm, const struct gb_st_opts *o, struct gb_st **out,
		 struct gb_err *err)
{
	struct gb_st *s = calloc(1, sizeof(*s));
	int ret;

	*out = s;
	if (!s) {
		gb_err_set(err, "out of memory");
		return -ENOMEM;
	}
	ret = create(s, comm, o);
	if (ret < 0)
		gb_err_set(err, "%s", s->why.msg);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Fields                                                              */
/* ------------------------------------------------------------------ */

int gb_st_add_group(struct gb_st *s, const char *name, int nvars)
{
	struct group *g;

	if (s->started || nvars < 1 || nvars > 1024)
		return -EINVAL;
	g = realloc(s->grp, sizeof(*g) * (s->ngroups + 1));
	if (!g)
		return -ENOMEM;
	s->grp = g;
	g = &s->grp[s->ngroups];
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", name ? name : "");
	g->nvars = nvars;
	return s->ngroups++;
}

/* Who on the boundary takes part in s6's decision: every wide-area rank,
 * grouped by machine; the first of each machine talks to the others. */
static int make_comms(struct gb_st *s)
{
	int color = s->is_wan ? s->lay.rank_mach[s->rank] : MPI_UNDEFINED, srank = -1;

	if (MPI_Comm_split(s->comm, color, s->rank, &s->side_comm) != MPI_SUCCESS)
		return -EIO;
	if (s->side_comm != MPI_COMM_NULL)
		MPI_Comm_rank(s->side_comm, &srank);
	color = srank == 0 ? 0 : MPI_UNDEFINED;
	if (MPI_Comm_split(s->comm, color, s->rank, &s->lead_comm) != MPI_SUCCESS)
		return -EIO;
	return 0;
}

/* gb_st_start()'s steps; its words in s->why */
static int start(struct gb_st *s)
{
	const struct gb_st_layout *l = &s->lay;
	int nd = s->geo.ndim, ret, ghost_on, init;
	long st = 1;

	if (s->started)
		return -EINVAL;
	/* wide faces: the machine boundary along L, grid-aware layout only */
	ghost_on = has(s, GB_ST_F_TOPO) && (has(s, GB_ST_F_GHOST) || s->o.ghost_fixed > 1);
	init = s->o.ghost_fixed > 0 ? s->o.ghost_fixed : 1;
	if (init > l->ghost_cap)
		init = l->ghost_cap;
	for (int d = 0; d < nd; d++)
		for (int side = 0; side < 2; side++) {
			struct face *f = &s->face[d][side];

			f->wide = ghost_on && d == l->L && f->wan;
			f->depth = f->wide ? init : 1;
			f->valid = 0;
			s->gw[d][side] = f->wide ? (has(s, GB_ST_F_GHOST) && !s->o.ghost_fixed ?
						    l->ghost_cap : init) : 1;
		}
	for (int d = nd - 1; d >= 0; d--) {
		s->geo.stride[d] = st;
		st *= s->gw[d][0] + s->geo.n[d] + s->gw[d][1];
	}
	s->alloc = st;
	s->origin = 0;
	for (int d = 0; d < nd; d++)
		s->origin += s->gw[d][0] * s->geo.stride[d];
	for (int g = 0; g < s->ngroups; g++) {
		struct group *gr = &s->grp[g];

		gr->mem = calloc((size_t)gr->nvars * NLEV, sizeof(double *));
		if (!gr->mem)
			return -ENOMEM;
		for (int i = 0; i < gr->nvars * NLEV; i++) {
			gr->mem[i] = calloc((size_t)s->alloc, sizeof(double));
			if (!gr->mem[i])
				return -ENOMEM;
		}
	}
	for (int d = 0; d < nd; d++)
		for (int side = 0; side < 2; side++) {
			s->face[d][side].buf = calloc(s->ngroups ? s->ngroups : 1, sizeof(struct fbuf));
			if (!s->face[d][side].buf)
				return -ENOMEM;
		}
	s->comp = calloc(s->ngroups ? s->ngroups : 1, 1);
	s->rq = calloc(4 * (s->ngroups ? s->ngroups : 1), sizeof(MPI_Request));
	s->stv = calloc(4 * (s->ngroups ? s->ngroups : 1), sizeof(MPI_Status));
	if (!s->comp || !s->rq || !s->stv)
		return -ENOMEM;
	if ((ret = gb_st_codec_new(s->o.zlevel, &s->codec)) < 0)
		return ret;
	if ((ret = make_comms(s)) < 0)
		return fail(s, "MPI_Comm_split failed"), ret;
	if (s->o.mode == GB_ST_GRID && s->is_wan) {
		struct gb_st_adapt_cfg c = {
			.ngroups = s->ngroups,
			.monitor = s->o.monitor,
			.reeval = s->o.reeval,
			.warmup = s->o.warmup,
			.eps = s->o.eps,
			.compress = has(s, GB_ST_F_COMPRESS) && s->o.compress_fixed < 0,
			.ghost = ghost_on && has(s, GB_ST_F_GHOST) && !s->o.ghost_fixed,
			.ghost_step = 1,
			.ghost_init = init,
			.ghost_max = ghost_on && has(s, GB_ST_F_GHOST) && !s->o.ghost_fixed ?
					     l->ghost_cap : init,
		};

		for (int g = 0; g < s->ngroups; g++)
			s->comp[g] = s->o.compress_fixed == 1;
		s->adapt_ghost = c.ghost;
		if (c.compress || c.ghost) {
			ret = gb_st_adapt_new(&c, s->comp, &s->adapt);
			if (ret < 0)
				return fail(s, "adaptation: %s", strerror(-ret)), ret;
		}
	}
	s->started = 1;
	return 0;
}

int gb_st_start(struct gb_st *s, struct gb_err *err)
{
	int ret = start(s);

	if (ret < 0)
		gb_err_set(err, "%s", s->why.msg);
	return ret;
}

double *gb_st_field(struct gb_st *s, int g, int v, int level)
{
	int a = (s->cur + (level ? 1 : 0)) % NLEV;

	if (g < 0 || g >= s->ngroups || v < 0 || v >= s->grp[g].nvars || !s->started)
		return NULL;
	return s->grp[g].mem[v * NLEV + a] + s->origin;
}

int gb_st_depth(const struct gb_st *s)
{
	for (int d = 0; d < s->geo.ndim; d++)
		for (int side = 0; side < 2; side++)
			if (s->face[d][side].wan)
				return s->face[d][side].depth;
	return 0;
}

void gb_st_destroy(struct gb_st *s)
{
	if (!s)
		return;
	for (int g = 0; g < s->ngroups; g++) {
		if (!s->grp[g].mem)
			continue;
		for (int i = 0; i < s->grp[g].nvars * NLEV; i++)
			free(s->grp[g].mem[i]);
		free(s->grp[g].mem);
	}
	for (int d = 0; d < GB_ST_MAXDIM; d++)
		for (int side = 0; side < 2; side++) {
			struct fbuf *b = s->face[d][side].buf;

			for (int g = 0; b && g < s->ngroups; g++) {
				free(b[g].send);
				free(b[g].zsend);
				free(b[g].recv);
				free(b[g].raw);
			}
			free(b);
		}
	if (s->side_comm != MPI_COMM_NULL)
		MPI_Comm_free(&s->side_comm);
	if (s->lead_comm != MPI_COMM_NULL)
		MPI_Comm_free(&s->lead_comm);
	gb_st_adapt_free(s->adapt);
	gb_st_codec_free(s->codec);
	free(s->grp);
	free(s->comp);
	free(s->lay.mach_name);
	free(s->lay.mach_np);
	free(s->lay.mach_speed);
	free(s->lay.rank_mach);
	free(s->lay.kl);
	free(s->lay.slab);
	free(s->rq);
	free(s->stv);
	free(s);
}
