/* SPDX-License-Identifier: MIT */
/*
 * shaping_netem.c - the kernel backend: veth pairs shaped by sch_netem, with
 * the rate in a TBF child.
 *
 *   sender ns                                        receiver ns
 *   d<k> egress: netem 1: (delay, jitter, loss)       d<k>
 *                 `-- tbf 10: (rate, queue limit) ---->
 *
 * netem sits on top so its time-sorted queue holds only the packets in
 * flight, and TBF below it is the bottleneck queue of `limit` packets, which
 * matches what a router's output queue does.
 */
#include "shaping.h"
#include "dilate.h"
#include "netns.h"
#include "nl.h"
#include "partition.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>

#define NETEM_HANDLE TC_H_MAKE(1u << 16, 0)
#define TBF_HANDLE TC_H_MAKE(10u << 16, 0)
#define TBF_PARENT TC_H_MAKE(1u << 16, 1)

static int netem_probe(struct gb_grid *g, struct gb_err *e)
{
	int r = gb_nl_probe_netem(g->mgmt_sk);
	if (r == 0)
		gb_err_set(e, "the kernel has no sch_netem (\"Specified qdisc kind is unknown\")");
	else if (r < 0)
		gb_err_set(e, "cannot probe for sch_netem: %s", strerror(-r));
	return r;
}

static int netem_create_links(struct gb_grid *g, const char *tapd_path, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	char name[16];
	for (int k = 0; k < t->nlinks; k++) {
		const struct gb_link *l = &t->links[k];
		int err;

		gb_ifname(k, name);
		if (!gb_grid_local(g, l->a) && !gb_grid_local(g, l->b))
			continue;       /* wholly on the peer machine (partition.h) */
		if (gb_part_cross(g, k)) {
			/* the peer's end is its own d<k>: a VXLAN at each end */
			int here = gb_grid_local(g, l->a) ? l->a : l->b;

			if ((err = gb_part_vxlan(g, name, GB_PART_VNI_BASE + (uint32_t)k,
						 g->nsfd[here], t->mtu, e)) < 0)
				return err;
			continue;
		}
		err = gb_nl_veth(g->sk[l->a], name, name, g->nsfd[l->b], t->mtu);
		if (err < 0) {
			gb_err_set(e, "link '%s': cannot create veth '%s': %s", l->name, name,
				   strerror(-err));
			return err;
		}
	}
	return 0;
}

static int netem_apply(struct gb_grid *g, int dl, int replace, struct gb_err *e)
{
	struct gb_topo *t = g->topo;
	const struct gb_linkdir *p = gb_topo_dir(t, dl);
	int from = gb_topo_dir_from(t, dl);
	int ifi = gb_grid_dir_ifindex(g, dl);
	int err;

	if (ifi < 0) {
		err = ifi;
		goto fail;
	}
	uint32_t limit = gb_limit_of(t, dl);
	/* With a rate below, netem must hold what is in flight plus the queue. */
	uint32_t nlimit = p->rate_bps ? limit + gb_bdp_pkts(t, dl) + 64 : limit;
	if (replace) {
		/* The tree's shape may change (rate added or removed): rebuild it.
		 * Only this direction's packets in flight are affected. */
		if ((err = gb_nl_qdisc_del_root(g->sk[from], ifi)) < 0)
			goto fail;
	}
	err = gb_nl_netem(g->sk[from], ifi, TC_H_ROOT, NETEM_HANDLE, gb_wire_ns(g, p->delay_ns),
			  gb_wire_ns(g, p->jitter_ns), p->loss, nlimit, 0);
	if (err < 0)
		goto fail;
	if (p->rate_bps) {
		/* the burst and the per-packet overhead are bytes: not dilated */
		uint32_t ovh = gb_tbf_overhead(p);
		err = gb_nl_tbf(g->sk[from], ifi, TBF_PARENT, TBF_HANDLE, gb_wire_rate(g, p->rate_bps),
				gb_tbf_burst(p->rate_bps, t->mtu, ovh), limit * t->mtu, ovh, 0);
		if (err < 0)
			goto fail;
	}
	return 0;
fail:
	gb_err_set(e, "link '%s' %s: cannot set up netem shaping: %s", t->links[dl / 2].name,
		   dl % 2 ? "b>a" : "a>b", strerror(-err));
	return err;
}

static int netem_read(struct gb_grid *g, int dl, struct gb_linkdir *p)
{
	struct gb_qdisc_info qi;
	int from = gb_topo_dir_from(g->topo, dl);
	int ifi = gb_grid_dir_ifindex(g, dl);
	if (ifi < 0)
		return ifi;
	memset(p, 0, sizeof(*p));
	if (gb_nl_qdisc_get(g->sk[from], ifi, NETEM_HANDLE, &qi) == 0 &&
	    !strcmp(qi.kind, "netem")) {
		p->delay_ns = gb_topo_ns(g, qi.delay_ns);
		p->jitter_ns = gb_topo_ns(g, qi.jitter_ns);
		p->loss = qi.loss;
		p->limit = qi.limit;
		p->set |= GB_LD_DELAY | GB_LD_JITTER | GB_LD_LOSS | GB_LD_LIMIT;
	}
	if (gb_nl_qdisc_get(g->sk[from], ifi, TBF_HANDLE, &qi) == 0 && !strcmp(qi.kind, "tbf")) {
		p->rate_bps = gb_topo_rate(g, qi.rate_bps);
		p->limit = g->topo->mtu ? qi.limit / g->topo->mtu : qi.limit;
		p->per_packet_ns = gb_ppkt_of_overhead(qi.overhead, p->rate_bps);
		p->set |= GB_LD_RATE | GB_LD_LIMIT | GB_LD_PPKT;
	}
	return 0;
}

static void netem_stop(struct gb_grid *g)
{
	/* Nothing outside the namespaces: deleting them removes the veths. */
}

const struct gb_shaper gb_shaper_netem = {
	.name = "netem",
	.summary = "kernel sch_netem on veth pairs, rate in a TBF child",
	.probe = netem_probe,
	.create_links = netem_create_links,
	.apply = netem_apply,
	.read = netem_read,
	.stop = netem_stop,
};
