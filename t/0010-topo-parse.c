// SPDX-License-Identifier: MIT
/*
 * 0010-topo-parse: the shipped topologies load, and the model built from
 * them (counts, names, addresses, routes, per-direction parameters, the
 * default queue-limit rule, lookups) is what the format promises.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gbtopo.h"
#include "tap.h"

#define MS 1000000ull

static const char *src_dir(void)
{
	const char *s = getenv("GRIDBED_SRC");

	return s && *s ? s : GRIDBED_SOURCE_DIR;
}

static struct gb_topo *load(const char *file)
{
	char path[512];
	struct gb_topo *t = NULL;
	struct gb_diag d;
	char line[GB_DIAG_LINE_MAX];
	int r;

	snprintf(path, sizeof(path), "%s/topologies/%s", src_dir(), file);
	r = gb_topo_load(path, &t, &d);
	if (!is_int(r, 0, "%s loads", file))
		diag("%s", gb_diag_format(&d, NULL, line, sizeof(line)));
	return r ? NULL : t;
}

static struct gb_topo *parse(const char *name, const char *yaml)
{
	struct gb_topo *t = NULL;
	struct gb_diag d;
	char line[GB_DIAG_LINE_MAX];
	int r = gb_topo_parse(yaml, strlen(yaml), name, &t, &d);

	if (!is_int(r, 0, "%s parses", name))
		diag("%s", gb_diag_format(&d, NULL, line, sizeof(line)));
	return r ? NULL : t;
}

static int count_kind(const struct gb_topo *t, enum gb_node_kind k)
{
	int n = 0;

	for (int i = 0; i < t->nnodes; i++)
		n += t->nodes[i].kind == k;
	return n;
}

/* "c2-1,c2,SDSC,..." along the routed path */
static const char *path_names(const struct gb_topo *t, int s, int d)
{
	static char buf[1024];
	int p[256], h = gb_topo_path(t, s, d, p);
	size_t len;

	if (h < 0)
		return "(unreachable)";
	snprintf(buf, sizeof(buf), "%s", t->nodes[s].name);
	for (int i = 0; i < h; i++) {
		len = strlen(buf);
		snprintf(buf + len, sizeof(buf) - len, ",%s", t->nodes[gb_topo_dir_to(t, p[i])].name);
	}
	return buf;
}

static const char *path_by_name(const struct gb_topo *t, const char *a, const char *b)
{
	return path_names(t, gb_topo_find_node(t, a), gb_topo_find_node(t, b));
}

static int unique_addresses(const struct gb_topo *t)
{
	for (int i = 0; i < t->nnodes; i++) {
		for (int j = i + 1; j < t->nnodes; j++)
			if (t->nodes[i].addr == t->nodes[j].addr ||
			    (i < t->nhosts && j < t->nhosts && t->nodes[i].mgmt == t->nodes[j].mgmt))
				return 0;
	}
	return 1;
}

static int in_block(uint32_t a, struct gb_prefix p)
{
	uint32_t mask = p.len ? ~0u << (32 - p.len) : 0;

	return (a & mask) == p.addr;
}

static void test_teragrid(void)
{
	struct gb_topo *t = load("teragrid.yaml");
	uint64_t delay = 0, rate = 0;
	int c21, c31, l, ok_in;
	char buf[16];

	if (!t) {
		skip(40, "teragrid.yaml did not load");
		return;
	}
	is_str(t->name, "teragrid", "teragrid: name");
	is_int(t->nhosts, 64, "teragrid: 64 hosts");
	is_int(t->nclusters, 8, "teragrid: 8 clusters");
	is_int(t->nsites, 4, "teragrid: 4 sites");
	is_int(count_kind(t, GB_NODE_HUB), 2, "teragrid: 2 hubs");
	is_int(count_kind(t, GB_NODE_SWITCH), 8, "teragrid: 8 cluster switches");
	is_int(count_kind(t, GB_NODE_ROUTER), 4, "teragrid: 4 site routers");
	is_int(t->nnodes, 78, "teragrid: 78 nodes (64 + 8 + 4 + 2)");
	is_int(t->nlinks, 77, "teragrid: 77 links (64 + 8 + 5)");
	is_int(t->mtu, 1500, "teragrid: mtu");

	c21 = gb_topo_find_node(t, "c2-1");
	is_int(c21, 8, "c2-1 is node 8 (after c1's 8 hosts)");
	is_int(t->root, 8, "the default root is c2-1");
	is_str(t->nodes[0].name, "c1-1", "node 0 is c1-1");
	is_str(t->nodes[63].name, "c8-8", "node 63 is c8-8");
	is_int(t->nodes[64].kind, GB_NODE_SWITCH, "node 64 is a switch");
	is_str(t->nodes[64].name, "c1", "...named c1");
	is_str(t->nodes[72].name, "SDSC", "node 72 is the SDSC router");
	is_str(t->nodes[77].name, "CHI", "node 77 is the CHI hub");
	is_int(t->nodes[77].site, -1, "hubs belong to no site");
	is_int(t->clusters[2].nhosts, 12, "c3 has 12 hosts");
	is_int(t->clusters[2].first_host, 16, "c3 starts at node 16");
	is_int(t->clusters[2].site, 1, "c3 is at NCSA");
	is_str(t->sites[t->clusters[2].site].name, "NCSA", "site 1 is NCSA");
	is_int(t->nodes[c21].cluster, 1, "c2-1 is in cluster 1");
	is_int(gb_topo_find_cluster(t, "c3"), 2, "find_cluster c3");
	is_int(gb_topo_find_cluster(t, "SDSC"), -1, "find_cluster on a router name is -1");
	is_int(gb_topo_find_node(t, "nope"), -1, "find_node unknown is -1");

	/* link numbering: host links, uplinks, then the file's links */
	is_str(t->links[8].name, "c2-1-c2", "link 8 is c2-1's host link");
	is_int(t->links[8].a, 8, "host link: a is the host");
	is_int(t->links[8].b, t->clusters[1].sw, "host link: b is the switch");
	is_str(t->links[65].name, "c2-SDSC", "link 65 is c2's uplink");
	is_str(t->links[72].name, "SDSC-LA", "link 72 is the first explicit link");
	is_int(t->links[8].ab.rate_bps, 100000000, "host link rate from defaults");
	is_int(t->links[8].ba.delay_ns, 50000, "host link delay 0.05ms from defaults");
	is_int(t->links[8].ab.set, GB_LD_RATE | GB_LD_DELAY, "host link: set bits");
	is_int(t->links[65].ab.delay_ns, 250000, "uplink delay 0.25ms from defaults");

	/* lookups, both spellings */
	is_int(gb_topo_find_link(t, "SDSC-LA"), 72, "find_link SDSC-LA");
	is_int(gb_topo_find_link(t, "LA-SDSC"), 72, "find_link LA-SDSC");
	is_int(gb_topo_find_link(t, "c2-1-c2"), 8, "find_link c2-1-c2");
	is_int(gb_topo_find_link(t, "c2-c2-1"), 8, "find_link c2-c2-1");
	is_int(gb_topo_find_link(t, "SDSC-c2"), 65, "find_link SDSC-c2");
	is_int(gb_topo_find_link(t, "SDSC-CHI"), -1, "find_link of no link is -1");
	is_int(gb_topo_find_link(t, "LA"), -1, "find_link of a node name is -1");
	is_int(gb_topo_find_link(t, "-"), -1, "find_link '-' is -1");
	is_int(gb_topo_dir_from(t, 2 * 72), t->sites[0].router, "dir 144 leaves SDSC");
	is_int(gb_topo_dir_to(t, 2 * 72), gb_topo_find_node(t, "LA"), "dir 144 reaches LA");
	is_int(gb_topo_dir_from(t, 2 * 72 + 1), gb_topo_find_node(t, "LA"), "dir 145 leaves LA");
	ok(gb_topo_dir(t, 2 * 72 + 1) == &t->links[72].ba, "gb_topo_dir 145 is links[72].ba");
	ok(gb_topo_dir(t, 2 * 77) == NULL, "gb_topo_dir out of range is NULL");
	is_int(gb_topo_dir_from(t, -1), -1, "gb_topo_dir_from out of range is -1");

	/* addresses */
	ok(unique_addresses(t), "data and management addresses are unique");
	ok_in = 1;
	for (int i = 0; i < t->nnodes; i++)
		ok_in &= in_block(t->nodes[i].addr, t->data) && t->nodes[i].addr != t->data.addr &&
			 (i >= t->nhosts ? t->nodes[i].mgmt == 0
					 : in_block(t->nodes[i].mgmt, t->mgmt) &&
					   t->nodes[i].mgmt > t->mgmt.addr + 1);
	ok(ok_in, "addresses are inside their blocks, skipping network and gateway");
	is_str(gb_fmt_ip(t->nodes[c21].addr, buf), "10.250.0.9", "c2-1 data address");
	is_str(gb_fmt_ip(t->nodes[c21].mgmt, buf), "10.251.0.10", "c2-1 management address");
	is_int(t->nodes[17].addr - t->nodes[16].addr, 1, "a cluster's hosts are contiguous");

	/* the route of Gupta & Vadhiyar's broadcast from C2 to C3 */
	c31 = gb_topo_find_node(t, "c3-1");
	is_str(path_names(t, c21, c31), "c2-1,c2,SDSC,LA,CHI,NCSA,c3,c3-1", "path c2-1 -> c3-1");
	is_str(path_names(t, c31, c21), "c3-1,c3,NCSA,CHI,LA,SDSC,c2,c2-1", "path c3-1 -> c2-1");
	is_int(gb_topo_path_metrics(t, c21, c31, &delay, &rate), 0, "path_metrics c2-1 -> c3-1");
	is_int((long long)delay, (long long)(50000 + 250000 + 2 * MS + 25 * MS + 3 * MS + 250000 +
					     50000), "delay 0.05+0.25+2+25+3+0.25+0.05 ms");
	is_int((long long)rate, 30000000, "bottleneck 30 Mbit/s (LA-CHI)");
	is_int(gb_topo_path(t, c21, c21, NULL), 0, "path to self: 0 hops");
	is_int(gb_topo_path(t, c21, 999, NULL), -ENOENT, "path to a bad index: -ENOENT");
	is_str(path_by_name(t, "c1-1", "c2-8"), "c1-1,c1,SDSC,c2,c2-8", "path inside a site");
	is_str(path_by_name(t, "c8-1", "c6-2"), "c8-1,c8,PSC,CHI,ANL,c6,c6-2", "path PSC -> ANL");
	is_str(path_by_name(t, "c4-1", "c4-2"), "c4-1,c4,c4-2", "path inside a cluster");

	/*
	 * Default limits by hand.  SDSC-LA (45 Mbit/s): the longest round trip
	 * crossing it is SDSC <-> PSC, 2 * (0.05 + 0.25 + 2 + 25 + 6 + 0.25 +
	 * 0.05) = 67.2 ms; 45e6 * 0.0672 / (8 * 1500) = 252 packets.  CHI-NCSA
	 * (45 Mbit/s): SDSC <-> NCSA, 2 * 30.6 = 61.2 ms; 45e6 * 0.0612 / 12000
	 * = 229.5 -> 230.  CHI-PSC (20 Mbit/s): 67.2 ms -> 112.
	 */
	l = gb_topo_find_link(t, "SDSC-LA");
	is_int(gb_topo_default_limit(t, 2 * l), 252, "default limit SDSC->LA = 252");
	is_int(gb_topo_default_limit(t, 2 * l + 1), 252, "default limit LA->SDSC = 252");
	l = gb_topo_find_link(t, "CHI-NCSA");
	is_int(gb_topo_default_limit(t, 2 * l), 230, "default limit CHI->NCSA = 230 (rounded up)");
	l = gb_topo_find_link(t, "CHI-PSC");
	is_int(gb_topo_default_limit(t, 2 * l + 1), 112, "default limit PSC->CHI = 112");
	is_int(gb_topo_default_limit(t, 2 * 8), 560, "default limit c2-1->c2 = 560 (100 Mbit/s)");
	/* rates are read live: halving a rate halves the limit, without re-routing */
	gb_topo_dir(t, 2 * 8)->rate_bps = 50000000;
	is_int(gb_topo_default_limit(t, 2 * 8), 280, "... 280 at 50 Mbit/s");
	gb_topo_dir(t, 2 * 8)->rate_bps = 0;
	is_int(gb_topo_default_limit(t, 2 * 8), 1000, "an unlimited rate gives 1000");

	/* re-routing follows delay changes */
	l = gb_topo_find_link(t, "LA-CHI");
	t->links[l].ab.delay_ns = 50 * MS;
	t->links[l].ba.delay_ns = 50 * MS;
	is_int(gb_topo_route(t), 0, "re-route after a delay change");
	is_int(gb_topo_path_metrics(t, c21, c31, &delay, NULL), 0, "metrics after re-route");
	is_int((long long)delay, 55600000, "the new delay is on the path");
	gb_topo_free(t);
}

static void test_two_clusters(void)
{
	struct gb_topo *t = load("two-clusters.yaml");
	int l;

	if (!t) {
		skip(6, "two-clusters.yaml did not load");
		return;
	}
	is_int(t->nhosts, 8, "two-clusters: 8 hosts");
	is_int(t->nsites, 2, "two-clusters: 2 sites");
	is_int(t->nlinks, 11, "two-clusters: 8 + 2 + 1 links");
	is_str(path_by_name(t, "a-1", "b-4"), "a-1,a,siteA,siteB,b,b-4", "path a-1 -> b-4");
	/* a-1 -> a at 1 Gbit/s; longest RTT: 2 * (0.02 + 0.05 + 5 + 0.05 + 0.02) = 10.28 ms;
	 * 1e9 * 0.01028 / 12000 = 856.7 -> 857 */
	is_int(gb_topo_default_limit(t, 0), 857, "default limit a-1->a = 857");
	l = gb_topo_find_link(t, "siteB-siteA");
	is_int(gb_topo_default_limit(t, 2 * l), 86, "default limit siteA->siteB = 86");
	gb_topo_free(t);
}

static void test_shipped(void)
{
	static const struct {
		const char *file;
		int hosts, clusters, sites;
	} files[] = {
		{ "three-clusters.yaml", 12, 3, 3 },
		{ "grid5000.yaml", 126, 3, 3 },
		{ "phoenix.yaml", 168, 3, 3 },
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct gb_topo *t = load(files[i].file);
		int all = 1;

		if (!t) {
			skip(4, "did not load");
			continue;
		}
		is_int(t->nhosts, files[i].hosts, "%s: %d hosts", files[i].file, files[i].hosts);
		is_int(t->nclusters, files[i].clusters, "%s: clusters", files[i].file);
		is_int(t->nsites, files[i].sites, "%s: sites", files[i].file);
		for (int s = 0; s < t->nhosts; s++)
			for (int d = 0; d < t->nhosts; d++)
				all &= gb_topo_path(t, s, d, NULL) >= 0;
		ok(all && unique_addresses(t), "%s: all hosts reach each other, unique addresses",
		   files[i].file);
		if (i == 0) /* the adaptive test cuts siteA-siteC: it must be on the route */
			is_str(path_by_name(t, "a-1", "c-1"), "a-1,a,siteA,siteC,c,c-1",
			       "three-clusters: a -> c goes over the direct link");
		if (i == 1) { /* RTT Nancy-Rennes 11.6 ms between the routers */
			uint64_t d1 = 0, d2 = 0;

			gb_topo_path_metrics(t, gb_topo_find_node(t, "Nancy"),
					     gb_topo_find_node(t, "Rennes"), &d1, NULL);
			gb_topo_path_metrics(t, gb_topo_find_node(t, "Sophia"),
					     gb_topo_find_node(t, "Rennes"), &d2, NULL);
			is_int((long long)(2 * d1), 11600000, "grid5000: RTT Nancy-Rennes 11.6 ms");
			is_int((long long)(2 * d2), 19000000, "grid5000: RTT Rennes-Sophia 19 ms");
		}
		if (i == 2)
			is_int(t->clusters[2].nhosts, 3, "phoenix: the last cluster has 3 hosts");
		gb_topo_free(t);
	}
}

/*
 * topologies/teragrid-public.yaml states its choices in its header: the
 * paper's structure (that of teragrid.yaml), wide-area rates of the 2003
 * record x 1/100 (400 Mbit/s LA-CHI, 300 Mbit/s each site), 100 Mbit/s
 * inside clusters, and teragrid.yaml's latencies on every link, so that
 * the two files differ in their wide-area rates only.
 */
static void test_teragrid_public(void)
{
	struct gb_topo *p = load("teragrid-public.yaml"), *g = load("teragrid.yaml");
	int same = 1, wan = 0, lan = 1;

	if (!p || !g) {
		skip(6, "a teragrid file did not load");
		gb_topo_free(p);
		gb_topo_free(g);
		return;
	}
	is_int(p->nhosts, 64, "teragrid-public: 64 hosts");
	ok(p->nclusters == g->nclusters && p->nsites == g->nsites && p->nlinks == g->nlinks &&
		   p->nnodes == g->nnodes,
	   "teragrid-public: teragrid's clusters, sites, nodes and links");
	for (int l = 0; l < p->nlinks; l++) {
		const struct gb_link *a = &p->links[l];
		int k = gb_topo_find_link(g, a->name);
		int hub = a->a >= 0 && a->b >= 0 &&
			  (p->nodes[a->a].kind == GB_NODE_HUB || p->nodes[a->b].kind == GB_NODE_HUB);

		if (k < 0 || g->links[k].ab.delay_ns != a->ab.delay_ns ||
		    g->links[k].ba.delay_ns != a->ba.delay_ns) {
			diag("link %s: not in teragrid.yaml or another delay", a->name);
			same = 0;
		}
		if (hub) {
			uint64_t want = strcmp(a->name, "LA-CHI") == 0 ? 400000000u : 300000000u;
			wan += a->ab.rate_bps == want && a->ba.rate_bps == want;
		} else if (a->ab.rate_bps != 100000000u || a->ba.rate_bps != 100000000u) {
			diag("link %s: %llu bit/s, not 100 Mbit/s", a->name,
			     (unsigned long long)a->ab.rate_bps);
			lan = 0;
		}
	}
	ok(same, "teragrid-public: every link has teragrid.yaml's delays");
	is_int(wan, 5, "teragrid-public: LA-CHI 400 Mbit/s, the four site links 300 Mbit/s");
	ok(lan, "teragrid-public: every host link and uplink is the paper's 100 Mbit/s");
	is_str(p->nodes[p->root].name, "c2-1", "teragrid-public: the root is in C2 (s3)");
	gb_topo_free(p);
	gb_topo_free(g);
}

/* Per-direction overrides and the order in which parameter layers apply. */
static void test_overrides(void)
{
	static const char y[] =
		"name: ovr\n"
		"defaults:\n"
		"  host_link: {rate: 100mbit, delay: 1ms, a>b: {rate: 10mbit}}\n"
		"  uplink: {rate: 1gbit, delay: 2ms, loss: 1%}\n"
		"sites:\n"
		"  - name: S\n"
		"    clusters:\n"
		"      - {name: k1, hosts: [h1, h2], cpu: 0.5}\n"
		"      - name: k2\n"
		"        hosts: 1\n"
		"        cpu: 25%\n"
		"        host_link: {delay: 3ms, b>a: {delay: 4ms, jitter: 1ms}}\n"
		"        uplink: {b>a: {rate: 500mbit}, limit: 77}\n"
		"  - name: T\n"
		"    clusters: [{name: k3, hosts: 1}]\n"
		"links:\n"
		"  - name: wan\n"
		"    a: S\n"
		"    b: T\n"
		"    delay: 10ms\n"
		"    rate: 45mbit\n"
		"    b>a: {rate: 40mbit, delay: 12ms}\n"
		"    a>b: {loss: 0.5%}\n";
	struct gb_topo *t = parse("ovr.yaml", y);
	const struct gb_link *l;
	int k2h, wan;

	if (!t) {
		skip(24, "did not parse");
		return;
	}
	is_str(t->nodes[0].name, "h1", "listed host names are kept");
	is_int(t->nodes[0].line, 8, "a listed host's line");
	is_int(t->nodes[0].col, 28, "a listed host's column");
	is_double(t->clusters[0].cpu, 0.5, 1e-12, "cpu 0.5");
	is_double(t->clusters[1].cpu, 0.25, 1e-12, "cpu 25%%");
	is_double(t->clusters[2].cpu, 0.0, 0, "cpu unset is 0");

	l = &t->links[0]; /* h1 - k1: defaults only */
	is_int(l->ab.rate_bps, 10000000, "defaults a>b: host -> switch at 10mbit");
	is_int(l->ba.rate_bps, 100000000, "defaults: switch -> host at 100mbit");
	is_int(l->ab.delay_ns, MS, "defaults: delay 1ms both ways");

	k2h = gb_topo_find_node(t, "k2-1");
	l = &t->links[k2h];
	is_int(l->ab.delay_ns, 3 * MS, "cluster override beats the default (a>b)");
	is_int(l->ba.delay_ns, 4 * MS, "cluster b>a beats the cluster's value");
	is_int(l->ab.rate_bps, 10000000, "defaults a>b still applies where not overridden");
	is_int(l->ba.jitter_ns, MS, "b>a jitter");
	is_int(l->ab.set, GB_LD_RATE | GB_LD_DELAY, "set bits a>b");
	is_int(l->ba.set, GB_LD_RATE | GB_LD_DELAY | GB_LD_JITTER, "set bits b>a");

	l = &t->links[t->nhosts + 1]; /* k2 - S */
	is_int(l->ab.rate_bps, 1000000000, "uplink a>b rate from defaults");
	is_int(l->ba.rate_bps, 500000000, "uplink b>a override");
	is_int(l->ab.limit, 77, "uplink limit override");
	is_double(l->ba.loss, 0.01, 1e-12, "uplink loss from defaults");

	wan = gb_topo_find_link(t, "wan");
	is_int(wan, t->nlinks - 1, "a named link is found by its name");
	is_int(gb_topo_find_link(t, "T-S"), wan, "... and by its ends");
	is_str(t->links[wan].name, "wan", "its name is kept");
	is_int(t->links[wan].ab.rate_bps, 45000000, "wan a>b rate");
	is_int(t->links[wan].ba.rate_bps, 40000000, "wan b>a rate");
	is_int(t->links[wan].ba.delay_ns, 12 * MS, "wan b>a delay");
	is_double(t->links[wan].ab.loss, 0.005, 1e-12, "wan a>b loss");
	is_int(t->links[wan].ab.set, GB_LD_DELAY | GB_LD_RATE | GB_LD_LOSS, "wan a>b set bits");
	is_int(t->links[wan].ba.set, GB_LD_DELAY | GB_LD_RATE, "wan b>a set bits");
	is_int(t->root, 0, "no root given: host 0");
	is_int(t->seed, 1, "default seed 1");
	is_int(t->data.len, 16, "default data block /16");
	gb_topo_free(t);
}

/*
 * Routing rules: the delay of the direction travelled; ties by hops, then
 * by lower link index (of the first hop).
 *
 *          H3            X->Y: direct X-Y is 5ms that way; X-H1-Y and X-H2-Y
 *   0.5ms /  \ 0.5ms     are 2+2 = 1+3 = 4ms, 2 hops each: the tie goes to
 *  (Y->H3)    (H3->X)    X-H1, the lower link index.  Y->X: direct is 1ms
 *        Y -- X          that way, Y-H3-X is 0.5+0.5 = 1ms too but 2 hops:
 *       / \  / \         the direct link wins although its index is higher.
 *     H1   H2   ...      H3's other directions cost 10ms; uplinks 10ms;
 *                        ky-H2 costs 0: kx-1 -> ky-1 goes X,H2,ky.
 */
static void test_routing_rules(void)
{
	static const char y[] =
		"name: rules\n"
		"defaults: {uplink: {delay: 10ms}}\n"
		"sites:\n"
		"  - {name: X, clusters: [{name: kx, hosts: 1}]}\n"
		"  - {name: Y, clusters: [{name: ky, hosts: 1}]}\n"
		"hubs: [H1, H2, H3]\n"
		"links:\n"
		"  - {a: Y, b: H3, a>b: {delay: 0.5ms}, b>a: {delay: 10ms}}\n"
		"  - {a: H3, b: X, a>b: {delay: 0.5ms}, b>a: {delay: 10ms}}\n"
		"  - {a: X, b: Y, a>b: {delay: 5ms}, b>a: {delay: 1ms}}\n"
		"  - {a: X, b: H1, delay: 2ms}\n"
		"  - {a: H1, b: Y, delay: 2ms}\n"
		"  - {a: X, b: H2, delay: 1ms}\n"
		"  - {a: H2, b: Y, delay: 3ms}\n"
		"  - {a: ky, b: H2, delay: 0ms}\n";
	struct gb_topo *t = parse("rules.yaml", y);

	if (!t) {
		skip(4, "did not parse");
		return;
	}
	is_str(path_by_name(t, "X", "Y"), "X,H1,Y", "X->Y: cheaper direction, tie to lower link");
	is_str(path_by_name(t, "Y", "X"), "Y,X", "Y->X: equal delay, fewer hops wins");
	is_str(path_by_name(t, "kx-1", "ky-1"), "kx-1,kx,X,H2,ky,ky-1", "zero-delay link used");
	is_str(path_by_name(t, "H2", "ky"), "H2,ky", "direct zero-delay hop");
	gb_topo_free(t);
}

/* gen-big.sh: 1024 hosts validate and route (timing is a benchmark's job). */
static void test_big(void)
{
	char cmd[600];
	char *buf = NULL;
	size_t len = 0, cap = 0;
	struct gb_topo *t;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "bash '%s/topologies/gen-big.sh' 1024 2>/dev/null", src_dir());
	p = popen(cmd, "r");
	if (!p) {
		skip(4, "cannot run gen-big.sh");
		return;
	}
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				bail("out of memory");
		}
		size_t r = fread(buf + len, 1, 4096, p);

		if (!r)
			break;
		len += r;
	}
	if (buf)
		buf[len] = '\0'; /* there is always room: cap >= len + 4096 */
	is_int(pclose(p), 0, "gen-big.sh 1024 exits 0");
	t = parse("gen-big-1024", buf ? buf : "");
	free(buf);
	if (!t) {
		skip(3, "did not parse");
		return;
	}
	is_int(t->nhosts, 1024, "gen-big: 1024 hosts");
	is_int(t->nclusters, 64, "gen-big: 64 clusters of 16");
	ok(gb_topo_path(t, 0, 1023, NULL) > 0 && gb_topo_path(t, 1023, 0, NULL) > 0,
	   "gen-big: first and last hosts reach each other");
	ok(gb_topo_default_limit(t, 0) >= 64, "gen-big: default limit computed");
	gb_topo_free(t);
}

/* The hosts' TCP stack: defaults, then top level, cluster, host. */
static void test_tcp(void)
{
	static const char y[] =
		"name: tcp\n"
		"tcp: {congestion: reno, buffers: 8MiB}\n"
		"sites:\n"
		"  - name: S\n"
		"    clusters:\n"
		"      - name: k1\n"
		"        hosts: [h1, {name: h2, tcp: {initcwnd: 3, slow_start_after_idle: false}}]\n"
		"        tcp: {congestion: cubic}\n"
		"      - {name: k2, hosts: 1}\n";
	struct gb_topo *t = parse("tcp.yaml", y), *d;
	struct gb_tcp def;
	char buf[160];

	if (!t) {
		skip(9, "did not parse");
		return;
	}
	is_str(t->nodes[0].tcp.congestion, "cubic", "the cluster's congestion beats the top level's");
	is_int(t->nodes[0].tcp.buf_max, 8 << 20, "the top level's buffers reach every host");
	is_int(t->nodes[0].tcp.slow_start_after_idle, 1, "slow start after idle defaults to on");
	is_int(t->nodes[1].tcp.initcwnd, 3, "a host's own initcwnd");
	is_int(t->nodes[1].tcp.slow_start_after_idle, 0, "a host's own slow_start_after_idle");
	is_str(t->nodes[2].tcp.congestion, "reno", "a cluster without tcp: takes the top level's");
	is_int(t->nodes[2].line, 9, "an explicit host given as a mapping keeps its place");
	is_str(gb_tcp_format(&t->nodes[1].tcp, buf, sizeof(buf)),
	       "cubic, slow start after idle off, buffers 8 MiB, initcwnd 3", "the one-line form");
	gb_topo_free(t);

	gb_tcp_defaults(&def);
	d = parse("two.yaml", "name: d\nsites:\n  - name: S\n    clusters: [{name: k, hosts: 1}]\n");
	ok(d && gb_tcp_equal(&d->nodes[0].tcp, &def) && !strcmp(def.congestion, "cubic") &&
	   def.buf_max == 64ull << 20 && def.initcwnd == 0,
	   "without tcp: a host gets the defaults: cubic, 64 MiB, the kernel's initcwnd");
	gb_topo_free(d);
}

/*
 * per_packet: a time like delay, in every parameter set and per-direction
 * map, layered like the others; its bytes at the rate (gb_ppkt_bytes()).
 */
static void test_per_packet(void)
{
	static const char y[] =
		"name: pp\n"
		"defaults:\n"
		"  host_link: {rate: 100mbit, a>b: {per_packet: 35us}}\n"
		"sites:\n"
		"  - name: S\n"
		"    clusters:\n"
		"      - {name: k1, hosts: 1}\n"
		"      - {name: k2, hosts: 1, host_link: {per_packet: 0.3ms}}\n"
		"  - name: T\n"
		"    clusters: [{name: k3, hosts: 1, uplink: {rate: 1gbit, per_packet: 0us}}]\n"
		"links:\n"
		"  - {a: S, b: T, rate: 45mbit, b>a: {per_packet: 1ms}}\n";
	struct gb_topo *t = parse("pp.yaml", y);
	const struct gb_link *l;
	int k;

	if (!t) {
		skip(12, "did not parse");
		return;
	}
	l = &t->links[gb_topo_find_node(t, "k1-1")];
	is_int(l->ab.per_packet_ns, 35000, "defaults a>b: host -> switch costs 35us a packet");
	is_int(l->ba.per_packet_ns, 0, "... switch -> host nothing");
	ok((l->ab.set & GB_LD_PPKT) && !(l->ba.set & GB_LD_PPKT), "set bit a>b only");
	l = &t->links[gb_topo_find_node(t, "k2-1")];
	is_int(l->ab.per_packet_ns, 300000, "the cluster's both-way value beats the default's a>b");
	is_int(l->ba.per_packet_ns, 300000, "... and applies to b>a");
	k = gb_topo_find_link(t, "k3-T");
	ok(k >= 0 && t->links[k].ab.per_packet_ns == 0 && (t->links[k].ab.set & GB_LD_PPKT),
	   "per_packet 0 is set and costs nothing");
	k = gb_topo_find_link(t, "S-T");
	ok(k >= 0 && t->links[k].ba.per_packet_ns == 1000000 && t->links[k].ab.per_packet_ns == 0,
	   "an explicit link's b>a map");
	is_int(gb_ppkt_bytes(35000, 100000000), 438, "35us at 100mbit: 437.5 bytes, rounded up");
	is_int(gb_ppkt_bytes(1000000, 100000000), 12500, "1ms at 100mbit: 12500 bytes");
	is_int(gb_ppkt_bytes(300000, 0), 0, "no rate: no bytes");
	is_int(gb_ppkt_bytes(1000000000, 100000000000ull), 12500000000ull,
	       "1s at 100gbit does not overflow");
	is_int(gb_ppkt_bytes(524000, 1000000000), 65500, "524us at 1gbit still fits 16 bits");
	gb_topo_free(t);
}

int main(void)
{
	test_per_packet();
	test_tcp();
	test_teragrid();
	test_two_clusters();
	test_shipped();
	test_teragrid_public();
	test_overrides();
	test_routing_rules();
	test_big();
	return done_testing();
}
