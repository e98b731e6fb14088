// SPDX-License-Identifier: MIT
/*
 * 8001-campaign: campaign files (experiments/campaign.c) and the summary
 * arithmetic (experiments/summary.c), without a grid.
 *
 *   - a valid campaign gives the values written, the paper's defaults for
 *     the others, and the application pattern of seed 000 s3;
 *   - every kind of bad campaign is refused with -EINVAL and a diagnostic
 *     at the offending place ("file:line:col: message"), inline load
 *     schedules included (libgbload's own messages, re-based into the
 *     campaign file);
 *   - the summary on hand-made rows: loaded/unloaded split, improvement over
 *     mpich-g2 per paired broadcast (mean, min, max; mixed pairs apart),
 *     ratio to native, crossings, model error, medians, the named metrics;
 *   - expectations: parsing errors and PASS/FAIL;
 *   - a broadcast's wide-area bytes on a capture with quiet gaps (wan.csv);
 *   - the rank orders of `ranks:` (a permutation, the root at rank 0,
 *     deterministic per seed, interleave alternates clusters), the
 *     `phoenixd:`, `start:` and `wait:` keys, phoenixd's settings on a
 *     dilated grid (gx_phoenixd_settings(): the round on the wall clock, k =
 *     1 to 100), and gx_wan_check() on trees that are, and are not,
 *     wide-area optimal (seed 001 s2).
 * Run under ASan (the sanitizer build) this also shows that failures leak
 * nothing.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbcore.h"
#include "gbexp.h"
#include "results.h"
#include "tap.h"

static char campaign_path[1024];

static const char *srcdir(void)
{
	const char *s = getenv("GRIDBED_SRC");

	return s && *s ? s : GRIDBED_SOURCE_DIR;
}

static int parse(const char *text, struct gx_campaign *c, struct gb_diag *d)
{
	return gx_campaign_parse(text, strlen(text), campaign_path, c, d);
}

#define HEAD "name: t\ntopology: ../topologies/two-clusters.yaml\n"

static void test_valid(void)
{
	static const char text[] =
		HEAD
		"scale: 0.5\n"
		"repetitions: 2\n"
		"seed: 9\n"
		"algorithms: [mpich-g2, mateescu, 'adaptive:mostcrit', adaptive, native]\n"
		"app:\n"
		"  broadcasts: 5\n"
		"  size: {first: 1M, last: 64K}\n"
		"  gap: {first: 90s, last: 10s}\n"
		"load:\n"
		"  - name: calm\n"
		"  - name: cut\n"
		"    mode: shape\n"
		"    loads:\n"
		"      - {start: 1min, duration: 2min, fraction: 70%, link: siteA-siteB}\n"
		"      - start: 4min\n"
		"        duration: 30s\n"
		"        fraction: 0.5\n"
		"        src: a-1\n"
		"        dst: b-2\n"
		"monitor: {period: 60s, bytes_per_probe: 128K, warm: true}\n"
		"advisor: {planner: mateescu}\n";
	struct gx_campaign c;
	struct gb_load_sched s;
	struct gb_diag d;
	char id[128], line[GB_DIAG_LINE_MAX];
	int r = parse(text, &c, &d);

	ok(r == 0, "a valid campaign parses (%s)", gb_diag_format(&d, NULL, line, sizeof(line)));
	if (r)
		return;
	is_str(c.name, "t", "name");
	ok(strstr(c.topology, "/topologies/two-clusters.yaml") != NULL && c.topo &&
	   c.topo->nhosts == 8, "topology resolved against the campaign's folder and loaded");
	is_double(c.scale, 0.5, 0, "scale");
	is_int(c.repetitions, 2, "repetitions");
	ok(c.seed == 9, "seed");
	is_str(c.backend, "auto", "backend defaults to auto");
	is_int(c.nalgos, 5, "five algorithms");
	ok(!c.algos[0].monitor && c.algos[1].monitor && !c.algos[1].advisor,
	   "mpich-g2 is static, mateescu needs the monitor");
	ok(c.algos[2].advisor && !strcmp(c.algos[2].bcast, "adaptive") &&
	   !strcmp(c.algos[2].planner, "mostcrit"), "adaptive:mostcrit: the advisor with mostcrit");
	is_str(c.algos[3].planner, "mateescu", "plain adaptive takes the advisor's planner");
	ok(!c.algos[4].monitor && !c.algos[4].advisor, "native needs nothing");
	is_str(c.app.root, "a-1", "root defaults to the topology's root");
	is_int(gx_pattern_count(&c.app.pat), 5, "5 broadcasts");
	is_double(gx_pattern_size(&c.app.pat, 0), 1048576, 0, "first size 1M");
	is_double(gx_pattern_size(&c.app.pat, 4), 65536, 0, "last size 64K");
	is_double(gx_pattern_size(&c.app.pat, 2), round((1048576 + 65536) / 2.0), 0,
		  "sizes decrease linearly");
	is_double(gx_pattern_gap(&c.app.pat, 0), 90, 1e-9, "first gap 90 s");
	is_double(gx_pattern_gap(&c.app.pat, 3), 10, 1e-9, "last gap 10 s (n - 1 gaps)");
	is_double(gx_pattern_gap(&c.app.pat, 1) / gx_pattern_gap(&c.app.pat, 0),
		  gx_pattern_gap(&c.app.pat, 2) / gx_pattern_gap(&c.app.pat, 1), 1e-12,
		  "gaps decrease exponentially");
	is_double(gx_pattern_offset(&c.app.pat, 2, 0.5),
		  0.5 * (gx_pattern_gap(&c.app.pat, 0) + gx_pattern_gap(&c.app.pat, 1)), 1e-9,
		  "offsets are the scaled sums of the gaps");
	is_int(c.nconds, 2, "two load conditions");
	ok(c.conds[0].kind == GX_LOAD_NONE && c.conds[1].kind == GX_LOAD_SCHEDULE &&
	   c.conds[1].mode == GB_LOAD_SHAPE, "unloaded, then an inline shape schedule");
	gb_load_sched_init(&s);
	r = gx_campaign_schedule(&c, 1, 2, &s, &d);
	ok(r == 0 && s.n == 2 && s.seed == 10 && s.scale == 0.5 && s.iv[0].start == 60 &&
	   s.iv[1].duration == 30, "its schedule: 2 loads, seed + rep - 1, the campaign's scale");
	gb_load_sched_release(&s);
	is_double(c.monitor.period, 60, 0, "monitor period");
	is_str(c.monitor.bytes_per_probe, "131072", "bytes per probe");
	ok(c.monitor.warm && !c.monitor.duplex, "monitor warm: true (gridmon --warm), not duplex");
	gx_run_id(&c, 1, 2, 2, id, sizeof(id));
	is_str(id, "cut-adaptive_mostcrit-r2", "run ids are file names");
	is_int(gx_campaign_algo(&c, "native"), 4, "algorithms by label");
	gx_campaign_release(&c);
	gx_campaign_release(&c);
	ok(c.topo == NULL && c.text == NULL && c.nalgos == 0 && c.nconds == 0 &&
	   c.conds[0].sched == NULL, "released twice: an empty campaign, nothing left to free");
}

static void test_defaults(void)
{
	struct gx_campaign c;
	struct gb_diag d;
	int r = parse(HEAD "algorithms: [mpich-g2]\nload: {random: {target: b}}\n", &c, &d);

	ok(r == 0, "a minimal campaign parses (%s)", d.msg);
	if (r)
		return;
	is_int(gx_pattern_count(&c.app.pat), 60, "about 60 broadcasts (seed 000 s3)");
	is_double(gx_pattern_size(&c.app.pat, 0), 1048576, 0, "from 1 MB");
	is_double(gx_pattern_gap(&c.app.pat, 0), 90, 0, "gaps from 90 s");
	ok(gx_pattern_gap(&c.app.pat, 10) < gx_pattern_gap(&c.app.pat, 9),
	   "decreasing exponentially");
	ok(c.conds[0].kind == GX_LOAD_RANDOM && !strcmp(c.conds[0].target, "b") &&
	   c.conds[0].mode == GB_LOAD_TRAFFIC, "the paper's random load, traffic mode");
	is_str(c.conds[0].name, "random", "its default name");
	gx_campaign_release(&c);
}

struct bad {
	const char *text;
	int line, col;
	const char *msg;
};

static const struct bad bads[] = {
	{ HEAD "algoritms: [mpich-g2]\n", 3, 1, "unknown top-level key 'algoritms'" },
	{ HEAD "algorithms: [mpich-g2, mpichg2]\n", 3, 24,
	  "algorithm 'mpichg2' is not a planner" },
	{ HEAD "algorithms: [mpich-g2, mpich-g2]\n", 3, 24, "listed twice" },
	{ HEAD "algorithms: ['adaptive:nosuch']\n", 3, 14, "'nosuch' is not a planner" },
	{ HEAD "algorithms: []\n", 3, 13, "'algorithms' is empty" },
	{ "name: t\nalgorithms: [native]\n", 1, 1, "'topology' is missing" },
	{ "name: t\ntopology: ../topologies/nonexistent.yaml\nalgorithms: [native]\n", 2, 11,
	  "No such file" },
	{ HEAD "algorithms: [native]\napp: {root: zz-1}\n", 4, 13,
	  "root 'zz-1' is not a host" },
	{ HEAD "algorithms: [native]\napp:\n  size: {first: 1 MB}\n", 5, 17,
	  "size '1 MB' is not a size" },
	{ HEAD "algorithms: [native]\napp: {gap: {first: 90s, factor: 1.5}}\n", 4, 33,
	  "must be at most 1" },
	{ HEAD "algorithms: [native]\napp: {gap: 90}\n", 4, 12, "gap '90' is not a time" },
	{ HEAD "algorithms: [native]\napp: {fail_rank: 1}\n", 4, 6,
	  "'fail_rank' and 'fail_at' go together" },
	{ HEAD "algorithms: [native]\napp: {sizes: [1K, 2K], broadcasts: 3}\n", 4, 14,
	  "not both" },
	{ HEAD "scale: -1\nalgorithms: [native]\n", 3, 8, "scale '-1' is not a positive number" },
	{ HEAD "backend: uml\nalgorithms: [native]\n", 3, 10, "backend 'uml' is not auto" },
	{ HEAD "algorithms: [native\n", 4, 1, "yaml syntax error" },
	{ HEAD "algorithms: [native]\nload: {random: {target: c9}}\n", 4, 25,
	  "no cluster 'c9'" },
	{ HEAD "algorithms: [native]\nload: {mode: fast}\n", 4, 14, "mode 'fast' is not" },
	{ HEAD "algorithms: [native]\nload: [{name: x}, {name: x}]\n", 4, 19,
	  "two load conditions are named 'x'" },
	/* libgbload's diagnostics, at their place in the campaign file */
	{ HEAD "algorithms: [native]\n"
	  "load:\n"
	  "  loads:\n"
	  "    - {start: 1min, duration: 2min, fraction: 120%, link: siteA-siteB}\n",
	  6, 47, "load 1: fraction '120%' is not between 0 and 100%" },
	{ HEAD "algorithms: [native]\n"
	  "load:\n"
	  "  name: x\n"
	  "  loads: [{start: 1min, duration: 2min, fraction: 0.5, link: siteA-siteZ}]\n",
	  6, 62, "no link 'siteA-siteZ'" },
	{ HEAD "algorithms: [native]\n"
	  "load:\n"
	  "  loads:\n"
	  "    - start: 1min\n"
	  "      duration: 2min\n"
	  "      fraction: 0.5\n"
	  "      src: a-1\n"
	  "      dst: 8.8.8.8\n",
	  10, 12, "destination '8.8.8.8' is not a host" },
	{ HEAD "algorithms: [native]\ntimeout: soon\n", 4, 10, "timeout 'soon' is not a time" },
	{ HEAD "algorithms: [native]\nadvisor: {planner: best}\n", 4, 20,
	  "advisor planner 'best' is not a planner" },
	{ HEAD "algorithms: [native]\nmonitor: {period: 0s}\n", 4, 19,
	  "period must be positive" },
	{ HEAD "algorithms: [native]\nmonitor: {warm: perhaps}\n", 4, 17,
	  "warm must be true or false, got 'perhaps'" },
	{ "", 1, 1, "empty campaign" },
	{ HEAD "algorithms: [native]\nranks: {order: sorted}\n", 4, 16,
	  "order 'sorted' is not topology, shuffle or interleave" },
	{ HEAD "algorithms: [native]\nranks: {seed: -3}\n", 4, 15, "seed '-3' is not" },
	{ HEAD "algorithms: [native]\nphoenixd: {round_ms: 100}\n", 4, 11,
	  "no algorithm of the campaign is 'phoenix'" },
	{ HEAD "algorithms: [phoenix]\nphoenixd: {round_ms: 5}\n", 4, 22,
	  "round_ms '5' is out of range" },
	{ HEAD "algorithms: [phoenix]\nphoenixd: {timeout: 0s}\n", 4, 21,
	  "timeout must be at least 1s" },
	{ HEAD "algorithms: [phoenix]\nphoenixd: {rounds: 3}\n", 4, 12, "rounds" },
	{ HEAD "algorithms: [phoenix]\nphoenixd: {round_ms: 250, wall_round_ms: 1000}\n", 4, 42,
	  "round_ms (the topology's time) and wall_round_ms (the wall clock's) are one round" },
	{ HEAD "algorithms: [phoenix]\nphoenixd: {wall_round_ms: 5}\n", 4, 27,
	  "wall_round_ms '5' is out of range" },
	{ HEAD "algorithms: [native]\napp: {start: now}\n", 4, 14,
	  "start 'now' is neither barrier nor clock" },
	{ HEAD "algorithms: [native]\napp: {wait: busy}\n", 4, 13,
	  "wait 'busy' is neither spin nor sleep" },
	{ HEAD "algorithms: [mpich-g2@12x]\n", 3, 14, "'12x' is not a segment size" },
	{ HEAD "algorithms: [native@0]\n", 3, 14, "native is OpenMPI's own broadcast" },
	{ HEAD "algorithms: [native]\napp: {segment: big}\n", 4, 16,
	  "segment 'big' is not auto, 0 or a size" },
	{ HEAD "algorithms: [mpich-g2@auto:17]\n", 3, 14, "'17' is not a number of stripes" },
	{ HEAD "algorithms: ['mpich-g2@auto:']\n", 3, 14, "'' is not a number of stripes" },
	{ HEAD "algorithms: [mpich-g2@0:2]\n", 3, 14, "stripes carry segments" },
	{ HEAD "algorithms: [native]\napp: {stripes: 0}\n", 4, 16,
	  "stripes must be a number of trees (1 to 16) or a table SIZE:K,...[,K] such as "
	  "'2M:4,1', got '0'" },
	{ HEAD "algorithms: [native]\napp: {stripes: '2M:4,1M:2,1'}\n", 4, 16,
	  "got '2M:4,1M:2,1'" },
	{ HEAD "algorithms: [native]\napp: {stripes: '2M:4,x'}\n", 4, 16, "got '2M:4,x'" },
	{ HEAD "algorithms: [native]\napp: {stripes: [4]}\n", 4, 16, "got a list" },
	/* issue 49: the app's segment 0 under stripes, as the label @0:2 */
	{ HEAD "algorithms: [native]\napp: {segment: 0, stripes: 4}\n", 4, 28,
	  "stripes carry segments, and segment: 0 sends whole messages" },
	{ HEAD "algorithms: [native]\napp: {segment: 0, stripes: '1M:2,1'}\n", 4, 28,
	  "stripes carry segments" },
	{ HEAD "algorithms: [mpich-g2@0]\napp: {stripes: 4}\n", 3, 13,
	  "algorithm 'mpich-g2@0': stripes carry segments" },
	/* and a stripe table's message says what is wrong */
	{ HEAD "algorithms: [native]\napp: {stripes: '2M:4,1M:2'}\n", 4, 16,
	  "sizes must increase: '1M' after 2097152 bytes" },
	{ HEAD "algorithms: [native]\napp: {stripes: '1M:4,1M:2'}\n", 4, 16,
	  "sizes must increase: '1M' after 1048576 bytes" },
	{ HEAD "algorithms: [native]\napp: {stripes: '1K:2,2K:2,3K:2,4K:2,5K:2,6K:2,7K:2,8K:2,9K:2'}\n",
	  4, 16, "more than 8 SIZE:K rules" },
	{ HEAD "algorithms: [native]\napp: {stripes: '1M:4,2,3'}\n", 4, 16,
	  "the bare K '2' is not last" },
	{ HEAD "algorithms: [native]\napp: {stripes: '1M:0,2'}\n", 4, 16,
	  "'0' is not a number of trees from 1 to 16" },
	{ HEAD "algorithms: [native]\napp: {stripes: '0:4,1'}\n", 4, 16,
	  "'0:4' holds no message" },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		struct gx_campaign c;
		struct gb_diag d;
		int r = parse(b->text, &c, &d);

		ok(r == -EINVAL && d.line == b->line && d.col == b->col &&
		   strstr(d.msg, b->msg) && !strcmp(d.file, campaign_path),
		   "bad campaign %zu: %d:%d: %s", i + 1, d.line, d.col, d.msg);
		if (r != -EINVAL || d.line != b->line || d.col != b->col || !strstr(d.msg, b->msg))
			diag("  expected %d:%d '%s' (got %d)", b->line, b->col, b->msg, r);
		ok(c.topo == NULL && c.text == NULL, "  and nothing is kept");
	}
}

/* ------------------------------------------------------------------ */

static struct gx_row row(int algo, int index, double t, int loaded)
{
	struct gx_row r;

	memset(&r, 0, sizeof(r));
	r.algo = algo;
	r.cond = 0;
	r.rep = 1;
	r.index = index;
	r.size = 1000;
	r.completion = t;
	r.loaded = loaded;
	r.wan_bytes = NAN;
	for (int m = 0; m < GX_MAX_MODELS; m++)
		r.pred[m] = NAN;
	return r;
}

static void test_summary(void)
{
	static const char *const algos[] = { "mpich-g2", "adaptive", "native" };
	static const char *const models[] = { "mateescu", "plogp" };
	/* index:               0    1    2    3    4 (mixed)  */
	static const double tm[] = { 1.0, 2.0, 4.0, 1.0, 3.0 };   /* mpich-g2 */
	static const double ta[] = { 1.1, 1.5, 2.0, 1.2, 1.0 };   /* adaptive */
	static const int lm[] = { 0, 1, 1, 0, 1 }, la[] = { 0, 1, 1, 0, 0 };
	struct gx_row rows[16];
	struct gx_summary s;
	const struct gx_algo_summary *a;
	double v;
	int n = 0;

	for (int i = 0; i < 5; i++) {
		rows[n++] = row(0, i, tm[i], lm[i]);
		rows[n] = row(1, i, ta[i], la[i]);
		rows[n].wan_bytes = 1000.0 * (i + 1);
		rows[n].pred[0] = 1.0;
		rows[n].pred[1] = i < 2 ? 2.0 : NAN;
		rows[n].fallback = i == 4;
		n++;
		rows[n++] = row(2, i, 2.0, lm[i]);
	}
	/* a broadcast of another repetition never pairs with repetition 1 */
	rows[n] = row(1, 0, 100.0, 1);
	rows[n++].rep = 2;
	ok(gx_summarize(rows, n, algos, 3, models, 2, "mpich-g2", &s) == 0, "summarize");
	is_int(s.ref, 0, "mpich-g2 is the reference");
	is_int(s.native, 2, "native found by name");
	a = &s.a[1];
	is_int(a->all.n, 6, "adaptive: 6 broadcasts");
	is_int(a->loaded.n, 3, "3 loaded");
	is_int(a->unloaded.n, 3, "3 unloaded");
	is_double(a->unloaded.mean, (1.1 + 1.2 + 1.0) / 3, 1e-12, "unloaded mean");
	is_double(a->unloaded.median, 1.1, 1e-12, "unloaded median (odd count)");
	is_double(a->loaded.median, 2.0, 1e-12, "loaded median");
	is_double(s.a[0].unloaded.median, 1.0, 1e-12, "median of an even count");
	is_int(a->imp_loaded.n, 2, "2 loaded pairs");
	is_double(a->imp_loaded.mean, (25.0 + 50.0) / 2, 1e-9, "improvement loaded: mean");
	is_double(a->imp_loaded.min, 25.0, 1e-9, "  min (2 -> 1.5: 25 %%)");
	is_double(a->imp_loaded.max, 50.0, 1e-9, "  max (4 -> 2: 50 %%)");
	is_int(a->imp_unloaded.n, 2, "2 unloaded pairs");
	is_double(a->imp_unloaded.mean, -15.0, 1e-9, "improvement unloaded: a loss, -15 %%");
	is_double(a->imp_unloaded.min, -20.0, 1e-9, "  min");
	is_double(a->imp_unloaded.max, -10.0, 1e-9, "  max");
	is_int(a->imp_mixed, 1, "one mixed pair, in neither statistic");
	is_double(a->ratio_native, (1.1 + 1.5 + 2.0 + 1.2 + 1.0) / 10.0, 1e-12,
		  "ratio to native: sums over the 5 paired broadcasts");
	is_int(a->ratio_n, 5, "  5 pairs (repetition 2 has no native)");
	is_double(s.a[0].imp_loaded.mean, 0, 0, "the reference against itself: 0 %%");
	is_double(a->crossings.mean, 3.0, 1e-12, "crossings: mean of wan bytes / size");
	is_int(a->crossings.n, 5, "  over the captured broadcasts");
	ok(isnan(s.a[0].crossings.mean) && s.a[0].crossings.n == 0, "no capture: no crossings");
	is_double(a->crossings_loaded.mean, (2.0 + 3.0) / 2, 1e-12,
		  "crossings of the loaded broadcasts apart (indexes 1, 2)");
	is_double(a->crossings_unloaded.mean, (1.0 + 4.0 + 5.0) / 3, 1e-12,
		  "  and of the unloaded ones (0, 3, 4; repetition 2's has no capture)");
	ok(gx_summary_metric(&s, 1, "unloaded_crossings", &v) == 0 && v == 10.0 / 3,
	   "metric unloaded_crossings");
	ok(gx_summary_metric(&s, 1, "loaded_crossings", &v) == 0 && v == 2.5,
	   "metric loaded_crossings");
	is_double(a->loaded_s_per_mib, (1.5 + 2.0 + 100.0) / (3000 / 1048576.0), 1e-9,
		  "s per MiB of the loaded broadcasts: sum of t / sum of sizes");
	ok(gx_summary_metric(&s, 1, "unloaded_s_per_mib", &v) == 0 &&
	   fabs(v - (1.1 + 1.2 + 1.0) / (3000 / 1048576.0)) < 1e-9, "metric unloaded_s_per_mib");
	is_int(a->model_err[0].n, 5, "model error over the predicted broadcasts");
	is_double(a->model_err[0].mean, ((1.1 - 1) + (1.5 - 1) + (2 - 1) + (1.2 - 1) + 0) / 5,
		  1e-12, "signed relative error");
	is_double(a->model_abs[1].mean, (fabs(1.1 - 2) / 2 + fabs(1.5 - 2) / 2) / 2, 1e-12,
		  "absolute relative error, NAN predictions skipped");
	is_int(a->fallbacks, 1, "fallbacks counted");
	is_int(a->nby_size, 2, "by size: one size, loaded and unloaded");
	ok(gx_summary_metric(&s, 1, "improvement_loaded_mean", &v) == 0 && v == 37.5,
	   "metric improvement_loaded_mean");
	ok(gx_summary_metric(&s, 1, "loaded_median", &v) == 0 && v == 2.0,
	   "metric loaded_median");
	ok(gx_summary_metric(&s, 1, "model_error_plogp", &v) == 0 && v == a->model_abs[1].mean,
	   "metric model_error_<model>");
	ok(gx_summary_metric(&s, 1, "mean", &v) == 0 && fabs(v - a->all.mean) < 1e-12,
	   "metric mean");
	ok(gx_summary_metric(&s, 1, "nonsense", &v) == -ENOENT, "an unknown metric");
	gx_summary_release(&s);

	/* loads on the small messages: the means say "faster under load", the
	 * time per byte says twice as slow */
	rows[0] = row(1, 0, 1.0, 1);
	rows[0].size = 1048576;
	rows[1] = row(1, 1, 2.0, 0);
	rows[1].size = 4 * 1048576;
	ok(gx_summarize(rows, 2, algos, 3, models, 0, "mpich-g2", &s) == 0 &&
	   s.a[1].loaded.mean < s.a[1].unloaded.mean, "a loaded 1 MiB in 1 s, an unloaded 4 MiB in 2 s");
	ok(gx_summary_metric(&s, 1, "loaded_s_per_mib", &v) == 0 && v == 1.0 &&
	   s.a[1].unloaded_s_per_mib == 0.5, "  per MiB: 1 s loaded, 0.5 s unloaded");
	ok(isnan(s.a[0].loaded_s_per_mib), "  no broadcast: NAN");
	gx_summary_release(&s);
	gx_summary_release(&s);
	ok(s.a == NULL && s.nalgos == 0 && s.ref == -1 && s.native == -1,
	   "released twice: an empty summary, nothing left to free");

	ok(gx_summarize(rows, n, algos, 3, models, 2, NULL, &s) == 0 && s.ref == -1 &&
	   s.a[1].imp_loaded.n == 0, "without a reference: no improvement");
	gx_summary_release(&s);
	rows[0].algo = 7;
	ok(gx_summarize(rows, n, algos, 3, models, 2, NULL, &s) == -EINVAL,
	   "a row of an unknown algorithm is refused");
}

/* Writes @text to @path and loads it as an expectation file. */
static int load_text(const char *path, const char *text, struct gx_expect **e, int *n,
		     struct gb_diag *d)
{
	FILE *f = fopen(path, "w");

	if (!f)
		bail("cannot write %s", path);
	fputs(text, f);
	fclose(f);
	return gx_expect_load(path, e, n, d);
}

static void test_expect(void)
{
	static const char *const algos[] = { "mpich-g2", "adaptive" };
	struct gx_row rows[4];
	struct gx_summary s;
	struct gx_expect *e;
	struct gb_diag d;
	char path[] = "/tmp/gridbed-8001-XXXXXX";
	struct gb_err err = { "" };
	FILE *f, *out = fopen("/dev/null", "w");
	int fd, n, r;

	rows[0] = row(0, 0, 2.0, 1);
	rows[1] = row(1, 0, 1.0, 1);
	rows[2] = row(0, 1, 1.0, 0);
	rows[3] = row(1, 1, 1.5, 0);
	if (gx_summarize(rows, 4, algos, 2, NULL, 0, "mpich-g2", &s) < 0)
		bail("summarize");
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fputs("- {metric: loaded_mean, algo: adaptive, le: {times: 0.9, of: mpich-g2}}\n"
	      "- {metric: unloaded_mean, algo: \"*\", le: 1.2}\n", f);
	fclose(f);
	r = gx_expect_load(path, &e, &n, &d);
	ok(r == 0 && n == 2 && e[0].cmp == GX_LE && !strcmp(e[0].of, "mpich-g2") &&
	   e[0].value == 0.9, "expectations parse");
	r = gx_expect_check(e, n, &s, NULL, out, &err);
	is_int(r, 1, "one fails: adaptive 1.5 > 1.2 (mpich-g2 1.0 passes; 1.0 <= 0.9 x 2.0)");
	free(e);
	{
		char *text = NULL;
		size_t tl = 0;
		FILE *mf;

		f = fopen(path, "w");
		fputs("- {metric: loaded_mean, algo: \"*\", ge: {times: 1.3, metric: "
		      "unloaded_mean}}\n"
		      "- {metric: unloaded_mean, algo: adaptive, le: {times: 1.05, of: mpich-g2, "
		      "metric: unloaded_median}}\n", f);
		fclose(f);
		r = gx_expect_load(path, &e, &n, &d);
		ok(r == 0 && n == 2 && e[0].bmetric[0] && !e[0].of[0] &&
		   !strcmp(e[0].bmetric, "unloaded_mean") && !strcmp(e[1].of, "mpich-g2") &&
		   !strcmp(e[1].bmetric, "unloaded_median"),
		   "a bound on another metric, of the same algorithm or another, parses");
		mf = open_memstream(&text, &tl);
		r = gx_expect_check(e, n, &s, NULL, mf, &err);
		fclose(mf);
		is_int(r, 2, "loaded against unloaded: mpich-g2 2 >= 1.3 x 1, adaptive 1 < 1.3 x "
		       "1.5; adaptive 1.5 > 1.05 x mpich-g2's median 1");
		ok(text && strstr(text, "PASS loaded_mean mpich-g2 = 2 >= 1.3 x mpich-g2's "
				  "unloaded_mean 1 = 1.3\n") &&
		   strstr(text, "FAIL loaded_mean adaptive = 1 >= 1.3 x adaptive's unloaded_mean "
			  "1.5 = 1.95\n") &&
		   strstr(text, "FAIL unloaded_mean adaptive = 1.5 <= 1.05 x mpich-g2's "
			  "unloaded_median 1 = 1.05\n"), "  and says what it compared:\n%s",
		   text ? text : "");
		free(text);
		free(e);
	}
	r = load_text(path, "- {metric: loaded_mean, algo: adaptive, le: {times: 2}}\n",
		      &e, &n, &d);
	ok(r == -EINVAL && d.line == 1 && strstr(d.msg, "needs 'of'"),
	   "a relative bound that names nothing: %d:%d: %s", d.line, d.col, d.msg);
	r = load_text(path, "- {metric: loaded_mean, algo: adaptive, le: {times: 2, "
		      "metric: speed}}\n", &e, &n, &d);
	ok(r == -EINVAL && d.line == 1 && strstr(d.msg, "unknown metric 'speed'"),
	   "a bound's unknown metric: %d:%d: %s", d.line, d.col, d.msg);
	r = load_text(path, "- {metric: loaded_mean, algo: adaptive, lte: 3}\n", &e, &n, &d);
	ok(r == -EINVAL && d.line == 1 && d.col == 41 && strstr(d.msg, "unknown key 'lte'"),
	   "a misspelt comparison: %d:%d: %s", d.line, d.col, d.msg);
	r = load_text(path, "- {metric: speed, algo: adaptive, le: 3}\n", &e, &n, &d);
	ok(r == -EINVAL && d.line == 1 && d.col == 12 && strstr(d.msg, "unknown metric 'speed'"),
	   "an unknown metric: %d:%d: %s", d.line, d.col, d.msg);
	r = load_text(path, "- {metric: mean, algo: phoenix, le: 3}\n", &e, &n, &d);
	ok(r == 0 && gx_expect_check(e, n, &s, NULL, out, &err) == -EINVAL &&
	   strstr(err.msg, "no algorithm 'phoenix'"), "an algorithm the campaign lacks: %s",
	   err.msg);
	free(e);
	unlink(path);
	fclose(out);
	gx_summary_release(&s);
}

#define THREE "name: t\ntopology: ../topologies/three-clusters.yaml\n"

static int cluster_of(const struct gx_campaign *c, int h)
{
	return c->topo->nodes[h].cluster;
}

static void test_ranks(void)
{
	struct gx_campaign c, c2;
	struct gb_diag d;
	int h[12], h2[12], seen[12] = { 0 }, perm = 1, same_cl = 0, alt = 1, r;

	r = parse(THREE "seed: 4\nalgorithms: [binomial, phoenix]\nranks: {order: shuffle}\n"
		  "phoenixd: {round_ms: 500, serial_every: 3, timeout: 2min}\n"
		  "app: {root: b-2, start: clock, wait: sleep}\n", &c, &d);
	ok(r == 0, "ranks, phoenixd, start and wait parse (%s)", d.msg);
	if (r)
		return;
	is_int(c.ranks.order, GX_ORDER_SHUFFLE, "order shuffle");
	ok(c.ranks.seed == 4, "the shuffle's seed defaults to the campaign's");
	ok(c.phoenixd.round_ms == 500 && c.phoenixd.serial_every == 3 &&
	   c.phoenixd.timeout == 120 && c.phoenixd.coalesce_ms == 0, "phoenixd's options");
	ok(c.app.start_clock && c.app.wait_sleep, "start: clock, wait: sleep");
	ok(gx_campaign_needs_phoenixd(&c, NULL), "phoenix needs phoenixd");
	ok(!c.algos[1].monitor, "... and not gridmon: its trees come from phoenixd");
	is_int(gx_rank_hosts(&c, h), 12, "12 ranks");
	is_str(c.topo->nodes[h[0]].name, "b-2", "the root is rank 0");
	for (int i = 0; i < 12; i++)
		perm &= h[i] >= 0 && h[i] < 12 && !seen[h[i]]++;
	ok(perm, "a permutation of the hosts");
	gx_rank_hosts(&c, h2);
	ok(!memcmp(h, h2, sizeof(h)), "deterministic");
	for (int i = 1; i < 12; i++)
		same_cl += cluster_of(&c, h[i]) == cluster_of(&c, h[i - 1]);
	ok(same_cl < 11, "the order is not the clusters' (%d same-cluster neighbours)", same_cl);
	gx_campaign_release(&c);

	r = parse(THREE "seed: 5\nalgorithms: [binomial]\nranks: {order: shuffle}\n"
		  "app: {root: b-2}\n", &c2, &d);
	ok(r == 0, "another seed");
	if (r == 0) {
		gx_rank_hosts(&c2, h2);
		ok(memcmp(h, h2, sizeof(h)) != 0, "another seed, another order");
		gx_campaign_release(&c2);
	}

	r = parse(THREE "algorithms: [binomial]\nranks: {order: interleave}\n", &c, &d);
	ok(r == 0, "interleave parses");
	if (r)
		return;
	gx_rank_hosts(&c, h);
	is_str(c.topo->nodes[h[0]].name, "a-1", "interleave: the root first");
	for (int i = 2; i < 12; i++)
		alt &= cluster_of(&c, h[i]) != cluster_of(&c, h[i - 1]);
	ok(alt, "then no two neighbours in one cluster");
	gx_campaign_release(&c);

	r = parse(THREE "algorithms: [binomial]\n", &c, &d);
	ok(r == 0 && c.ranks.order == GX_ORDER_TOPOLOGY && !c.app.start_clock &&
	   !c.app.wait_sleep && !gx_campaign_needs_phoenixd(&c, NULL),
	   "defaults: topology order, barrier, spin, no phoenixd");
	if (r == 0) {
		gx_rank_hosts(&c, h);
		for (int i = 0; i < 12; i++)
			alt &= h[i] == i;
		ok(alt, "topology order is the identity");
		gx_campaign_release(&c);
	}
}

/*
 * gx_phoenixd_settings(): the round on the wall clock, phoenixd's / k, at
 * least 200 ms (issue 48); coalescing a share of the round; the timeout in
 * wall-clock rounds.
 */
static void test_phoenixd_settings(void)
{
	static const struct {
		const char *text;     /* after THREE's or phoenix.yaml's head */
		int big;
		double k;
		int round, serial;
		double wall, co, tmo;
	} t[] = {
		{ "", 1, 1, 2000, 2, 2000, 10, 1800 },
		{ "", 1, 4, 500, 2, 2000, 2.5, 1800 },
		{ "", 1, 10, 200, 2, 2000, 1, 1800 },
		{ "", 1, 100, 200, 2, 20000, 1, 18000 },
		{ "", 0, 1, 200, 1, 200, 2, 120 },
		{ "", 0, 10, 200, 1, 2000, 2, 1200 },
		{ "phoenixd: {wall_round_ms: 1000}", 0, 4, 250, 1, 1000, 2.5, 600 },
		{ "phoenixd: {wall_round_ms: 100}", 0, 1, 100, 1, 100, 1, 60 },
		{ "phoenixd: {round_ms: 500, timeout: 2min, coalesce_ms: 3}", 0, 10, 500, 1,
		  5000, 3, 120 },
	};
	struct gx_phoenixd_set ps;
	struct gx_campaign c;
	struct gb_diag d;
	char text[512];
	int r;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(text, sizeof(text), "name: t\ntopology: ../topologies/%s.yaml\n"
			 "algorithms: [phoenix]\n%s\n", t[i].big ? "phoenix" : "three-clusters",
			 t[i].text);
		if (parse(text, &c, &d) < 0) {
			ok(0, "phoenixd settings %zu parse: %s", i, d.msg);
			continue;
		}
		r = gx_phoenixd_settings(&c, t[i].k, &ps);
		ok(r == 0 && ps.round_ms == t[i].round &&
		   ps.serial_every == t[i].serial && fabs(ps.wall_round_ms - t[i].wall) < 1e-9 &&
		   fabs(ps.coalesce_ms - t[i].co) < 1e-9 && fabs(ps.timeout_s - t[i].tmo) < 1e-9 &&
		   ps.dilate == t[i].k,
		   "%d hosts, k = %g, %s: round %d ms (%g wall), serial every %d, coalesce %g ms, "
		   "timeout %g s (want %d, %g, %d, %g, %g)", c.topo->nhosts, t[i].k,
		   *t[i].text ? t[i].text : "defaults", ps.round_ms, ps.wall_round_ms,
		   ps.serial_every, ps.coalesce_ms, ps.timeout_s, t[i].round, t[i].wall,
		   t[i].serial, t[i].co, t[i].tmo);
		if (i == 0)
			ok(gx_phoenixd_settings(&c, 0.5, &ps) == -EINVAL, "k below 1: -EINVAL");
		gx_campaign_release(&c);
	}
}

/* A tree file over three-clusters: parent[i] of hosts a-1..a-4, b-1.., c-1... */
static void write_tree(const char *path, const char *root, const char *const *parent)
{
	static const char *const names[] = { "a-1", "a-2", "a-3", "a-4", "b-1", "b-2",
					     "b-3", "b-4", "c-1", "c-2", "c-3", "c-4" };
	FILE *f = fopen(path, "w");

	if (!f)
		return;
	fprintf(f, "{\"format\": \"gridbed-tree\", \"root\": \"%s\", \"nodes\": [", root);
	for (int i = 0; i < 12; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", names[i]);
	fprintf(f, "], \"parent\": [");
	for (int i = 0; i < 12; i++)
		if (parent[i])
			fprintf(f, "%s\"%s\"", i ? ", " : "", parent[i]);
		else
			fprintf(f, "%snull", i ? ", " : "");
	fprintf(f, "]}\n");
	fclose(f);
}

static void test_wan_check(void)
{
	/* a-1 -> a-2, a-3, b-1; a-2 -> a-4; b-1 -> b-2, b-3, c-1; ... */
	static const char *const good[] = { NULL, "a-1", "a-1", "a-2", "a-1", "b-1",
					    "b-1", "b-2", "b-1", "c-1", "c-1", "c-2" };
	/* b-3 enters b from a a second time */
	static const char *const twice[] = { NULL, "a-1", "a-1", "a-2", "a-1", "b-1",
					     "a-3", "b-2", "b-1", "c-1", "c-1", "c-2" };
	/* a-4 hangs off cluster b: the root's cluster is entered from outside */
	static const char *const back[] = { NULL, "a-1", "a-1", "b-2", "a-1", "b-1",
					    "b-1", "b-2", "b-1", "c-1", "c-1", "c-2" };
	/* a-2 and a-3 are each other's parent */
	static const char *const cycle[] = { NULL, "a-3", "a-2", "a-1", "a-1", "b-1",
					     "b-1", "b-2", "b-1", "c-1", "c-1", "c-2" };
	char dir[] = "/tmp/gb8001.XXXXXX", path[1100], tp[1024];
	struct gb_topo *t = NULL;
	struct gb_diag d;
	struct gx_wan_check w;

	snprintf(tp, sizeof(tp), "%s/topologies/three-clusters.yaml", srcdir());
	if (!mkdtemp(dir) || gb_topo_load(tp, &t, &d) < 0) {
		ok(0, "a temporary directory and three-clusters.yaml");
		return;
	}
	snprintf(path, sizeof(path), "%s/tree.json", dir);
	write_tree(path, "a-1", good);
	ok(gx_wan_check(t, path, &w) == 0 && w.valid && w.optimal && w.wan_edges == 2,
	   "a tree entering b and c once each is wide-area optimal (%s)", w.why);
	write_tree(path, "a-1", twice);
	ok(gx_wan_check(t, path, &w) == 0 && w.valid && !w.optimal && w.wan_edges == 3 &&
	   strstr(w.why, "cluster b is entered 2 times"), "b entered twice: not optimal (%s)",
	   w.why);
	write_tree(path, "a-1", back);
	ok(gx_wan_check(t, path, &w) == 0 && w.valid && !w.optimal &&
	   strstr(w.why, "cluster a is entered 1 times from outside (want 0)"),
	   "the root's cluster entered from outside: not optimal (%s)", w.why);
	write_tree(path, "a-1", cycle);
	ok(gx_wan_check(t, path, &w) == 0 && !w.valid && !w.optimal && strstr(w.why, "cycle"),
	   "a cycle is not a tree (%s)", w.why);
	write_tree(path, "b-1", good);
	ok(gx_wan_check(t, path, &w) == 0 && !w.valid && strstr(w.why, "bad parent"),
	   "the root must be the one without a parent (%s)", w.why);
	snprintf(path, sizeof(path), "%s/none.json", dir);
	is_int(gx_wan_check(t, path, &w), -ENOENT, "a missing file: -ENOENT");
	snprintf(path, sizeof(path), "%s/tree.json", dir);
	unlink(path);
	rmdir(dir);
	gb_topo_free(t);
}

/* gx_wan_compute(): a broadcast's window on a change-driven capture.csv (rows
 * when a counter changes): a first row after the end that comes seconds later
 * (the application's gather at mid-gap) is not the broadcast's; a row soon
 * after the end is (the counters' lag) */
static void test_wan_window(void)
{
	/* broadcast 0: 1000 B at 100.0 s, 0.1 s at k = 1 (end + lag 100.16 s);
	 * its wide-area bytes reach 2300 at 100.05 s, 2400 at 100.12 s (an
	 * acknowledgement within the lag); nothing until the gather at 115 s.
	 * broadcast 1: at 130.0 s, 0.1 s; rows every 0.25 s (the heartbeat)
	 * after its last change at 130.05: 3400 bytes since the gather's last row */
	static const char bc[] =
		"index,size,start_time,completion_time,dilate\n"
		"0,1000,100.0,0.1,1\n"
		"1,1000,130.0,0.1,1\n";
	static const char cap[] =
		"t_mono,A-B:A>B,A-B:B>A,wan_ip_bytes\n"
		"90.0,0,0,0\n"
		"100.05,2300,0,2300\n"
		"100.12,2300,100,2400\n"
		"115.0,200000,100,200100\n"
		"115.5,400000,100,400100\n"
		"130.05,403400,100,403500\n"
		"130.3,403400,100,403500\n"
		"130.55,403400,100,403500\n"
		"145.0,600000,100,600100\n";
	char dir[] = "/tmp/gb8001w.XXXXXX", path[1100], line[256] = "";
	FILE *f;
	int n = 0;

	if (!mkdtemp(dir)) {
		ok(0, "a temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/broadcasts.csv", dir);
	gb_write_file(path, bc, sizeof(bc) - 1, 0);
	snprintf(path, sizeof(path), "%s/capture.csv", dir);
	gb_write_file(path, cap, sizeof(cap) - 1, 0);
	is_int(gx_wan_compute(dir), 0, "gx_wan_compute() on a hand-made run");
	snprintf(path, sizeof(path), "%s/wan.csv", dir);
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			if (n == 1)
				is_str(line, "0,1000,2400,2.400000,2.300000",
				       "a quiet wide area after the end: the gather 15 s later "
				       "is not counted, the lag's acknowledgement is");
			if (n == 2)
				is_str(line, "1,1000,3400,3.400000,3.400000",
				       "rows every heartbeat: the first at or after the end counts");
			n++;
		}
		fclose(f);
	}
	is_int(n, 3, "wan.csv: a header and two rows");
	gb_rmtree(dir);
}

/* Segment sizes (issue 14): the application's, and an algorithm's own. */
static void test_segments(void)
{
	struct gx_campaign c;
	struct gb_diag d;
	int r = parse(HEAD "algorithms: [mpich-g2, 'mpich-g2@64K', 'adaptive@0', 'mostcrit@auto', "
			   "native]\napp: {segment: 1000}\n", &c, &d);

	ok(r == 0, "algorithms with segment sizes parse (%s)", d.msg);
	if (r)
		return;
	is_double(c.algos[0].segment, 1000, 0, "mpich-g2: the application's segment");
	is_double(c.algos[1].segment, 65536, 0, "mpich-g2@64K: its own");
	ok(!strcmp(c.algos[1].bcast, "mpich-g2") && !strcmp(c.algos[1].label, "mpich-g2@64K"),
	   "mpich-g2@64K runs mpich-g2, labelled as written");
	ok(c.algos[2].segment == 0 && c.algos[2].advisor && !strcmp(c.algos[2].bcast, "adaptive"),
	   "adaptive@0: the adaptive broadcast, whole messages");
	ok(c.algos[3].segment == GB_SEG_AUTO && c.algos[3].monitor,
	   "mostcrit@auto: the root's choice, on gridmon's matrix");
	gx_campaign_release(&c);
	r = parse(HEAD "algorithms: [mpich-g2]\n", &c, &d);
	ok(r == 0 && c.algos[0].segment == GB_SEG_AUTO && c.algos[0].stripes.n == 0 &&
	   c.algos[0].stripes.rest == 1,
	   "by default the root chooses (auto), down one tree");
	if (r == 0)
		gx_campaign_release(&c);
	/* stripes (issue 14): the application's, and an algorithm's own after its segment */
	r = parse(HEAD "algorithms: [pipeline, 'pipeline@64K:2', 'adaptive:mateescu@auto:4']\n"
		       "app: {stripes: 3}\n", &c, &d);
	ok(r == 0, "algorithms with stripes parse (%s)", d.msg);
	if (r)
		return;
	ok(c.algos[0].stripes.rest == 3 && c.algos[0].segment == GB_SEG_AUTO,
	   "pipeline: the application's stripes");
	ok(c.algos[1].stripes.rest == 2 && c.algos[1].stripes.n == 0 && c.algos[1].segment == 65536 &&
	   !strcmp(c.algos[1].bcast, "pipeline") && !strcmp(c.algos[1].label, "pipeline@64K:2"),
	   "pipeline@64K:2: 64 KiB segments down 2 trees, labelled as written");
	ok(c.algos[2].stripes.rest == 4 && c.algos[2].advisor && !strcmp(c.algos[2].planner, "mateescu"),
	   "adaptive:mateescu@auto:4: the advisor's planner, then segments and stripes");
	gx_campaign_release(&c);
	/* a table by message size (GRIDBED_STRIPES='SIZE:K,...[,K]'); a label's K
	 * still means K trees for every size */
	r = parse(HEAD "algorithms: [pipeline, 'pipeline@auto:1']\napp: {stripes: '2M:4,1'}\n", &c, &d);
	ok(r == 0, "the application's stripes as a table parse (%s)", d.msg);
	if (r)
		return;
	ok(c.algos[0].stripes.n == 1 && gb_stripes_for(&c.algos[0].stripes, 1048576) == 4 &&
	   gb_stripes_for(&c.algos[0].stripes, 2097152) == 4 &&
	   gb_stripes_for(&c.algos[0].stripes, 8388608) == 1,
	   "pipeline: the table, 4 trees up to 2 MiB, 1 above");
	ok(c.algos[1].stripes.n == 0 && gb_stripes_for(&c.algos[1].stripes, 1048576) == 1,
	   "pipeline@auto:1: its label's one tree at every size");
	gx_campaign_release(&c);
}

/* gx_bracket(): the samples around a broadcast, in an array and in a struct array */
static void test_bracket(void)
{
	const double t[] = { 1, 2, 3, 4, 5 };
	struct { int pad; double t; char more[12]; } v[5];
	int a, z;

	for (int i = 0; i < 5; i++)
		v[i].t = t[i];
	gx_bracket(t, sizeof(*t), 5, 2.5, 3.5, &a, &z);
	ok(a == 1 && z == 3, "bracket [2.5, 3.5]: samples 2 and 4 (got %d, %d)", a, z);
	gx_bracket(t, sizeof(*t), 5, 2, 4, &a, &z);
	ok(a == 1 && z == 3, "bracket [2, 4]: a sample on either end is taken (got %d, %d)", a, z);
	gx_bracket(&v[0].t, sizeof(v[0]), 5, 2.5, 3.5, &a, &z);
	ok(a == 1 && z == 3, "the same through a struct's field (got %d, %d)", a, z);
	gx_bracket(t, sizeof(*t), 5, 0.5, 9, &a, &z);
	ok(a == -1 && z == -1, "none before, none after: -1, -1 (got %d, %d)", a, z);
	gx_bracket(t, sizeof(*t), 0, 1, 2, &a, &z);
	ok(a == -1 && z == -1, "no sample: -1, -1");
	ok(gx_wall_end(10, 0.5, 10) == 15 && gx_wall_end(10, 0.5, 0) == 10.5 &&
	   gx_wall_end(10, 0.5, NAN) == 10.5, "a broadcast's wall-clock end: s + c x k, k < 1 as 1");
}

int main(void)
{
	snprintf(campaign_path, sizeof(campaign_path), "%s/experiments/test-campaign.yaml",
		 srcdir());
	if (access(GRIDBED_SOURCE_DIR, R_OK) != 0 && !getenv("GRIDBED_SRC"))
		skip_all("the source tree is not at %s", GRIDBED_SOURCE_DIR);
	test_valid();
	test_defaults();
	test_bad();
	test_segments();
	test_summary();
	test_expect();
	test_ranks();
	test_phoenixd_settings();
	test_wan_check();
	test_bracket();
	test_wan_window();
	return done_testing();
}
