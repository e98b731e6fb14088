// SPDX-License-Identifier: MIT
/*
 * campaign_query.c - what a loaded campaign (gbexp.h) answers: a
 * condition's load schedule, an algorithm by label, which daemons a set of
 * algorithms needs, the rank order's hosts, run ids, and the campaign as
 * meta.json's JSON.  campaign.c reads and validates the file.
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

int gx_campaign_schedule(const struct gx_campaign *c, int cond, int rep,
			 struct gb_load_sched *s, struct gb_diag *d)
{
	const struct gx_cond *cd = &c->conds[cond];
	uint64_t seed = c->seed + (uint64_t)(rep > 0 ? rep - 1 : 0);
	int ret;

	gb_load_sched_release(s);
	gb_load_sched_init(s);
	if (cd->kind == GX_LOAD_RANDOM) {
		struct gb_load_rand_opts o = { .target = cd->target, .on = cd->on, .seed = seed,
					       .scale = c->scale, .horizon = cd->horizon };

		return gb_load_random(c->topo, &o, s, d);
	}
	if (cd->kind != GX_LOAD_SCHEDULE) {
		s->scale = c->scale;
		return 0;
	}
	ret = gb_load_parse(cd->sched, cd->sched_len, cd->sched_name, c->topo, s, d);
	if (ret < 0)
		return ret;
	/* the campaign's scale and seed win over the schedule's own */
	s->scale = c->scale;
	s->seed = seed;
	return gb_load_resolve(c->topo, s, d);
}

int gx_campaign_algo(const struct gx_campaign *c, const char *label)
{
	for (int i = 0; i < c->nalgos; i++)
		if (!strcmp(c->algos[i].label, label))
			return i;
	return -1;
}

int gx_campaign_needs_monitor(const struct gx_campaign *c)
{
	for (int i = 0; i < c->nalgos; i++)
		if (c->algos[i].monitor)
			return 1;
	return 0;
}

int gx_campaign_needs_advisor(const struct gx_campaign *c, const int *use)
{
	for (int i = 0; i < c->nalgos; i++)
		if ((!use || use[i]) && c->algos[i].advisor)
			return 1;
	return 0;
}

int gx_campaign_needs_phoenixd(const struct gx_campaign *c, const int *use)
{
	for (int i = 0; i < c->nalgos; i++)
		if ((!use || use[i]) && !strcmp(c->algos[i].bcast, "phoenix"))
			return 1;
	return 0;
}

int gx_phoenixd_settings(const struct gx_campaign *c, double dilate, struct gx_phoenixd_set *s)
{
	const struct gx_phoenixd *o = &c->phoenixd;
	int big = c->topo && c->topo->nhosts > 16;
	double wall, rms;

	if (!(dilate >= 1) || (o->round_ms && o->wall_round_ms))
		return -EINVAL;
	/* the round: the box's limit is on the wall clock, phoenixd's clock is the topology's */
	if (o->round_ms) {
		rms = o->round_ms;
	} else {
		wall = o->wall_round_ms ? o->wall_round_ms : big ? 2000 : 200;
		rms = floor(wall / dilate + 0.5);
		if (rms < GX_PHOENIXD_ROUND_FLOOR_MS)
			rms = fmin(wall, GX_PHOENIXD_ROUND_FLOOR_MS);
	}
	s->dilate = dilate;
	s->round_ms = (int)rms;
	s->wall_round_ms = rms * dilate;
	s->serial_every = o->serial_every ? o->serial_every : big ? 2 : 1;
	s->coalesce_ms = o->coalesce_ms ? o->coalesce_ms : rms / (big ? 200 : 100);
	s->fanout = o->fanout;
	s->timeout_s = o->timeout > 0 ? o->timeout : (big ? 900 : 600) * s->wall_round_ms / 1000;
	return 0;
}

const char *gx_order_name(int order)
{
	static const char *const names[] = { "topology", "shuffle", "interleave" };

	return order >= 0 && order < 3 ? names[order] : "?";
}

int gx_rank_hosts(const struct gx_campaign *c, int *hosts)
{
	const struct gb_topo *t = c->topo;
	int n = t->nhosts, root = gb_topo_find_node(t, c->app.root), k = 0;

	if (c->ranks.order == GX_ORDER_TOPOLOGY || root < 0 || root >= n) {
		for (int i = 0; i < n; i++)
			hosts[i] = i;
		return n;
	}
	hosts[k++] = root;
	if (c->ranks.order == GX_ORDER_SHUFFLE) {
		struct gb_rng g;

		for (int i = 0; i < n; i++)
			if (i != root)
				hosts[k++] = i;
		/* Fisher-Yates over ranks 1 .. n-1: the root keeps rank 0 */
		gb_rng_seed(&g, c->ranks.seed);
		for (int i = n - 1; i > 1; i--) {
			int j = 1 + (int)(gb_rng_next(&g) % (uint64_t)i), tmp = hosts[i];

			hosts[i] = hosts[j];
			hosts[j] = tmp;
		}
		return n;
	}
	/* interleave: one host of each cluster in turn, clusters in file order */
	for (int round = 0; k < n; round++)
		for (int cl = 0; cl < t->nclusters; cl++) {
			int h = t->clusters[cl].first_host + round;

			if (round < t->clusters[cl].nhosts && h != root)
				hosts[k++] = h;
		}
	return n;
}

void gx_campaign_set_seed(struct gx_campaign *c, uint64_t seed)
{
	c->seed = seed;
	if (!c->ranks.seed_set)
		c->ranks.seed = seed;
}

int gx_cond_hosts(const struct gx_campaign *c, int cond, int *hosts)
{
	const struct gb_topo *t = c->topo;
	int procs = c->conds[cond].procs, root = gb_topo_find_node(t, c->app.root), n, k = 0;
	int *all;

	if (procs <= 0 || procs >= t->nhosts)
		return gx_rank_hosts(c, hosts);
	all = malloc(sizeof(int) * (size_t)t->nhosts);
	if (!all)
		return -ENOMEM;
	n = gx_rank_hosts(c, all);
	/* the root, wherever the order puts it, and the first procs - 1 others */
	for (int i = 0, others = 0; i < n && k < procs; i++) {
		if (all[i] == root)
			hosts[k++] = all[i];
		else if (others < procs - 1) {
			hosts[k++] = all[i];
			others++;
		}
	}
	free(all);
	return k;
}

void gx_run_id(const struct gx_campaign *c, int cond, int algo, int rep, char *buf, size_t len)
{
	char l[GX_NAME_MAX];

	snprintf(l, sizeof(l), "%s", c->algos[algo].label);
	for (char *p = l; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-'))
			*p = '_';
	snprintf(buf, len, "%s-%s-r%d", c->conds[cond].name, l, rep);
}

json_t *gx_campaign_json(const struct gx_campaign *c)
{
	json_t *j = json_object(), *al = json_array(), *cs = json_array(), *app = json_object();
	json_t *sz = json_array();
	const struct gx_pattern *p = &c->app.pat;

	if (!j || !al || !cs || !app || !sz) {
		json_decref(j);
		json_decref(al);
		json_decref(cs);
		json_decref(app);
		json_decref(sz);
		return NULL;
	}
	json_object_set_new(j, "name", json_string(c->name));
	json_object_set_new(j, "file", json_string(c->path));
	json_object_set_new(j, "topology", json_string(c->topology));
	json_object_set_new(j, "topology_name", json_string(c->topo->name));
	json_object_set_new(j, "backend_requested", json_string(c->backend));
	json_object_set_new(j, "scale", json_real(c->scale));
	json_object_set_new(j, "dilate", json_real(c->dilate));
	json_object_set_new(j, "repetitions", json_integer(c->repetitions));
	json_object_set_new(j, "seed", json_integer((json_int_t)c->seed));
	for (int i = 0; i < c->nalgos; i++) {
		json_t *a = json_object();

		json_object_set_new(a, "label", json_string(c->algos[i].label));
		json_object_set_new(a, "bcast", json_string(c->algos[i].bcast));
		json_object_set_new(a, "planner", json_string(c->algos[i].planner));
		json_object_set_new(a, "monitor", json_boolean(c->algos[i].monitor));
		json_object_set_new(a, "advisor", json_boolean(c->algos[i].advisor));
		if (strcmp(c->algos[i].bcast, "native")) {
			json_object_set_new(a, "segment", c->algos[i].segment < 0 ?
					    json_string("auto") : json_real(c->algos[i].segment));
			json_object_set_new(a, "stripes", gb_stripes_json(&c->algos[i].stripes));
		}
		json_array_append_new(al, a);
	}
	json_object_set_new(j, "algorithms", al);
	json_object_set_new(app, "root", json_string(c->app.root));
	json_object_set_new(app, "pattern", json_string(p->nsizes ? "sweep" : "linear"));
	json_object_set_new(app, "broadcasts", json_integer(gx_pattern_count(p)));
	if (p->nsizes) {
		for (int i = 0; i < p->nsizes; i++)
			json_array_append_new(sz, json_real(p->sizes[i]));
		json_object_set_new(app, "sizes", sz);
		json_object_set_new(app, "reps", json_integer(p->reps));
	} else {
		json_decref(sz);
		json_object_set_new(app, "size_first", json_real(p->size_first));
		json_object_set_new(app, "size_last", json_real(p->size_last));
	}
	json_object_set_new(app, "gap_first_s", json_real(p->gap_first));
	json_object_set_new(app, "gap_factor", json_real(p->gap_factor));
	json_object_set_new(app, "warmup", json_boolean(c->app.warmup));
	json_object_set_new(app, "start", json_string(c->app.start_clock ? "clock" : "barrier"));
	json_object_set_new(app, "wait", json_string(c->app.wait_sleep ? "sleep" : "spin"));
	if (c->app.fail_rank >= 0) {
		json_object_set_new(app, "fail_rank", json_integer(c->app.fail_rank));
		json_object_set_new(app, "fail_at", json_integer(c->app.fail_at));
		json_object_set_new(app, "fail_algo", json_string(c->app.fail_algo));
	}
	json_object_set_new(j, "app", app);
	for (int i = 0; i < c->nconds; i++) {
		const struct gx_cond *cd = &c->conds[i];
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(cd->name));
		if (cd->procs)
			json_object_set_new(o, "procs", json_integer(cd->procs));
		if (cd->tcp.set) {
			json_t *tcp = json_object();

			if (cd->tcp.set & GB_TCP_SET_CC)
				json_object_set_new(tcp, "congestion", json_string(cd->tcp.v.congestion));
			if (cd->tcp.set & GB_TCP_SET_SSAI)
				json_object_set_new(tcp, "slow_start_after_idle",
						    json_boolean(cd->tcp.v.slow_start_after_idle));
			if (cd->tcp.set & GB_TCP_SET_BUF)
				json_object_set_new(tcp, "buffers", json_integer((json_int_t)cd->tcp.v.buf_max));
			if (cd->tcp.set & GB_TCP_SET_INITCWND)
				json_object_set_new(tcp, "initcwnd", json_integer(cd->tcp.v.initcwnd));
			json_object_set_new(o, "tcp", tcp);
		}
		json_object_set_new(o, "kind", json_string(cd->kind == GX_LOAD_RANDOM ? "random" :
							    cd->kind == GX_LOAD_SCHEDULE ?
							    "schedule" : "none"));
		json_object_set_new(o, "mode", json_string(gb_load_mode_name(cd->mode)));
		if (cd->kind == GX_LOAD_RANDOM) {
			json_object_set_new(o, "target", json_string(cd->target));
			json_object_set_new(o, "on", json_string(gb_load_on_name(cd->on)));
			json_object_set_new(o, "horizon_s", json_real(cd->horizon > 0 ? cd->horizon
									: GB_LOAD_HORIZON));
		}
		if (cd->kind == GX_LOAD_SCHEDULE)
			json_object_set_new(o, "schedule", json_string(cd->sched_name));
		json_array_append_new(cs, o);
	}
	json_object_set_new(j, "conditions", cs);
	json_object_set_new(j, "monitor_period_s", json_real(c->monitor.period));
	json_object_set_new(j, "monitor_sites_free", json_boolean(c->monitor.sites_free));
	json_object_set_new(j, "monitor_duplex", json_boolean(c->monitor.duplex));
	json_object_set_new(j, "monitor_warm", json_boolean(c->monitor.warm));
	json_object_set_new(j, "ranks", json_pack("{s:s,s:I}", "order",
						   gx_order_name(c->ranks.order), "seed",
						   (json_int_t)c->ranks.seed));
	if (gx_campaign_needs_phoenixd(c, NULL))
		json_object_set_new(j, "phoenixd", json_pack(
			"{s:i,s:i,s:i,s:i,s:i,s:f}", "round_ms", c->phoenixd.round_ms,
			"wall_round_ms", c->phoenixd.wall_round_ms, "serial_every",
			c->phoenixd.serial_every, "coalesce_ms", c->phoenixd.coalesce_ms,
			"fanout", c->phoenixd.fanout, "timeout_s", c->phoenixd.timeout));
	json_object_set_new(j, "advisor_planner", json_string(c->advisor_planner));
	json_object_set_new(j, "timeout_s", json_real(c->timeout));
	return j;
}
