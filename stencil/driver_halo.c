/* SPDX-License-Identifier: MIT */
/*
 * driver_halo.c - the stencil driver's halo exchange (gbstdriver.h, seed
 * 004 s5-s6): face messages packed, compressed on wide-area faces, sent and
 * received per dimension; the wide faces' depth and the update span along L.
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
/* Halo exchange                                                       */
/* ------------------------------------------------------------------ */

static long box_count(int nd, const struct box *b)
{
	long n = 1;

	for (int d = 0; d < nd; d++)
		n *= b->hi[d] > b->lo[d] ? b->hi[d] - b->lo[d] : 0;
	return n;
}

double *gb_st_box_copy(const struct gb_st *s, double *field, const struct box *b, double *buf,
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
		buf = gb_st_box_copy(s, gb_st_field(s, g, v, 0), &b0, buf, !recv);
		if (f->depth > 1)
			buf = gb_st_box_copy(s, gb_st_field(s, g, v, 1), &b1, buf, !recv);
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

int gb_st_probe_deflate(struct gb_st *s, uint64_t *raw, uint64_t *zip)
{
	int nd = s->geo.ndim, ret;

	if (!s->started || !raw || !zip)
		return -EINVAL;
	for (int d = 0; d < nd; d++)
		for (int side = 0; side < 2; side++) {
			struct face *f = &s->face[d][side];

			if (f->nbr < 0 || !f->wan)
				continue;
			for (int g = 0; g < s->ngroups; g++) {
				struct fbuf *fb = &f->buf[g];
				size_t n = msg_bytes(s, f, g), len = n;

				if ((ret = grow(fb, n)) < 0)
					return ret;
				/* the send buffers are idle between gb_st_sync()s */
				pack(s, f, g, 0, (double *)fb->send);
				ret = gb_st_encode(s->codec, fb->send, n, fb->zsend, fb->zcap, &len);
				if (ret < 0)
					return ret;
				raw[g] += n;
				zip[g] += len;
			}
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

/* gb_st_sync()'s steps; its words in s->why */
static int sync_halos(struct gb_st *s, long it)
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

int gb_st_sync(struct gb_st *s, long it, struct gb_err *err)
{
	int ret = sync_halos(s, it);

	if (ret < 0)
		gb_err_set(err, "%s", s->why.msg);
	return ret;
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
