/* SPDX-License-Identifier: MIT */
/*
 * 9002-stencil-balance - seed 004 s4: slab thicknesses proportional to
 * speed.  Every split sums to the grid size, every slab is within one grid
 * point of its exact share, remainders go to the largest fractional parts;
 * s4.2's example; the minimum thickness; s4.3's boundary reduction keeps
 * each machine's total.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbstencil.h"
#include "tap.h"

static int sum(int n, const int *v)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void test_even(void)
{
	int len[4], w[3] = { 4, 3, 3 };

	ok(gb_st_split_even(10, 3, len) == 0 && !memcmp(len, w, sizeof(w)),
	   "even: 10 over 3 -> 4 3 3 (remainder first)");
	is_int(gb_st_split_even(2, 3, len), -EINVAL, "even: fewer points than parts: -EINVAL");
}

static void test_paper(void)
{
	/* s4.2: 320 points along x over 4 + 4 slabs, benchmark 4.40 s on the
	 * Origin and 2.41 s on the SP: speeds 1/4.40 and 1/2.41 */
	int kl[2] = { 4, 4 }, len[8], want[8] = { 28, 28, 28, 28, 52, 52, 52, 52 };
	double sp[2] = { 1 / 4.40, 1 / 2.41 }, w[8];

	ok(gb_st_slab_weights(2, kl, sp, 0, w) == 0 && gb_st_balance(320, 8, w, 1, len) == 0,
	   "s4.2 example runs");
	ok(!memcmp(len, want, sizeof(want)), "s4.2: 28 x 4 + 52 x 4 (paper: 28,28,28,26,52,52,52,54)");
	is_int(sum(8, len), 320, "s4.2: sums to 320");
}

static void test_property(void)
{
	struct {
		unsigned long long s;
	} rng = { 12345 };
	int bad_sum = 0, bad_dev = 0, cases = 0;

	for (int t = 0; t < 2000; t++) {
		int parts, n, len[64];
		double w[64], W = 0;

		rng.s = rng.s * 6364136223846793005ull + 1442695040888963407ull;
		parts = 1 + (int)(rng.s >> 58);
		n = parts + (int)((rng.s >> 20) % 5000);
		for (int i = 0; i < parts; i++) {
			rng.s = rng.s * 6364136223846793005ull + 1442695040888963407ull;
			w[i] = 0.05 + (double)(rng.s >> 11) / 9007199254740992.0 * 3;
			W += w[i];
		}
		if (gb_st_balance(n, parts, w, 0, len) < 0)
			continue;
		cases++;
		bad_sum += sum(parts, len) != n;
		for (int i = 0; i < parts; i++)
			bad_dev += fabs(len[i] - n * w[i] / W) >= 1;
	}
	is_int(cases, 2000, "2000 random splits");
	is_int(bad_sum, 0, "every split sums to the grid size");
	is_int(bad_dev, 0, "every slab within one grid point of n w_i / W");
}

static void test_remainders(void)
{
	int len[3], w334[3] = { 3, 3, 4 }, w433[3] = { 4, 3, 3 };
	double eq[3] = { 1, 1, 1 }, up[3] = { 1, 1, 1.2 };

	ok(gb_st_balance(10, 3, eq, 1, len) == 0 && !memcmp(len, w433, sizeof(w433)),
	   "10 over 3 equal: the tie goes to the lower index (4 3 3)");
	/* exact 3.125, 3.125, 3.75: floors 3 3 3, the point goes to .75 */
	ok(gb_st_balance(10, 3, up, 1, len) == 0 && !memcmp(len, w334, sizeof(w334)),
	   "10 over 1 : 1 : 1.2 -> 3 3 4 (largest fractional part)");
}

static void test_min(void)
{
	int len[3], want[3] = { 5, 48, 47 };
	double w[3] = { 1, 100, 100 };

	/* exact share of the first is 0.5 < 5: it is pinned at 5, the other
	 * two share 95 (47.5 each) */
	ok(gb_st_balance(100, 3, w, 5, len) == 0 && !memcmp(len, want, sizeof(want)),
	   "minimum thickness: 5 48 47");
	is_int(gb_st_balance(10, 3, w, 4, len), -EINVAL, "3 x 4 > 10 points: -EINVAL");
	w[1] = 0;
	is_int(gb_st_balance(100, 3, w, 1, len), -EINVAL, "a zero weight: -EINVAL");
}

static void test_overlap(void)
{
	int kl[2] = { 4, 4 }, kl3[3] = { 2, 1, 2 };
	double sp[2] = { 1, 2 }, w[8], s0 = 0, s1 = 0, sp3[3] = { 1, 1, 1 }, w3[5];

	ok(gb_st_slab_weights(2, kl, sp, 0.2, w) == 0, "s4.3 weights");
	for (int i = 0; i < 4; i++) {
		s0 += w[i];
		s1 += w[4 + i];
	}
	is_double(w[3], 0.8, 1e-12, "s4.3: the boundary slab of machine 0 gets 20 %% less");
	is_double(w[4], 1.6, 1e-12, "s4.3: so does machine 1's");
	is_double(w[0], 1 + 0.2 / 3, 1e-12, "the others share it");
	ok(fabs(s0 - 4) < 1e-12 && fabs(s1 - 8) < 1e-12, "each machine's total is unchanged");
	ok(gb_st_slab_weights(3, kl3, sp3, 0.2, w3) == 0 && w3[2] == 1 && w3[1] == 0.8 &&
	   w3[3] == 0.8 && fabs(w3[0] - 1.2) < 1e-12,
	   "a one-slab machine between two boundaries keeps its share");
	is_int(gb_st_slab_weights(2, kl, sp, 1.0, w), -EINVAL, "reduce 1.0: -EINVAL");
}

int main(void)
{
	plan(20);
	test_even();
	test_paper();
	test_property();
	test_remainders();
	test_min();
	test_overlap();
	return done_testing();
}
