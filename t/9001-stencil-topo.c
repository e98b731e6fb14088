/* SPDX-License-Identifier: MIT */
/*
 * 9001-stencil-topo - seed 004 s3's processor topologies against cases
 * worked by hand (most of them the paper's own): face sizes, the
 * single-machine search (a 2-D, a 3-D and the 6-D example), the
 * multi-machine road map (Fig. 1 in 2-D, s3.4 and Fig. 2 in 3-D), the
 * divisibility constraint, placement and wide-area face counts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gbstencil.h"
#include "tap.h"

static int same(int n, const int *a, const int *b)
{
	return !memcmp(a, b, sizeof(int) * n);
}

static void is_dims(int n, const int *got, const int *want, const char *what)
{
	char g[128], w[128];

	is_str(gb_st_fmt_dims(n, got, g, sizeof(g)), gb_st_fmt_dims(n, want, w, sizeof(w)), "%s",
	       what);
}

static void test_face(void)
{
	int g[2] = { 64, 128 }, k12[2] = { 1, 2 }, k21[2] = { 2, 1 };
	int g3[3] = { 128, 28, 64 }, k3[3] = { 8, 2, 4 };

	/* s3.1: 64x128 on two processors: 1x2 sends 64 points, 2x1 128 */
	is_double(gb_st_face_size(2, g, k12), 64, 0, "face size 64x128 / 1x2 = 64");
	is_double(gb_st_face_size(2, g, k21), 128, 0, "face size 64x128 / 2x1 = 128");
	/* 7*28*64 + 1*128*64 + 3*128*28 */
	is_double(gb_st_face_size(3, g3, k3), 31488, 0, "face size 128x28x64 / 8x2x4 = 31488");
	ok(gb_st_face_size(0, g, k12) < 0, "face size: 0 dimensions is an error");
}

static void test_single(void)
{
	int k[8], g2[2] = { 128, 85 }, w2[2] = { 4, 2 };
	int g3[3] = { 128, 28, 64 }, w3[3] = { 8, 2, 4 };
	int g6[6] = { 128, 64, 76, 96, 32, 128 }, w6[6] = { 8, 4, 4, 4, 1, 4 };
	int g1[2] = { 64, 128 }, w1[2] = { 1, 2 };

	/* 1x8: 7*128 = 896, 2x4: 85 + 3*128 = 469, 4x2: 3*85 + 128 = 383, 8x1: 595 */
	ok(gb_st_topo_single(2, g2, 8, 0, -1, k) == 0, "2-D search runs");
	is_dims(2, k, w2, "2-D 128x85 on 8 -> 4x2 (face 383)");
	ok(gb_st_topo_single(3, g3, 64, 0, -1, k) == 0 && same(3, k, w3),
	   "3-D 128x28x64 on 64 -> 8x2x4 (s3.4 step 5)");
	/* six factorisations tie; the paper's is the one with fewer cuts and
	 * the most processors first */
	ok(gb_st_topo_single(6, g6, 2048, 0, -1, k) == 0, "6-D search runs");
	is_dims(6, k, w6, "6-D 128x64x76x96x32x128 on 2048 -> 8x4x4x4x1x4 (s3.1)");
	ok(gb_st_topo_single(2, g1, 2, 0, -1, k) == 0 && same(2, k, w1),
	   "64x128 on 2 -> 1x2 (s3.1's example)");
	ok(gb_st_topo_single(2, g1, 1, 0, -1, k) == 0 && k[0] == 1 && k[1] == 1, "one processor");
	is_int(gb_st_topo_single(2, g1, 0, 0, -1, k), -EINVAL, "0 processors: -EINVAL");
	is_int(gb_st_topo_single(9, g6, 4, 0, -1, k), -EINVAL, "9 dimensions: -EINVAL");
}

static void test_even(void)
{
	int k[3], w576[3] = { 9, 8, 8 }, w16[2] = { 4, 4 }, w12[2] = { 4, 3 }, w7[2] = { 7, 1 };

	ok(gb_st_topo_even(3, 576, k) == 0 && same(3, k, w576),
	   "even: 576 on 3-D -> 9x8x8 (s3.4's 'previous algorithm')");
	ok(gb_st_topo_even(2, 16, k) == 0 && same(2, k, w16), "even: 16 on 2-D -> 4x4");
	ok(gb_st_topo_even(2, 12, k) == 0 && same(2, k, w12), "even: 12 on 2-D -> 4x3");
	ok(gb_st_topo_even(2, 7, k) == 0 && same(2, k, w7), "even: 7 on 2-D -> 7x1");
}

static void test_multi(void)
{
	struct gb_st_topo_info in;
	int k[3], kl[4];
	/* Fig. 1: 128x256 on 8 + 16 -> 4x6 */
	int g2[2] = { 128, 256 }, np2[2] = { 8, 16 }, w2[2] = { 4, 6 }, wl2[2] = { 2, 4 };
	/* s3.4: 128x256x64 on 64, 128, 128, 256 -> 8x18x4 */
	int g3[3] = { 128, 256, 64 }, np3[4] = { 64, 128, 128, 256 }, w3[3] = { 8, 18, 4 };
	int wl3[4] = { 2, 4, 4, 8 }, ws3[3] = { 128, 28, 64 }, wk3[3] = { 8, 2, 4 };
	/* Fig. 2 / s4.2: 320x320x160 on 128 + 128 -> 8x8x4, machines along x */
	int gf[3] = { 320, 320, 160 }, npf[2] = { 128, 128 }, wf[3] = { 8, 8, 4 };
	int wlf[2] = { 4, 4 };
	/* divisibility: 1000x1200 on 4 + 6; unconstrained the 4-processor
	 * machine would take 4x1 on 1000x480 (face 1440), but 4 does not
	 * divide 6: 2x2 (1480) is the best whose other dimension divides both */
	int gd[2] = { 1000, 1200 }, npd[2] = { 4, 6 }, wd[2] = { 2, 5 }, wld[2] = { 2, 3 };
	int ks[3], kd4[2] = { 4, 1 }, sub[2] = { 1000, 480 };

	ok(gb_st_topo_grid(2, g2, 2, np2, k, kl, &in) == 0, "Fig. 1 runs");
	is_dims(2, k, w2, "2-D 128x256 on 8 + 16 -> 4x6 (Fig. 1)");
	ok(same(2, kl, wl2) && in.longest == 1 && in.smallest == 0,
	   "Fig. 1: machines along dimension 1 with 2 and 4 positions");

	ok(gb_st_topo_grid(3, g3, 4, np3, k, kl, &in) == 0, "s3.4 runs");
	is_dims(3, k, w3, "3-D 128x256x64 on 64,128,128,256 -> 8x18x4 (s3.4)");
	ok(in.longest == 1 && in.smallest == 0 && in.others == 32, "s3.4 steps 2, 4, 6");
	is_dims(3, in.sub_grid, ws3, "s3.4 step 5: subgrid 128x28x64 (28:57:57:114)");
	is_dims(3, in.sub_k, wk3, "s3.4 step 5: its topology 8x2x4");
	ok(same(4, kl, wl3), "s3.4: 2, 4, 4, 8 positions along dimension 1");

	ok(gb_st_topo_grid(3, gf, 2, npf, k, kl, &in) == 0 && same(3, k, wf) && same(2, kl, wlf) &&
	   in.longest == 0, "3-D 320x320x160 on 128 + 128 -> 8x8x4, along x (Fig. 2)");

	ok(gb_st_topo_single(2, sub, 4, 0, -1, ks) == 0 && same(2, ks, kd4),
	   "without the constraint the 4-processor machine takes 4x1");
	ok(gb_st_topo_grid(2, gd, 2, npd, k, kl, &in) == 0 && same(2, k, wd) && same(2, kl, wld),
	   "with it: 1000x1200 on 4 + 6 -> 2x5, positions 2 and 3");

	/* one machine is s3.1 */
	ok(gb_st_topo_grid(3, g3, 1, &np3[3], k, kl, &in) == 0 &&
	   gb_st_topo_single(3, g3, 256, 0, -1, ks) == 0 && same(3, k, ks) && kl[0] == k[1],
	   "one machine: the s3.1 topology");
	is_int(gb_st_topo_grid(3, g3, 0, np3, k, kl, NULL), -EINVAL, "no machines: -EINVAL");
}

static void test_place_and_wan(void)
{
	int k[2] = { 2, 3 }, kl[2] = { 1, 2 }, cell[6], want[6] = { 0, 2, 4, 1, 3, 5 };
	int len0[6], len1[6], *len[2] = { len0, len1 }, mach[24];
	int kf[2] = { 4, 6 }, klf[2] = { 2, 4 }, ke[2];
	int g3[3] = { 128, 256, 64 }, k3[3] = { 8, 18, 4 }, kl3[4] = { 2, 4, 4, 8 };
	int np3[4] = { 64, 128, 128, 256 }, c3[576], m3[576], *l3[3];
	int a0[18], a1[18], a2[18];

	ok(gb_st_place_grid(2, k, 1, 2, kl, cell) == 0 && same(6, cell, want),
	   "placement: machine 0 first, L slowest, then row-major");

	/* Fig. 1 again: the machines' boundary carries 128 points in the
	 * grid-aware layout, 256 with the even one (6x4, ranks row-major) */
	ok(gb_st_place_grid(2, kf, 1, 2, klf, mach) == 0 && gb_st_split_even(128, 4, len0) == 0 &&
	   gb_st_split_even(256, 6, len1) == 0, "Fig. 1 placement and slabs");
	for (int c = 0; c < 24; c++)
		mach[c] = mach[c] >= 8;
	is_double(gb_st_wan_face(2, kf, len, mach), 128, 0, "Fig. 1 grid-aware: 128 points");
	ok(gb_st_topo_even(2, 24, ke) == 0 && gb_st_split_even(128, ke[0], len0) == 0 &&
	   gb_st_split_even(256, ke[1], len1) == 0, "Fig. 1 even topology %dx%d", ke[0], ke[1]);
	for (int c = 0; c < 24; c++)
		mach[c] = c >= 8;
	is_double(gb_st_wan_face(2, ke, len, mach), 256, 0, "Fig. 1 even 6x4: 256 points");

	/* s3.4: 3 boundaries of 128 x 64 points (the paper's 0.2 MB at 8 B) */
	ok(gb_st_place_grid(3, k3, 1, 4, kl3, c3) == 0, "s3.4 placement");
	for (int c = 0; c < 576; c++) {
		int m = 0, first = 0;

		while (c3[c] >= first + np3[m])
			first += np3[m++];
		m3[c] = m;
	}
	l3[0] = a0;
	l3[1] = a1;
	l3[2] = a2;
	ok(gb_st_split_even(g3[0], k3[0], a0) == 0 && gb_st_split_even(g3[1], k3[1], a1) == 0 &&
	   gb_st_split_even(g3[2], k3[2], a2) == 0, "s3.4 slabs");
	is_double(gb_st_wan_face(3, k3, l3, m3), 3 * 128 * 64, 0, "s3.4: 3 x 128 x 64 points");
}

int main(void)
{
	plan(39);
	test_face();
	test_single();
	test_even();
	test_multi();
	test_place_and_wan();
	return done_testing();
}
