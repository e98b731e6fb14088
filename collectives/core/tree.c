/* SPDX-License-Identifier: MIT */
/*
 * tree.c - ordered broadcast trees: construction, validation, the MPICH
 * binomial building block, relabelling for another root, and JSON / DOT
 * I/O (docs/formats.md).
 *
 * A tree is a parent per node plus each node's ordered child list; the order
 * is the send order (docs/architecture.md, decision 5).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbio.h"

#define TREE_FORMAT "gridbed-tree"

int gb_tree_init(struct gb_tree *t, int n, int root)
{
	memset(t, 0, sizeof(*t));
	if (n < 1 || root < 0 || root >= n)
		return -EINVAL;
	t->n = n;
	t->root = root;
	t->parent = malloc(sizeof(int) * n);
	t->nchild = calloc(n, sizeof(int));
	t->cstart = calloc(n, sizeof(int));
	t->child = calloc(n, sizeof(int));
	if (!t->parent || !t->nchild || !t->cstart || !t->child) {
		gb_tree_release(t);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		t->parent[i] = -1;
	return 0;
}

void gb_tree_release(struct gb_tree *t)
{
	if (!t)
		return;
	free(t->parent);
	free(t->nchild);
	free(t->cstart);
	free(t->child);
	memset(t, 0, sizeof(*t));
}

int gb_tree_copy(struct gb_tree *dst, const struct gb_tree *src)
{
	struct gb_tree d;
	int ret;

	if (dst == src)
		return 0;
	ret = gb_tree_init(&d, src->n, src->root);
	if (ret < 0) {
		gb_tree_release(dst);
		return ret;
	}
	memcpy(d.parent, src->parent, sizeof(int) * src->n);
	memcpy(d.nchild, src->nchild, sizeof(int) * src->n);
	memcpy(d.cstart, src->cstart, sizeof(int) * src->n);
	memcpy(d.child, src->child, sizeof(int) * src->n);
	gb_tree_release(dst);
	*dst = d;
	return 0;
}

struct sort_ctx {
	const int *parent;
	const double *order;
};

static int cmp_child(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	int a = *(const int *)pa, b = *(const int *)pb;

	if (c->parent[a] != c->parent[b])
		return c->parent[a] < c->parent[b] ? -1 : 1;
	if (c->order && c->order[a] != c->order[b])
		return c->order[a] < c->order[b] ? -1 : 1;
	return (a > b) - (a < b);
}

int gb_tree_from_parents(struct gb_tree *t, const int *parent, const double *order)
{
	struct sort_ctx ctx;
	int n = t->n, k = 0;

	if (n < 1 || !t->parent || parent[t->root] != -1)
		return -EINVAL;
	for (int v = 0; v < n; v++) {
		if (v != t->root && (parent[v] < 0 || parent[v] >= n || parent[v] == v))
			return -EINVAL;
	}
	if (t->parent != parent)
		memcpy(t->parent, parent, sizeof(int) * n);
	for (int v = 0; v < n; v++)
		if (v != t->root)
			t->child[k++] = v;
	ctx.parent = t->parent;
	ctx.order = order;
	/* One sort by (parent, key, index) lays every child list out
	 * contiguously: O(n log n) even for a flat tree of thousands. */
	qsort_r(t->child, k, sizeof(int), cmp_child, &ctx);
	memset(t->nchild, 0, sizeof(int) * n);
	for (int i = 0; i < k; i++)
		t->nchild[t->parent[t->child[i]]]++;
	for (int v = 0, s = 0; v < n; v++) {
		t->cstart[v] = s;
		s += t->nchild[v];
	}
	return 0;
}

int gb_tree_order(const struct gb_tree *t, int *out)
{
	int head = 0, tail = 0;

	out[tail++] = t->root;
	while (head < tail) {
		int u = out[head++];

		for (int i = 0; i < t->nchild[u]; i++) {
			if (tail >= t->n)
				return tail; /* a cycle revisits nodes: stop before overflow */
			out[tail++] = t->child[t->cstart[u] + i];
		}
	}
	return tail;
}

int gb_tree_check(const struct gb_tree *t, struct gb_err *why)
{
	int *seen = NULL, *q = NULL, head = 0, tail = 0, ret = -EINVAL, total = 0;
	int n = t->n;

	if (n < 1 || !t->parent || !t->nchild || !t->cstart || !t->child) {
		gb_err_set(why, "empty tree");
		return -EINVAL;
	}
	if (t->root < 0 || t->root >= n) {
		gb_err_set(why, "root %d out of range", t->root);
		return -EINVAL;
	}
	if (t->parent[t->root] != -1) {
		gb_err_set(why, "root %d has parent %d", t->root, t->parent[t->root]);
		return -EINVAL;
	}
	seen = calloc(n, sizeof(int));
	q = malloc(sizeof(int) * n);
	if (!seen || !q) {
		ret = -ENOMEM;
		gb_err_set(why, "out of memory");
		goto cleanup;
	}
	for (int v = 0; v < n; v++) {
		if (v != t->root && (t->parent[v] < 0 || t->parent[v] >= n)) {
			gb_err_set(why, "node %d has no parent", v);
			goto cleanup;
		}
		if (t->nchild[v] < 0 || t->cstart[v] < 0 || t->cstart[v] + t->nchild[v] > n) {
			gb_err_set(why, "node %d: child list out of range", v);
			goto cleanup;
		}
		total += t->nchild[v];
		for (int i = 0; i < t->nchild[v]; i++) {
			int c = t->child[t->cstart[v] + i];

			if (c < 0 || c >= n || t->parent[c] != v) {
				gb_err_set(why, "node %d lists child %d whose parent differs",
					   v, c);
				goto cleanup;
			}
		}
	}
	if (total != n - 1) {
		gb_err_set(why, "%d child entries for %d nodes", total, n);
		goto cleanup;
	}
	seen[t->root] = 1;
	q[tail++] = t->root;
	while (head < tail) {
		int u = q[head++];

		for (int i = 0; i < t->nchild[u]; i++) {
			int c = t->child[t->cstart[u] + i];

			if (seen[c]) {
				gb_err_set(why, "node %d reached twice", c);
				goto cleanup;
			}
			seen[c] = 1;
			q[tail++] = c;
		}
	}
	if (tail != n) {
		for (int v = 0; v < n; v++) {
			if (!seen[v]) {
				gb_err_set(why, "node %d is not reachable from the root "
					   "(cycle)", v);
				break;
			}
		}
		goto cleanup;
	}
	ret = 0;
cleanup:
	free(seen);
	free(q);
	return ret;
}

int gb_tree_equal(const struct gb_tree *a, const struct gb_tree *b)
{
	if (a->n != b->n || a->root != b->root)
		return 0;
	for (int v = 0; v < a->n; v++) {
		if (a->parent[v] != b->parent[v] || a->nchild[v] != b->nchild[v])
			return 0;
		for (int i = 0; i < a->nchild[v]; i++)
			if (a->child[a->cstart[v] + i] != b->child[b->cstart[v] + i])
				return 0;
	}
	return 1;
}

/*
 * MPICH's MPIR_Bcast_binomial (mpich src/mpi/coll/bcast), over positions in
 * @members instead of ranks:
 *
 *	mask = 1
 *	while mask < k:                         receive phase
 *		if r & mask: parent = r - mask; break
 *		mask <<= 1
 *	mask >>= 1
 *	while mask > 0:                         send phase, largest subtree first
 *		if r + mask < k: send to r + mask
 *		mask >>= 1
 *
 * e.g. k = 8:   0 -> 4, 2, 1;  4 -> 6, 5;  2 -> 3;  6 -> 7
 */
void gb_binomial(const int *members, int k, int *parent, double *key, double key_base)
{
	for (int p = 0; p < k; p++) {
		int mask = 1, pos = 0;

		while (mask < k && !(p & mask))
			mask <<= 1;
		for (mask >>= 1; mask > 0; mask >>= 1) {
			if (p + mask >= k)
				continue;
			parent[members[p + mask]] = members[p];
			if (key)
				key[members[p + mask]] = key_base + pos;
			pos++;
		}
	}
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

json_t *gb_tree_to_json(const struct gb_tree *t, const struct gb_netmodel *m, const char *algo,
			double size)
{
	json_t *root = NULL, *nodes, *parent, *children, *pred;

	if (!m || m->n != t->n)
		return NULL;
	root = json_object();
	nodes = json_array();
	parent = json_array();
	children = json_object();
	pred = json_object();
	if (!root || !nodes || !parent || !children || !pred) {
		json_decref(nodes);
		json_decref(parent);
		json_decref(children);
		json_decref(pred);
		goto fail;
	}
	json_object_set_new(root, "format", json_string(TREE_FORMAT));
	json_object_set_new(root, "algo", json_string(algo ? algo : "unknown"));
	json_object_set_new(root, "root", json_string(m->nodes[t->root].name));
	json_object_set_new(root, "size", json_real(size));
	json_object_set_new(root, "nodes", nodes);
	json_object_set_new(root, "parent", parent);
	json_object_set_new(root, "children", children);
	json_object_set_new(root, "predicted", pred);
	for (int v = 0; v < t->n; v++) {
		json_t *cl;

		if (json_array_append_new(nodes, json_string(m->nodes[v].name)) < 0 ||
		    json_array_append_new(parent, t->parent[v] < 0 ? json_null() :
					  json_string(m->nodes[t->parent[v]].name)) < 0)
			goto fail;
		if (!t->nchild[v])
			continue;
		cl = json_array();
		if (!cl || json_object_set_new(children, m->nodes[v].name, cl) < 0)
			goto fail;
		for (int i = 0; i < t->nchild[v]; i++)
			if (json_array_append_new(cl, json_string(
					m->nodes[t->child[t->cstart[v] + i]].name)) < 0)
				goto fail;
	}
	for (int i = 0; i < gb_ncostmodels; i++) {
		double c = gb_costmodels[i].cost(m, t, size, NULL);

		json_object_set_new(pred, gb_costmodels[i].name,
				    isfinite(c) ? json_real(c) : json_null());
	}
	return root;
fail:
	json_decref(root);
	return NULL;
}

int gb_tree_save_json(const struct gb_tree *t, const struct gb_netmodel *m, const char *algo,
		      double size, const char *path)
{
	json_t *j;
	int ret;

	if (!m || m->n != t->n)
		return -EINVAL;
	j = gb_tree_to_json(t, m, algo, size);
	if (!j)
		return -ENOMEM;
	ret = gb_json_save_atomic(j, path);
	json_decref(j);
	return ret;
}

static int name_index(const struct gb_netmodel *m, json_t *v)
{
	const char *s = json_string_value(v);

	return s ? gb_nm_find_node(m, s) : -1;
}

int gb_tree_load_json(struct gb_tree *t, const struct gb_netmodel *m, const char *path,
		      struct gb_err *e)
{
	json_t *root;
	int ret;

	memset(t, 0, sizeof(*t));
	root = gb_json_load_err(path, &ret, e);
	if (!root)
		return ret;
	ret = gb_tree_from_json(t, m, root, path, e);
	json_decref(root);
	return ret;
}

/*
 * The parent array @par of a tree file, against root @r: the first node at
 * fault, by name, in @err ("'a-2' is its own parent", "'b-1' has no parent:
 * a second root besides 'a-1'", "root 'a-1' has parent 'b-1'", "'a-3' does
 * not reach the root 'a-1' (a cycle)").  Return: 0, or -EINVAL.
 */
static int tree_named_fault(const struct gb_netmodel *m, const int *par, int r,
			    const char *path, struct gb_err *e)
{
	int n = m->n;

	if (par[r] >= 0) {
		gb_err_set(e, "%s: the root '%s' has parent '%s'", path, m->nodes[r].name,
			   m->nodes[par[r]].name);
		return -EINVAL;
	}
	for (int v = 0; v < n; v++) {
		if (v == r)
			continue;
		if (par[v] == v) {
			gb_err_set(e, "%s: '%s' is its own parent", path, m->nodes[v].name);
			return -EINVAL;
		}
		if (par[v] < 0) {
			gb_err_set(e, "%s: '%s' has no parent: a second root besides '%s', "
				   "or a node left out", path, m->nodes[v].name, m->nodes[r].name);
			return -EINVAL;
		}
	}
	/* every chain of parents reaches the root within n steps, or loops */
	for (int v = 0; v < n; v++) {
		int u = v, k = 0;

		while (u != r && k++ <= n)
			u = par[u];
		if (u != r) {
			gb_err_set(e, "%s: '%s' does not reach the root '%s' (its parents "
				"form a cycle)", path, m->nodes[v].name, m->nodes[r].name);
			return -EINVAL;
		}
	}
	return 0;
}

int gb_tree_from_json(struct gb_tree *t, const struct gb_netmodel *m, const json_t *root,
		      const char *path, struct gb_err *e)
{
	struct gb_tree d;
	json_t *parent, *children;
	int *par = NULL, *rank = NULL, *has = NULL, n = m->n, r, ret;
	double *key = NULL;
	struct gb_err why;

	memset(t, 0, sizeof(*t));
	memset(&d, 0, sizeof(d));
	ret = -EINVAL;
	r = name_index(m, json_object_get(root, "root"));
	if (r < 0) {
		gb_err_set(e, "%s: 'root' is not a node of the model", path);
		goto cleanup;
	}
	ret = -ENOMEM;
	par = malloc(sizeof(int) * n);
	has = calloc(n, sizeof(int));
	rank = calloc(n, sizeof(int));
	key = calloc(n, sizeof(double));
	if (!par || !has || !rank || !key)
		goto cleanup;
	ret = -EINVAL;
	for (int v = 0; v < n; v++)
		par[v] = -1;
	parent = json_object_get(root, "parent");
	children = json_object_get(root, "children");
	if (!parent && !children) {
		gb_err_set(e, "%s: needs 'parent' or 'children'", path);
		goto cleanup;
	}
	if (parent) {
		json_t *nodes = json_object_get(root, "nodes");

		if (!json_is_array(parent) || !json_is_array(nodes) ||
		    json_array_size(nodes) != json_array_size(parent)) {
			gb_err_set(e, "%s: 'parent' must be an array aligned with 'nodes'",
				   path);
			goto cleanup;
		}
		if ((int)json_array_size(nodes) != n) {
			gb_err_set(e, "%s: tree has %zu nodes, the model %d", path,
				   json_array_size(nodes), n);
			goto cleanup;
		}
		for (size_t i = 0; i < json_array_size(nodes); i++) {
			int v = name_index(m, json_array_get(nodes, i));
			json_t *p = json_array_get(parent, i);

			if (v < 0 || has[v]) {
				gb_err_set(e, "%s: nodes[%zu] is unknown or repeated", path,
					   i);
				goto cleanup;
			}
			has[v] = 1;
			if (json_is_null(p))
				continue;
			par[v] = name_index(m, p);
			if (par[v] < 0) {
				gb_err_set(e, "%s: parent of '%s' is unknown", path,
					   m->nodes[v].name);
				goto cleanup;
			}
		}
	}
	if (children) {
		const char *k;
		json_t *cl;

		if (!json_is_object(children)) {
			gb_err_set(e, "%s: 'children' must be an object", path);
			goto cleanup;
		}
		json_object_foreach(children, k, cl) {
			int u = gb_nm_find_node(m, k);

			if (u < 0 || !json_is_array(cl)) {
				gb_err_set(e, "%s: children of unknown node '%s'", path, k);
				goto cleanup;
			}
			for (size_t i = 0; i < json_array_size(cl); i++) {
				int c = name_index(m, json_array_get(cl, i));

				if (c < 0) {
					gb_err_set(e, "%s: unknown child of '%s'", path, k);
					goto cleanup;
				}
				if (parent && par[c] != u) {
					gb_err_set(e, "%s: '%s' is a child of '%s' but its "
						   "parent says otherwise", path, m->nodes[c].name, k);
					goto cleanup;
				}
				if (!parent && par[c] >= 0) {
					gb_err_set(e, "%s: '%s' has two parents", path,
						   m->nodes[c].name);
					goto cleanup;
				}
				par[c] = u;
				rank[c] = 1;
				key[c] = (double)i;
			}
		}
		/* Every parented node must appear in its parent's list. */
		for (int v = 0; v < n; v++) {
			if (par[v] >= 0 && !rank[v]) {
				gb_err_set(e, "%s: '%s' missing from the children of '%s'",
					   path, m->nodes[v].name, m->nodes[par[v]].name);
				goto cleanup;
			}
		}
	}
	if (tree_named_fault(m, par, r, path, e) < 0)
		goto cleanup;
	ret = gb_tree_init(&d, n, r);
	if (ret < 0)
		goto cleanup;
	ret = gb_tree_from_parents(&d, par, children ? key : NULL);
	if (ret < 0 || gb_tree_check(&d, &why) < 0) {
		if (ret >= 0)
			gb_err_set(e, "%s: not a broadcast tree: %s", path, why.msg);
		else
			gb_err_set(e, "%s: not a broadcast tree rooted at '%s'", path,
				   m->nodes[r].name);
		ret = -EINVAL;
		goto cleanup;
	}
	*t = d;
	memset(&d, 0, sizeof(d));
	ret = 0;
cleanup:
	gb_tree_release(&d);
	free(par);
	free(has);
	free(rank);
	free(key);
	return ret;
}

/* ------------------------------------------------------------------ */
/* DOT                                                                 */
/* ------------------------------------------------------------------ */

/*
 * Nodes are filled with one colour per cluster (a colorbrewer "set3"
 * palette, cycled) and boxed per cluster; edges are labelled with their
 * send position.  An edge that leaves its site (wide area) is bold red, one
 * that leaves its cluster but not its site is dashed blue.
 */
int gb_tree_write_dot(const struct gb_tree *t, const struct gb_netmodel *m, void *FILE_stream)
{
	FILE *f = FILE_stream;

	if (!f || !m || m->n != t->n)
		return -EINVAL;
	fprintf(f, "digraph bcast {\n\trankdir=TB;\n\tnode [style=filled, "
		"colorscheme=set312, shape=ellipse];\n");
	for (int c = 0; c < m->nclusters; c++) {
		fprintf(f, "\tsubgraph \"cluster_%d\" {\n\t\tlabel=\"%s\";\n", c,
			m->cluster_names[c]);
		for (int v = 0; v < m->n; v++) {
			if (m->nodes[v].cluster != c)
				continue;
			fprintf(f, "\t\t\"%s\" [fillcolor=%d%s];\n", m->nodes[v].name, c % 12 + 1,
				v == t->root ? ", shape=doublecircle" : "");
		}
		fprintf(f, "\t}\n");
	}
	for (int u = 0; u < t->n; u++) {
		for (int i = 0; i < t->nchild[u]; i++) {
			int v = t->child[t->cstart[u] + i];
			const char *style = "";

			if (m->nodes[u].site != m->nodes[v].site)
				style = ", color=red, penwidth=2.5, fontcolor=red";
			else if (m->nodes[u].cluster != m->nodes[v].cluster)
				style = ", color=blue, style=dashed";
			fprintf(f, "\t\"%s\" -> \"%s\" [label=\"%d\"%s];\n", m->nodes[u].name,
				m->nodes[v].name, i + 1, style);
		}
	}
	fprintf(f, "}\n");
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------------------ */
/* Relabelling                                                         */
/* ------------------------------------------------------------------ */

/*
 * @in with node v renamed perm[v] (a permutation of 0 .. n-1), send orders
 * kept: rooted at perm[in->root].  @out is initialised here.
 */
static int tree_permute(const struct gb_tree *in, const int *perm, struct gb_tree *out)
{
	int *par = NULL, n = in->n, ret = -ENOMEM;
	double *key = NULL;

	par = malloc(sizeof(int) * n);
	key = malloc(sizeof(double) * n);
	if (!par || !key)
		goto cleanup;
	/* node v of @in becomes perm[v]; its key is its position among its
	 * siblings, which gb_tree_from_parents() turns back into order */
	for (int v = 0; v < n; v++) {
		int p = in->parent[v];

		par[perm[v]] = p < 0 ? -1 : perm[p];
		for (int k = 0; k < in->nchild[v]; k++)
			key[perm[in->child[in->cstart[v] + k]]] = k;
	}
	key[perm[in->root]] = 0;
	ret = gb_tree_init(out, n, perm[in->root]);
	if (ret == 0)
		ret = gb_tree_from_parents(out, par, key);
	if (ret < 0)
		gb_tree_release(out);
cleanup:
	free(par);
	free(key);
	return ret;
}

int gb_tree_relabel(const struct gb_tree *in, int root, struct gb_tree *out)
{
	int *perm, n = in ? in->n : 0, ret;

	if (in == out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!in || root < 0 || root >= n || gb_tree_check(in, NULL) < 0)
		return -EINVAL;
	perm = malloc(sizeof(int) * n);
	if (!perm)
		return -ENOMEM;
	for (int v = 0; v < n; v++)
		perm[v] = gb_relabel(v, in->root, root);
	ret = tree_permute(in, perm, out);
	free(perm);
	return ret;
}

/*
 * In @perm (the identity on entry), the members of each group g >= 0 of
 * @group but @root, in index order, each given the next one's place, @s
 * places on.  Return: 0 or -ENOMEM.
 */
static int rotate_groups(const int *group, int n, int root, int s, int *perm)
{
	int *mem = malloc(sizeof(int) * (size_t)(n ? n : 1)), *start, gmax = -1;

	if (!mem)
		return -ENOMEM;
	for (int v = 0; v < n; v++)
		if (group[v] > gmax && v != root)
			gmax = group[v];
	/* the members of each group in index order, group after group (a
	 * counting sort): group g's are mem[start[g] .. start[g + 1] - 1] */
	start = calloc((size_t)gmax + 3, sizeof(int));
	if (!start) {
		free(mem);
		return -ENOMEM;
	}
	for (int v = 0; v < n; v++)
		if (group[v] >= 0 && v != root)
			start[group[v] + 2]++;
	for (int g = 0; g <= gmax; g++)
		start[g + 2] += start[g + 1];
	for (int v = 0; v < n; v++)
		if (group[v] >= 0 && v != root)
			mem[start[group[v] + 1]++] = v;
	/* start[g + 1] now ends group g, and start[g] (0 for g = 0) begins it */
	for (int g = 0; g <= gmax; g++) {
		int b = start[g], k = start[g + 1] - b;

		for (int i = 0; i < k; i++)
			perm[mem[b + i]] = mem[b + (i + s) % k];
	}
	free(mem);
	free(start);
	return 0;
}

/*
 * Stripe s of a striped broadcast (issue 14; gbcore.h):
 *
 *	group c's members other than the root, in index order:  m0 m1 m2 m3
 *	stripe s = 1 gives m0's place to m1, m1's to m2, ..., m3's to m0
 *
 * so that where stripe 0 crosses the wide area into cluster c at m0,
 * stripe 1 crosses at m1: another pair of hosts, another TCP connection.
 */
int gb_tree_stripe(const struct gb_tree *in, const int *group, int s, struct gb_tree *out)
{
	int *perm, n = in ? in->n : 0, ret;

	if (in == out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!in || s < 0 || gb_tree_check(in, NULL) < 0)
		return -EINVAL;
	perm = malloc(sizeof(int) * (size_t)(n ? n : 1));
	if (!perm)
		return -ENOMEM;
	for (int v = 0; v < n; v++)
		perm[v] = v;
	ret = group ? rotate_groups(group, n, in->root, s, perm) : 0;
	if (ret == 0)
		ret = tree_permute(in, perm, out);
	free(perm);
	return ret;
}
