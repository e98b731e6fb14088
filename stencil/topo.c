/* SPDX-License-Identifier: MIT */
/*
 * topo.c - processor topologies (seed 004 s3).
 *
 * s3.1 is a brute-force search over every factorisation of the processor
 * count; the paper notes it is fast enough (its 6-D example on 2048
 * processors: 0.3 s on an EV6), and it is: the number of ordered
 * factorisations of 2^11 into 6 factors is C(16, 5) = 4368.  Here the
 * search recurses over divisors, dimension by dimension.
 *
 * s3.3 builds on it as its road map says (see gbstencil.h).  Example, s3.4:
 *
 *	grid 128 x 256 x 64, machines 64, 128, 128, 256 (576 processors)
 *	L = 1 (256 points); subgrids along L 28 : 57 : 57 : 114
 *	smallest machine: 64 processors on 128 x 28 x 64 -> 8 x 2 x 4
 *	others = 8 * 4 = 32; k[1] = 576 / 32 = 18       -> 8 x 18 x 4
 *	per machine along L: 2, 4, 4, 8
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbstencil.h"

static int dims_ok(int ndim, const int *grid)
{
	if (ndim < 1 || ndim > GB_ST_MAXDIM || !grid)
		return 0;
	for (int d = 0; d < ndim; d++)
		if (grid[d] < 1)
			return 0;
	return 1;
}

double gb_st_face_size(int ndim, const int *grid, const int *k)
{
	double total = 0;

	if (!dims_ok(ndim, grid) || !k)
		return -1;
	for (int d = 0; d < ndim; d++) {
		double plane = 1;

		if (k[d] < 1)
			return -1;
		for (int j = 0; j < ndim; j++)
			if (j != d)
				plane *= grid[j];
		total += (double)(k[d] - 1) * plane;
	}
	return total;
}

int gb_st_longest(int ndim, const int *grid)
{
	int best = 0;

	if (!dims_ok(ndim, grid))
		return -1;
	for (int d = 1; d < ndim; d++)
		if (grid[d] > grid[best])
			best = d;
	return best;
}

static int gcd_int(int a, int b)
{
	while (b) {
		int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The search state of s3.1. */
struct search {
	int ndim;
	const int *grid;
	int divides, skipdim;
	int cur[GB_ST_MAXDIM];
	int best[GB_ST_MAXDIM];
	double best_face;
	int best_cuts;
	int found;
};

static int ncuts(int ndim, const int *k)
{
	int n = 0;

	for (int d = 0; d < ndim; d++)
		n += k[d] > 1;
	return n;
}

/* Is @a preferred over @b at equal face size?  Fewer cut dimensions,
 * then lexicographically larger. */
static int better_tie(int ndim, const int *a, const int *b)
{
	int ca = ncuts(ndim, a), cb = ncuts(ndim, b);

	if (ca != cb)
		return ca < cb;
	for (int d = 0; d < ndim; d++)
		if (a[d] != b[d])
			return a[d] > b[d];
	return 0;
}

static void consider(struct search *s)
{
	double face;
	int cuts;

	if (s->divides > 0) {
		long prod = 1;

		for (int d = 0; d < s->ndim; d++)
			if (d != s->skipdim)
				prod *= s->cur[d];
		if (s->divides % prod)
			return;
	}
	face = gb_st_face_size(s->ndim, s->grid, s->cur);
	cuts = ncuts(s->ndim, s->cur);
	if (!s->found || face < s->best_face ||
	    (face == s->best_face && better_tie(s->ndim, s->cur, s->best))) {
		memcpy(s->best, s->cur, sizeof(int) * s->ndim);
		s->best_face = face;
		s->best_cuts = cuts;
		s->found = 1;
	}
}

static void search(struct search *s, int d, int left)
{
	if (d == s->ndim - 1) {
		s->cur[d] = left;
		consider(s);
		return;
	}
	for (int f = 1; f <= left; f++) {
		if (left % f)
			continue;
		s->cur[d] = f;
		search(s, d + 1, left / f);
	}
}

int gb_st_topo_single(int ndim, const int *grid, int np, int divides, int skipdim, int *k)
{
	struct search s;

	if (!dims_ok(ndim, grid) || np < 1 || !k || divides < 0 ||
	    (divides > 0 && (skipdim < -1 || skipdim >= ndim)))
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	s.ndim = ndim;
	s.grid = grid;
	s.divides = divides;
	s.skipdim = skipdim;
	search(&s, 0, np);
	if (!s.found)	/* cannot happen: all ones except one dimension divides */
		return -EINVAL;
	memcpy(k, s.best, sizeof(int) * ndim);
	return 0;
}

/* Even spread: the factorisation with the smallest largest factor, then
 * the smallest spread (max - min), sorted non-increasing. */
static void even_search(int ndim, int d, int left, int *cur, int *best, int *found)
{
	if (d == ndim - 1) {
		int mx, mn, bmx, bmn;

		cur[d] = left;
		/* only non-increasing sequences: each multiset once */
		for (int j = 1; j < ndim; j++)
			if (cur[j] > cur[j - 1])
				return;
		mx = cur[0];
		mn = cur[ndim - 1];
		bmx = best[0];
		bmn = best[ndim - 1];
		if (!*found || mx < bmx || (mx == bmx && mx - mn < bmx - bmn)) {
			memcpy(best, cur, sizeof(int) * ndim);
			*found = 1;
		}
		return;
	}
	for (int f = 1; f <= left; f++) {
		if (left % f)
			continue;
		cur[d] = f;
		even_search(ndim, d + 1, left / f, cur, best, found);
	}
}

int gb_st_topo_even(int ndim, int np, int *k)
{
	int cur[GB_ST_MAXDIM], found = 0;

	if (ndim < 1 || ndim > GB_ST_MAXDIM || np < 1 || !k)
		return -EINVAL;
	even_search(ndim, 0, np, cur, k, &found);
	return found ? 0 : -EINVAL;
}

int gb_st_topo_grid(int ndim, const int *grid, int nmach, const int *np, int *k, int *kl,
		    struct gb_st_topo_info *info)
{
	struct gb_st_topo_info inf;
	double *w = NULL;
	int *sub = NULL, total = 0, g = 1, ret;

	if (!dims_ok(ndim, grid) || nmach < 1 || !np || !k || !kl)
		return -EINVAL;
	memset(&inf, 0, sizeof(inf));
	for (int m = 0; m < nmach; m++) {
		if (np[m] < 1)
			return -EINVAL;
		total += np[m];
	}
	/* (2) */
	inf.longest = gb_st_longest(ndim, grid);
	/* (3) the imaginary subgrids, in proportion to the processor counts */
	ret = -ENOMEM;
	w = malloc(sizeof(double) * nmach);
	sub = malloc(sizeof(int) * nmach);
	if (!w || !sub)
		goto cleanup;
	for (int m = 0; m < nmach; m++)
		w[m] = np[m];
	if (grid[inf.longest] >= nmach) {
		ret = gb_st_balance(grid[inf.longest], nmach, w, 1, sub);
		if (ret < 0)
			goto cleanup;
	} else {
		for (int m = 0; m < nmach; m++)
			sub[m] = 1;	/* fewer points than machines: the search still works */
	}
	/* (4) */
	for (int m = 1; m < nmach; m++)
		if (np[m] < np[inf.smallest])
			inf.smallest = m;
	/* (5) on the smallest machine's subdomain; the other dimensions must
	 * divide every machine's processor count (see gbstencil.h) */
	memcpy(inf.sub_grid, grid, sizeof(int) * ndim);
	inf.sub_grid[inf.longest] = sub[inf.smallest];
	for (int m = 0; m < nmach; m++)
		g = m ? gcd_int(g, np[m]) : np[m];
	ret = gb_st_topo_single(ndim, inf.sub_grid, np[inf.smallest], nmach > 1 ? g : 0,
				inf.longest, inf.sub_k);
	if (ret < 0)
		goto cleanup;
	/* (6), (7) */
	inf.others = 1;
	for (int d = 0; d < ndim; d++) {
		k[d] = inf.sub_k[d];
		if (d != inf.longest)
			inf.others *= k[d];
	}
	k[inf.longest] = total / inf.others;
	for (int m = 0; m < nmach; m++)
		kl[m] = np[m] / inf.others;
	if (info)
		*info = inf;
	ret = 0;
cleanup:
	free(w);
	free(sub);
	return ret;
}

int gb_st_place_grid(int ndim, const int *k, int L, int nmach, const int *kl, int *cellidx)
{
	int coord[GB_ST_MAXDIM] = { 0 }, sum = 0, ncell = 1, others;

	if (ndim < 1 || ndim > GB_ST_MAXDIM || L < 0 || L >= ndim || nmach < 1 || !k || !kl ||
	    !cellidx)
		return -EINVAL;
	for (int m = 0; m < nmach; m++) {
		if (kl[m] < 1)
			return -EINVAL;
		sum += kl[m];
	}
	for (int d = 0; d < ndim; d++) {
		if (k[d] < 1)
			return -EINVAL;
		ncell *= k[d];
	}
	if (sum != k[L])
		return -EINVAL;
	others = ncell / k[L];
	for (int c = 0; c < ncell; c++) {
		int m = 0, off = 0, base = 0, o = 0;

		while (coord[L] >= off + kl[m]) {
			off += kl[m];
			base += kl[m] * others;
			m++;
		}
		for (int d = 0; d < ndim; d++)
			if (d != L)
				o = o * k[d] + coord[d];
		cellidx[c] = base + (coord[L] - off) * others + o;
		for (int d = ndim - 1; d >= 0; d--) {
			if (++coord[d] < k[d])
				break;
			coord[d] = 0;
		}
	}
	return 0;
}

double gb_st_wan_face(int ndim, const int *k, int *const *len, const int *cellmach)
{
	int coord[GB_ST_MAXDIM] = { 0 }, stride[GB_ST_MAXDIM], ncell = 1;
	double total = 0;

	if (ndim < 1 || ndim > GB_ST_MAXDIM || !k || !len || !cellmach)
		return -1;
	for (int d = ndim - 1; d >= 0; d--) {
		if (k[d] < 1 || !len[d])
			return -1;
		stride[d] = ncell;
		ncell *= k[d];
	}
	for (int c = 0; c < ncell; c++) {
		for (int d = 0; d < ndim; d++) {
			double area = 1;

			if (coord[d] + 1 >= k[d] || cellmach[c] == cellmach[c + stride[d]])
				continue;
			for (int j = 0; j < ndim; j++)
				if (j != d)
					area *= len[j][coord[j]];
			total += area;
		}
		for (int d = ndim - 1; d >= 0; d--) {
			if (++coord[d] < k[d])
				break;
			coord[d] = 0;
		}
	}
	return total;
}
