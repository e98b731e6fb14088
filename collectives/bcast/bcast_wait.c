/* SPDX-License-Identifier: MIT */
/*
 * bcast_wait.c - waiting asleep (gridbcast.h: gb_bcast_wait; bcast_impl.h:
 * gb_bcast_waitany, gb_bcast_waitall, gb_bcast_send).
 *
 * OpenMPI's TCP transport progresses only inside MPI calls, so MPI_Wait and a
 * blocking MPI_Send spin.  With GB_BCAST_SLEEP a rank instead alternates
 * MPI_Test* with epoll_wait(2) on the process's own sockets:
 *
 *	test twice (MPI_Test*: progress, then a second look at what that
 *	            progress completed)
 *	rescan /proc/self/fd into the epoll set if it was never read, if a
 *	       listening socket woke us (MPI accepted a connection during the
 *	       tests: its socket is new), or every WAIT_RESCAN_S
 *	sleep in epoll_wait until input on any socket, or the timeout: from
 *	       1 ms doubling to the cap after every sleep that timed out,
 *	       each drawn from [t/2, t] so that ranks do not wake in step
 *
 * The doubling: a rank that waits long (the leaves of a deep tree, a start
 * window) wakes a few times a second, not every millisecond, so 168 idle
 * ranks cost little CPU (with a fixed 5 ms timeout they took a third of the
 * box and tripled the intra-cluster hops, docs/measurements.md); data on any
 * socket wakes it at once whatever the timeout.
 *
 * Choices:
 *  - epoll, not poll(2): a rank holds a socket per peer (66 on teragrid),
 *    and poll's cost per call is per socket.  In a development run of
 *    teragrid-paper (docs/measurements.md, session 33) the ranks' poll
 *    calls (sock_poll, tcp_poll, fdget) were 57 % of the ranks' CPU time,
 *    and the old rescan of /proc/self/fd after every wake-up a few % more;
 *  - sends wait asleep too (gb_bcast_send, gb_bcast_waitall): a blocking
 *    send above the eager limit waits a round trip for the receiver's
 *    rendezvous reply (input: it wakes the sender at once), then for its
 *    socket to take the data, which is output: no input announces it, so a
 *    sending rank's sleeps are capped at GB_BCAST_SEND_SLEEP_MS.  A socket
 *    that drains for longer than that between two wake-ups loses nothing
 *    (the kernel's send buffer holds more than 2 ms of data at the rates of
 *    the shipped topologies); the sender spinning in MPI_Send took the CPU
 *    for the whole transfer;
 *  - a socket that reports a hang-up or an error leaves the set (its peer
 *    is gone: it would wake every sleep).
 * One thread per process waits (the ranks are single-threaded MPI
 * programs), so the set is static.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bcast_impl.h"

#define WAIT_RESCAN_S 0.1
#define WAIT_EVENTS 16
#define LISTENER (1ull << 32)
#define WAIT_FDS 4096	/* fds above are not watched (MPI's are low) */

static struct {
	int ep;          /* epoll fd, -1 before the first wait */
	double scanned;  /* gb_now() of the last scan, < 0: never */
	int rescan;      /* a listening socket woke us */
	unsigned seed;   /* rand_r state of the sleeps' spread */
	unsigned long long ino[WAIT_FDS]; /* the socket each fd was added as */
} ws = { -1, -1.0, 0, 0, { 0 } };

/* Add the process's sockets to the set (existing ones stay).  A socket is
 * known by its inode ("socket:[N]", one readlink per fd): an fd number
 * that MPI closed and reused for another socket is added again. */
static void ws_scan(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	ws.scanned = gb_now();
	ws.rescan = 0;
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct epoll_event ev = { .events = EPOLLIN };
		char link[64], path[64];
		unsigned long long ino;
		int acc = 0;
		socklen_t al = sizeof(acc);
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		ssize_t n;

		if (*end || fd < 0 || fd >= WAIT_FDS || fd == dirfd(d) || fd == ws.ep)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (sscanf(link, "socket:[%llu]", &ino) != 1 || ws.ino[fd] == ino)
			continue;
		ws.ino[fd] = ino;
		if (getsockopt((int)fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) < 0)
			acc = 0;
		ev.data.u64 = (uint64_t)fd | (acc ? LISTENER : 0);
		if (epoll_ctl(ws.ep, EPOLL_CTL_ADD, (int)fd, &ev) < 0 && errno == EEXIST)
			epoll_ctl(ws.ep, EPOLL_CTL_MOD, (int)fd, &ev);
	}
	closedir(d);
}

/* Sleep at most @ms until input on a socket. Return: 1 woken, 0 timed out. */
static int ws_sleep(int ms)
{
	struct epoll_event ev[WAIT_EVENTS];
	int n = epoll_wait(ws.ep, ev, WAIT_EVENTS, ms);

	if (n < 0)
		return 1;	/* EINTR: test again */
	for (int i = 0; i < n; i++) {
		int fd = (int)(ev[i].data.u64 & 0xffffffffu);

		if (ev[i].data.u64 & LISTENER)
			ws.rescan = 1;
		if (ev[i].events & (EPOLLHUP | EPOLLERR)) {
			epoll_ctl(ws.ep, EPOLL_CTL_DEL, fd, NULL);
			/* stays known: a hung-up socket is not watched again */
		}
	}
	return n > 0;
}

/* What a wait waits for: one of n (MPI_Testany) or all n (MPI_Testall). */
struct wait_for {
	int all, n;
	MPI_Request *req;
	int *idx;
	MPI_Status *st;
};

/* 1: done, 0: not yet, -EIO: MPI failed. */
static int wait_test(const struct wait_for *w)
{
	int done = 0;

	if (w->all) {
		if (MPI_Testall(w->n, w->req, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
			return -EIO;
	} else if (MPI_Testany(w->n, w->req, w->idx, &done,
			       w->st ? w->st : MPI_STATUS_IGNORE) != MPI_SUCCESS) {
		return -EIO;
	}
	return done ? 1 : 0;
}

static int wait_asleep(const struct wait_for *w, int cap_ms)
{
	int ms = 1;

	if (ws.ep < 0) {
		ws.ep = epoll_create1(EPOLL_CLOEXEC);
		if (ws.ep < 0)
			return -EIO;
		ws.seed = (unsigned)getpid() | 1u;
	}
	for (;;) {
		/* twice: MPI_Testany lets MPI progress only after it found
		 * nothing done, and does not look again (MPI_Test does), so
		 * what that progress completed, from the data that woke us,
		 * is only seen by a second test; without it the rank would
		 * sleep out the timeout with the data already read */
		for (int pass = 0; pass < 2; pass++) {
			int r = wait_test(w);

			if (r)
				return r < 0 ? r : 0;
		}
		if (ws.scanned < 0 || ws.rescan || gb_now() - ws.scanned > WAIT_RESCAN_S)
			ws_scan();
		if (!ws_sleep(ms / 2 + (int)(rand_r(&ws.seed) % (unsigned)(ms / 2 + 1))) &&
		    ms < cap_ms)
			ms = ms * 2 < cap_ms ? ms * 2 : cap_ms;
	}
}

int gb_bcast_wait(MPI_Request *req, MPI_Status *st, unsigned flags)
{
	int idx;
	struct wait_for w = { 0, 1, req, &idx, st };

	if (!(flags & GB_BCAST_SLEEP))
		return MPI_Wait(req, st ? st : MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -EIO;
	return wait_asleep(&w, GB_BCAST_SLEEP_MS);
}

int gb_bcast_waitany(int n, MPI_Request *req, int *idx, unsigned flags)
{
	struct wait_for w = { 0, n, req, idx, NULL };

	if (!(flags & GB_BCAST_SLEEP))
		return MPI_Waitany(n, req, idx, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -EIO;
	return wait_asleep(&w, GB_BCAST_SLEEP_MS);
}

int gb_bcast_waitall(int n, MPI_Request *req, unsigned flags)
{
	struct wait_for w = { 1, n, req, NULL, NULL };

	if (!(flags & GB_BCAST_SLEEP))
		return MPI_Waitall(n, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS ? 0 : -EIO;
	return wait_asleep(&w, GB_BCAST_SEND_SLEEP_MS);
}

int gb_bcast_send(const void *buf, int count, MPI_Datatype dt, int dst, int tag, MPI_Comm comm,
		  unsigned flags)
{
	MPI_Request r;

	if (!(flags & GB_BCAST_SLEEP))
		return MPI_Send(buf, count, dt, dst, tag, comm) == MPI_SUCCESS ? 0 : -EIO;
	if (MPI_Isend(buf, count, dt, dst, tag, comm, &r) != MPI_SUCCESS)
		return -EIO;
	return gb_bcast_waitall(1, &r, flags);
}

int gb_bcast_barrier(MPI_Comm comm, unsigned flags)
{
	MPI_Request r;

	if (!(flags & GB_BCAST_SLEEP))
		return MPI_Barrier(comm) == MPI_SUCCESS ? 0 : -EIO;
	if (MPI_Ibarrier(comm, &r) != MPI_SUCCESS)
		return -EIO;
	return gb_bcast_wait(&r, NULL, flags);
}
