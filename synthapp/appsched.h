/* SPDX-License-Identifier: MIT */
/*
 * appsched.h - the synthetic application's broadcast pattern (seed 000 s3),
 * shared by the application (synthapp) and the campaign runner (gridexp),
 * which must agree on it to the byte and the second: gridexp plans the
 * run's duration and remaining time from it, synthapp runs it.
 *
 * Two patterns:
 *
 *   linear (the paper's): N broadcasts; sizes decrease linearly from
 *     size_first to size_last,
 *         size_i = round(first + (last - first) * i / (N - 1));
 *     the gap after broadcast i (start to start) decreases exponentially,
 *         gap_i = gap_first * factor^i          (paper seconds);
 *   sweep: every size of a list, in order, `reps` times over (size-major
 *     within a pass, passes one after the other), with a constant gap.
 *
 * Broadcast i is planned to start at offset_i = scale * sum_{j<i} gap_j
 * from the application's origin (docs/architecture.md, decision 8: one scale
 * factor for every schedule).  Pure C: no MPI, no allocation.
 */
#ifndef GRIDBED_APPSCHED_H
#define GRIDBED_APPSCHED_H

#ifdef __cplusplus
extern "C" {
#endif

/** Most sizes a sweep may list. */
#define GX_MAX_SIZES 64

/**
 * struct gx_pattern - a broadcast pattern.
 * @nsizes == 0: linear (@broadcasts, @size_first, @size_last);
 * @nsizes > 0:  sweep (@sizes[0 .. nsizes-1], @reps passes).
 * @gap_first:   paper seconds between the starts of broadcasts 0 and 1
 * @gap_factor:  gap_i = gap_first * gap_factor^i (1: constant gaps)
 */
struct gx_pattern {
	int broadcasts;
	double size_first, size_last;
	double sizes[GX_MAX_SIZES];
	int nsizes, reps;
	double gap_first, gap_factor;
};

/** gx_pattern_count() - the number of broadcasts of @p. */
int gx_pattern_count(const struct gx_pattern *p);

/** gx_pattern_size() - bytes of broadcast @i (0-based) of @p. */
double gx_pattern_size(const struct gx_pattern *p, int i);

/** gx_pattern_gap() - paper seconds from the start of broadcast @i to that of @i + 1. */
double gx_pattern_gap(const struct gx_pattern *p, int i);

/**
 * gx_pattern_offset() - real seconds from the origin to the planned start
 * of broadcast @i at time scale @scale (the sum of the scaled gaps before it).
 */
double gx_pattern_offset(const struct gx_pattern *p, int i, double scale);

/** gx_pattern_max_size() - the largest size of @p (the buffer to allocate). */
double gx_pattern_max_size(const struct gx_pattern *p);

#ifdef __cplusplus
}
#endif
#endif
