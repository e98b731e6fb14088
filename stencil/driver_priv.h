/* SPDX-License-Identifier: MIT */
/*
 * driver_priv.h - the stencil driver's state, shared by its three files:
 * driver.c (machines, benchmark, layout, fields, lifecycle), driver_halo.c
 * (the halo exchange) and driver_results.c (checksums, dumps, reports);
 * not API.
 */
#ifndef GRIDBED_DRIVER_PRIV_H
#define GRIDBED_DRIVER_PRIV_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "gbstdriver.h"

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
	struct gb_err why;          /* a failing call's words, until its public
				       function hands them to the caller's carrier */
};

/* A box of local points, [lo, hi) per dimension. */
struct box {
	int lo[GB_ST_MAXDIM], hi[GB_ST_MAXDIM];
};

/* Record the error message of @s (s->why, which gb_st_create(), gb_st_start()
 * and gb_st_sync() hand on); -EINVAL. */
__attribute__((format(printf, 2, 3))) static inline int fail(struct gb_st *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gb_err_vset(&s->why, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Copy the box between a field and a contiguous buffer, row-major; the
 * buffer's end. */
double *gb_st_box_copy(const struct gb_st *s, double *field, const struct box *b, double *buf,
		       int to_buf);

#endif
