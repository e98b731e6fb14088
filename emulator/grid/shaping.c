/* SPDX-License-Identifier: MIT */
/*
 * shaping.c - the backends' table (gb_shaper_find()) and the helpers both
 * backends share: the TBF burst, a direction's queue limit and its
 * bandwidth-delay product (shaping.h).
 */
#include "shaping.h"

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

uint32_t gb_tbf_burst(uint64_t rate_bps, uint32_t mtu)
{
	uint64_t ms = rate_bps / 8 / 1000;
	uint64_t b = ms > 2ull * mtu ? ms : 2ull * mtu;
	return b > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)b;
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
