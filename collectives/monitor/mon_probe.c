/* SPDX-License-Identifier: MIT */
/*
 * mon_probe.c - gridmon's pair measurement (gridmon.h): UDP echo RTTs
 * (pipelined), the send() overhead, and a byte-bounded TCP transfer timed
 * at the sender from the bytes the receiver has acknowledged: either
 * steady (until the rate stops growing, then a few round trips of
 * measurement: tcp_transfer_steady() below, gridmon's default) or fixed
 * (exactly N bytes, the scheme that follows).
 *
 * The transfer's connection is opened while the echoes run (its handshake
 * is two small segments), so that it costs no round trip of its own.
 *
 * Why the sender times the transfer from acknowledged bytes: a sample
 * (clock, acked) taken at the sender is consistent whatever the
 * receiving process does, because the receiver's kernel acknowledges data
 * as it arrives, not when the process reads it.  The earlier design timed
 * the bytes the sink had read; on a busy box the sink lost the CPU, then
 * read a backlog in one burst and stamped it as if it had just arrived,
 * which inflated the bandwidth (up to 2x in t/6101).  A starved sender
 * only takes fewer samples; each one is still exact.  "acked" is
 * gb_tcp_bytes_delivered() (emulator/grid/probe_child.h): cumulatively
 * acknowledged plus selectively acknowledged bytes, because after a loss
 * the cumulative count jumps by data delivered long before, which read
 * +8 % on teragrid's 30 Mbit/s, 60 ms paths (now within 1 % of iperf3).
 *
 *	source: write N bytes; after each write and every ~0.25 ms until
 *	        all N are acknowledged: sample (t, acked)
 *	        w   = the first sample with acked >= warm_frac * N  (slow start
 *	              is behind us); if that sample already has all N
 *	              acknowledged (the transfer outran the sampling: a
 *	              short transfer on a fast link, or a sender that lost
 *	              the CPU), w is the sample before it instead (the
 *	              transfer's start if there is none): a rate from two
 *	              samples, as rough as they are, rather than none (such
 *	              short transfers read 60-540 MB/s on t/6101's 1 Gbit/s
 *	              links: the default steady transfer is the measurement)
 *	        e   = the last sample with acked < N, if it is after w and
 *	              has more bytes acknowledged than w (ACKs come in bursts:
 *	              two samples can read the same count); else the first
 *	              with acked >= N
 *	        bw  = the least-squares slope of acked over t for the samples
 *	              w .. e (when 16 or more follow w), else
 *	              (acked_e - acked_w) / (t_e - t_w)
 *	        (fixed_estimate(), on the transfer's trace of samples; the
 *	        steady transfer's estimate too, when its cap comes first)
 *
 * The last sample before completion is preferred to the completion sample
 * because only the latter can be stamped late: a sender descheduled while
 * the last ACK arrives reads the final count later than it happened.
 * Time is CLOCK_MONOTONIC (docs/architecture.md, decision 4).
 *
 * Time dilation (docs/architecture.md, decision 9, emulator/grid/dilate.h): on a grid
 * dilated by k the wire's delays are k times longer and its rates k times
 * lower, so the probe's own gaps and waits that are about the network (the
 * echo gap, the wait for a lost echo, the transfer's minimum round trip and
 * measurement window) are k times longer on the wall clock (wire_s()), and
 * gb_mon_pair() converts what it measured to the topology's units in one
 * place, to_topology().  The sampling period SAMPLE_S is about the CPU, not
 * the network, and stays as it is.
 */
#include "gbcore.h"
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
#define ECHO_GAP 1e-3 /* s between two echo requests */
#define SAMPLE_S 250e-6 /* sampling period of the acknowledged bytes */


/* What the sink reports after the TCP stream ended. */
struct sink_report {
	uint64_t total; /* bytes read */
};

/* The grid's k (1 when none). */
static double dilation(const struct gb_mon_opts *o)
{
	return o->dilate >= 1 ? o->dilate : 1;
}

/* A network duration of @s seconds as the dilated wire takes it (x k). */
static double wire_s(const struct gb_mon_opts *o, double s)
{
	return s * dilation(o);
}

/*
 * docs/architecture.md, decision 9: what the pair measured on the wire, in the
 * topology's units: every time / k, the bandwidth x k.  o_send is a CPU
 * time; it is divided too, as the CPU looks k times faster.  Bytes and
 * the ratio halves are not dilated.
 */
static void to_topology(struct gb_mon_result *r, double k)
{
	if (k == 1)
		return;
	r->rtt_min /= k;
	r->rtt_p50 /= k;
	r->o_send /= k;
	r->bw *= k;
	r->bw_seconds /= k;
}

/*
 * A warm probe's receive buffer at the sink (emulator/grid/probe_warm.c says why): 8 x the
 * window it starts with, so that the window the sink can announce (half
 * the buffer, tcp_adv_win_scale 1) is 4 x the path's last bandwidth-delay
 * product; at least 4 MiB, at most 64 MiB.
 */
static int warm_rcvbuf(unsigned initcwnd)
{
	double b = 8.0 * initcwnd * GB_NM_MSS;

	return b < 4 << 20 ? 4 << 20 : b > 64 << 20 ? 64 << 20 : (int)b;
}

static void __attribute__((noreturn)) sink(uint32_t addr, const struct gb_mon_opts *o, int ready,
					   int out)
{
	static char buf[1 << 16];
	struct sink_report rep = { 0 };
	int u, l, c = -1;

	gb_probe_server_open(addr, o->port, 1, o->initcwnd ? warm_rcvbuf(o->initcwnd) : 0, ready, &u,
			     &l);
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
			gb_write_full(out, &rep, sizeof(rep));
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
	int steady;         /* the steady transfer reached its plateau */
	double halves;      /* its window's second-half rate / first-half */
	uint64_t bytes, tcp_bytes;
	unsigned cwnd_start; /* segments, when the transfer began */
};

/* One sample of the acknowledged bytes. */
struct ack_sample {
	double t;
	uint64_t acked;
};

/* A transfer's samples, oldest first, at increasing times. */
#define MAX_SAMPLES (1 << 17)

struct rate_trace {
	struct ack_sample *s;
	int n;
};

/* Append (@t, @acked), unless @tr is full or @t is not after its last sample. */
static void trace_add(struct rate_trace *tr, double t, uint64_t acked)
{
	if (tr->n < MAX_SAMPLES && (!tr->n || t > tr->s[tr->n - 1].t))
		tr->s[tr->n++] = (struct ack_sample){ t, acked };
}

/* Sample @s's bytes delivered since @base into @tr (*@got: them); 0 or -errno. */
static int trace_sample(struct rate_trace *tr, int s, uint64_t base, uint64_t *got)
{
	uint64_t d;
	int err = gb_tcp_bytes_delivered(s, &d);

	if (err < 0)
		return err;
	/* counted from the connection's first sample: the SYN may count */
	*got = d > base ? d - base : 0;
	trace_add(tr, gb_now(), *got);
	return 0;
}

/* Index of the last sample at or before @t (0 if none). */
static int trace_at(const struct rate_trace *tr, double t)
{
	int lo = 0, hi = tr->n - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (tr->s[mid].t <= t)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static double trace_rate(const struct rate_trace *tr, double a, double b)
{
	const struct ack_sample *x = &tr->s[trace_at(tr, a)], *y = &tr->s[trace_at(tr, b)];
	return y->t > x->t ? (double)(y->acked - x->acked) / (y->t - x->t) : 0;
}

/* Least-squares slope of the samples with t in [a, b]; 0 if fewer than 2. */
static double trace_slope(const struct rate_trace *tr, double a, double b)
{
	double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (int i = trace_at(tr, a); i < tr->n && tr->s[i].t <= b; i++) {
		double x = tr->s[i].t - a, y = (double)tr->s[i].acked;
		n++;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
	}
	double d = n * sxx - sx * sx;
	return n >= 2 && d > 0 ? (n * sxy - sx * sy) / d : 0;
}

/*
 * The fixed transfer's estimate (the header comment's w, e and bw) from the
 * trace of a transfer of @total bytes; the steady transfer's too, when its
 * cap comes before its plateau.  Sets r->bw and r->bw_seconds; leaves them
 * 0 when the trace shows no progress from w to e.
 */
static void fixed_estimate(const struct rate_trace *tr, uint64_t total, double warm_frac,
			   struct source_report *r)
{
	uint64_t warm = (uint64_t)((double)total * warm_frac);
	int w = 0, e;

	if (tr->n < 2)
		return;
	while (w < tr->n - 1 && tr->s[w].acked < warm)
		w++;
	if (w > 0 && tr->s[w].acked >= total)
		w--; /* it outran the sampling: the span since the sample before */
	for (e = w; e < tr->n - 1 && tr->s[e].acked < total; e++)
		; /* the first sample with all of it acknowledged */
	if (e - 1 > w && tr->s[e - 1].acked > tr->s[w].acked)
		e--; /* the last one before it: only the completion can be stamped late */
	const struct ack_sample *a = &tr->s[w], *b = &tr->s[e];
	if (!(b->t > a->t && b->acked > a->acked))
		return;
	r->bw_seconds = b->t - a->t;
	r->bw = (double)(b->acked - a->acked) / r->bw_seconds;
	/* with enough samples, the slope: ACKs come in bursts (delayed and
	 * stretched ACKs, a delay line that lost the CPU), and a line through
	 * all samples is not at the mercy of where the two end samples fell */
	double slope = e - w >= 16 ? trace_slope(tr, a->t, b->t) : 0;
	if (slope > 0)
		r->bw = slope;
}

/*
 * The steady transfer (o->steady): send until the delivery rate stops
 * growing, then measure it; o->tcp_bytes is only a cap.
 *
 *	W    = max(the echoes' median RTT, 2 ms x k) (one round trip, unloaded
 *	      by this transfer: its srtt grows with the queue it builds)
 *	ramp: ends when TCP leaves slow start (cwnd >= ssthresh: a loss or
 *	      HyStart ended it), or when r1 <= 1.2 r0, r1 the rate over the
 *	      last 2 W and r0 over the 2 W before (a window at or above the
 *	      path's bandwidth-delay product from the start: slow start would
 *	      quadruple the rate in 2 W; windows of one W are not enough, as
 *	      ACKs come in bursts a round trip apart)
 *	measure: the next max(K W, 30 ms x k), K = o->steady_rtts (default 4:
 *	      the first round trips after slow start are the loss recovery
 *	      and the trough after it, which a shorter window reads alone);
 *	      bw = least-squares slope of the
 *	      samples in it; halves = rate of its second half / its first
 *	stop writing and send the FIN at once; tcp_transfer() then waits
 *	      for the sink's close, one round trip after the FIN (waiting
 *	      for every byte's ACK before the FIN made it two: 0.8 s of a
 *	      teragrid-public round, docs/measurements.md, session 49)
 *
 * Writes keep at most cwnd + 64 KiB beyond what is delivered (refilled
 * every 0.25 ms, 64 KiB last 5 ms at 100 Mbit/s), so the connection is
 * limited by its window, not by the application, and at the stop little
 * is left to drain.  If the cap comes first, the
 * result is the fixed transfer's (fixed_estimate()) with steady 0.
 * Why: a fixed 256 KiB probe over a 60 ms round trip ends inside slow
 * start and measures slow start (issue 13, cause 4); a fixed size large
 * enough for the slowest path wastes time on every fast one.
 */
static int tcp_transfer_steady(int s, const struct gb_mon_opts *o, struct source_report *r,
			       uint64_t base, struct rate_trace *tr)
{
	static char buf[1 << 16];
	struct timespec nap = { 0, (long)(SAMPLE_S * 1e9) };
	uint64_t written = 0;
	/* one round trip: the echoes' (the path before this transfer queued
	 * anything), not srtt, which the transfer's own queue inflates */
	double t_ramp_end = -1, span = 0, w = r->rtt_p50 > wire_s(o, 2e-3) ? r->rtt_p50 :
									     wire_s(o, 2e-3);
	int err, writing = 1, fin = 0;

	memset(buf, 0x5a, sizeof(buf));
	for (;;) {
		struct gb_tcp_state st;
		if ((err = gb_tcp_state(s, &st)) < 0)
			return err;
		double t = gb_now();
		uint64_t got = st.delivered > base ? st.delivered - base : 0;
		trace_add(tr, t, got);
		if (writing && t_ramp_end < 0) {
			int ramped = !st.slow_start;
			if (!ramped && t - tr->s[0].t >= 4 * w) {
				double r1 = trace_rate(tr, t - 2 * w, t);
				double r0 = trace_rate(tr, t - 4 * w, t - 2 * w);
				ramped = r0 > 0 && r1 <= 1.2 * r0;
			}
			if (ramped) {
				t_ramp_end = t;
				span = o->steady_rtts * w > wire_s(o, 0.03) ? o->steady_rtts * w :
									      wire_s(o, 0.03);
			}
		}
		if (writing && t_ramp_end >= 0 && t - t_ramp_end >= span) {
			writing = 0; /* measured: drain what is in flight */
			double mid = t_ramp_end + span / 2;
			double a = trace_rate(tr, t_ramp_end, mid), b = trace_rate(tr, mid, t);
			r->bw = trace_slope(tr, t_ramp_end, t);
			r->bw_seconds = t - t_ramp_end;
			r->halves = a > 0 ? b / a : 0;
			r->steady = r->bw > 0;
		}
		if (writing && written >= o->tcp_bytes)
			writing = 0; /* the cap: the fixed transfer's estimate below */
		if (!writing && !fin) {
			/* the FIN goes right behind the last data: the sink's
			 * close then comes back one round trip after it, not
			 * two (tcp_transfer()'s drain waits for that close) */
			shutdown(s, SHUT_WR);
			fin = 1;
		}
		if (!writing && (r->steady || got >= written))
			break; /* the cap's estimate needs the trace to its end */
		uint64_t limit = st.cwnd_bytes + 65536;
		if (writing && written - got < limit) {
			uint64_t len = limit - (written - got);
			if (len > sizeof(buf))
				len = sizeof(buf);
			if (len > o->tcp_bytes - written)
				len = o->tcp_bytes - written;
			ssize_t n = send(s, buf, (size_t)len, MSG_DONTWAIT);
			if (n < 0 && errno != EINTR && errno != EAGAIN)
				return -errno;
			if (n > 0) {
				written += (uint64_t)n;
				r->bytes += (uint64_t)n;
				r->tcp_bytes += (uint64_t)n;
				continue;
			}
		}
		nanosleep(&nap, NULL);
	}
	if (!r->steady)
		fixed_estimate(tr, written, o->warm_frac, r);
	return 0;
}

/*
 * The transfer's connection, opened while the echoes run: its handshake
 * (two small segments) costs the pair no round trip of its own, and the
 * echoes' round trips are still those of a path this transfer has not
 * loaded yet.  tcp_connect_start() returns the socket with its connect
 * under way (or -errno); tcp_connect_wait() waits for it until @deadline
 * (gb_tcp_connect_wait(), probe_child.h) and makes the socket blocking
 * again (0 or -errno).
 */
static int tcp_connect_start(uint32_t daddr, const struct gb_mon_opts *o, struct gb_probe_warm *w)
{
	struct sockaddr_in st = gb_sockaddr(daddr, o->port + 1);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), err;

	if (s < 0)
		return -errno;
	if (o->initcwnd && (err = gb_probe_warm_begin(w, s, daddr, o->port + 1, o->initcwnd)) < 0) {
		close(s);
		return err;
	}
	if (connect(s, (void *)&st, sizeof(st)) < 0 && errno != EINPROGRESS) {
		err = -errno;
		gb_probe_warm_end(w);
		close(s);
		return err;
	}
	return s;
}

/* gb_tcp_connect_wait(), then blocking again for the transfer. */
static int tcp_connect_wait(int s, double deadline)
{
	int err = gb_tcp_connect_wait(s, deadline), fl;

	if (err < 0)
		return err;
	if ((fl = fcntl(s, F_GETFL)) < 0 || fcntl(s, F_SETFL, fl & ~O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* Send exactly o->tcp_bytes on the connected socket @s and time it (or
 * o->steady: see tcp_transfer_steady()); closes @s; 0 or -errno. */
static int tcp_transfer(int s, const struct gb_mon_opts *o, struct source_report *r)
{
	static char buf[1 << 16];
	struct timespec nap = { 0, (long)(SAMPLE_S * 1e9) };
	struct rate_trace tr = { calloc(MAX_SAMPLES, sizeof(struct ack_sample)), 0 };
	int err = 0;
	uint64_t base, got = 0, left = o->tcp_bytes;

	if (!tr.s) {
		err = -ENOMEM;
		goto out;
	}
	struct gb_tcp_state st0;
	if ((err = gb_tcp_state(s, &st0)) < 0)
		goto out;
	base = st0.delivered;
	r->cwnd_start = st0.cwnd;
	trace_add(&tr, gb_now(), 0); /* the transfer's start */
	if (o->steady) {
		if ((err = tcp_transfer_steady(s, o, r, base, &tr)) < 0)
			goto out;
		goto drain;
	}
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
		r->tcp_bytes += (uint64_t)n;
		if ((err = trace_sample(&tr, s, base, &got)) < 0)
			goto out;
	}
	while (got < o->tcp_bytes) {
		nanosleep(&nap, NULL);
		if ((err = trace_sample(&tr, s, base, &got)) < 0)
			goto out;
	}
	fixed_estimate(&tr, o->tcp_bytes, o->warm_frac, r);
drain:
	shutdown(s, SHUT_WR);
	while (read(s, buf, sizeof(buf)) > 0)
		; /* wait for the sink's close: everything has been read */
out:
	free(tr.s);
	if (s >= 0)
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
	double gap = wire_s(o, ECHO_GAP), lost = wire_s(o, 1.0);

	memset(&r, 0, sizeof(r));
	int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sd = gb_sockaddr(daddr, o->port);
	if (!rtt || !os || u < 0 || connect(u, (void *)&sd, sizeof(sd)) < 0)
		_exit(1);
	struct gb_probe_warm warm = { 0 };
	int tcp = o->tcp_bytes > 0 ? tcp_connect_start(daddr, o, &warm) : -1;
	if (o->tcp_bytes > 0 && tcp < 0)
		_exit(2);
	/* The echoes are pipelined, ECHO_GAP apart: the round costs one round
	 * trip, not rtt_count of them.  64-byte datagrams a millisecond apart
	 * do not queue behind each other on any link of 1 Mbit/s or more. */
	double *t_sent = calloc((size_t)n, sizeof(double));
	char *back = calloc((size_t)n, 1);
	if (!t_sent || !back)
		_exit(1);
	memset(buf, 0, PROBE_LEN);
	double t_last = gb_now();
	for (int i = 0; i < n || r.received < r.sent; ) {
		double now = gb_now();
		if (i < n && now >= t_last + (i ? gap : 0)) {
			uint64_t seq = (uint64_t)i;
			memcpy(buf, &seq, sizeof(seq));
			double t0 = gb_now();
			if (send(u, buf, PROBE_LEN, 0) == PROBE_LEN) {
				double t1 = gb_now();
				os[nos++] = t1 - t0;
				t_sent[i] = t0;
				r.sent++;
				r.bytes += PROBE_LEN;
			}
			t_last = t0;
			i++;
			continue;
		}
		double until = i < n ? t_last + gap : t_last + lost; /* a lost echo: 1 s x k */
		if (now >= until && i >= n)
			break;
		struct pollfd pf = { u, POLLIN, 0 };
		int ms = (int)((until - now) * 1000) + 1;
		if (poll(&pf, 1, ms) <= 0)
			continue;
		uint64_t got;
		ssize_t k = recv(u, buf, sizeof(buf), 0);
		double tr = gb_now();
		if (k < (ssize_t)sizeof(got))
			continue;
		memcpy(&got, buf, sizeof(got));
		if (got < (uint64_t)n && t_sent[got] > 0 && !back[got]) {
			back[got] = 1;
			r.bytes += (uint64_t)k; /* the echo crossed the path too */
			rtt[r.received++] = tr - t_sent[got];
		}
	}
	free(t_sent);
	free(back);
	close(u);
	if (r.received) {
		gb_sort_doubles(rtt, (size_t)r.received);
		r.rtt_min = rtt[0];
		r.rtt_p50 = rtt[(r.received - 1) / 2];
	}
	if (nos) {
		gb_sort_doubles(os, (size_t)nos);
		r.o_send = os[(nos - 1) / 2];
	}
	double connected_by = gb_now() + (o->timeout > 0 ? o->timeout : 30);
	if (o->tcp_bytes > 0 && r.received) {
		int err = tcp_connect_wait(tcp, connected_by);
		/* the window was taken when the handshake ended */
		gb_probe_warm_end(&warm);
		if (err < 0 || tcp_transfer(tcp, o, &r) < 0)
			_exit(2);
	}
	gb_probe_warm_end(&warm);
	r.ok = 1;
	gb_write_full(out, &r, sizeof(r));
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
	    o->port > 65534 || (o->steady && !(o->steady_rtts >= 1)))
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
		if (krep.total != srep.tcp_bytes || !(srep.bw > 0)) {
			err = -EIO;
			goto cleanup;
		}
		r->bw = srep.bw;
		r->bw_seconds = srep.bw_seconds;
		r->steady = srep.steady;
		r->halves = srep.halves;
		r->tcp_bytes = srep.tcp_bytes;
		r->cwnd_start = srep.cwnd_start;
	}
cleanup:
	to_topology(r, dilation(o));
	gb_kill_reap(sk);
	gb_kill_reap(so);
	gb_close_pipe(rp);
	gb_close_pipe(sp);
	gb_close_pipe(cp);
	return err;
}
