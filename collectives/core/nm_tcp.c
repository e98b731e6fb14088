/* SPDX-License-Identifier: MIT */
/*
 * nm_tcp.c - what a message of a given size gets from a path whose matrix
 * bandwidth is a steady TCP rate (gbcore.h: gb_nm_ss_time(), gb_nm_for_size()).
 *
 * gridmon measures each path's steady TCP rate and its round trip
 * (collectives/monitor/mon_probe.c), the "bandwidth of the link" of
 * Mateescu's model (seed 000 s2.2).  An MPI broadcast's message does not
 * get that rate when its connection has been idle for longer than a
 * retransmission timeout and the hosts restart slow start after idle
 * (RFC 2861; Linux's net.ipv4.tcp_slow_start_after_idle, on by default
 * and in every shipped topology): it starts from the initial window and
 * doubles it every round trip (RFC 5681) until the window covers the path.
 * A 256 KiB message over teragrid's 62 ms, 29 Mbit/s paths then takes 4
 * round trips and ~13 ms instead of 72 ms: 8 Mbit/s, which is what
 * gridmon's old fixed 256 KiB probe read (issue 13, cause 4).  Planning
 * on the steady rate made clusteredSA chain two wide-area hops (SDSC ->
 * NCSA -> ANL) that each cost a slow start; docs/measurements.md.
 *
 *	w = w0; t = 0; left = size
 *	while w < cap * rtt and left > w:  left -= w; w *= 2; t += rtt
 *	t += left / cap                    (the rest at the path's rate)
 *
 * Choices the model makes (it is a planning model, not a TCP simulator):
 * no loss in slow start (the window stops doubling at the path's
 * bandwidth-delay product, where the emulator's queues, one BDP deep, would
 * otherwise start dropping); the last partial window is sent at the path's
 * rate; delayed ACKs, HyStart and pacing are ignored.  The message's
 * one-way latency stays in the cost model (lat).
 *
 * Where the slow start goes depends on when the sender's MPI_Send returns
 * (the one-port models charge the sender's busy time, delta, per child in
 * send order, and add lat after it):
 *  - above Open MPI's TCP eager limit (GB_NM_EAGER) the send is a
 *    rendezvous: it waits for the receiver's answer, then writes the rest
 *    as the window opens, so the sender is busy through much of the slow
 *    start (about three round trips, measured below), which this model
 *    charges as the whole of it: bw becomes size / t;
 *  - up to the eager limit the send returns once the socket has the bytes,
 *    and the round trips of the slow start pass in the kernel while the
 *    sender serves its next child: bw stays the steady rate (the sender is
 *    busy size / bw) and the rest, t - size / bw, is added to lat (the
 *    message is in flight longer).
 *    Not charged: the socket takes the whole message only if its send
 *    buffer has room.  The kernel sizes a connection's buffer from its
 *    window and never shrinks it (tcp_sndbuf_expand(); 46080 B on a new
 *    connection here, about 45 KB of data), so an eager message above that
 *    on a connection that never carried a larger one holds its sender
 *    about one round trip (emulator/bench/tcp-sndbuf.sh; docs/
 *    measurements.md, session 25).  A model of one broadcast cannot know
 *    what the connections carried before.
 * Measured (seed 9's MPICH-G2 run, ranks.csv, docs/measurements.md,
 * session 23): at 52429 B the root's three wide-area sends returned 1-3 ms
 * after each other and arrived 0.149-0.185 s later; at 262144 B its first
 * wide-area send returned after 0.189 s, and its child had the message at
 * 0.344 s.
 */
#include "gbcore.h"

#include <errno.h>
#include <math.h>

double gb_nm_ss_time(double size, double rtt, double cap, double w0)
{
	double w = w0, t = 0, left = size;

	if (!(cap > 0) || isinf(cap) || !(size > 0))
		return 0;
	if (!(w0 > 0) || !(rtt > 0))
		return size / cap;
	while (w < cap * rtt && left > w) {
		left -= w;
		w *= 2;
		t += rtt;
	}
	return t + left / cap;
}

int gb_nm_for_size(struct gb_netmodel *dst, const struct gb_netmodel *src, double size)
{
	int ret = gb_nm_copy(dst, src);
	int n = src->n;

	if (ret < 0 || !src->tcp_restart || !(size > 0))
		return ret;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			size_t ij = (size_t)i * n + j;
			double b = src->bw[ij], rtt = src->lat[ij] + src->lat[(size_t)j * n + i];
			if (i == j || !(b > 0) || isinf(b))
				continue;
			double t = gb_nm_ss_time(size, rtt, b, src->init_window);
			if (!(t > 0))
				continue;
			if (size <= GB_NM_EAGER)
				dst->lat[ij] += t - size / b;   /* in flight, not sending */
			else
				dst->bw[ij] = size / t;
		}
	}
	return 0;
}
