// SPDX-License-Identifier: MIT
/*
 * schedule.c - load schedules: the paper's random generator, resolution of
 * intervals into flows and shaped links, printing a plan.
 *
 * Choices where the paper (seed 000 §3) is silent or ambiguous:
 *   - Where a random load goes (issue 44).  §3: "The loading program takes
 *     as input a source and destination host.  It then continuously sends
 *     packets of fixed sizes from the source to the destination thereby
 *     reducing the end-to-end bandwidth from the source to the destination
 *     host", and "artificial network loads were introduced on different
 *     links to/from C3 cluster"; its example load is "between a host in C1
 *     and one in C3" (Fig. 10).  So by default (GB_LOAD_ON_PAIR) a load is
 *     a host pair: one host of the target cluster, drawn uniformly, and one
 *     of another cluster, the cluster drawn uniformly among the others and
 *     the host uniformly in it (the paper names no weighting); the flow
 *     goes from the target's host ("from") or to it ("to"), with equal
 *     probability, at the drawn fraction of the pair's path bottleneck.
 *     The broadcast root is not left out: the paper's loading program
 *     knew nothing of the application.
 *   - The variant GB_LOAD_ON_UPLINK ("uplink") reads "links to/from C3" as
 *     the two directions of the target cluster's uplink (cluster switch <->
 *     site router), which every path into or out of the cluster crosses;
 *     issue 13 chose it because on teragrid.yaml a pair's bottleneck is a
 *     trunk narrower than the uplink (see traffic mode below).
 *   - Loads do not overlap: a gap, a load, a gap, a load ... from t = 0, so
 *     the first load starts after a gap too.  A load that would end after
 *     the horizon is not generated (no clipping: every duration stays in
 *     the paper's range).
 *   - Traffic mode, an interval that names a link: one flow per loaded
 *     direction, from the direction's own sending node to its receiving
 *     node (a cluster switch, a site router, a hub: any namespace of the
 *     grid, each of which has a data address and routes), at fraction x
 *     *that direction's* rate.  §3 says what the loads did: "artificial
 *     network loads were introduced on different links to/from C3 ... (50%-
 *     90% bandwidth reductions)"; the loading program took hosts only
 *     because on the real TeraGrid no one runs a program on a router.  A
 *     host pair across the WAN was sized for its path's bottleneck, a trunk
 *     narrower than the uplink, so a "70 %" load on c3's uplink took 17 %
 *     of it (issue 13).  Between the link's own ends the flow crosses the
 *     loaded direction and nothing else, so nothing on its path is
 *     narrower than the rate it is sized for, no other link is loaded, and
 *     no draw is needed (the placement does not depend on the seed).
 *
 *         c3-1 ... c3-12 -- [c3 switch] ==uplink== [NCSA router] -- WAN
 *                                 tx ----- c3>NCSA ----> rx
 *                                 rx <---- NCSA>c3 ----- tx
 *
 *   - Traffic mode, an interval that names only src and dst: the paper's
 *     loading program as it was described ("takes as input a source and
 *     destination host ... reducing the end-to-end bandwidth from the source
 *     to the destination host"), so fraction x the bottleneck of the routed
 *     path, as before.
 *   - Both a link and src/dst: the flow uses the hosts and is sized for the
 *     link (fraction x the rate of the direction its path crosses); a path
 *     that does not cross the link, or holds a narrower link, is refused,
 *     since such a flow could not take that share of the link.
 *   - A CBR UDP flow at f x rate leaves (1 - f) x rate to other traffic only
 *     if the link's queue shares that way.  It is one drop-tail FIFO here
 *     (the TBF's), and it does, provided the load's sender loses datagrams
 *     at the queue like forwarded traffic: with the default socket send
 *     buffer a sender on the switch was held back by its own socket and
 *     iperf3 got 36-56 of the 30 Mbit/s a 70 % load should leave on a
 *     100 Mbit/s uplink (flow.c enlarges the buffer; then 29).
 *     t/6003-load-link.t measures it with iperf3 across the loaded
 *     direction instead of assuming it.
 *   - Draws use xoshiro256** (Blackman & Vigna, libgbutil) seeded by splitmix64, not
 *     rand(), so a seed means the same schedule on every libc.
 */
#include "gbload.h"
#include "load_priv.h"
#include "gbutil.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- random numbers ----------------------------------------------------- */

/*
 * Draws come from libgbutil's xoshiro256** (gb_rng); this integer draw is
 * the schedules' own (rejection, then modulo), kept so that a seed still
 * means the schedule it always meant.
 */
static uint64_t rng_below(struct gb_rng *r, uint64_t n)
{
	uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = gb_rng_next(r);
	while (x >= lim);
	return x % n;
}

/* ---- schedules ---------------------------------------------------------- */

void gb_load_sched_init(struct gb_load_sched *s)
{
	memset(s, 0, sizeof(*s));
	s->scale = 1.0;
	s->seed = 1;
	s->target = -1;
	s->proto = GB_LOAD_UDP;
}

void gb_load_sched_release(struct gb_load_sched *s)
{
	free(s->iv);
	s->iv = NULL;
	s->n = 0;
}

static __attribute__((format(printf, 5, 6)))
int diag_set(struct gb_diag *d, const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return -EINVAL;
	snprintf(d->file, sizeof(d->file), "%s", file);
	d->line = line;
	d->col = col;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const char *gb_load_on_name(int on)
{
	return on == GB_LOAD_ON_UPLINK ? "uplink" : "pair";
}

int gb_load_on_parse(const char *name)
{
	if (name && !strcmp(name, "pair"))
		return GB_LOAD_ON_PAIR;
	if (name && !strcmp(name, "uplink"))
		return GB_LOAD_ON_UPLINK;
	return -EINVAL;
}

/* The hosts of a pair load (gb_load_random()): one of cluster @c, one of
 * another cluster, from the stream @r. */
static void draw_pair(const struct gb_topo *t, int c, struct gb_rng *r, int *mine, int *other)
{
	int k = (int)rng_below(r, (uint64_t)(t->nclusters - 1));
	const struct gb_cluster *oc = &t->clusters[k >= c ? k + 1 : k];

	*mine = t->clusters[c].first_host + (int)rng_below(r, (uint64_t)t->clusters[c].nhosts);
	*other = oc->first_host + (int)rng_below(r, (uint64_t)oc->nhosts);
}

int gb_load_random(const struct gb_topo *t, const struct gb_load_rand_opts *o,
		   struct gb_load_sched *s, struct gb_diag *d)
{
	const char *target = o->target ? o->target : GB_LOAD_TARGET;
	double horizon = o->horizon > 0 ? o->horizon : GB_LOAD_HORIZON, at = 0;
	struct gb_rng r, hr;
	int c = gb_topo_find_cluster(t, target), cap = 0;

	gb_load_sched_release(s);
	gb_load_sched_init(s);
	snprintf(s->source, sizeof(s->source), "random");
	s->seed = o->seed;
	s->scale = o->scale > 0 ? o->scale : 1.0;
	s->horizon = horizon;
	if (c < 0)
		return diag_set(d, "<random>", 0, 0, "no cluster '%s' in grid '%s' to load",
				target, t->name);
	s->target = c;
	s->on = o->on;
	if (o->on != GB_LOAD_ON_PAIR && o->on != GB_LOAD_ON_UPLINK)
		return diag_set(d, "<random>", 0, 0, "no load placement %d (pair or uplink)", o->on);
	if (o->on == GB_LOAD_ON_PAIR && t->nclusters < 2)
		return diag_set(d, "<random>", 0, 0, "pair loads need a second cluster; grid '%s' "
				"has only '%s' (use the uplink placement)", t->name, target);
	gb_rng_seed(&r, o->seed);
	/* the pairs' own stream: the times, fractions and directions of a seed
	 * are the same under either placement (golden-ratio constant) */
	gb_rng_seed(&hr, o->seed ^ 0x9e3779b97f4a7c15ull);
	for (;;) {
		double gap = gb_rng_range(&r, GB_LOAD_GAP_MIN, GB_LOAD_GAP_MAX);
		double dur = gb_rng_range(&r, GB_LOAD_DUR_MIN, GB_LOAD_DUR_MAX);
		double frac = gb_rng_range(&r, GB_LOAD_FRAC_MIN, GB_LOAD_FRAC_MAX);
		int to = (int)rng_below(&r, 2);

		at += gap;
		if (at + dur > horizon)
			break;
		if (s->n == cap) {
			int nc = cap ? 2 * cap : 16;
			struct gb_load_iv *nv = realloc(s->iv, (size_t)nc * sizeof(*nv));

			if (!nv) {
				gb_load_sched_release(s);
				return -ENOMEM;
			}
			s->iv = nv;
			cap = nc;
		}
		struct gb_load_iv *iv = &s->iv[s->n++];

		memset(iv, 0, sizeof(*iv));
		iv->start = at;
		iv->duration = dur;
		iv->fraction = frac;
		if (o->on == GB_LOAD_ON_PAIR) {
			int mine, other;

			draw_pair(t, c, &hr, &mine, &other);
			iv->link = iv->dir = -1;
			iv->src = to ? other : mine;
			iv->dst = to ? mine : other;
		} else {
			/* Link nhosts + c joins cluster c's switch (a) to its router
			 * (b): "from the cluster" is a>b, "to the cluster" is b>a. */
			iv->link = t->nhosts + c;
			iv->dir = to ? 1 : 0;
			iv->src = iv->dst = -1;
		}
		at += dur;
	}
	return gb_load_resolve(t, s, d);
}

/* ---- resolution ---------------------------------------------------------- */

static int path_has(const int *p, int n, int dl)
{
	for (int i = 0; i < n; i++)
		if (p[i] == dl)
			return 1;
	return 0;
}

/*
 * The directed link that limits a path: the first one with the lowest rate,
 * skipping the hosts' own access links (link index < nhosts) unless nothing
 * else is as narrow, because cutting a host's access link would load that
 * host rather than the network between the two.
 */
static int bottleneck_dl(const struct gb_topo *t, int src, int dst)
{
	int *p = malloc((size_t)t->nnodes * sizeof(int));
	int n, best = -1, best_access = -1;
	uint64_t lo = 0;

	if (!p)
		return -ENOMEM;
	n = gb_topo_path(t, src, dst, p);
	for (int i = 0; i < n; i++) {
		uint64_t rt = gb_topo_dir((struct gb_topo *)t, p[i])->rate_bps;

		if (rt && (!lo || rt < lo))
			lo = rt;
	}
	for (int i = 0; i < n && lo; i++) {
		if (gb_topo_dir((struct gb_topo *)t, p[i])->rate_bps != lo)
			continue;
		if (p[i] / 2 >= t->nhosts && best < 0)
			best = p[i];
		if (p[i] / 2 < t->nhosts && best_access < 0)
			best_access = p[i];
	}
	free(p);
	if (n < 0)
		return n;
	if (!lo)
		return -ERANGE;
	return best >= 0 ? best : best_access;
}

static void dir_name(const struct gb_topo *t, int dl, char *buf, size_t len)
{
	snprintf(buf, len, "%s>%s", t->nodes[gb_topo_dir_from(t, dl)].name,
		 t->nodes[gb_topo_dir_to(t, dl)].name);
}

static uint64_t dl_rate(const struct gb_topo *t, int dl)
{
	return gb_topo_dir((struct gb_topo *)t, dl)->rate_bps;
}

/*
 * A flow from @src to @dst sized for one of the interval's directions: the
 * first one its path crosses.  Return: that direction, -ENOENT (crosses
 * none), -ERANGE (something on the path is narrower than it), -ENOMEM.
 */
static int host_flow_dl(const struct gb_topo *t, const struct gb_load_iv *iv, int src, int dst)
{
	int *p = malloc((size_t)t->nnodes * sizeof(int));
	int n, dl = -ENOENT;
	uint64_t delay = 0, rate = 0;

	if (!p)
		return -ENOMEM;
	n = gb_topo_path(t, src, dst, p);
	for (int k = 0; k < iv->ndl && n > 0; k++) {
		if (path_has(p, n, iv->dl[k])) {
			dl = iv->dl[k];
			break;
		}
	}
	free(p);
	if (dl >= 0 && gb_topo_path_metrics(t, src, dst, &delay, &rate) == 0 && rate &&
	    rate < dl_rate(t, dl))
		return -ERANGE;
	return dl;
}

int gb_load_resolve(const struct gb_topo *t, struct gb_load_sched *s, struct gb_diag *d)
{
	const char *file = s->source[0] ? s->source : "<schedule>";
	char dn[80];

	for (int i = 0; i < s->n; i++) {
		struct gb_load_iv *iv = &s->iv[i];
		int err;

		iv->nflows = iv->ndl = 0;
		if (iv->link >= 0) {
			for (int dir = 0; dir < 2; dir++) {
				int dl = 2 * iv->link + dir, k = iv->nflows;

				if (iv->dir >= 0 && iv->dir != dir)
					continue;
				dir_name(t, dl, dn, sizeof(dn));
				if (!dl_rate(t, dl))
					return diag_set(d, file, iv->line, iv->col,
							"link '%s' direction '%s' has no rate "
							"limit to take a fraction of",
							t->links[iv->link].name, dn);
				iv->dl[iv->ndl++] = dl;
				if (iv->src >= 0)
					continue;
				/* The link's own ends: see the header. */
				iv->fsrc[k] = gb_topo_dir_from(t, dl);
				iv->fdst[k] = gb_topo_dir_to(t, dl);
				iv->fdl[k] = dl;
				iv->fcap[k] = dl_rate(t, dl);
				iv->nflows++;
			}
		}
		if (iv->src >= 0) {
			uint64_t delay = 0, rate = 0;

			iv->fsrc[0] = iv->src;
			iv->fdst[0] = iv->dst;
			iv->fdl[0] = -1;
			iv->nflows = 1;
			if (gb_topo_path_metrics(t, iv->src, iv->dst, &delay, &rate) < 0)
				return diag_set(d, file, iv->line, iv->col,
						"no route from '%s' to '%s'",
						t->nodes[iv->src].name, t->nodes[iv->dst].name);
			if (!rate)
				return diag_set(d, file, iv->line, iv->col,
						"path '%s>%s' has no rate limit to take a "
						"fraction of", t->nodes[iv->src].name,
						t->nodes[iv->dst].name);
			iv->fcap[0] = rate;
			if (iv->link < 0) {
				err = bottleneck_dl(t, iv->src, iv->dst);
				if (err < 0)
					return diag_set(d, file, iv->line, iv->col,
							"no route from '%s' to '%s'",
							t->nodes[iv->src].name,
							t->nodes[iv->dst].name);
				iv->dl[iv->ndl++] = err;
			} else {
				err = host_flow_dl(t, iv, iv->src, iv->dst);
				if (err == -ENOMEM)
					return err;
				if (err == -ENOENT)
					return diag_set(d, file, iv->line, iv->col,
							"path '%s>%s' does not cross link '%s' "
							"in the direction loaded",
							t->nodes[iv->src].name,
							t->nodes[iv->dst].name,
							t->links[iv->link].name);
				if (err == -ERANGE)
					return diag_set(d, file, iv->line, iv->col,
							"path '%s>%s' is narrower (%.3g Mbit/s) "
							"than link '%s' it should load",
							t->nodes[iv->src].name,
							t->nodes[iv->dst].name, (double)rate / 1e6,
							t->links[iv->link].name);
				iv->fdl[0] = err;
				iv->fcap[0] = dl_rate(t, err);
			}
		}
		if (!iv->nflows || !iv->ndl)
			return diag_set(d, file, iv->line, iv->col,
					"a load needs a 'link' or a 'src' and 'dst'");
	}
	return 0;
}

uint64_t gb_load_capacity(const struct gb_topo *t, const struct gb_load_iv *iv, int k)
{
	(void)t;
	if (k < 0 || k >= iv->nflows)
		return 0;
	return iv->fcap[k];
}

/* ---- printing ------------------------------------------------------------ */

static const char *proto_name(int p)
{
	return p == GB_LOAD_TCP ? "tcp" : "udp";
}

/*
 * Times and rates in virtual (topology) units; on a grid dilated @dk times
 * (docs/architecture.md, decision 9) the plan adds the wall clock's times (x dk)
 * and the wire's rates (/ dk) beside them, and says dk.
 */
static json_t *plan_json(const struct gb_load_sched *s, const struct gb_topo *t, double dk)
{
	json_t *ivs = json_array();
	char dn[80];

	for (int i = 0; i < s->n; i++) {
		const struct gb_load_iv *iv = &s->iv[i];
		json_t *shape = json_array(), *flows = json_array();

		for (int k = 0; k < iv->ndl; k++) {
			const struct gb_linkdir *p = gb_topo_dir((struct gb_topo *)t, iv->dl[k]);

			dir_name(t, iv->dl[k], dn, sizeof(dn));
			json_array_append_new(shape, json_pack("{s:s, s:s, s:I, s:I}",
				"link", t->links[iv->dl[k] / 2].name, "dir", dn,
				"rate_bps", (json_int_t)p->rate_bps,
				"target_bps", (json_int_t)((1.0 - iv->fraction) *
							   (double)p->rate_bps)));
		}
		for (int k = 0; k < iv->nflows; k++) {
			uint64_t cap = gb_load_capacity(t, iv, k);
			json_t *f = json_pack("{s:s, s:s, s:s, s:i, s:I, s:f}",
				"src", t->nodes[iv->fsrc[k]].name,
				"dst", t->nodes[iv->fdst[k]].name,
				"sized_for", iv->fdl[k] >= 0 ? "link" : "path",
				"hops", gb_topo_path(t, iv->fsrc[k], iv->fdst[k], NULL),
				"capacity_bps", (json_int_t)cap,
				"rate_bps", iv->fraction * (double)cap);

			if (f && iv->fdl[k] >= 0) {
				dir_name(t, iv->fdl[k], dn, sizeof(dn));
				json_object_set_new(f, "link",
						    json_string(t->links[iv->fdl[k] / 2].name));
				json_object_set_new(f, "dir", json_string(dn));
			}
			/* only on a dilated grid: the flows of an undilated plan are unchanged */
			if (f && dk > 1.0)
				json_object_set_new(f, "wire_rate_bps",
						    json_real(iv->fraction * (double)cap / dk));
			json_array_append_new(flows, f);
		}
		json_array_append_new(ivs, json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:o, "
						     "s:o, s:f, s:f}",
			"index", i + 1, "start_s", gb_load_scaled(s, iv->start),
			"end_s", gb_load_scaled(s, iv->start + iv->duration),
			"duration_s", gb_load_scaled(s, iv->duration),
			"paper_start_s", iv->start, "paper_duration_s", iv->duration,
			"fraction", iv->fraction, "shape", shape, "flows", flows,
			"wall_start_s", gb_load_wall(s, dk, iv->start),
			"wall_end_s", gb_load_wall(s, dk, iv->start + iv->duration)));
	}
	json_t *root = json_pack("{s:s, s:s, s:s, s:I, s:f, s:f, s:s, s:i, s:i, s:o}",
		"format", "gridload-plan", "grid", t->name, "source", s->source,
		"seed", (json_int_t)s->seed, "scale", s->scale,
		"horizon_s", gb_load_scaled(s, s->horizon), "proto", proto_name(s->proto),
		"size", s->size ? s->size : (int)t->mtu - 28,
		"port", s->port ? s->port : GB_LOAD_PORT, "intervals", ivs);
	if (root && s->target >= 0) {
		json_object_set_new(root, "target", json_string(t->clusters[s->target].name));
		json_object_set_new(root, "on", json_string(gb_load_on_name(s->on)));
	}
	if (root)
		json_object_set_new(root, "dilate", gbl_json_dilate(dk));
	return root;
}

int gb_load_plan_write(const struct gb_load_sched *s, const struct gb_topo *t, double dilate,
		       FILE *out, int json)
{
	char dn[80], buf[160];
	double dk = dilate > 1.0 ? dilate : 1.0;

	if (json) {
		json_t *root = plan_json(s, t, dk);

		if (!root)
			return -ENOMEM;
		json_dumpf(root, out, JSON_INDENT(2));
		fputc('\n', out);
		json_decref(root);
		return 0;
	}
	fprintf(out, "schedule %s on grid '%s': %d loads, seed %llu, scale %g", s->source,
		t->name, s->n, (unsigned long long)s->seed, s->scale);
	if (s->target >= 0)
		fprintf(out, ", target %s (%s loads)", t->clusters[s->target].name,
			gb_load_on_name(s->on));
	if (s->horizon > 0)
		fprintf(out, ", horizon %.3f s", gb_load_scaled(s, s->horizon));
	fprintf(out, "\ntimes in seconds from the start (scaled); %s, %d-byte packets, port %d\n",
		proto_name(s->proto), s->size ? s->size : (int)t->mtu - 28,
		s->port ? s->port : GB_LOAD_PORT);
	if (dk > 1.0)
		fprintf(out, "time dilated x%g (the grid's): times and rates below are virtual; the "
			"wall clock takes x%g and flows send rate / %g on the wire\n", dk, dk, dk);
	fprintf(out, "%3s %10s %10s %9s %5s  %-36s %s\n", "#", "START", "END", "DURATION",
		"LOAD", "SHAPE (link dir: rate -> target)",
		"FLOW (src>dst: rate of capacity, capacity of)");
	for (int i = 0; i < s->n; i++) {
		const struct gb_load_iv *iv = &s->iv[i];
		int rows = iv->ndl > iv->nflows ? iv->ndl : iv->nflows;

		for (int k = 0; k < rows; k++) {
			char sh[96] = "", fl[160] = "";

			if (k < iv->ndl) {
				const struct gb_linkdir *p = gb_topo_dir((struct gb_topo *)t,
									 iv->dl[k]);

				dir_name(t, iv->dl[k], dn, sizeof(dn));
				snprintf(sh, sizeof(sh), "%s %s: %.3g -> %.3g Mbit/s",
					 t->links[iv->dl[k] / 2].name, dn,
					 (double)p->rate_bps / 1e6,
					 (1.0 - iv->fraction) * (double)p->rate_bps / 1e6);
			}
			if (k < iv->nflows) {
				uint64_t cap = gb_load_capacity(t, iv, k);

				snprintf(fl, sizeof(fl), "%s>%s: %.3g of %.3g Mbit/s, %s",
					 t->nodes[iv->fsrc[k]].name, t->nodes[iv->fdst[k]].name,
					 iv->fraction * (double)cap / 1e6, (double)cap / 1e6,
					 iv->fdl[k] >= 0 ? t->links[iv->fdl[k] / 2].name : "path");
			}
			if (k == 0)
				snprintf(buf, sizeof(buf), "%3d %10.3f %10.3f %9.3f %4.1f%%", i + 1,
					 gb_load_scaled(s, iv->start),
					 gb_load_scaled(s, iv->start + iv->duration),
					 gb_load_scaled(s, iv->duration), iv->fraction * 100);
			else
				snprintf(buf, sizeof(buf), "%3s %10s %10s %9s %5s", "", "", "", "",
					 "");
			fprintf(out, "%s  %-36s %s\n", buf, sh, fl);
		}
	}
	return 0;
}

const char *gb_load_mode_name(int mode)
{
	return mode == GB_LOAD_SHAPE ? "shape" : "traffic";
}
