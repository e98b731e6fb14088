// SPDX-License-Identifier: MIT
/*
 * 5003-plogp-gen - Fkaier's simulation instances (seed 002 §4.2): every
 * draw of gb_clmodel_gen_fkaier() lies in the intervals of Table 1 and of
 * both halves of Table 2, transcribed here independently ("L (in µs), g (in
 * ms), T (in ms)"), the draws are uniform enough to reach both ends of each
 * interval, L and g are symmetric, and the generator is deterministic.
 *
 *            Table 1          Table 2 left      Table 2 right
 *   L (us)   1 .. 15          5 .. 75           10 .. 150
 *   g (ms)   100 .. 600       500 .. 3000       1000 .. 6000
 *   T (ms)   200 .. 3000      40 .. 600         20 .. 300
 */
#include <math.h>
#include <string.h>

#include "gbplan.h"
#include "tap.h"

static const double tables[3][3][2] = {
	{ { 1e-6, 15e-6 }, { 0.100, 0.600 }, { 0.200, 3.000 } },
	{ { 5e-6, 75e-6 }, { 0.500, 3.000 }, { 0.040, 0.600 } },
	{ { 10e-6, 150e-6 }, { 1.000, 6.000 }, { 0.020, 0.300 } },
};
static const char *const pname[3] = { "L", "g", "T" };

struct stat {
	double lo, hi, sum;
	long n, out;
};

static void add(struct stat *s, double x, const double iv[2])
{
	double tol = 1e-12 * iv[1];

	if (s->n == 0 || x < s->lo)
		s->lo = x;
	if (s->n == 0 || x > s->hi)
		s->hi = x;
	s->sum += x;
	s->n++;
	s->out += x < iv[0] - tol || x > iv[1] + tol;
}

int main(void)
{
	const int k = 64, nseed = 10;

	for (int tb = 0; tb < 3; tb++) {
		struct stat st[3];
		int sym = 1, root0 = 1;

		memset(st, 0, sizeof(st));
		for (int s = 0; s < nseed; s++) {
			struct gb_clmodel c;

			if (gb_clmodel_gen_fkaier(&c, k, tb, 1000 + s))
				bail("gb_clmodel_gen_fkaier failed");
			root0 &= c.root == 0 && c.nc == k;
			for (int i = 0; i < k; i++) {
				add(&st[2], c.T[i], tables[tb][2]);
				for (int j = 0; j < k; j++) {
					if (i == j)
						continue;
					sym &= c.L[i * k + j] == c.L[j * k + i] &&
					       c.g[i * k + j] == c.g[j * k + i];
					if (i < j) {
						add(&st[0], c.L[i * k + j], tables[tb][0]);
						add(&st[1], c.g[i * k + j], tables[tb][1]);
					}
				}
			}
			gb_clmodel_release(&c);
		}
		ok(root0, "table %d: %d clusters rooted at cluster 0", tb, k);
		ok(sym, "table %d: L and g symmetric", tb);
		for (int p = 0; p < 3; p++) {
			const double *iv = tables[tb][p];
			double w = iv[1] - iv[0], mid = (iv[0] + iv[1]) / 2;
			/* Standard error of the mean of n uniforms: w / sqrt(12 n);
			 * 6 of them is far beyond chance. */
			double tol = 6 * w / sqrt(12.0 * st[p].n);

			is_int(st[p].out, 0, "table %d: all %ld draws of %s in [%g, %g]", tb,
			       st[p].n, pname[p], iv[0], iv[1]);
			ok(st[p].lo < iv[0] + 0.02 * w && st[p].hi > iv[1] - 0.02 * w,
			   "table %d: %s reaches both ends (%g .. %g)", tb, pname[p], st[p].lo,
			   st[p].hi);
			is_double(st[p].sum / st[p].n, mid, tol,
				  "table %d: mean of %s is mid-interval", tb, pname[p]);
		}
	}

	{
		struct gb_clmodel a, b, d;
		int same = 1, differ = 0;

		if (gb_clmodel_gen_fkaier(&a, 20, 1, 42) || gb_clmodel_gen_fkaier(&b, 20, 1, 42) ||
		    gb_clmodel_gen_fkaier(&d, 20, 1, 43))
			bail("gb_clmodel_gen_fkaier failed");
		for (int x = 0; x < 20 * 20; x++) {
			same &= a.L[x] == b.L[x] && a.g[x] == b.g[x];
			differ |= a.g[x] != d.g[x];
		}
		for (int x = 0; x < 20; x++)
			same &= a.T[x] == b.T[x];
		ok(same, "same seed, same instance");
		ok(differ, "another seed, another instance");
		gb_clmodel_release(&a);
		gb_clmodel_release(&b);
		gb_clmodel_release(&d);
	}
	return done_testing();
}
