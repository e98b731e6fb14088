/* SPDX-License-Identifier: MIT */
/*
 * tapd_queue.h - the data structures of gridemu-tapd's delay line: a packet
 * pool, a time-ordered queue, a seeded PRNG and a lateness histogram.
 *
 * They are pure (no syscalls, nothing printed) so that t/2000-tapd-queue.c
 * can test them without root.  None of them is thread safe: each worker
 * thread owns its pool and heap, and each direction of a link owns its two
 * PRNG streams.  The histogram is the exception that is *read* by another
 * thread (the control thread answering `stats`): its single writer and its
 * readers use relaxed atomic loads and stores, so a snapshot may be a few
 * packets behind but never torn.
 */
#ifndef GRIDBED_TAPD_QUEUE_H
#define GRIDBED_TAPD_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "gbutil.h"

#define TQ_WUR __attribute__((warn_unused_result))

/*
 * Packet pool.
 *
 * A packet read from a TUN device with IFF_VNET_HDR is a 10-byte virtio-net
 * header followed by an IP packet of up to 64 KiB (a GSO super-packet when
 * the device offloads TSO).  Every read therefore goes into a BIG buffer.
 * Most packets are small, so a packet that fits is copied into a SMALL one
 * and the big buffer is reused for the next read: queued packets then cost
 * 2 KiB each, not 64 KiB, and big packets (the ones that are expensive to
 * copy) are never copied.
 *
 * Buffers are carved from slabs allocated on demand and never returned to
 * malloc until tq_pool_release(): after warm-up there is no allocation per
 * packet.  The pool refuses to grow beyond max_bytes, so a misconfigured
 * limit cannot eat the machine's memory; the caller counts those drops.
 */
enum tq_class {
	TQ_SMALL = 0,
	TQ_BIG = 1,
};

struct tq_pkt {
	uint64_t deadline;     /**< absolute CLOCK_MONOTONIC time to send, ns */
	uint64_t arrival;      /**< when it was read, ns */
	struct tq_pkt *next;   /**< free-list link */
	void *owner;           /**< the direction it belongs to (caller's) */
	uint32_t len;          /**< bytes used in data[] */
	uint32_t cls;          /**< enum tq_class */
	unsigned char data[] __attribute__((aligned(16)));
};

/** Bytes a slot of each class occupies, struct tq_pkt included. */
#define TQ_SMALL_SLOT 2048u
#define TQ_BIG_SLOT (65536u + 512u)
/** Bytes of data[] in each class. */
#define TQ_SMALL_CAP (TQ_SMALL_SLOT - (uint32_t)sizeof(struct tq_pkt))
#define TQ_BIG_CAP (TQ_BIG_SLOT - (uint32_t)sizeof(struct tq_pkt))

struct tq_pool {
	struct tq_pkt *free[2];
	void **slabs;
	size_t nslabs, slabs_cap;
	size_t bytes;          /**< bytes allocated in slabs so far */
	size_t max_bytes;      /**< never allocate beyond this */
	size_t in_use[2];      /**< buffers handed out and not yet put back */
};

/** Set up an empty pool that will never hold more than @max_bytes. */
void tq_pool_init(struct tq_pool *p, size_t max_bytes);
/**
 * Take a buffer of class @cls.  Returns NULL when the pool is at max_bytes
 * (or malloc fails).  The buffer's len is 0, its cls is @cls.
 */
TQ_WUR struct tq_pkt *tq_pool_get(struct tq_pool *p, enum tq_class cls);
/** Give a buffer back (NULL is ignored). */
void tq_pool_put(struct tq_pool *p, struct tq_pkt *pkt);
/** Free every slab; buffers still handed out become invalid.  Idempotent. */
void tq_pool_release(struct tq_pool *p);

/*
 * Time-ordered queue: a binary min-heap keyed by (deadline, seq), where seq
 * is the order of arrival.  Equal deadlines therefore leave in arrival order,
 * and a constant delay keeps a direction FIFO; jitter reorders packets
 * exactly as netem's tfifo does (it sorts by time_to_send, too).
 *
 * The entries carry their keys, so sifting never touches the packets
 * themselves (they are up to 64 KiB apart in memory).
 */
struct tq_entry {
	uint64_t deadline;
	uint64_t seq;
	struct tq_pkt *pkt;
};

struct tq_heap {
	struct tq_entry *v;
	size_t n, cap;
};

/** An empty heap; tq_heap_push() allocates on first use. */
void tq_heap_init(struct tq_heap *h);
/** Insert @pkt with key (pkt->deadline, @seq).  0 or -ENOMEM. */
TQ_WUR int tq_heap_push(struct tq_heap *h, struct tq_pkt *pkt, uint64_t seq);
/** The earliest entry, or NULL when empty.  Valid until the next push/pop. */
static inline const struct tq_entry *tq_heap_peek(const struct tq_heap *h)
{
	return h->n ? &h->v[0] : NULL;
}
/** Remove and return the earliest packet, or NULL when empty. */
struct tq_pkt *tq_heap_pop(struct tq_heap *h);
/** Make sure @n entries fit without allocating.  0 or -ENOMEM. */
TQ_WUR int tq_heap_reserve(struct tq_heap *h, size_t n);
/** Free the array (not the packets).  Idempotent. */
void tq_heap_release(struct tq_heap *h);

/*
 * PRNG: xoshiro256** (Blackman & Vigna), seeded through splitmix64 from the
 * configuration's seed and a stream number, so that each direction's loss
 * and jitter decisions are independent of each other and of every other
 * direction, and identical from run to run for the same seed and the same
 * packet sequence.
 */
/** Seed @r from (@seed, @stream).  Draws: gb_rng_next(), gb_rng_uniform(). */
void tq_rng_seed(struct gb_rng *r, uint64_t seed, uint64_t stream);
/** Uniform in [0, @n) (Lemire's multiply-shift, 64-bit; @n > 0). */
uint64_t tq_rng_below(struct gb_rng *r, uint64_t n);

/*
 * Lateness histogram: log-linear buckets (16 per power of two) over
 * nanoseconds, so every value up to ~18 minutes is kept with a relative
 * error under 1/16 (6 %) and quantiles come out in a few hundred steps.
 *
 *   v < 16                 -> bucket v                      (exact)
 *   2^m <= v < 2^(m+1)     -> bucket 16 * (m - 3) + (v >> (m - 4)) - 16
 */
#define TQ_HIST_SUB_BITS 4
#define TQ_HIST_MAX_BITS 40
#define TQ_HIST_BUCKETS ((TQ_HIST_MAX_BITS - TQ_HIST_SUB_BITS + 2) << TQ_HIST_SUB_BITS)

struct tq_hist {
	uint64_t count;
	uint64_t sum;
	uint64_t max;
	uint64_t b[TQ_HIST_BUCKETS];
};

/** Record @v (single writer; relaxed atomic stores). */
void tq_hist_add(struct tq_hist *h, uint64_t v);
/** Copy @h into @out with relaxed atomic loads (any thread). */
void tq_hist_snapshot(const struct tq_hist *h, struct tq_hist *out);
/** Add the counts of @src into @dst (plain memory; both private). */
void tq_hist_merge(struct tq_hist *dst, const struct tq_hist *src);
/**
 * The value below which a fraction @q (0..1) of the samples lie: the middle
 * of the bucket that holds the rank, clipped to the recorded max (the max
 * itself for the top rank).  0 when
 * the histogram is empty.
 */
uint64_t tq_hist_quantile(const struct tq_hist *h, double q);
/** The bucket index of @v (exposed for tests). */
unsigned tq_hist_bucket(uint64_t v);
/** The smallest value that falls in bucket @i (exposed for tests). */
uint64_t tq_hist_bucket_low(unsigned i);

#endif /* GRIDBED_TAPD_QUEUE_H */
