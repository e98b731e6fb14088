/* SPDX-License-Identifier: MIT */
/*
 * bcast_pipe.c - forwarding one broadcast's data down the tree in segments,
 * pipelined (issue 14): the part of gb_bcast_tree() that runs when the
 * message is cut (gridbcast.h, gb_bcast_opts.segment).
 *
 * A node forwards segment j to its children in the tree's send order while
 * segment j + 1 is on its way in:
 *
 *	root:     for j: isend segment j to every child, in send order
 *	others:   segment 0 was received whole by the caller (its length is
 *	          the segment size, so only the root needs to know it);
 *	          irecv segments 1 .. W; for j: wait for segment j, irecv
 *	          segment j + W, isend segment j to every child
 *	a send slot is reused W segments later, after its sends completed
 *
 * The contention model's segmented schedule (gb_cost_contention_seg(),
 * collectives/core/cost_contention.c) is this one: concurrent sends, the
 * window; the one-port models (gb_cost_mateescu_seg(), cost_pipe.c)
 * serialise a node's sends, which this executor does not.  Choices:
 *  - A window of GB_PIPE_WINDOW segments (gbcore.h) bounds both the
 *    receives posted ahead and the segments whose sends may be in flight.
 *    Segments up to the TCP transport's eager limit leave as soon as they
 *    are written to the socket, so the window only bounds local memory;
 *    larger ones wait for a rendezvous, and the window keeps
 *    GB_PIPE_WINDOW of them in flight.
 *  - All sends are non-blocking, whatever GB_BCAST_ISEND says: a blocking
 *    send per segment would keep the next segment's receive from
 *    overlapping it.  So a node's children share its link as TCP shares
 *    it, segment by segment in send order, as Open MPI's segmented
 *    broadcasts do (coll/base's generic tree).
 *  - Segments are whole elements of the datatype; a segment starts at
 *    buf + j x seg x extent, so derived datatypes work unchanged.  The
 *    receivers learn the segment size from segment 0's element count,
 *    which requires every rank to pass a datatype whose size divides the
 *    segment (the same datatype everywhere does); otherwise -EPROTO.
 *
 * Striped (k = gb_stripes_for(&gb_bcast_opts.stripes, size) >= 2):
 * segment j goes down stripe j mod k, each a tree of its own
 * (gb_tree_stripe()), so a node has a parent and children per stripe,
 * and forwards each segment as it arrives, whatever its stripe:
 *
 *	irecv every segment j >= 1 from parent[j mod k] at once
 *	isend segment 0 to children[0] (the root: every segment j to
 *	children[j mod k], in order)
 *	until all arrived: wait for any segment j, isend it to children[j mod k]
 *
 * Choices:
 *  - Arrival order, not segment order: the stripes are separate pipelines.
 *    In order, a node waits for segment j's stripe before it forwards
 *    j + 1 of another; in a rotated chain that is a cycle (the host that
 *    is late in stripe 0 is early in stripe 1 and holds it up), and two
 *    stripes measured no faster than one (session 18,
 *    docs/measurements.md).
 *  - A data tag per stripe: a node can be its child's parent in two
 *    stripes, and it forwards their segments in arrival order; MPI
 *    matches in order per source and tag, so with one tag a segment of
 *    one stripe could fill the receive posted for the other's.  Within a
 *    stripe a node has one parent, so its segments come in order.
 *  - Every receive posted at once: a node can be its parent's parent in
 *    another stripe, so a receive held back by a window could leave a
 *    rendezvous send of the other stripe waiting on it; with all posted,
 *    every send can complete as soon as its data flows.
 *  - No send window: a node's sends of every segment it has are in flight
 *    at once (a request each; at most GB_SEG_MAX_COUNT segments).  The
 *    receives being all posted, a rendezvous send is matched as soon as
 *    it arrives, so a window would bound only MPI's request memory, and
 *    with out-of-order completion it would be a count, not a ring.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "bcast_impl.h"

/* Elements in segment j of @S, @seg elements each except the last. */
static int seg_count(int count, int seg, long S, long j)
{
	return j < S - 1 ? seg : count - (int)((S - 1) * seg);
}

/* Room for @need requests in c->preq, all MPI_REQUEST_NULL.  0 or -ENOMEM. */
static int requests(struct gb_bcast_comm *c, size_t need)
{
	if (c->npreq < need) {
		MPI_Request *p = realloc(c->preq, sizeof(*p) * need);

		if (!p)
			return -ENOMEM;
		c->preq = p;
		c->npreq = need;
	}
	for (size_t i = 0; i < need; i++)
		c->preq[i] = MPI_REQUEST_NULL;
	return 0;
}

/*
 * Post segment j's sends to the children of its stripe, into @row (one
 * request per child); segment 0 goes down stripe 0 and its children get the
 * piggybacked header first, into @hr.  Records each child's first send.
 */
static int send_segment(struct gb_bcast_comm *c, void *buf, int count, MPI_Datatype dt,
			MPI_Aint ext, const struct gb_bcast_pipe_args *a, long S, long j,
			MPI_Request *row, MPI_Request *hr, struct gb_bcast_timing *tm)
{
	const struct gb_bcast_stripe *st = &a->st[j % a->nstripes];
	char *p = (char *)buf + j * a->seg * ext;
	int cnt = seg_count(count, a->seg, S, j);

	for (int k = 0; k < st->nkids; k++) {
		int dst = st->kids[k];

		if (isinf(c->child_start[dst])) {
			double s = gb_now();

			if (isnan(tm->t_send_start))
				tm->t_send_start = s;
			c->child_start[dst] = s;
		}
		if (j == 0 && a->hdr &&
		    MPI_Isend(a->hdr, a->hlen, MPI_BYTE, dst, a->hdr_tag, c->pc, &hr[k]))
			return -EIO;
		if (MPI_Isend(p, cnt, dt, dst, a->tag + (int)(j % a->nstripes), c->pc, &row[k]))
			return -EIO;
	}
	return 0;
}

/* One tree: segment order, a window of W segments (the file's comment). */
static int pipe_chain(struct gb_bcast_comm *c, void *buf, int count, MPI_Datatype dt,
		      MPI_Aint ext, const struct gb_bcast_pipe_args *a, long S,
		      struct gb_bcast_timing *tm)
{
	const struct gb_bcast_stripe *st = &a->st[0];
	long W = GB_PIPE_WINDOW;
	int recv = st->parent >= 0, nk = st->nkids;
	MPI_Request *rr, *sr, *hr;

	if (requests(c, (size_t)W + (size_t)W * (size_t)nk + (size_t)nk))
		return -ENOMEM;
	rr = c->preq;            /* W receives: segment j in slot j % W */
	sr = rr + W;             /* W x nk sends: segment j's in row j % W */
	hr = sr + W * nk;        /* nk piggybacked headers */
	for (long j = 1; recv && j <= W && j < S; j++)
		if (MPI_Irecv((char *)buf + j * a->seg * ext, seg_count(count, a->seg, S, j), dt,
			      st->parent, a->tag, c->pc, &rr[j % W]))
			return -EIO;
	for (long j = 0; j < S; j++) {
		MPI_Request *row = sr + (j % W) * nk;

		if (recv && j > 0) {
			if (gb_bcast_wait(&rr[j % W], NULL, a->flags))
				return -EIO;
			if (j + W < S &&
			    MPI_Irecv((char *)buf + (j + W) * a->seg * ext,
				      seg_count(count, a->seg, S, j + W), dt, st->parent, a->tag,
				      c->pc, &rr[j % W]))
				return -EIO;
		}
		if (recv && j == S - 1)
			tm->t_recv_done = gb_now();
		if (j >= W && nk && gb_bcast_waitall(nk, row, a->flags))
			return -EIO;
		if (send_segment(c, buf, count, dt, ext, a, S, j, row, hr, tm))
			return -EIO;
	}
	return gb_bcast_waitall((int)(W * nk + nk), sr, a->flags) ? -EIO : 0;
}

/* Several trees: every receive at once, arrival order (the file's comment). */
static int pipe_stripes(struct gb_bcast_comm *c, void *buf, int count, MPI_Datatype dt,
			MPI_Aint ext, const struct gb_bcast_pipe_args *a, long S,
			struct gb_bcast_timing *tm)
{
	int K = a->nstripes, recv = a->st[0].parent >= 0, nk = 0, nk0 = a->st[0].nkids;
	MPI_Request *rr, *sr, *hr;

	for (int s = 0; s < K; s++)
		if (a->st[s].nkids > nk)
			nk = a->st[s].nkids;
	if (requests(c, (size_t)S + (size_t)S * (size_t)nk + (size_t)nk0))
		return -ENOMEM;
	rr = c->preq;            /* S receives: segment j in slot j (slot 0 unused) */
	sr = rr + S;             /* S x nk sends: segment j's in row j */
	hr = sr + S * nk;        /* nk0 piggybacked headers (stripe 0's children) */
	for (long j = 1; recv && j < S; j++)
		if (MPI_Irecv((char *)buf + j * a->seg * ext, seg_count(count, a->seg, S, j), dt,
			      a->st[j % K].parent, a->tag + (int)(j % K), c->pc, &rr[j]))
			return -EIO;
	/* what this node has now: segment 0, or every segment at the root */
	for (long j = 0; j < (recv ? 1 : S); j++)
		if (send_segment(c, buf, count, dt, ext, a, S, j, sr + j * nk, hr, tm))
			return -EIO;
	for (long got = 1; recv && got < S; got++) {
		int i;

		if (gb_bcast_waitany((int)(S - 1), rr + 1, &i, a->flags) || i == MPI_UNDEFINED)
			return -EIO;
		if (send_segment(c, buf, count, dt, ext, a, S, i + 1, sr + (i + 1) * nk, hr, tm))
			return -EIO;
	}
	if (recv)
		tm->t_recv_done = gb_now();
	return gb_bcast_waitall((int)(S * nk + nk0), sr, a->flags) ? -EIO : 0;
}

int gb_bcast_pipe(struct gb_bcast_comm *c, void *buf, int count, MPI_Datatype dt,
		  const struct gb_bcast_pipe_args *a, struct gb_bcast_timing *tm)
{
	long S = count > 0 ? (count + (long)a->seg - 1) / a->seg : 1;
	MPI_Aint lb, ext;

	if (a->seg < 1 || a->nstripes < 1 || MPI_Type_get_extent(dt, &lb, &ext) != MPI_SUCCESS)
		return -EINVAL;
	if (a->nstripes == 1)
		return pipe_chain(c, buf, count, dt, ext, a, S, tm);
	return pipe_stripes(c, buf, count, dt, ext, a, S, tm);
}
