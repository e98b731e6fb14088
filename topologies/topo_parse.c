// SPDX-License-Identifier: MIT
/*
 * topo_parse.c - read a topology file (YAML, libyaml's document API) and
 * validate it as a whole before anybody acts on it.
 *
 * The file format is described, with an annotated example, in
 * docs/topology-format.md.  In short:
 *
 *   name: teragrid
 *   addressing: {data: 10.250.0.0/16, mgmt: 10.251.0.0/16}
 *   defaults: {host_link: {rate: 100mbit, delay: 0.05ms}, uplink: {...}}
 *   sites:
 *     - name: SDSC
 *       clusters: [{name: c1, hosts: 8}, {name: c2, hosts: [a, b]}]
 *   hubs: [LA, CHI]
 *   links:
 *     - {a: SDSC, b: LA, delay: 2ms, rate: 45mbit, "b>a": {rate: 40mbit}}
 *
 * Every error is -EINVAL with a struct gb_diag "file:line:col: message"
 * pointing at the offending key or value; the first error found wins.
 * Parsing goes in three steps:
 *   1. libyaml builds the document (syntax errors come from there); aliases
 *      are refused (they would let a tiny file describe a huge one);
 *   2. the document is walked into a "builder" that keeps, for every value,
 *      where it was written, so that later checks can still point at it;
 *   3. the builder becomes a struct gb_topo: nodes, links, names,
 *      connectivity, addresses, routes (topo_build.c).
 * This file does steps 1 and 2 and holds the entry points.
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

#define MAX_FILE_SIZE (64u << 20)
#define MAX_DELAY_NS (60ull * 1000000000ull)
#define MAX_LIMIT 1000000u

/* ---- the builder (topo_parse_priv.h) ----------------------------------- */

static const char *const pnames[P_N] = { "delay", "jitter", "loss", "rate", "limit",
					  "per_packet" };

/* Append a zeroed element to a growable array; NULL on ENOMEM. */
static void *grow(void *arrp, int *n, int *cap, size_t sz)
{
	void *arr;
	char *e;

	memcpy(&arr, arrp, sizeof(arr));
	if (*n == *cap) {
		int nc = *cap ? 2 * *cap : 8;
		void *na = realloc(arr, (size_t)nc * sz);

		if (!na)
			return NULL;
		arr = na;
		*cap = nc;
		memcpy(arrp, &arr, sizeof(arr));
	}
	e = (char *)arr + (size_t)(*n)++ * sz;
	memset(e, 0, sz);
	return e;
}


/* Links' per-direction keys are spelled a>b and b>a, not with node names. */
static const char *dir_key_hint(const char *key)
{
	return strchr(key, '>') ? "per-direction keys are 'a>b' and 'b>a'" : NULL;
}

/* ---- scalar values ------------------------------------------------------ */

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - (uint64_t)(*s - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static bool valid_name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_' || ch == '.' || ch == '-';
}

/* Check a name: [A-Za-z0-9_.-], 1..@max characters.  @what: "cluster". */
static int check_name(struct ctx *c, const yaml_node_t *n, const char *what, const char *s,
		      size_t max)
{
	if (!*s)
		return fail(c, n, "%s name is empty", what);
	if (strlen(s) > max)
		return fail(c, n, "%s name '%s' is too long (max %zu characters)", what,
			    quote(c, s), max);
	for (const char *p = s; *p; p++)
		if (!valid_name_char(*p))
			return fail(c, n, "%s name '%s' has a character outside [A-Za-z0-9_.-]",
				    what, quote(c, s));
	return 0;
}

static int get_name(struct ctx *c, const yaml_node_t *n, const char *what,
		    char out[GB_NAME_MAX + 1])
{
	const char *s = sval(n);
	int ret;

	if (!s || is_null(n))
		return fail(c, n, "%s name must be a word, got %s", what, kind_of(c, n));
	ret = check_name(c, n, what, s, GB_NAME_MAX);
	if (ret < 0)
		return ret;
	snprintf(out, GB_NAME_MAX + 1, "%s", s);
	return 0;
}

/* "25" -> "25" (the leading number of a text, for suggestions) */
static const char *leading_number(struct ctx *c, const char *s)
{
	char *q = gb_yaml_qbuf(&c->y);
	size_t i = 0;

	while (*s == ' ' || *s == '-' || *s == '+')
		s++;
	while (i < 20 && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) {
		q[i] = s[i];
		i++;
	}
	q[i] = '\0';
	return i ? q : "1";
}

/* "25", "0.05", ".5": digits with at most one dot. */
static bool is_bare_number(const char *s)
{
	bool digit = false, dot = false;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digit = true;
		else if (*s == '.' && !dot)
			dot = true;
		else
			return false;
	}
	return digit;
}

/* "150%": a well-formed percentage (that gb_parse_loss() refused). */
static bool out_of_range_pct(const char *s)
{
	size_t len = strlen(s);
	char buf[32];

	if (len < 2 || len > sizeof(buf) || s[len - 1] != '%')
		return false;
	memcpy(buf, s, len - 1);
	buf[len - 1] = '\0';
	return is_bare_number(buf);
}

/*
 * One link parameter.  @subject: "link 'SDSC-LA'".  Range choices (see
 * docs/topology-format.md): delay and jitter <= 60s; rate > 0 (leave it
 * out for "unlimited"); 0% <= loss <= 100%; 1 <= limit <= 1000000;
 * per_packet <= 1s (that it has a rate is checked on the whole direction).
 */
static int parse_param(struct ctx *c, const yaml_node_t *n, const char *subject, int p,
		       struct pval *out)
{
	static const char *const unit[P_N] = { "ms", "ms", "%", "mbit", "", "us" };
	static const char *const kind[P_N] = { "a time", "a time", "a loss rate", "a rate",
					       "a packet count", "a time" };
	const char *s = sval(n);
	int ret = 0;

	if (!s || is_null(n))
		return fail(c, n, "%s: %s must be %s, got %s", subject, pnames[p], kind[p],
			    kind_of(c, n));
	switch (p) {
	case P_DELAY:
	case P_JITTER:
	case P_PPKT:
		ret = gb_parse_time(s, &out->u);
		break;
	case P_RATE:
		ret = gb_parse_rate(s, &out->u);
		break;
	case P_LOSS:
		ret = gb_parse_loss(s, &out->d);
		break;
	case P_LIMIT:
		if (parse_uint(s, UINT64_MAX, &out->u) < 0)
			return fail(c, n, "%s: limit '%s' is not a packet count (a positive "
				    "integer)", subject, quote(c, s));
		if (out->u < 1 || out->u > MAX_LIMIT)
			return fail(c, n, "%s: limit '%s' is out of range (1 .. %u packets)",
				    subject, quote(c, s), MAX_LIMIT);
		break;
	}
	if (ret < 0) {
		if (*s == '-')
			return fail(c, n, "%s: %s '%s' must not be negative", subject, pnames[p],
				    quote(c, s));
		if (is_bare_number(s))
			return fail(c, n, "%s: %s '%s' has no unit (use %s%s)", subject, pnames[p],
				    quote(c, s), leading_number(c, s), unit[p]);
		if (p == P_LOSS && out_of_range_pct(s))
			return fail(c, n, "%s: loss '%s' is out of range (0%% .. 100%%)", subject,
				    quote(c, s));
		return fail(c, n, "%s: %s '%s' is not %s (use %s%s)", subject, pnames[p],
			    quote(c, s), kind[p], leading_number(c, s), unit[p]);
	}
	if ((p == P_DELAY || p == P_JITTER) && out->u > MAX_DELAY_NS)
		return fail(c, n, "%s: %s '%s' is out of range (max 60s)", subject, pnames[p],
			    quote(c, s));
	if (p == P_PPKT && out->u > GB_PPKT_MAX_NS)
		return fail(c, n, "%s: per_packet '%s' is out of range (0 .. 1s)", subject,
			    quote(c, s));
	if (p == P_RATE && out->u == 0)
		return fail(c, n, "%s: rate '%s' must be positive (leave 'rate' out for an "
			    "unlimited link)", subject, quote(c, s));
	out->set = true;
	out->text = s;
	out->line = LINE(n);
	out->col = COL(n);
	return 0;
}

/* The six parameter keys of mapping @n (keys already checked). */
static int parse_pset(struct ctx *c, const yaml_node_t *n, const char *subject,
		      struct pset *ps)
{
	for (int p = 0; p < P_N; p++) {
		const yaml_node_t *v = get(c, n, pnames[p]);
		int ret;

		if (v && (ret = parse_param(c, v, subject, p, &ps->v[p])) < 0)
			return ret;
	}
	return 0;
}

static const char *const dir_keys[2] = { "a>b", "b>a" };

/* The per-direction maps "a>b:" and "b>a:" of @n. */
static int parse_dirs(struct ctx *c, const yaml_node_t *n, const char *subject,
		      struct pblock *pb)
{
	static const char *const keys[] = { "delay", "jitter", "loss", "rate", "limit",
					    "per_packet", NULL };
	char sub[128];
	int ret;

	for (int d = 0; d < 2; d++) {
		const yaml_node_t *v = get(c, n, dir_keys[d]);

		if (!v)
			continue;
		snprintf(sub, sizeof(sub), "%s %s", subject, dir_keys[d]);
		if ((ret = check_map(c, v, sub, keys)) < 0 ||
		    (ret = parse_pset(c, v, sub, &pb->dir[d])) < 0)
			return ret;
	}
	return 0;
}

/* A parameter block (defaults or cluster host_link / uplink). */
static int parse_pblock(struct ctx *c, const yaml_node_t *n, const char *subject,
			struct pblock *pb)
{
	static const char *const keys[] = { "delay", "jitter", "loss", "rate", "limit",
					    "per_packet", "a>b", "b>a", NULL };
	int ret;

	if ((ret = check_map(c, n, subject, keys)) < 0 ||
	    (ret = parse_pset(c, n, subject, &pb->sym)) < 0)
		return ret;
	return parse_dirs(c, n, subject, pb);
}

/* ---- top-level sections ------------------------------------------------- */

static int parse_prefix(struct ctx *c, const yaml_node_t *n, const char *what,
			struct gb_prefix *out)
{
	const char *s = sval(n), *p;
	uint32_t addr = 0, mask;
	uint64_t v;
	char tmp[4];
	int len;

	if (!s || is_null(n))
		return fail(c, n, "%s block must be an ipv4 prefix, got %s", what, kind_of(c, n));
	p = s;
	for (int i = 0; i < 4; i++) {
		size_t k = 0;

		while (p[k] >= '0' && p[k] <= '9' && k < 3) {
			tmp[k] = p[k];
			k++;
		}
		tmp[k] = '\0';
		if (!k || parse_uint(tmp, 255, &v) < 0 || p[k] != (i < 3 ? '.' : '/'))
			goto bad;
		addr = addr << 8 | (uint32_t)v;
		p += k + 1;
	}
	if (strlen(p) > 2 || parse_uint(p, 32, &v) < 0)
		goto bad;
	len = (int)v;
	mask = len ? ~0u << (32 - len) : 0;
	if (len < 8)
		return fail(c, n, "%s block '%s' is too large (prefix length at least 8)", what,
			    quote(c, s));
	if (addr & ~mask) {
		char buf[16];

		return fail(c, n, "%s block '%s' has host bits set (use %s/%d)", what,
			    quote(c, s), gb_fmt_ip(addr & mask, buf), len);
	}
	if ((addr >> 24) == 0 || (addr >> 24) == 127 || (addr >> 24) >= 224)
		return fail(c, n, "%s block '%s' is not a usable unicast range", what, quote(c, s));
	out->addr = addr;
	out->len = len;
	return 0;
bad:
	return fail(c, n, "%s block '%s' is not an ipv4 prefix (e.g. 10.250.0.0/16)", what,
		    quote(c, s));
}

static int parse_addressing(struct ctx *c, const yaml_node_t *n)
{
	static const char *const keys[] = { "data", "mgmt", NULL };
	const yaml_node_t *v;
	int ret;

	if ((ret = check_map(c, n, "addressing", keys)) < 0)
		return ret;
	if ((v = get(c, n, "data"))) {
		if ((ret = parse_prefix(c, v, "data", &c->data)) < 0)
			return ret;
		c->data_line = LINE(v);
		c->data_col = COL(v);
	}
	if ((v = get(c, n, "mgmt"))) {
		if ((ret = parse_prefix(c, v, "mgmt", &c->mgmt)) < 0)
			return ret;
		c->mgmt_line = LINE(v);
		c->mgmt_col = COL(v);
	}
	return 0;
}

static int parse_defaults(struct ctx *c, const yaml_node_t *n)
{
	static const char *const keys[] = { "host_link", "uplink", NULL };
	const yaml_node_t *v;
	int ret;

	if ((ret = check_map(c, n, "defaults", keys)) < 0)
		return ret;
	if ((v = get(c, n, "host_link")) && (ret = parse_pblock(c, v, "defaults host_link",
								&c->dhl)) < 0)
		return ret;
	if ((v = get(c, n, "uplink")) && (ret = parse_pblock(c, v, "defaults uplink",
							     &c->dul)) < 0)
		return ret;
	return 0;
}

static int too_many_nodes(struct ctx *c, const yaml_node_t *n, long extra)
{
	long total = (long)c->nhosts + c->nclusters + c->nsites + c->nhubs + extra;

	if (total > GB_TOPO_MAX_NODES)
		return fail(c, n, "too many nodes (more than %d)", GB_TOPO_MAX_NODES);
	return 0;
}

static int add_host(struct ctx *c, const yaml_node_t *n, const char *name)
{
	struct bname *h = grow(&c->hosts, &c->nhosts, &c->chosts, sizeof(*c->hosts));

	if (!h)
		return -ENOMEM;
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->line = LINE(n);
	h->col = COL(n);
	return 0;
}

/* An item of a cluster's host list: a name, or {name: N, tcp: {...}}. */
static int parse_host(struct ctx *c, const yaml_node_t *h)
{
	static const char *const keys[] = { "name", "tcp", NULL };
	char name[GB_NAME_MAX + 1], subject[64];
	const yaml_node_t *v;
	int ret;

	if (h->type != YAML_MAPPING_NODE) {
		if ((ret = get_name(c, h, "host", name)) < 0)
			return ret;
		return add_host(c, h, name);
	}
	if ((ret = check_map(c, h, "host", keys)) < 0)
		return ret;
	if (!(v = get(c, h, "name")))
		return fail(c, h, "host has no 'name'");
	if ((ret = get_name(c, v, "host", name)) < 0 || (ret = add_host(c, v, name)) < 0)
		return ret;
	if ((v = get(c, h, "tcp"))) {
		snprintf(subject, sizeof(subject), "host '%s'", name);
		return gb_tcp_parse(&c->y, v, subject, &c->hosts[c->nhosts - 1].tcp);
	}
	return 0;
}

/* cpu: a share of one core, "0.5" or "50%", in (0, 1]. */
static int parse_cpu(struct ctx *c, const yaml_node_t *n, const char *subject, double *out)
{
	const char *s = sval(n);
	size_t len = s ? strlen(s) : 0;
	bool pct = len && s[len - 1] == '%';
	char buf[32];
	double v;

	if (!s || !len || len - pct >= sizeof(buf))
		goto bad;
	memcpy(buf, s, len - pct);
	buf[len - pct] = '\0';
	if (!is_bare_number(buf))
		goto bad;
	v = strtod(buf, NULL) / (pct ? 100.0 : 1.0);
	if (!(v > 0.0 && v <= 1.0))
		return fail(c, n, "%s: cpu '%s' is out of range (a share of one core: 0 < cpu "
			    "<= 1, or 0%% < cpu <= 100%%)", subject, quote(c, s));
	*out = v;
	return 0;
bad:
	return fail(c, n, "%s: cpu must be a share of one core (0.5 or 50%%), got %s", subject,
		    kind_of(c, n));
}

static int parse_cluster(struct ctx *c, const yaml_node_t *n, int site, int idx)
{
	static const char *const keys[] = { "name", "hosts", "host_link", "uplink", "cpu",
					    "tcp", NULL };
	char subject[96];
	const yaml_node_t *v, *hv;
	struct bcluster *k;
	int ret, ki;

	snprintf(subject, sizeof(subject), "cluster #%d of site '%s'", idx + 1,
		 c->sites[site].name);
	if (n->type != YAML_MAPPING_NODE)
		return fail(c, n, "%s must be a mapping, got %s", subject, kind_of(c, n));
	if (!(v = get(c, n, "name")))
		return fail(c, n, "%s has no 'name'", subject);
	k = grow(&c->clusters, &c->nclusters, &c->cclusters, sizeof(*c->clusters));
	if (!k)
		return -ENOMEM;
	ki = c->nclusters - 1;
	if ((ret = get_name(c, v, "cluster", k->name)) < 0)
		return ret;
	k->line = LINE(v);
	k->col = COL(v);
	k->site = site;
	k->first_host = c->nhosts;
	snprintf(subject, sizeof(subject), "cluster '%s'", k->name);
	if ((ret = check_map(c, n, subject, keys)) < 0 || (ret = too_many_nodes(c, n, 0)) < 0)
		return ret;

	if (!(hv = get(c, n, "hosts")))
		return fail(c, n, "cluster '%s' has no 'hosts' (a count or a list of names)",
			    k->name);
	if (hv->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = hv->data.sequence.items.start;
		     it < hv->data.sequence.items.top; it++) {
			const yaml_node_t *h = node(c, *it);

			if ((ret = too_many_nodes(c, h, 1)) < 0 ||
			    (ret = parse_host(c, h)) < 0)
				return ret;
		}
	} else {
		const char *s = sval(hv);
		uint64_t cnt;

		if (!s || is_null(hv) || parse_uint(s, UINT64_MAX, &cnt) < 0)
			return fail(c, hv, "cluster '%s': hosts must be a count or a list of "
				    "names, got %s", k->name, kind_of(c, hv));
		if (cnt > GB_TOPO_MAX_NODES)
			return too_many_nodes(c, hv, GB_TOPO_MAX_NODES + 1);
		if ((ret = too_many_nodes(c, hv, (long)cnt)) < 0)
			return ret;
		for (uint64_t i = 1; i <= cnt; i++) {
			char name[GB_NAME_MAX + 16];

			snprintf(name, sizeof(name), "%s-%llu", k->name, (unsigned long long)i);
			if (strlen(name) > GB_NAME_MAX)
				return fail(c, hv, "host name '%s' is too long (max %d characters)",
					    name, GB_NAME_MAX);
			if ((ret = add_host(c, hv, name)) < 0)
				return ret;
		}
	}
	k = &c->clusters[ki]; /* c->clusters did not move, but be explicit */
	k->nhosts = c->nhosts - k->first_host;
	if (k->nhosts == 0)
		return fail(c, hv, "cluster '%s' has no hosts", k->name);

	if ((v = get(c, n, "host_link"))) {
		snprintf(subject, sizeof(subject), "cluster '%s' host_link", k->name);
		if ((ret = parse_pblock(c, v, subject, &k->hl)) < 0)
			return ret;
	}
	if ((v = get(c, n, "uplink"))) {
		snprintf(subject, sizeof(subject), "link '%s-%s'", k->name, c->sites[site].name);
		if ((ret = parse_pblock(c, v, subject, &k->ul)) < 0)
			return ret;
	}
	if ((v = get(c, n, "cpu"))) {
		snprintf(subject, sizeof(subject), "cluster '%s'", k->name);
		if ((ret = parse_cpu(c, v, subject, &k->cpu)) < 0)
			return ret;
	}
	if ((v = get(c, n, "tcp"))) {
		snprintf(subject, sizeof(subject), "cluster '%s'", k->name);
		if ((ret = gb_tcp_parse(&c->y, v, subject, &k->tcp)) < 0)
			return ret;
	}
	return 0;
}

static int parse_site(struct ctx *c, const yaml_node_t *n, int idx)
{
	static const char *const keys[] = { "name", "clusters", NULL };
	char subject[64];
	const yaml_node_t *v;
	yaml_node_item_t *items;
	struct bsite *s;
	int ret, nitems, si;

	if (n->type != YAML_MAPPING_NODE)
		return fail(c, n, "site #%d must be a mapping, got %s", idx + 1, kind_of(c, n));
	if (!(v = get(c, n, "name")))
		return fail(c, n, "site #%d has no 'name'", idx + 1);
	s = grow(&c->sites, &c->nsites, &c->csites, sizeof(*c->sites));
	if (!s)
		return -ENOMEM;
	si = c->nsites - 1;
	if ((ret = get_name(c, v, "site", s->name)) < 0)
		return ret;
	s->line = LINE(v);
	s->col = COL(v);
	snprintf(subject, sizeof(subject), "site '%s'", s->name);
	if ((ret = check_map(c, n, subject, keys)) < 0)
		return ret;
	v = get(c, n, "clusters");
	if ((ret = get_list(c, v, "clusters", &items, &nitems)) < 0)
		return ret;
	if (!nitems)
		return fail(c, v ? v : n, "site '%s' has no clusters (a router without hosts is "
			    "a hub)", c->sites[si].name);
	for (int i = 0; i < nitems; i++)
		if ((ret = parse_cluster(c, node(c, items[i]), si, i)) < 0)
			return ret;
	return 0;
}

static int parse_link(struct ctx *c, const yaml_node_t *n, int idx)
{
	static const char *const keys[] = { "a", "b", "name", "delay", "jitter", "loss", "rate",
					    "limit", "per_packet", "a>b", "b>a", NULL };
	char subject[LINK_NAME_MAX + 16];
	const yaml_node_t *va, *vb, *vn;
	struct blink *l;
	int ret;

	if (n->type != YAML_MAPPING_NODE)
		return fail(c, n, "link #%d must be a mapping, got %s", idx + 1, kind_of(c, n));
	/* name the link in messages as well as can be done before checking */
	va = get(c, n, "a");
	vb = get(c, n, "b");
	vn = get(c, n, "name");
	if (sval(vn) && strlen(sval(vn)) <= LINK_NAME_MAX)
		snprintf(subject, sizeof(subject), "link '%s'", quote(c, sval(vn)));
	else if (sval(va) && sval(vb) && strlen(sval(va)) + strlen(sval(vb)) < LINK_NAME_MAX)
		snprintf(subject, sizeof(subject), "link '%s-%s'", quote(c, sval(va)),
			 quote(c, sval(vb)));
	else
		snprintf(subject, sizeof(subject), "link #%d", idx + 1);
	if ((ret = check_map(c, n, subject, keys)) < 0)
		return ret;
	l = grow(&c->links, &c->nlinks, &c->clinks, sizeof(*c->links));
	if (!l)
		return -ENOMEM;
	l->line = LINE(n);
	l->col = COL(n);
	if (!va || !vb)
		return fail(c, n, "link #%d needs both ends 'a' and 'b'", idx + 1);
	if ((ret = get_name(c, va, "link end", l->a)) < 0 ||
	    (ret = get_name(c, vb, "link end", l->b)) < 0)
		return ret;
	l->aline = LINE(va);
	l->acol = COL(va);
	l->bline = LINE(vb);
	l->bcol = COL(vb);
	if (vn) {
		const char *s = sval(vn);

		if (!s || is_null(vn))
			return fail(c, vn, "link name must be a word, got %s", kind_of(c, vn));
		if ((ret = check_name(c, vn, "link", s, LINK_NAME_MAX)) < 0)
			return ret;
		snprintf(l->name, sizeof(l->name), "%s", s);
		l->named = true;
		l->line = LINE(vn);
		l->col = COL(vn);
	} else {
		snprintf(l->name, sizeof(l->name), "%s-%s", l->a, l->b);
	}
	snprintf(subject, sizeof(subject), "link '%s'", l->name);
	if ((ret = parse_pset(c, n, subject, &l->p.sym)) < 0)
		return ret;
	return parse_dirs(c, n, subject, &l->p);
}

static int parse_top(struct ctx *c, const yaml_node_t *root)
{
	static const char *const keys[] = { "name", "root", "addressing", "mtu", "seed",
					    "defaults", "tcp", "sites", "hubs", "links", NULL };
	yaml_node_item_t *items;
	const yaml_node_t *v;
	uint64_t u;
	int ret, nitems;

	if ((ret = check_map(c, root, NULL, keys)) < 0)
		return ret;
	if (!(v = get(c, root, "name")))
		return fail(c, root, "topology has no 'name'");
	if ((ret = get_name(c, v, "topology", c->name)) < 0)
		return ret;
	if ((v = get(c, root, "addressing")) && (ret = parse_addressing(c, v)) < 0)
		return ret;
	if ((v = get(c, root, "mtu"))) {
		if (parse_uint(sval(v), 65535, &u) < 0 || u < 68)
			return fail(c, v, "mtu must be an integer 68 .. 65535, got %s",
				    kind_of(c, v));
		c->mtu = (uint32_t)u;
	}
	if ((v = get(c, root, "seed"))) {
		if (parse_uint(sval(v), UINT64_MAX, &u) < 0)
			return fail(c, v, "seed must be a non-negative integer, got %s",
				    kind_of(c, v));
		c->seed = u;
	}
	if ((v = get(c, root, "defaults")) && (ret = parse_defaults(c, v)) < 0)
		return ret;
	if ((v = get(c, root, "tcp")) && (ret = gb_tcp_parse(&c->y, v, "topology", &c->tcp)) < 0)
		return ret;

	v = get(c, root, "sites");
	if ((ret = get_list(c, v, "sites", &items, &nitems)) < 0)
		return ret;
	if (!nitems)
		return fail(c, v ? v : root, "topology has no sites");
	for (int i = 0; i < nitems; i++)
		if ((ret = parse_site(c, node(c, items[i]), i)) < 0)
			return ret;

	v = get(c, root, "hubs");
	if ((ret = get_list(c, v, "hubs", &items, &nitems)) < 0)
		return ret;
	for (int i = 0; i < nitems; i++) {
		const yaml_node_t *h = node(c, items[i]);
		struct bname *b;

		if ((ret = too_many_nodes(c, h, 1)) < 0)
			return ret;
		if (!(b = grow(&c->hubs, &c->nhubs, &c->chubs, sizeof(*c->hubs))))
			return -ENOMEM;
		if ((ret = get_name(c, h, "hub", b->name)) < 0)
			return ret;
		b->line = LINE(h);
		b->col = COL(h);
	}

	v = get(c, root, "links");
	if ((ret = get_list(c, v, "links", &items, &nitems)) < 0)
		return ret;
	for (int i = 0; i < nitems; i++)
		if ((ret = parse_link(c, node(c, items[i]), i)) < 0)
			return ret;

	if ((v = get(c, root, "root"))) {
		if ((ret = get_name(c, v, "root", c->root)) < 0)
			return ret;
		c->root_line = LINE(v);
		c->root_col = COL(v);
	}
	return 0;
}

/* ---- entry points -------------------------------------------------------- */

int gb_topo_parse(const char *buf, size_t len, const char *name, struct gb_topo **out,
		  struct gb_diag *diag)
{
	struct ctx c = {
		.data = { 0x0afa0000u, 16 }, /* 10.250.0.0/16 */
		.mgmt = { 0x0afb0000u, 16 }, /* 10.251.0.0/16 */
		.mtu = 1500,
		.seed = 1,
	};
	yaml_node_t *root;
	int ret;

	gb_yaml_init(&c.y, name, diag, "a topology");
	c.y.key_hint = dir_key_hint;
	if (out)
		*out = NULL;
	if (!buf || !out)
		return -EINVAL;
	if ((ret = gb_yaml_load(&c.y, buf, len)) < 0)
		goto cleanup;
	root = gb_yaml_root(&c.y);
	if (!root) {
		ret = fail_at(&c, 1, 1, "empty topology (expected a mapping with 'name' and "
			      "'sites')");
		goto cleanup;
	}
	if ((ret = gb_yaml_refuse_aliases(&c.y)) < 0 || (ret = parse_top(&c, root)) < 0 ||
	    (ret = topo_build(&c)) < 0)
		goto cleanup;
	*out = c.t;
	c.t = NULL;
	ret = 0;
cleanup:
	if (ret < 0 && ret != -EINVAL && diag && !diag->msg[0]) {
		snprintf(diag->file, sizeof(diag->file), "%s", c.y.file);
		snprintf(diag->msg, sizeof(diag->msg), "%s", strerror(-ret));
	}
	gb_topo_free(c.t);
	free(c.sites);
	free(c.clusters);
	free(c.hosts);
	free(c.hubs);
	free(c.links);
	gb_yaml_release(&c.y);
	return ret;
}

int gb_topo_load(const char *path, struct gb_topo **out, struct gb_diag *diag)
{
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (out)
		*out = NULL;
	if (diag) {
		memset(diag, 0, sizeof(*diag));
		snprintf(diag->file, sizeof(diag->file), "%s", path ? path : "");
	}
	if (!path || !out)
		return -EINVAL;
	ret = gb_read_file(path, MAX_FILE_SIZE, &buf, &len);
	if (ret == 0)
		ret = gb_topo_parse(buf, len, path, out, diag);
	if (ret < 0 && ret != -EINVAL && diag && !diag->msg[0])
		snprintf(diag->msg, sizeof(diag->msg), "cannot read '%s': %s", path,
			 strerror(-ret));
	free(buf);
	return ret;
}
