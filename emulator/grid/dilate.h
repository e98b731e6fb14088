/* SPDX-License-Identifier: MIT */
/*
 * dilate.h - time dilation on the wire (docs/architecture.md, decision 9; issue
 * 16; Gupta et al., NSDI 2006, "To infinity and beyond: time-warped network
 * emulation").  A grid brought up with `--dilate K` keeps the topology's
 * values everywhere (status, link set, models) and puts delay x K,
 * jitter x K and rate / K on the wire, so that every transfer takes K times
 * as long and the CPUs look K times faster next to the network.  Sizes are
 * not dilated: a queue limit in packets, a TBF burst in bytes and a
 * bandwidth-delay product (rate/K x delay*K) stay what they are.
 *
 * Whoever measures time on the grid divides by K (and multiplies a
 * measured rate by K) before reporting it, and says which K it was.
 */
#ifndef GRIDBED_DILATE_H
#define GRIDBED_DILATE_H

#include <math.h>
#include <stdint.h>

#include "gbemu.h"

/** Largest accepted dilation factor. */
#define GB_DILATE_MAX 1000.0

/** gb_dilation() - the grid's k (1 when none was asked for). */
static inline double gb_dilation(const struct gb_grid *g)
{
	return g->dilate >= 1.0 ? g->dilate : 1.0;
}

/** gb_wire_ns() - a topology duration as it goes on the wire (x k). */
static inline uint64_t gb_wire_ns(const struct gb_grid *g, uint64_t ns)
{
	return (uint64_t)llround((double)ns * gb_dilation(g));
}

/** gb_wire_rate() - a topology rate as it goes on the wire (/ k; 0 = unlimited stays 0). */
static inline uint64_t gb_wire_rate(const struct gb_grid *g, uint64_t bps)
{
	uint64_t r = (uint64_t)llround((double)bps / gb_dilation(g));

	return bps && !r ? 1 : r;
}

/** gb_topo_rate() - a rate read back from the wire, in topology units (x k). */
static inline uint64_t gb_topo_rate(const struct gb_grid *g, uint64_t wire_bps)
{
	return (uint64_t)llround((double)wire_bps * gb_dilation(g));
}

/** gb_topo_ns() - a duration read back from the wire, in topology units (/ k). */
static inline uint64_t gb_topo_ns(const struct gb_grid *g, uint64_t wire_ns)
{
	return (uint64_t)llround((double)wire_ns / gb_dilation(g));
}

#endif /* GRIDBED_DILATE_H */
