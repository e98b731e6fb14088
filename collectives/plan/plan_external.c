/* SPDX-License-Identifier: MIT */
/*
 * plan_external.c - planners that are not compiled into gridbed
 * (docs/plugins.md): "external:PATH", a command, and "plugin:PATH", a
 * shared object run by the plugin host (collectives/plugin/).  Both speak
 * one protocol, so that a plugin is an external planner whose command is
 * the host:
 *
 *	standard input   a plan request (docs/plugins.md, "The request"):
 *	                 {"format": "gridbed-plan-request", "abi": 1,
 *	                  "algo": NAME, "root": NODE, "root_index": I,
 *	                  "size": BYTES, "seed": S, "budget_s": B,
 *	                  "model": <a matrix file, docs/formats.md>}
 *	standard output  a tree file (docs/formats.md, "Tree file")
 *	exit status      0; otherwise the last line of standard error is
 *	                 the reason
 *
 * The process runs under plan_child.c's deadline, so a crash or a hang
 * costs the child only.  Its tree is read by the tree file's reader, which
 * names the first faulty node, and must be rooted at the request's root.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "gbio.h"
#include "plan_impl.h"
#include "gridbed/planner.h"

#ifndef GB_PLUGIN_HOST_DEFAULT
#define GB_PLUGIN_HOST_DEFAULT "gridbed-plugin"
#endif

/* How long a probe of a plugin (load, symbols, ABI) may take. */
#define PROBE_S 5.0

const char *gb_plugin_host(void)
{
	const char *h = getenv("GRIDBED_PLUGIN_HOST");

	return h && *h ? h : GB_PLUGIN_HOST_DEFAULT;
}

/* The child's deadline for a budget: the budget, 0.2 s and a quarter more. */
static double deadline_for(double budget_s)
{
	return budget_s + 0.2 + 0.25 * budget_s;
}

static char *request(const struct gb_planner *p, const struct gb_netmodel *m,
		     const struct gb_plan_args *a, double budget_s, size_t *len)
{
	json_t *req, *model = gb_nm_to_json(m);
	char *s = NULL;

	if (!model)
		return NULL;
	req = json_pack("{s:s, s:i, s:s, s:s, s:i, s:f, s:I, s:f, s:o}",
			"format", "gridbed-plan-request", "abi", GRIDBED_PLANNER_ABI,
			"algo", p->name, "root", m->nodes[a->root].name, "root_index", a->root,
			"size", a->size, "seed", (json_int_t)a->seed, "budget_s", budget_s,
			"model", model);
	if (req)
		s = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (s)
		*len = strlen(s);
	return s;
}

int gb_plan_external(const struct gb_planner *p, const struct gb_netmodel *m,
		     const struct gb_plan_args *a, struct gb_tree *out, struct gb_err *e)
{
	char *argv[3], *req;
	struct gb_err why = { "" };
	struct gb_child_result r;
	json_error_t je;
	json_t *tree;
	double budget = a->budget_s > 0 ? a->budget_s : GB_PLAN_EXTERN_BUDGET;
	size_t len = 0;
	int ret;

	if (p->flags & GB_PLAN_PLUGIN) {
		argv[0] = (char *)gb_plugin_host();
		argv[1] = (char *)p->path;
		argv[2] = NULL;
	} else {
		argv[0] = (char *)p->path;
		argv[1] = NULL;
	}
	req = request(p, m, a, budget, &len);
	if (!req)
		return -ENOMEM;
	ret = gb_child_run(argv, req, len, deadline_for(budget), &r);
	free(req);
	if (ret < 0) {
		gb_err_set(e, "%s: cannot start %s: %s", p->name, argv[0], strerror(-ret));
		return ret;
	}
	ret = gb_child_fault(&r, budget, &why);
	if (ret < 0) {
		/* %.255s: the 256 bytes its reason had before it was a gb_err */
		gb_err_set(e, "%s: %.255s", p->name, why.msg);
		goto cleanup;
	}
	tree = json_loadb(r.out ? r.out : "", r.outlen, 0, &je);
	if (!tree) {
		ret = -EPROTO;
		gb_err_set(e, "%s: printed no tree file (standard output, line %d: %s)",
			   p->name, je.line, je.text);
		goto cleanup;
	}
	gb_tree_release(out);
	ret = gb_tree_from_json(out, m, tree, p->name, e);
	json_decref(tree);
	if (ret < 0) {
		ret = -EPROTO;
		goto cleanup;
	}
	if (out->root != a->root) {
		ret = -EPROTO;
		gb_err_set(e, "%s: the tree is rooted at '%s', not at the request's root '%s'",
			   p->name, m->nodes[out->root].name, m->nodes[a->root].name);
	}
cleanup:
	gb_child_result_release(&r);
	return ret;
}

int gb_plugin_probe(const char *path, struct gb_err *e)
{
	char *argv[] = { (char *)gb_plugin_host(), "--probe", (char *)path, NULL };
	struct gb_child_result r;
	struct gb_err why = { "" };
	int ret = gb_child_run(argv, NULL, 0, PROBE_S, &r);

	if (ret < 0) {
		gb_err_set(e, "plugin:%s: cannot start the plugin host %s: %s", path,
			   argv[0], strerror(-ret));
		return ret;
	}
	ret = gb_child_fault(&r, PROBE_S, &why);
	if (ret < 0) {
		gb_err_set(e, "plugin:%s: %.255s", path, why.msg);
		ret = ret == -ETIME || ret == -ECHILD ? ret : -EINVAL;
	}
	gb_child_result_release(&r);
	return ret;
}
