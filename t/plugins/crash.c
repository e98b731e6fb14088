/* SPDX-License-Identifier: MIT */
/* crash.c - a planner plugin that crashes at every request, for t/3105 and
 * t/8029 (docs/plugins.md, "Budgets, crashes and hangs"). */
#include <signal.h>
#include <gridbed/planner.h>

GRIDBED_PLANNER_DEFINE_ABI;

int gridbed_plan(const struct gridbed_model *m, const struct gridbed_request *r, int *parent,
		 double *order, char *err, size_t errlen)
{
	(void)m;
	(void)r;
	(void)parent;
	(void)order;
	(void)err;
	(void)errlen;
	raise(SIGSEGV);
	return 0;
}
