// SPDX-License-Identifier: MIT
/*
 * topo_model.c - the topology model once parsed: lookups, addressing,
 * routing, paths and the default queue-limit rule.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gbtopo.h"
#include "topo_internal.h"

/* ---- small hash maps ------------------------------------------------- */

static uint32_t cap_for(size_t count)
{
	uint32_t cap = 16;

	while (cap < 2 * count + 1)
		cap *= 2;
	return cap;
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

static uint32_t hash_u64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (uint32_t)k;
}

int gb_strmap_init(struct gb_strmap *m, size_t count)
{
	m->cap = cap_for(count);
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		gb_strmap_release(m);
		return -ENOMEM;
	}
	return 0;
}

void gb_strmap_release(struct gb_strmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = 0;
}

int gb_strmap_get(const struct gb_strmap *m, const char *k)
{
	if (!m->cap)
		return -1;
	for (uint32_t i = hash_str(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i])
			return -1;
		if (strcmp(m->keys[i], k) == 0)
			return m->vals[i];
	}
}

int gb_strmap_add(struct gb_strmap *m, const char *k, int v)
{
	uint32_t i;

	for (i = hash_str(k) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (strcmp(m->keys[i], k) == 0)
			return m->vals[i];
	m->keys[i] = k;
	m->vals[i] = v;
	return -1;
}

static uint64_t pair_key(int a, int b)
{
	uint64_t lo = (uint64_t)(a < b ? a : b) + 1, hi = (uint64_t)(a < b ? b : a) + 1;

	return lo << 32 | hi;
}

int gb_pairmap_init(struct gb_pairmap *m, size_t count)
{
	m->cap = cap_for(count);
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		gb_pairmap_release(m);
		return -ENOMEM;
	}
	return 0;
}

void gb_pairmap_release(struct gb_pairmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = 0;
}

int gb_pairmap_get(const struct gb_pairmap *m, int a, int b)
{
	uint64_t k = pair_key(a, b);

	if (!m->cap)
		return -1;
	for (uint32_t i = hash_u64(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i])
			return -1;
		if (m->keys[i] == k)
			return m->vals[i];
	}
}

int gb_pairmap_add(struct gb_pairmap *m, int a, int b, int v)
{
	uint64_t k = pair_key(a, b);
	uint32_t i;

	for (i = hash_u64(k) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == k)
			return m->vals[i];
	m->keys[i] = k;
	m->vals[i] = v;
	return -1;
}

/* ---- lifetime and lookups --------------------------------------------- */

static void priv_free(struct gb_topo_priv *p)
{
	if (!p)
		return;
	gb_strmap_release(&p->nodes);
	gb_strmap_release(&p->links);
	gb_pairmap_release(&p->pairs);
	free(p->maxrtt);
	free(p);
}

void gb_topo_free(struct gb_topo *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->links);
	free(t->clusters);
	free(t->sites);
	free(t->next);
	priv_free(t->priv);
	free(t);
}

int gb_topo_index(struct gb_topo *t)
{
	struct gb_topo_priv *p = calloc(1, sizeof(*p));
	int ret = -ENOMEM;

	if (!p)
		return -ENOMEM;
	if (gb_strmap_init(&p->nodes, (size_t)t->nnodes) < 0 ||
	    gb_strmap_init(&p->links, (size_t)t->nlinks) < 0 ||
	    gb_pairmap_init(&p->pairs, (size_t)t->nlinks) < 0)
		goto cleanup;
	for (int i = 0; i < t->nnodes; i++)
		gb_strmap_add(&p->nodes, t->nodes[i].name, i);
	for (int l = 0; l < t->nlinks; l++) {
		gb_strmap_add(&p->links, t->links[l].name, l);
		gb_pairmap_add(&p->pairs, t->links[l].a, t->links[l].b, l);
	}
	priv_free(t->priv);
	t->priv = p;
	p = NULL;
	ret = 0;
cleanup:
	priv_free(p);
	return ret;
}

int gb_topo_find_node(const struct gb_topo *t, const char *name)
{
	const struct gb_topo_priv *p = t->priv;

	if (!name)
		return -1;
	if (p)
		return gb_strmap_get(&p->nodes, name);
	for (int i = 0; i < t->nnodes; i++)
		if (strcmp(t->nodes[i].name, name) == 0)
			return i;
	return -1;
}

static int link_between(const struct gb_topo *t, int a, int b)
{
	const struct gb_topo_priv *p = t->priv;

	if (p)
		return gb_pairmap_get(&p->pairs, a, b);
	for (int l = 0; l < t->nlinks; l++)
		if ((t->links[l].a == a && t->links[l].b == b) ||
		    (t->links[l].a == b && t->links[l].b == a))
			return l;
	return -1;
}

/*
 * A link is found by its name, or by "A-B" / "B-A" spelled with its
 * endpoints' names.  Node names may contain '-', so every '-' is tried as
 * the separator; the parser rejects topologies where this is ambiguous.
 */
int gb_topo_find_link(const struct gb_topo *t, const char *name)
{
	const struct gb_topo_priv *p = t->priv;
	char left[2 * GB_NAME_MAX + 2];
	size_t len;
	int l = -1;

	if (!name)
		return -1;
	if (p) {
		l = gb_strmap_get(&p->links, name);
	} else {
		for (int i = 0; i < t->nlinks && l < 0; i++)
			if (strcmp(t->links[i].name, name) == 0)
				l = i;
	}
	if (l >= 0)
		return l;
	len = strlen(name);
	if (len >= sizeof(left))
		return -1;
	for (const char *dash = strchr(name, '-'); dash; dash = strchr(dash + 1, '-')) {
		int a, b;

		memcpy(left, name, (size_t)(dash - name));
		left[dash - name] = '\0';
		a = gb_topo_find_node(t, left);
		b = a < 0 ? -1 : gb_topo_find_node(t, dash + 1);
		if (b >= 0 && (l = link_between(t, a, b)) >= 0)
			return l;
	}
	return -1;
}

int gb_topo_find_cluster(const struct gb_topo *t, const char *name)
{
	int n = gb_topo_find_node(t, name);

	if (n >= 0 && t->nodes[n].kind == GB_NODE_SWITCH)
		return t->nodes[n].cluster;
	for (int k = 0; n < 0 && k < t->nclusters; k++) /* hand-built topologies */
		if (name && strcmp(t->clusters[k].name, name) == 0)
			return k;
	return -1;
}

struct gb_linkdir *gb_topo_dir(struct gb_topo *t, int dl)
{
	if (dl < 0 || dl >= 2 * t->nlinks)
		return NULL;
	return (dl & 1) ? &t->links[dl >> 1].ba : &t->links[dl >> 1].ab;
}

static const struct gb_linkdir *cdir(const struct gb_topo *t, int dl)
{
	return (dl & 1) ? &t->links[dl >> 1].ba : &t->links[dl >> 1].ab;
}

int gb_topo_dir_out(const struct gb_topo *t, int l, int n)
{
	return 2 * l + (t->links[l].a == n ? 0 : 1);
}

int gb_topo_dir_from(const struct gb_topo *t, int dl)
{
	if (dl < 0 || dl >= 2 * t->nlinks)
		return -1;
	return (dl & 1) ? t->links[dl >> 1].b : t->links[dl >> 1].a;
}

int gb_topo_dir_to(const struct gb_topo *t, int dl)
{
	if (dl < 0 || dl >= 2 * t->nlinks)
		return -1;
	return (dl & 1) ? t->links[dl >> 1].a : t->links[dl >> 1].b;
}

/* ---- paths -------------------------------------------------------------- */

int gb_topo_path(const struct gb_topo *t, int src, int dst, int *out)
{
	int n = t->nnodes, hops = 0;

	if (!t->next || src < 0 || dst < 0 || src >= n || dst >= n)
		return -ENOENT;
	/* A routing table from gb_topo_route() has no loops; the hop bound
	 * only protects against a table someone else wrote. */
	for (int v = src; v != dst; hops++) {
		int dl = t->next[(size_t)v * (size_t)n + (size_t)dst];

		if (dl < 0 || dl >= 2 * t->nlinks || hops >= n)
			return -ENOENT;
		if (out)
			out[hops] = dl;
		v = gb_topo_dir_to(t, dl);
	}
	return hops;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int gb_topo_path_metrics(const struct gb_topo *t, int src, int dst,
			 uint64_t *delay_ns, uint64_t *rate_bps)
{
	int n = t->nnodes, hops = 0;
	uint64_t delay = 0, rate = 0;

	if (!t->next || src < 0 || dst < 0 || src >= n || dst >= n)
		return -ENOENT;
	for (int v = src; v != dst; hops++) {
		int dl = t->next[(size_t)v * (size_t)n + (size_t)dst];
		const struct gb_linkdir *d;

		if (dl < 0 || dl >= 2 * t->nlinks || hops >= n)
			return -ENOENT;
		d = cdir(t, dl);
		delay = sat_add(delay, d->delay_ns);
		if (d->rate_bps && (!rate || d->rate_bps < rate))
			rate = d->rate_bps;
		v = gb_topo_dir_to(t, dl);
	}
	if (delay_ns)
		*delay_ns = delay;
	if (rate_bps)
		*rate_bps = rate;
	return 0;
}

uint64_t gb_topo_egress_per_packet(const struct gb_topo *t, int host)
{
	for (int l = 0; host >= 0 && host < t->nhosts && l < t->nlinks; l++) {
		const struct gb_link *lk = &t->links[l];

		if (lk->a == host && t->nodes[lk->b].kind == GB_NODE_SWITCH)
			return lk->ab.per_packet_ns;
		if (lk->b == host && t->nodes[lk->a].kind == GB_NODE_SWITCH)
			return lk->ba.per_packet_ns;
	}
	return 0;
}

double gb_topo_dir_goodput(const struct gb_topo *t, const struct gb_linkdir *ld)
{
	double r = (double)ld->rate_bps / 8.0, mtu = t->mtu ? t->mtu : 1500;

	if (!ld->rate_bps || !ld->per_packet_ns)
		return r;
	return r * mtu / (mtu + (double)ld->per_packet_ns * 1e-9 * r);
}

int gb_topo_path_goodput(const struct gb_topo *t, int src, int dst, double *bps)
{
	int n = t->nnodes, hops = 0;
	double best = 0;

	if (!t->next || src < 0 || dst < 0 || src >= n || dst >= n)
		return -ENOENT;
	for (int v = src; v != dst; hops++) {
		int dl = t->next[(size_t)v * (size_t)n + (size_t)dst];
		double g;

		if (dl < 0 || dl >= 2 * t->nlinks || hops >= n)
			return -ENOENT;
		g = gb_topo_dir_goodput(t, cdir(t, dl));
		if (g > 0 && (best == 0 || g < best))
			best = g;
		v = gb_topo_dir_to(t, dl);
	}
	*bps = best;
	return 0;
}

/* ---- routing ------------------------------------------------------------ */

struct hent {
	uint64_t dist;
	int hops;
	int node;
};

static int hent_less(const struct hent *x, const struct hent *y)
{
	if (x->dist != y->dist)
		return x->dist < y->dist;
	if (x->hops != y->hops)
		return x->hops < y->hops;
	return x->node < y->node;
}

static void heap_push(struct hent *h, int *n, struct hent e)
{
	int i = (*n)++;

	while (i > 0) {
		int p = (i - 1) / 2;

		if (!hent_less(&e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

static struct hent heap_pop(struct hent *h, int *n)
{
	struct hent top = h[0], last = h[--(*n)];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && hent_less(&h[c + 1], &h[c]))
			c++;
		if (!hent_less(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n > 0)
		h[i] = last;
	return top;
}

/* The only neighbour of leaf @d when it is not a leaf itself, else -1. */
static int leaf_parent(const struct gb_topo *t, const int *off, const int *adj, int d)
{
	int l, p;

	if (off[d + 1] - off[d] != 1)
		return -1;
	l = adj[off[d]];
	p = t->links[l].a == d ? t->links[l].b : t->links[l].a;
	return off[p + 1] - off[p] > 1 ? p : -1;
}

/*
 * Static routes: one Dijkstra per destination over the reversed graph, so
 * that next[u][d] is u's parent in d's in-tree and the hop-by-hop walk of
 * the table is exactly a shortest path (what the emulated routers do).
 *
 *   for each destination d:
 *       label(d) = (0, 0); label(u) = (inf, inf) for u != d
 *       settle nodes in increasing (delay, hops) order; when v is settled,
 *       for each link l = {u, v}, u unsettled:
 *           cand = (label(v).delay + delay(u -> v), label(v).hops + 1, l)
 *           if cand < (label(u), via(u)) lexicographically:
 *               label(u) = cand.label; via(u) = directed link u -> v
 *       next[u][d] = via(u)
 *
 * The metric is the delay of the direction travelled (u -> v, not v -> u),
 * ties go to fewer hops, then to the lower link index.  Every edge adds one
 * hop, so a label is final once popped even with zero delays, and the
 * result does not depend on heap order: routes are deterministic.
 * Cost: (n - leaves) * O((n + m) log n) + n^2 for the table; 1024 hosts
 * (1108 nodes) load and route in about 4 ms (bench_topo).
 */
int gb_topo_route(struct gb_topo *t)
{
	int n = t->nnodes, m = t->nlinks, nheap, ret = -ENOMEM;
	int *off = NULL, *adj = NULL, *fill = NULL, *next = NULL, *hops = NULL, *via = NULL;
	unsigned char *done = NULL;
	uint64_t *dist = NULL;
	struct hent *heap = NULL;

	if (n <= 0)
		return -EINVAL;
	for (int l = 0; l < m; l++)
		if (t->links[l].a < 0 || t->links[l].a >= n || t->links[l].b < 0 ||
		    t->links[l].b >= n || t->links[l].a == t->links[l].b)
			return -EINVAL;

	/* adjacency in CSR form: adj[off[v] .. off[v+1]) are v's links */
	off = calloc((size_t)n + 1, sizeof(*off));
	fill = calloc((size_t)n, sizeof(*fill));
	adj = malloc(((size_t)2 * (size_t)m + 1) * sizeof(*adj));
	next = malloc((size_t)n * (size_t)n * sizeof(*next));
	hops = malloc((size_t)n * sizeof(*hops));
	via = malloc((size_t)n * sizeof(*via));
	done = malloc((size_t)n);
	dist = malloc((size_t)n * sizeof(*dist));
	heap = malloc(((size_t)2 * (size_t)m + 1) * sizeof(*heap));
	if (!off || !fill || !adj || !next || !hops || !via || !done || !dist || !heap)
		goto cleanup;
	for (int l = 0; l < m; l++) {
		off[t->links[l].a + 1]++;
		off[t->links[l].b + 1]++;
	}
	for (int v = 0; v < n; v++)
		off[v + 1] += off[v];
	for (int l = 0; l < m; l++) { /* increasing l: adjacency lists sorted */
		adj[off[t->links[l].a] + fill[t->links[l].a]++] = l;
		adj[off[t->links[l].b] + fill[t->links[l].b]++] = l;
	}

	for (int d = 0; d < n; d++) {
		if (leaf_parent(t, off, adj, d) >= 0)
			continue; /* below, once its parent's column is known */
		for (int v = 0; v < n; v++) {
			dist[v] = UINT64_MAX;
			hops[v] = INT_MAX;
			via[v] = -1;
			done[v] = 0;
		}
		dist[d] = 0;
		hops[d] = 0;
		nheap = 0;
		heap_push(heap, &nheap, (struct hent){ 0, 0, d });
		while (nheap > 0) {
			struct hent e = heap_pop(heap, &nheap);
			int v = e.node;

			if (done[v] || e.dist != dist[v] || e.hops != hops[v])
				continue; /* stale entry */
			done[v] = 1;
			for (int i = off[v]; i < off[v + 1]; i++) {
				int l = adj[i];
				int u = t->links[l].a == v ? t->links[l].b : t->links[l].a;
				int dl = gb_topo_dir_out(t, l, u); /* u -> v */
				uint64_t cd = sat_add(dist[v], cdir(t, dl)->delay_ns);
				int ch = hops[v] + 1;

				if (done[u])
					continue;
				if (cd < dist[u] || (cd == dist[u] && ch < hops[u])) {
					dist[u] = cd;
					hops[u] = ch;
					via[u] = dl;
					heap_push(heap, &nheap, (struct hent){ cd, ch, u });
				} else if (cd == dist[u] && ch == hops[u] && l < via[u] / 2) {
					via[u] = dl; /* same label: no new heap entry */
				}
			}
		}
		for (int u = 0; u < n; u++)
			next[(size_t)u * (size_t)n + (size_t)d] = u == d ? -1 : via[u];
	}
	/*
	 * A leaf d (one link, to p, which is not a leaf) is reached through p
	 * from everywhere: its shortest paths are p's plus the link p -> d, and
	 * adding the same last hop to every candidate keeps their order, ties
	 * included.  Hosts are leaves, so this skips most Dijkstra runs.
	 */
	for (int d = 0; d < n; d++) {
		int p = leaf_parent(t, off, adj, d), l;

		if (p < 0)
			continue;
		l = adj[off[d]];
		for (int u = 0; u < n; u++) {
			size_t i = (size_t)u * (size_t)n;

			next[i + (size_t)d] = u == d   ? -1
					      : u == p ? gb_topo_dir_out(t, l, p)
						       : next[i + (size_t)p];
		}
	}

	free(t->next);
	t->next = next;
	next = NULL;
	if (t->priv) { /* the cached round-trip delays follow the routes */
		struct gb_topo_priv *p = t->priv;

		free(p->maxrtt);
		p->maxrtt = NULL;
	}
	ret = 0;
	for (int s = 0; s < t->nhosts && !ret; s++)
		for (int d = 0; d < t->nhosts; d++)
			if (s != d && t->next[(size_t)s * (size_t)n + (size_t)d] < 0) {
				ret = -EHOSTUNREACH;
				break;
			}
cleanup:
	free(off);
	free(fill);
	free(adj);
	free(next);
	free(hops);
	free(via);
	free(done);
	free(dist);
	free(heap);
	return ret;
}

/* ---- default queue limit -------------------------------------------------- */

/*
 * maxrtt[dl] = the largest round-trip delay of a host pair whose routed
 * path uses dl (see gb_topo_default_limit() in gbtopo.h).  Every unordered
 * host pair is walked once in each direction: nhosts^2 * hops steps,
 * about 10 M for 1024 hosts.
 */
static int compute_maxrtt(const struct gb_topo *t, uint64_t **out)
{
	int n = t->nnodes, *fw = NULL, *bw = NULL, ret = -ENOMEM;
	uint64_t *rtt = calloc(2 * (size_t)t->nlinks + 1, sizeof(*rtt));

	fw = malloc((size_t)n * sizeof(*fw));
	bw = malloc((size_t)n * sizeof(*bw));
	if (!rtt || !fw || !bw)
		goto cleanup;
	for (int s = 0; s < t->nhosts; s++) {
		for (int d = s + 1; d < t->nhosts; d++) {
			int hf = gb_topo_path(t, s, d, fw), hb = gb_topo_path(t, d, s, bw);
			uint64_t r = 0;

			if (hf < 0 || hb < 0)
				continue;
			for (int i = 0; i < hf; i++)
				r = sat_add(r, cdir(t, fw[i])->delay_ns);
			for (int i = 0; i < hb; i++)
				r = sat_add(r, cdir(t, bw[i])->delay_ns);
			for (int i = 0; i < hf; i++)
				if (rtt[fw[i]] < r)
					rtt[fw[i]] = r;
			for (int i = 0; i < hb; i++)
				if (rtt[bw[i]] < r)
					rtt[bw[i]] = r;
		}
	}
	*out = rtt;
	rtt = NULL;
	ret = 0;
cleanup:
	free(rtt);
	free(fw);
	free(bw);
	return ret;
}

uint32_t gb_topo_default_limit(const struct gb_topo *t, int dl)
{
	struct gb_topo_priv *p = t->priv;
	uint64_t *tmp = NULL, r, mtu = t->mtu ? t->mtu : 1500;
	const struct gb_linkdir *d;
	unsigned __int128 bits, pkts;

	if (dl < 0 || dl >= 2 * t->nlinks)
		return 64;
	d = cdir(t, dl);
	if (!d->rate_bps)
		return 1000;
	if (p && !p->maxrtt && compute_maxrtt(t, &p->maxrtt) < 0)
		return 64;
	if (p) {
		r = p->maxrtt[dl];
	} else {
		if (compute_maxrtt(t, &tmp) < 0)
			return 64;
		r = tmp[dl];
		free(tmp);
	}
	/* packets = ceil(rate * rtt / (8 * mtu)), rtt in ns */
	bits = (unsigned __int128)d->rate_bps * r;
	pkts = (bits + (unsigned __int128)8 * mtu * 1000000000u - 1) /
	       ((unsigned __int128)8 * mtu * 1000000000u);
	if (pkts < 64)
		return 64;
	if (pkts > UINT32_MAX)
		return UINT32_MAX;
	return (uint32_t)pkts;
}

/* ---- connectivity and addressing ------------------------------------------ */

int gb_topo_disconnected(const struct gb_topo *t)
{
	int n = t->nnodes, *uf = malloc((size_t)n * sizeof(int)), ret = -1;

	if (!uf)
		return -ENOMEM;
	/* union-find with path halving; links are bidirectional, so
	 * reachability is a matter of components */
	for (int v = 0; v < n; v++)
		uf[v] = v;
	for (int l = 0; l < t->nlinks; l++) {
		int a = t->links[l].a, b = t->links[l].b;

		while (uf[a] != a)
			a = uf[a] = uf[uf[a]];
		while (uf[b] != b)
			b = uf[b] = uf[uf[b]];
		if (a != b)
			uf[a < b ? b : a] = a < b ? a : b;
	}
	for (int v = 0; v < n && ret < 0; v++) {
		int r = v;

		while (uf[r] != r)
			r = uf[r];
		if (r != 0)
			ret = v;
	}
	free(uf);
	return ret;
}

uint64_t gb_topo_data_need(const struct gb_topo *t)
{
	return (uint64_t)t->nnodes + 1;
}

uint64_t gb_topo_mgmt_need(const struct gb_topo *t)
{
	return (uint64_t)t->nhosts + 3;
}

void gb_topo_address(struct gb_topo *t)
{
	for (int i = 0; i < t->nnodes; i++) {
		t->nodes[i].addr = t->data.addr + 1 + (uint32_t)i;
		t->nodes[i].mgmt = i < t->nhosts ? t->mgmt.addr + 2 + (uint32_t)i : 0;
	}
}
