/* SPDX-License-Identifier: MIT */
/*
 * mon_probe.c - gridmon's pair measurement (gridmon.h): UDP echo RTTs, the
 * send() overhead, and a byte-bounded TCP transfer timed at the sender
 * from the bytes the receiver has acknowledged.
 *
 * Why the sender times the transfer from acknowledged bytes: a sample
 * (clock, acked) taken at the sender is consistent whatever the
 * receiving process does, because the receiver's kernel acknowledges data
 * as it arrives, not when the process reads it.  The earlier design timed
 * the bytes the sink had read; on a busy box the sink lost the CPU, then
 * read a backlog in one burst and stamped it as if it had just arrived,
 * which inflated the bandwidth (up to 2x in t/6101).  A starved sender
 * only takes fewer samples; each one is still exact.  "acked" is
 * gb_tcp_bytes_delivered() (emulator/probe_child.h): cumulatively
 * acknowledged plus selectively acknowledged bytes, because after a loss
 * the cumulative count jumps by data delivered long before, which read
 * +8 % on teragrid's 30 Mbit/s, 60 ms paths (now within 1 % of iperf3).
 *
 *	source: write N bytes; after each write and every ~0.25 ms until
 *	        all N are acknowledged: sample (t, acked)
 *	        w   = the first sample with acked >= warm_frac * N  (slow start
 *	              is behind us)
 *	        e   = the last sample with acked < N, if it is after w; else
 *	              the first with acked >= N
 *	        bw  = the least-squares slope of acked over t for the samples
 *	              w .. e (16 or more), else (acked_e - acked_w) / (t_e - t_w)
 *
 * The last sample before completion is preferred to the completion sample
 * because only the latter can be stamped late: a sender descheduled while
 * the last ACK arrives reads the final count later than it happened.
 * Time is CLOCK_MONOTONIC (ARCHITECTURE.md decision 4).
 */
#include "gridmon.h"
#include "probe_child.h"
#include "gbutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROBE_LEN 64
#define SAMPLE_S 250e-6 /* sampling period of the acknowledged bytes */


/* What the sink reports after the TCP stream ended. */
struct sink_report {
	uint64_t total; /* bytes read */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void __attribute__((noreturn)) sink(uint32_t addr, const struct gb_mon_opts *o, int ready,
					   int out)
{
	static char buf[1 << 16];
	struct sink_report rep = { 0 };
	int u, l, c = -1;

	gb_probe_server_open(addr, o->port, 1, ready, &u, &l);
	struct pollfd pf[3] = { { u, POLLIN, 0 }, { l, POLLIN, 0 }, { -1, POLLIN, 0 } };
	for (;;) {
		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (pf[0].revents & POLLIN)
			gb_udp_echo(u, buf, sizeof(buf));
		if ((pf[1].revents & POLLIN) && c < 0)
			pf[2].fd = c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		if (c >= 0 && (pf[2].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t n = read(c, buf, sizeof(buf));
			if (n > 0) {
				rep.total += (uint64_t)n;
				continue;
			}
			gb_write_all(out, &rep, sizeof(rep));
			close(c); /* the source waits for this close */
			pf[2].fd = -1;
		}
	}
}

/* The source's report. */
struct source_report {
	int ok;
	int sent, received;
	double rtt_min, rtt_p50, o_send;
	double bw, bw_seconds;
	uint64_t bytes;
};

/* One sample of the acknowledged bytes. */
struct ack_sample {
	double t;
	uint64_t acked;
};

/*
 * The transfer's goodput from the samples (see the header comment): the
 * first sample past warm-up and the last one before completion.
 */
struct ack_track {
	uint64_t warm, total, base;
	struct ack_sample w, before, end;
	int have_w, have_before, done;
	double n, sx, sy, sxx, sxy;  /* least squares over w .. before */
};

static int ack_sample(struct ack_track *k, int s)
{
	struct ack_sample x;
	int err = gb_tcp_bytes_delivered(s, &x.acked);

	if (err < 0)
		return err;
	x.t = gb_now();
	/* counted from the connection's first sample: the SYN may count */
	if (x.acked < k->base)
		x.acked = k->base;
	x.acked -= k->base;
	if (!k->have_w && x.acked >= k->warm) {
		k->w = x;
		k->have_w = 1;
		return 0;
	}
	if (k->have_w && x.acked < k->total) {
		double dt = x.t - k->w.t, db = (double)(x.acked - k->w.acked);

		k->before = x;
		k->have_before = 1;
		k->n += 1;
		k->sx += dt;
		k->sy += db;
		k->sxx += dt * dt;
		k->sxy += dt * db;
	} else if (k->have_w && x.acked >= k->total) {
		k->end = x;
		k->done = 1;
	}
	return 0;
}

/* Send exactly o->tcp_bytes to @daddr and time it; 0 or -errno. */
static int tcp_transfer(uint32_t daddr, const struct gb_mon_opts *o, struct source_report *r)
{
	static char buf[1 << 16];
	struct ack_track k;
	struct timespec nap = { 0, (long)(SAMPLE_S * 1e9) };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), err = 0;
	struct sockaddr_in st = gb_sockaddr(daddr, o->port + 1);
	uint64_t left = o->tcp_bytes;

	memset(&k, 0, sizeof(k));
	if (s < 0 || connect(s, (void *)&st, sizeof(st)) < 0)
		return -errno;
	k.total = o->tcp_bytes;
	k.warm = (uint64_t)((double)o->tcp_bytes * o->warm_frac);
	if ((err = gb_tcp_bytes_delivered(s, &k.base)) < 0)
		goto out;
	memset(buf, 0x5a, sizeof(buf));
	while (left) {
		size_t len = left < sizeof(buf) ? (size_t)left : sizeof(buf);
		ssize_t n = write(s, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			goto out;
		}
		left -= (uint64_t)n;
		r->bytes += (uint64_t)n;
		if ((err = ack_sample(&k, s)) < 0)
			goto out;
	}
	while (!k.done) {
		nanosleep(&nap, NULL);
		if ((err = ack_sample(&k, s)) < 0)
			goto out;
	}
	struct ack_sample e = k.have_before && k.before.t > k.w.t ? k.before : k.end;
	if (e.t > k.w.t && e.acked > k.w.acked) {
		double d = k.n * k.sxx - k.sx * k.sx;

		r->bw_seconds = e.t - k.w.t;
		r->bw = (double)(e.acked - k.w.acked) / r->bw_seconds;
		/* with enough samples, the slope: ACKs come in bursts (delayed
		 * and stretched ACKs, a delay line that lost the CPU), and a
		 * line through all samples is not at the mercy of where the
		 * two end samples fell in them */
		if (k.n >= 16 && d > 0 && (k.n * k.sxy - k.sx * k.sy) / d > 0)
			r->bw = (k.n * k.sxy - k.sx * k.sy) / d;
	}
	shutdown(s, SHUT_WR);
	while (read(s, buf, sizeof(buf)) > 0)
		; /* wait for the sink's close: everything has been read */
out:
	close(s);
	return err;
}

static void __attribute__((noreturn)) source(uint32_t daddr, const struct gb_mon_opts *o, int out)
{
	static char buf[1 << 16];
	struct source_report r;
	int n = o->rtt_count;
	double *rtt = calloc((size_t)n, sizeof(double));
	double *os = calloc((size_t)n, sizeof(double));
	int nos = 0;

	memset(&r, 0, sizeof(r));
	int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sd = gb_sockaddr(daddr, o->port);
	if (!rtt || !os || u < 0 || connect(u, (void *)&sd, sizeof(sd)) < 0)
		_exit(1);
	memset(buf, 0, PROBE_LEN);
	for (int i = 0; i < n; i++) {
		uint64_t seq = (uint64_t)i + 1;
		memcpy(buf, &seq, sizeof(seq));
		double t0 = gb_now();
		if (send(u, buf, PROBE_LEN, 0) != PROBE_LEN)
			continue;
		double t1 = gb_now();
		os[nos++] = t1 - t0;
		r.sent++;
		r.bytes += PROBE_LEN;
		for (;;) {
			double left = t0 + 1.0 - gb_now();
			struct pollfd pf = { u, POLLIN, 0 };
			if (left <= 0 || poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
				break;
			uint64_t got;
			ssize_t k = recv(u, buf, sizeof(buf), 0);
			if (k < (ssize_t)sizeof(got))
				continue;
			r.bytes += (uint64_t)k; /* the echo crossed the path too */
			memcpy(&got, buf, sizeof(got));
			if (got == seq) {
				rtt[r.received++] = gb_now() - t0;
				break;
			}
		}
	}
	close(u);
	if (r.received) {
		qsort(rtt, (size_t)r.received, sizeof(double), cmp_double);
		r.rtt_min = rtt[0];
		r.rtt_p50 = rtt[(r.received - 1) / 2];
	}
	if (nos) {
		qsort(os, (size_t)nos, sizeof(double), cmp_double);
		r.o_send = os[(nos - 1) / 2];
	}
	if (o->tcp_bytes > 0 && r.received && tcp_transfer(daddr, o, &r) < 0)
		_exit(2);
	r.ok = 1;
	gb_write_all(out, &r, sizeof(r));
	_exit(0);
}

/* Read exactly @len bytes before @deadline (monotonic seconds). */
static int read_until(int fd, void *buf, size_t len, double deadline)
{
	size_t got = 0;
	while (got < len) {
		double left = deadline - gb_now();
		if (left <= 0)
			return -ETIMEDOUT;
		struct pollfd pf = { fd, POLLIN, 0 };
		int p = poll(&pf, 1, (int)(left * 1000) + 1);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			return -errno;
		if (p == 0)
			continue;
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		got += (size_t)n;
	}
	return 0;
}

int gb_mon_pair(int src_nsfd, int dst_nsfd, uint32_t dst_addr, const struct gb_mon_opts *o,
		struct gb_mon_result *r)
{
	int rp[2] = { -1, -1 }, sp[2] = { -1, -1 }, cp[2] = { -1, -1 };
	pid_t sk = -1, so = -1;
	struct source_report srep;
	struct sink_report krep;
	double deadline = gb_now() + (o->timeout > 0 ? o->timeout : 30);
	int err = 0;
	char c = 0;

	memset(r, 0, sizeof(*r));
	if (o->rtt_count < 1 || o->warm_frac < 0 || o->warm_frac > 0.9 || o->port < 1 ||
	    o->port > 65534)
		return -EINVAL;
	if (pipe2(rp, O_CLOEXEC) < 0 || pipe2(sp, O_CLOEXEC) < 0 || pipe2(cp, O_CLOEXEC) < 0) {
		err = -errno;
		goto cleanup;
	}
	if ((sk = gb_child_fork(dst_nsfd, "gridmon-sink", deadline + 1)) == 0)
		sink(dst_addr, o, rp[1], sp[1]);
	if (sk < 0) {
		err = sk;
		goto cleanup;
	}
	close(rp[1]);
	rp[1] = -1;
	if (read_until(rp[0], &c, 1, deadline) < 0 || c != 'R') {
		err = -EIO;
		goto cleanup;
	}
	if ((so = gb_child_fork(src_nsfd, "gridmon-src", deadline + 1)) == 0)
		source(dst_addr, o, cp[1]);
	if (so < 0) {
		err = so;
		goto cleanup;
	}
	close(cp[1]);
	cp[1] = -1;
	if ((err = read_until(cp[0], &srep, sizeof(srep), deadline)) < 0)
		goto cleanup;
	r->rtt_sent = srep.sent;
	r->rtt_received = srep.received;
	r->rtt_min = srep.rtt_min;
	r->rtt_p50 = srep.rtt_p50;
	r->o_send = srep.o_send;
	r->bytes_sent = srep.bytes;
	if (!srep.received) {
		err = -EHOSTUNREACH;
		goto cleanup;
	}
	if (o->tcp_bytes > 0) {
		if ((err = read_until(sp[0], &krep, sizeof(krep), deadline)) < 0)
			goto cleanup;
		if (krep.total != o->tcp_bytes || !(srep.bw > 0)) {
			err = -EIO;
			goto cleanup;
		}
		r->bw = srep.bw;
		r->bw_seconds = srep.bw_seconds;
	}
cleanup:
	gb_kill_reap(sk);
	gb_kill_reap(so);
	gb_close_pipe(rp);
	gb_close_pipe(sp);
	gb_close_pipe(cp);
	return err;
}
