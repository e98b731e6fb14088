// SPDX-License-Identifier: MIT
/*
 * campaign.c - read and validate a campaign file (gbexp.h; the format is
 * in docs/formats.md, "Campaign file"), with libyaml through gbyaml.h:
 * every error names its place, "camp.yaml:12:5: algorithm 'mpichg2' is not
 * a planner (gridtree list), native or adaptive[:PLANNER]".
 *
 * Everything is checked before anything runs: the topology is loaded, host
 * names are looked up, and every load condition's schedule is parsed by
 * libgbload against the topology.  Inline `loads:` are handed to libgbload's
 * own schedule parser, re-based (blank lines and spaces in front) so that
 * its diagnostics point at the right line and column of the campaign file.
 * What a loaded campaign answers is campaign_query.c.
 */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbplan.h"
#include "gbemu.h"
#include "gbexp.h"
#include "gbyaml.h"

#define MAX_FILE (4u << 20)

struct ctx {
	struct gb_yaml y;
	struct gx_campaign *c;
	const char *buf;         /* the file's text (inline loads are cut from it) */
	size_t len;
};

#define fail(c, n, ...) gb_yaml_fail(&(c)->y, (n), __VA_ARGS__)
#define quote(c, s) gb_yaml_quote(&(c)->y, (s))
#define sval(n) gb_yaml_str(n)
#define get(c, n, key) gb_yaml_get(&(c)->y, (n), (key))
#define check_map(c, n, subject, allowed) gb_yaml_check_map(&(c)->y, (n), (subject), (allowed))

/* "'text'" for a scalar, "a list" or "a mapping" otherwise. */
static const char *str_or_kind(struct ctx *c, const yaml_node_t *n)
{
	return gb_yaml_kind(&c->y, n);
}

/* A word: [A-Za-z0-9_.-], 1 .. GX_NAME_MAX - 1 characters. */
static int get_word(struct ctx *c, const yaml_node_t *n, const char *what, char *out, size_t len)
{
	const char *s = sval(n);

	if (!s || !*s || gb_yaml_is_null(n))
		return fail(c, n, "%s must be a word, got %s", what, gb_yaml_kind(&c->y, n));
	if (strlen(s) >= len || strlen(s) >= GX_NAME_MAX)
		return fail(c, n, "%s '%s' is too long", what, quote(c, s));
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-'))
			return fail(c, n, "%s '%s' has a character outside [A-Za-z0-9_.-]", what,
				    quote(c, s));
	snprintf(out, len, "%s", s);
	return 0;
}

static int get_int(struct ctx *c, const yaml_node_t *n, const char *what, long lo, long hi,
		   int *out)
{
	const char *s = sval(n);
	char *end;
	long v;

	if (!s || !*s || (*s != '-' && (*s < '0' || *s > '9')))
		return fail(c, n, "%s must be an integer, got %s", what, gb_yaml_kind(&c->y, n));
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end)
		return fail(c, n, "%s '%s' is not an integer", what, quote(c, s));
	if (v < lo || v > hi)
		return fail(c, n, "%s '%s' is out of range (%ld .. %ld)", what, quote(c, s), lo, hi);
	*out = (int)v;
	return 0;
}

/* A positive number without unit ("0.05", "1"). */
static int get_number(struct ctx *c, const yaml_node_t *n, const char *what, double *out)
{
	const char *s = sval(n);
	char *end;
	double v;

	if (!s || !*s || gb_yaml_is_null(n))
		return fail(c, n, "%s must be a number, got %s", what, gb_yaml_kind(&c->y, n));
	v = strtod(s, &end);
	if (*end || !isfinite(v) || !(v > 0) || *s == '-' || *s == '+')
		return fail(c, n, "%s '%s' is not a positive number", what, quote(c, s));
	*out = v;
	return 0;
}

static int get_duration(struct ctx *c, const yaml_node_t *n, const char *what, double *out)
{
	const char *s = sval(n);

	if (!s || gb_parse_duration(s, out) < 0)
		return fail(c, n, "%s %s is not a time (use 90s, 5min, 1h, 250ms)", what,
			    str_or_kind(c, n));
	return 0;
}

static int get_size(struct ctx *c, const yaml_node_t *n, const char *what, double *out)
{
	const char *s = sval(n);

	if (!s || gb_parse_size(s, out) < 0 || *out != floor(*out) || *out > 2147483647.0)
		return fail(c, n, "%s %s is not a size in bytes (use 1M, 64K, 1000)", what,
			    str_or_kind(c, n));
	return 0;
}

/* A seed: a non-negative integer of 64 bits. */
static int get_seed(struct ctx *c, const yaml_node_t *n, const char *what, uint64_t *out)
{
	const char *s = sval(n);
	char *end;

	if (!s || *s < '0' || *s > '9' || (errno = 0, *out = strtoull(s, &end, 10), errno || *end))
		return fail(c, n, "%s %s is not a non-negative integer", what, str_or_kind(c, n));
	return 0;
}

static int get_bool(struct ctx *c, const yaml_node_t *n, const char *what, int *out)
{
	const char *s = sval(n);

	if (s && (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on")))
		*out = 1;
	else if (s && (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off")))
		*out = 0;
	else
		return fail(c, n, "%s must be true or false, got %s", what, str_or_kind(c, n));
	return 0;
}

/* ---- algorithms --------------------------------------------------------- */

/*
 * The planner a campaign name stands for: a built-in of the registry or one
 * the campaign brings (`planners:`, resolved at parse_plugins()).
 */
static const struct gb_planner *find_planner(const struct gx_campaign *cp, const char *name)
{
	const struct gb_planner *p = gb_planner_find(name);

	for (int i = 0; !p && i < cp->nplugins; i++)
		if (!strcmp(cp->plugins[i].name, name) &&
		    gb_planner_resolve(cp->plugins[i].spec, &p, NULL) < 0)
			p = NULL;
	return p;
}

const char *gx_campaign_library(const struct gx_campaign *c, const char *name)
{
	const char *s = gx_campaign_spec(c, name);

	return s != name && !strncmp(s, "library:", 8) ? s + 8 : NULL;
}

const char *gx_campaign_spec(const struct gx_campaign *c, const char *name)
{
	for (int i = 0; i < c->nplugins; i++)
		if (!strcmp(c->plugins[i].name, name))
			return c->plugins[i].spec;
	return name;
}

static int parse_algo(struct ctx *c, const yaml_node_t *n, struct gx_algo *a)
{
	const char *s = sval(n), *colon, *at;
	const struct gb_planner *p;
	char name[GX_NAME_MAX];

	if (!s || !*s)
		return fail(c, n, "an algorithm must be a name, got %s", gb_yaml_kind(&c->y, n));
	if (strlen(s) >= sizeof(a->label))
		return fail(c, n, "algorithm '%s' is too long", quote(c, s));
	memset(a, 0, sizeof(*a));
	snprintf(a->label, sizeof(a->label), "%s", s);
	/* "ALGO@SEGMENT[:STRIPES]": the same algorithm with its own segment size
	 * (and the trees its segments go down, GRIDBED_STRIPES) */
	a->segment = NAN;
	snprintf(name, sizeof(name), "%s", s);
	if ((at = strchr(s, '@'))) {
		char seg[GX_NAME_MAX], *k;

		name[at - s] = 0;
		snprintf(seg, sizeof(seg), "%s", at + 1);
		if ((k = strchr(seg, ':'))) {
			char *end;
			long v = strtol(k + 1, &end, 10);

			if (!k[1] || *end || v < 1 || v > GB_STRIPES_MAX)
				return fail(c, n, "algorithm '%s': '%s' is not a number of stripes "
					    "(1 to %d)", quote(c, s), quote(c, k + 1),
					    GB_STRIPES_MAX);
			a->stripes = (struct gb_stripes){ .n = 0, .rest = (int)v };
			*k = 0;
		}
		if (gb_parse_segment(seg, &a->segment) < 0)
			return fail(c, n, "algorithm '%s': '%s' is not a segment size (auto, 0, "
				    "or bytes such as 64K)", quote(c, s), quote(c, seg));
		if (!strcmp(name, "native"))
			return fail(c, n, "algorithm '%s': native is OpenMPI's own broadcast, "
				    "which gridbed does not segment", quote(c, s));
		if (gx_campaign_library(c->c, name))
			return fail(c, n, "algorithm '%s': '%s' is your own MPI_Bcast "
				    "(library:), which gridbed does not segment", quote(c, s),
				    quote(c, name));
		if (a->stripes.rest > 1 && a->segment == 0)
			return fail(c, n, "algorithm '%s': stripes carry segments, and @0 sends "
				    "whole messages", quote(c, s));
	}
	s = name;
	if (!strcmp(s, "native")) {
		snprintf(a->bcast, sizeof(a->bcast), "native");
		snprintf(a->planner, sizeof(a->planner), "native");
		return 0;
	}
	if (!strncmp(s, "adaptive", 8) && (!s[8] || s[8] == ':')) {
		colon = s[8] ? s + 9 : NULL;
		if (colon && !find_planner(c->c, colon))
			return fail(c, n, "algorithm '%s': '%s' is not a planner (see gridtree list; "
				    "or name one under planners:)", quote(c, s), quote(c, colon));
		snprintf(a->bcast, sizeof(a->bcast), "adaptive");
		snprintf(a->planner, sizeof(a->planner), "%s", colon ? colon : "");
		a->monitor = a->advisor = 1;
		return 0;
	}
	if (gx_campaign_library(c->c, s)) {
		/* the user's MPI_Bcast: preloaded instead of libgridbcast.so,
		 * which then sees no call (GRIDBED_BCAST=native; gridexp_run.c) */
		snprintf(a->bcast, sizeof(a->bcast), "%s", s);
		snprintf(a->planner, sizeof(a->planner), "%s", s);
		return 0;
	}
	if (strchr(s, ':'))
		return fail(c, n, "algorithm '%s': name a plugin or external planner under "
			    "planners: (NAME: %s) and use NAME here", quote(c, s), quote(c, s));
	if (!(p = find_planner(c->c, s)))
		return fail(c, n, "algorithm '%s' is not a planner (see gridtree list), native, "
			    "adaptive[:PLANNER] or one named under planners:", quote(c, s));
	snprintf(a->bcast, sizeof(a->bcast), "%s", s);
	snprintf(a->planner, sizeof(a->planner), "%s", s);
	/* measured planners plan from gridmon's matrix (decision 6); phoenix's
	 * trees come from phoenixd's own measurements (gridexp runs it) */
	a->monitor = !(p->flags & GB_PLAN_STATIC) && strcmp(s, "phoenix");
	return 0;
}

static int parse_algos(struct ctx *c, const yaml_node_t *v)
{
	yaml_node_item_t *it;
	int n, ret;

	if (!v)
		return fail(c, gb_yaml_root(&c->y), "'algorithms' is missing");
	if ((ret = gb_yaml_list(&c->y, v, "algorithms", &it, &n)) < 0)
		return ret;
	if (n < 1)
		return fail(c, v, "'algorithms' is empty");
	if (n > GX_MAX_ALGOS)
		return fail(c, v, "too many algorithms (max %d)", GX_MAX_ALGOS);
	for (int i = 0; i < n; i++) {
		const yaml_node_t *an = gb_yaml_node(&c->y, it[i]);

		if ((ret = parse_algo(c, an, &c->c->algos[i])) < 0)
			return ret;
		for (int k = 0; k < i; k++)
			if (!strcmp(c->c->algos[k].label, c->c->algos[i].label))
				return fail(c, an, "algorithm '%s' is listed twice",
					    c->c->algos[i].label);
		c->c->nalgos++;
	}
	return 0;
}

/* ---- the application ---------------------------------------------------- */

static int parse_size_spec(struct ctx *c, const yaml_node_t *v, struct gx_pattern *p)
{
	static const char *const keys[] = { "first", "last", NULL };
	const yaml_node_t *f, *l;
	int ret;

	if (v->type == YAML_SCALAR_NODE) {
		if ((ret = get_size(c, v, "size", &p->size_first)) < 0)
			return ret;
		p->size_last = p->size_first;
		return 0;
	}
	if ((ret = check_map(c, v, "app size", keys)) < 0)
		return ret;
	if (!(f = get(c, v, "first")))
		return fail(c, v, "app size: 'first' is missing");
	if ((ret = get_size(c, f, "size", &p->size_first)) < 0)
		return ret;
	/* the paper decreases linearly from 1 MB; by default to first / N */
	p->size_last = round(p->size_first / (p->broadcasts > 0 ? p->broadcasts : 1));
	if ((l = get(c, v, "last")) && (ret = get_size(c, l, "size", &p->size_last)) < 0)
		return ret;
	if (p->size_first < 1 && p->size_last < 1)
		return fail(c, v, "app size: the sizes must not all be 0");
	return 0;
}

static int parse_gap_spec(struct ctx *c, const yaml_node_t *v, struct gx_pattern *p, int n)
{
	static const char *const keys[] = { "first", "factor", "last", NULL };
	const yaml_node_t *f, *fa, *l;
	double last;
	int ret;

	p->gap_factor = 1;
	if (v->type == YAML_SCALAR_NODE)
		return get_duration(c, v, "gap", &p->gap_first);
	if ((ret = check_map(c, v, "app gap", keys)) < 0)
		return ret;
	if (!(f = get(c, v, "first")))
		return fail(c, v, "app gap: 'first' is missing");
	if ((ret = get_duration(c, f, "gap", &p->gap_first)) < 0)
		return ret;
	fa = get(c, v, "factor");
	l = get(c, v, "last");
	if (fa && l)
		return fail(c, l, "app gap: give 'factor' or 'last', not both");
	if (fa) {
		if ((ret = get_number(c, fa, "gap factor", &p->gap_factor)) < 0)
			return ret;
		if (p->gap_factor > 1)
			return fail(c, fa, "gap factor '%s' must be at most 1 (gaps decrease)",
				    quote(c, sval(fa)));
	}
	if (l) {
		if ((ret = get_duration(c, l, "gap", &last)) < 0)
			return ret;
		if (!(last > 0) || last > p->gap_first)
			return fail(c, l, "app gap: 'last' must be positive and at most 'first'");
		/* gap_{n-2} is the last gap (n broadcasts have n - 1 gaps) */
		p->gap_factor = n > 2 ? pow(last / p->gap_first, 1.0 / (n - 2)) : 1;
	}
	return 0;
}

/* More than one tree for some size: segments go down several trees. */
static int striped(const struct gb_stripes *st)
{
	for (int i = 0; i < st->n; i++)
		if (st->k[i] > 1)
			return 1;
	return st->rest > 1;
}

static int parse_app(struct ctx *c, const yaml_node_t *v)
{
	static const char *const keys[] = { "root", "broadcasts", "size", "gap", "sizes", "reps",
					    "warmup", "fail_rank", "fail_at", "fail_algo", "start",
					    "wait", "segment", "stripes", NULL };
	struct gx_app *app = &c->c->app;
	struct gx_pattern *p = &app->pat;
	const yaml_node_t *x, *gap;
	const struct gb_topo *t = c->c->topo;
	int ret;

	memset(app, 0, sizeof(*app));
	app->warmup = 1;
	app->segment = GB_SEG_AUTO;
	app->stripes = (struct gb_stripes){ .n = 0, .rest = 1 };
	app->fail_rank = app->fail_at = -1;
	p->broadcasts = 60;          /* "about 60 broadcasts" (seed 000 s3) */
	p->reps = 1;
	p->size_first = 1048576;     /* "initially ... 1 MBytes" */
	p->size_last = round(p->size_first / p->broadcasts);
	p->gap_first = 90;           /* "initially set to 90 seconds" */
	p->gap_factor = 0.97;        /* "decremented exponentially" (our rate) */
	snprintf(app->root, sizeof(app->root), "%s", t->nodes[t->root].name);
	if (!v)
		return 0;
	if ((ret = check_map(c, v, "app", keys)) < 0)
		return ret;
	if ((x = get(c, v, "root"))) {
		int h;

		if ((ret = get_word(c, x, "root", app->root, sizeof(app->root))) < 0)
			return ret;
		h = gb_topo_find_node(t, app->root);
		if (h < 0 || t->nodes[h].kind != GB_NODE_HOST)
			return fail(c, x, "root '%s' is not a host of topology '%s'", app->root,
				    t->name);
	}
	if ((x = get(c, v, "sizes"))) {
		yaml_node_item_t *it;
		int n;

		if (get(c, v, "broadcasts") || get(c, v, "size"))
			return fail(c, x, "app: give 'sizes' (a sweep) or 'broadcasts' and 'size' "
				    "(the paper's pattern), not both");
		if ((ret = gb_yaml_list(&c->y, x, "sizes", &it, &n)) < 0)
			return ret;
		if (n < 1 || n > GX_MAX_SIZES)
			return fail(c, x, "'sizes' must list 1 to %d sizes", GX_MAX_SIZES);
		for (int i = 0; i < n; i++)
			if ((ret = get_size(c, gb_yaml_node(&c->y, it[i]), "size",
					    &p->sizes[i])) < 0)
				return ret;
		p->nsizes = n;
		p->gap_first = 10;
		p->gap_factor = 1;
		if ((x = get(c, v, "reps")) &&
		    (ret = get_int(c, x, "reps", 1, 10000, &p->reps)) < 0)
			return ret;
	} else if ((x = get(c, v, "reps"))) {
		return fail(c, x, "app: 'reps' goes with 'sizes'");
	}
	if ((x = get(c, v, "broadcasts"))) {
		if ((ret = get_int(c, x, "broadcasts", 1, 100000, &p->broadcasts)) < 0)
			return ret;
		p->size_last = round(p->size_first / p->broadcasts);
	}
	if ((x = get(c, v, "size")) && (ret = parse_size_spec(c, x, p)) < 0)
		return ret;
	if ((gap = get(c, v, "gap")) &&
	    (ret = parse_gap_spec(c, gap, p, gx_pattern_count(p))) < 0)
		return ret;
	if ((x = get(c, v, "warmup")) && (ret = get_bool(c, x, "warmup", &app->warmup)) < 0)
		return ret;
	if ((x = get(c, v, "fail_rank")) &&
	    (ret = get_int(c, x, "fail_rank", 0, t->nhosts - 1, &app->fail_rank)) < 0)
		return ret;
	if ((x = get(c, v, "fail_at")) &&
	    (ret = get_int(c, x, "fail_at", 0, gx_pattern_count(p) - 1, &app->fail_at)) < 0)
		return ret;
	if ((app->fail_rank >= 0) != (app->fail_at >= 0))
		return fail(c, v, "app: 'fail_rank' and 'fail_at' go together");
	if ((x = get(c, v, "fail_algo"))) {
		if ((ret = get_word(c, x, "fail_algo", app->fail_algo, sizeof(app->fail_algo))) < 0)
			return ret;
		if (gx_campaign_algo(c->c, app->fail_algo) < 0)
			return fail(c, x, "fail_algo '%s' is not one of the campaign's algorithms",
				    app->fail_algo);
	}
	if ((x = get(c, v, "start"))) {
		const char *s = sval(x);

		if (!s || (strcmp(s, "barrier") && strcmp(s, "clock")))
			return fail(c, x, "start %s is neither barrier nor clock", str_or_kind(c, x));
		app->start_clock = !strcmp(s, "clock");
	}
	if ((x = get(c, v, "wait"))) {
		const char *s = sval(x);

		if (!s || (strcmp(s, "spin") && strcmp(s, "sleep")))
			return fail(c, x, "wait %s is neither spin nor sleep", str_or_kind(c, x));
		app->wait_sleep = !strcmp(s, "sleep");
	}
	if ((x = get(c, v, "segment")) && (!sval(x) || gb_parse_segment(sval(x), &app->segment) < 0))
		return fail(c, x, "segment %s is not auto, 0 or a size in bytes (64K)",
			    str_or_kind(c, x));
	/* a number, or a table by message size (bcast_stripes.c): "2M:4,1" */
	if ((x = get(c, v, "stripes"))) {
		struct gb_err why = { "" };

		if (!sval(x) || gb_stripes_parse_why(sval(x), &app->stripes, &why) < 0)
			return fail(c, x, "stripes must be a number of trees (1 to %d) or a table "
				    "SIZE:K,...[,K] such as '2M:4,1', got %s%s%s", GB_STRIPES_MAX,
				    str_or_kind(c, x), why.msg[0] ? ": " : "", why.msg);
	}
	/* as the label mpich-g2@0:2 is refused (parse_algo) */
	if (x && app->segment == 0 && striped(&app->stripes))
		return fail(c, x, "stripes carry segments, and segment: 0 sends whole messages");
	return 0;
}

/* ---- ranks and phoenixd ---------------------------------------------------- */

static int parse_ranks(struct ctx *c, const yaml_node_t *v)
{
	static const char *const keys[] = { "order", "seed", NULL };
	struct gx_ranks *r = &c->c->ranks;
	const yaml_node_t *x;
	int ret;

	r->order = GX_ORDER_TOPOLOGY;
	r->seed = c->c->seed;
	if (!v)
		return 0;
	if ((ret = check_map(c, v, "ranks", keys)) < 0)
		return ret;
	if ((x = get(c, v, "order"))) {
		const char *s = sval(x);
		int k;

		for (k = 0; k < 3 && (!s || strcmp(s, gx_order_name(k))); k++)
			;
		if (k == 3)
			return fail(c, x, "ranks: order %s is not topology, shuffle or interleave",
				    str_or_kind(c, x));
		r->order = k;
	}
	if ((x = get(c, v, "seed"))) {
		if ((ret = get_seed(c, x, "ranks: seed", &r->seed)) < 0)
			return ret;
		r->seed_set = 1;
	}
	return 0;
}

static int parse_phoenixd(struct ctx *c, const yaml_node_t *v)
{
	static const char *const keys[] = { "round_ms", "wall_round_ms", "serial_every",
					    "coalesce_ms", "fanout", "timeout", NULL };
	struct gx_phoenixd *p = &c->c->phoenixd;
	const yaml_node_t *x;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!v)
		return 0;
	if ((ret = check_map(c, v, "phoenixd", keys)) < 0)
		return ret;
	if (!gx_campaign_needs_phoenixd(c->c, NULL))
		return fail(c, v, "phoenixd: no algorithm of the campaign is 'phoenix', so "
			    "phoenixd would not run");
	if (((x = get(c, v, "round_ms")) &&
	     (ret = get_int(c, x, "round_ms", 10, 60000, &p->round_ms)) < 0) ||
	    ((x = get(c, v, "wall_round_ms")) &&
	     (ret = get_int(c, x, "wall_round_ms", 10, 600000, &p->wall_round_ms)) < 0) ||
	    ((x = get(c, v, "serial_every")) &&
	     (ret = get_int(c, x, "serial_every", 1, 1000, &p->serial_every)) < 0) ||
	    ((x = get(c, v, "coalesce_ms")) &&
	     (ret = get_int(c, x, "coalesce_ms", 0, 1000, &p->coalesce_ms)) < 0) ||
	    ((x = get(c, v, "fanout")) && (ret = get_int(c, x, "fanout", 1, 4096, &p->fanout)) < 0))
		return ret;
	/* one round: in the topology's time, or on the wall clock (gx_phoenixd_settings()) */
	if (p->round_ms && p->wall_round_ms)
		return fail(c, get(c, v, "wall_round_ms"), "phoenixd: round_ms (the topology's "
			    "time) and wall_round_ms (the wall clock's) are one round: give one");
	if ((x = get(c, v, "timeout"))) {
		if ((ret = get_duration(c, x, "timeout", &p->timeout)) < 0)
			return ret;
		if (!(p->timeout >= 1))
			return fail(c, x, "phoenixd: timeout must be at least 1s");
	}
	return 0;
}

/* ---- load conditions ------------------------------------------------------- */

/*
 * The inline `loads:` value @v, as a schedule text whose lines and columns
 * are the campaign file's: blank lines up to the one before @v, "loads:" on
 * it, then @v's text after as many spaces as its column.
 */
static int inline_schedule(struct ctx *c, const yaml_node_t *v, struct gx_cond *cd)
{
	size_t line = v->start_mark.line, col = v->start_mark.column;
	size_t from = v->start_mark.index, to = v->end_mark.index, len, k = 0;
	char *s;

	if (line < 1 || to > c->len || from >= to)
		return fail(c, v, "'loads' must be a list of loads");
	len = (line - 1) + 7 + col + (to - from) + 2;
	s = malloc(len);
	if (!s)
		return -ENOMEM;
	memset(s, '\n', line - 1);
	k = line - 1;
	memcpy(s + k, "loads:\n", 7);
	k += 7;
	memset(s + k, ' ', col);
	k += col;
	memcpy(s + k, c->buf + from, to - from);
	k += to - from;
	s[k++] = '\n';
	s[k] = '\0';
	cd->sched = s;
	cd->sched_len = k;
	snprintf(cd->sched_name, sizeof(cd->sched_name), "%s", c->c->path);
	return 0;
}

/* A path relative to the campaign file's folder (absolute ones as they are). */
static void relative_to_campaign(const struct gx_campaign *c, const char *p, char *out,
				 size_t len)
{
	char dir[PATH_MAX], joined[2 * PATH_MAX], real[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", c->path);
	if (p[0] == '/')
		snprintf(joined, sizeof(joined), "%s", p);
	else
		snprintf(joined, sizeof(joined), "%s/%s", dirname(dir), p);
	/* canonical, so that the results name the file wherever gridexp ran;
	 * a file that does not exist keeps its name for the message */
	snprintf(out, len, "%s", realpath(joined, real) ? real : joined);
}

static int parse_cond(struct ctx *c, const yaml_node_t *v, struct gx_cond *cd, int idx)
{
	static const char *const keys[] = { "name", "mode", "random", "schedule", "loads", "tcp",
					    "procs", NULL };
	static const char *const rkeys[] = { "target", "on", "horizon", NULL };
	const yaml_node_t *x, *r, *sf, *ld;
	char subj[64];
	int ret, kinds;

	memset(cd, 0, sizeof(*cd));
	snprintf(subj, sizeof(subj), "load condition %d", idx + 1);
	if (gb_yaml_is_null(v) || (sval(v) && !strcmp(sval(v), "none"))) {
		snprintf(cd->name, sizeof(cd->name), "unloaded");
		return 0;
	}
	if ((ret = check_map(c, v, subj, keys)) < 0)
		return ret;
	r = get(c, v, "random");
	sf = get(c, v, "schedule");
	ld = get(c, v, "loads");
	kinds = !!r + !!sf + !!ld;
	if (kinds > 1)
		return fail(c, v, "%s: give one of 'random', 'schedule' and 'loads'", subj);
	if ((x = get(c, v, "mode"))) {
		const char *m = sval(x);

		if (m && !strcmp(m, "traffic"))
			cd->mode = GB_LOAD_TRAFFIC;
		else if (m && !strcmp(m, "shape"))
			cd->mode = GB_LOAD_SHAPE;
		else
			return fail(c, x, "%s: mode %s is not traffic or shape", subj,
				    str_or_kind(c, x));
	}
	if (r) {
		cd->kind = GX_LOAD_RANDOM;
		snprintf(cd->target, sizeof(cd->target), "%s", GB_LOAD_TARGET);
		if (!gb_yaml_is_null(r)) {
			if ((ret = check_map(c, r, "random", rkeys)) < 0)
				return ret;
			if ((x = get(c, r, "target")) &&
			    (ret = get_word(c, x, "target", cd->target, sizeof(cd->target))) < 0)
				return ret;
			if ((x = get(c, r, "horizon")) &&
			    (ret = get_duration(c, x, "horizon", &cd->horizon)) < 0)
				return ret;
			if ((x = get(c, r, "on")) && (cd->on = gb_load_on_parse(sval(x))) < 0)
				return fail(c, x, "random: on %s is not pair or uplink",
					    str_or_kind(c, x));
		}
		if (gb_topo_find_cluster(c->c->topo, cd->target) < 0)
			return fail(c, get(c, r, "target") ? get(c, r, "target") : r,
				    "random: no cluster '%s' in topology '%s'", cd->target,
				    c->c->topo->name);
	} else if (sf) {
		char path[PATH_MAX];
		size_t len;

		if (!sval(sf) || !*sval(sf))
			return fail(c, sf, "schedule must be a file name");
		relative_to_campaign(c->c, sval(sf), path, sizeof(path));
		cd->kind = GX_LOAD_SCHEDULE;
		if ((ret = gb_read_file(path, MAX_FILE, &cd->sched, &len)) < 0)
			return fail(c, sf, "schedule '%s': %s", quote(c, path), strerror(-ret));
		cd->sched_len = len;
		snprintf(cd->sched_name, sizeof(cd->sched_name), "%s", path);
	} else if (ld) {
		cd->kind = GX_LOAD_SCHEDULE;
		if ((ret = inline_schedule(c, ld, cd)) < 0)
			return ret;
	}
	snprintf(cd->name, sizeof(cd->name), "%s", cd->kind == GX_LOAD_RANDOM ? "random" :
		 cd->kind == GX_LOAD_SCHEDULE ? "load" : "unloaded");
	if ((x = get(c, v, "name")) && (ret = get_word(c, x, "name", cd->name,
							sizeof(cd->name))) < 0)
		return ret;
	if ((x = get(c, v, "procs"))) {
		const struct gx_app *app = &c->c->app;
		char what[96];

		/* a processor count as an axis (seed 003): docs/formats.md, "load" */
		snprintf(what, sizeof(what), "load condition '%s': procs", cd->name);
		if ((ret = get_int(c, x, what, 2, c->c->topo->nhosts, &cd->procs)) < 0)
			return ret;
		/* phoenixd's trees span every host of the grid */
		if (gx_campaign_needs_phoenixd(c->c, NULL))
			return fail(c, x, "%s: not with algorithm 'phoenix' (phoenixd's trees span "
				    "every host)", what);
		if (app->fail_rank >= cd->procs)
			return fail(c, x, "%s %d leaves out the application's fail_rank %d", what,
				    cd->procs, app->fail_rank);
	}
	if ((x = get(c, v, "tcp"))) {
		char sub[96], avail[512];

		/* the hosts' TCP stack as an axis: docs/formats.md, "load" */
		snprintf(sub, sizeof(sub), "load condition '%s'", cd->name);
		if ((ret = gb_tcp_parse(&c->y, x, sub, &cd->tcp)) < 0)
			return ret;
		if ((cd->tcp.set & GB_TCP_SET_CC) &&
		    gb_tcp_cc_available(cd->tcp.v.congestion, avail, sizeof(avail)) == 0)
			return fail(c, get(c, x, "congestion"), "%s: congestion control '%s' is "
				    "not in this kernel (it has: %s)", sub, cd->tcp.v.congestion,
				    avail);
	}
	return 0;
}

static int parse_load(struct ctx *c, const yaml_node_t *v)
{
	struct gx_campaign *cp = c->c;
	int ret;

	if (!v) {
		cp->nconds = 1;
		snprintf(cp->conds[0].name, sizeof(cp->conds[0].name), "unloaded");
		return 0;
	}
	if (v->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it;
		int n;

		if ((ret = gb_yaml_list(&c->y, v, "load", &it, &n)) < 0)
			return ret;
		if (n < 1 || n > GX_MAX_CONDS)
			return fail(c, v, "'load' must list 1 to %d conditions", GX_MAX_CONDS);
		for (int i = 0; i < n; i++) {
			const yaml_node_t *cn = gb_yaml_node(&c->y, it[i]);

			if ((ret = parse_cond(c, cn, &cp->conds[i], i)) < 0)
				return ret;
			cp->nconds++;
			for (int k = 0; k < i; k++)
				if (!strcmp(cp->conds[k].name, cp->conds[i].name))
					return fail(c, cn, "two load conditions are named '%s' "
						    "(give them names)", cp->conds[i].name);
		}
		return 0;
	}
	cp->nconds = 1;
	return parse_cond(c, v, &cp->conds[0], 0);
}

/* Every condition's schedule parses and resolves on the topology. */
static int check_schedules(struct ctx *c)
{
	for (int i = 0; i < c->c->nconds; i++) {
		struct gb_load_sched s;
		int ret;

		gb_load_sched_init(&s);
		ret = gx_campaign_schedule(c->c, i, 1, &s, c->y.diag);
		gb_load_sched_release(&s);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* ---- monitor, advisor, top level ------------------------------------------- */

static int parse_monitor(struct ctx *c, const yaml_node_t *v)
{
	static const char *const keys[] = { "period", "bytes_per_probe", "max_bytes_per_period",
					    "rtt_count", "concurrency", "transfer",
					    "publish_change", "oracle", "sites_free", "duplex", "warm",
					    NULL };
	struct gx_monitor *m = &c->c->monitor;
	const yaml_node_t *x;
	double sz;
	int ret;

	m->period = 300;             /* "every 5 minutes" (seed 000 s2.5) */
	m->concurrency = -1;
	m->publish_change = -1;
	if (!v)
		return 0;
	if ((ret = check_map(c, v, "monitor", keys)) < 0)
		return ret;
	if ((x = get(c, v, "period"))) {
		if ((ret = get_duration(c, x, "period", &m->period)) < 0)
			return ret;
		if (!(m->period > 0))
			return fail(c, x, "period must be positive");
	}
	if ((x = get(c, v, "bytes_per_probe"))) {
		if ((ret = get_size(c, x, "bytes_per_probe", &sz)) < 0)
			return ret;
		snprintf(m->bytes_per_probe, sizeof(m->bytes_per_probe), "%.0f", sz);
	}
	if ((x = get(c, v, "max_bytes_per_period"))) {
		if ((ret = get_size(c, x, "max_bytes_per_period", &sz)) < 0)
			return ret;
		snprintf(m->max_bytes, sizeof(m->max_bytes), "%.0f", sz);
	}
	if ((x = get(c, v, "rtt_count")) &&
	    (ret = get_int(c, x, "rtt_count", 1, 1000, &m->rtt_count)) < 0)
		return ret;
	if ((x = get(c, v, "concurrency")) &&
	    (ret = get_int(c, x, "concurrency", 0, 1000, &m->concurrency)) < 0)
		return ret;
	if ((x = get(c, v, "transfer"))) {
		char t[16];
		if ((ret = get_word(c, x, "transfer", t, sizeof(t))) < 0)
			return ret;
		if (strcmp(t, "steady") && strcmp(t, "fixed"))
			return fail(c, x, "transfer must be steady or fixed, got '%s'", quote(c, t));
		m->fixed = !strcmp(t, "fixed");
	}
	if ((x = get(c, v, "publish_change")) &&
	    (ret = get_number(c, x, "publish_change", &m->publish_change)) < 0)
		return ret;
	if ((x = get(c, v, "oracle")) && (ret = get_bool(c, x, "oracle", &m->oracle)) < 0)
		return ret;
	if ((x = get(c, v, "sites_free")) &&
	    (ret = get_bool(c, x, "sites_free", &m->sites_free)) < 0)
		return ret;
	if ((x = get(c, v, "duplex")) && (ret = get_bool(c, x, "duplex", &m->duplex)) < 0)
		return ret;
	if ((x = get(c, v, "warm")) && (ret = get_bool(c, x, "warm", &m->warm)) < 0)
		return ret;
	return 0;
}

/* A user's PMPI library (library:PATH): a readable ELF file. */
static int check_library(const char *path, struct gb_err *err)
{
	unsigned char magic[4] = { 0 };
	FILE *f = fopen(path, "rb");

	if (!f) {
		gb_err_set(err, "library:%s: %s", path, strerror(errno));
		return -errno;
	}
	if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "\x7f" "ELF", 4)) {
		fclose(f);
		gb_err_set(err, "library:%s: not a shared object (no ELF header; build it "
			   "with mpicc -shared -fPIC)", path);
		return -EINVAL;
	}
	fclose(f);
	return 0;
}

/*
 * `planners:` - NAME: plugin:PATH | external:PATH | library:PATH
 * (docs/plugins.md).  Each is resolved now, PATH against the campaign
 * file's folder, so that a missing file, a shared object without the ABI or
 * a program that cannot run fails the campaign before anything starts.
 */
static int parse_plugins(struct ctx *c, const yaml_node_t *v)
{
	struct gx_campaign *cp = c->c;
	const yaml_node_pair_t *pr;

	if (!v)
		return 0;
	if (v->type != YAML_MAPPING_NODE)
		return fail(c, v, "planners must be a mapping NAME: plugin:PATH or "
			    "external:PATH, got %s", str_or_kind(c, v));
	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top; pr++) {
		const yaml_node_t *k = yaml_document_get_node((yaml_document_t *)&c->y.doc, pr->key);
		const yaml_node_t *x = yaml_document_get_node((yaml_document_t *)&c->y.doc, pr->value);
		const char *name = sval(k), *spec = sval(x), *kind, *colon;
		struct gx_plugin *pl;
		const struct gb_planner *p;
		char path[PATH_MAX];
		struct gb_err err = { "" };

		if (!name || !*name || strlen(name) >= sizeof(pl->name) ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			   "._-") != strlen(name))
			return fail(c, k, "planners: %s is not a name of letters, digits, '.', "
				    "'_' and '-' (up to %zu)", str_or_kind(c, k),
				    sizeof(pl->name) - 1);
		if (gb_planner_find(name) || !strcmp(name, "native") || !strcmp(name, "adaptive"))
			return fail(c, k, "planners: '%s' is already a planner of gridtree list",
				    quote(c, name));
		for (int i = 0; i < cp->nplugins; i++)
			if (!strcmp(cp->plugins[i].name, name))
				return fail(c, k, "planners: '%s' is named twice", quote(c, name));
		if (cp->nplugins == GX_MAX_PLUGINS)
			return fail(c, k, "planners: more than %d", GX_MAX_PLUGINS);
		colon = spec ? strchr(spec, ':') : NULL;
		if (!colon || !colon[1] || (strncmp(spec, "plugin:", 7) &&
					    strncmp(spec, "external:", 9) &&
					    strncmp(spec, "library:", 8)))
			return fail(c, x, "planner '%s': %s is not plugin:PATH, external:PATH or "
				    "library:PATH", quote(c, name), str_or_kind(c, x));
		kind = !strncmp(spec, "plugin:", 7) ? "plugin" :
			!strncmp(spec, "library:", 8) ? "library" : "external";
		relative_to_campaign(cp, colon + 1, path, sizeof(path));
		pl = &cp->plugins[cp->nplugins];
		snprintf(pl->name, sizeof(pl->name), "%s", name);
		snprintf(pl->spec, sizeof(pl->spec), "%s:%s", kind, path);
		if (!strcmp(kind, "library")) {
			if (check_library(path, &err) < 0)
				return fail(c, x, "planner '%s': %s", quote(c, name), err.msg);
		} else if (gb_planner_resolve(pl->spec, &p, &err) < 0) {
			return fail(c, x, "planner '%s': %s", quote(c, name), err.msg);
		} else {
			snprintf(pl->spec, sizeof(pl->spec), "%s", p->name);
		}
		cp->nplugins++;
	}
	return 0;
}

static int parse_top(struct ctx *c, const yaml_node_t *root)
{
	static const char *const keys[] = { "name", "topology", "backend", "scale", "dilate",
					    "repetitions", "seed", "algorithms", "app", "load",
					    "monitor", "advisor", "timeout", "ranks", "phoenixd",
					    "planners", NULL };
	struct gx_campaign *cp = c->c;
	const yaml_node_t *x;
	struct gb_diag td;
	int ret;

	if (!root)
		return gb_yaml_fail_at(&c->y, 1, 1, "empty campaign (expected a mapping with "
				       "'name', 'topology' and 'algorithms')");
	if ((ret = check_map(c, root, NULL, keys)) < 0)
		return ret;
	if (!(x = get(c, root, "name")))
		return fail(c, root, "'name' is missing");
	if ((ret = get_word(c, x, "name", cp->name, sizeof(cp->name))) < 0)
		return ret;
	if (!(x = get(c, root, "topology")))
		return fail(c, root, "'topology' is missing");
	if (!sval(x) || !*sval(x))
		return fail(c, x, "topology must be a file name, got %s", gb_yaml_kind(&c->y, x));
	relative_to_campaign(cp, sval(x), cp->topology, sizeof(cp->topology));
	ret = gb_topo_load(cp->topology, &cp->topo, &td);
	if (ret == -EINVAL) {
		char line[GB_DIAG_LINE_MAX];

		return fail(c, x, "topology %s", gb_diag_format(&td, NULL, line, sizeof(line)));
	}
	if (ret < 0)
		return fail(c, x, "topology '%s': %s", quote(c, cp->topology), strerror(-ret));

	snprintf(cp->backend, sizeof(cp->backend), "auto");
	if ((x = get(c, root, "backend"))) {
		const char *b = sval(x);

		if (!b || (strcmp(b, "auto") && strcmp(b, "netem") && strcmp(b, "tap")))
			return fail(c, x, "backend %s is not auto, netem or tap", str_or_kind(c, x));
		snprintf(cp->backend, sizeof(cp->backend), "%s", b);
	}
	cp->scale = 1;
	if ((x = get(c, root, "scale")) && (ret = get_number(c, x, "scale", &cp->scale)) < 0)
		return ret;
	cp->dilate = 1;
	if ((x = get(c, root, "dilate"))) {
		if ((ret = get_number(c, x, "dilate", &cp->dilate)) < 0)
			return ret;
		if (!(cp->dilate >= 1 && cp->dilate <= 1000))
			return fail(c, x, "dilate %g is not in [1, 1000]", cp->dilate);
	}
	cp->repetitions = 1;
	if ((x = get(c, root, "repetitions")) &&
	    (ret = get_int(c, x, "repetitions", 1, 1000, &cp->repetitions)) < 0)
		return ret;
	cp->seed = 1;
	if ((x = get(c, root, "seed")) && (ret = get_seed(c, x, "seed", &cp->seed)) < 0)
		return ret;
	if ((ret = parse_plugins(c, get(c, root, "planners"))) < 0 ||
	    (ret = parse_algos(c, get(c, root, "algorithms"))) < 0 ||
	    (ret = parse_app(c, get(c, root, "app"))) < 0 ||
	    (ret = parse_load(c, get(c, root, "load"))) < 0 ||
	    (ret = parse_monitor(c, get(c, root, "monitor"))) < 0 ||
	    (ret = parse_ranks(c, get(c, root, "ranks"))) < 0 ||
	    (ret = parse_phoenixd(c, get(c, root, "phoenixd"))) < 0)
		return ret;
	snprintf(cp->advisor_planner, sizeof(cp->advisor_planner), "%s", GX_ADVISOR_PLANNER);
	if ((x = get(c, root, "advisor"))) {
		static const char *const akeys[] = { "planner", NULL };
		const yaml_node_t *pl;

		if ((ret = check_map(c, x, "advisor", akeys)) < 0)
			return ret;
		if ((pl = get(c, x, "planner"))) {
			if (!sval(pl) || !find_planner(cp, sval(pl)))
				return fail(c, pl, "advisor planner %s is not a planner (see "
					    "gridtree list)", str_or_kind(c, pl));
			snprintf(cp->advisor_planner, sizeof(cp->advisor_planner), "%s",
				 sval(pl));
		}
	}
	for (int i = 0; i < cp->nalgos; i++) {
		if (cp->algos[i].advisor && !cp->algos[i].planner[0])
			snprintf(cp->algos[i].planner, sizeof(cp->algos[i].planner), "%s",
				 cp->advisor_planner);
		if (isnan(cp->algos[i].segment))
			cp->algos[i].segment = cp->app.segment;
		if (!cp->algos[i].stripes.rest)
			cp->algos[i].stripes = cp->app.stripes;
		/* the app's stripes under a label's @0, or the app's segment: 0
		 * under a label's :K */
		if (cp->algos[i].segment == 0 && striped(&cp->algos[i].stripes))
			return fail(c, get(c, root, "algorithms"), "algorithm '%s': stripes carry "
				    "segments, and segment 0 sends whole messages",
				    cp->algos[i].label);
	}
	if ((x = get(c, root, "timeout"))) {
		if ((ret = get_duration(c, x, "timeout", &cp->timeout)) < 0)
			return ret;
		if (!(cp->timeout > 0))
			return fail(c, x, "timeout must be positive");
	}
	return check_schedules(c);
}

int gx_campaign_parse(const char *buf, size_t len, const char *path, struct gx_campaign *c,
		      struct gb_diag *d)
{
	struct ctx x = { .c = c, .buf = buf, .len = len };
	int ret;

	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path ? path : "<string>");
	gb_yaml_init(&x.y, c->path, d, "a campaign");
	if (!buf)
		return -EINVAL;
	c->text = malloc(len + 1);
	if (!c->text)
		return -ENOMEM;
	memcpy(c->text, buf, len);
	c->text[len] = '\0';
	c->text_len = len;
	if ((ret = gb_yaml_load(&x.y, buf, len)) < 0 ||
	    (ret = gb_yaml_refuse_aliases(&x.y)) < 0 ||
	    (ret = parse_top(&x, gb_yaml_root(&x.y))) < 0)
		goto cleanup;
cleanup:
	gb_yaml_release(&x.y);
	if (ret < 0) {
		if (ret != -EINVAL && d && !d->msg[0]) {
			snprintf(d->file, sizeof(d->file), "%s", c->path);
			snprintf(d->msg, sizeof(d->msg), "%s", strerror(-ret));
		}
		gx_campaign_release(c);
	}
	return ret;
}

int gx_campaign_load(const char *path, struct gx_campaign *c, struct gb_diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	if (d)
		memset(d, 0, sizeof(*d));
	ret = gb_read_file(path, MAX_FILE, &buf, &len);
	if (ret < 0) {
		if (d) {
			snprintf(d->file, sizeof(d->file), "%s", path);
			snprintf(d->msg, sizeof(d->msg), "cannot read: %s", strerror(-ret));
		}
		return ret;
	}
	ret = gx_campaign_parse(buf, len, path, c, d);
	free(buf);
	return ret;
}

void gx_campaign_release(struct gx_campaign *c)
{
	for (int i = 0; i < GX_MAX_CONDS; i++)
		free(c->conds[i].sched);
	gb_topo_free(c->topo);
	free(c->text);
	memset(c, 0, sizeof(*c));
}
