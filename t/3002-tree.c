/* SPDX-License-Identifier: MIT */
/*
 * 3002-tree - tree construction and validation, the binomial building
 * block, JSON round trip and DOT export.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbplan.h"
#include "tap.h"

static int children_are(const struct gb_tree *t, int u, const int *want, int k)
{
	if (t->nchild[u] != k)
		return 0;
	for (int i = 0; i < k; i++)
		if (t->child[t->cstart[u] + i] != want[i])
			return 0;
	return 1;
}

static void test_build_check(void)
{
	struct gb_tree t, c = { 0 };  /* gb_tree_copy() releases its destination */
	int par[6] = { 3, 3, 0, -1, 0, 2 };
	double key[6] = { 2, 1, 0, 0, -1, 0 };
	struct gb_err why = { "" };
	int want3[] = { 1, 0 }, want0[] = { 4, 2 };

	is_int(gb_tree_init(&t, 6, 3), 0, "init 6 nodes rooted at 3");
	is_int(gb_tree_from_parents(&t, par, key), 0, "from parents");
	ok(children_are(&t, 3, want3, 2), "children sorted by key: 3 -> 1, 0");
	ok(children_are(&t, 0, want0, 2), "negative keys first: 0 -> 4, 2");
	is_int(gb_tree_check(&t, &why), 0, "valid tree");
	is_int(gb_tree_copy(&c, &t), 0, "copy");
	ok(gb_tree_equal(&c, &t), "copy is equal");
	is_int(gb_tree_from_parents(&c, par, NULL), 0, "index order");
	ok(!gb_tree_equal(&c, &t), "send order is part of equality");

	/* cycle 1 -> 2 -> 1 with the root 0 alone */
	{
		struct gb_tree y;
		int cyc[3] = { -1, 2, 1 };

		if (gb_tree_init(&y, 3, 0) < 0)
			bail("init");
		is_int(gb_tree_from_parents(&y, cyc, NULL), 0, "a cycle builds");
		is_int(gb_tree_check(&y, &why), -EINVAL, "but does not check");
		ok(strstr(why.msg, "not reachable") != NULL, "reason: %s", why.msg);
		ok(isnan(gb_cost_mateescu(NULL, &y, 1, NULL)), "cost of nothing is NAN");
		gb_tree_release(&y);
	}
	{
		struct gb_tree y;
		int two[3] = { -1, -1, 0 };

		if (gb_tree_init(&y, 3, 0) < 0)
			bail("init");
		is_int(gb_tree_from_parents(&y, two, NULL), -EINVAL, "two roots rejected");
		two[0] = 1;
		two[1] = -1;
		is_int(gb_tree_from_parents(&y, two, NULL), -EINVAL, "parent of the root rejected");
		gb_tree_release(&y);
		gb_tree_release(&y);
		ok(y.parent == NULL, "release twice is safe");
	}
	/* corrupt a child list behind the API's back */
	c.child[c.cstart[3]] = 5;
	is_int(gb_tree_check(&c, &why), -EINVAL, "inconsistent child list caught");
	gb_tree_release(&c);
	gb_tree_release(&t);
}

static void test_binomial(void)
{
	int mem[13], par[13];
	double key[13];
	struct gb_tree t;
	/* k = 13 (MPICH, relative ranks):
	 *   0 -> 8 4 2 1;  8 -> 12 10 9;  4 -> 6 5;  2 -> 3;  6 -> 7;  10 -> 11 */
	int w0[] = { 8, 4, 2, 1 }, w8[] = { 12, 10, 9 }, w4[] = { 6, 5 }, w10[] = { 11 };

	for (int i = 0; i < 13; i++) {
		mem[i] = i;
		par[i] = -1;
	}
	gb_binomial(mem, 13, par, key, 0);
	if (gb_tree_init(&t, 13, 0) < 0 || gb_tree_from_parents(&t, par, key) < 0)
		bail("binomial tree");
	ok(children_are(&t, 0, w0, 4) && children_are(&t, 8, w8, 3) &&
	   children_are(&t, 4, w4, 2) && children_are(&t, 10, w10, 1) && t.nchild[12] == 0,
	   "binomial of 13 follows MPICH, largest subtree first");
	is_int(gb_tree_check(&t, NULL), 0, "binomial of 13 is valid");
	gb_tree_release(&t);
}

static void test_io(void)
{
	struct gb_netmodel m;
	struct gb_tree t, r;
	const struct gb_planner *p = gb_planner_find("mateescu");
	struct gb_plan_args a = { 2, 65536, 1, 0, NULL };
	char path[] = "/tmp/gb3002-XXXXXX", *buf = NULL;
	struct gb_err err = { "" };
	size_t len = 0;
	int fd = mkstemp(path);
	FILE *f;

	if (fd < 0)
		bail("mkstemp");
	close(fd);
	if (gb_nm_gen_grid(&m, 2, 2, 3, 11) < 0 || !p || gb_plan(p, &m, &a, &t) < 0)
		bail("setup");
	is_int(gb_tree_save_json(&t, &m, "mateescu", a.size, path), 0, "save tree json");
	is_int(gb_tree_load_json(&r, &m, path, &err), 0, "load tree json");
	ok(gb_tree_equal(&r, &t), "round trip keeps parents and send order");
	gb_tree_release(&r);

	/* the file records the predicted times of every model */
	f = fopen(path, "r");
	if (f) {
		char line[256];
		int found = 0;

		while (fgets(line, sizeof(line), f))
			for (int i = 0; i < gb_ncostmodels; i++)
				found += strstr(line, gb_costmodels[i].name) &&
					 strchr(line, ':') && strchr(line, '.') ? 1 : 0;
		fclose(f);
		ok(found >= gb_ncostmodels, "predicted costs of all %d models recorded",
		   gb_ncostmodels);
	} else {
		ok(0, "reopen tree file");
	}

	/* children only (no parent array): still a tree, order from the lists */
	f = fopen(path, "w");
	fprintf(f, "{\"root\": \"%s\", \"children\": {\"%s\": [\"%s\", \"%s\"]}}",
		m.nodes[0].name, m.nodes[0].name, m.nodes[2].name, m.nodes[1].name);
	fclose(f);
	{
		struct gb_netmodel s;
		int pick[] = { 0, 1, 2 };
		int want[] = { 2, 1 };

		if (gb_nm_sub(&s, &m, pick, 3) < 0)
			bail("sub");
		is_int(gb_tree_load_json(&r, &s, path, &err), 0,
		       "children-only file loads");
		ok(r.root == 0 && children_are(&r, 0, want, 2), "send order from the file");
		gb_tree_release(&r);
		f = fopen(path, "w");
		fprintf(f, "{\"root\": \"%s\", \"children\": {\"%s\": [\"%s\"]}}",
			s.nodes[0].name, s.nodes[0].name, s.nodes[2].name);
		fclose(f);
		is_int(gb_tree_load_json(&r, &s, path, &err), -EINVAL,
		       "non-spanning tree rejected");
		{
			char want_missing[96];

			snprintf(want_missing, sizeof(want_missing), "'%s' has no parent",
				 s.nodes[1].name);
			ok(strstr(err.msg, want_missing) != NULL, "reason names the node left out: %s",
			   err.msg);
		}
		/* issue 49: each fault names its node, not only the root */
		{
			const char *na = s.nodes[0].name, *nb = s.nodes[1].name, *nc = s.nodes[2].name;
			char body[512], what[128];
			struct {
				const char *par[3];
				const char *what;  /* the message, after the node's name */
				const char *who;
			} bad[] = {
				{ { NULL, "A", "C" }, "' is its own parent", nc },
				{ { NULL, NULL, "A" }, "' has no parent: a second root", nb },
				{ { "B", "A", "A" }, "' has parent", na },
				{ { NULL, "C", "B" }, "' does not reach the root", nb },
			};

			for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
				char pj[3][40];

				for (int v = 0; v < 3; v++) {
					const char *q = bad[i].par[v];

					if (q)
						snprintf(pj[v], sizeof(pj[v]), "\"%s\"",
							 q[0] == 'A' ? na : q[0] == 'B' ? nb : nc);
					else
						snprintf(pj[v], sizeof(pj[v]), "null");
				}
				snprintf(body, sizeof(body), "{\"root\": \"%s\", \"nodes\": [\"%s\", "
					 "\"%s\", \"%s\"], \"parent\": [%s, %s, %s]}", na, na, nb, nc,
					 pj[0], pj[1], pj[2]);
				f = fopen(path, "w");
				fputs(body, f);
				fclose(f);
				snprintf(what, sizeof(what), "'%s%s", bad[i].who, bad[i].what);
				err.msg[0] = 0;
				is_int(gb_tree_load_json(&r, &s, path, &err), -EINVAL,
				       "bad tree %zu rejected", i);
				ok(strstr(err.msg, what) != NULL, "  and the node named (%s): %s", what,
				   err.msg);
			}
		}
		gb_nm_release(&s);
	}
	unlink(path);

	f = open_memstream(&buf, &len);
	is_int(gb_tree_write_dot(&t, &m, f), 0, "dot export");
	fclose(f);
	ok(buf && strstr(buf, "digraph") && strstr(buf, "subgraph \"cluster_3\"") &&
	   strstr(buf, "fillcolor=4"), "dot boxes and colours clusters");
	{
		int wan = 0;

		for (int u = 0; u < t.n; u++)
			for (int i = 0; i < t.nchild[u]; i++)
				wan += m.nodes[u].site != m.nodes[t.child[t.cstart[u] + i]].site;
		ok(wan > 0 && buf && strstr(buf, "color=red"), "wide-area edges marked (%d)",
		   wan);
	}
	free(buf);
	gb_tree_release(&t);
	gb_nm_release(&m);
}

/*
 * Stripes (issue 14): groups {0 root, 1, 2}, {3, 4, 5}, {6, 7}, 8 in none.
 *	0 -> 1, 3;  1 -> 2;  3 -> 4, 6;  4 -> 5;  6 -> 7;  7 -> 8
 * stripe 1 rotates 1<->2, 3->4->5->3, 6<->7; 0 and 8 stay:
 *	0 -> 2, 4;  2 -> 1;  4 -> 5, 7;  5 -> 3;  7 -> 6;  6 -> 8
 */
static void test_stripe(void)
{
	int par[9] = { -1, 0, 1, 0, 3, 4, 3, 6, 7 }, grp[9] = { 0, 0, 0, 1, 1, 1, 2, 2, -1 };
	int w0[] = { 2, 4 }, w2[] = { 1 }, w4[] = { 5, 7 }, w5[] = { 3 }, w7[] = { 6 }, w6[] = { 8 };
	struct gb_tree t, x = { 0 }, y = { 0 };
	int heads[3], ok_all = 1;

	if (gb_tree_init(&t, 9, 0) < 0 || gb_tree_from_parents(&t, par, NULL) < 0)
		bail("init");
	is_int(gb_tree_stripe(&t, grp, 1, &x), 0, "stripe 1");
	ok(children_are(&x, 0, w0, 2) && children_are(&x, 2, w2, 1) && children_are(&x, 4, w4, 2) &&
	   children_are(&x, 5, w5, 1) && children_are(&x, 7, w7, 1) && children_are(&x, 6, w6, 1),
	   "  every group's members other than the root rotated by one, send orders kept");
	ok(x.root == 0 && x.nchild[8] == 0 && x.parent[8] == 6,
	   "  the root and the node of no group keep their places");
	is_int(gb_tree_check(&x, NULL), 0, "  a valid tree");
	gb_tree_release(&x);
	is_int(gb_tree_stripe(&t, grp, 0, &x), 0, "stripe 0");
	ok(gb_tree_equal(&x, &t), "  is the tree itself");
	gb_tree_release(&x);
	is_int(gb_tree_stripe(&t, grp, 6, &x), 0, "stripe 6");
	ok(gb_tree_equal(&x, &t), "  is the tree itself (6 = 0 mod 2 and mod 3)");
	is_int(gb_tree_stripe(&t, NULL, 1, &y), 0, "no groups");
	ok(gb_tree_equal(&y, &t), "  a copy");
	/* where the root's edge enters group {3, 4, 5}: a different host in
	 * each of three stripes */
	for (int s = 0; s < 3; s++) {
		gb_tree_release(&x);
		if (gb_tree_stripe(&t, grp, s, &x) < 0)
			bail("stripe %d", s);
		heads[s] = x.child[x.cstart[0] + 1];
		ok_all &= grp[heads[s]] == 1;
	}
	ok(ok_all && heads[0] == 3 && heads[1] == 4 && heads[2] == 5,
	   "three stripes enter a group of three at three hosts (%d, %d, %d)", heads[0], heads[1],
	   heads[2]);
	gb_tree_release(&x);    /* the error cases below zero @out without freeing it */
	is_int(gb_tree_stripe(&t, grp, -1, &x), -EINVAL, "a negative stripe: -EINVAL");
	is_int(gb_tree_stripe(&t, grp, 1, &t), -EINVAL, "in place: -EINVAL");
	gb_tree_release(&x);
	gb_tree_release(&y);
	gb_tree_release(&t);
}

int main(void)
{
	test_build_check();
	test_stripe();
	test_binomial();
	test_io();
	return done_testing();
}
