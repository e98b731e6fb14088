/* SPDX-License-Identifier: MIT */
/*
 * driver_results.c - what the stencil driver gives back (gbstdriver.h):
 * checksums of the fields, a dump of them at one rank, and the run's
 * report (statistics and adaptation events).
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
					gb_st_box_copy(s, gb_st_field(s, g, v, 0), &own, buf, 1);
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
						gb_st_box_copy(s, gb_st_field(s, g, v, 0), &own, buf, 1);
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
