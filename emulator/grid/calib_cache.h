/* SPDX-License-Identifier: MIT */
/*
 * calib_cache.h - recent calibrations of this machine, which `gridemu up`
 * reuses instead of measuring again (issue 46: up in at most 0.15 s with
 * calibration on; the measurement is 120 echoes, about 0.2 s).
 *
 * What a calibration depends on, and so what must match for a reuse
 * (calibrate.h says how it is measured):
 *  - the entry's key (its file's name is a hash of it): the backend, the
 *    time dilation, the measured pair's names and its hop set - every
 *    directed link out and back, by id (the delay line deals links to its
 *    workers by id) with its delay, jitter, loss and rate on the wire - and
 *    the echoes' count and spacing;
 *  - the machine, compared inside the entry: the running delay line's
 *    binary (path, device, inode, size, modification time), the kernel
 *    (release and version), the boot (/proc/sys/kernel/random/boot_id) and
 *    the online CPUs;
 *  - its age: at most GB_CALIB_MAX_AGE_S seconds of wall clock;
 *  - the box's load: the 1-minute load average now within
 *    GB_CALIB_MAX_LOAD_DELTA of the measurement's (a busy box gives a
 *    different cost, calibrate.h).
 * Anything else is a miss, and `up` measures afresh and replaces the entry.
 *
 * Where: one small JSON file per key in "<run directory>/calibration/"
 * ($GRIDBED_RUNDIR, default /run/gridbed), beside the grids' own
 * directories and shared by every prefix, since the cost is the machine's;
 * `down` leaves it.  Written atomically (a temporary file, then a
 * rename), so a reader sees a whole entry or none.
 */
#ifndef GRIDBED_CALIB_CACHE_H
#define GRIDBED_CALIB_CACHE_H

#include <stddef.h>

#include "calibrate.h"
#include "gbemu.h"

/** The oldest calibration `up` reuses, in seconds. */
#define GB_CALIB_MAX_AGE_S 600
/** The most the 1-minute load average may have moved since the measurement. */
#define GB_CALIB_MAX_LOAD_DELTA 1.0

/**
 * gb_calib_cache_get() - a recent calibration of this machine for the pair
 * of @c on grid @g.  @c's src, dst, traversals, config_ns and probes must
 * be set; on a hit, self_s, before_s, after_s, pass_ns, load1 and
 * measured_unix are copied into it.  @why gets the reason of a miss ("no
 * earlier calibration of this pair", "the delay line changed", "measured
 * 700 s ago, more than 600", ...) or, on a hit, "reused".
 * Return: 1 hit, 0 miss, -EINVAL the entry is unreadable (@why says which
 * file and why; the caller measures afresh and replaces it), or -errno when
 * the key cannot be made (@why says so).
 */
int gb_calib_cache_get(struct gb_grid *g, struct gb_calib *c, char *why, size_t whylen);

/**
 * gb_calib_cache_put() - keep the fresh calibration @c of grid @g for
 * later ups (its measured_unix and load1 set).  Return: 0 or -errno.
 */
int gb_calib_cache_put(struct gb_grid *g, const struct gb_calib *c);

#endif /* GRIDBED_CALIB_CACHE_H */
