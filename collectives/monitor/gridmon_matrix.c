/* SPDX-License-Identifier: MIT */
/*
 * gridmon_matrix.c - gridmon's matrix file (docs/formats.md): cluster-level
 * values expanded to every node pair, written atomically; and the oracle
 * (--print-configured, --derate), the emulator's configuration in the same
 * file, labelled so.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbutil.h"
#include "gridmon_priv.h"

/* The range of pair @k's last HIST bandwidth readings; NAN, NAN if none. */
void mon_hist_range(const struct mon *M, int k, double *lo, double *hi)
{
	*lo = *hi = NAN;
	for (int i = 0; M->nhist && i < M->nhist[k]; i++) {
		double h = M->hist[k * HIST + i];
		*lo = isnan(*lo) || h < *lo ? h : *lo;
		*hi = isnan(*hi) || h > *hi ? h : *hi;
	}
}

/* Cluster-level values into the per-node matrix file (docs/formats.md). */
json_t *mon_matrix_json(struct mon *M, const double *clat, const double *cbw, const double *co,
			int oracle)
{
	const struct gb_topo *t = M->g.topo;
	int n = t->nhosts, nc = M->nc;
	json_t *root = json_object(), *nodes = json_array(), *o = json_array();
	json_t *lat = json_array(), *bw = json_array();
	char ts[64];

	gb_utc_iso(ts, sizeof(ts));
	for (int i = 0; i < n; i++) {
		const struct gb_node *nd = &t->nodes[i];
		const struct gb_cluster *c = &t->clusters[nd->cluster];
		json_array_append_new(nodes, json_pack("{s:s,s:s,s:s}", "name", nd->name,
						       "cluster", c->name, "site",
						       t->sites[c->site].name));
		json_array_append_new(o, json_real(isnan(co[nd->cluster]) ? 0 : co[nd->cluster]));
		json_t *lr = json_array(), *br = json_array();
		for (int j = 0; j < n; j++) {
			double l = clat[nd->cluster * nc + t->nodes[j].cluster];
			double b = cbw[nd->cluster * nc + t->nodes[j].cluster];
			if (i == j || isnan(l) || isnan(b)) {
				/* the diagonal, or an unmeasured 1-host cluster's */
				json_array_append_new(lr, json_null());
				json_array_append_new(br, json_null());
				continue;
			}
			json_array_append_new(lr, json_real(l));
			json_array_append_new(br, json_real(b));
		}
		json_array_append_new(lat, lr);
		json_array_append_new(bw, br);
	}
	json_object_set_new(root, "format", json_string("gridbed-matrix"));
	json_object_set_new(root, "version", json_integer((json_int_t)M->version));
	json_object_set_new(root, "timestamp", json_string(ts));
	json_object_set_new(root, "generator", json_string(oracle ?
				"gridmon --print-configured (ORACLE: the emulator's configuration)" :
				"gridmon"));
	if (oracle)
		json_object_set_new(root, "oracle", json_true());
	json_object_set_new(root, "units", json_pack("{s:s,s:s}", "time", "s", "bandwidth", "B/s"));
	/* the k the values were taken at; they are in the topology's units */
	json_object_set_new(root, "dilate", json_real(M->dilate));
	json_object_set_new(root, "nodes", nodes);
	json_object_set_new(root, "o", o);
	json_object_set_new(root, "lat", lat);
	json_object_set_new(root, "bw", bw);

	/* The cluster-level view, as measured, with what was not measured. */
	json_t *cl = json_object(), *names = json_array(), *reps = json_array();
	json_t *jl = json_array(), *jb = json_array(), *js = json_array();
	json_t *jlo = json_array(), *jhi = json_array();
	for (int a = 0; a < nc; a++) {
		json_array_append_new(names, json_string(t->clusters[a].name));
		json_array_append_new(reps,
				      json_string(t->nodes[gb_mon_rep(t, a, M->avoid)].name));
		json_t *lr = json_array(), *br = json_array(), *sr = json_array();
		json_t *lor = json_array(), *hir = json_array();
		for (int b = 0; b < nc; b++) {
			int k = a * nc + b;
			double l = clat[k], w = cbw[k], lo, hi;
			json_array_append_new(lr, isnan(l) ? json_null() : json_real(l));
			json_array_append_new(br, isnan(w) ? json_null() : json_real(w));
			json_array_append_new(sr, json_boolean(M->stale && M->stale[k]));
			mon_hist_range(M, k, &lo, &hi);
			json_array_append_new(lor, isnan(lo) ? json_null() : json_real(lo));
			json_array_append_new(hir, isnan(hi) ? json_null() : json_real(hi));
		}
		json_array_append_new(jl, lr);
		json_array_append_new(jb, br);
		json_array_append_new(js, sr);
		json_array_append_new(jlo, lor);
		json_array_append_new(jhi, hir);
	}
	json_object_set_new(cl, "clusters", names);
	json_object_set_new(cl, "representatives", reps);
	json_object_set_new(cl, "lat", jl);
	json_object_set_new(cl, "bw", jb);
	if (!oracle) {
		json_object_set_new(cl, "stale", js);
		/* the uncertainty: the range of the pair's last HIST readings */
		json_object_set_new(cl, "bw_lo", jlo);
		json_object_set_new(cl, "bw_hi", jhi);
		json_object_set_new(cl, "bytes_sent", json_integer((json_int_t)M->bytes_last));
		json_object_set_new(cl, "round_seconds", json_real(M->round_s));
		json_object_set_new(cl, "stages", json_integer(M->nstages));
		json_object_set_new(cl, "unsteady", json_integer(M->unsteady_last));
	} else {
		json_decref(js);
		json_decref(jlo);
		json_decref(jhi);
	}
	json_object_set_new(root, "clusters", cl);
	return root;
}

/* Write atomically: a temporary file next to @path, then rename. */
int mon_write_json(json_t *j, const char *path)
{
	char tmp[4096];
	if (!path || !strcmp(path, "-")) {
		int r = json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
		fputc('\n', stdout);
		fflush(stdout);
		return r < 0 ? -EIO : 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	if (json_dump_file(j, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(6)) < 0) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path) < 0) {
		int err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}

/*
 * The oracle: the configured latency of each representatives' path, its
 * bottleneck with per_packet costs folded in (gb_topo_path_goodput()), and
 * each representative's own per_packet as its o.
 */
int mon_print_configured(struct mon *M, const char *out)
{
	const struct gb_topo *t = M->g.topo;
	int nc = M->nc, ret;
	double *lat = calloc((size_t)(nc * nc), sizeof(double));
	double *bw = calloc((size_t)(nc * nc), sizeof(double));
	double *o = calloc((size_t)nc, sizeof(double));

	if (!lat || !bw || !o) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (int a = 0; a < nc; a++) {
		for (int b = 0; b < nc; b++) {
			int s = gb_mon_rep(t, a, M->avoid), d = gb_mon_rep(t, b, M->avoid);
			uint64_t dns = 0;
			if (a == b) {
				if (t->clusters[a].nhosts < 2) {
					lat[a * nc + b] = bw[a * nc + b] = NAN;
					continue;
				}
				d = gb_mon_sec(t, a, M->avoid);
			}
			double gp;

			if (gb_topo_path_metrics(t, s, d, &dns, NULL) < 0 ||
			    gb_topo_path_goodput(t, s, d, &gp) < 0) {
				lat[a * nc + b] = bw[a * nc + b] = NAN;
				continue;
			}
			lat[a * nc + b] = (double)dns / 1e9;
			bw[a * nc + b] = gp;
		}
		/* the representative's injection cost: a per_packet on its own
		 * host link (seed 003's Delta), else 0 as before */
		o[a] = (double)gb_topo_egress_per_packet(t, gb_mon_rep(t, a, M->avoid)) * 1e-9;
	}
	json_t *j = mon_matrix_json(M, lat, bw, o, 1);
	ret = mon_write_json(j, out);
	json_decref(j);
cleanup:
	free(lat);
	free(bw);
	free(o);
	return ret;
}

/*
 * --derate LINK:ab|ba:F on @t: that direction's rate x (1 - F), 0 < F < 1.
 * Return: 0, or -EINVAL (@why says what is wrong).
 */
int mon_derate(struct gb_topo *t, const char *arg, struct gb_err *why)
{
	char name[128], *dir, *frac, *end;
	struct gb_linkdir *d;
	double f;
	int l;

	snprintf(name, sizeof(name), "%s", arg);
	if (!(dir = strchr(name, ':')) || !(frac = strchr(dir + 1, ':'))) {
		gb_err_set(why, "'%s' is not LINK:ab|ba:FRACTION", arg);
		return -EINVAL;
	}
	*dir++ = '\0';
	*frac++ = '\0';
	if ((l = gb_topo_find_link(t, name)) < 0) {
		gb_err_set(why, "'%s': no link '%s' in grid '%s'", arg, name, t->name);
		return -EINVAL;
	}
	if (strcmp(dir, "ab") && strcmp(dir, "ba")) {
		gb_err_set(why, "'%s': direction '%s' is not ab or ba", arg, dir);
		return -EINVAL;
	}
	f = strtod(frac, &end);
	if (*end || !(f > 0 && f < 1)) {
		gb_err_set(why, "'%s': fraction '%s' is not in (0, 1)", arg, frac);
		return -EINVAL;
	}
	d = strcmp(dir, "ab") ? &t->links[l].ba : &t->links[l].ab;
	d->rate_bps = (uint64_t)llround((double)d->rate_bps * (1 - f));
	return 0;
}

