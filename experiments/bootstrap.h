/* SPDX-License-Identifier: MIT */
/*
 * bootstrap.h - resampling a campaign's broadcasts, for the confidence
 * intervals of `gridexp check` (issue 45, "Verdicts with confidence").
 * Pure arithmetic on summary rows (summary.h), like the summary itself.
 *
 * A resample is a paired bootstrap over broadcasts with blocks:
 *   - a slot is one broadcast of the campaign's schedule, (rep, cond,
 *     index), and holds every algorithm's row of it (the rows the summary
 *     pairs).  Slots are drawn whole, so that each algorithm's broadcast
 *     is compared with the other algorithms' broadcast of the same size,
 *     time and load (paired);
 *   - a block is one repetition, that is one seed (repetition k of a
 *     campaign runs its seed + k - 1; pooled results directories have
 *     their repetitions renumbered apart, gx_report_pool()): its loads
 *     and the machine's state are shared by its broadcasts, which are not
 *     independent of each other.
 *     Stage 1 draws as many blocks as there are, with replacement; stage 2
 *     draws, in each drawn block, as many of its slots as it has, with
 *     replacement (a two-stage cluster bootstrap; with one block, stage 1
 *     draws it).
 * Choices, since no paper gives one: the two-stage draw (a block-only draw
 * from 3 seeds has 10 distinct resamples, too few for a 95 % interval), the
 * percentile interval (no bias correction), and the resampled rows' pairing
 * keys: each drawn slot gets a repetition of its own (index 0), so that a
 * slot drawn twice pairs its rows with each other only.
 */
#ifndef GRIDBED_BOOTSTRAP_H
#define GRIDBED_BOOTSTRAP_H

#include "gbutil.h"
#include "summary.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * gx_boot_each() - draw @resamples resamples of summary @s's rows (@s->rows,
 * which the caller filled) with a generator seeded @seed, summarise each
 * as @s was (its algorithms, models and reference) and call @fn on it with
 * its number (0 ..) and @ctx.  *@nblocks and *@nslots (either may be NULL)
 * get the resampling's blocks and slots.
 * Return: 0, -EINVAL (@s has no rows), -ENOMEM, or what @fn returned < 0.
 */
int gx_boot_each(const struct gx_summary *s, int resamples, uint64_t seed,
		 int (*fn)(const struct gx_summary *rs, int r, void *ctx), void *ctx,
		 int *nblocks, int *nslots);

/**
 * gx_interval() - the percentile interval at confidence @level of the
 * statistic's @n resampled values @v (sorted in place, its NANs dropped):
 * the (1 - @level) / 2 and (1 + @level) / 2 quantiles, interpolated
 * between order statistics (Hyndman and Fan's type 7, R's default).  When
 * fewer than half of the values are numbers, *@lo and *@hi are NAN.
 * Return: how many were numbers.
 */
int gx_interval(double *v, int n, double level, double *lo, double *hi);

#ifdef __cplusplus
}
#endif
#endif
