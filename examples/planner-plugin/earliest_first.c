/* SPDX-License-Identifier: MIT */
/*
 * earliest_first.c - an example planner plugin for gridbed (docs/plugins.md).
 *
 * Earliest completion first, node by node: start with the root informed;
 * at every step, of all pairs (informed u, uninformed v), send along the
 * one whose message would arrive first,
 *
 *	arrival(u, v) = free(u) + o[u] + lat[u][v] + size / bw[u][v],
 *
 * where free(u) is when u has finished its previous send (a one-port
 * model: u sends one message at a time, each taking o[u] + size / bw).
 * This is ECEF (seed 002 s3.2) over nodes instead of clusters, in its
 * plainest form: O(n^3), fine for a few hundred ranks.
 *
 * Build it outside gridbed's tree:
 *	make GRIDBED=/path/to/gridbed
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gridbed/planner.h>

GRIDBED_PLANNER_DEFINE_ABI;

int gridbed_plan(const struct gridbed_model *m, const struct gridbed_request *r, int *parent,
		 double *order, char *err, size_t errlen)
{
	int n = m->n;
	double *free_at = calloc(n, sizeof(double)), *have_at = calloc(n, sizeof(double));
	char *have = calloc(n, 1);

	if (!free_at || !have_at || !have) {
		strncpy(err, "out of memory", errlen - 1);
		free(free_at);
		free(have_at);
		free(have);
		return -1;
	}
	have[r->root] = 1;
	for (int step = 1; step < n; step++) {
		double best = INFINITY, busy = 0;
		int bu = -1, bv = -1;

		for (int u = 0; u < n; u++) {
			if (!have[u])
				continue;
			for (int v = 0; v < n; v++) {
				double send, t;

				if (have[v])
					continue;
				send = m->o[u] + r->size / m->bw[u * n + v];
				t = fmax(free_at[u], have_at[u]) + send + m->lat[u * n + v];
				if (t < best) {
					best = t;
					bu = u;
					bv = v;
					busy = send;
				}
			}
		}
		parent[bv] = bu;
		order[bv] = step;           /* u's children in the order chosen */
		free_at[bu] = fmax(free_at[bu], have_at[bu]) + busy;
		have_at[bv] = best;
		have[bv] = 1;
	}
	free(free_at);
	free(have_at);
	free(have);
	return 0;
}
