// SPDX-License-Identifier: MIT
/*
 * tapd_worker.c - the data path of gridemu-tapd: one thread per worker,
 * one time-ordered queue per thread.
 *
 * Timing is the point.  docs/platform.md measured plain sleeps overshooting
 * 80-95 us at the median and milliseconds at p99, so a worker never sleeps
 * *until* a deadline: it sleeps until a margin before it, then spins.
 *
 *   loop:
 *       send every queued packet whose deadline <= now   (at most TX_BATCH)
 *       D = earliest deadline in the heap
 *       if none:                 block in epoll
 *       elif D - now <= margin:  poll epoll without blocking (spin)
 *       else:                    timerfd := D - margin (TFD_TIMER_ABSTIME);
 *                                block in epoll
 *       for each ready device: read up to RX_BATCH packets, each:
 *           loss draw (always drawn, so the stream does not depend on the
 *           loss setting) -> dropped_loss
 *           depth >= limit -> dropped_queue
 *           deadline = arrival + delay + U[-jitter, +jitter] (not before
 *           arrival), push (deadline, seq)
 *       on a timer wake-up: overshoot = now - armed time, feeds the margin
 *
 * The margin is adaptive unless --spin-us fixes it: a stochastic
 * quantile tracker follows the p99 of the timer's overshoot (step up by
 * 0.99 us when a wake-up is later than the estimate, down by 0.01 us
 * otherwise; it settles where 1 % of wake-ups are later), plus 10 us, kept
 * within [20 us, 250 us].  Spinning polls epoll, so reads are never held up
 * by it; it costs at most one margin of CPU per deadline, which is what
 * buys microsecond lateness instead of tens of microseconds.
 *
 * Spinning is also capped: a worker that has spun for more than its budget
 * (--spin-budget, default 25 %) of the current 100 ms window sleeps on the
 * timer right up to each deadline for the rest of the window.  On a 2-core
 * box a SCHED_FIFO thread spinning through a continuous stream of close
 * deadlines would otherwise take a whole core from the MPI ranks it is
 * there to serve; past the budget, lateness degrades to the kernel's
 * wake-up latency instead.
 *
 * Timer slack is set to 1 ns (the default 50 us would be added to every
 * sleep) and the thread runs SCHED_FIFO when allowed, so that a busy core
 * does not delay its wake-up by a whole CFS slice.
 *
 * Measured with emulator/bench/tapd-lateness.sh on the 2-core CI VM (2000
 * deadlines, 1 ms delay): lateness p50 0.1 us, p99 5-15 us, max 30-150 us;
 * with plain timer sleeps instead (--spin-us 0 --no-rt): p50 25 us, p99
 * 46-58 us, max 2-4 ms.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/virtio_net.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "tapd_priv.h"

#define RX_BATCH 64
#define TX_BATCH 64
#define MAX_EVENTS 64
#define VNET_HDR_LEN ((uint32_t)sizeof(struct virtio_net_hdr))

/* epoll tags: the u64 of each event. */
#define TAG_STOP 0
#define TAG_TIMER 1
#define TAG_DIR0 2

/* Adaptive spin margin (ns). */
#define SPIN_INIT 50000
#define SPIN_STEP 1000
#define SPIN_PAD 10000
#define SPIN_MIN 20000
#define SPIN_MAX 250000
/* Spin budget accounting window (ns). */
#define SPIN_WINDOW 100000000ull

static void dir_refresh(struct tapd_dir *d)
{
	if (__atomic_load_n(&d->gen, __ATOMIC_ACQUIRE) == d->cur_gen)
		return;
	pthread_mutex_lock(&d->lock);
	d->cur = d->pending;
	d->cur_gen = d->gen;
	pthread_mutex_unlock(&d->lock);
}

static void dir_kill(struct tapd_worker *w, struct tapd_dir *d)
{
	/* A device that errors (unregistered, e.g. its namespace was torn down
	 * from under us) would otherwise report EPOLLERR in a tight loop. */
	if (d->dead)
		return;
	d->dead = 1;
	TAPD_ADD(d->c.rx_errors, 1);
	epoll_ctl(w->epfd, EPOLL_CTL_DEL, d->rx_fd, NULL);
}

/* Take a read packet through loss, limit and into the heap. */
static void dir_admit(struct tapd_worker *w, struct tapd_dir *d, struct tq_pkt *big,
		      uint32_t len, uint64_t now)
{
	const struct tapd_params *p = &d->cur;
	struct tq_pkt *pkt = big;
	uint64_t deadline, delay, pass;

	TAPD_ADD(d->c.rx_packets, 1);
	TAPD_ADD(d->c.rx_bytes, len > VNET_HDR_LEN ? len - VNET_HDR_LEN : 0);

	/* Loss first, then the queue limit: the order of netem_enqueue(). */
	if (gb_rng_uniform(&d->loss_rng) < p->loss) {
		TAPD_ADD(d->c.dropped_loss, 1);
		return;
	}
	if (d->depth >= p->limit) {
		TAPD_ADD(d->c.dropped_queue, 1);
		return;
	}

	/* The delay line's own pass-through cost (the time a packet spends
	 * between two devices outside the heap) is already part of the
	 * traversal: hold the packet for the rest of its delay only. */
	pass = w->pass_ns ? TAPD_LD(*w->pass_ns) : 0;
	delay = p->delay_ns > pass ? p->delay_ns - pass : 0;
	deadline = now + delay;
	if (p->jitter_ns) {
		uint64_t j = tq_rng_below(&d->jitter_rng, 2 * p->jitter_ns + 1);

		/* U[delay - jitter, delay + jitter], never before arrival. */
		if (j >= p->jitter_ns)
			deadline += j - p->jitter_ns;
		else if (delay >= p->jitter_ns - j)
			deadline -= p->jitter_ns - j;
		else
			deadline = now;
	}

	if (len <= TQ_SMALL_CAP) {
		struct tq_pkt *small = tq_pool_get(&w->pool, TQ_SMALL);

		if (small) {
			memcpy(small->data, big->data, len);
			pkt = small;
		}
	}
	pkt->len = len;
	pkt->owner = d;
	pkt->deadline = deadline;
	pkt->arrival = now;
	if (tq_heap_push(&w->heap, pkt, w->seq++) < 0) {
		if (pkt != big)
			tq_pool_put(&w->pool, pkt);
		TAPD_ADD(d->c.dropped_nomem, 1);
		return;
	}
	if (pkt == big)
		w->spare = NULL;
	d->depth++;
	TAPD_ST(d->c.queue_depth, d->depth);
	if (d->depth > TAPD_LD(d->c.max_queue_depth))
		TAPD_ST(d->c.max_queue_depth, d->depth);
}

/*
 * What the heap holds is always the virtio-net header and the IP packet,
 * as a TUN device reads and writes it.  A packet side's frames also carry
 * an Ethernet header between the two (tapd.h, "kind"): dropped on the way
 * in, put back on the way out.
 */
static ssize_t dir_read(struct tapd_dir *d, unsigned char *buf, size_t cap)
{
	unsigned char eth[TAPD_PACKET_ETH_LEN];
	struct iovec iov[3] = { { buf, VNET_HDR_LEN }, { eth, sizeof(eth) },
				{ buf + VNET_HDR_LEN, cap - VNET_HDR_LEN } };
	ssize_t n;

	if (!d->rx_packet)
		return read(d->rx_fd, buf, cap);
	do    /* a runt has nothing to deliver: the next one */
		n = readv(d->rx_fd, iov, 3);
	while (n >= 0 && n < (ssize_t)(VNET_HDR_LEN + sizeof(eth)));
	return n < 0 ? n : n - (ssize_t)sizeof(eth);
}

static ssize_t dir_write(struct tapd_dir *d, const unsigned char *buf, size_t len)
{
	static const unsigned char eth[TAPD_PACKET_ETH_LEN] = TAPD_PACKET_ETH;
	struct iovec iov[3] = { { (void *)buf, VNET_HDR_LEN }, { (void *)eth, sizeof(eth) },
				{ (void *)(buf + VNET_HDR_LEN), len - VNET_HDR_LEN } };

	if (!d->tx_packet || len < VNET_HDR_LEN)
		return write(d->tx_fd, buf, len);
	return writev(d->tx_fd, iov, 3);
}

static void worker_rx(struct tapd_worker *w, struct tapd_dir *d)
{
	int i;

	for (i = 0; i < RX_BATCH && !d->dead; i++) {
		ssize_t n;

		if (!w->spare)
			w->spare = tq_pool_get(&w->pool, TQ_BIG);
		if (!w->spare) {
			/* The pool is at its cap: read into scratch, count, drop. */
			n = dir_read(d, w->scratch, TQ_BIG_CAP);
			if (n > 0) {
				TAPD_ADD(d->c.rx_packets, 1);
				TAPD_ADD(d->c.rx_bytes, (uint64_t)n > VNET_HDR_LEN ?
							(uint64_t)n - VNET_HDR_LEN : 0);
				TAPD_ADD(d->c.dropped_nomem, 1);
				continue;
			}
		} else {
			n = dir_read(d, w->spare->data, TQ_BIG_CAP);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				dir_kill(w, d);
			return;
		}
		if (n == 0)
			return;
		dir_refresh(d);
		dir_admit(w, d, w->spare, (uint32_t)n, tapd_now_ns());
	}
}

/* Send what is due.  Returns 1 when the batch ran out with more due. */
static int worker_flush(struct tapd_worker *w)
{
	int i;

	for (i = 0; i < TX_BATCH; i++) {
		const struct tq_entry *e = tq_heap_peek(&w->heap);
		struct tq_pkt *pkt;
		struct tapd_dir *d;
		uint64_t now;
		ssize_t n;

		if (!e)
			return 0;
		now = tapd_now_ns();
		if (e->deadline > now)
			return 0;
		pkt = tq_heap_pop(&w->heap);
		d = pkt->owner;
		n = dir_write(d, pkt->data, pkt->len);
		if (n < 0) {
			TAPD_ADD(d->c.tx_errors, 1);
		} else {
			uint64_t late = now - pkt->deadline;

			TAPD_ADD(d->c.tx_packets, 1);
			TAPD_ADD(d->c.tx_bytes, pkt->len > VNET_HDR_LEN ?
						pkt->len - VNET_HDR_LEN : 0);
			tq_hist_add(&d->lateness, late);
			if (late > TAPD_LATE_NS)
				TAPD_ADD(d->c.late, 1);
		}
		d->depth--;
		TAPD_ST(d->c.queue_depth, d->depth);
		if (pkt->cls == TQ_BIG && !w->spare)
			w->spare = pkt;
		else
			tq_pool_put(&w->pool, pkt);
	}
	return 1;
}

static uint64_t worker_margin(const struct tapd_worker *w)
{
	uint64_t m;

	if (w->spin_used_ns > w->spin_budget_ns)
		return 0;	/* over budget: sleep right up to the deadline */
	if (w->spin_fixed_ns >= 0)
		return (uint64_t)w->spin_fixed_ns;
	m = w->spin_q_ns + SPIN_PAD;
	if (m < SPIN_MIN)
		m = SPIN_MIN;
	if (m > SPIN_MAX)
		m = SPIN_MAX;
	return m;
}

static void worker_timer_woke(struct tapd_worker *w, uint64_t now, int blocked)
{
	uint64_t buf;

	if (read(w->timerfd, &buf, sizeof(buf)) < 0) {
		/* EAGAIN: already consumed, nothing to do. */
	}
	if (blocked && w->armed && now >= w->armed) {
		uint64_t over = now - w->armed;

		TAPD_ADD(w->timer_wakeups, 1);
		tq_hist_add(&w->wake_late, over);
		if (over > w->spin_q_ns)
			w->spin_q_ns += SPIN_STEP * 99 / 100;
		else if (w->spin_q_ns >= SPIN_STEP / 100)
			w->spin_q_ns -= SPIN_STEP / 100;
		TAPD_ST(w->margin_ns, worker_margin(w));
	}
	w->armed = 0;
}

/* Open a new spin-budget window when the current one is over. */
static void worker_roll(struct tapd_worker *w, uint64_t now)
{
	if (now - w->spin_window < SPIN_WINDOW)
		return;
	if (w->spin_used_ns > w->spin_budget_ns)
		TAPD_ADD(w->spin_capped, 1);
	w->spin_window = now;
	w->spin_used_ns = 0;
}

/* Account @ns of spinning. */
static void worker_spent(struct tapd_worker *w, uint64_t ns)
{
	w->spin_used_ns += ns;
	TAPD_ADD(w->spin_total_ns, ns);
}

static void worker_arm(struct tapd_worker *w, uint64_t at)
{
	struct itimerspec its = { 0 };

	if (w->armed == at)
		return;
	its.it_value.tv_sec = (time_t)(at / 1000000000ull);
	its.it_value.tv_nsec = (long)(at % 1000000000ull);
	if (timerfd_settime(w->timerfd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
		w->armed = at;
}

static void *worker_main(void *arg)
{
	struct tapd_worker *w = arg;
	struct epoll_event ev[MAX_EVENTS];

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (;;) {
		const struct tq_entry *e;
		int more, timeout = -1, n, i;
		uint64_t spin_from = 0;

		more = worker_flush(w);
		e = tq_heap_peek(&w->heap);
		if (more) {
			timeout = 0;
		} else if (e) {
			uint64_t now = tapd_now_ns(), margin;

			worker_roll(w, now);
			margin = worker_margin(w);
			if (e->deadline <= now + margin) {
				timeout = 0;
				spin_from = now;
			} else {
				worker_arm(w, e->deadline - margin);
			}
		}
		n = epoll_wait(w->epfd, ev, MAX_EVENTS, timeout);
		if (spin_from) {
			uint64_t now = tapd_now_ns();

			worker_spent(w, now - spin_from);
		}
		if (n < 0)
			continue;	/* EINTR */
		for (i = 0; i < n; i++) {
			uint64_t tag = ev[i].data.u64;

			if (tag == TAG_STOP)
				return NULL;
			if (tag == TAG_TIMER) {
				worker_timer_woke(w, tapd_now_ns(), timeout < 0);
				continue;
			}
			if (ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
				worker_rx(w, w->dirs[tag - TAG_DIR0]);
		}
	}
}

int tapd_worker_init(struct tapd_worker *w, int id, struct tapd_dir **dirs, size_t ndirs,
		     size_t nlinks, size_t pool_max, int64_t spin_ns, unsigned spin_pct)
{
	struct epoll_event ev = { .events = EPOLLIN };
	size_t i;
	int err;

	memset(w, 0, sizeof(*w));
	w->id = id;
	w->epfd = w->timerfd = w->stopfd = -1;
	w->dirs = dirs;
	w->ndirs = ndirs;
	w->nlinks = nlinks;
	w->spin_fixed_ns = spin_ns;
	w->spin_q_ns = SPIN_INIT;
	w->spin_budget_ns = SPIN_WINDOW * (spin_pct > 100 ? 100 : spin_pct) / 100;
	w->spin_window = tapd_now_ns();
	w->margin_ns = worker_margin(w);
	tq_heap_init(&w->heap);
	tq_pool_init(&w->pool, pool_max);

	w->scratch = malloc(TQ_BIG_CAP);
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	w->stopfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!w->scratch) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (w->epfd < 0 || w->timerfd < 0 || w->stopfd < 0) {
		err = -errno;
		goto cleanup;
	}
	/* Size the heap for the usual load up front; it grows (amortised,
	 * rarely) if the queues get longer, e.g. after `set limit=`. */
	err = tq_heap_reserve(&w->heap, 1024);
	if (err < 0)
		goto cleanup;
	ev.data.u64 = TAG_STOP;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->stopfd, &ev) < 0)
		goto fail_errno;
	ev.data.u64 = TAG_TIMER;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->timerfd, &ev) < 0)
		goto fail_errno;
	for (i = 0; i < ndirs; i++) {
		ev.data.u64 = TAG_DIR0 + i;
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, dirs[i]->rx_fd, &ev) < 0)
			goto fail_errno;
		dirs[i]->cur = dirs[i]->pending;
		dirs[i]->cur_gen = dirs[i]->gen;
	}
	/* Warm up: one big buffer now, so the first packet does not fault. */
	w->spare = tq_pool_get(&w->pool, TQ_BIG);
	return 0;

fail_errno:
	err = -errno;
cleanup:
	tapd_worker_release(w);
	return err;
}

int tapd_worker_start(struct tapd_worker *w, int rt_prio)
{
	pthread_attr_t attr;
	int err = -1;

	if (rt_prio > 0) {
		struct sched_param sp = { .sched_priority = rt_prio };

		pthread_attr_init(&attr);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
		err = pthread_create(&w->thread, &attr, worker_main, w);
		pthread_attr_destroy(&attr);
		w->fifo = err == 0;
	}
	if (err)
		err = pthread_create(&w->thread, NULL, worker_main, w);
	if (err)
		return -err;
	w->started = 1;
	return 0;
}

void tapd_worker_stop(struct tapd_worker *w)
{
	uint64_t one = 1;

	if (!w->started)
		return;
	if (write(w->stopfd, &one, sizeof(one)) < 0) {
		/* An eventfd write of 1 cannot fail short of a counter overflow. */
	}
	pthread_join(w->thread, NULL);
	w->started = 0;
}

void tapd_worker_release(struct tapd_worker *w)
{
	tapd_worker_stop(w);
	if (w->epfd >= 0)
		close(w->epfd);
	if (w->timerfd >= 0)
		close(w->timerfd);
	if (w->stopfd >= 0)
		close(w->stopfd);
	w->epfd = w->timerfd = w->stopfd = -1;
	tq_heap_release(&w->heap);
	tq_pool_release(&w->pool);
	w->spare = NULL;
	free(w->scratch);
	w->scratch = NULL;
}
