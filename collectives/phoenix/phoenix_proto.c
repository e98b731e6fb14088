/* SPDX-License-Identifier: MIT */
/*
 * phoenix_proto.c - the protocol state machine of one Phoenix process
 * (seed 001 s3; the algorithm and the choices [choice N] are listed in
 * phoenix.h).  Pure: no I/O, no clock, no randomness beyond the seeded
 * probe order; the simulator (phoenix_sim.c) and the daemon (phoenixd.c)
 * drive the same code.
 *
 * Messages of one tree r between a node n, its parent p and a candidate c:
 *
 *	root r  --SERIAL(r, s, 0)-->  child  --SERIAL(r, s, lat(child,r))--> ...
 *	                              (every round, s = s + 1; s. 3.1)
 *
 *	n --PROBE(state)--> c          both learn the other's (serial, lat) for
 *	n <--PROBE_ACK(state)-- c      every tree; n also gets an RTT sample
 *
 *	n: c more suitable than p?     Fig. 1 (1)-(4), or Fig. 3
 *	n --JOIN(r, s, lat(n,r))--> c  c re-checks on its current state [5]
 *	n <--ACCEPT(r, s, lat(c,r))-- c   (or REJECT)
 *	n --LEAVE(r)--> p              p forgets n as a child
 *
 * The wire format is phoenix_wire.c, the parent arrays' checks and trees
 * phoenix_tree.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "phoenix.h"

/* ------------------------------------------------------------------ */
/* Node lifetime                                                       */
/* ------------------------------------------------------------------ */

void phx_params_default(struct phx_params *p)
{
	memset(p, 0, sizeof(*p));
	p->shortcut_s = 0.010;
	p->margin_abs_s = 100e-6;
	p->margin_rel = 0.20;
	p->use_serial = 1;
	p->use_shortcut = 1;
	p->measure = 1;
	p->fanout = 8;
	p->window = 8;
	p->join_timeout = 3;
	p->parent_timeout = 4;
	p->serial_every = 1;
	p->only_tree = -1;
	p->seed = 0;
}

static uint32_t ns_of(double s)
{
	double ns = s * 1e9;

	if (!(ns >= 0))
		return 0;
	if (ns >= (double)(PHX_LAT_INF - 1))
		return PHX_LAT_INF - 1;
	return (uint32_t)(ns + 0.5);
}

static uint32_t lat_add(uint32_t a, uint32_t b)
{
	uint64_t s = (uint64_t)a + b;

	if (a == PHX_LAT_INF || b == PHX_LAT_INF)
		return PHX_LAT_INF;
	return s >= PHX_LAT_INF ? PHX_LAT_INF - 1 : (uint32_t)s;
}

void phx_node_release(struct phx_node *nd)
{
	if (!nd)
		return;
	if (nd->child) {
		for (int r = 0; r < nd->n; r++)
			free(nd->child[r]);
	}
	free(nd->child);
	free(nd->nchild);
	free(nd->capchild);
	free(nd->parent);
	free(nd->serial);
	free(nd->lat);
	free(nd->sw_serial);
	free(nd->pending);
	free(nd->pending_sc);
	free(nd->pending_round);
	free(nd->heard_round);
	free(nd->held_serial);
	free(nd->held_lat);
	free(nd->lost_serial);
	free(nd->pmin);
	free(nd->best);
	free(nd->est);
	free(nd->win);
	free(nd->wcount);
	free(nd->wnext);
	free(nd->peer_serial);
	free(nd->peer_lat);
	free(nd->perm);
	free(nd->out);
	memset(nd, 0, sizeof(*nd));
}

int phx_node_init(struct phx_node *nd, int self, int n, const struct phx_params *p)
{
	size_t nn;
	struct gb_rng rng;

	memset(nd, 0, sizeof(*nd));
	if (n < 1 || n > PHX_NODES_MAX || self < 0 || self >= n || !p || p->window < 1 ||
	    p->window > PHX_WINDOW_MAX || p->fanout < 0 || p->serial_every < 1 ||
	    p->only_tree < -1 || p->only_tree >= n)
		return -EINVAL;
	nd->self = self;
	nd->n = n;
	nd->p = *p;
	nn = (size_t)n * n;
	nd->parent = malloc(sizeof(int) * n);
	nd->serial = calloc(n, sizeof(uint32_t));
	nd->lat = malloc(sizeof(uint32_t) * n);
	nd->sw_serial = calloc(n, sizeof(uint32_t));
	nd->pending = malloc(sizeof(int) * n);
	nd->pending_sc = calloc(n, 1);
	nd->pending_round = calloc(n, sizeof(uint32_t));
	nd->heard_round = calloc(n, sizeof(uint32_t));
	nd->held_serial = calloc(n, sizeof(uint32_t));
	nd->held_lat = calloc(n, sizeof(uint32_t));
	nd->lost_serial = calloc(n, sizeof(uint32_t));
	nd->pmin = malloc(sizeof(uint32_t) * n);
	nd->best = malloc(sizeof(int) * n);
	nd->child = calloc(n, sizeof(int *));
	nd->nchild = calloc(n, sizeof(int));
	nd->capchild = calloc(n, sizeof(int));
	nd->est = malloc(sizeof(uint32_t) * n);
	nd->win = calloc((size_t)n * p->window, sizeof(uint32_t));
	nd->wcount = calloc(n, 1);
	nd->wnext = calloc(n, 1);
	nd->peer_serial = calloc(nn, sizeof(uint32_t));
	nd->peer_lat = malloc(sizeof(uint32_t) * nn);
	nd->perm = malloc(sizeof(int) * n);
	if (!nd->parent || !nd->serial || !nd->lat || !nd->sw_serial || !nd->pending ||
	    !nd->pending_sc || !nd->pending_round || !nd->heard_round || !nd->pmin ||
	    !nd->held_serial || !nd->held_lat || !nd->best || !nd->lost_serial ||
	    !nd->child || !nd->nchild || !nd->capchild || !nd->est || !nd->win ||
	    !nd->wcount || !nd->wnext || !nd->peer_serial || !nd->peer_lat || !nd->perm) {
		phx_node_release(nd);
		return -ENOMEM;
	}
	for (int r = 0; r < n; r++) {
		nd->parent[r] = -1;
		nd->lat[r] = PHX_LAT_INF;
		nd->pending[r] = -1;
		nd->pmin[r] = PHX_LAT_INF;
		nd->est[r] = PHX_LAT_INF;
	}
	nd->lat[self] = 0;
	for (size_t i = 0; i < nn; i++)
		nd->peer_lat[i] = PHX_LAT_INF;
	/* [choice 2] probe order: a seeded permutation of the peers. */
	for (int i = 0, k = 0; i < n; i++)
		if (i != self)
			nd->perm[k++] = i;
	gb_rng_seed(&rng, p->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(self + 1)));
	for (int i = n - 2; i > 0; i--) {
		int j = (int)gb_rng_below(&rng, (uint32_t)i + 1), t = nd->perm[i];

		nd->perm[i] = nd->perm[j];
		nd->perm[j] = t;
	}
	return 0;
}

void phx_node_out_clear(struct phx_node *nd)
{
	nd->nout = 0;
	nd->ev_start = 0;
}

/* The trees this node runs: all, or only p.only_tree (the planner's case). */
static int tree_lo(const struct phx_node *nd)
{
	return nd->p.only_tree >= 0 ? nd->p.only_tree : 0;
}

static int tree_hi(const struct phx_node *nd)
{
	return nd->p.only_tree >= 0 ? nd->p.only_tree + 1 : nd->n;
}

int phx_node_connected(const struct phx_node *nd, int r)
{
	return r == nd->self || nd->parent[r] >= 0;
}

int phx_node_settled(const struct phx_node *nd)
{
	for (int c = 0; c < nd->n; c++)
		if (c != nd->self && nd->est[c] == PHX_LAT_INF)
			return 0;
	for (int r = tree_lo(nd); r < tree_hi(nd); r++) {
		if (!phx_node_connected(nd, r) || nd->pending[r] >= 0)
			return 0;
	}
	return 1;
}

/* ------------------------------------------------------------------ */
/* Outbox                                                              */
/* ------------------------------------------------------------------ */

static struct phx_msg *out_new(struct phx_node *nd, int type, int dst)
{
	struct phx_msg *m;

	if (nd->nout == nd->capout) {
		int cap = nd->capout ? 2 * nd->capout : 16;
		struct phx_msg *o = realloc(nd->out, sizeof(*o) * cap);

		if (!o)
			return NULL;
		nd->out = o;
		nd->capout = cap;
	}
	m = &nd->out[nd->nout++];
	m->type = (uint8_t)type;
	m->src = (uint16_t)nd->self;
	m->dst = (uint16_t)dst;
	m->round = nd->round;
	m->stamp = 0;
	m->hold = 0;
	m->rx = 0;
	m->nitems = 0;
	nd->st.sent[type]++;
	nd->st.msgs++;
	return m;
}

/*
 * Append an item for @dst, merged into a message of the same type and
 * destination produced by the same event (so that forwarding a batch of
 * serials costs one message per child, not one per tree).
 */
static int out_item(struct phx_node *nd, int type, int dst, uint32_t root, uint32_t serial,
		    uint32_t lat)
{
	struct phx_msg *m = NULL;

	for (int i = nd->nout - 1; i >= nd->ev_start; i--) {
		struct phx_msg *o = &nd->out[i];

		if (o->type == type && o->dst == dst && o->nitems < PHX_ITEMS_MAX) {
			m = o;
			break;
		}
	}
	if (!m && !(m = out_new(nd, type, dst)))
		return -ENOMEM;
	m->item[m->nitems++] = (struct phx_item){ root, serial, lat };
	nd->st.items++;
	return 0;
}

/* Our state for every tree, in PROBE/PROBE_ACK + STATE chunks ([choice 2]). */
static int out_state(struct phx_node *nd, int type, int dst, uint64_t stamp, uint64_t rx)
{
	struct phx_msg *m = NULL;

	if (type == PHX_PROBE) {
		/* the answer carries the state; a probe only needs its stamp */
		if (!(m = out_new(nd, type, dst)))
			return -ENOMEM;
		m->stamp = stamp;
		return 0;
	}
	for (int r = tree_lo(nd); r < tree_hi(nd); r++) {
		if (!m || m->nitems == PHX_STATE_MAX) {
			m = out_new(nd, m ? PHX_STATE : type, dst);
			if (!m)
				return -ENOMEM;
			m->stamp = stamp;
			m->rx = rx;
		}
		m->item[m->nitems++] = (struct phx_item){
			(uint32_t)r, phx_node_connected(nd, r) ? nd->serial[r] : 0,
			phx_node_connected(nd, r) ? nd->lat[r] : PHX_LAT_INF };
		nd->st.items++;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Latency estimates ([choice 1])                                      */
/* ------------------------------------------------------------------ */

static void add_sample(struct phx_node *nd, int c, uint32_t ns)
{
	uint32_t *w = nd->win + (size_t)c * nd->p.window, m = PHX_LAT_INF;

	w[nd->wnext[c]] = ns;
	nd->wnext[c] = (uint8_t)((nd->wnext[c] + 1) % nd->p.window);
	if (nd->wcount[c] < nd->p.window)
		nd->wcount[c]++;
	for (int i = 0; i < nd->wcount[c]; i++)
		if (w[i] < m)
			m = w[i];
	nd->est[c] = m;
}

void phx_node_measure(struct phx_node *nd, int c, double lat_s)
{
	if (c >= 0 && c < nd->n && c != nd->self)
		add_sample(nd, c, ns_of(lat_s));
}

/* ------------------------------------------------------------------ */
/* Tree bookkeeping                                                    */
/* ------------------------------------------------------------------ */

static int child_index(const struct phx_node *nd, int r, int c)
{
	for (int i = 0; i < nd->nchild[r]; i++)
		if (nd->child[r][i] == c)
			return i;
	return -1;
}

static int child_add(struct phx_node *nd, int r, int c)
{
	if (child_index(nd, r, c) >= 0)
		return 0;
	if (nd->nchild[r] == nd->capchild[r]) {
		int cap = nd->capchild[r] ? 2 * nd->capchild[r] : 4;
		int *a = realloc(nd->child[r], sizeof(int) * cap);

		if (!a)
			return -ENOMEM;
		nd->child[r] = a;
		nd->capchild[r] = cap;
	}
	nd->child[r][nd->nchild[r]++] = c;
	return 0;
}

static void child_del(struct phx_node *nd, int r, int c)
{
	int i = child_index(nd, r, c);

	if (i < 0)
		return;
	/* keep acceptance order: it is the paper's send order ([choice 9]) */
	memmove(nd->child[r] + i, nd->child[r] + i + 1,
		sizeof(int) * (nd->nchild[r] - i - 1));
	nd->nchild[r]--;
}

/* (la, a) < (lb, b): criterion (3) with ties broken by index ([choice 3]). */
static int closer(uint32_t la, int a, uint32_t lb, int b)
{
	return la < lb || (la == lb && a < b);
}

/* [choice 8] leave tree r and tell the children ("tree lost", serial 0). */
static int lose(struct phx_node *nd, int r)
{
	for (int i = 0; i < nd->nchild[r]; i++) {
		int ret = out_item(nd, PHX_SERIAL, nd->child[r][i], (uint32_t)r, 0, PHX_LAT_INF);

		if (ret < 0)
			return ret;
	}
	nd->nchild[r] = 0;
	nd->parent[r] = -1;
	if (nd->serial[r] > nd->lost_serial[r])
		nd->lost_serial[r] = nd->serial[r];
	nd->serial[r] = 0;
	nd->held_serial[r] = 0;
	nd->lat[r] = PHX_LAT_INF;
	nd->st.lost++;
	return 0;
}

static int send_join(struct phx_node *nd, int r, int c, int shortcut)
{
	int conn = phx_node_connected(nd, r);

	nd->pending[r] = c;
	nd->pending_sc[r] = (uint8_t)shortcut;
	nd->pending_round[r] = nd->round;
	/* not connected: latency INF, and the serial we lost the tree at */
	return out_item(nd, PHX_JOIN, c, (uint32_t)r, conn ? nd->serial[r] : nd->lost_serial[r],
			conn ? nd->lat[r] : PHX_LAT_INF);
}

/*
 * Is candidate c, which advertises (serial sc, latency lc) for tree r, more
 * suitable than our parent?  Fig. 1 and Fig. 3, with [choices 3, 4, 6, 7].
 */
static int judge(struct phx_node *nd, int r, int c, uint32_t sc, uint32_t lc)
{
	uint32_t d = nd->est[c], pc, lp, margin;
	int p = nd->parent[r];

	if (r == nd->self || c == nd->self || nd->pending[r] >= 0 || c == p)
		return 0;
	if (sc == 0 || lc == PHX_LAT_INF)                      /* (1) */
		return 0;
	if (d == PHX_LAT_INF)                                   /* not measured yet */
		return 0;
	pc = lat_add(lc, d);
	if (pc < nd->pmin[r])
		nd->pmin[r] = pc;
	if (p < 0)                                 /* [choice 7]: at the next tick */
		return 0;
	if (nd->p.use_serial) {
		if (sc != nd->serial[r])                        /* (4) */
			return 0;
		if (nd->sw_serial[r] == nd->serial[r])          /* [choice 4] */
			return 0;
	}
	/* Fig. 3: shorten latency(n, r) by more than the threshold. */
	if (nd->p.use_shortcut && (uint64_t)pc + ns_of(nd->p.shortcut_s) < nd->lat[r])
		return send_join(nd, r, c, 1);
	lp = nd->est[p];
	if (lp == PHX_LAT_INF)
		return 0;
	margin = ns_of(nd->p.margin_abs_s + nd->p.margin_rel * lp * 1e-9);
	if (!((uint64_t)d + margin < lp))                       /* (2) */
		return 0;
	if (!closer(lc, c, nd->lat[r], nd->self))               /* (3) */
		return 0;
	/* [choice 6] the shortcut would undo this switch: it lengthens our
	 * path, to more than the threshold over the best known one.  A band
	 * of a fifth of the threshold on both tests is hysteresis against
	 * measurement noise. */
	if (nd->p.use_shortcut) {
		uint32_t best = nd->pmin[r] < nd->lat[r] ? nd->pmin[r] : nd->lat[r];
		uint32_t band = ns_of(nd->p.shortcut_s / 5);

		if ((uint64_t)pc > (uint64_t)nd->lat[r] + band &&
		    (uint64_t)pc + band > (uint64_t)best + ns_of(nd->p.shortcut_s))
			return 0;
	}
	return send_join(nd, r, c, 0);
}

/* Peer c's state for the trees of items[]: store, then judge it. */
static int learn(struct phx_node *nd, int c, const struct phx_msg *m)
{
	for (int i = 0; i < m->nitems; i++) {
		const struct phx_item *it = &m->item[i];
		int ret;

		if (it->root >= (uint32_t)nd->n)
			continue;
		nd->peer_serial[(size_t)c * nd->n + it->root] = it->serial;
		nd->peer_lat[(size_t)c * nd->n + it->root] = it->lat;
		ret = judge(nd, (int)it->root, c, it->serial, it->lat);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * Our serial for tree r has just caught up: candidates whose state arrived
 * with this serial before we had it are judged now.  Without this, a node
 * far from the root whose rounds start just after the root's would always
 * hear its near candidates one serial ahead of itself, and criterion (4)
 * would never let it reach them.
 */
static int rejudge(struct phx_node *nd, int r)
{
	for (int c = 0; c < nd->n && nd->pending[r] < 0; c++) {
		size_t k = (size_t)c * nd->n + r;
		int ret;

		if (c == nd->self || nd->peer_serial[k] != nd->serial[r])
			continue;
		if ((ret = judge(nd, r, c, nd->peer_serial[k], nd->peer_lat[k])) < 0)
			return ret;
	}
	return 0;
}

/* A new serial from our parent: adopt it, forward it, judge again. */
static int apply_serial(struct phx_node *nd, int r, uint32_t serial, uint32_t plat)
{
	int ret = 0;

	nd->serial[r] = serial;
	nd->lat[r] = lat_add(plat, nd->est[nd->parent[r]]);
	nd->heard_round[r] = nd->round;
	/* s3.1: forward "along with updated latency information" */
	for (int k = 0; k < nd->nchild[r] && ret == 0; k++)
		ret = out_item(nd, PHX_SERIAL, nd->child[r][k], (uint32_t)r, nd->serial[r],
			       nd->lat[r]);
	if (ret == 0)
		ret = rejudge(nd, r);
	return ret;
}

/* The JOIN for tree r is answered or given up: release a held serial. */
static int end_pending(struct phx_node *nd, int r, int switched)
{
	uint32_t s = nd->held_serial[r];

	nd->pending[r] = -1;
	nd->held_serial[r] = 0;
	/* after a switch the held serial came from the parent we left */
	if (switched || !s || s <= nd->serial[r] || nd->parent[r] < 0)
		return 0;
	return apply_serial(nd, r, s, nd->held_lat[r]);
}

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

int phx_node_probe(struct phx_node *nd, int c, uint64_t now)
{
	if (c < 0 || c >= nd->n || c == nd->self)
		return 0;
	return out_state(nd, PHX_PROBE, c, now, 0);
}

int phx_node_tick(struct phx_node *nd, uint64_t now)
{
	int n = nd->n, self = nd->self, ret;

	nd->ev_start = nd->nout;
	nd->round++;

	/* s3.1: "each node occasionally broadcasts a serial number down the
	 * spanning tree for which it is a root" - here, every serial_every
	 * rounds. */
	if ((nd->round - 1) % (uint32_t)nd->p.serial_every == 0 &&
	    tree_lo(nd) <= self && self < tree_hi(nd)) {
		nd->serial[self]++;
		for (int i = 0; i < nd->nchild[self]; i++) {
			ret = out_item(nd, PHX_SERIAL, nd->child[self][i], (uint32_t)self,
				       nd->serial[self], 0);
			if (ret < 0)
				return ret;
		}
	}

	for (int r = tree_lo(nd); r < tree_hi(nd); r++) {
		if (r == self)
			continue;
		if (nd->pending[r] >= 0 &&
		    nd->round - nd->pending_round[r] > (uint32_t)nd->p.join_timeout &&
		    (ret = end_pending(nd, r, 0)) < 0)
			return ret;
		if (nd->parent[r] >= 0 &&
		    nd->round - nd->heard_round[r] >
			    (uint32_t)nd->p.parent_timeout * (uint32_t)nd->p.serial_every &&
		    (ret = lose(nd, r)) < 0)
			return ret;
	}

	/* [choice 6] refresh the best known path per tree; [choice 7] a tree
	 * we are not connected to is joined through that best path. */
	for (int r = 0; r < n; r++) {
		nd->pmin[r] = PHX_LAT_INF;
		nd->best[r] = -1;
	}
	for (int c = 0; c < n; c++) {
		const uint32_t *ps = nd->peer_serial + (size_t)c * n;
		const uint32_t *pl = nd->peer_lat + (size_t)c * n;

		if (c == self || nd->est[c] == PHX_LAT_INF)
			continue;
		for (int r = tree_lo(nd); r < tree_hi(nd); r++) {
			uint32_t pc;

			if (!ps[r] || pl[r] == PHX_LAT_INF)
				continue;
			pc = lat_add(pl[r], nd->est[c]);
			if (pc < nd->pmin[r])
				nd->pmin[r] = pc;
		}
	}
	for (int r = tree_lo(nd); r < tree_hi(nd); r++) {
		uint32_t bp = PHX_LAT_INF;

		if (r == self || nd->parent[r] >= 0 || nd->pending[r] >= 0)
			continue;
		for (int c = 0; c < n; c++) {
			size_t k = (size_t)c * n + r;
			uint32_t pc;

			if (c == self || nd->est[c] == PHX_LAT_INF || !nd->peer_serial[k] ||
			    (nd->p.use_serial && nd->peer_serial[k] <= nd->lost_serial[r]))
				continue;
			pc = lat_add(nd->peer_lat[k], nd->est[c]);
			if (pc < bp) {
				bp = pc;
				nd->best[r] = c;
			}
		}
		if (nd->best[r] >= 0 && (ret = send_join(nd, r, nd->best[r], 0)) < 0)
			return ret;
	}

	/* [choice 2] probe the next `fanout` peers of the permutation. */
	for (int k = 0; k < nd->p.fanout && k < n - 1; k++) {
		ret = phx_node_probe(nd, nd->perm[nd->perm_pos], now);
		if (ret < 0)
			return ret;
		nd->perm_pos = (nd->perm_pos + 1) % (n - 1);
	}
	return 0;
}

static int on_serial(struct phx_node *nd, int src, const struct phx_msg *m)
{
	for (int i = 0; i < m->nitems; i++) {
		const struct phx_item *it = &m->item[i];
		int r = (int)it->root, ret = 0;

		if (r >= nd->n || r == nd->self)
			continue;
		if (nd->parent[r] != src) {
			/* a parent we left still counts us: correct it (unless it
			 * is the one we are joining, its ACCEPT overtaken) */
			if (nd->pending[r] != src)
				ret = out_item(nd, PHX_LEAVE, src, (uint32_t)r, 0, 0);
		} else if (it->serial == 0) {
			ret = lose(nd, r);                      /* [choice 8] */
		} else if (it->serial > nd->serial[r] && nd->pending[r] >= 0) {
			/* [choice 5] stay at the serial our JOIN was made at */
			if (it->serial > nd->held_serial[r]) {
				nd->held_serial[r] = it->serial;
				nd->held_lat[r] = it->lat;
			}
			nd->heard_round[r] = nd->round;
		} else if (it->serial > nd->serial[r]) {
			ret = apply_serial(nd, r, it->serial, it->lat);
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* [choice 5] the candidate's side of the handshake, on its current state. */
static int on_join(struct phx_node *nd, int src, const struct phx_msg *m)
{
	for (int i = 0; i < m->nitems; i++) {
		const struct phx_item *it = &m->item[i];
		int r = (int)it->root, ok, ret;

		if (r >= nd->n)
			continue;
		if (r == nd->self) {
			ok = 1;
		} else {
			/* a joiner that is not connected must not take one of
			 * its former descendants, which hold at most the serial
			 * it lost the tree at ([choice 8]) */
			int fresh = it->lat == PHX_LAT_INF ? nd->serial[r] > it->serial
							   : it->serial == nd->serial[r];

			ok = phx_node_connected(nd, r) && nd->pending[r] < 0 &&
			     nd->parent[r] != src && (!nd->p.use_serial || fresh) &&
			     closer(nd->lat[r], nd->self, it->lat, src);
		}
		if (ok) {
			if ((ret = child_add(nd, r, src)) < 0)
				return ret;
			ret = out_item(nd, PHX_ACCEPT, src, (uint32_t)r, nd->serial[r],
				       nd->lat[r]);
		} else {
			/* with our current state: the joiner retries when its
			 * serial catches up with ours (rejudge()) */
			int conn = phx_node_connected(nd, r);

			nd->st.rejected++;
			ret = out_item(nd, PHX_REJECT, src, (uint32_t)r, conn ? nd->serial[r] : 0,
				       conn ? nd->lat[r] : PHX_LAT_INF);
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int on_accept(struct phx_node *nd, int src, const struct phx_msg *m, uint64_t now)
{
	for (int i = 0; i < m->nitems; i++) {
		const struct phx_item *it = &m->item[i];
		int r = (int)it->root, old, ret = 0;

		if (r >= nd->n || r == nd->self)
			continue;
		if (nd->pending[r] != src) {
			/* we gave up on this JOIN: do not stay its child */
			if (nd->parent[r] != src)
				ret = out_item(nd, PHX_LEAVE, src, (uint32_t)r, 0, 0);
			if (ret < 0)
				return ret;
			continue;
		}
		if (nd->p.use_serial && phx_node_connected(nd, r) &&
		    it->serial != nd->serial[r]) {
			/* our serial moved on meanwhile (only a lost tree can do
			 * that, [choice 5]): the decision is stale */
			if ((ret = out_item(nd, PHX_LEAVE, src, (uint32_t)r, 0, 0)) < 0 ||
			    (ret = end_pending(nd, r, 0)) < 0)
				return ret;
			continue;
		}
		end_pending(nd, r, 1);
		old = nd->parent[r];
		nd->parent[r] = src;
		nd->serial[r] = it->serial;
		nd->lat[r] = lat_add(it->lat, nd->est[src]);
		nd->sw_serial[r] = it->serial;
		nd->heard_round[r] = nd->round;
		nd->st.changes++;
		nd->st.shortcuts += nd->pending_sc[r];
		nd->st.last_change = now;
		if (old >= 0 && old != src)
			ret = out_item(nd, PHX_LEAVE, old, (uint32_t)r, 0, 0);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int phx_node_recv(struct phx_node *nd, const struct phx_msg *m, uint64_t now)
{
	int src = m->src, ret;

	nd->ev_start = nd->nout;
	if (m->dst != nd->self || src >= nd->n || src == nd->self)
		return 0;
	switch (m->type) {
	case PHX_PROBE:
		return out_state(nd, PHX_PROBE_ACK, src, m->stamp, now);
	case PHX_PROBE_ACK:
		/* [choice 1] RTT/2, less the time the answer was held */
		if (nd->p.measure && now >= m->stamp + m->hold) {
			uint64_t half = (now - m->stamp - m->hold) / 2;

			add_sample(nd, src, half >= PHX_LAT_INF ? PHX_LAT_INF - 1 : (uint32_t)half);
		}
		return learn(nd, src, m);
	case PHX_STATE:
		return learn(nd, src, m);
	case PHX_SERIAL:
		return on_serial(nd, src, m);
	case PHX_JOIN:
		return on_join(nd, src, m);
	case PHX_ACCEPT:
		return on_accept(nd, src, m, now);
	case PHX_REJECT:
		for (int i = 0; i < m->nitems; i++) {
			uint32_t r = m->item[i].root;
			size_t k = (size_t)src * nd->n + r;

			if (r >= (uint32_t)nd->n)
				continue;
			/* fresh state of the candidate, judged again by rejudge() */
			nd->peer_serial[k] = m->item[i].serial;
			nd->peer_lat[k] = m->item[i].lat;
			if (nd->pending[r] == src && (ret = end_pending(nd, (int)r, 0)) < 0)
				return ret;
		}
		return 0;
	case PHX_LEAVE:
		for (int i = 0; i < m->nitems; i++)
			if (m->item[i].root < (uint32_t)nd->n)
				child_del(nd, (int)m->item[i].root, src);
		return 0;
	default:
		return 0;
	}
}
