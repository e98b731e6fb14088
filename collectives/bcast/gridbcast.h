/* SPDX-License-Identifier: MIT */
/*
 * gridbcast.h - libgridbcast: run the planners' broadcast trees with MPI
 * point-to-point (issue 4).
 *
 *	gb_bcast_tree()    the executor: one tree, any root, count, datatype
 *	gb_bcast_run()     by algorithm name: get the tree from its source
 *	                   (bcast_source.c: native, adaptive, a planner of the
 *	                   registry, plugin:PATH, external:PATH; docs/plugins.md),
 *	                   then execute; "native" is MPI's own MPI_Bcast
 *	gb_bcast_gather()  per-rank times to the root, after the broadcast
 *	MPI_Bcast          libgridbcast.so replaces it (PMPI), GRIDBED_BCAST
 *
 * How the tree reaches every rank (bcast_tree.c):
 *   - static planners (GB_PLAN_STATIC: binomial, flat, mpich-g2, magpie)
 *     are planned by every rank on its own from the topology, as MPICH-G2
 *     does from its RSL description: no bytes on the network;
 *   - the other planners (mateescu, the SA family, the pLogP family) plan
 *     from measurements, which only the root holds ($GRIDBED_MATRIX, else
 *     the topology's static model as a labelled fallback).  The root plans
 *     and the tree travels piggybacked on the broadcast: a header of
 *     30 + 4n bytes before the payload on every tree edge (bcast_core.h),
 *     counted in gb_bcast_timing.hdr_bytes;
 *   - GRIDBED_TREE_SHARED=1 (GB_BCAST_SHARED): the root writes the tree to
 *     a local file and the others read it.  On one box that hides the cost
 *     the papers pay, so it is an ablation, labelled "shared-file" in
 *     gb_bcast_info.tree_via.
 *
 * Node v of a tree is rank v of the communicator.  For MPI_COMM_WORLD the
 * rank order is the rank map's ($GRIDBED_RANKMAP), else the topology's host
 * order; a sub-communicator's ranks are translated to world ranks
 * (MPI_Group_translate_ranks) and its model is the world model restricted
 * to its hosts (gb_nm_sub()), in its own rank order.
 *
 * The topology comes from the rank map's "topology", else
 * $GRIDBED_TOPOLOGY, else $GRIDBED_RUNDIR/$GRIDBED_PREFIX/topology.yaml (the
 * copy `gridemu up` keeps).  Without any, trees are planned on a uniform
 * model (one cluster, equal links), labelled "uniform".
 *
 * Environment read by gb_bcast_opts_env() and libgridbcast.so:
 *   GRIDBED_BCAST       planner name, "adaptive" (below) or "native" (MPI_Bcast
 *                       only; default native)
 *   GRIDBED_BCAST_ISEND 1: Isend + Waitall instead of blocking sends
 *   GRIDBED_TREE_SHARED 1: the shared-file ablation above
 *   GRIDBED_SEED        planner seed (default 1)
 *   GRIDBED_BUDGET_MS   anytime planners' budget (default 0: the paper's
 *                       fixed iteration counts, deterministic)
 *   GRIDBED_SEGMENT     bytes per segment (K, M suffixes: 1024, 1048576),
 *                       0 for whole messages, "auto" (the default): the
 *                       root chooses (gb_bcast_opts.segment)
 *   GRIDBED_STRIPES     segmented broadcasts down this many trees, 1 (the
 *                       default) to 16, or that many by message size,
 *                       "SIZE:K,...[,K]" (gb_stripes_parse(); e.g.
 *                       "2M:4,1": 4 up to 2 MiB, 1 above)
 *                       (gb_bcast_opts.stripes)
 *   GRIDBED_MATRIX      the measured matrix (docs/formats.md) for the root
 *   GRIDBED_APPLOG      MPI_Bcast's application log (bcast_pmpi.c)
 *   GRIDBED_ADVISOR_DIR       "adaptive": gridadvisor's --out directory
 *   GRIDBED_ADVISOR_MAXAGE    "adaptive": a tree older than this many
 *                             seconds is stale (default 600: two gridmon
 *                             periods of the paper; x GRIDBED_DILATE on the
 *                             wall clock)
 *   GRIDBED_DILATE      the grid's time dilation k (gridemu mpirun sets it)
 *   GRIDBED_ADVISOR_FALLBACK  "adaptive": the planner used when no fresh
 *                             tree is there (default mpich-g2)
 *
 * "adaptive" (seed 000 s2.5) is not a planner: the root takes the tree
 * gridadvisor planned for the nearest size (gbadvisor.h), relabelled for
 * it and restricted to the job's hosts, and sends it in the header; with no
 * fresh tree it plans the fallback planner's and counts a fallback
 * (gb_bcast_adaptive_fallbacks()).  gb_bcast_info.tree_via says which:
 * "advisor", "advisor-oracle" (planned on gridmon --print-configured: an
 * ablation) or "fallback:<planner>".
 *   GRIDBED_BCAST_WAIT  "sleep": GB_BCAST_SLEEP (gb_bcast_wait()); "spin"
 *                       (default): MPI's own waiting
 *   GRIDBED_PHOENIX_TREES  `phoenix` at the root: take the tree phoenixd (the
 *                       real protocol) converged to from this directory
 *                       (phoenixd --out DIR, or DIR/initial, DIR/changed)
 *                       instead of simulating the protocol; no tree for the
 *                       root is an error, not a fallback.  Unset, the
 *                       simulation runs, labelled "phoenix_sim on ...
 *                       (fallback: no GRIDBED_PHOENIX_TREES)"
 *
 * Threads: one thread per process calls into the library (MPI_THREAD_SINGLE
 * or FUNNELED use).  Functions return 0 or a negative errno and print
 * nothing; gb_bcast_strerror() has the details of the last failure.
 */
#ifndef GRIDBED_GRIDBCAST_H
#define GRIDBED_GRIDBCAST_H

#include <mpi.h>
#include <stdint.h>

#include "bcast_core.h"
#include "gbplan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gb_bcast_opts.flags */
#define GB_BCAST_ISEND     (1u << 0)  /**< MPI_Isend to all children + Waitall */
#define GB_BCAST_PIGGYBACK (1u << 1)  /**< executor: the tree travels with the data */
#define GB_BCAST_SHARED    (1u << 2)  /**< gb_bcast_run: shared-file ablation */
#define GB_BCAST_SLEEP     (1u << 3)  /**< waits sleep in epoll_wait(2): gb_bcast_wait() */

/**
 * struct gb_bcast_opts - how to broadcast.  A zeroed struct (or NULL) means
 * blocking sends, static trees local, measured trees piggybacked, seed 0.
 */
struct gb_bcast_opts {
	unsigned flags;
	uint64_t seed;          /**< planner seed */
	double budget_s;        /**< anytime planners' budget, <= 0: paper default */
	double segment;         /**< bytes per segment at the root (below) */
	struct gb_stripes stripes; /**< trees a segmented message goes down, by size (below) */
};

/**
 * gb_bcast_opts.segment: 0 sends whole messages (the papers' schedule);
 * > 0 cuts the root's message into segments of that many bytes, rounded
 * down to whole elements (at least one), forwarded pipelined
 * (bcast_pipe.c); GB_SEG_AUTO (gbcore.h) lets gb_bcast_run() choose per
 * broadcast from the size, the tree and the model it planned on
 * (gb_seg_choose(), Mateescu's model of the segmented schedule).  Only the
 * root's value counts: the others learn the segment size from what
 * arrives.  gb_bcast_tree() takes GB_SEG_AUTO as 0.
 *
 * gb_bcast_opts.stripes: k = gb_stripes_for(&stripes, message bytes), a
 * table by size that every rank reads with its own message size (which MPI
 * requires to be the root's).  k = 1 sends every segment down the one tree;
 * k in 2 .. GB_STRIPES_MAX sends segment j down stripe j mod k, the
 * tree with every cluster's hosts other than the root rotated by j mod k
 * (gb_tree_stripe(); clusters from the model of the ranks, so it needs the
 * rank map or a topology).  Where the tree crosses the wide area into a
 * cluster, each stripe crosses on another pair of hosts, so a site takes
 * the message over k TCP connections whose windows open together after
 * an idle time, where one connection restarts from a small window
 * (docs/measurements.md, issue 14; the parallel streams of GridFTP).
 * Whole messages ignore it.  A piggybacked tree carries it (with the
 * clusters) from the root; a static tree needs the same value on every
 * rank, as it needs the same planner.  The contention model predicts the
 * striped schedule (gb_cost_contention_stripes()); the one-port models,
 * which have no schedule of several trees, do not (NAN).  The segment
 * size GB_SEG_AUTO chooses is stripe 0's (gb_seg_choose()).
 */

/**
 * gb_bcast_opts_env() - options from the GRIDBED_* environment (above).
 * Return: 0, or -EINVAL for a GRIDBED_SEGMENT that is not a size or a
 * GRIDBED_STRIPES that gb_stripes_parse() does not take (@o then holds
 * every other setting, with segment GB_SEG_AUTO or one stripe).
 */
int gb_bcast_opts_env(struct gb_bcast_opts *o);

/**
 * struct gb_bcast_timing - what one rank saw of one broadcast
 * (CLOCK_MONOTONIC seconds; see struct gb_bcast_rankrec for each field).
 * @child_start: comm-size entries, by rank: when this rank began its send
 *               to that rank, INFINITY for ranks that are not its
 *               children; NULL for native.  Points into the library's
 *               per-communicator storage: valid until the next broadcast
 *               on the communicator.
 */
struct gb_bcast_timing {
	double t_begin;
	double t_recv_done;
	double t_send_done;
	double t_send_start;
	int parent;
	int nchild;
	uint64_t hdr_bytes;
	const double *child_start;
	uint64_t seg_bytes;     /**< bytes per segment, 0: the whole message */
	int stripes;            /**< trees the segments went down (1: one) */
};

/**
 * gb_bcast_tree() - broadcast along @t.
 *
 * Every rank receives the whole message from its parent, then sends it to
 * its children in the tree's order (the one-port model of the cost models,
 * seed 000 s2.2, seed 003 slide 3):
 *
 *	if rank != root:  [hdr = recv(ANY)]  recv(buf, count, dt) from parent
 *	for c in children(rank), in send order:
 *	        [send(hdr) to c]  send(buf, count, dt) to c      (blocking)
 *	or      isend all of them, then waitall               (GB_BCAST_ISEND)
 *
 * ([hdr] only with GB_BCAST_PIGGYBACK.)  buf/count/dt go to MPI as given,
 * so any datatype works, derived ones included; count 0 still walks the
 * tree (a zero-byte message per edge), so timings stay comparable.
 *
 * With @o->segment > 0 at the root (fewer elements than @count per
 * segment), the message travels in segments, pipelined: a node forwards
 * segment j to its children in send order while segment j + 1 arrives
 * (non-blocking, a window of 8 segments; bcast_pipe.c).  Every rank must
 * then pass a datatype of the same size (the same datatype does).
 *
 * @t: nodes are the ranks of @comm (t->n == comm size).  Without
 *     GB_BCAST_PIGGYBACK every rank passes the same tree; with it only the
 *     root's @t is read (others may pass NULL) and the others learn the
 *     tree from the header.  When t->root != @root the tree is relabelled
 *     by swapping t->root and @root (gb_relabel(): the rest keep their
 *     places).
 * @o:  NULL for defaults; only flags matter here.
 * @tm: optional; filled on every rank.
 *
 * Messages travel on a private duplicate of @comm (made on the first call,
 * collectively; freed with @comm or at MPI_Finalize) with a tag per
 * broadcast, so they never mix with the application's messages nor with
 * the next broadcast's.  The first call's MPI_Comm_dup happens before
 * t_begin.
 * Return: 0, -EINVAL (bad arguments or tree), -EPROTO (a bad header
 * arrived), -EIO (MPI failed) or -ENOMEM.  An error on one rank can leave
 * the others blocked: callers abort the job (gridbcast, MPI_Bcast do).
 */
int gb_bcast_tree(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
		  const struct gb_tree *t, const struct gb_bcast_opts *o,
		  struct gb_bcast_timing *tm);

/**
 * gb_bcast_wait() - wait for @req like MPI_Wait, or, with GB_BCAST_SLEEP in
 * @flags, asleep.
 *
 * Why: OpenMPI's TCP transport makes progress only inside MPI calls, so its
 * MPI_Wait spins (with mpi_yield_when_idle, a sched_yield per turn).  With
 * many ranks per core, every waiting rank stays runnable and takes the CPU
 * from the few ranks that have a message to forward and from the
 * emulator's delay line (docs/measurements.md has 168 ranks on 2 cores).
 * GB_BCAST_SLEEP instead alternates MPI_Test with epoll_wait(2) for input
 * on the process's own sockets (found in /proc/self/fd), so a waiting rank
 * sleeps until data arrives on any of them (MPI's connections, its
 * listening socket), then lets MPI progress.  Sleeps time out after about
 * 1 ms, doubling up to GB_BCAST_SLEEP_MS (each drawn from [t/2, t] so that
 * ranks do not wake in step), in case MPI waits on something that is not
 * input on a socket.  MPICH's ch3:sock device blocks in poll() the same
 * way.  Sends wait the same way with sleeps of at most
 * GB_BCAST_SEND_SLEEP_MS (bcast_impl.h: gb_bcast_send, gb_bcast_waitall),
 * since output that waits for a socket to drain is only retried at the
 * timeouts (bcast_wait.c gives the choices).  One thread per process.
 * Return: 0 or -EIO (MPI failed).
 */
int gb_bcast_wait(MPI_Request *req, MPI_Status *st, unsigned flags);

/** Longest single sleep of gb_bcast_wait(), in ms. */
#define GB_BCAST_SLEEP_MS 200
/** Longest single sleep of a send's wait (gb_bcast_send), in ms. */
#define GB_BCAST_SEND_SLEEP_MS 2

/**
 * gb_bcast_barrier() - MPI_Barrier on @comm, waiting as gb_bcast_wait()
 * with @flags (MPI_Ibarrier).  Return: 0 or -EIO.
 */
int gb_bcast_barrier(MPI_Comm comm, unsigned flags);

/**
 * gb_bcast_native() - PMPI_Bcast (MPI's own algorithm, even when this
 * library is preloaded) with timing: t_recv_done = t_send_done = its
 * return, parent unknown.
 */
int gb_bcast_native(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
		    struct gb_bcast_timing *tm);

/**
 * struct gb_bcast_info - how gb_bcast_run()/gb_bcast_prepare() got the tree.
 * @tree_via: "local" (static planner), "piggyback", "shared-file"
 *            (ablation), "native", or for "adaptive" at the root
 *            "advisor", "advisor-oracle" or "fallback:<planner>" (valid
 *            until the next adaptive broadcast on the communicator)
 * @model:    what the tree was planned from, e.g. "topology
 *            topologies/two-clusters.yaml", "matrix m.json v17",
 *            "topology ... (fallback: no GRIDBED_MATRIX)", "uniform"
 * @tree:     the tree, at the root (everywhere for local and shared-file);
 *            NULL otherwise.  Owned by the library's per-communicator
 *            cache: valid until the next gb_bcast_run() on @comm.
 * @plan_s:   time this rank spent planning (0 when the tree was cached)
 */
struct gb_bcast_info {
	const char *tree_via;
	char model[256];
	const struct gb_tree *tree;
	double plan_s;
};

/**
 * gb_bcast_prepare() - get the tree gb_bcast_run() will use for (@algo,
 * @root, @size bytes) into the per-communicator cache, so that planning
 * stays out of a measured interval.  Collective (every rank of @comm calls
 * it with the same arguments).  "native" does nothing.
 * Return: 0, -ENOENT (unknown planner), or what planning returned.
 */
int gb_bcast_prepare(const char *algo, int root, double size, MPI_Comm comm,
		     const struct gb_bcast_opts *o, struct gb_bcast_info *info);

/**
 * gb_bcast_run() - broadcast with planner @algo (gb_planner_resolve(): a name
 * of the registry, plugin:PATH or external:PATH; a plugin that fails at the
 * root gives a labelled fallback tree, docs/plugins.md),
 * "adaptive" (the advisor's tree, see above; looked up at every call) or
 * "native".  Trees are cached per communicator by (planner, root, size,
 * matrix file's modification time): the first call plans.
 * @info, @tm: optional.
 */
int gb_bcast_run(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
		 const char *algo, const struct gb_bcast_opts *o, struct gb_bcast_timing *tm,
		 struct gb_bcast_info *info);

/**
 * gb_bcast_gather() - collective, after a broadcast: every rank's record to
 * @root's @out (comm-size entries; ignored elsewhere), with each rank's
 * parent_send_start taken from its parent's child_start (one MPI_Reduce
 * with MPI_MIN).  Not part of any measured interval.
 */
int gb_bcast_gather(const struct gb_bcast_timing *tm, int root, MPI_Comm comm,
		    struct gb_bcast_rankrec *out);

/**
 * gb_bcast_predict() - predicted completion time of @t for @size bytes under
 * every cost model (gb_costmodels[] order, gb_ncostmodels entries; NAN
 * where not computable), on the same model for every algorithm: the
 * matrix ($GRIDBED_MATRIX) if there is one, else the topology's.  @seg > 0:
 * the message went in segments of @seg bytes, and every model predicts
 * that schedule (gb_cost_all(), each model's cost_seg); down @stripes
 * trees when more than 1 (gb_cost_all_stripes(): NAN for the one-port
 * models).  @label (optional) names it.  Local (no communication).
 */
int gb_bcast_predict(MPI_Comm comm, const struct gb_tree *t, double size, double seg,
		     int stripes, double *pred, char *label, size_t labellen);

/**
 * gb_bcast_comm_hosts() - topology host index of every rank of @comm
 * (comm-size entries; -1 when there is no topology).  Local, except that
 * the first call on @comm is collective (it duplicates @comm).
 */
int gb_bcast_comm_hosts(MPI_Comm comm, int *hosts);

/**
 * gb_bcast_topology() - the topology the library loaded, or NULL (none, or
 * not loaded yet: any gb_bcast_* call on a communicator loads it).
 */
const struct gb_topo *gb_bcast_topology(void);

/**
 * struct gb_bcast_adaptive_stats - this process's adaptive broadcasts as
 * their root (other ranks only receive the tree, and count nothing).
 * @calls:     broadcasts with "adaptive" it was the root of (prepare
 *             included: each call looks for a tree)
 * @advisor:   of these, served by an advisor tree
 * @fallbacks: of these, served by $GRIDBED_ADVISOR_FALLBACK's tree
 * @last_why:  why the last fallback happened ("no tree files in 'd'",
 *             "nearest tree 'd/tree-1024.json' is 700 s old (max 600 s)")
 */
struct gb_bcast_adaptive_stats {
	uint64_t calls, advisor, fallbacks;
	char last_why[256];
};

/** gb_bcast_adaptive_stats() - a copy of the counts above. */
void gb_bcast_adaptive_stats(struct gb_bcast_adaptive_stats *s);

/**
 * gb_bcast_adaptive_fallbacks() - how many adaptive broadcasts this process
 * rooted found no fresh advisor tree and used the fallback planner.
 */
uint64_t gb_bcast_adaptive_fallbacks(void);

/** gb_bcast_strerror() - a one-line description of the last failure. */
const char *gb_bcast_strerror(void);

/**
 * gridbcast_last_timing() - the calling rank's times in its last MPI_Bcast
 * through the PMPI wrapper (libgridbcast.so only, bcast_pmpi.c), for
 * programs that time MPI_Bcast themselves and want to know when the
 * message reached each rank and when each edge began, i.e. per-edge times
 * (synthapp/synthapp.c; it finds the symbol with dlsym(RTLD_DEFAULT),
 * so that it also runs without the library).  @out->child_start stays
 * valid until the next broadcast on that communicator.
 * Return: 0, or -1 when the last call ran no tree of ours (native, an
 * intercommunicator, or no call yet).
 */
int gridbcast_last_timing(struct gb_bcast_timing *out);

#ifdef __cplusplus
}
#endif
#endif
