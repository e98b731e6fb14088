// SPDX-License-Identifier: MIT
/*
 * wan_check.c - is a broadcast tree wide-area optimal?  (gbexp.h,
 * gx_wan_check()).  Seed 001 s2 takes the notion from MagPIe: "every data
 * item incurs only a single wide area latency, and every data item is sent
 * at most once across each wide area link".  On a tree whose clusters are
 * the topology's, that is: exactly one tree edge enters each cluster other
 * than the root's from outside it, and none enters the root's.
 *
 * gridexp runs this on every tree phoenixd reports, from the tree files and
 * the topology alone, so that the check does not trust the code whose
 * result it checks (phoenixd counts its own too; both are recorded).
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbexp.h"

static __attribute__((format(printf, 3, 4))) int why(struct gx_wan_check *w, int ret,
						      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
	return ret;
}

int gx_wan_check(const struct gb_topo *t, const char *path, struct gx_wan_check *w)
{
	json_error_t je;
	json_t *j, *nodes, *par, *x;
	int n = t->nhosts, ret = 0, *parent = NULL, *into = NULL, r;
	size_t i;

	memset(w, 0, sizeof(*w));
	if (!(j = json_load_file(path, 0, &je)))
		return why(w, errno == ENOENT ? -ENOENT : -EINVAL, "unreadable: %s", je.text);
	nodes = json_object_get(j, "nodes");
	par = json_object_get(j, "parent");
	x = json_object_get(j, "root");
	if (!json_is_array(nodes) || !json_is_array(par) || !json_is_string(x) ||
	    json_array_size(nodes) != json_array_size(par)) {
		ret = why(w, -EINVAL, "%s", "not a tree file (root, nodes and parent)");
		goto out;
	}
	snprintf(w->root, sizeof(w->root), "%s", json_string_value(x));
	parent = malloc(sizeof(int) * (size_t)n);
	into = calloc((size_t)t->nclusters, sizeof(int));
	if (!parent || !into) {
		ret = -ENOMEM;
		goto out;
	}
	for (int h = 0; h < n; h++)
		parent[h] = -2;                 /* not in the file */
	r = gb_topo_find_node(t, w->root);
	if (r < 0 || r >= n) {
		why(w, 0, "root '%s' is not a host of the topology", w->root);
		goto out;
	}
	json_array_foreach(nodes, i, x) {
		json_t *p = json_array_get(par, i);
		int h = json_is_string(x) ? gb_topo_find_node(t, json_string_value(x)) : -1;
		int ph = json_is_string(p) ? gb_topo_find_node(t, json_string_value(p)) : -1;

		if (h < 0 || h >= n) {
			why(w, 0, "node '%s' is not a host of the topology",
			    json_is_string(x) ? json_string_value(x) : "?");
			goto out;
		}
		if (parent[h] != -2) {
			why(w, 0, "host '%s' appears twice", t->nodes[h].name);
			goto out;
		}
		if (json_is_null(p) != (h == r) || (!json_is_null(p) && (ph < 0 || ph >= n))) {
			why(w, 0, "host '%s' has a bad parent (only the root has none)",
			    t->nodes[h].name);
			goto out;
		}
		parent[h] = ph;
	}
	/* every chain of parents ends at the root: no cycle, nobody missing */
	for (int h = 0; h < n; h++) {
		int u = h, steps = 0;

		if (parent[h] == -2) {
			why(w, 0, "host '%s' is not in the tree", t->nodes[h].name);
			goto out;
		}
		while (u != r && steps++ <= n)
			u = parent[u];
		if (u != r) {
			why(w, 0, "host '%s' is on a cycle", t->nodes[h].name);
			goto out;
		}
	}
	w->valid = 1;
	for (int h = 0; h < n; h++)
		if (h != r && t->nodes[parent[h]].cluster != t->nodes[h].cluster) {
			into[t->nodes[h].cluster]++;
			w->wan_edges++;
		}
	w->optimal = 1;
	for (int c = 0; c < t->nclusters && w->optimal; c++) {
		int want = c == t->nodes[r].cluster ? 0 : 1;

		if (into[c] != want) {
			w->optimal = 0;
			snprintf(w->why, sizeof(w->why), "cluster %s is entered %d times from "
				 "outside (want %d)", t->clusters[c].name, into[c], want);
		}
	}
out:
	free(parent);
	free(into);
	json_decref(j);
	return ret;
}
