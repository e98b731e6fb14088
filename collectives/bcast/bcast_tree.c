/* SPDX-License-Identifier: MIT */
/*
 * bcast_tree.c - getting a planner's tree to every rank (gridbcast.h).
 *
 *	                     static planner            measured planner
 *	model                topology (every rank)     matrix at the root
 *	                                               (else topology: labelled)
 *	who plans            every rank, locally       the root
 *	how others learn it  they planned it           piggybacked header on
 *	                                               each tree edge
 *	                                               [ablation: shared file]
 *
 * This is what the papers' systems pay: MPICH-G2 and MagPIe derive their
 * trees from a static description every process holds (MPICH-G2's RSL);
 * a tree planned from measurements exists at one place and must travel
 * (seed 000 s2.5 has MPI_Bcast read the advisor's current tree; gridbed's
 * ranks may sit on different machines in spirit, so the tree rides along
 * with the data instead of being read from a file).
 *
 * Rank order.  World rank w runs on the host the rank map names, else on
 * topology host w (the topology's host order is the default rank order,
 * gbtopo.h).  A communicator's model is the world model restricted to its
 * ranks' hosts in its own rank order (gb_nm_sub()), so node i of every
 * tree is rank i of the communicator and nothing needs translating at run
 * time.
 *
 * Choices:
 *  - Trees are planned for the actual root (no relabelling needed here):
 *    planning is cheap next to a broadcast and the cache absorbs repeats.
 *  - The initiation cost o of a topology model is 10 us, gridtree's default.
 *  - Without a topology every rank uses the same uniform model (1 Gbit/s,
 *    50 us, o = 10 us), so static and measured planners still give valid
 *    trees for unmodified programs run outside gridbed; labelled "uniform".
 *  - Ranks sharing a host are refused (planners need distinct nodes).
 *  - `phoenix` with $GRIDBED_PHOENIX_TREES: the root reads the tree phoenixd
 *    (the real protocol) converged to, instead of planning (see below).

 *  - "adaptive" (the advisor's trees) is not a planner: bcast_adaptive.c.
 *  - A plugin or external planner (plugin:PATH, external:PATH) is a measured
 *    planner; when it fails at the root the broadcast goes down a labelled
 *    fallback tree (plan_fallback()).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bcast_impl.h"
#include "gbtopo.h"

#define DEFAULT_O 10e-6

/* What every rank of the job shares: loaded once per process. */
static struct {
	int tried, ret;
	struct gb_topo *topo;
	char topo_path[512];
	struct gb_rankmap rm;
	int world_n;
	int *world_host;          /* world rank -> topology host, or NULL */
	struct gb_netmodel full;  /* gb_nm_from_topo(topo), when topo */
} G;

static int load_topology(const char *path)
{
	struct gb_diag d;
	char line[GB_DIAG_LINE_MAX];
	int ret;

	memset(&d, 0, sizeof(d));
	ret = gb_topo_load(path, &G.topo, &d);
	if (ret == -EINVAL) {
		gb_bcast_seterr("%s", gb_diag_format(&d, path, line, sizeof(line)));
		return ret;
	}
	if (ret < 0) {
		gb_bcast_seterr("cannot load topology '%s': %s", path, strerror(-ret));
		return ret;
	}
	snprintf(G.topo_path, sizeof(G.topo_path), "%s", path);
	ret = gb_nm_from_topo(&G.full, G.topo, DEFAULT_O);
	if (ret < 0)
		gb_bcast_seterr("cannot model topology '%s': %s", path, strerror(-ret));
	return ret;
}

static int load_world_once(void)
{
	const char *rmp = getenv("GRIDBED_RANKMAP"), *tp = NULL;
	struct gb_err err = { "" };
	char rp[512];
	int ret;

	if (G.tried)
		return G.ret;
	G.tried = 1;
	MPI_Comm_size(MPI_COMM_WORLD, &G.world_n);
	if (rmp && *rmp) {
		ret = gb_rankmap_load(rmp, &G.rm, &err);
		if (ret < 0) {
			gb_bcast_seterr("%s", err.msg);
			goto cleanup;
		}
		if (G.rm.n < G.world_n) {
			gb_bcast_seterr("rank map '%s' has %d ranks, the job %d", rmp, G.rm.n,
					G.world_n);
			ret = -EINVAL;
			goto cleanup;
		}
	}
	if (G.rm.topology[0])
		tp = G.rm.topology;
	else if (getenv("GRIDBED_TOPOLOGY") && *getenv("GRIDBED_TOPOLOGY"))
		tp = getenv("GRIDBED_TOPOLOGY");
	else if (getenv("GRIDBED_PREFIX") && *getenv("GRIDBED_PREFIX")) {
		const char *rd = getenv("GRIDBED_RUNDIR");

		snprintf(rp, sizeof(rp), "%s/%s/topology.yaml", rd && *rd ? rd : "/run/gridbed",
			 getenv("GRIDBED_PREFIX"));
		if (access(rp, R_OK) == 0)
			tp = rp;
	}
	ret = 0;
	if (!tp)
		goto cleanup;
	ret = load_topology(tp);
	if (ret < 0)
		goto cleanup;
	ret = -ENOMEM;
	G.world_host = malloc(sizeof(int) * G.world_n);
	if (!G.world_host)
		goto cleanup;
	ret = -EINVAL;
	for (int w = 0; w < G.world_n; w++) {
		int h = w;

		if (G.rm.n) {
			h = gb_topo_find_node(G.topo, G.rm.host[w]);
			if (h < 0 || h >= G.topo->nhosts) {
				gb_bcast_seterr("rank %d: host '%s' of the rank map is not a host "
						"of topology '%s'", w, G.rm.host[w], tp);
				goto cleanup;
			}
		} else if (w >= G.topo->nhosts) {
			gb_bcast_seterr("%d ranks but topology '%s' has %d hosts (give "
					"GRIDBED_RANKMAP)", G.world_n, tp, G.topo->nhosts);
			goto cleanup;
		}
		G.world_host[w] = h;
	}
	ret = 0;
cleanup:
	G.ret = ret;
	return ret;
}

const struct gb_topo *gb_bcast_topology(void)
{
	return G.topo;
}

/* Rank @i's name: its host's, else the rank map's, else "r<world rank>". */
void gb_bcast_rank_name(const struct gb_bcast_comm *c, int i, char *buf, size_t len)
{
	if (c->host[i] >= 0)
		snprintf(buf, len, "%s", G.topo->nodes[c->host[i]].name);
	else if (G.rm.n)
		snprintf(buf, len, "%s", G.rm.host[c->world[i]]);
	else
		snprintf(buf, len, "r%d", c->world[i]);
}

static int uniform_model(struct gb_bcast_comm *c)
{
	int n = c->n, ret = gb_nm_init(&c->sm, n);

	if (ret < 0)
		return ret;
	for (int i = 0; i < n; i++) {
		gb_bcast_rank_name(c, i, c->sm.nodes[i].name, sizeof(c->sm.nodes[i].name));
		c->sm.o[i] = DEFAULT_O;
		for (int j = 0; j < n; j++) {
			c->sm.lat[(size_t)i * n + j] = i == j ? 0 : 50e-6;
			c->sm.bw[(size_t)i * n + j] = i == j ? INFINITY : 125e6;
		}
	}
	snprintf(c->sm_label, sizeof(c->sm_label), "uniform (no topology)");
	return 0;
}

/* The rank -> host map and the static model of @c (lazily, once). */
int gb_bcast_planning_init(struct gb_bcast_comm *c)
{
	struct gb_err why = { "" };
	int ret;

	if (c->planning_ready)
		return 0;
	ret = load_world_once();
	if (ret < 0)
		return ret;
	c->host = malloc(sizeof(int) * c->n);
	if (!c->host)
		return -ENOMEM;
	for (int i = 0; i < c->n; i++)
		c->host[i] = G.world_host ? G.world_host[c->world[i]] : -1;
	if (G.topo) {
		for (int i = 0; i < c->n; i++)
			for (int j = 0; j < i; j++)
				if (c->host[i] == c->host[j]) {
					gb_bcast_seterr("ranks %d and %d both run on host "
							"'%s'", j, i,
							G.topo->nodes[c->host[i]].name);
					return -EINVAL;
				}
		ret = gb_nm_sub(&c->sm, &G.full, c->host, c->n);
		snprintf(c->sm_label, sizeof(c->sm_label), "topology %s", G.topo_path);
	} else {
		ret = uniform_model(c);
	}
	if (ret == 0 && gb_nm_check(&c->sm, &why) < 0) {
		gb_bcast_seterr("the ranks' model is unusable: %s", why.msg);
		ret = -EINVAL;
	}
	if (ret < 0) {
		gb_nm_release(&c->sm);
		return ret;
	}
	for (int i = 0; i < c->n; i++)
		c->group[i] = c->sm.nodes[i].cluster;
	c->groups_ready = 1;
	c->release = gb_bcast_planning_release;
	c->planning_ready = 1;
	return 0;
}

void gb_bcast_planning_release(struct gb_bcast_comm *c)
{
	for (int i = 0; i < c->ncache; i++)
		gb_tree_release(&c->cache[i].t);
	c->ncache = 0;
	gb_tree_release(&c->adaptive.t);
	gb_nm_release(&c->sm);
	free(c->host);
	c->host = NULL;
	c->groups_ready = 0;
	c->planning_ready = 0;
}

int gb_bcast_comm_hosts(MPI_Comm comm, int *hosts)
{
	struct gb_bcast_comm *c;
	int ret = gb_bcast_comm_get(comm, &c);

	if (ret == 0)
		ret = gb_bcast_planning_init(c);
	if (ret < 0)
		return ret;
	memcpy(hosts, c->host, sizeof(int) * c->n);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Measured models                                                     */
/* ------------------------------------------------------------------ */

static const char *matrix_path(void)
{
	const char *p = getenv("GRIDBED_MATRIX");

	return p && *p ? p : NULL;
}

static struct timespec matrix_mtime(void)
{
	struct timespec z = { 0, 0 };
	struct stat st;

	if (matrix_path() && stat(matrix_path(), &st) == 0)
		return st.st_mtim;
	return z;
}

/*
 * The measured model of @c's ranks: the matrix file's nodes matched by name
 * (the ranks' hosts), or by index = world rank when the ranks have no names
 * the matrix knows and it has enough nodes, with what a message of @size
 * gets (slow start after idle, core/nm_tcp.c); else the static model,
 * labelled as a fallback.
 */
static int measured_model(struct gb_bcast_comm *c, double size, struct gb_netmodel *m,
			  char *label, size_t len)
{
	struct gb_netmodel mx, ms;
	const char *path = matrix_path();
	struct gb_err err = { "" };
	char name[32];
	int *idx = NULL, ret;

	memset(&mx, 0, sizeof(mx));
	if (!path) {
		snprintf(label, len, "%s (fallback: no GRIDBED_MATRIX)", c->sm_label);
		return gb_nm_copy(m, &c->sm);
	}
	ret = gb_nm_load_json(&mx, path, &err);
	if (ret < 0) {
		if (err.msg[0])
			gb_bcast_seterr("%s", err.msg);
		else
			gb_bcast_seterr("cannot load matrix '%s': %s", path, strerror(-ret));
		return ret;
	}
	ret = -ENOMEM;
	idx = malloc(sizeof(int) * c->n);
	if (!idx)
		goto cleanup;
	for (int i = 0; i < c->n; i++) {
		gb_bcast_rank_name(c, i, name, sizeof(name));
		idx[i] = gb_nm_find_node(&mx, name);
		if (idx[i] < 0 && c->host[i] < 0 && !G.rm.n && c->world[i] < mx.n)
			idx[i] = c->world[i];
		if (idx[i] < 0) {
			gb_bcast_seterr("matrix '%s' has no node '%s' (rank %d)", path, name, i);
			ret = -ENOENT;
			goto cleanup;
		}
	}
	memset(&ms, 0, sizeof(ms));
	ret = gb_nm_sub(&ms, &mx, idx, c->n);
	if (ret == 0)
		ret = gb_nm_for_size(m, &ms, size);
	gb_nm_release(&ms);
	snprintf(label, len, "matrix %s v%llu", path, (unsigned long long)mx.version);
cleanup:
	free(idx);
	gb_nm_release(&mx);
	return ret;
}

int gb_bcast_predict(MPI_Comm comm, const struct gb_tree *t, double size, double seg,
		     int stripes, double *pred, char *label, size_t labellen)
{
	struct gb_bcast_comm *c;
	struct gb_netmodel mm, *m;
	char lb[256];
	int ret;

	memset(&mm, 0, sizeof(mm));
	ret = gb_bcast_comm_get(comm, &c);
	if (ret == 0)
		ret = gb_bcast_planning_init(c);
	if (ret < 0)
		return ret;
	if (!t || t->n != c->n)
		return -EINVAL;
	m = &c->sm;
	snprintf(lb, sizeof(lb), "%s", c->sm_label);
	if (matrix_path()) {
		ret = measured_model(c, size, &mm, lb, sizeof(lb));
		if (ret < 0)
			return ret;
		m = &mm;
	}
	gb_cost_all_stripes(m, t, size, seg, stripes, pred);
	if (label)
		snprintf(label, labellen, "%s", lb);
	gb_nm_release(&mm);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Trees of a running protocol: phoenixd                               */
/* ------------------------------------------------------------------ */

/*
 * The `phoenix` planner's tree is the one the Phoenix protocol converged
 * to.  phoenixd runs the real protocol on the grid and writes one tree
 * file per root; $GRIDBED_PHOENIX_TREES names them, and the root then
 * takes its tree from there instead of simulating the protocol
 * (plan_phoenix.c, the labelled fallback).  Either way the tree reaches
 * the other ranks in the header, like every measured tree.
 *
 * $GRIDBED_PHOENIX_TREES is phoenixd's --out directory (then the newest
 * trees: changed/ when phoenixd followed a --change, else initial/) or a
 * directory of <root host>.json files.
 */
static const char *phoenix_dir(const struct gb_planner *p)
{
	const char *d = getenv("GRIDBED_PHOENIX_TREES");

	return d && *d && !strcmp(p->name, "phoenix") ? d : NULL;
}

/* The tree file of @root's host under @dir into @buf; 0 or -ENOENT. */
static int phoenix_path(const struct gb_bcast_comm *c, const char *dir, int root, char *buf,
			size_t len)
{
	static const char *const sub[] = { "changed/", "initial/", "" };
	char name[64];

	gb_bcast_rank_name(c, root, name, sizeof(name));
	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(buf, len, "%s/%s%s.json", dir, sub[i], name);
		if (access(buf, R_OK) == 0)
			return 0;
	}
	snprintf(buf, len, "%s/initial/%s.json", dir, name);
	return -ENOENT;
}

static int phoenix_load(struct gb_bcast_comm *c, struct gb_bcast_entry *e, const char *dir)
{
	char path[1024];
	struct gb_err err = { "" };
	int ret;

	if (phoenix_path(c, dir, e->root, path, sizeof(path)) < 0) {
		gb_bcast_seterr("GRIDBED_PHOENIX_TREES: no tree for root '%s' in '%s' (phoenixd "
				"run --grid --out DIR writes them)", c->sm.nodes[e->root].name,
				dir);
		return -ENOENT;
	}
	ret = gb_tree_load_json(&e->t, &c->sm, path, &err);
	if (ret < 0) {
		gb_bcast_seterr("%s", err.msg[0] ? err.msg : "cannot read the phoenixd tree");
		return ret;
	}
	if (e->t.root != e->root) {
		gb_bcast_seterr("%s: the tree is rooted at '%s', not '%s'", path,
				c->sm.nodes[e->t.root].name, c->sm.nodes[e->root].name);
		gb_tree_release(&e->t);
		return -EINVAL;
	}
	snprintf(e->model, sizeof(e->model), "phoenixd %s", path);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Planning and the cache                                              */
/* ------------------------------------------------------------------ */

int gb_bcast_opts_env(struct gb_bcast_opts *o)
{
	const char *s;
	int ret = 0;

	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->segment = GB_SEG_AUTO;
	if ((s = getenv("GRIDBED_SEGMENT")) && *s && gb_parse_segment(s, &o->segment) < 0) {
		o->segment = GB_SEG_AUTO;
		gb_bcast_seterr("GRIDBED_SEGMENT='%.40s': not 'auto', 0 or a size in "
				"bytes (K, M suffixes)", s);
		ret = -EINVAL;
	}
	if (ret == 0 && (s = getenv("GRIDBED_STRIPES")) && *s) {
		struct gb_err why;

		if (gb_stripes_parse_why(s, &o->stripes, &why) < 0) {
			gb_bcast_seterr("GRIDBED_STRIPES='%.60s': not a number of trees from 1 to "
					"%d, nor a table 'SIZE:K,...[,K]': %s", s, GB_STRIPES_MAX,
					why.msg);
			ret = -EINVAL;
		}
	}
	if ((s = getenv("GRIDBED_BCAST_ISEND")) && atoi(s) > 0)
		o->flags |= GB_BCAST_ISEND;
	if ((s = getenv("GRIDBED_TREE_SHARED")) && atoi(s) > 0)
		o->flags |= GB_BCAST_SHARED;
	if ((s = getenv("GRIDBED_BCAST_WAIT")) && !strcmp(s, "sleep"))
		o->flags |= GB_BCAST_SLEEP;
	if ((s = getenv("GRIDBED_SEED")) && *s)
		o->seed = strtoull(s, NULL, 0);
	if ((s = getenv("GRIDBED_BUDGET_MS")) && *s)
		o->budget_s = atof(s) / 1e3;
	return ret;
}

static int plan_on(const struct gb_planner *p, const struct gb_netmodel *m, int root,
		   double size, const struct gb_bcast_opts *o, struct gb_tree *out)
{
	struct gb_plan_args a;
	struct gb_err why = { "" };
	int ret;

	memset(&a, 0, sizeof(a));
	a.root = root;
	a.size = size;
	a.seed = o ? o->seed : 1;
	a.budget_s = o ? o->budget_s : 0;
	ret = gb_plan_err(p, m, &a, out, &why);
	if (ret < 0 && p->path)
		gb_bcast_seterr("%s (root %d, %.0f B)", why.msg, root, size);
	else if (ret < 0)
		gb_bcast_seterr("planner '%s' failed for root %d, %.0f B: %s", p->name, root, size,
				strerror(-ret));
	return ret;
}

/*
 * A plugin or an external planner that fails at the root (crash, budget
 * overrun, not a spanning tree: gb_plan_err()) must not take the broadcast
 * down: the other ranks already wait for the tree's header.  The root then
 * broadcasts along FALLBACK_PLANNER's tree on the same model, and the
 * entry's model says so, with the fault, in every result row, and its
 * reported tree_via is "fallback:mpich-g2", as an adaptive broadcast's
 * fallback is (the ranks' protocol is still the piggybacked header;
 * docs/plugins.md, "When a plugin fails").  The entry stays cached like
 * any other, so a broken plugin is tried again when the matrix changes,
 * not at every broadcast.
 */
#define FALLBACK_PLANNER "mpich-g2"

static int plan_fallback(struct gb_bcast_entry *e, const struct gb_netmodel *m,
			 const struct gb_bcast_opts *o)
{
	char lb[sizeof(e->model)];
	int ret;

	snprintf(lb, sizeof(lb), "%s", e->model);
	snprintf(e->model, sizeof(e->model), "FALLBACK %s: %.160s; on %.60s", FALLBACK_PLANNER,
		 gb_bcast_strerror(), lb);
	ret = plan_on(gb_planner_find(FALLBACK_PLANNER), m, e->root, e->size, o, &e->t);
	e->reported_via = "fallback:" FALLBACK_PLANNER;
	return ret;
}

/* The shared-file ablation's file: one per job, communicator and tree. */
static void shared_path(const struct gb_bcast_comm *c, const struct gb_planner *p, int root,
			double size, char *buf, size_t len)
{
	const char *dir = getenv("GRIDBED_TREE_DIR"), *job = getenv("GRIDBED_JOB");
	uint64_t h = 1469598103934665603ull;

	if (!job || !*job)
		job = getenv("OMPI_MCA_ess_base_jobid");
	for (int i = 0; i < c->n; i++)
		h = (h ^ (uint64_t)c->world[i]) * 1099511628211ull;
	/* a plugin's name holds its path: hash it, and name the kind only */
	for (const char *s = p->path ? p->name : ""; *s; s++)
		h = (h ^ (uint64_t)(unsigned char)*s) * 1099511628211ull;
	if (!dir || !*dir)
		dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(buf, len, "%s/gridbed-tree-%s-%016llx-%s-r%d-%.0f.json", dir, job ? job : "0",
		 (unsigned long long)h, p->path ? (p->flags & GB_PLAN_PLUGIN ? "plugin" : "external") :
		 p->name, root, size);
}

/* Plan (or fetch) into cache entry @e, whose key is already set. */
static int fill_entry(struct gb_bcast_comm *c, struct gb_bcast_entry *e, unsigned flags,
		      const struct gb_bcast_opts *o)
{
	struct gb_netmodel mm;
	char path[1024];
	struct gb_err err = { "" };
	int ret = 0;

	memset(&mm, 0, sizeof(mm));
	if (e->p->flags & GB_PLAN_STATIC) {
		e->tree_via = "local";
		snprintf(e->model, sizeof(e->model), "%s", c->sm_label);
		return plan_on(e->p, &c->sm, e->root, e->size, o, &e->t);
	}
	e->tree_via = flags & GB_BCAST_SHARED ? "shared-file" : "piggyback";
	if (c->rank == e->root && phoenix_dir(e->p)) {
		ret = phoenix_load(c, e, phoenix_dir(e->p));
	} else if (c->rank == e->root) {
		ret = measured_model(c, (double)e->size, &mm, e->model, sizeof(e->model));
		if (ret == 0)
			ret = plan_on(e->p, &mm, e->root, e->size, o, &e->t);
		if (ret < 0 && e->p->path && mm.n)
			ret = plan_fallback(e, &mm, o);
		gb_nm_release(&mm);
		if (!strcmp(e->p->name, "phoenix")) {
			char lb[sizeof(e->model)];

			snprintf(lb, sizeof(lb), "%s", e->model);
			snprintf(e->model, sizeof(e->model), "phoenix_sim on %.180s (fallback: "
				 "no GRIDBED_PHOENIX_TREES)", lb);
		}
	} else {
		snprintf(e->model, sizeof(e->model), "planned at the root");
	}
	if (!(flags & GB_BCAST_SHARED))
		return ret;

	/* Ablation: the root writes the tree, the others read it after a
	 * barrier.  Every rank reaches the barrier even when the root failed
	 * (then the file is missing and the readers fail too). */
	shared_path(c, e->p, e->root, e->size, path, sizeof(path));
	if (c->rank == e->root && ret == 0) {
		ret = gb_tree_save_json(&e->t, &c->sm, e->p->name, e->size, path);
		if (ret < 0)
			gb_bcast_seterr("cannot write tree file '%s': %s", path, strerror(-ret));
	}
	if (MPI_Barrier(c->pc) != MPI_SUCCESS && ret == 0)
		ret = -EIO;
	if (c->rank != e->root && ret == 0) {
		ret = gb_tree_load_json(&e->t, &c->sm, path, &err);
		if (ret < 0)
			gb_bcast_seterr("%s", err.msg[0] ? err.msg : "cannot read the shared tree file");
	}
	return ret;
}

int gb_bcast_get_entry(struct gb_bcast_comm *c, const struct gb_planner *p, int root,
		       double size, const struct gb_bcast_opts *o, struct gb_bcast_entry **out,
		       double *plan_s)
{
	unsigned flags = o ? o->flags : 0;
	int measured = !(p->flags & GB_PLAN_STATIC), ret;
	struct timespec mt = { 0, 0 };
	struct gb_bcast_entry *e;
	double t0;

	*plan_s = 0;
	ret = gb_bcast_planning_init(c);
	if (ret < 0)
		return ret;
	/* Only the root reads the matrix, except in the ablation, where every
	 * rank must take the same cache decision (they meet at a barrier). */
	if (measured && (c->rank == root || (flags & GB_BCAST_SHARED)))
		mt = matrix_mtime();
	if (measured && c->rank == root && phoenix_dir(p)) {
		char path[1024];
		struct stat st;

		/* a new phoenixd run replaces the trees */
		mt.tv_sec = mt.tv_nsec = 0;
		if (phoenix_path(c, phoenix_dir(p), root, path, sizeof(path)) == 0 &&
		    stat(path, &st) == 0)
			mt = st.st_mtim;
	}
	for (int i = 0; i < c->ncache; i++) {
		e = &c->cache[i];
		if (e->p == p && e->root == root && e->size == size &&
		    e->mtime.tv_sec == mt.tv_sec && e->mtime.tv_nsec == mt.tv_nsec &&
		    (!measured || !strcmp(e->tree_via, flags & GB_BCAST_SHARED ?
					  "shared-file" : "piggyback"))) {
			*out = e;
			return 0;
		}
	}
	if (c->ncache < GB_BCAST_CACHE) {
		e = &c->cache[c->ncache++];
	} else {
		e = &c->cache[c->cache_next];
		c->cache_next = (c->cache_next + 1) % GB_BCAST_CACHE;
		gb_tree_release(&e->t);
	}
	memset(e, 0, sizeof(*e));
	e->p = p;
	e->root = root;
	e->size = size;
	e->mtime = mt;
	t0 = gb_now();
	ret = fill_entry(c, e, flags, o);
	*plan_s = gb_now() - t0;
	if (ret < 0) {
		gb_tree_release(&e->t);
		e->p = NULL;        /* never matches */
		return ret;
	}
	*out = e;
	return 0;
}

/*
 * The root's segment size for @e's tree when the caller asked for
 * GB_SEG_AUTO: gb_seg_choose() on the model the tree is planned on
 * (the matrix for measured trees, with what a message of the whole size
 * gets; the static model for static planners and when there is no
 * matrix), cached in @e.  Other ranks learn it from what arrives.
 */
static double auto_segment(struct gb_bcast_comm *c, struct gb_bcast_entry *e, int tsize)
{
	const struct gb_netmodel *m = &c->sm;
	struct gb_netmodel mm;
	char lb[256];

	if (e->seg_elem == tsize)
		return e->seg;
	if (e->size <= GB_SEG_MIN || tsize <= 0) {
		e->seg_elem = tsize;
		return e->seg = 0;       /* no segment size to try */
	}
	memset(&mm, 0, sizeof(mm));
	if (!(e->p && (e->p->flags & GB_PLAN_STATIC)) && matrix_path() &&
	    measured_model(c, e->size, &mm, lb, sizeof(lb)) == 0)
		m = &mm;
	e->seg = e->t.n == c->n ? gb_seg_choose(m, &e->t, e->size, tsize, 0, NULL) : 0;
	e->seg_elem = tsize;
	gb_nm_release(&mm);
	return e->seg;
}

/* @o for one call of @e's tree, with GB_SEG_AUTO resolved (at the root). */
struct gb_bcast_opts gb_bcast_call_opts(struct gb_bcast_comm *c, struct gb_bcast_entry *e,
					const struct gb_bcast_opts *o, int root, int tsize)
{
	struct gb_bcast_opts eo = { 0 };

	if (o)
		eo = *o;
	if (eo.segment < 0)
		eo.segment = c->rank == root ? auto_segment(c, e, tsize) : 0;
	return eo;
}

void gb_bcast_set_info(struct gb_bcast_info *info, const struct gb_bcast_entry *e, double plan_s)
{
	if (!info)
		return;
	memset(info, 0, sizeof(*info));
	if (!e) {
		info->tree_via = "native";
		snprintf(info->model, sizeof(info->model), "MPI library");
		return;
	}
	info->tree_via = e->reported_via ? e->reported_via : e->tree_via;
	snprintf(info->model, sizeof(info->model), "%s", e->model);
	info->tree = e->t.n ? &e->t : NULL;
	info->plan_s = plan_s;
}
