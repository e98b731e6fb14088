/* SPDX-License-Identifier: MIT */
/*
 * 6001-load-schedule - gridload's schedules, without a grid or root:
 * the paper's random generator is reproducible for a seed, differs between
 * seeds, stays within the paper's ranges (seed 000 §3), and scales every
 * time by exactly the factor; explicit YAML schedules parse and resolve,
 * and bad ones are reported at file:line:col.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbload.h"
#include "gbtopo.h"
#include "tap.h"

static const char *srcdir(void)
{
	const char *s = getenv("GRIDBED_SRC");

	return s ? s : GRIDBED_SOURCE_DIR;
}

static int same_sched(const struct gb_load_sched *a, const struct gb_load_sched *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++) {
		const struct gb_load_iv *x = &a->iv[i], *y = &b->iv[i];

		if (x->start != y->start || x->duration != y->duration ||
		    x->fraction != y->fraction || x->link != y->link || x->dir != y->dir ||
		    x->nflows != y->nflows || x->ndl != y->ndl || x->dl[0] != y->dl[0])
			return 0;
		for (int k = 0; k < x->nflows; k++)
			if (x->fsrc[k] != y->fsrc[k] || x->fdst[k] != y->fdst[k] ||
			    x->fdl[k] != y->fdl[k] || x->fcap[k] != y->fcap[k])
				return 0;
	}
	return 1;
}

static int path_crosses(const struct gb_topo *t, int s, int d, int dl)
{
	int p[512], n = gb_topo_path(t, s, d, p);

	for (int i = 0; i < n; i++)
		if (p[i] == dl)
			return 1;
	return 0;
}

static void test_random(const struct gb_topo *t)
{
	struct gb_load_sched a, b, c, s;
	struct gb_load_rand_opts o = { .seed = 42, .on = GB_LOAD_ON_UPLINK };
	struct gb_diag d;
	int c3 = gb_topo_find_cluster(t, "c3"), uplink = t->nhosts + c3;

	gb_load_sched_init(&a);
	gb_load_sched_init(&b);
	gb_load_sched_init(&c);
	gb_load_sched_init(&s);
	is_int(gb_load_random(t, &o, &a, &d), 0, "random schedule, seed 42");
	ok(a.n >= 3, "an hour holds several loads (%d)", a.n);
	is_int(gb_load_random(t, &o, &b, &d), 0, "again with seed 42");
	ok(same_sched(&a, &b), "same seed, same loads, links, directions and hosts");
	o.seed = 43;
	is_int(gb_load_random(t, &o, &c, &d), 0, "seed 43");
	ok(!same_sched(&a, &c), "a different seed gives a different schedule");
	is_str(t->links[uplink].name, "c3-NCSA", "c3's uplink is the link the uplink variant loads");

	/* Ranges, over many seeds (and the default target and horizon). */
	int bad_range = 0, bad_link = 0, bad_flow = 0, bad_gap = 0, total = 0, dirs[2] = { 0, 0 };
	double fsum = 0;
	for (uint64_t seed = 1; seed <= 200; seed++) {
		struct gb_load_rand_opts r = { .seed = seed, .on = GB_LOAD_ON_UPLINK };

		if (gb_load_random(t, &r, &s, &d) < 0) {
			bad_range++;
			continue;
		}
		double prev_end = 0;
		for (int i = 0; i < s.n; i++) {
			const struct gb_load_iv *iv = &s.iv[i];
			double gap = iv->start - prev_end;

			total++;
			fsum += iv->fraction;
			if (iv->fraction < 0.5 || iv->fraction >= 0.9 || iv->duration < 360 ||
			    iv->duration >= 480 || iv->start + iv->duration > GB_LOAD_HORIZON)
				bad_range++;
			if (gap < 240 || gap >= 420)
				bad_gap++;
			if (iv->link != uplink || iv->ndl != 1 || iv->dl[0] != 2 * uplink + iv->dir)
				bad_link++;
			dirs[iv->dir]++;
			/* Issue 13: the flow runs between the uplink's own ends,
			 * across the loaded direction and nothing else, at the
			 * fraction of the uplink's rate. */
			if (iv->nflows != 1 || iv->fsrc[0] != gb_topo_dir_from(t, iv->dl[0]) ||
			    iv->fdst[0] != gb_topo_dir_to(t, iv->dl[0]) ||
			    gb_topo_path(t, iv->fsrc[0], iv->fdst[0], NULL) != 1 ||
			    !path_crosses(t, iv->fsrc[0], iv->fdst[0], iv->dl[0]) ||
			    iv->fdl[0] != iv->dl[0] ||
			    gb_load_capacity(t, iv, 0) != gb_topo_dir((struct gb_topo *)t,
								      iv->dl[0])->rate_bps ||
			    (iv->dir == 1) != (t->nodes[iv->fdst[0]].cluster == c3))
				bad_flow++;
			prev_end = iv->start + iv->duration;
		}
	}
	is_int(bad_range, 0, "%d loads of 200 seeds: reductions in [50%%, 90%%), durations in "
	       "[6, 8) min, within the hour", total);
	is_int(bad_gap, 0, "gaps before each load in [4, 7) min");
	is_int(bad_link, 0, "every load is on c3's uplink, in the direction drawn");
	is_int(bad_flow, 0, "every flow runs from one end of c3's uplink to the other, "
	       "sized for the uplink's rate");
	ok(dirs[0] > total / 4 && dirs[1] > total / 4, "both directions occur (%d from, %d to c3)",
	   dirs[0], dirs[1]);
	is_double(fsum / total, 0.70, 0.02, "mean reduction is about 70%% (uniform 50-90%%)");

	/* Scale: every time x F exactly, nothing else changes. */
	const double F = 0.01;
	struct gb_load_rand_opts os = { .seed = 42, .scale = F, .on = GB_LOAD_ON_UPLINK };
	is_int(gb_load_random(t, &os, &s, &d), 0, "seed 42 at scale %g", F);
	ok(same_sched(&a, &s), "the same loads (paper times, fractions, hosts) at any scale");
	int exact = s.n == a.n;
	for (int i = 0; exact && i < s.n; i++) {
		const struct gb_load_iv *x = &a.iv[i];

		exact = gb_load_scaled(&s, s.iv[i].start) == x->start * F &&
			gb_load_scaled(&s, s.iv[i].duration) == x->duration * F &&
			gb_load_scaled(&s, s.iv[i].start + s.iv[i].duration) ==
				(x->start + x->duration) * F &&
			gb_load_scaled(&a, x->start) == x->start;
	}
	ok(exact, "scaled start, duration and end are exactly the paper's times x %g", F);
	is_double(gb_load_scaled(&s, 6 * 60), 3.6, 1e-12, "--scale 0.01: 6 min is 3.6 s");
	is_double(gb_load_scaled(&s, s.horizon), 36.0, 1e-9, "the one-hour horizon is 36 s");

	struct gb_load_rand_opts ot = { .seed = 1, .target = "c5", .on = GB_LOAD_ON_UPLINK };
	is_int(gb_load_random(t, &ot, &s, &d), 0, "another target cluster");
	ok(s.n > 0 && s.iv[0].link == t->nhosts + gb_topo_find_cluster(t, "c5"),
	   "loads c5's uplink");
	ot.target = "c99";
	is_int(gb_load_random(t, &ot, &s, &d), -EINVAL, "an unknown target is refused");
	ok(strstr(d.msg, "no cluster 'c99'") != NULL, "and named: %s", d.msg);

	gb_load_sched_release(&a);
	gb_load_sched_release(&b);
	gb_load_sched_release(&c);
	gb_load_sched_release(&s);
}

/*
 * The default placement, the paper's loading program (seed 000 s3, issue 44):
 * each load is a host of c3 and a host of another cluster, in the drawn
 * direction, sized for the pair's path bottleneck; the times, fractions and
 * directions of a seed are those of the uplink variant.
 */
static void test_random_pairs(const struct gb_topo *t)
{
	struct gb_load_sched p, u;
	struct gb_diag d;
	int c3 = gb_topo_find_cluster(t, "c3"), total = 0, bad_hosts = 0, bad_size = 0,
	    bad_same = 0, bad_again = 0, dirs[2] = { 0, 0 };
	int *clusters = calloc((size_t)t->nclusters, sizeof(int));
	int *c3hosts = calloc((size_t)t->clusters[c3].nhosts, sizeof(int));

	gb_load_sched_init(&p);
	gb_load_sched_init(&u);
	for (uint64_t seed = 1; seed <= 200; seed++) {
		struct gb_load_rand_opts op = { .seed = seed }, ou = { .seed = seed,
								   .on = GB_LOAD_ON_UPLINK };
		struct gb_load_sched again;

		gb_load_sched_init(&again);
		if (gb_load_random(t, &op, &p, &d) < 0 || gb_load_random(t, &ou, &u, &d) < 0 ||
		    gb_load_random(t, &op, &again, &d) < 0) {
			bad_hosts++;
			continue;
		}
		bad_again += !same_sched(&p, &again) || again.iv[0].src != p.iv[0].src;
		gb_load_sched_release(&again);
		if (p.n != u.n || p.on != GB_LOAD_ON_PAIR) {
			bad_same++;
			continue;
		}
		for (int i = 0; i < p.n; i++) {
			const struct gb_load_iv *iv = &p.iv[i], *v = &u.iv[i];
			int to = t->nodes[iv->dst].cluster == c3;
			int mine = to ? iv->dst : iv->src, other = to ? iv->src : iv->dst;
			uint64_t bott = 0;

			total++;
			if (iv->start != v->start || iv->duration != v->duration ||
			    iv->fraction != v->fraction || to != (v->dir == 1))
				bad_same++;
			if (iv->link != -1 || t->nodes[mine].kind != GB_NODE_HOST ||
			    t->nodes[other].kind != GB_NODE_HOST || t->nodes[mine].cluster != c3 ||
			    t->nodes[other].cluster == c3)
				bad_hosts++;
			gb_topo_path_metrics(t, iv->src, iv->dst, NULL, &bott);
			if (iv->nflows != 1 || iv->fsrc[0] != iv->src || iv->fdst[0] != iv->dst ||
			    iv->fdl[0] != -1 || gb_load_capacity(t, iv, 0) != bott)
				bad_size++;
			dirs[to]++;
			clusters[t->nodes[other].cluster]++;
			c3hosts[mine - t->clusters[c3].first_host]++;
		}
	}
	int every_cluster = 1, every_host = 1;
	for (int c = 0; c < t->nclusters; c++)
		every_cluster &= c == c3 ? clusters[c] == 0 : clusters[c] > total / (4 * (t->nclusters - 1));
	for (int h = 0; h < t->clusters[c3].nhosts; h++)
		every_host &= c3hosts[h] > 0;
	ok(total > 400, "pair loads: %d loads over 200 seeds", total);
	is_int(bad_again, 0, "pair loads: the same seed draws the same hosts");
	is_int(bad_hosts, 0, "pair loads: one host in c3, the other a host of another cluster");
	is_int(bad_size, 0, "pair loads: one flow between the two hosts, sized for their path's "
	       "bottleneck");
	is_int(bad_same, 0, "pair loads: the uplink variant's times, fractions and directions");
	ok(dirs[0] > total / 4 && dirs[1] > total / 4, "pair loads: both directions (%d from, "
	   "%d to c3)", dirs[0], dirs[1]);
	ok(every_cluster, "pair loads: every other cluster is drawn (at least a quarter of its "
	   "share), c3 never as the other end");
	ok(every_host, "pair loads: every host of c3 is drawn");

	struct gb_topo *one = NULL;
	static const char y[] = "name: one\nsites:\n  - name: S\n    clusters: [{name: k, hosts: 2}]\n";
	if (gb_topo_parse(y, sizeof(y) - 1, "one.yaml", &one, &d) == 0) {
		struct gb_load_rand_opts o1 = { .seed = 1, .target = "k" };
		is_int(gb_load_random(one, &o1, &p, &d), -EINVAL, "pair loads on a one-cluster grid: "
		       "refused (%s)", d.msg);
		o1.on = 7;
		is_int(gb_load_random(one, &o1, &p, &d), -EINVAL, "an unknown placement: refused");
		gb_topo_free(one);
	} else {
		skip(2, "the one-cluster grid did not parse");
	}
	is_int(gb_load_on_parse("pair"), GB_LOAD_ON_PAIR, "'pair' names the paper's placement");
	is_int(gb_load_on_parse("uplink"), GB_LOAD_ON_UPLINK, "'uplink' names the variant");
	is_int(gb_load_on_parse("link"), -EINVAL, "another word is refused");
	free(clusters);
	free(c3hosts);
	gb_load_sched_release(&p);
	gb_load_sched_release(&u);
}

static const char good[] =
	"# a schedule\n"
	"seed: 7\n"
	"scale: 0.5\n"
	"size: 1000\n"
	"loads:\n"
	"  - {start: 4min, duration: 6.5min, fraction: 70%, link: c3-NCSA, dir: NCSA>c3}\n"
	"  - start: 20s\n"
	"    duration: 1500ms\n"
	"    fraction: 0.5\n"
	"    src: c2-1\n"
	"    dst: c3-1\n"
	"  - {start: 0s, duration: 1h, fraction: 10%, link: LA-CHI}\n";

static void test_yaml(const struct gb_topo *t)
{
	struct gb_load_sched s, s2;
	struct gb_diag d;
	char line[GB_DIAG_LINE_MAX];

	gb_load_sched_init(&s);
	gb_load_sched_init(&s2);
	int r = gb_load_parse(good, sizeof(good) - 1, "good.yaml", t, &s, &d);
	if (!is_int(r, 0, "a good schedule parses"))
		diag("%s", gb_diag_format(&d, NULL, line, sizeof(line)));
	if (r < 0 || s.n != 3) {
		skip(19, "no schedule");
		return;
	}
	is_int((long long)s.seed, 7, "seed from the file");
	is_double(s.scale, 0.5, 0, "scale from the file");
	is_int(s.size, 1000, "size from the file");
	is_double(s.iv[0].start, 240, 0, "4min = 240 s");
	is_double(s.iv[0].duration, 390, 1e-9, "6.5min = 390 s");
	is_double(s.iv[0].fraction, 0.7, 1e-12, "70%% = 0.7");
	int c3link = gb_topo_find_link(t, "c3-NCSA");
	ok(s.iv[0].ndl == 1 && s.iv[0].dl[0] == 2 * c3link + 1, "dir NCSA>c3 is b>a of c3-NCSA");
	ok(s.iv[0].nflows == 1 && path_crosses(t, s.iv[0].fsrc[0], s.iv[0].fdst[0], s.iv[0].dl[0]),
	   "a link-only load gets a flow across that direction");
	is_str(t->nodes[s.iv[0].fsrc[0]].name, "NCSA", "from the link's sending end (the router)");
	is_str(t->nodes[s.iv[0].fdst[0]].name, "c3", "to its receiving end (the switch)");
	is_int((long long)gb_load_capacity(t, &s.iv[0], 0), 100000000,
	       "sized for c3-NCSA's 100 Mbit/s, not a path's bottleneck");
	is_double(s.iv[1].duration, 1.5, 1e-12, "1500ms");
	int lachi = gb_topo_find_link(t, "LA-CHI");
	ok(s.iv[1].ndl == 1 && s.iv[1].dl[0] / 2 == lachi,
	   "a host-pair load shapes its path's bottleneck (LA-CHI for c2-1 > c3-1)");
	is_int((long long)gb_load_capacity(t, &s.iv[1], 0), 30000000,
	       "its flow's capacity is the 30 Mbit/s bottleneck");
	is_int(s.iv[2].ndl, 2, "a link without dir loads both directions");
	is_int(s.iv[2].nflows, 2, "with one flow each way");
	ok(s.iv[2].nflows == 2 && s.iv[2].fsrc[0] == s.iv[2].fdst[1] &&
	   s.iv[2].fdst[0] == s.iv[2].fsrc[1] &&
	   gb_load_capacity(t, &s.iv[2], 0) == 30000000 &&
	   gb_load_capacity(t, &s.iv[2], 1) == 30000000,
	   "between LA and CHI, each at a fraction of LA-CHI's 30 Mbit/s");

	/* A link and hosts: the hosts' flow, sized for the link. */
	static const char both[] =
		"loads:\n"
		"  - {start: 0s, duration: 1min, fraction: 0.5, link: c3-NCSA, dir: c3>NCSA,"
		" src: c3-1, dst: c4-1}\n";
	struct gb_load_sched sb;

	gb_load_sched_init(&sb);
	r = gb_load_parse(both, sizeof(both) - 1, "both.yaml", t, &sb, &d);
	ok(r == 0 && sb.iv[0].nflows == 1 && sb.iv[0].fsrc[0] == gb_topo_find_node(t, "c3-1") &&
	   sb.iv[0].fdl[0] == 2 * c3link && gb_load_capacity(t, &sb.iv[0], 0) == 100000000,
	   "link and hosts: c3-1>c4-1 sized for c3>NCSA (100 Mbit/s)");
	gb_load_sched_release(&sb);

	r = gb_load_parse(good, sizeof(good) - 1, "good.yaml", t, &s2, &d);
	ok(r == 0 && same_sched(&s, &s2), "parsing is deterministic, placements included");
	gb_load_sched_release(&s);
	gb_load_sched_release(&s2);
}

struct bad {
	const char *text;
	int line, col;
	const char *msg;
};

static const struct bad bads[] = {
	{ "loads:\n  - {start: 1min, duration: 6min, fraction: 120%, link: c3-NCSA}\n", 2, 45,
	  "fraction '120%' is not between 0 and 100%" },
	{ "loads:\n  - {start: 1min, duration: 6min, fraction: 0.5, src: c1-1, dst: 8.8.8.8}\n",
	  2, 66, "destination '8.8.8.8' is not a host of grid 'teragrid'" },
	{ "loads:\n  - {start: 1min, duration: 6min, fraction: 0.5, src: c1-1, dst: NCSA}\n",
	  2, 66, "destination 'NCSA' is not a host" },
	{ "loads:\n  - start: 1min\n    duration: 6 minutes\n    fraction: 0.5\n    link: LA-CHI\n",
	  3, 15, "duration '6 minutes' is not a positive time" },
	{ "loads:\n  - {start: 1min, duration: 6min, fraction: 0.5, link: LA-NOWHERE}\n", 2, 56,
	  "no link 'LA-NOWHERE'" },
	{ "loads:\n  - {start: 1min, duration: 6min, fraction: 0.5, link: LA-CHI, dir: up}\n", 2,
	  69, "direction 'up' of link 'LA-CHI' is not LA>CHI, CHI>LA or both" },
	{ "loads:\n  - {start: 1min, duration: 6min, fraction: 0.5, link: LA-CHI, speed: 2}\n",
	  2, 64, "load 1: unknown key 'speed'" },
	{ "loads:\n  - {start: 1min, duration: 6min, fraction: 0.5}\n", 2, 5,
	  "give a 'link' (and 'dir') or a 'src' and 'dst'" },
	{ "loads:\n  - {start: 1min, duration: 6min, fraction: 0.5, link: LA-CHI\n", 3, 1,
	  "yaml syntax error: " },
	{ "loads:\n  - {start: 1min, duration: 6min, fraction: 0.5, link: c3-NCSA, src: c1-1, "
	  "dst: c2-1}\n", 2, 5, "path 'c1-1>c2-1' does not cross link 'c3-NCSA'" },
	{ "loads:\n  - {start: 1min, duration: 6min, fraction: 0.5, link: c3-NCSA, dir: c3>NCSA, "
	  "src: c3-1, dst: c8-1}\n", 2, 5,
	  "path 'c3-1>c8-1' is narrower (20 Mbit/s) than link 'c3-NCSA'" },
	{ "seed: 7\n", 1, 1, "'loads' is missing" },
	{ "scale: -1\nloads:\n", 1, 8, "scale '-1' is not a positive number" },
};

static void test_bad(const struct gb_topo *t)
{
	struct gb_load_sched s;

	gb_load_sched_init(&s);
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct gb_diag d = { "", 0, 0, "" };
		char line[GB_DIAG_LINE_MAX];
		const struct bad *b = &bads[i];
		int r = gb_load_parse(b->text, strlen(b->text), "bad.yaml", t, &s, &d);

		ok(r == -EINVAL && !strcmp(d.file, "bad.yaml") && d.line == b->line &&
		   d.col == b->col && strstr(d.msg, b->msg),
		   "bad schedule %zu: %s", i + 1, gb_diag_format(&d, NULL, line, sizeof(line)));
		if (r != -EINVAL || d.line != b->line || d.col != b->col)
			diag("  expected -EINVAL at %d:%d with '%s'", b->line, b->col, b->msg);
		ok(s.n == 0 && s.iv == NULL, "  and nothing is left allocated");
	}
}

int main(void)
{
	char path[512];
	struct gb_topo *t = NULL;
	struct gb_diag d;
	char line[GB_DIAG_LINE_MAX];

	snprintf(path, sizeof(path), "%s/topologies/teragrid.yaml", srcdir());
	if (access(path, R_OK) != 0)
		skip_all("topologies/teragrid.yaml not found");
	if (gb_topo_load(path, &t, &d) < 0)
		bail("%s", gb_diag_format(&d, NULL, line, sizeof(line)));
	test_random(t);
	test_random_pairs(t);
	test_yaml(t);
	test_bad(t);
	gb_topo_free(t);
	return done_testing();
}
