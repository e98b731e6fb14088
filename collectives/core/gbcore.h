/* SPDX-License-Identifier: MIT */
/*
 * gbcore.h - libgbcore (collectives/core/): network models, broadcast trees
 * and cost models, the tier every planner and tool builds on.  Pure C: it
 * needs gbtopo only, and includes neither MPI nor emulator headers (a test,
 * t/0095-layering.t, checks this).
 *
 * Units everywhere in this header: seconds (double) for time, bytes for
 * message sizes, bytes per second for bandwidth.
 *
 * Conventions: functions return 0 or a negative errno and print nothing.
 */
#ifndef GRIDBED_GBCORE_H
#define GRIDBED_GBCORE_H

#include <stddef.h>
#include <stdint.h>

#include "gbutil.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GB_WUR
#define GB_WUR __attribute__((warn_unused_result))
#endif

struct gb_topo;

/** Bytes per second in one Mbit/s (the papers quote bandwidths in Mbit/s). */
#define GB_MBIT (1e6 / 8.0)

/* ------------------------------------------------------------------ */
/* Shared utilities                                                    */
/* ------------------------------------------------------------------ */

/* The random generator (struct gb_rng) and the clock (gb_now()) are
 * libgbutil's: util/gbutil.h. */

/**
 * gb_parse_size() - a message size: plain bytes ("1000"), or with a binary
 * suffix K, M, G (1K = 1024, 1M = 1048576), optionally followed by "B"/"iB".
 * Return: 0 or -EINVAL.
 */
int gb_parse_size(const char *s, double *bytes);

/** The largest message gridbcast broadcasts, and so the largest size gridtree
 *  plans for: MPI counts are ints. */
#define GB_MSG_MAX 2147483647.0

/** A segment size that lets the broadcast's root choose (GRIDBED_SEGMENT=auto). */
#define GB_SEG_AUTO (-1.0)

/**
 * gb_parse_segment() - a segment size as users write it: "auto"
 * (GB_SEG_AUTO), 0 (whole messages) or whole bytes as gb_parse_size() reads
 * them, at most 2^31 - 1.  Return: 0 or -EINVAL.
 */
int gb_parse_segment(const char *s, double *bytes);

/* ------------------------------------------------------------------ */
/* Network model                                                       */
/* ------------------------------------------------------------------ */

struct gb_nm_node {
	char name[32];
	int cluster;     /**< cluster index, 0 .. nclusters-1 */
	int site;        /**< site index, 0 .. nsites-1 */
};

/**
 * struct gb_netmodel - what planners know about the network.
 *
 * lat[i*n+j] is the one-way latency from i to j (s), bw[i*n+j] the bandwidth
 * from i to j (B/s), o[i] the per-message initiation cost of node i (s).
 * Matrices need not be symmetric.  The diagonal is unused.
 *
 * When the model comes from a topology, path[i*n+j] lists the directed
 * topology links (gbtopo.h encoding) from i to j, pathlen[i*n+j] entries,
 * and linkcap[dl] is the capacity of directed link dl (B/s, 0 = unlimited);
 * the contention model needs them.  Otherwise path is NULL.
 */
struct gb_netmodel {
	int n;
	struct gb_nm_node *nodes;
	int nclusters;
	char (*cluster_names)[32];
	int nsites;
	char (*site_names)[32];
	double *o;
	double *lat;
	double *bw;

	/* pLogP extras, used by the cluster-level heuristics (seed 002 §2.1):
	 * gap g(m) = g0 + m * g_per_byte between consecutive sends of node i to
	 * j, i.e. g(m) = gap_fixed[i*n+j] + m / bw[i*n+j] by default. */
	double *gap_fixed;     /**< may be NULL: then o[i] is used */

	int **path;            /**< NULL unless loaded from a topology */
	int *pathlen;          /**< n*n hop counts (with path) */
	int ndirlinks;         /**< 2 * topology links */
	double *linkcap;       /**< ndirlinks capacities, B/s, 0 = unlimited */

	uint64_t version;      /**< matrix version, from gridmon; 0 if static */

	/* The hosts' TCP stack, from a matrix file's "tcp" (gridmon's): bw is
	 * then the path's steady TCP rate, and a message sent after an idle
	 * connection restarts slow start (RFC 2861) from init_window bytes;
	 * gb_nm_for_size() folds that into bw.  0 from a topology. */
	int tcp_restart;       /**< every host restarts slow start after idle */
	double init_window;    /**< bytes: initcwnd (kernel's: 10) x GB_NM_MSS */
};

/** The TCP payload per segment the slow-start model assumes (1500-byte MTU,
 *  IP and TCP headers with timestamps). */
#define GB_NM_MSS 1448.0

/**
 * gb_nm_ss_time() - seconds a sender takes to push @size bytes over a path
 * of round trip @rtt and steady rate @cap (B/s) when its connection starts
 * in slow start with a window of @w0 bytes: the window doubles every round
 * trip until it covers the path (cap x rtt), then the rate is @cap.
 * Without slow start (w0 >= cap x rtt, or w0 <= 0) it is size / cap.
 */
double gb_nm_ss_time(double size, double rtt, double cap, double w0);

/** Open MPI's TCP eager limit (btl_tcp_eager_limit, 64 KiB, the stack
 *  `gridemu mpirun` runs): a message up to this size is sent without a
 *  rendezvous, and its send returns once the socket has it. */
#define GB_NM_EAGER 65536.0

/**
 * gb_nm_for_size() - @dst = @src with the slow start of a message of @size
 * bytes folded in, if @src->tcp_restart (else a plain copy): with t =
 * gb_nm_ss_time(size, lat(i,j) + lat(j,i), bw(i,j), init_window),
 *   size > GB_NM_EAGER:  bw(i,j) = size / t (the sender is busy for t);
 *   size <= GB_NM_EAGER: lat(i,j) += t - size / bw(i,j) (the sender is
 *                        busy size / bw; the round trips are flight time).
 * This is how a steady-rate matrix means "what a message of the planned
 * size gets" (issue 13, cause 4; collectives/core/nm_tcp.c has the
 * reasoning and the measurements).
 * Return: 0 or -ENOMEM.
 */
GB_WUR int gb_nm_for_size(struct gb_netmodel *dst, const struct gb_netmodel *src, double size);

/**
 * gb_nm_init() - allocate a model with n nodes (1 .. 65536): o, lat and bw
 * zeroed (fill them in), nodes named "n<i>" in one cluster "c0" of one site
 * "s0", no gap_fixed, no paths.  @m's previous content is ignored.
 */
GB_WUR int gb_nm_init(struct gb_netmodel *m, int n);

/** gb_nm_release() - free what gb_nm_* allocated; safe to call twice. */
void gb_nm_release(struct gb_netmodel *m);

/**
 * gb_nm_from_topo() - static model of the hosts of a topology: latency is
 * the sum of one-way delays along the routed path, bandwidth the path's
 * bottleneck, o(i) = @o_default + the per_packet cost of host i's own
 * egress direction (its host link, host -> switch; docs/topology-format.md),
 * so that gb_nm_delta()'s Delta(i,j) = o(i) + m / B(i,j) sees the host's
 * injection cost; a direction with such a cost counts at the rate its MTU
 * packets get, R x mtu / (mtu + per_packet x R), in bw and linkcap.  Keeps
 * routed paths for the contention model.
 */
GB_WUR int gb_nm_from_topo(struct gb_netmodel *m, const struct gb_topo *t,
			   double o_default);

/**
 * gb_nm_load_json() - read the matrix file format (docs/formats.md) at
 * @path into @m (zeroed first; release with gb_nm_release()).  The reason
 * of a failure goes into the optional @err, naming the file; @err is left
 * as it was when no reader had anything to say.
 * Return: 0, -ENOENT, -EINVAL (not a matrix file), -ENOMEM or -errno.
 */
GB_WUR int gb_nm_load_json(struct gb_netmodel *m, const char *path, struct gb_err *err);

/** gb_nm_save_json() - write the matrix file format, atomically ("-": stdout). */
GB_WUR int gb_nm_save_json(const struct gb_netmodel *m, const char *path);

/*
 * Bandwidth convention: bw[] is in B/s and INFINITY means "unlimited" (a
 * routed path without any rate limit).  The matrix file writes unlimited as
 * 0.  Use gb_nm_delta()/gb_nm_gap() rather than size / bw so that unlimited
 * costs nothing.
 */

/**
 * gb_nm_delta() - Mateescu's injection time Delta(i,j) = o(i) + m / B(i,j)
 * (seed 000 section 2.2, seed 003 slide 3).
 */
static inline double gb_nm_delta(const struct gb_netmodel *m, int i, int j, double size)
{
	double b = m->bw[(size_t)i * m->n + j];

	return m->o[i] + ((b > 0 && b < 1e300) ? size / b : 0.0);
}

/**
 * gb_nm_gap() - the pLogP gap g(m) between consecutive sends of i to j
 * (seed 002 section 2.1): gap_fixed[i,j] + m / B(i,j), or o(i) + m / B(i,j)
 * when the model has no gap_fixed matrix (then it equals gb_nm_delta()).
 */
static inline double gb_nm_gap(const struct gb_netmodel *m, int i, int j, double size)
{
	double b = m->bw[(size_t)i * m->n + j];
	double g0 = m->gap_fixed ? m->gap_fixed[(size_t)i * m->n + j] : m->o[i];

	return g0 + ((b > 0 && b < 1e300) ? size / b : 0.0);
}

/** gb_nm_find_node() - node index by name, or -1. */
int gb_nm_find_node(const struct gb_netmodel *m, const char *name);

/**
 * gb_nm_check() - 0 if the model is usable by every planner and cost model
 * (n >= 1, names unique and non-empty, cluster/site indices in range,
 * o >= 0, lat >= 0, bw > 0 off the diagonal), else -EINVAL with the
 * reason in @e (may be NULL).
 */
int gb_nm_check(const struct gb_netmodel *m, struct gb_err *e);

/**
 * gb_nm_set_groups() - allocate cluster_names/site_names for @nclusters and
 * @nsites (zeroed) so that generators and loaders can fill them.
 */
GB_WUR int gb_nm_set_groups(struct gb_netmodel *m, int nclusters, int nsites);

/**
 * gb_nm_sub() - the model restricted to nodes[0 .. k-1] (in that order):
 * node i of @dst is nodes[i] of @src.  Clusters and sites keep their
 * indices and names; paths are kept.  Used by clustered SA on pools.
 */
GB_WUR int gb_nm_sub(struct gb_netmodel *dst, const struct gb_netmodel *src,
		     const int *nodes, int k);

/** gb_nm_copy() - a deep copy. */
GB_WUR int gb_nm_copy(struct gb_netmodel *dst, const struct gb_netmodel *src);

/**
 * gb_nm_gen_uniform() - a flat random model for the simulation studies:
 * n nodes "n0".."n{n-1}" in one cluster and one site, bw of every unordered
 * pair uniform in [bw_lo, bw_hi) B/s (symmetric), latency @lat and
 * initiation cost @o everywhere.  Deterministic for @seed.
 */
GB_WUR int gb_nm_gen_uniform(struct gb_netmodel *m, int n, double bw_lo, double bw_hi,
			     double lat, double o, uint64_t seed);

/**
 * gb_nm_gen_gupta_fig3() - seed 000 section 2.3 / Fig. 3: n nodes (the paper
 * uses 32), bandwidths uniform in 0.1 .. 10 Mbit/s.  The paper gives no
 * latency or initiation cost; we use 0 for both, which changes nothing at
 * its 1 MB message size (80 ms .. 80 s per transfer).
 */
GB_WUR int gb_nm_gen_gupta_fig3(struct gb_netmodel *m, int n, uint64_t seed);

/**
 * gb_nm_gen_grid() - a random hierarchical grid for tests and benchmarks:
 * @nsites sites of @cps clusters of @npc nodes ("s0c1n2"), node index
 * cluster by cluster.  Intra-cluster: 100 Mbit/s, 0.05-0.2 ms; between
 * clusters of a site: 50-100 Mbit/s, 0.5-2 ms; between sites: 1-45 Mbit/s,
 * 10-60 ms (per cluster pair, so every node pair of two clusters agrees);
 * o uniform in 5-20 us.  Asymmetric by up to 10 %.  Deterministic for @seed.
 */
GB_WUR int gb_nm_gen_grid(struct gb_netmodel *m, int nsites, int cps, int npc, uint64_t seed);

/* ------------------------------------------------------------------ */
/* Trees                                                               */
/* ------------------------------------------------------------------ */

/**
 * struct gb_tree - an ordered broadcast tree.
 *
 * parent[v] is v's parent (-1 for the root).  The children of v are
 * child[cstart[v] .. cstart[v] + nchild[v] - 1] in *send order*.
 * Built with gb_tree_from_parents() or gb_tree_set_children(); validated by
 * gb_tree_check().
 */
struct gb_tree {
	int n;
	int root;
	int *parent;
	int *nchild;
	int *cstart;
	int *child;
};

/**
 * gb_tree_init() - allocate a tree of n nodes rooted at @root, every parent
 * -1 and no children.  @t's previous content is ignored (not freed).
 */
GB_WUR int gb_tree_init(struct gb_tree *t, int n, int root);

/** gb_tree_release() - free and zero; safe on a zeroed struct and twice. */
void gb_tree_release(struct gb_tree *t);

/**
 * gb_tree_copy() - deep copy.  @dst may be zeroed or an initialised tree
 * (it is released first); on failure @dst is left zeroed.
 */
GB_WUR int gb_tree_copy(struct gb_tree *dst, const struct gb_tree *src);

/**
 * gb_tree_from_parents() - build child lists from parent[] and a send-order
 * key: children of each node are sorted by increasing order[child] (ties by
 * index).  order may be NULL (index order).
 * @t must be initialised (gb_tree_init); t->n and t->root are kept and
 * parent[] is copied in.  Return: -EINVAL if parent[t->root] != -1, another
 * node has -1 or an index is out of range (cycles are gb_tree_check()'s job).
 */
GB_WUR int gb_tree_from_parents(struct gb_tree *t, const int *parent,
				const double *order);

/**
 * gb_tree_check() - 0 if spanning, rooted at t->root and acyclic, else
 * -EINVAL (or -ENOMEM) with the first fault in the optional @why ("node 3
 * reached twice").
 */
int gb_tree_check(const struct gb_tree *t, struct gb_err *why);

/** gb_tree_equal() - 1 if same root, same parents and same send orders. */
int gb_tree_equal(const struct gb_tree *a, const struct gb_tree *b);

/**
 * gb_tree_order() - nodes in an order where every parent precedes its
 * children (breadth first from the root, children in send order).
 * @out: n entries.  Return: the number of nodes reached (n for a valid tree).
 */
int gb_tree_order(const struct gb_tree *t, int *out);

/**
 * gb_binomial() - MPICH's binomial broadcast tree (MPIR_Bcast_binomial)
 * over a group.
 * @members: k node indices; members[r] has relative rank r, so members[0]
 *           is the group's root.  Callers list the group in rank order
 *           rotated to the root, as MPICH does with (rank - root) mod p.
 * @parent:  parent[members[r]] is set for r >= 1 (members[0] is untouched).
 * @key:     send-order keys for gb_tree_from_parents(): a node's children
 *           get key_base + 0, key_base + 1, ... in MPICH's send order
 *           (largest mask first, i.e. largest subtree first).
 *
 *	relative rank r receives from r - 2^j where 2^j is r's lowest set bit,
 *	then sends to r + 2^i for 2^i = 2^(j-1) .. 1 while r + 2^i < k
 */
void gb_binomial(const int *members, int k, int *parent, double *key, double key_base);

/**
 * JSON in/out (docs/formats.md) and DOT export (clusters coloured and boxed,
 * wide-area edges bold red, other inter-cluster edges dashed blue).
 * gb_tree_save_json() writes atomically, or to stdout for @path "-", and
 * records the tree's predicted time under every cost model for @size.
 * gb_tree_load_json() maps node names through @m; why it failed goes to
 * @e (may be NULL).
 */
GB_WUR int gb_tree_save_json(const struct gb_tree *t, const struct gb_netmodel *m,
			     const char *algo, double size, const char *path);
GB_WUR int gb_tree_load_json(struct gb_tree *t, const struct gb_netmodel *m,
			     const char *path, struct gb_err *e);
GB_WUR int gb_tree_write_dot(const struct gb_tree *t, const struct gb_netmodel *m,
			     void *FILE_stream);

/* ------------------------------------------------------------------ */
/* Relabelling a tree for another root                                 */
/* ------------------------------------------------------------------ */

/**
 * gb_relabel() - the node that plays node @v's part when a tree planned for
 * root @from is run from root @to: @from and @to swap places, every other
 * node keeps its own.  An involution, so it maps both ways.
 *
 * Why a swap and not a rotation (v -> v - from + to mod n, what a binomial
 * tree does): a planned tree encodes which node sits in which cluster;
 * a swap misplaces two nodes, a rotation moves almost every node into
 * another cluster's slot.  A tree planned for the real root is better
 * still, and is what gb_bcast_run() does; relabelling is for callers that
 * hold a tree planned for another root (a tree file, an advisor's cache).
 */
static inline int gb_relabel(int v, int from, int to)
{
	return v == from ? to : v == to ? from : v;
}

/**
 * gb_tree_relabel() - @in (rooted anywhere) relabelled by gb_relabel() to be
 * rooted at @root, send orders kept.  @out is initialised here (release it
 * with gb_tree_release()); @out == @in is not allowed.
 * Return: 0, -EINVAL (bad root or invalid @in) or -ENOMEM.
 */
GB_WUR int gb_tree_relabel(const struct gb_tree *in, int root, struct gb_tree *out);

/**
 * gb_tree_stripe() - stripe @s of a broadcast that sends alternate
 * segments down several trees (issue 14, gb_bcast_opts.stripes): @in with
 * the members of each group rotated by @s.  The members of group g >= 0
 * (group[v] == g) other than the root, in index order m_0 < ... < m_{k-1},
 * play each other's parts: m_i's place in @in goes to m_{(i + s) mod k}.
 * The root and nodes of group -1 keep theirs; @group NULL: every node is
 * -1.  With clusters for groups, a wide-area edge into a cluster lands on
 * another host in each stripe, so the stripes cross the wide area on
 * different TCP connections, each with its own window (GridFTP's parallel
 * streams, done by the tree); inside a cluster every host stays a relay.
 * @s = 0 (or a multiple of every group's size) gives a copy of @in.
 * @out is initialised here (release it with gb_tree_release()).
 * Return: 0, -EINVAL (invalid @in, @s < 0, @out == @in) or -ENOMEM.
 */
GB_WUR int gb_tree_stripe(const struct gb_tree *in, const int *group, int s,
			  struct gb_tree *out);

/* ------------------------------------------------------------------ */
/* Cost models                                                         */
/* ------------------------------------------------------------------ */

/**
 * A cost model predicts the completion time of broadcasting @size bytes
 * along @t: max over nodes of the time the node has the whole message,
 * counted from the root's start (docs/architecture.md, decision 4).
 * @arrival (optional, n entries) receives each node's time.
 */
typedef double (*gb_cost_fn)(const struct gb_netmodel *m, const struct gb_tree *t,
			     double size, double *arrival);

/** A cost model of a tree forwarding its message in segments of @seg bytes. */
typedef double (*gb_cost_seg_fn)(const struct gb_netmodel *m, const struct gb_tree *t,
				 double size, double seg, double *arrival);

struct gb_costmodel {
	const char *name;
	const char *summary;
	gb_cost_fn cost;
	gb_cost_seg_fn cost_seg; /**< the segmented schedule (issue 14); @seg <= 0: == cost */
	/** the striped schedule (gb_cost_contention_stripes()'s signature), NULL if the
	 *  model has none */
	double (*cost_stripes)(const struct gb_netmodel *m, const struct gb_tree *t, int k,
			       double size, double seg, double *arrival);
};

/** The registry of cost models ("mateescu", "plogp", "contention"). */
extern const struct gb_costmodel gb_costmodels[];
extern const int gb_ncostmodels;
const struct gb_costmodel *gb_costmodel_find(const char *name);

/*
 * The three models are also callable directly.  Each returns the
 * completion time, or NAN when the tree is invalid or memory runs out.
 *
 * mateescu:   one-port, children in send order; a send of u to v keeps u
 *             busy Delta(u,v) = o(u) + m/B(u,v) and v has the message
 *             Delta + L(u,v) after the send began (seed 000 s2.2, seed 003).
 * plogp:      seed 002 s2.1/s3.3 at cluster level; see cost.c for the exact
 *             accounting (wide-area sends first, then MPICH binomial over the
 *             cluster's group, which is T_j).
 * contention: flow-level simulation over routed links, flows sharing a
 *             link in inverse proportion to their round trips (weighted
 *             max-min); equals mateescu when no two transfers share a link.
 */
double gb_cost_mateescu(const struct gb_netmodel *m, const struct gb_tree *t, double size,
			double *arrival);
double gb_cost_plogp(const struct gb_netmodel *m, const struct gb_tree *t, double size,
		     double *arrival);
double gb_cost_contention(const struct gb_netmodel *m, const struct gb_tree *t, double size,
			  double *arrival);

/* ------------------------------------------------------------------ */
/* Segmented (pipelined) trees, issue 14: cost_pipe.c                  */
/* ------------------------------------------------------------------ */

/** Segment sizes gb_seg_choose() tries: GB_SEG_MIN, 2 x, 4 x ... bytes. */
#define GB_SEG_MIN 8192.0
/** Largest segment gb_seg_choose() picks by default: Open MPI's TCP eager
 *  limit (btl_tcp_eager_limit), so a segment never waits for a rendezvous
 *  handshake, which costs a wide-area round trip per segment. */
#define GB_SEG_MAX GB_NM_EAGER
/** Segments whose sends a node of libgridbcast's pipelined broadcast
 *  keeps in flight (collectives/bcast/bcast_pipe.c), and the window of the
 *  contention model's segmented schedule, which is that executor's. */
#define GB_PIPE_WINDOW 8
/** The most trees a striped broadcast sends its segments down (gb_tree_stripe()). */
#define GB_STRIPES_MAX 16
/** Most segments a prediction handles (its memory is n x count doubles). */
#define GB_SEG_MAX_COUNT 8192
/** gb_seg_choose() takes the largest segment predicted within this
 *  fraction of the best (and no segments within it of the best). */
#define GB_SEG_SLACK 0.05

/**
 * gb_cost_mateescu_seg() - gb_cost_mateescu() for a tree that forwards the
 * message in segments of @seg bytes (the last one shorter): each node
 * sends segment j to its children in send order, then segment j + 1, as
 * soon as it has it (cost_pipe.c has the exact schedule and choices).
 * @seg <= 0 or >= @size: unsegmented, equal to gb_cost_mateescu().
 * @m: the model for the whole message (gb_nm_for_size(@size)).
 * @arrival (optional, n entries): when each node has the whole message.
 * Return: the completion time, NAN for an invalid tree, more than
 * GB_SEG_MAX_COUNT segments, or no memory.
 */
double gb_cost_mateescu_seg(const struct gb_netmodel *m, const struct gb_tree *t,
			    double size, double seg, double *arrival);

/**
 * gb_seg_choose() - the segment size to broadcast @size bytes along @t:
 * of GB_SEG_MIN, 2 x GB_SEG_MIN, ... up to @max_seg (<= 0: GB_SEG_MAX),
 * each rounded down to whole elements of @elem bytes (from the smallest
 * power of two that keeps the count within GB_SEG_MAX_COUNT, which may
 * exceed @max_seg for messages above 512 MiB), the largest whose
 * gb_cost_mateescu_seg() is within GB_SEG_SLACK of the best; 0 (do not
 * segment) when no segment size beats the whole message by more than
 * GB_SEG_SLACK.  @pred (optional): the prediction for the choice.
 * Return: bytes per segment, or 0.
 */
double gb_seg_choose(const struct gb_netmodel *m, const struct gb_tree *t, double size,
		     double elem, double max_seg, double *pred);

/**
 * gb_cost_plogp_seg() - gb_cost_plogp() for the tree forwarding its message
 * in segments of @seg bytes: the pLogP tree (wide-area edges first, a
 * binomial in each group) under the schedule of gb_cost_mateescu_seg(),
 * each segment's send keeping its sender busy g(segment).  @seg <= 0 or
 * >= @size: equal to gb_cost_plogp().  NAN as gb_cost_mateescu_seg().
 */
double gb_cost_plogp_seg(const struct gb_netmodel *m, const struct gb_tree *t, double size,
			 double seg, double *arrival);

/**
 * gb_cost_contention_seg() - gb_cost_contention() for the tree forwarding
 * its message in segments of @seg bytes, in the schedule libgridbcast runs
 * (not one-port): each edge carries its segments one after another, one
 * flow each; a node's edges run at once, sharing its NIC and the routed
 * links (RTT-weighted max-min), with at most GB_PIPE_WINDOW segments in
 * flight; a flow starts o(u) after it may (cost_contention.c has the exact
 * rules).  A chain on private links equals gb_cost_mateescu_seg().
 * @seg <= 0 or >= @size: equal to gb_cost_contention().  NAN as
 * gb_cost_mateescu_seg().
 */
double gb_cost_contention_seg(const struct gb_netmodel *m, const struct gb_tree *t, double size,
			      double seg, double *arrival);

/**
 * gb_cost_contention_stripes() - gb_cost_contention_seg() for a striped
 * broadcast: segment j goes down tree j mod @k, gb_tree_stripe() of @t
 * with the model's clusters for groups (what libgridbcast's executor runs
 * with gb_bcast_opts.stripes = @k); a node forwards each segment as it
 * arrives, whichever tree brought it, once it has segment 0
 * (cost_contention.c has the rules).  @k = 1
 * is gb_cost_contention_seg(); a whole message (@seg <= 0 or >= @size)
 * goes down @t alone.  NAN as gb_cost_mateescu_seg(), and for @k outside
 * 1 .. GB_STRIPES_MAX.
 */
double gb_cost_contention_stripes(const struct gb_netmodel *m, const struct gb_tree *t, int k,
				  double size, double seg, double *arrival);

/**
 * gb_cost_all() - @pred[i] = gb_costmodels[i]'s prediction for @t, for
 * every model (gb_ncostmodels entries).  @seg > 0: the message went in
 * segments of @seg bytes, and each model predicts that schedule (its
 * cost_seg).
 */
void gb_cost_all(const struct gb_netmodel *m, const struct gb_tree *t, double size, double seg,
		 double *pred);

/**
 * gb_cost_predict() - model @c's prediction of @t: the whole message
 * (@seg <= 0), in segments of @seg bytes (its cost_seg), or those down
 * @stripes > 1 trees (its cost_stripes), NAN where @c has no such
 * schedule; @arrival (optional) as the model's function fills it.
 */
double gb_cost_predict(const struct gb_costmodel *c, const struct gb_netmodel *m,
		       const struct gb_tree *t, double size, double seg, int stripes,
		       double *arrival);

/**
 * gb_cost_all_stripes() - gb_cost_all() for segments that went down
 * @stripes trees (gb_tree_stripe()): a model's cost_stripes, NAN for a
 * model without one (the one-port models: they have no schedule of
 * several trees).  @stripes <= 1, or a whole message: gb_cost_all().
 */
void gb_cost_all_stripes(const struct gb_netmodel *m, const struct gb_tree *t, double size,
			 double seg, int stripes, double *pred);

/* ------------------------------------------------------------------ */
/* Cluster-level (pLogP) model, seed 002 s3.3                          */
/* ------------------------------------------------------------------ */

/**
 * struct gb_clmodel - a cluster of clusters seen from its coordinators.
 *
 * Cluster j is represented by its coordinator coord[j] (a node of the
 * netmodel, or -1 in synthetic models such as Fkaier's Tables 1-2).
 * L[i*nc+j] and g[i*nc+j] are the pLogP latency and gap g(m) between the
 * coordinators of i and j for the message size at hand; T[j] is the time
 * the coordinator of j needs to broadcast inside j (MPICH binomial).
 */
struct gb_clmodel {
	int nc;
	int root;        /**< cluster of the broadcast root */
	int *coord;      /**< nc entries: coordinator node, or -1 */
	int *nmcluster;  /**< nc entries: the netmodel's cluster index, or -1 */
	int *size;       /**< nc entries: nodes in the cluster */
	double *L;       /**< nc*nc, seconds */
	double *g;       /**< nc*nc, seconds, for the message size */
	double *T;       /**< nc, seconds */
};

GB_WUR int gb_clmodel_init(struct gb_clmodel *c, int nc);
void gb_clmodel_release(struct gb_clmodel *c);

/**
 * gb_clmodel_from_nm() - the cluster-level view of @m for a broadcast of
 * @size bytes from node @root.  Coordinators: @root for its own cluster,
 * the lowest-numbered node elsewhere (MagPIe's and MPICH-G2's choice).
 * T[j] = gb_binomial_time() over cluster j's nodes in index order rotated
 * to the coordinator.  Only clusters with at least one node are kept (a
 * pool's sub-model has many empty ones): cluster j of @c is cluster
 * nmcluster[j] of @m, in increasing order.
 */
GB_WUR int gb_clmodel_from_nm(struct gb_clmodel *c, const struct gb_netmodel *m, int root,
			      double size);

/**
 * gb_clmodel_gen_fkaier() - seed 002 s4.2: L, g and T drawn uniformly from
 * the intervals of Table 1 (@table 0: L 1-15 us, g 100-600 ms, T 200-3000
 * ms), Table 2 left (@table 1: L x5, g x5, T /5) or Table 2 right (@table 2:
 * x10, /10).  L and g are drawn per unordered pair (symmetric), T per
 * cluster; root is cluster 0; coord is -1.  Deterministic for @seed.
 */
GB_WUR int gb_clmodel_gen_fkaier(struct gb_clmodel *c, int nc, int table, uint64_t seed);

/**
 * gb_clmodel_cost() - makespan of a cluster schedule @ct (a tree over the
 * nc clusters, rooted at c->root, children in send order) under pLogP:
 * a coordinator is busy g per wide-area send and the receiver is ready
 * at send start + g + L.
 * @overlap: 0 - the coordinator makes its wide-area sends first and then
 *              starts the local broadcast: finish_j = (last WAN send done)
 *              + T_j.  This is what gb_tree_expand() trees do, and equals
 *              gb_cost_plogp() on the expanded tree.
 *           1 - the paper's accounting (s3.3, s4.2): finish_j = arrival_j +
 *              T_j, as if the local broadcast ran beside the wide-area sends.
 * @finish:  optional, nc entries.
 * Return: max_j finish_j, or NAN if @ct is not a valid tree over c->nc.
 */
double gb_clmodel_cost(const struct gb_clmodel *c, const struct gb_tree *ct, int overlap,
		       double *finish);

/**
 * gb_tree_expand() - expand a cluster schedule into a node tree (seed 002
 * s3.3): the coordinator of every cluster receives from the coordinator of
 * its parent cluster, sends to its child clusters' coordinators first (in
 * @ct's order), then runs MPICH's binomial over its cluster's nodes in index
 * order rotated to it.  @c must come from gb_clmodel_from_nm() on @m.
 * @out must be gb_tree_init()ed to (m->n, c->coord[c->root]), as a
 * planner's output is.
 */
GB_WUR int gb_tree_expand(struct gb_tree *out, const struct gb_netmodel *m,
			  const struct gb_clmodel *c, const struct gb_tree *ct);

/**
 * gb_binomial_time() - time for members[0] to broadcast @size bytes to
 * members[1..k-1] along gb_binomial() under the one-port pLogP rule
 * (sender busy gb_nm_gap(), receiver ready gap + L after the send began).
 * @arrival: optional, k entries, relative to members[0]'s start.
 */
double gb_binomial_time(const struct gb_netmodel *m, const int *members, int k, double size,
			double *arrival);

#ifdef __cplusplus
}
#endif
#endif
