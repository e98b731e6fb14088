// SPDX-License-Identifier: MIT
/*
 * schedule_yaml.c - the explicit load schedule file (docs/formats.md, "Load
 * schedule"), read with libyaml's document API and checked against the
 * grid's topology, so that a bad name or value is reported at its place:
 *
 *   sched.yaml:7:22: load 2: fraction '120%' is not between 0 and 100%
 */
#include "gbload.h"
#include "gbyaml.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct ctx {
	struct gb_yaml y;       /* file, diagnostic, document (gbyaml.h) */
	const struct gb_topo *t;
};

#define LINE(n) GB_YLINE(n)
#define COL(n) GB_YCOL(n)
#define fail(c, n, ...) gb_yaml_fail(&(c)->y, (n), __VA_ARGS__)
#define quote(c, s) gb_yaml_quote(&(c)->y, (s))
#define node(c, id) gb_yaml_node(&(c)->y, (id))
#define sval(n) gb_yaml_str(n)
#define get(c, n, key) gb_yaml_get(&(c)->y, (n), (key))
#define check_map(c, n, subject, allowed) gb_yaml_check_map(&(c)->y, (n), (subject), (allowed))

/* "ddd[.ddd]" exactly, no sign or exponent; returns the end or NULL. */
static const char *decimal(const char *s, double *v)
{
	const char *p = s;
	int nd = 0;

	while (*p >= '0' && *p <= '9')
		p++, nd++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			nd++;
	if (!nd)
		return NULL;
	*v = strtod(s, NULL);
	return p;
}

/* "70%" or "0.7". */
static int parse_fraction(const char *s, double *out)
{
	double v;
	const char *end = s ? decimal(s, &v) : NULL;

	if (!end)
		return -EINVAL;
	if (!strcmp(end, "%"))
		v /= 100.0;
	else if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	if (!s || !*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end || *out > max ? -EINVAL : 0;
}

/* A host by name or by its data-plane address. */
static int host_of(struct ctx *c, const yaml_node_t *n, const char *what, int *out)
{
	const char *s = sval(n);
	struct in_addr a;
	int i;

	if (!s || !*s)
		return fail(c, n, "%s must be a host name", what);
	i = gb_topo_find_node(c->t, s);
	if (i < 0 && inet_pton(AF_INET, s, &a) == 1)
		for (int h = 0; h < c->t->nhosts && i < 0; h++)
			if (c->t->nodes[h].addr == ntohl(a.s_addr))
				i = h;
	if (i < 0 || i >= c->t->nhosts || c->t->nodes[i].kind != GB_NODE_HOST)
		return fail(c, n, "%s '%s' is not a host of grid '%s'", what, quote(c, s),
			    c->t->name);
	*out = i;
	return 0;
}

static int parse_load(struct ctx *c, const yaml_node_t *n, int idx, struct gb_load_iv *iv)
{
	static const char *const keys[] = { "start", "duration", "fraction", "link", "dir",
					    "src", "dst", NULL };
	char subj[32], ab[80], ba[80];
	const yaml_node_t *v;
	int err;

	snprintf(subj, sizeof(subj), "load %d", idx + 1);
	if ((err = check_map(c, n, subj, keys)) < 0)
		return err;
	memset(iv, 0, sizeof(*iv));
	iv->link = iv->src = iv->dst = -1;
	iv->dir = -1;
	iv->line = LINE(n);
	iv->col = COL(n);

	if (!(v = get(c, n, "start")))
		return fail(c, n, "%s: 'start' is missing", subj);
	if (gb_parse_duration(sval(v), &iv->start) < 0)
		return fail(c, v, "%s: start '%s' is not a time (use 4min, 90s, 250ms)", subj,
			    quote(c, sval(v) ? sval(v) : ""));
	if (!(v = get(c, n, "duration")))
		return fail(c, n, "%s: 'duration' is missing", subj);
	if (gb_parse_duration(sval(v), &iv->duration) < 0 || iv->duration <= 0)
		return fail(c, v, "%s: duration '%s' is not a positive time (use 6min, 30s)",
			    subj, quote(c, sval(v) ? sval(v) : ""));
	if (!(v = get(c, n, "fraction")))
		return fail(c, n, "%s: 'fraction' is missing", subj);
	if (parse_fraction(sval(v), &iv->fraction) < 0 || !(iv->fraction > 0) ||
	    !(iv->fraction < 1))
		return fail(c, v, "%s: fraction '%s' is not between 0 and 100%% (use 70%% or "
			    "0.7)", subj, quote(c, sval(v) ? sval(v) : ""));

	if ((v = get(c, n, "link"))) {
		if (!sval(v) || (iv->link = gb_topo_find_link(c->t, sval(v))) < 0)
			return fail(c, v, "%s: no link '%s' in grid '%s'", subj,
				    quote(c, sval(v) ? sval(v) : ""), c->t->name);
	}
	if ((v = get(c, n, "dir"))) {
		const struct gb_link *l;
		const char *s = sval(v);

		if (iv->link < 0)
			return fail(c, v, "%s: 'dir' needs a 'link'", subj);
		l = &c->t->links[iv->link];
		snprintf(ab, sizeof(ab), "%s>%s", c->t->nodes[l->a].name, c->t->nodes[l->b].name);
		snprintf(ba, sizeof(ba), "%s>%s", c->t->nodes[l->b].name, c->t->nodes[l->a].name);
		if (s && (!strcmp(s, ab) || !strcmp(s, "a>b")))
			iv->dir = 0;
		else if (s && (!strcmp(s, ba) || !strcmp(s, "b>a")))
			iv->dir = 1;
		else if (!s || strcmp(s, "both"))
			return fail(c, v, "%s: direction '%s' of link '%s' is not %s, %s or both",
				    subj, quote(c, s ? s : ""), l->name, ab, ba);
	}
	const yaml_node_t *vs = get(c, n, "src"), *vd = get(c, n, "dst");
	if ((vs != NULL) != (vd != NULL))
		return fail(c, vs ? vs : vd, "%s: 'src' and 'dst' go together", subj);
	if (vs) {
		if ((err = host_of(c, vs, "source", &iv->src)) < 0 ||
		    (err = host_of(c, vd, "destination", &iv->dst)) < 0)
			return err;
		if (iv->src == iv->dst)
			return fail(c, vd, "%s: source and destination are both '%s'", subj,
				    c->t->nodes[iv->src].name);
	}
	if (iv->link < 0 && iv->src < 0)
		return fail(c, n, "%s: give a 'link' (and 'dir') or a 'src' and 'dst'", subj);
	return 0;
}

static int parse_top(struct ctx *c, const yaml_node_t *root, struct gb_load_sched *s)
{
	static const char *const keys[] = { "seed", "scale", "proto", "size", "port", "loads",
					    NULL };
	const yaml_node_t *v;
	unsigned long long u;
	int err;

	if (!root)
		return fail(c, NULL, "the schedule is empty (it needs 'loads:')");
	if ((err = check_map(c, root, "a load schedule", keys)) < 0)
		return err;
	if ((v = get(c, root, "seed"))) {
		if (parse_uint(sval(v), UINT64_MAX, &u) < 0)
			return fail(c, v, "seed '%s' is not a non-negative integer",
				    quote(c, sval(v) ? sval(v) : ""));
		s->seed = u;
	}
	if ((v = get(c, root, "scale"))) {
		double f;
		const char *end = sval(v) ? decimal(sval(v), &f) : NULL;

		if (!end || *end || !(f > 0) || !isfinite(f))
			return fail(c, v, "scale '%s' is not a positive number",
				    quote(c, sval(v) ? sval(v) : ""));
		s->scale = f;
	}
	if ((v = get(c, root, "proto"))) {
		const char *p = sval(v);

		if (p && !strcmp(p, "udp"))
			s->proto = GB_LOAD_UDP;
		else if (p && !strcmp(p, "tcp"))
			s->proto = GB_LOAD_TCP;
		else
			return fail(c, v, "proto '%s' is not udp or tcp", quote(c, p ? p : ""));
	}
	if ((v = get(c, root, "size"))) {
		unsigned long long max = s->proto == GB_LOAD_TCP ? 1 << 20 : c->t->mtu - 28;

		if (parse_uint(sval(v), max, &u) < 0 || u < 16)
			return fail(c, v, "size '%s' is not a packet size from 16 to %llu bytes",
				    quote(c, sval(v) ? sval(v) : ""), max);
		s->size = (int)u;
	}
	if ((v = get(c, root, "port"))) {
		if (parse_uint(sval(v), 65535 - GB_LOAD_PORTS, &u) < 0 || u < 1)
			return fail(c, v, "port '%s' is not a port from 1 to %d",
				    quote(c, sval(v) ? sval(v) : ""), 65535 - GB_LOAD_PORTS);
		s->port = (int)u;
	}
	if (!(v = get(c, root, "loads")))
		return fail(c, root, "'loads' is missing");
	if (v->type == YAML_SCALAR_NODE && !*sval(v))
		return 0; /* "loads:" with nothing: an empty schedule */
	if (v->type != YAML_SEQUENCE_NODE)
		return fail(c, v, "'loads' must be a list");
	int n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
	s->iv = calloc((size_t)n + 1, sizeof(*s->iv));
	if (!s->iv)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		if ((err = parse_load(c, node(c, v->data.sequence.items.start[i]), i,
				      &s->iv[i])) < 0)
			return err;
		s->n++;
	}
	return 0;
}

int gb_load_parse(const char *buf, size_t len, const char *name, const struct gb_topo *t,
		  struct gb_load_sched *s, struct gb_diag *d)
{
	struct ctx c = { .t = t };
	int err;

	gb_load_sched_release(s);
	gb_load_sched_init(s);
	snprintf(s->source, sizeof(s->source), "%s", name);
	gb_yaml_init(&c.y, name, d, "a load schedule");
	if ((err = gb_yaml_load(&c.y, buf, len)) < 0)
		goto cleanup;
	if ((err = parse_top(&c, gb_yaml_root(&c.y), s)) < 0)
		goto cleanup;
	err = gb_load_resolve(t, s, d);
cleanup:
	gb_yaml_release(&c.y);
	if (err < 0)
		gb_load_sched_release(s);
	return err;
}

int gb_load_parse_file(const char *path, const struct gb_topo *t, struct gb_load_sched *s,
		       struct gb_diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	int err = gb_read_file(path, 64u << 20, &buf, &len);

	if (err < 0) {
		if (d) {
			snprintf(d->file, sizeof(d->file), "%s", path);
			d->line = d->col = 0;
			snprintf(d->msg, sizeof(d->msg), "cannot open: %s", strerror(-err));
		}
		return err;
	}
	err = gb_load_parse(buf, len, path, t, s, d);
	free(buf);
	return err;
}
