// SPDX-License-Identifier: MIT
/*
 * topo_build.c - step 3 of reading a topology (topo_parse.c has steps 1
 * and 2): the builder becomes a struct gb_topo, and the model is checked as
 * a whole (node names, link parameters and spellings, addressing,
 * connectivity).  Every error points at where the file wrote the value.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "gbtopo.h"
#include "gbyaml.h"
#include "topo_internal.h"
#include "topo_parse_priv.h"

/* ---- step 3: build and check the model ----------------------------------- */

static void set_node(struct gb_node *nd, const char *name, enum gb_node_kind kind, int site,
		     int cluster, int line, int col)
{
	snprintf(nd->name, sizeof(nd->name), "%s", name);
	nd->kind = kind;
	nd->site = site;
	nd->cluster = cluster;
	nd->line = line;
	nd->col = col;
}

static bool before(int l1, int c1, int l2, int c2)
{
	return l1 < l2 || (l1 == l2 && c1 < c2);
}

/*
 * Names are unique across all nodes; blame the later declaration.  Names
 * written in the file (clusters, sites, hubs) are checked before hosts, so
 * that two clusters called 'k' are reported as such, not as two 'k-1'.
 */
static int check_node_names(struct ctx *c)
{
	struct gb_topo *t = c->t;
	struct gb_strmap m = { 0 };
	int ret = gb_strmap_init(&m, (size_t)t->nnodes);

	for (int k = 0; k < t->nnodes && !ret; k++) {
		int i = (k + t->nhosts) % t->nnodes;
		int j = gb_strmap_add(&m, t->nodes[i].name, i);
		const struct gb_node *x, *y;

		if (j < 0)
			continue;
		x = &t->nodes[j];
		y = &t->nodes[i];
		if (before(y->line, y->col, x->line, x->col)) {
			const struct gb_node *tmp = x;

			x = y;
			y = tmp;
		}
		ret = fail_at(c, y->line, y->col, "duplicate name '%s' (also declared at %d:%d)",
			      y->name, x->line, x->col);
	}
	gb_strmap_release(&m);
	return ret;
}

/* Effective parameters of one direction: layers applied in order. */
static void apply(struct gb_linkdir *ld, struct pval *src, const struct pset *ps)
{
	for (int p = 0; p < P_N; p++) {
		const struct pval *v = &ps->v[p];

		if (!v->set)
			continue;
		switch (p) {
		case P_DELAY:
			ld->delay_ns = v->u;
			break;
		case P_JITTER:
			ld->jitter_ns = v->u;
			break;
		case P_LOSS:
			ld->loss = v->d;
			break;
		case P_RATE:
			ld->rate_bps = v->u;
			break;
		case P_LIMIT:
			ld->limit = (uint32_t)v->u;
			break;
		case P_PPKT:
			ld->per_packet_ns = v->u;
			break;
		}
		ld->set |= 1u << p;
		src[p] = *v;
	}
}

/*
 * Fill both directions of link @l from parameter blocks, most general
 * first: for each block, its both-direction values then its per-direction
 * ones.  Jitter may not exceed delay (netem would clamp negative delays to
 * zero and skew the mean; see docs/topology-format.md).  A per-packet cost
 * needs a rate: the rate's token bucket is what charges it, as an overhead
 * in bytes the kernel's TBF keeps in 16 bits (gb_ppkt_bytes()).
 */
static int set_params(struct ctx *c, int l, const struct pblock *const *blocks, int nblocks)
{
	struct gb_link *lk = &c->t->links[l];

	for (int d = 0; d < 2; d++) {
		struct gb_linkdir *ld = d ? &lk->ba : &lk->ab;
		struct pval src[P_N] = { 0 };

		for (int b = 0; b < nblocks; b++) {
			apply(ld, src, &blocks[b]->sym);
			apply(ld, src, &blocks[b]->dir[d]);
		}
		if ((ld->set & GB_LD_JITTER) && ld->jitter_ns > ld->delay_ns)
			return fail_at(c, src[P_JITTER].line, src[P_JITTER].col,
				       "link '%s': jitter '%s' exceeds delay '%s' (%s>%s)",
				       lk->name, quote(c, src[P_JITTER].text),
				       src[P_DELAY].set ? quote(c, src[P_DELAY].text) : "0",
				       c->t->nodes[d ? lk->b : lk->a].name,
				       c->t->nodes[d ? lk->a : lk->b].name);
		if (ld->per_packet_ns && !ld->rate_bps)
			return fail_at(c, src[P_PPKT].line, src[P_PPKT].col,
				       "link '%s': per_packet '%s' needs a rate (%s>%s): the "
				       "cost is charged by the direction's rate",
				       lk->name, quote(c, src[P_PPKT].text),
				       c->t->nodes[d ? lk->b : lk->a].name,
				       c->t->nodes[d ? lk->a : lk->b].name);
		if (gb_ppkt_bytes(ld->per_packet_ns, ld->rate_bps) > GB_PPKT_MAX_BYTES)
			return fail_at(c, src[P_PPKT].line, src[P_PPKT].col,
				       "link '%s': per_packet '%s' at rate '%s' is more than %u "
				       "bytes a packet, the most the kernel's token bucket can "
				       "charge (%s>%s)", lk->name, quote(c, src[P_PPKT].text),
				       quote(c, src[P_RATE].text), GB_PPKT_MAX_BYTES,
				       c->t->nodes[d ? lk->b : lk->a].name,
				       c->t->nodes[d ? lk->a : lk->b].name);
	}
	return 0;
}

static void init_link(struct gb_link *lk, int a, int b, const char *name, int line, int col)
{
	lk->a = a;
	lk->b = b;
	snprintf(lk->name, sizeof(lk->name), "%s", name);
	lk->line = line;
	lk->col = col;
}

static int build_links(struct ctx *c)
{
	struct gb_topo *t = c->t;
	struct gb_pairmap pairs = { 0 };
	struct gb_strmap names = { 0 };
	char name[LINK_NAME_MAX + 1];
	int ret, l = 0;

	if ((ret = gb_pairmap_init(&pairs, (size_t)t->nlinks)) < 0 ||
	    (ret = gb_strmap_init(&names, (size_t)t->nlinks)) < 0)
		goto cleanup;

	for (int h = 0; h < t->nhosts; h++, l++) {
		const struct gb_cluster *k = &t->clusters[t->nodes[h].cluster];
		const struct bcluster *bk = &c->clusters[t->nodes[h].cluster];
		const struct pblock *blocks[] = { &c->dhl, &bk->hl };

		snprintf(name, sizeof(name), "%s-%s", t->nodes[h].name, k->name);
		init_link(&t->links[l], h, k->sw, name, t->nodes[h].line, t->nodes[h].col);
		if ((ret = set_params(c, l, blocks, 2)) < 0)
			goto cleanup;
	}
	for (int k = 0; k < t->nclusters; k++, l++) {
		const struct gb_cluster *ck = &t->clusters[k];
		const struct pblock *blocks[] = { &c->dul, &c->clusters[k].ul };

		snprintf(name, sizeof(name), "%s-%s", ck->name, t->sites[ck->site].name);
		init_link(&t->links[l], ck->sw, t->sites[ck->site].router, name,
			  c->clusters[k].line, c->clusters[k].col);
		if ((ret = set_params(c, l, blocks, 2)) < 0)
			goto cleanup;
	}
	for (int e = 0; e < c->nlinks; e++, l++) {
		const struct blink *bl = &c->links[e];
		const struct pblock *blocks[] = { &bl->p };
		int a = gb_topo_find_node(t, bl->a), b = gb_topo_find_node(t, bl->b);

		if (a < 0 || b < 0) {
			ret = a < 0 ? fail_at(c, bl->aline, bl->acol, "link '%s': unknown node '%s'",
					      bl->name, bl->a)
				    : fail_at(c, bl->bline, bl->bcol, "link '%s': unknown node '%s'",
					      bl->name, bl->b);
			goto cleanup;
		}
		if (t->nodes[a].kind == GB_NODE_HOST || t->nodes[b].kind == GB_NODE_HOST) {
			bool ah = t->nodes[a].kind == GB_NODE_HOST;

			ret = fail_at(c, ah ? bl->aline : bl->bline, ah ? bl->acol : bl->bcol,
				      "link '%s': '%s' is a host (hosts connect only to their "
				      "cluster switch)", bl->name, ah ? bl->a : bl->b);
			goto cleanup;
		}
		if (a == b) {
			ret = fail_at(c, bl->bline, bl->bcol, "link '%s' joins '%s' to itself",
				      bl->name, bl->a);
			goto cleanup;
		}
		init_link(&t->links[l], a, b, bl->name, bl->line, bl->col);
		if ((ret = set_params(c, l, blocks, 1)) < 0)
			goto cleanup;
	}

	/* one link per pair of nodes, and unique names */
	for (l = 0; l < t->nlinks; l++) {
		const struct gb_link *lk = &t->links[l];
		int o = gb_pairmap_add(&pairs, lk->a, lk->b, l);

		if (o >= 0) {
			ret = fail_at(c, lk->line, lk->col, "duplicate link '%s' (same nodes as "
				      "link '%s' at %d:%d)", lk->name, t->links[o].name,
				      t->links[o].line, t->links[o].col);
			goto cleanup;
		}
		o = gb_strmap_add(&names, lk->name, l);
		if (o >= 0) {
			ret = fail_at(c, lk->line, lk->col, "duplicate link name '%s' (also at "
				      "%d:%d)", lk->name, t->links[o].line, t->links[o].col);
			goto cleanup;
		}
	}
	ret = 0;
cleanup:
	gb_pairmap_release(&pairs);
	gb_strmap_release(&names);
	return ret;
}

/* gb_topo_find_link() must find every link by both spellings of its ends. */
static int check_link_spellings(struct ctx *c)
{
	const struct gb_topo *t = c->t;
	char s[2 * GB_NAME_MAX + 2];

	for (int l = 0; l < t->nlinks; l++) {
		const struct gb_link *lk = &t->links[l];

		for (int d = 0; d < 2; d++) {
			int o;

			snprintf(s, sizeof(s), "%s-%s", t->nodes[d ? lk->b : lk->a].name,
				 t->nodes[d ? lk->a : lk->b].name);
			o = gb_topo_find_link(t, s);
			if (o < 0) /* cannot happen: the pair index knows every link */
				return fail_at(c, lk->line, lk->col, "link '%s' cannot be found "
					       "as '%s'", lk->name, s);
			if (o != l) {
				const struct gb_link *x = o > l ? &t->links[o] : lk;

				return fail_at(c, x->line, x->col, "link name '%s' is ambiguous "
					       "(it spells both '%s' and '%s')", s, lk->name,
					       t->links[o].name);
			}
		}
	}
	return 0;
}

static bool overlap(const struct gb_prefix *x, const struct gb_prefix *y)
{
	int len = x->len < y->len ? x->len : y->len;
	uint32_t mask = len ? ~0u << (32 - len) : 0;

	return (x->addr & mask) == (y->addr & mask);
}

static int check_addressing(struct ctx *c)
{
	struct gb_topo *t = c->t;
	uint64_t dsize = 1ull << (32 - t->data.len), msize = 1ull << (32 - t->mgmt.len);
	char b1[16], b2[16];

	if (overlap(&t->data, &t->mgmt))
		return fail_at(c, c->mgmt_line ? c->mgmt_line : c->data_line,
			       c->mgmt_line ? c->mgmt_col : c->data_col,
			       "mgmt block '%s/%d' overlaps data block '%s/%d'",
			       gb_fmt_ip(t->mgmt.addr, b1), t->mgmt.len,
			       gb_fmt_ip(t->data.addr, b2), t->data.len);
	if (dsize < gb_topo_data_need(t))
		return fail_at(c, c->data_line ? c->data_line : 1, c->data_line ? c->data_col : 1,
			       "data block '%s/%d' is too small: %d nodes need %llu addresses",
			       gb_fmt_ip(t->data.addr, b1), t->data.len, t->nnodes,
			       (unsigned long long)gb_topo_data_need(t));
	if (msize < gb_topo_mgmt_need(t))
		return fail_at(c, c->mgmt_line ? c->mgmt_line : 1, c->mgmt_line ? c->mgmt_col : 1,
			       "mgmt block '%s/%d' is too small: %d hosts need %llu addresses",
			       gb_fmt_ip(t->mgmt.addr, b1), t->mgmt.len, t->nhosts,
			       (unsigned long long)gb_topo_mgmt_need(t));
	gb_topo_address(t);
	return 0;
}

static int check_connected(struct ctx *c)
{
	const struct gb_topo *t = c->t;
	int v = gb_topo_disconnected(t);
	const struct gb_node *nd, *ref;

	if (v == -1)
		return 0;
	if (v < 0)
		return v;
	nd = &t->nodes[v];
	ref = &t->nodes[t->sites[t->nodes[0].site].router];
	if (nd->kind == GB_NODE_HUB)
		return fail_at(c, nd->line, nd->col, "hub '%s' is unreachable from site '%s' "
			       "(no link path)", nd->name, ref->name);
	nd = &t->nodes[t->sites[nd->site].router]; /* a host or switch: blame its site */
	return fail_at(c, nd->line, nd->col, "site '%s' is unreachable from site '%s' "
		       "(no link path)", nd->name, ref->name);
}

int topo_build(struct ctx *c)
{
	struct gb_topo *t;
	int ret, n = 0;

	t = c->t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	snprintf(t->name, sizeof(t->name), "%s", c->name);
	snprintf(t->path, sizeof(t->path), "%s", c->y.file);
	t->data = c->data;
	t->mgmt = c->mgmt;
	t->mtu = c->mtu;
	t->seed = c->seed;
	t->nhosts = c->nhosts;
	t->nclusters = c->nclusters;
	t->nsites = c->nsites;
	t->nnodes = c->nhosts + c->nclusters + c->nsites + c->nhubs;
	t->nlinks = c->nhosts + c->nclusters + c->nlinks;
	t->nodes = calloc((size_t)t->nnodes, sizeof(*t->nodes));
	t->links = calloc((size_t)t->nlinks, sizeof(*t->links));
	t->clusters = calloc((size_t)t->nclusters, sizeof(*t->clusters));
	t->sites = calloc((size_t)t->nsites, sizeof(*t->sites));
	if (!t->nodes || !t->links || !t->clusters || !t->sites)
		return -ENOMEM;

	for (int k = 0; k < c->nclusters; k++) {
		const struct bcluster *bk = &c->clusters[k];

		for (int h = bk->first_host; h < bk->first_host + bk->nhosts; h++) {
			struct gb_tcp *tcp = &t->nodes[h].tcp;

			set_node(&t->nodes[h], c->hosts[h].name, GB_NODE_HOST, bk->site, k,
				 c->hosts[h].line, c->hosts[h].col);
			/* defaults, then the top level, the cluster, the host */
			gb_tcp_defaults(tcp);
			gb_tcp_apply(tcp, &c->tcp);
			gb_tcp_apply(tcp, &bk->tcp);
			gb_tcp_apply(tcp, &c->hosts[h].tcp);
		}
	}
	n = t->nhosts;
	for (int k = 0; k < c->nclusters; k++, n++) {
		const struct bcluster *bk = &c->clusters[k];
		struct gb_cluster *ck = &t->clusters[k];

		snprintf(ck->name, sizeof(ck->name), "%s", bk->name);
		ck->site = bk->site;
		ck->sw = n;
		ck->first_host = bk->first_host;
		ck->nhosts = bk->nhosts;
		ck->cpu = bk->cpu;
		set_node(&t->nodes[n], bk->name, GB_NODE_SWITCH, bk->site, k, bk->line, bk->col);
	}
	for (int s = 0; s < c->nsites; s++, n++) {
		snprintf(t->sites[s].name, sizeof(t->sites[s].name), "%s", c->sites[s].name);
		t->sites[s].router = n;
		set_node(&t->nodes[n], c->sites[s].name, GB_NODE_ROUTER, s, -1, c->sites[s].line,
			 c->sites[s].col);
	}
	for (int h = 0; h < c->nhubs; h++, n++)
		set_node(&t->nodes[n], c->hubs[h].name, GB_NODE_HUB, -1, -1, c->hubs[h].line,
			 c->hubs[h].col);

	if ((ret = check_node_names(c)) < 0)
		return ret;
	/* the node index is needed to resolve link ends; the link half of it
	 * is rebuilt once the links exist */
	if ((ret = gb_topo_index(t)) < 0 || (ret = build_links(c)) < 0 ||
	    (ret = gb_topo_index(t)) < 0 || (ret = check_link_spellings(c)) < 0 ||
	    (ret = check_connected(c)) < 0 || (ret = check_addressing(c)) < 0)
		return ret;

	if (c->root_line) {
		int r = gb_topo_find_node(t, c->root);

		if (r < 0 || t->nodes[r].kind != GB_NODE_HOST)
			return fail_at(c, c->root_line, c->root_col, "root '%s' is not a host%s",
				       c->root, r < 0 ? "" : " (the root of a broadcast must run a "
				       "rank)");
		t->root = r;
	}
	ret = gb_topo_route(t);
	/* connectivity was checked, so only -ENOMEM is expected here */
	return ret == -EHOSTUNREACH ? fail_at(c, 1, 1, "hosts are unreachable") : ret;
}

