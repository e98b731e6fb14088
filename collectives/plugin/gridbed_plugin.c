/* SPDX-License-Identifier: MIT */
/*
 * gridbed-plugin - the plugin host: runs one request of a planner plugin
 * (include/gridbed/planner.h, docs/plugins.md) in a process of its own.
 *
 *	gridbed-plugin PLUGIN.so           a plan request on standard input,
 *	                                   a tree file on standard output
 *	gridbed-plugin --probe PLUGIN.so   load it, check its symbols and ABI
 *
 * libgbplan starts it for every `plugin:PATH` request (plan_external.c)
 * and kills it at the budget's deadline, so a plugin's crash, leak or hang
 * ends here.  It is the one place that calls dlopen() on a user's code.
 *
 * Exit status: 0; 1 the plugin could not be used or failed, with exactly
 * one line on standard error that says why (libgbplan reports it after
 * the plugin's name); 2 usage.
 *
 * The tree file is written with both "parent" and "children" (the send
 * order from the plugin's order[]), unchecked: the caller's reader names
 * the first faulty node, against the model it sent.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbio.h"
#include "gbutil.h"
#include "gridbed/planner.h"

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gridbed-plugin PLUGIN.so          (a plan request on stdin, "
		"a tree file on stdout)\n"
		"       gridbed-plugin --probe PLUGIN.so  (load it and check its ABI)\n"
		"The host of planner plugins (docs/plugins.md); gridbed starts it itself.\n");
}

/* Load @path and find its two symbols; 0 or 1 with the reason printed. */
static int load(const char *path, gridbed_plan_fn **plan)
{
	const unsigned *abi;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return fail("cannot load: %s", dlerror());
	abi = dlsym(h, "gridbed_planner_abi");
	if (!abi)
		return fail("no symbol 'gridbed_planner_abi' (add GRIDBED_PLANNER_DEFINE_ABI; "
			    "from gridbed/planner.h)");
	if (*abi != GRIDBED_PLANNER_ABI)
		return fail("built for planner ABI %u, this gridbed has ABI %u (rebuild it "
			    "against gridbed/planner.h)", *abi, GRIDBED_PLANNER_ABI);
	*(void **)plan = dlsym(h, "gridbed_plan");
	if (!*plan)
		return fail("no symbol 'gridbed_plan' (the planner function of "
			    "gridbed/planner.h)");
	return 0;
}

static const double *sort_key;

static int by_order(const void *a, const void *b)
{
	int u = *(const int *)a, v = *(const int *)b;

	if (sort_key[u] != sort_key[v])
		return sort_key[u] < sort_key[v] ? -1 : 1;
	return u - v;
}

/* The tree file of @parent / @order over @m's names (see the header). */
static json_t *tree_file(const struct gb_netmodel *m, int root, double size, const int *parent,
			 const double *order)
{
	json_t *t = json_object(), *nodes = json_array(), *par = json_array(),
	       *ch = json_object();
	int n = m->n, *idx = malloc(sizeof(int) * n);

	if (!t || !nodes || !par || !ch || !idx)
		goto fail;
	for (int v = 0; v < n; v++) {
		idx[v] = v;
		json_array_append_new(nodes, json_string(m->nodes[v].name));
		json_array_append_new(par, parent[v] < 0 ? json_null() :
				      json_string(m->nodes[parent[v]].name));
	}
	/* every node in increasing order[] (ties by index), appended to its
	 * parent's list: the send orders */
	sort_key = order;
	qsort(idx, n, sizeof(int), by_order);
	for (int k = 0; k < n; k++) {
		int v = idx[k];
		const char *pn;
		json_t *list;

		if (parent[v] < 0)
			continue;
		pn = m->nodes[parent[v]].name;
		list = json_object_get(ch, pn);
		if (!list) {
			list = json_array();
			json_object_set_new(ch, pn, list);
		}
		json_array_append_new(list, json_string(m->nodes[v].name));
	}
	json_object_set_new(t, "format", json_string("gridbed-tree"));
	json_object_set_new(t, "root", json_string(m->nodes[root].name));
	json_object_set_new(t, "size", json_real(size));
	json_object_set_new(t, "nodes", nodes);
	json_object_set_new(t, "parent", par);
	json_object_set_new(t, "children", ch);
	free(idx);
	return t;
fail:
	json_decref(t);
	json_decref(nodes);
	json_decref(par);
	json_decref(ch);
	free(idx);
	return NULL;
}

/* Answer the request on stdin with @plan; 0 or 1 with the reason printed. */
static int serve(gridbed_plan_fn *plan)
{
	const char **name = NULL, **cname = NULL, **sname = NULL;
	struct gridbed_model gm = { 0 };
	struct gridbed_request rq = { 0 };
	struct gb_netmodel m;
	json_error_t je;
	json_t *req, *model, *t = NULL;
	int *cl = NULL, *site = NULL, *parent = NULL, ret = 1, pr;
	double *order = NULL;
	struct gb_err err = { "" };
	char perr[256] = "";

	req = json_loadf(stdin, 0, &je);
	if (!req)
		return fail("the request is not JSON: line %d: %s", je.line, je.text);
	model = json_object_get(req, "model");
	if (!json_is_object(model) || gb_nm_from_json(&m, model, "the request's model", &err) < 0) {
		json_decref(req);
		return fail("%s", json_is_object(model) ? err.msg : "the request has no 'model'");
	}
	rq.root = (int)json_integer_value(json_object_get(req, "root_index"));
	rq.size = json_number_value(json_object_get(req, "size"));
	rq.seed = (unsigned long long)json_integer_value(json_object_get(req, "seed"));
	rq.budget_s = json_number_value(json_object_get(req, "budget_s"));
	if (rq.root < 0 || rq.root >= m.n) {
		fail("the request's root_index %d is not a node (0 .. %d)", rq.root, m.n - 1);
		goto cleanup;
	}
	name = calloc(m.n, sizeof(*name));
	cname = calloc(m.nclusters, sizeof(*cname));
	sname = calloc(m.nsites, sizeof(*sname));
	cl = calloc(m.n, sizeof(int));
	site = calloc(m.n, sizeof(int));
	parent = malloc(sizeof(int) * m.n);
	order = malloc(sizeof(double) * m.n);
	if (!name || !cname || !sname || !cl || !site || !parent || !order) {
		fail("out of memory");
		goto cleanup;
	}
	for (int v = 0; v < m.n; v++) {
		name[v] = m.nodes[v].name;
		cl[v] = m.nodes[v].cluster;
		site[v] = m.nodes[v].site;
		parent[v] = -1;
		order[v] = v;
	}
	for (int c = 0; c < m.nclusters; c++)
		cname[c] = m.cluster_names[c];
	for (int s = 0; s < m.nsites; s++)
		sname[s] = m.site_names[s];
	gm = (struct gridbed_model){
		.abi = GRIDBED_PLANNER_ABI, .n = m.n, .name = name, .cluster = cl,
		.site = site, .nclusters = m.nclusters, .nsites = m.nsites,
		.cluster_name = cname, .site_name = sname, .lat = m.lat, .bw = m.bw,
		.o = m.o, .version = (unsigned long long)m.version,
	};
	/* a crash in the plugin must end this process by its signal, which
	 * the caller reports ("crashed (signal 11, ...)"), even where a
	 * sanitizer or another handler has taken the signal over */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	signal(SIGFPE, SIG_DFL);
	signal(SIGILL, SIG_DFL);
	pr = plan(&gm, &rq, parent, order, perr, sizeof(perr));
	if (pr != 0) {
		perr[sizeof(perr) - 1] = '\0';
		for (char *c = perr; *c; c++)
			if (*c == '\n')
				*c = ' ';
		fail("the planner failed (returned %d)%s%s", pr, perr[0] ? ": " : "", perr);
		goto cleanup;
	}
	for (int v = 0; v < m.n; v++)
		if (parent[v] < -1 || parent[v] >= m.n) {
			fail("parent[%d] = %d is not a node (0 .. %d) nor -1", v, parent[v],
			     m.n - 1);
			goto cleanup;
		}
	t = tree_file(&m, rq.root, rq.size, parent, order);
	if (!t || json_dumpf(t, stdout, JSON_COMPACT) < 0 || fflush(stdout) != 0) {
		fail("cannot write the tree: %s", strerror(errno));
		goto cleanup;
	}
	ret = 0;
cleanup:
	json_decref(t);
	json_decref(req);
	gb_nm_release(&m);
	free(name);
	free(cname);
	free(sname);
	free(cl);
	free(site);
	free(parent);
	free(order);
	return ret;
}

int main(int argc, char **argv)
{
	gridbed_plan_fn *plan = NULL;
	int probe = argc == 3 && !strcmp(argv[1], "--probe");

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 2 + probe || argv[1 + probe][0] == '-')
		return gb_refuse("gridbed-plugin", "usage: gridbed-plugin PLUGIN.so | --probe "
				 "PLUGIN.so (see --help)");
	if (load(argv[1 + probe], &plan))
		return 1;
	return probe ? 0 : serve(plan);
}
