/* SPDX-License-Identifier: MIT */
/*
 * mon_probe.c - gridmon's pair measurement (gridmon.h): UDP echo RTTs, the
 * send() overhead, and a byte-bounded TCP transfer timed at the sink.
 *
 * Why the sink times the transfer: the bytes it has received are exactly the
 * bytes that crossed the path, with no send-queue bookkeeping, and its
 * timestamps start after slow start has had warm_frac of the transfer to
 * open the window.  Time is CLOCK_MONOTONIC (ARCHITECTURE.md decision 4).
 */
#include "gridmon.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROBE_LEN 64

/* What the sink reports after the TCP stream ended. */
struct sink_report {
	double t_warm, t_end;
	uint64_t warm_bytes, total;
	double slope;   /* least-squares bytes/s over the reads after warm-up */
};

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct sockaddr_in sin_of(uint32_t addr, int port)
{
	struct sockaddr_in s;
	memset(&s, 0, sizeof(s));
	s.sin_family = AF_INET;
	s.sin_addr.s_addr = htonl(addr);
	s.sin_port = htons((uint16_t)port);
	return s;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A child dies with its parent: no probe outlives a killed gridmon. */
static void child_setup(pid_t parent, int nsfd)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	if (setns(nsfd, CLONE_NEWNET) < 0)
		_exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void __attribute__((noreturn)) sink(pid_t parent, int nsfd, uint32_t addr,
					   const struct gb_mon_opts *o, int ready, int out)
{
	static char buf[1 << 16];
	struct sink_report rep = { 0, 0, 0, 0, 0 };
	double st_ = 0, sb = 0, stt = 0, stb = 0, ns = 0;
	uint64_t warm = (uint64_t)((double)o->tcp_bytes * o->warm_frac);
	int one = 1, c = -1;

	child_setup(parent, nsfd);
	int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in su = sin_of(addr, o->port), st = sin_of(addr, o->port + 1);
	if (l >= 0)
		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (u < 0 || l < 0 || bind(u, (void *)&su, sizeof(su)) < 0 ||
	    bind(l, (void *)&st, sizeof(st)) < 0 || listen(l, 1) < 0) {
		write_all(ready, "E", 1);
		_exit(1);
	}
	write_all(ready, "R", 1);
	close(ready);
	struct pollfd pf[3] = { { u, POLLIN, 0 }, { l, POLLIN, 0 }, { -1, POLLIN, 0 } };
	for (;;) {
		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (pf[0].revents & POLLIN) {
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			ssize_t n = recvfrom(u, buf, sizeof(buf), 0, (void *)&from, &fl);
			if (n > 0)
				sendto(u, buf, (size_t)n, 0, (void *)&from, fl);
		}
		if ((pf[1].revents & POLLIN) && c < 0)
			pf[2].fd = c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		if (c >= 0 && (pf[2].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t n = read(c, buf, sizeof(buf));
			if (n > 0) {
				rep.total += (uint64_t)n;
				double tn = mono();
				if (!rep.t_warm && rep.total >= warm && rep.total > 0) {
					rep.t_warm = tn;
					rep.warm_bytes = rep.total;
				}
				if (rep.t_warm) {
					double x = tn - rep.t_warm;
					double y = (double)(rep.total - rep.warm_bytes);
					st_ += x, sb += y, stt += x * x, stb += x * y, ns += 1;
				}
				continue;
			}
			rep.t_end = mono();
			if (ns >= 8 && ns * stt - st_ * st_ > 0)
				rep.slope = (ns * stb - st_ * sb) / (ns * stt - st_ * st_);
			write_all(out, &rep, sizeof(rep));
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
	uint64_t bytes;
};

static void __attribute__((noreturn)) source(pid_t parent, int nsfd, uint32_t daddr,
					     const struct gb_mon_opts *o, int out)
{
	static char buf[1 << 16];
	struct source_report r;
	int n = o->rtt_count;
	double *rtt = calloc((size_t)n, sizeof(double));
	double *os = calloc((size_t)n, sizeof(double));
	int nos = 0;

	memset(&r, 0, sizeof(r));
	child_setup(parent, nsfd);
	int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sd = sin_of(daddr, o->port);
	if (!rtt || !os || u < 0 || connect(u, (void *)&sd, sizeof(sd)) < 0)
		_exit(1);
	memset(buf, 0, PROBE_LEN);
	for (int i = 0; i < n; i++) {
		uint64_t seq = (uint64_t)i + 1;
		memcpy(buf, &seq, sizeof(seq));
		double t0 = mono();
		if (send(u, buf, PROBE_LEN, 0) != PROBE_LEN)
			continue;
		double t1 = mono();
		os[nos++] = t1 - t0;
		r.sent++;
		r.bytes += PROBE_LEN;
		for (;;) {
			double left = t0 + 1.0 - mono();
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
				rtt[r.received++] = mono() - t0;
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
	if (o->tcp_bytes > 0 && r.received) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in st = sin_of(daddr, o->port + 1);
		if (s < 0 || connect(s, (void *)&st, sizeof(st)) < 0)
			_exit(2);
		memset(buf, 0x5a, sizeof(buf));
		uint64_t left = o->tcp_bytes;
		while (left) {
			size_t len = left < sizeof(buf) ? (size_t)left : sizeof(buf);
			ssize_t k = write(s, buf, len);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				_exit(2);
			left -= (uint64_t)k;
			r.bytes += (uint64_t)k;
		}
		shutdown(s, SHUT_WR);
		while (read(s, buf, sizeof(buf)) > 0)
			; /* wait for the sink's close: everything has arrived */
		close(s);
	}
	r.ok = 1;
	write_all(out, &r, sizeof(r));
	_exit(0);
}

/* Read exactly @len bytes before @deadline (monotonic seconds). */
static int read_until(int fd, void *buf, size_t len, double deadline)
{
	size_t got = 0;
	while (got < len) {
		double left = deadline - mono();
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
	pid_t sk = -1, so = -1, self = getpid();
	struct source_report srep;
	struct sink_report krep;
	double deadline = mono() + (o->timeout > 0 ? o->timeout : 30);
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
	if ((sk = fork()) == 0)
		sink(self, dst_nsfd, dst_addr, o, rp[1], sp[1]);
	if (sk < 0) {
		err = -errno;
		goto cleanup;
	}
	close(rp[1]);
	rp[1] = -1;
	if (read_until(rp[0], &c, 1, deadline) < 0 || c != 'R') {
		err = -EIO;
		goto cleanup;
	}
	if ((so = fork()) == 0)
		source(self, src_nsfd, dst_addr, o, cp[1]);
	if (so < 0) {
		err = -errno;
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
		if (krep.total != o->tcp_bytes || krep.t_end <= krep.t_warm) {
			err = -EIO;
			goto cleanup;
		}
		r->bw_seconds = krep.t_end - krep.t_warm;
		r->bw = (double)(krep.total - krep.warm_bytes) / r->bw_seconds;
		/* A receiver that loses the CPU stamps late and reads in bursts,
		 * which can only inflate either estimate: take the smaller. */
		if (krep.slope > 0 && krep.slope < r->bw)
			r->bw = krep.slope;
	}
cleanup:
	if (sk > 0) {
		kill(sk, SIGKILL);
		waitpid(sk, NULL, 0);
	}
	if (so > 0) {
		kill(so, SIGKILL);
		waitpid(so, NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (rp[i] >= 0)
			close(rp[i]);
		if (sp[i] >= 0)
			close(sp[i]);
		if (cp[i] >= 0)
			close(cp[i]);
	}
	return err;
}
