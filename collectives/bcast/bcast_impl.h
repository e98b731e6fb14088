/* SPDX-License-Identifier: MIT */
/*
 * bcast_impl.h - libgridbcast's internals shared by bcast_exec.c (the
 * executor and the per-communicator state) and bcast_tree.c (planning and
 * getting the tree to every rank).  Not installed, not for callers.
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

/** gb_bcast_planning_release() - bcast_tree.c's part of freeing a state. */
void gb_bcast_planning_release(struct gb_bcast_comm *c);

#endif
