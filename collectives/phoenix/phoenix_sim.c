/* SPDX-License-Identifier: MIT */
/*
 * phoenix_sim.c - a discrete-event driver of the Phoenix state machine
 * (phoenix_proto.c) over the latency matrix of a network model.
 *
 *	event queue (time, sequence) ──► TICK(v):    phx_node_tick(v), next in a round
 *	                              └─► DELIVER(m): phx_node_recv(dst)
 *	every message a node puts in its outbox is encoded (phx_encode, so the
 *	byte counts are the daemon's) and delivered lat[src][dst] later,
 *	stretched by the optional noise: lat * (1 + U[0, noise_rel)) + U[0, noise_abs)
 *
 * Nodes measure latencies themselves, from the round trips of their probes
 * through this network, exactly as phoenixd does over UDP; processing takes
 * no time.  Each node's rounds start at a seeded random phase and last
 * round_s +- 5 %, as independent timers would.  Everything random comes from one gb_rng, so
 * a run is a function of (model, options).
 *
 * Stability: a run ends when for quiet_rounds rounds no node has changed a
 * parent and every node has been settled (connected to every tree, no JOIN
 * pending, every peer measured).  quiet_rounds defaults to two probe cycles
 * plus 3 rounds, and at least 10: by then every node has heard every peer's state twice, so
 * a switch that is still possible would have been found.  After a latency
 * was raised (phx_sim_set_lat()), it is one probe cycle times the latency
 * window plus 3: the minimum over the window forgets the old, lower samples
 * only after `window` new ones.  The result counts the rounds, time and
 * messages until the *last parent change*.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "phoenix.h"

enum { EV_TICK, EV_DELIVER };

struct phx_sim_ev {
	uint64_t t, seq;
	int kind, node, len;
	uint8_t *buf;
};

static int ev_less(const struct phx_sim_ev *a, const struct phx_sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int heap_push(struct phx_sim *s, struct phx_sim_ev ev)
{
	int i;

	if (s->nheap == s->capheap) {
		int cap = s->capheap ? 2 * s->capheap : 1024;
		struct phx_sim_ev *h = realloc(s->heap, sizeof(*h) * cap);

		if (!h)
			return -ENOMEM;
		s->heap = h;
		s->capheap = cap;
	}
	ev.seq = s->seq++;
	i = s->nheap++;
	while (i > 0 && ev_less(&ev, &s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = ev;
	return 0;
}

static struct phx_sim_ev heap_pop(struct phx_sim *s)
{
	struct phx_sim_ev top = s->heap[0], last = s->heap[--s->nheap];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && ev_less(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_less(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap > 0)
		s->heap[i] = last;
	return top;
}

void phx_sim_opts_default(struct phx_sim_opts *o)
{
	memset(o, 0, sizeof(*o));
	phx_params_default(&o->proto);
	o->round_s = 1.0;
	o->noise_rel = 0;
	o->noise_abs_s = 0;
	o->quiet_rounds = 0;
	o->max_rounds = 1000;
	o->seed = 1;
}

void phx_sim_release(struct phx_sim *s)
{
	if (!s)
		return;
	if (s->nodes)
		for (int i = 0; i < s->n; i++)
			phx_node_release(&s->nodes[i]);
	for (int i = 0; i < s->nheap; i++)
		free(s->heap[i].buf);
	free(s->heap);
	free(s->nodes);
	free(s->lat);
	memset(s, 0, sizeof(*s));
}

int phx_sim_init(struct phx_sim *s, const struct gb_netmodel *m, const struct phx_sim_opts *o)
{
	struct phx_params p;
	int n = m->n, ret;

	memset(s, 0, sizeof(*s));
	if (n < 1 || n > PHX_NODES_MAX || !(o->round_s > 0) || o->max_rounds < 1 ||
	    o->proto.fanout < 1)
		return -EINVAL;
	s->n = n;
	s->o = *o;
	gb_rng_seed(&s->rng, o->seed);
	p = o->proto;
	if (!p.seed)
		p.seed = o->seed;
	s->nodes = calloc(n, sizeof(*s->nodes));
	s->lat = malloc(sizeof(uint32_t) * (size_t)n * n);
	if (!s->nodes || !s->lat) {
		phx_sim_release(s);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		if ((ret = phx_node_init(&s->nodes[i], i, n, &p)) < 0) {
			phx_sim_release(s);
			return ret;
		}
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			phx_sim_set_lat(s, i, j, i == j ? 0 : m->lat[(size_t)i * n + j]);
	return 0;
}

void phx_sim_set_lat(struct phx_sim *s, int i, int j, double lat_s)
{
	double ns = lat_s * 1e9;

	uint32_t v = !(ns > 0) ? 0 : ns > 4e9 ? (uint32_t)4e9 : (uint32_t)(ns + 0.5);

	if (i < 0 || j < 0 || i >= s->n || j >= s->n)
		return;
	if (s->started && v > s->lat[(size_t)i * s->n + j])
		s->raised = 1;
	s->lat[(size_t)i * s->n + j] = v;
}

/* Send what node v put in its outbox. */
static int drain(struct phx_sim *s, struct phx_node *v)
{
	uint8_t tmp[PHX_MSG_MAX];
	int ret = 0;

	for (int i = 0; i < v->nout && ret == 0; i++) {
		const struct phx_msg *m = &v->out[i];
		struct phx_sim_ev ev = { 0 };
		double d;
		int len = phx_encode(m, tmp, sizeof(tmp));

		if (len < 0 || m->dst >= s->n)
			continue;
		s->msgs++;
		s->sent[m->type]++;
		s->items += m->nitems;
		s->bytes += (uint64_t)len;
		d = s->lat[(size_t)m->src * s->n + m->dst];
		if (s->o.noise_rel > 0)
			d *= 1 + s->o.noise_rel * gb_rng_uniform(&s->rng);
		if (s->o.noise_abs_s > 0)
			d += s->o.noise_abs_s * 1e9 * gb_rng_uniform(&s->rng);
		ev.t = s->now + (uint64_t)d;
		ev.kind = EV_DELIVER;
		ev.node = m->dst;
		ev.len = len;
		ev.buf = malloc(len);
		if (!ev.buf) {
			ret = -ENOMEM;
			break;
		}
		memcpy(ev.buf, tmp, len);
		if ((ret = heap_push(s, ev)) < 0)
			free(ev.buf);
	}
	phx_node_out_clear(v);
	return ret;
}

static void totals(const struct phx_sim *s, struct phx_sim_result *r)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < s->n; i++) {
		const struct phx_stats *st = &s->nodes[i].st;

		r->changes += st->changes;
		r->shortcuts += st->shortcuts;
		r->rejected += st->rejected;
		r->lost += st->lost;
	}
}

static int all_settled(const struct phx_sim *s)
{
	for (int i = 0; i < s->n; i++)
		if (!phx_node_settled(&s->nodes[i]))
			return 0;
	return 1;
}

int phx_sim_run(struct phx_sim *s, struct phx_sim_result *r)
{
	uint64_t round = (uint64_t)(s->o.round_s * 1e9), t0, end, last_change, next_check;
	uint64_t m0 = s->msgs, i0 = s->items, b0 = s->bytes, msgs_at, items_at, bytes_at;
	uint64_t sent0[PHX_NTYPES], sent_at[PHX_NTYPES];
	struct phx_sim_result before, after;
	int quiet = s->o.quiet_rounds, fan = s->o.proto.fanout, ret = 0;
	struct phx_msg *msg = malloc(sizeof(*msg));

	memset(r, 0, sizeof(*r));
	if (!msg)
		return -ENOMEM;
	if (quiet <= 0) {
		int cycle = s->n > 1 ? (s->n - 1 + fan - 1) / fan : 1;

		quiet = (s->raised ? cycle * s->o.proto.window : 2 * cycle) + 3;
		if (quiet < 10)
			quiet = 10;
	}
	s->raised = 0;
	if (!s->started) {
		for (int i = 0; i < s->n; i++) {
			struct phx_sim_ev ev = { 0 };

			ev.t = (uint64_t)(gb_rng_uniform(&s->rng) * (double)round);
			ev.kind = EV_TICK;
			ev.node = i;
			if ((ret = heap_push(s, ev)) < 0)
				goto cleanup;
		}
		s->started = 1;
	}
	totals(s, &before);
	t0 = s->now;
	end = t0 + (uint64_t)s->o.max_rounds * round;
	last_change = t0;
	next_check = t0 + round;
	msgs_at = m0;
	items_at = i0;
	bytes_at = b0;
	memcpy(sent0, s->sent, sizeof(sent0));
	memcpy(sent_at, s->sent, sizeof(sent_at));

	while (s->nheap > 0) {
		struct phx_sim_ev ev;
		struct phx_node *v;
		uint64_t c0;

		if (s->heap[0].t >= next_check) {
			s->now = next_check;
			if (s->now - last_change >= (uint64_t)quiet * round && all_settled(s)) {
				r->converged = 1;
				break;
			}
			if (s->now >= end)
				break;
			next_check += round;
			continue;
		}
		ev = heap_pop(s);
		s->now = ev.t;
		v = &s->nodes[ev.node];
		c0 = v->st.changes;
		if (ev.kind == EV_TICK) {
			ret = phx_node_tick(v, s->now);
			/* +-5 % per round: independent timers drift, and a fixed
			 * phase would lock some pairs into always probing while
			 * a serial is on its way */
			ev.t += (uint64_t)((double)round * (0.95 + 0.1 * gb_rng_uniform(&s->rng)));
			if (ret == 0)
				ret = heap_push(s, ev);
		} else {
			if (phx_decode(msg, ev.buf, ev.len) == 0)
				ret = phx_node_recv(v, msg, s->now);
			free(ev.buf);
		}
		if (ret == 0)
			ret = drain(s, v);
		if (ret < 0)
			goto cleanup;
		/* only the node that handled the event can have changed */
		if (v->st.changes != c0) {
			last_change = s->now;
			msgs_at = s->msgs;
			items_at = s->items;
			bytes_at = s->bytes;
			memcpy(sent_at, s->sent, sizeof(sent_at));
		}
	}
	totals(s, &after);
	r->time_s = (double)(last_change - t0) * 1e-9;
	r->rounds = (int)((last_change - t0 + round - 1) / round);
	r->msgs = msgs_at - m0;
	r->items = items_at - i0;
	r->bytes = bytes_at - b0;
	r->msgs_total = s->msgs - m0;
	r->changes = after.changes - before.changes;
	r->shortcuts = after.shortcuts - before.shortcuts;
	r->rejected = after.rejected - before.rejected;
	r->lost = after.lost - before.lost;
	for (int k = 0; k < PHX_NTYPES; k++)
		r->sent[k] = sent_at[k] - sent0[k];
cleanup:
	free(msg);
	return ret;
}

void phx_sim_parents(const struct phx_sim *s, int root, int *parent, int *rank)
{
	for (int v = 0; v < s->n; v++) {
		const struct phx_node *nd = &s->nodes[v];
		int p = v == root ? -1 : nd->parent[root];

		parent[v] = p;
		if (rank) {
			int k = -1;

			if (p >= 0) {
				const struct phx_node *pn = &s->nodes[p];

				for (int i = 0; i < pn->nchild[root]; i++)
					if (pn->child[root][i] == v)
						k = i;
			}
			/* not (yet) in the parent's list: after the listed ones */
			rank[v] = k >= 0 ? k : s->n - 1;
		}
	}
}

int phx_sim_has_cycle(const struct phx_sim *s, int root)
{
	int *par = malloc(sizeof(int) * s->n), cyc;

	if (!par)
		return 0;
	phx_sim_parents(s, root, par, NULL);
	cyc = phx_parents_have_cycle(par, s->n);
	free(par);
	return cyc;
}
