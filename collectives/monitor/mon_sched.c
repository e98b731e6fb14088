/* SPDX-License-Identifier: MIT */
/*
 * mon_sched.c - which of a gridmon round's pairs run together
 * (gb_mon_schedule(), gridmon.h).
 *
 * A round measures every cluster pair (seed 000 s2.5: representative to
 * representative, and two hosts of a cluster for its diagonal).  One pair
 * at a time, a round on teragrid took 23.5 s, three times a quick
 * campaign's longest load (issue 13, cause 3).  Pairs that share no link
 * in the same direction do not disturb each other's measurement, so they
 * may run at the same time.  gridmon does not read the emulator's links
 * (decision 6); it knows only which cluster and site every host is in.
 * From that it assumes the usual grid shape:
 *
 *	a cluster reaches the rest of its site through its own uplink, and a
 *	site reaches other sites through its own access link; what lies
 *	between two sites' access links is not a shared bottleneck of two
 *	pairs that use different access links in each direction.
 *
 * So a pair A -> B holds these resources, in both directions (its data
 * goes one way, its ACKs the other; a first version that held only the
 * data's direction let one pair's slow-start queue delay another's ACKs
 * on the way back, and c2 -> c3 read 7 of 30 Mbit/s):
 *	cluster A's uplink;  cluster B's uplink;
 *	if A and B are in different sites: site(A)'s and site(B)'s access links;
 * and the diagonal pair of cluster A (its representative to its second
 * host) holds cluster A's uplink (which stands for the representative's
 * own link: every pair from or to A uses it).
 *
 * On teragrid, at most two pairs between sites run at once (4 sites).
 * Stages are built one after the other, each greedily: the next pair is
 * the one whose source cluster has waited longest since it last sent,
 * the first in rotation order (every cluster to the cluster 1 after it,
 * then 2 after it, ..., then the diagonals) among equals, so each
 * cluster's pairs spread evenly over the round instead of coming in one
 * block: a load on one cluster's link is met early in any round.  Where the assumption fails (a backbone that two site pairs
 * share), concurrent pairs read less; gridmon-accuracy.sh measures it.
 * `--concurrency N` caps a stage at N pairs; 1 measures one pair at a
 * time, as before (on an emulated grid the pairs also share the CPU of
 * the delay line: docs/measurements.md).  `--sites-free` (GB_MON_SITES_FREE)
 * is the user's word that no site access link is a shared bottleneck: each
 * carries all of its site's cluster uplinks at once (teragrid-public.yaml:
 * 300 Mbit/s for at most three 100 Mbit/s uplinks, a 400 Mbit/s backbone
 * for SDSC's two), so a pair holds its two uplinks only.
 *
 * `--duplex` (GB_MON_DUPLEX) reads issue 44's "pairs whose paths share no
 * link are probed at the same time" with a link as one direction, as the
 * emulator shapes it (every directed link has its own rate and queue): a
 * pair holds the directions its data take, cluster A's uplink out of A and
 * B's into B (and the site links out of site(A) and into site(B), unless
 * --sites-free), and a diagonal its representative's way out.  So a
 * cluster sends one probe and receives another at the same time, and on
 * teragrid a round is 8 stages instead of 16 (--sites-free): 7 in which
 * every cluster sends to another and receives from a third, then the
 * diagonals.  What it gives up: a pair's ACKs now meet another pair's data
 * on the way back (the first version's c2 -> c3 above).  Measured
 * (collectives/monitor/bench/gridmon-accuracy.sh, teragrid-public, k = 4,
 * session 39; docs/results.md, "The monitor"): idle, the round takes 6.4 s
 * instead of 12.4 s and every pair reads 0.78-1.00 of its path (0.18-0.97
 * without); but under a 70 % UDP load from c3-2 to c2-2, pairs whose ACKs
 * come back through a loaded direction that another pair's data fill read
 * as if they were loaded themselves (c2 -> c5 0.13, c8 -> c3 0.13 of an
 * unloaded path).  So --duplex is a variant for an unloaded grid, not the
 * paper campaign's monitor, which must see its loads where they are.
 */
#include "gridmon.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Resource ids: cluster c's uplink out of c (c) and into c (nc + c); site
 * s's access link out of s (2 nc + s) and into s (2 nc + ns + s). */
enum { OUT = 0, IN = 1 };

static int cluster_res(const struct gb_topo *t, int c, int dir)
{
	return dir * t->nclusters + c;
}

static int site_res(const struct gb_topo *t, int s, int dir)
{
	return 2 * t->nclusters + dir * t->nsites + s;
}

/* A pair's resources into @r (room for 8): the directions its data take
 * with GB_MON_DUPLEX, both directions of every link it crosses without;
 * site access links unless GB_MON_SITES_FREE.  Returns how many. */
static int res_of(const struct gb_topo *t, const struct gb_mon_pairref *p, int flags, int *r)
{
	int n = 0, sa = t->clusters[p->a].site, sb = t->clusters[p->b].site;
	int both = !(flags & GB_MON_DUPLEX);

	r[n++] = cluster_res(t, p->a, OUT);
	if (both)
		r[n++] = cluster_res(t, p->a, IN);
	if (p->a == p->b)
		return n;
	r[n++] = cluster_res(t, p->b, IN);
	if (both)
		r[n++] = cluster_res(t, p->b, OUT);
	if (sa != sb && !(flags & GB_MON_SITES_FREE)) {
		r[n++] = site_res(t, sa, OUT);
		r[n++] = site_res(t, sb, IN);
		if (both) {
			r[n++] = site_res(t, sa, IN);
			r[n++] = site_res(t, sb, OUT);
		}
	}
	return n;
}

int gb_mon_rep(const struct gb_topo *t, int c, int avoid)
{
	const struct gb_cluster *cl = &t->clusters[c];

	return cl->first_host == avoid && cl->nhosts > 1 ? cl->first_host + 1 : cl->first_host;
}

int gb_mon_sec(const struct gb_topo *t, int c, int avoid)
{
	const struct gb_cluster *cl = &t->clusters[c];
	int rep = gb_mon_rep(t, c, avoid);

	for (int h = cl->first_host; h < cl->first_host + cl->nhosts; h++)
		if (h != rep && h != avoid)
			return h;
	for (int h = cl->first_host; h < cl->first_host + cl->nhosts; h++)
		if (h != rep)
			return h;
	return -1;
}

int gb_mon_pairs(const struct gb_topo *t, int avoid, struct gb_mon_pairref *p, int max)
{
	int nc = t->nclusters, n = 0;

	for (int k = 1; k <= nc; k++) {
		for (int a = 0; a < nc; a++) {
			int b = k < nc ? (a + k) % nc : a;
			if (a == b && t->clusters[a].nhosts < 2)
				continue; /* a 1-host cluster has no diagonal */
			if (n >= max)
				return -ENOSPC;
			p[n].a = a;
			p[n].b = b;
			p[n].src = gb_mon_rep(t, a, avoid);
			p[n].dst = a == b ? gb_mon_sec(t, a, avoid) : gb_mon_rep(t, b, avoid);
			n++;
		}
	}
	return n;
}

int gb_mon_schedule(const struct gb_topo *t, const struct gb_mon_pairref *p, int n,
		    int concurrency, int flags, int *stage)
{
	int nres = 2 * (t->nclusters + t->nsites), nstages = 0, left = n;
	int *busy = calloc((size_t)nres, sizeof(int));
	int *last = calloc((size_t)t->nclusters, sizeof(int)); /* stage + 1 a cluster last sent */

	if (!busy || !last) {
		free(busy);
		free(last);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		stage[i] = -1;
	while (left > 0) {
		int size = 0;
		memset(busy, 0, (size_t)nres * sizeof(int));
		for (;;) {
			/* the free pair whose source cluster has waited longest;
			 * the first in rotation order among equals */
			int best = -1;
			for (int i = 0; i < n; i++) {
				int r[8], nr, ok = stage[i] < 0;
				if (!ok || (best >= 0 && last[p[i].a] >= last[p[best].a]))
					continue;
				nr = res_of(t, &p[i], flags, r);
				for (int j = 0; j < nr && ok; j++)
					ok = !busy[r[j]];
				if (ok)
					best = i;
			}
			if (best < 0)
				break;
			int r[8], nr = res_of(t, &p[best], flags, r);
			for (int j = 0; j < nr; j++)
				busy[r[j]] = 1;
			stage[best] = nstages;
			last[p[best].a] = nstages + 1;
			left--;
			if (concurrency > 0 && ++size >= concurrency)
				break;
		}
		nstages++;
	}
	free(busy);
	free(last);
	return nstages;
}
