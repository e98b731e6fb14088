/* SPDX-License-Identifier: MIT */
/*
 * gridexp_priv.h - what the parts of gridexp share and nobody else needs.
 * Not an API: gbexp.h (libgbexp) is.  The program's overview, its commands
 * and its exit statuses are at the top of gridexp.c.
 *
 * The parts, one responsibility each:
 *
 *	gridexp.c          the command line: usage, options, run/report/check
 *	gridexp_session.c  one `gridexp run` on one grid, from the lock to the
 *	                   report: the lock, gridemu up/down, gridmon, the rank
 *	                   order, the loop over the runs, the teardown, signals
 *	gridexp_phoenix.c  phoenixd, once per session, and the check of its trees
 *	gridexp_run.c      one run: the load schedule's child, gridadvisor,
 *	                   gridemu mpirun of synthapp, run.json, the complete marker
 *	gridexp_capture.c  one run's wide-area counters (libgbcapture)
 *	gridexp_fidelity.c one run's fidelity monitor (emulator/grid/fidelity.h)
 *	gridexp_tcpstat.c  one run's hosts' TCP counters (emulator/grid/tcpstat.h)
 *	gridexp_oracle.c   `monitor: {oracle: true}`: the configured matrix, with
 *	                   the loads that are on applied (a perfect monitor)
 *	gridexp_meta.c     the results directory and its meta.json (sessions)
 *	gridexp_progress.c the planned durations: the progress line, --dry-run
 *	gridexp_proc.c     child processes: spawn, poll, stop, run to completion
 *	gridexp_slurm.c    `gridexp slurm`: the runs as a Slurm job array, its
 *	                   progress, scancel on a signal, the tasks' fates, the report
 *	gridexp_keep.c     `gridexp keep`: what the summary reads of a results
 *	                   directory, copied to be kept
 *
 * Ownership: one struct runner per `gridexp run`, made and freed by do_run();
 * one struct run per run, on do_run()'s stack, filled by run_one().  Every
 * child process is a struct proc that its owner stops (proc_stop() is
 * idempotent); teardown() stops what the runner owns, whatever happened.
 */
#ifndef GRIDBED_GRIDEXP_PRIV_H
#define GRIDBED_GRIDEXP_PRIV_H

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "gbemu.h"
#include "fidelity.h"
#include "gbexp.h"
#include "gbload.h"

#define ME "gridexp"
/* what the capture leaves out: MPI's launch (9000-9099) and gridmon's probes (47100-47101) */
#define CAPTURE_FILTER "not portrange 9000-9099 and not portrange 47100-47101"

struct gb_capture;

/** A child process (spawn()); pid 0 when there is none. */
struct proc {
	pid_t pid;
	int status;             /* wait status once reaped */
	int reaped;
};

/** The state of one `gridexp run` (and of `check` when it runs one). */
struct runner {
	struct gx_campaign c;        /* the campaign file, loaded (gx_campaign_load()) */
	int use[GX_MAX_ALGOS];       /* 1: algorithm a runs this time (all, or --only's) */
	double scale;                /* the time scale: --scale, the campaign's, or --resume's */
	double dilate;               /* time dilation k: --dilate, the campaign's, or --resume's */
	int seed_given;              /* --seed was given (the campaign's seed is it) */
	char prefix[GB_PREFIX_MAX + 1]; /* the grid's prefix: --prefix or derive_prefix() */
	char rundir[PATH_MAX];       /* $GRIDBED_RUNDIR */
	char lockpath[PATH_MAX];     /* $GRIDBED_RUNDIR/gridexp-PREFIX.lock */
	int lockfd;                  /* that lock, held (flock) while >= 0 */
	char out[PATH_MAX];          /* results/<campaign>/<stamp> */
	char stamp[32];              /* the results' id: out's last component (UTC time) */
	int plots;                   /* the report draws the plots (not --no-plots) */
	char tools[PATH_MAX];        /* the build directory (this program's parent's parent) */
	/* the programs gridexp runs and the library it preloads, under tools (find_tools()) */
	char gridemu[PATH_MAX], gridmon[PATH_MAX], advisor[PATH_MAX], synthapp[PATH_MAX];
	char libbcast[PATH_MAX], phoenixd[PATH_MAX];
	char *hosts;                 /* --hosts for gridemu mpirun (ranks: order), or NULL */
	char ptrees[PATH_MAX];       /* GRIDBED_PHOENIX_TREES: phoenixd's output, or "" */
	int px_bad;                  /* phoenixd trees that are not wide-area optimal */
	int grid_up;                 /* 1 from `gridemu up` (even half-built) to `down` */
	struct gb_grid g;            /* the grid, attached while `attached` */
	int attached;                /* g is open and attached; closed by grid_down() */
	int tcp_axis;                /* some condition sets the hosts' TCP stack */
	int wan[64];                 /* the wide-area links (topology link indices), captured */
	int nwan;                    /* entries of wan */
	struct proc mon;             /* gridmon, for the whole session when a planner needs it */
	int mon_session;             /* this session's gridmon: monitor/matrix-s<N>-v<V>.json */
	unsigned long long mon_seen; /* the newest matrix version copied into monitor/ */
	int mon_matrix;              /* R->matrix is kept fresh: gridmon runs, or the oracle */
	uint64_t oracle_on;          /* the oracle's last matrix: bit i, the run's load i is on */
	char matrix[PATH_MAX];       /* gridmon's --out (monitor/matrix.json; GRIDBED_MATRIX) */
	int tty;                     /* stderr is a terminal: the progress line in place */
	double line_t;               /* off a terminal: gb_now() of the last progress line ... */
	int line_bcast;              /* ... and the broadcasts it counted (progress()) */
	double t_start;              /* gb_now() when the session started */
	int nruns, run_k;            /* runs of this invocation, the current one (1-based) */
	double run_wall_sum;         /* wall time of the runs completed so far, s ... */
	int run_wall_n;              /* ... and their number (the estimate of per_run()) */
	int failed_runs;             /* completed runs whose status is not "ok" */
	char backend[16];            /* the grid's shaping backend (gb_grid_backend()) */
	int task;                    /* --task K: only run K of the campaign (a Slurm task), or -1 */
	int meta_session;            /* this session's index in meta.json's sessions, or -1 */
	char emulog[PATH_MAX];       /* gridemu's log: gridemu.log, or gridemu-task<K>.log */
	struct gb_cgexp cgexp;       /* the campaign's own cgroup v2, whose CPU pressure the
					fidelity monitor reads (cgroup.h), when on */
};

/** One run: one repetition of one algorithm under one load condition. */
struct run {
	int cond, algo, rep;         /* its condition, algorithm (indices) and repetition (1..) */
	char id[128];                /* gx_run_id() */
	char tmp[PATH_MAX], dir[PATH_MAX]; /* runs/ID.tmp while it runs, runs/ID once complete */
	struct gb_load_sched sched;  /* the condition's load schedule for this repetition */
	struct proc mpirun, adv, load; /* gridemu mpirun; gridadvisor; the load schedule's child */
	int loadpipe;                /* the load child's start time arrives here (read end) */
	double load_t0;              /* the load schedule's start, CLOCK_MONOTONIC s */
	int go;                      /* go.json is written: the broadcasts may start */
	struct gb_capture *cap;      /* the wide-area capture, or NULL (the run goes on) */
	FILE *capf;                  /* capture.csv's rows, written into capbuf ... */
	char *capbuf;                /* ... (open_memstream()) ... */
	size_t caplen;               /* ... of this length */
	uint64_t last[128];          /* each direction's IP bytes in the last row */
	int nsample;                 /* rows written to capf */
	double last_row_t;           /* when the last row was written */
	/* gb_now() at the start, when ready.json appeared, when go.json was written; the
	 * advisor's first pass over the sizes, s */
	double t0, t_ready, t_go, t_advisor;
	long applog_off;             /* how much of applog.txt count_applog() has read */
	int bcasts;                  /* broadcasts started (lines of applog.txt) */
	char status[160];            /* "ok", "interrupted" or "failed: ..." (+ the reason) */
	struct gb_fid_sample *fid;   /* the fidelity monitor's samples (gridexp_fidelity.c) */
	int nfid, cfid;              /* ... taken, room for */
	struct tq_hist *fid_h0;      /* the delay line's lateness histogram at the first one */
	double fid_last;             /* when the last periodic one was taken */
	FILE *tcpf;                  /* tcp.csv's rows (gridexp_tcpstat.c), into tcpbuf ... */
	char *tcpbuf;                /* ... (open_memstream()) ... */
	size_t tcplen;               /* ... of this length */
	uint64_t *tcp_cur;           /* every node's last counters read (GB_TS_N each) */
	struct tcp_change *tcp_log;  /* every change of a host's counters, oldest first */
	int nlog, clog;              /* ... logged, room for */
	double *tcp_t;               /* when each sample was taken */
	int ntcp, ctcp;              /* samples taken, room for */
};

/** What `run` and `check` were asked (parse_run_opts()). */
struct run_opts {
	const char *file;            /* the campaign file (check: or a results directory) */
	const char *const *files;    /* every positional argument (check: directories to pool) */
	int nfiles;                  /* how many: 1 but for check */
	const char *resume;          /* --resume DIR, or NULL */
	const char *out_root;        /* --out-root (default "results") */
	const char *prefix;          /* --prefix, or NULL: derive_prefix() */
	char only[512];              /* --only's algorithms, comma-separated, or "" (all) */
	double scale;                /* --scale, or 0: the campaign's */
	double dilate;               /* --dilate, or 0: the campaign's; -1: auto (calibrate) */
	double max_k;                /* --max-k K or --dilate auto:K, or 0: the whole ladder */
	int cal_opts;                /* --max-k given (calibrate's option) */
	int seed_set;                /* --seed given */
	uint64_t seed;               /* --seed: the campaign's seed instead of its file's */
	int plots;                   /* 0 with --no-plots */
	int dry;                     /* --dry-run */
	int task;                    /* --task K (a Slurm array task: run K alone, no report), or -1 */
	const char *partition;       /* slurm: --partition, or NULL (the cluster's default) */
	const char *time_limit;      /* slurm: --time, per task (sbatch's format), or NULL */
	int no_wait;                 /* slurm: --no-wait (submit and return) */
	int check_opts;              /* check: one of the five below given */
	double level;                /* check: --level (0.95) */
	int resamples;               /* check: --resamples (2000; 0: no intervals) */
	uint64_t ci_seed;            /* check: --ci-seed (1) */
	const char *junit;           /* check: --junit FILE, or NULL */
	int tap;                     /* check: --tap (TAP on stdout, not text) */
};

/* Helpers every part uses.  Static: a program-wide warnx() would interpose libc's (err.h). */

static inline void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - floor(s)) * 1e9) };

	nanosleep(&ts, NULL);
}

static inline __attribute__((format(printf, 1, 2))) void warnx(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, ME ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static inline int exists(const char *p)
{
	return access(p, F_OK) == 0;
}

/* gridexp.c */

/** print_diag() - a campaign or expectation file's error, at its place if it has one. */
void print_diag(const struct gb_diag *d);

/**
 * refuse() - bad input on gridexp's command line: gb_refuse() as "gridexp",
 * one line naming the place.
 * Return: GB_EXIT_USAGE (2), the status to exit with.
 */
__attribute__((format(printf, 1, 2))) int refuse(const char *fmt, ...);

/* gridexp_session.c */

/** The signal that asked gridexp to stop (SIGINT, SIGTERM, SIGHUP), or 0. */
extern volatile sig_atomic_t got_signal;

/** catch_signals() - SIGINT, SIGTERM, SIGHUP set got_signal; SIGPIPE is ignored. */
void catch_signals(void);

/**
 * runner_setup() - load @o's campaign into @R (scale, seed, --only, --task),
 * find the tools and, unless --dry-run, check that the selected algorithms'
 * are built.  Return: 0, or the exit status (said why).
 */
int runner_setup(struct runner *R, const struct run_opts *o);

/**
 * task_run() - the run that array task @k stands for: the campaign's runs in
 * meta.json's order (repetition, condition, algorithm).  Return: 0, or
 * -ERANGE when the campaign has fewer runs.
 */
int task_run(const struct gx_campaign *c, int k, int *rep, int *cond, int *algo);

/**
 * do_run() - `gridexp run` (or `check`'s run) of @o: the whole session.
 * Return: the exit status (gridexp.c's); @outdir gets the results directory.
 */
int do_run(const struct run_opts *o, char *outdir, size_t outlen);

/**
 * do_calibrate() - `gridexp calibrate` and `run --dilate auto`
 * (gridexp_calibrate.c): the smallest time dilation at which the fidelity
 * monitor marks none of a short unloaded run of @o->file's largest
 * broadcast, into *@k (0 if none), climbing the ladder CAL_LADDER up to
 * @o->max_k (all of it when 0); *@table gets what was tried
 * ({"tried": [{k, runs, runs_strayed, broadcasts, broadcasts_strayed,
 * max_completion_s, wall_s}], "max_k": K, "chosen": k}; NULL on bad input).
 * Return: 0, 1 (no faithful k up to K, or a run failed), 2 (bad input), 128+N.
 */
int do_calibrate(const struct run_opts *o, double *k, json_t **table);

/** The calibration's ladder of k, as --help and the refusals say it. */
#define CAL_LADDER "1, 1.5, 2, 3, 5, 10, 20"

/** cal_on_ladder() - whether @k is one of CAL_LADDER's (a bound --max-k may take). */
int cal_on_ladder(double k);

/**
 * matrix_poll() - copy a new version of gridmon's matrix into monitor/, and
 * append its version and the monotonic time it was seen to
 * monitor/versions-s<N>.csv.
 */
void matrix_poll(struct runner *R);

/**
 * monitor_share_finish() - what gridmon's probes took of each wide-area
 * direction from @r's go (its start, without one) to now: the run's
 * monitor-share.csv and, for run.json, {"max": share, "link": "A>B",
 * "bytes": B, "probes": N}; NULL where gridmon did not run (no monitor,
 * the oracle).
 */
json_t *monitor_share_finish(struct runner *R, struct run *r);

/*
 * gridexp_oracle.c: `monitor: {oracle: true}`, a perfect monitor.
 * oracle_write() - the matrix of the configuration with @r's loads in the
 * bit set @on derated (none: @r NULL or @on 0), as the next version.
 * Return: 0 or -errno / -EIO (gridmon's log says why).
 * oracle_tick() - a new version if the set of @r's loads that are on now
 * differs from the last one written (@r NULL: none is on).
 */
int oracle_write(struct runner *R, const struct run *r, uint64_t on);
void oracle_tick(struct runner *R, const struct run *r);

/** rank_hosts() - R->hosts from the campaign's rank order.  Return: 0 or -ENOMEM. */
int rank_hosts(struct runner *R);
/**
 * cond_host_list() - the hosts of condition @cond's runs in rank order
 * (gx_cond_hosts()), comma-separated for gridemu mpirun --hosts; free() it.
 * Return: the list, or NULL when out of memory.
 */
char *cond_host_list(const struct gx_campaign *c, int cond);

/* gridexp_phoenix.c */

/**
 * phoenixd_run() - phoenixd on the grid until its trees are stable; checks
 * them and sets R->ptrees.  Return: 0, or -1 (said why).
 */
int phoenixd_run(struct runner *R);

/* gridexp_run.c */
/**
 * algo_bcast_env() - the GRIDBED_SEGMENT and GRIDBED_STRIPES values of @a:
 * @seg "auto" or bytes, @stripes gb_stripes_format()'s table; what mpirun's
 * environment gets and --dry-run shows.
 * Return: 0, or -ENOSPC when a buffer is too small.
 */
int algo_bcast_env(const struct gx_algo *a, char *seg, size_t seglen, char *stripes,
		   size_t stlen);

/**
 * run_one() - run @r (id, dir, tmp, cond, algo, rep set) to its end.
 * Return: 0 when complete (runs/ID with its marker, r->status says how it
 * went), -1 when incomplete (--resume runs it again).
 */
int run_one(struct runner *R, struct run *r);

/* gridexp_capture.c */

/** capture_start() - capture.csv's header; the capture of R->wan.  Return: 0 or -ENOMEM. */
int capture_start(struct runner *R, struct run *r);

/** capture_sample() - a row of counters when one changed (or @force). */
void capture_sample(struct runner *R, struct run *r, int force);

/** capture_finish() - stop the capture; capture.csv and capture-links.csv. */
void capture_finish(struct runner *R, struct run *r);

/* gridexp_fidelity.c */

/** fidelity_start() - the fidelity monitor's first sample (when the broadcasts may start). */
void fidelity_start(struct runner *R, struct run *r);

/** fidelity_tick() - a sample when FID_PERIOD has passed since the last (after _start()). */
void fidelity_tick(struct runner *R, struct run *r);

/**
 * fidelity_finish() - the last sample; fidelity.csv (one row per broadcast
 * of broadcasts.csv) and the run's verdict for run.json, or NULL when the
 * monitor never started.  Frees the samples.
 */
json_t *fidelity_finish(struct runner *R, struct run *r);

/* gridexp_tcpstat.c */

/** tcpstat_start() - tcp.csv's header and a first sample of every host (with fidelity_start()). */
void tcpstat_start(struct runner *R, struct run *r);

/** tcpstat_tick() - a sample when TCP_PERIOD has passed since the last (after _start()). */
void tcpstat_tick(struct runner *R, struct run *r);

/**
 * tcpstat_finish() - the last sample; tcp.csv and tcp-broadcasts.csv (one
 * row per broadcast of broadcasts.csv).  Frees the samples.  Nothing when
 * tcpstat_start() never ran or failed.
 */
void tcpstat_finish(struct runner *R, struct run *r);

/** tcpstat_release() - free the samples without writing anything; safe to call twice. */
void tcpstat_release(struct run *r);

/* gridexp_meta.c */

/**
 * prepare_out() - the results directory: a new one under @out_root, or
 * @resume's (checked against the campaign).  Return: 0, -1, -2 bad input.
 */
int prepare_out(struct runner *R, const char *out_root, const char *resume);

/**
 * check_out() - what prepare_out() would refuse, found without creating
 * anything (a dry run checks what the run checks): --resume's directory
 * and its match with the campaign, or that @out_root/<campaign> could be
 * made (its nearest existing ancestor a writable directory).
 * Return: 0, or -2 (bad input, said).
 */
int check_out(struct runner *R, const char *out_root, const char *resume);

/**
 * write_meta() - meta.json (@fresh: anew); with @session, a new session for
 * this grid (R->meta_session its index).  Concurrent gridexps (Slurm tasks)
 * may share the directory: meta.json changes under meta_lock().
 * Return: 0 or -errno.
 */
int write_meta(struct runner *R, int fresh, int session);

/** meta_session_add() - @what (a reference taken) under @key in this session. */
void meta_session_add(struct runner *R, const char *key, json_t *what);

/**
 * meta_lock() - the results directory's lock (fcntl, so that it holds on
 * NFS too) for a read-modify-write of meta.json.  Return: the fd to give
 * meta_unlock(), or -errno.
 */
int meta_lock(const char *dir);

/** meta_unlock() - release meta_lock()'s @fd (< 0: nothing). */
void meta_unlock(int fd);

/* gridexp_slurm.c */

/** do_slurm() - `gridexp slurm` of @o.  Return: the exit status (gridexp.c's). */
int do_slurm(const struct run_opts *o);

/**
 * cmd_keep() - `gridexp keep DIR DEST` (argv[0] is "keep"): copy what the
 * summary and --resume read of results directory DIR to the new directory
 * DEST (gridexp_keep.c lists it).  Prints its one line, or one error.
 * Return: 0, 1 when the copy failed (nothing is left at DEST), 2 bad input.
 */
int cmd_keep(int argc, char **argv);

/* gridexp_progress.c */

/** fmt_dur() - @s seconds as M:SS or H:MM:SS. */
void fmt_dur(double s, char *buf, size_t len);

/** planned_app() - the planned real seconds of one run's application. */
double planned_app(const struct runner *R);

/** count_runs() - the runs of this invocation (R->use's algorithms only). */
int count_runs(const struct runner *R);

/**
 * progress() - the progress line (@end: the run is over, with its status).
 * On a terminal it is rewritten in place; off one (a log, a CI job) a line
 * is printed when a broadcast has completed and a minute has passed since
 * the last, and at every run's end.
 */
void progress(struct runner *R, const char *label, int bcast, int nb, double run_t0,
	      const char *end);

/** dry_run() - --dry-run: what would run.  Return: the exit status. */
int dry_run(struct runner *R);

/* gridexp_proc.c */

/**
 * spawn() - fork + exec @argv, its output to @log, @env added; the child
 * dies with gridexp.  Return: 0 or -errno.
 */
int spawn(struct proc *p, char *const *argv, const char *log, char *const *env);

/** proc_poll() - 1 if @p has ended (reaped now or before) or never ran, else 0. */
int proc_poll(struct proc *p);

/** proc_stop() - SIGTERM, then SIGKILL after @grace s; reaps.  Idempotent. */
void proc_stop(struct proc *p, double grace);

/** proc_exit_status() - a reaped @p's exit status, or 128 + the signal that killed it. */
int proc_exit_status(const struct proc *p);

/** run_tool() - run @argv to completion, output to @log.  Return: its exit status. */
int run_tool(char *const *argv, const char *log);

/**
 * run_capture() - run @argv (a program in PATH) to completion, its output
 * (with @with_err, its errors too) into @buf of @len bytes, NUL-terminated.
 * Return: its exit status (127: it could not be run), or -errno.
 */
int run_capture(char *const *argv, char *buf, size_t len, int with_err);

#endif
