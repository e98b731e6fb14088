/* SPDX-License-Identifier: MIT */
/*
 * tcpstat.h - a host's kernel TCP counters, read from its namespace: the
 * "Tcp:" lines of /proc/net/snmp and the "TcpExt:" lines of
 * /proc/net/netstat, the counters nstat(8) shows.  They say how many
 * segments the host sent, how many it sent again, and why: retransmission
 * timeouts, tail-loss probes, fast retransmits; and what its receive side
 * dropped.  For explaining a slow transfer after the fact: gridexp samples
 * every host through a run (experiments/gridexp_tcpstat.c).
 *
 * Counters are cumulative since the namespace was created and count every
 * TCP connection of the host, the management network's included (MPI's
 * launch, a few segments).  A counter this kernel does not have reads 0.
 */
#ifndef GRIDBED_TCPSTAT_H
#define GRIDBED_TCPSTAT_H

#include <stdint.h>
#include <stdio.h>

/** The counters kept, in the order of gb_tcpstat_fields[]. */
enum gb_tcpstat_key {
	GB_TS_OUT_SEGS,          /**< Tcp OutSegs: segments sent (retransmissions excluded) */
	GB_TS_RETRANS_SEGS,      /**< Tcp RetransSegs: segments sent again */
	GB_TS_TIMEOUTS,          /**< TcpExt TCPTimeouts: retransmission timeouts */
	GB_TS_LOSS_PROBES,       /**< TcpExt TCPLossProbes: tail-loss probes sent */
	GB_TS_FAST_RETRANS,      /**< TcpExt TCPFastRetrans: retransmits on duplicate acks/SACK */
	GB_TS_SPURIOUS_RTOS,     /**< TcpExt TCPSpuriousRTOs: timeouts found needless (F-RTO) */
	GB_TS_LOST_RETRANSMIT,   /**< TcpExt TCPLostRetransmit: a retransmission lost again */
	GB_TS_SYN_RETRANS,       /**< TcpExt TCPSynRetrans: SYNs sent again (connect stalls) */
	GB_TS_OFO_DROP,          /**< TcpExt TCPOFODrop: out-of-order segments dropped (no memory) */
	GB_TS_RCVQ_DROP,         /**< TcpExt TCPRcvQDrop: segments dropped, receive queue full */
	GB_TS_BACKLOG_DROP,      /**< TcpExt TCPBacklogDrop: dropped, socket backlog full */
	GB_TS_LISTEN_DROPS,      /**< TcpExt ListenDrops: connection requests dropped */
	GB_TS_N
};

/** Where a counter is read, and its name in gridbed's files. */
struct gb_tcpstat_field {
	const char *table;       /**< "Tcp" (/proc/net/snmp) or "TcpExt" (/proc/net/netstat) */
	const char *kernel;      /**< the kernel's name, as nstat prints it after the table */
	const char *name;        /**< a CSV column: lowercase, e.g. "retrans_segs" */
};

/** The counters of enum gb_tcpstat_key, in its order. */
extern const struct gb_tcpstat_field gb_tcpstat_fields[GB_TS_N];

/**
 * gb_tcpstat_parse() - set the counters of @v that @text holds: @text is
 * /proc/net/snmp's or /proc/net/netstat's format, a line of names
 * ("Tcp: RtoAlgorithm ... OutSegs RetransSegs ...") followed by a line of
 * values of the same table.  Counters @text lacks are left as they were.
 * Return: how many counters were set, or -EINVAL when a table's line of
 * values does not match its line of names.
 */
int gb_tcpstat_parse(const char *text, uint64_t v[GB_TS_N]);

/**
 * gb_tcpstat_read() - the counters of the namespace @nsfd into @v (zeroed
 * first).  The caller's namespace is left as it was.
 * Return: 0, or -errno (the namespace or its /proc/net files cannot be
 * opened, or they do not parse).
 */
int gb_tcpstat_read(int nsfd, uint64_t v[GB_TS_N]);

/**
 * gb_tcpstat_csv_header() - the header line of a counters CSV
 * ("t_mono,host,out_segs,...", gb_tcpstat_fields[] order) to @f.  One
 * format for gridexp's tcp.csv and `gridemu tcpstat` (docs/formats.md).
 */
void gb_tcpstat_csv_header(FILE *f);

/** gb_tcpstat_csv_row() - one row of that CSV: @host's counters @v at time @t. */
void gb_tcpstat_csv_row(FILE *f, double t, const char *host, const uint64_t v[GB_TS_N]);

#endif
