// SPDX-License-Identifier: MIT
/*
 * hosttcp.c - the hosts' TCP stack: what `gridemu up` writes into every host
 * namespace, the kernel check before anything is created, and the live
 * read-back that status and every result record (gbemu.h, "The hosts' TCP
 * stack"; the keys and their defaults are in topologies/topo_tcp.c).
 *
 * Everything is per namespace: tcp_slow_start_after_idle, tcp_rmem,
 * tcp_wmem and tcp_limit_output_bytes are netns sysctls; the congestion
 * control and the initial window are metrics of the host's data routes
 * (RTAX_CC_ALGO, RTAX_INITCWND), so they hold for every connection of the
 * data plane.  Why a route metric and not the namespace's
 * tcp_congestion_control: a namespace other than the root may only default
 * to an algorithm of the root's tcp_allowed_congestion_control (the kernel
 * answers EPERM otherwise, whatever the capabilities), and on a machine
 * whose root runs bbr that list is "reno bbr": cubic could not be set
 * without changing the root namespace, which gridbed never does.  A route's
 * algorithm has no such restriction.  The namespace default is still set
 * where the kernel allows it, so that connections off the data plane agree;
 * where it refuses, it keeps the inherited one, and only the management
 * network (MPI launch, never experiment traffic) uses it.  The root
 * namespace is only read (its list of available algorithms), never written.
 *
 * Time dilation and TCP's own clocks: a grid at k puts every delay x k on
 * the wire, so round trips, and the retransmission timeout TCP computes
 * from them, stretch with it; but the kernel's floor under that timeout,
 * TCP_RTO_MIN (200 ms of the machine's clock), does not.  At k = 4 a
 * timeout that the floor sets (every one inside a cluster, whose round
 * trips are far below 200 ms) lasted 50 ms of the topology's time instead
 * of 200, so a lossy broadcast recovered k times sooner than on the
 * network it emulates, the more so the more timeouts its algorithm met
 * (session 50, docs/measurements.md).  So on a dilated grid the hosts'
 * data routes carry RTAX_RTO_MIN = 200 ms x k, locked (the kernel reads
 * only a locked one), and the floor is the kernel's 200 ms of topology
 * time again; the tail-loss probe's timer for a lone packet, which adds
 * the floor, follows.  The route metric, not the namespace's
 * tcp_rto_min_us, because that sysctl is 6.11's and Debian 12 runs 6.1.
 * The delayed ACK's 40 ms floor has no setting and stays undilated: 10 ms
 * of topology time at k = 4.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbcubic.h"
#include "gbemu.h"
#include "netns.h"
#include "nl.h"

#define SYS "/proc/sys/net/ipv4/"

/* A host node of a hand-built topology has no stack: it gets the defaults. */
static const struct gb_tcp *effective(const struct gb_tcp *t, struct gb_tcp *buf)
{
	if (t->congestion[0])
		return t;
	gb_tcp_defaults(buf);
	return buf;
}

/* 1 if @name (not empty) is a word of the space-separated @list. */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	if (!n)
		return 0;
	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

/* The kernel's list of congestion controls into @avail; 0 or -errno. */
static int cc_list(char *avail, size_t len)
{
	FILE *f = fopen(SYS "tcp_available_congestion_control", "re");
	int err = 0;

	if (!f || !fgets(avail, (int)len, f))
		err = f ? -EIO : -errno;
	if (f)
		fclose(f);
	if (err) {
		snprintf(avail, len, "?");
		return err;
	}
	avail[strcspn(avail, "\n")] = '\0';
	return 0;
}

int gb_tcp_cc_available(const char *name, char *avail, size_t len)
{
	int err = cc_list(avail, len);

	return err < 0 ? err : in_list(avail, name);
}

int gb_tcp_check_kernel(const struct gb_topo *t, struct gb_err *e)
{
	char avail[512];
	int r = cc_list(avail, sizeof(avail));

	if (r < 0) {
		gb_err_set(e, "cannot read %stcp_available_congestion_control: %s", SYS,
			   strerror(-r));
		return r;
	}
	for (int i = 0; i < t->nhosts; i++) {
		const struct gb_node *n = &t->nodes[i];
		struct gb_tcp buf;
		const struct gb_tcp *tcp = effective(&n->tcp, &buf);

		/* gbcubic is in the list once a grid has loaded it */
		if (in_list(avail, tcp->congestion) ||
		    (!strcmp(tcp->congestion, GB_GBCUBIC_NAME) && gb_gbcubic_built()))
			continue;
		/* the place of the `congestion:` that chose it, else the host's */
		gb_err_set(e, "%s:%d:%d: host '%s': congestion control '%s' is not in this "
			   "kernel (it has: %s)", t->path, tcp->cc_line ? tcp->cc_line : n->line,
			   tcp->cc_line ? tcp->cc_col : n->col, n->name, tcp->congestion, avail);
		return -EINVAL;  /* bad input, like any other error in the file */
	}
	return 0;
}

int gb_tcp_write_ns(int nsfd, const struct gb_tcp *t, char *what, size_t whatlen)
{
	struct gb_tcp buf;
	char rmem[64], wmem[64], out[32];
	const struct gb_tcp *tcp = effective(t, &buf);
	/*
	 * tcp_limit_output_bytes lifts TCP small queues: the qdisc on a host's
	 * own data interface is the first emulated link's queue, not a NIC
	 * ring, and TSQ (1 MiB per flow by default) would keep it from ever
	 * holding the bandwidth-delay product the queue rule sizes it for
	 * (measured on a 100 ms, 100 Mbit/s host link: 92 % of the rate with
	 * TSQ, docs/measurements.md).  It follows the buffers.
	 */
	snprintf(rmem, sizeof(rmem), "4096 131072 %" PRIu64, tcp->buf_max);
	snprintf(wmem, sizeof(wmem), "4096 16384 %" PRIu64, tcp->buf_max);
	snprintf(out, sizeof(out), "%" PRIu64, tcp->buf_max);
	struct gb_sysctl v[] = {
		{ SYS "tcp_slow_start_after_idle", tcp->slow_start_after_idle ? "1" : "0", 0 },
		{ SYS "tcp_rmem", rmem, 0 },
		{ SYS "tcp_wmem", wmem, 0 },
		{ SYS "tcp_limit_output_bytes", out, 0 },
		/* best effort, see the header comment: the routes carry the algorithm */
		{ SYS "tcp_congestion_control", tcp->congestion, 0 },
	};
	size_t n = sizeof(v) / sizeof(v[0]);
	int err = gb_netns_sysctl_writev(nsfd, v, n);

	for (size_t k = 0; k < n; k++) {
		if (!err && (v[k].err >= 0 || (k == n - 1 && v[k].err == -EPERM)))
			continue;
		snprintf(what, whatlen, "%s to '%s'", v[k].path, v[k].val);
		return err < 0 ? err : v[k].err;
	}
	return 0;
}

/* The kernel's minimum retransmission timeout, TCP_RTO_MIN (HZ / 5). */
#define KERNEL_RTO_MIN_MS 200

struct gb_nl_route_metrics *gb_tcp_route_metrics(const struct gb_tcp *t, double dilate,
						 const char *cubic_as,
						 struct gb_nl_route_metrics *m)
{
	struct gb_tcp buf;
	const struct gb_tcp *tcp = effective(t, &buf);
	int as = cubic_as && cubic_as[0] && !strcmp(tcp->congestion, "cubic");

	memset(m, 0, sizeof(*m));
	m->initcwnd = tcp->initcwnd;
	snprintf(m->congctl, sizeof(m->congctl), "%s", as ? cubic_as : tcp->congestion);
	/* 0: the kernel's own floor, undilated grids need no other */
	m->rto_min_ms = dilate > 1 ? (unsigned)lround(KERNEL_RTO_MIN_MS * dilate) : 0;
	return m;
}

int gb_grid_tcp_read(struct gb_grid *g, int host, struct gb_tcp *out)
{
	const struct gb_topo *t = g->topo;
	struct gb_nl_route_metrics m;
	char v[128];
	unsigned long long rmax, wmax, a, b;
	int err;

	memset(out, 0, sizeof(*out));
	if (host < 0 || host >= t->nhosts || !g->nsfd || g->nsfd[host] < 0 || !g->sk ||
	    !g->sk[host])
		return -EINVAL;
	if ((err = gb_netns_sysctl_read(g->nsfd[host], SYS "tcp_congestion_control", v,
					sizeof(v))) < 0)
		return err;
	snprintf(out->congestion, sizeof(out->congestion), "%s", v);
	if ((err = gb_netns_sysctl_read(g->nsfd[host], SYS "tcp_slow_start_after_idle", v,
					sizeof(v))) < 0)
		return err;
	out->slow_start_after_idle = atoi(v) != 0;
	if ((err = gb_netns_sysctl_read(g->nsfd[host], SYS "tcp_rmem", v, sizeof(v))) < 0)
		return err;
	if (sscanf(v, "%llu %llu %llu", &a, &b, &rmax) != 3)
		return -EIO;
	if ((err = gb_netns_sysctl_read(g->nsfd[host], SYS "tcp_wmem", v, sizeof(v))) < 0)
		return err;
	if (sscanf(v, "%llu %llu %llu", &a, &b, &wmax) != 3)
		return -EIO;
	/* one figure for both; a namespace someone changed by hand shows the smaller */
	out->buf_max = rmax < wmax ? rmax : wmax;
	/* the data plane's: the route's algorithm where it has one */
	err = gb_nl_route_metrics(g->sk[host], t->data.addr, t->data.len, &m);
	if (err < 0 && err != -ENOENT)
		return err;
	out->initcwnd = m.initcwnd;
	out->rto_min_ms = m.rto_min_ms;
	if (m.congctl[0])
		snprintf(out->congestion, sizeof(out->congestion), "%s", m.congctl);
	return 0;
}

int gb_grid_tcp_set(struct gb_grid *g, const struct gb_tcp_set *over, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	struct gb_nl_route_metrics m;
	char what[96];
	int err;

	if (!t || !g->nsfd || !g->sk)
		return -EINVAL;
	for (int i = 0; i < t->nhosts; i++) {
		struct gb_tcp tcp, buf;

		if (!gb_grid_local(g, i))
			continue;       /* the peer machine sets its own */
		tcp = *effective(&t->nodes[i].tcp, &buf);
		if (over)
			gb_tcp_apply(&tcp, over);
		if ((err = gb_tcp_write_ns(g->nsfd[i], &tcp, what, sizeof(what))) < 0) {
			gb_err_set(e, "host '%s': cannot set %s: %s", t->nodes[i].name, what,
				   strerror(-err));
			return err;
		}
		err = gb_nl_routes_set_metrics(g->sk[i], t->data.addr, t->data.len,
					       gb_tcp_route_metrics(&tcp, g->dilate, g->cubic_as, &m));
		if (err < 0) {
			gb_err_set(e, "host '%s': cannot set its routes' congestion control, "
				   "initial window and minimum RTO: %s", t->nodes[i].name,
				   strerror(-err));
			return err;
		}
	}
	return 0;
}

json_t *gb_tcp_json(const struct gb_tcp *t)
{
	return json_pack("{s:s, s:b, s:I, s:i, s:i}", "congestion", t->congestion,
			 "slow_start_after_idle", t->slow_start_after_idle,
			 "buffers", (json_int_t)t->buf_max, "initcwnd", (int)t->initcwnd,
			 "rto_min_ms", (int)t->rto_min_ms);
}

json_t *gb_grid_tcp_json(struct gb_grid *g)
{
	const struct gb_topo *t = g->topo;
	struct gb_tcp *s = t ? calloc((size_t)t->nhosts, sizeof(*s)) : NULL;
	json_t *arr = json_array();
	char text[160];

	if (!s || !arr)
		goto fail;
	/* a grid across machines: the hosts built here (partition.h) */
	for (int i = 0; i < t->nhosts; i++)
		if (gb_grid_local(g, i) && gb_grid_tcp_read(g, i, &s[i]) < 0)
			goto fail;
	for (int i = 0; i < t->nhosts; i++) {
		json_t *hosts, *o;
		int seen = !gb_grid_local(g, i);

		for (int j = 0; j < i && !seen; j++)
			seen = gb_grid_local(g, j) && gb_tcp_equal(&s[i], &s[j]);
		if (seen)
			continue;
		hosts = json_array();
		for (int j = i; j < t->nhosts; j++)
			if (gb_grid_local(g, j) && gb_tcp_equal(&s[i], &s[j]))
				json_array_append_new(hosts, json_string(t->nodes[j].name));
		/* arr owns o from here; each set_new owns its value even when it fails */
		o = gb_tcp_json(&s[i]);
		if (!o || json_array_append_new(arr, o) < 0 ||
		    json_object_set_new(o, "text", json_string(gb_tcp_format(&s[i], text,
										 sizeof(text)))) < 0) {
			json_decref(hosts);
			goto fail;
		}
		if (json_object_set_new(o, "hosts", hosts) < 0)
			goto fail;
	}
	free(s);
	return arr;
fail:
	free(s);
	json_decref(arr);
	return NULL;
}
