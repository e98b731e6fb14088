/* SPDX-License-Identifier: MIT */
/*
 * bcast_exec.c - the tree executor of libgridbcast (gridbcast.h), the
 * per-communicator state it runs on, native MPI_Bcast with timing, and the
 * gathering of per-rank times.
 *
 * One broadcast along an ordered tree (seed 000 s2.2, seed 003 slide 3:
 * one-port, a node forwards only the whole message, children in send order):
 *
 *	            root                t_begin = t_recv_done
 *	           /  |  \              send to c1, then c2, then c3
 *	         c1   c2   c3           each: recv from parent (t_recv_done),
 *	        / \         \                 then the same to its children
 *	       .   .         .          t_send_done = last send returned
 *
 * Choices:
 *  - Blocking sends by default (gb_bcast_send: MPI_Send, or with
 *    GB_BCAST_SLEEP an MPI_Isend waited for asleep, bcast_wait.c): a send
 *    returns when the buffer may be reused, i.e. for messages above the
 *    eager limit when the child has taken the data, which is the one-port
 *    model's "sender busy while the message is injected".  GB_BCAST_ISEND
 *    posts every child's send at once and waits for all, letting TCP share
 *    the sender's links.
 *  - Whole messages unless the root's gb_bcast_opts.segment cuts them: the
 *    papers' models forward whole messages, and a planner's prediction is
 *    only comparable to the run of the same schedule.  Segmented messages
 *    are forwarded pipelined by bcast_pipe.c (issue 14); a receiver tells
 *    a segment from a whole message by the element count that arrived.
 *  - Our own messages travel on a private duplicate of the communicator
 *    (as MPI's collectives use a context of their own) with tags
 *    2*(seq mod K) and 2*(seq mod K)+1 for header and data of the seq-th
 *    broadcast.  Per-broadcast tags matter with a piggybacked tree: a rank
 *    receives its header from MPI_ANY_SOURCE, and the next broadcast's
 *    header (from another parent) may already be on its way.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bcast_impl.h"

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

static char last_err[512];

void gb_bcast_seterr(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
}

const char *gb_bcast_strerror(void)
{
	return last_err[0] ? last_err : "no error";
}

/* ------------------------------------------------------------------ */
/* Per-communicator state                                              */
/* ------------------------------------------------------------------ */

static int comm_key = MPI_KEYVAL_INVALID;
static int self_key = MPI_KEYVAL_INVALID;
static struct gb_bcast_comm *all_comms;

static void comm_free(struct gb_bcast_comm *c)
{
	struct gb_bcast_comm **pp;

	if (!c)
		return;
	for (pp = &all_comms; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (!c->dead && c->pc != MPI_COMM_NULL)
		MPI_Comm_free(&c->pc);
	if (c->release)
		c->release(c);     /* the planning side's state (bcast_tree.c) */
	gb_tree_release(&c->rx);
	for (int s = 0; s < GB_STRIPES_MAX - 1; s++)
		gb_tree_release(&c->stripe[s]);
	free(c->group);
	free(c->skids);
	free(c->hdr);
	free(c->child_start);
	free(c->req);
	free(c->kids);
	free(c->preq);
	free(c->world);
	free(c);
}

/* The user freed the communicator (or MPI_Finalize deletes its attributes). */
static int comm_delete(MPI_Comm comm, int key, void *val, void *extra)
{
	comm_free(val);
	return MPI_SUCCESS;
}

/*
 * MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI is still
 * fully usable (MPI-3.1 s8.7.1); MPI_COMM_WORLD's come later, in an order
 * that is the implementation's.  So the private duplicates are freed here,
 * and the world's attribute deletion only frees memory.
 */
static int self_delete(MPI_Comm comm, int key, void *val, void *extra)
{
	for (struct gb_bcast_comm *c = all_comms; c; c = c->next) {
		if (!c->dead && c->pc != MPI_COMM_NULL)
			MPI_Comm_free(&c->pc);
		c->dead = 1;
	}
	return MPI_SUCCESS;
}

static int comm_create(MPI_Comm comm, struct gb_bcast_comm **out)
{
	struct gb_bcast_comm *c = NULL;
	MPI_Group wg = MPI_GROUP_NULL, g = MPI_GROUP_NULL;
	int *ids = NULL, ret = -ENOMEM;

	c = calloc(1, sizeof(*c));
	if (!c)
		goto cleanup;
	c->pc = MPI_COMM_NULL;
	MPI_Comm_size(comm, &c->n);
	MPI_Comm_rank(comm, &c->rank);
	c->hdr = malloc(gb_bhdr_size_striped(c->n, 2));
	c->group = malloc(sizeof(int) * c->n);
	c->skids = malloc(sizeof(int) * (GB_STRIPES_MAX - 1) * (size_t)c->n);
	c->child_start = malloc(sizeof(double) * c->n);
	c->req = malloc(sizeof(MPI_Request) * 2 * c->n);
	c->world = malloc(sizeof(int) * c->n);
	c->kids = malloc(sizeof(int) * c->n);
	ids = malloc(sizeof(int) * c->n);
	if (!c->hdr || !c->child_start || !c->req || !c->world || !c->kids || !ids || !c->group ||
	    !c->skids)
		goto cleanup;
	for (int i = 0; i < c->n; i++)
		ids[i] = i;
	ret = -EIO;
	if (MPI_Comm_group(comm, &g) != MPI_SUCCESS ||
	    MPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS ||
	    MPI_Group_translate_ranks(g, c->n, ids, wg, c->world) != MPI_SUCCESS)
		goto cleanup;
	for (int i = 0; i < c->n; i++)
		if (c->world[i] == MPI_UNDEFINED)
			goto cleanup;   /* a rank outside MPI_COMM_WORLD (spawned) */
	if (MPI_Comm_dup(comm, &c->pc) != MPI_SUCCESS)
		goto cleanup;
	MPI_Comm_set_errhandler(c->pc, MPI_ERRORS_RETURN);
	if (MPI_Comm_set_attr(comm, comm_key, c) != MPI_SUCCESS)
		goto cleanup;
	c->next = all_comms;
	all_comms = c;
	*out = c;
	c = NULL;
	ret = 0;
cleanup:
	if (ret < 0)
		gb_bcast_seterr("cannot set up the communicator: %s", strerror(-ret));
	if (g != MPI_GROUP_NULL)
		MPI_Group_free(&g);
	if (wg != MPI_GROUP_NULL)
		MPI_Group_free(&wg);
	free(ids);
	if (c) {
		if (c->pc != MPI_COMM_NULL)
			MPI_Comm_free(&c->pc);
		c->dead = 1;
		comm_free(c);
	}
	return ret;
}

int gb_bcast_comm_get(MPI_Comm comm, struct gb_bcast_comm **out)
{
	void *val;
	int flag = 0, inter = 0;

	if (comm == MPI_COMM_NULL)
		return -EINVAL;
	MPI_Comm_test_inter(comm, &inter);
	if (inter) {
		gb_bcast_seterr("intercommunicators are not supported");
		return -EINVAL;
	}
	if (self_key == MPI_KEYVAL_INVALID) {
		if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_delete, &comm_key, NULL) ||
		    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &self_key, NULL) ||
		    MPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL))
			return -EIO;
	}
	if (MPI_Comm_get_attr(comm, comm_key, &val, &flag) == MPI_SUCCESS && flag) {
		*out = val;
		return 0;
	}
	return comm_create(comm, out);
}

/* MPI_Recv, waiting as gb_bcast_wait() (0 or MPI_ERR_OTHER). */
static int recv_w(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
		  MPI_Status *st, unsigned flags)
{
	MPI_Request r;

	if (!(flags & GB_BCAST_SLEEP))
		return MPI_Recv(buf, count, dt, src, tag, comm, st ? st : MPI_STATUS_IGNORE);
	if (MPI_Irecv(buf, count, dt, src, tag, comm, &r) != MPI_SUCCESS)
		return MPI_ERR_OTHER;
	return gb_bcast_wait(&r, st, flags) ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* The executor                                                        */
/* ------------------------------------------------------------------ */

/*
 * Tags of the seq-th broadcast: the header's, then the data's, one per
 * stripe (td + s: a node that is its child's parent in two stripes forwards
 * their segments in arrival order, and only a tag per stripe keeps MPI's
 * matching, which is in order per source and tag, from filling one
 * stripe's receive with the other's segment).  MPI guarantees tags up to
 * 32767 only.
 */
#define TAGS_PER_CALL (1 + GB_STRIPES_MAX)
static void tags(struct gb_bcast_comm *c, uint32_t seq, int *th, int *td)
{
	void *v;
	int flag = 0, ub = 32767;

	if (MPI_Comm_get_attr(c->pc, MPI_TAG_UB, &v, &flag) == MPI_SUCCESS && flag)
		ub = *(int *)v;
	if (ub > (1 << 21))
		ub = 1 << 21;
	*th = (int)(seq % (uint32_t)((ub + 1) / TAGS_PER_CALL)) * TAGS_PER_CALL;
	*td = *th + 1;
}

/* c->group: each rank's cluster, which the planning side filled in. */
static int stripe_groups(struct gb_bcast_comm *c)
{
	if (!c->groups_ready) {
		gb_bcast_seterr("stripes need the ranks' clusters: no model of the ranks");
		return -EINVAL;
	}
	return 0;
}

/*
 * Stripes 1 .. k-1 of @tr (rooted at the root, in rank labels) into
 * c->stripe[s - 1], and this rank's part in each into @st (stripe 0's is the
 * caller's).
 */
static int stripes_make(struct gb_bcast_comm *c, const struct gb_tree *tr, int k,
			struct gb_bcast_stripe *st)
{
	for (int s = 1; s < k; s++) {
		struct gb_tree *x = &c->stripe[s - 1];
		int *kids = c->skids + (size_t)(s - 1) * (size_t)c->n, ret;

		gb_tree_release(x);
		ret = gb_tree_stripe(tr, c->group, s, x);
		if (ret < 0)
			return ret;
		st[s].parent = x->parent[c->rank];
		st[s].nkids = x->nchild[c->rank];
		for (int j = 0; j < st[s].nkids; j++)
			kids[j] = x->child[x->cstart[c->rank] + j];
		st[s].kids = kids;
	}
	return 0;
}

int gb_bcast_exec(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
		  const struct gb_tree *t, const struct gb_bcast_opts *o,
		  struct gb_bcast_timing *tm)
{
	unsigned flags = o ? o->flags : 0;
	int pig = !!(flags & GB_BCAST_PIGGYBACK), isend = !!(flags & GB_BCAST_ISEND);
	struct gb_bcast_timing local;
	struct gb_bcast_comm *c;
	const struct gb_tree *tr;
	int tsize = 0, th, td, from, to, me, nc, nreq = 0, seg = 0, ret, nst = 1, kst;
	MPI_Status st;
	size_t hsize, hmax;
	uint64_t payload;
	uint32_t seq;
	long hlen = 0;
	const char *why = "bad tree header";     /* for -EPROTO */

	if (!tm)
		tm = &local;
	memset(tm, 0, sizeof(*tm));
	tm->parent = -1;
	tm->t_send_start = NAN;
	tm->stripes = 1;
	if (count < 0 || dt == MPI_DATATYPE_NULL || MPI_Type_size(dt, &tsize) != MPI_SUCCESS) {
		gb_bcast_seterr("bad count or datatype");
		return -EINVAL;
	}
	ret = gb_bcast_comm_get(comm, &c);
	if (ret < 0)
		return ret;
	if (root < 0 || root >= c->n) {
		gb_bcast_seterr("root %d is not a rank of the communicator (size %d)", root, c->n);
		return -EINVAL;
	}
	if ((!pig || c->rank == root) &&
	    (!t || t->n != c->n || t->root < 0 || t->root >= t->n)) {
		gb_bcast_seterr("the tree does not span the communicator's %d ranks", c->n);
		return -EINVAL;
	}
	/* a cycle would hang the job: check before anything is sent (O(n);
	 * the piggybacked root's encoder checks too) */
	if (!pig && gb_tree_check(t, NULL) < 0) {
		gb_bcast_seterr("invalid tree (not rooted, spanning and acyclic)");
		return -EINVAL;
	}
	payload = (uint64_t)count * (uint64_t)tsize;
	/* the stripes of a segmented message of this size: every rank reads
	 * the same table with the same size */
	kst = o ? gb_stripes_for(&o->stripes, (double)payload) : 1;
	hsize = gb_bhdr_size(c->n);
	hmax = gb_bhdr_size_striped(c->n, 2);
	seq = c->seq++;
	tags(c, seq, &th, &td);
	for (int i = 0; i < c->n; i++)
		c->child_start[i] = INFINITY;
	tm->child_start = c->child_start;

	tm->t_begin = gb_now();
	from = to = root;
	tr = t;
	if (c->rank == root) {
		if (o && o->segment > 0 && tsize > 0) {
			double e = floor(o->segment / tsize);

			seg = e < 1 ? 1 : e < count ? (int)e : 0;
		}
		tm->t_recv_done = tm->t_begin;
		/* stripes only for a segmented message (gridbcast.h) */
		if (seg > 0 && kst > 1) {
			nst = kst;
			ret = stripe_groups(c);
			if (ret < 0)
				goto fail;
		}
		if (pig) {
			if (t->root != root) {
				gb_tree_release(&c->rx);
				ret = gb_tree_relabel(t, root, &c->rx);
				if (ret < 0)
					goto fail;
				tr = &c->rx;
			}
			hlen = gb_bhdr_encode_striped(tr, nst, c->group, seq, payload, c->hdr, hmax);
			if (hlen < 0) {
				ret = (int)hlen;
				goto fail;
			}
		} else {
			from = t->root;
		}
	} else if (pig) {
		uint64_t pl = 0;
		uint32_t hseq = 0;
		int got = 0;

		ret = -EIO;
		if (recv_w(c->hdr, (int)hmax, MPI_BYTE, MPI_ANY_SOURCE, th, c->pc, &st, flags) ||
		    MPI_Get_count(&st, MPI_BYTE, &got) != MPI_SUCCESS || got < 0)
			goto fail;
		tm->parent = st.MPI_SOURCE;
		gb_tree_release(&c->rx);
		hsize = (size_t)got;
		ret = gb_bhdr_decode_striped(c->hdr, hsize, c->n, &c->rx, &nst, c->group, &hseq,
					     &pl);
		if (ret == 0 && (hseq != seq || pl != payload || c->rx.root != root ||
				 c->rx.parent[c->rank] != tm->parent))
			ret = -EPROTO;
		if (ret < 0)
			goto fail;
		hlen = (long)hsize;
		tr = &c->rx;
		if (recv_w(buf, count, dt, tm->parent, td, c->pc, &st, flags)) {
			ret = -EIO;
			goto fail;
		}
		tm->t_recv_done = gb_now();
	} else {
		from = t->root;
		tm->parent = gb_relabel(t->parent[gb_relabel(c->rank, from, to)], from, to);
		if (tm->parent < 0 || tm->parent >= c->n ||
		    recv_w(buf, count, dt, tm->parent, td, c->pc, &st, flags)) {
			ret = tm->parent < 0 ? -EINVAL : -EIO;
			goto fail;
		}
		tm->t_recv_done = gb_now();
	}
	if (c->rank != root && tsize > 0) {
		/* fewer elements than @count: the parent sent segment 0 */
		ret = -EPROTO;
		why = "a segment that is not a whole number of this rank's elements "
		      "(segmentation needs datatypes of one size on every rank)";
		if (MPI_Get_count(&st, dt, &seg) != MPI_SUCCESS || seg == MPI_UNDEFINED ||
		    seg > count || (seg == 0 && count > 0))
			goto fail;
		if (seg == count)
			seg = 0;
	}

	/* a static tree's receivers: the stripes every rank was given, for
	 * a message that came in segments */
	if (!pig && c->rank != root && seg > 0 && kst > 1) {
		nst = kst;
		ret = stripe_groups(c);
		if (ret < 0)
			goto fail;
	}
	if (seg == 0)
		nst = 1;
	/* stripes rotate ranks of the executed tree: give it its real root */
	if (nst > 1 && from != to) {
		gb_tree_release(&c->rx);
		ret = gb_tree_relabel(t, root, &c->rx);
		if (ret < 0)
			goto fail;
		tr = &c->rx;
		from = to = root;
	}
	me = gb_relabel(c->rank, from, to);
	nc = tr->nchild[me];
	if (seg > 0) {
		struct gb_bcast_stripe sv[GB_STRIPES_MAX];
		struct gb_bcast_pipe_args a = {
			.seg = seg, .nstripes = nst, .st = sv, .tag = td,
			.hdr = pig ? c->hdr : NULL, .hlen = (int)hlen, .hdr_tag = th,
			.flags = flags,
		};

		sv[0] = (struct gb_bcast_stripe){ c->rank == root ? -1 : tm->parent, nc, c->kids };
		for (int j = 0; j < nc; j++)
			c->kids[j] = gb_relabel(tr->child[tr->cstart[me] + j], from, to);
		ret = stripes_make(c, tr, nst, sv);
		if (ret < 0)
			goto fail;
		ret = gb_bcast_pipe(c, buf, count, dt, &a, tm);
		if (ret < 0)
			goto fail;
		tm->seg_bytes = (uint64_t)seg * (uint64_t)tsize;
		tm->stripes = nst;
		goto done;
	}
	for (int k = 0; k < nc; k++) {
		int dst = gb_relabel(tr->child[tr->cstart[me] + k], from, to);
		double s = gb_now();

		if (k == 0)
			tm->t_send_start = s;
		c->child_start[dst] = s;
		ret = -EIO;
		if (isend) {
			if (pig && MPI_Isend(c->hdr, (int)hlen, MPI_BYTE, dst, th, c->pc,
					     &c->req[nreq++]))
				goto fail;
			if (MPI_Isend(buf, count, dt, dst, td, c->pc, &c->req[nreq++]))
				goto fail;
		} else {
			if (pig && gb_bcast_send(c->hdr, (int)hlen, MPI_BYTE, dst, th, c->pc, flags))
				goto fail;
			if (gb_bcast_send(buf, count, dt, dst, td, c->pc, flags))
				goto fail;
		}
	}
	if (nreq && gb_bcast_waitall(nreq, c->req, flags)) {
		ret = -EIO;
		goto fail;
	}
done:
	tm->t_send_done = nc ? gb_now() : tm->t_recv_done;
	tm->nchild = nc;
	tm->hdr_bytes = pig ? (uint64_t)nc * (uint64_t)hlen : 0;
	return 0;

fail:
	gb_bcast_seterr("broadcast %u on rank %d: %s", seq, c->rank,
			ret == -EIO ? "MPI error" : ret == -EPROTO ? why : strerror(-ret));
	return ret;
}

int gb_bcast_native(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
		    struct gb_bcast_timing *tm)
{
	struct gb_bcast_timing local;
	int rank = 0, ret;

	if (!tm)
		tm = &local;
	memset(tm, 0, sizeof(*tm));
	tm->parent = -1;
	tm->t_send_start = NAN;
	tm->stripes = 1;
	MPI_Comm_rank(comm, &rank);
	tm->t_begin = gb_now();
	ret = PMPI_Bcast(buf, count, dt, root, comm);
	tm->t_send_done = gb_now();
	tm->t_recv_done = rank == root ? tm->t_begin : tm->t_send_done;
	if (ret != MPI_SUCCESS) {
		gb_bcast_seterr("MPI_Bcast failed on rank %d", rank);
		return -EIO;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Gathering                                                           */
/* ------------------------------------------------------------------ */

#define REC_LEN 7

int gb_bcast_gather(const struct gb_bcast_timing *tm, int root, MPI_Comm comm,
		    struct gb_bcast_rankrec *out)
{
	struct gb_bcast_comm *c;
	double rec[REC_LEN], *all = NULL, *cs = NULL, *mn = NULL;
	int ret;

	ret = gb_bcast_comm_get(comm, &c);
	if (ret < 0)
		return ret;
	if (!tm || root < 0 || root >= c->n || (c->rank == root && !out))
		return -EINVAL;
	rec[0] = tm->t_begin;
	rec[1] = tm->t_recv_done;
	rec[2] = tm->t_send_done;
	rec[3] = tm->t_send_start;
	rec[4] = tm->parent;
	rec[5] = tm->nchild;
	rec[6] = (double)tm->hdr_bytes;
	ret = -ENOMEM;
	cs = malloc(sizeof(double) * c->n);
	if (c->rank == root) {
		all = malloc(sizeof(double) * REC_LEN * c->n);
		mn = malloc(sizeof(double) * c->n);
	}
	if (!cs || (c->rank == root && (!all || !mn)))
		goto cleanup;
	for (int i = 0; i < c->n; i++)
		cs[i] = tm->child_start ? tm->child_start[i] : INFINITY;
	ret = -EIO;
	if (MPI_Gather(rec, REC_LEN, MPI_DOUBLE, all, REC_LEN, MPI_DOUBLE, root, c->pc) ||
	    MPI_Reduce(cs, mn, c->n, MPI_DOUBLE, MPI_MIN, root, c->pc))
		goto cleanup;
	if (c->rank == root) {
		for (int i = 0; i < c->n; i++) {
			const double *r = all + (size_t)REC_LEN * i;

			out[i].t_begin = r[0];
			out[i].t_recv_done = r[1];
			out[i].t_send_done = r[2];
			out[i].t_send_start = r[3];
			out[i].parent = (int)r[4];
			out[i].nchild = (int)r[5];
			out[i].hdr_bytes = (uint64_t)r[6];
			out[i].parent_send_start = isfinite(mn[i]) ? mn[i] : NAN;
		}
	}
	ret = 0;
cleanup:
	if (ret < 0)
		gb_bcast_seterr("cannot gather the timings: %s", strerror(-ret));
	free(all);
	free(cs);
	free(mn);
	return ret;
}
