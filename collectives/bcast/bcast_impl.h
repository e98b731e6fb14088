/* SPDX-License-Identifier: MIT */
/*
 * bcast_impl.h - libgridbcast's internals shared by bcast_exec.c (the
 * executor and the per-communicator state), bcast_pipe.c (segmented
 * forwarding) and bcast_tree.c (planning and getting the tree to every
 * rank).  Not installed, not for callers.
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
	const char *tree_via;
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
	int *world;              /**< world rank of each rank */

	/* bcast_tree.c */
	int planning_ready;
	int *host;               /**< topology host index of each rank, or -1 */
	struct gb_netmodel sm;   /**< static model over the ranks */
	char sm_label[256];
	struct gb_bcast_entry cache[GB_BCAST_CACHE];
	int ncache, cache_next;
	struct gb_bcast_entry adaptive;  /**< GRIDBED_BCAST=adaptive: the last call's */
	char adaptive_via[48];           /**< its tree_via when it is "fallback:<planner>" */

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
 * struct gb_bcast_pipe_args - one node's part of a segmented broadcast
 * (bcast_pipe.c).
 * @parent:  rank to receive from, -1 at the root
 * @seg:     elements per segment (>= 1); at a receiver, how many elements
 *           its segment 0 brought (the caller has received it)
 * @kids:    @nkids ranks to forward to, in send order
 * @tag:     the data tag of this broadcast
 * @hdr:     the piggybacked tree header sent to each child before its
 *           first segment (@hlen bytes, tag @hdr_tag), or NULL
 */
struct gb_bcast_pipe_args {
	int parent, seg, nkids, tag;
	const int *kids;
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

/** gb_bcast_planning_release() - bcast_tree.c's part of freeing a state. */
void gb_bcast_planning_release(struct gb_bcast_comm *c);

#endif
