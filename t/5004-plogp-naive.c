// SPDX-License-Identifier: MIT
/*
 * 5004-plogp-naive - gb_plogp_schedule() (indexed heaps, look-ahead lists
 * read through moving pointers: O(k^2 log k)) makes exactly the schedules of
 * a naive O(k^3) transcription of the rules of seed 002 §3.2-§4.1 written
 * here from scratch, on random instances of all sizes up to 40 clusters:
 * Fkaier's three settings with a random root, and small-integer asymmetric
 * instances full of ties (which checks the tie rules: lowest index for
 * receivers and senders, lowest factor for MostCrit).  Also: every schedule
 * is a valid cluster tree, deterministic, and its arrivals agree with
 * gb_clmodel_cost() cluster by cluster.
 *
 * The naive rules, for the record (F over q in B \ {j}, 0 if empty):
 *   best_j = min_{i in A} RT_i + g_ij + L_ij      (lowest i on ties)
 *   ecef   min best_j;  ecef-la  min best_j + min_q (g_jq + L_jq)
 *   ecef-lat-min/max    min best_j + min/max_q (g_jq + L_jq + T_q)
 *   bottomup            max best_j + T_j
 *   mostcrit            the above rule of ecef, ecef-la or bottomup whose
 *                       value set over B has the largest mean |x - mean|
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbplan.h"
#include "tap.h"

#define KMAX 40

struct sched {
	int parent[KMAX], order[KMAX], fac[3];
	double arr[KMAX];
};

static double md(const double *x, const char *inb, int k)
{
	double mean = 0, dev = 0;
	int n = 0;

	for (int j = 0; j < k; j++)
		if (inb[j])
			mean += x[j], n++;
	mean /= n;
	for (int j = 0; j < k; j++)
		if (inb[j])
			dev += fabs(x[j] - mean);
	return dev / n;
}

/* Lowest-index j in B minimising (sign 1) or maximising (sign -1) x. */
static int arg(const double *x, const char *inb, int k, int sign)
{
	int b = -1;

	for (int j = 0; j < k; j++)
		if (inb[j] && (b < 0 || sign * (x[j] - x[b]) < 0))
			b = j;
	return b;
}

static void naive(const struct gb_clmodel *c, int h, struct sched *s)
{
	int k = c->nc, from[KMAX];
	char inb[KMAX];
	double rt[KMAX], best[KMAX], e1[KMAX], e2[KMAX], e3[KMAX];

	memset(s, 0, sizeof(*s));
	for (int j = 0; j < k; j++) {
		inb[j] = j != c->root;
		s->parent[j] = -1;
		rt[j] = 0;
	}
	for (int step = 0; step < k - 1; step++) {
		int nb = 0, j, i, f = -1;

		for (int b = 0; b < k; b++) {
			double fla = 0, flt = 0;
			int any = 0;

			if (!inb[b])
				continue;
			nb++;
			from[b] = -1;
			for (int a = 0; a < k; a++) {
				double v = rt[a] + (c->g[a * k + b] + c->L[a * k + b]);

				if (!inb[a] && (from[b] < 0 || v < best[b]))
					best[b] = v, from[b] = a;
			}
			for (int q = 0; q < k; q++) {
				double v = c->g[b * k + q] + c->L[b * k + q];

				if (!inb[q] || q == b)
					continue;
				if (!any || v < fla)
					fla = v;
				if (h == GB_PLOGP_ECEF_LAT_MIN && (!any || v + c->T[q] < flt))
					flt = v + c->T[q];
				if (h == GB_PLOGP_ECEF_LAT_MAX && (!any || v + c->T[q] > flt))
					flt = v + c->T[q];
				any = 1;
			}
			e1[b] = best[b];
			e2[b] = best[b] + (h == GB_PLOGP_ECEF_LAT_MIN || h == GB_PLOGP_ECEF_LAT_MAX
					   ? flt : fla);
			e3[b] = best[b] + c->T[b];
		}
		switch (h) {
		case GB_PLOGP_ECEF:
			j = arg(e1, inb, k, 1);
			break;
		case GB_PLOGP_BOTTOMUP:
			j = arg(e3, inb, k, -1);
			break;
		case GB_PLOGP_MOSTCRIT:
			if (nb > 1) {
				double d[3] = { md(e1, inb, k), md(e2, inb, k), md(e3, inb, k) };

				f = 0;
				for (int x = 1; x < 3; x++)
					if (d[x] - d[f] > 1e-12 * fmax(fabs(d[x]), fabs(d[f])))
						f = x;
				s->fac[f]++;
			}
			j = f <= 0 ? arg(e1, inb, k, 1) : f == 1 ? arg(e2, inb, k, 1)
								 : arg(e3, inb, k, -1);
			break;
		default:
			j = arg(e2, inb, k, 1);
		}
		i = from[j];
		s->parent[j] = i;
		s->order[j] = step;
		s->arr[j] = best[j];
		rt[j] = best[j];
		rt[i] += c->g[i * k + j];
		inb[j] = 0;
	}
}

/* The cluster tree @ct has @s's parents and, per sender, @s's send order. */
static int same(const struct gb_tree *ct, const struct sched *s, const double *arr, int k)
{
	for (int j = 0; j < k; j++) {
		if (ct->parent[j] != s->parent[j] || arr[j] != s->arr[j])
			return 0;
		for (int x = 1; x < ct->nchild[j]; x++)
			if (s->order[ct->child[ct->cstart[j] + x - 1]] >=
			    s->order[ct->child[ct->cstart[j] + x]])
				return 0;
	}
	return 1;
}

static int make(struct gb_clmodel *c, int it, struct gb_rng *r)
{
	int k = 1 + (int)gb_rng_below(r, KMAX), kind = it % 4, root = (int)gb_rng_below(r, k);

	if (kind < 3) {
		if (gb_clmodel_gen_fkaier(c, k, kind, gb_rng_next(r)))
			return -1;
		c->root = root;
		return 0;
	}
	if (gb_clmodel_init(c, k))
		return -1;
	c->root = root;
	for (int i = 0; i < k; i++) {
		c->T[i] = gb_rng_below(r, 11);
		for (int j = 0; j < k; j++)
			if (i != j) {
				c->g[i * k + j] = 1 + gb_rng_below(r, 5);
				c->L[i * k + j] = gb_rng_below(r, 2);
			}
	}
	return 0;
}

int main(void)
{
	const int iters = 400;
	int bad[GB_PLOGP_NHEUR] = { 0 }, invalid[GB_PLOGP_NHEUR] = { 0 };
	int nondet[GB_PLOGP_NHEUR] = { 0 }, costdiff[GB_PLOGP_NHEUR] = { 0 };
	struct gb_rng r;

	gb_rng_seed(&r, 5004);
	for (int it = 0; it < iters; it++) {
		struct gb_clmodel c;

		if (make(&c, it, &r))
			bail("cannot make an instance");
		for (int h = 0; h < GB_PLOGP_NHEUR; h++) {
			struct gb_tree ct = { 0 }, ct2 = { 0 };
			struct sched s;
			double arr[KMAX], arr2[KMAX], fin[KMAX];
			int f[3];

			if (gb_plogp_schedule(&c, h, &ct, arr, f) ||
			    gb_plogp_schedule(&c, h, &ct2, arr2, NULL))
				bail("gb_plogp_schedule failed");
			naive(&c, h, &s);
			if (!same(&ct, &s, arr, c.nc) ||
			    (h == GB_PLOGP_MOSTCRIT && memcmp(f, s.fac, sizeof(f)))) {
				if (!bad[h]++)
					diag("%s differs from the naive rules: instance %d, "
					     "%d clusters", gb_plogp_heur_name(h), it, c.nc);
			}
			invalid[h] += gb_tree_check(&ct, NULL) != 0 || ct.root != c.root;
			nondet[h] += !gb_tree_equal(&ct, &ct2) || memcmp(arr, arr2, c.nc * 8);
			gb_clmodel_cost(&c, &ct, 1, fin);
			for (int j = 0; j < c.nc; j++)
				if (fabs(fin[j] - (arr[j] + c.T[j])) > 1e-9 * fmax(1, fin[j])) {
					costdiff[h]++;
					break;
				}
			gb_tree_release(&ct);
			gb_tree_release(&ct2);
		}
		gb_clmodel_release(&c);
	}
	for (int h = 0; h < GB_PLOGP_NHEUR; h++) {
		const char *n = gb_plogp_heur_name(h);

		is_int(bad[h], 0, "%s: same schedules as the naive rules on %d instances", n,
		       iters);
		is_int(invalid[h], 0, "%s: valid cluster trees, rooted at the root", n);
		is_int(nondet[h], 0, "%s: deterministic", n);
		is_int(costdiff[h], 0, "%s: arrival_j + T_j == gb_clmodel_cost's finish_j", n);
	}
	return done_testing();
}
