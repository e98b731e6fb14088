/* SPDX-License-Identifier: MIT */
/*
 * shaping.h - the shaping backends (docs/architecture.md, decision 2).
 *
 * A backend makes the data-plane devices of every link and shapes each
 * *directed* link.  Each backend is a file (shaping_netem.c, shaping_tap.c)
 * exporting one struct gb_shaper; gb_shapers[] finds them by name.
 *
 * Order of a direction's effects, the same in both backends:
 *   netem:  egress of the sender's veth:  netem (delay, jitter, loss) -> tbf (rate, queue)
 *   tap:    egress of the sender's TUN:   tbf (rate, queue) -> gridemu-tapd (delay, jitter,
 *           loss) -> the receiver's TUN
 * In steady state both give a queue of `limit` packets at the bottleneck
 * rate plus `delay` of propagation.
 */
#ifndef GRIDBED_SHAPING_H
#define GRIDBED_SHAPING_H

#include "gbemu.h"

struct gb_nl_batch;

struct gb_shaper {
	const char *name;
	const char *summary;
	/** 1 if usable on this kernel, 0 if not (with @e), or -errno. */
	int (*probe)(struct gb_grid *g, struct gb_err *e);
	/** Create the devices "d<k>" of every link at both ends (down, no address). */
	int (*create_links)(struct gb_grid *g, const char *tapd_path, struct gb_err *e);
	/** Program directed link @dl (2*link + dir) from g->topo; @replace: change in place. */
	int (*apply)(struct gb_grid *g, int dl, int replace, struct gb_err *e);
	/**
	 * Queue the first shaping of directed link @dl (what apply(@dl, 0)
	 * does) on @b, the request batch of its sender's namespace, which `up`
	 * sends with that node's other requests (nl.h).  NULL: `up` calls
	 * apply() instead.
	 */
	int (*queue)(struct gb_grid *g, int dl, struct gb_nl_batch *b);
	/** Read back the live parameters of @dl into @p (GB_LD_* bits of what was read);
	 *  called through gb_grid_dir_read(), only for directions built here. */
	int (*read)(struct gb_grid *g, int dl, struct gb_linkdir *p);
	/** Stop helpers (the tap daemon); called by down with or without state. */
	void (*stop)(struct gb_grid *g);
	/**
	 * 1 if the data plane's helpers are working, 0 if not (@e says what
	 * is wrong), -errno if that cannot be told.  NULL: nothing to check
	 * (the kernel does all the work).
	 */
	int (*health)(struct gb_grid *g, struct gb_err *e);
	/**
	 * Subtract @ns, the helper's own cost per link traversal, from every
	 * delay from now on (calibrate.h).  NULL: the backend has no such cost.
	 */
	int (*pass)(struct gb_grid *g, uint64_t ns, struct gb_err *e);
	/**
	 * Send the helper's control request @req (tapd.h's protocol, e.g.
	 * "fidelity") and put its NUL-terminated reply in @reply.  Return: the
	 * reply's length or -errno.  NULL: the backend has no helper to ask.
	 */
	int (*request)(struct gb_grid *g, const char *req, char *reply, size_t len);
	/** The helper's pid (the tap daemon), 0 if none is known.  NULL: no helper. */
	pid_t (*helper_pid)(struct gb_grid *g);
};

extern const struct gb_shaper gb_shaper_netem;
extern const struct gb_shaper gb_shaper_tap;

/** gb_shaper_find() - a backend by name ("netem", "tap"), or NULL. */
const struct gb_shaper *gb_shaper_find(const char *name);

/**
 * TBF parameters shared by both backends: burst = max(2 MTU, 1 ms at the
 * rate) keeps the bucket from limiting a single TCP flow at high rates
 * without letting it exceed the rate by more than a millisecond's worth.
 * With a per-packet @overhead (bytes, gb_tbf_overhead()) it is one MTU
 * packet plus the overhead and 64 bytes of rounding: the kernel refuses a
 * packet whose length and overhead exceed the burst, and a sender with a
 * per-packet cost injects one packet at a time, after idle too.
 */
uint32_t gb_tbf_burst(uint64_t rate_bps, uint32_t mtu, uint32_t overhead);

/**
 * gb_tbf_overhead() - the bytes the TBF of direction @p charges every
 * packet for its per_packet cost (gb_ppkt_bytes() at the topology's rate;
 * the same under dilation); 0 without one.  Values above GB_PPKT_MAX_BYTES
 * make gb_nl_tbf() answer -ERANGE.
 */
uint32_t gb_tbf_overhead(const struct gb_linkdir *p);

/**
 * gb_ppkt_of_overhead() - the per-packet cost in ns that a TBF @overhead
 * read back from the kernel means at the topology rate @rate_bps (0 without
 * a rate): what the kernel really charges, to the byte's rounding.
 */
uint64_t gb_ppkt_of_overhead(uint32_t overhead, uint64_t rate_bps);

/** gb_limit_of() - the queue limit of @dl in packets (explicit or by rule). */
uint32_t gb_limit_of(const struct gb_topo *t, int dl);

/** gb_bdp_pkts() - packets in flight on @dl at full rate: rate x delay / MTU. */
uint32_t gb_bdp_pkts(const struct gb_topo *t, int dl);

/**
 * gb_grid_dir_ifindex() - the ifindex of the device "d<k>" that sends
 * directed link @dl, in its sender's namespace: the one `up` found
 * (g->ifidx), else looked up.  Return: the ifindex or -errno.
 */
int gb_grid_dir_ifindex(struct gb_grid *g, int dl);

#endif
