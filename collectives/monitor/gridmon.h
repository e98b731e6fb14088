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
 *	children come from gb_child_fork(), emulator/probe_child.h: they die
 *	with the parent).
 *
 * The caller's namespace is never changed (STYLE.md practice 4): only the
 * children enter namespaces.  Unlike gb_probe() (emulator/probe.h), which
 * runs for a fixed time, a transfer here is a fixed number of bytes, so
 * gridmon's own traffic per period is bounded and known in advance.
 */
#ifndef GRIDBED_GRIDMON_H
#define GRIDBED_GRIDMON_H

#include <stdint.h>

/** What one pair measurement does. */
struct gb_mon_opts {
	int rtt_count;        /**< UDP echo probes of 64 bytes (>= 1) */
	uint64_t tcp_bytes;   /**< bytes of the TCP bulk transfer (0: none) */
	double warm_frac;     /**< share of tcp_bytes that is warm-up (0 .. 0.9) */
	int port;             /**< UDP port; TCP uses port + 1 */
	double timeout;       /**< seconds for the whole pair before -ETIMEDOUT */
};

/** What one pair measurement found.  Times in s, bandwidth in B/s. */
struct gb_mon_result {
	int rtt_sent, rtt_received;
	double rtt_min, rtt_p50;  /**< round-trip times of the echoes */
	double o_send;            /**< median duration of the send() call of a probe */
	double bw;                /**< TCP goodput after warm-up, 0 if not measured */
	double bw_seconds;        /**< the interval bw covers */
	uint64_t bytes_sent;      /**< every byte the pair put on the data plane
				       (UDP payload both ways + TCP payload) */
};

/**
 * gb_mon_pair() - measure from the host whose namespace is @src_nsfd to the
 * host whose namespace is @dst_nsfd and whose data address (host byte order)
 * is @dst_addr.
 *
 * Latency: the median RTT of @o->rtt_count echoes (one outstanding at a
 * time; a lost echo waits at most 1 s).  Bandwidth: the source samples
 * the bytes the sink has acknowledged (TCP_INFO, cumulatively and
 * selectively: gb_tcp_bytes_delivered()) against its clock; the first
 * warm_frac * tcp_bytes are warm-up (slow start), and the goodput is the
 * least-squares slope of those samples from the first one past the warm-up
 * to the last one before everything was acknowledged (mon_probe.c says
 * why: a starved receiver no longer inflates it).  Initiation cost: the
 * median time the source
 * spends inside send() for a 64-byte UDP datagram (pLogP's o_s, seed 002
 * s2.1, measured as the sender's CPU-side injection cost).
 *
 * Return: 0, -ETIMEDOUT, -EHOSTUNREACH (no echo came back), -EIO (a child
 * failed), or -errno.
 */
int gb_mon_pair(int src_nsfd, int dst_nsfd, uint32_t dst_addr, const struct gb_mon_opts *o,
		struct gb_mon_result *r);

#endif
