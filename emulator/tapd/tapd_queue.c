// SPDX-License-Identifier: MIT
/*
 * tapd_queue.c - packet pool, time-ordered heap, PRNG and histogram of
 * gridemu-tapd (see tapd_queue.h for the why of each).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tapd_queue.h"

/* ---- packet pool ------------------------------------------------------ */

/* Buffers per slab: about 1 MiB of each class at a time. */
#define SMALL_PER_SLAB 512u
#define BIG_PER_SLAB 16u

static const uint32_t slot_size[2] = { TQ_SMALL_SLOT, TQ_BIG_SLOT };
static const uint32_t per_slab[2] = { SMALL_PER_SLAB, BIG_PER_SLAB };

void tq_pool_init(struct tq_pool *p, size_t max_bytes)
{
	memset(p, 0, sizeof(*p));
	p->max_bytes = max_bytes;
}

static int pool_grow(struct tq_pool *p, enum tq_class cls)
{
	size_t size = (size_t)slot_size[cls] * per_slab[cls];
	unsigned char *slab;
	uint32_t i;

	if (p->bytes + size > p->max_bytes)
		return -ENOBUFS;
	if (p->nslabs == p->slabs_cap) {
		size_t ncap = p->slabs_cap ? 2 * p->slabs_cap : 16;
		void **v = realloc(p->slabs, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->slabs = v;
		p->slabs_cap = ncap;
	}
	slab = aligned_alloc(64, size);
	if (!slab)
		return -ENOMEM;
	p->slabs[p->nslabs++] = slab;
	p->bytes += size;
	for (i = 0; i < per_slab[cls]; i++) {
		struct tq_pkt *pkt = (struct tq_pkt *)(slab + (size_t)i * slot_size[cls]);

		pkt->cls = cls;
		pkt->next = p->free[cls];
		p->free[cls] = pkt;
	}
	return 0;
}

struct tq_pkt *tq_pool_get(struct tq_pool *p, enum tq_class cls)
{
	struct tq_pkt *pkt;

	if (!p->free[cls] && pool_grow(p, cls) < 0)
		return NULL;
	pkt = p->free[cls];
	p->free[cls] = pkt->next;
	pkt->next = NULL;
	pkt->len = 0;
	pkt->owner = NULL;
	p->in_use[cls]++;
	return pkt;
}

void tq_pool_put(struct tq_pool *p, struct tq_pkt *pkt)
{
	if (!pkt)
		return;
	pkt->next = p->free[pkt->cls];
	p->free[pkt->cls] = pkt;
	p->in_use[pkt->cls]--;
}

void tq_pool_release(struct tq_pool *p)
{
	size_t i;

	for (i = 0; i < p->nslabs; i++)
		free(p->slabs[i]);
	free(p->slabs);
	tq_pool_init(p, p->max_bytes);
}

/* ---- time-ordered heap ------------------------------------------------ */

static inline int entry_before(const struct tq_entry *a, const struct tq_entry *b)
{
	return a->deadline < b->deadline || (a->deadline == b->deadline && a->seq < b->seq);
}

void tq_heap_init(struct tq_heap *h)
{
	memset(h, 0, sizeof(*h));
}

int tq_heap_reserve(struct tq_heap *h, size_t n)
{
	struct tq_entry *v;
	size_t ncap;

	if (n <= h->cap)
		return 0;
	ncap = h->cap ? h->cap : 64;
	while (ncap < n)
		ncap *= 2;
	v = realloc(h->v, ncap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	h->v = v;
	h->cap = ncap;
	return 0;
}

int tq_heap_push(struct tq_heap *h, struct tq_pkt *pkt, uint64_t seq)
{
	struct tq_entry e = { pkt->deadline, seq, pkt };
	size_t i;
	int err;

	if (h->n == h->cap) {
		err = tq_heap_reserve(h, h->n + 1);
		if (err < 0)
			return err;
	}
	/* Sift up with a hole instead of swaps. */
	i = h->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!entry_before(&e, &h->v[parent]))
			break;
		h->v[i] = h->v[parent];
		i = parent;
	}
	h->v[i] = e;
	return 0;
}

struct tq_pkt *tq_heap_pop(struct tq_heap *h)
{
	struct tq_pkt *top;
	struct tq_entry last;
	size_t i = 0, n;

	if (!h->n)
		return NULL;
	top = h->v[0].pkt;
	n = --h->n;
	if (!n)
		return top;
	last = h->v[n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && entry_before(&h->v[c + 1], &h->v[c]))
			c++;
		if (!entry_before(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	h->v[i] = last;
	return top;
}

void tq_heap_release(struct tq_heap *h)
{
	free(h->v);
	tq_heap_init(h);
}

/* ---- PRNG --------------------------------------------------------------- */

void tq_rng_seed(struct gb_rng *r, uint64_t seed, uint64_t stream)
{
	/* Mix the stream in through splitmix too, so streams 0 and 1 of seed s
	 * do not overlap streams of seed s + 1. */
	uint64_t x = seed;
	uint64_t k = gb_splitmix64(&x) ^ (stream * 0xd1342543de82ef95ull);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = gb_splitmix64(&k);
}

uint64_t tq_rng_below(struct gb_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)gb_rng_next(r) * n) >> 64);
}

/* ---- histogram ---------------------------------------------------------- */

#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

unsigned tq_hist_bucket(uint64_t v)
{
	unsigned m, shift;

	if (v >= (1ull << TQ_HIST_MAX_BITS))
		v = (1ull << TQ_HIST_MAX_BITS) - 1;
	if (v < (1u << TQ_HIST_SUB_BITS))
		return (unsigned)v;
	m = 63u - (unsigned)__builtin_clzll(v);
	shift = m - TQ_HIST_SUB_BITS;
	return (shift << TQ_HIST_SUB_BITS) + (unsigned)(v >> shift);
}

uint64_t tq_hist_bucket_low(unsigned i)
{
	unsigned shift;

	if (i < (1u << TQ_HIST_SUB_BITS))
		return i;
	shift = (i >> TQ_HIST_SUB_BITS) - 1;
	return (uint64_t)((i & ((1u << TQ_HIST_SUB_BITS) - 1)) + (1u << TQ_HIST_SUB_BITS))
	       << shift;
}

void tq_hist_add(struct tq_hist *h, uint64_t v)
{
	unsigned i = tq_hist_bucket(v);

	ST(h->b[i], LD(h->b[i]) + 1);
	ST(h->sum, LD(h->sum) + v);
	if (v > LD(h->max))
		ST(h->max, v);
	/* count last: a reader that sees it sees (almost) all the rest. */
	ST(h->count, LD(h->count) + 1);
}

void tq_hist_snapshot(const struct tq_hist *h, struct tq_hist *out)
{
	unsigned i;

	out->count = LD(h->count);
	out->sum = LD(h->sum);
	out->max = LD(h->max);
	for (i = 0; i < TQ_HIST_BUCKETS; i++)
		out->b[i] = LD(h->b[i]);
}

void tq_hist_merge(struct tq_hist *dst, const struct tq_hist *src)
{
	unsigned i;

	dst->count += src->count;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
	for (i = 0; i < TQ_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

uint64_t tq_hist_quantile(const struct tq_hist *h, double q)
{
	uint64_t total = 0, rank, seen = 0, lo, hi, mid;
	unsigned i;

	/* Sum the buckets rather than trust count: a racy snapshot may differ. */
	for (i = 0; i < TQ_HIST_BUCKETS; i++)
		total += h->b[i];
	if (!total)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	/* The smallest rank r (1-based) with r >= q * total. */
	rank = (uint64_t)(q * (double)total + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (rank >= total && h->max)
		return h->max;	/* the top sample is the max, known exactly */
	if (rank > total)
		rank = total;
	for (i = 0; i < TQ_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank)
			break;
	}
	lo = tq_hist_bucket_low(i);
	hi = i + 1 < TQ_HIST_BUCKETS ? tq_hist_bucket_low(i + 1) : lo + 1;
	mid = lo + (hi - lo - 1) / 2;
	return h->max && mid > h->max ? h->max : mid;
}
