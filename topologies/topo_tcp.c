// SPDX-License-Identifier: MIT
/*
 * topo_tcp.c - the hosts' TCP stack in topology files: the `tcp:` blocks
 * (top level, cluster, host), their layering, the defaults and their
 * one-line form (docs/topology-format.md, "The hosts' TCP stack").
 *
 * Why the stack is part of the topology: a new network namespace inherits
 * the root namespace's tcp_congestion_control, so without this a grid's
 * TCP would be whatever the machine that ran it was configured with (bbr on
 * one box, cubic on the next), and every MPI timing with it.
 *
 * The defaults, a grid host of the papers' era (2002-2008) as far as this
 * kernel can be one:
 *   - congestion: cubic.  The papers' Linux hosts ran BIC (the default of
 *     2.6.8-2.6.18, 2004-2006) or CUBIC (2.6.19 on); BIC is not built into
 *     current kernels, and CUBIC is its successor in the same family.  BBR
 *     (2016) is out of the era.
 *   - slow_start_after_idle: on.  RFC 2861's restart after idle is what
 *     Linux did then (and still does by default); seed 000's application
 *     idles up to 90 s between broadcasts, so the paper's broadcasts paid
 *     it.  Off is one key away, for the ablation.
 *   - buffers: 64 MiB (the maximum of tcp_rmem and tcp_wmem), tuned grid
 *     hosts: enough for a single flow to fill 1 Gbit/s over 500 ms, so that
 *     goodput measures the link, not the window.
 *   - initcwnd: the kernel's (10 segments, RFC 6928).  It is a constant of
 *     the kernel, not a setting a machine carries, so it is not inherited
 *     from the machine; the era's RFC 3390 window (3 segments at a 1460-byte
 *     MSS) is `initcwnd: 3`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbyaml.h"

void gb_tcp_defaults(struct gb_tcp *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->congestion, sizeof(t->congestion), "%s", GB_TCP_DEFAULT_CC);
	t->slow_start_after_idle = GB_TCP_DEFAULT_SSAI;
	t->buf_max = GB_TCP_DEFAULT_BUF;
	t->initcwnd = GB_TCP_DEFAULT_INITCWND;
}

const char *gb_tcp_format(const struct gb_tcp *t, char *buf, size_t len)
{
	char iw[24];

	if (t->initcwnd)
		snprintf(iw, sizeof(iw), "%" PRIu32, t->initcwnd);
	else
		snprintf(iw, sizeof(iw), "kernel's");
	if (t->buf_max % (1ull << 20) == 0)
		snprintf(buf, len, "%s, slow start after idle %s, buffers %" PRIu64 " MiB, "
			 "initcwnd %s", t->congestion, t->slow_start_after_idle ? "on" : "off",
			 t->buf_max >> 20, iw);
	else
		snprintf(buf, len, "%s, slow start after idle %s, buffers %" PRIu64 " B, "
			 "initcwnd %s", t->congestion, t->slow_start_after_idle ? "on" : "off",
			 t->buf_max, iw);
	if (t->rto_min_ms) {
		size_t at = strlen(buf);

		snprintf(buf + at, len - at, ", rto_min %" PRIu32 " ms", t->rto_min_ms);
	}
	return buf;
}

int gb_tcp_cc_clocked(const char *cc)
{
	if (!cc || !cc[0])
		cc = GB_TCP_DEFAULT_CC;
	return !strcmp(cc, "cubic") || !strcmp(cc, "bbr");
}

int gb_tcp_hosts_run(const struct gb_topo *t, const char *cc)
{
	for (int i = 0; i < t->nhosts; i++) {
		const char *c = t->nodes[i].tcp.congestion;

		if (!strcmp(c[0] ? c : GB_TCP_DEFAULT_CC, cc))
			return 1;
	}
	return 0;
}

int gb_tcp_equal(const struct gb_tcp *a, const struct gb_tcp *b)
{
	return !strcmp(a->congestion, b->congestion) &&
	       a->slow_start_after_idle == b->slow_start_after_idle &&
	       a->buf_max == b->buf_max && a->initcwnd == b->initcwnd &&
	       a->rto_min_ms == b->rto_min_ms;
}

/* A congestion control name as the kernel spells them: [a-z0-9_]. */
static int cc_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > GB_TCP_CC_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

int gb_tcp_parse(struct gb_yaml *y, const yaml_node_t *n, const char *subject,
		 struct gb_tcp_set *out)
{
	static const char *const keys[] = { "congestion", "slow_start_after_idle", "buffers",
					    "initcwnd", NULL };
	char sub[96];
	const yaml_node_t *v;
	const char *s;
	int ret;

	snprintf(sub, sizeof(sub), "%s tcp", subject);
	if ((ret = gb_yaml_check_map(y, n, sub, keys)) < 0)
		return ret;
	if ((v = gb_yaml_get(y, n, "congestion"))) {
		s = gb_yaml_str(v);
		if (!s || !cc_name_ok(s))
			return gb_yaml_fail(y, v, "%s: congestion must be a congestion control "
					    "name such as cubic or reno, got %s", sub,
					    gb_yaml_kind(y, v));
		snprintf(out->v.congestion, sizeof(out->v.congestion), "%s", s);
		out->v.cc_line = GB_YLINE(v);
		out->v.cc_col = GB_YCOL(v);
		out->set |= GB_TCP_SET_CC;
	}
	if ((v = gb_yaml_get(y, n, "slow_start_after_idle"))) {
		s = gb_yaml_str(v);
		if (s && (!strcmp(s, "true") || !strcmp(s, "on") || !strcmp(s, "1")))
			out->v.slow_start_after_idle = 1;
		else if (s && (!strcmp(s, "false") || !strcmp(s, "off") || !strcmp(s, "0")))
			out->v.slow_start_after_idle = 0;
		else
			return gb_yaml_fail(y, v, "%s: slow_start_after_idle must be true or "
					    "false, got %s", sub, gb_yaml_kind(y, v));
		out->set |= GB_TCP_SET_SSAI;
	}
	if ((v = gb_yaml_get(y, n, "buffers"))) {
		uint64_t b;

		s = gb_yaml_str(v);
		if (!s || gb_parse_bytes(s, &b) < 0)
			return gb_yaml_fail(y, v, "%s: buffers must be a size with a unit "
					    "(64MiB, 4mb), got %s", sub, gb_yaml_kind(y, v));
		/* tcp_rmem/tcp_wmem are ints, and below 64 KiB a window could not
		 * even hold the kernel's default initial buffers. */
		if (b < (64u << 10) || b > INT32_MAX)
			return gb_yaml_fail(y, v, "%s: buffers '%s' is out of range (64KiB .. "
					    "2GiB)", sub, gb_yaml_quote(y, s));
		out->v.buf_max = b;
		out->set |= GB_TCP_SET_BUF;
	}
	if ((v = gb_yaml_get(y, n, "initcwnd"))) {
		char *end;
		unsigned long u;

		s = gb_yaml_str(v);
		if (!s || !*s || s[0] < '0' || s[0] > '9' ||
		    (errno = 0, u = strtoul(s, &end, 10), *end || errno) ||
		    u < 1 || u > GB_TCP_INITCWND_MAX)
			return gb_yaml_fail(y, v, "%s: initcwnd must be a number of segments "
					    "1 .. %d, got %s", sub, GB_TCP_INITCWND_MAX,
					    gb_yaml_kind(y, v));
		out->v.initcwnd = (uint32_t)u;
		out->set |= GB_TCP_SET_INITCWND;
	}
	return 0;
}

void gb_tcp_apply(struct gb_tcp *dst, const struct gb_tcp_set *s)
{
	if (s->set & GB_TCP_SET_CC) {
		memcpy(dst->congestion, s->v.congestion, sizeof(dst->congestion));
		dst->cc_line = s->v.cc_line;
		dst->cc_col = s->v.cc_col;
	}
	if (s->set & GB_TCP_SET_SSAI)
		dst->slow_start_after_idle = s->v.slow_start_after_idle;
	if (s->set & GB_TCP_SET_BUF)
		dst->buf_max = s->v.buf_max;
	if (s->set & GB_TCP_SET_INITCWND)
		dst->initcwnd = s->v.initcwnd;
}
