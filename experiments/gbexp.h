/* SPDX-License-Identifier: MIT */
/*
 * gbexp.h - libgbexp: experiment campaigns (issue 6).  A campaign file
 * (docs/formats.md, "Campaign file") describes a whole experiment:
 * topology, backend, algorithms, the synthetic application's pattern, load
 * conditions, seeds, repetitions and one time scale.  `gridexp` runs it
 * (runner.c), summarises and plots the results (report.c) and checks
 * expectations against them (check.c).  This header is the part tests and
 * the CLI share.
 *
 * Conventions: functions return 0 or a negative errno and print nothing;
 * bad input is a struct gb_diag "file:line:col: message", and any other
 * reason a user must read one line in the optional struct gb_err @err
 * (util/gbutil.h; NULL: no words wanted).
 */
#ifndef GRIDBED_GBEXP_H
#define GRIDBED_GBEXP_H

#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "appsched.h"
#include "bcast_core.h"
#include "gbload.h"
#include "gbtopo.h"
#include "gbutil.h"
#include "gxfile.h"
#include "summary.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GX_MAX_ALGOS 32
#define GX_MAX_CONDS 8
#define GX_NAME_MAX 48

/** The planner the paper's adaptive broadcast uses through the advisor. */
#define GX_ADVISOR_PLANNER "clustered-sa"
/** The reference algorithm of the improvement statistics (seed 000 s3). */
#define GX_REFERENCE "mpich-g2"

/**
 * struct gx_algo - one algorithm of a campaign.
 * @label:   as written ("mpich-g2", "native", "adaptive", "adaptive:mateescu",
 *           "mpich-g2@64K")
 * @bcast:   the GRIDBED_BCAST value: a planner, "native" or "adaptive"
 * @planner: adaptive: the advisor's planner; else = @bcast
 * @monitor: needs gridmon's matrices (a measured planner, or adaptive)
 * @advisor: needs gridadvisor (adaptive)
 * @segment: the GRIDBED_SEGMENT value: bytes per segment, 0 whole
 *           messages, GB_SEG_AUTO the root's choice; from the label's
 *           "@SEGMENT", else the application's `segment`
 * @stripes: the GRIDBED_STRIPES value: the trees a segmented message goes
 *           down, by its size (struct gb_stripes); from the label's
 *           "@SEGMENT:K" (one number for every size), else the
 *           application's `stripes` (a number or a table).  .rest == 0
 *           while the label has not said.
 */
struct gx_algo {
	char label[GX_NAME_MAX];
	char bcast[GX_NAME_MAX];
	char planner[GX_NAME_MAX];
	int monitor, advisor;
	double segment;
	struct gb_stripes stripes;
};


enum gx_load_kind {
	GX_LOAD_NONE = 0,
	GX_LOAD_RANDOM,      /**< the paper's random generator (gb_load_random()) */
	GX_LOAD_SCHEDULE,    /**< explicit intervals: a schedule file or inline loads */
};

/**
 * struct gx_cond - one load condition: every algorithm and repetition runs
 * once under each condition.
 * @sched, @sched_len, @sched_name: for GX_LOAD_SCHEDULE, the schedule's
 *   YAML (a file's content, or the campaign's inline `loads:` re-based so
 *   that libgbload's diagnostics point into the campaign file) and the name
 *   its diagnostics use.
 */
struct gx_cond {
	char name[GX_NAME_MAX];
	int kind;                 /**< enum gx_load_kind */
	int mode;                 /**< enum gb_load_mode */
	char target[GX_NAME_MAX]; /**< random: the target cluster */
	int on;                   /**< random: enum gb_load_on (`on: pair | uplink`) */
	double horizon;           /**< random: paper seconds (0: libgbload's default) */
	char *sched;
	size_t sched_len;
	char sched_name[PATH_MAX];
	struct gb_tcp_set tcp;    /**< `tcp:`: the hosts' stack during this condition's runs,
				       over the topology's (.set == 0: the topology's) */
	int procs;                /**< `procs:`: the ranks of this condition's runs, 2 ..
				       the topology's hosts (0: every host; gx_cond_hosts()) */
};

/** struct gx_app - the synthetic application (seed 000 s3). */
struct gx_app {
	char root[GX_NAME_MAX];   /**< the broadcasts' root host */
	struct gx_pattern pat;
	int warmup;               /**< connect every pair before the first broadcast */
	int fail_rank, fail_at;   /**< test knob: rank exits at broadcast index; -1: off */
	char fail_algo[GX_NAME_MAX]; /**< "" = every algorithm */
	int start_clock;          /**< `start: clock`: every rank calls at the planned time, no barrier */
	int wait_sleep;           /**< `wait: sleep`: libgridbcast's ranks wait asleep (GRIDBED_BCAST_WAIT) */
	double segment;           /**< `segment`: every algorithm's unless its label says (GB_SEG_AUTO) */
	struct gb_stripes stripes; /**< `stripes`: K or SIZE:K,...[,K]; every algorithm's unless
					its label says (1) */
};

/**
 * enum gx_order - which rank each host gets (campaign key `ranks`).
 * @GX_ORDER_TOPOLOGY:   the topology's host order (gridemu mpirun's default)
 * @GX_ORDER_SHUFFLE:    the application's root first, the other hosts in a
 *                       seeded random order: the cluster-unaware rank order
 *                       of seed 001 s4.2's "imitation of MPICH"
 * @GX_ORDER_INTERLEAVE: the root first, then the other hosts dealt round
 *                       robin over the clusters (the worst order for a
 *                       binomial tree: every neighbour in another cluster)
 */
enum gx_order { GX_ORDER_TOPOLOGY = 0, GX_ORDER_SHUFFLE, GX_ORDER_INTERLEAVE };

/** struct gx_ranks - the campaign's `ranks` key. */
struct gx_ranks {
	int order;                /**< enum gx_order */
	uint64_t seed;            /**< shuffle: the PRNG seed (default: the campaign's) */
	int seed_set;             /**< the file gave `ranks: seed` */
};

/**
 * struct gx_phoenixd - phoenixd's options (campaign key `phoenixd`), for a
 * campaign with algorithm `phoenix`.  0 leaves an option to gridexp's rule
 * for the grid's size (docs/formats.md) or to phoenixd's default.
 */
struct gx_phoenixd {
	int round_ms;             /**< the round in the topology's time (phoenixd's --round-ms) */
	int wall_round_ms;        /**< the round on the wall clock (round_ms x k); one of
				       the two at most */
	int serial_every, coalesce_ms, fanout;
	double timeout;           /**< real seconds */
};

/** The shortest round gx_phoenixd_settings() derives from a wall-clock one, ms of topology time. */
#define GX_PHOENIXD_ROUND_FLOOR_MS 200

/**
 * struct gx_phoenixd_set - what phoenixd runs with in one session on a grid
 * dilated k times (gx_phoenixd_settings()): phoenixd deals in the topology's
 * time (collectives/phoenix/phoenixd.h), so its round, coalescing and
 * timeout are k times longer on the wall clock.
 */
struct gx_phoenixd_set {
	int round_ms;             /**< topology time: phoenixd --round-ms */
	double wall_round_ms;     /**< round_ms x k: the wall clock's round */
	int serial_every;         /**< phoenixd --serial-every */
	double coalesce_ms;       /**< topology time: phoenixd --coalesce-ms */
	int fanout;               /**< phoenixd --fanout; 0: phoenixd's default */
	double timeout_s;         /**< real seconds */
	double dilate;            /**< the k it was set for */
};

/** struct gx_monitor - gridmon's options (docs/formats.md). */
struct gx_monitor {
	double period;            /**< paper seconds (gridmon scales it) */
	char bytes_per_probe[32]; /**< "" = gridmon's default */
	char max_bytes[32];       /**< "" = none */
	int rtt_count;            /**< 0 = gridmon's default */
	int concurrency;          /**< pairs per stage; -1 = gridmon's default */
	int fixed;                /**< transfer: fixed (1) or steady (0) */
	double publish_change;    /**< < 0 = gridmon's default */
	int sites_free;           /**< `sites_free: true`: gridmon --sites-free (no site
				       access link is a shared bottleneck; mon_sched.c) */
	int duplex;               /**< `duplex: true`: gridmon --duplex (a pair holds only
				       the link directions its data take; mon_sched.c) */
	int warm;                 /**< `warm: true`: gridmon --warm (a pair's connection
				       starts with its last reading's window; emulator/grid/probe_warm.c) */
	int oracle;               /**< 1: no gridmon; the emulator's configuration with the
				       loads that are on (gridexp_oracle.c; issue 13's ablation) */
};

/**
 * struct gx_plugin - a planner or a broadcast the campaign brings
 * (`planners:`, docs/plugins.md): @name, the label its algorithms use,
 * stands for @spec, "plugin:PATH", "external:PATH" (a planner) or
 * "library:PATH" (the user's own MPI_Bcast, a PMPI library preloaded into
 * the ranks instead of libgridbcast.so), PATH absolute (resolved against the
 * campaign file's folder, and checked, at load).
 */
struct gx_plugin {
	char name[GX_NAME_MAX];
	char spec[PATH_MAX + 16];
};

/** The planners one campaign may bring. */
#define GX_MAX_PLUGINS 8

/** struct gx_campaign - a parsed and validated campaign file. */
struct gx_campaign {
	char name[GX_NAME_MAX];
	char path[PATH_MAX];      /**< the campaign file as given */
	char topology[PATH_MAX];  /**< resolved against the campaign file's folder */
	char backend[16];
	double scale;
	double dilate;            /**< time dilation k of the grid (`dilate:`, default 1;
				       docs/architecture.md, decision 9) */
	int repetitions;
	uint64_t seed;
	struct gx_algo algos[GX_MAX_ALGOS];
	int nalgos;
	struct gx_app app;
	struct gx_cond conds[GX_MAX_CONDS];
	int nconds;
	struct gx_monitor monitor;
	struct gx_ranks ranks;
	struct gx_phoenixd phoenixd;
	char advisor_planner[GX_NAME_MAX];
	struct gx_plugin plugins[GX_MAX_PLUGINS];
	int nplugins;
	double timeout;           /**< per run, real seconds; 0: automatic */
	struct gb_topo *topo;     /**< the topology, loaded */
	char *text;               /**< the file's bytes (copied into the results) */
	size_t text_len;
};

/**
 * gx_campaign_load() - read and validate a campaign file: syntax, keys,
 * values, algorithm names (the planner registry, native, adaptive[:P]),
 * the topology (loaded with libgbtopo), host names and load schedules
 * (libgbload, against the topology).  @c is initialised here.
 * Return: 0, -EINVAL (@d: "file:line:col: message"), -ENOMEM or -errno.
 */
int gx_campaign_load(const char *path, struct gx_campaign *c, struct gb_diag *d);

/**
 * gx_campaign_set_seed() - the campaign's seed becomes @seed (`gridexp run
 * --seed`, a resumed run's), and so does the rank order's unless the file
 * gave `ranks: seed` of its own: a shuffled order is drawn from the seed a
 * run is made with, not from the one the file was written with.
 */
void gx_campaign_set_seed(struct gx_campaign *c, uint64_t seed);

/** gx_campaign_parse() - the same from a buffer; @path names it and anchors relative paths. */
int gx_campaign_parse(const char *buf, size_t len, const char *path, struct gx_campaign *c,
		      struct gb_diag *d);

/** gx_campaign_release() - free; safe on a zeroed struct and twice. */
void gx_campaign_release(struct gx_campaign *c);

/**
 * gx_campaign_schedule() - the load schedule of condition @cond for
 * repetition @rep (1-based: seed + rep - 1), at the campaign's scale,
 * resolved (gbload.h).  GX_LOAD_NONE gives an empty schedule.
 * Return: 0 or as libgbload (@d explains).
 */
int gx_campaign_schedule(const struct gx_campaign *c, int cond, int rep,
			 struct gb_load_sched *s, struct gb_diag *d);

/**
 * gx_campaign_spec() - what a planner name of the campaign stands for where
 * gridbed's programs take a planner (GRIDBED_BCAST, gridadvisor --planner):
 * the spec of the campaign's plugin called @name, else @name itself.
 */
const char *gx_campaign_spec(const struct gx_campaign *c, const char *name);

/**
 * gx_campaign_library() - the PMPI library (absolute path) that the
 * campaign's broadcast called @name stands for (`NAME: library:PATH`), or
 * NULL when @name is not one.
 */
const char *gx_campaign_library(const struct gx_campaign *c, const char *name);

/** gx_campaign_algo() - index of algorithm @label, or -1. */
int gx_campaign_algo(const struct gx_campaign *c, const char *label);

/**
 * gx_campaign_needs_monitor() - 1 when any of @c's algorithms plans from
 * measurements.  Then gridmon runs through every run of the campaign,
 * whichever runs --only or --task selects: every algorithm's broadcasts share
 * its probe traffic, also when a campaign is run in parts.
 */
int gx_campaign_needs_monitor(const struct gx_campaign *c);

/** gx_campaign_needs_advisor() - 1 when an algorithm selected in @use (NULL: all) needs the advisor. */
int gx_campaign_needs_advisor(const struct gx_campaign *c, const int *use);

/**
 * gx_campaign_needs_phoenixd() - 1 when an algorithm selected in @use
 * (NULL: all) is the planner `phoenix`: its trees come from phoenixd, the
 * real protocol, run by gridexp on the campaign's grid before the runs.
 */
int gx_campaign_needs_phoenixd(const struct gx_campaign *c, const int *use);

/**
 * gx_phoenixd_settings() - phoenixd's settings for @c's grid dilated @dilate
 * (>= 1) times: the campaign's `phoenixd:` options, the rest by rule
 * (docs/formats.md, `phoenixd`).  The rule's figures are the box's: how many
 * datagrams a second the userspace delay line carries is a wall-clock limit,
 * not the protocol's or the paper's (which gives no round), so a round's
 * default is set on the wall clock, 2000 ms above 16 hosts and 200 ms up to
 * 16, and the topology's round is that / k, but not below
 * GX_PHOENIXD_ROUND_FLOOR_MS (phoenixd's own default round, what grids of
 * up to 16 hosts run at every k) unless the wall-clock round itself is
 * shorter.  `round_ms` gives the topology's round instead.  Then a serial
 * every 2 rounds above 16 hosts (else 1), serials batched for 1/200 of a
 * round above 16 hosts and 1/100 up to 16 (10 ms of 2000, 2 ms of 200), and
 * a timeout of 900 rounds above 16 hosts, 600 up to 16 (30 min and 2 min at
 * k = 1), on the wall clock.  Pure: no I/O.
 * Return: 0, or -EINVAL (@dilate below 1, both rounds given).
 */
int gx_phoenixd_settings(const struct gx_campaign *c, double dilate, struct gx_phoenixd_set *s);

/**
 * gx_rank_hosts() - the topology's host indices in rank order (rank i runs
 * on host @hosts[i]), as the campaign's `ranks` key says.  Deterministic:
 * the shuffle draws from gb_rng seeded with ranks.seed.  @hosts has room
 * for c->topo->nhosts entries.
 * Return: the number of hosts.
 */
int gx_rank_hosts(const struct gx_campaign *c, int *hosts);

/**
 * gx_cond_hosts() - the hosts of condition @cond's runs in rank order: with
 * the condition's `procs: N`, the application's root and the first N - 1
 * other hosts of gx_rank_hosts()'s order, in that order (the first N hosts
 * of a shuffle or an interleave, whose rank 0 is the root; under the
 * topology's order the root keeps its place among them); without, every
 * host as gx_rank_hosts() gives them.  @hosts has room for
 * c->topo->nhosts entries.
 * Return: the number of ranks, or -ENOMEM.
 */
int gx_cond_hosts(const struct gx_campaign *c, int cond, int *hosts);

/** gx_order_name() - "topology", "shuffle" or "interleave". */
const char *gx_order_name(int order);

/**
 * struct gx_wan_check - what gx_wan_check() found in one tree file.
 * @valid:    a spanning tree of every host of the topology, rooted where
 *            the file says, with no cycle
 * @optimal:  wide-area optimal (seed 001 s2, after MagPIe): exactly one tree
 *            edge from another cluster into each cluster but the root's,
 *            none into the root's; so every data item crosses into each
 *            cluster once
 * @wan_edges: tree edges between clusters
 * @why:      the first reason it is not valid or not optimal ("" if it is)
 */
struct gx_wan_check {
	int valid, optimal, wan_edges;
	char root[GX_NAME_MAX];
	char why[256];
};

/**
 * gx_wan_check() - check the tree file @path (the gridbed-tree JSON that
 * phoenixd and gridtree write: "root", "nodes", "parent" by host name)
 * against topology @t, independently of whoever wrote it.
 * Return: 0 (@w filled, whatever it found), -ENOENT, -EINVAL (not a tree
 * file; @w->why says why), -ENOMEM.
 */
int gx_wan_check(const struct gb_topo *t, const char *path, struct gx_wan_check *w);

/**
 * struct gx_mon_share - what the monitor's own probes took of the wide-area
 * links during one run (gx_monitor_share()).
 * @bytes:    probe bytes attributed to the run's window
 * @max:      the largest share of one wide-area direction's capacity,
 *            averaged over the run (0 .. 1; 0 with no probe)
 * @link:     that direction, "A>B" ("" with no probe)
 * @probes:   probes that overlapped the window
 */
struct gx_mon_share {
	double bytes, max;
	char link[2 * GX_NAME_MAX + 2];
	int probes;
};

/**
 * gx_monitor_share() - the share of each wide-area direction (a link
 * between two routers or hubs) that gridmon's probes took while a run was
 * on (issue 44: "the monitor's own traffic takes at most 10 % of any
 * wide-area link's capacity, averaged over a period, and every run records
 * the figure"), from its probe log @probes (docs/formats.md, one row per
 * probe, on the monotonic clock) and topology @t: a probe's bytes go to
 * every direction of its routed path from src to dst (its ACKs and echo
 * replies, which go back, are counted on the way out: an upper bound),
 * pro rata to the part of [t_begin, t_end] inside [@t0, @t1] (wall
 * seconds); a direction's share is its bytes x 8 / (its wire rate, rate /
 * @dilate, x (t1 - t0)).  If @csv is not NULL, one row per wide-area
 * direction goes there (link,dir,rate_bps,bytes,share).
 * Return: 0 (@s filled), -ENOENT (no probe log), -EINVAL (not one), -errno.
 */
int gx_monitor_share(const struct gb_topo *t, const char *probes, double t0, double t1,
		     double dilate, const char *csv, struct gx_mon_share *s);

/** gx_campaign_json() - the campaign's parameters as JSON (for meta.json). */
json_t *gx_campaign_json(const struct gx_campaign *c);

/**
 * gx_run_id() - the run's directory name: "<condition>-<algorithm>-r<rep>"
 * with characters outside [A-Za-z0-9_.-] of the label replaced by '_'.
 */
void gx_run_id(const struct gx_campaign *c, int cond, int algo, int rep, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Results (report.c)                                                   */
/* ------------------------------------------------------------------ */

/**
 * gx_report() - the summary and plots of results directory @dir, from its
 * files alone (meta.json and the complete runs): writes summary.json,
 * summary.txt and the PNGs (atomically), and prints the summary to @out
 * (may be NULL).  @s (optional) receives the summary (release it).
 * @plots: 0 to skip gnuplot.  @err: a one-line reason on failure.
 * Return: 0, -ENOENT (not a results directory), -EINVAL, -errno.
 */
int gx_report(const char *dir, int plots, FILE *out, struct gx_summary *s, struct gb_err *err);

/**
 * gx_results_algos() - the algorithm labels of results directory @dir (its
 * meta.json), at most @max, into @labels; reads nothing else and writes
 * nothing (gridexp check names an expectation's algorithms with them
 * before gx_report() rewrites the summary).
 * Return: the number of labels, -ENOENT (not a results directory; @err),
 * -EINVAL (@err), -errno.
 */
int gx_results_algos(const char *dir, char (*labels)[GX_NAME_MAX], int max, struct gb_err *err);

/**
 * gx_report_pool() - one summary over results directories @dirs[0 ..
 * @ndirs-1] of the same campaign (campaign name; algorithms and conditions
 * by name), such as one seed per directory when a campaign was run in
 * parts: every complete run's broadcasts, with each directory's
 * repetitions renumbered after the previous directory's, so that a
 * broadcast pairs (improvement, ratio to native) only with one of its own
 * directory.  Prints the summary, the fidelity line and one line per
 * directory (results id, seed, scale, dilation, runs) to @out (may be
 * NULL); writes no file.  @s (optional) receives the summary.
 * Return: 0, -ENOENT (not a results directory), -EINVAL (@err: another
 * campaign, an algorithm the first directory lacks, the same directory
 * twice), -errno.
 */
int gx_report_pool(const char *const *dirs, int ndirs, FILE *out, struct gx_summary *s,
		   struct gb_err *err);

/* ------------------------------------------------------------------ */
/* Expectations (check.c)                                               */
/* ------------------------------------------------------------------ */

enum gx_cmp { GX_LE, GX_LT, GX_GE, GX_GT, GX_EQ };

/**
 * enum gx_where - what an expectation's `where: {condition: NAME, size:
 * {ge: B, le: B}}` restricts it to: the broadcasts of one load condition,
 * of sizes in a range, or both.
 */
enum gx_where { GX_WHERE_COND = 1, GX_WHERE_GE = 2, GX_WHERE_LE = 4 };

/**
 * One expectation: metric(algo) OP value, or OP times x bmetric(of), where
 * a relative bound names another algorithm (@of), another metric
 * (@bmetric) of the same algorithm, or both.
 */
struct gx_expect {
	char metric[GX_NAME_MAX];
	char algo[GX_NAME_MAX];   /**< "*": every algorithm */
	int cmp;                  /**< enum gx_cmp */
	double value;             /**< the bound, or the factor of a relative one */
	char of[GX_NAME_MAX];     /**< "": the algorithm itself */
	char bmetric[GX_NAME_MAX]; /**< a relative bound's metric (@metric unless
				       named); "": @value is absolute */
	int line, col;             /**< where the expectation starts in its file */
	int where;                 /**< `where:` bits (enum gx_where); 0: every broadcast */
	char where_cond[GX_NAME_MAX]; /**< GX_WHERE_COND: the condition's broadcasts only */
	double where_ge, where_le; /**< GX_WHERE_GE, _LE: bytes, the sizes kept */
	int where_line, where_col; /**< where `where`'s condition is in the file */
};

/**
 * gx_expect_load() - read an expectation file (docs/formats.md):
 *   - {metric: loaded_mean, algo: adaptive, le: {times: 0.9, of: mpich-g2}}
 *   - {metric: ratio_to_native, algo: "*", le: 1.5}
 *   - {metric: loaded_mean, algo: mpich-g2, ge: {times: 1.3, metric: unloaded_mean}}
 *   - {metric: median, algo: mateescu, le: 0.5, where: {condition: p4, size: {le: 64K}}}
 * @e: a new array of *@n entries (free() it).
 * Return: 0, -EINVAL (@d), -ENOMEM, -errno.
 */
int gx_expect_load(const char *path, struct gx_expect **e, int *n, struct gb_diag *d);

/**
 * gx_expect_names() - the names the expectations of file @path use, checked
 * before a campaign runs or a results directory is read (issue 49): each
 * `algo` is "*" or one of @algos[0 .. @nalgos - 1] (a campaign's labels),
 * each `of` one of them, and each model_error_<model> names a cost model of
 * the registry (gb_costmodels).
 * Return: 0, or -EINVAL with @err "PATH:LINE:COL: expectation K: ...".
 */
int gx_expect_names(const struct gx_expect *e, int n, const char *const *algos, int nalgos,
		    const char *path, struct gb_err *err);

/**
 * gx_expect_conds() - the load conditions the expectations' `where` name,
 * checked as gx_expect_names() checks algorithms: each is one of
 * @conds[0 .. @nconds - 1] (a campaign's condition names).
 * Return: 0, or -EINVAL with @err "PATH:LINE:COL: expectation K: ...".
 */
int gx_expect_conds(const struct gx_expect *e, int n, const char *const *conds, int nconds,
		    const char *path, struct gb_err *err);

/**
 * gx_results_conds() - the load condition names of results directory @dir
 * (its meta.json), at most @max, into @names, as gx_results_algos().
 * Return: the number of names, -ENOENT (not a results directory; @err),
 * -EINVAL (@err), -errno.
 */
int gx_results_conds(const char *dir, char (*names)[GX_NAME_MAX], int max, struct gb_err *err);

/** How gx_expect_eval() decides (docs/formats.md, "Expectations"). */
struct gx_check_opts {
	double level;    /**< the intervals' confidence, 0.5 <= level < 1 (0.95) */
	int resamples;   /**< bootstrap resamples, >= 100 (2000); 0: no intervals,
			      the point estimates decide */
	uint64_t seed;   /**< the resampling's own seed (1), so that it is reproducible */
};

/** The defaults of struct gx_check_opts. */
#define GX_CHECK_LEVEL 0.95
#define GX_CHECK_RESAMPLES 2000
#define GX_CHECK_SEED 1

/** One evaluated line: an expectation for one algorithm. */
struct gx_check_line {
	int expect, algo;        /**< indices into the expectations and the summary */
	int pass;
	char text[320];          /**< "loaded_mean adaptive = 1 <= 0.9 x mpich-g2's ..." */
	char why[PATH_MAX + 96]; /**< "  (no data)", "  (pooled: ...)" or "" */
	int ci;                  /**< 1: the line has an interval */
	int ratio;               /**< 1: the statistic is metric / the bound's metric,
				      compared with `times` */
	int diff;                /**< 1: it is metric - bound, compared with 0 (a
				      relative bound whose metric is not positive);
				      neither: the metric itself (an absolute bound) */
	double est, lo, hi;      /**< the statistic and its interval */
	double thr;              /**< what the statistic is compared with */
	int used;                /**< resamples in which the statistic had data */
	const char *verdict;     /**< with an interval: "better" (it clears the bound),
				      "worse" (it is wholly on the wrong side) or "not
				      distinguishable"; without: "holds" or "fails" */
};

/** struct gx_check - every line of a check, and how it was made. */
struct gx_check {
	struct gx_check_line *l;
	int n, failures;
	struct gx_check_opts opts;
	int nblocks, nslots;     /**< of the resampled rows (0: no resampling) */
};

/**
 * gx_expect_eval() - evaluate @e[0 .. @n-1] against @s into @c, one line
 * per (expectation, algorithm).  A line whose metric (and bound's metric)
 * is a statistic of single broadcasts (gx_summary_metric_resampled()) gets
 * a bootstrap interval when @o asks for resamples and @s carries its rows
 * (bootstrap.h: paired over broadcasts, a results directory of a pool per
 * block), and passes only when the point estimate holds and the interval
 * clears the bound.  Any other line (a count, an extreme, a figure of
 * whole runs, an `eq`) is decided by its point estimate, as is every line
 * when @o is NULL or asks for no resamples.  A metric without data fails;
 * so does a pooled line that rests on an algorithm some directory lacks.
 * An expectation with `where` is evaluated on the summary of only the rows
 * it keeps (gx_summary_subset()), its point estimate and its resamples
 * alike; its lines' text names the restriction ("median mateescu [p4, size
 * 1K-64K] = ...").
 * Return: 0, or -EINVAL (@err: an unknown algorithm, condition or metric, bad @o),
 * -ENOMEM.  Release @c with gx_check_release().
 */
int gx_expect_eval(const struct gx_expect *e, int n, const struct gx_summary *s,
		   const struct gx_check_opts *o, struct gx_check *c, struct gb_err *err);

/** gx_check_release() - free; safe on a zeroed struct and twice. */
void gx_check_release(struct gx_check *c);

/**
 * gx_check_write_text() - the check as text (check_out.c): a line saying how
 * the intervals were made (when there are any), then one "PASS ..." or
 * "FAIL ..." line per evaluated line.
 */
void gx_check_write_text(const struct gx_check *c, FILE *out);

/** gx_check_write_tap() - the check as TAP 13: the plan, then "ok N - ..." or "not ok N - ...". */
void gx_check_write_tap(const struct gx_check *c, FILE *out);

/**
 * gx_check_write_junit() - the check as JUnit XML: one testsuite named
 * @suite (the expectation file), one testcase per line, a <failure> for a
 * failed one; the intervals' settings are the suite's properties.
 * Return: 0, or -EIO (a write failed).
 */
int gx_check_write_junit(const struct gx_check *c, const char *suite, FILE *out);

/**
 * gx_expect_check() - gx_expect_eval() with @o, then gx_check_write_text()
 * to @out.  Return: the number of failed lines, or the negative error.
 */
int gx_expect_check(const struct gx_expect *e, int n, const struct gx_summary *s,
		    const struct gx_check_opts *o, FILE *out, struct gb_err *err);

#ifdef __cplusplus
}
#endif
#endif
