/* SPDX-License-Identifier: MIT */
/*
 * calibrate.h - the delay line's own cost per link traversal, measured at
 * `gridemu up` and subtracted from every configured delay (issue 16,
 * "Per-hop accuracy").
 *
 * Why: under the tap backend a packet crossing a link spends time outside
 * the daemon's heap - the daemon's wake-up, the kernel's forwarding inside
 * write(2), the next read - on top of its configured delay.  Measured on
 * the 2-core CI VM: 45-60 us per traversal while idle vCPUs could halt (a
 * 14-traversal path ~0.7 ms longer than configured, a 4-traversal path
 * inside a cluster, 80 us configured, ~0.3 ms), 11-23 us since the daemon
 * holds their wake-up latency at 0 (tapd.h, --no-pm-qos); more when the
 * box idles longer between packets (docs/measurements.md, issue 16).  The
 * netem backend has no such daemon (the kernel holds the packets), so
 * there is nothing to calibrate.
 *
 * How (choices, since no paper describes this):
 *  - One pair, measured with the delay line compensating nothing: the
 *    topology's root host and the first other host of its cluster (else
 *    the nearest other host).  A short path keeps `up` fast (~0.1 s); the
 *    cost is per traversal, so it carries to long paths (checked by
 *    emulator/bench/hop-accuracy.sh on every shipped topology).
 *  - UDP echo RTT medians (gb_probe(), 1 ms apart, so the daemon is idle
 *    between probes as it is between a broadcast's small messages).  The
 *    same echo from the host to itself is the baseline: the two processes'
 *    own wake-ups, which no link causes.
 *  - cost = (p50(pair) - p50(self) - configured RTT of the routed path) /
 *    traversals (hops out + hops back), floored at 0 and rounded to 1 us.
 *  - Everything is wire time: under time dilation (dilate.h) the delays
 *    compared are the dilated ones, and the cost is not dilated (it is the
 *    machine's).
 *  - The daemon holds each packet for max(0, delay - cost): a link whose
 *    configured delay is below the cost cannot be emulated faithfully and
 *    is reported (`below`), once, by `up`.
 *  - A recent calibration of the same machine, delay line, pair and hop
 *    set is reused instead of measured again (calib_cache.h: at most
 *    10 minutes old, the load average within 1), and says its age; `up
 *    --recalibrate` measures afresh.  Measuring while the rest of the grid
 *    comes up was not done: the echoes would carry the kernel's and the
 *    CPUs' work on the other namespaces (session 39 measured the baseline
 *    and the pair at once, which moved the cost from 38 to 48 us).
 */
#ifndef GRIDBED_CALIBRATE_H
#define GRIDBED_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gbemu.h"

/** Echoes per measurement, and their spacing (wall clock). */
#define GB_CALIB_PROBES 40
#define GB_CALIB_INTERVAL_S 0.001

/** What a calibration measured and set (also kept in the run directory). */
struct gb_calib {
	int done;              /**< 1: measured and applied; 0: the backend needs none */
	int src, dst;          /**< the measured pair (host node indices) */
	int traversals;        /**< link traversals of one round trip */
	uint64_t config_ns;    /**< the pair's configured RTT (delays out and back), on the
				    wire: x k under time dilation, as everything here */
	double self_s;         /**< p50 echo RTT of src to itself */
	double before_s;       /**< p50 echo RTT of the pair, nothing subtracted */
	double after_s;        /**< the same with the cost subtracted */
	uint64_t pass_ns;      /**< the cost per traversal now subtracted */
	int probes;            /**< echoes per measurement */
	double load1;          /**< the 1-minute load average when measured (-1 unknown):
				    a busy box gives a different cost */
	int below;             /**< link directions whose delay is below pass_ns */
	int below_min_link;    /**< the link with the smallest such delay, -1 none */
	uint64_t below_min_ns; /**< that delay (on the wire) */
	int64_t measured_unix; /**< when the medians were measured (wall clock, s; 0 unknown) */
	int reused;            /**< 1: a recent calibration of this machine (calib_cache.h),
				    not measured at this up */
	int cache_bad;         /**< 1: the cache's entry was unreadable and was replaced */
	char cache[512];       /**< "reused", or why it was measured afresh ("no earlier
				    calibration of this pair", "--recalibrate", ...) */
};

/**
 * gb_grid_calibrate() - measure the delay line's cost per traversal on the
 * live grid @g, or with @reuse take a recent measurement of this machine
 * (calib_cache.h), have the backend subtract it from every delay, and
 * record the result in the run directory (calibration.json); a fresh
 * measurement is kept for later ups.  A backend without a pass-through
 * cost (netem) leaves @c->done at 0 and returns 0.  An unreadable cache
 * entry is no error: @c->cache_bad and @c->cache say so, and the cost is
 * measured afresh.
 * Return: 0 or -errno; @e explains.
 */
int gb_grid_calibrate(struct gb_grid *g, int reuse, struct gb_calib *c, struct gb_err *e);

/**
 * gb_grid_calib_read() - read back what gb_grid_calibrate() recorded for
 * the grid @g is attached to, into @c; if @json is not NULL and the record
 * is valid, *@json gets it as read (calibration.json's object, the
 * caller's reference to drop), else NULL.  Return: 0, -ENOENT (not
 * calibrated) or -EINVAL (unreadable or not this grid's).
 */
int gb_grid_calib_read(struct gb_grid *g, struct gb_calib *c, json_t **json);

/**
 * gb_calib_describe() - @c in words for the CLIs: @line gets the one-line
 * summary ("delay line: 52 us per link traversal, subtracted ..."; a reused
 * calibration adds its age now, "measured 42 s ago, reused"), @warn the
 * warning about links configured below the cost, or "" when none is.
 */
void gb_calib_describe(const struct gb_topo *t, const struct gb_calib *c, char *line,
		       size_t linelen, char *warn, size_t warnlen);

#endif /* GRIDBED_CALIBRATE_H */
