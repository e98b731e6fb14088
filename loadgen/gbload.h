/* SPDX-License-Identifier: MIT */
/*
 * gbload.h - libgbload: synthetic load on an emulated grid, as in the paper's
 * loading program (Gupta & Vadhiyar, seed 000 §3).
 *
 * A *schedule* is a list of load intervals.  Each interval says when (start,
 * duration, in paper seconds), how much (a fraction of capacity) and where
 * (a link and direction, a source and destination host, or both).  It comes
 * from an explicit YAML file (docs/formats.md, "Load schedule") or from the
 * paper's random generator.  Every time in a schedule is multiplied by one
 * scale factor (docs/architecture.md, decision 8), so the paper's hour and a CI
 * run of a minute are the same schedule.
 *
 * A schedule is applied in one of two modes:
 *
 *   traffic (default, the paper's loading program): for each interval, a
 *     constant-bit-rate flow of fixed-size UDP datagrams (or a paced TCP
 *     stream).  A load on a link takes fraction x *that link's* rate: one
 *     flow per loaded direction, between the direction's two end nodes
 *     (switch, router or hub namespaces), so it crosses that direction and
 *     nothing else.  A load given as a source and destination host takes
 *     fraction x the bottleneck rate of their routed path.  The sender and
 *     the receiver are processes forked into the endpoints' namespaces;
 *     each stops by itself at its end time and dies with its parent.
 *
 *   shape (deterministic, for CI): for each interval, the rate of the
 *     interval's directed link(s) is set to (1 - fraction) x its rate before
 *     gridload touched it, through the emulator's runtime link change, and
 *     put back at the end.  Every change is first written to a state file in
 *     the grid's run directory, so `gridload restore` repairs the links after
 *     a crash.
 *
 * Time dilation (docs/architecture.md, decision 9, emulator/grid/dilate.h): on a grid
 * brought up with `--dilate K`, a schedule describes the same *virtual*
 * experiment as at K = 1.  Every schedule time, after the time scale, lasts
 * K times as long on the wall clock, and every flow sends its topology rate
 * / K on the wire; rates, times and fractions that the library reports stay
 * in the topology's (virtual) units, except where a field says "wall".
 * Shape mode changes links in topology units (the emulator dilates them).
 * The time scale (decision 8) and the dilation are two separate factors.
 *
 * Conventions: functions return 0 or a negative errno and print nothing
 * (except the *_write functions, which print to the FILE they are given).
 * Bad input is explained in a struct gb_diag ("file:line:col: message").
 */
#ifndef GRIDBED_GBLOAD_H
#define GRIDBED_GBLOAD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "gbtopo.h"

struct gb_grid;
struct gb_err;

/** Default UDP/TCP destination port of load flows (BPF: "udp port 9000"). */
#define GB_LOAD_PORT 9000
/** Ports used by concurrent flows to one host: GB_LOAD_PORT .. + GB_LOAD_PORTS - 1. */
#define GB_LOAD_PORTS 100
/** The cluster the random generator loads by default (the paper's C3). */
#define GB_LOAD_TARGET "c3"
/** The random generator's default horizon, paper seconds (one hour). */
#define GB_LOAD_HORIZON (60.0 * 60.0)

/*
 * The paper's load dynamics (§3): "the amount of the network loads (50%-90%
 * bandwidth reductions), the time durations of the loads (6-8 minutes),
 * time durations between two successive loads (4-7 minutes) were randomly
 * varied with uniform distributions".
 */
#define GB_LOAD_FRAC_MIN 0.50
#define GB_LOAD_FRAC_MAX 0.90
#define GB_LOAD_DUR_MIN (6.0 * 60.0)
#define GB_LOAD_DUR_MAX (8.0 * 60.0)
#define GB_LOAD_GAP_MIN (4.0 * 60.0)
#define GB_LOAD_GAP_MAX (7.0 * 60.0)

/** Shape mode never sets a rate below this share of the original rate (0 is "unlimited"). */
#define GB_LOAD_SHAPE_FLOOR 0.01

enum gb_load_proto {
	GB_LOAD_UDP = 0,
	GB_LOAD_TCP = 1,
};

enum gb_load_mode {
	GB_LOAD_TRAFFIC = 0,
	GB_LOAD_SHAPE = 1,
};

/**
 * struct gb_load_iv - one load interval.
 *
 * As given: @start, @duration (paper seconds, unscaled), @fraction, and
 * @link/@dir and/or @src/@dst.  gb_load_resolve() then fills the flows
 * (traffic mode) and the directed links (shape mode):
 *   - link given, no hosts: one flow per direction, from the direction's
 *     sending node to its receiving node (any node kind), sized for that
 *     direction's rate (@fdl, @fcap);
 *   - hosts given, no link: the flow is sized for the path's bottleneck
 *     (@fdl = -1), and the path's bottleneck direction is shaped (the first
 *     direction on the path with the lowest rate, hosts' own access links
 *     only when nothing else is as narrow);
 *   - both given: the flow uses the hosts and is sized for the direction of
 *     the link its path crosses (refused if it crosses none, or if its path
 *     is narrower than that direction); shaping uses the link.
 * Invariant after resolution: every flow's path crosses nothing narrower
 * than its @fcap, and a flow with @fdl >= 0 crosses direction @fdl.
 */
struct gb_load_iv {
	double start;           /**< paper seconds from the start of the run */
	double duration;        /**< paper seconds, > 0 */
	double fraction;        /**< share of capacity taken, 0 < f < 1 */
	int link;               /**< link index, or -1 */
	int dir;                /**< 0 = a>b, 1 = b>a, -1 = both directions */
	int src, dst;           /**< host node indices, or -1 */
	int line, col;          /**< where the file gave it (0: generated) */

	/* Filled by gb_load_resolve(). */
	int nflows;             /**< 1 or 2 */
	int fsrc[2], fdst[2];   /**< flow endpoints (node indices: hosts, or a link's ends) */
	int fdl[2];             /**< the directed link a flow is sized for, or -1 (its path) */
	uint64_t fcap[2];       /**< the rate (bit/s) a flow's fraction is of */
	int ndl;                /**< 1 or 2 */
	int dl[2];              /**< directed links shaped (2 * link + dir) */
};

/** struct gb_load_sched - a schedule; init with gb_load_sched_init(). */
struct gb_load_sched {
	struct gb_load_iv *iv;
	int n;
	uint64_t seed;          /**< random: draws the whole schedule; explicit: unused */
	double scale;           /**< real seconds per paper second, > 0 (default 1) */
	double horizon;         /**< paper seconds; random: loads end before it; 0: none */
	int proto;              /**< enum gb_load_proto */
	int size;               /**< UDP payload / TCP write size in bytes; 0: MTU - 28 */
	int port;               /**< first destination port; 0: GB_LOAD_PORT */
	int target;             /**< random: the target cluster index; else -1 */
	int on;                 /**< random: enum gb_load_on; else 0 */
	char source[256];       /**< "random" or the file name */
};

/** gb_load_sched_init() - an empty schedule with the defaults above. */
void gb_load_sched_init(struct gb_load_sched *s);

/** gb_load_sched_release() - free the intervals; idempotent. */
void gb_load_sched_release(struct gb_load_sched *s);

/**
 * Scaled seconds of a paper time: exactly @paper * s->scale.  Virtual
 * (topology) seconds: real seconds on an undilated grid.
 */
static inline double gb_load_scaled(const struct gb_load_sched *s, double paper)
{
	return paper * s->scale;
}

/**
 * gb_load_wall() - wall-clock seconds of a paper time on a grid dilated
 * @dilate times (0 or 1: none): gb_load_scaled() x @dilate (decision 9).
 */
static inline double gb_load_wall(const struct gb_load_sched *s, double dilate, double paper)
{
	return gb_load_scaled(s, paper) * (dilate > 1.0 ? dilate : 1.0);
}

/** Where the random generator puts each load (gb_load_rand_opts.on). */
enum gb_load_on {
	/** The paper's (§3): a host of the target cluster and a host of another
	 *  cluster, in either direction, sized for their path's bottleneck. */
	GB_LOAD_ON_PAIR = 0,
	/** A labelled variant: the target cluster's uplink, in either direction. */
	GB_LOAD_ON_UPLINK = 1,
};

/** gb_load_on_name() - "pair" or "uplink" (the campaign's and gridload's word). */
const char *gb_load_on_name(int on);

/** gb_load_on_parse() - @name ("pair" or "uplink") to enum gb_load_on; -EINVAL if neither. */
int gb_load_on_parse(const char *name);

/** Options of gb_load_random(). */
struct gb_load_rand_opts {
	const char *target;     /**< cluster name; NULL: GB_LOAD_TARGET */
	int on;                 /**< enum gb_load_on; 0 is the paper's pair */
	uint64_t seed;
	double scale;           /**< 0: 1 */
	double horizon;         /**< paper seconds; 0: GB_LOAD_HORIZON */
};

/**
 * gb_load_random() - the paper's random schedule (§3) on topology @t.
 *
 *   t = 0
 *   loop:
 *       t += gap ~ U(4, 7) min
 *       d  ~ U(6, 8) min;  f ~ U(0.5, 0.9);  dir ~ {from target, to target}
 *       if t + d > horizon: stop
 *       pair (default):  h ~ U(hosts of the target cluster);
 *                        c ~ U(the other clusters); o ~ U(hosts of c);
 *                        a flow h -> o (dir "from") or o -> h ("to") at
 *                        f x the bottleneck of its routed path
 *       uplink (variant): the target cluster's uplink in direction dir at f
 *       t += d
 *
 * The times, fractions and directions come from one xoshiro256** stream
 * seeded with @o->seed, in paper time, so a seed gives the same loads at
 * every scale (scaled times are exactly paper times x scale), and the
 * hosts of a pair from a second stream of the same seed, so the two
 * placements of one seed load at the same times, by the same fractions,
 * in the same directions.  gb_load_resolve() then sizes each flow.
 * Return: 0, -EINVAL (unknown target; @d explains), -ENOMEM.
 */
GB_WUR int gb_load_random(const struct gb_topo *t, const struct gb_load_rand_opts *o,
			  struct gb_load_sched *s, struct gb_diag *d);

/**
 * gb_load_parse_file() - read an explicit schedule (docs/formats.md) and
 * check every name against topology @t; gb_load_parse() from a buffer
 * (@name is used in diagnostics).  The result is resolved
 * (gb_load_resolve()) with the file's seed; a caller that overrides the seed
 * calls gb_load_resolve() again.
 * Return: 0, -EINVAL (@d holds "file:line:col: message"), -ENOMEM, -errno.
 */
GB_WUR int gb_load_parse_file(const char *path, const struct gb_topo *t,
			      struct gb_load_sched *s, struct gb_diag *d);
GB_WUR int gb_load_parse(const char *buf, size_t len, const char *name,
			 const struct gb_topo *t, struct gb_load_sched *s, struct gb_diag *d);

/**
 * gb_load_resolve() - fill every interval's flows and shaped links (see
 * struct gb_load_iv) from topology @t and s->seed.  Deterministic.
 * Return: 0 or -EINVAL (e.g. a link that no host path crosses; @d explains
 * with the interval's place).
 */
GB_WUR int gb_load_resolve(const struct gb_topo *t, struct gb_load_sched *s,
			   struct gb_diag *d);

/**
 * gb_load_capacity() - the rate (bit/s) interval flow @k of @iv is a fraction
 * of (@iv->fcap[k]): the loaded direction's rate for a flow placed for a
 * link, else the bottleneck of its routed path.  0 for no such flow.
 */
uint64_t gb_load_capacity(const struct gb_topo *t, const struct gb_load_iv *iv, int k);

/**
 * gb_load_plan_write() - print schedule @s (resolved) as a table, or as JSON
 * (@json), with scaled times, for a grid dilated @dilate times (0 or 1:
 * none): times and rates stay virtual (topology units); the plan states the
 * dilation, and JSON adds "dilate", each interval's wall_start_s and
 * wall_end_s and, when @dilate > 1, each flow's wire_rate_bps.
 */
int gb_load_plan_write(const struct gb_load_sched *s, const struct gb_topo *t, double dilate,
		       FILE *out, int json);

/* ---- flows (traffic mode) ------------------------------------------------ */

/**
 * What one flow should do, *on the wire*: the rate the sender paces at and
 * wall-clock times.  On a dilated grid gb_load_run() gives it the topology
 * rate / k (decision 9); its counters (struct gb_load_flow_result) are on
 * the wire too.
 */
struct gb_load_flow_spec {
	int src, dst;           /**< node indices of the attached grid (any kind) */
	double rate_bps;        /**< IP-layer rate (payload + headers) on the wire */
	int proto;              /**< enum gb_load_proto */
	int size;               /**< bytes per datagram / write; 0: MTU - 28 */
	int port;               /**< destination port; 0: GB_LOAD_PORT */
	double end;             /**< CLOCK_MONOTONIC seconds at which the sender stops */
	double grace;           /**< the receiver keeps counting this long after @end */
};

/** Counters a flow reports (IP-layer bytes). */
struct gb_load_flow_result {
	uint64_t tx_pkts, tx_bytes;   /**< sent: datagrams / writes, IP bytes */
	uint64_t rx_pkts, rx_bytes;   /**< received by the receiver */
	double tx_t0, tx_t1;          /**< when the sender started and stopped */
	int tx_err, rx_err;           /**< 0 or a positive errno the process met */
	int tx_done, rx_done;         /**< the process reported before it exited */
};

/** A running flow. */
struct gb_load_flow {
	pid_t tx, rx;           /**< -1 when not running (or reaped) */
	int fd;                 /**< the report pipe, -1 when closed */
	struct gb_load_flow_spec spec;
	struct gb_load_flow_result res;
};

/**
 * gb_load_flow_start() - fork the receiver into @spec->dst's namespace, wait
 * until it is bound, then fork the sender into @spec->src's namespace.
 *
 * Only nodes of the attached grid (hosts, switches, routers, hubs: every one
 * has a namespace, a data address and routes) are valid endpoints, and only
 * their data-plane address is ever used: anything else is refused with
 * -EDESTADDRREQ before a process exists (@e names the endpoint).  Callers
 * that take endpoints from a user (the CLI, schedule files) accept hosts only.
 *
 * Both processes bound themselves, independently of the caller:
 *   - prctl(PR_SET_PDEATHSIG, SIGKILL) and a getppid() check, so they die
 *     with the caller even when it is SIGKILLed;
 *   - the sender stops at @spec->end, the receiver at @end + @grace, and an
 *     interval timer (SIGALRM, default action) ends either one second after
 *     that even if it is stuck in a system call.
 * Their names (comm) are "gridload-tx" and "gridload-rx".
 * Return: 0, -EDESTADDRREQ, -EADDRINUSE (the port is taken), or -errno.
 */
GB_WUR int gb_load_flow_start(struct gb_grid *g, const struct gb_load_flow_spec *spec,
			      struct gb_load_flow *f, struct gb_err *e);

/**
 * gb_load_flow_poll() - collect reports and reap exited processes (never
 * blocks).  Return: 1 when both processes are gone, else 0.
 */
int gb_load_flow_poll(struct gb_load_flow *f);

/** gb_load_flow_stop() - SIGKILL what is still running and reap it; idempotent. */
void gb_load_flow_stop(struct gb_load_flow *f);

/* ---- shape mode ---------------------------------------------------------- */

/** File in the grid's run directory that lists links shape mode has changed. */
#define GB_LOAD_STATE_FILE "gridload-shape.json"

/**
 * gb_load_restore() - put back every link listed in the state file of the
 * grid with prefix @prefix (NULL: $GRIDBED_PREFIX or the default), then
 * remove the file.  Takes the grid's lock exclusively for each change
 * (retrying while another command holds it, up to ~5 s).
 * @nrestored: directed links put back (may be NULL).
 * Return: 0 (also when there was nothing to do), -EBUSY (another gridload
 * is shaping this grid), or -errno.
 */
int gb_load_restore(const char *prefix, int *nrestored, struct gb_err *e);

/* ---- running a schedule -------------------------------------------------- */

/** Progress of a run, for a caller's status line. */
struct gb_load_progress {
	double elapsed, total;  /**< wall-clock (real) seconds, dilated */
	double vt_elapsed, vt_total; /**< virtual (topology) seconds: elapsed, total / dilate */
	double dilate;          /**< the grid's time dilation k (1: none) */
	int done, n;            /**< intervals finished, in the schedule */
	int active;             /**< intervals running now */
	double load_bps;        /**< sum of the planned rates of active intervals (topology units) */
};

/** One logged result: a flow (traffic) or a shaped direction (shape) of an interval. */
struct gb_load_row {
	int interval;           /**< 1-based */
	int mode;               /**< enum gb_load_mode */
	double start, end;      /**< scheduled, virtual (scaled, undilated) seconds from the
				     start of the run; x @dilate on the wall clock */
	double dilate;          /**< the grid's time dilation k (1: none) */
	double fraction;
	const char *link, *dir; /**< link name and "A>B": shape: the one shaped; traffic: the
				     one the flow is sized for ("" for a path's bottleneck) */
	const char *src, *dst;  /**< traffic: the endpoints (hosts or a link's ends); else "" */
	int port;               /**< traffic: destination port */
	/* Rates in topology units: traffic mode's measured rates are the wire's x k. */
	uint64_t capacity_bps;  /**< the rate the fraction is of */
	double planned_bps;     /**< traffic: the load's rate; shape: the link's target rate */
	double achieved_bps;    /**< traffic: received; shape: the rate read back */
	double sent_bps;        /**< traffic: sent (0 in shape mode) */
	uint64_t tx_packets, rx_packets;
	const char *status;     /**< "ok", "stopped" or "error: ..." */
};

/** Options of gb_load_run(). */
struct gb_load_run_opts {
	int mode;               /**< enum gb_load_mode */
	const char *log_path;   /**< CSV log (docs/formats.md); NULL: none */
	/** Called about twice a second and at every event; may be NULL. */
	void (*progress)(void *arg, const struct gb_load_progress *p);
	void *arg;
	/** Called for each row of an interval when the interval is over; may be NULL. */
	void (*row)(void *arg, const struct gb_load_row *r);
	/** Set to non-zero (e.g. from a signal handler) to stop early. */
	volatile sig_atomic_t *stop;
};

/**
 * gb_load_run() - apply resolved schedule @s to attached grid @g, in real
 * time from now; returns when the last interval has ended (or *o->stop).
 *
 * On a grid dilated k times (gb_dilation(), decision 9) every interval
 * starts and ends at k x its scaled time on the wall clock, and a flow
 * sends fraction x capacity / k on the wire; the rows report virtual
 * times, topology-unit rates and k.
 *
 * The caller should not hold the grid's lock (gb_grid_open's): shape mode
 * takes it exclusively for each change, and other commands (status,
 * mpirun, link set) must keep working during a run.  Shape mode first
 * restores what a killed earlier run left (gb_load_restore()), and holds
 * $rundir/gridload.lock for the whole run.
 *
 * The log gets one row per flow (traffic) or per directed link (shape) of
 * every interval, with the grid's k in its last column, rewritten
 * atomically (temporary file + rename) as each interval ends.
 * Return: 0, -EINTR (stopped), -EBUSY, or -errno; @e explains.
 */
int gb_load_run(struct gb_grid *g, const struct gb_load_sched *s,
		const struct gb_load_run_opts *o, struct gb_err *e);

/** gb_load_mode_name() - "traffic" or "shape". */
const char *gb_load_mode_name(int mode);

#endif
