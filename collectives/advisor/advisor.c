/* SPDX-License-Identifier: MIT */
/*
 * advisor.c - the pure parts of the broadcast advisor (gbadvisor.h):
 * reading the application log, predicting the next call, the advisor's
 * tree files, and picking and fitting a tree for a job.
 *
 * Seed 000 s2.5 (Fig. 5): MPI_Bcast writes a time stamp and the message size
 * of every call to app_file; the advisor predicts the next size and the gap
 * before the next call "using simple linear regression models", plans for
 * the predicted size, x2 and /2 with the gap as the time budget, and writes
 * the trees to files; MPI_Bcast "reads the current best broadcast tree,
 * corresponding to the message size".  What the paper leaves open is
 * decided in gbadvisor.h, next to each function.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gbio.h"
#include "gbadvisor.h"

/* ------------------------------------------------------------------ */
/* The application log                                                 */
/* ------------------------------------------------------------------ */

int gb_applog_parse_line(const char *line, struct gb_applog_entry *e)
{
	const char *p = line;
	char *end;
	double t, size;
	long root, nr;

	errno = 0;
	t = strtod(p, &end);
	if (end == p || *end != ' ' || errno || !isfinite(t) || t < 0)
		return -EINVAL;
	p = end + 1;
	size = strtod(p, &end);
	if (end == p || *end != ' ' || errno || !isfinite(size) || size < 0 ||
	    !isdigit((unsigned char)*p))
		return -EINVAL;
	p = end + 1;
	root = strtol(p, &end, 10);
	if (end == p || *end != ' ' || errno || root < 0 || !isdigit((unsigned char)*p))
		return -EINVAL;
	p = end + 1;
	nr = strtol(p, &end, 10);
	if (end == p || *end != ' ' || errno || nr < 1 || root >= nr ||
	    !isdigit((unsigned char)*p))
		return -EINVAL;
	p = end + 1;
	if (!*p || isspace((unsigned char)*p))
		return -EINVAL;    /* the algorithm field */
	e->t = t;
	e->size = size;
	e->root = (int)root;
	e->nranks = (int)nr;
	return 0;
}

int gb_applog_init(struct gb_applog *l, const char *path)
{
	memset(l, 0, sizeof(*l));
	l->path = strdup(path);
	return l->path ? 0 : -ENOMEM;
}

void gb_applog_release(struct gb_applog *l)
{
	free(l->path);
	free(l->e);
	memset(l, 0, sizeof(*l));
}

static int applog_add(struct gb_applog *l)
{
	struct gb_applog_entry e;

	l->part[l->plen] = 0;
	l->plen = 0;
	if (gb_applog_parse_line(l->part, &e) < 0) {
		l->bad++;
		return 0;
	}
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 64;
		struct gb_applog_entry *ne = realloc(l->e, sizeof(*ne) * (size_t)cap);

		if (!ne)
			return -ENOMEM;
		l->e = ne;
		l->cap = cap;
	}
	l->e[l->n++] = e;
	return 1;
}

int gb_applog_poll(struct gb_applog *l)
{
	char buf[65536];
	struct stat st;
	int fd, added = 0, ret = 0;

	fd = open(l->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	/* replaced or truncated: a new application's log starts over */
	if (l->ino && (st.st_ino != l->ino || st.st_dev != l->dev || st.st_size < l->off)) {
		l->n = 0;
		l->off = 0;
		l->plen = 0;
		l->resets++;
	}
	l->ino = st.st_ino;
	l->dev = st.st_dev;
	while (l->off < st.st_size) {
		ssize_t got = pread(fd, buf, sizeof(buf), l->off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = -errno;
			goto out;
		}
		if (got == 0)
			break;
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] == '\n') {
				int r = applog_add(l);

				if (r < 0) {
					ret = r;
					goto out;
				}
				added += r;
			} else if (l->plen < sizeof(l->part) - 1) {
				l->part[l->plen++] = buf[i];
			}   /* an over-long line keeps its first 255 bytes */
		}
		l->off += got;
	}
	ret = added;
out:
	close(fd);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Prediction                                                          */
/* ------------------------------------------------------------------ */

/* Least squares y_k ~ a + b k over k = 0 .. m-1 (m >= 1). */
static void linfit(const double *y, int m, double *a, double *b)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, d;

	if (m == 1) {
		*a = y[0];
		*b = 0;
		return;
	}
	for (int k = 0; k < m; k++) {
		sx += k;
		sy += y[k];
		sxx += (double)k * k;
		sxy += k * y[k];
	}
	d = m * sxx - sx * sx;
	*b = (m * sxy - sx * sy) / d;
	*a = (sy - *b * sx) / m;
}

int gb_adv_predict(const struct gb_applog_entry *h, int n, int window, struct gb_adv_pred *p)
{
	double *y = NULL, a, b;
	int m, first;

	memset(p, 0, sizeof(*p));
	p->size = p->gap = p->next_t = NAN;
	if (n < 0 || window < 0 || (n > 0 && !h))
		return -EINVAL;
	if (n == 0)
		return 0;
	m = window > 0 && window < n ? window : n;
	first = n - m;
	p->n = m;
	y = malloc(sizeof(double) * (size_t)m);
	if (!y)
		return -ENOMEM;

	for (int k = 0; k < m; k++)
		y[k] = h[first + k].size;
	linfit(y, m, &a, &b);
	p->size_slope = b;
	p->size = nearbyint(a + b * m);
	if (!(p->size >= 1))
		p->size = h[n - 1].size >= 1 ? h[n - 1].size : 1;

	if (m >= 2) {
		for (int k = 0; k + 1 < m; k++)
			y[k] = h[first + k + 1].t - h[first + k].t;
		linfit(y, m - 1, &a, &b);
		p->gap_slope = b;
		p->gap = a + b * (m - 1);
		if (!(p->gap > 0))
			p->gap = y[m - 2] > 0 ? y[m - 2] : 0;
		p->next_t = h[n - 1].t + p->gap;
	}
	free(y);
	return 0;
}

void gb_adv_synthetic(int n, double t0, double scale, int nranks, struct gb_applog_entry *out)
{
	double t = t0;

	for (int k = 0; k < n; k++) {
		out[k].t = t;
		out[k].size = nearbyint(1048576.0 * (n - k) / n);
		out[k].root = 0;
		out[k].nranks = nranks;
		t += 90.0 * pow(0.93, k) * scale;
	}
}

/* ------------------------------------------------------------------ */
/* Tree files                                                          */
/* ------------------------------------------------------------------ */

int gb_advtree_path(const char *dir, double size, char *buf, size_t len)
{
	int k;

	if (!dir || !isfinite(size) || size < 0 || size > 1e18)
		return -EINVAL;
	k = snprintf(buf, len, "%s/tree-%.0f.json", dir, size);
	return k < 0 || (size_t)k >= len ? -ENAMETOOLONG : 0;
}

static json_t *num_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

int gb_advtree_save(const char *dir, const struct gb_advtree_meta *meta, const struct gb_tree *t,
		    const struct gb_netmodel *m, char *path, size_t pathlen)
{
	char p[1024], wall[64];
	json_t *j = NULL, *adv = NULL;
	time_t ws = (time_t)meta->planned_wall;
	struct tm tm;
	int ret;

	ret = gb_advtree_path(dir, meta->size, p, sizeof(p));
	if (ret < 0)
		return ret;
	j = gb_tree_to_json(t, m, meta->planner, meta->size);
	if (!j)
		return -ENOMEM;
	gmtime_r(&ws, &tm);
	strftime(wall, sizeof(wall), "%Y-%m-%dT%H:%M:%SZ", &tm);
	adv = json_pack("{s:i, s:s, s:i, s:b, s:{s:s, s:I, s:s}, s:{s:s, s:o}, "
			"s:{s:f, s:f, s:s}, s:f, s:f, s:I, s:{s:s, s:i, s:o, s:o, s:i}}",
			"format_version", GB_ADVTREE_VERSION,
			"planner", meta->planner,
			"mode", meta->mode,
			"oracle", meta->oracle,
			"matrix", "path", meta->matrix, "version", (json_int_t)meta->matrix_version,
			"generator", meta->generator,
			"model", "name", meta->cost_model, "predicted_cost",
			num_or_null(meta->predicted_cost),
			"planned_at", "mono", meta->planned_mono, "wall_s", meta->planned_wall,
			"wall", wall,
			"plan_seconds", meta->plan_seconds,
			"budget_s", meta->budget_s,
			"seed", (json_int_t)meta->seed,
			"predictor", "name", GB_ADV_PREDICTOR, "version", GB_ADV_PREDICTOR_VERSION,
			"size", num_or_null(meta->pred_size), "gap", num_or_null(meta->pred_gap),
			"history", meta->history);
	if (!adv || json_object_set_new(j, "advisor", adv) < 0) {
		ret = -ENOMEM;
		goto cleanup;
	}
	ret = gb_json_save_atomic(j, p);
	if (ret == 0 && path)
		snprintf(path, pathlen, "%s", p);
cleanup:
	json_decref(j);
	return ret;
}

void gb_advtree_release(struct gb_advtree *a)
{
	gb_tree_release(&a->t);
	free(a->names);
	memset(a, 0, sizeof(*a));
}

static double jnum(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void jstr(const json_t *o, const char *key, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));

	snprintf(buf, len, "%s", s ? s : "");
}

int gb_advtree_load(const char *path, struct gb_advtree *a, struct gb_err *e)
{
	struct gb_netmodel m;
	struct gb_advtree_meta *mt = &a->meta;
	json_t *j, *adv, *nodes, *o;
	int ret;

	memset(a, 0, sizeof(*a));
	memset(&m, 0, sizeof(m));
	snprintf(a->path, sizeof(a->path), "%s", path);
	j = gb_json_load_err(path, &ret, e);
	if (!j)
		return ret;
	ret = -EINVAL;
	adv = json_object_get(j, "advisor");
	nodes = json_object_get(j, "nodes");
	if (!json_is_object(adv) || json_integer_value(json_object_get(adv, "format_version")) < 1) {
		gb_err_set(e, "%s: not an advisor tree file (no 'advisor' object)", path);
		goto cleanup;
	}
	if (!json_is_array(nodes) || json_array_size(nodes) < 1 ||
	    json_array_size(nodes) > 65536) {
		gb_err_set(e, "%s: 'nodes' must list the tree's nodes", path);
		goto cleanup;
	}
	a->n = (int)json_array_size(nodes);
	ret = -ENOMEM;
	a->names = calloc((size_t)a->n, sizeof(*a->names));
	m.nodes = calloc((size_t)a->n, sizeof(*m.nodes));
	if (!a->names || !m.nodes)
		goto cleanup;
	ret = -EINVAL;
	for (int i = 0; i < a->n; i++) {
		const char *s = json_string_value(json_array_get(nodes, i));

		if (!s || !*s || strlen(s) >= sizeof(a->names[i])) {
			gb_err_set(e, "%s: nodes[%d] is not a node name", path, i);
			goto cleanup;
		}
		snprintf(a->names[i], sizeof(a->names[i]), "%s", s);
		snprintf(m.nodes[i].name, sizeof(m.nodes[i].name), "%s", s);
	}
	/* gb_tree_from_json() only matches names: a model of names suffices */
	m.n = a->n;
	ret = gb_tree_from_json(&a->t, &m, j, path, e);
	if (ret < 0)
		goto cleanup;
	snprintf(a->root, sizeof(a->root), "%s", a->names[a->t.root]);

	jstr(adv, "planner", mt->planner, sizeof(mt->planner));
	mt->size = jnum(j, "size");
	mt->mode = (int)json_integer_value(json_object_get(adv, "mode"));
	mt->oracle = json_is_true(json_object_get(adv, "oracle"));
	o = json_object_get(adv, "matrix");
	jstr(o, "path", mt->matrix, sizeof(mt->matrix));
	mt->matrix_version = (uint64_t)json_integer_value(json_object_get(o, "version"));
	jstr(o, "generator", mt->generator, sizeof(mt->generator));
	o = json_object_get(adv, "model");
	jstr(o, "name", mt->cost_model, sizeof(mt->cost_model));
	mt->predicted_cost = jnum(o, "predicted_cost");
	o = json_object_get(adv, "planned_at");
	mt->planned_mono = jnum(o, "mono");
	mt->planned_wall = jnum(o, "wall_s");
	mt->plan_seconds = jnum(adv, "plan_seconds");
	mt->budget_s = jnum(adv, "budget_s");
	mt->seed = (uint64_t)json_integer_value(json_object_get(adv, "seed"));
	o = json_object_get(adv, "predictor");
	mt->pred_size = jnum(o, "size");
	mt->pred_gap = jnum(o, "gap");
	mt->history = (int)json_integer_value(json_object_get(o, "history"));
	if (!isfinite(mt->planned_mono) || !isfinite(mt->size) || !mt->planner[0]) {
		gb_err_set(e, "%s: the advisor object needs planner, planned_at.mono and "
			   "the tree's size", path);
		ret = -EINVAL;
		goto cleanup;
	}
	ret = 0;
cleanup:
	free(m.nodes);
	json_decref(j);
	if (ret < 0)
		gb_advtree_release(a);
	if (ret < 0 && ret != -ENOMEM)
		snprintf(a->path, sizeof(a->path), "%s", path);
	return ret;
}

/* "tree-<digits>.json" exactly (temporary files have a suffix after it) */
static int tree_file_size(const char *name, double *size)
{
	const char *p = name + 5;
	size_t nd = 0;

	if (strncmp(name, "tree-", 5))
		return -1;
	while (isdigit((unsigned char)p[nd]))
		nd++;
	if (!nd || nd > 18 || strcmp(p + nd, ".json"))
		return -1;
	*size = strtod(p, NULL);
	return 0;
}

struct cand {
	double size, lsize, dist;   /* lsize: log of the size, 0 counted as 1 byte */
};

/* Two tree files whose sizes differ by less than 1 % are plans for the
 * same message (the predictor's rounding; a Mateescu cost moves by less
 * than 1 % of its transfer term across them): the newer one is current. */
#define ADVTREE_SAME_SIZE 1.01

static int cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return a->size > b->size ? -1 : a->size < b->size;   /* ties: the larger */
}

/* Is @t fresh at @now under @maxage (and not stamped before a reboot)? */
static int advtree_fresh(const struct gb_advtree *t, double maxage, double now)
{
	double age = now - t->meta.planned_mono;

	/* a file from before a reboot: CLOCK_MONOTONIC started again, so
	 * its age on the wall clock disagrees (by more than NTP steps) */
	if (isfinite(t->meta.planned_wall) &&
	    fabs(((double)time(NULL) - t->meta.planned_wall) - age) > 120)
		return 0;
	return age <= maxage && age > -1.0;
}

/*
 * @a was picked from @c[@i]: replace it with the newest fresh tree whose
 * size is within ADVTREE_SAME_SIZE of it.  The advisor names a file by its
 * planned size, so a newer plan for the same size replaces the file, but a
 * prediction one byte off (34953 B for a 34952 B call: the predictor
 * extrapolates rounded sizes) starts a new file, and the nearest-size rule
 * alone then runs the older tree, planned on an older matrix (seed 9's
 * broadcast 26, docs/measurements.md, session 23).
 */
static void newest_of_size(const char *dir, const struct cand *c, int nc, int i,
			   double maxage, double now, struct gb_advtree *a)
{
	char path[1024];

	for (int j = 0; j < nc; j++) {
		struct gb_advtree t;

		if (j == i || fabs(c[j].lsize - c[i].lsize) > log(ADVTREE_SAME_SIZE))
			continue;
		if (gb_advtree_path(dir, c[j].size, path, sizeof(path)) < 0 ||
		    gb_advtree_load(path, &t, NULL) < 0)
			continue;
		if (advtree_fresh(&t, maxage, now) && t.meta.planned_mono > a->meta.planned_mono) {
			gb_advtree_release(a);
			*a = t;
		} else {
			gb_advtree_release(&t);
		}
	}
}

int gb_advtree_pick(const char *dir, double size, double maxage, double now,
		    struct gb_advtree *a, struct gb_err *e)
{
	struct cand *c = NULL;
	struct dirent *de;
	char path[1024];
	struct gb_err err = { "" };
	int nc = 0, cap = 0, ret = -ENOENT;
	double lwant = log(size >= 1 ? size : 1);
	DIR *d;

	memset(a, 0, sizeof(*a));
	d = opendir(dir);
	if (!d) {
		ret = -errno;
		gb_err_set(e, "cannot read advisor directory '%s': %s", dir,
			   strerror(errno));
		return ret == -ENOENT ? -ENOENT : ret;
	}
	while ((de = readdir(d))) {
		double s;

		if (tree_file_size(de->d_name, &s) < 0)
			continue;
		if (nc == cap) {
			struct cand *nc2 = realloc(c, sizeof(*c) * (size_t)(cap ? 2 * cap : 32));

			if (!nc2) {
				ret = -ENOMEM;
				goto cleanup;
			}
			c = nc2;
			cap = cap ? 2 * cap : 32;
		}
		c[nc].size = s;
		c[nc].lsize = log(s >= 1 ? s : 1);
		c[nc].dist = fabs(c[nc].lsize - lwant);
		nc++;
	}
	if (!nc) {
		gb_err_set(e, "no tree files in '%s'", dir);
		goto cleanup;
	}
	qsort(c, (size_t)nc, sizeof(*c), cand_cmp);
	for (int i = 0; i < nc; i++) {
		struct gb_advtree t;

		if (gb_advtree_path(dir, c[i].size, path, sizeof(path)) < 0 ||
		    gb_advtree_load(path, &t, &err) < 0) {
			if (i == 0)
				gb_err_set(e, "%s", err.msg);
			continue;
		}
		if (advtree_fresh(&t, maxage, now)) {
			*a = t;
			ret = 0;
			newest_of_size(dir, c, nc, i, maxage, now, a);
			goto cleanup;
		}
		if (i == 0)
			gb_err_set(e, "nearest tree '%s' is %.3g s old (max %g s)", path,
				   now - t.meta.planned_mono, maxage);
		gb_advtree_release(&t);
	}
cleanup:
	closedir(d);
	free(c);
	return ret;
}

int gb_advtree_for_ranks(const struct gb_advtree *a, const char (*names)[32], int n, int root,
			 struct gb_tree *out, struct gb_err *e)
{
	struct gb_tree rl;
	const struct gb_tree *t = &a->t;
	int *idx = NULL, *rank = NULL, *par = NULL, *stk = NULL, *anc = NULL, sp = 0, ret;
	double *key = NULL, order = 0;

	memset(out, 0, sizeof(*out));
	memset(&rl, 0, sizeof(rl));
	if (!a || !names || n < 1 || root < 0 || root >= n || a->n != t->n)
		return -EINVAL;
	ret = -ENOMEM;
	idx = malloc(sizeof(int) * (size_t)n);
	rank = malloc(sizeof(int) * (size_t)a->n);
	par = malloc(sizeof(int) * (size_t)n);
	key = calloc((size_t)n, sizeof(double));
	stk = malloc(sizeof(int) * (size_t)a->n);
	anc = malloc(sizeof(int) * (size_t)a->n);
	if (!idx || !rank || !par || !key || !stk || !anc)
		goto cleanup;
	for (int v = 0; v < a->n; v++)
		rank[v] = -1;
	for (int i = 0; i < n; i++) {
		idx[i] = -1;
		for (int v = 0; v < a->n && idx[i] < 0; v++)
			if (!strcmp(a->names[v], names[i]))
				idx[i] = v;
		if (idx[i] < 0) {
			gb_err_set(e, "host '%s' (rank %d) is not in '%s'", names[i], i,
				   a->path);
			ret = -ENOENT;
			goto cleanup;
		}
		if (rank[idx[i]] >= 0) {
			gb_err_set(e, "ranks %d and %d both run on host '%s'", rank[idx[i]],
				   i, names[i]);
			ret = -EINVAL;
			goto cleanup;
		}
		rank[idx[i]] = i;
	}
	/* 1. the root's host takes the file root's place (and vice versa) */
	if (t->root != idx[root]) {
		ret = gb_tree_relabel(t, idx[root], &rl);
		if (ret < 0)
			goto cleanup;
		t = &rl;
	}
	/* 2. depth first from the root, children in send order: every rank
	 * hangs below its nearest ancestor that is a rank, in visiting order */
	stk[sp] = t->root;
	anc[sp++] = -1;
	while (sp > 0) {
		int v = stk[--sp], up = anc[sp], next = up;

		if (rank[v] >= 0) {
			par[rank[v]] = up;
			key[rank[v]] = order++;
			next = rank[v];
		}
		for (int k = t->nchild[v] - 1; k >= 0; k--) {
			stk[sp] = t->child[t->cstart[v] + k];
			anc[sp++] = next;
		}
	}
	ret = gb_tree_init(out, n, root);
	if (ret == 0)
		ret = gb_tree_from_parents(out, par, key);
	if (ret == 0 && gb_tree_check(out, NULL) < 0)
		ret = -EINVAL;
	if (ret < 0)
		gb_tree_release(out);
cleanup:
	gb_tree_release(&rl);
	free(idx);
	free(rank);
	free(par);
	free(key);
	free(stk);
	free(anc);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Helpers of the advisor service                                      */
/* ------------------------------------------------------------------ */

const char *gb_adv_cost_model(const struct gb_planner *p)
{
	if (p && !strcmp(p->name, "sa-contention"))
		return "contention";
	if (p && (p->flags & GB_PLAN_CLUSTER))
		return "plogp";
	return "mateescu";
}

int gb_adv_matrix_label(const char *path, int *oracle, char *generator, size_t genlen)
{
	json_error_t je;
	json_t *j;
	int ret;

	j = gb_json_load_file(path, &je, &ret);
	if (!j)
		return ret;
	*oracle = json_is_true(json_object_get(j, "oracle"));
	jstr(j, "generator", generator, genlen);
	json_decref(j);
	return 0;
}
