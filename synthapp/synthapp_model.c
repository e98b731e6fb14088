// SPDX-License-Identifier: MIT
/*
 * synthapp_model.c - synthapp's view of what the library did (the
 * per-call record, $GRIDBED_BCAST_RECORD) and what the cost models predict
 * for the tree that ran, on the same model for every algorithm (synthapp.c
 * says when this runs: after each call, outside the timed interval).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bcast_core.h"
#include "gridbcast.h"
#include "synthapp_priv.h"


/* The matrix over the ranks' hosts (by name), reloaded when the file changed. */
static const struct gb_netmodel *current_model(struct models *M, const char **label)
{
	struct gb_netmodel all;
	struct stat st;
	int *idx, ok = 1;

	if (M->matrix && stat(M->matrix, &st) == 0) {
		if (M->have_mx && st.st_mtim.tv_sec == M->mx_mtime.tv_sec &&
		    st.st_mtim.tv_nsec == M->mx_mtime.tv_nsec) {
			*label = M->mx_label;
			return &M->mx;
		}
		memset(&all, 0, sizeof(all));
		idx = malloc(sizeof(int) * (size_t)nranks);
		if (idx && gb_nm_load_json(&all, M->matrix, NULL) == 0) {
			for (int i = 0; i < nranks && ok; i++)
				ok = (idx[i] = gb_nm_find_node(&all, M->host[i])) >= 0;
			if (ok) {
				if (M->have_mx)
					gb_nm_release(&M->mx);
				M->have_mx = gb_nm_sub(&M->mx, &all, idx, nranks) == 0;
				M->mx_mtime = st.st_mtim;
				snprintf(M->mx_label, sizeof(M->mx_label), "matrix %s v%llu",
					 M->matrix, (unsigned long long)all.version);
			}
			gb_nm_release(&all);
		}
		free(idx);
		if (M->have_mx) {
			*label = M->mx_label;
			return &M->mx;
		}
	}
	*label = M->sm_label;
	return M->have_sm ? &M->sm : NULL;
}

/*
 * The record line of this call (docs/gridbcast.md): the last complete
 * line appended since the previous read.  Fills the row's library fields
 * and its tree (parent[], children in send order) into @t.
 */
int read_record(struct models *M, const char *path, double size, struct brow *r,
		       struct gb_tree *t)
{
	char *line = NULL, *last = NULL;
	size_t cap = 0;
	json_t *j = NULL, *ch;
	json_error_t je;
	FILE *f;
	int ret = -ENOENT;

	if (!path || !(f = fopen(path, "re")))
		return -ENOENT;
	if (fseek(f, M->rec_off, SEEK_SET) == 0)
		while (getline(&line, &cap, f) > 0) {
			if (line[strlen(line) - 1] != '\n')
				break;          /* not complete yet */
			free(last);
			last = strdup(line);
			M->rec_off = ftell(f);
		}
	fclose(f);
	free(line);
	if (!last || !(j = json_loads(last, 0, &je)))
		goto cleanup;
	if (json_number_value(json_object_get(j, "size")) != size)
		goto cleanup;
	snprintf(r->used, sizeof(r->used), "%s",
		 json_string_value(json_object_get(j, "algo")) ?: "");
	snprintf(r->tree_via, sizeof(r->tree_via), "%s",
		 json_string_value(json_object_get(j, "tree_via")) ?: "");
	snprintf(r->model, sizeof(r->model), "%s",
		 json_string_value(json_object_get(j, "model")) ?: "");
	r->hdr_bytes = (unsigned long long)json_integer_value(json_object_get(j, "hdr_bytes"));
	r->seg_bytes = json_number_value(json_object_get(j, "seg_bytes"));
	r->stripes = (int)json_integer_value(json_object_get(j, "stripes"));   /* 0 if absent */
	r->fallback = json_is_true(json_object_get(j, "fallback"));
	ch = json_object_get(j, "children");
	ret = 0;
	if (json_is_array(ch) && (int)json_array_size(ch) == nranks) {
		double *order = calloc((size_t)nranks, sizeof(double));
		int root = (int)json_integer_value(json_object_get(j, "root")), k = 0;

		for (int i = 0; i < nranks; i++)
			r->parent[i] = -1;
		for (int v = 0; order && v < nranks; v++) {
			json_t *l = json_array_get(ch, (size_t)v);

			for (size_t c = 0; c < json_array_size(l); c++) {
				int w = (int)json_integer_value(json_array_get(l, c));

				if (w >= 0 && w < nranks) {
					r->parent[w] = v;
					order[w] = k++;
				}
			}
		}
		if (order && gb_tree_init(t, nranks, root) == 0) {
			if (gb_tree_from_parents(t, r->parent, order) < 0 ||
			    gb_tree_check(t, NULL) < 0) {
				gb_tree_release(t);
				memset(t, 0, sizeof(*t));
			}
		}
		free(order);
	}
cleanup:
	json_decref(j);
	free(last);
	return ret;
}

void predict(struct models *M, const struct gb_tree *t, struct brow *r)
{
	const struct gb_netmodel *m;
	const char *label = "";

	for (int i = 0; i < 8; i++)
		r->pred[i] = NAN;
	if (!t->n)
		return;
	struct gb_netmodel ms;

	m = current_model(M, &label);
	snprintf(r->pred_model, sizeof(r->pred_model), "%s", label);
	memset(&ms, 0, sizeof(ms));
	/* what the planners see at this size (core/nm_tcp.c) */
	if (!m || gb_nm_for_size(&ms, m, (double)r->size) < 0)
		return;
	gb_cost_all_stripes(&ms, t, r->size, r->seg_bytes, r->stripes, r->pred);
	gb_nm_release(&ms);
}

void models_init(struct models *M)
{
	struct gb_rankmap rm;
	struct gb_diag d;
	const char *path = getenv("GRIDBED_RANKMAP");

	memset(M, 0, sizeof(*M));
	M->matrix = getenv("GRIDBED_MATRIX") && *getenv("GRIDBED_MATRIX") ?
		    getenv("GRIDBED_MATRIX") : NULL;
	M->host = calloc((size_t)nranks, sizeof(*M->host));
	M->hostidx = calloc((size_t)nranks, sizeof(int));
	if (!M->host || !M->hostidx)
		die("out of memory");
	memset(&rm, 0, sizeof(rm));
	if (!path || gb_rankmap_load(path, &rm, NULL) < 0 || rm.n != nranks) {
		/* outside gridemu mpirun: ranks are named by number */
		for (int i = 0; i < nranks; i++)
			snprintf(M->host[i], sizeof(M->host[i]), "%d", i);
		gb_rankmap_release(&rm);
		return;
	}
	for (int i = 0; i < nranks; i++)
		snprintf(M->host[i], sizeof(M->host[i]), "%s", rm.host[i]);
	if (rm.topology[0] && gb_topo_load(rm.topology, &M->topo, &d) == 0) {
		struct gb_netmodel all;
		int ok = 1;

		for (int i = 0; i < nranks && ok; i++)
			ok = (M->hostidx[i] = gb_topo_find_node(M->topo, M->host[i])) >= 0 &&
			     M->hostidx[i] < M->topo->nhosts;
		if (ok && gb_nm_from_topo(&all, M->topo, 0) == 0) {
			M->have_sm = gb_nm_sub(&M->sm, &all, M->hostidx, nranks) == 0;
			gb_nm_release(&all);
			snprintf(M->sm_label, sizeof(M->sm_label), "topology %s", rm.topology);
		}
	}
	gb_rankmap_release(&rm);
}


int find_root(const char *s, struct models *M)
{
	char *end;
	long r;

	for (int i = 0; i < nranks; i++)
		if (!strcmp(M->host[i], s))
			return i;
	r = strtol(s, &end, 10);
	return *s && !*end && r >= 0 && r < nranks ? (int)r : -1;
}
