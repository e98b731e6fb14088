/* SPDX-License-Identifier: MIT */
/*
 * status.c - describing a live grid (status, link show) and printing the
 * equivalent iproute2 script.
 */
#include "gbemu.h"
#include "calibrate.h"
#include "dilate.h"
#include "grid_priv.h"
#include "partition.h"
#include "shaping.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fmt_time(uint64_t ns, char *buf, size_t len)
{
	if (ns == 0)
		snprintf(buf, len, "0");
	else if (ns % 1000000 == 0)
		snprintf(buf, len, "%" PRIu64 "ms", ns / 1000000);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.3gms", (double)ns / 1e6);
	else if (ns % 1000 == 0)
		snprintf(buf, len, "%" PRIu64 "us", ns / 1000);
	else
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	return buf;
}

/* A per-packet cost read back from the kernel is whole bytes at the rate:
 * 35us at 100mbit is 438 bytes, 35.04us, not 35040ns. */
static const char *fmt_ppkt(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000000 && ns % 1000)
		snprintf(buf, len, "%.4gus", (double)ns / 1e3);
	else
		fmt_time(ns, buf, len);
	return buf;
}

static const char *fmt_rate(uint64_t bps, char *buf, size_t len)
{
	if (bps == 0)
		snprintf(buf, len, "unlimited");
	else if (bps % 1000000000 == 0)
		snprintf(buf, len, "%" PRIu64 "gbit", bps / 1000000000);
	else if (bps % 1000000 == 0)
		snprintf(buf, len, "%" PRIu64 "mbit", bps / 1000000);
	else if (bps >= 1000000)
		snprintf(buf, len, "%.4gmbit", (double)bps / 1e6);
	else
		snprintf(buf, len, "%" PRIu64 "kbit", bps / 1000);
	return buf;
}

/* Live parameters: what the backend reads back, completed by the model for
 * what it cannot read. */
static void live_dir(struct gb_grid *g, int dl, struct gb_linkdir *p)
{
	struct gb_linkdir r;
	*p = *gb_topo_dir(g->topo, dl);
	p->limit = gb_limit_of(g->topo, dl);
	if (gb_grid_dir_read(g, dl, &r) == 0) {
		if (r.set & GB_LD_DELAY)
			p->delay_ns = r.delay_ns;
		if (r.set & GB_LD_JITTER)
			p->jitter_ns = r.jitter_ns;
		if (r.set & GB_LD_LOSS)
			p->loss = r.loss;
		p->rate_bps = (r.set & GB_LD_RATE) ? r.rate_bps : 0;
		p->per_packet_ns = (r.set & GB_LD_PPKT) ? r.per_packet_ns : 0;
		if ((r.set & GB_LD_RATE) && (r.set & GB_LD_LIMIT))
			p->limit = r.limit;
	}
}

/* per_packet_ms only where there is one: other grids' JSON stays as it was */
static json_t *dir_json(const struct gb_linkdir *p)
{
	json_t *j = json_pack("{s:f, s:f, s:f, s:I, s:i}", "delay_ms", (double)p->delay_ns / 1e6,
			      "jitter_ms", (double)p->jitter_ns / 1e6, "loss", p->loss,
			      "rate_bps", (json_int_t)p->rate_bps, "limit", (int)p->limit);

	if (j && p->per_packet_ns)
		json_object_set_new(j, "per_packet_ms", json_real((double)p->per_packet_ns / 1e6));
	return j;
}

/*
 * The hosts' TCP stacks as read back from their namespaces
 * (gb_grid_tcp_json(), which groups them): one line when they all run the
 * same, else one line per stack with its hosts.
 */
static void tcp_lines(struct gb_grid *g, FILE *out)
{
	json_t *stacks = gb_grid_tcp_json(g), *st, *h;
	size_t i, k;

	if (!stacks) {
		fprintf(out, "tcp: cannot read the hosts' stack\n");
		return;
	}
	json_array_foreach(stacks, i, st) {
		json_t *hosts = json_object_get(st, "hosts");
		size_t n = json_array_size(hosts);
		const char *text = json_string_value(json_object_get(st, "text"));

		if (json_array_size(stacks) == 1) {
			fprintf(out, "tcp: %s (every host%s)\n", text, g->local ? " here" : "");
			break;
		}
		fprintf(out, "tcp: %s (%zu host%s:", text, n, n == 1 ? "" : "s");
		json_array_foreach(hosts, k, h)
			fprintf(out, " %s", json_string_value(h));
		fprintf(out, ")\n");
	}
	json_decref(stacks);
}

int gb_grid_health(struct gb_grid *g, struct gb_err *e)
{
	if (e)
		e->msg[0] = '\0';
	if (!g->shaper || !g->shaper->health)
		return 1;
	return g->shaper->health(g, e);
}

int gb_grid_status(struct gb_grid *g, FILE *out, int json)
{
	struct gb_err why = { "" };
	int healthy = gb_grid_health(g, &why);

	const struct gb_topo *t = g->topo;
	char ns[128], a1[16], a2[16];

	if (json) {
		json_t *hosts = json_array(), *links = json_array();
		for (int i = 0; i < t->nhosts; i++) {
			const struct gb_node *n = &t->nodes[i];
			struct gb_tcp tcp;
			int terr = gb_grid_tcp_read(g, i, &tcp);

			json_array_append_new(hosts, json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:o}",
				"name", n->name, "rank", i,
				"cluster", t->clusters[n->cluster].name,
				"site", t->sites[n->site].name,
				"netns", gb_grid_node_nsname(g, i, ns, sizeof(ns)),
				"data", gb_fmt_ip(n->addr, a1), "mgmt", gb_fmt_ip(n->mgmt, a2),
				"tcp", terr < 0 ? json_null() : gb_tcp_json(&tcp)));
		}
		for (int k = 0; k < t->nlinks; k++) {
			struct gb_linkdir ab, ba;
			live_dir(g, 2 * k, &ab);
			live_dir(g, 2 * k + 1, &ba);
			json_array_append_new(links, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}",
				"name", t->links[k].name, "a", t->nodes[t->links[k].a].name,
				"b", t->nodes[t->links[k].b].name, "ifname", gb_ifname(k, a1),
				"ab", dir_json(&ab), "ba", dir_json(&ba)));
		}
		struct gb_calib c;
		json_t *cal;

		gb_grid_calib_read(g, &c, &cal);
		json_t *root = json_pack("{s:s, s:s, s:s, s:b, s:s, s:f, s:s, s:i, s:i, s:i, s:o, s:o, s:o}",
			"name", t->name, "prefix", g->prefix,
			"backend", g->shaper ? g->shaper->name : "",
			"healthy", healthy == 1, "health", healthy == 1 ? "ok" : why.msg,
			"dilate", gb_dilation(g),
			"mgmt_gateway", gb_fmt_ip(t->mgmt.addr + 1, a1),
			"nodes", t->nnodes, "clusters", t->nclusters, "sites", t->nsites,
			"hosts", hosts, "links", links, "calibration", cal ? cal : json_null());
		if (g->local)
			json_object_set_new(root, "part", json_pack("{s:s, s:s, s:s, s:s, s:o}",
				"sites", g->part, "peer", gb_fmt_ip(g->peer, a1), "peer_prefix",
				g->peer_prefix, "local", gb_fmt_ip(g->self, a2), "tunnels",
				gb_part_tunnels_json(g)));
		json_dumpf(root, out, JSON_INDENT(2));
		fputc('\n', out);
		json_decref(root);
		return healthy == 1 ? 0 : 1;
	}
	fprintf(out, "grid '%s' (prefix %s, backend %s): %d hosts, %d clusters, %d sites, "
		"%d nodes, %d links\n", t->name, g->prefix, g->shaper ? g->shaper->name : "?",
		t->nhosts, t->nclusters, t->nsites, t->nnodes, t->nlinks);
	if (healthy != 1)
		fprintf(out, "DATA PLANE BROKEN: %s\n", healthy < 0 ? strerror(-healthy) : why.msg);
	fprintf(out, "%-12s %-8s %-8s %-18s %-15s %s\n", "HOST", "CLUSTER", "SITE", "NAMESPACE",
		"DATA", "MGMT");
	for (int i = 0; i < t->nhosts; i++) {
		const struct gb_node *n = &t->nodes[i];
		fprintf(out, "%-12s %-8s %-8s %-18s %-15s %s\n", n->name,
			t->clusters[n->cluster].name, t->sites[n->site].name,
			gb_grid_node_nsname(g, i, ns, sizeof(ns)), gb_fmt_ip(n->addr, a1),
			gb_fmt_ip(n->mgmt, a2));
	}
	/* after the table: scripts read the hosts from line 3 on */
	if (g->local)
		fprintf(out, "part: %s built here; the rest on the peer %s (prefix %s), %d links "
			"across\n", g->part, gb_fmt_ip(g->peer, a1), g->peer_prefix,
			gb_part_ncross(g));
	if (g->local) {
		json_t *tun = gb_part_tunnels_json(g), *x;
		size_t i;

		json_array_foreach(tun, i, x) {
			json_t *l = json_object_get(x, "link");
			char what[160];

			snprintf(what, sizeof(what), "%s%s", json_is_string(l) ? "link " : "management",
				 json_is_string(l) ? json_string_value(l) : "");
			fprintf(out, "tunnel %s in %s: VNI %d (%s), local %s, remote %s, UDP %d; only "
				"the remote's frames pass\n",
				json_string_value(json_object_get(x, "ifname")),
				json_string_value(json_object_get(x, "netns")),
				(int)json_integer_value(json_object_get(x, "vni")), what,
				json_string_value(json_object_get(x, "local")),
				json_string_value(json_object_get(x, "remote")),
				(int)json_integer_value(json_object_get(x, "port")));
		}
		json_decref(tun);
	}
	tcp_lines(g, out);
	if (gb_dilation(g) > 1.0)
		fprintf(out, "time dilation: x%g (the wire carries every delay x%g and every rate "
			"/%g; the values below are the topology's)\n", gb_dilation(g), gb_dilation(g),
			gb_dilation(g));
	{
		struct gb_calib c;
		char line[512], warn[512];

		if (gb_grid_calib_read(g, &c, NULL) == 0) {
			gb_calib_describe(t, &c, line, sizeof(line), warn, sizeof(warn));
			fprintf(out, "%s\n", line);
			if (warn[0])
				fprintf(out, "delay line: %s\n", warn);
		} else if (g->shaper && g->shaper->pass) {
			fprintf(out, "delay line: not calibrated (up --no-calibrate): each link "
				"traversal takes its delay plus the delay line's own cost\n");
		}
	}
	fputc('\n', out);
	gb_grid_link_show(g, out);
	return healthy == 1 ? 0 : 1;
}

/*
 * A PER_PACKET column only when a direction of the topology has a
 * per_packet cost: the table of every other grid stays as it was.
 */
int gb_grid_link_show(struct gb_grid *g, FILE *out)
{
	const struct gb_topo *t = g->topo;
	char d[32], j[32], r[32], pt[32], pp[40], dir[80];
	int ppkt = 0;

	for (int dl = 0; dl < 2 * t->nlinks; dl++)
		ppkt |= gb_topo_dir(g->topo, dl)->per_packet_ns != 0;
	fprintf(out, "%-16s %-20s %-5s %-9s %-8s %-7s %-10s %s%s\n", "LINK", "DIRECTION", "IF",
		"DELAY", "JITTER", "LOSS", "RATE", ppkt ? "LIMIT    " : "LIMIT",
		ppkt ? "PER_PACKET" : "");
	for (int dl = 0; dl < 2 * t->nlinks; dl++) {
		struct gb_linkdir p;
		char ifn[16], lim[16];
		live_dir(g, dl, &p);
		snprintf(dir, sizeof(dir), "%s>%s", t->nodes[gb_topo_dir_from(t, dl)].name,
			 t->nodes[gb_topo_dir_to(t, dl)].name);
		snprintf(lim, sizeof(lim), "%up", p.limit);
		if (ppkt)
			snprintf(pp, sizeof(pp), " %s", p.per_packet_ns ?
				 fmt_ppkt(p.per_packet_ns, pt, sizeof(pt)) : "-");
		fprintf(out, "%-16s %-20s %-5s %-9s %-8s %-7.3g %-10s %-*s%s\n",
			t->links[dl / 2].name, dir,
			gb_grid_local(g, gb_topo_dir_from(t, dl)) ? gb_ifname(dl / 2, ifn) : "peer",
			fmt_time(p.delay_ns, d, sizeof(d)),
			fmt_time(p.jitter_ns, j, sizeof(j)), p.loss * 100.0,
			fmt_rate(p.rate_bps, r, sizeof(r)), ppkt ? 8 : 0, lim, ppkt ? pp : "");
	}
	return 0;
}

/*
 * The same grid as an iproute2 script (netem backend), for the setup-speed
 * baseline: one `ip`/`tc` process per object, which is how such grids are
 * usually built by hand.
 */
int gb_write_script(const struct gb_topo *t, const char *prefix, unsigned flags, FILE *out)
{
	char a[16], b[16];
	int n = t->nnodes;

	fprintf(out, "#!/bin/sh\n# generated by gridemu script: grid '%s', prefix '%s'\nset -e\n",
		t->name, prefix);
	if (flags & GB_SCRIPT_DOWN) {
		fprintf(out, "ip netns del %s-mgmt 2>/dev/null || true\n", prefix);
		for (int i = 0; i < n; i++)
			fprintf(out, "ip netns del %s-%s 2>/dev/null || true\n", prefix,
				t->nodes[i].name);
		return 0;
	}
	fprintf(out, "ip netns add %s-mgmt\nip -n %s-mgmt link set lo up\n", prefix, prefix);
	for (int i = 0; i < n; i++)
		fprintf(out, "ip netns add %s-%s\nip -n %s-%s link set lo up\n", prefix,
			t->nodes[i].name, prefix, t->nodes[i].name);
	for (int k = 0; k < t->nlinks; k++) {
		const struct gb_link *l = &t->links[k];
		const char *na = t->nodes[l->a].name, *nb = t->nodes[l->b].name;
		fprintf(out, "ip -n %s-%s link add d%d mtu %u type veth peer name d%d netns %s-%s\n",
			prefix, na, k, t->mtu, k, prefix, nb);
		int ends[2] = { l->a, l->b };
		for (int s = 0; s < 2; s++) {
			const struct gb_node *nd = &t->nodes[ends[s]];
			fprintf(out, "ip -n %s-%s addr add %s/32 dev d%d noprefixroute\n", prefix,
				nd->name, gb_fmt_ip(nd->addr, a), k);
			fprintf(out, "ip -n %s-%s link set d%d txqueuelen 10000 up\n", prefix,
				nd->name, k);
			if (nd->kind != GB_NODE_HOST)
				fprintf(out, "ip netns exec %s-%s sysctl -qw net.ipv4.conf.d%d.forwarding=1\n",
					prefix, nd->name, k);
		}
		for (int dir = 0; dir < 2; dir++) {
			int dl = 2 * k + dir;
			const struct gb_linkdir *p = dir ? &l->ba : &l->ab;
			const char *from = t->nodes[gb_topo_dir_from(t, dl)].name;
			uint32_t limit = gb_limit_of(t, dl), ovh = gb_tbf_overhead(p);
			uint32_t burst = gb_tbf_burst(p->rate_bps, t->mtu, ovh);
			char ovh_arg[24] = "";
			/* tc (iproute2 6.1) adds the overhead to the burst it is
			 * given: ask for less by as much, for gridemu's bucket */
			if (ovh) {
				snprintf(ovh_arg, sizeof(ovh_arg), " overhead %u", ovh);
				burst -= ovh;
			}
			if (flags & GB_SCRIPT_NO_NETEM) {
				/* For kernels without netem: the rate only (less work
				 * than gridemu does, so the baseline is generous). */
				if (p->rate_bps)
					fprintf(out, "tc -n %s-%s qdisc add dev d%d root handle 1: tbf rate "
						"%" PRIu64 "bit burst %u limit %u%s\n", prefix, from, k,
						p->rate_bps, burst, limit * t->mtu, ovh_arg);
				continue;
			}
			fprintf(out, "tc -n %s-%s qdisc add dev d%d root handle 1: netem delay %" PRIu64
				"us %" PRIu64 "us loss %g%% limit %u\n", prefix, from, k,
				p->delay_ns / 1000, p->jitter_ns / 1000, p->loss * 100,
				p->rate_bps ? limit + gb_bdp_pkts(t, dl) + 64 : limit);
			if (p->rate_bps)
				fprintf(out, "tc -n %s-%s qdisc add dev d%d parent 1:1 handle 10: tbf rate "
					"%" PRIu64 "bit burst %u limit %u%s\n", prefix, from, k,
					p->rate_bps, burst, limit * t->mtu, ovh_arg);
		}
	}
	/* Routes: the same compression as gridemu (see grid_up.c node_routes). */
	for (int i = 0; i < n; i++) {
		int ndl = 2 * t->nlinks, best = -1;
		int cnt[ndl > 0 ? ndl : 1];
		memset(cnt, 0, sizeof(cnt));
		for (int j = 0; j < n; j++)
			if (j != i && t->next[i * n + j] >= 0)
				cnt[t->next[i * n + j]]++;
		for (int dl = 0; dl < ndl; dl++)
			if (cnt[dl] && (best < 0 || cnt[dl] > cnt[best]))
				best = dl;
		if (best < 0)
			continue;
		fprintf(out, "ip -n %s-%s route add %s/%d via %s dev d%d onlink\n", prefix,
			t->nodes[i].name, gb_fmt_ip(t->data.addr, a), t->data.len,
			gb_fmt_ip(t->nodes[gb_topo_dir_to(t, best)].addr, b), best / 2);
		for (int j = 0; j < n; j++) {
			int dl = t->next[i * n + j];
			if (j == i || dl < 0 || dl == best)
				continue;
			fprintf(out, "ip -n %s-%s route add %s/32 via %s dev d%d onlink\n", prefix,
				t->nodes[i].name, gb_fmt_ip(t->nodes[j].addr, a),
				gb_fmt_ip(t->nodes[gb_topo_dir_to(t, dl)].addr, b), dl / 2);
		}
	}
	for (int h = 0; h < t->nhosts; h++) {
		const char *hn = t->nodes[h].name;
		fprintf(out, "ip -n %s-mgmt link add h%d type veth peer name m0 netns %s-%s\n", prefix,
			h, prefix, hn);
		fprintf(out, "ip -n %s-mgmt addr add %s/32 dev h%d noprefixroute\n", prefix,
			gb_fmt_ip(t->mgmt.addr + 1, a), h);
		fprintf(out, "ip -n %s-mgmt link set h%d up\n", prefix, h);
		fprintf(out, "ip netns exec %s-mgmt sysctl -qw net.ipv4.conf.h%d.forwarding=1\n",
			prefix, h);
		fprintf(out, "ip -n %s-mgmt route add %s/32 dev h%d\n", prefix,
			gb_fmt_ip(t->nodes[h].mgmt, a), h);
		fprintf(out, "ip -n %s-%s addr add %s/32 dev m0 noprefixroute\n", prefix, hn,
			gb_fmt_ip(t->nodes[h].mgmt, a));
		fprintf(out, "ip -n %s-%s link set m0 up\n", prefix, hn);
		fprintf(out, "ip -n %s-%s route add %s/%d via %s dev m0 onlink\n", prefix, hn,
			gb_fmt_ip(t->mgmt.addr, a), t->mgmt.len, gb_fmt_ip(t->mgmt.addr + 1, b));
	}
	return 0;
}
