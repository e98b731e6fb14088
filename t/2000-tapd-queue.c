// SPDX-License-Identifier: MIT
/*
 * 2000-tapd-queue: the data structures of gridemu-tapd's delay line (packet
 * pool, time-ordered heap, PRNG, lateness histogram), without root.
 *
 * gridemu-tapd is a program, not a library the tests link, so its pure
 * part is compiled into this test directly.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../emulator/tapd/tapd_queue.c"
#include "tap.h"

static void test_heap(void)
{
	enum { N = 20000 };
	struct tq_pool pool;
	struct tq_heap h;
	struct gb_rng r;
	uint64_t last_d = 0, last_seq = 0, seq_of[N];
	int i, ordered = 1, tie_ordered = 1, pushed = 1;

	tq_pool_init(&pool, (size_t)64 << 20);
	tq_heap_init(&h);
	tq_rng_seed(&r, 1, 0);
	ok(tq_heap_peek(&h) == NULL && tq_heap_pop(&h) == NULL, "an empty heap has no head");
	for (i = 0; i < N; i++) {
		struct tq_pkt *p = tq_pool_get(&pool, TQ_SMALL);

		if (!p)
			bail("pool exhausted");
		/* Few distinct deadlines, so that ties are frequent. */
		p->deadline = 1000 + tq_rng_below(&r, 50) * 7;
		memcpy(p->data, &i, sizeof(i));
		seq_of[i] = (uint64_t)i;
		pushed &= tq_heap_push(&h, p, seq_of[i]) == 0;
	}
	ok(pushed, "%d pushes", N);
	is_int((long long)h.n, N, "the heap holds them all");
	for (i = 0; i < N; i++) {
		const struct tq_entry *e = tq_heap_peek(&h);
		uint64_t d = e->deadline, s = e->seq;
		struct tq_pkt *p = tq_heap_pop(&h);
		int idx;

		memcpy(&idx, p->data, sizeof(idx));
		if (p->deadline != d || (uint64_t)idx != s)
			ordered = 0;
		if (i && d < last_d)
			ordered = 0;
		if (i && d == last_d && s <= last_seq)
			tie_ordered = 0;
		last_d = d;
		last_seq = s;
		tq_pool_put(&pool, p);
	}
	ok(ordered, "pops come out by deadline, each entry with its own packet");
	ok(tie_ordered, "equal deadlines come out in arrival order (FIFO)");
	ok(tq_heap_pop(&h) == NULL, "and the heap is empty again");
	is_int((long long)pool.in_use[TQ_SMALL], 0, "every buffer went back to the pool");
	tq_heap_release(&h);
	tq_heap_release(&h);
	tq_pool_release(&pool);
	tq_pool_release(&pool);
	/* the second call found the state the first left: nothing to free
	 * twice (ASan would say), and both handles read as empty */
	ok(h.v == NULL && h.n == 0 && h.cap == 0 && pool.slabs == NULL && pool.nslabs == 0 &&
	   pool.bytes == 0 && pool.free[0] == NULL && pool.free[1] == NULL,
	   "released twice: the heap and the pool are empty handles");
}

static void test_pool(void)
{
	struct tq_pool pool;
	struct tq_pkt *p[17], *q;
	int i, got = 0;

	/* Room for exactly one slab of big buffers. */
	tq_pool_init(&pool, (size_t)16 * TQ_BIG_SLOT);
	for (i = 0; i < 17; i++) {
		p[i] = tq_pool_get(&pool, TQ_BIG);
		got += p[i] != NULL;
	}
	is_int(got, 16, "a pool capped at one slab hands out 16 big buffers, then NULL");
	ok(TQ_BIG_CAP >= 65536 + 10, "a big buffer holds a 64 KiB packet and its vnet header");
	ok(TQ_SMALL_CAP >= 1500 + 10, "a small buffer holds a 1500-byte packet and its header");
	ok(tq_pool_get(&pool, TQ_SMALL) == NULL, "small buffers need a slab that does not fit");
	tq_pool_put(&pool, p[3]);
	q = tq_pool_get(&pool, TQ_BIG);
	ok(q == p[3], "a buffer put back is handed out again");
	ok(((uintptr_t)q->data & 15) == 0, "packet data is 16-byte aligned");
	tq_pool_release(&pool);
}

static void test_rng(void)
{
	struct gb_rng a, b, c;
	int i, same = 1, diff = 0, in_range = 1;
	long lost = 0;

	tq_rng_seed(&a, 42, 3);
	tq_rng_seed(&b, 42, 3);
	tq_rng_seed(&c, 42, 4);
	for (i = 0; i < 1000; i++) {
		uint64_t x = gb_rng_next(&a), y = gb_rng_next(&b), z = gb_rng_next(&c);

		same &= x == y;
		diff += x != z;
	}
	ok(same, "same seed and stream: same sequence");
	ok(diff > 990, "another stream: another sequence");
	for (i = 0; i < 1000000; i++) {
		double u = gb_rng_uniform(&a);

		in_range &= u >= 0 && u < 1;
		lost += u < 0.2;
	}
	ok(in_range, "unit draws lie in [0, 1)");
	/* Binomial(1e6, 0.2): sd 400, so +/- 2000 is 5 sd. */
	ok(lost > 198000 && lost < 202000, "p = 0.2 draws hit %ld times in 1e6", lost);
	for (i = 0; i < 100000; i++)
		in_range &= tq_rng_below(&a, 17) < 17;
	ok(in_range, "below(17) < 17");
}

static void test_hist(void)
{
	static struct tq_hist h, snap, m;
	uint64_t v;
	int mono = 1, bounds = 1;
	unsigned prev = 0;

	for (v = 0; v < 5000000; v = v < 100 ? v + 1 : v + v / 97) {
		unsigned b = tq_hist_bucket(v);

		mono &= b >= prev;
		prev = b;
		bounds &= b < TQ_HIST_BUCKETS && tq_hist_bucket_low(b) <= v &&
			  v < tq_hist_bucket_low(b + 1);
	}
	ok(mono, "buckets grow with the value");
	ok(bounds, "each value lies within its bucket's bounds");
	ok(tq_hist_bucket(UINT64_MAX) < TQ_HIST_BUCKETS, "huge values are clamped into range");
	is_int((long long)tq_hist_quantile(&h, 0.5), 0, "an empty histogram's median is 0");

	for (v = 1; v <= 100000; v++)
		tq_hist_add(&h, v * 10);	/* 10 ns .. 1 ms, uniform */
	tq_hist_snapshot(&h, &snap);
	is_int((long long)snap.count, 100000, "count");
	is_int((long long)snap.max, 1000000, "max is exact");
	is_int((long long)(snap.sum / snap.count), 500005, "mean is exact");
	v = tq_hist_quantile(&snap, 0.5);
	ok(v > 500000 * 0.94 && v < 500000 * 1.06, "p50 %llu within 6 %% of 500000",
	   (unsigned long long)v);
	v = tq_hist_quantile(&snap, 0.99);
	ok(v > 990000 * 0.94 && v <= 1000000, "p99 %llu within 6 %% of 990000 and <= max",
	   (unsigned long long)v);
	is_int((long long)tq_hist_quantile(&snap, 1.0), 1000000, "p100 is the max");
	tq_hist_merge(&m, &snap);
	tq_hist_merge(&m, &snap);
	is_int((long long)m.count, 200000, "merging adds counts");
	v = tq_hist_quantile(&m, 0.5);
	ok(v > 500000 * 0.94 && v < 500000 * 1.06, "and keeps the distribution (p50 %llu)",
	   (unsigned long long)v);
}

int main(void)
{
	test_heap();
	test_pool();
	test_rng();
	test_hist();
	return done_testing();
}
