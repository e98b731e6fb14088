// SPDX-License-Identifier: MIT
/*
 * schedule_yaml.c - the explicit load schedule file (docs/formats.md, "Load
 * schedule"), read with libyaml's document API and checked against the
 * grid's topology, so that a bad name or value is reported at its place:
 *
 *   sched.yaml:7:22: load 2: fraction '120%' is not between 0 and 100%
 */
#include "gbload.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct ctx {
	const char *file;
	const struct gb_topo *t;
	struct gb_diag *diag;
	yaml_document_t *doc;
	char q[4][64];          /* quote() ring */
	int qi;
};

#define LINE(n) ((int)(n)->start_mark.line + 1)
#define COL(n) ((int)(n)->start_mark.column + 1)

static __attribute__((format(printf, 3, 4)))
int fail(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	if (!c->diag)
		return -EINVAL;
	snprintf(c->diag->file, sizeof(c->diag->file), "%s", c->file);
	c->diag->line = n ? LINE(n) : 0;
	c->diag->col = n ? COL(n) : 0;
	va_start(ap, fmt);
	vsnprintf(c->diag->msg, sizeof(c->diag->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A user's text made safe to quote in a one-line message. */
static const char *quote(struct ctx *c, const char *s)
{
	char *q = c->q[c->qi++ & 3];
	size_t i, max = sizeof(c->q[0]) - 4;

	for (i = 0; s[i] && i < max; i++)
		q[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	if (s[i])
		memcpy(q + i, "...", 4);
	else
		q[i] = '\0';
	return q;
}

static yaml_node_t *node(const struct ctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

static const char *sval(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* Mapping @n has only keys from @allowed, each once. */
static int check_map(struct ctx *c, const yaml_node_t *n, const char *subject,
		     const char *const *allowed)
{
	if (n->type != YAML_MAPPING_NODE)
		return fail(c, n, "%s must be a mapping", subject);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		const yaml_node_t *k = node(c, p->key);
		const char *ks = sval(k);
		const char *const *a;

		if (!ks)
			return fail(c, k, "%s: keys must be plain words", subject);
		for (a = allowed; *a && strcmp(*a, ks); a++)
			;
		if (!*a)
			return fail(c, k, "%s: unknown key '%s'", subject, quote(c, ks));
		for (yaml_node_pair_t *o = n->data.mapping.pairs.start; o < p; o++)
			if (!strcmp(sval(node(c, o->key)), ks))
				return fail(c, k, "%s: duplicate key '%s'", subject, ks);
	}
	return 0;
}

static yaml_node_t *get(const struct ctx *c, const yaml_node_t *n, const char *key)
{
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		const char *k = sval(node(c, p->key));

		if (k && !strcmp(k, key))
			return node(c, p->value);
	}
	return NULL;
}

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

/*
 * A duration in seconds: tc's units (ns, us, ms, s) through gb_parse_time(),
 * plus "min" and "h" because the paper's schedule is in minutes.  A bare
 * number is refused, as in topology files.
 */
static int parse_seconds(const char *s, double *out)
{
	static const struct {
		const char *u;
		double mult;
	} big[] = { { "min", 60 }, { "mins", 60 }, { "h", 3600 }, { "hour", 3600 },
		    { "hours", 3600 } };
	uint64_t ns;
	double v;
	const char *end = s ? decimal(s, &v) : NULL;

	if (!end)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		if (!strcmp(end, big[i].u)) {
			*out = v * big[i].mult;
			return 0;
		}
	}
	if (*end && gb_parse_time(s, &ns) == 0) {
		*out = (double)ns / 1e9;
		return 0;
	}
	if (*end == 0 && v == 0) {
		*out = 0;
		return 0;
	}
	return -EINVAL;
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
	if (parse_seconds(sval(v), &iv->start) < 0)
		return fail(c, v, "%s: start '%s' is not a time (use 4min, 90s, 250ms)", subj,
			    quote(c, sval(v) ? sval(v) : ""));
	if (!(v = get(c, n, "duration")))
		return fail(c, n, "%s: 'duration' is missing", subj);
	if (parse_seconds(sval(v), &iv->duration) < 0 || iv->duration <= 0)
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
	struct ctx c = { .file = name, .t = t, .diag = d };
	yaml_parser_t p;
	yaml_document_t doc;
	int err = 0, have_doc = 0;

	gb_load_sched_release(s);
	gb_load_sched_init(s);
	snprintf(s->source, sizeof(s->source), "%s", name);
	if (!yaml_parser_initialize(&p))
		return -ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&p, &doc)) {
		if (d) {
			snprintf(d->file, sizeof(d->file), "%s", name);
			d->line = (int)p.problem_mark.line + 1;
			d->col = (int)p.problem_mark.column + 1;
			snprintf(d->msg, sizeof(d->msg), "yaml: %s%s%s",
				 p.problem ? p.problem : "syntax error",
				 p.context ? " " : "", p.context ? p.context : "");
		}
		err = -EINVAL;
		goto cleanup;
	}
	have_doc = 1;
	c.doc = &doc;
	if ((err = parse_top(&c, yaml_document_get_root_node(&doc), s)) < 0)
		goto cleanup;
	err = gb_load_resolve(t, s, d);
cleanup:
	if (have_doc)
		yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	if (err < 0)
		gb_load_sched_release(s);
	return err;
}

int gb_load_parse_file(const char *path, const struct gb_topo *t, struct gb_load_sched *s,
		       struct gb_diag *d)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int err;

	if (!f) {
		err = -errno;
		if (d) {
			snprintf(d->file, sizeof(d->file), "%s", path);
			d->line = d->col = 0;
			snprintf(d->msg, sizeof(d->msg), "cannot open: %s", strerror(errno));
		}
		return err;
	}
	for (;;) {
		if (len == cap) {
			char *nb = realloc(buf, cap ? 2 * cap : 4096);

			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
			cap = cap ? 2 * cap : 4096;
		}
		size_t n = fread(buf + len, 1, cap - len, f);

		if (!n)
			break;
		len += n;
	}
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!err)
		err = gb_load_parse(buf, len, path, t, s, d);
	free(buf);
	return err;
}
