/* SPDX-License-Identifier: MIT */
/*
 * tapd.h - gridemu-tapd, the userspace delay line behind the `tap` shaping
 * backend (docs/architecture.md, decision 2), and the client of its control socket.
 *
 * Why a daemon: the development and CI kernels have no sch_netem
 * (docs/platform.md), so delay, jitter, loss and the queue limit of each directed
 * link are applied in userspace.  Rate stays in the kernel: gridemu puts a
 * TBF qdisc on the egress of each TUN device and the daemon only has to read
 * promptly.
 *
 *   netns A                      gridemu-tapd                      netns B
 *   ┌────────┐  read  ┌──────────────────────────────────┐ write ┌────────┐
 *   │ tun a  │──────► │ loss? ─► limit? ─► heap by       │─────► │ tun b  │
 *   │ (TBF)  │        │ deadline = now + delay ± jitter  │       │        │
 *   │        │ ◄──────│ ... and the same for b -> a      │◄──────│ (TBF)  │
 *   └────────┘  write └──────────────────────────────────┘ read  └────────┘
 *
 * ## Command line
 *
 *   gridemu-tapd --config FILE [--ready-fd N] [--control PATH] [--pidfile PATH]
 *                [--log PATH] [--threads K] [--foreground] [--spin-us N]
 *                [--spin-budget PCT] [--no-offload] [--no-rt] [--no-pm-qos]
 *   gridemu-tapd --control PATH --send REQUEST      (a client: prints the reply)
 *
 *   --threads K       worker threads (default: 1 per CPU, at most 2, and no
 *                     more than there are links)
 *   --spin-us N       wake N us before each deadline and spin to it (default:
 *                     adaptive, the p99 of the timer's own lateness + 10 us,
 *                     within 20..250 us); 0 never spins
 *   --spin-budget PCT at most PCT % of a worker's time spent spinning, per
 *                     100 ms window (default 25); past it, plain timer sleeps
 *   --no-offload      no checksum/TSO offload (for comparison; much slower)
 *   --no-rt           do not try SCHED_FIFO for the workers
 *   --no-pm-qos       do not hold /dev/cpu_dma_latency at 0 (by default the
 *                     daemon does, for its lifetime, so that idle CPUs poll
 *                     instead of halting and wake the workers promptly)
 *   GRIDBED_TAPD_THREADS, GRIDBED_TAPD_SPIN_BUDGET in the environment (what
 *                     the daemon that gridemu starts inherits) set the
 *                     defaults of --threads and --spin-budget; the options
 *                     win.  One worker with a budget of 50 took 26-37 % less
 *                     CPU than the default two at 25 % under one Fig. 8-shaped
 *                     load, its lateness about the same (docs/measurements.md,
 *                     session 43): a wake-up across CPUs costs more on a
 *                     paravirtualised VM than the work it hands over.
 *   --send REQUEST    be a client: send REQUEST to --control, print the
 *                     reply, exit 1 if it is "err ..." or the exchange failed
 *
 * ## Configuration (JSON)
 *
 *   { "seed": 1, "pass_ns": 0, "links": [ { "id": 0, "name": "c1-1-c1",
 *       "a": {"netns": "/run/netns/gb-c1-1", "ifname": "l0"},
 *       "b": {"netns": "/run/netns/gb-c1",   "ifname": "l0"},
 *       "ab": {"delay_ns": 50000, "jitter_ns": 0, "loss": 0.0, "limit": 1000},
 *       "ba": {"delay_ns": 50000, "jitter_ns": 0, "loss": 0.0, "limit": 1000} } ] }
 *
 *   - "seed" (integer >= 0, default 1) seeds one PRNG stream per direction
 *     for loss and one for jitter: the same seed and the same packets give
 *     the same drops and the same delays.
 *   - "pass_ns" (integer >= 0, default 0, at most 3600 s) is the delay
 *     line's own pass-through cost per traversal: the time a packet spends
 *     outside the heap, between leaving one device's queue and the next
 *     daemon read (wake-up, the kernel's forwarding inside write(2), the
 *     read).  Every direction holds a packet for max(0, delay_ns - pass_ns)
 *     (jitter then applies around that), so that a traversal takes delay_ns
 *     in all.  gridemu measures it at `up` (calibrate.h).  Parameters and
 *     `stats` keep showing the configured delay_ns.
 *   - "id" is a unique integer >= 0 (the `set` requests name links by it);
 *     "name" is any non-empty string, used in messages.
 *   - "ab" is the direction a -> b (packets the kernel sends out of a's
 *     device), "ba" the reverse.  Within one, every key is optional:
 *     delay_ns (default 0), jitter_ns (default 0), loss in [0, 1] (default 0),
 *     limit in packets >= 1 (default 1000).  delay_ns and jitter_ns are at
 *     most 3600 s.
 *   - A side may add "kind": "packet" (default "tun"): the device then is
 *     not created but must exist, an Ethernet device such as a VXLAN to
 *     another machine (gridemu's cross links, partition.h).  The daemon
 *     reads and writes its IPv4 packets through an AF_PACKET socket (with
 *     the same virtio-net header as the TUN devices), sending each to a
 *     fixed unicast MAC (TAPD_PACKET_DST) that no local stack claims, so
 *     that only the daemon at the far end takes it in.
 *   - Unknown keys are errors (a typo must not silently mean "default").
 *
 * ## Startup protocol
 *
 * The daemon validates the whole file, then creates every TUN device
 * (IFF_TUN | IFF_NO_PI | IFF_VNET_HDR, i.e. layer 3, no ARP) in its
 * namespace, DOWN and without an address: gridemu configures addresses,
 * MTU, up, routes and qdiscs over netlink afterwards.  By default the
 * devices are not persistent: they vanish when the daemon exits, however it
 * exits.  With --persist (what gridemu uses) they are made persistent once
 * all exist, just before "R": they then live as long as their namespaces,
 * whose deletion removes them all in one batch instead of one RCU wait per
 * device.  A name that already exists in the namespace is an error
 * (EEXIST), never reused.
 *
 * Then it binds the control socket, writes the pidfile (atomically: temp +
 * rename), starts its workers, and only then writes the single byte "R" to
 * --ready-fd and closes it.  So once "R" has been read, the devices exist,
 * the control socket answers and the pidfile is there.
 *
 * On any failure it writes "E" followed by a one-line message (ending in
 * "\n") to the ready fd, prints the same line on stderr, undoes everything
 * (no device, no pidfile, no socket is left) and exits 1.  Messages:
 *
 *   gridemu-tapd: FILE:LINE:COL: <JSON syntax error>
 *   gridemu-tapd: FILE: links[2].ab.loss: 1.5 is not a probability in [0, 1]
 *   gridemu-tapd: link 'NAME': cannot create tun 'l0' in /run/netns/x: <strerror>
 *
 * Without --foreground the daemon expects to be detached already (gridemu
 * forks and execs it with setsid and stdio on the log); it only calls
 * setsid() if it is not a session leader and points stdin at /dev/null.
 * --log PATH appends stdout and stderr to PATH.  SIGTERM, SIGINT and `quit`
 * end it cleanly (pidfile and control socket removed, devices gone).
 *
 * ## Control protocol
 *
 * A unix-domain SOCK_SEQPACKET socket at --control PATH (mode 0600).  One
 * request per connection: the client connects, sends the request as one
 * message (text, at most GB_TAPD_REQ_MAX bytes, no NUL needed), and reads
 * the reply as one or more messages until end of file (the daemon closes the
 * connection after the last one; long replies such as `stats` are split).
 *
 *   ping                         -> pong
 *   set <link-id> <ab|ba> [delay_ns=<n>] [jitter_ns=<n>] [loss=<p>] [limit=<n>]
 *                                -> ok | err <message>
 *   pass <ns>                    -> ok | err <message>  (the "pass_ns" above,
 *                                   for packets arriving from now on)
 *   stats                        -> one JSON object (below)
 *   fidelity                     -> { "t_ns": N (CLOCK_MONOTONIC), "rx_packets",
 *                                   "tx_packets", "late", "dropped_nomem",
 *                                   "tx_errors": totals over every direction,
 *                                   "max_ns": the largest lateness so far,
 *                                   "hist": [[bucket, count], ...] } - the
 *                                   merged lateness histogram's non-empty
 *                                   buckets (tapd_queue.h), for quantiles
 *                                   over any interval by subtraction
 *   quit                         -> ok, then the daemon exits
 *   anything else                -> err <message>
 *
 * `set` is all-or-nothing (every key is checked before any is applied) and
 * needs at least one key.  A change applies to packets that *arrive* after
 * it: packets already queued keep their deadlines, as in netem, whose
 * queued skbs keep their time_to_send when the qdisc is changed.  So
 * lowering a delay lets new packets overtake queued ones, and lowering the
 * limit below the current depth drops only new arrivals until the queue
 * has drained below it.
 *
 * `stats` answers
 *
 *   { "uptime_ns": N, "seed": S, "pass_ns": N, "offload": true, "pm_qos": true,
 *     "workers": [ { "id": 0, "links": 3, "sched": "fifo"|"other",
 *                    "spin_margin_ns": N, "spin_ns": N, "spin_capped": N,
 *                    "timer_wakeups": N, "wake_late_ns": {<lateness object>} } ],
 *     "links": [ { "id": 0, "name": "c1-1-c1",
 *                  "ab": { "delay_ns": N, "jitter_ns": N, "loss": P, "limit": N,
 *                          "worker": N,
 *                          "rx_packets": N, "rx_bytes": N, "tx_packets": N,
 *                          "tx_bytes": N, "dropped_loss": N, "dropped_queue": N,
 *                          "dropped_nomem": N, "tx_errors": N, "rx_errors": N,
 *                          "queue_depth": N, "max_queue_depth": N, "late": N,
 *                          "lateness_ns": {<lateness object>} },
 *                  "ba": { ... } } ],
 *     "total": { the counters above summed over every direction, and the
 *                merged "lateness_ns" } }
 *
 * where a lateness object is
 *   { "count": N, "mean": N, "p50": N, "p90": N, "p99": N, "p999": N, "max": N }
 * in nanoseconds, from a log-linear histogram (values within 6 %; max exact).
 *
 * Counter semantics (per direction):
 *   - rx_*: packets read from the source device, tx_*: written to the
 *     destination; bytes are IP bytes (the virtio-net header is not counted).
 *     A GSO super-packet (see below) counts as one packet.
 *   - every received packet ends up in exactly one of: dropped_loss (loss
 *     draw, taken first, as netem does), dropped_queue (drop-tail: the
 *     direction already held `limit` packets), dropped_nomem (the worker's
 *     buffer pool is exhausted), queue_depth (still waiting), tx_packets or
 *     tx_errors (the write failed, e.g. the destination is down).  So when
 *     idle: rx = dropped_loss + dropped_queue + dropped_nomem + tx + tx_errors.
 *   - lateness = the time a packet was written minus its deadline (never
 *     negative: a packet is never sent early); late counts lateness > 100 us.
 *   - rx_errors counts a source device that failed (e.g. it was unregistered
 *     from under the daemon); that direction is then no longer read.
 *   - delay_ns .. limit are the parameters now in force; "worker" is the
 *     thread that carries the direction (both directions of a link share
 *     one; links are dealt round-robin, link i to worker i % threads).
 *   - the workers' wake_late_ns is how late the timer woke them (the
 *     kernel's wake-up latency, which the spin margin absorbs); spin_ns is
 *     the time spent spinning, spin_capped the 100 ms windows in which the
 *     spin budget ran out.
 *
 * Only the packets that the namespaces send cross the link, IPv6 router
 * solicitations and MLD reports included: whoever wants exact counts (the
 * tests do) disables IPv6 on the devices or accounts for those.
 *
 * ## Offloads
 *
 * Every device is opened with IFF_VNET_HDR and, unless --no-offload, told
 * (TUNSETOFFLOAD) that it may hand the daemon checksum-partial and TSO
 * super-packets.  A TCP stream then crosses the daemon as 64 KiB reads and
 * writes instead of 1500-byte ones.  The virtio-net header read from one
 * device is written unchanged to the other, so the checksum-offload state
 * and the segmentation request travel with the packet and the receiving
 * kernel finishes the job.  Loss, however, must hit segments, not 44-segment
 * bursts, so a device whose egress direction has loss > 0 only offloads the
 * checksum (the kernel then segments before the daemon sees the packets);
 * `set ... loss=` switches this at run time.
 *
 * ## Notes for whoever runs it
 *
 *   - The daemon's TUN fds hold references to the namespaces: after
 *     `ip netns del` (an unmount) a namespace lives on until the daemon
 *     exits.  Tearing down in either order works; nothing leaks once the
 *     daemon is gone.
 *   - Between the kernel and the daemon, each TUN device queues at most
 *     txqueuelen packets (500 by default); when the daemon falls behind,
 *     the kernel drops there (the device's tx_dropped), not in the daemon.
 *   - The workers run SCHED_FIFO priority 10 when allowed and spin up to
 *     --spin-budget of their time near deadlines: on a 2-core box under a
 *     continuous stream of close deadlines that is a quarter of a core
 *     each.
 */
#ifndef GRIDBED_TAPD_H
#define GRIDBED_TAPD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest request the daemon accepts, in bytes. */
#define GB_TAPD_REQ_MAX 4096
/** How long gb_tapd_request() waits for the daemon, in milliseconds. */
#define GB_TAPD_TIMEOUT_MS 5000

/**
 * Send one request @req to the daemon listening on @ctl_path and store its
 * reply, NUL-terminated, in @reply (of @replylen bytes, > 0).
 *
 * Returns the length of the reply (without the NUL) on success, including
 * when the reply is "err ..." (that is the daemon's answer, not a failure of
 * the exchange).  Returns a negative errno on failure: -ENAMETOOLONG (path
 * too long for a unix socket), -EMSGSIZE (request too long, or the reply did
 * not fit; @reply then holds its truncated beginning), -ETIMEDOUT (no answer
 * within GB_TAPD_TIMEOUT_MS), or the errno of socket/connect/send/recv
 * (-ENOENT or -ECONNREFUSED: no daemon there).  Prints nothing.
 */
__attribute__((warn_unused_result))
int gb_tapd_request(const char *ctl_path, const char *req, char *reply, size_t replylen);

#ifdef __cplusplus
}
#endif

#endif /* GRIDBED_TAPD_H */
