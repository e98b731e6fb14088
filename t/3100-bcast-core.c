/* SPDX-License-Identifier: MIT */
/*
 * 3100-bcast-core - libgridbcast's MPI-free parts (bcast_core.h): tree
 * relabelling for another root, the piggybacked header (round trip, size,
 * corruption), timing arithmetic, the rank map reader, the topology's
 * lower bound, the verification pattern and the stripes by size.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bcast_core.h"
#include "gbtopo.h"
#include "tap.h"

/* A tree from a parent array, children in index order. */
static void mk(struct gb_tree *t, int n, int root, const int *par)
{
	if (gb_tree_init(t, n, root) < 0 || gb_tree_from_parents(t, par, NULL) < 0)
		bail("cannot build a tree");
}

static int child_list(const struct gb_tree *t, int v, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (int k = 0; k < t->nchild[v]; k++)
		o += snprintf(buf + o, len - o, "%s%d", k ? "," : "", t->child[t->cstart[v] + k]);
	return (int)o;
}

static void test_relabel(void)
{
	/*      0            relabelled to root 3:      3
	 *    / | \                                   / | \
	 *   3  1  2   (send order 3, 1, 2)          0  1  2
	 *   |                                       |
	 *   4                                       4        */
	int par[5] = { -1, 0, 0, 0, 3 };
	double key[5] = { 0, 2, 3, 1, 0 };
	struct gb_tree t, r, back;
	char cl[64];

	if (gb_tree_init(&t, 5, 0) < 0 || gb_tree_from_parents(&t, par, key) < 0)
		bail("cannot build a tree");
	child_list(&t, 0, cl, sizeof(cl));
	is_str(cl, "3,1,2", "input: root 0 sends to 3, 1, 2");
	is_int(gb_tree_relabel(&t, 3, &r), 0, "relabel to root 3");
	is_int(r.root, 3, "new root");
	is_int(gb_tree_check(&r, NULL), 0, "relabelled tree is valid");
	child_list(&r, 3, cl, sizeof(cl));
	is_str(cl, "0,1,2", "root 3 sends to 0 (the old 3's place), 1, 2 in the same order");
	is_int(r.parent[4], 0, "4 hangs below 0, which took 3's place");
	is_int(r.parent[0], 3, "0 is a child of the new root");
	is_int(gb_relabel(3, 0, 3), 0, "gb_relabel swaps root and new root");
	is_int(gb_relabel(4, 0, 3), 4, "others keep their label");
	is_int(gb_tree_relabel(&r, 0, &back), 0, "relabel back");
	ok(gb_tree_equal(&back, &t), "relabelling is an involution");
	gb_tree_release(&back);
	is_int(gb_tree_relabel(&t, 0, &back), 0, "relabel to the same root");
	ok(gb_tree_equal(&back, &t), "same root: the same tree");
	gb_tree_release(&back);
	is_int(gb_tree_relabel(&t, 5, &back), -EINVAL, "root out of range is refused");
	is_int(gb_tree_relabel(&t, 0, &t), -EINVAL, "in place is refused");
	gb_tree_release(&r);
	gb_tree_release(&t);
}

static void test_header(void)
{
	int par[7] = { 2, 2, -1, 0, 2, 4, 4 };
	double key[7] = { 1, 0, 0, 0, 2, 1, 0 };
	struct gb_tree t, d;
	uint8_t buf[256];
	uint32_t seq = 0;
	uint64_t pl = 0;
	long len;

	is_int((int)gb_bhdr_size(64), 286, "header for 64 ranks: 30 + 4n = 286 bytes");
	is_int((int)gb_bhdr_size(1), 34, "header for 1 rank: 34 bytes");
	if (gb_tree_init(&t, 7, 2) < 0 || gb_tree_from_parents(&t, par, key) < 0)
		bail("cannot build a tree");
	len = gb_bhdr_encode(&t, 77, 8388611, buf, sizeof(buf));
	is_int((int)len, (int)gb_bhdr_size(7), "encode writes gb_bhdr_size() bytes");
	is_int(buf[0], 'G', "magic starts with 'G'");
	is_int(gb_bhdr_decode(buf, (size_t)len, 7, &d, &seq, &pl), 0, "decode");
	ok(gb_tree_equal(&t, &d), "round trip keeps parents and send orders");
	is_int((int)seq, 77, "round trip keeps seq");
	ok(pl == 8388611, "round trip keeps the payload size");
	gb_tree_release(&d);

	is_int((int)gb_bhdr_encode(&t, 0, 0, buf, 10), -ENOSPC, "short buffer: -ENOSPC");
	is_int(gb_bhdr_decode(buf, (size_t)len, 8, &d, NULL, NULL), -EPROTO,
	       "decode for another communicator size fails");
	is_int(gb_bhdr_decode(buf, (size_t)len - 1, 7, &d, NULL, NULL), -EPROTO,
	       "truncated header fails");
	buf[0] ^= 1;
	is_int(gb_bhdr_decode(buf, (size_t)len, 7, &d, NULL, NULL), -EPROTO, "bad magic fails");
	buf[0] ^= 1;
	/* the child lists are [3] (of 0), [1, 0, 4] (of 2), [6, 5] (of 4) */
	{
		uint8_t bad[256];
		size_t lst = GB_BHDR_FIXED + 2 * 7;

		memcpy(bad, buf, (size_t)len);
		bad[lst + 2] = 3;   /* 2's first child 1 becomes 3: 3 twice */
		bad[lst + 3] = 0;
		ok(gb_bhdr_decode(bad, (size_t)len, 7, &d, NULL, NULL) == -EPROTO,
		   "a node listed twice is refused");
		memcpy(bad, buf, (size_t)len);
		bad[lst] = 2;       /* 0's child becomes the root */
		ok(gb_bhdr_decode(bad, (size_t)len, 7, &d, NULL, NULL) == -EPROTO,
		   "the root as a child is refused");
		memcpy(bad, buf, (size_t)len);
		bad[GB_BHDR_FIXED] = 2;  /* nchild[0] = 2: counts no longer sum to n-1 */
		ok(gb_bhdr_decode(bad, (size_t)len, 7, &d, NULL, NULL) == -EPROTO,
		   "wrong child counts are refused");
	}
	/* striped broadcasts (issue 14): version 2 carries the stripes and the groups */
	{
		uint8_t v2[256], v1[256];
		int grp[7] = { 0, 0, 1, 1, -1, 2, 2 }, got[7], k = 0, same = 1;
		long l2, l1;

		is_int((int)gb_bhdr_size_striped(64, 2), 286 + 128,
		       "striped header for 64 ranks: 30 + 6n bytes");
		is_int((int)gb_bhdr_size_striped(64, 1), 286, "  one stripe: the plain header");
		l1 = gb_bhdr_encode_striped(&t, 1, grp, 77, 8388611, v1, sizeof(v1));
		ok(l1 == len && !memcmp(v1, buf, (size_t)len),
		   "one stripe encodes the same bytes as gb_bhdr_encode()");
		l2 = gb_bhdr_encode_striped(&t, 3, grp, 78, 99, v2, sizeof(v2));
		is_int((int)l2, (int)gb_bhdr_size_striped(7, 3), "3 stripes: 30 + 6n bytes");
		ok(v2[4] == 2 && v2[6] == 3, "  version 2, flags = the stripes");
		is_int(gb_bhdr_decode_striped(v2, (size_t)l2, 7, &d, &k, got, &seq, &pl), 0,
		       "  decodes");
		for (int v = 0; v < 7; v++)
			same &= got[v] == grp[v];
		ok(k == 3 && same && gb_tree_equal(&t, &d) && seq == 78 && pl == 99,
		   "  round trip keeps the stripes, the groups (-1 too), the tree, seq, payload");
		gb_tree_release(&d);
		is_int(gb_bhdr_decode(v2, (size_t)l2, 7, &d, NULL, NULL), -EPROTO,
		       "  gb_bhdr_decode() refuses it (version 1 only)");
		is_int(gb_bhdr_decode_striped(buf, (size_t)len, 7, &d, &k, got, NULL, NULL), 0,
		       "a version 1 header decodes striped");
		ok(k == 1 && got[0] == -1 && got[6] == -1, "  as one stripe without groups");
		gb_tree_release(&d);
		is_int(gb_bhdr_decode_striped(v2, (size_t)l2 - 2, 7, &d, &k, got, NULL, NULL),
		       -EPROTO, "a striped header without its last group: -EPROTO");
		v2[6] = 1;
		is_int(gb_bhdr_decode_striped(v2, (size_t)l2, 7, &d, &k, got, NULL, NULL), -EPROTO,
		       "version 2 announcing 1 stripe: -EPROTO");
		is_int((int)gb_bhdr_encode_striped(&t, GB_STRIPES_MAX + 1, grp, 0, 0, v2,
						   sizeof(v2)), -EINVAL, "too many stripes: -EINVAL");
		grp[3] = 70000;
		is_int((int)gb_bhdr_encode_striped(&t, 2, grp, 0, 0, v2, sizeof(v2)), -EINVAL,
		       "a group past 16 bits: -EINVAL");
	}
	gb_tree_release(&t);

	/* a one-node tree and a big one */
	{
		int p1[1] = { -1 };
		struct gb_tree one, big, dd;
		int *pb = malloc(sizeof(int) * 1000);
		uint8_t *hb = malloc(gb_bhdr_size(1000));

		mk(&one, 1, 0, p1);
		len = gb_bhdr_encode(&one, 1, 0, buf, sizeof(buf));
		ok(len == 34 && gb_bhdr_decode(buf, 34, 1, &dd, NULL, NULL) == 0 &&
		   gb_tree_equal(&one, &dd), "one-node tree round trip");
		gb_tree_release(&dd);
		gb_tree_release(&one);
		for (int i = 0; i < 1000; i++)
			pb[i] = i == 999 ? -1 : (i * 7 + 3) % 999 < i ? (i * 7 + 3) % 999 : 999;
		mk(&big, 1000, 999, pb);
		len = gb_bhdr_encode(&big, 5, 1, hb, gb_bhdr_size(1000));
		ok(len == (long)gb_bhdr_size(1000) &&
		   gb_bhdr_decode(hb, (size_t)len, 1000, &dd, NULL, NULL) == 0 &&
		   gb_tree_equal(&big, &dd), "1000-node tree round trip");
		gb_tree_release(&dd);
		gb_tree_release(&big);
		free(pb);
		free(hb);
	}
}

static void test_timing(void)
{
	struct gb_bcast_rankrec r[3];

	memset(r, 0, sizeof(r));
	/* root 1 begins at 10; rank 0 receives at 10.5, rank 2 at 10.8 */
	r[1] = (struct gb_bcast_rankrec){ 10, 10, 10.6, 10.1, NAN, -1, 2, 0 };
	r[0] = (struct gb_bcast_rankrec){ 9.9, 10.5, 10.5, NAN, 10.1, 1, 0, 0 };
	r[2] = (struct gb_bcast_rankrec){ 9.95, 10.8, 10.9, NAN, 10.5, 1, 0, 0 };
	is_double(gb_bcast_completion(r, 3, 1), 0.8, 1e-12, "completion = max recv - root begin");
	is_double(gb_bcast_all_returned(r, 3, 1), 0.9, 1e-12, "all returned = max send done");
	is_int(gb_bcast_order_violations(r, 3), 0, "no violation");
	r[2].t_recv_done = 10.4;
	is_int(gb_bcast_order_violations(r, 3), 1, "receive before the parent's send start");
	r[2].parent = -1;
	is_int(gb_bcast_order_violations(r, 3), 0, "unknown parent: not counted");
	ok(isnan(gb_bcast_completion(r, 3, 3)), "bad root: NAN");
}

static void test_rankmap(void)
{
	char path[] = "/tmp/gb3100.XXXXXX";
	struct gb_err err = { "" };
	struct gb_rankmap rm;
	FILE *f;
	int fd = mkstemp(path);

	if (fd < 0 || !(f = fdopen(fd, "w")))
		bail("cannot create a temporary file");
	fputs("{\"topology\": \"/x/two.yaml\", \"ranks\": [{\"rank\": 1, \"host\": \"b-1\"},"
	      " {\"rank\": 0, \"host\": \"a-1\", \"cluster\": \"a\"}]}", f);
	fclose(f);
	is_int(gb_rankmap_load(path, &rm, &err), 0, "rank map with rank keys");
	is_int(rm.n, 2, "two ranks");
	is_str(rm.host[0], "a-1", "rank 0 on a-1");
	is_str(rm.host[1], "b-1", "rank 1 on b-1");
	is_str(rm.topology, "/x/two.yaml", "topology path");
	gb_rankmap_release(&rm);
	gb_rankmap_release(&rm);

	f = fopen(path, "w");
	fputs("[\"c1-1\", {\"node\": \"c1-2\"}]", f);
	fclose(f);
	is_int(gb_rankmap_load(path, &rm, &err), 0, "a plain array");
	ok(rm.n == 2 && !strcmp(rm.host[1], "c1-2") && !rm.topology[0], "index = rank, 'node' key");
	gb_rankmap_release(&rm);

	f = fopen(path, "w");
	fputs("{\"ranks\": {\"1\": {\"host\": \"h1\"}, \"0\": \"h0\"}}", f);
	fclose(f);
	is_int(gb_rankmap_load(path, &rm, &err), 0, "an object keyed by rank");
	ok(rm.n == 2 && !strcmp(rm.host[0], "h0") && !strcmp(rm.host[1], "h1"), "keyed entries");
	gb_rankmap_release(&rm);

	f = fopen(path, "w");
	fputs("{\"ranks\": [{\"rank\": 0, \"host\": \"a\"}, {\"rank\": 0, \"host\": \"b\"}]}", f);
	fclose(f);
	is_int(gb_rankmap_load(path, &rm, &err), -EINVAL, "a rank twice is refused");
	ok(strstr(err.msg, "rank 0 appears twice") != NULL, "error names the rank: %s", err.msg);

	f = fopen(path, "w");
	fputs("{\"ranks\": [", f);
	fclose(f);
	is_int(gb_rankmap_load(path, &rm, &err), -EINVAL, "malformed JSON is refused");
	ok(strncmp(err.msg, path, strlen(path)) == 0, "error names the file: %s", err.msg);
	unlink(path);
	is_int(gb_rankmap_load(path, &rm, &err), -ENOENT, "missing file: -ENOENT");
}

static void test_lower_bound(void)
{
	const char *src = getenv("GRIDBED_SRC");
	char path[1024];
	struct gb_topo *t = NULL;
	struct gb_diag d;
	int hosts[8];
	double lb = -1, want;

	snprintf(path, sizeof(path), "%s/topologies/two-clusters.yaml",
		 src ? src : GRIDBED_SOURCE_DIR);
	if (gb_topo_load(path, &t, &d) < 0) {
		skip(4, "cannot load two-clusters.yaml");
		return;
	}
	for (int i = 0; i < 8; i++)
		hosts[i] = i;
	/* a-1 -> b-k: host 0.02 + uplink 0.05 + WAN 5 + 0.05 + 0.02 ms, 100 Mbit bottleneck */
	is_int(gb_bcast_lower_bound(t, hosts, 8, 0, 1e6, &lb), 0, "lower bound on two-clusters");
	want = 5.14e-3 + 1e6 * 8 / 100e6;
	is_double(lb, want, 1e-9, "1 MB from a-1: 5.14 ms + 80 ms");
	is_int(gb_bcast_lower_bound(t, hosts, 4, 0, 0, &lb), 0, "cluster a only");
	is_double(lb, 0.04e-3, 1e-12, "0 B inside a cluster: two host links, 0.04 ms");
	gb_topo_free(t);
}

static void test_pattern(void)
{
	uint8_t a[1003], b[1003];
	uint64_t s1 = gb_pattern_seed(1003, 0, 0), s2 = gb_pattern_seed(1003, 1, 0);
	int same = 1;

	ok(s1 != s2, "the seed depends on the repetition");
	ok(gb_pattern_seed(1003, 0, 1) != s1, "and on the index");
	gb_pattern_fill(a, sizeof(a), s1);
	for (size_t i = 0; i < sizeof(a); i++)
		same &= a[i] == gb_pattern_byte(s1, i);
	ok(same, "fill agrees with gb_pattern_byte at every offset (odd length)");
	is_int((int)gb_pattern_check(a, sizeof(a), s1), 0, "check of the filled buffer: 0");
	memcpy(b, a, sizeof(a));
	b[0] ^= 1;
	b[1002] ^= 0x80;
	is_int((int)gb_pattern_check(b, sizeof(b), s1), 2, "two flipped bytes are counted");
	ok(gb_pattern_check(a, sizeof(a), s2) > 900, "another broadcast's pattern fails");
}

/* stripes by size (bcast_stripes.c, issue 14) */
static void test_stripes(void)
{
	static const char *const bad[] = {
		"", "0", "17", "-2", " 4", "4x", "2M", "2M:", ":4", "2M:0", "2M:17",
		"2M:4,1M:2",            /* sizes must increase */
		"1M:4,1M:2",
		"4,2M:4",               /* a bare K ends the table */
		"2M:4,", ",2M:4", "2M:4,,1", "lots:4",
		"1K:2,2K:2,3K:2,4K:2,5K:2,6K:2,7K:2,8K:2,9K:2",   /* 9 rules */
		"0:4,1",                /* a rule for no message (issue 49) */
	};
	struct gb_stripes t, keep;
	char buf[256];

	memset(&t, 0, sizeof(t));
	is_int(gb_stripes_for(&t, 1e6), 1, "a zeroed table: one tree");
	is_int(gb_stripes_for(NULL, 1e6), 1, "no table: one tree");
	is_int(gb_stripes_parse("4", &t), 0, "'4' parses");
	ok(t.n == 0 && gb_stripes_for(&t, 1) == 4 && gb_stripes_for(&t, 1e9) == 4,
	   "'4': four trees at every size");
	is_int(gb_stripes_parse("64K:2,2M:4,1", &t), 0, "'64K:2,2M:4,1' parses");
	ok(gb_stripes_for(&t, 65536) == 2 && gb_stripes_for(&t, 65537) == 4,
	   "a rule holds its own size: 64 KiB -> 2, 64 KiB + 1 -> 4");
	ok(gb_stripes_for(&t, 2097152) == 4 && gb_stripes_for(&t, 2097153) == 1 &&
	   gb_stripes_for(&t, 8388608) == 1, "2 MiB -> 4, above -> the bare K, 1");
	is_int(gb_stripes_format(&t, buf, sizeof(buf)), 0, "format");
	is_str(buf, "65536:2,2097152:4,1", "format: sizes in bytes, then the bare K");
	keep = t;
	is_int(gb_stripes_parse(buf, &t), 0, "the formatted table parses");
	ok(t.n == keep.n && t.upto[1] == keep.upto[1] && t.k[1] == keep.k[1] &&
	   t.rest == keep.rest, "and is the same table");
	is_int(gb_stripes_format(&t, buf, 8), -ENOSPC, "format: -ENOSPC when it does not fit");
	is_int(gb_stripes_parse("1M:4", &t), 0, "'1M:4' parses");
	ok(gb_stripes_for(&t, 1048576) == 4 && gb_stripes_for(&t, 1048577) == 1,
	   "'1M:4': no bare K, so one tree above 1 MiB");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		keep = t;
		ok(gb_stripes_parse(bad[i], &t) == -EINVAL && !memcmp(&t, &keep, sizeof(t)),
		   "'%s': -EINVAL, the table unchanged", bad[i]);
	}
	ok(gb_stripes_parse("1K:2,2K:2,3K:2,4K:2,5K:2,6K:2,7K:2,8K:2,3", &t) == 0 && t.n == 8,
	   "8 rules and a bare K parse (GB_STRIPE_RULES)");
	/* issue 49: the refusal says what is wrong */
	{
		static const struct {
			const char *s, *why;
		} whys[] = {
			{ "2M:4,1M:2", "sizes must increase: '1M' after 2097152 bytes" },
			{ "1M:4,1M:2", "sizes must increase: '1M' after 1048576 bytes" },
			{ "4,2", "the bare K '4' is not last" },
			{ "2M:0", "'0' is not a number of trees from 1 to 16" },
			{ "0", "'0' is not a number of trees from 1 to 16" },
			{ "0:4,1", "'0:4' holds no message" },
			{ "lots:4", "'lots' is not a size" },
			{ "", "an empty table" },
			{ "1K:2,2K:2,3K:2,4K:2,5K:2,6K:2,7K:2,8K:2,9K:2", "more than 8 SIZE:K rules" },
		};

		for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++) {
			struct gb_err why = { "" };

			ok(gb_stripes_parse_why(whys[i].s, &t, &why) == -EINVAL &&
			   strstr(why.msg, whys[i].why), "'%s': %s", whys[i].s, why.msg);
		}
	}
}

int main(void)
{
	test_relabel();
	test_header();
	test_timing();
	test_rankmap();
	test_lower_bound();
	test_pattern();
	test_stripes();
	return done_testing();
}
