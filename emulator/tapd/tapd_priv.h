/* SPDX-License-Identifier: MIT */
/*
 * tapd_priv.h - what gridemu-tapd's command-line/control layer (tapd.c)
 * and its data path (tapd_worker.c) share.  Not an API: tapd.h is.
 *
 * Threads and ownership:
 *   - the main thread parses the configuration, creates the devices, then
 *     serves the control socket and the signals; it owns the links;
 *   - each worker owns a disjoint set of links (both directions of a link
 *     in the same worker, so one heap orders everything a link carries), its
 *     packet pool and its heap; it alone reads and writes those devices.
 *   - Between them: a direction's parameters go main -> worker through a
 *     mutex-protected `pending` copy and a generation number the worker
 *     polls (one relaxed load per packet); counters and histograms go
 *     worker -> main as relaxed atomics (single writer, never torn).
 */
#ifndef GRIDBED_TAPD_PRIV_H
#define GRIDBED_TAPD_PRIV_H

#include <net/if.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "tapd_queue.h"

enum { TAPD_AB = 0, TAPD_BA = 1 };

/** Packets later than this after their deadline count as `late`. */
#define TAPD_LATE_NS 100000ull
/** Upper bound for delay_ns and jitter_ns (an hour). */
#define TAPD_MAX_DELAY_NS 3600000000000ull
/** Upper bound for limit. */
#define TAPD_MAX_LIMIT 1000000u

/** One direction's netem-like parameters. */
struct tapd_params {
	uint64_t delay_ns;
	uint64_t jitter_ns;
	double loss;
	uint32_t limit;
};

/** Per-direction counters (see tapd.h for their meaning and invariant). */
struct tapd_counters {
	uint64_t rx_packets, rx_bytes;
	uint64_t tx_packets, tx_bytes;
	uint64_t dropped_loss, dropped_queue, dropped_nomem;
	uint64_t tx_errors, rx_errors;
	uint64_t queue_depth, max_queue_depth;
	uint64_t late;
};

#define TAPD_LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define TAPD_ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* Single-writer add: a plain load and store, never torn for the reader. */
#define TAPD_ADD(x, v) TAPD_ST(x, TAPD_LD(x) + (v))

struct tapd_link;

/** One direction: reads rx_fd, delays, writes tx_fd. */
struct tapd_dir {
	struct tapd_link *link;
	int which;                  /**< TAPD_AB or TAPD_BA */
	int rx_fd, tx_fd;           /**< borrowed from the link's sides */
	int rx_packet, tx_packet;   /**< that side is a packet socket (Ethernet framed) */

	pthread_mutex_t lock;       /**< guards pending and gen's writers */
	struct tapd_params pending; /**< what `set` last stored */
	unsigned gen;               /**< bumped (under lock) by each `set` */

	/* Worker-private. */
	struct tapd_params cur;
	unsigned cur_gen;
	uint64_t depth;
	int dead;                   /**< rx fd failed and was taken out of epoll */
	int worker;                 /**< the worker that owns this direction */
	struct gb_rng loss_rng, jitter_rng;

	/* Worker writes, main reads (relaxed atomics). */
	struct tapd_counters c;
	struct tq_hist lateness;
};

/** The Ethernet header of what a packet side sends (tapd.h, "kind"): to a
 * unicast MAC that no stack claims, from one that no device has, IPv4. */
#define TAPD_PACKET_ETH { 0x02, 0x67, 0x62, 0xff, 0xff, 0xfe, \
			  0x02, 0x67, 0x62, 0xff, 0xff, 0xfd, 0x08, 0x00 }
#define TAPD_PACKET_ETH_LEN 14

/** One end of a link: a TUN device in a namespace, or a packet socket on
 * an existing Ethernet device there ("kind": "packet"). */
struct tapd_side {
	char *netns;                /**< path of the namespace, e.g. /run/netns/x */
	char ifname[IFNAMSIZ];
	int packet;                 /**< 1: an AF_PACKET socket on an existing device */
	int fd;                     /**< the TUN fd or socket, -1 when not open */
	unsigned offload;           /**< TUN_F_* flags last set (main thread) */
	int no_gso;                 /**< the other side is a packet socket: no TSO */
};

struct tapd_link {
	int64_t id;
	char *name;
	struct tapd_side side[2];   /**< a, b */
	struct tapd_dir dir[2];     /**< ab (a's fd -> b's fd), ba */
};

struct tapd_worker {
	int id;
	pthread_t thread;
	int started;
	int epfd, timerfd, stopfd;
	struct tapd_dir **dirs;
	size_t ndirs, nlinks;
	struct tq_heap heap;
	struct tq_pool pool;
	struct tq_pkt *spare;       /**< a big buffer ready for the next read */
	unsigned char *scratch;     /**< reads that the pool cannot hold */
	uint64_t seq;
	uint64_t armed;             /**< absolute time the timerfd is set to, 0 none */
	int64_t spin_fixed_ns;      /**< >= 0: fixed spin margin; < 0: adaptive */
	uint64_t spin_q_ns;         /**< adaptive: running p99 of timer overshoot */
	uint64_t spin_budget_ns;    /**< spinning allowed per window */
	uint64_t spin_window;       /**< start of the current window */
	uint64_t spin_used_ns;      /**< spun so far in it */
	int fifo;                   /**< runs SCHED_FIFO */
	const uint64_t *pass_ns;    /**< the daemon's pass-through cost (main writes,
				         relaxed atomic; NULL: none) */

	/* Worker writes, main reads (relaxed atomics). */
	uint64_t margin_ns;
	uint64_t timer_wakeups;
	uint64_t spin_total_ns;     /**< all spinning since start */
	uint64_t spin_capped;       /**< windows that ran out of spin budget */
	struct tq_hist wake_late;
};

static inline uint64_t tapd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/**
 * Prepare worker @id: epoll set over the rx fds of @dirs (@ndirs entries,
 * both directions of @nlinks links), a timerfd, a stop eventfd, a pool that
 * never exceeds @pool_max bytes.  @spin_ns < 0 means an adaptive spin
 * margin; @spin_pct is the share of time (0-100) spinning may take.
 * Returns 0 or a negative errno; tapd_worker_release() undoes a partial init.
 */
__attribute__((warn_unused_result))
int tapd_worker_init(struct tapd_worker *w, int id, struct tapd_dir **dirs, size_t ndirs,
		     size_t nlinks, size_t pool_max, int64_t spin_ns, unsigned spin_pct);
/**
 * Start the thread, SCHED_FIFO at @rt_prio when @rt_prio > 0 and the
 * kernel allows it, else SCHED_OTHER (w->fifo tells which).  Returns 0 or a
 * negative errno (from pthread_create).
 */
__attribute__((warn_unused_result))
int tapd_worker_start(struct tapd_worker *w, int rt_prio);
/** Ask the thread to stop and join it.  Idempotent. */
void tapd_worker_stop(struct tapd_worker *w);
/** Stop, then free everything (not the links' fds).  Idempotent. */
void tapd_worker_release(struct tapd_worker *w);

#endif /* GRIDBED_TAPD_PRIV_H */
