// SPDX-License-Identifier: MIT
/*
 * tapd_uring.c - gridemu-tapd's data path on io_uring: the same delay line
 * as tapd_worker.c's epoll loop (same heap, admission, spin margin and
 * budget), with fewer system calls.
 *
 * On this project's paravirtualised VMs a system call costs several
 * microseconds (docs/measurements.md, session 42), and the epoll loop makes
 * about six a traversal besides its spin (epoll_wait, read, the read that
 * finds EAGAIN, timerfd_settime, the timer's read, write) and one per turn of
 * the spin.  Here:
 *
 *   - every direction keeps one read posted on its source device; the kernel
 *     completes it when a packet arrives (in this thread's context, as task
 *     work), and the completion is read from shared memory;
 *   - the writes of the packets that are due, and the reads re-posted, go in
 *     the submission ring and leave with the loop's one io_uring_enter(2),
 *     which also waits, with the timeout that the timerfd gave;
 *   - spinning up to a deadline watches the completion ring and the clock in
 *     user space: no system call at all.
 *
 *   loop:
 *       for each completion: a read -> loss, limit, heap (tapd_dir_admit),
 *           re-post the read; a write -> counters (tapd_dir_sent)
 *       queue a write for each packet due (at most TX_BATCH)
 *       D = earliest deadline in the heap
 *       if more due:              io_uring_enter(submit)
 *       elif none:                io_uring_enter(submit, wait)
 *       elif D - now <= margin:   io_uring_enter(submit) if anything is queued;
 *                                 spin until a completion or D
 *       else:                     io_uring_enter(submit, wait, timeout D - margin)
 *
 * A packet's lateness is taken when its write is queued, just before the
 * system call that does it (the epoll loop takes it just before write(2)),
 * and the write then leaves with the loop's io_uring_enter(2), wait
 * included.  When several are due at once, they are submitted at once and
 * each is taken as late as the time the system call returned: an upper
 * bound (the epoll loop's later writes of a batch include the earlier ones'
 * time too, each its own).
 * The devices are read blocking: io_uring fails a read of an O_NONBLOCK file
 * that has nothing with -EAGAIN instead of waiting for it, so
 * tapd_uring_init() takes O_NONBLOCK off the worker's devices (its writes
 * then still never wait: a TUN device drops rather than blocks, and a
 * packet side's socket is written with MSG_DONTWAIT).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/virtio_net.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tapd_priv.h"
#include "tapd_ring.h"

#define TX_BATCH 64
#define VNET_HDR_LEN ((uint32_t)sizeof(struct virtio_net_hdr))

/* user_data of a submission: its kind in the low two bits. */
#define UD_WRITE 1u   /* | the packet's address (16-byte aligned) */
#define UD_READ 2u    /* | UD_SCRATCH | the direction's index << 3 */
#define UD_STOP 3u
#define UD_KIND 3u
#define UD_SCRATCH 4u

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Queue a submission, submitting what is queued first if the ring is full. */
static struct io_uring_sqe *get_sqe(struct tapd_worker *w)
{
	struct io_uring_sqe *sqe = tapd_ring_sqe(w->ring);

	if (!sqe) {
		TAPD_ADD(w->syscalls, 1);
		tapd_ring_enter(w->ring, 0, -1);
		sqe = tapd_ring_sqe(w->ring);
	}
	return sqe;
}

/* Post the read of direction @i (w->dirs[i]). */
static void rx_post(struct tapd_worker *w, size_t i)
{
	struct tapd_dir *d = w->dirs[i];
	struct io_uring_sqe *sqe;
	unsigned char *buf;
	uint64_t ud = ((uint64_t)i << 3) | UD_READ;

	if (d->dead)
		return;
	if (!d->rx_buf)
		d->rx_buf = tq_pool_get(&w->pool, TQ_BIG);
	if (d->rx_buf) {
		buf = d->rx_buf->data;
	} else {
		/* The pool is at its cap: read into scratch, count, drop.  (Several
		 * directions may share it: what is read there is never sent.) */
		buf = w->scratch;
		ud |= UD_SCRATCH;
	}
	sqe = get_sqe(w);
	if (!sqe)
		return; /* cannot happen: the ring holds every read and a batch */
	sqe->fd = d->rx_fd;
	sqe->user_data = ud;
	if (!d->rx_packet) {
		sqe->opcode = IORING_OP_READ;
		sqe->addr = (uint64_t)(uintptr_t)buf;
		sqe->len = TQ_BIG_CAP;
	} else {
		d->rx_iov[0] = (struct iovec){ buf, VNET_HDR_LEN };
		d->rx_iov[1] = (struct iovec){ d->rx_eth, TAPD_PACKET_ETH_LEN };
		d->rx_iov[2] = (struct iovec){ buf + VNET_HDR_LEN, TQ_BIG_CAP - VNET_HDR_LEN };
		sqe->opcode = IORING_OP_READV;
		sqe->addr = (uint64_t)(uintptr_t)d->rx_iov;
		sqe->len = 3;
	}
}

static void stop_post(struct tapd_worker *w, uint64_t *buf)
{
	struct io_uring_sqe *sqe = get_sqe(w);

	if (!sqe)
		return;
	sqe->opcode = IORING_OP_READ;
	sqe->fd = w->stopfd;
	sqe->addr = (uint64_t)(uintptr_t)buf;
	sqe->len = sizeof(*buf);
	sqe->user_data = UD_STOP;
}

static void rx_done(struct tapd_worker *w, uint64_t ud, int res)
{
	size_t i = (size_t)(ud >> 3);
	struct tapd_dir *d = w->dirs[i];
	uint32_t len;

	if (res < 0) {
		if (res != -EINTR && res != -EAGAIN && res != -ENOBUFS) {
			tapd_dir_kill(w, d);
			return;
		}
	} else if (d->rx_packet && res < (int)(VNET_HDR_LEN + TAPD_PACKET_ETH_LEN)) {
		/* a runt has nothing to deliver: the next one */
	} else if (res > 0) {
		len = (uint32_t)res - (d->rx_packet ? TAPD_PACKET_ETH_LEN : 0);
		if (ud & UD_SCRATCH) {
			TAPD_ADD(d->c.rx_packets, 1);
			TAPD_ADD(d->c.rx_bytes, len > VNET_HDR_LEN ? len - VNET_HDR_LEN : 0);
			TAPD_ADD(d->c.dropped_nomem, 1);
		} else {
			tapd_dir_refresh(d);
			if (tapd_dir_admit(w, d, d->rx_buf, len, tapd_now_ns()))
				d->rx_buf = NULL;
		}
	}
	rx_post(w, i);
}

static void tx_done(struct tapd_worker *w, uint64_t ud, int res)
{
	struct tq_pkt *pkt = (struct tq_pkt *)(uintptr_t)(ud & ~(uint64_t)UD_KIND);

	/* pkt->arrival was set to the time the write was queued (tx_queue()) */
	tapd_dir_sent(pkt->owner, pkt, pkt->arrival - pkt->deadline, res >= 0);
	tq_pool_put(&w->pool, pkt);
}

/* Handle every completion there is.  Returns 1 when asked to stop. */
static int reap(struct tapd_worker *w)
{
	struct io_uring_cqe *cqe;
	int stop = 0;

	/* every write queued so far has its completion there (or in flight,
	 * and then it is a completion to wake up for) */
	w->ring_writes = 0;
	while ((cqe = tapd_ring_cqe(w->ring))) {
		uint64_t ud = cqe->user_data;
		int res = cqe->res;

		tapd_ring_cqe_seen(w->ring);
		switch (ud & UD_KIND) {
		case UD_WRITE: tx_done(w, ud, res); break;
		case UD_READ: rx_done(w, ud, res); break;
		case UD_STOP: stop = 1; break;
		}
	}
	return stop;
}

/*
 * Queue the writes of what is due (at most TX_BATCH) and note them in
 * @batch.  Returns how many; *@more is set when the batch ran out with more
 * due.
 */
static unsigned tx_queue(struct tapd_worker *w, struct tq_pkt **batch, int *more)
{
	unsigned n = 0;
	int i;

	*more = 0;
	for (i = 0; i < TX_BATCH; i++) {
		const struct tq_entry *e = tq_heap_peek(&w->heap);
		struct io_uring_sqe *sqe;
		struct tq_pkt *pkt;
		struct tapd_dir *d;
		uint64_t now;

		if (!e)
			return n;
		now = tapd_now_ns();
		if (e->deadline > now)
			return n;
		pkt = tq_heap_pop(&w->heap);
		d = pkt->owner;
		if (d->tx_packet || !(sqe = get_sqe(w))) {
			/* a packet side's Ethernet header: written at once */
			ssize_t r = tapd_dir_write(w, d, pkt->data, pkt->len);

			tapd_dir_sent(d, pkt, now - pkt->deadline, r >= 0);
			tq_pool_put(&w->pool, pkt);
			continue;
		}
		pkt->arrival = now; /* no longer needed: the write's time, for its lateness */
		sqe->opcode = IORING_OP_WRITE;
		sqe->fd = d->tx_fd;
		sqe->addr = (uint64_t)(uintptr_t)pkt->data;
		sqe->len = pkt->len;
		sqe->user_data = (uint64_t)(uintptr_t)pkt | UD_WRITE;
		w->ring_writes++;
		batch[n++] = pkt;
	}
	*more = 1;
	return n;
}

/*
 * Submit, and with @wait, wait for a completion (a read, or a write that did
 * not complete at once: the writes queued since the last reap() complete
 * within the call, and are not waited for) or @timeout_ns (< 0: none).
 * Returns 1 when it waited and the timeout ended the wait.
 */
static int enter(struct tapd_worker *w, int wait, long long timeout_ns)
{
	unsigned nr = wait ? w->ring_writes + 1 : 0;

	if (!nr && !tapd_ring_unsubmitted(w->ring))
		return 0;
	TAPD_ADD(w->syscalls, 1);
	tapd_ring_enter(w->ring, nr, timeout_ns);
	return wait && timeout_ns >= 0 && tapd_ring_ready(w->ring) < nr;
}

void tapd_uring_main(struct tapd_worker *w)
{
	struct tq_pkt *batch[TX_BATCH];
	uint64_t stopbuf;
	size_t i;

	for (i = 0; i < w->ndirs; i++)
		rx_post(w, i);
	stop_post(w, &stopbuf);
	for (;;) {
		const struct tq_entry *e;
		uint64_t now, margin, at;
		unsigned n, k;
		int more;

		if (reap(w))
			break;
		n = tx_queue(w, batch, &more);
		if (n > 1) {
			/* Several writes at once: they leave now, and each is taken
			 * as late as the last of them (see the top of this file). */
			enter(w, 0, -1);
			now = tapd_now_ns();
			for (k = 0; k < n; k++)
				batch[k]->arrival = now;
		}
		e = tq_heap_peek(&w->heap);
		if (more) {
			enter(w, 0, -1);
			continue;
		}
		if (!e) {
			/* Nothing queued: but the writes' completions are read before
			 * a wait that may be long, so that `stats` counts them. */
			if (w->ring_writes) {
				enter(w, 0, -1);
				continue;
			}
			enter(w, 1, -1);
			continue;
		}
		now = tapd_now_ns();
		tapd_worker_roll(w, now);
		margin = tapd_worker_margin(w);
		if (e->deadline <= now + margin) {
			uint64_t until = e->deadline;

			if (tapd_ring_unsubmitted(w->ring))
				enter(w, 0, -1);
			while (!tapd_ring_ready(w->ring) && tapd_now_ns() < until)
				cpu_relax();
			tapd_worker_spent(w, tapd_now_ns() - now);
			continue;
		}
		at = e->deadline - margin;
		if (enter(w, 1, (long long)(at - now))) {
			now = tapd_now_ns();
			if (now >= at)
				tapd_worker_overshot(w, now - at);
		}
	}
	/* The thread's exit cancels the reads in flight before
	 * tapd_worker_release() frees their buffers. */
}

int tapd_uring_init(struct tapd_worker *w)
{
	unsigned entries = 1;
	size_t i;
	int err;

	while (entries < w->ndirs + 1 + TX_BATCH)
		entries <<= 1;
	w->ring = calloc(1, sizeof(*w->ring));
	if (!w->ring)
		return -ENOMEM;
	err = tapd_ring_init(w->ring, entries);
	if (err < 0) {
		free(w->ring);
		w->ring = NULL;
		return err;
	}
	/* Reads that wait (see the top of this file). */
	for (i = 0; i <= w->ndirs; i++) {
		int fd = i < w->ndirs ? w->dirs[i]->rx_fd : w->stopfd;
		int fl = fcntl(fd, F_GETFL);

		if (fl >= 0 && (fl & O_NONBLOCK))
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	return 0;
}

void tapd_uring_release(struct tapd_worker *w)
{
	size_t i;

	if (!w->ring)
		return;
	tapd_ring_release(w->ring);
	free(w->ring);
	w->ring = NULL;
	for (i = 0; i < w->ndirs; i++) {
		tq_pool_put(&w->pool, w->dirs[i]->rx_buf);
		w->dirs[i]->rx_buf = NULL;
	}
}
