/* SPDX-License-Identifier: MIT */
/*
 * bcast_core.c - the MPI-free parts of libgridbcast (bcast_core.h): the
 * piggybacked tree header, timing arithmetic, the rank map, the topology's
 * lower bound and the verification pattern.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcast_core.h"
#include "gbtopo.h"

/* ------------------------------------------------------------------ */
/* Header                                                              */
/* ------------------------------------------------------------------ */

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) | get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

long gb_bhdr_encode_striped(const struct gb_tree *t, int stripes, const int *group, uint32_t seq,
			    uint64_t payload, void *buf, size_t len)
{
	uint8_t *p = buf, *cnt, *lst;
	size_t need;

	if (!t || t->n < 1 || t->n > 65536 || stripes < 1 || stripes > GB_STRIPES_MAX ||
	    gb_tree_check(t, NULL) < 0)
		return -EINVAL;
	for (int v = 0; stripes > 1 && group && v < t->n; v++)
		if (group[v] < -1 || group[v] >= 0xffff)
			return -EINVAL;
	need = gb_bhdr_size_striped(t->n, stripes);
	if (len < need)
		return -ENOSPC;
	put32(p, GB_BHDR_MAGIC);
	put16(p + 4, stripes > 1 ? 2 : 1);
	put16(p + 6, stripes > 1 ? (uint32_t)stripes : 0);
	put32(p + 8, (uint32_t)t->n);
	put32(p + 12, (uint32_t)t->root);
	put32(p + 16, seq);
	put32(p + 20, 0);
	put64(p + 24, payload);
	cnt = p + GB_BHDR_FIXED;
	lst = cnt + 2 * (size_t)t->n;
	for (int v = 0; v < t->n; v++) {
		/* a count of 65536 cannot happen: a node has at most n-1 children */
		put16(cnt + 2 * (size_t)v, (uint32_t)t->nchild[v]);
		for (int k = 0; k < t->nchild[v]; k++) {
			put16(lst, (uint32_t)t->child[t->cstart[v] + k]);
			lst += 2;
		}
	}
	for (int v = 0; stripes > 1 && v < t->n; v++, lst += 2)
		put16(lst, !group || group[v] < 0 ? 0xffff : (uint32_t)group[v]);
	return (long)need;
}

long gb_bhdr_encode(const struct gb_tree *t, uint32_t seq, uint64_t payload, void *buf,
		    size_t len)
{
	return gb_bhdr_encode_striped(t, 1, NULL, seq, payload, buf, len);
}

int gb_bhdr_decode_striped(const void *buf, size_t len, int n, struct gb_tree *t, int *stripes,
			   int *group, uint32_t *seq, uint64_t *payload)
{
	const uint8_t *p = buf, *cnt, *lst;
	int *par = NULL, root, k = 1, ret = -EPROTO;
	double *key = NULL;
	long total = 0;

	memset(t, 0, sizeof(*t));
	if (!p || n < 1 || n > 65536 || len < GB_BHDR_FIXED || get32(p) != GB_BHDR_MAGIC ||
	    get32(p + 8) != (uint32_t)n)
		return -EPROTO;
	/* version 1: one tree, flags 0; version 2: flags = the stripes (>= 2) */
	if (get16(p + 4) == 2)
		k = (int)get16(p + 6);
	if ((get16(p + 4) == 1 && get16(p + 6) != 0) || get16(p + 4) > 2 ||
	    (get16(p + 4) == 2 && (k < 2 || k > GB_STRIPES_MAX)) ||
	    len != gb_bhdr_size_striped(n, k))
		return -EPROTO;
	root = (int)get32(p + 12);
	if (root < 0 || root >= n)
		return -EPROTO;
	cnt = p + GB_BHDR_FIXED;
	for (int v = 0; v < n; v++)
		total += get16(cnt + 2 * (size_t)v);
	if (total != n - 1)
		return -EPROTO;

	ret = -ENOMEM;
	par = malloc(sizeof(int) * n);
	key = calloc(n, sizeof(double));
	if (!par || !key)
		goto cleanup;
	for (int v = 0; v < n; v++)
		par[v] = -2;            /* not seen yet */
	par[root] = -1;
	ret = -EPROTO;
	lst = cnt + 2 * (size_t)n;
	for (int v = 0; v < n; v++) {
		int nc = (int)get16(cnt + 2 * (size_t)v);

		for (int j = 0; j < nc; j++, lst += 2) {
			int c = (int)get16(lst);

			if (c >= n || par[c] != -2)
				goto cleanup;  /* out of range, the root, or twice */
			par[c] = v;
			key[c] = j;
		}
	}
	ret = gb_tree_init(t, n, root);
	if (ret < 0)
		goto cleanup;
	ret = gb_tree_from_parents(t, par, key);
	if (ret == 0 && gb_tree_check(t, NULL) < 0)
		ret = -EPROTO;          /* a cycle away from the root */
	if (ret < 0) {
		gb_tree_release(t);
		ret = ret == -ENOMEM ? ret : -EPROTO;
		goto cleanup;
	}
	if (seq)
		*seq = get32(p + 16);
	if (payload)
		*payload = get64(p + 24);
	if (stripes)
		*stripes = k;
	for (int v = 0; group && v < n; v++) {
		uint32_t g = k > 1 ? get16(lst + 2 * (size_t)v) : 0xffff;

		group[v] = g == 0xffff ? -1 : (int)g;
	}
cleanup:
	free(par);
	free(key);
	return ret;
}

int gb_bhdr_decode(const void *buf, size_t len, int n, struct gb_tree *t, uint32_t *seq,
		   uint64_t *payload)
{
	int k = 1, ret = gb_bhdr_decode_striped(buf, len, n, t, &k, NULL, seq, payload);

	if (ret == 0 && k != 1) {
		gb_tree_release(t);
		ret = -EPROTO;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Timing arithmetic                                                   */
/* ------------------------------------------------------------------ */

double gb_bcast_completion(const struct gb_bcast_rankrec *r, int n, int root)
{
	double m = -INFINITY;

	if (!r || n < 1 || root < 0 || root >= n)
		return NAN;
	for (int i = 0; i < n; i++)
		if (r[i].t_recv_done > m)
			m = r[i].t_recv_done;
	return m - r[root].t_begin;
}

double gb_bcast_all_returned(const struct gb_bcast_rankrec *r, int n, int root)
{
	double m = -INFINITY;

	if (!r || n < 1 || root < 0 || root >= n)
		return NAN;
	for (int i = 0; i < n; i++)
		if (r[i].t_send_done > m)
			m = r[i].t_send_done;
	return m - r[root].t_begin;
}

int gb_bcast_order_violations(const struct gb_bcast_rankrec *r, int n)
{
	int bad = 0;

	for (int i = 0; r && i < n; i++)
		if (r[i].parent >= 0 && isfinite(r[i].parent_send_start) &&
		    r[i].t_recv_done < r[i].parent_send_start)
			bad++;
	return bad;
}

/* ------------------------------------------------------------------ */
/* Rank map                                                            */
/* ------------------------------------------------------------------ */

void gb_rankmap_release(struct gb_rankmap *rm)
{
	if (!rm)
		return;
	free(rm->host);
	memset(rm, 0, sizeof(*rm));
}

static const char *entry_host(json_t *e)
{
	static const char *const keys[] = { "host", "node", "name" };

	if (json_is_string(e))
		return json_string_value(e);
	for (size_t i = 0; json_is_object(e) && i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *h = json_object_get(e, keys[i]);

		if (json_is_string(h))
			return json_string_value(h);
	}
	return NULL;
}

/* Put entry @e (rank @rank, or its own "rank" key) into @rm. */
static int put_entry(struct gb_rankmap *rm, json_t *e, int rank, const char *path,
		     struct gb_err *err)
{
	json_t *jr = json_is_object(e) ? json_object_get(e, "rank") : NULL;
	const char *h = entry_host(e);

	if (json_is_integer(jr))
		rank = (int)json_integer_value(jr);
	if (rank < 0 || rank >= rm->n) {
		gb_err_set(err, "%s: rank %d out of range 0..%d", path, rank, rm->n - 1);
		return -EINVAL;
	}
	if (!h || !*h || strlen(h) > 31) {
		gb_err_set(err, "%s: rank %d has no host name (1-31 characters)", path, rank);
		return -EINVAL;
	}
	if (rm->host[rank][0]) {
		gb_err_set(err, "%s: rank %d appears twice", path, rank);
		return -EINVAL;
	}
	snprintf(rm->host[rank], sizeof(rm->host[rank]), "%s", h);
	return 0;
}

int gb_rankmap_load(const char *path, struct gb_rankmap *rm, struct gb_err *err)
{
	json_error_t je;
	json_t *j = NULL, *ranks, *tp;
	int ret = -EINVAL;

	if (err)
		err->msg[0] = '\0';
	memset(rm, 0, sizeof(*rm));
	j = json_load_file(path, 0, &je);
	if (!j) {
		FILE *f = fopen(path, "r");

		if (!f) {
			ret = -errno;
			gb_err_set(err, "cannot read rank map '%s': %s", path,
				   strerror(errno));
			return ret;
		}
		fclose(f);
		gb_err_set(err, "%s:%d:%d: %s", path, je.line, je.column, je.text);
		return -EINVAL;
	}
	ranks = json_is_array(j) ? j : json_object_get(j, "ranks");
	tp = json_is_object(j) ? json_object_get(j, "topology") : NULL;
	if (json_is_string(tp))
		snprintf(rm->topology, sizeof(rm->topology), "%s", json_string_value(tp));
	if (json_is_array(ranks))
		rm->n = (int)json_array_size(ranks);
	else if (json_is_object(ranks))
		rm->n = (int)json_object_size(ranks);
	if (rm->n < 1 || rm->n > 65536) {
		gb_err_set(err, "%s: 'ranks' must be a non-empty array or object", path);
		goto cleanup;
	}
	ret = -ENOMEM;
	rm->host = calloc(rm->n, sizeof(*rm->host));
	if (!rm->host)
		goto cleanup;
	if (json_is_array(ranks)) {
		size_t i;
		json_t *e;

		json_array_foreach(ranks, i, e) {
			ret = put_entry(rm, e, (int)i, path, err);
			if (ret < 0)
				goto cleanup;
		}
	} else {
		const char *k;
		json_t *e;

		json_object_foreach(ranks, k, e) {
			char *end;
			long r = strtol(k, &end, 10);

			ret = put_entry(rm, e, *k && !*end ? (int)r : -1, path, err);
			if (ret < 0)
				goto cleanup;
		}
	}
	/* n entries, none twice, all in range: every rank is there */
	ret = 0;
cleanup:
	json_decref(j);
	if (ret < 0)
		gb_rankmap_release(rm);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Lower bound                                                         */
/* ------------------------------------------------------------------ */

int gb_bcast_lower_bound(const struct gb_topo *t, const int *hosts, int k, int root, double size,
			 double *lb)
{
	double best = 0;

	if (!t || !hosts || k < 1 || root < 0 || root >= k || !(size >= 0))
		return -EINVAL;
	for (int i = 0; i < k; i++) {
		uint64_t d, r;
		double x;
		int ret;

		if (hosts[i] < 0 || hosts[i] >= t->nhosts)
			return -EINVAL;
		if (i == root || hosts[i] == hosts[root])
			continue;
		ret = gb_topo_path_metrics(t, hosts[root], hosts[i], &d, &r);
		if (ret < 0)
			return ret;
		x = (double)d * 1e-9 + (r ? size * 8.0 / (double)r : 0.0);
		if (x > best)
			best = x;
	}
	*lb = best;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Pattern                                                             */
/* ------------------------------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t gb_pattern_seed(uint64_t size, uint64_t rep, uint64_t index)
{
	return mix64(mix64(mix64(size) ^ rep) ^ index);
}

/* Word w of the pattern: bytes 8w .. 8w+7, little-endian. */
static inline uint64_t pword(uint64_t seed, uint64_t w)
{
	return mix64(seed ^ (w * 0xd6e8feb86659fd93ull));
}

uint8_t gb_pattern_byte(uint64_t seed, size_t i)
{
	return (uint8_t)(pword(seed, i / 8) >> (8 * (i % 8)));
}

void gb_pattern_fill(void *buf, size_t len, uint64_t seed)
{
	uint8_t *p = buf;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w = pword(seed, i / 8);

		for (int b = 0; b < 8; b++)
			p[i + b] = (uint8_t)(w >> (8 * b));
	}
	for (; i < len; i++)
		p[i] = gb_pattern_byte(seed, i);
}

size_t gb_pattern_check(const void *buf, size_t len, uint64_t seed)
{
	const uint8_t *p = buf;
	size_t bad = 0, i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w = pword(seed, i / 8);

		for (int b = 0; b < 8; b++)
			bad += p[i + b] != (uint8_t)(w >> (8 * b));
	}
	for (; i < len; i++)
		bad += p[i] != gb_pattern_byte(seed, i);
	return bad;
}

json_t *gb_rankmap_tcp_json(void)
{
	const char *path = getenv("GRIDBED_RANKMAP");
	json_t *m = path ? json_load_file(path, 0, NULL) : NULL;
	json_t *tcp = json_object_get(m, "tcp");

	tcp = tcp ? json_incref(tcp) : json_null();
	json_decref(m);
	return tcp;
}
