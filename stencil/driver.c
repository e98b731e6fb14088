/* SPDX-License-Identifier: MIT */
/*
 * driver.c - the grid-aware stencil driver (gbstdriver.h, seed 004).
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

#define NLEV 2

struct fbuf {
	unsigned char *send, *zsend, *recv, *raw;
	size_t cap, zcap;
};

struct face {
	int dim, side;          /* side 0: towards lower indices */
	int nbr;                /* rank, or -1 at the grid's edge */
	int wan;                /* the neighbour is on another machine */
	int wide;               /* depth may exceed 1 (s6) */
	int depth;              /* depth of the next exchange */
	int valid;              /* ghost layers of level 0 valid now */
	struct fbuf *buf;       /* per group */
};

struct group {
	char name[32];
	int nvars;
	double **mem;           /* [nvars * NLEV], allocations */
};

struct gb_st {
	MPI_Comm comm;
	int rank, size;
	struct gb_st_opts o;
	struct gb_st_layout lay;
	struct gb_st_geom geo;
	int gw[GB_ST_MAXDIM][2];    /* allocated ghost width per side */
	long alloc;                 /* doubles per field */
	long origin;                /* offset of local point 0 */
	int coord[GB_ST_MAXDIM];
	struct face face[GB_ST_MAXDIM][2];
	int ext[2];                 /* update span beyond the interior along L */
	int cur;                    /* which allocation is level 0 */
	struct group *grp;
	int ngroups;
	int started;
	int is_wan;                 /* has a wide-area face */
	unsigned char *comp;        /* per group: compress on WAN faces */
	struct gb_st_adapt *adapt;  /* NULL: nothing adapts on this rank */
	int adapt_ghost;
	struct gb_st_codec *codec;
	MPI_Comm side_comm, lead_comm;  /* s6's reduction; MPI_COMM_NULL if not in */
	struct gb_st_stats st;
	MPI_Request *rq;            /* 4 per group: two faces, send and receive */
	MPI_Status *stv;
	char err[512];
};

__attribute__((format(printf, 2, 3))) static int fail(struct gb_st *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

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

const char *gb_st_strerror(const struct gb_st *s)
{
	return s ? s->err : "out of memory";
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

int gb_st_create(MPI_Comm comm, const struct gb_st_opts *o, struct gb_st **out)
{
	struct gb_st *s = calloc(1, sizeof(*s));
	int ret;

	*out = s;
	if (!s)
		return -ENOMEM;
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
		if (!s->err[0])
			fail(s, "cannot lay out grid on %d ranks: %s", s->size, strerror(-ret));
		return ret;
	}
	s->geo.ndim = o->ndim;
	s->geo.L = s->lay.L;
	return 0;
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

int gb_st_start(struct gb_st *s)
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

/* ------------------------------------------------------------------ */
/* Halo exchange                                                       */
/* ------------------------------------------------------------------ */

struct box {
	int lo[GB_ST_MAXDIM], hi[GB_ST_MAXDIM];
};

static long box_count(int nd, const struct box *b)
{
	long n = 1;

	for (int d = 0; d < nd; d++)
		n *= b->hi[d] > b->lo[d] ? b->hi[d] - b->lo[d] : 0;
	return n;
}

/* Copy the box between a field and a contiguous buffer, row-major. */
static double *box_copy(const struct gb_st *s, double *field, const struct box *b, double *buf,
			int to_buf)
{
	int nd = s->geo.ndim, x[GB_ST_MAXDIM];
	long run = b->hi[nd - 1] - b->lo[nd - 1];

	if (box_count(nd, b) == 0)
		return buf;
	memcpy(x, b->lo, sizeof(int) * nd);
	for (;;) {
		long off = 0;

		for (int d = 0; d < nd; d++)
			off += (long)x[d] * s->geo.stride[d];
		if (to_buf)
			memcpy(buf, field + off, sizeof(double) * run);
		else
			memcpy(field + off, buf, sizeof(double) * run);
		buf += run;
		int d = nd - 2;
		for (; d >= 0; d--) {
			if (++x[d] < b->hi[d])
				break;
			x[d] = b->lo[d];
		}
		if (d < 0)
			return buf;
	}
}

/*
 * The boxes of one face message: @layers of level @lev along the face's
 * dimension, on our side (@recv = 0: what we send) or in the ghost zone
 * (@recv = 1).  Along L (when it is not the face's dimension) the span
 * includes the ghost layers this iteration updates.
 */
static void face_box(const struct gb_st *s, const struct face *f, int layers, int recv,
		     struct box *b)
{
	int nd = s->geo.ndim, d = f->dim, n = s->geo.n[d];

	for (int j = 0; j < nd; j++) {
		b->lo[j] = 0;
		b->hi[j] = s->geo.n[j];
		if (j == s->geo.L && j != d) {
			b->lo[j] -= s->ext[0];
			b->hi[j] += s->ext[1];
		}
	}
	if (f->side == 0) {
		b->lo[d] = recv ? -layers : 0;
		b->hi[d] = recv ? 0 : layers;
	} else {
		b->lo[d] = recv ? n : n - layers;
		b->hi[d] = recv ? n + layers : n;
	}
}

/* Bytes of group @g's message on face @f at its current depth. */
static size_t msg_bytes(const struct gb_st *s, const struct face *f, int g)
{
	struct box b0, b1;

	face_box(s, f, f->depth, 0, &b0);
	face_box(s, f, f->depth - 1, 0, &b1);
	return sizeof(double) * (size_t)s->grp[g].nvars *
	       (size_t)(box_count(s->geo.ndim, &b0) + (f->depth > 1 ? box_count(s->geo.ndim, &b1) : 0));
}

static int pack(struct gb_st *s, const struct face *f, int g, int recv, double *buf)
{
	struct box b0, b1;

	face_box(s, f, f->depth, recv, &b0);
	face_box(s, f, f->depth - 1, recv, &b1);
	for (int v = 0; v < s->grp[g].nvars; v++) {
		buf = box_copy(s, gb_st_field(s, g, v, 0), &b0, buf, !recv);
		if (f->depth > 1)
			buf = box_copy(s, gb_st_field(s, g, v, 1), &b1, buf, !recv);
	}
	return 0;
}

static int grow(struct fbuf *fb, size_t n)
{
	size_t z = gb_st_codec_bound(n);

	if (n > fb->cap) {
		unsigned char *a = realloc(fb->send, n), *b, *c;

		if (!a)
			return -ENOMEM;
		fb->send = a;
		if (!(b = realloc(fb->recv, n)))
			return -ENOMEM;
		fb->recv = b;
		if (!(c = realloc(fb->raw, n)))
			return -ENOMEM;
		fb->raw = c;
		fb->cap = n;
	}
	if (z > fb->zcap) {
		unsigned char *a = realloc(fb->zsend, z);

		if (!a)
			return -ENOMEM;
		fb->zsend = a;
		fb->zcap = z;
	}
	return 0;
}

static int tag_of(const struct gb_st *s, int g, int d, int up)
{
	return ((g * s->geo.ndim + d) << 1) | up;
}

/* Exchange dimension @d's due faces, all groups at once. */
static int exchange_dim(struct gb_st *s, int d)
{
	MPI_Request *rq = s->rq;
	MPI_Status *stv = s->stv;
	int nr = 0, ns = 0, ng = s->ngroups, ret = 0, due[2];

	for (int side = 0; side < 2; side++) {
		struct face *f = &s->face[d][side];

		due[side] = f->nbr >= 0 && f->valid < 1;
		if (!due[side])
			continue;
		for (int g = 0; g < ng; g++) {
			size_t n = msg_bytes(s, f, g);

			if ((ret = grow(&f->buf[g], n)) < 0)
				return ret;
			MPI_Irecv(f->buf[g].recv, (int)n, MPI_BYTE, f->nbr,
				  tag_of(s, g, d, side == 0), s->comm, &rq[nr++]);
		}
	}
	for (int side = 0; side < 2; side++) {
		struct face *f = &s->face[d][side];

		if (!due[side])
			continue;
		for (int g = 0; g < ng; g++) {
			struct fbuf *fb = &f->buf[g];
			size_t n = msg_bytes(s, f, g), len = n;
			const void *out = fb->send;

			pack(s, f, g, 0, (double *)fb->send);
			if (f->wan && s->comp[g]) {
				double t0 = gb_now();
				int r = gb_st_encode(s->codec, fb->send, n, fb->zsend, fb->zcap, &len);

				s->st.t_codec += gb_now() - t0;
				if (r < 0)
					return r;
				if (r == 1) {
					out = fb->zsend;
					s->st.wan_compressed++;
				}
			}
			if (f->wan) {
				s->st.wan_raw += n;
				s->st.wan_wire += len;
				s->st.wan_msgs++;
			} else {
				s->st.lan_bytes += len;
			}
			MPI_Isend(out, (int)len, MPI_BYTE, f->nbr, tag_of(s, g, d, side == 1),
				  s->comm, &rq[nr + ns++]);
		}
	}
	for (int i = 0; i < nr + ns; i++)
		if (gb_bcast_wait(&rq[i], &stv[i], s->o.wait_spin ? 0 : GB_BCAST_SLEEP) < 0)
			return -EIO;
	nr = 0;
	for (int side = 0; side < 2; side++) {
		struct face *f = &s->face[d][side];

		if (!due[side])
			continue;
		for (int g = 0; g < ng; g++) {
			struct fbuf *fb = &f->buf[g];
			size_t n = msg_bytes(s, f, g);
			int got = 0;
			const void *raw = fb->recv;

			MPI_Get_count(&stv[nr++], MPI_BYTE, &got);
			if ((size_t)got < n) {
				double t0 = gb_now();
				int r = gb_st_decode(s->codec, fb->recv, got, fb->raw, n);

				s->st.t_codec += gb_now() - t0;
				if (r < 0) {
					fail(s, "rank %d: group '%s' from rank %d: %zu-byte halo "
					     "arrived as %d bytes that do not inflate", s->rank,
					     s->grp[g].name, f->nbr, n, got);
					return -EPROTO;
				}
				raw = fb->raw;
			}
			pack(s, f, g, 1, (double *)raw);
		}
		f->valid = f->depth;
		if (f->wan)
			s->st.exchanges_wan++;
	}
	return 0;
}

/* s6's agreement: max over the boundary ranks, machine by machine, then
 * between the machines' first ranks (one small message over the WAN). */
static double agree_max(void *ctx, double local)
{
	struct gb_st *s = ctx;
	double v = local, w = local;

	MPI_Allreduce(&v, &w, 1, MPI_DOUBLE, MPI_MAX, s->side_comm);
	if (s->lead_comm != MPI_COMM_NULL) {
		v = w;
		MPI_Allreduce(&v, &w, 1, MPI_DOUBLE, MPI_MAX, s->lead_comm);
	}
	MPI_Bcast(&w, 1, MPI_DOUBLE, 0, s->side_comm);
	return w;
}

static void span_along_L(struct gb_st *s)
{
	int L = s->geo.L;

	for (int side = 0; side < 2; side++) {
		const struct face *f = &s->face[L][side];

		s->ext[side] = f->nbr >= 0 && f->wide && f->valid > 1 ? f->valid - 1 : 0;
	}
}

int gb_st_sync(struct gb_st *s, long it)
{
	double t0 = gb_now();
	int nd = s->geo.ndim, ret, boundary = 0;

	if (!s->started)
		return -EINVAL;
	for (int d = 0; d < nd; d++)
		for (int side = 0; side < 2; side++)
			boundary |= s->face[d][side].wan && s->face[d][side].valid < 1;
	if (boundary && s->adapt) {
		gb_st_adapt_tick(s->adapt, it, t0, s->st.t_comm, s->adapt_ghost ? agree_max : NULL,
				 s);
		for (int g = 0; g < s->ngroups; g++)
			s->comp[g] = (unsigned char)gb_st_adapt_comp(s->adapt, g);
		for (int d = 0; d < nd; d++)
			for (int side = 0; side < 2; side++)
				if (s->face[d][side].wide)
					s->face[d][side].depth = gb_st_adapt_depth(s->adapt);
	}
	/* L first: the other dimensions' messages carry its ghost layers */
	s->ext[0] = s->ext[1] = 0;
	if ((ret = exchange_dim(s, s->geo.L)) < 0)
		return ret;
	span_along_L(s);
	for (int d = 0; d < nd; d++)
		if (d != s->geo.L && (ret = exchange_dim(s, d)) < 0)
			return ret;
	s->st.t_comm += gb_now() - t0;
	return 0;
}

void gb_st_region(const struct gb_st *s, int *lo, int *hi)
{
	for (int d = 0; d < s->geo.ndim; d++) {
		lo[d] = 0;
		hi[d] = s->geo.n[d];
	}
	lo[s->geo.L] -= s->ext[0];
	hi[s->geo.L] += s->ext[1];
}

void gb_st_advance(struct gb_st *s)
{
	s->cur = (s->cur + 1) % NLEV;
	for (int d = 0; d < s->geo.ndim; d++)
		for (int side = 0; side < 2; side++)
			if (s->face[d][side].nbr >= 0 && s->face[d][side].valid > 0)
				s->face[d][side].valid--;
	span_along_L(s);
}

/* ------------------------------------------------------------------ */
/* Results                                                             */
/* ------------------------------------------------------------------ */

static uint64_t npoints(const struct gb_st *s)
{
	uint64_t n = 1;

	for (int d = 0; d < s->geo.ndim; d++)
		n *= (uint64_t)s->o.grid[d];
	return n;
}

int gb_st_checksum(struct gb_st *s, uint64_t *per_group)
{
	int nd = s->geo.ndim;
	uint64_t np = npoints(s), *loc = calloc(s->ngroups ? s->ngroups : 1, sizeof(uint64_t));
	uint64_t gstride[GB_ST_MAXDIM], st = 1;

	if (!loc)
		return -ENOMEM;
	for (int d = nd - 1; d >= 0; d--) {
		gstride[d] = st;
		st *= (uint64_t)s->o.grid[d];
	}
	for (int g = 0; g < s->ngroups; g++)
		for (int v = 0; v < s->grp[g].nvars; v++) {
			const double *f = gb_st_field(s, g, v, 0);
			int x[GB_ST_MAXDIM] = { 0 };
			long cnt = 1;

			for (int d = 0; d < nd; d++)
				cnt *= s->geo.n[d];
			for (long i = 0; i < cnt; i++) {
				uint64_t gi = (uint64_t)v * np;
				long off = 0;

				for (int d = 0; d < nd; d++) {
					gi += (uint64_t)(x[d] + s->geo.off[d]) * gstride[d];
					off += (long)x[d] * s->geo.stride[d];
				}
				loc[g] += gb_st_hash_point(gi, f[off]);
				for (int d = nd - 1; d >= 0; d--) {
					if (++x[d] < s->geo.n[d])
						break;
					x[d] = 0;
				}
			}
		}
	MPI_Allreduce(loc, per_group, s->ngroups, MPI_UINT64_T, MPI_SUM, s->comm);
	free(loc);
	return 0;
}

int gb_st_dump(struct gb_st *s, int root, FILE *f)
{
	int nd = s->geo.ndim, *boxes = NULL, mine[2 * GB_ST_MAXDIM], ret = 0;
	uint64_t np = npoints(s);
	double *global = NULL, *buf = NULL;
	struct box own;
	long cnt = 1;

	for (int d = 0; d < nd; d++) {
		mine[d] = s->geo.off[d];
		mine[nd + d] = s->geo.n[d];
		own.lo[d] = 0;
		own.hi[d] = s->geo.n[d];
		cnt *= s->geo.n[d];
	}
	if (s->rank == root) {
		boxes = malloc(sizeof(int) * 2 * nd * s->size);
		global = malloc(sizeof(double) * np);
	}
	buf = malloc(sizeof(double) * (s->rank == root ? np : (uint64_t)cnt));
	if (!buf || (s->rank == root && (!boxes || !global)))
		ret = -ENOMEM;
	/* everyone takes part even after a local failure, or the root hangs */
	MPI_Gather(mine, 2 * nd, MPI_INT, boxes, 2 * nd, MPI_INT, root, s->comm);
	for (int g = 0; g < s->ngroups; g++)
		for (int v = 0; v < s->grp[g].nvars; v++) {
			if (s->rank != root) {
				if (buf)
					box_copy(s, gb_st_field(s, g, v, 0), &own, buf, 1);
				MPI_Send(buf, buf ? (int)cnt : 0, MPI_DOUBLE, root, 77, s->comm);
				continue;
			}
			for (int r = 0; r < s->size; r++) {
				const int *bx = boxes ? boxes + 2 * nd * r : mine;
				long c = 1;
				int x[GB_ST_MAXDIM] = { 0 };

				for (int d = 0; d < nd; d++)
					c *= bx[nd + d];
				if (r == root) {
					if (buf)
						box_copy(s, gb_st_field(s, g, v, 0), &own, buf, 1);
				} else {
					MPI_Recv(buf, buf ? (int)c : 0, MPI_DOUBLE, r, 77, s->comm,
						 MPI_STATUS_IGNORE);
				}
				if (ret < 0)
					continue;
				for (long i = 0; i < c; i++) {
					uint64_t gi = 0;

					for (int d = 0; d < nd; d++)
						gi = gi * s->o.grid[d] + (uint64_t)(bx[d] + x[d]);
					global[gi] = buf[i];
					for (int d = nd - 1; d >= 0; d--) {
						if (++x[d] < bx[nd + d])
							break;
						x[d] = 0;
					}
				}
			}
			if (ret == 0 && fwrite(global, sizeof(double), np, f) != np)
				ret = -EIO;
		}
	free(boxes);
	free(global);
	free(buf);
	return ret;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct gb_st_event *x = a, *y = b;

	if (x->it != y->it)
		return x->it < y->it ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

int gb_st_report(struct gb_st *s, int root, struct gb_st_report *r)
{
	const struct gb_st_event *ev = NULL;
	struct gb_st_event *mine = NULL;
	int nev = s->adapt ? gb_st_adapt_events(s->adapt, &ev) : 0, *counts = NULL, *displ = NULL;
	int ng = s->ngroups, *comp = malloc(sizeof(int) * (ng ? ng : 1)), depth = gb_st_depth(s);
	int ret = 0, total = 0;

	memset(r, 0, sizeof(*r));
	r->ngroups = ng;
	mine = malloc(sizeof(*mine) * (nev ? nev : 1));
	if (!mine || !comp) {
		free(mine);
		free(comp);
		return -ENOMEM;
	}
	for (int i = 0; i < nev; i++) {
		mine[i] = ev[i];
		mine[i].rank = s->rank;
	}
	for (int g = 0; g < ng; g++)
		comp[g] = s->is_wan ? s->comp[g] : -1;
	if (s->rank == root) {
		counts = malloc(sizeof(int) * s->size);
		displ = malloc(sizeof(int) * s->size);
		r->final_comp = malloc(sizeof(int) * (ng ? ng : 1) * s->size);
		r->final_depth = malloc(sizeof(int) * s->size);
		r->stats = malloc(sizeof(*r->stats) * s->size);
		if (!counts || !displ || !r->final_comp || !r->final_depth || !r->stats)
			ret = -ENOMEM;
	}
	{
		int bytes = nev * (int)sizeof(*mine);

		MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, root, s->comm);
		if (s->rank == root && counts) {
			for (int i = 0; i < s->size; i++) {
				displ[i] = total;
				total += counts[i];
			}
			r->ev = malloc(total ? total : 1);
			if (!r->ev)
				ret = -ENOMEM;
		}
		MPI_Gatherv(mine, bytes, MPI_BYTE, r->ev, counts, displ, MPI_BYTE, root, s->comm);
	}
	MPI_Gather(comp, ng, MPI_INT, r->final_comp, ng, MPI_INT, root, s->comm);
	MPI_Gather(&depth, 1, MPI_INT, r->final_depth, 1, MPI_INT, root, s->comm);
	MPI_Gather(&s->st, sizeof(s->st), MPI_BYTE, r->stats, sizeof(s->st), MPI_BYTE, root,
		   s->comm);
	if (s->rank == root && r->ev) {
		r->nev = total / (int)sizeof(*mine);
		qsort(r->ev, r->nev, sizeof(*r->ev), cmp_ev);
	}
	free(mine);
	free(comp);
	free(counts);
	free(displ);
	if (ret < 0)
		gb_st_report_release(r);
	return ret;
}

void gb_st_report_release(struct gb_st_report *r)
{
	free(r->ev);
	free(r->final_comp);
	free(r->final_depth);
	free(r->stats);
	memset(r, 0, sizeof(*r));
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
