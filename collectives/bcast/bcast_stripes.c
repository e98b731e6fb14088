/* SPDX-License-Identifier: MIT */
/*
 * bcast_stripes.c - the stripes of a segmented broadcast chosen by message
 * size (struct gb_stripes, bcast_core.h; issue 14).
 *
 * A decision table in the manner of Open MPI's coll/tuned dynamic rules:
 * the user writes it from measurements, the library only looks it up.  On
 * teragrid four stripes took 1 MiB from 1.59 x to 1.36 x the lower bound and
 * 8 MiB from 1.25 x to 1.68 x (docs/measurements.md, sessions 19-20): they
 * pay while the wide-area connections restart from a small window after an
 * idle time, and cost once the flows are long enough to overflow a
 * drop-tail queue.  No cost model here says where one turns into the
 * other, so there is no automatic choice; one number K still means K
 * trees for every size.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>

#include <jansson.h>

#include "bcast_core.h"
#include "gbcore.h"

/* "K": a number of trees, 1 .. GB_STRIPES_MAX, and nothing else */
static int parse_k(const char *s, size_t len, int *k)
{
	char buf[16], *end;
	long v;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtol(buf, &end, 10);
	if (*end || !isdigit((unsigned char)buf[0]) || v < 1 || v > GB_STRIPES_MAX)
		return -EINVAL;
	*k = (int)v;
	return 0;
}

/* gb_stripes_parse_why()'s refusal: -EINVAL, and why in @why if given */
__attribute__((format(printf, 2, 3))) static int bad_table(struct gb_err *why, const char *fmt,
							   ...)
{
	va_list ap;

	va_start(ap, fmt);
	gb_err_vset(why, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int gb_stripes_parse_why(const char *s, struct gb_stripes *out, struct gb_err *why)
{
	struct gb_stripes t = { .n = 0, .rest = 1 };
	const char *p = s;

	if (!s || !out)
		return -EINVAL;
	if (!*s)
		return bad_table(why, "an empty table");
	for (;;) {
		const char *comma = strchr(p, ','), *colon;
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char size[32];

		colon = memchr(p, ':', len);
		if (!colon) {
			/* a bare K: the trees of every larger message, last */
			if (comma)
				return bad_table(why, "the bare K '%.*s' is not last (it is "
						 "the trees of every larger message: one, at the "
						 "end)", (int)len, p);
			if (parse_k(p, len, &t.rest) < 0)
				return bad_table(why, "'%.*s' is not a number of trees from "
						 "1 to %d", (int)len, p, GB_STRIPES_MAX);
			break;
		}
		if (t.n == GB_STRIPE_RULES)
			return bad_table(why, "more than %d SIZE:K rules",
					 GB_STRIPE_RULES);
		if ((size_t)(colon - p) >= sizeof(size) || colon == p)
			return bad_table(why, "'%.*s' is not a size", (int)(colon - p), p);
		memcpy(size, p, (size_t)(colon - p));
		size[colon - p] = '\0';
		if (gb_parse_size(size, &t.upto[t.n]) < 0)
			return bad_table(why, "'%s' is not a size", size);
		if (!(t.upto[t.n] > 0))
			return bad_table(why, "'%.*s' holds no message (a rule's size "
					 "must be above 0)", (int)len, p);
		if (t.n > 0 && !(t.upto[t.n] > t.upto[t.n - 1]))
			return bad_table(why, "sizes must increase: '%s' after %.0f bytes",
					 size, t.upto[t.n - 1]);
		if (parse_k(colon + 1, len - (size_t)(colon + 1 - p), &t.k[t.n]) < 0)
			return bad_table(why, "'%.*s' is not a number of trees from 1 to "
					 "%d", (int)(len - (size_t)(colon + 1 - p)), colon + 1,
					 GB_STRIPES_MAX);
		t.n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	*out = t;
	return 0;
}

int gb_stripes_parse(const char *s, struct gb_stripes *out)
{
	return gb_stripes_parse_why(s, out, NULL);
}

int gb_stripes_for(const struct gb_stripes *t, double bytes)
{
	if (!t)
		return 1;
	for (int i = 0; i < t->n && i < GB_STRIPE_RULES; i++)
		if (bytes <= t->upto[i])
			return t->k[i] > 1 ? t->k[i] : 1;
	return t->rest > 1 ? t->rest : 1;
}

int gb_stripes_format(const struct gb_stripes *t, char *buf, size_t len)
{
	size_t o = 0;
	int w;

	if (!t || !buf || len == 0)
		return -EINVAL;
	buf[0] = '\0';
	for (int i = 0; i < t->n && i < GB_STRIPE_RULES; i++) {
		w = snprintf(buf + o, len - o, "%.0f:%d,", t->upto[i], t->k[i]);
		if (w < 0 || (size_t)w >= len - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	w = snprintf(buf + o, len - o, "%d", t->rest > 1 ? t->rest : 1);
	if (w < 0 || (size_t)w >= len - o)
		return -ENOSPC;
	return 0;
}

json_t *gb_stripes_json(const struct gb_stripes *t)
{
	char st[GB_STRIPES_FMT_MAX];

	if (t->n == 0)
		return json_integer(gb_stripes_for(t, 0));
	return gb_stripes_format(t, st, sizeof(st)) == 0 ? json_string(st) : NULL;
}
