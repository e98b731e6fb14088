// SPDX-License-Identifier: MIT
/*
 * flow.c - one constant-bit-rate load flow between two nodes of a live grid,
 * the paper's loading program (seed 000 §3: "continuously sends packets of
 * fixed sizes from the source to the destination").
 *
 *   caller ──fork──► gridload-rx (setns dst) bind dst:port ──"R"──► caller
 *          ──fork──► gridload-tx (setns src) paced sends to dst:port
 *   both ──report──► caller (pipe): packets, bytes, times, errno
 *
 * Pacing is in IP-layer bytes (payload + 28 bytes of UDP/IP headers per
 * datagram), the rate a link's TBF and a capture on the link count:
 *
 *   owed(t) = rate x (t - t0) - sent - forgiven       (the long-term schedule)
 *   send when owed >= one datagram and the peak bucket holds one
 *   peak bucket: refills at 1.25 x rate, holds 5 ms of it
 *   owed > 1 s of rate: forgive the excess
 *
 * On an idle box owed decides and datagrams leave evenly spaced.  A sender
 * that was descheduled (docs/platform.md measured timer overshoots up to 17 ms,
 * far more on a loaded 2-core box) owes the lost time and catches up at
 * 1.25 x the rate, so the interval's average stays on target without a
 * burst that would overflow the bottleneck's queue; after a stall of more
 * than a second it gives up on the lost part rather than flood the link.
 *
 * TCP: the same pacing applies to writes of `size` bytes; bytes are counted as
 * payload and converted to the IP layer with full-size segments (MTU - 52
 * bytes of payload per MTU: 20 IP + 20 TCP + 12 timestamp option).
 *
 * Bounds (independent of the caller): PR_SET_PDEATHSIG + a getppid() check,
 * a self-imposed end time, and ITIMER_REAL one second after it as a
 * backstop whose SIGALRM (default action) ends a process stuck anywhere
 * (gb_child_fork(), emulator/grid/probe_child.h, sets up all but the end time).
 */
#include "gbload.h"
#include "gbemu.h"
#include "probe_child.h"
#include "gbutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UDP_HDR 28
#define TCP_HDR 52
#define PEAK 1.25          /* catch-up rate, x the rate */
#define PEAK_S 0.005       /* the peak bucket's depth, seconds */
#define CATCHUP_S 1.0      /* most of the schedule a sender catches up on */

/* What a flow process writes to the report pipe (< PIPE_BUF: atomic). */
struct report {
	char role;              /* 't' or 'r' */
	int err;
	uint64_t pkts, bytes;   /* IP-layer bytes */
	double t0, t1;
};

static void sleep_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - floor(t)) * 1e9) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Milliseconds until @t for poll(), at least 0, at most 1 s. */
static int ms_until(double t)
{
	double left = t - gb_now();

	if (left <= 0)
		return 0;
	return left > 1.0 ? 1000 : (int)(left * 1000) + 1;
}

/*
 * A load flow is part of the emulated network, not of the application it
 * loads: on the paper's grid the loading program had hosts of its own.
 * Here it shares the CPUs with every rank, and a sender that waits for a
 * CPU falls behind its schedule (development runs of teragrid-paper on 2
 * cores sent 30-93 % of their rate with SCHED_OTHER: docs/measurements.md,
 * session 33).  So both ends run SCHED_FIFO when allowed, below the delay
 * line's workers (emulator/tapd/tapd_daemon.h: RT_PRIO 10) that carry their
 * datagrams, with a timer slack of 1 ns for the sender's paced sleeps.
 * They sleep between datagrams, so they cannot hold a CPU.
 */
#define LOAD_RT_PRIO 5

static void load_realtime(void)
{
	struct sched_param p = { .sched_priority = LOAD_RT_PRIO };

	sched_setscheduler(0, SCHED_FIFO, &p); /* refused: SCHED_OTHER, as before */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

/* ---- the receiver -------------------------------------------------------- */

static void __attribute__((noreturn))
receiver(struct gb_grid *g, const struct gb_load_flow_spec *sp, int ready, int out)
{
	static char buf[1 << 16];
	struct report r = { .role = 'r' };
	double stop = sp->end + sp->grace;
	uint32_t addr = g->topo->nodes[sp->dst].addr;
	int tcp = sp->proto == GB_LOAD_TCP, one = 1, big = 4 << 20, conn = -1;
	double mtu = (double)g->topo->mtu;

	load_realtime();
	int s = socket(AF_INET, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = gb_sockaddr(addr, sp->port);

	if (s >= 0) {
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	}
	if (s < 0 || bind(s, (void *)&sa, sizeof(sa)) < 0 || (tcp && listen(s, 1) < 0)) {
		int err = errno;

		gb_write_full(ready, "E", 1);
		gb_write_full(ready, &err, sizeof(err));
		_exit(1);
	}
	gb_write_full(ready, "R", 1);
	close(ready);
	r.t0 = gb_now();
	while (gb_now() < stop) {
		struct pollfd pf = { conn >= 0 ? conn : s, POLLIN, 0 };

		if (poll(&pf, 1, ms_until(stop)) <= 0)
			continue;
		if (tcp && conn < 0) {
			conn = accept4(s, NULL, NULL, SOCK_CLOEXEC);
			if (conn >= 0)
				setsockopt(conn, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
			continue;
		}
		for (;;) {
			ssize_t n = recv(pf.fd, buf, sizeof(buf), MSG_DONTWAIT);

			if (n > 0 && !tcp) {
				r.pkts++;
				r.bytes += (uint64_t)n + UDP_HDR;
			} else if (n > 0) {
				r.pkts++;
				r.bytes += (uint64_t)llround((double)n * mtu / (mtu - TCP_HDR));
			} else {
				if (n == 0 && tcp) { /* the sender closed at its end time */
					close(conn);
					conn = -1;
				}
				break;
			}
		}
	}
	r.t1 = gb_now();
	gb_write_full(out, &r, sizeof(r));
	_exit(0);
}

/* ---- the sender ---------------------------------------------------------- */

static int connect_until(int s, const struct sockaddr_in *sa, double until)
{
	if (connect(s, (const void *)sa, sizeof(*sa)) == 0)
		return 0;
	return errno == EINPROGRESS ? gb_tcp_connect_wait(s, until) : -errno;
}

static void __attribute__((noreturn))
sender(struct gb_grid *g, const struct gb_load_flow_spec *sp, int out)
{
	static char buf[1 << 20];
	struct report r = { .role = 't' };
	int tcp = sp->proto == GB_LOAD_TCP;
	double mtu = (double)g->topo->mtu;
	/* IP bytes one send puts on the wire */
	double unit = tcp ? (double)sp->size * mtu / (mtu - TCP_HDR) : (double)sp->size + UDP_HDR;
	double rate = sp->rate_bps / 8.0; /* IP bytes per second */
	double pcap = fmax(unit, PEAK * rate * PEAK_S), pcredit = unit, last;
	double t0, sent = 0, forgiven = -unit; /* the first datagram leaves at once */
	struct sockaddr_in sa = gb_sockaddr(g->topo->nodes[sp->dst].addr, sp->port);

	load_realtime();
	int s = socket(AF_INET, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC |
		       (tcp ? SOCK_NONBLOCK : 0), 0);

	/*
	 * A sender on a link's own end (a switch or a router) writes straight
	 * into the loaded link's queue.  With the default send buffer (208 KiB,
	 * ~90 datagrams in flight) and a longer queue (510 packets on teragrid's
	 * 100 Mbit/s uplinks), the socket, not the queue, held the flow back
	 * once a TCP flow filled the FIFO: the 70 Mbit/s load sent 67.7 and an
	 * iperf3 flow got 36 of the 30 Mbit/s left.  A buffer larger than any
	 * queue lets the queue drop the load's datagrams as it drops forwarded
	 * ones.  SO_SNDBUFFORCE (we are root) passes net.core.wmem_max.
	 */
	if (s >= 0 && !tcp) {
		int big = 64 << 20;

		if (setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) < 0)
			setsockopt(s, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	}
	r.t0 = t0 = last = gb_now();
	if (s < 0)
		r.err = errno;
	else if (tcp)
		r.err = -connect_until(s, &sa, sp->end);
	else if (connect(s, (void *)&sa, sizeof(sa)) < 0)
		r.err = errno;
	if (r.err)
		goto out;
	memset(buf, 0x5a, (size_t)sp->size);
	for (;;) {
		double t = gb_now();

		if (t >= sp->end)
			break;
		double owed = rate * (t - t0) - sent - forgiven;

		if (owed > rate * CATCHUP_S) {
			forgiven += owed - rate * CATCHUP_S;
			owed = rate * CATCHUP_S;
		}
		pcredit = fmin(pcap, pcredit + (t - last) * PEAK * rate);
		last = t;
		if (owed < unit || pcredit < unit) {
			double w1 = (unit - owed) / rate, w2 = (unit - pcredit) / (PEAK * rate);

			sleep_until(fmin(sp->end, t + fmax(w1, w2)));
			continue;
		}
		memcpy(buf, &r.pkts, sizeof(r.pkts)); /* a sequence number, for a capture */
		ssize_t n = send(s, buf, (size_t)sp->size, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			double b = tcp ? (double)n * mtu / (mtu - TCP_HDR) : (double)n + UDP_HDR;

			r.pkts++;
			r.bytes += (uint64_t)llround(b);
			sent += b;
			pcredit -= b;
			continue;
		}
		if (errno == EAGAIN || errno == ENOBUFS || errno == EINTR) {
			struct pollfd pf = { s, POLLOUT, 0 };

			poll(&pf, 1, ms_until(fmin(sp->end, t + 0.01)));
		} else if (errno == ECONNREFUSED && !tcp) {
			/* an ICMP error for an earlier datagram: skip this one */
			forgiven += unit;
		} else {
			r.err = errno;
			break;
		}
	}
out:
	r.t1 = gb_now();
	if (s >= 0)
		close(s); /* TCP: the receiver sees EOF */
	gb_write_full(out, &r, sizeof(r));
	_exit(0);
}

/* ---- the caller's side --------------------------------------------------- */

int gb_load_flow_start(struct gb_grid *g, const struct gb_load_flow_spec *spec,
		       struct gb_load_flow *f, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	int rp[2] = { -1, -1 }, op[2] = { -1, -1 }, err = 0;
	char c = 0;

	memset(f, 0, sizeof(*f));
	f->tx = f->rx = -1;
	f->fd = -1;
	f->spec = *spec;
	if (!f->spec.port)
		f->spec.port = GB_LOAD_PORT;
	if (!f->spec.size)
		f->spec.size = (int)t->mtu - UDP_HDR;
	/*
	 * Only emulated nodes, and only their data-plane addresses: load must
	 * never leave the grid's namespaces.  Switches, routers and hubs are
	 * allowed: a load on a link runs between the link's own ends.
	 */
	if (spec->dst < 0 || spec->dst >= t->nnodes) {
		gb_err_set(e, "destination node %d is not a node of grid '%s'", spec->dst, t->name);
		return -EDESTADDRREQ;
	}
	if (spec->src < 0 || spec->src >= t->nnodes || spec->src == spec->dst) {
		if (spec->src == spec->dst)
			gb_err_set(e, "source '%s' is the destination", t->nodes[spec->src].name);
		else
			gb_err_set(e, "source node %d is not a node of grid '%s'", spec->src,
				   t->name);
		return -EDESTADDRREQ;
	}
	if (!(spec->rate_bps > 0) || f->spec.size < 16 || f->spec.size > (1 << 20) ||
	    (spec->proto == GB_LOAD_UDP && f->spec.size > (int)t->mtu - UDP_HDR)) {
		gb_err_set(e, "flow %s>%s: rate %.0f bit/s or size %d is not valid",
			   t->nodes[spec->src].name, t->nodes[spec->dst].name, spec->rate_bps,
			   f->spec.size);
		return -EINVAL;
	}
	if (!g->nsfd || g->nsfd[spec->src] < 0 || g->nsfd[spec->dst] < 0) {
		gb_err_set(e, "grid '%s' is not attached", g->prefix);
		return -ENOENT;
	}
	if (pipe2(rp, O_CLOEXEC) < 0 || pipe2(op, O_CLOEXEC) < 0) {
		err = -errno;
		gb_err_set(e, "pipe: %s", strerror(errno));
		goto cleanup;
	}
	f->rx = gb_child_fork(g->nsfd[spec->dst], "gridload-rx", f->spec.end + f->spec.grace + 1.0);
	if (f->rx == 0) {
		close(rp[0]);
		close(op[0]);
		receiver(g, &f->spec, rp[1], op[1]);
	}
	if (f->rx < 0) {
		err = f->rx;
		f->rx = -1;
		gb_err_set(e, "fork: %s", strerror(-err));
		goto cleanup;
	}
	close(rp[1]);
	rp[1] = -1;
	struct pollfd pf = { rp[0], POLLIN, 0 };
	if (poll(&pf, 1, 5000) <= 0 || read(rp[0], &c, 1) != 1 || c != 'R') {
		int cerr = 0;

		if (c == 'E' && read(rp[0], &cerr, sizeof(cerr)) != sizeof(cerr))
			cerr = EIO;
		err = cerr ? -cerr : -EIO;
		gb_err_set(e, "cannot receive on '%s' port %d: %s", t->nodes[spec->dst].name,
			   f->spec.port, cerr ? strerror(cerr) : "the receiver did not start");
		goto cleanup;
	}
	f->tx = gb_child_fork(g->nsfd[spec->src], "gridload-tx", f->spec.end + 1.0);
	if (f->tx == 0) {
		close(op[0]);
		sender(g, &f->spec, op[1]);
	}
	if (f->tx < 0) {
		err = f->tx;
		f->tx = -1;
		gb_err_set(e, "fork: %s", strerror(-err));
		goto cleanup;
	}
	f->fd = op[0];
	op[0] = -1;
	fcntl(f->fd, F_SETFL, O_NONBLOCK);
cleanup:
	for (int i = 0; i < 2; i++) {
		if (rp[i] >= 0)
			close(rp[i]);
		if (op[i] >= 0)
			close(op[i]);
	}
	if (err < 0)
		gb_load_flow_stop(f);
	return err;
}

static void read_reports(struct gb_load_flow *f)
{
	struct report r;

	while (f->fd >= 0 && read(f->fd, &r, sizeof(r)) == (ssize_t)sizeof(r)) {
		if (r.role == 't') {
			f->res.tx_pkts = r.pkts;
			f->res.tx_bytes = r.bytes;
			f->res.tx_t0 = r.t0;
			f->res.tx_t1 = r.t1;
			f->res.tx_err = r.err;
			f->res.tx_done = 1;
		} else if (r.role == 'r') {
			f->res.rx_pkts = r.pkts;
			f->res.rx_bytes = r.bytes;
			f->res.rx_err = r.err;
			f->res.rx_done = 1;
		}
	}
}

static void reap(pid_t *pid, int block)
{
	if (*pid > 0 && waitpid(*pid, NULL, block ? 0 : WNOHANG) == *pid)
		*pid = -1;
}

int gb_load_flow_poll(struct gb_load_flow *f)
{
	read_reports(f);
	reap(&f->tx, 0);
	reap(&f->rx, 0);
	if (f->tx > 0 || f->rx > 0)
		return 0;
	read_reports(f);
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	return 1;
}

void gb_load_flow_stop(struct gb_load_flow *f)
{
	if (f->tx > 0)
		kill(f->tx, SIGKILL);
	if (f->rx > 0)
		kill(f->rx, SIGKILL);
	reap(&f->tx, 1);
	reap(&f->rx, 1);
	read_reports(f);
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}
