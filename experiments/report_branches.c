// SPDX-License-Identifier: MIT
/*
 * report_branches.c - where the broadcasts ended: for each algorithm and
 * load state, each cluster's median finish (the latest return from
 * MPI_Bcast of its ranks, after the root began: ranks.csv) and how many
 * broadcasts ended in it (it held the last rank).
 *
 * Why a report needs it: seed 000 s3 explains MPICH-G2's loaded peaks in
 * Fig. 8 by C3 being "a major bottleneck in the propagation of broadcast
 * messages to other clusters at the last level".  Whether that holds on
 * an emulated grid is a property of its numbers, and this table shows it:
 * under a load on C3's links, do the clusters behind C3 finish later, and
 * do they become the ones the broadcast waits for?  The completion time
 * alone cannot tell a slower branch from one that still has slack.
 *
 * The second table times the edges: an edge's time is from its parent's
 * first byte to it (parent_send_after_root) to its whole message having
 * arrived (recv_after_root), the columns libgridbcast fills; by the kind
 * of path: inside a cluster, between clusters of a site, across the wide
 * area.  A tree that predicts well on paper and runs slowly shows here in
 * which kind of edge the time went.
 *
 * A broadcast counts in "loaded" when the summary's row says a load
 * overlapped it (summary.h), so the tables split as the summary does.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_priv.h"

struct acc {
	double *v;       /* finish times of the cluster's last rank */
	int n, cap;
	int last;        /* broadcasts that ended in this cluster */
};

static int acc_push(struct acc *c, double x)
{
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 16;
		double *v = realloc(c->v, sizeof(*v) * (size_t)cap);

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = x;
	return 0;
}

enum { E_CLUSTER, E_SITE, E_WAN, E_KINDS };
static const char *const kind_name[E_KINDS] = { "cluster", "site", "wan" };

/* Everything one algorithm collects, by load state (0 unloaded, 1 loaded). */
struct algo_acc {
	struct acc *cl[2];              /* nclusters each */
	int nb[2];                      /* broadcasts */
	struct acc edge[2][E_KINDS];    /* edge times */
};

static int edge_kind(const struct gb_topo *t, int a, int b)
{
	int ca = t->nodes[a].cluster, cb = t->nodes[b].cluster;

	if (ca == cb)
		return E_CLUSTER;
	return t->clusters[ca].site == t->clusters[cb].site ? E_SITE : E_WAN;
}

/*
 * Fold one run's ranks.csv into @acc[load state][cluster] and @nb[state].
 * A run without the file (or without its columns) adds nothing.
 */
static int add_run(const struct coll *C, const struct run *r, const struct gb_topo *t,
		   struct algo_acc *A)
{
	char path[PATH_MAX];
	struct gx_csv tb;
	int ci, ch, ce, cr, cp, crv, cps, maxi = -1, maxr = -1, ret = 0;
	double *fin;
	int *node;                      /* rank -> host node */
	const struct gx_row **at;       /* broadcast index -> the summary's row */

	snprintf(path, sizeof(path), "%s/runs/%s/ranks.csv", C->dir, r->id);
	if (gx_csv_read(path, &tb) < 0)
		return 0;
	ci = gx_csv_col(&tb, "index");
	ch = gx_csv_col(&tb, "host");
	ce = gx_csv_col(&tb, "end_after_root");
	cr = gx_csv_col(&tb, "rank");
	cp = gx_csv_col(&tb, "parent");
	crv = gx_csv_col(&tb, "recv_after_root");            /* absent in old results */
	cps = gx_csv_col(&tb, "parent_send_after_root");
	for (int i = 0; ci >= 0 && cr >= 0 && i < tb.nrows; i++) {
		if ((int)gx_csv_num(&tb, i, ci) > maxi)
			maxi = (int)gx_csv_num(&tb, i, ci);
		if ((int)gx_csv_num(&tb, i, cr) > maxr)
			maxr = (int)gx_csv_num(&tb, i, cr);
	}
	if (ch < 0 || ce < 0 || cp < 0 || maxi < 0 || maxr < 0) {
		gx_csv_release(&tb);
		return 0;
	}
	fin = malloc(sizeof(*fin) * (size_t)(maxi + 1) * (size_t)t->nclusters);
	node = malloc(sizeof(*node) * (size_t)(maxr + 1));
	at = calloc((size_t)maxi + 1, sizeof(*at));
	if (!fin || !node || !at) {
		free(fin);
		free(node);
		free(at);
		gx_csv_release(&tb);
		return -ENOMEM;
	}
	for (int k = 0; k < C->nrows; k++) {
		const struct gx_row *w = &C->rows[k];

		if (w->algo == r->algo && w->cond == r->cond && w->rep == r->rep &&
		    w->index >= 0 && w->index <= maxi)
			at[w->index] = w;
	}
	for (int k = 0; k <= maxr; k++)
		node[k] = -1;
	for (int i = 0; i < tb.nrows; i++) {
		int h = gb_topo_find_node(t, tb.rows[i][ch]), k = (int)gx_csv_num(&tb, i, cr);

		if (k >= 0 && h >= 0 && h < t->nhosts)
			node[k] = h;
	}
	for (size_t k = 0; k < (size_t)(maxi + 1) * (size_t)t->nclusters; k++)
		fin[k] = NAN;
	for (int i = 0; i < tb.nrows; i++) {
		int x = (int)gx_csv_num(&tb, i, ci), h = gb_topo_find_node(t, tb.rows[i][ch]);
		double e = gx_csv_num(&tb, i, ce);
		double *f;

		if (x < 0 || h < 0 || h >= t->nhosts || !isfinite(e))
			continue;
		f = &fin[(size_t)x * (size_t)t->nclusters + (size_t)t->nodes[h].cluster];
		if (isnan(*f) || e > *f)
			*f = e;
		if (crv >= 0 && cps >= 0 && !ret) {     /* the edge into this rank */
			const struct gx_row *w = at[x];
			int p = (int)gx_csv_num(&tb, i, cp);
			double rv = gx_csv_num(&tb, i, crv), ps = gx_csv_num(&tb, i, cps);

			if (w && p >= 0 && p <= maxr && node[p] >= 0 && isfinite(rv) &&
			    isfinite(ps))
				ret = acc_push(&A->edge[w->loaded ? 1 : 0]
						   [edge_kind(t, node[p], h)], rv - ps);
		}
	}
	for (int x = 0; x <= maxi && !ret; x++) {
		const struct gx_row *w = at[x];
		const double *f = &fin[(size_t)x * (size_t)t->nclusters];
		int l, last = -1;

		if (!w)
			continue;
		l = w->loaded ? 1 : 0;
		for (int k = 0; k < t->nclusters && !ret; k++) {
			if (isnan(f[k]))
				continue;
			ret = acc_push(&A->cl[l][k], f[k]);
			if (last < 0 || f[k] > f[last])
				last = k;
		}
		if (last >= 0) {
			A->cl[l][last].last++;
			A->nb[l]++;
		}
	}
	free(fin);
	free(node);
	free(at);
	gx_csv_release(&tb);
	return ret;
}

static double median(struct acc *c)
{
	struct gx_stat st;

	gx_stat_of(c->v, c->n, &st);
	return st.median;
}

static void write_text(const struct coll *C, const struct gb_topo *t, struct algo_acc *A,
		       FILE *f)
{
	int edges = 0;

	fprintf(f, "\nwhere the broadcasts ended (ranks.csv): per cluster, the median time its "
		"last rank returned (s),\n  and [how many broadcasts ended there]\n");
	fprintf(f, "%-10s %-8s %4s", "algorithm", "load", "n");
	for (int k = 0; k < t->nclusters; k++)
		fprintf(f, " %13s", t->clusters[k].name);
	fprintf(f, "\n");
	for (int a = 0; a < C->nalgos; a++)
		for (int l = 1; l >= 0; l--) {
			if (!A[a].nb[l])
				continue;
			fprintf(f, "%-10s %-8s %4d", C->algos[a], l ? "loaded" : "unloaded",
				A[a].nb[l]);
			for (int k = 0; k < t->nclusters; k++) {
				struct acc *c = &A[a].cl[l][k];

				if (c->n)
					fprintf(f, " %7.3f [%3d]", median(c), c->last);
				else
					fprintf(f, " %13s", "-");
			}
			fprintf(f, "\n");
		}
	for (int a = 0; a < C->nalgos; a++)
		for (int l = 0; l < 2; l++)
			for (int e = 0; e < E_KINDS; e++)
				edges += A[a].edge[l][e].n;
	if (!edges)
		return;
	fprintf(f, "\nedge times (ranks.csv: the parent began sending -> the whole message "
		"arrived): median s [edges per broadcast]\n");
	fprintf(f, "%-10s %-8s", "algorithm", "load");
	for (int e = 0; e < E_KINDS; e++)
		fprintf(f, " %16s", kind_name[e]);
	fprintf(f, "\n");
	for (int a = 0; a < C->nalgos; a++)
		for (int l = 1; l >= 0; l--) {
			if (!A[a].nb[l] || !(A[a].edge[l][0].n + A[a].edge[l][1].n +
					     A[a].edge[l][2].n))
				continue;
			fprintf(f, "%-10s %-8s", C->algos[a], l ? "loaded" : "unloaded");
			for (int e = 0; e < E_KINDS; e++) {
				struct acc *c = &A[a].edge[l][e];

				if (c->n)
					fprintf(f, " %7.3f [%6.2f]", median(c),
						(double)c->n / A[a].nb[l]);
				else
					fprintf(f, " %16s", "-");
			}
			fprintf(f, "\n");
		}
}

static json_t *to_json(const struct coll *C, const struct gb_topo *t, struct algo_acc *A)
{
	json_t *j = json_object();

	for (int a = 0; a < C->nalgos; a++) {
		json_t *o = json_object();

		for (int l = 1; l >= 0; l--) {
			json_t *s = json_object(), *cl = json_object(), *ed = json_object();

			for (int k = 0; k < t->nclusters; k++) {
				struct acc *c = &A[a].cl[l][k];

				json_object_set_new(cl, t->clusters[k].name,
						    json_pack("{s:o,s:i}", "median_s", c->n ?
							      json_real(median(c)) : json_null(),
							      "ended_here", c->last));
			}
			for (int e = 0; e < E_KINDS; e++) {
				struct acc *c = &A[a].edge[l][e];

				json_object_set_new(ed, kind_name[e],
						    json_pack("{s:i,s:o}", "n", c->n, "median_s",
							      c->n ? json_real(median(c)) :
							      json_null()));
			}
			json_object_set_new(s, "broadcasts", json_integer(A[a].nb[l]));
			json_object_set_new(s, "clusters", cl);
			json_object_set_new(s, "edges", ed);
			json_object_set_new(o, l ? "loaded" : "unloaded", s);
		}
		json_object_set_new(j, C->algos[a], o);
	}
	return j;
}

int gx_report_branches(const struct coll *C, FILE *f, json_t **out)
{
	const struct gb_topo *t = C->topo;   /* coll_load() read topology.yaml */
	struct algo_acc *A = NULL;
	int ret = 0, any = 0;

	*out = NULL;
	if (!t)
		return 0;       /* no topology copy: nothing to say per cluster */
	if (!(A = calloc((size_t)C->nalgos, sizeof(*A)))) {
		ret = -ENOMEM;
		goto out;
	}
	for (int a = 0; a < C->nalgos; a++)
		for (int l = 0; l < 2; l++)
			if (!(A[a].cl[l] = calloc((size_t)t->nclusters, sizeof(struct acc)))) {
				ret = -ENOMEM;
				goto out;
			}
	for (int k = 0; k < C->nruns && !ret; k++)
		if (C->runs[k].complete)
			ret = add_run(C, &C->runs[k], t, &A[C->runs[k].algo]);
	for (int a = 0; a < C->nalgos; a++)
		any |= A[a].nb[0] || A[a].nb[1];
	if (!ret && any) {
		write_text(C, t, A, f);
		if (!(*out = to_json(C, t, A)))
			ret = -ENOMEM;
	}
out:
	for (int a = 0; A && a < C->nalgos; a++)
		for (int l = 0; l < 2; l++) {
			for (int k = 0; A[a].cl[l] && k < t->nclusters; k++)
				free(A[a].cl[l][k].v);
			free(A[a].cl[l]);
			for (int e = 0; e < E_KINDS; e++)
				free(A[a].edge[l][e].v);
		}
	free(A);
	return ret;
}
