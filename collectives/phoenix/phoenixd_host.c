// SPDX-License-Identifier: MIT
/*
 * phoenixd_host.c - one phoenixd host process: seed 001's protocol
 * (phoenix.h) on one emulated host, over UDP in its namespace, driven by the
 * launcher through two pipes (phoenixd.h).  Every time here is on the
 * virtual clock of phoenixd.h (phxd_now(): CLOCK_MONOTONIC / k on a grid
 * dilated by k, docs/architecture.md, decision 9).
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "gbio.h"

#define NS_PER_S 1000000000ULL
#include "phoenixd.h"

/* ------------------------------------------------------------------ */
/* One host process                                                    */
/* ------------------------------------------------------------------ */

struct host {
	const struct opts *o;
	struct phx_node nd;
	int self, n, sock, rep, cmd;
	const uint32_t *addr;
	int port;
	uint64_t coalesce;
	struct phx_msg *pend;    /* coalesced SERIALs, one per destination */
	uint64_t *pend_since;    /* 0: nothing pending */
	uint64_t dgrams, bytes;
};

static void host_sendto(struct host *h, struct phx_msg *m)
{
	uint8_t buf[PHX_MSG_MAX];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	uint64_t now = phxd_now(h->o);
	int len;

	/* [choice 1] stamp probes, and time how long answers were held, at
	 * the last moment: what remains of a round trip is the network's */
	if (m->type == PHX_PROBE)
		m->stamp = now;
	if (m->type == PHX_PROBE_ACK && m->rx && now > m->rx)
		m->hold = now - m->rx > UINT32_MAX ? UINT32_MAX : (uint32_t)(now - m->rx);
	len = phx_encode(m, buf, sizeof(buf));
	if (len < 0 || m->dst >= h->n)
		return;
	sa.sin_port = htons((uint16_t)h->port);
	sa.sin_addr.s_addr = htonl(h->addr[m->dst]);
	/* UDP: a full socket buffer drops, as a router would */
	if (sendto(h->sock, buf, (size_t)len, MSG_DONTWAIT, (struct sockaddr *)&sa,
		   sizeof(sa)) == len) {
		h->dgrams++;
		h->bytes += (uint64_t)len;
	}
}

static void host_flush(struct host *h, int dst)
{
	if (!h->pend_since[dst])
		return;
	host_sendto(h, &h->pend[dst]);
	h->pend[dst].nitems = 0;
	h->pend_since[dst] = 0;
}

/* Send the outbox; SERIALs wait up to h->coalesce for company. */
static void host_drain(struct host *h, uint64_t now)
{
	for (int i = 0; i < h->nd.nout; i++) {
		struct phx_msg *m = &h->nd.out[i];
		struct phx_msg *p;

		if (m->type != PHX_SERIAL || !h->coalesce) {
			host_sendto(h, m);
			continue;
		}
		p = &h->pend[m->dst];
		for (int k = 0; k < m->nitems; k++) {
			if (p->nitems == PHX_ITEMS_MAX)
				host_flush(h, m->dst);
			if (!h->pend_since[m->dst]) {
				*p = *m;
				p->nitems = 0;
				h->pend_since[m->dst] = now;
			}
			p->item[p->nitems++] = m->item[k];
		}
	}
	phx_node_out_clear(&h->nd);
}

static void host_report(struct host *h, int kind, int err)
{
	struct rep r;
	const struct phx_node *nd = &h->nd;

	memset(&r, 0, sizeof(r));
	r.kind = (uint8_t)kind;
	r.node = (uint16_t)h->self;
	r.err = err;
	r.now = phxd_now(h->o);
	if (kind == REP_STAT || kind == REP_PARENTS) {
		r.round = nd->round;
		r.msgs = nd->st.msgs;
		r.items = nd->st.items;
		r.dgrams = h->dgrams;
		r.bytes = h->bytes;
		r.changes = nd->st.changes;
		r.shortcuts = nd->st.shortcuts;
		r.rejected = nd->st.rejected;
		r.lost = nd->st.lost;
		r.last_change = nd->st.last_change;
		for (int i = 0; i < h->n; i++) {
			r.connected += phx_node_connected(nd, i) ? 1 : 0;
			r.measured += i != h->self && nd->est[i] != PHX_LAT_INF;
			r.pending += i != h->self && nd->pending[i] >= 0;
		}
	}
	if (kind != REP_PARENTS) {
		gb_write_full(h->rep, &r, sizeof(r));
		return;
	}
	{
		size_t len = sizeof(r) + sizeof(int16_t) * h->n;
		char *buf = malloc(len);

		if (!buf)
			return;
		r.nparent = (uint32_t)h->n;
		memcpy(buf, &r, sizeof(r));
		for (int i = 0; i < h->n; i++) {
			int16_t p = (int16_t)(i == h->self ? -1 : nd->parent[i]);

			memcpy(buf + sizeof(r) + sizeof(int16_t) * i, &p, sizeof(p));
		}
		gb_write_full(h->rep, buf, len);
		free(buf);
	}
}

/*
 * recv() with the kernel's arrival time, on CLOCK_MONOTONIC (SO_TIMESTAMPNS
 * stamps with CLOCK_REALTIME; the offset between the two clocks is read
 * right after, which is exact to within NTP slewing over microseconds).
 */
static ssize_t recv_stamped(int fd, void *buf, size_t len, uint64_t *rx)
{
	char cbuf[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct timespec real, mono;
	ssize_t r = recvmsg(fd, &mh, 0);
	uint64_t now;

	if (r < 0)
		return r;
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	now = (uint64_t)mono.tv_sec * NS_PER_S + (uint64_t)mono.tv_nsec;
	*rx = now;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;
			int64_t age;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			age = (int64_t)(real.tv_sec - ts.tv_sec) * (int64_t)NS_PER_S +
			      (real.tv_nsec - ts.tv_nsec);
			if (age > 0 && (uint64_t)age < now)
				*rx = now - (uint64_t)age;
		}
	}
	return r;
}

int phxd_host_main(int self, int n, const uint32_t *addr, const struct opts *o,
		   const struct phx_params *pp, int rep, int cmd)
{
	struct host h;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	uint64_t t0 = 0, round = (uint64_t)o->round_ms * 1000000ULL, next;
	int one = 1, rcvbuf = 4 << 20, ret;
	struct phx_msg *msg = malloc(sizeof(*msg));
	struct gb_rng rng;

	memset(&h, 0, sizeof(h));
	gb_rng_seed(&rng, pp->seed + (uint64_t)self);
	h.o = o;
	h.self = self;
	h.n = n;
	h.addr = addr;
	h.port = o->port;
	h.rep = rep;
	h.cmd = cmd;
	h.coalesce = (uint64_t)(o->coalesce_ms * 1e6);
	h.pend = calloc(n, sizeof(*h.pend));
	h.pend_since = calloc(n, sizeof(uint64_t));
	if (!msg || !h.pend || !h.pend_since) {
		host_report(&h, REP_ERROR, -ENOMEM);
		return 1;
	}
	if ((ret = phx_node_init(&h.nd, self, n, pp)) < 0) {
		host_report(&h, REP_ERROR, ret);
		return 1;
	}
	h.sock = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h.sock < 0) {
		host_report(&h, REP_ERROR, -errno);
		return 1;
	}
	setsockopt(h.sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* kernel receive timestamps: our own scheduling delay stays out of RTTs */
	setsockopt(h.sock, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	/* a round's burst of probes and serials must not overflow the default
	 * buffer; FORCE works as root whatever the namespace's rmem_max */
	if (setsockopt(h.sock, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		setsockopt(h.sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	sa.sin_port = htons((uint16_t)o->port);
	sa.sin_addr.s_addr = htonl(addr[self]);
	if (bind(h.sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		host_report(&h, REP_ERROR, -errno);
		return 1;
	}
	host_report(&h, REP_READY, 0);

	for (;;) {
		char c;

		if (gb_read_full(cmd, &c, 1) < 0)
			return 0;
		if (c == CMD_QUIT)
			return 0;
		if (c == CMD_GO) {
			if (gb_read_full(cmd, &t0, sizeof(t0)) < 0)
				return 0;
			break;
		}
	}
	next = t0;

	for (;;) {
		struct pollfd pf[2] = { { h.sock, POLLIN, 0 }, { cmd, POLLIN, 0 } };
		uint64_t now = phxd_now(o), deadline = next;
		int timeout;

		for (int d = 0; d < n; d++)
			if (h.pend_since[d] && h.pend_since[d] + h.coalesce < deadline)
				deadline = h.pend_since[d] + h.coalesce;
		timeout = deadline <= now ? 0 : phxd_wall_ms(o, deadline - now);
		if (poll(pf, 2, timeout) < 0 && errno != EINTR)
			return 1;
		now = phxd_now(o);
		if (pf[1].revents) {
			char c;

			if (gb_read_full(cmd, &c, 1) < 0 || c == CMD_QUIT)
				return 0;
			if (c == CMD_REPORT)
				host_report(&h, REP_PARENTS, 0);
		}
		/* at most a few hundred datagrams before looking at the clock */
		for (int k = 0; k < 256 && (pf[0].revents & POLLIN); k++) {
			uint8_t buf[PHX_MSG_MAX + 1];
			uint64_t rx;
			ssize_t len = recv_stamped(h.sock, buf, sizeof(buf), &rx);

			if (len < 0)
				break;
			rx = phxd_virtual_ns(o, rx); /* decision 9: the virtual clock */
			if (phx_decode(msg, buf, (size_t)len) < 0)
				continue;
			if (phx_node_recv(&h.nd, msg, rx) < 0)
				return 1;
			host_drain(&h, phxd_now(o));
		}
		now = phxd_now(o);
		if (now >= next) {
			if (phx_node_tick(&h.nd, now) < 0)
				return 1;
			host_drain(&h, now);
			host_report(&h, REP_STAT, 0);
			/* stay on the global grid of rounds (a late process skips
			 * one), started 0-5 % late at random: a fixed phase would
			 * lock some pairs into always probing while a serial is
			 * on its way (see phoenix_sim.c) */
			next = t0 + ((now - t0) / round + 1) * round +
			       (uint64_t)(0.05 * (double)round * gb_rng_uniform(&rng));
		}
		for (int d = 0; d < n; d++)
			if (h.pend_since[d] && h.pend_since[d] + h.coalesce <= now)
				host_flush(&h, d);
	}
}
