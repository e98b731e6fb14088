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
 */
#include <errno.h>
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
	int nk = a->nkids, recv = a->parent >= 0;
	size_t need = (size_t)W * (size_t)(nk + 1) + (size_t)nk;
	MPI_Request *rr, *sr, *hr;
	MPI_Aint lb, ext;

	if (a->seg < 1 || MPI_Type_get_extent(dt, &lb, &ext) != MPI_SUCCESS)
		return -EINVAL;
	if (c->npreq < need) {
		MPI_Request *p = realloc(c->preq, sizeof(*p) * need);

		if (!p)
			return -ENOMEM;
		c->preq = p;
		c->npreq = need;
	}
	rr = c->preq;            /* W receives: segment j in slot j % W */
	sr = rr + W;             /* W x nk sends: segment j's in row j % W */
	hr = sr + W * nk;        /* nk piggybacked headers */
	for (size_t i = 0; i < need; i++)
		c->preq[i] = MPI_REQUEST_NULL;

	for (long j = 1; recv && j <= W && j < S; j++)
		if (MPI_Irecv((char *)buf + j * a->seg * ext, seg_count(count, a->seg, S, j), dt,
			      a->parent, a->tag, c->pc, &rr[j % W]))
			return -EIO;
	for (long j = 0; j < S; j++) {
		char *p = (char *)buf + j * a->seg * ext;
		int cnt = seg_count(count, a->seg, S, j);
		MPI_Request *row = sr + (j % W) * nk;

		if (recv && j > 0) {
			if (gb_bcast_wait(&rr[j % W], NULL, a->flags))
				return -EIO;
			if (j + W < S &&
			    MPI_Irecv((char *)buf + (j + W) * a->seg * ext,
				      seg_count(count, a->seg, S, j + W), dt, a->parent, a->tag,
				      c->pc, &rr[j % W]))
				return -EIO;
		}
		if (recv && j == S - 1)
			tm->t_recv_done = gb_now();
		if (j >= W && nk && MPI_Waitall(nk, row, MPI_STATUSES_IGNORE))
			return -EIO;
		for (int k = 0; k < nk; k++) {
			int dst = a->kids[k];

			if (j == 0) {
				double s = gb_now();

				if (k == 0)
					tm->t_send_start = s;
				c->child_start[dst] = s;
				if (a->hdr && MPI_Isend(a->hdr, a->hlen, MPI_BYTE, dst, a->hdr_tag,
							c->pc, &hr[k]))
					return -EIO;
			}
			if (MPI_Isend(p, cnt, dt, dst, a->tag, c->pc, &row[k]))
				return -EIO;
		}
	}
	if (MPI_Waitall((int)(W * nk + nk), sr, MPI_STATUSES_IGNORE))
		return -EIO;
	return 0;
}
