/* SPDX-License-Identifier: MIT */
/*
 * 6103-advisor-trees - the broadcast advisor's tree files (gbadvisor.h):
 *   - a file round-trips: the same tree, the same metadata, and it still
 *     reads as a plain tree file;
 *   - picking: the nearest planned size among fresh files; a stale, a
 *     missing or an unreadable tree is skipped, and with none fresh the
 *     answer is -ENOENT with the reason (the adaptive broadcast's
 *     fallback); temporary files of an atomic write are ignored; a file
 *     from before a reboot (its monotonic time in the future) is stale;
 *     of two files within 1 % in size, the newer one is picked;
 *   - fitting a file's tree to a job: the same tree for all hosts, any rank
 *     order, a subset of hosts (nearest ancestor), another root (swap),
 *     missing and doubled hosts refused.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bcast_core.h"
#include "gbadvisor.h"
#include "tap.h"

static char dir[] = "/tmp/gb6103.XXXXXX";
static struct gb_netmodel M;
static struct gb_tree T;

static void meta_for(struct gb_advtree_meta *m, double size, double age)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->planner, sizeof(m->planner), "clustered-sa");
	m->size = size;
	m->mode = 2;
	m->oracle = 1;
	snprintf(m->matrix, sizeof(m->matrix), "/tmp/m.json");
	m->matrix_version = 17;
	snprintf(m->generator, sizeof(m->generator), "gridmon");
	snprintf(m->cost_model, sizeof(m->cost_model), "mateescu");
	m->predicted_cost = gb_cost_mateescu(&M, &T, size, NULL);
	m->planned_mono = gb_now() - age;
	m->planned_wall = (double)time(NULL) - age;
	m->plan_seconds = 0.125;
	m->budget_s = 0.5;
	m->seed = 42;
	m->pred_size = size;
	m->pred_gap = 3.5;
	m->history = 7;
}

static void save(double size, double age)
{
	struct gb_advtree_meta m;

	meta_for(&m, size, age);
	if (gb_advtree_save(dir, &m, &T, &M, NULL, 0) < 0)
		bail("cannot save the tree for %.0f B", size);
}

static void put(const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f)
		bail("cannot write %s", p);
	fputs(text, f);
	fclose(f);
}

static void roundtrip(void)
{
	struct gb_advtree_meta m;
	struct gb_advtree a;
	struct gb_tree plain;
	char path[512];
	struct gb_err err = { "" };

	meta_for(&m, 65536, 0);
	is_int(gb_advtree_save(dir, &m, &T, &M, path, sizeof(path)), 0, "save a tree file");
	ok(strstr(path, "/tree-65536.json") != NULL, "named tree-<bytes>.json (%s)", path);
	is_int(gb_advtree_load(path, &a, &err), 0, "load it back (%s)", err.msg);
	ok(a.n == M.n && gb_tree_equal(&a.t, &T), "the same tree, node for node, send orders kept");
	is_str(a.root, M.nodes[T.root].name, "its root");
	for (int i = 0; i < M.n && i < a.n; i++)
		if (strcmp(a.names[i], M.nodes[i].name))
			ok(0, "node %d is '%s', not '%s'", i, a.names[i], M.nodes[i].name);
	ok(!strcmp(a.meta.planner, "clustered-sa") && a.meta.size == 65536 && a.meta.mode == 2 &&
	   a.meta.oracle == 1 && a.meta.matrix_version == 17 && a.meta.seed == 42 &&
	   a.meta.history == 7 && !strcmp(a.meta.cost_model, "mateescu") &&
	   !strcmp(a.meta.generator, "gridmon") && !strcmp(a.meta.matrix, "/tmp/m.json"),
	   "metadata round-trips (planner, size, mode, oracle, versions, seed, labels)");
	is_double(a.meta.predicted_cost, m.predicted_cost, 1e-12, "predicted cost");
	is_double(a.meta.planned_mono, m.planned_mono, 1e-6, "planned-at, monotonic");
	is_double(a.meta.planned_wall, m.planned_wall, 1e-6, "planned-at, wall clock");
	ok(a.meta.budget_s == 0.5 && a.meta.plan_seconds == 0.125 && a.meta.pred_gap == 3.5,
	   "budget, plan time, predicted gap");
	gb_advtree_release(&a);
	gb_advtree_release(&a);
	is_int(gb_tree_load_json(&plain, &M, path, &err), 0,
	       "an advisor tree file is also a plain tree file");
	ok(gb_tree_equal(&plain, &T), "... with the same tree");
	gb_tree_release(&plain);
	put("tree-7.json", "{\"format\": \"gridbed-tree\", \"root\": \"x\"}");
	snprintf(path, sizeof(path), "%s/tree-7.json", dir);
	is_int(gb_advtree_load(path, &a, &err), -EINVAL,
	       "a file without the advisor object is refused (%s)", err.msg);
	unlink(path);
}

static void like_why(const char *why, const char *sub)
{
	ok(strstr(why, sub) != NULL, "... and says so: '%s'", why);
}

static double pick_size(double size, double maxage, struct gb_err *why)
{
	struct gb_advtree a;
	double s;

	why->msg[0] = 0;
	if (gb_advtree_pick(dir, size, maxage, gb_now(), &a, why) < 0)
		return -1;
	s = a.meta.size;
	gb_advtree_release(&a);
	return s;
}

static void picking(void)
{
	char p[512];
	struct gb_err why = { "" };
	struct gb_advtree a;

	is_int(gb_advtree_pick("/nonexistent/gb6103", 1024, 60, gb_now(), &a, &why),
	       -ENOENT, "a missing directory: no tree (%s)", why.msg);
	snprintf(p, sizeof(p), "%s/tree-65536.json", dir);
	unlink(p);
	is_int(gb_advtree_pick(dir, 1024, 60, gb_now(), &a, &why), -ENOENT,
	       "an empty directory: no tree");
	like_why(why.msg, "no tree files");

	save(1024, 0);
	save(4096, 0);
	save(1048576, 0);
	is_double(pick_size(3000, 60, &why), 4096, 0, "3000 B: the nearest is 4 KiB");
	is_double(pick_size(2048, 60, &why), 4096, 0,
		  "2 KiB, halfway in log between 1 and 4 KiB: the larger");
	is_double(pick_size(1, 60, &why), 1024, 0, "1 B: 1 KiB");
	is_double(pick_size(0, 60, &why), 1024, 0, "0 B counts as 1 B");
	is_double(pick_size(8 << 20, 60, &why), 1048576, 0, "8 MiB: 1 MiB");

	save(262144, 100);
	is_double(pick_size(262144, 60, &why), 1048576, 0,
		  "a stale nearest tree is skipped for the nearest fresh one");
	is_double(pick_size(262144, 200, &why), 262144, 0,
		  "... and used under a larger age limit");
	save(16384, -1000);
	is_double(pick_size(16384, 60, &why), 4096, 0,
		  "a tree stamped in the future (before a reboot) is stale");
	put("tree-2048.json", "{ not json");
	is_double(pick_size(2048, 60, &why), 4096, 0, "an unreadable file is skipped");
	put("tree-1024.json.AbC123", "{ half written");
	put("tree-1k.json", "{}");
	is_double(pick_size(1000, 60, &why), 1024, 0,
		  "temporary and other files are not tree files");
	is_double(pick_size(1024, 0.0, &why), -1, 0,
		  "nothing is fresh under max age 0: no tree, the caller falls back");
	like_why(why.msg, "old");

	/* a prediction one byte off starts a new file: the newer plan of the
	 * same message wins over the exact size (seed 9's broadcast 26) */
	save(34952, 100);
	save(34953, 10);
	save(36000, 5);
	is_double(pick_size(34952, 200, &why), 34953, 0,
		  "two files within 1 %%: the newer one, not the exact size");
	is_double(pick_size(34952, 50, &why), 34953, 0,
		  "... as when the exact one is stale");
	save(34952, 1);
	is_double(pick_size(34953, 200, &why), 34952, 0,
		  "... and the other way round");
	is_double(pick_size(36000, 200, &why), 36000, 0,
		  "3 %% apart are two sizes: the nearest, though older than another");
}

/* the nearest ancestor of @v in T whose host is in @in (by T index), or -1 */
static int anc_in(int v, const int *in)
{
	for (int u = T.parent[v]; u >= 0; u = T.parent[u])
		if (in[u])
			return u;
	return -1;
}

static void fitting(void)
{
	struct gb_advtree a;
	struct gb_tree r;
	char path[512], (*names)[32];
	struct gb_err why = { "" };
	int n = M.n, perm[64], in[64] = { 0 }, k = 0, bad = 0, root_rank = -1, oroot = T.root;

	names = calloc((size_t)n, sizeof(*names));
	if (!names || n > 64)
		bail("setup");
	save(65536, 0);
	gb_advtree_path(dir, 65536, path, sizeof(path));
	if (gb_advtree_load(path, &a, &why) < 0)
		bail("load: %s", why.msg);

	for (int i = 0; i < n; i++)
		snprintf(names[i], sizeof(names[i]), "%s", M.nodes[i].name);
	is_int(gb_advtree_for_ranks(&a, (const char (*)[32])names, n, oroot, &r, &why),
	       0, "all hosts in file order");
	ok(gb_tree_equal(&r, &T), "... is the file's tree itself");
	gb_tree_release(&r);

	/* ranks in reverse host order: rank i runs on host n-1-i */
	for (int i = 0; i < n; i++) {
		perm[i] = n - 1 - i;
		snprintf(names[i], sizeof(names[i]), "%s", M.nodes[perm[i]].name);
	}
	is_int(gb_advtree_for_ranks(&a, (const char (*)[32])names, n, n - 1 - oroot, &r, &why),
	       0, "all hosts, reversed rank order");
	for (int i = 0; i < n; i++) {
		int want = T.parent[perm[i]];

		if ((r.parent[i] < 0 ? -1 : perm[r.parent[i]]) != want)
			bad++;
	}
	is_int(bad, 0, "... every rank's parent is its host's parent");
	gb_tree_release(&r);

	/* every other host, in host order */
	for (int v = 0; v < n; v += 2) {
		perm[k] = v;
		in[v] = 1;
		if (v == oroot)
			root_rank = k;
		snprintf(names[k++], sizeof(names[0]), "%s", M.nodes[v].name);
	}
	if (root_rank < 0) { /* keep the file's root in the job */
		perm[k] = oroot;
		in[oroot] = 1;
		root_rank = k;
		snprintf(names[k++], sizeof(names[0]), "%s", M.nodes[oroot].name);
	}
	is_int(gb_advtree_for_ranks(&a, (const char (*)[32])names, k, root_rank, &r, &why),
	       0, "a subset of %d hosts", k);
	bad = gb_tree_check(&r, NULL) < 0;
	for (int i = 0; i < k && !bad; i++) {
		int want = perm[i] == oroot ? -1 : anc_in(perm[i], in);

		if ((r.parent[i] < 0 ? -1 : perm[r.parent[i]]) != want)
			bad++;
	}
	is_int(bad, 0, "... a valid tree where every rank hangs below its nearest ancestor in "
	       "the job");
	gb_tree_release(&r);

	/* another root: the file's root and the new root swap places */
	for (int i = 0; i < n; i++)
		snprintf(names[i], sizeof(names[i]), "%s", M.nodes[i].name);
	{
		int nr = (oroot + 1) % n;
		char a1[512] = "", b1[512] = "";

		is_int(gb_advtree_for_ranks(&a, (const char (*)[32])names, n, nr, &r, &why),
		       0, "another root");
		ok(r.root == nr && r.nchild[nr] == T.nchild[oroot], "rooted there, with the file "
		   "root's %d children", T.nchild[oroot]);
		for (int j = 0; j < T.nchild[oroot]; j++) {
			int c = T.child[T.cstart[oroot] + j];

			snprintf(a1 + strlen(a1), sizeof(a1) - strlen(a1), "%d,",
				 gb_relabel(c, oroot, nr));
		}
		for (int j = 0; j < r.nchild[nr]; j++)
			snprintf(b1 + strlen(b1), sizeof(b1) - strlen(b1), "%d,",
				 r.child[r.cstart[nr] + j]);
		is_str(b1, a1, "... in the same send order, relabelled by the swap");
		gb_tree_release(&r);
	}

	snprintf(names[0], sizeof(names[0]), "nohost");
	is_int(gb_advtree_for_ranks(&a, (const char (*)[32])names, n, oroot == 0 ? 1 : oroot, &r,
				    &why), -ENOENT, "a host missing from the file (%s)",
	       why.msg);
	snprintf(names[0], sizeof(names[0]), "%s", M.nodes[1].name);
	is_int(gb_advtree_for_ranks(&a, (const char (*)[32])names, n, 1, &r, &why),
	       -EINVAL, "two ranks on one host (%s)", why.msg);
	gb_advtree_release(&a);
	free(names);
}

int main(void)
{
	struct gb_plan_args pa = { .root = 4, .size = 65536, .seed = 3 };
	char cmd[600];

	if (!mkdtemp(dir))
		bail("mkdtemp");
	/* 2 sites x 2 clusters x 4 nodes; a measured planner's tree */
	if (gb_nm_gen_grid(&M, 2, 2, 4, 7) < 0 ||
	    gb_plan(gb_planner_find("clustered-sa"), &M, &pa, &T) < 0)
		bail("cannot make a model and a tree");
	roundtrip();
	picking();
	fitting();
	gb_tree_release(&T);
	gb_nm_release(&M);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
