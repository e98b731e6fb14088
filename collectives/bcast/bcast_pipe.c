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
 * Striped (gb_bcast_opts.stripes = k >= 2): segment j goes down stripe
 * j mod k, each a tree of its own (gb_tree_stripe()), so a node has a
 * parent and children per stripe:
 *
 *	irecv every segment j >= 1 from parent[j mod k] at once
 *	for j: wait for segment j, isend it to children[j mod k]
 *
 * A node can be its parent's parent in another stripe, so a receive held
 * back by the window could leave a rendezvous send of the other stripe
 * waiting on it: with all receives posted, every send can complete as
 * soon as its data flows, and data flows down each stripe's tree.  The
 * send window is shared by the stripes (W segments of any stripe).
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

int gb_bcast_pipe(struct gb_bcast_comm *c, void *buf, int count, MPI_Datatype dt,
		  const struct gb_bcast_pipe_args *a, struct gb_bcast_timing *tm)
{
	long S = count > 0 ? (count + (long)a->seg - 1) / a->seg : 1, W = GB_PIPE_WINDOW;
	int K = a->nstripes, recv = a->st[0].parent >= 0, nk = 0, nk0 = a->st[0].nkids;
	long nr;
	size_t need;
	MPI_Request *rr, *sr, *hr;
	MPI_Aint lb, ext;

	if (a->seg < 1 || K < 1 || MPI_Type_get_extent(dt, &lb, &ext) != MPI_SUCCESS)
		return -EINVAL;
	for (int s = 0; s < K; s++)
		if (a->st[s].nkids > nk)
			nk = a->st[s].nkids;
	/* one stripe: W receives ahead; several: every receive at once, so
	 * that no send of one stripe waits on a receive another stripe holds
	 * up (a node can be its parent's parent in another stripe) */
	nr = K == 1 ? W : S;
	need = (size_t)nr + (size_t)W * (size_t)nk + (size_t)nk0;
	if (c->npreq < need) {
		MPI_Request *p = realloc(c->preq, sizeof(*p) * need);

		if (!p)
			return -ENOMEM;
		c->preq = p;
		c->npreq = need;
	}
	rr = c->preq;            /* receives: segment j in slot j % nr */
	sr = rr + nr;            /* W x nk sends: segment j's in row j % W */
	hr = sr + W * nk;        /* nk0 piggybacked headers (stripe 0's children) */
	for (size_t i = 0; i < need; i++)
		c->preq[i] = MPI_REQUEST_NULL;

	for (long j = 1; recv && j <= nr && j < S; j++)
		if (MPI_Irecv((char *)buf + j * a->seg * ext, seg_count(count, a->seg, S, j), dt,
			      a->st[j % K].parent, a->tag, c->pc, &rr[j % nr]))
			return -EIO;
	for (long j = 0; j < S; j++) {
		const struct gb_bcast_stripe *st = &a->st[j % K];
		char *p = (char *)buf + j * a->seg * ext;
		int cnt = seg_count(count, a->seg, S, j);
		MPI_Request *row = sr + (j % W) * nk;

		if (recv && j > 0) {
			if (gb_bcast_wait(&rr[j % nr], NULL, a->flags))
				return -EIO;
			if (K == 1 && j + W < S &&
			    MPI_Irecv((char *)buf + (j + W) * a->seg * ext,
				      seg_count(count, a->seg, S, j + W), dt, st->parent, a->tag,
				      c->pc, &rr[j % W]))
				return -EIO;
		}
		if (recv && j == S - 1)
			tm->t_recv_done = gb_now();
		if (j >= W && nk && MPI_Waitall(nk, row, MPI_STATUSES_IGNORE))
			return -EIO;
		for (int k = 0; k < st->nkids; k++) {
			int dst = st->kids[k];

			if (isinf(c->child_start[dst])) {
				double s = gb_now();

				if (isnan(tm->t_send_start))
					tm->t_send_start = s;
				c->child_start[dst] = s;
			}
			/* segment 0 goes down stripe 0: its children get the header */
			if (j == 0 && a->hdr && MPI_Isend(a->hdr, a->hlen, MPI_BYTE, dst, a->hdr_tag,
							   c->pc, &hr[k]))
				return -EIO;
			if (MPI_Isend(p, cnt, dt, dst, a->tag, c->pc, &row[k]))
				return -EIO;
		}
	}
	if (MPI_Waitall((int)(W * nk + nk0), sr, MPI_STATUSES_IGNORE))
		return -EIO;
	return 0;
}
