/* SPDX-License-Identifier: MIT */
/*
 * plan_phoenix.c - the `phoenix` planner: the tree that Saito, Taura and
 * Chikayama's distributed protocol (seed 001 s3) converges to on this
 * network, rooted at the requested root, children sent most-descendants
 * first (s5).
 *
 *	model ──► phoenix_sim: N protocol state machines exchange messages over
 *	          the model's latency matrix, measure RTT/2 themselves, change
 *	          parents by Fig. 1 / Fig. 3 until stable
 *	      ──► parents of tree `root` ──► gb_tree, send order s5 ([choice 9])
 *
 * Choices:
 *  - Measurements are noisy in reality (the daemon measures RTTs on a busy
 *    box); the simulator adds PLAN_NOISE_REL / PLAN_NOISE_ABS to every
 *    delivery, seeded by args->seed.  Without noise the equal latencies of an
 *    emulated cluster make every node pick the same, lowest-indexed parent
 *    (criterion (3)'s tie-break), a flat tree that real measurements never
 *    produce; with noise the intra-cluster trees vary with the seed as the
 *    paper's did (s4.1, Fig. 4: "not optimal, but wide area optimal").
 *  - The simulator runs until the trees are stable or PLAN_MAX_ROUNDS.  If a
 *    node is then not connected to the tree (never seen in tests), it is
 *    attached to the root directly so that the planner still returns a
 *    spanning tree; gb_plan() checks the result either way.
 *  - Only the requested root's tree is simulated (phx_params.only_tree):
 *    trees do not interact in the protocol, and this saves a factor n
 *    (168 hosts: about 0.1 s instead of 4 s).  Latencies are measured by
 *    the same probes; the random draws differ, so the tree equals the one
 *    of a full simulation with another seed, not with the same one.
 *  - args->size, budget and model are not used: the protocol knows nothing
 *    of message sizes (s5 lists that as future work).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "phoenix.h"
#include "plan_impl.h"

#define PLAN_NOISE_REL 0.02
#define PLAN_NOISE_ABS 20e-6
#define PLAN_MAX_ROUNDS 400

/* Attach every node whose parent chain does not reach the root to the root. */
static int repair(int *parent, int n, int root)
{
	int fixed = 0;

	for (int v = 0; v < n; v++) {
		int u = v, hops = 0;

		if (v == root)
			continue;
		while (u != root && u >= 0 && hops <= n) {
			u = parent[u];
			hops++;
		}
		if (u != root) {
			parent[v] = root;
			fixed++;
		}
	}
	return fixed;
}

int gb_plan_phoenix(const struct gb_netmodel *m, const struct gb_plan_args *a,
		    struct gb_tree *out)
{
	struct phx_sim_opts o;
	struct phx_sim_result res;
	struct phx_sim s;
	int *par = NULL, *rank = NULL, n = m->n, ret;

	memset(&s, 0, sizeof(s));
	par = malloc(sizeof(int) * n);
	rank = malloc(sizeof(int) * n);
	ret = -ENOMEM;
	if (!par || !rank)
		goto cleanup;
	if (n == 1) {
		par[0] = -1;
		ret = gb_tree_from_parents(out, par, NULL);
		goto cleanup;
	}
	phx_sim_opts_default(&o);
	o.seed = a->seed;
	o.proto.seed = a->seed ^ 0x70686f656e6978ULL; /* "phoenix" */
	o.noise_rel = PLAN_NOISE_REL;
	o.noise_abs_s = PLAN_NOISE_ABS;
	o.max_rounds = PLAN_MAX_ROUNDS;
	o.proto.only_tree = a->root;
	if ((ret = phx_sim_init(&s, m, &o)) < 0)
		goto cleanup;
	if ((ret = phx_sim_run(&s, &res)) < 0)
		goto cleanup;
	phx_sim_parents(&s, a->root, par, rank);
	repair(par, n, a->root);
	ret = phx_tree_build(out, par, rank, PHX_ORDER_DESC);
cleanup:
	phx_sim_release(&s);
	free(par);
	free(rank);
	return ret;
}
