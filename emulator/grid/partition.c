/* SPDX-License-Identifier: MIT */
/*
 * partition.c - which nodes a machine builds, and the addresses the two
 * machines' management namespaces use towards each other (partition.h).
 */
#include "partition.h"
#include "netns.h"
#include "nl.h"
#include "shaping.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netlink/netlink.h>

/* Mark the nodes of site or hub @name; -1 if there is none of that name. */
static int mark(const struct gb_topo *t, const char *name, unsigned char *local)
{
	for (int s = 0; s < t->nsites; s++) {
		if (strcmp(t->sites[s].name, name))
			continue;
		for (int i = 0; i < t->nnodes; i++)
			if (t->nodes[i].site == s)
				local[i] = 1;
		return 0;
	}
	int i = gb_topo_find_node(t, name);
	if (i >= 0 && t->nodes[i].kind == GB_NODE_HUB) {
		local[i] = 1;
		return 0;
	}
	return -1;
}

int gb_part_parse(const struct gb_topo *t, const char *spec, unsigned char **local,
		  struct gb_err *e)
{
	unsigned char *l = calloc((size_t)t->nnodes, 1);
	char *list = strdup(spec), *save = NULL, *tok;
	int err = 0, nlocal = 0;

	if (!l || !list) {
		err = -ENOMEM;
		goto out;
	}
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned char *before = malloc((size_t)t->nnodes);

		if (!before) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(before, l, (size_t)t->nnodes);
		int r = mark(t, tok, l);
		int same = !memcmp(before, l, (size_t)t->nnodes);

		free(before);
		if (r < 0) {
			gb_err_set(e, "--part: '%s' is neither a site nor a hub of grid '%s'", tok,
				   t->name);
			err = -EINVAL;
			goto out;
		}
		if (same) {
			gb_err_set(e, "--part: '%s' is named twice", tok);
			err = -EINVAL;
			goto out;
		}
	}
	for (int i = 0; i < t->nnodes; i++)
		nlocal += l[i];
	if (nlocal == 0) {
		gb_err_set(e, "--part '%s' names no site or hub", spec);
		err = -EINVAL;
	} else if (nlocal == t->nnodes) {
		gb_err_set(e, "--part '%s' is the whole grid '%s': leave --part and --peer out",
			   spec, t->name);
		err = -EINVAL;
	}
out:
	free(list);
	if (err < 0) {
		free(l);
		l = NULL;
	}
	*local = l;
	return err;
}

int gb_part_cross(const struct gb_grid *g, int k)
{
	const struct gb_link *l = &g->topo->links[k];

	return g->local && g->local[l->a] != g->local[l->b];
}

int gb_part_ncross(const struct gb_grid *g)
{
	int n = 0;

	for (int k = 0; g->local && k < g->topo->nlinks; k++)
		n += gb_part_cross(g, k);
	return n;
}

int gb_part_side(const struct gb_grid *g)
{
	return g->local && !g->local[0];
}

uint32_t gb_part_mgmt_addr(const struct gb_topo *t, int side)
{
	uint64_t size = 1ull << (32 - t->mgmt.len);

	/* .0 network, .1 gateway, .2.. hosts, then the two sides, then broadcast */
	if ((uint64_t)t->nhosts + 5 > size)
		return 0;
	return t->mgmt.addr + 2 + (uint32_t)t->nhosts + (uint32_t)side;
}

int gb_part_vxlan(struct gb_grid *g, const char *name, uint32_t vni, int nsfd, unsigned mtu,
		  struct gb_err *e)
{
	struct nl_sock *here = nl_socket_alloc(), *there = NULL;
	int err, ifi;
	char ip[16];

	if (!here)
		return -ENOMEM;
	if ((err = gb_nle2errno(nl_connect(here, NETLINK_ROUTE))) < 0 ||
	    (err = gb_nl_vxlan(here, name, vni, g->peer, g->self, GB_PART_PORT, nsfd, mtu)) < 0 ||
	    (err = gb_nl_open(nsfd, &there)) < 0)
		goto out;
	if ((ifi = gb_nl_ifindex(there, name)) < 0) {
		err = ifi;
		goto out;
	}
	/* the filter before the device is up: nothing from others ever passes */
	if ((err = gb_nl_peer_filter(there, ifi, g->peer, vni)) < 0) {
		gb_err_set(e, "cannot let only the peer %s into VXLAN '%s' (a cls_bpf filter on "
			   "it): %s", gb_fmt_ip(g->peer, ip), name, strerror(-err));
		goto out_quiet;
	}
	err = gb_nl_link_config(there, ifi, 0, 0, GB_LINK_UP | GB_LINK_NO_IPV6LL);
out:
	if (err < 0)
		gb_err_set(e, "cannot create VXLAN '%s' (VNI %u) to the peer %s: %s", name, vni,
			   gb_fmt_ip(g->peer, ip), strerror(-err));
out_quiet:
	gb_nl_close(&there);
	nl_socket_free(here);
	return err;
}

void gb_part_metadata_release(struct gb_grid *g)
{
	char name[128];
	int mfd = gb_netns_open(gb_grid_nsname(g, "mgmt", name, sizeof(name)));
	struct nl_sock *msk = NULL;

	/* no rule there (any grid not split across machines): ENOENT, ignored */
	if (mfd >= 0 && gb_nl_open(mfd, &msk) == 0)
		gb_nl_tunnel_metadata_del(msk, GB_PART_META_PREF);
	gb_nl_close(&msk);
	if (mfd >= 0)
		close(mfd);
}

const char *gb_part_peer_unusable(uint32_t a)
{
	if ((a >> 24) == 0)
		return "is not a host's address (0.0.0.0/8)";
	if ((a >> 24) == 127)
		return "is a loopback address: the peer is another machine";
	if ((a >> 28) == 14)
		return "is a multicast address: the peer is one machine";
	if (a == 0xffffffffu)
		return "is the broadcast address: the peer is one machine";
	if ((a >> 28) == 15)
		return "is a reserved address (240.0.0.0/4)";
	return NULL;
}

int gb_part_self(struct gb_grid *g, struct gb_err *e)
{
	struct nl_sock *sk = nl_socket_alloc();
	int err;
	char ip[16];

	if (!sk)
		return -ENOMEM;
	/* this process's namespace: where the tunnels' sockets will be */
	if ((err = gb_nle2errno(nl_connect(sk, NETLINK_ROUTE))) >= 0)
		err = gb_nl_route_src(sk, g->peer, &g->self);
	nl_socket_free(sk);
	if (err == -EADDRINUSE)
		gb_err_set(e, "--peer %s is this machine's own address", gb_fmt_ip(g->peer, ip));
	else if (err == -ENETUNREACH)
		gb_err_set(e, "--peer %s: this machine has no route to it, so no address of its "
			   "faces the peer", gb_fmt_ip(g->peer, ip));
	else if (err < 0)
		gb_err_set(e, "--peer %s: cannot find the address that faces it: %s",
			   gb_fmt_ip(g->peer, ip), strerror(-err));
	return err;
}

json_t *gb_part_tunnels_json(const struct gb_grid *g)
{
	const struct gb_topo *t = g->topo;
	int tap = g->shaper && !strcmp(g->shaper->name, "tap");
	json_t *a = json_array();
	char ns[128], ifn[16], self[16], peer[16];

	if (!a || !g->local)
		return a;
	gb_fmt_ip(g->self, self);
	gb_fmt_ip(g->peer, peer);
	json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:n, s:s, s:s, s:i}", "ifname",
		GB_PART_MGMT_IF, "netns", gb_grid_nsname(g, "mgmt", ns, sizeof(ns)), "vni",
		(int)GB_PART_VNI_MGMT, "link", "local", self, "remote", peer, "port", GB_PART_PORT));
	for (int k = 0; k < t->nlinks; k++) {
		const struct gb_link *l = &t->links[k];
		int here = gb_grid_local(g, l->a) ? l->a : l->b;

		if (!gb_part_cross(g, k))
			continue;
		if (tap)
			snprintf(ifn, sizeof(ifn), "v%d", k);
		else
			gb_ifname(k, ifn);
		gb_grid_nsname(g, tap ? GB_PART_EDGE : t->nodes[here].name, ns, sizeof(ns));
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:s, s:s, s:s, s:i}", "ifname",
			ifn, "netns", ns, "vni", (int)(GB_PART_VNI_BASE + (uint32_t)k), "link",
			l->name, "local", self, "remote", peer, "port", GB_PART_PORT));
	}
	return a;
}

int gb_part_parse_ip(const char *s, uint32_t *addr)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*addr = ntohl(a.s_addr);
	return 0;
}
