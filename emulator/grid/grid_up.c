/* SPDX-License-Identifier: MIT */
/*
 * grid_up.c - bring a grid up (gb_grid_up(), gbemu.h): namespaces, links,
 * addresses, routes, the hosts' TCP stacks, the management network, the
 * links' shaping; the state file first (grid.c's crash-safety rules).
 */
#include "gbemu.h"
#include "cgroup.h"
#include "netns.h"
#include "nl.h"
#include "shaping.h"
#include "gbutil.h"
#include "calibrate.h"
#include "dilate.h"
#include "gbcubic.h"
#include "grid_priv.h"
#include "partition.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <netlink/netlink.h>

/* ------------------------------------------------------------------ */
/* Building                                                            */
/* ------------------------------------------------------------------ */

/* The management veth's ifindex: "m0" in every host's namespace, and
 * MGMT_IFINDEX + 1 + h for host h's end "h<h>" in the management namespace
 * (chosen at creation, so that they need no look-up). */
#define MGMT_IFINDEX 1000

static int is_router(const struct gb_node *n)
{
	return n->kind != GB_NODE_HOST;
}

/* Raise the fd limit: a 1024-host grid keeps ~2 fds per node open. */
void gb_grid_raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int gb_grid_alloc_ns(struct gb_grid *g)
{
	int n = g->topo->nnodes;
	g->nsfd = malloc(sizeof(int) * (size_t)n);
	g->sk = calloc((size_t)n, sizeof(struct nl_sock *));
	g->ifidx = calloc((size_t)(2 * g->topo->nlinks + 1), sizeof(int));
	if (!g->nsfd || !g->sk || !g->ifidx)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		g->nsfd[i] = -1;
	return 0;
}

/*
 * IPv6 is switched off in every grid namespace before any device exists:
 * the papers' grids are IPv4, and router solicitations, MLD reports and DAD
 * probes would otherwise cross the shaped links and pollute the counters
 * that measure wide-area crossings.  A kernel without IPv6 has no such file.
 */
static int no_ipv6(int nsfd)
{
	struct gb_sysctl v[] = { { "/proc/sys/net/ipv6/conf/all/disable_ipv6", "1", 0 },
				 { "/proc/sys/net/ipv6/conf/default/disable_ipv6", "1", 0 } };
	int err = gb_netns_sysctl_writev(nsfd, v, 2);

	for (size_t i = 0; !err && i < 2; i++)
		if (v[i].err < 0 && v[i].err != -ENOENT)
			err = v[i].err;
	return err;
}

static int create_namespaces(struct gb_grid *g, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	char name[128];
	int err;

	if (gb_part_ncross(g)) {
		/* the cross links' VXLAN devices, away from every node's stack */
		gb_grid_nsname(g, GB_PART_EDGE, name, sizeof(name));
		g->edge_nsfd = gb_netns_create(name);
		err = g->edge_nsfd < 0 ? g->edge_nsfd : no_ipv6(g->edge_nsfd);
		if (err < 0) {
			gb_err_set(e, "cannot create network namespace '%s': %s", name,
				   strerror(-err));
			return err;
		}
	}
	for (int i = 0; i < t->nnodes; i++) {
		if (!gb_grid_local(g, i))
			continue;       /* on the peer machine */
		gb_grid_nsname(g, t->nodes[i].name, name, sizeof(name));
		if ((g->nsfd[i] = gb_netns_create(name)) < 0) {
			err = g->nsfd[i];
			gb_err_set(e, "cannot create network namespace '%s': %s", name,
				   strerror(-err));
			return err;
		}
		if ((err = gb_nl_open(g->nsfd[i], &g->sk[i])) < 0) {
			gb_err_set(e, "cannot open netlink in namespace '%s': %s", name,
				   strerror(-err));
			return err;
		}
		if ((err = no_ipv6(g->nsfd[i])) < 0) {
			gb_err_set(e, "cannot switch IPv6 off in namespace '%s': %s", name,
				   strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The ifindex of link @k's device in node @i (one of its ends), as
 * configure_nodes() found it. */
static int end_ifindex(const struct gb_grid *g, int i, int k)
{
	return g->ifidx[gb_topo_dir_out(g->topo, k, i)];
}

/* The routes of node @i, queued on @b.  The most common first hop becomes a
 * route for the whole data block, so a cluster switch or a host needs one
 * route; only the destinations that leave by another link get a /32.
 * Destinations outside the block stay unreachable: nothing can leak
 * towards the host. */
static int node_routes(struct gb_grid *g, int i, struct gb_nl_batch *b)
{
	const struct gb_topo *t = g->topo;
	int n = t->nnodes, ndl = 2 * t->nlinks, best = -1;
	int *cnt = calloc((size_t)ndl, sizeof(int));
	struct gb_nl_route_metrics m, *mp = NULL;

	/* a host's data routes carry its congestion control, initial window
	 * and, on a dilated grid, TCP's minimum RTO (hosttcp.c) */
	if (t->nodes[i].kind == GB_NODE_HOST)
		mp = gb_tcp_route_metrics(&t->nodes[i].tcp, g->dilate, g->cubic_as, &m);
	if (!cnt)
		return -ENOMEM;
	for (int j = 0; j < n; j++) {
		int dl = t->next[i * n + j];
		if (j != i && dl >= 0)
			cnt[dl]++;
	}
	for (int dl = 0; dl < ndl; dl++)
		if (cnt[dl] && (best < 0 || cnt[dl] > cnt[best]))
			best = dl;
	for (int j = -1; j < n; j++) {
		int dl = j < 0 ? best : t->next[i * n + j];
		if (dl < 0 || (j >= 0 && (j == i || dl == best)))
			continue;
		int ifi = end_ifindex(g, i, dl / 2);
		uint32_t gw = t->nodes[gb_topo_dir_to(t, dl)].addr;

		if (j < 0)
			gb_nl_batch_route_add(b, t->data.addr, t->data.len, ifi, gw, mp);
		else
			gb_nl_batch_route_add(b, t->nodes[j].addr, 32, ifi, gw, mp);
	}
	free(cnt);
	return 0;
}

/*
 * On a dilated grid, what the hosts' cubic runs as: gbcubic, CUBIC on the
 * topology's clock (gbcubic.h), unless --kernel-cubic asks for the
 * kernel's or gbcubic cannot load; then the kernel's cubic, and
 * g->cubic_why says why (up prints it).  Every dilated grid gets it, not
 * only one whose topology runs cubic: a campaign's condition may set cubic
 * later (gb_grid_tcp_set()).  A topology that names gbcubic itself gets
 * it at any k, or the grid does not come up.
 */
static int choose_cubic(struct gb_grid *g, const struct gb_up_opts *o, struct gb_err *e)
{
	struct gb_err why = { "" };
	int named = gb_tcp_hosts_run(g->topo, GB_GBCUBIC_NAME), err;

	g->cubic_as[0] = g->cubic_why[0] = '\0';
	if (g->dilate > 1.0 && o && o->kernel_cubic)
		snprintf(g->cubic_why, sizeof(g->cubic_why), "--kernel-cubic");
	if (!named && (g->dilate <= 1.0 || g->cubic_why[0]))
		return 0;       /* nothing here needs gbcubic */
	err = gb_gbcubic_attach(g->nsfd, g->topo->nhosts, g->dilate, named ? e : &why);
	if (err < 0) {
		if (named)
			return err;     /* the topology asked for it */
		snprintf(g->cubic_why, sizeof(g->cubic_why), "%s", why.msg);
		return 0;
	}
	if (g->dilate > 1.0 && !g->cubic_why[0])
		snprintf(g->cubic_as, sizeof(g->cubic_as), "%s", GB_GBCUBIC_NAME);
	return 0;
}

/* A host's TCP stack (hosttcp.c), with the error in @e. */
static int tune_host(struct gb_grid *g, int i, struct gb_err *e)
{
	const struct gb_node *n = &g->topo->nodes[i];
	char what[96];
	int err = gb_tcp_write_ns(g->nsfd[i], &n->tcp, what, sizeof(what));

	if (err < 0)
		gb_err_set(e, "host '%s': cannot set %s: %s", n->name, what, strerror(-err));
	return err;
}

/* What each request of a node's batch configures (its tag): >= 0 a link's
 * device; TAG_SHAPE - dl the shaping of directed link dl. */
enum { TAG_LO = -1, TAG_ROUTES = -2, TAG_MGMT = -3, TAG_SHAPE = -4 };

/* The ifindexes of node @i's devices: lo into *@lo, the links' into g->ifidx
 * (one dump of the namespace, not one look-up a device). */
static int node_ifindexes(struct gb_grid *g, int i, int *lo)
{
	const struct gb_topo *t = g->topo;
	size_t cap = (size_t)t->nlinks + 1;
	int n = 1, err = -ENOMEM, *ks = malloc(sizeof(int) * cap), *idx = malloc(sizeof(int) * cap);
	char *buf = malloc(16 * cap);
	const char **np = malloc(sizeof(char *) * cap);

	if (ks && idx && buf && np) {
		np[0] = "lo";
		for (int k = 0; k < t->nlinks; k++)
			if (t->links[k].a == i || t->links[k].b == i) {
				ks[n] = k;
				np[n] = gb_ifname(k, buf + 16 * n);
				n++;
			}
		err = gb_nl_ifindexes(g->sk[i], np, n, idx);
	}
	for (int x = 0; !err && x < n; x++)
		err = idx[x] < 0 ? idx[x] : 0;
	if (!err) {
		*lo = idx[0];
		for (int x = 1; x < n; x++)
			g->ifidx[gb_topo_dir_out(t, ks[x], i)] = idx[x];
	}
	free(ks);
	free(idx);
	free(buf);
	free(np);
	return err;
}

/* The management network's host side of host @h, on @b (build_mgmt() made
 * the veth, with m0 at MGMT_IFINDEX). */
static void host_mgmt(struct gb_grid *g, int h, struct gb_nl_batch *b)
{
	const struct gb_topo *t = g->topo;

	b->tag = TAG_MGMT;
	gb_nl_batch_link_config(b, MGMT_IFINDEX, 0, 0, GB_LINK_UP | GB_LINK_NO_IPV6LL);
	gb_nl_batch_addr_add(b, MGMT_IFINDEX, t->nodes[h].mgmt, 32);
	gb_nl_batch_route_add(b, t->mgmt.addr, t->mgmt.len, MGMT_IFINDEX, t->mgmt.addr + 1, NULL);
}

/* Node @i: lo, its links' devices and addresses, its routes, a host's TCP
 * stack and management interface: one batch of requests. */
static int configure_node(struct gb_grid *g, int i, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	const char *name = t->nodes[i].name;
	struct gb_nl_batch b;
	char ifn[16];
	int err, lo = 1, tag = 0;

	if ((err = node_ifindexes(g, i, &lo)) < 0) {
		gb_err_set(e, "node '%s': cannot find its devices: %s", name, strerror(-err));
		return err;
	}
	if (t->nodes[i].kind == GB_NODE_HOST && (err = tune_host(g, i, e)) < 0)
		return err;
	gb_nl_batch_init(&b, g->sk[i]);
	/*
	 * First each device's settings and the shaping of what leaves by it,
	 * while it is down: on a device that is up, a new queue length or
	 * root qdisc waits for the kernel to quiesce its queues (an expedited
	 * RCU grace period) each time, which was most of `up`'s kernel time.
	 */
	for (int k = 0; k < t->nlinks; k++) {
		unsigned fl = GB_LINK_NO_IPV6LL | (is_router(&t->nodes[i]) ? GB_LINK_FORWARD : 0);

		if (t->links[k].a != i && t->links[k].b != i)
			continue;
		/* A long device queue: the TBF or the delay line is the queue
		 * that counts, the device must not drop before it. */
		b.tag = k;
		gb_nl_batch_link_config(&b, end_ifindex(g, i, k), t->mtu, 10000, fl);
	}
	int rerr = 0, rtag = TAG_ROUTES;

	/* the backend's shaping when it can queue it (else gb_grid_up() applies it) */
	for (int k = 0; g->shaper->queue && k < t->nlinks; k++) {
		int dl, q;

		if (t->links[k].a != i && t->links[k].b != i)
			continue;
		dl = gb_topo_dir_out(t, k, i);
		b.tag = TAG_SHAPE - dl;
		if ((q = g->shaper->queue(g, dl, &b)) < 0 && !rerr) {
			rerr = q;
			rtag = b.tag;
		}
	}
	/* then up, with their addresses, and the routes over them */
	b.tag = TAG_LO;
	gb_nl_batch_link_config(&b, lo, 0, 0, GB_LINK_UP);
	for (int k = 0; k < t->nlinks; k++) {
		if (t->links[k].a != i && t->links[k].b != i)
			continue;
		b.tag = k;
		gb_nl_batch_link_config(&b, end_ifindex(g, i, k), 0, 0, GB_LINK_UP);
		gb_nl_batch_addr_add(&b, end_ifindex(g, i, k), t->nodes[i].addr, 32);
	}
	b.tag = TAG_ROUTES;
	if (node_routes(g, i, &b) < 0 && !rerr)
		rerr = -ENOMEM;
	if (t->nodes[i].kind == GB_NODE_HOST)
		host_mgmt(g, i, &b);
	err = gb_nl_batch_finish(&b, &tag);
	if (rerr < 0 && !err) {
		err = rerr;
		tag = rtag;
	}
	if (!err)
		return 0;
	if (tag == TAG_LO)
		gb_err_set(e, "node '%s': cannot bring up lo: %s", name, strerror(-err));
	else if (tag == TAG_ROUTES)
		gb_err_set(e, "node '%s': cannot add routes: %s", name, strerror(-err));
	else if (tag == TAG_MGMT)
		gb_err_set(e, "cannot build the management network: %s", strerror(-err));
	else if (tag <= TAG_SHAPE)
		gb_err_set(e, "link '%s' %s: cannot set up %s shaping: %s",
			   t->links[(TAG_SHAPE - tag) / 2].name, (TAG_SHAPE - tag) % 2 ? "b>a" : "a>b",
			   g->shaper->name, strerror(-err));
	else
		gb_err_set(e, "link '%s': cannot configure '%s' in node '%s': %s",
			   t->links[tag].name, gb_ifname(tag, ifn), name, strerror(-err));
	return err;
}

static int configure_nodes(struct gb_grid *g, struct gb_err *e)
{
	int err;

	for (int i = 0; i < g->topo->nnodes; i++)
		if (gb_grid_local(g, i) && (err = configure_node(g, i, e)) < 0)
			return err;
	return 0;
}

/* One grid across two machines (partition.h): the two management
 * namespaces are joined by one VXLAN, each with its own address on it and a
 * /32 route to each of the peer's hosts through the peer's address. */
static int join_mgmt(struct gb_grid *g, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	int side = gb_part_side(g), wi, err;
	uint32_t me = gb_part_mgmt_addr(t, side), peer = gb_part_mgmt_addr(t, !side);

	/* the tunnel keys the peer filters read (gb_part_vxlan()) */
	if ((err = gb_nl_tunnel_metadata(g->mgmt_sk, GB_PART_META_PREF)) < 0) {
		gb_err_set(e, "cannot ask the kernel for tunnel keys (a tun_id rule in the mgmt "
			   "namespace): %s", strerror(-err));
		return err;
	}
	if ((err = gb_part_vxlan(g, GB_PART_MGMT_IF, GB_PART_VNI_MGMT, g->mgmt_nsfd, 0, e)) < 0)
		return err;
	if ((wi = gb_nl_ifindex(g->mgmt_sk, GB_PART_MGMT_IF)) < 0) {
		err = wi;
		goto fail;
	}
	if ((err = gb_nl_link_config(g->mgmt_sk, wi, 0, 0,
				     GB_LINK_UP | GB_LINK_FORWARD | GB_LINK_NO_IPV6LL)) < 0 ||
	    (err = gb_nl_addr_add(g->mgmt_sk, wi, me, 32)) < 0 ||
	    (err = gb_nl_route_add(g->mgmt_sk, peer, 32, wi, 0, NULL)) < 0)
		goto fail;
	for (int h = 0; h < t->nhosts; h++)
		if (!gb_grid_local(g, h) &&
		    (err = gb_nl_route_add(g->mgmt_sk, t->nodes[h].mgmt, 32, wi, peer, NULL)) < 0)
			goto fail;
	return 0;
fail:
	gb_err_set(e, "cannot join the management network to the peer's: %s", strerror(-err));
	return err;
}

/* The management network's router side: each local host's veth, "h<h>"
 * here and "m0" in the host (configure_node() configures that end), with
 * the ifindexes chosen, so that nothing needs looking up; one batch. */
static int build_mgmt(struct gb_grid *g, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	uint32_t gw = t->mgmt.addr + 1;
	struct gb_nl_batch b;
	char hname[16];
	int err = 0, lo;

	if ((lo = gb_nl_ifindex(g->mgmt_sk, "lo")) < 0) {
		err = lo;
		goto fail;
	}
	gb_nl_batch_init(&b, g->mgmt_sk);
	gb_nl_batch_link_config(&b, lo, 0, 0, GB_LINK_UP);
	for (int h = 0; h < t->nhosts; h++) {
		int mi = MGMT_IFINDEX + 1 + h;

		if (!gb_grid_local(g, h))
			continue;
		snprintf(hname, sizeof(hname), "h%d", h);
		gb_nl_batch_veth(&b, hname, mi, "m0", g->nsfd[h], MGMT_IFINDEX, 0);
		gb_nl_batch_link_config(&b, mi, 0, 0, GB_LINK_UP | GB_LINK_FORWARD |
					GB_LINK_NO_IPV6LL);
		gb_nl_batch_addr_add(&b, mi, gw, 32);
		gb_nl_batch_route_add(&b, t->nodes[h].mgmt, 32, mi, 0, NULL);
	}
	if ((err = gb_nl_batch_finish(&b, NULL)) < 0)
		goto fail;
	return g->local ? join_mgmt(g, e) : 0;
fail:
	gb_err_set(e, "cannot build the management network: %s", strerror(-err));
	return err;
}

static void self_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0) {
		snprintf(buf, len, ".");
		return;
	}
	buf[n] = 0;
	char *s = strrchr(buf, '/');
	if (s)
		*s = 0;
}

static int check_overlap(const struct gb_topo *t, struct gb_err *e)
{
	struct nl_sock *sk = nl_socket_alloc();
	char what[64];
	int err;
	if (!sk)
		return -ENOMEM;
	if ((err = nl_connect(sk, NETLINK_ROUTE)) < 0) {
		nl_socket_free(sk);
		return gb_nle2errno(err);
	}
	const struct gb_prefix *blocks[2] = { &t->data, &t->mgmt };
	const char *names[2] = { "data", "mgmt" };
	for (int b = 0; b < 2; b++) {
		int r = gb_nl_route_overlap(sk, blocks[b]->addr, blocks[b]->len, what, sizeof(what));
		if (r != 0) {
			char ip[16];
			err = r > 0 ? -EADDRINUSE : r;
			if (r > 0)
				gb_err_set(e, "%s: %s block %s/%d overlaps the host's route %s; choose "
					   "another block under 'addressing:'", t->path, names[b],
					   gb_fmt_ip(blocks[b]->addr, ip), blocks[b]->len, what);
			else
				gb_err_set(e, "cannot read the host's routes: %s", strerror(-r));
			nl_socket_free(sk);
			return err;
		}
	}
	nl_socket_free(sk);
	return 0;
}

int gb_grid_preflight(const struct gb_topo *t, struct gb_err *e)
{
	int err = check_overlap(t, e);

	return err < 0 ? err : gb_tcp_check_kernel(t, e);
}

/* --part and --peer (partition.h): which nodes are built here. */
static int check_part(struct gb_grid *g, const struct gb_up_opts *o, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	const char *pp;
	char ip[16];
	int err;

	if (!o || (!o->part && !o->peer && !o->peer_prefix))
		return 0;
	if (!o->part || !o->peer) {
		gb_err_set(e, "--part and --peer go together (and --peer-prefix needs them)");
		return -EINVAL;
	}
	if (gb_part_parse_ip(o->peer, &g->peer) < 0) {
		gb_err_set(e, "--peer '%s' is not an IPv4 address", o->peer);
		return -EINVAL;
	}
	const char *why = gb_part_peer_unusable(g->peer);

	if (why) {
		gb_err_set(e, "--peer %s %s", o->peer, why);
		return -EINVAL;
	}
	pp = o->peer_prefix ? o->peer_prefix : g->prefix;
	if (!gb_grid_prefix_valid(pp)) {
		gb_err_set(e, "--peer-prefix '%s' is not valid (1 to %d lowercase letters or "
			   "digits)", pp, GB_PREFIX_MAX);
		return -EINVAL;
	}
	if (strlen(o->part) >= sizeof(g->part)) {
		gb_err_set(e, "--part is longer than %zu characters", sizeof(g->part) - 1);
		return -EINVAL;
	}
	if ((err = gb_part_parse(t, o->part, &g->local, e)) < 0)
		return err;
	snprintf(g->part, sizeof(g->part), "%s", o->part);
	snprintf(g->peer_prefix, sizeof(g->peer_prefix), "%s", pp);
	if (!gb_part_mgmt_addr(t, 1)) {
		gb_err_set(e, "%s: the mgmt block %s/%d has no room for the two machines' "
			   "addresses (%d hosts + 5 needed)", t->path, gb_fmt_ip(t->mgmt.addr, ip),
			   t->mgmt.len, t->nhosts);
		return -EINVAL;
	}
	if (gb_topo_find_node(t, GB_PART_EDGE) >= 0 || gb_topo_find_node(t, "mgmt") >= 0) {
		gb_err_set(e, "%s: a node named '%s' or 'mgmt' would share the namespace of the "
			   "cross links or the management network", t->path, GB_PART_EDGE);
		return -EINVAL;
	}
	/* the address the tunnels bind to: a peer this machine cannot reach is
	 * bad input too */
	return gb_part_self(g, e) < 0 ? -EINVAL : 0;
}

int gb_grid_up(struct gb_grid *g, const char *path, const struct gb_up_opts *o,
	       struct gb_err *e)
{
	struct gb_diag d;
	char sp[PATH_MAX], abspath[PATH_MAX], name[128], tapd[PATH_MAX];
	struct gb_err why = { "" };
	char **left = NULL;
	int err, nleft;
	const char *backend = o && o->backend ? o->backend : "auto";

	/* 1. Everything that can be checked without creating anything. */
	memset(&d, 0, sizeof(d));
	if ((err = gb_topo_load(path, &g->topo, &d)) < 0) {
		if (err == -EINVAL)
			gb_diag_err(e, &d, NULL);
		else
			gb_err_set(e, "cannot read topology '%s': %s", path, strerror(-err));
		/* A file that cannot be read (missing, a directory, a symbolic
		 * link loop) is bad input as much as a malformed one. */
		if (err != -ENOMEM)
			err = -EINVAL;
		goto out_free;
	}
	if (!realpath(path, abspath))
		snprintf(abspath, sizeof(abspath), "%s", path);
	if (strcmp(backend, "auto") && !gb_shaper_find(backend)) {
		gb_err_set(e, "unknown backend '%s' (auto, netem or tap)", backend);
		err = -EINVAL;
		goto out_free;
	}
	g->dilate = o && o->dilate ? o->dilate : 1.0;
	if (!(g->dilate >= 1.0 && g->dilate <= GB_DILATE_MAX)) {
		gb_err_set(e, "dilation %g is not in [1, %g]", g->dilate, GB_DILATE_MAX);
		err = -EINVAL;
		goto out_free;
	}
	gb_grid_rpath(g, "state.json", sp, sizeof(sp));
	if (access(sp, F_OK) == 0) {
		gb_err_set(e, "a grid with prefix '%s' is already up (%s); run 'gridemu down' first",
			   g->prefix, sp);
		err = -EEXIST;
		goto out_free;
	}
	if ((nleft = gb_netns_list_prefix(g->prefix, &left)) > 0) {
		gb_err_set(e, "namespace '%s' is left from an earlier grid with prefix '%s'; run "
			   "'gridemu down' first", left[0], g->prefix);
		gb_strv_free(left, nleft);
		err = -EEXIST;
		goto out_free;
	}
	for (int i = 0; i < g->topo->nnodes; i++)
		if (strlen(gb_grid_nsname(g, g->topo->nodes[i].name, name, sizeof(name))) > 64) {
			gb_err_set(e, "%s:%d:%d: node '%s': namespace name '%s' too long (64 "
				   "characters at most)", g->topo->path, g->topo->nodes[i].line,
				   g->topo->nodes[i].col, g->topo->nodes[i].name, name);
			err = -EINVAL;  /* bad input: the names, with the prefix */
			goto out_free;
		}
	if ((err = gb_grid_preflight(g->topo, e)) < 0 || (err = check_part(g, o, e)) < 0)
		goto out_free;
	if (o && o->tapd_path)
		snprintf(tapd, sizeof(tapd), "%s", o->tapd_path);
	else if (getenv("GRIDBED_TAPD"))
		snprintf(tapd, sizeof(tapd), "%s", getenv("GRIDBED_TAPD"));
	else {
		self_dir(tapd, sizeof(tapd) - 16);
		strcat(tapd, "/gridemu-tapd");
	}
	gb_grid_raise_nofile();

	/* 2. The intent, then the namespaces.  From here on, failure = down. */
	g->shaper = strcmp(backend, "auto") ? gb_shaper_find(backend) : NULL;
	if ((err = gb_grid_write_state(g, "creating", abspath)) < 0) {
		gb_err_set(e, "cannot write '%s': %s", sp, strerror(-err));
		goto out_free;
	}
	gb_grid_nsname(g, "mgmt", name, sizeof(name));
	if ((g->mgmt_nsfd = gb_netns_create(name)) < 0) {
		err = g->mgmt_nsfd;
		gb_err_set(e, "cannot create network namespace '%s': %s", name, strerror(-err));
		goto undo;
	}
	if ((err = gb_nl_open(g->mgmt_nsfd, &g->mgmt_sk)) < 0 ||
	    (err = no_ipv6(g->mgmt_nsfd)) < 0) {
		gb_err_set(e, "cannot set up namespace '%s': %s", name, strerror(-err));
		goto undo;
	}

	/* 3. The backend: probe in our own namespace, never the host's. */
	if (!g->shaper) {
		g->shaper = gb_shaper_netem.probe(g, &why) == 1 ? &gb_shaper_netem
							       : &gb_shaper_tap;
	}
	if ((err = g->shaper->probe(g, &why)) != 1) {
		gb_err_set(e, "backend '%s' cannot work here: %s%s", g->shaper->name, why.msg,
			   g->shaper == &gb_shaper_netem ? " (use --backend tap or auto)" : "");
		err = err < 0 ? err : -EOPNOTSUPP;
		goto undo;
	}
	if ((err = gb_grid_write_state(g, "creating", abspath)) < 0)
		goto undo;

	if ((err = gb_grid_alloc_ns(g)) < 0 || (err = create_namespaces(g, e)) < 0)
		goto undo;
	if ((err = choose_cubic(g, o, e)) < 0)   /* before the routes, which name it */
		goto undo;
	/* the management veths first: the hosts' ends are configured with the rest */
	if ((err = build_mgmt(g, e)) < 0)
		goto undo;
	if ((err = g->shaper->create_links(g, tapd, e)) < 0)
		goto undo;
	if ((err = configure_nodes(g, e)) < 0)
		goto undo;
	/* each direction on the machine that sends it (partition.h); a
	 * backend that queues it did so with its node's configuration */
	for (int dl = 0; !g->shaper->queue && dl < 2 * g->topo->nlinks; dl++)
		if (gb_grid_local(g, gb_topo_dir_from(g->topo, dl)) &&
		    (err = g->shaper->apply(g, dl, 0, e)) < 0)
			goto undo;
	{
		struct gb_cpuctl cc;

		if ((err = gb_cgroup_setup(g, &cc, e)) < 0)
			goto undo;
	}

	if (!(o && o->no_calibrate)) {
		struct gb_calib cal;

		if ((err = gb_grid_calibrate(g, !(o && o->recalibrate), &cal, e)) < 0)
			goto undo;
	}

	gb_grid_rpath(g, "topology.yaml", sp, sizeof(sp));
	if ((err = gb_grid_copy_file(path, sp)) < 0) {
		gb_err_set(e, "cannot copy the topology to '%s': %s", sp, strerror(-err));
		goto undo;
	}
	if ((err = gb_grid_write_state(g, "up", abspath)) < 0) {
		gb_err_set(e, "cannot write the state file: %s", strerror(-err));
		goto undo;
	}
	return 0;

undo:
	if (!e->msg[0])
		gb_err_set(e, "cannot bring the grid up: %s", strerror(-err));
	{
		struct gb_err ignored;
		gb_grid_down(g, NULL, &ignored);
	}
out_free:
	gb_grid_close_ns(g);
	gb_topo_free(g->topo);
	g->topo = NULL;
	/* Refused before anything was created: leave no lock file or empty run
	 * directory behind either (bad input changes nothing). */
	gb_grid_forget_rundir(g);
	return err;
}
