// SPDX-License-Identifier: MIT
/*
 * 0020-topo-malformed: every kind of bad topology is refused with -EINVAL,
 * nothing is returned, and the diagnostic points at the offending key or
 * value (1-based line:col) with a one-line lowercase message quoting it.
 * Run under ASan (the sanitizer build) this also shows that failures leak
 * nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "gbtopo.h"
#include "tap.h"

/* Two valid sites, for cases that break something after them. */
#define SITES_AB                                                                       \
	"sites:\n"                                                                     \
	"  - name: A\n"                                                                \
	"    clusters: [{name: a, hosts: 2}]\n"                                        \
	"  - name: B\n"                                                                \
	"    clusters: [{name: b, hosts: 2}]\n"

struct bad {
	const char *file;  /* a realistic file name, reported in the diag */
	const char *yaml;
	int line, col;
	const char *msg;   /* a substring of the message */
};

static const struct bad cases[] = {
	/* YAML syntax */
	{ "syntax.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters: [{name: a, hosts: 2}\n"
	  "hubs: [H]\n",
	  5, 1, "yaml syntax error: did not find expected ',' or ']'" },
	{ "tabs.yaml",
	  "name: x\n"
	  "sites:\n"
	  "\t- name: A\n",
	  3, 1, "yaml syntax error: found character that cannot start any token" },
	{ "badutf8.yaml", "name: x\xff\nsites: []\n", 1, 8, "yaml syntax error: invalid" },
	{ "empty.yaml", "", 1, 1, "empty topology" },
	{ "comments.yaml", "# only a comment\n\n", 1, 1, "empty topology" },
	{ "twodocs.yaml", "name: x\n" SITES_AB "---\nname: y\n", 7, 1,
	  "more than one yaml document" },
	{ "list.yaml", "- name: x\n", 1, 1, "a topology must be a mapping, got a list" },
	{ "alias.yaml",
	  "name: x\n"
	  "defaults:\n"
	  "  host_link: &l {rate: 1gbit}\n"
	  "  uplink: *l\n"
	  SITES_AB,
	  3, 14, "yaml anchors and aliases are not supported" },
	{ "dupkey.yaml", "name: x\nname: y\n" SITES_AB, 2, 1, "duplicate key 'name'" },

	/* unknown keys and wrong types */
	{ "topkey.yaml", "name: x\ncolour: red\n" SITES_AB, 2, 1,
	  "unknown top-level key 'colour'" },
	{ "linkkey.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, delya: 2ms}\n",
	  8, 18, "link 'A-B': unknown key 'delya'" },
	{ "clusterkey.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters:\n"
	  "      - name: a\n"
	  "        hosts: 2\n"
	  "        speed: 2ghz\n",
	  7, 9, "cluster 'a': unknown key 'speed'" },
	{ "defaultskey.yaml",
	  "name: x\n"
	  "defaults:\n"
	  "  host_link: {rate: 1gbit, mtu: 9000}\n" SITES_AB,
	  3, 28, "defaults host_link: unknown key 'mtu'" },
	{ "dirkey.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - a: A\n"
	  "    b: B\n"
	  "    A>B: {rate: 10mbit}\n",
	  10, 5, "link 'A-B': unknown key 'A>B' (per-direction keys are 'a>b' and 'b>a')" },
	{ "sitesmap.yaml", "name: x\nsites: {name: A}\n", 2, 8,
	  "'sites' must be a list, got a mapping" },
	{ "hoststype.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters: [{name: a, hosts: {count: 4}}]\n",
	  4, 33, "cluster 'a': hosts must be a count or a list of names, got a mapping" },
	{ "hostsword.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters: [{name: a, hosts: eight}]\n",
	  4, 33, "got 'eight'" },
	{ "hostszero.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters: [{name: a, hosts: 0}]\n",
	  4, 33, "cluster 'a' has no hosts" },
	{ "noname.yaml", "sites: []\n", 1, 1, "topology has no 'name'" },
	{ "nosites.yaml", "name: x\nhubs: [H]\n", 1, 1, "topology has no sites" },
	{ "noclusters.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters: []\n",
	  4, 15, "site 'A' has no clusters" },
	{ "mtu.yaml", "name: x\nmtu: 20\n" SITES_AB, 2, 6, "mtu must be an integer 68 .. 65535" },
	{ "nob.yaml", "name: x\n" SITES_AB "links:\n  - {a: A}\n", 8, 5,
	  "link #1 needs both ends 'a' and 'b'" },

	/* values and units */
	{ "badtime.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, delay: 2mins}\n",
	  8, 25, "link 'A-B': delay '2mins' is not a time (use 2ms)" },
	{ "baredelay.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, delay: 25}\n",
	  8, 25, "link 'A-B': delay '25' has no unit (use 25ms)" },
	{ "badrate.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: NCSA\n"
	  "    clusters:\n"
	  "      - name: c3\n"
	  "        hosts: 4\n"
	  "        uplink: {rate: 10 mbps}\n",
	  7, 24, "link 'c3-NCSA': rate '10 mbps' is not a rate (use 10mbit)" },
	{ "rate0.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, rate: 0mbit}\n",
	  8, 24, "rate '0mbit' must be positive" },
	{ "loss150.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, loss: 150%}\n",
	  8, 24, "link 'A-B': loss '150%' is out of range" },
	{ "lossbare.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, loss: 1}\n",
	  8, 24, "loss '1' has no unit (use 1%)" },
	{ "neglimit.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, limit: -5}\n",
	  8, 25, "link 'A-B': limit '-5' is not a packet count" },
	{ "bigdelay.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, delay: 61s}\n",
	  8, 25, "delay '61s' is out of range (max 60s)" },
	{ "jitter.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - a: A\n"
	  "    b: B\n"
	  "    delay: 2ms\n"
	  "    b>a: {jitter: 3ms}\n",
	  11, 19, "link 'A-B': jitter '3ms' exceeds delay '2ms' (B>A)" },
	{ "pp-norate.yaml",
	  "name: x\n"
	  "defaults:\n"
	  "  host_link: {per_packet: 35us}\n" SITES_AB,
	  3, 27, "per_packet '35us' needs a rate (a-1>a)" },
	{ "pp-dirnorate.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - a: A\n"
	  "    b: B\n"
	  "    a>b: {rate: 10mbit}\n"
	  "    b>a: {per_packet: 1ms}\n",
	  11, 23, "link 'A-B': per_packet '1ms' needs a rate (B>A)" },
	{ "pp-big.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, rate: 1gbit, per_packet: 2s}\n",
	  8, 43, "link 'A-B': per_packet '2s' is out of range (0 .. 1s)" },
	{ "pp-bare.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, rate: 1gbit, per_packet: 35}\n",
	  8, 43, "link 'A-B': per_packet '35' has no unit (use 35us)" },
	{ "pp-bytes.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, rate: 1gbit, per_packet: 1ms}\n",
	  8, 43, "link 'A-B': per_packet '1ms' at rate '1gbit' is more than 65535 bytes" },
	{ "pp-key.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, rate: 1gbit, per_pkt: 1us}\n",
	  8, 31, "link 'A-B': unknown key 'per_pkt'" },
	{ "cpu.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters: [{name: a, hosts: 2, cpu: 1.5}]\n",
	  4, 41, "cluster 'a': cpu '1.5' is out of range" },

	/* the hosts' TCP stack */
	{ "tcpkey.yaml",
	  "name: x\n"
	  "tcp: {congestion: cubic, window: 3}\n"
	  SITES_AB,
	  2, 26, "topology tcp: unknown key 'window'" },
	{ "tcpcc.yaml",
	  "name: x\n"
	  "tcp: {congestion: Cubic!}\n"
	  SITES_AB,
	  2, 19, "topology tcp: congestion must be a congestion control name" },
	{ "tcpbuf.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters: [{name: a, hosts: 2, tcp: {buffers: 1kib}}]\n",
	  4, 51, "cluster 'a' tcp: buffers '1kib' is out of range" },
	{ "tcpssai.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters: [{name: a, hosts: [{name: a-1, tcp: {slow_start_after_idle: maybe}}]}]\n",
	  4, 75, "host 'a-1' tcp: slow_start_after_idle must be true or false" },
	{ "tcpiw.yaml",
	  "name: x\n"
	  "tcp: {initcwnd: 0}\n"
	  SITES_AB,
	  2, 17, "topology tcp: initcwnd must be a number of segments 1 .. 1000" },

	/* names */
	{ "duphost.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters:\n"
	  "      - name: a\n"
	  "        hosts: [h1, h2,\n"
	  "                h1]\n",
	  7, 17, "duplicate name 'h1' (also declared at 6:17)" },
	{ "dupcluster.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters: [{name: k, hosts: 2}]\n"
	  "  - name: B\n"
	  "    clusters: [{name: k, hosts: 2}]\n",
	  6, 23, "duplicate name 'k' (also declared at 4:23)" },
	{ "dupsite.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters: [{name: A, hosts: 2}]\n",
	  4, 23, "duplicate name 'A' (also declared at 3:11)" },
	{ "badchars.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters: [{name: c/1, hosts: 2}]\n",
	  4, 23, "cluster name 'c/1' has a character outside [A-Za-z0-9_.-]" },
	{ "longname.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: a_site_name_that_is_far_too_long\n"
	  "    clusters: [{name: a, hosts: 2}]\n",
	  3, 11, "site name 'a_site_name_that_is_far_too_long' is too long (max 31" },
	{ "longhost.yaml",
	  "name: x\n"
	  "sites:\n"
	  "  - name: A\n"
	  "    clusters: [{name: a_cluster_name_of_30_chars_xx, hosts: 10}]\n",
	  4, 61, "host name 'a_cluster_name_of_30_chars_xx-10' is too long" },

	/* links */
	{ "dangling.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: LA}\n",
	  8, 15, "link 'A-LA': unknown node 'LA'" },
	{ "self.yaml",
	  "name: x\n" SITES_AB
	  "hubs: [H]\n"
	  "links:\n"
	  "  - {a: A, b: B}\n"
	  "  - {a: H, b: H}\n",
	  10, 15, "link 'H-H' joins 'H' to itself" },
	{ "duplink.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B, delay: 1ms}\n"
	  "  - {a: B, b: A, delay: 2ms}\n",
	  9, 5, "duplicate link 'B-A' (same nodes as link 'A-B' at 8:5)" },
	{ "dupimplicit.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: B}\n"
	  "  - {a: a, b: A}\n",
	  9, 5, "duplicate link 'a-A' (same nodes as link 'a-A' at 4:23)" },
	{ "duplinkname.yaml",
	  "name: x\n" SITES_AB
	  "hubs: [H]\n"
	  "links:\n"
	  "  - {a: A, b: B, name: wan}\n"
	  "  - {a: A, b: H, name: wan}\n",
	  10, 24, "duplicate link name 'wan' (also at 9:24)" },
	{ "hostlink.yaml",
	  "name: x\n" SITES_AB
	  "links:\n"
	  "  - {a: A, b: b-1}\n",
	  8, 15, "link 'A-b-1': 'b-1' is a host" },
	{ "unreachable.yaml",
	  "name: x\n" SITES_AB
	  "  - name: C\n"
	  "    clusters: [{name: c, hosts: 2}]\n"
	  "links:\n"
	  "  - {a: A, b: B}\n",
	  7, 11, "site 'C' is unreachable from site 'A'" },
	{ "lonehub.yaml",
	  "name: x\n" SITES_AB
	  "hubs: [H1, H2]\n"
	  "links:\n"
	  "  - {a: A, b: H1}\n"
	  "  - {a: B, b: H1}\n",
	  7, 12, "hub 'H2' is unreachable from site 'A'" },
	{ "root.yaml", "name: x\nroot: a\n" SITES_AB "links: [{a: A, b: B}]\n", 2, 7,
	  "root 'a' is not a host" },

	/* addressing */
	{ "badblock.yaml",
	  "name: x\n"
	  "addressing: {data: 10.250.0/16}\n" SITES_AB,
	  2, 20, "data block '10.250.0/16' is not an ipv4 prefix" },
	{ "hostbits.yaml",
	  "name: x\n"
	  "addressing: {mgmt: 10.251.1.0/16}\n" SITES_AB,
	  2, 20, "mgmt block '10.251.1.0/16' has host bits set (use 10.251.0.0/16)" },
	{ "overlap.yaml",
	  "name: x\n"
	  "addressing:\n"
	  "  data: 10.0.0.0/8\n"
	  "  mgmt: 10.251.0.0/16\n" SITES_AB "links: [{a: A, b: B}]\n",
	  4, 9, "mgmt block '10.251.0.0/16' overlaps data block '10.0.0.0/8'" },
	{ "small.yaml",
	  "name: x\n"
	  "addressing: {data: 10.250.0.0/29}\n" SITES_AB "links: [{a: A, b: B}]\n",
	  2, 20, "data block '10.250.0.0/29' is too small: 8 nodes need 9 addresses" },
	{ "smallmgmt.yaml",
	  "name: x\n"
	  "addressing: {mgmt: 10.251.0.0/30}\n" SITES_AB "links: [{a: A, b: B}]\n",
	  2, 20, "mgmt block '10.251.0.0/30' is too small: 4 hosts need 7 addresses" },
};

int main(void)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);

	plan((int)(n * 5));
	for (size_t i = 0; i < n; i++) {
		const struct bad *b = &cases[i];
		struct gb_topo *t = (struct gb_topo *)&cases; /* must be reset to NULL */
		struct gb_diag d;
		int r = gb_topo_parse(b->yaml, strlen(b->yaml), b->file, &t, &d);

		is_int(r, -EINVAL, "%s: -EINVAL", b->file);
		ok(t == NULL, "%s: no topology returned", b->file);
		if (r == 0)
			gb_topo_free(t);
		ok(d.line == b->line && d.col == b->col && !strcmp(d.file, b->file),
		   "%s: at %d:%d", b->file, b->line, b->col);
		if (d.line != b->line || d.col != b->col)
			diag("  got %s:%d:%d", d.file, d.line, d.col);
		ok(strstr(d.msg, b->msg) != NULL, "%s: message has '%s'", b->file, b->msg);
		if (!strstr(d.msg, b->msg))
			diag("  got: %s", d.msg);
		ok(!strchr(d.msg, '\n') && d.msg[0] && !isupper((unsigned char)d.msg[0]),
		   "%s: one lowercase line", b->file);
	}
	return done_testing();
}
