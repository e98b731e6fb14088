/* SPDX-License-Identifier: MIT */
/*
 * nl.c - rtnetlink through libnl-route-3 (docs/architecture.md, decision 1).
 */
#include "nl.h"
#include "netns.h"

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <arpa/inet.h>
#include <linux/if.h>
#include <linux/bpf.h>
#include <linux/fib_rules.h>
#include <linux/if_addr.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/inet.h>
#include <netlink/route/link/inet6.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/link/vxlan.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/route.h>
#include <netlink/route/tc.h>

#ifndef IN6_ADDR_GEN_MODE_NONE
#define IN6_ADDR_GEN_MODE_NONE 1
#endif

int gb_nle2errno(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case 0: return 0;
	case NLE_EXIST: return -EEXIST;
	case NLE_NOMEM: return -ENOMEM;
	case NLE_OBJ_NOTFOUND: return -ENOENT;
	case NLE_PERM: return -EPERM;
	case NLE_OPNOTSUPP: return -EOPNOTSUPP;
	case NLE_INVAL: return -EINVAL;
	case NLE_NODEV: return -ENODEV;
	case NLE_BUSY: return -EBUSY;
	case NLE_RANGE: return -ERANGE;
	case NLE_NOADDR: return -EADDRNOTAVAIL;
	case NLE_AGAIN: return -EAGAIN;
	case NLE_MSGSIZE: return -EMSGSIZE;
	case NLE_NOACCESS: return -EACCES;
	case NLE_AF_NOSUPPORT: return -EAFNOSUPPORT;
	default: return -EIO;
	}
}

int gb_nl_open(int nsfd, struct nl_sock **out)
{
	struct gb_nsguard g = { -1 };
	struct nl_sock *sk = NULL;
	int err;

	*out = NULL;
	if (!(sk = nl_socket_alloc()))
		return -ENOMEM;
	/* The socket belongs to the namespace it is created in, for good. */
	if (nsfd >= 0 && (err = gb_nsguard_enter(&g, nsfd)) < 0)
		goto cleanup;
	err = nl_connect(sk, NETLINK_ROUTE);
	if (nsfd >= 0)
		gb_nsguard_leave(&g);
	if (err < 0) {
		err = gb_nle2errno(err);
		goto cleanup;
	}
	/* Large buffers: a 1000-route namespace dumps a lot. */
	nl_socket_set_buffer_size(sk, 1 << 20, 1 << 20);
	/* One receive for each answer, not a peek at its size first (libnl's
	 * default without a message buffer size): a dump comes in parts of at
	 * most 32 KiB (the kernel's netlink_dump()). */
	nl_socket_set_msg_buf_size(sk, 1 << 16);
	nl_socket_disable_msg_peek(sk);
	*out = sk;
	return 0;
cleanup:
	nl_socket_free(sk);
	return err;
}

void gb_nl_close(struct nl_sock **sk)
{
	if (sk && *sk) {
		nl_socket_free(*sk);
		*sk = NULL;
	}
}

/* The request that creates veth pair @name / @peer (gb_nl_batch_veth()). */
static int veth_msg(const char *name, int ifindex, const char *peer, int peer_nsfd,
		    int peer_ifindex, unsigned mtu, struct nl_msg **msg)
{
	struct rtnl_link *link = NULL, *p;
	int err;

	if (!(link = rtnl_link_veth_alloc()))
		return -ENOMEM;
	rtnl_link_set_name(link, name);
	if (ifindex > 0)
		rtnl_link_set_ifindex(link, ifindex);
	if (mtu)
		rtnl_link_set_mtu(link, mtu);
	p = rtnl_link_veth_get_peer(link);
	rtnl_link_set_name(p, peer);
	if (peer_ifindex > 0)
		rtnl_link_set_ifindex(p, peer_ifindex);
	if (mtu)
		rtnl_link_set_mtu(p, mtu);
	rtnl_link_set_ns_fd(p, peer_nsfd);
	rtnl_link_put(p); /* get_peer took a reference */
	err = gb_nle2errno(rtnl_link_build_add_request(link, NLM_F_CREATE | NLM_F_EXCL, msg));
	rtnl_link_put(link);
	return err;
}

/* Send @msg (freed) and wait for its acknowledgement. */
static int send_one(struct nl_sock *sk, struct nl_msg *msg)
{
	return gb_nle2errno(nl_send_sync(sk, msg));
}

int gb_nl_veth(struct nl_sock *sk, const char *name, const char *peer, int peer_nsfd,
	       unsigned mtu)
{
	struct nl_msg *msg = NULL;
	int err = veth_msg(name, 0, peer, peer_nsfd, 0, mtu, &msg);

	return err < 0 ? err : send_one(sk, msg);
}

int gb_nl_vxlan(struct nl_sock *sk, const char *name, uint32_t vni, uint32_t remote,
		uint32_t local, uint16_t port, int nsfd, unsigned mtu)
{
	struct rtnl_link *link = rtnl_link_vxlan_alloc();
	struct nl_addr *ra = NULL, *la = NULL;
	uint32_t be = htonl(remote), lbe = htonl(local);
	int err;

	if (!link || !(ra = nl_addr_build(AF_INET, &be, 4)) ||
	    !(la = nl_addr_build(AF_INET, &lbe, 4))) {
		err = -ENOMEM;
		goto cleanup;
	}
	rtnl_link_set_name(link, name);
	if (mtu)
		rtnl_link_set_mtu(link, mtu);
	rtnl_link_set_ns_fd(link, nsfd);
	if ((err = rtnl_link_vxlan_set_id(link, vni)) < 0 ||
	    (err = rtnl_link_vxlan_set_group(link, ra)) < 0 ||
	    (local && (err = rtnl_link_vxlan_set_local(link, la)) < 0) ||
	    (err = rtnl_link_vxlan_set_port(link, port)) < 0 ||
	    (err = rtnl_link_vxlan_set_learning(link, 0)) < 0) {
		err = gb_nle2errno(err);
		goto cleanup;
	}
	err = gb_nle2errno(rtnl_link_add(sk, link, NLM_F_CREATE | NLM_F_EXCL));
cleanup:
	if (ra)
		nl_addr_put(ra);
	if (la)
		nl_addr_put(la);
	if (link)
		rtnl_link_put(link);
	return err;
}

int gb_nl_ifindex(struct nl_sock *sk, const char *name)
{
	struct rtnl_link *link = NULL;
	int err = rtnl_link_get_kernel(sk, 0, name, &link);
	if (err < 0)
		return err == -NLE_OBJ_NOTFOUND ? -ENODEV : gb_nle2errno(err);
	int idx = rtnl_link_get_ifindex(link);
	rtnl_link_put(link);
	return idx;
}

int gb_nl_ifindexes(struct nl_sock *sk, const char *const *names, int n, int *idx)
{
	struct nl_cache *cache = NULL;
	int err = rtnl_link_alloc_cache(sk, AF_UNSPEC, &cache);

	if (err < 0)
		return gb_nle2errno(err);
	for (int i = 0; i < n; i++) {
		int x = rtnl_link_name2i(cache, names[i]);

		idx[i] = x > 0 ? x : -ENODEV;
	}
	nl_cache_free(cache);
	return 0;
}

/* Whether a device's link-local address can be suppressed: -1 not known
 * yet, 0 no, 1 yes.  One decision for the process, made by have_ipv6()
 * and revised by gb_nl_link_config() when the kernel refuses the
 * attribute; link_config_msg() reads it for single requests and batches
 * alike. */
static int ipv6ll = -1;

/* 1 if the kernel has IPv6 (else a device has no link-local address to
 * suppress, and the kernel refuses the request that would). */
static int have_ipv6(void)
{
	if (ipv6ll < 0)
		ipv6ll = access("/proc/sys/net/ipv6", F_OK) == 0;
	return ipv6ll;
}

/* The RTM_NEWLINK change of gb_nl_link_config(). */
static int link_config_msg(int ifindex, unsigned mtu, unsigned txqlen, unsigned flags,
			   struct nl_msg **msg)
{
	struct rtnl_link *orig = NULL, *chg = NULL;
	int err;

	if (!(orig = rtnl_link_alloc()) || !(chg = rtnl_link_alloc())) {
		err = -ENOMEM;
		goto cleanup;
	}
	rtnl_link_set_ifindex(orig, ifindex);
	if (mtu)
		rtnl_link_set_mtu(chg, mtu);
	if (txqlen)
		rtnl_link_set_txqlen(chg, txqlen);
	if (flags & GB_LINK_UP)
		rtnl_link_set_flags(chg, IFF_UP);
	if (flags & GB_LINK_FORWARD) {
		if ((err = rtnl_link_inet_set_conf(chg, IPV4_DEVCONF_FORWARDING, 1)) < 0 ||
		    (err = rtnl_link_inet_set_conf(chg, IPV4_DEVCONF_RP_FILTER, 0)) < 0) {
			err = gb_nle2errno(err);
			goto cleanup;
		}
	}
	if ((flags & GB_LINK_NO_IPV6LL) && have_ipv6()) {
		/* Without a link-local address the kernel sends no router
		 * solicitations or DAD probes that would pollute link counters. */
		if ((err = rtnl_link_inet6_set_addr_gen_mode(chg, IN6_ADDR_GEN_MODE_NONE)) < 0) {
			err = gb_nle2errno(err);
			goto cleanup;
		}
	}
	err = gb_nle2errno(rtnl_link_build_change_request(orig, chg, 0, msg));
cleanup:
	if (orig)
		rtnl_link_put(orig);
	if (chg)
		rtnl_link_put(chg);
	return err;
}

int gb_nl_link_config(struct nl_sock *sk, int ifindex, unsigned mtu, unsigned txqlen,
		      unsigned flags)
{
	struct nl_msg *msg = NULL;
	int err = link_config_msg(ifindex, mtu, txqlen, flags, &msg);

	if (!err)
		err = send_one(sk, msg);
	/* IPv6 present but refusing the attribute: no link-local addresses
	 * to suppress either (a kernel without IPv6: link_config_msg()); the
	 * later requests, batches too, leave it out from the start */
	if (err == -EAFNOSUPPORT && (flags & GB_LINK_NO_IPV6LL) && have_ipv6()) {
		ipv6ll = 0;
		return gb_nl_link_config(sk, ifindex, mtu, txqlen, flags & ~GB_LINK_NO_IPV6LL);
	}
	return err;
}

static struct nl_addr *v4addr(uint32_t a, int plen)
{
	uint32_t be = htonl(a);
	struct nl_addr *na = nl_addr_build(AF_INET, &be, 4);
	if (na)
		nl_addr_set_prefixlen(na, plen);
	return na;
}

int gb_nl_route_src(struct nl_sock *sk, uint32_t dst, uint32_t *src)
{
	struct rtnl_route *rt = NULL;
	struct nl_addr *d = v4addr(dst, 32), *ps;
	int err;

	if (!d)
		return -ENOMEM;
	err = rtnl_route_lookup(sk, d, &rt);
	nl_addr_put(d);
	/* libnl folds the kernel's "Network is unreachable" into NLE_FAILURE */
	if (err < 0)
		return err == -NLE_NOMEM ? -ENOMEM : -ENETUNREACH;
	if (rtnl_route_get_type(rt) != RTN_UNICAST)
		err = rtnl_route_get_type(rt) == RTN_LOCAL ? -EADDRINUSE : -ENETUNREACH;
	else if (!(ps = rtnl_route_get_pref_src(rt)) || nl_addr_get_len(ps) != 4)
		err = -EADDRNOTAVAIL;
	else {
		uint32_t be;

		memcpy(&be, nl_addr_get_binary_addr(ps), 4);
		*src = ntohl(be);
	}
	rtnl_route_put(rt);
	return err;
}

/*
 * The peer filter's program (eBPF, BPF_PROG_TYPE_SCHED_CLS, direct action):
 *
 *	if (bpf_skb_get_tunnel_key(skb, &k, 24, 0) != 0) return TC_ACT_SHOT;
 *	if ((u32)k.remote_ipv4 != peer) return TC_ACT_SHOT;
 *	if ((u32)k.tunnel_id != vni) return TC_ACT_SHOT;
 *	return TC_ACT_OK;
 *
 * 24 bytes: struct bpf_tunnel_key up to tunnel_label, a size every kernel
 * since 4.6 accepts.  The key is in host order.  The comparisons are 32-bit
 * (BPF_JMP32, Linux 5.1): a 64-bit one would sign-extend the immediate.
 */
#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
						.off = (o), .imm = (i) })
static int peer_prog(uint32_t peer, uint32_t vni)
{
	const struct bpf_insn prog[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -24),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 24),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_skb_get_tunnel_key),
		INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 6, 0),
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, BPF_REG_10, -20, 0),
		INSN(BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_1, 0, 4, (int32_t)peer),
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, BPF_REG_10, -24, 0),
		INSN(BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_1, 0, 2, (int32_t)vni),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, TC_ACT_OK),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, TC_ACT_SHOT),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static const char license[] = "Dual MIT/GPL";
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SCHED_CLS;
	a.insns = (uint64_t)(uintptr_t)prog;
	a.insn_cnt = sizeof(prog) / sizeof(prog[0]);
	a.license = (uint64_t)(uintptr_t)license;
	snprintf(a.prog_name, sizeof(a.prog_name), "gridbed_peer");
	int fd = (int)syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	return fd < 0 ? -errno : fd;
}
#undef INSN

/* A tc request (qdisc or filter) on @ifindex, with kind @kind, sent and
 * acknowledged; @opts_fd >= 0 adds cls_bpf's options for that program. */
static int tc_send(struct nl_sock *sk, int type, int ifindex, uint32_t parent, uint32_t handle,
		   uint32_t info, const char *kind, int opts_fd)
{
	struct tcmsg tcm = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex,
			     .tcm_parent = parent, .tcm_handle = handle, .tcm_info = info };
	struct nl_msg *msg = nlmsg_alloc_simple(type, NLM_F_CREATE | NLM_F_EXCL);
	struct nlattr *nest;

	if (!msg)
		return -ENOMEM;
	if (nlmsg_append(msg, &tcm, sizeof(tcm), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(msg, TCA_KIND, kind) < 0)
		goto full;
	if (opts_fd >= 0) {
		if (!(nest = nla_nest_start(msg, TCA_OPTIONS)) ||
		    nla_put_u32(msg, TCA_BPF_FD, (uint32_t)opts_fd) < 0 ||
		    nla_put_string(msg, TCA_BPF_NAME, "gridbed_peer") < 0 ||
		    nla_put_u32(msg, TCA_BPF_FLAGS, TCA_BPF_FLAG_ACT_DIRECT) < 0)
			goto full;
		nla_nest_end(msg, nest);
	}
	return gb_nle2errno(nl_send_sync(sk, msg)); /* frees msg */
full:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

int gb_nl_peer_filter(struct nl_sock *sk, int ifindex, uint32_t peer, uint32_t vni)
{
	int fd = peer_prog(peer, vni), err;

	if (fd < 0)
		return fd;
	err = tc_send(sk, RTM_NEWQDISC, ifindex, TC_H_CLSACT, TC_H_MAKE(TC_H_CLSACT, 0), 0,
		      "clsact", -1);
	if (!err)
		err = tc_send(sk, RTM_NEWTFILTER, ifindex,
			      TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS), 0,
			      TC_H_MAKE(1u << 16, htons(ETH_P_ALL)), "bpf", fd);
	close(fd); /* the filter holds the program */
	return err;
}

static int tunnel_rule(struct nl_sock *sk, int type, int flags, uint32_t pref)
{
	struct fib_rule_hdr h = { .family = AF_INET, .action = FR_ACT_NOP };
	struct nl_msg *msg = nlmsg_alloc_simple(type, flags);

	if (!msg)
		return -ENOMEM;
	if (nlmsg_append(msg, &h, sizeof(h), NLMSG_ALIGNTO) < 0 ||
	    nla_put_u32(msg, FRA_PRIORITY, pref) < 0 ||
	    nla_put_u64(msg, FRA_TUN_ID, htobe64(1)) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return gb_nle2errno(nl_send_sync(sk, msg));
}

int gb_nl_tunnel_metadata(struct nl_sock *sk, uint32_t pref)
{
	return tunnel_rule(sk, RTM_NEWRULE, NLM_F_CREATE | NLM_F_EXCL, pref);
}

int gb_nl_tunnel_metadata_del(struct nl_sock *sk, uint32_t pref)
{
	return tunnel_rule(sk, RTM_DELRULE, 0, pref);
}

/* The RTM_NEWADDR of gb_nl_addr_add(). */
static int addr_msg(int ifindex, uint32_t addr, int plen, struct nl_msg **msg)
{
	struct rtnl_addr *ra = NULL;
	struct nl_addr *la = NULL;
	int err = -ENOMEM;

	if (!(ra = rtnl_addr_alloc()) || !(la = v4addr(addr, plen)))
		goto cleanup;
	rtnl_addr_set_ifindex(ra, ifindex);
	rtnl_addr_set_family(ra, AF_INET);
	rtnl_addr_set_local(ra, la);
	rtnl_addr_set_prefixlen(ra, plen);
	/* A /32 on a point-to-point data link: no prefix route, we route
	 * explicitly. */
	rtnl_addr_set_flags(ra, IFA_F_NOPREFIXROUTE);
	err = gb_nle2errno(rtnl_addr_build_add_request(ra, NLM_F_CREATE | NLM_F_EXCL, msg));
cleanup:
	if (la)
		nl_addr_put(la);
	if (ra)
		rtnl_addr_put(ra);
	return err;
}

int gb_nl_addr_add(struct nl_sock *sk, int ifindex, uint32_t addr, int plen)
{
	struct nl_msg *msg = NULL;
	int err = addr_msg(ifindex, addr, plen, &msg);

	return err < 0 ? err : send_one(sk, msg);
}

/*
 * The route's metrics are added by hand: libnl's route object encodes every
 * metric as a u32, and RTAX_CC_ALGO is a string.  The request is libnl's
 * own (rtnl_route_build_add_request()) plus one RTA_METRICS nest.
 */
static int route_msg(struct rtnl_route *rt, const struct gb_nl_route_metrics *m, int flags,
		     struct nl_msg **out)
{
	struct nl_msg *msg = NULL;
	struct nlattr *nest;
	int err;

	if ((err = rtnl_route_build_add_request(rt, flags, &msg)) < 0)
		return gb_nle2errno(err);
	if (m && (m->initcwnd || m->congctl[0] || m->rto_min_ms)) {
		if (!(nest = nla_nest_start(msg, RTA_METRICS)) ||
		    (m->initcwnd && nla_put_u32(msg, RTAX_INITCWND, m->initcwnd) < 0) ||
		    (m->congctl[0] && nla_put_string(msg, RTAX_CC_ALGO, m->congctl) < 0) ||
		    (m->rto_min_ms && (nla_put_u32(msg, RTAX_LOCK, 1u << RTAX_RTO_MIN) < 0 ||
				       nla_put_u32(msg, RTAX_RTO_MIN, m->rto_min_ms) < 0))) {
			nlmsg_free(msg);
			return -EMSGSIZE;
		}
		nla_nest_end(msg, nest);
	}
	*out = msg;
	return 0;
}

static int route_send(struct nl_sock *sk, struct rtnl_route *rt,
		      const struct gb_nl_route_metrics *m, int flags)
{
	struct nl_msg *msg = NULL;
	int err = route_msg(rt, m, flags, &msg);

	return err < 0 ? err : send_one(sk, msg);
}

/* The RTM_NEWROUTE of gb_nl_route_add() (table main, @flags NLM_F_CREATE |
 * NLM_F_EXCL) and gb_nl_route_table_set() (@table, NLM_F_REPLACE). */
static int route_add_msg(uint32_t table, uint32_t dst, int plen, int ifindex, uint32_t gw,
			 const struct gb_nl_route_metrics *m, int flags, struct nl_msg **msg)
{
	struct rtnl_route *rt = NULL;
	struct rtnl_nexthop *nh = NULL;
	struct nl_addr *d = NULL, *g = NULL;
	int err = -ENOMEM;

	if (!(rt = rtnl_route_alloc()) || !(nh = rtnl_route_nh_alloc()) ||
	    !(d = v4addr(dst, plen)))
		goto cleanup;
	rtnl_route_set_family(rt, AF_INET);
	rtnl_route_set_table(rt, table);
	rtnl_route_set_protocol(rt, RTPROT_STATIC);
	rtnl_route_set_type(rt, RTN_UNICAST);
	if ((err = rtnl_route_set_dst(rt, d)) < 0) {
		err = gb_nle2errno(err);
		goto cleanup;
	}
	rtnl_route_nh_set_ifindex(nh, ifindex);
	if (gw) {
		if (!(g = v4addr(gw, 32))) {
			err = -ENOMEM;
			goto cleanup;
		}
		rtnl_route_nh_set_gateway(nh, g);
		/* The gateway is a /32 on the other end of a veth: there is no
		 * connected subnet, so tell the kernel the hop is on-link. */
		rtnl_route_nh_set_flags(nh, RTNH_F_ONLINK);
		rtnl_route_set_scope(rt, RT_SCOPE_UNIVERSE);
	} else {
		rtnl_route_set_scope(rt, RT_SCOPE_LINK);
	}
	rtnl_route_add_nexthop(rt, nh);
	nh = NULL; /* owned by the route now */
	err = route_msg(rt, m, flags, msg);
cleanup:
	if (nh)
		rtnl_route_nh_free(nh);
	if (d)
		nl_addr_put(d);
	if (g)
		nl_addr_put(g);
	if (rt)
		rtnl_route_put(rt);
	return err;
}

int gb_nl_route_add(struct nl_sock *sk, uint32_t dst, int plen, int ifindex, uint32_t gw,
		    const struct gb_nl_route_metrics *m)
{
	struct nl_msg *msg = NULL;
	int err = route_add_msg(RT_TABLE_MAIN, dst, plen, ifindex, gw, m, NLM_F_CREATE | NLM_F_EXCL,
				&msg);

	return err < 0 ? err : send_one(sk, msg);
}

int gb_nl_route_table_set(struct nl_sock *sk, uint32_t table, uint32_t dst, int plen,
			  int ifindex, uint32_t gw, const struct gb_nl_route_metrics *m)
{
	struct nl_msg *msg = NULL;
	int err = route_add_msg(table, dst, plen, ifindex, gw, m, NLM_F_CREATE | NLM_F_REPLACE,
				&msg);

	return err < 0 ? err : send_one(sk, msg);
}

int gb_nl_route_table_del(struct nl_sock *sk, uint32_t table, uint32_t dst, int plen)
{
	struct rtmsg r = { .rtm_family = AF_INET, .rtm_dst_len = (unsigned char)plen,
			   .rtm_table = table < 256 ? (unsigned char)table : RT_TABLE_UNSPEC,
			   .rtm_scope = RT_SCOPE_NOWHERE };
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_DELROUTE, 0);

	if (!msg)
		return -ENOMEM;
	if (nlmsg_append(msg, &r, sizeof(r), NLMSG_ALIGNTO) < 0 ||
	    nla_put_u32(msg, RTA_TABLE, table) < 0 || nla_put_u32(msg, RTA_DST, htonl(dst)) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return gb_nle2errno(nl_send_sync(sk, msg));
}

/* The gridbed metrics of an RTA_METRICS nest @nest (NULL: none) into @out. */
static void metrics_parse(struct nlattr *nest, struct gb_nl_route_metrics *out)
{
	struct nlattr *mx[RTAX_MAX + 1];

	if (!nest || nla_parse_nested(mx, RTAX_MAX, nest, NULL) < 0)
		return;
	if (mx[RTAX_INITCWND])
		out->initcwnd = nla_get_u32(mx[RTAX_INITCWND]);
	if (mx[RTAX_CC_ALGO])
		nla_strlcpy(out->congctl, mx[RTAX_CC_ALGO], sizeof(out->congctl));
	if (mx[RTAX_RTO_MIN] && mx[RTAX_LOCK] &&
	    (nla_get_u32(mx[RTAX_LOCK]) & (1u << RTAX_RTO_MIN)))
		out->rto_min_ms = nla_get_u32(mx[RTAX_RTO_MIN]);
}

/* What gb_nl_route_get()'s answer said. */
struct route_get_query {
	struct gb_nl_route_info *out;
	int err; /* 1: answered; else 0 or -errno */
};

static int route_get_cb(struct nl_msg *msg, void *arg)
{
	struct route_get_query *q = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct rtmsg *r = nlmsg_data(h);
	struct nlattr *tb[RTA_MAX + 1];

	if (h->nlmsg_type != RTM_NEWROUTE || nlmsg_parse(h, sizeof(*r), tb, RTA_MAX, NULL) < 0)
		return NL_OK;
	if (r->rtm_type != RTN_UNICAST || !tb[RTA_OIF]) {
		q->err = -ENETUNREACH;
		return NL_OK;
	}
	q->err = 1;
	q->out->ifindex = (int)nla_get_u32(tb[RTA_OIF]);
	q->out->gw = tb[RTA_GATEWAY] ? ntohl(nla_get_u32(tb[RTA_GATEWAY])) : 0;
	metrics_parse(tb[RTA_METRICS], &q->out->m);
	return NL_OK;
}

int gb_nl_route_get(struct nl_sock *sk, uint32_t dst, struct gb_nl_route_info *out)
{
	struct rtmsg r = { .rtm_family = AF_INET, .rtm_dst_len = 32 };
	struct route_get_query q = { out, 0 };
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETROUTE, NLM_F_REQUEST);
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!msg || !cb)
		goto out;
	err = -EMSGSIZE;
	if (nlmsg_append(msg, &r, sizeof(r), NLMSG_ALIGNTO) < 0 ||
	    nla_put_u32(msg, RTA_DST, htonl(dst)) < 0)
		goto out;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, route_get_cb, &q);
	err = nl_send_auto(sk, msg);
	if (err >= 0)
		err = nl_recvmsgs(sk, cb);
	/* the kernel answers "Network is unreachable" with an error */
	err = err < 0 ? gb_nle2errno(err) : q.err < 0 ? q.err : q.err ? 0 : -ENETUNREACH;
out:
	nlmsg_free(msg);
	nl_cb_put(cb);
	return err;
}

int gb_nl_port_rule(struct nl_sock *sk, int add, uint32_t pref, uint32_t table, uint16_t sport,
		    uint16_t dport)
{
	struct fib_rule_hdr h = { .family = AF_INET, .action = FR_ACT_TO_TBL,
				  .table = table < 256 ? (unsigned char)table : RT_TABLE_UNSPEC };
	struct fib_rule_port_range sp = { sport, sport }, dp = { dport, dport };
	struct nl_msg *msg = nlmsg_alloc_simple(add ? RTM_NEWRULE : RTM_DELRULE,
						add ? NLM_F_CREATE | NLM_F_EXCL : 0);

	if (!msg)
		return -ENOMEM;
	if (nlmsg_append(msg, &h, sizeof(h), NLMSG_ALIGNTO) < 0 ||
	    nla_put_u32(msg, FRA_PRIORITY, pref) < 0 || nla_put_u32(msg, FRA_TABLE, table) < 0 ||
	    nla_put_u8(msg, FRA_IP_PROTO, IPPROTO_TCP) < 0 ||
	    nla_put(msg, FRA_SPORT_RANGE, sizeof(sp), &sp) < 0 ||
	    nla_put(msg, FRA_DPORT_RANGE, sizeof(dp), &dp) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return gb_nle2errno(nl_send_sync(sk, msg));
}

int gb_nl_routes_set_metrics(struct nl_sock *sk, uint32_t block, int plen,
			     const struct gb_nl_route_metrics *m)
{
	struct nl_cache *cache = NULL;
	int err, n = 0;

	if ((err = rtnl_route_alloc_cache(sk, AF_INET, 0, &cache)) < 0)
		return gb_nle2errno(err);
	for (struct nl_object *o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o)) {
		struct rtnl_route *rt = (struct rtnl_route *)o, *c;
		struct nl_addr *d = rtnl_route_get_dst(rt);
		uint32_t a;

		if (rtnl_route_get_table(rt) != RT_TABLE_MAIN || !d ||
		    nl_addr_get_family(d) != AF_INET || (int)nl_addr_get_prefixlen(d) < plen)
			continue;
		memcpy(&a, nl_addr_get_binary_addr(d), 4);
		if (plen && ((ntohl(a) ^ block) >> (32 - plen)))
			continue;
		if (!(c = (struct rtnl_route *)nl_object_clone(o))) {
			err = -ENOMEM;
			break;
		}
		/* libnl reads RTAX_CC_ALGO as a u32 and would send it back so:
		 * drop its copies, route_send() adds the real ones */
		for (int x = 1; x <= RTAX_MAX; x++)
			rtnl_route_unset_metric(c, x);
		err = route_send(sk, c, m, NLM_F_REPLACE);
		rtnl_route_put(c);
		if (err < 0)
			break;
		n++;
	}
	nl_cache_free(cache);
	return err < 0 ? err : n;
}

struct metrics_query {
	uint32_t dst;
	int plen, found;
	struct gb_nl_route_metrics *out;
};

static int metrics_cb(struct nl_msg *msg, void *arg)
{
	struct metrics_query *q = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct rtmsg *r = nlmsg_data(h);
	struct nlattr *tb[RTA_MAX + 1];

	if (h->nlmsg_type != RTM_NEWROUTE || r->rtm_family != AF_INET ||
	    r->rtm_table != RT_TABLE_MAIN || r->rtm_dst_len != q->plen ||
	    nlmsg_parse(h, sizeof(*r), tb, RTA_MAX, NULL) < 0 || !tb[RTA_DST] ||
	    ntohl(nla_get_u32(tb[RTA_DST])) != q->dst)
		return NL_OK;
	q->found = 1;
	metrics_parse(tb[RTA_METRICS], q->out);
	return NL_OK;
}

int gb_nl_route_metrics(struct nl_sock *sk, uint32_t dst, int plen,
			struct gb_nl_route_metrics *out)
{
	struct rtmsg r = { .rtm_family = AF_INET };
	struct metrics_query q = { dst, plen, 0, out };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int err;

	memset(out, 0, sizeof(*out));
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, metrics_cb, &q);
	err = nl_send_simple(sk, RTM_GETROUTE, NLM_F_DUMP, &r, sizeof(r));
	if (err >= 0)
		err = nl_recvmsgs(sk, cb);
	nl_cb_put(cb);
	if (err < 0)
		return gb_nle2errno(err);
	return q.found ? 0 : -ENOENT;
}

static int qdisc_add(struct nl_sock *sk, struct rtnl_qdisc *q, int replace)
{
	int flags = NLM_F_CREATE | (replace ? NLM_F_REPLACE : NLM_F_EXCL);
	return gb_nle2errno(rtnl_qdisc_add(sk, q, flags));
}

/* The RTM_NEWQDISC of gb_nl_tbf(). */
static int tbf_msg(int ifindex, uint32_t parent, uint32_t handle, uint64_t rate_bps,
		   uint32_t burst_bytes, uint32_t limit_bytes, uint32_t overhead, int replace,
		   struct nl_msg **msg)
{
	struct rtnl_qdisc *q;
	int err;
	uint64_t Bps = rate_bps / 8;

	if (Bps == 0 || Bps > INT32_MAX)
		return -ERANGE; /* libnl's TBF carries a 32-bit byte rate */
	if (overhead > UINT16_MAX)
		return -ERANGE; /* tc_ratespec.overhead is 16 bits */
	if (!(q = rtnl_qdisc_alloc()))
		return -ENOMEM;
	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), parent);
	rtnl_tc_set_handle(TC_CAST(q), handle);
	if ((err = rtnl_tc_set_kind(TC_CAST(q), "tbf")) < 0) {
		err = gb_nle2errno(err);
		goto cleanup;
	}
	rtnl_qdisc_tbf_set_limit(q, (int)limit_bytes);
	rtnl_qdisc_tbf_set_rate(q, (int)Bps, (int)burst_bytes, 0);
	/* libnl puts it in the rate's tc_ratespec.overhead (what `tc ... tbf
	 * overhead N` sets), which the kernel adds to every packet's length
	 * when it charges the bucket (psched_l2t_ns()). */
	if (overhead)
		rtnl_tc_set_overhead(TC_CAST(q), overhead);
	err = gb_nle2errno(rtnl_qdisc_build_add_request(
		q, NLM_F_CREATE | (replace ? NLM_F_REPLACE : NLM_F_EXCL), msg));
cleanup:
	rtnl_qdisc_put(q);
	return err;
}

int gb_nl_tbf(struct nl_sock *sk, int ifindex, uint32_t parent, uint32_t handle,
	      uint64_t rate_bps, uint32_t burst_bytes, uint32_t limit_bytes, uint32_t overhead,
	      int replace)
{
	struct nl_msg *msg = NULL;
	int err = tbf_msg(ifindex, parent, handle, rate_bps, burst_bytes, limit_bytes, overhead,
			  replace, &msg);

	return err < 0 ? err : send_one(sk, msg);
}

int gb_nl_netem(struct nl_sock *sk, int ifindex, uint32_t parent, uint32_t handle,
		uint64_t delay_ns, uint64_t jitter_ns, double loss, uint32_t limit_pkts,
		int replace)
{
	struct rtnl_qdisc *q;
	int err;

	if (delay_ns / 1000 > INT32_MAX || jitter_ns / 1000 > INT32_MAX)
		return -ERANGE;
	if (!(q = rtnl_qdisc_alloc()))
		return -ENOMEM;
	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), parent);
	rtnl_tc_set_handle(TC_CAST(q), handle);
	if ((err = rtnl_tc_set_kind(TC_CAST(q), "netem")) < 0) {
		err = gb_nle2errno(err);
		goto cleanup;
	}
	/* libnl's netem takes microseconds and converts them to ticks. */
	rtnl_netem_set_delay(q, (int)(delay_ns / 1000));
	if (jitter_ns)
		rtnl_netem_set_jitter(q, (int)(jitter_ns / 1000));
	/* netem's loss is a u32 fraction of 2^32 - 1. */
	rtnl_netem_set_loss(q, (int)(uint32_t)(loss * 4294967295.0));
	rtnl_netem_set_limit(q, (int)limit_pkts);
	err = qdisc_add(sk, q, replace);
cleanup:
	rtnl_qdisc_put(q);
	return err;
}

int gb_nl_qdisc_del_root(struct nl_sock *sk, int ifindex)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();
	if (!q)
		return -ENOMEM;
	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
	int err = gb_nle2errno(rtnl_qdisc_delete(sk, q));
	rtnl_qdisc_put(q);
	/* Deleting the default qdisc answers ENOENT/EINVAL: nothing to do. */
	return (err == -ENOENT || err == -EINVAL) ? 0 : err;
}

int gb_nl_qdisc_get(struct nl_sock *sk, int ifindex, uint32_t handle,
		    struct gb_qdisc_info *info)
{
	struct nl_cache *cache = NULL;
	int err;

	memset(info, 0, sizeof(*info));
	if ((err = rtnl_qdisc_alloc_cache(sk, &cache)) < 0)
		return gb_nle2errno(err);
	struct rtnl_qdisc *q = rtnl_qdisc_get(cache, ifindex, handle);
	if (!q) {
		err = -ENOENT;
		goto cleanup;
	}
	snprintf(info->kind, sizeof(info->kind), "%s", rtnl_tc_get_kind(TC_CAST(q)));
	if (!strcmp(info->kind, "tbf")) {
		int r = rtnl_qdisc_tbf_get_rate(q);
		info->rate_bps = r > 0 ? (uint64_t)r * 8 : 0;
		info->overhead = rtnl_tc_get_overhead(TC_CAST(q));
		int l = rtnl_qdisc_tbf_get_limit(q);
		info->limit = l > 0 ? (uint32_t)l : 0;
	} else if (!strcmp(info->kind, "netem")) {
		int d = rtnl_netem_get_delay(q), j = rtnl_netem_get_jitter(q);
		int l = rtnl_netem_get_loss(q), lim = rtnl_netem_get_limit(q);
		info->delay_ns = d > 0 ? (uint64_t)d * 1000 : 0;
		info->jitter_ns = j > 0 ? (uint64_t)j * 1000 : 0;
		info->loss = l > 0 ? (uint32_t)l / 4294967295.0 : 0;
		info->limit = lim > 0 ? (uint32_t)lim : 0;
	}
	rtnl_qdisc_put(q);
	err = 0;
cleanup:
	nl_cache_free(cache);
	return err;
}

int gb_nl_probe_netem(struct nl_sock *sk)
{
	int lo = gb_nl_ifindex(sk, "lo");
	if (lo < 0)
		return lo;
	int err = gb_nl_netem(sk, lo, TC_H_ROOT, TC_H_MAKE(0xfff0u << 16, 0), 0, 0, 0, 1000, 0);
	if (err == 0) {
		gb_nl_qdisc_del_root(sk, lo);
		return 1;
	}
	/* "Specified qdisc kind is unknown" comes back as ENOENT. */
	return (err == -ENOENT || err == -EOPNOTSUPP || err == -EINVAL) ? 0 : err;
}

struct overlap_ctx {
	uint32_t pfx, mask;
	int found;
	char *what;
	int whatlen;
};

static void overlap_cb(struct nl_object *obj, void *arg)
{
	struct overlap_ctx *c = arg;
	struct rtnl_route *rt = (struct rtnl_route *)obj;
	struct nl_addr *dst = rtnl_route_get_dst(rt);

	if (c->found || rtnl_route_get_family(rt) != AF_INET || !dst)
		return;
	/* Only real destinations count: the kernel's local/broadcast entries
	 * for the host's own addresses are covered by their subnets, and a
	 * default route overlaps everything, so it is not a conflict. */
	int type = rtnl_route_get_type(rt);
	if (type != RTN_UNICAST && type != RTN_BLACKHOLE && type != RTN_UNREACHABLE &&
	    type != RTN_PROHIBIT)
		return;
	int plen = nl_addr_get_prefixlen(dst);
	if (plen == 0)
		return;
	uint32_t a = 0;
	if (nl_addr_get_len(dst) == 4)
		memcpy(&a, nl_addr_get_binary_addr(dst), 4);
	a = ntohl(a);
	uint32_t m = plen >= 32 ? 0xffffffffu : ~(0xffffffffu >> plen);
	uint32_t common = m & c->mask; /* the shorter of the two masks */
	if ((a & common) == (c->pfx & common)) {
		char buf[64];
		c->found = 1;
		snprintf(c->what, (size_t)c->whatlen, "%s",
			 nl_addr2str(dst, buf, sizeof(buf)));
	}
}

int gb_nl_route_overlap(struct nl_sock *sk, uint32_t pfx, int plen, char *what, int whatlen)
{
	struct nl_cache *cache = NULL;
	int err = rtnl_route_alloc_cache(sk, AF_INET, 0, &cache);
	if (err < 0)
		return gb_nle2errno(err);
	struct overlap_ctx c = {
		.pfx = pfx,
		.mask = plen >= 32 ? 0xffffffffu : ~(0xffffffffu >> plen),
		.what = what,
		.whatlen = whatlen,
	};
	nl_cache_foreach(cache, overlap_cb, &c);
	nl_cache_free(cache);
	return c.found;
}

/* ---- batches (nl.h, struct gb_nl_batch) ------------------------------- */

/* The batches' own sequence numbers, apart from libnl's (which start at the
 * time of day and must stay in step with the acknowledgements it reads). */
static uint32_t batch_seq = 0x40000000u;

void gb_nl_batch_init(struct gb_nl_batch *b, struct nl_sock *sk)
{
	memset(b, 0, sizeof(*b));
	b->sk = sk;
}

static void batch_fail(struct gb_nl_batch *b, int err, int tag)
{
	if (err < 0 && !b->err) {
		b->err = err;
		b->err_tag = tag;
	}
}

/* Send the requests in b->buf, the last asking for an acknowledgement, and
 * read the kernel's answers up to that one. */
static void batch_flush(struct gb_nl_batch *b)
{
	unsigned char rb[16384];
	int first = b->ntags - b->n, fd = nl_socket_get_fd(b->sk), done = 0;
	uint32_t last = b->seq0 + (uint32_t)b->n - 1;
	struct nlmsghdr *h;

	if (!b->n)
		return;
	((struct nlmsghdr *)(b->buf + b->last))->nlmsg_flags |= NLM_F_ACK;
	int r = nl_sendto(b->sk, b->buf, b->len);

	if (r < 0) {
		batch_fail(b, gb_nle2errno(r), b->tags[first]);
		done = 1;
	}
	while (!done) {
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t got;

		/* the kernel answers before sendto() returns: a wait is a lost answer */
		if ((r = poll(&pf, 1, 10000)) <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			batch_fail(b, r < 0 ? -errno : -ETIMEDOUT, b->tags[first]);
			break;
		}
		if ((got = recv(fd, rb, sizeof(rb), 0)) < 0) {
			if (errno == EINTR)
				continue;
			batch_fail(b, -errno, b->tags[first]);
			break;
		}
		int n = (int)got;

		for (h = (struct nlmsghdr *)rb; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			uint32_t i = h->nlmsg_seq - b->seq0;

			if (h->nlmsg_type != NLMSG_ERROR || i >= (uint32_t)b->n)
				continue;	/* not one of ours */
			batch_fail(b, ((struct nlmsgerr *)NLMSG_DATA(h))->error,
				   b->tags[first + (int)i]);
			done |= h->nlmsg_seq == last;
		}
	}
	b->len = 0;
	b->n = 0;
}

/* Queue @msg (freed here), or note @err, the failure to build it. */
static int batch_add(struct gb_nl_batch *b, struct nl_msg *msg, int err)
{
	struct nlmsghdr *h;
	size_t len;

	if (err < 0) {
		batch_fail(b, err, b->tag);
		return err;
	}
	h = nlmsg_hdr(msg);
	len = NLMSG_ALIGN(h->nlmsg_len);
	if (b->n && b->len + len > GB_NL_BATCH_BYTES)
		batch_flush(b);
	if (b->len + len > b->cap) {
		unsigned char *nb = realloc(b->buf, 2 * (b->len + len));

		if (!nb)
			goto nomem;
		b->buf = nb;
		b->cap = 2 * (b->len + len);
	}
	if (b->ntags == b->tagcap) {
		int *nt = realloc(b->tags, sizeof(int) * (size_t)(2 * b->tagcap + 16));

		if (!nt)
			goto nomem;
		b->tags = nt;
		b->tagcap = 2 * b->tagcap + 16;
	}
	if (!b->n)
		b->seq0 = batch_seq;
	h->nlmsg_seq = batch_seq++;
	h->nlmsg_pid = nl_socket_get_local_port(b->sk);
	h->nlmsg_flags = (uint16_t)((h->nlmsg_flags | NLM_F_REQUEST) & ~NLM_F_ACK);
	b->last = b->len;
	memcpy(b->buf + b->len, h, h->nlmsg_len);
	memset(b->buf + b->len + h->nlmsg_len, 0, len - h->nlmsg_len);
	b->len += len;
	b->n++;
	b->tags[b->ntags++] = b->tag;
	nlmsg_free(msg);
	return 0;
nomem:
	nlmsg_free(msg);
	batch_fail(b, -ENOMEM, b->tag);
	return -ENOMEM;
}

int gb_nl_batch_finish(struct gb_nl_batch *b, int *tag)
{
	int err;

	batch_flush(b);
	err = b->err;
	if (tag)
		*tag = b->err_tag;
	free(b->buf);
	free(b->tags);
	gb_nl_batch_init(b, b->sk);
	return err;
}

int gb_nl_batch_link_config(struct gb_nl_batch *b, int ifindex, unsigned mtu, unsigned txqlen,
			    unsigned flags)
{
	struct nl_msg *msg = NULL;
	int err = link_config_msg(ifindex, mtu, txqlen, flags, &msg);

	return batch_add(b, msg, err);
}

int gb_nl_batch_addr_add(struct gb_nl_batch *b, int ifindex, uint32_t addr, int plen)
{
	struct nl_msg *msg = NULL;

	int err = addr_msg(ifindex, addr, plen, &msg);

	return batch_add(b, msg, err);
}

int gb_nl_batch_route_add(struct gb_nl_batch *b, uint32_t dst, int plen, int ifindex,
			  uint32_t gw, const struct gb_nl_route_metrics *m)
{
	struct nl_msg *msg = NULL;

	int err = route_add_msg(RT_TABLE_MAIN, dst, plen, ifindex, gw, m,
				NLM_F_CREATE | NLM_F_EXCL, &msg);

	return batch_add(b, msg, err);
}

int gb_nl_batch_tbf(struct gb_nl_batch *b, int ifindex, uint32_t parent, uint32_t handle,
		    uint64_t rate_bps, uint32_t burst_bytes, uint32_t limit_bytes,
		    uint32_t overhead, int replace)
{
	struct nl_msg *msg = NULL;

	int err = tbf_msg(ifindex, parent, handle, rate_bps, burst_bytes, limit_bytes, overhead,
			  replace, &msg);

	return batch_add(b, msg, err);
}

int gb_nl_batch_veth(struct gb_nl_batch *b, const char *name, int ifindex, const char *peer,
		     int peer_nsfd, int peer_ifindex, unsigned mtu)
{
	struct nl_msg *msg = NULL;

	int err = veth_msg(name, ifindex, peer, peer_nsfd, peer_ifindex, mtu, &msg);

	return batch_add(b, msg, err);
}
