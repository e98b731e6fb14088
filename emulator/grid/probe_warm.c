/* SPDX-License-Identifier: MIT */
/*
 * probe_warm.c - a probe's TCP connection that starts with a window of the
 * caller's choosing instead of the host's initial window (probe_child.h,
 * gb_probe_warm_begin()); gridmon --warm gives each pair the window of its
 * last reading (collectives/monitor/gridmon.c).
 *
 * Why: on teragrid-public a far pair of gridmon's spent 6.1 of its 12.1
 * round trips in slow start, from the kernel's 10 segments to the path's
 * bandwidth-delay product (docs/measurements.md, session 49).  A window
 * taken from the last reading starts near that product, and slow start
 * still goes on from it, so a path whose bandwidth came back since is
 * still found: only the ceiling moves, not the search.
 *
 * How: the initial window is a route metric (RTAX_INITCWND).  The host's
 * own routes carry the topology's (emulator/grid/hosttcp.c) and serve MPI's
 * connections too, so the probe gets a route of its own, for its one
 * connection:
 *
 *	rule  pref WARM_PREF  ipproto tcp  sport S  dport D  lookup WARM_TABLE
 *	route dst/32 table WARM_TABLE, the host's route to dst copied (its
 *	      interface, gateway and metrics: congestion control, and a
 *	      dilated grid's minimum RTO) with initcwnd N
 *
 * S is the probe socket's own source port (bound before it connects), D the
 * sink's; both go away once the connection is established, as the kernel
 * took the window when the handshake ended (tcp_init_transfer()).  A probe
 * killed in between leaves a rule for one source port and a route that only
 * that rule can reach, in the grid's namespace; `gridemu down` removes them
 * with it.
 *
 * The sink's receive window must not be what limits the first round trips
 * (the kernel starts a receiver at 10 segments and grows it as data come,
 * about doubling a round trip, which is slow start again), so the sink of
 * a warm probe takes a fixed receive buffer (gb_probe_server_open()'s
 * @rcvbuf; gridmon's is 8 x the window, collectives/monitor/mon_probe.c).
 */
#include "nl.h"
#include "probe_child.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/* The table and rule priority of the probes' routes: after the local
 * table's rule (0) and before the main table's (32766) and a split grid's
 * metadata rule (GB_PART_META_PREF, 32765); no other table of gridbed's. */
#define WARM_TABLE 4710
#define WARM_PREF 4710

int gb_probe_warm_begin(struct gb_probe_warm *w, int s, uint32_t daddr, int dport,
			unsigned initcwnd)
{
	struct sockaddr_in me = { .sin_family = AF_INET };
	socklen_t len = sizeof(me);
	struct gb_nl_route_info ri;
	int err;

	memset(w, 0, sizeof(*w));
	if (bind(s, (void *)&me, sizeof(me)) < 0 || getsockname(s, (void *)&me, &len) < 0)
		return -errno;
	w->sport = ntohs(me.sin_port);
	w->dport = (uint16_t)dport;
	w->daddr = daddr;
	/* this namespace's: the probe's child is in the source host's */
	if ((err = gb_nl_open(-1, &w->sk)) < 0)
		return err;
	if ((err = gb_nl_route_get(w->sk, daddr, &ri)) < 0)
		goto fail;
	ri.m.initcwnd = initcwnd;
	if ((err = gb_nl_route_table_set(w->sk, WARM_TABLE, daddr, 32, ri.ifindex, ri.gw,
					 &ri.m)) < 0)
		goto fail;
	w->route = 1;
	err = gb_nl_port_rule(w->sk, 1, WARM_PREF, WARM_TABLE, w->sport, w->dport);
	if (err < 0 && err != -EEXIST) /* EEXIST: a killed probe's, the same */
		goto fail;
	w->rule = 1;
	return 0;
fail:
	gb_probe_warm_end(w);
	return err;
}

void gb_probe_warm_end(struct gb_probe_warm *w)
{
	int err = 0;

	/* a delete that fails leaves what is harmless (the header comment)
	 * and goes with the grid: there is nothing more to do about it */
	if (w->rule)
		err = gb_nl_port_rule(w->sk, 0, WARM_PREF, WARM_TABLE, w->sport, w->dport);
	if (w->route)
		err = gb_nl_route_table_del(w->sk, WARM_TABLE, w->daddr, 32);
	(void)err;
	w->rule = w->route = 0;
	gb_nl_close(&w->sk);
}
