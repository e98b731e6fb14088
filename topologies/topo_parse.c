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
 *      connectivity, addresses, routes.
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

#define MAX_FILE_SIZE (64u << 20)
#define MAX_DELAY_NS (60ull * 1000000000ull)
#define MAX_LIMIT 1000000u
#define LINK_NAME_MAX (2 * GB_NAME_MAX + 1)

/* ---- the builder ------------------------------------------------------- */

enum { P_DELAY, P_JITTER, P_LOSS, P_RATE, P_LIMIT, P_N }; /* = GB_LD_* bit order */
static const char *const pnames[P_N] = { "delay", "jitter", "loss", "rate", "limit" };

struct pval {           /* one link parameter as written in the file */
	bool set;
	uint64_t u;     /* delay, jitter (ns), rate (bit/s), limit */
	double d;       /* loss */
	const char *text;
	int line, col;
};

struct pset {
	struct pval v[P_N];
};

/* A parameter block: values for both directions, then per direction
 * (dir[0] = "a>b", dir[1] = "b>a"), which win. */
struct pblock {
	struct pset sym, dir[2];
};

struct bname {          /* a host or a hub */
	char name[GB_NAME_MAX + 1];
	int line, col;
	struct gb_tcp_set tcp;  /* a host's own `tcp:` */
};

struct bsite {
	char name[GB_NAME_MAX + 1];
	int line, col;
};

struct bcluster {
	char name[GB_NAME_MAX + 1];
	int line, col;
	int site, first_host, nhosts;
	struct pblock hl, ul;
	double cpu;
	struct gb_tcp_set tcp;
};

struct blink {
	char a[GB_NAME_MAX + 1], b[GB_NAME_MAX + 1];
	int aline, acol, bline, bcol;
	char name[LINK_NAME_MAX + 1];
	bool named;
	struct pblock p;
	int line, col;
};

struct ctx {
	struct gb_yaml y;       /* file, diagnostic, document (gbyaml.h) */

	char name[GB_NAME_MAX + 1];
	char root[GB_NAME_MAX + 1];
	int root_line, root_col;
	struct gb_prefix data, mgmt;
	int data_line, data_col, mgmt_line, mgmt_col;
	uint32_t mtu;
	uint64_t seed;
	struct pblock dhl, dul;
	struct gb_tcp_set tcp;  /* the top level's `tcp:` */

	struct bsite *sites;
	int nsites, csites;
	struct bcluster *clusters;
	int nclusters, cclusters;
	struct bname *hosts;
	int nhosts, chosts;
	struct bname *hubs;
	int nhubs, chubs;
	struct blink *links;
	int nlinks, clinks;

	struct gb_topo *t;      /* step 3 */
};

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

/* ---- diagnostics and YAML helpers (gbyaml.h) ------------------------------ */

#define LINE(n) GB_YLINE(n)
#define COL(n) GB_YCOL(n)
#define fail_at(c, line, col, ...) gb_yaml_fail_at(&(c)->y, (line), (col), __VA_ARGS__)
#define fail(c, n, ...) gb_yaml_fail(&(c)->y, (n), __VA_ARGS__)
#define quote(c, s) gb_yaml_quote(&(c)->y, (s))
#define node(c, id) gb_yaml_node(&(c)->y, (id))
#define sval(n) gb_yaml_str(n)
#define is_null(n) gb_yaml_is_null(n)
#define kind_of(c, n) gb_yaml_kind(&(c)->y, (n))
#define get(c, n, key) gb_yaml_get(&(c)->y, (n), (key))
#define get_list(c, v, what, items, n) gb_yaml_list(&(c)->y, (v), (what), (items), (n))
#define check_map(c, n, subject, allowed) gb_yaml_check_map(&(c)->y, (n), (subject), (allowed))

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
 * out for "unlimited"); 0% <= loss <= 100%; 1 <= limit <= 1000000.
 */
static int parse_param(struct ctx *c, const yaml_node_t *n, const char *subject, int p,
		       struct pval *out)
{
	static const char *const unit[P_N] = { "ms", "ms", "%", "mbit", "" };
	static const char *const kind[P_N] = { "a time", "a time", "a loss rate", "a rate",
					       "a packet count" };
	const char *s = sval(n);
	int ret = 0;

	if (!s || is_null(n))
		return fail(c, n, "%s: %s must be %s, got %s", subject, pnames[p], kind[p],
			    kind_of(c, n));
	switch (p) {
	case P_DELAY:
	case P_JITTER:
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
	if (p == P_RATE && out->u == 0)
		return fail(c, n, "%s: rate '%s' must be positive (leave 'rate' out for an "
			    "unlimited link)", subject, quote(c, s));
	out->set = true;
	out->text = s;
	out->line = LINE(n);
	out->col = COL(n);
	return 0;
}

/* The five parameter keys of mapping @n (keys already checked). */
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
	static const char *const keys[] = { "delay", "jitter", "loss", "rate", "limit", NULL };
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
					    "a>b", "b>a", NULL };
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
					    "limit", "a>b", "b>a", NULL };
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
		}
		ld->set |= 1u << p;
		src[p] = *v;
	}
}

/*
 * Fill both directions of link @l from parameter blocks, most general
 * first: for each block, its both-direction values then its per-direction
 * ones.  Jitter may not exceed delay (netem would clamp negative delays to
 * zero and skew the mean; see docs/topology-format.md).
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

static int build(struct ctx *c)
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
	    (ret = build(&c)) < 0)
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
