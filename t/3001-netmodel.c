/* SPDX-License-Identifier: MIT */
/*
 * 3001-netmodel - network models: topology import, the matrix file,
 * generators, sub-models, size parsing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbplan.h"
#include "gbtopo.h"
#include "tap.h"

static const char *srcdir(void)
{
	const char *s = getenv("GRIDBED_SRC");

	return s ? s : GRIDBED_SOURCE_DIR;
}

static int same_model(const struct gb_netmodel *a, const struct gb_netmodel *b)
{
	if (a->n != b->n || a->nclusters != b->nclusters || a->nsites != b->nsites)
		return 0;
	for (int i = 0; i < a->n; i++) {
		if (strcmp(a->nodes[i].name, b->nodes[i].name) ||
		    strcmp(a->cluster_names[a->nodes[i].cluster],
			   b->cluster_names[b->nodes[i].cluster]) ||
		    strcmp(a->site_names[a->nodes[i].site], b->site_names[b->nodes[i].site]) ||
		    a->o[i] != b->o[i])
			return 0;
		for (int j = 0; j < a->n; j++) {
			size_t k = (size_t)i * a->n + j;

			if (i == j)
				continue;
			if (a->lat[k] != b->lat[k] || a->bw[k] != b->bw[k])
				return 0;
		}
	}
	return 1;
}

static void test_topology(void)
{
	char path[512];
	struct gb_err why = { "" };
	struct gb_topo *t = NULL;
	struct gb_diag d;
	struct gb_netmodel m;
	int a1, a2, b1, ret;
	size_t ab;

	snprintf(path, sizeof(path), "%s/topologies/two-clusters.yaml", srcdir());
	if (access(path, R_OK) != 0) {
		skip(9, "topologies/two-clusters.yaml not found");
		return;
	}
	ret = gb_topo_load(path, &t, &d);
	if (ret < 0) {
		char line[GB_DIAG_LINE_MAX];

		diag("%s", gb_diag_format(&d, NULL, line, sizeof(line)));
		skip(9, "two-clusters.yaml does not load");
		return;
	}
	is_int(gb_nm_from_topo(&m, t, 20e-6), 0, "from_topo two-clusters");
	is_int(m.n, 8, "8 hosts");
	ok(gb_nm_check(&m, &why) == 0, "model from topology is valid (%s)",
	   gb_nm_check(&m, &why) ? why.msg : "ok");
	a1 = gb_nm_find_node(&m, "a-1");
	a2 = gb_nm_find_node(&m, "a-2");
	b1 = gb_nm_find_node(&m, "b-1");
	ok(a1 >= 0 && a2 >= 0 && b1 >= 0, "host names kept");
	ab = (size_t)a1 * m.n + b1;
	/* a-1 -> a -> siteA -> siteB -> b -> b-1:
	 * 0.02 + 0.05 + 5 + 0.05 + 0.02 ms; bottleneck 100 mbit */
	is_double(m.lat[ab], 5.14e-3, 1e-12, "latency a-1 -> b-1 is the sum of delays");
	is_double(m.bw[ab], 100e6 / 8, 1e-6, "bandwidth a-1 -> b-1 is the bottleneck");
	is_int(m.pathlen[ab], 5, "routed path a-1 -> b-1 kept (5 hops)");
	is_double(m.bw[(size_t)a1 * m.n + a2], 1e9 / 8, 1e-3, "intra-cluster bandwidth 1 gbit");
	ok(m.nodes[a1].cluster != m.nodes[b1].cluster && m.nodes[a1].site != m.nodes[b1].site,
	   "clusters and sites kept");
	gb_nm_release(&m);
	gb_topo_free(t);
}

/* o(i) = o_default + the per_packet of host i's own host link (host > switch) */
static void test_per_packet(void)
{
	static const char y[] =
		"name: pp\n"
		"defaults:\n"
		"  host_link: {rate: 100mbit, delay: 0.02ms, a>b: {per_packet: 35us}}\n"
		"sites:\n"
		"  - name: S\n"
		"    clusters:\n"
		"      - {name: a, hosts: 2}\n"
		"      - {name: b, hosts: 1, host_link: {a>b: {per_packet: 0.3ms}, "
		"b>a: {per_packet: 1ms}}}\n";
	struct gb_topo *t = NULL;
	struct gb_diag d;
	struct gb_netmodel m;
	int a1, a2, b1;

	if (gb_topo_parse(y, sizeof(y) - 1, "pp.yaml", &t, &d) < 0 ||
	    gb_nm_from_topo(&m, t, 20e-6) < 0) {
		gb_topo_free(t);
		diag("%s", d.msg);
		skip(6, "per_packet topology does not load");
		return;
	}
	a1 = gb_nm_find_node(&m, "a-1");
	a2 = gb_nm_find_node(&m, "a-2");
	b1 = gb_nm_find_node(&m, "b-1");
	is_double(m.o[a1], 20e-6 + 35e-6, 1e-12, "o(a-1) = o_default + its egress per_packet");
	is_double(m.o[b1], 20e-6 + 300e-6, 1e-12,
		  "o(b-1) takes its own egress (0.3ms), not the switch's 1ms towards it");
	/* a-1's egress carries MTU packets at 12.5 MB/s x 1500 / (1500 + 35us x
	 * 12.5 MB/s = 437.5 bytes): the path's bottleneck with the cost */
	is_double(m.bw[(size_t)a1 * m.n + a2], 12.5e6 * 1500 / 1937.5, 1e-3,
		  "B(a-1, a-2): the rate MTU packets get with a-1's per_packet");
	is_double(m.bw[(size_t)a2 * m.n + b1], 12.5e6 * 1500 / 14000, 1e-3,
		  "B(a-2, b-1): the switch's 1ms towards b-1 (12500 bytes a packet) is the bottleneck");
	/* Delta(a-1, a-2) for 1250 bytes: o + 1250 / B */
	is_double(gb_nm_delta(&m, a1, a2, 1250), 55e-6 + 1250 * 1937.5 / (1500 * 12.5e6), 1e-12,
		  "Delta(a-1, a-2) = o(a-1) + m / B sees the injection cost");
	is_double(gb_nm_delta(&m, b1, a1, 0), 320e-6, 1e-12, "Delta(b-1, a-1) for an empty message");
	gb_nm_release(&m);
	gb_topo_free(t);
}

static void test_json(void)
{
	struct gb_netmodel m, r;
	char path[] = "/tmp/gb3001-XXXXXX";
	struct gb_err err = { "" };
	int fd = mkstemp(path);
	FILE *f;

	if (fd < 0)
		bail("mkstemp: %s", strerror(errno));
	close(fd);
	is_int(gb_nm_gen_grid(&m, 2, 2, 3, 7), 0, "gen_grid 2x2x3");
	m.version = 42;
	m.bw[1] = INFINITY; /* unlimited survives as 0 */
	is_int(gb_nm_save_json(&m, path), 0, "save matrix json");
	is_int(gb_nm_load_json(&r, path, &err), 0, "load it back");
	ok(same_model(&m, &r), "round trip keeps names, groups, o, lat, bw exactly");
	ok(r.version == 42, "version kept");
	ok(isinf(r.bw[1]), "unlimited bandwidth round-trips");
	gb_nm_release(&r);
	gb_nm_release(&m);

	/* errors name the file and the problem */
	f = fopen(path, "w");
	fprintf(f, "{\"nodes\": [{\"name\": \"x\"}, {\"name\": \"y\"}], "
		"\"lat\": [[0, 1], [1, 0]], \"bw\": [[0, 5]]}");
	fclose(f);
	err.msg[0] = 0;
	is_int(gb_nm_load_json(&r, path, &err), -EINVAL, "short bw matrix rejected");
	ok(strstr(err.msg, path) && strstr(err.msg, "'bw'"), "error names file and key: %s",
	   err.msg);
	f = fopen(path, "w");
	fprintf(f, "{\"nodes\": [{\"name\": \"x\", \"cluster\": \"c\"}, {\"name\": \"y\", "
		"\"cluster\": \"c\"}], \"o\": 1e-5, \"lat\": [[0, 1e-3], [2e-3, 0]], "
		"\"bw\": [[0, 1e6], [2e6, 0]]}");
	fclose(f);
	is_int(gb_nm_load_json(&r, path, &err), 0, "minimal matrix loads");
	ok(r.n == 2 && r.nclusters == 1 && r.nsites == 1 && r.o[1] == 1e-5 &&
	   r.lat[1] == 1e-3 && r.lat[2] == 2e-3 && r.bw[2] == 2e6 && !r.path,
	   "defaults: site = cluster, scalar o, asymmetric matrices, no paths");
	gb_nm_release(&r);
	f = fopen(path, "w");
	fprintf(f, "{\"nodes\": [{\"name\": \"x\"}, {\"name\": \"x\"}], "
		"\"lat\": [[0, 1], [1, 0]], \"bw\": [[0, 5], [5, 0]]}");
	fclose(f);
	is_int(gb_nm_load_json(&r, path, &err), -EINVAL, "duplicate names rejected");
	unlink(path);
	is_int(gb_nm_load_json(&r, "/nonexistent/m.json", &err), -ENOENT,
	       "missing file is -ENOENT");
}

static void test_generators(void)
{
	struct gb_netmodel a, b, c;
	int inrange = 1, sym = 1;
	double lo = 1e300, hi = 0;

	is_int(gb_nm_gen_gupta_fig3(&a, 32, 5), 0, "gupta fig3 model");
	is_int(gb_nm_gen_gupta_fig3(&b, 32, 5), 0, "same seed");
	is_int(gb_nm_gen_gupta_fig3(&c, 32, 6), 0, "other seed");
	ok(same_model(&a, &b), "deterministic for a seed");
	ok(!same_model(&a, &c), "seed matters");
	for (int i = 0; i < 32; i++) {
		for (int j = 0; j < 32; j++) {
			double x = a.bw[i * 32 + j];

			if (i == j)
				continue;
			inrange &= x >= 0.1 * GB_MBIT && x < 10 * GB_MBIT;
			sym &= x == a.bw[j * 32 + i];
			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
		}
	}
	ok(inrange, "bandwidths within 0.1-10 Mbit/s");
	ok(sym, "bandwidth matrix symmetric");
	ok(lo < 1 * GB_MBIT && hi > 9 * GB_MBIT, "draws spread over the interval (%.2f..%.2f)",
	   lo / GB_MBIT, hi / GB_MBIT);
	gb_nm_release(&a);
	gb_nm_release(&b);
	gb_nm_release(&c);

	is_int(gb_nm_gen_grid(&a, 3, 2, 4, 1), 0, "grid 3 sites x 2 clusters x 4");
	ok(a.n == 24 && a.nclusters == 6 && a.nsites == 3 && gb_nm_check(&a, NULL) == 0,
	   "grid shape and validity");
	ok(a.nodes[5].cluster == 1 && a.nodes[5].site == 0 && a.nodes[9].site == 1,
	   "nodes numbered cluster by cluster");
	ok(a.bw[0 * 24 + 1] > a.bw[0 * 24 + 20] && a.lat[0 * 24 + 1] < a.lat[0 * 24 + 20],
	   "intra-cluster faster than wide area");
	gb_nm_release(&a);
}

static void test_sub(void)
{
	struct gb_netmodel m, s;
	int pick[] = { 5, 2, 7 };

	if (gb_nm_gen_grid(&m, 2, 1, 4, 3) < 0)
		bail("gen_grid");
	is_int(gb_nm_sub(&s, &m, pick, 3), 0, "sub-model of 3 nodes");
	ok(s.n == 3 && strcmp(s.nodes[0].name, m.nodes[5].name) == 0 &&
	   s.lat[0 * 3 + 1] == m.lat[5 * 8 + 2] && s.bw[2 * 3 + 0] == m.bw[7 * 8 + 5] &&
	   s.o[1] == m.o[2] && s.nclusters == m.nclusters,
	   "sub-model maps nodes, matrices and groups");
	gb_nm_release(&s);
	gb_nm_release(&m);
	gb_nm_release(&m); /* idempotent */
	ok(m.n == 0 && m.lat == NULL, "release twice is safe");
}

static void test_sizes(void)
{
	double b = 0;

	ok(gb_parse_size("1000", &b) == 0 && b == 1000, "plain bytes");
	ok(gb_parse_size("1K", &b) == 0 && b == 1024, "1K = 1024");
	ok(gb_parse_size("1M", &b) == 0 && b == 1048576, "1M = 1048576");
	ok(gb_parse_size("2MiB", &b) == 0 && b == 2097152, "2MiB");
	ok(gb_parse_size("64kB", &b) == 0 && b == 65536, "64kB");
	ok(gb_parse_size("1X", &b) == -EINVAL && gb_parse_size("", &b) == -EINVAL &&
	   gb_parse_size("-1", &b) == -EINVAL && gb_parse_size("M", &b) == -EINVAL,
	   "garbage rejected");
}

int main(void)
{
	test_topology();
	test_per_packet();
	test_json();
	test_generators();
	test_sub();
	test_sizes();
	return done_testing();
}
