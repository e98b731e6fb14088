/* SPDX-License-Identifier: MIT */
/*
 * calibrate.c - the delay line's cost per link traversal, measured and
 * subtracted at `up` (calibrate.h says why and how).
 */
#include "calibrate.h"
#include "calib_cache.h"
#include "dilate.h"
#include "grid_priv.h"
#include "probe.h"
#include "shaping.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gbutil.h"

#define CAL_PORT 46990

/* The root host and its cluster's first other host, else the nearest host.
 * On one part of a grid across machines (partition.h): the first host here,
 * and a host of its site, so that the path stays on this machine. */
static int pick_pair(const struct gb_grid *g, int *src, int *dst)
{
	const struct gb_topo *t = g->topo;
	int best = -1, besthops = INT_MAX;

	*src = t->root;
	for (int i = 0; g->local && i < t->nhosts && !g->local[*src]; i++)
		*src = i;
	for (int i = 0; i < t->nhosts; i++) {
		int h = gb_topo_path(t, *src, i, NULL);

		if (i == *src || h <= 0 || !gb_grid_local(g, i) ||
		    (g->local && t->nodes[i].site != t->nodes[*src].site))
			continue;
		if (t->nodes[i].cluster == t->nodes[*src].cluster) {
			best = i;
			break;
		}
		if (h < besthops) {
			besthops = h;
			best = i;
		}
	}
	*dst = best;
	return best < 0 ? -ENOENT : 0;
}

static int echo_p50(struct gb_grid *g, int src, int dst, double *p50, struct gb_err *e)
{
	struct gb_probe_opts o = { .count = GB_CALIB_PROBES, .interval = GB_CALIB_INTERVAL_S,
				   .port = CAL_PORT };
	struct gb_probe_result r;
	int err = gb_probe(g, src, dst, &o, &r, e);

	if (err < 0)
		return err;
	if (r.received < GB_CALIB_PROBES / 2) {
		gb_err_set(e, "calibration: only %d of %d echoes from '%s' to '%s' came back",
			   r.received, r.sent, g->topo->nodes[src].name, g->topo->nodes[dst].name);
		return -EIO;
	}
	*p50 = r.rtt_p50 * gb_dilation(g);	/* back to wire time */
	return 0;
}

static int calib_save(struct gb_grid *g, const struct gb_calib *c)
{
	const struct gb_topo *t = g->topo;
	char path[PATH_MAX];
	json_t *o = json_pack("{s:s, s:s, s:i, s:I, s:f, s:f, s:f, s:I, s:i, s:i, s:s, s:I, s:f, "
			      "s:I, s:b, s:b, s:s}",
			      "src", t->nodes[c->src].name, "dst", t->nodes[c->dst].name,
			      "traversals", c->traversals, "config_ns", (json_int_t)c->config_ns,
			      "self_s", c->self_s, "before_s", c->before_s, "after_s", c->after_s,
			      "pass_ns", (json_int_t)c->pass_ns, "probes", c->probes,
			      "below", c->below, "below_min",
			      c->below_min_link >= 0 ? t->links[c->below_min_link].name : "",
			      "below_min_ns", (json_int_t)c->below_min_ns, "load1", c->load1,
			      "measured_unix", (json_int_t)c->measured_unix, "reused", c->reused,
			      "cache_bad", c->cache_bad, "cache", c->cache);
	char *s = o ? json_dumps(o, JSON_INDENT(1)) : NULL;
	int err = s ? 0 : -ENOMEM;

	json_decref(o);
	if (!err) {
		gb_grid_rpath(g, "calibration.json", path, sizeof(path));
		/* not flushed to disk, as the state file (grid.c) */
		err = gb_write_file(path, s, strlen(s), 0);
	}
	free(s);
	return err;
}

/* Measure @c's cost afresh on the pair it names (calibrate.h, "How"), and
 * have the delay line subtract it. */
static int measure(struct gb_grid *g, struct gb_calib *c, struct gb_err *e)
{
	int err;

	if (getloadavg(&c->load1, 1) != 1)
		c->load1 = -1;
	c->measured_unix = (int64_t)time(NULL);
	if ((err = g->shaper->pass(g, 0, e)) < 0 ||
	    (err = echo_p50(g, c->src, c->src, &c->self_s, e)) < 0 ||
	    (err = echo_p50(g, c->src, c->dst, &c->before_s, e)) < 0)
		return err;
	double cost = (c->before_s - c->self_s - (double)c->config_ns * 1e-9) / c->traversals;
	c->pass_ns = cost > 0 ? (uint64_t)llround(cost * 1e6) * 1000u : 0;
	if ((err = g->shaper->pass(g, c->pass_ns, e)) < 0 ||
	    (err = echo_p50(g, c->src, c->dst, &c->after_s, e)) < 0)
		return err;
	return 0;
}

int gb_grid_calibrate(struct gb_grid *g, int reuse, struct gb_calib *c, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	int out, back, err;
	uint64_t d_out = 0, d_back = 0, rate;

	memset(c, 0, sizeof(*c));
	c->below_min_link = -1;
	if (!g->shaper || !g->shaper->pass)
		return 0;
	if (pick_pair(g, &c->src, &c->dst) < 0)
		return 0;	/* a single host: no link to calibrate on */
	out = gb_topo_path(t, c->src, c->dst, NULL);
	back = gb_topo_path(t, c->dst, c->src, NULL);
	if (out <= 0 || back <= 0 ||
	    gb_topo_path_metrics(t, c->src, c->dst, &d_out, &rate) < 0 ||
	    gb_topo_path_metrics(t, c->dst, c->src, &d_back, &rate) < 0) {
		gb_err_set(e, "calibration: no route between '%s' and '%s'",
			   t->nodes[c->src].name, t->nodes[c->dst].name);
		return -EHOSTUNREACH;
	}
	c->traversals = out + back;
	c->config_ns = gb_wire_ns(g, d_out + d_back);
	c->probes = GB_CALIB_PROBES;

	if (!reuse)
		snprintf(c->cache, sizeof(c->cache), "asked to measure afresh");
	else if ((err = gb_calib_cache_get(g, c, c->cache, sizeof(c->cache))) == 1)
		c->reused = 1;
	else
		c->cache_bad = err == -EINVAL;
	if (c->reused) {
		if ((err = g->shaper->pass(g, c->pass_ns, e)) < 0)
			return err;
	} else if ((err = measure(g, c, e)) < 0) {
		return err;
	}

	for (int dl = 0; dl < 2 * t->nlinks; dl++) {
		const struct gb_link *l = &t->links[dl / 2];
		uint64_t d = gb_wire_ns(g, (dl & 1 ? l->ba : l->ab).delay_ns);

		if (d >= c->pass_ns)
			continue;
		if (c->below_min_link < 0 || d < c->below_min_ns) {
			c->below_min_link = dl / 2;
			c->below_min_ns = d;
		}
		c->below++;
	}
	c->done = 1;
	if (!c->reused && (err = gb_calib_cache_put(g, c)) < 0) {
		size_t n = strlen(c->cache);

		snprintf(c->cache + n, sizeof(c->cache) - n, " (not kept for later: %s)",
			 strerror(-err));
	}
	if ((err = calib_save(g, c)) < 0)
		gb_err_set(e, "cannot write calibration.json: %s", strerror(-err));
	return err;
}

/* Parse calibration.json's object @o into @c; 0 or -EINVAL. */
static int calib_parse(const struct gb_topo *t, json_t *o, struct gb_calib *c)
{
	const char *src = NULL, *dst = NULL, *bmin = "";
	const char *cache = "";
	json_int_t cfg = 0, pass = 0, bmin_ns = 0, when = 0;

	memset(c, 0, sizeof(*c));
	c->src = c->dst = c->below_min_link = -1;
	c->load1 = -1;
	/* load1 and the cache's fields are optional: grids from before them */
	if (json_unpack(o, "{s:s, s:s, s:i, s:I, s:F, s:F, s:F, s:I, s:i, s:i, s:s, s:I, s?F, s?I, "
			"s?b, s?b, s?s}", "src", &src, "dst", &dst, "traversals", &c->traversals,
			"config_ns", &cfg, "self_s", &c->self_s, "before_s", &c->before_s,
			"after_s", &c->after_s, "pass_ns", &pass, "probes", &c->probes, "below",
			&c->below, "below_min", &bmin, "below_min_ns", &bmin_ns, "load1",
			&c->load1, "measured_unix", &when, "reused", &c->reused, "cache_bad",
			&c->cache_bad, "cache", &cache) < 0)
		return -EINVAL;
	c->measured_unix = (int64_t)when;
	snprintf(c->cache, sizeof(c->cache), "%s", cache);
	c->config_ns = (uint64_t)cfg;
	c->pass_ns = (uint64_t)pass;
	c->below_min_ns = (uint64_t)bmin_ns;
	for (int i = 0; i < t->nnodes; i++) {
		if (!strcmp(t->nodes[i].name, src))
			c->src = i;
		if (!strcmp(t->nodes[i].name, dst))
			c->dst = i;
	}
	for (int k = 0; k < t->nlinks && c->below_min_link < 0; k++)
		if (*bmin && !strcmp(t->links[k].name, bmin))
			c->below_min_link = k;
	c->done = c->src >= 0 && c->dst >= 0;
	return c->done ? 0 : -EINVAL;
}

int gb_grid_calib_read(struct gb_grid *g, struct gb_calib *c, json_t **json)
{
	char path[PATH_MAX];
	json_t *o;
	int err;

	if (json)
		*json = NULL;
	gb_grid_rpath(g, "calibration.json", path, sizeof(path));
	if (!(o = json_load_file(path, 0, NULL))) {
		memset(c, 0, sizeof(*c));
		c->src = c->dst = c->below_min_link = -1;
		return errno == ENOENT ? -ENOENT : -EINVAL;
	}
	err = calib_parse(g->topo, o, c);
	if (!err && json)
		*json = o;
	else
		json_decref(o);
	return err;
}

void gb_calib_describe(const struct gb_topo *t, const struct gb_calib *c, char *line,
		       size_t linelen, char *warn, size_t warnlen)
{
	snprintf(line, linelen, "delay line: %.0f us per link traversal, subtracted from every "
		 "delay (measured at up, %s -> %s: %.3f ms before, %.3f ms after, for %.3f ms "
		 "configured + %.3f ms echo baseline; load %.2f)", (double)c->pass_ns / 1e3,
		 t->nodes[c->src].name, t->nodes[c->dst].name, c->before_s * 1e3,
		 c->after_s * 1e3, (double)c->config_ns / 1e6, c->self_s * 1e3, c->load1);
	if (c->reused) {
		size_t n = strlen(line);

		/* inside the parenthesis: its age now, so status shows it growing */
		if (n > 0 && n < linelen && line[n - 1] == ')')
			snprintf(line + n - 1, linelen - n + 1, "; measured %lld s ago, reused)",
				 (long long)time(NULL) - (long long)c->measured_unix);
	}
	warn[0] = '\0';
	if (c->below && c->below_min_link >= 0)
		snprintf(warn, warnlen, "%d of %d link directions have a delay below the delay "
			 "line's %.0f us per traversal (the smallest: %.0f us on %s): paths "
			 "through them take longer than configured", c->below, 2 * t->nlinks,
			 (double)c->pass_ns / 1e3, (double)c->below_min_ns / 1e3,
			 t->links[c->below_min_link].name);
}
