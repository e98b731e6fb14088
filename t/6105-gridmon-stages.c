/* SPDX-License-Identifier: MIT */
/*
 * 6105-gridmon-stages - which of gridmon's pairs run together
 * (gb_mon_pairs(), gb_mon_schedule(); collectives/monitor/mon_sched.c):
 *   - a round has every ordered cluster pair once and the diagonal of
 *     every cluster with 2+ hosts, in rotation order;
 *   - on every shipped topology, no two pairs of one stage share a link of
 *     their routed paths in either direction (data one way, ACKs back) (the schedule's assumption, checked
 *     against the routes, which gridmon itself never reads);
 *   - --concurrency caps a stage; 1 is one pair a stage;
 *   - on teragrid the stages are far fewer than the pairs, and each
 *     cluster's outgoing pairs are spread over the round.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridmon.h"
#include "tap.h"

static struct gb_topo *load(const char *name)
{
	char path[4096];
	const char *src = getenv("GRIDBED_SRC");
	struct gb_topo *t = NULL;
	struct gb_diag d;

	snprintf(path, sizeof(path), "%s/topologies/%s", src ? src : ".", name);
	memset(&d, 0, sizeof(d));
	if (gb_topo_load(path, &t, &d) < 0)
		return NULL;
	return t;
}

/* No directed link is used by two pairs of one stage. */
static int stages_disjoint(const struct gb_topo *t, const struct gb_mon_pairref *p, int n,
			   const int *stage, int nstages, char *why, size_t len)
{
	int nl = 2 * t->nlinks, *hops = calloc((size_t)t->nnodes, sizeof(int));
	int *owner = malloc((size_t)nl * sizeof(int));

	for (int s = 0; s < nstages; s++) {
		for (int l = 0; l < nl; l++)
			owner[l] = -1;
		for (int i = 0; i < n; i++) {
			if (stage[i] != s)
				continue;
			int h = gb_topo_path(t, p[i].src, p[i].dst, hops);
			for (int k = 0; k < h; k++) {
				int l = hops[k] & ~1; /* both directions: data and ACKs */
				if (owner[l] >= 0) {
					snprintf(why, len, "stage %d: %s->%s and %s->%s share link %d", s,
						 t->nodes[p[i].src].name, t->nodes[p[i].dst].name,
						 t->nodes[p[owner[l]].src].name,
						 t->nodes[p[owner[l]].dst].name, l / 2);
					free(hops);
					free(owner);
					return 0;
				}
				owner[l] = i;
			}
		}
	}
	free(hops);
	free(owner);
	return 1;
}

int main(void)
{
	static const char *const topos[] = { "teragrid.yaml", "two-clusters.yaml",
					     "three-clusters.yaml", "grid5000.yaml",
					     "transatlantic.yaml", "phoenix.yaml" };
	int ntopos = (int)(sizeof(topos) / sizeof(topos[0]));

	plan(16 + 2 * ntopos);

	struct gb_topo *t = load("teragrid.yaml");
	if (!t)
		bail("cannot load topologies/teragrid.yaml (GRIDBED_SRC?)");
	int nc = t->nclusters, max = nc * nc;
	struct gb_mon_pairref *p = calloc((size_t)max, sizeof(*p));
	int *stage = calloc((size_t)max, sizeof(int));
	int n = gb_mon_pairs(t, -1, p, max);
	is_int(n, nc * (nc - 1) + nc, "teragrid: 56 off-diagonal pairs and 8 diagonals");
	int seen = 0, order = 1;
	for (int i = 0; i < n; i++) {
		seen += p[i].a == p[i].b ? p[i].dst == p[i].src + 1 : p[i].src == t->clusters[p[i].a].first_host &&
			p[i].dst == t->clusters[p[i].b].first_host;
		if (i < nc && !(p[i].a == i && p[i].b == (i + 1) % nc))
			order = 0;
	}
	is_int(seen, n, "representative to representative, first to second host on the diagonal");
	ok(order, "rotation order: every cluster to the next one first");
	is_int(gb_mon_pairs(t, -1, p, 10), -ENOSPC, "too small an array is refused");

	/* --avoid the broadcast root c2-1 (issue 44): no pair has it at either
	 * end, c2's representative is c2-2, its diagonal c2-2 -> c2-3, and the
	 * other clusters keep theirs. */
	int root = gb_topo_find_node(t, "c2-1"), c2 = gb_topo_find_cluster(t, "c2");
	int touches = 0, others = 1;
	is_int(gb_mon_pairs(t, root, p, max), n, "--avoid c2-1: the same number of pairs");
	for (int i = 0; i < n; i++) {
		touches += p[i].src == root || p[i].dst == root;
		if (p[i].a != c2 && p[i].src != t->clusters[p[i].a].first_host)
			others = 0;
	}
	is_int(touches, 0, "--avoid c2-1: no probe starts from or ends at the root");
	ok(gb_mon_rep(t, c2, root) == root + 1 && gb_mon_sec(t, c2, root) == root + 2 && others,
	   "--avoid c2-1: c2 is represented by c2-2 (diagonal to c2-3), the others by their first host");
	struct gb_topo *two = NULL;
	struct gb_diag d;
	static const char y2[] = "name: two\nsites:\n  - name: S\n    clusters: [{name: k, hosts: 2}, {name: m, hosts: 1}]\n";
	if (gb_topo_parse(y2, sizeof(y2) - 1, "two.yaml", &two, &d) == 0) {
		int k0 = two->clusters[0].first_host, m0 = two->clusters[1].first_host;
		ok(gb_mon_rep(two, 0, k0) == k0 + 1 && gb_mon_sec(two, 0, k0) == k0 &&
			   gb_mon_rep(two, 1, m0) == m0 && gb_mon_sec(two, 1, m0) == -1,
		   "a 2-host cluster holding the avoided host: its diagonal ends there; a 1-host "
		   "cluster keeps its only host and has no diagonal");
		gb_topo_free(two);
	} else {
		skip(1, "the two-cluster grid did not parse");
	}

	int ns = gb_mon_schedule(t, p, n, 1, 0, stage);
	int serial = ns == n, *used = calloc((size_t)n, sizeof(int));
	for (int i = 0; i < n; i++)
		serial &= stage[i] >= 0 && stage[i] < n && !used[stage[i]]++;
	free(used);
	ok(serial, "concurrency 1: one pair per stage");
	ns = gb_mon_schedule(t, p, n, 2, 0, stage);
	int *size = calloc(n > 0 ? (size_t)n : 1, sizeof(int)), cap = 1;
	for (int i = 0; i < n; i++)
		size[stage[i]]++;
	for (int s = 0; s < ns; s++)
		cap &= size[s] >= 1 && size[s] <= 2;
	ok(cap, "concurrency 2: %d stages of 1 or 2 pairs", ns);
	ns = gb_mon_schedule(t, p, n, 0, 0, stage);
	ok(ns <= 32, "teragrid unlimited: %d stages for %d pairs (46 between 4 sites, 2 at a time)",
	   ns, n);
	/* c3's 7 pairs out: the widest gap between two of them, in stages */
	int last = -1, gap = 0, k3 = 0;
	for (int s = 0; s < ns; s++)
		for (int i = 0; i < n; i++)
			if (stage[i] == s && p[i].a == 2) {
				if (last >= 0 && s - last > gap)
					gap = s - last;
				last = s;
				k3++;
			}
	ok(gap <= 2 * ns / k3, "c3's %d pairs spread over the round: widest gap %d stages, at most "
	   "twice the even spacing %d", k3, gap, ns / k3);

	/* --sites-free: pairs hold their two clusters' uplinks only; every
	 * cluster is in 15 pairs (7 out, 7 in, its diagonal), so at least 15
	 * stages, fewer than with the site links held, none sharing an uplink */
	int nsf = gb_mon_schedule(t, p, n, 0, GB_MON_SITES_FREE, stage), shared = 0;
	for (int s = 0; s < nsf; s++) {
		int *held = calloc((size_t)nc, sizeof(int));
		for (int i = 0; held && i < n; i++) {
			if (stage[i] != s)
				continue;
			shared += held[p[i].a]++ > 0;
			if (p[i].b != p[i].a)
				shared += held[p[i].b]++ > 0;
		}
		free(held);
	}
	ok(nsf >= 15 && nsf < ns && shared == 0, "--sites-free: %d stages (%d with the site links "
	   "held), no cluster uplink twice in one", nsf, ns);

	/* --duplex (a link is one direction): a pair holds its source
	 * cluster's way out and its destination's way in, so no stage has a
	 * cluster sending twice or receiving twice (a diagonal is a send);
	 * with --sites-free every cluster sends 8 times (7 pairs and its
	 * diagonal): 8 stages at best, and the greedy schedule finds them */
	int flags[2] = { GB_MON_DUPLEX | GB_MON_SITES_FREE, GB_MON_DUPLEX }, nd[2], twice[2];
	for (int f = 0; f < 2; f++) {
		nd[f] = gb_mon_schedule(t, p, n, 0, flags[f], stage);
		twice[f] = 0;
		for (int s = 0; s < nd[f]; s++) {
			int *out = calloc((size_t)nc, sizeof(int)), *in = calloc((size_t)nc, sizeof(int));
			int *sout = calloc((size_t)t->nsites, sizeof(int));
			int *sin = calloc((size_t)t->nsites, sizeof(int));
			for (int i = 0; out && in && sout && sin && i < n; i++) {
				int sa = t->clusters[p[i].a].site, sb = t->clusters[p[i].b].site;
				if (stage[i] != s)
					continue;
				twice[f] += out[p[i].a]++ > 0;
				if (p[i].b == p[i].a)
					continue;
				twice[f] += in[p[i].b]++ > 0;
				if (f == 1 && sa != sb)
					twice[f] += (sout[sa]++ > 0) + (sin[sb]++ > 0);
			}
			free(out);
			free(in);
			free(sout);
			free(sin);
		}
	}
	is_int(nd[0], 8, "--duplex --sites-free: 8 stages (every cluster sends 8 times)");
	is_int(twice[0], 0, "--duplex --sites-free: no cluster sends or receives twice in a stage");
	ok(nd[1] < ns && twice[1] == 0, "--duplex with the site links held: %d stages (%d without "
	   "--duplex), no site link direction twice in one", nd[1], ns);
	free(size);
	free(p);
	free(stage);
	gb_topo_free(t);

	for (int k = 0; k < ntopos; k++) {
		char why[256] = "";
		t = load(topos[k]);
		if (!t) {
			skip(2, "a shipped topology does not load");
			continue;
		}
		nc = t->nclusters;
		max = nc * nc;
		p = calloc((size_t)max, sizeof(*p));
		stage = calloc((size_t)max, sizeof(int));
		n = gb_mon_pairs(t, -1, p, max);
		ns = gb_mon_schedule(t, p, n, 0, 0, stage);
		ok(n > 0 && ns > 0 && ns <= n, "%s: %d pairs in %d stages", topos[k], n, ns);
		ok(stages_disjoint(t, p, n, stage, ns, why, sizeof(why)),
		   "%s: no link shared inside a stage%s%s", topos[k], why[0] ? ": " : "", why);
		free(p);
		free(stage);
		gb_topo_free(t);
	}
	return done_testing();
}
