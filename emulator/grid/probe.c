/* SPDX-License-Identifier: MIT */
/*
 * probe.c - UDP echo RTT and TCP goodput between two grid nodes.
 *
 *   parent ---fork--> server child (setns dst): UDP echo + TCP sink
 *          ---fork--> client child (setns src): probes, writes results to a pipe
 *   (both through gb_child_fork(), probe_child.h: they die with the parent)
 *
 * Time is CLOCK_MONOTONIC throughout (docs/architecture.md, decision 4).
 */
#include "probe.h"
#include "dilate.h"
#include "netns.h"
#include "probe_child.h"
#include "gbutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


/*
 * The namespace of @node, for a child to enter: the attached grid's fd, or
 * one opened here (*owned, for the caller to close).
 */
static int node_fd(struct gb_grid *g, int node, int *owned)
{
	char name[128];

	*owned = -1;
	if (g->nsfd && g->nsfd[node] >= 0)
		return g->nsfd[node];
	*owned = gb_netns_open(gb_grid_nsname(g, g->topo->nodes[node].name, name, sizeof(name)));
	return *owned;
}

/* The server: echo UDP, sink TCP connections until killed. */
static void __attribute__((noreturn)) server(struct gb_grid *g, int dst, int port, int ready)
{
	static char buf[1 << 16];
	uint32_t addr = g->topo->nodes[dst].addr;
	int u, l;

	gb_probe_server_open(addr, port, 4, 0, ready, &u, &l);
	struct pollfd pf[3] = { { u, POLLIN, 0 }, { l, POLLIN, 0 }, { -1, POLLIN, 0 } };
	for (;;) {
		if (poll(pf, 3, -1) < 0 && errno != EINTR)
			_exit(1);
		if (pf[0].revents & POLLIN)
			gb_udp_echo(u, buf, sizeof(buf));
		if ((pf[1].revents & POLLIN) && pf[2].fd < 0)
			pf[2].fd = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		if (pf[2].fd >= 0 && (pf[2].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t n = read(pf[2].fd, buf, sizeof(buf));
			if (n <= 0) {
				close(pf[2].fd); /* EOF: the client times the close */
				pf[2].fd = -1;
			}
		}
	}
}

static void __attribute__((noreturn)) client(struct gb_grid *g, int src, int dst,
					     const struct gb_probe_opts *o, int port, int out)
{
	struct gb_probe_result r;
	static char buf[1 << 16];
	uint32_t daddr = g->topo->nodes[dst].addr;

	memset(&r, 0, sizeof(r));
	if (o->count > 0) {
		double *rtt = calloc((size_t)o->count, sizeof(double));
		int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in sd = gb_sockaddr(daddr, port);
		if (!rtt || u < 0 || connect(u, (void *)&sd, sizeof(sd)) < 0)
			_exit(1);
		for (int i = 0; i < o->count; i++) {
			uint64_t seq = (uint64_t)i;
			memset(buf, 0, 64);
			memcpy(buf, &seq, sizeof(seq));
			double t0 = gb_now();
			if (send(u, buf, 64, 0) != 64)
				continue;
			r.sent++;
			/* Wait for this probe's echo; a late echo of an earlier
			 * probe is discarded by its sequence number. */
			for (;;) {
				double left = t0 + 2.0 - gb_now();
				struct pollfd pf = { u, POLLIN, 0 };
				if (left <= 0 || poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
					break;
				uint64_t got;
				if (recv(u, buf, sizeof(buf), 0) < (ssize_t)sizeof(got))
					continue;
				memcpy(&got, buf, sizeof(got));
				if (got == seq) {
					rtt[r.received++] = gb_now() - t0;
					break;
				}
			}
			struct timespec ts = { (time_t)o->interval,
					       (long)((o->interval - (double)(time_t)o->interval) * 1e9) };
			nanosleep(&ts, NULL);
		}
		if (r.received) {
			gb_sort_doubles(rtt, (size_t)r.received);
			r.rtt_min = rtt[0];
			r.rtt_max = rtt[r.received - 1];
			r.rtt_p50 = rtt[(r.received - 1) / 2];
			r.rtt_p99 = rtt[(int)((r.received - 1) * 0.99)];
		}
		free(rtt);
		close(u);
	}
	if (o->tcp_seconds > 0) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in sd = gb_sockaddr(daddr, port + 1);
		if (s < 0 || connect(s, (void *)&sd, sizeof(sd)) < 0)
			_exit(2);
		/*
		 * Goodput counts acknowledged bytes only (gb_tcp_bytes_acked()),
		 * and only after a warm-up of a quarter of the run, so that
		 * slow start on a long path does not pass for a slow link.
		 */
		double t0 = gb_now(), warm = t0 + o->tcp_seconds / 4, end = t0 + o->tcp_seconds;
		double tw = 0;
		uint64_t acked_w = 0, acked = 0;
		memset(buf, 0x5a, sizeof(buf));
		for (;;) {
			double t = gb_now();
			if (t >= end)
				break;
			if (!tw && t >= warm && gb_tcp_bytes_acked(s, &acked_w) == 0)
				tw = gb_now();
			ssize_t n = write(s, buf, 16384);
			if (n <= 0)
				break;
		}
		if (gb_tcp_bytes_acked(s, &acked) < 0)
			acked = acked_w;
		double te = gb_now();
		r.tcp_seconds = te - tw;
		r.tcp_bps = tw > 0 && te > tw ? (double)(acked - acked_w) * 8.0 / (te - tw) : 0;
		close(s);
	}
	gb_write_full(out, &r, sizeof(r));
	_exit(0);
}

int gb_probe(struct gb_grid *g, int src, int dst, const struct gb_probe_opts *o,
	     struct gb_probe_result *r, struct gb_err *e)
{
	int port = o->port ? o->port : 47000;
	int rp[2] = { -1, -1 }, op[2] = { -1, -1 }, err = 0, sown = -1, down = -1;
	int sfd = node_fd(g, src, &sown), dfd = node_fd(g, dst, &down);
	pid_t sp = -1, cp = -1;
	char c = 0;

	memset(r, 0, sizeof(*r));
	if (sfd < 0 || dfd < 0) {
		err = sfd < 0 ? sfd : dfd;
		gb_err_set(e, "probe: cannot open the namespace of '%s': %s",
			   g->topo->nodes[sfd < 0 ? src : dst].name, strerror(-err));
		goto cleanup;
	}
	if (pipe2(rp, O_CLOEXEC) < 0 || pipe2(op, O_CLOEXEC) < 0) {
		err = -errno;
		goto cleanup;
	}
	if ((sp = gb_child_fork(dfd, NULL, 0)) == 0)
		server(g, dst, port, rp[1]);
	close(rp[1]);
	rp[1] = -1;
	if (sp < 0 || read(rp[0], &c, 1) != 1 || c != 'R') {
		err = -EADDRNOTAVAIL;
		gb_err_set(e, "probe: cannot start the echo server on '%s' port %d",
			   g->topo->nodes[dst].name, port);
		goto cleanup;
	}
	if ((cp = gb_child_fork(sfd, NULL, 0)) == 0)
		client(g, src, dst, o, port, op[1]);
	close(op[1]);
	op[1] = -1;
	ssize_t n = 0, got = 0;
	while (got < (ssize_t)sizeof(*r) &&
	       (n = read(op[0], (char *)r + got, sizeof(*r) - (size_t)got)) > 0)
		got += n;
	if (got != (ssize_t)sizeof(*r)) {
		err = -EIO;
		gb_err_set(e, "probe: the measurement from '%s' to '%s' failed",
			   g->topo->nodes[src].name, g->topo->nodes[dst].name);
	} else {
		/* wire time -> the topology's (dilate.h) */
		double k = gb_dilation(g);

		r->rtt_min /= k;
		r->rtt_p50 /= k;
		r->rtt_p99 /= k;
		r->rtt_max /= k;
		r->tcp_bps *= k;
		r->tcp_seconds /= k;
	}
cleanup:
	gb_kill_reap(sp);
	gb_kill_reap(cp);
	gb_close_pipe(rp);
	gb_close_pipe(op);
	if (sown >= 0)
		close(sown);
	if (down >= 0)
		close(down);
	return err;
}
