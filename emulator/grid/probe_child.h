/* SPDX-License-Identifier: MIT */
/*
 * probe_child.h - what every process gridbed forks into an emulated host to
 * measure or load the data plane has in common: `gridemu probe`
 * (probe.c), gridmon's pair measurement (collectives/monitor/mon_probe.c) and
 * gridload's flows (loadgen/flow.c).
 *
 *	caller ──gb_child_fork(nsfd)──► child: dies with the caller, default
 *	                                       signals, optional backstop timer,
 *	                                       inside the host's namespace
 *	child ──gb_write_full()──► report pipe ──► caller
 *
 * The caller's own namespace is never changed (docs/architecture.md, practice 2): only
 * the child enters the host's.
 */
#ifndef GRIDBED_PROBE_CHILD_H
#define GRIDBED_PROBE_CHILD_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct nl_sock;

/**
 * gb_child_fork() - fork a child that measures or loads from inside a host.
 * @nsfd:     the namespace the child enters (-1: it stays in the caller's)
 * @name:     the child's comm name (PR_SET_NAME, what ps and pgrep show), or
 *            NULL to keep the caller's
 * @hard_end: CLOCK_MONOTONIC seconds; > 0 arms ITIMER_REAL so that SIGALRM
 *            (default action: terminate) ends the child at that time
 *            whatever it is doing, a backstop for a child stuck anywhere;
 *            0: no backstop
 *
 * Before returning in the child it: asks for SIGKILL when the caller dies
 * (PR_SET_PDEATHSIG) and checks the caller did not die before that took
 * effect; resets every signal to its default action with an empty mask
 * (the caller's handlers, e.g. a CLI's SIGINT flag, mean nothing in the
 * child) and ignores SIGPIPE (a closed peer is an error return, not a
 * death); arms the backstop; enters @nsfd.  A child that cannot do one of
 * these exits with status 3 (1 if the caller is already gone).
 *
 * stdio buffers are flushed before the fork, so a child that _exit()s
 * never writes the caller's pending output twice.
 *
 * Return: in the caller the child's pid (> 0) or -errno; in the child 0.
 */
pid_t gb_child_fork(int nsfd, const char *name, double hard_end);

/** gb_sockaddr() - an IPv4 socket address; @addr in host byte order. */
struct sockaddr_in gb_sockaddr(uint32_t addr, int port);

/** A probe connection's own route while it opens (gb_probe_warm_begin()). */
struct gb_probe_warm {
	struct nl_sock *sk;
	uint32_t daddr;
	uint16_t sport, dport;
	int rule, route; /* what is in place */
};

/**
 * gb_probe_warm_begin() - bind the unconnected TCP socket @s to a source port
 * of its own, and route its connection to @daddr:@dport (host order) as the
 * namespace does, but with an initial window of @initcwnd segments: a rule
 * for that port pair into a table of its own, whose route to @daddr copies
 * the namespace's (interface, gateway, route metrics) with initcwnd
 * @initcwnd (probe_warm.c says why).  Call it in the source host's
 * namespace, before connect(), and gb_probe_warm_end() once the connection
 * is established (the kernel takes the window when the handshake ends).
 * Return: 0, or -errno with nothing left in place.
 */
int gb_probe_warm_begin(struct gb_probe_warm *w, int s, uint32_t daddr, int dport,
			unsigned initcwnd);

/** gb_probe_warm_end() - remove what gb_probe_warm_begin() put in place (idempotent). */
void gb_probe_warm_end(struct gb_probe_warm *w);

/**
 * gb_probe_server_open() - in a probe's server child: a UDP socket on @port
 * (*@u) and a TCP listener with @backlog on @port + 1 (*@l), both at @addr
 * (host byte order), the listener with a receive buffer of @rcvbuf bytes
 * for its connections (SO_RCVBUFFORCE; 0: the kernel's, autotuned).  Then
 * writes "R" to @ready and closes it; on failure writes "E" and _exit(1)s.
 */
void gb_probe_server_open(uint32_t addr, int port, int backlog, int rcvbuf, int ready, int *u,
			  int *l);

/** gb_udp_echo() - receive one datagram on @u into @buf and send it back. */
void gb_udp_echo(int u, void *buf, size_t size);

/**
 * gb_tcp_bytes_acked() - bytes the peer of TCP socket @fd has acknowledged
 * so far (TCP_INFO tcpi_bytes_acked, RFC 4898's
 * tcpEStatsAppHCThruOctetsAcked).  Read at the sender, it is what crossed
 * the path whatever the receiving process was doing: the kernel counts it
 * when the ACK arrives, so a sample (clock, bytes_acked) taken together is
 * consistent even when either process is starved of CPU.  Differences
 * between two samples are exact data bytes (the SYN's one unit of sequence
 * space cancels out).
 * Return: 0, or -errno (-EOPNOTSUPP on a kernel without the field).
 */
int gb_tcp_bytes_acked(int fd, uint64_t *acked);

/**
 * gb_tcp_bytes_delivered() - bytes of TCP socket @fd the peer has reported
 * receiving: the cumulatively acknowledged bytes plus the segments it has
 * selectively acknowledged beyond a hole (tcpi_sacked x tcpi_snd_mss).
 * Why not gb_tcp_bytes_acked() alone: after a loss, data that arrived
 * behind the hole is acknowledged cumulatively only when the retransmission
 * fills it, so the acknowledged count then jumps by what was delivered
 * earlier, and a rate taken from it over a short window reads more than
 * the link carries (gridmon saw +8 % on 30 Mbit/s, 60 ms paths).  The
 * SACKed part is counted in whole segments of the current MSS, which bulk
 * transfers send.  Return: 0 or -errno as gb_tcp_bytes_acked().
 */
int gb_tcp_bytes_delivered(int fd, uint64_t *bytes);

/** What a sender knows of its TCP connection at one instant (TCP_INFO). */
struct gb_tcp_state {
	uint64_t delivered;  /**< as gb_tcp_bytes_delivered() */
	double srtt;         /**< smoothed round-trip time, s (tcpi_rtt) */
	uint64_t cwnd_bytes; /**< congestion window x MSS, bytes */
	unsigned cwnd;       /**< congestion window, segments */
	int slow_start;      /**< the window is below the slow-start threshold */
};

/**
 * gb_tcp_state() - read @fd's delivered bytes, smoothed RTT and congestion
 * window in one TCP_INFO call, so the three belong to the same instant.
 * Return: 0 or -errno as gb_tcp_bytes_acked().
 */
int gb_tcp_state(int fd, struct gb_tcp_state *st);

/**
 * gb_tcp_connect_wait() - wait until the non-blocking connect(2) of TCP
 * socket @s, already under way (EINPROGRESS), completes or monotonic time
 * @until (gb_now()) passes.
 * Return: 0 connected, -errno of the failed connect, or -ETIMEDOUT.
 */
int gb_tcp_connect_wait(int s, double until);

#endif
