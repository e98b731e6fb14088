/* SPDX-License-Identifier: MIT */
/*
 * bootstrap.c - the paired, two-stage block resampling of a campaign's
 * broadcasts (bootstrap.h says what and why).
 */
#include "bootstrap.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The slots and blocks of a set of rows (boot_init()). */
struct gx_boot {
	const struct gx_row *rows;  /* the caller's, not copied */
	int nrows;
	int nblocks;
	int *block_slot;            /* block b's slots: block_slot[b] .. block_slot[b + 1] - 1 */
	int *slot_row;              /* slot k's rows: order[slot_row[k] .. slot_row[k + 1] - 1] */
	int *order;                 /* row indices by (rep, cond, index) */
	int nslots;
	int maxrows;                /* the most rows one resample can have */
};

static void boot_release(struct gx_boot *b);

/* Row indices by (rep, cond, index), then by row: qsort_r()'s order. */
static int cmp_key(const void *x, const void *y, void *ctx)
{
	const struct gx_row *rows = ctx;
	const struct gx_row *a = &rows[*(const int *)x], *b = &rows[*(const int *)y];
	int ka[3] = { a->rep, a->cond, a->index };
	int kb[3] = { b->rep, b->cond, b->index };

	for (int k = 0; k < 3; k++)
		if (ka[k] != kb[k])
			return (ka[k] > kb[k]) - (ka[k] < kb[k]);
	return (*(const int *)x > *(const int *)y) - (*(const int *)x < *(const int *)y);
}

static int same_slot(const struct gx_row *a, const struct gx_row *b)
{
	return a->rep == b->rep && a->cond == b->cond && a->index == b->index;
}

/* The slots and blocks of @rows (kept by reference); 0, -EINVAL (no row), -ENOMEM. */
static int boot_init(struct gx_boot *b, const struct gx_row *rows, int nrows)
{
	int biggest = 0;

	memset(b, 0, sizeof(*b));
	if (nrows < 1)
		return -EINVAL;
	b->rows = rows;
	b->nrows = nrows;
	b->order = malloc(sizeof(int) * (size_t)nrows);
	b->slot_row = malloc(sizeof(int) * (size_t)(nrows + 1));
	b->block_slot = malloc(sizeof(int) * (size_t)(nrows + 1));
	if (!b->order || !b->slot_row || !b->block_slot) {
		boot_release(b);
		return -ENOMEM;
	}
	for (int i = 0; i < nrows; i++)
		b->order[i] = i;
	qsort_r(b->order, (size_t)nrows, sizeof(int), cmp_key, (void *)rows);
	for (int i = 0; i < nrows; i++) {
		const struct gx_row *r = &rows[b->order[i]];

		if (i && same_slot(r, &rows[b->order[i - 1]]))
			continue;
		if (!i || r->rep != rows[b->order[i - 1]].rep)
			b->block_slot[b->nblocks++] = b->nslots;
		b->slot_row[b->nslots++] = i;
	}
	b->slot_row[b->nslots] = nrows;
	b->block_slot[b->nblocks] = b->nslots;
	/* a resample draws nblocks blocks: at most nblocks x the biggest block */
	for (int k = 0; k < b->nblocks; k++) {
		int slots_k = b->block_slot[k + 1] - b->block_slot[k], widest = 0;

		for (int s = b->block_slot[k]; s < b->block_slot[k + 1]; s++)
			if (b->slot_row[s + 1] - b->slot_row[s] > widest)
				widest = b->slot_row[s + 1] - b->slot_row[s];
		if (slots_k * widest > biggest)
			biggest = slots_k * widest;
	}
	b->maxrows = b->nblocks * biggest;
	return 0;
}

/* One resample of @b drawn with @r into @out (room for b->maxrows); returns its rows. */
static int boot_draw(const struct gx_boot *b, struct gb_rng *r, struct gx_row *out)
{
	int n = 0, slot_id = 0;

	for (int k = 0; k < b->nblocks; k++) {
		int blk = (int)gb_rng_below(r, (uint32_t)b->nblocks);
		int s0 = b->block_slot[blk], ns = b->block_slot[blk + 1] - s0;

		for (int j = 0; j < ns; j++) {
			int s = s0 + (int)gb_rng_below(r, (uint32_t)ns);

			for (int i = b->slot_row[s]; i < b->slot_row[s + 1]; i++) {
				out[n] = b->rows[b->order[i]];
				out[n].rep = slot_id;
				out[n].index = 0;
				n++;
			}
			slot_id++;
		}
	}
	return n;
}

int gx_boot_each(const struct gx_summary *s, int resamples, uint64_t seed,
		 int (*fn)(const struct gx_summary *rs, int r, void *ctx), void *ctx,
		 int *nblocks, int *nslots)
{
	const char *algos[s->nalgos + 1], *models[GX_MAX_MODELS];
	struct gx_row *rows;
	struct gx_boot b;
	struct gb_rng rng;
	int ret;

	if (!s->rows || (ret = boot_init(&b, s->rows, s->nrows)) == -EINVAL)
		return -EINVAL;
	if (ret < 0)
		return ret;
	if (nblocks)
		*nblocks = b.nblocks;
	if (nslots)
		*nslots = b.nslots;
	if (!(rows = malloc(sizeof(*rows) * (size_t)b.maxrows))) {
		boot_release(&b);
		return -ENOMEM;
	}
	for (int a = 0; a < s->nalgos; a++)
		algos[a] = s->a[a].name;
	for (int m = 0; m < s->nmodels && m < GX_MAX_MODELS; m++)
		models[m] = s->models[m];
	gb_rng_seed(&rng, seed);
	ret = 0;
	for (int r = 0; r < resamples && ret >= 0; r++) {
		struct gx_summary rs;
		int nr = boot_draw(&b, &rng, rows);

		ret = gx_summarize(rows, nr, algos, s->nalgos, models, s->nmodels,
				   s->ref >= 0 ? s->a[s->ref].name : NULL, &rs);
		if (ret >= 0)
			ret = fn(&rs, r, ctx);
		gx_summary_release(&rs);
	}
	free(rows);
	boot_release(&b);
	return ret < 0 ? ret : 0;
}

static void boot_release(struct gx_boot *b)
{
	free(b->order);
	free(b->slot_row);
	free(b->block_slot);
	memset(b, 0, sizeof(*b));
}

static double quantile(const double *sorted, int n, double q)
{
	double h = (n - 1) * (q < 0 ? 0 : q > 1 ? 1 : q);
	int lo = (int)floor(h);

	if (lo >= n - 1)
		return sorted[n - 1];
	return sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]);
}

int gx_interval(double *v, int n, double level, double *lo, double *hi)
{
	int m = 0;

	for (int i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[m++] = v[i];
	*lo = *hi = NAN;
	if (m < 1 || m < n / 2)
		return m;
	gb_sort_doubles(v, (size_t)m);
	*lo = quantile(v, m, (1 - level) / 2);
	*hi = quantile(v, m, (1 + level) / 2);
	return m;
}
