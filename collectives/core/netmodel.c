/* SPDX-License-Identifier: MIT */
/*
 * netmodel.c - network models: what a planner knows about the grid.
 *
 * Three sources (issue 3, "Network model"):
 *   (a) a topology (gb_nm_from_topo): static latency = sum of one-way delays
 *       along the routed path, bandwidth = the path's bottleneck, and the
 *       routed path itself for the contention model;
 *   (b) the JSON matrix file that gridmon writes (docs/formats.md);
 *   (c) generators for the papers' simulation studies (Gupta Fig. 3 here,
 *       Fkaier Tables 1-2 in cost.c since they are cluster-level) and a
 *       hierarchical random grid for tests and benchmarks.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbio.h"
#include "gbtopo.h"

#define NM_FORMAT "gridbed-matrix"

static void *zalloc(size_t n, size_t sz)
{
	return calloc(n ? n : 1, sz);
}

int gb_nm_init(struct gb_netmodel *m, int n)
{
	size_t nn;

	memset(m, 0, sizeof(*m));
	if (n < 1 || n > 65536)
		return -EINVAL;
	nn = (size_t)n * n;
	m->n = n;
	m->nodes = zalloc(n, sizeof(*m->nodes));
	m->o = zalloc(n, sizeof(double));
	m->lat = zalloc(nn, sizeof(double));
	m->bw = zalloc(nn, sizeof(double));
	if (!m->nodes || !m->o || !m->lat || !m->bw)
		goto nomem;
	/* Defaults that make a fresh model describable: "n<i>" in one cluster
	 * "c0" of one site "s0"; the diagonal is unused but kept unlimited. */
	if (gb_nm_set_groups(m, 1, 1) < 0)
		goto nomem;
	snprintf(m->cluster_names[0], sizeof(m->cluster_names[0]), "c0");
	snprintf(m->site_names[0], sizeof(m->site_names[0]), "s0");
	for (int i = 0; i < n; i++) {
		snprintf(m->nodes[i].name, sizeof(m->nodes[i].name), "n%d", i);
		m->bw[(size_t)i * n + i] = INFINITY;
	}
	return 0;
nomem:
	gb_nm_release(m);
	return -ENOMEM;
}

static void free_paths(struct gb_netmodel *m)
{
	if (m->path) {
		for (size_t i = 0; i < (size_t)m->n * m->n; i++)
			free(m->path[i]);
	}
	free(m->path);
	free(m->pathlen);
	free(m->linkcap);
	m->path = NULL;
	m->pathlen = NULL;
	m->linkcap = NULL;
	m->ndirlinks = 0;
}

void gb_nm_release(struct gb_netmodel *m)
{
	if (!m)
		return;
	free_paths(m);
	free(m->nodes);
	free(m->cluster_names);
	free(m->site_names);
	free(m->o);
	free(m->lat);
	free(m->bw);
	free(m->gap_fixed);
	memset(m, 0, sizeof(*m));
}

int gb_nm_set_groups(struct gb_netmodel *m, int nclusters, int nsites)
{
	char (*cn)[32], (*sn)[32];

	if (nclusters < 1 || nsites < 1)
		return -EINVAL;
	cn = zalloc(nclusters, sizeof(*cn));
	sn = zalloc(nsites, sizeof(*sn));
	if (!cn || !sn) {
		free(cn);
		free(sn);
		return -ENOMEM;
	}
	free(m->cluster_names);
	free(m->site_names);
	m->cluster_names = cn;
	m->site_names = sn;
	m->nclusters = nclusters;
	m->nsites = nsites;
	return 0;
}

int gb_nm_find_node(const struct gb_netmodel *m, const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (strcmp(m->nodes[i].name, name) == 0)
			return i;
	return -1;
}

int gb_nm_check(const struct gb_netmodel *m, struct gb_err *e)
{
	int n = m->n;

	if (n < 1 || !m->nodes || !m->o || !m->lat || !m->bw) {
		gb_err_set(e, "empty model");
		return -EINVAL;
	}
	for (int i = 0; i < n; i++) {
		const struct gb_nm_node *v = &m->nodes[i];

		if (!v->name[0]) {
			gb_err_set(e, "node %d has no name", i);
			return -EINVAL;
		}
		if (v->cluster < 0 || v->cluster >= m->nclusters || v->site < 0 ||
		    v->site >= m->nsites) {
			gb_err_set(e, "node '%s': cluster or site out of range", v->name);
			return -EINVAL;
		}
		if (!(m->o[i] >= 0) || !isfinite(m->o[i])) {
			gb_err_set(e, "node '%s': bad initiation cost %g", v->name, m->o[i]);
			return -EINVAL;
		}
		for (int j = 0; j < i; j++) {
			if (strcmp(m->nodes[j].name, v->name) == 0) {
				gb_err_set(e, "duplicate node name '%s'", v->name);
				return -EINVAL;
			}
		}
		for (int j = 0; j < n; j++) {
			double l = m->lat[(size_t)i * n + j], b = m->bw[(size_t)i * n + j];

			if (i == j)
				continue;
			if (!(l >= 0) || !isfinite(l)) {
				gb_err_set(e, "'%s' -> '%s': bad latency %g", v->name,
					   m->nodes[j].name, l);
				return -EINVAL;
			}
			if (!(b > 0)) {
				gb_err_set(e, "'%s' -> '%s': bad bandwidth %g", v->name,
					   m->nodes[j].name, b);
				return -EINVAL;
			}
			if (m->gap_fixed && !(m->gap_fixed[(size_t)i * n + j] >= 0)) {
				gb_err_set(e, "'%s' -> '%s': bad gap", v->name,
					   m->nodes[j].name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Copies                                                              */
/* ------------------------------------------------------------------ */

int gb_nm_sub(struct gb_netmodel *dst, const struct gb_netmodel *src, const int *nodes, int k)
{
	struct gb_netmodel d;
	int ret;

	ret = gb_nm_init(&d, k);
	if (ret < 0)
		return ret;
	ret = gb_nm_set_groups(&d, src->nclusters, src->nsites);
	if (ret < 0)
		goto cleanup;
	memcpy(d.cluster_names, src->cluster_names, (size_t)src->nclusters * 32);
	memcpy(d.site_names, src->site_names, (size_t)src->nsites * 32);
	d.version = src->version;
	d.tcp_restart = src->tcp_restart;
	d.init_window = src->init_window;
	ret = -ENOMEM;
	if (src->gap_fixed) {
		d.gap_fixed = zalloc((size_t)k * k, sizeof(double));
		if (!d.gap_fixed)
			goto cleanup;
	}
	if (src->path) {
		d.path = zalloc((size_t)k * k, sizeof(int *));
		d.pathlen = zalloc((size_t)k * k, sizeof(int));
		d.linkcap = zalloc(src->ndirlinks, sizeof(double));
		if (!d.path || !d.pathlen || !d.linkcap)
			goto cleanup;
		d.ndirlinks = src->ndirlinks;
		memcpy(d.linkcap, src->linkcap, (size_t)src->ndirlinks * sizeof(double));
	}
	for (int a = 0; a < k; a++) {
		int i = nodes[a];

		ret = -EINVAL;
		if (i < 0 || i >= src->n)
			goto cleanup;
		d.nodes[a] = src->nodes[i];
		d.o[a] = src->o[i];
		for (int b = 0; b < k; b++) {
			size_t s = (size_t)i * src->n + nodes[b], t = (size_t)a * k + b;

			d.lat[t] = src->lat[s];
			d.bw[t] = src->bw[s];
			if (d.gap_fixed)
				d.gap_fixed[t] = src->gap_fixed[s];
			if (d.path && src->pathlen[s] > 0) {
				ret = -ENOMEM;
				d.path[t] = malloc(sizeof(int) * src->pathlen[s]);
				if (!d.path[t])
					goto cleanup;
				memcpy(d.path[t], src->path[s], sizeof(int) * src->pathlen[s]);
				d.pathlen[t] = src->pathlen[s];
			}
		}
	}
	*dst = d;
	return 0;
cleanup:
	gb_nm_release(&d);
	return ret;
}

int gb_nm_copy(struct gb_netmodel *dst, const struct gb_netmodel *src)
{
	int *all = malloc(sizeof(int) * (src->n > 0 ? src->n : 1));
	int ret;

	if (!all)
		return -ENOMEM;
	for (int i = 0; i < src->n; i++)
		all[i] = i;
	ret = gb_nm_sub(dst, src, all, src->n);
	free(all);
	return ret;
}

/* ------------------------------------------------------------------ */
/* (a) From a topology                                                 */
/* ------------------------------------------------------------------ */

/*
 * Choices:
 *  - the model covers the topology's hosts only (nodes 0 .. nhosts-1, which
 *    is also the default MPI rank order), with the topology's cluster and
 *    site indices and names;
 *  - latency is the sum of one-way delays of the directions travelled (the
 *    route is gb_topo_route()'s, so it may differ per direction); jitter is
 *    ignored, its mean is zero;
 *  - a path whose every hop is unlimited gets bw INFINITY;
 *  - linkcap keeps gbtopo's "0 = unlimited" convention;
 *  - o(i) is @o_default plus the per_packet cost of host i's own egress
 *    (its host link, host -> switch): the emulator makes that NIC busy so
 *    long per packet besides the bits, which is Mateescu's Delta(i,j) =
 *    o(i) + m / B(i,j) for a message of one packet;
 *  - a direction with a per_packet cost counts at the rate its MTU packets
 *    get, cost included (gb_topo_dir_goodput()), in bw and in linkcap.
 */
int gb_nm_from_topo(struct gb_netmodel *m, const struct gb_topo *t, double o_default)
{
	struct gb_netmodel d;
	int *hops = NULL;
	int n = t->nhosts, ret;

	memset(m, 0, sizeof(*m));
	if (n < 1 || t->nclusters < 1 || t->nsites < 1)
		return -EINVAL;
	ret = gb_nm_init(&d, n);
	if (ret < 0)
		return ret;
	ret = gb_nm_set_groups(&d, t->nclusters, t->nsites);
	if (ret < 0)
		goto cleanup;
	for (int c = 0; c < t->nclusters; c++)
		snprintf(d.cluster_names[c], 32, "%s", t->clusters[c].name);
	for (int s = 0; s < t->nsites; s++)
		snprintf(d.site_names[s], 32, "%s", t->sites[s].name);

	ret = -ENOMEM;
	hops = malloc(sizeof(int) * (t->nnodes > 0 ? t->nnodes : 1));
	d.ndirlinks = 2 * t->nlinks;
	d.path = zalloc((size_t)n * n, sizeof(int *));
	d.pathlen = zalloc((size_t)n * n, sizeof(int));
	d.linkcap = zalloc(d.ndirlinks, sizeof(double));
	if (!hops || !d.path || !d.pathlen || !d.linkcap)
		goto cleanup;
	for (int l = 0; l < t->nlinks; l++) {
		d.linkcap[2 * l] = gb_topo_dir_goodput(t, &t->links[l].ab);
		d.linkcap[2 * l + 1] = gb_topo_dir_goodput(t, &t->links[l].ba);
	}

	for (int i = 0; i < n; i++) {
		snprintf(d.nodes[i].name, sizeof(d.nodes[i].name), "%s", t->nodes[i].name);
		d.nodes[i].cluster = t->nodes[i].cluster;
		d.nodes[i].site = t->nodes[i].site;
		d.o[i] = o_default + (double)gb_topo_egress_per_packet(t, i) * 1e-9;
		for (int j = 0; j < n; j++) {
			size_t ij = (size_t)i * n + j;
			double delay = 0, cap = INFINITY;
			int k;

			if (i == j)
				continue;
			k = gb_topo_path(t, i, j, hops);
			if (k < 0) {
				ret = k;
				goto cleanup;
			}
			for (int h = 0; h < k; h++) {
				const struct gb_link *lk = &t->links[hops[h] / 2];
				const struct gb_linkdir *ld = (hops[h] & 1) ? &lk->ba : &lk->ab;

				double c = gb_topo_dir_goodput(t, ld);

				delay += (double)ld->delay_ns * 1e-9;
				if (c > 0 && c < cap)
					cap = c;
			}
			d.lat[ij] = delay;
			d.bw[ij] = cap;
			if (k > 0) {
				ret = -ENOMEM;
				d.path[ij] = malloc(sizeof(int) * k);
				if (!d.path[ij])
					goto cleanup;
				memcpy(d.path[ij], hops, sizeof(int) * k);
			}
			d.pathlen[ij] = k;
		}
	}
	free(hops);
	*m = d;
	return 0;
cleanup:
	free(hops);
	gb_nm_release(&d);
	return ret;
}

/* ------------------------------------------------------------------ */
/* (b) The matrix file (docs/formats.md)                               */
/* ------------------------------------------------------------------ */

static int intern(char (*names)[32], int *count, int max, const char *name)
{
	for (int i = 0; i < *count; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	if (*count >= max)
		return -1;
	snprintf(names[*count], 32, "%s", name);
	return (*count)++;
}

/* Read an N x N matrix of numbers; @zero_is_inf maps 0 to INFINITY (bw). */
static int read_matrix(const json_t *root, const char *key, int n, double *out, int required,
		       int zero_is_inf, const char *path, struct gb_err *e)
{
	json_t *a = json_object_get(root, key);

	if (!a) {
		if (!required)
			return 1;
		gb_err_set(e, "%s: missing '%s'", path, key);
		return -EINVAL;
	}
	if (!json_is_array(a) || (int)json_array_size(a) != n) {
		gb_err_set(e, "%s: '%s' must be an array of %d rows", path, key, n);
		return -EINVAL;
	}
	for (int i = 0; i < n; i++) {
		json_t *row = json_array_get(a, i);

		if (!json_is_array(row) || (int)json_array_size(row) != n) {
			gb_err_set(e, "%s: '%s' row %d must have %d entries", path, key, i,
				   n);
			return -EINVAL;
		}
		for (int j = 0; j < n; j++) {
			json_t *v = json_array_get(row, j);
			double x;

			if (json_is_null(v) && i == j) {
				x = 0;
			} else if (!json_is_number(v)) {
				gb_err_set(e, "%s: '%s'[%d][%d] is not a number", path,
					   key, i, j);
				return -EINVAL;
			} else {
				x = json_number_value(v);
			}
			if (x < 0) {
				gb_err_set(e, "%s: '%s'[%d][%d] is negative", path, key,
					   i, j);
				return -EINVAL;
			}
			if (zero_is_inf && x == 0)
				x = INFINITY;
			out[(size_t)i * n + j] = x;
		}
	}
	return 0;
}

/*
 * The "tcp" key gridmon writes (a list of stacks, each with the hosts that
 * have it; docs/formats.md): slow start restarts after idle if every stack
 * says so; the initial window is the largest initcwnd (0: the kernel's 10).
 * Anything else (no key, null, another shape) leaves the model steady.
 */
static void read_tcp(const json_t *tcp, struct gb_netmodel *d)
{
	size_t i;
	json_t *s;
	double iw = 0;
	int all = json_is_array(tcp) && json_array_size(tcp) > 0;

	json_array_foreach(tcp, i, s) {
		json_t *ssai = json_object_get(s, "slow_start_after_idle");
		json_t *icw = json_object_get(s, "initcwnd");
		double w = json_is_integer(icw) && json_integer_value(icw) > 0 ?
			   (double)json_integer_value(icw) : 10;
		if (!json_is_true(ssai))
			all = 0;
		if (w > iw)
			iw = w;
	}
	d->tcp_restart = all;
	d->init_window = all ? iw * GB_NM_MSS : 0;
}

int gb_nm_load_json(struct gb_netmodel *m, const char *path, struct gb_err *err)
{
	struct gb_err e = { "" };
	json_t *root;
	int ret;

	memset(m, 0, sizeof(*m));
	root = gb_json_load_err(path, &ret, &e);
	if (root) {
		ret = gb_nm_from_json(m, root, path, &e);
		json_decref(root);
	}
	/* @err is left as it was when the readers had nothing to say */
	if (e.msg[0])
		gb_err_set(err, "%s", e.msg);
	return ret;
}

int gb_nm_from_json(struct gb_netmodel *m, const json_t *root, const char *path,
		    struct gb_err *e)
{
	struct gb_netmodel d;
	json_t *nodes, *o, *ver;
	struct gb_err why = { "" };
	int n, ret;

	memset(m, 0, sizeof(*m));
	memset(&d, 0, sizeof(d));
	ret = -EINVAL;
	if (!json_is_object(root)) {
		gb_err_set(e, "%s: not a JSON object", path);
		goto cleanup;
	}
	nodes = json_object_get(root, "nodes");
	if (!json_is_array(nodes) || json_array_size(nodes) < 1) {
		gb_err_set(e, "%s: 'nodes' must be a non-empty array", path);
		goto cleanup;
	}
	n = (int)json_array_size(nodes);
	ret = gb_nm_init(&d, n);
	if (ret < 0)
		goto cleanup;
	ret = gb_nm_set_groups(&d, n, n);
	if (ret < 0)
		goto cleanup;
	d.nclusters = 0;
	d.nsites = 0;
	ret = -EINVAL;
	for (int i = 0; i < n; i++) {
		json_t *v = json_array_get(nodes, i);
		const char *name, *cl, *site;

		name = json_string_value(json_object_get(v, "name"));
		if (!json_is_object(v) || !name || !*name || strlen(name) > 31) {
			gb_err_set(e, "%s: nodes[%d] needs a 'name' of 1-31 characters",
				   path, i);
			goto cleanup;
		}
		cl = json_string_value(json_object_get(v, "cluster"));
		site = json_string_value(json_object_get(v, "site"));
		if ((cl && strlen(cl) > 31) || (site && strlen(site) > 31)) {
			gb_err_set(e, "%s: node '%s': cluster or site name too long", path,
				   name);
			goto cleanup;
		}
		snprintf(d.nodes[i].name, 32, "%s", name);
		/* A node without a cluster is its own cluster; without a site, its
		 * cluster is its site (a matrix of unrelated hosts stays usable). */
		d.nodes[i].cluster = intern(d.cluster_names, &d.nclusters, n, cl ? cl : name);
		d.nodes[i].site = intern(d.site_names, &d.nsites, n,
					 site ? site : (cl ? cl : name));
	}
	o = json_object_get(root, "o");
	if (json_is_number(o)) {
		for (int i = 0; i < n; i++)
			d.o[i] = json_number_value(o);
	} else if (json_is_array(o) && (int)json_array_size(o) == n) {
		for (int i = 0; i < n; i++) {
			json_t *v = json_array_get(o, i);

			if (!json_is_number(v)) {
				gb_err_set(e, "%s: 'o'[%d] is not a number", path, i);
				goto cleanup;
			}
			d.o[i] = json_number_value(v);
		}
	} else if (o) {
		gb_err_set(e, "%s: 'o' must be a number or an array of %d", path, n);
		goto cleanup;
	}
	ret = read_matrix(root, "lat", n, d.lat, 1, 0, path, e);
	if (ret < 0)
		goto cleanup;
	ret = read_matrix(root, "bw", n, d.bw, 1, 1, path, e);
	if (ret < 0)
		goto cleanup;
	if (json_object_get(root, "gap")) {
		ret = -ENOMEM;
		d.gap_fixed = zalloc((size_t)n * n, sizeof(double));
		if (!d.gap_fixed)
			goto cleanup;
		ret = read_matrix(root, "gap", n, d.gap_fixed, 1, 0, path, e);
		if (ret < 0)
			goto cleanup;
	}
	ver = json_object_get(root, "version");
	if (ver && !json_is_integer(ver)) {
		ret = -EINVAL;
		gb_err_set(e, "%s: 'version' must be an integer", path);
		goto cleanup;
	}
	d.version = ver ? (uint64_t)json_integer_value(ver) : 0;
	read_tcp(json_object_get(root, "tcp"), &d);
	ret = gb_nm_check(&d, &why);
	if (ret < 0) {
		gb_err_set(e, "%s: %s", path, why.msg);
		goto cleanup;
	}
	*m = d;
	return 0;
cleanup:
	gb_nm_release(&d);
	return ret;
}

static json_t *matrix_json(const struct gb_netmodel *m, const double *a, int inf_is_zero)
{
	json_t *rows = json_array();

	if (!rows)
		return NULL;
	for (int i = 0; i < m->n; i++) {
		json_t *row = json_array();

		if (!row || json_array_append_new(rows, row) < 0)
			goto fail;
		for (int j = 0; j < m->n; j++) {
			double x = a[(size_t)i * m->n + j];

			if (inf_is_zero && isinf(x))
				x = 0;
			if (json_array_append_new(row, json_real(x)) < 0)
				goto fail;
		}
	}
	return rows;
fail:
	json_decref(rows);
	return NULL;
}

int gb_nm_save_json(const struct gb_netmodel *m, const char *path)
{
	json_t *root = gb_nm_to_json(m);
	int ret;

	if (!root)
		return -ENOMEM;
	ret = gb_json_save_atomic(root, path);
	json_decref(root);
	return ret;
}

json_t *gb_nm_to_json(const struct gb_netmodel *m)
{
	json_t *root = NULL, *nodes, *o;

	root = json_object();
	nodes = json_array();
	o = json_array();
	if (!root || !nodes || !o) {
		json_decref(nodes);
		json_decref(o);
		goto fail;
	}
	json_object_set_new(root, "format", json_string(NM_FORMAT));
	json_object_set_new(root, "version", json_integer((json_int_t)m->version));
	json_object_set_new(root, "units", json_pack("{s:s, s:s}", "time", "s",
						     "bandwidth", "B/s"));
	json_object_set_new(root, "nodes", nodes);
	json_object_set_new(root, "o", o);
	for (int i = 0; i < m->n; i++) {
		const struct gb_nm_node *v = &m->nodes[i];

		if (json_array_append_new(nodes, json_pack("{s:s, s:s, s:s}", "name", v->name,
				"cluster", m->cluster_names[v->cluster],
				"site", m->site_names[v->site])) < 0 ||
		    json_array_append_new(o, json_real(m->o[i])) < 0)
			goto fail;
	}
	if (json_object_set_new(root, "lat", matrix_json(m, m->lat, 0)) < 0 ||
	    json_object_set_new(root, "bw", matrix_json(m, m->bw, 1)) < 0)
		goto fail;
	if (m->gap_fixed && json_object_set_new(root, "gap", matrix_json(m, m->gap_fixed, 0)) < 0)
		goto fail;
	return root;
fail:
	json_decref(root);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* (c) Generators                                                      */
/* ------------------------------------------------------------------ */

int gb_nm_gen_uniform(struct gb_netmodel *m, int n, double bw_lo, double bw_hi, double lat,
		      double o, uint64_t seed)
{
	struct gb_rng r;
	int ret;

	if (!(bw_lo > 0) || bw_hi < bw_lo || lat < 0 || o < 0)
		return -EINVAL;
	ret = gb_nm_init(m, n);
	if (ret < 0)
		return ret;
	gb_rng_seed(&r, seed);
	for (int i = 0; i < n; i++) {
		m->o[i] = o;
		/* Draw the upper triangle row by row: the matrix for a seed does
		 * not depend on anything but (n, bounds, seed). */
		for (int j = i + 1; j < n; j++) {
			double b = gb_rng_range(&r, bw_lo, bw_hi);

			m->bw[(size_t)i * n + j] = m->bw[(size_t)j * n + i] = b;
			m->lat[(size_t)i * n + j] = m->lat[(size_t)j * n + i] = lat;
		}
	}
	return 0;
}

int gb_nm_gen_gupta_fig3(struct gb_netmodel *m, int n, uint64_t seed)
{
	return gb_nm_gen_uniform(m, n, 0.1 * GB_MBIT, 10.0 * GB_MBIT, 0.0, 0.0, seed);
}

int gb_nm_gen_grid(struct gb_netmodel *m, int nsites, int cps, int npc, uint64_t seed)
{
	double *cbw = NULL, *clat = NULL;
	struct gb_rng r;
	int nc = nsites * cps, n = nc * npc, ret;

	if (nsites < 1 || cps < 1 || npc < 1)
		return -EINVAL;
	ret = gb_nm_init(m, n);
	if (ret < 0)
		return ret;
	ret = gb_nm_set_groups(m, nc, nsites);
	if (ret < 0)
		goto fail;
	ret = -ENOMEM;
	cbw = malloc(sizeof(double) * nc * nc);
	clat = malloc(sizeof(double) * nc * nc);
	if (!cbw || !clat)
		goto fail;
	gb_rng_seed(&r, seed);
	for (int s = 0; s < nsites; s++)
		snprintf(m->site_names[s], 32, "s%d", s);
	for (int c = 0; c < nc; c++) {
		char nm[48];

		snprintf(nm, sizeof(nm), "s%dc%d", c / cps, c % cps);
		snprintf(m->cluster_names[c], 32, "%.31s", nm);
	}
	/* Cluster-pair parameters, then a small per-direction asymmetry. */
	for (int a = 0; a < nc; a++) {
		for (int b = a; b < nc; b++) {
			double bw, lat;

			if (a == b) {
				bw = 100 * GB_MBIT;
				lat = gb_rng_range(&r, 0.05e-3, 0.2e-3);
			} else if (a / cps == b / cps) {
				bw = gb_rng_range(&r, 50, 100) * GB_MBIT;
				lat = gb_rng_range(&r, 0.5e-3, 2e-3);
			} else {
				bw = gb_rng_range(&r, 1, 45) * GB_MBIT;
				lat = gb_rng_range(&r, 10e-3, 60e-3);
			}
			cbw[a * nc + b] = bw * gb_rng_range(&r, 0.9, 1.0);
			cbw[b * nc + a] = bw * gb_rng_range(&r, 0.9, 1.0);
			clat[a * nc + b] = lat * gb_rng_range(&r, 0.9, 1.0);
			clat[b * nc + a] = lat * gb_rng_range(&r, 0.9, 1.0);
		}
	}
	for (int i = 0; i < n; i++) {
		int c = i / npc;

		char nm[48];

		snprintf(nm, sizeof(nm), "s%dc%dn%d", c / cps, c % cps, i % npc);
		snprintf(m->nodes[i].name, 32, "%.31s", nm);
		m->nodes[i].cluster = c;
		m->nodes[i].site = c / cps;
		m->o[i] = gb_rng_range(&r, 5e-6, 20e-6);
	}
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			int ci = i / npc, cj = j / npc;

			if (i == j)
				continue;
			/* +/- 2 % per node pair, so that no two pairs tie exactly. */
			size_t ij = (size_t)i * n + j;

			m->bw[ij] = cbw[ci * nc + cj] * gb_rng_range(&r, 0.98, 1.02);
			m->lat[ij] = clat[ci * nc + cj] * gb_rng_range(&r, 0.98, 1.02);
		}
	}
	free(cbw);
	free(clat);
	return 0;
fail:
	free(cbw);
	free(clat);
	gb_nm_release(m);
	return ret;
}
