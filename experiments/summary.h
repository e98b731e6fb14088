/* SPDX-License-Identifier: MIT */
/*
 * summary.h - a campaign's summary metrics (issue 6), computed from one row
 * per broadcast.  Pure arithmetic: no files, no MPI, so that the unit test
 * can check it on hand-made rows and `gridexp report` can recompute it
 * from the results alone.
 *
 * Per algorithm:
 *   - completion time: n, median, mean (min, max) over all broadcasts, over
 *     the loaded ones and over the unloaded ones.  A broadcast is loaded
 *     when a load interval overlaps [start, start + completion]; the row
 *     says so (the application decides it from the intervals gridexp gave
 *     it, see docs/formats.md "Campaign results").
 *   - improvement over the reference (mpich-g2), as seed 000 s3 computes
 *     it: per broadcast, (t_ref - t_algo) / t_ref * 100, for the pairs of
 *     broadcasts with the same (condition, repetition, index).  A pair is
 *     loaded when both broadcasts were loaded, unloaded when neither was;
 *     a mixed pair (the two runs' timelines drifted apart across a load's
 *     edge) is counted but belongs to neither statistic.  Mean, min, max.
 *   - ratio to native: sum of t_algo / sum of t_native over the pairs with
 *     native (same condition, repetition, index).
 *   - time per byte, loaded and unloaded apart: the sum of the completion
 *     times over the sum of the sizes, in s per MiB.  The loaded and the
 *     unloaded means compare different sizes when the loads fall where the
 *     application's sizes are small or large (teragrid-quick's decrease
 *     along the run); this figure compares them per byte.
 *   - wide-area crossings: per broadcast, the IP bytes captured on the
 *     wide-area links during it / its payload; mean, min, max, over all
 *     broadcasts and over the loaded and the unloaded ones apart.
 *   - model error per cost model: (measured - predicted) / predicted per
 *     broadcast with a prediction; mean (signed) and mean of the absolute
 *     values.
 *   - by size: n, median, mean per distinct size, loaded and unloaded apart
 *     (the completion-against-size plot and table).
 */
#ifndef GRIDBED_SUMMARY_H
#define GRIDBED_SUMMARY_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most cost models a row carries predictions for. */
#define GX_MAX_MODELS 8

/** One broadcast. Indices refer to the caller's algorithm list. */
struct gx_row {
	int algo, cond, rep, index;
	double size;            /**< bytes */
	double start;           /**< CLOCK_MONOTONIC s, the root's t_begin */
	double completion;      /**< s */
	int loaded;             /**< 1: a load interval overlapped it */
	double pred[GX_MAX_MODELS]; /**< predicted s per model; NAN: none */
	double wan_bytes;       /**< IP bytes on the wide-area links; NAN: not captured */
	int fallback;           /**< the library fell back to another planner */
	long long mismatches;   /**< wrong bytes summed over the ranks */
};

/** Order statistics of a sample; n == 0 leaves the others NAN. */
struct gx_stat {
	int n;
	double mean, median, min, max;
};

/** Completion time per distinct size. */
struct gx_size_stat {
	double size;
	int loaded;
	struct gx_stat t;
};

/** Everything the summary says about one algorithm. */
struct gx_algo_summary {
	char name[64];
	int runs, failed_runs;          /**< filled by the caller (run records) */
	int dirs_missing;               /**< pooled (gx_report_pool()): directories
					     without a complete run of it, 0 otherwise */
	const char *missing_in;         /**< the first such directory (the caller's
					     string), NULL when none */
	int broadcasts, fallbacks;
	long long mismatches;
	struct gx_stat all, loaded, unloaded;
	struct gx_stat imp_loaded, imp_unloaded;  /**< % over the reference */
	int imp_mixed;
	double ratio_native;            /**< NAN without native pairs */
	int ratio_n;
	double loaded_s_per_mib, unloaded_s_per_mib;  /**< sum t / sum size; NAN: none */
	double monitor_share_max;       /**< filled by the caller (run records): the
					     largest share of a wide-area direction
					     gridmon's probes took over one of its
					     complete runs (run.json monitor_share,
					     gx_monitor_share()); NAN: none recorded */
	double target_relay_loaded_share;  /**< by the caller (report_trees.c): the
					     share of its loaded broadcasts in which a
					     host of the load's target cluster sent to
					     another cluster; NAN: none */
	double short_loads;             /**< by the caller: load flows of its complete
					     runs that sent more than 5 % short of
					     their rate (load.csv "short"); NAN
					     without a complete run */
	double mpich_wan_unloaded_share;   /**< by the caller: the share of its unloaded
					     broadcasts whose tree has MPICH-G2's
					     wide-area structure; NAN: none */
	struct gx_stat crossings;
	struct gx_stat crossings_loaded, crossings_unloaded;  /**< the same, apart */
	struct gx_stat model_err[GX_MAX_MODELS];  /**< signed relative error */
	struct gx_stat model_abs[GX_MAX_MODELS];  /**< its absolute value */
	struct gx_size_stat *by_size;
	int nby_size;
};

/**
 * gx_size_text() - @b bytes as the campaign files write them: 64K, 1M, 2G,
 * or plain bytes when not a whole multiple.  Return: @buf.
 */
const char *gx_size_text(double b, char *buf, size_t len);

/** struct gx_summary - per algorithm, in the caller's order. */
struct gx_summary {
	int nalgos;
	struct gx_algo_summary *a;
	int nmodels;
	char models[GX_MAX_MODELS][32];
	int ref;                        /**< the reference's index, or -1 */
	int native;                     /**< native's index, or -1 */
	struct gx_row *rows;            /**< by the caller (report.c): a copy of the rows
					     summarised, for resampling (bootstrap.h);
					     NULL otherwise.  Freed with the summary */
	int nrows;
	char (*conds)[64];              /**< by the caller (report.c): the names of the
					     rows' conditions (row.cond indexes them);
					     NULL otherwise.  Freed with the summary */
	int nconds;
};

/**
 * gx_stat_of() - the statistics of @v[0 .. @n-1] (which gets sorted).
 * Median of an even count: the mean of the two middle values.
 */
void gx_stat_of(double *v, int n, struct gx_stat *st);

/**
 * gx_summarize() - the summary of @rows (any order) for algorithms
 * @algos[0 .. @nalgos-1] (rows' algo indices) and cost models
 * @models[0 .. @nmodels-1] (rows' pred indices).  @ref names the
 * reference of the improvement ("mpich-g2"; NULL or absent: no
 * improvement), "native" is found by name.
 * @out is initialised here; release it with gx_summary_release().
 * Return: 0, -EINVAL (bad indices) or -ENOMEM.
 */
int gx_summarize(const struct gx_row *rows, int nrows, const char *const *algos, int nalgos,
		 const char *const *models, int nmodels, const char *ref, struct gx_summary *out);

/**
 * gx_summary_subset() - the summary of only those of @s's rows (@s->rows)
 * for which @keep(row, @ctx) is nonzero, as @s was made (its algorithms,
 * models and reference), with those rows and @s's condition names copied
 * for resampling.  The figures the caller fills (runs, failed_runs,
 * dirs_missing, missing_in, monitor_share_max, short_loads,
 * target_relay_loaded_share, mpich_wan_unloaded_share) are @s's: they are
 * not of single broadcasts.  @out is initialised here; release it.
 * Return: 0, -EINVAL (@s has no rows), -ENOMEM.
 */
int gx_summary_subset(const struct gx_summary *s, int (*keep)(const struct gx_row *r, void *ctx),
		      void *ctx, struct gx_summary *out);

/** gx_summary_release() - free; safe on a zeroed struct and twice. */
void gx_summary_release(struct gx_summary *s);

/**
 * gx_summary_metric() - a named metric of algorithm @a, as `gridexp check`
 * names them: n, mean, median, loaded_n, loaded_mean, loaded_median,
 * unloaded_n, unloaded_mean, unloaded_median, improvement_loaded_mean
 * (_min, _max), improvement_unloaded_mean (_min, _max), ratio_to_native,
 * crossings (mean), crossings_max, loaded_crossings, unloaded_crossings
 * (means), loaded_s_per_mib, unloaded_s_per_mib, model_error_<model> (mean absolute
 * relative error), fallbacks, failed_runs, runs, mismatches, broadcasts.
 * Return: 0 (*@v may be NAN: no data), -ENOENT (no such metric).
 */
int gx_summary_metric(const struct gx_summary *s, int a, const char *metric, double *v);

/**
 * gx_summary_metric_base() - the algorithm a metric of @s is measured
 * against: the reference for the improvement_ metrics, native for
 * ratio_to_native.
 * Return: its index, or -1 (a figure of the algorithm alone, or @s has none).
 */
int gx_summary_metric_base(const struct gx_summary *s, const char *metric);

/**
 * gx_summary_metric_resampled() - 1 if @metric is a statistic of single
 * broadcasts that a resample of the rows recomputes (a mean, a median, an
 * improvement's or a crossing's mean, a ratio to native, a time per byte, a
 * model's error), 0 for the counts, the extremes and the figures of whole
 * runs that the caller fills (runs, short_loads, monitor_wan_share_max...),
 * which have no interval.
 */
int gx_summary_metric_resampled(const char *metric);

/** gx_summary_metric_names() - the NULL-terminated list of fixed metric names. */
const char *const *gx_summary_metric_names(void);

/**
 * gx_summary_write_text() - the printed summary tables.  @title is the
 * first line.
 */
void gx_summary_write_text(const struct gx_summary *s, const char *title, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
