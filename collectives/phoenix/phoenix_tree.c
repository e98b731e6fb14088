/* SPDX-License-Identifier: MIT */
/*
 * phoenix_tree.c - what is done with Phoenix's parent arrays (phoenix.h):
 * the cycle check, the struct gb_tree they become, and the wide-area
 * optimality check (issue 7).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "phoenix.h"

/* ------------------------------------------------------------------ */
/* Trees                                                               */
/* ------------------------------------------------------------------ */

int phx_parents_have_cycle(const int *parent, int n)
{
	/* colour: 0 unseen, 1 on the current chain, 2 done */
	uint8_t *col = calloc(n > 0 ? n : 1, 1);
	int cyc = 0;

	if (!col)
		return 0;
	for (int s = 0; s < n && !cyc; s++) {
		int v = s;

		while (v >= 0 && v < n && col[v] == 0) {
			col[v] = 1;
			v = parent[v];
		}
		if (v >= 0 && v < n && col[v] == 1)
			cyc = 1;
		for (v = s; v >= 0 && v < n && col[v] == 1; v = parent[v])
			col[v] = 2;
	}
	free(col);
	return cyc;
}

int phx_tree_build(struct gb_tree *out, const int *parent, const int *rank,
		   enum phx_order order)
{
	int n = out->n, ret = -ENOMEM;
	int *desc = NULL;
	double *key = NULL;

	if (phx_parents_have_cycle(parent, n))
		return -EINVAL;
	desc = calloc(n, sizeof(int));
	key = malloc(sizeof(double) * n);
	if (!desc || !key)
		goto cleanup;
	/* descendants: walk each node's chain up (O(n * depth), fine here) */
	for (int v = 0; v < n; v++)
		for (int u = parent[v], h = 0; u >= 0 && u < n && h < n; u = parent[u], h++)
			desc[u]++;
	for (int v = 0; v < n; v++) {
		double rk = rank ? rank[v] : v;

		/* [choice 9]: keys sort ascending; rank < n always */
		key[v] = order == PHX_ORDER_DESC ? -(double)desc[v] * (n + 1) + rk : rk;
	}
	ret = gb_tree_from_parents(out, parent, key);
cleanup:
	free(desc);
	free(key);
	return ret;
}

int phx_wan_check(const int *parent, int n, int root, const int *cluster, int ncl,
		  int *wan_edges, int *bad)
{
	int *in = NULL, *has = NULL, nbad = 0, nwan = 0;

	if (n < 1 || root < 0 || root >= n || ncl < 1)
		return -EINVAL;
	in = calloc(ncl, sizeof(int));
	has = calloc(ncl, sizeof(int));
	if (!in || !has) {
		free(in);
		free(has);
		return -ENOMEM;
	}
	for (int v = 0; v < n; v++) {
		int p = parent[v];

		if (cluster[v] < 0 || cluster[v] >= ncl) {
			free(in);
			free(has);
			return -EINVAL;
		}
		has[cluster[v]] = 1;
		if (p >= 0 && p < n && cluster[p] != cluster[v]) {
			in[cluster[v]]++;
			nwan++;
		}
	}
	for (int c = 0; c < ncl; c++)
		if (has[c] && in[c] != (c == cluster[root] ? 0 : 1))
			nbad++;
	free(in);
	free(has);
	if (wan_edges)
		*wan_edges = nwan;
	if (bad)
		*bad = nbad;
	return nbad == 0;
}
