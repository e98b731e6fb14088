/* SPDX-License-Identifier: MIT */
/*
 * mon_warm.h - gridmon --warm's routes (mon_warm.c): a probe connection that
 * starts with a given initial window, without touching the host's routes.
 * Not an API: mon_probe.c's.
 */
#ifndef GRIDBED_MON_WARM_H
#define GRIDBED_MON_WARM_H

#include <stdint.h>

struct nl_sock;

/** A warm probe's rule and route, while its connection opens. */
struct mon_warm {
	struct nl_sock *sk;
	uint32_t daddr;
	uint16_t sport, dport;
	int rule, route; /* what is in place */
};

/**
 * mon_warm_begin() - bind the unconnected TCP socket @s to a source port of
 * its own, and route its connection to @daddr:@dport (host order) as the
 * namespace does, but with an initial window of @initcwnd segments.  Call
 * it in the source host's namespace, before connect(); mon_warm_end() once
 * the connection is established.
 * Return: 0, or -errno with nothing left in place.
 */
int mon_warm_begin(struct mon_warm *w, int s, uint32_t daddr, int dport, unsigned initcwnd);

/** mon_warm_end() - remove what mon_warm_begin() put in place (idempotent). */
void mon_warm_end(struct mon_warm *w);

#endif
