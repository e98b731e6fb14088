/* SPDX-License-Identifier: MIT */
/*
 * gridmon.h - the probes of gridmon, the communication benchmark of Gupta &
 * Vadhiyar (seed 000 s2.5): one pair of hosts at a time, over the data plane.
 *
 *	parent ──fork──► sink child   (setns dst): UDP echo + TCP sink
 *	   └────fork──► source child (setns src): UDP echo probes (RTT, send
 *	                                           overhead), then a TCP bulk
 *	                                           transfer of exactly N bytes,
 *	                                           timed from acknowledged bytes
 *	both report over pipes; the parent kills and reaps both, always (the
 *	children come from gb_child_fork(), emulator/grid/probe_child.h: they die
 *	with the parent).
 *
 * The caller's namespace is never changed (docs/architecture.md, practice 2): only the
 * children enter namespaces.  Unlike gb_probe() (emulator/grid/probe.h), which
 * runs for a fixed time, a transfer here is a fixed number of bytes, so
 * gridmon's own traffic per period is bounded and known in advance.
 */
#ifndef GRIDBED_GRIDMON_H
#define GRIDBED_GRIDMON_H

#include "gbtopo.h"

#include <stdint.h>

/** What one pair measurement does. */
struct gb_mon_opts {
	int rtt_count;        /**< UDP echo probes of 64 bytes (>= 1) */
	uint64_t tcp_bytes;   /**< bytes of the TCP bulk transfer (0: none); with
				   @steady, the most it may send */
	int steady;           /**< send until the delivery rate stops growing,
				   then measure it (mon_probe.c); 0: send
				   exactly @tcp_bytes */
	double steady_rtts;   /**< steady: round trips measured (>= 1) */
	double warm_frac;     /**< share of tcp_bytes that is warm-up (0 .. 0.9) */
	unsigned initcwnd;    /**< segments the TCP transfer's connection starts
				   with (gridmon --warm: gb_probe_warm_begin(),
				   emulator/grid/probe_child.h); 0: the
				   host's, as every other connection */
	int port;             /**< UDP port; TCP uses port + 1 */
	double timeout;       /**< seconds of wall clock for the whole pair
				   before -ETIMEDOUT (a caller on a dilated
				   grid gives its virtual timeout x k) */
	double dilate;        /**< the grid's time dilation k (emulator/grid/dilate.h;
				   0 or 1: none): the probe's own gaps and waits
				   are k times longer on the wall clock, as the
				   wire's delays are, and its result is in the
				   topology's units (docs/architecture.md, decision 9) */
};

/**
 * What one pair measurement found.  Times in s, bandwidth in B/s, in the
 * topology's units: on a grid dilated by k (gb_mon_opts.dilate) the wire's
 * times are divided by k and its rates multiplied by k (docs/architecture.md
 * decision 9); bytes and the ratio @halves are not dilated.
 */
struct gb_mon_result {
	int rtt_sent, rtt_received;
	double rtt_min, rtt_p50;  /**< round-trip times of the echoes */
	double o_send;            /**< median duration of the send() call of a probe */
	double bw;                /**< TCP goodput after warm-up, 0 if not measured */
	double bw_seconds;        /**< the interval bw covers */
	int steady;               /**< the steady transfer reached its plateau
				       (0 also for a fixed transfer) */
	double halves;            /**< steady: rate of the measured window's
				       second half over its first half */
	uint64_t tcp_bytes;       /**< TCP payload sent */
	unsigned cwnd_start;      /**< the transfer connection's congestion
				       window when it began, segments: the
				       host's initial window, or
				       gb_mon_opts.initcwnd's when the kernel
				       took it */
	uint64_t bytes_sent;      /**< every byte the pair put on the data plane
				       (UDP payload both ways + TCP payload) */
};

/**
 * gb_mon_pair() - measure from the host whose namespace is @src_nsfd to the
 * host whose namespace is @dst_nsfd and whose data address (host byte order)
 * is @dst_addr.
 *
 * Latency: the median RTT of @o->rtt_count echoes (sent 1 ms apart; a
 * lost echo is waited for at most 1 s after the last one was sent).  Bandwidth: the source samples
 * the bytes the sink has acknowledged (TCP_INFO, cumulatively and
 * selectively: gb_tcp_bytes_delivered()) against its clock.  With
 * @o->steady it sends until the rate stops growing and measures the next
 * @o->steady_rtts round trips (at least 30 ms); otherwise, and when the cap comes
 * first, the first
 * warm_frac * tcp_bytes are warm-up (slow start), and the goodput is the
 * least-squares slope of those samples from the first one past the warm-up
 * to the last one before everything was acknowledged (mon_probe.c says
 * why: a starved receiver no longer inflates it).  Initiation cost: the
 * median time the source
 * spends inside send() for a 64-byte UDP datagram (pLogP's o_s, seed 002
 * s2.1, measured as the sender's CPU-side injection cost).
 *
 * On a grid dilated by @o->dilate = k, the echo gap, the wait for a lost
 * echo and the transfer's minimum round trip and measurement window are
 * k times longer on the wall clock, so that the probe does on the dilated
 * wire what it does undilated, and @r is converted to the topology's units
 * in one place (mon_probe.c, to_topology()).
 *
 * Return: 0, -ETIMEDOUT, -EHOSTUNREACH (no echo came back), -EIO (a child
 * failed), or -errno.
 */
int gb_mon_pair(int src_nsfd, int dst_nsfd, uint32_t dst_addr, const struct gb_mon_opts *o,
		struct gb_mon_result *r);

/** One pair of a round: cluster @a's representative to cluster @b's
 *  (a == b: the diagonal, to @a's second host).  Node indices src, dst. */
struct gb_mon_pairref {
	int a, b;
	int src, dst;
};

/**
 * gb_mon_rep() - the representative host of cluster @c (seed 000 s2.5, "a
 * representative node in each cluster"): its first host, or its second
 * when the first is @avoid (a host index, -1 for none) and the cluster has
 * another.  gridmon --avoid passes the broadcast root, so that no probe
 * starts from it or ends at it while its cluster has other nodes (issue
 * 44: the root's own link was the monitor's too).
 */
int gb_mon_rep(const struct gb_topo *t, int c, int avoid);

/**
 * gb_mon_sec() - the other end of cluster @c's diagonal pair ("2 nodes in
 * a cluster"): the first host after the representative that is not @avoid,
 * else the first that is not the representative (a 2-host cluster that
 * holds @avoid), else -1 (a 1-host cluster).
 */
int gb_mon_sec(const struct gb_topo *t, int c, int avoid);

/**
 * gb_mon_pairs() - a round's pairs for topology @t, in rotation order
 * (every cluster to the next one, then to the one 2 after it, ..., then
 * the diagonals; 1-host clusters have none) into @p (room for @max),
 * between the representatives gb_mon_rep(@t, c, @avoid) and, on the
 * diagonals, gb_mon_sec().
 * Return: how many, or -ENOSPC.
 */
int gb_mon_pairs(const struct gb_topo *t, int avoid, struct gb_mon_pairref *p, int max);

/** gb_mon_schedule()'s @flags: the site access links are no shared
 *  bottleneck (each carries all of its site's cluster uplinks at once, as
 *  topologies/teragrid-public.yaml's do): a pair holds its clusters'
 *  uplinks only, so pairs of one site may run together. */
#define GB_MON_SITES_FREE 1
/** gb_mon_schedule()'s @flags: a link is one direction: a pair holds only
 *  the directions its data take (its source cluster's uplink out, its
 *  destination's in; a diagonal its source's way out), so a cluster may
 *  send one probe and receive another at once; under load, a pair whose
 *  ACKs meet a loaded direction reads low (mon_sched.c says what was
 *  measured). */
#define GB_MON_DUPLEX 2

/**
 * gb_mon_schedule() - the stage of each of the @n pairs @p: pairs in one
 * stage share no cluster uplink or site access link, in either direction
 * (mon_sched.c states the assumption; with GB_MON_SITES_FREE in @flags, no
 * cluster uplink only; with GB_MON_DUPLEX, not in the direction of their
 * data), so they run at the same time; a stage holds at
 * most @concurrency pairs (0: no limit, 1: one pair at a time).  Each
 * stage takes first the pairs whose source cluster has waited longest, in
 * the order of @p among equals.  @stage[i] gets pair i's stage.
 * Return: the number of stages, or -ENOMEM.
 */
int gb_mon_schedule(const struct gb_topo *t, const struct gb_mon_pairref *p, int n,
		    int concurrency, int flags, int *stage);

#endif
