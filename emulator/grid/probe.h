/* SPDX-License-Identifier: MIT */
/*
 * probe.h - active measurements between two nodes of a live grid, over the
 * data plane: UDP echo round-trip times and TCP bulk goodput.  Used by
 * `gridemu probe` and the demo's fidelity table.  Each side runs in a child
 * process that enters its node's namespace, so the caller's namespace is
 * never changed.
 */
#ifndef GRIDBED_PROBE_H
#define GRIDBED_PROBE_H

#include "gbemu.h"

/* Times and rates are in the topology's units: under time dilation
 * (dilate.h) the wire's are divided (rates multiplied) by k. */
struct gb_probe_result {
	int sent, received;     /**< UDP echo probes */
	double rtt_min, rtt_p50, rtt_p99, rtt_max; /**< seconds */
	double tcp_bps;         /**< TCP goodput, bits/s, acknowledged bytes after a warm-up
				     of a quarter of the run (0 if not measured) */
	double tcp_seconds;     /**< the interval tcp_bps covers */
};

struct gb_probe_opts {
	int count;              /**< UDP echo probes (0: none) */
	double interval;        /**< seconds between probes (wall clock) */
	double tcp_seconds;     /**< TCP transfer duration, wall clock (0: none) */
	int port;               /**< base port (default 47000) */
};

/**
 * gb_probe() - measure from node @src to node @dst of attached grid @g.
 * Return: 0 or -errno; @e explains.
 */
int gb_probe(struct gb_grid *g, int src, int dst, const struct gb_probe_opts *o,
	     struct gb_probe_result *r, struct gb_err *e);

#endif
