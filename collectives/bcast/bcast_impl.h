/* SPDX-License-Identifier: MIT */
/*
 * bcast_impl.h - libgridbcast's internals shared by bcast_exec.c (the
 * executor and the per-communicator state), bcast_pipe.c (segmented
 * forwarding), bcast_tree.c (planning and getting the tree to every
 * rank) and bcast_adaptive.c (the advisor's trees).  Not installed, not
 * for callers.
 */
#ifndef GRIDBED_BCAST_IMPL_H
#define GRIDBED_BCAST_IMPL_H

#include <stdarg.h>
#include <time.h>

#include "gridbcast.h"

/** Trees kept per communicator: (planner, root, size, matrix mtime). */
#define GB_BCAST_CACHE 32

struct gb_bcast_entry {
	const struct gb_planner *p;
	int root;
	double size;
	struct timespec mtime;   /**< the matrix file's, 0 without one */
	struct gb_tree t;        /**< t.n == 0: the tree is not known here */
	const char *tree_via;    /**< how the ranks get the tree (the protocol's choice) */
	const char *reported_via;   /**< what gb_bcast_info says instead, or NULL:
				       "fallback:mpich-g2" when a plugin failed at the root */
	char model[256];
	double seg;              /**< root: the automatic segment size (bytes) */
	int seg_elem;            /**< ... for elements of this size; 0: not chosen yet */
};

/**
 * struct gb_bcast_comm - what the library keeps per user communicator,
 * attached to it as an attribute (bcast_exec.c).
 */
struct gb_bcast_comm {
	MPI_Comm pc;             /**< private duplicate: all our messages */
	int n, rank;
	uint32_t seq;            /**< broadcasts so far, same on every rank */
	uint8_t *hdr;            /**< gb_bhdr_size(n) bytes */
	double *child_start;     /**< n entries, gb_bcast_timing.child_start */
	MPI_Request *req;        /**< 2n requests for the Isend mode */
	int *kids;               /**< n entries: a segmented call's children */
	MPI_Request *preq;       /**< bcast_pipe.c's requests, npreq of them */
	size_t npreq;
	struct gb_tree rx;       /**< the last tree a header brought */
	/* striped broadcasts (gb_bcast_opts.stripes; bcast_exec.c) */
	int *group;              /**< n entries: each rank's cluster, filled in by the
				      planning side (groups_ready), which the executor reads */
	int groups_ready;
	/** stripes 1 .. k-1 of the last call, stripe s at [s - 1] (stripe 0 is the tree) */
	struct gb_tree stripe[GB_STRIPES_MAX - 1];
	int *skids;              /**< (GB_STRIPES_MAX - 1) x n: stripe s's children in row s - 1 */
	int *world;              /**< world rank of each rank */

	/* bcast_tree.c */
	int planning_ready;
	int *host;               /**< topology host index of each rank, or -1 */
	struct gb_netmodel sm;   /**< static model over the ranks */
	char sm_label[256];
	struct gb_bcast_entry cache[GB_BCAST_CACHE];
	int ncache, cache_next;
	/* bcast_adaptive.c */
	struct gb_bcast_entry adaptive;  /**< GRIDBED_BCAST=adaptive: the last call's */
	char adaptive_via[48];           /**< its tree_via when it is "fallback:<planner>" */

	/** the planning side's cleanup, set by gb_bcast_planning_init(): the
	 *  executor frees a state without knowing what planning keeps in it */
	void (*release)(struct gb_bcast_comm *c);
	int dead;                /**< pc freed at MPI_Finalize */
	struct gb_bcast_comm *next;
};

/**
 * gb_bcast_comm_get() - the state of @comm, created on the first call
 * (collective then: MPI_Comm_dup).  Return: 0, -EINVAL (intercommunicator
 * or MPI_COMM_NULL), -EIO, -ENOMEM.
 */
int gb_bcast_comm_get(MPI_Comm comm, struct gb_bcast_comm **out);

/** gb_bcast_seterr() - record the message gb_bcast_strerror() returns. */
__attribute__((format(printf, 1, 2))) void gb_bcast_seterr(const char *fmt, ...);

/**
 * struct gb_bcast_stripe - one node's part in one stripe (one tree) of a
 * segmented broadcast.
 * @parent:  rank to receive this stripe's segments from, -1 at the root
 * @kids:    @nkids ranks to forward them to, in send order
 */
struct gb_bcast_stripe {
	int parent, nkids;
	const int *kids;
};

/**
 * struct gb_bcast_pipe_args - one node's part of a segmented broadcast
 * (bcast_pipe.c).
 * @seg:      elements per segment (>= 1); at a receiver, how many elements
 *            its segment 0 brought (the caller has received it)
 * @nstripes: segment j goes down stripe j mod @nstripes (>= 1) ...
 * @st:       ... whose parent and children are @st[j mod @nstripes]
 * @tag:      the data tag of this broadcast's stripe 0; stripe s's is
 *            @tag + s (bcast_exec.c's tags())
 * @hdr:      the piggybacked tree header sent to each child of stripe 0
 *            before its first segment (@hlen bytes, tag @hdr_tag), or NULL
 */
struct gb_bcast_pipe_args {
	int seg, nstripes, tag;
	const struct gb_bcast_stripe *st;
	const void *hdr;
	int hlen, hdr_tag;
	unsigned flags;          /**< gb_bcast_opts.flags (GB_BCAST_SLEEP) */
};

/**
 * gb_bcast_pipe() - receive the rest of a segmented message (after segment
 * 0) and forward every segment to the children, pipelined.  Sets
 * @tm->t_recv_done (receivers), t_send_start and child_start.
 * Return: 0, -EINVAL, -EIO (MPI failed) or -ENOMEM.
 */
int gb_bcast_pipe(struct gb_bcast_comm *c, void *buf, int count, MPI_Datatype dt,
		  const struct gb_bcast_pipe_args *a, struct gb_bcast_timing *tm);

/**
 * gb_bcast_waitany() - MPI_Waitany on @n requests, waiting as
 * gb_bcast_wait() with @flags: *@idx gets the index of the one that
 * completed (now MPI_REQUEST_NULL), MPI_UNDEFINED if all were null.
 * Return: 0 or -EIO (MPI failed).
 */
int gb_bcast_waitany(int n, MPI_Request *req, int *idx, unsigned flags);

/**
 * gb_bcast_waitall() - MPI_Waitall on @n requests (statuses ignored),
 * waiting as gb_bcast_wait() with @flags, in sleeps of at most
 * GB_BCAST_SEND_SLEEP_MS: for sends, whose progress is output.
 * Return: 0 or -EIO (MPI failed).
 */
int gb_bcast_waitall(int n, MPI_Request *req, unsigned flags);

/**
 * gb_bcast_send() - MPI_Send, or with GB_BCAST_SLEEP in @flags MPI_Isend
 * then gb_bcast_waitall(): returns when the buffer may be reused, as
 * MPI_Send does, without spinning.
 * Return: 0 or -EIO (MPI failed).
 */
int gb_bcast_send(const void *buf, int count, MPI_Datatype dt, int dst, int tag, MPI_Comm comm,
		  unsigned flags);

/** gb_bcast_planning_release() - bcast_tree.c's part of freeing a state. */
void gb_bcast_planning_release(struct gb_bcast_comm *c);

/**
 * gb_bcast_planning_init() - the rank -> host map and the static model of
 * @c, made on the first call (bcast_tree.c).  Return: 0 or -errno (with
 * gb_bcast_seterr()).
 */
int gb_bcast_planning_init(struct gb_bcast_comm *c);

/**
 * gb_bcast_rank_name() - rank @i's name into @buf: its host's, else the
 * rank map's, else "r<world rank>".  After gb_bcast_planning_init().
 */
void gb_bcast_rank_name(const struct gb_bcast_comm *c, int i, char *buf, size_t len);

/**
 * gb_bcast_get_entry() - the cached entry of planner @p's tree for @root
 * and @size on @c, else a new one planned now (by every rank for a static
 * planner, by the root for a measured one, through the shared file in the
 * ablation); *@plan_s gets the time spent planning it.
 * Return: 0 or -errno (with gb_bcast_seterr()).
 */
int gb_bcast_get_entry(struct gb_bcast_comm *c, const struct gb_planner *p, int root,
		       double size, const struct gb_bcast_opts *o, struct gb_bcast_entry **out,
		       double *plan_s);

/**
 * gb_bcast_call_opts() - @o (or the defaults) for one call of @e's tree
 * with elements of @tsize bytes, GB_SEG_AUTO resolved at the root.
 */
struct gb_bcast_opts gb_bcast_call_opts(struct gb_bcast_comm *c, struct gb_bcast_entry *e,
					const struct gb_bcast_opts *o, int root, int tsize);

/**
 * gb_bcast_set_info() - fill @info (if not NULL) from @e, or for the MPI
 * library's own broadcast when @e is NULL.
 */
void gb_bcast_set_info(struct gb_bcast_info *info, const struct gb_bcast_entry *e, double plan_s);

/**
 * gb_bcast_adaptive_entry() - the "adaptive" tree source (bcast_adaptive.c,
 * chosen in bcast_source.c): this call's entry, the advisor's tree or the
 * fallback planner's at the root, "piggyback" elsewhere; always sent in
 * the header.  @root is a rank of @c.  Collective, local work only.
 */
int gb_bcast_adaptive_entry(struct gb_bcast_comm *c, int root, double size,
			    const struct gb_bcast_opts *o, struct gb_bcast_entry **out,
			    double *plan_s);

/**
 * gb_bcast_exec() - the executor (bcast_exec.c, with bcast_pipe.c): run
 * tree @t as gridbcast.h's gb_bcast_tree() says, which is this after the
 * planning side has what stripes need (bcast_source.c).  It calls nothing
 * of planning (t/0095-layering.t).
 */
int gb_bcast_exec(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
		  const struct gb_tree *t, const struct gb_bcast_opts *o,
		  struct gb_bcast_timing *tm);

#endif
