// SPDX-License-Identifier: MIT
/*
 * tapd_config.c - gridemu-tapd: the configuration file, parsed and validated whole
 * before anything is created (tapd_daemon.h).
 */
#include <ctype.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <sys/un.h>

#include "tapd.h"
#include "tapd_daemon.h"

/* ---- configuration ----------------------------------------------------- */

/* Is every key of @obj in @allowed (NULL-terminated)?  Names the first
 * stranger in @e. */
static int cfg_keys(struct tapd *t, struct gb_err *e, const char *place, json_t *obj,
		    const char *const *allowed)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		const char *const *a;

		for (a = allowed; *a; a++)
			if (!strcmp(*a, key))
				break;
		if (!*a)
			return tapd_fail(e, "%s: %s: unknown key '%s'", t->config_path, place, key);
	}
	return 0;
}

static int cfg_uint(struct tapd *t, struct gb_err *e, const char *place, json_t *v, uint64_t max,
		    uint64_t *out)
{
	json_int_t x;

	if (!json_is_integer(v))
		return tapd_fail(e, "%s: %s: expected an integer", t->config_path, place);
	x = json_integer_value(v);
	if (x < 0 || (uint64_t)x > max)
		return tapd_fail(e, "%s: %s: %lld is out of range [0, %" PRIu64 "]",
				 t->config_path, place, (long long)x, max);
	*out = (uint64_t)x;
	return 0;
}

static int valid_ifname(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= IFNAMSIZ || !strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || *s == '%' || isspace((unsigned char)*s) ||
		    !isprint((unsigned char)*s))
			return 0;
	return 1;
}

static int cfg_params(struct tapd *t, struct gb_err *e, const char *place, json_t *obj,
		      struct tapd_params *p)
{
	static const char *const keys[] = { "delay_ns", "jitter_ns", "loss", "limit", NULL };
	char sub[128];
	uint64_t x;
	json_t *v;
	int err;

	p->delay_ns = 0;
	p->jitter_ns = 0;
	p->loss = 0;
	p->limit = DEFAULT_LIMIT;
	if (!obj)
		return 0;
	if (!json_is_object(obj))
		return tapd_fail(e, "%s: %s: expected an object", t->config_path, place);
	if ((err = cfg_keys(t, e, place, obj, keys)) < 0)
		return err;
	if ((v = json_object_get(obj, "delay_ns"))) {
		snprintf(sub, sizeof(sub), "%s.delay_ns", place);
		if ((err = cfg_uint(t, e, sub, v, TAPD_MAX_DELAY_NS, &p->delay_ns)) < 0)
			return err;
	}
	if ((v = json_object_get(obj, "jitter_ns"))) {
		snprintf(sub, sizeof(sub), "%s.jitter_ns", place);
		if ((err = cfg_uint(t, e, sub, v, TAPD_MAX_DELAY_NS, &p->jitter_ns)) < 0)
			return err;
	}
	if ((v = json_object_get(obj, "loss"))) {
		double l = json_number_value(v);

		if (!json_is_number(v))
			return tapd_fail(e, "%s: %s.loss: expected a number", t->config_path, place);
		if (!(l >= 0 && l <= 1))
			return tapd_fail(e, "%s: %s.loss: %g is not a probability in [0, 1]",
					 t->config_path, place, l);
		p->loss = l;
	}
	if ((v = json_object_get(obj, "limit"))) {
		snprintf(sub, sizeof(sub), "%s.limit", place);
		if ((err = cfg_uint(t, e, sub, v, TAPD_MAX_LIMIT, &x)) < 0)
			return err;
		if (!x)
			return tapd_fail(e, "%s: %s: the limit must be at least 1 packet",
					 t->config_path, sub);
		p->limit = (uint32_t)x;
	}
	return 0;
}

static int cfg_side(struct tapd *t, struct gb_err *e, const char *place, json_t *obj,
		    struct tapd_side *s)
{
	static const char *const keys[] = { "netns", "ifname", "kind", NULL };
	json_t *ns, *ifn, *kind;
	int err;

	if (!obj)
		return tapd_fail(e, "%s: %s: missing (an object with netns and ifname)",
				 t->config_path, place);
	if (!json_is_object(obj))
		return tapd_fail(e, "%s: %s: expected an object", t->config_path, place);
	if ((err = cfg_keys(t, e, place, obj, keys)) < 0)
		return err;
	ns = json_object_get(obj, "netns");
	ifn = json_object_get(obj, "ifname");
	kind = json_object_get(obj, "kind");
	if (kind && (!json_is_string(kind) || (strcmp(json_string_value(kind), "tun") &&
					       strcmp(json_string_value(kind), "packet"))))
		return tapd_fail(e, "%s: %s.kind: expected \"tun\" or \"packet\"",
				 t->config_path, place);
	s->packet = kind && !strcmp(json_string_value(kind), "packet");
	if (!json_is_string(ns) || !*json_string_value(ns) ||
	    strlen(json_string_value(ns)) >= PATH_MAX)
		return tapd_fail(e, "%s: %s.netns: expected the path of a network namespace",
				 t->config_path, place);
	if (!json_is_string(ifn))
		return tapd_fail(e, "%s: %s.ifname: expected an interface name", t->config_path,
				 place);
	if (!valid_ifname(json_string_value(ifn)))
		return tapd_fail(e, "%s: %s.ifname: '%s' is not a valid interface name "
				 "(1-15 printable characters, no '/', ':', '%%' or space)",
				 t->config_path, place, json_string_value(ifn));
	s->netns = strdup(json_string_value(ns));
	if (!s->netns)
		return tapd_fail(e, "%s: out of memory", t->config_path);
	snprintf(s->ifname, sizeof(s->ifname), "%s", json_string_value(ifn));
	return 0;
}

static int cfg_link(struct tapd *t, struct gb_err *e, size_t i, json_t *obj, struct tapd_link *l)
{
	static const char *const keys[] = { "id", "name", "a", "b", "ab", "ba", NULL };
	static const char *const side_name[2] = { "a", "b" };
	static const char *const dir_name[2] = { "ab", "ba" };
	char place[64], sub[80];
	uint64_t id;
	json_t *v;
	int k, err;

	snprintf(place, sizeof(place), "links[%zu]", i);
	if (!json_is_object(obj))
		return tapd_fail(e, "%s: %s: expected an object", t->config_path, place);
	if ((err = cfg_keys(t, e, place, obj, keys)) < 0)
		return err;
	snprintf(sub, sizeof(sub), "%s.id", place);
	if (!(v = json_object_get(obj, "id")))
		return tapd_fail(e, "%s: %s: missing", t->config_path, sub);
	if ((err = cfg_uint(t, e, sub, v, INT64_MAX, &id)) < 0)
		return err;
	l->id = (int64_t)id;
	v = json_object_get(obj, "name");
	if (!json_is_string(v) || !*json_string_value(v))
		return tapd_fail(e, "%s: %s.name: expected a non-empty string", t->config_path,
				 place);
	l->name = strdup(json_string_value(v));
	if (!l->name)
		return tapd_fail(e, "%s: out of memory", t->config_path);
	for (k = 0; k < 2; k++) {
		snprintf(sub, sizeof(sub), "%s.%s", place, side_name[k]);
		if ((err = cfg_side(t, e, sub, json_object_get(obj, side_name[k]), &l->side[k])) < 0)
			return err;
		snprintf(sub, sizeof(sub), "%s.%s", place, dir_name[k]);
		if ((err = cfg_params(t, e, sub, json_object_get(obj, dir_name[k]),
				      &l->dir[k].pending)) < 0)
			return err;
	}
	return 0;
}

/* Two links with one id, or two devices with one name in one namespace,
 * can only be a bug in whoever wrote the file. */
static int cfg_unique(struct tapd *t, struct gb_err *e)
{
	static const char *const side_name[2] = { "a", "b" };
	size_t i, j;
	int s, u;

	for (i = 0; i < t->nlinks; i++) {
		for (j = 0; j < i; j++) {
			if (t->links[i].id == t->links[j].id)
				return tapd_fail(e, "%s: links[%zu].id: %" PRId64 " is also the id of "
						 "links[%zu]", t->config_path, i, t->links[i].id, j);
		}
		for (s = 0; s < 2; s++) {
			const struct tapd_side *a = &t->links[i].side[s];

			for (j = 0; j <= i; j++) {
				for (u = 0; u < 2 && (j < i || u < s); u++) {
					const struct tapd_side *b = &t->links[j].side[u];

					if (!strcmp(a->netns, b->netns) && !strcmp(a->ifname, b->ifname))
						return tapd_fail(e, "%s: links[%zu].%s: device '%s' in %s "
								 "is also links[%zu].%s", t->config_path,
								 i, side_name[s], a->ifname, a->netns, j,
								 side_name[u]);
				}
			}
		}
	}
	return 0;
}

int tapd_config_load(struct tapd *t, struct gb_err *e)
{
	static const char *const keys[] = { "seed", "pass_ns", "links", NULL };
	json_error_t jerr;
	json_t *root, *links, *v;
	size_t i;
	int err;

	root = json_load_file(t->config_path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (jerr.line > 0)
			return tapd_fail(e, "%s:%d:%d: %s", t->config_path, jerr.line, jerr.column,
					 jerr.text);
		return tapd_fail(e, "%s: %s", t->config_path, jerr.text);
	}
	if (!json_is_object(root)) {
		err = tapd_fail(e, "%s: expected a JSON object at the top", t->config_path);
		goto cleanup;
	}
	if ((err = cfg_keys(t, e, "top level", root, keys)) < 0)
		goto cleanup;
	t->seed = DEFAULT_SEED;
	if ((v = json_object_get(root, "seed")) &&
	    (err = cfg_uint(t, e, "seed", v, INT64_MAX, &t->seed)) < 0)
		goto cleanup;
	if ((v = json_object_get(root, "pass_ns")) &&
	    (err = cfg_uint(t, e, "pass_ns", v, TAPD_MAX_DELAY_NS, &t->pass_ns)) < 0)
		goto cleanup;
	links = json_object_get(root, "links");
	if (!json_is_array(links)) {
		err = tapd_fail(e, "%s: links: expected an array", t->config_path);
		goto cleanup;
	}
	t->nlinks = json_array_size(links);
	t->links = calloc(t->nlinks ? t->nlinks : 1, sizeof(*t->links));
	if (!t->links) {
		err = tapd_fail(e, "%s: out of memory", t->config_path);
		goto cleanup;
	}
	for (i = 0; i < t->nlinks; i++) {
		t->links[i].side[0].fd = t->links[i].side[1].fd = -1;
		pthread_mutex_init(&t->links[i].dir[0].lock, NULL);
		pthread_mutex_init(&t->links[i].dir[1].lock, NULL);
	}
	for (i = 0; i < t->nlinks; i++) {
		if ((err = cfg_link(t, e, i, json_array_get(links, i), &t->links[i])) < 0)
			goto cleanup;
	}
	err = cfg_unique(t, e);

cleanup:
	json_decref(root);
	return err;
}
