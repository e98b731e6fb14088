// SPDX-License-Identifier: MIT
/*
 * plan_sa.c - the simulated-annealing planners of seed 000 (Gupta &
 * Vadhiyar): basicSA (Fig. 1), driverSA (Fig. 2) and clusteredSA (Fig. 4),
 * registered as "sa", "clustered-sa" and "sa-contention".
 *
 *   sa             driverSA over all nodes (as the paper does up to 16)
 *   clustered-sa   clusteredSA: pools (sa_pools.c), driverSA in each pool,
 *                  clusteredSA again over the pool roots
 *   sa-contention  clusteredSA optimising our "contention" cost model
 *                  instead of Mateescu's (not in the paper; the paper blames
 *                  contention for Mateescu's real-world results, §3 Fig. 9)
 *
 * Every random choice draws from one gb_rng seeded with args->seed, so with
 * no time budget (args->budget_s <= 0: 50 + 25 invocations per driverSA) a
 * plan is a function of (model, root, size, seed, cost model).  With a
 * budget the number of invocations depends on the clock and so does the
 * result: determinism is only promised without a budget.
 *
 * ------------------------------------------------------------------------
 * basicSA (Fig. 1), as implemented:
 *
 *	T = 100; cur = initial; best = cur
 *	while T > 1:                                    (minTemp 1, Fig. 1)
 *	    accepts = 0; best_found = 0
 *	    repeat 80 times:
 *	        new = transform_tree(cur)
 *	        update_good_list(new)
 *	        if cost(new) < cost(best): best = cur = new; accepts++; best_found = 1
 *	        elif U[0,1) < exp(-(cost(new) - cost(cur)) / (1.0 * T)): cur = new; accepts++
 *	        if accepts == 20: break
 *	    if accepts <= 3 % of 80 (i.e. <= 2) and not best_found: break
 *	    T = 0.8 * T
 *
 *   so at most 21 temperatures (100 * 0.8^20 = 1.15 > 1 > 0.92); costs in
 *   the exponent are in milliseconds (see "Cost unit" below).
 *
 * transform_tree (§2.2): "a random node on the path of the tree leading to
 * the leaf node with the longest estimated broadcast completion time is
 * chosen and made the child of another random node in the tree":
 *
 *	        r                      far = argmax arrival (first in DFS order
 *	       / \                           on ties)
 *	      a   b        x  uniform on the path r..far without r (the root
 *	     / \                  cannot move: every node is in its subtree)
 *	    x   c          y  uniform on the nodes outside x's subtree (x's
 *	    |                     current parent included: then the move only
 *	   far                    reorders x among its siblings)
 *	                   x becomes a child of y at a uniform position among
 *	                   the |children(y)| + 1 slots of y's send order
 *
 *   The paper does not say where in the send order the moved node goes;
 *   a uniform slot lets the search optimise send orders too, which
 *   Mateescu's model is very sensitive to.
 *
 * Cost unit.  The temperatures (100 .. 1) and the Boltzmann constant (1.0)
 * only mean something against a unit of cost, which the paper does not
 * give.  We measure costs in milliseconds inside the Boltzmann factor
 * (GB_SA_COST_UNIT): in seconds, a 1 MB broadcast on 100 Mbit/s links
 * differs between neighbouring trees by 0.01-0.1, so exp(-diff/T) >= 0.9
 * at every temperature and basicSA degenerates into a random walk.  Mean
 * best cost of driverSA (no budget, 8 seeds, 1 MB) with the unit in s / ms
 * / us: 32 nodes of Fig. 3's matrix 7.42 / 5.79 / 5.89 s; gb_nm_gen_grid
 * 4x2x8 = 64 nodes 2.77 / 1.03 / 1.08 s (at 1 KB on 16 nodes all three are
 * within 1 %).
 *
 * good_list (§2.2; sa_tree.c) holds the trees within 10 % of the best
 * cost it has seen; update_good_list is called for every transformed tree
 * (Fig. 1 line 12) and, our addition, for the initial tree, so that the
 * list's best is the run's best.  Choices: at most GB_SA_GOOD_MAX trees
 * (when full, a better tree replaces the worst); duplicates (same 64-bit
 * hash of root, parents and send orders) are kept once; when the best
 * improves, trees no longer within 10 % are dropped.
 *
 * ------------------------------------------------------------------------
 * driverSA (Fig. 2), as implemented:
 *
 *	randomization: repeat
 *	    basicSA(random tree rooted at the root, good_list)
 *	    no budget: stop after 50
 *	    budget T:  stop when  last >= 1.5 * remaining
 *	               remaining = T - elapsed,
 *	               last = now - (time good_list's best last improved)
 *	refinement (good_list frozen: Fig. 2 line 20 passes dummy_list):
 *	    repeat: basicSA(next tree of good_list, by increasing cost, with
 *	            wrap-around); keep the best
 *	    no budget: stop after 25;  budget: stop when remaining <= 0
 *
 * Our reading of the switch (lines 12-17): "last_time = time since best tree
 * in good_list has not changed" is the age of the current best, i.e. the
 * length of the sliding window that starts at the last improvement and ends
 * now.  With no improvement after t_b the switch comes at
 *	t - t_b >= 1.5 (T - t)   <=>   t >= 0.6 T + 0.4 t_b,
 * so between 60 % and 100 % of the budget; at t = T it always happens.
 * The budget is checked between invocations (as in Fig. 2) and, because one
 * basicSA on many nodes can outlast a small budget, every 8 evaluations
 * inside basicSA, which then returns its best so far.
 *
 * Random initial trees (generateRandomTree): the root is the broadcast root
 * when the node set holds it (§2.3), else a uniform node of the set; every
 * other node, in a uniformly shuffled order, becomes a child of a uniform
 * node already placed, at a uniform slot of its send order (a random
 * recursive tree).
 *
 * Trivial node sets are not annealed: one node, two nodes with the root
 * fixed (one tree), or two nodes without a root (both trees evaluated).
 *
 *
 * clusteredSA (Fig. 4) is in plan_sa_clustered.c; what both files share
 * is in sa_impl.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbplan.h"
#include "gbsa.h"
#include "plan_impl.h"
#include "sa_impl.h"

/* Gives dense injection/latency matrices to node sets up to this size. */
#define SA_DENSE_MAX 256

/* ------------------------------------------------------------------ */
/* A node set to plan over, with its cost evaluation                   */
/* ------------------------------------------------------------------ */

void sa_prob_release(struct sa_prob *p)
{
	free(p->delta);
	free(p->lat);
	free(p->arr);
	free(p->stack);
	free(p->mark);
	free(p->cand);
	p->delta = p->lat = p->arr = NULL;
	p->stack = p->mark = p->cand = NULL;
	sa_tree_free(&p->cur);
	sa_tree_free(&p->nw);
	sa_tree_free(&p->init);
	sa_tree_free(&p->out);
	if (p->have_gt)
		gb_tree_release(&p->gt);
	p->have_gt = 0;
	if (p->mm == &p->sub)
		gb_nm_release(&p->sub);
	p->mm = NULL;
}

/*
 * Set up a node set: nodes[0..k-1] are model nodes (NULL = all of them),
 * fixed_root a local index or -1.  @cm NULL selects the built-in Mateescu
 * evaluation.
 */
int sa_prob_init(struct sa_prob *p, const struct gb_netmodel *m, const int *nodes, int k,
		 int fixed_root, double size, const struct gb_costmodel *cm,
		 struct gb_rng *rng)
{
	size_t kk = (size_t)(k > 0 ? k : 1);
	int ret = -ENOMEM;

	memset(p, 0, sizeof(*p));
	/* All nodes in model order: read the model itself, copy nothing. */
	if (nodes && k == m->n) {
		int id = 1;

		for (int i = 0; i < k && id; i++)
			id = nodes[i] == i;
		if (id)
			nodes = NULL;
	}
	p->k = k;
	p->fixed_root = fixed_root;
	p->size = size;
	p->m = m;
	p->map = nodes;
	p->cm = cm;
	p->rng = rng;
	p->check_mask = cm ? 0 : 7;

	p->arr = malloc(sizeof(double) * kk);
	p->stack = malloc(sizeof(int) * kk);
	p->mark = calloc(kk, sizeof(int));
	p->cand = malloc(sizeof(int) * kk);
	if (!p->arr || !p->stack || !p->mark || !p->cand)
		goto cleanup;
	if (sa_tree_alloc(&p->cur, k) || sa_tree_alloc(&p->nw, k) ||
	    sa_tree_alloc(&p->init, k) || sa_tree_alloc(&p->out, k))
		goto cleanup;

	if (!cm) {
		if (k <= SA_DENSE_MAX) {
			p->delta = malloc(sizeof(double) * kk * kk);
			p->lat = malloc(sizeof(double) * kk * kk);
			if (!p->delta || !p->lat)
				goto cleanup;
			for (int i = 0; i < k; i++) {
				int u = nodes ? nodes[i] : i;

				for (int j = 0; j < k; j++) {
					int v = nodes ? nodes[j] : j;

					p->delta[(size_t)i * kk + j] = gb_nm_delta(m, u, v, size);
					p->lat[(size_t)i * kk + j] = m->lat[(size_t)u * m->n + v];
				}
			}
		}
	} else {
		if (nodes) {
			ret = gb_nm_sub(&p->sub, m, nodes, k);
			if (ret < 0)
				goto cleanup;
			p->mm = &p->sub;
		} else {
			p->mm = m;
		}
		ret = gb_tree_init(&p->gt, k, fixed_root >= 0 ? fixed_root : 0);
		if (ret < 0)
			goto cleanup;
		p->have_gt = 1;
	}
	return 0;

cleanup:
	sa_prob_release(p);
	return ret < 0 ? ret : -ENOMEM;
}

static inline double sa_delta(const struct sa_prob *p, int u, int v)
{
	if (p->delta)
		return p->delta[(size_t)u * p->k + v];
	return gb_nm_delta(p->m, p->map ? p->map[u] : u, p->map ? p->map[v] : v, p->size);
}

static inline double sa_lat(const struct sa_prob *p, int u, int v)
{
	if (p->lat)
		return p->lat[(size_t)u * p->k + v];
	int a = p->map ? p->map[u] : u, b = p->map ? p->map[v] : v;

	return p->m->lat[(size_t)a * p->m->n + b];
}

/*
 * Mateescu's model (seed 000 §2.2, seed 003; gbcore.h gb_cost_mateescu):
 * u holds the message at arr[u] and sends to its children in order, busy
 * Delta(u,c) for each; c holds it Delta(u,c) + L(u,c) after its send began.
 * O(k), no allocation: this is the annealer's inner loop.
 */
static double sa_eval_mateescu(struct sa_prob *p, const struct sa_tree *t, int *far)
{
	double *arr = p->arr, max = 0;
	int *stack = p->stack, sp = 0, amax = t->root;

	arr[t->root] = 0;
	stack[sp++] = t->root;
	while (sp > 0) {
		int u = stack[--sp];
		double busy = arr[u];

		if (p->delta) {
			const double *dr = p->delta + (size_t)u * p->k;
			const double *lr = p->lat + (size_t)u * p->k;

			for (int c = t->first[u]; c >= 0; c = t->next[c]) {
				double a;

				busy += dr[c];
				a = busy + lr[c];
				arr[c] = a;
				if (a > max) {
					max = a;
					amax = c;
				}
				stack[sp++] = c;
			}
		} else {
			for (int c = t->first[u]; c >= 0; c = t->next[c]) {
				double a;

				busy += sa_delta(p, u, c);
				a = busy + sa_lat(p, u, c);
				arr[c] = a;
				if (a > max) {
					max = a;
					amax = c;
				}
				stack[sp++] = c;
			}
		}
	}
	*far = amax;
	return max;
}

/* Any registered cost model, through a gb_tree. */
static double sa_eval_model(struct sa_prob *p, const struct sa_tree *t, int *far)
{
	struct gb_tree *g = &p->gt;
	int k = p->k, pos = 0, amax = t->root;
	double cost, max = -INFINITY;

	g->root = t->root;
	for (int v = 0; v < k; v++) {
		g->parent[v] = t->parent[v];
		g->cstart[v] = pos;
		g->nchild[v] = 0;
		for (int c = t->first[v]; c >= 0; c = t->next[c]) {
			g->child[pos++] = c;
			g->nchild[v]++;
		}
	}
	cost = p->cm->cost(p->mm, g, p->size, p->arr);
	if (isnan(cost))
		cost = INFINITY;
	for (int v = 0; v < k; v++) {
		if (p->arr[v] > max) {
			max = p->arr[v];
			amax = v;
		}
	}
	*far = amax;
	return cost;
}

double sa_eval(struct sa_prob *p, const struct sa_tree *t, int *far)
{
	p->evals++;
	return p->cm ? sa_eval_model(p, t, far) : sa_eval_mateescu(p, t, far);
}

static int sa_out_of_time(struct sa_prob *p)
{
	if (p->deadline <= 0)
		return 0;
	if (!p->timed_out && ((unsigned long)p->evals & p->check_mask) == 0 &&
	    gb_now() >= p->deadline)
		p->timed_out = 1;
	return p->timed_out;
}

/* generateRandomTree (Fig. 2 line 4); see the header comment. */
static void sa_random_tree(struct sa_prob *p, struct sa_tree *t)
{
	int k = p->k, *placed = p->cand, np = 0, nrest = 0;
	int root = p->fixed_root >= 0 ? p->fixed_root : (int)gb_rng_below(p->rng, (uint32_t)k);
	int *rest = p->stack;

	sa_tree_clear(t, k, root);
	for (int v = 0; v < k; v++)
		if (v != root)
			rest[nrest++] = v;
	for (int i = nrest - 1; i > 0; i--) {
		int j = (int)gb_rng_below(p->rng, (uint32_t)i + 1), tmp = rest[i];

		rest[i] = rest[j];
		rest[j] = tmp;
	}
	placed[np++] = root;
	for (int i = 0; i < nrest; i++) {
		int v = rest[i];
		int y = placed[gb_rng_below(p->rng, (uint32_t)np)];
		int pos = (int)gb_rng_below(p->rng, (uint32_t)sa_nchild(t, y) + 1);

		sa_attach(t, v, y, pos);
		placed[np++] = v;
	}
}

/* transform_tree (Fig. 1 line 9, §2.2); see the header comment. */
static void sa_transform(struct sa_prob *p, const struct sa_tree *cur, int far,
			 struct sa_tree *nw)
{
	int k = p->k, d = 0, x, y, nc = 0, sp = 0;
	int *path = p->cand, *stack = p->stack;

	sa_tree_copy(nw, cur, k);
	for (int v = far; v != cur->root && v >= 0; v = cur->parent[v])
		path[d++] = v;
	if (d == 0)
		return;
	x = path[gb_rng_below(p->rng, (uint32_t)d)];

	/* Mark x's subtree: it cannot hold x's new parent. */
	if (++p->stamp == 0) {
		memset(p->mark, 0, sizeof(int) * (size_t)k);
		p->stamp = 1;
	}
	stack[sp++] = x;
	while (sp > 0) {
		int u = stack[--sp];

		p->mark[u] = p->stamp;
		for (int c = cur->first[u]; c >= 0; c = cur->next[c])
			stack[sp++] = c;
	}
	for (int v = 0; v < k; v++)
		if (p->mark[v] != p->stamp)
			p->cand[nc++] = v;
	y = p->cand[gb_rng_below(p->rng, (uint32_t)nc)];

	sa_detach(nw, x);
	sa_attach(nw, x, y, (int)gb_rng_below(p->rng, (uint32_t)sa_nchild(nw, y) + 1));
}

/* ------------------------------------------------------------------ */
/* basicSA (Fig. 1)                                                    */
/* ------------------------------------------------------------------ */

/*
 * Anneal from @init (p->init may be passed) into @best; returns best's cost.
 * Uses p->cur and p->nw.  @good may be NULL (Fig. 2's dummy_list).  @sch,
 * if not NULL, records the schedule (gb_sa_schedule); NULL costs a test
 * per step and draws nothing, so results do not depend on it.
 */
static double sa_basic(struct sa_prob *p, const struct sa_tree *init, struct sa_tree *best,
		       struct sa_good *good, double *init_cost, struct gb_sa_schedule *sch)
{
	struct sa_tree *cur = &p->cur, *nw = &p->nw, tmp;
	double cur_cost, best_cost, temp = GB_SA_T0;
	int cur_far, new_far, k = p->k;
	const double stop_accepts = GB_SA_ACCEPT_STOP * GB_SA_ITERS;
	long evals0 = p->evals;
	struct gb_sa_temp_stats *ts = NULL;

	if (init != cur)
		sa_tree_copy(cur, init, k);
	cur_cost = sa_eval(p, cur, &cur_far);
	if (init_cost)
		*init_cost = cur_cost;
	sa_tree_copy(best, cur, k);
	best_cost = cur_cost;
	sa_good_offer(good, cur, cur_cost);

	if (sch) {
		memset(sch, 0, sizeof(*sch));
		sch->stop = GB_SA_STOP_MINTEMP;
	}
	while (temp > GB_SA_TMIN) {
		int accepts = 0, best_found = 0;

		if (sch) {
			ts = sch->ntemps < GB_SA_MAX_TEMPS ? &sch->t[sch->ntemps++] : NULL;
			if (ts)
				ts->temp = temp;
		}
		for (int it = 0; it < GB_SA_ITERS; it++) {
			double new_cost;

			if (sa_out_of_time(p)) {
				if (sch)
					sch->stop = GB_SA_STOP_DEADLINE;
				goto out;
			}
			sa_transform(p, cur, cur_far, nw);
			new_cost = sa_eval(p, nw, &new_far);
			if (ts)
				ts->tries++;
			sa_good_offer(good, nw, new_cost);
			if (new_cost < best_cost) {
				sa_tree_copy(best, nw, k);
				best_cost = new_cost;
				tmp = *cur;
				*cur = *nw;
				*nw = tmp;
				cur_cost = new_cost;
				cur_far = new_far;
				accepts++;
				best_found = 1;
			} else {
				double diff = (new_cost - cur_cost) / GB_SA_COST_UNIT;
				double rnd = gb_rng_uniform(p->rng);

				if (rnd < exp(-diff / (GB_SA_BOLTZMANN * temp))) {
					if (ts && diff > 0)
						ts->uphill++;
					tmp = *cur;
					*cur = *nw;
					*nw = tmp;
					cur_cost = new_cost;
					cur_far = new_far;
					accepts++;
				}
			}
			if (ts) {
				ts->accepts = accepts;
				ts->best_found = best_found;
			}
			if (accepts == GB_SA_ACCEPT_BREAK)
				break;
		}
		if (accepts <= stop_accepts && !best_found) {
			if (sch)
				sch->stop = GB_SA_STOP_FROZEN;
			break;
		}
		temp *= GB_SA_FACTOR;
	}
out:
	if (sch)
		sch->evaluations = p->evals - evals0;
	return best_cost;
}

/* ------------------------------------------------------------------ */
/* driverSA (Fig. 2)                                                   */
/* ------------------------------------------------------------------ */

static void sa_trace(struct gb_sa_stats *st, double t, enum gb_sa_phase ph, double cost,
		     double best)
{
	if (st && st->trace)
		st->trace(st->trace_ctx, t, ph, cost, best);
}

/* The node sets that need no annealing: see the header comment. */
static int sa_trivial(struct sa_prob *p, struct sa_tree *best, double *best_cost)
{
	int far;

	if (p->k > 2)
		return 0;
	if (p->k == 1 || p->fixed_root >= 0) {
		int r = p->k == 1 ? 0 : p->fixed_root;

		sa_tree_clear(best, p->k, r);
		if (p->k == 2)
			sa_attach(best, 1 - r, r, 0);
		*best_cost = sa_eval(p, best, &far);
		return 1;
	}
	double c[2];

	for (int r = 0; r < 2; r++) {
		sa_tree_clear(&p->nw, 2, r);
		sa_attach(&p->nw, 1 - r, r, 0);
		c[r] = sa_eval(p, &p->nw, &far);
	}
	int r = c[1] < c[0] ? 1 : 0;

	sa_tree_clear(best, 2, r);
	sa_attach(best, 1 - r, r, 0);
	*best_cost = c[r];
	return 1;
}

/*
 * One invocation of driverSA's done, at @cost: p->out becomes @best if it
 * is better, and the invocation is traced (phase @phase, since @t0).
 * Return: the clock when it was traced.
 */
static double sa_keep(struct sa_prob *p, struct sa_tree *best, double *best_cost, double cost,
		      struct gb_sa_stats *st, double t0, enum gb_sa_phase phase)
{
	if (cost < *best_cost) {
		sa_tree_copy(best, &p->out, p->k);
		*best_cost = cost;
	}
	double now = gb_now();

	sa_trace(st, now - t0, phase, cost, *best_cost);
	return now;
}

/*
 * driverSA over the node set of @p with time budget @td (<= 0: none).
 * @good is a good list sized for p->k (left frozen as of the switch).
 */
int sa_driver(struct sa_prob *p, double td, struct sa_tree *best, double *best_cost,
	      struct gb_sa_stats *st, struct sa_good *good)
{
	double t0 = gb_now(), cost, ic;
	int rcount = 0, fcount = 0;

	p->deadline = td > 0 ? t0 + td : 0;
	p->timed_out = 0;
	*best_cost = INFINITY;
	if (sa_trivial(p, best, best_cost)) {
		if (st && st->initial_cost == 0)
			st->initial_cost = *best_cost;
		return 0;
	}
	sa_good_reset(good, t0);

	/* Randomization phase, Fig. 2 lines 3-19. */
	for (;;) {
		sa_random_tree(p, &p->init);
		cost = sa_basic(p, &p->init, &p->out, good, &ic, NULL);
		if (st && rcount == 0 && st->random_invocations == 0)
			st->initial_cost = ic;
		rcount++;
		double now = sa_keep(p, best, best_cost, cost, st, t0, GB_SA_RANDOM);

		if (td <= 0) {
			if (rcount == GB_SA_RANDOM_INVOC)
				break;
		} else {
			double remaining = td - (now - t0);
			double last = now - good->t_best;

			if (last >= GB_SA_SWITCH_RATIO * remaining)
				break;
		}
	}
	if (st) {
		st->random_invocations += rcount;
		st->switch_s = gb_now() - t0;
	}

	/* Refinement phase, lines 20-35: good_list frozen, in cost order. */
	sa_good_sort(good);
	for (int i = 0; good->n > 0; i = (i + 1) % good->n) {
		sa_good_get(good, i, &p->init);
		cost = sa_basic(p, &p->init, &p->out, NULL, NULL, NULL);
		fcount++;
		double now = sa_keep(p, best, best_cost, cost, st, t0, GB_SA_REFINE);

		if (td <= 0) {
			if (fcount == GB_SA_REFINE_INVOC)
				break;
		} else if (now - t0 >= td) {
			break;
		}
	}
	if (st) {
		st->refine_invocations += fcount;
		if (p->timed_out)
			st->timed_out = 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Conversions and the public entry points                             */
/* ------------------------------------------------------------------ */

/* Cost model to optimise: NULL (built-in Mateescu) or a registry entry. */
int sa_model(const char *name, const char *def, const struct gb_costmodel **cm)
{
	const struct gb_costmodel *c = gb_costmodel_find(name ? name : def);

	if (!c)
		return -EINVAL;
	*cm = strcmp(c->name, "mateescu") == 0 ? NULL : c;
	return 0;
}

int sa_to_gb(const struct sa_tree *t, int k, struct gb_tree *out)
{
	double *order = malloc(sizeof(double) * (size_t)(k > 0 ? k : 1));
	int ret;

	if (!order)
		return -ENOMEM;
	for (int v = 0; v < k; v++) {
		int i = 0;

		for (int c = t->first[v]; c >= 0; c = t->next[c])
			order[c] = i++;
	}
	order[t->root] = 0;
	out->root = t->root;
	ret = gb_tree_from_parents(out, t->parent, order);
	free(order);
	return ret;
}

void sa_from_gb(const struct gb_tree *g, struct sa_tree *t)
{
	sa_tree_clear(t, g->n, g->root);
	for (int v = 0; v < g->n; v++) {
		t->parent[v] = g->parent[v];
		for (int i = g->nchild[v] - 1; i >= 0; i--) {
			int c = g->child[g->cstart[v] + i];

			t->next[c] = t->first[v];
			t->first[v] = c;
		}
	}
}

int sa_check_args(const struct gb_netmodel *m, const struct gb_plan_args *a,
		  const struct gb_tree *out)
{
	if (!m || !a || !out || m->n < 1 || a->root < 0 || a->root >= m->n || !(a->size >= 0))
		return -EINVAL;
	if (out->n != m->n || !out->parent)
		return -EINVAL;
	return 0;
}

void gb_sa_goodlist_release(struct gb_sa_goodlist *g)
{
	if (!g)
		return;
	for (int i = 0; g->trees && i < g->n; i++)
		gb_tree_release(&g->trees[i]);
	free(g->trees);
	free(g->cost);
	g->trees = NULL;
	g->cost = NULL;
	g->n = 0;
}

/*
 * What gb_sa_basic() and gb_sa_driver() set up over all nodes: the cost
 * model to optimise, @rng seeded, the problem @p and an empty good list.
 * Return: 0 or -errno; the caller releases @p and @good either way.
 */
static int sa_setup_all(const struct gb_netmodel *m, const struct gb_plan_args *a,
			struct sa_prob *p, struct sa_good *good, struct gb_rng *rng)
{
	const struct gb_costmodel *cm;
	int ret = sa_model(a->model, "mateescu", &cm);

	if (ret < 0)
		return ret;
	gb_rng_seed(rng, a->seed);
	ret = sa_prob_init(p, m, NULL, m->n, a->root, a->size, cm, rng);
	if (ret < 0)
		return ret;
	return sa_good_init(good, m->n, GB_SA_GOOD_MAX);
}

int gb_sa_basic(const struct gb_netmodel *m, const struct gb_plan_args *a,
		const struct gb_tree *initial, struct gb_tree *out, struct gb_sa_stats *st)
{
	struct sa_prob p = { 0 };
	struct sa_good good = { 0 };
	struct gb_rng rng;
	double t0 = gb_now(), cost, ic;
	int ret;
		
		ret = sa_check_args(m, a, out);
	if (ret < 0)
		return ret;
	if (!initial || initial->n != m->n || initial->root != a->root ||
	    gb_tree_check(initial, NULL) < 0)
		return -EINVAL;
	ret = sa_setup_all(m, a, &p, &good, &rng);
	if (ret < 0)
		goto cleanup;
	sa_good_reset(&good, t0);
	p.deadline = a->budget_s > 0 ? t0 + a->budget_s : 0;
	sa_from_gb(initial, &p.init);
	cost = sa_basic(&p, &p.init, &p.out, &good, &ic, st ? st->schedule : NULL);
	ret = sa_to_gb(&p.out, m->n, out);
	if (st) {
		st->initial_cost = ic;
		st->best_cost = cost;
		st->evaluations += p.evals;
		st->timed_out = p.timed_out;
		st->elapsed_s = gb_now() - t0;
	}
cleanup:
	sa_good_release(&good);
	sa_prob_release(&p);
	return ret;
}

static int sa_goodlist_export(const struct sa_good *g, struct gb_sa_goodlist *out,
			      struct sa_prob *p)
{
	int ret = 0;

	out->n = 0;
	out->trees = calloc((size_t)(g->n > 0 ? g->n : 1), sizeof(*out->trees));
	out->cost = calloc((size_t)(g->n > 0 ? g->n : 1), sizeof(*out->cost));
	if (!out->trees || !out->cost) {
		gb_sa_goodlist_release(out);
		return -ENOMEM;
	}
	for (int i = 0; i < g->n; i++) {
		sa_good_get(g, i, &p->nw);
		ret = gb_tree_init(&out->trees[i], g->k, p->nw.root);
		if (ret < 0)
			break;
		out->n++;
		ret = sa_to_gb(&p->nw, g->k, &out->trees[i]);
		if (ret < 0)
			break;
		out->cost[i] = g->cost[i];
	}
	if (ret < 0)
		gb_sa_goodlist_release(out);
	return ret;
}

int gb_sa_driver(const struct gb_netmodel *m, const struct gb_plan_args *a,
		 struct gb_tree *out, struct gb_sa_stats *st, struct gb_sa_goodlist *goodout)
{
	struct sa_prob p = { 0 };
	struct sa_good good = { 0 };
	struct sa_tree best = { 0 };
	struct gb_rng rng;
	double t0 = gb_now(), cost;
	int ret;

	ret = sa_check_args(m, a, out);
	if (ret < 0)
		return ret;
	ret = sa_setup_all(m, a, &p, &good, &rng);
	if (ret < 0)
		goto cleanup;
	ret = sa_tree_alloc(&best, m->n);
	if (ret < 0)
		goto cleanup;
	/* The budget counts from our entry: subtract the set-up time. */
	double td = a->budget_s > 0 ? a->budget_s - (gb_now() - t0) : 0;

	if (a->budget_s > 0 && td <= 0)
		td = 1e-9;
	ret = sa_driver(&p, td, &best, &cost, st, &good);
	if (ret < 0)
		goto cleanup;
	ret = sa_to_gb(&best, m->n, out);
	if (ret < 0)
		goto cleanup;
	if (goodout)
		ret = sa_goodlist_export(&good, goodout, &p);
	if (st) {
		st->best_cost = cost;
		st->evaluations += p.evals;
		st->driver_runs++;
		st->elapsed_s = gb_now() - t0;
	}
cleanup:
	sa_tree_free(&best);
	sa_good_release(&good);
	sa_prob_release(&p);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Registry entries (planners.c)                                       */
/* ------------------------------------------------------------------ */

int gb_plan_sa(const struct gb_netmodel *m, const struct gb_plan_args *a, struct gb_tree *out)
{
	return gb_sa_driver(m, a, out, NULL, NULL);
}
