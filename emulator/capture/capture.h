/* SPDX-License-Identifier: MIT */
/*
 * capture.h - packet capture on the links of a live grid (libpcap), for
 * `gridemu capture` and for programs that need per-link counters (the
 * campaign runner: how many times a broadcast's payload crossed each
 * wide-area link, how much load was actually carried).
 *
 * Where a direction is counted: at the *receiving* end of the link, on its
 * interface "d<k>", inbound packets only (pcap_setdirection(PCAP_D_IN)).
 * That counts what crossed the link (after its rate limit, queue drops and
 * loss), and it separates the two directions without looking at addresses.
 * A capture child process enters each receiving node's namespace in turn and
 * opens a packet socket there; the socket stays bound to the device of that
 * namespace, so one process serves every link.  The caller's namespace is
 * never changed.
 *
 *   caller ──fork──► capture child: for each (link, direction):
 *                        setns(receiver's netns); pcap_create("d<k>"); BPF filter
 *                    poll all handles ─► counters in shared memory (+ pcap_dump)
 *
 * Link types: the netem backend's devices are veth (DLT_EN10MB, a 14-byte
 * Ethernet header), the tap backend's are TUN (DLT_RAW, bare IP).  Counters
 * are given both ways: `frame_bytes` is what pcap reports as the packet
 * length (link-layer dependent), `ip_bytes` the sum of the IP total length
 * fields (the same under both backends, and what gridload's rates count).
 *
 * Counters lag the wire by at most the capture's buffer timeout (50 ms):
 * the kernel hands packets over in blocks.  gb_capture_stop() drains
 * everything that arrived before it was called.
 *
 * Filters are BPF (pcap-filter(7)); gridload's load uses UDP port 9000 and
 * up ("udp portrange 9000-9099"), so "not udp portrange 9000-9099" keeps
 * MPI traffic only.
 */
#ifndef GRIDBED_CAPTURE_H
#define GRIDBED_CAPTURE_H

#include <stdint.h>

#include "gbemu.h"

struct gb_capture;

/** Options of gb_capture_start(); a zeroed struct (or NULL) is the default. */
struct gb_capture_opts {
	const char *filter;     /**< BPF expression; NULL or "": every packet */
	int dir;                /**< -1 (or 2): both directions; 0: a>b only; 1: b>a only */
	const char *pcap_path;  /**< write the packets here (written as PATH.tmp, renamed
				     at stop); NULL: counters only */
	int snaplen;            /**< bytes kept per packet; 0: 262144 with a pcap file,
				     else 128 (enough for the headers) */
};

/** Counters of one direction of one link (or both directions summed). */
struct gb_capture_count {
	uint64_t packets;
	uint64_t ip_bytes;      /**< sum of IP total lengths (IPv4 and IPv6) */
	uint64_t frame_bytes;   /**< sum of the captured packets' wire lengths */
	uint64_t drops;         /**< packets the kernel dropped for want of buffer */
};

/**
 * gb_capture_start() - start capturing on links @links[0..@nlinks-1] of
 * attached grid @g, in a background child process.  Returns once every
 * handle is open and its filter installed, so that traffic sent afterwards
 * is counted.
 *
 * The child dies with the caller (PR_SET_PDEATHSIG) and never changes the
 * caller's namespace.
 * Return: 0, -EINVAL (a bad filter or link; @e explains), -ENODEV, or -errno.
 */
GB_WUR int gb_capture_start(struct gb_grid *g, const int *links, int nlinks,
			    const struct gb_capture_opts *o, struct gb_capture **out,
			    struct gb_err *e);

/**
 * gb_capture_counters() - the counters so far of link @link, direction @dir
 * (0 a>b, 1 b>a, -1 both summed).  Callable at any time, also after
 * gb_capture_stop() (then final).
 * Return: 0, or -ENOENT if that link/direction is not being captured.
 */
int gb_capture_counters(const struct gb_capture *c, int link, int dir,
			struct gb_capture_count *out);

/**
 * gb_capture_datalink() - the pcap link type of the capture (DLT_EN10MB,
 * DLT_RAW, ...).
 */
int gb_capture_datalink(const struct gb_capture *c);

/**
 * gb_capture_stop() - drain what has arrived, finish the pcap file and end
 * the child.  Idempotent.
 * Return: 0, or -EIO if the child failed (e.g. writing the pcap file).
 */
int gb_capture_stop(struct gb_capture *c, struct gb_err *e);

/** gb_capture_free() - stop if needed and release; NULL is fine. */
void gb_capture_free(struct gb_capture *c);

/**
 * gb_capture_read_file() - count the packets of pcap file @path (as
 * libpcap reads it) into @total and give its link type.
 * Return: 0, -EINVAL (not a pcap file; @e explains) or -errno.
 */
int gb_capture_read_file(const char *path, struct gb_capture_count *total, int *datalink,
			 struct gb_err *e);

/** gb_capture_dlt_name() - libpcap's name of link type @dlt ("RAW", "EN10MB"), or "?". */
const char *gb_capture_dlt_name(int dlt);

/** GB_CAPTURE_SNAP_MAX - the largest snaplen (bytes kept per packet), also
 *  the default with a pcap file. */
#define GB_CAPTURE_SNAP_MAX 262144

#endif
