/* SPDX-License-Identifier: MIT */
/*
 * cost_contention.c - the contention cost model (ours; cost.c has the
 * others and the registry): a flow-level simulation of a tree over the
 * routed links, flows sharing a link in inverse proportion to their round
 * trips (weighted max-min, maxmin()).  NAN for an invalid tree or when
 * memory runs out, like the other models.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbio.h"
#include "cost_priv.h"

/* ------------------------------------------------------------------ */
/* Contention                                                          */
/* ------------------------------------------------------------------ */

/*
 * gb_cost_contention() - flow-level simulation.
 *
 * Every tree edge u -> v is a transfer.  When u is ready to send to v (it
 * has the message and its previous send is over, one-port as in the
 * mateescu model) it spends o(u), then a flow of m bytes enters the
 * network.  While flows are active, each gets its RTT-weighted max-min
 * share (progressive filling, maxmin()) of every link on its path, and
 * never more than the pair's own bandwidth B(u,v).  When u's flow has
 * drained, u moves on to its next child and v has the message L(u,v) later.
 *
 *	alone on its path, a flow runs at B(u,v) and takes m/B(u,v), so u is
 *	busy o(u) + m/B(u,v) = Delta(u,v) and v is ready Delta + L after the
 *	send began: exactly the mateescu model.  Sharing only slows flows down.
 *
 * Which links?  With routed paths (a model from a topology), the directed
 * topology links and their rates.  A matrix file has no paths, so we infer
 * the hierarchy the nodes' cluster and site names describe:
 *
 *	u -> [cluster up of C(u)] -> [site up of S(u)] -> [site down of S(v)]
 *	  -> [cluster down of C(v)] -> v
 *
 * (site links only between sites, cluster links only between clusters),
 * each with the largest bandwidth measured across it: gridmon measures one
 * pair at a time, so a pair's figure is what the shared pipe gives a single
 * flow.  Each host's NIC is a link too, each way, with the largest
 * bandwidth measured from (to) the host: in the one-port schedule nothing
 * shares it (one send at a time, one parent), in the segmented schedule a
 * node's concurrent sends do.  Without cluster information the only shared
 * links are the NICs, and the one-port simulation equals mateescu.
 */
struct flow {
	int u, v;
	double rem;    /* bytes left */
	double rate;   /* B/s, may be INFINITY */
	double cap;    /* B(u,v) */
	double w;      /* sharing weight, flow_weight() */
	const int *path;
	int plen;
	int inf[6];    /* inferred path storage */
	int frozen;    /* maxmin(): its rate is settled */
};

struct csim {
	const struct gb_netmodel *m;
	double *linkcap;   /* 0 = unlimited */
	int nlinks;
	double *resid;
	double *wsum;  /* per link: the weights of the unfrozen flows on it */
	int *nuse;     /* per link: the active flows on it (maxmin()'s lone test) */
	double *capbuf;    /* the inferred capacities (no routed paths) */
};

static void infer_links(struct csim *s)
{
	const struct gb_netmodel *m = s->m;
	double *capbuf = s->capbuf;
	int n = m->n, nc = m->nclusters, ns = m->nsites;
	int hb = 2 * nc + 2 * ns;  /* host NICs: up hb + i, down hb + n + i */

	for (int l = 0; l < s->nlinks; l++)
		capbuf[l] = 0;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			int ci = m->nodes[i].cluster, cj = m->nodes[j].cluster;
			int si = m->nodes[i].site, sj = m->nodes[j].site;
			double b = m->bw[(size_t)i * n + j];

			if (i == j)
				continue;
			if (!isinf(capbuf[hb + i]) && b > capbuf[hb + i])
				capbuf[hb + i] = b;
			if (!isinf(capbuf[hb + n + j]) && b > capbuf[hb + n + j])
				capbuf[hb + n + j] = b;
			if (ci == cj)
				continue;
			/* INFINITY marks a link as unlimited for good. */
			if (!isinf(capbuf[ci]) && b > capbuf[ci])
				capbuf[ci] = b;
			if (!isinf(capbuf[nc + cj]) && b > capbuf[nc + cj])
				capbuf[nc + cj] = b;
			if (si != sj) {
				if (b > capbuf[2 * nc + si])
					capbuf[2 * nc + si] = b;
				if (b > capbuf[2 * nc + ns + sj])
					capbuf[2 * nc + ns + sj] = b;
			}
		}
	}
	for (int l = 0; l < s->nlinks; l++)
		if (isinf(capbuf[l]))
			capbuf[l] = 0;
}

static void flow_path(const struct csim *s, struct flow *f)
{
	const struct gb_netmodel *m = s->m;
	int n = m->n, nc = m->nclusters, ns = m->nsites;
	int ci = m->nodes[f->u].cluster, cj = m->nodes[f->v].cluster;
	int si = m->nodes[f->u].site, sj = m->nodes[f->v].site;

	if (m->path) {
		f->path = m->path[(size_t)f->u * n + f->v];
		f->plen = m->pathlen[(size_t)f->u * n + f->v];
		return;
	}
	f->plen = 0;
	f->inf[f->plen++] = 2 * nc + 2 * ns + f->u;
	if (ci != cj) {
		f->inf[f->plen++] = ci;
		if (si != sj) {
			f->inf[f->plen++] = 2 * nc + si;
			f->inf[f->plen++] = 2 * nc + ns + sj;
		}
		f->inf[f->plen++] = nc + cj;
	}
	f->inf[f->plen++] = 2 * nc + 2 * ns + n + f->v;
	f->path = f->inf;
}

/* @s's links over @m: routed, or inferred (infer_links()); 0 or -ENOMEM. */
static int csim_init(struct csim *s, const struct gb_netmodel *m)
{
	memset(s, 0, sizeof(*s));
	s->m = m;
	s->nlinks = m->path ? m->ndirlinks : 2 * m->nclusters + 2 * m->nsites + 2 * m->n;
	s->resid = calloc(s->nlinks + 1, sizeof(double));
	s->nuse = calloc(s->nlinks + 1, sizeof(int));
	s->wsum = calloc(s->nlinks + 1, sizeof(double));
	if (!m->path)
		s->capbuf = calloc(s->nlinks + 1, sizeof(double));
	if (!s->resid || !s->nuse || !s->wsum || (!m->path && !s->capbuf))
		return -ENOMEM;
	if (m->path) {
		s->linkcap = m->linkcap;
	} else {
		s->linkcap = s->capbuf;
		infer_links(s);
	}
	return 0;
}

static void csim_free(struct csim *s)
{
	free(s->resid);
	free(s->nuse);
	free(s->wsum);
	free(s->capbuf);
}

/* have[v * S + j]: when v has segment j; -1 until known, 0 at the root. */
static void have_init(double *have, int n, long S, int root)
{
	for (size_t i = 0; i < (size_t)n * (size_t)S; i++)
		have[i] = -1;
	for (long j = 0; j < S; j++)
		have[(size_t)root * S + j] = 0;
}

/* When each node has all its segments (the last to arrive), into @arrival
 * (optional).  Return: the latest, or -1 if a node missed one (not a tree). */
static double have_all(const double *have, int n, long S, double *arrival)
{
	double last = 0;

	for (int i = 0; i < n; i++) {
		double h = 0;

		for (long j = 0; j < S; j++) {
			if (have[(size_t)i * S + j] < 0)
				return -1;
			h = fmax(h, have[(size_t)i * S + j]);
		}
		if (arrival)
			arrival[i] = h;
		last = fmax(last, h);
	}
	return last;
}

/*
 * Rates by weighted progressive filling, with per-flow caps: every flow
 * not yet frozen runs at w x level; the level rises until a flow reaches
 * its cap or a link it crosses is full, which freezes it.  The weight is
 * 1 / RTT(u, v): TCP flows that share a bottleneck (and so its losses)
 * get rates inversely proportional to their round trips (Mathis et al.,
 * "The macroscopic behavior of the TCP congestion avoidance algorithm",
 * 1997), which is how flow-level grid simulators share links (SimGrid's
 * RTT-weighted max-min; GridSim's INV-RTT flows).  A short local flow
 * beside a wide-area one on a host's NIC takes nearly all of it, which is
 * what the pipelined teragrid broadcast showed (docs/measurements.md,
 * issue 14, session 12).  Equal round trips: plain max-min fairness.
 */
static void maxmin(struct csim *s, struct flow **act, int na)
{
	double lvl = 0;
	int left = na;

	for (int k = 0; k < na; k++) {
		struct flow *f = act[k];

		f->frozen = 0;
		for (int h = 0; h < f->plen; h++) {
			int l = f->path[h];

			s->resid[l] = s->linkcap[l];
			s->nuse[l] = 0;
			s->wsum[l] = 0;
		}
	}
	for (int k = 0; k < na; k++)
		for (int h = 0; h < act[k]->plen; h++) {
			s->nuse[act[k]->path[h]]++;
			s->wsum[act[k]->path[h]] += act[k]->w;
		}
	/* A flow that shares no limited link with another one is alone: its
	 * rate is its own bottleneck.  Settling those first keeps the filling
	 * loop (one round per distinct level) to the flows that compete. */
	for (int k = 0; k < na; k++) {
		struct flow *f = act[k];
		double r = f->cap;
		int alone = 1;

		for (int h = 0; h < f->plen && alone; h++) {
			int l = f->path[h];

			if (s->linkcap[l] > 0) {
				alone = s->nuse[l] == 1;
				r = fmin(r, s->linkcap[l]);
			}
		}
		if (!alone)
			continue;
		f->rate = r;
		f->frozen = 1;
		left--;
		for (int h = 0; h < f->plen; h++)
			s->wsum[f->path[h]] -= f->w;
	}
	while (left > 0) {
		double delta = INFINITY;

		for (int k = 0; k < na; k++) {
			struct flow *f = act[k];

			if (f->frozen)
				continue;
			if (f->cap / f->w - lvl < delta)
				delta = f->cap / f->w - lvl;
			for (int h = 0; h < f->plen; h++) {
				int l = f->path[h];

				if (s->linkcap[l] > 0 && s->resid[l] / s->wsum[l] < delta)
					delta = s->resid[l] / s->wsum[l];
			}
		}
		if (isinf(delta)) { /* nothing limits the remaining flows */
			for (int k = 0; k < na; k++)
				if (!act[k]->frozen)
					act[k]->rate = INFINITY;
			return;
		}
		if (delta < 0)
			delta = 0;
		lvl += delta;
		/* Charge the increment to every link that unfrozen flows use. */
		for (int k = 0; k < na; k++) {
			struct flow *f = act[k];

			if (f->frozen)
				continue;
			for (int h = 0; h < f->plen; h++)
				if (s->linkcap[f->path[h]] > 0)
					s->resid[f->path[h]] -= delta * f->w;
		}
		/* Freeze flows at their cap or on a saturated link. */
		for (int k = 0; k < na; k++) {
			struct flow *f = act[k];
			double r = f->w * lvl;
			int sat = isfinite(f->cap) && f->cap - r <= 1e-12 * f->cap;

			if (f->frozen)
				continue;
			for (int h = 0; h < f->plen && !sat; h++) {
				int l = f->path[h];

				sat = s->linkcap[l] > 0 && s->resid[l] <= 1e-12 * s->linkcap[l];
			}
			if (!sat)
				continue;
			/* Snap to the cap so that a lone flow runs at exactly B. */
			f->rate = isfinite(f->cap) && fabs(f->cap - r) <= 1e-12 * f->cap ? f->cap : r;
			f->frozen = 1;
			left--;
			/* out of the sums; this pass reads resid only */
			for (int h = 0; h < f->plen; h++)
				s->wsum[f->path[h]] -= f->w;
		}
	}
}

/* The weight of u's flow to v in maxmin(): 1 / RTT, the round trip taken
 * as at least 1 us (a model with zero latencies shares equally). */
static double flow_weight(const struct gb_netmodel *m, int u, int v)
{
	int n = m->n;

	return 1.0 / fmax(m->lat[(size_t)u * n + v] + m->lat[(size_t)v * n + u], 1e-6);
}

/*
 * The simulations' clock: rates for the active flows (when they changed),
 * then the next event, the earliest of a flow draining and @next_start (a
 * pending start; INFINITY for none).  Every active flow is drained up to
 * it.  Returns the new time, or INFINITY when a flow can never drain
 * (bandwidth 0) and nothing else is due.
 */
static double advance(struct csim *s, struct flow **act, int na, int *dirty, double now,
		      double next_start)
{
	double tn = next_start;

	if (*dirty) {
		maxmin(s, act, na);
		*dirty = 0;
	}
	for (int k = 0; k < na; k++) {
		double te = isinf(act[k]->rate) ? now : now + act[k]->rem / act[k]->rate;

		if (te < tn)
			tn = te;
	}
	if (isinf(tn))
		return tn;
	/*
	 * A flow whose own drain time is the event (or rounds to it) is
	 * drained exactly, not by rate * (tn - now): the clock is a double, so
	 * tn - now carries an error of up to one unit in the last place of
	 * now, and at a large rate that error is bytes.  Subtracting would
	 * leave a residue above the finishing threshold whose drain time,
	 * now + rem / rate, rounds back to now (at 1e15 B/s a few bytes take
	 * 1e-15 s, below the clock's resolution at 0.03 s): the clock would
	 * never move again.  Draining the event's flows makes every call
	 * finish at least one flow or reach the pending start, so the
	 * simulation ends for any bandwidth.
	 */
	for (int k = 0; k < na; k++) {
		struct flow *f = act[k];

		if (isinf(f->rate) || now + f->rem / f->rate <= tn)
			f->rem = 0;
		else
			f->rem -= f->rate * (tn - now);
	}
	return tn;
}

/* u's flow of @bytes to v enters the network. */
static void flow_begin(const struct csim *s, struct flow *f, int u, int v, double bytes)
{
	const struct gb_netmodel *m = s->m;

	f->u = u;
	f->v = v;
	f->rem = bytes;
	f->cap = m->bw[(size_t)u * m->n + v];
	f->w = flow_weight(m, u, v);
	f->rate = 0;
	flow_path(s, f);
}

/* A binary min-heap of pending flow starts, ordered by (time, seq). */
struct pend {
	double t;
	long seq;
	int u, v;
};

static void heap_push(struct pend *h, int *nh, struct pend x)
{
	int i = (*nh)++;

	while (i > 0) {
		int p = (i - 1) / 2;

		if (h[p].t < x.t || (h[p].t == x.t && h[p].seq < x.seq))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

static struct pend heap_pop(struct pend *h, int *nh)
{
	struct pend top = h[0], x = h[--(*nh)];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= *nh)
			break;
		if (c + 1 < *nh &&
		    (h[c + 1].t < h[c].t || (h[c + 1].t == h[c].t && h[c + 1].seq < h[c].seq)))
			c++;
		if (x.t < h[c].t || (x.t == h[c].t && x.seq < h[c].seq))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
	return top;
}

/* u is free from @when: its next send, if any, enters the heap o(u) after
 * @when (u has the message by then). */
static void start_next(const struct gb_netmodel *m, const struct gb_tree *t, int *next,
		       struct pend *heap, int *nh, long *seq, int u, double when)
{
	if (next[u] < t->nchild[u]) {
		struct pend p = { when + m->o[u], (*seq)++, u, t->child[t->cstart[u] + next[u]] };

		next[u]++;
		heap_push(heap, nh, p);
	}
}

/*
 * The one-port simulation of the whole message: libgridbcast's blocking
 * schedule.  u sends to its children in send order, each send a flow that
 * starts o(u) after u's previous one drained (after u has the message, for
 * the first); v has the message L(u, v) after its flow drained.  u sends
 * one flow at a time and v has one parent, so a node has at most one flow
 * in and one start pending.  Segments go as contention_pipe() below says.
 */
static double contention_sim(const struct gb_netmodel *m, const struct gb_tree *t, double size,
			     double *arrival)
{
	struct csim s;
	struct flow *fl = NULL, **act = NULL;
	struct pend *heap = NULL;
	int *next = NULL, *q = NULL, n = t->n, nh = 0, na = 0, dirty = 0;
	double *have = NULL, now = 0, best = 0;
	long seq = 0;

	memset(&s, 0, sizeof(s));
	if (!m || n != m->n || n < 1 || !(size >= 0))
		return NAN;
	fl = calloc(n, sizeof(*fl));
	act = calloc(n, sizeof(*act));
	heap = calloc(n, sizeof(*heap));
	next = calloc(n, sizeof(int));
	q = malloc(sizeof(int) * n);
	have = malloc(sizeof(double) * n);
	if (!fl || !act || !heap || !next || !q || !have || csim_init(&s, m) < 0) {
		best = NAN;
		goto cleanup;
	}
	if (!gb_cost_tree_order_ok(t, q, next)) {
		best = NAN;
		goto cleanup;
	}
	memset(next, 0, sizeof(int) * n);
	have_init(have, n, 1, t->root);

	start_next(m, t, next, heap, &nh, &seq, t->root, 0.0);
	while (nh > 0 || na > 0) {
		now = advance(&s, act, na, &dirty, now, nh > 0 ? heap[0].t : INFINITY);
		if (isinf(now)) { /* a flow that can never drain (bandwidth 0) */
			best = NAN;
			goto cleanup;
		}
		/* Finished flows (to within rounding), in a stable order. */
		for (int k = 0; k < na;) {
			struct flow *f = act[k];

			if (f->rem > 1e-12 * size + 1e-9) {
				k++;
				continue;
			}
			if (have[f->v] >= 0) { /* reached twice: not a tree */
				best = NAN;
				goto cleanup;
			}
			have[f->v] = now + m->lat[(size_t)f->u * n + f->v];
			if (have[f->v] > best)
				best = have[f->v];
			start_next(m, t, next, heap, &nh, &seq, f->u, now);
			start_next(m, t, next, heap, &nh, &seq, f->v, have[f->v]);
			memmove(&act[k], &act[k + 1], sizeof(*act) * (na - k - 1));
			na--;
			dirty = 1;
		}
		/* Flows whose overhead is over enter the network. */
		while (nh > 0 && heap[0].t <= now) {
			struct pend p = heap_pop(heap, &nh);

			flow_begin(&s, &fl[p.v], p.u, p.v, size);
			act[na++] = &fl[p.v];
			dirty = 1;
		}
	}
	if (have_all(have, n, 1, arrival) < 0)
		best = NAN;
cleanup:
	free(fl);
	free(act);
	free(heap);
	free(next);
	free(q);
	free(have);
	csim_free(&s);
	return best;
}

double gb_cost_contention(const struct gb_netmodel *m, const struct gb_tree *t, double size,
			  double *arrival)
{
	return contention_sim(m, t, size, arrival);
}

/*
 * The segmented schedule as libgridbcast runs it (bcast_pipe.c), which is
 * not one-port: a node posts segment j's sends to all its children at once
 * and keeps up to GB_PIPE_WINDOW segments' sends in flight.  Each edge
 * u -> v is one connection, so its segments follow each other (one flow
 * per edge at a time, segment by segment); the edges of one node run
 * concurrently and share its NIC and whatever else their paths share:
 *
 *	edge u -> v may start segment j when
 *	    u has segment j,
 *	    the edge has sent segment j - 1, and
 *	    every edge of u has sent segment j - W (the window's slot is free);
 *	it enters the network o(u) later and v has segment j L(u, v) after
 *	the flow drained
 *
 * A chain (one child per node) is the one-port schedule: this equals
 * gb_cost_mateescu_seg() where nothing is shared.  Choices:
 *  - o(u) delays each flow's start but does not serialise u's sends: it is
 *    the per-message cost, and the sends of one segment are posted back to
 *    back without waiting for each other;
 *  - a send is complete when its flow drained, the earliest the executor
 *    can see it (an eager send completes once the socket has taken it, so
 *    the window binds later in a real run, if at all).
 *
 * Striped (k trees, segment j down tree j mod k, gb_tree_stripe() of the
 * model's clusters, as the executor derives them): an edge is a (stripe,
 * child) pair and carries that stripe's segments, each as soon as u has it
 * (the executor forwards in arrival order), with no window (the executor
 * has none with stripes: bcast_pipe.c), but not before u has segment 0:
 * a receiver learns the segment size, and with a piggybacked tree its
 * stripes, from segment 0, which comes down stripe 0, and posts its other
 * receives after it (segments up to the eager limit still flow into it,
 * buffered by MPI, which this reading assumes: only forwarding waits).
 * With one stripe a node has its segments in order anyway, and this is
 * the schedule above.
 */
struct pipe {
	const struct gb_netmodel *m;
	const struct gb_tree *const *tv;  /* the k trees, all rooted at the same node */
	int k, n;
	long S;
	long *nxt;      /* per edge e = s*n + v: the next segment it carries (s, s+k, ...) */
	int *busy;      /* per edge: a flow running or a start pending */
	double *have;   /* [v*S + j]: when v has segment j, -1 until known */
	struct pend *heap;
	int nh;
	long seq;
};

/* Every edge of u in segment @i's stripe has sent it (the window's slot is free). */
static int slot_free(const struct pipe *P, int u, long i)
{
	int s = (int)(i % P->k);
	const struct gb_tree *t = P->tv[s];

	for (int c = 0; c < t->nchild[u]; c++)
		if (P->nxt[(size_t)s * P->n + t->child[t->cstart[u] + c]] <= i)
			return 0;
	return 1;
}

/* Start every edge of u that may start, at @when at the earliest. */
static void try_edges(struct pipe *P, int u, double when)
{
	for (int s = 0; s < P->k; s++) {
		const struct gb_tree *t = P->tv[s];

		for (int c = 0; c < t->nchild[u]; c++) {
			int v = t->child[t->cstart[u] + c];
			size_t e = (size_t)s * P->n + v;
			long j = P->nxt[e];

			const double *h = P->have + (size_t)u * P->S;

			/* segment 0 first: u learns the segment size from it */
			if (P->busy[e] || j >= P->S || h[j] < 0 || h[0] < 0 ||
			    (P->k == 1 && j >= GB_PIPE_WINDOW && !slot_free(P, u, j - GB_PIPE_WINDOW)))
				continue;
			P->busy[e] = 1;
			heap_push(P->heap, &P->nh,
				  (struct pend){ fmax(when, fmax(h[j], h[0])) + P->m->o[u],
						 P->seq++, u, (int)e });
		}
	}
}

static double contention_pipe(const struct gb_netmodel *m, const struct gb_tree *const *tv, int k,
			      double size, double seg, long S, double *arrival)
{
	struct csim s;
	struct pipe P = { .m = m, .tv = tv, .k = k, .n = tv[0]->n, .S = S };
	struct flow *fl = NULL, **act = NULL;
	int *q = NULL, *mark = NULL, n = tv[0]->n, na = 0, dirty = 0, ret = -ENOMEM;
	size_t ne = (size_t)k * (size_t)n;
	double now = 0, best = 0;

	memset(&s, 0, sizeof(s));
	fl = calloc(ne, sizeof(*fl));
	act = calloc(ne, sizeof(*act));
	P.heap = calloc(ne, sizeof(*P.heap));
	q = malloc(sizeof(int) * n);
	mark = calloc(n, sizeof(int));
	P.busy = calloc(ne, sizeof(int));
	P.nxt = calloc(ne, sizeof(long));
	P.have = malloc(sizeof(double) * (size_t)n * (size_t)S);
	if (!fl || !act || !P.heap || !q || !mark || !P.busy || !P.nxt || !P.have ||
	    csim_init(&s, m) < 0)
		goto cleanup;
	ret = -EINVAL;
	for (int i = 0; i < k; i++) {
		if (tv[i]->n != n || tv[i]->root != tv[0]->root ||
		    !gb_cost_tree_order_ok(tv[i], q, mark))
			goto cleanup;
		memset(mark, 0, sizeof(int) * n);
	}
	have_init(P.have, n, S, tv[0]->root);
	for (size_t e = 0; e < ne; e++)
		P.nxt[e] = (long)(e / (size_t)n);    /* stripe s carries s, s + k, ... */

	try_edges(&P, tv[0]->root, 0.0);
	while (P.nh > 0 || na > 0) {
		now = advance(&s, act, na, &dirty, now, P.nh > 0 ? P.heap[0].t : INFINITY);
		if (isinf(now)) /* a flow that can never drain (bandwidth 0) */
			goto cleanup;
		for (int i = 0; i < na;) {
			struct flow *f = act[i];
			size_t e = (size_t)(f - fl);
			long j = P.nxt[e];
			double h = now + m->lat[(size_t)f->u * n + f->v];

			if (f->rem > 1e-12 * size + 1e-9) {
				i++;
				continue;
			}
			P.have[(size_t)f->v * S + j] = h;
			P.nxt[e] = j + k;
			P.busy[e] = 0;
			memmove(&act[i], &act[i + 1], sizeof(*act) * (na - i - 1));
			na--;
			dirty = 1;
			try_edges(&P, f->u, now);
			try_edges(&P, f->v, h);
		}
		while (P.nh > 0 && P.heap[0].t <= now) {
			struct pend p = heap_pop(P.heap, &P.nh);
			long j = P.nxt[p.v];

			flow_begin(&s, &fl[p.v], p.u, p.v % n,
				   j < S - 1 ? seg : size - seg * (double)(S - 1));
			act[na++] = &fl[p.v];
			dirty = 1;
		}
	}
	best = have_all(P.have, n, S, arrival);
	ret = best < 0 ? -EINVAL : 0;
cleanup:
	free(fl);
	free(act);
	free(P.heap);
	free(q);
	free(mark);
	free(P.busy);
	free(P.nxt);
	free(P.have);
	csim_free(&s);
	return ret < 0 ? NAN : best;
}

double gb_cost_contention_seg(const struct gb_netmodel *m, const struct gb_tree *t, double size,
			      double seg, double *arrival)
{
	return gb_cost_contention_stripes(m, t, 1, size, seg, arrival);
}

double gb_cost_contention_stripes(const struct gb_netmodel *m, const struct gb_tree *t, int k,
				  double size, double seg, double *arrival)
{
	struct gb_tree st[GB_STRIPES_MAX];
	const struct gb_tree *tv[GB_STRIPES_MAX];
	int *group = NULL, made = 0;
	double cost = NAN;
	long S;

	if (!m || !t || t->n != m->n || t->n < 1 || !(size >= 0) || !(seg >= 0) || k < 1 ||
	    k > GB_STRIPES_MAX)
		return NAN;
	S = (seg <= 0 || seg >= size) ? 1 : (long)ceil(size / seg);
	if (S == 1)
		return contention_sim(m, t, size, arrival);  /* a whole message: one tree */
	if (S > GB_SEG_MAX_COUNT)
		return NAN;
	tv[0] = t;
	if (k > 1 && !(group = malloc(sizeof(int) * t->n)))
		return NAN;
	for (int v = 0; group && v < t->n; v++)
		group[v] = m->nodes[v].cluster;
	for (made = 1; made < k; made++) {
		if (gb_tree_stripe(t, group, made, &st[made]) < 0)
			goto cleanup;
		tv[made] = &st[made];
	}
	cost = contention_pipe(m, tv, k, size, seg, S, arrival);
cleanup:
	for (int i = 1; i < made; i++)
		gb_tree_release(&st[i]);
	free(group);
	return cost;
}
