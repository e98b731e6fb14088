/* SPDX-License-Identifier: MIT */
/*
 * tapd_ring.h - the few io_uring calls gridemu-tapd's data path needs, on
 * the raw system calls (<linux/io_uring.h>; no liburing): set a ring up,
 * queue submissions, submit and wait in one io_uring_enter(2) with a
 * timeout, and read completions from the shared ring without entering the
 * kernel.  Not an API: only tapd_uring.c uses it.
 *
 * One thread submits and reaps (the worker that owns the ring); nothing here
 * is thread safe.  Functions return 0 (or a count) or a negative errno and
 * print nothing.
 */
#ifndef GRIDBED_TAPD_RING_H
#define GRIDBED_TAPD_RING_H

#include <linux/io_uring.h>
#include <stdint.h>

struct tapd_ring {
	int fd;
	/* submission queue */
	unsigned *sq_khead, *sq_ktail, *sq_array;
	unsigned sq_mask, sq_entries;
	unsigned sq_tail;            /* ours, published at tapd_ring_enter() */
	struct io_uring_sqe *sqes;
	/* completion queue */
	unsigned *cq_khead, *cq_ktail;
	unsigned cq_mask;
	struct io_uring_cqe *cqes;
	/* the mappings, for tapd_ring_release() */
	void *sq_map, *cq_map;
	size_t sq_map_len, cq_map_len, sqes_len;
};

/**
 * tapd_ring_init() - a ring of at least @entries submissions and 4 x as many
 * completions.  -ENOSYS (kernel without io_uring), -EPERM (disabled by
 * kernel.io_uring_disabled), -EOPNOTSUPP (a kernel older than 5.11, without
 * the timeout argument of io_uring_enter), or another setup/mmap errno.  On
 * failure nothing is left to release.
 */
__attribute__((warn_unused_result))
int tapd_ring_init(struct tapd_ring *r, unsigned entries);

/** tapd_ring_release() - unmap and close (the kernel cancels what is in flight).  Idempotent. */
void tapd_ring_release(struct tapd_ring *r);

/**
 * tapd_ring_sqe() - the next free submission entry, zeroed, or NULL when the
 * queue is full (submit with tapd_ring_enter() first).  It is submitted by
 * the next tapd_ring_enter().
 */
struct io_uring_sqe *tapd_ring_sqe(struct tapd_ring *r);

/** tapd_ring_unsubmitted() - entries queued and not yet taken by the kernel. */
static inline unsigned tapd_ring_unsubmitted(const struct tapd_ring *r)
{
	return r->sq_tail - __atomic_load_n(r->sq_khead, __ATOMIC_ACQUIRE);
}

/**
 * tapd_ring_enter() - one io_uring_enter(2): submit what is queued and, when
 * @wait_nr > 0, wait until @wait_nr completions are there (those that the
 * submission itself produced count) or @timeout_ns (relative, CLOCK_MONOTONIC;
 * < 0: no limit) have passed.  Call it with no completion left unconsumed.
 * Returns what the system call returns (entries submitted, or 0), or a
 * negative errno (-ETIME: the timeout expired with nothing submitted, -EINTR).
 */
int tapd_ring_enter(struct tapd_ring *r, unsigned wait_nr, long long timeout_ns);

/** tapd_ring_ready() - completions there and not consumed. */
static inline unsigned tapd_ring_ready(const struct tapd_ring *r)
{
	return __atomic_load_n(r->cq_ktail, __ATOMIC_ACQUIRE) - *r->cq_khead;
}

/** tapd_ring_cqe() - the oldest completion not yet consumed, or NULL. */
static inline struct io_uring_cqe *tapd_ring_cqe(struct tapd_ring *r)
{
	unsigned head = *r->cq_khead;

	if (head == __atomic_load_n(r->cq_ktail, __ATOMIC_ACQUIRE))
		return NULL;
	return &r->cqes[head & r->cq_mask];
}

/** tapd_ring_cqe_seen() - consume the completion tapd_ring_cqe() returned. */
static inline void tapd_ring_cqe_seen(struct tapd_ring *r)
{
	__atomic_store_n(r->cq_khead, *r->cq_khead + 1, __ATOMIC_RELEASE);
}

#endif /* GRIDBED_TAPD_RING_H */
