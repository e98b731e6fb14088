/* SPDX-License-Identifier: MIT */
/*
 * shaping.c - the backends' table (gb_shaper_find()) and the helpers both
 * backends share: the TBF burst, a direction's queue limit and its
 * bandwidth-delay product, a direction's device (shaping.h).
 */
#include "shaping.h"
#include "nl.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

const struct gb_shaper *gb_shaper_find(const char *name)
{
	static const struct gb_shaper *all[] = { &gb_shaper_netem, &gb_shaper_tap };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

uint32_t gb_tbf_burst(uint64_t rate_bps, uint32_t mtu, uint32_t overhead)
{
	/* The kernel's largest packet is the burst less the overhead (tbf's
	 * max_size, psched_ns_t2l()): a larger one is dropped.  Without an
	 * overhead the bucket holds 1 ms at the rate, at least two MTU
	 * packets.  With one (a per_packet cost, seed 003's Delta: "the sender
	 * can inject only one message at a time") it holds one MTU packet and
	 * its overhead, and 64 bytes for the rounding of the kernel's
	 * time-based bucket: so even after an idle spell the second packet
	 * leaves a whole cost after the first, not in a burst. */
	uint64_t ms = rate_bps / 8 / 1000, two = 2ull * ((uint64_t)mtu + overhead);
	uint64_t b = overhead ? (uint64_t)mtu + overhead + 64 : ms > two ? ms : two;

	return b > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)b;
}

uint32_t gb_tbf_overhead(const struct gb_linkdir *p)
{
	/* Topology units: under dilation k the wire rate is rate / k and the
	 * cost on the wire per_packet * k, and (per_packet * k) * (rate / k)
	 * is the same bytes, so the overhead is not dilated. */
	uint64_t o = gb_ppkt_bytes(p->per_packet_ns, p->rate_bps);
	return o > UINT32_MAX ? UINT32_MAX : (uint32_t)o;
}

uint64_t gb_ppkt_of_overhead(uint32_t overhead, uint64_t rate_bps)
{
	if (!rate_bps)
		return 0;
	return (uint64_t)llround((double)overhead * 8e9 / (double)rate_bps);
}

uint32_t gb_limit_of(const struct gb_topo *t, int dl)
{
	const struct gb_linkdir *p = gb_topo_dir((struct gb_topo *)t, dl);
	return p->limit ? p->limit : gb_topo_default_limit(t, dl);
}

uint32_t gb_bdp_pkts(const struct gb_topo *t, int dl)
{
	const struct gb_linkdir *p = gb_topo_dir((struct gb_topo *)t, dl);
	double bytes = (double)p->rate_bps / 8.0 * ((double)(p->delay_ns + p->jitter_ns) / 1e9);
	return (uint32_t)(bytes / (t->mtu ? t->mtu : 1500)) + 1;
}

int gb_grid_dir_ifindex(struct gb_grid *g, int dl)
{
	char name[16];

	if (g->ifidx && g->ifidx[dl] > 0)
		return g->ifidx[dl];
	return gb_nl_ifindex(g->sk[gb_topo_dir_from(g->topo, dl)], gb_ifname(dl / 2, name));
}
