/* SPDX-License-Identifier: MIT */
/*
 * balance.c - domain decomposition by processor speed (seed 004 s4).
 *
 *	s4.1  A_k / A_j = S_k / S_j, sum A_k = A     (the painters)
 *	s4.3  slabs on the WAN boundary get 20 % less, the rest of their
 *	      machine shares it                     (computation/communication
 *	                                             overlap)
 *
 * The grid is cut into slabs along the longest dimension; each slab
 * position belongs to one machine and its thickness follows that
 * machine's measured speed.  The other dimensions are split evenly
 * (every processor of a cross-section has the same speed).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbstencil.h"

int gb_st_split_even(int n, int parts, int *len)
{
	if (parts < 1 || n < parts || !len)
		return -EINVAL;
	for (int i = 0; i < parts; i++)
		len[i] = n / parts + (i < n % parts);
	return 0;
}

/*
 * Largest remainder over the slabs that are not pinned at @minlen.  A
 * slab whose exact share is below @minlen is pinned and the rest is
 * shared again among the others; this repeats until no new slab falls
 * below (at most @parts rounds).
 */
int gb_st_balance(int n, int parts, const double *w, int minlen, int *len)
{
	unsigned char *pinned = NULL;
	double *frac = NULL;
	int ret = -EINVAL;

	if (parts < 1 || !w || !len || minlen < 0 || (long)parts * minlen > n)
		return -EINVAL;
	for (int i = 0; i < parts; i++)
		if (!(w[i] > 0) || !isfinite(w[i]))
			return -EINVAL;
	pinned = calloc(parts, 1);
	frac = malloc(sizeof(double) * parts);
	if (!pinned || !frac) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (;;) {
		double W = 0;
		int left = n, changed = 0, given = 0;

		for (int i = 0; i < parts; i++) {
			if (pinned[i])
				left -= minlen;
			else
				W += w[i];
		}
		for (int i = 0; i < parts; i++) {
			double exact;

			if (pinned[i]) {
				len[i] = minlen;
				continue;
			}
			exact = (double)left * w[i] / W;
			if (exact < minlen) {
				pinned[i] = 1;
				changed = 1;
			}
			len[i] = (int)floor(exact);
			frac[i] = exact - len[i];
			given += len[i];
		}
		if (changed)
			continue;
		/* W > 0 here: if every slab were pinned, parts * minlen would
		 * be n and no exact share could be below minlen. */
		for (int r = given + (n - left); r < n; r++) {
			int best = -1;

			for (int i = 0; i < parts; i++)
				if (!pinned[i] && frac[i] >= 0 && (best < 0 || frac[i] > frac[best]))
					best = i;
			len[best]++;
			frac[best] = -1;	/* one extra point each */
		}
		break;
	}
	ret = 0;
cleanup:
	free(pinned);
	free(frac);
	return ret;
}

int gb_st_slab_weights(int nmach, const int *kl, const double *speed, double reduce, double *w)
{
	int pos = 0;

	if (nmach < 1 || !kl || !speed || !w || !(reduce >= 0) || !(reduce < 1))
		return -EINVAL;
	for (int m = 0; m < nmach; m++) {
		int nb = 0, first = pos, last = pos + kl[m] - 1;

		if (kl[m] < 1 || !(speed[m] > 0) || !isfinite(speed[m]))
			return -EINVAL;
		nb = (m > 0) + (m < nmach - 1);
		if (kl[m] == 1)
			nb = nb > 0;
		for (int i = first; i <= last; i++)
			w[i] = speed[m];
		/* s4.3: only if the machine has inner positions to take the work */
		if (reduce > 0 && nb > 0 && kl[m] > nb) {
			double give = speed[m] * reduce;
			double take = give * nb / (kl[m] - nb);

			for (int i = first; i <= last; i++) {
				int boundary = (i == first && m > 0) || (i == last && m < nmach - 1);

				w[i] = boundary ? speed[m] - give : speed[m] + take;
			}
		}
		pos += kl[m];
	}
	return 0;
}
