/* SPDX-License-Identifier: MIT */
/*
 * nl.h - the few rtnetlink operations gridemu needs, over libnl-route-3.
 *
 * Every function takes a socket that was opened *inside* the namespace it
 * should act on (gb_nl_open()), so no caller ever has to switch namespace to
 * configure one, and nothing here can touch the host's namespace by accident.
 * All return 0 or a negative errno (libnl's codes are translated).
 */
#ifndef GRIDBED_NL_H
#define GRIDBED_NL_H

#include <stddef.h>
#include <stdint.h>

#ifndef GB_WUR
#define GB_WUR __attribute__((warn_unused_result))
#endif

struct nl_sock;

/** gb_nle2errno() - translate a negative libnl error into a negative errno. */
int gb_nle2errno(int nle);

/** gb_nl_open() - a NETLINK_ROUTE socket bound to the namespace @nsfd (-1: the caller's). */
GB_WUR int gb_nl_open(int nsfd, struct nl_sock **out);

/** gb_nl_close() - close a socket from gb_nl_open(); *sk becomes NULL. */
void gb_nl_close(struct nl_sock **sk);

/**
 * gb_nl_vxlan() - create VXLAN device @name, VNI @vni, to the unicast
 * @remote from @local (host byte order; 0: the kernel picks per packet) on
 * UDP port @port, with MAC learning off, in namespace @nsfd.  Its UDP
 * socket stays in the namespace of @sk (the machine's own network: the
 * underlay), while the device itself never exists there.  @local is the
 * source of what the device sends; the kernel's socket still listens on
 * every address (it binds the wildcard whatever @local is), and accepts any
 * sender: gb_nl_peer_filter() is what keeps others out.  @mtu: 0 for the
 * kernel's default.  0 or -errno.
 */
GB_WUR int gb_nl_vxlan(struct nl_sock *sk, const char *name, uint32_t vni, uint32_t remote,
			 uint32_t local, uint16_t port, int nsfd, unsigned mtu);

/**
 * gb_nl_route_src() - the source address the socket's namespace would use
 * to reach @dst (host order): RTM_GETROUTE's preferred source, into *@src.
 * 0; -ENETUNREACH without a unicast route to @dst; -EADDRINUSE if @dst is
 * one of the namespace's own addresses; -EADDRNOTAVAIL if the route names
 * no source; or -errno.  Read-only.
 */
GB_WUR int gb_nl_route_src(struct nl_sock *sk, uint32_t dst, uint32_t *src);

/**
 * gb_nl_peer_filter() - let into tunnel device @ifindex (in the socket's
 * namespace) only what arrived from outer source @peer with VNI @vni: a
 * clsact qdisc and, on its ingress, a cls_bpf program (direct action) that
 * drops every frame whose tunnel key (bpf_skb_get_tunnel_key()) is missing
 * or names another sender or VNI.  The key is there only while something
 * asks the kernel to collect tunnel metadata (gb_nl_tunnel_metadata());
 * without it the filter drops everything: it fails closed.  Packet sockets
 * bound to one protocol (tapd's) see only what passed; a tap on ETH_P_ALL
 * (tcpdump) still sees the dropped frames, which it meets first.
 * 0 or -errno (-EPERM without CAP_SYS_ADMIN/CAP_BPF, -EINVAL if the kernel
 * lacks BPF_JMP32 or cls_bpf, -EEXIST if the device has a clsact already).
 */
GB_WUR int gb_nl_peer_filter(struct nl_sock *sk, int ifindex, uint32_t peer, uint32_t vni);

/**
 * gb_nl_tunnel_metadata() - a do-nothing routing rule (action nop, tun_id 1)
 * at priority @pref in the socket's namespace.  A rule that matches on a
 * tunnel id makes the kernel attach the outer header (the tunnel key) to
 * every decapsulated packet, which gb_nl_peer_filter() reads.  That switch
 * is kernel-wide (ip_tunnel_need_metadata(): every VXLAN receive in every
 * namespace then carries its key); the rule itself routes nothing.
 * Deleting the rule withdraws the request (gb_nl_tunnel_metadata_del());
 * deleting its namespace does not, and the switch then stays on until
 * reboot.  0 or -errno (-EEXIST if the namespace has a rule at @pref).
 */
GB_WUR int gb_nl_tunnel_metadata(struct nl_sock *sk, uint32_t pref);

/** gb_nl_tunnel_metadata_del() - delete that rule.  0, -ENOENT, or -errno. */
int gb_nl_tunnel_metadata_del(struct nl_sock *sk, uint32_t pref);

/**
 * gb_nl_veth() - create a veth pair: @name in the socket's namespace and
 * @peer in namespace @peer_nsfd.  Neither end ever exists in the caller's
 * namespace.  Both get @mtu.
 */
GB_WUR int gb_nl_veth(struct nl_sock *sk, const char *name, const char *peer,
		      int peer_nsfd, unsigned mtu);

/** gb_nl_ifindex() - ifindex of @name, or -ENODEV. */
int gb_nl_ifindex(struct nl_sock *sk, const char *name);

/**
 * gb_nl_ifindexes() - the ifindex of each of the @n devices @names into
 * @idx (-ENODEV for a missing one), from one dump of the socket's
 * namespace: one round trip to the kernel instead of @n.
 * Return: 0 or -errno.
 */
int gb_nl_ifindexes(struct nl_sock *sk, const char *const *names, int n, int *idx);


/** Flags for gb_nl_link_config(). */
#define GB_LINK_UP         (1u << 0)
#define GB_LINK_FORWARD    (1u << 1)  /**< IPv4 forwarding on this device */
#define GB_LINK_NO_IPV6LL  (1u << 2)  /**< no IPv6 link-local address (quiet links) */

/**
 * gb_nl_link_config() - set MTU (0 = leave), tx queue length (0 = leave),
 * and the GB_LINK_* flags on @ifindex in one RTM_NEWLINK change.
 */
GB_WUR int gb_nl_link_config(struct nl_sock *sk, int ifindex, unsigned mtu,
			     unsigned txqlen, unsigned flags);

/** gb_nl_addr_add() - add @addr/@plen (host byte order) on @ifindex. */
GB_WUR int gb_nl_addr_add(struct nl_sock *sk, int ifindex, uint32_t addr, int plen);

/** Route metrics gridbed sets: the hosts' TCP stack (hosttcp.c). */
struct gb_nl_route_metrics {
	unsigned initcwnd;     /**< RTAX_INITCWND, segments; 0 = none */
	char congctl[16];      /**< RTAX_CC_ALGO; "" = none */
	unsigned rto_min_ms;   /**< RTAX_RTO_MIN, ms, locked (the kernel reads
				    only a locked one); 0 = none */
};

/**
 * gb_nl_route_add() - route @dst/@plen out of @ifindex, via @gw (onlink) if
 * @gw != 0, else as a directly connected (scope link) route, with the
 * metrics @m (NULL: none).  A route's congestion control applies to every
 * TCP connection over it, in any namespace, for any algorithm the kernel
 * has; the namespace default is restricted to the root's allowed list.
 */
GB_WUR int gb_nl_route_add(struct nl_sock *sk, uint32_t dst, int plen, int ifindex,
			   uint32_t gw, const struct gb_nl_route_metrics *m);

/**
 * gb_nl_route_table_set() - add or replace the route to @dst/@plen in
 * routing table @table (not the main one: gb_nl_route_add()), out of
 * @ifindex via @gw as gb_nl_route_add() does, with the metrics @m.
 * Return: 0 or -errno.
 */
GB_WUR int gb_nl_route_table_set(struct nl_sock *sk, uint32_t table, uint32_t dst, int plen,
				 int ifindex, uint32_t gw, const struct gb_nl_route_metrics *m);

/** gb_nl_route_table_del() - delete table @table's route to @dst/@plen; 0, -ESRCH, -errno. */
int gb_nl_route_table_del(struct nl_sock *sk, uint32_t table, uint32_t dst, int plen);

/** What the socket's namespace would route a packet to some address by. */
struct gb_nl_route_info {
	int ifindex;                  /**< the interface out */
	uint32_t gw;                  /**< the gateway, host order; 0: on-link */
	struct gb_nl_route_metrics m; /**< the route's gridbed metrics */
};

/**
 * gb_nl_route_get() - how the socket's namespace routes to @dst (the
 * kernel's own lookup, RTM_GETROUTE, every rule and table considered).
 * Return: 0, -ENETUNREACH (no unicast route), or -errno.
 */
GB_WUR int gb_nl_route_get(struct nl_sock *sk, uint32_t dst, struct gb_nl_route_info *out);

/**
 * gb_nl_port_rule() - add (@add != 0; -EEXIST if the same rule is there
 * already) or delete the IPv4 routing rule at priority @pref that looks
 * TCP from source port @sport to destination port @dport up in table
 * @table.  Rules of one priority may differ in their ports.
 * Return: 0 or -errno.
 */
GB_WUR int gb_nl_port_rule(struct nl_sock *sk, int add, uint32_t pref, uint32_t table,
			   uint16_t sport, uint16_t dport);

/**
 * gb_nl_routes_set_metrics() - replace the metrics of every main-table
 * route to a destination inside @block/@plen with @m, keeping the routes.
 * Return: how many routes, or -errno.
 */
int gb_nl_routes_set_metrics(struct nl_sock *sk, uint32_t block, int plen,
			     const struct gb_nl_route_metrics *m);

/**
 * gb_nl_route_metrics() - the gridbed metrics of the main table's route to
 * exactly @dst/@plen (zero where the route has none).
 * Return: 0, -ENOENT without such a route, or -errno.
 */
int gb_nl_route_metrics(struct nl_sock *sk, uint32_t dst, int plen,
			struct gb_nl_route_metrics *out);

/**
 * Shaping primitives.  Handles are "major:minor" as u32 (TC_H_MAKE);
 * parent TC_H_ROOT for a root qdisc.  @replace selects NLM_F_REPLACE
 * (change in place) over NLM_F_EXCL (create).  gb_nl_tbf()'s @overhead
 * (bytes, at most 65535; 0 for none) is added to every packet's length when
 * the bucket is charged: a per-packet cost of @overhead * 8 / rate seconds.
 */
GB_WUR int gb_nl_tbf(struct nl_sock *sk, int ifindex, uint32_t parent, uint32_t handle,
		     uint64_t rate_bps, uint32_t burst_bytes, uint32_t limit_bytes,
		     uint32_t overhead, int replace);
GB_WUR int gb_nl_netem(struct nl_sock *sk, int ifindex, uint32_t parent, uint32_t handle,
		       uint64_t delay_ns, uint64_t jitter_ns, double loss, uint32_t limit_pkts,
		       int replace);

/** gb_nl_qdisc_del_root() - delete the root qdisc of @ifindex (ok if none). */
int gb_nl_qdisc_del_root(struct nl_sock *sk, int ifindex);

/**
 * gb_nl_qdisc_kind() - kind of the qdisc @handle on @ifindex into @kind,
 * with its parameters when it is tbf or netem (fields may be NULL).
 */
struct gb_qdisc_info {
	char kind[16];
	uint64_t rate_bps;
	uint32_t overhead;	/* tbf: bytes charged per packet besides its length */
	uint32_t limit;
	uint64_t delay_ns, jitter_ns;
	double loss;
};
int gb_nl_qdisc_get(struct nl_sock *sk, int ifindex, uint32_t handle,
		    struct gb_qdisc_info *info);

/**
 * gb_nl_probe_netem() - 1 if the kernel of the socket's namespace accepts a
 * netem qdisc (tried on "lo", then removed), 0 if the kind is unknown,
 * or -errno.
 */
int gb_nl_probe_netem(struct nl_sock *sk);

/**
 * gb_nl_route_overlap() - does any route in the socket's namespace (all
 * tables) overlap @pfx/@plen?  Read-only.  Return 1 and the route in @what,
 * 0 if none, or -errno.
 */
int gb_nl_route_overlap(struct nl_sock *sk, uint32_t pfx, int plen, char *what, int whatlen);

/**
 * struct gb_nl_batch - configuration requests for one socket, sent to the
 * kernel together and acknowledged once (issue 46: `up` made 1944 netlink
 * requests, each waiting for its own acknowledgement).
 *
 * The requests go out in as few sendmsg() calls as fit GB_NL_BATCH_BYTES
 * (small enough that the answers, should every request fail, fit the
 * socket's receive buffer); only the last of each asks for an
 * acknowledgement, and the kernel reports a failing request on its own, so
 * one receive usually ends each.  The
 * kernel carries them out in order, each as if sent alone: a failure does
 * not stop the ones after it (which may then fail too).  The caller sets
 * @tag before adding a request, to learn which one failed.
 *
 *	struct gb_nl_batch b;
 *	gb_nl_batch_init(&b, sk);
 *	b.tag = 3; gb_nl_batch_addr_add(&b, ...);
 *	err = gb_nl_batch_finish(&b, &tag);     // the first failure, and its tag
 */
#define GB_NL_BATCH_BYTES 8192u
struct gb_nl_batch {
	struct nl_sock *sk;
	int tag;                /**< the caller's: recorded with each request */
	/* private */
	unsigned char *buf;
	size_t len, cap, last;  /**< bytes queued, room, where the last request starts */
	int *tags;              /**< the tag of each request since init */
	int n, ntags, tagcap;   /**< requests in @buf, tags kept, room */
	uint32_t seq0;          /**< the sequence number of @buf's first request */
	int err, err_tag;       /**< the first failure and its tag */
};

/** gb_nl_batch_init() - an empty batch for @sk. */
void gb_nl_batch_init(struct gb_nl_batch *b, struct nl_sock *sk);

/**
 * gb_nl_batch_finish() - send what is left, wait for the kernel's answers
 * and free the batch.  Return: 0, or the first failure (-errno), with the
 * tag of its request in *@tag (if @tag is not NULL).
 */
int gb_nl_batch_finish(struct gb_nl_batch *b, int *tag);

/*
 * The requests a batch can carry: each is its single-shot namesake's
 * (gb_nl_link_config(), gb_nl_addr_add(), gb_nl_route_add(), gb_nl_tbf(),
 * gb_nl_veth()), queued.  They return 0 or a failure to build the request
 * (-ENOMEM, -ERANGE, ...), which also becomes the batch's if it is the
 * first; the batch goes on either way.
 */
int gb_nl_batch_link_config(struct gb_nl_batch *b, int ifindex, unsigned mtu, unsigned txqlen,
			    unsigned flags);
int gb_nl_batch_addr_add(struct gb_nl_batch *b, int ifindex, uint32_t addr, int plen);
int gb_nl_batch_route_add(struct gb_nl_batch *b, uint32_t dst, int plen, int ifindex,
			  uint32_t gw, const struct gb_nl_route_metrics *m);
int gb_nl_batch_tbf(struct gb_nl_batch *b, int ifindex, uint32_t parent, uint32_t handle,
		    uint64_t rate_bps, uint32_t burst_bytes, uint32_t limit_bytes,
		    uint32_t overhead, int replace);
/**
 * gb_nl_batch_veth() - gb_nl_veth() with the two ends' ifindexes chosen
 * here (@ifindex in the socket's namespace, @peer_ifindex in @peer_nsfd's;
 * 0: the kernel's choice), so that they need no look-up.
 */
int gb_nl_batch_veth(struct gb_nl_batch *b, const char *name, int ifindex, const char *peer,
		     int peer_nsfd, int peer_ifindex, unsigned mtu);

#endif
