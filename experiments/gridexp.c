// SPDX-License-Identifier: MIT
/*
 * gridexp - experiment campaigns (issue 6): from an empty machine to plotted
 * results, resumable.
 *
 *	gridexp run FILE.yaml [--scale F] [--resume DIR] [--only ALGO,...]
 *	            [--out-root DIR] [--prefix P] [--no-plots]
 *	gridexp report DIR [--no-plots]
 *	gridexp check FILE.yaml|DIR --expect EXPECT.yaml [run options]
 *
 * `run`, for a campaign file (docs/formats.md, "Campaign file"):
 *
 *	lock the campaign's prefix (its own lock; busy: refuse)
 *	gridemu up TOPOLOGY                              one grid for the campaign
 *	gridmon --out results/.../monitor/matrix.json    if an algorithm plans from
 *	                                                 measurements (kept all along,
 *	                                                 so that every algorithm's
 *	                                                 broadcasts share its probes)
 *	for each repetition, load condition, algorithm:  one run, results/.../runs/ID/
 *	    gridadvisor --applog ... (adaptive only)
 *	    capture the wide-area links (libgbcapture; counters sampled every 20 ms)
 *	    gridemu mpirun --preload libgridbcast.so -- synthapp ...
 *	        synthapp: ready.json -> the load schedule starts, same seed for
 *	        every algorithm (libgbload in a child process) -> go.json with the
 *	        load intervals -> the broadcasts
 *	    stop the load, gridload restore, stop the capture and the advisor
 *	    run.json, complete marker, rename runs/ID.tmp -> runs/ID
 *	stop gridmon; gridemu down; report (summary + plots)
 *
 * Teardown happens on success, on failure and on SIGINT/SIGTERM/SIGHUP; every
 * child dies with gridexp (PR_SET_PDEATHSIG), and after a SIGKILL the next
 * `run` (or `--resume`) of the same campaign takes the grid it left down.
 *
 * Exit status: 0; 1 a run failed (recorded; the campaign went on) or a
 * step failed; 2 bad input or a busy prefix; 130/143 interrupted.
 * `check`: 0 all expectations hold, 1 one failed, 2 bad input.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "capture.h"
#include "gbio.h"
#include "gbemu.h"
#include "gbexp.h"
#include "gbyaml.h"
#include "gbload.h"
#include "results.h"
#include "gbutil.h"

#define ME "gridexp"
#define TICK 0.02              /* s: the run loop's period (capture samples) */
#define MON_PORT "47100"       /* gridmon's probes: UDP port, TCP port + 1 */
#define CAPTURE_FILTER "not portrange 9000-9099 and not portrange 47100-47101"

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - floor(s)) * 1e9) };

	nanosleep(&ts, NULL);
}

static __attribute__((format(printf, 1, 2))) void warnx(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, ME ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ------------------------------------------------------------------ */
/* Child processes                                                     */
/* ------------------------------------------------------------------ */

struct proc {
	pid_t pid;
	int status;             /* wait status once reaped */
	int reaped;
};

/*
 * fork + exec @argv with stdout and stderr to @log (appended; NULL keeps
 * ours), @env ("NAME=VALUE", NULL-terminated, may be NULL) added.  The
 * child dies with us (SIGTERM), and is its own process group leader so
 * that a terminal's Ctrl-C reaches only gridexp, which stops it in order.
 */
static int spawn(struct proc *p, char *const *argv, const char *log, char *const *env)
{
	pid_t parent = getpid();

	memset(p, 0, sizeof(*p));
	fflush(stdout);
	fflush(stderr);
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (p->pid == 0) {
		sigset_t none;

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(126);
		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (log) {
			int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
		}
		for (int i = 0; env && env[i]; i++)
			putenv(env[i]);
		execv(argv[0], argv);
		fprintf(stderr, ME ": cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return 0;
}

static int proc_poll(struct proc *p)
{
	if (p->pid <= 0 || p->reaped)
		return 1;
	if (waitpid(p->pid, &p->status, WNOHANG) == p->pid) {
		p->reaped = 1;
		return 1;
	}
	return 0;
}

/* SIGTERM, then SIGKILL after @grace s; reaps.  Idempotent. */
static void proc_stop(struct proc *p, double grace)
{
	double t0 = gb_now();

	if (p->pid <= 0 || p->reaped)
		return;
	kill(p->pid, SIGTERM);
	while (!proc_poll(p)) {
		if (gb_now() - t0 > grace) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &p->status, 0);
			p->reaped = 1;
			break;
		}
		nap(0.02);
	}
}

/* Run @argv to completion; its output to @log or, on failure, shown. */
static int run_tool(char *const *argv, const char *log)
{
	struct proc p;
	int ret = spawn(&p, argv, log, NULL);

	if (ret < 0)
		return ret;
	while (waitpid(p.pid, &p.status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(p.status) ? WEXITSTATUS(p.status) : 128 + WTERMSIG(p.status);
}

/* ------------------------------------------------------------------ */
/* The runner's state                                                  */
/* ------------------------------------------------------------------ */

struct runner {
	struct gx_campaign c;
	int use[GX_MAX_ALGOS];
	double scale;
	char prefix[GB_PREFIX_MAX + 1];
	char rundir[PATH_MAX];       /* $GRIDBED_RUNDIR */
	char lockpath[PATH_MAX];
	int lockfd;
	char out[PATH_MAX];          /* results/<campaign>/<stamp> */
	char stamp[32];
	int resume, plots;
	char tools[PATH_MAX];        /* the build directory (this program's parent's parent) */
	char gridemu[PATH_MAX], gridmon[PATH_MAX], advisor[PATH_MAX], synthapp[PATH_MAX];
	char libbcast[PATH_MAX], phoenixd[PATH_MAX];
	char *hosts;                 /* --hosts for gridemu mpirun (ranks: order), or NULL */
	char ptrees[PATH_MAX];       /* GRIDBED_PHOENIX_TREES: phoenixd's output, or "" */
	int px_bad;                  /* phoenixd trees that are not wide-area optimal */
	int grid_up;
	struct gb_grid g;
	int attached;
	int tcp_axis;                /* some condition sets the hosts' TCP stack */
	int wan[64];
	int nwan;
	struct proc mon;
	int mon_session;
	unsigned long long mon_seen;
	char matrix[PATH_MAX];
	int tty;
	double t_start;
	int nruns, run_k;            /* runs of this invocation, the current one (1-based) */
	double run_wall_sum;
	int run_wall_n;
	int failed_runs;
	char backend[16];
};

static int exists(const char *p)
{
	return access(p, F_OK) == 0;
}

static void find_tools(struct runner *R)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	snprintf(R->tools, sizeof(R->tools), "%s", dirname(dirname(exe)));
	snprintf(R->gridemu, sizeof(R->gridemu), "%s/emulator/gridemu", R->tools);
	snprintf(R->gridmon, sizeof(R->gridmon), "%s/collectives/gridmon", R->tools);
	snprintf(R->advisor, sizeof(R->advisor), "%s/collectives/gridadvisor", R->tools);
	snprintf(R->synthapp, sizeof(R->synthapp), "%s/experiments/synthapp", R->tools);
	snprintf(R->libbcast, sizeof(R->libbcast), "%s/collectives/libgridbcast.so", R->tools);
	snprintf(R->phoenixd, sizeof(R->phoenixd), "%s/collectives/phoenixd", R->tools);
}

/* "gx" + 4 hex digits of the campaign name's FNV-1a hash. */
static void derive_prefix(const char *name, char *out, size_t len)
{
	uint32_t h = 2166136261u;

	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	snprintf(out, len, "gx%04x", (h ^ (h >> 16)) & 0xffff);
}

/* ------------------------------------------------------------------ */
/* Progress                                                            */
/* ------------------------------------------------------------------ */

static void fmt_dur(double s, char *buf, size_t len)
{
	long t = s > 0 && isfinite(s) ? (long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* Planned real seconds of one run's application (the sum of its gaps). */
static double planned_app(const struct runner *R)
{
	return gx_pattern_offset(&R->c.app.pat, gx_pattern_count(&R->c.app.pat), R->scale);
}

/*
 * Expected real seconds of one run: the application's planned time plus
 * what the runs so far took beyond theirs (launch, broadcasts that outlast
 * their gaps, teardown); 15 s before the first run ends.
 */
static double per_run(const struct runner *R)
{
	return planned_app(R) + (R->run_wall_n ? fmax(R->run_wall_sum / R->run_wall_n -
						      planned_app(R), 0) : 15.0);
}

/* The current run's rest (at least 1 s) and the runs after it. */
static double remaining(const struct runner *R, double run_elapsed)
{
	return fmax(per_run(R) - run_elapsed, 1.0) + per_run(R) * (R->nruns - R->run_k);
}

/* The progress line: updated in place on a terminal; @end: the run is over. */
static void progress(const struct runner *R, const char *label, int bcast, int nb,
		     double run_t0, const char *end)
{
	char el[32], rem[32];

	fmt_dur(gb_now() - R->t_start, el, sizeof(el));
	fmt_dur(end ? per_run(R) * (R->nruns - R->run_k) : remaining(R, gb_now() - run_t0), rem,
		sizeof(rem));
	if (end) {
		if (R->tty)
			fputc('\r', stderr);
		fprintf(stderr, ME ": run %d/%d %s: broadcast %d/%d, %s; elapsed %s, remaining ~%s"
			"%s\n", R->run_k, R->nruns, label, bcast, nb, end, el, rem,
			R->tty ? "          " : "");
	} else if (R->tty) {
		fprintf(stderr, "\r" ME ": run %d/%d %s  broadcast %d/%d  elapsed %s  remaining "
			"~%s   ", R->run_k, R->nruns, label, bcast, nb, el, rem);
	}
	fflush(stderr);
}

/* ------------------------------------------------------------------ */
/* Lock, grid, monitor                                                 */
/* ------------------------------------------------------------------ */

/* Who holds the lock (read by a second gridexp that finds it busy). */
static void note_lock(struct runner *R)
{
	char buf[PATH_MAX + 128];

	snprintf(buf, sizeof(buf), "gridexp pid %d runs campaign '%s'%s%s\n", (int)getpid(),
		 R->c.name, R->out[0] ? " into " : "", R->out);
	if (ftruncate(R->lockfd, 0) < 0 || pwrite(R->lockfd, buf, strlen(buf), 0) < 0)
		warnx("cannot write '%s': %s", R->lockpath, strerror(errno));
}

/*
 * The campaign's own lock, $GRIDBED_RUNDIR/gridexp-PREFIX.lock, held for the
 * whole run.  It says who holds it, so that a second gridexp can name the
 * first, and so that after a SIGKILL the next one knows the grid of this
 * prefix is a leftover of gridexp's and may be taken down.
 */
static int take_lock(struct runner *R, int *leftover)
{
	char buf[512] = "";
	ssize_t n;
	int fd;

	*leftover = 0;
	if (gb_mkdir_p(R->rundir, 0755) < 0) {
		warnx("cannot create '%s': %s", R->rundir, strerror(errno));
		return -1;
	}
	snprintf(R->lockpath, sizeof(R->lockpath), "%s/gridexp-%s.lock", R->rundir, R->prefix);
	fd = open(R->lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		warnx("cannot open '%s': %s", R->lockpath, strerror(errno));
		return -1;
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char *nl = strchr(buf, '\n');

		if (nl)
			*nl = '\0';
		warnx("prefix '%s' is busy: %s; wait for it, or give another --prefix", R->prefix,
		      *buf ? buf : "another gridexp holds its lock");
		close(fd);
		return -2;
	}
	*leftover = !strncmp(buf, "gridexp ", 8);
	R->lockfd = fd;
	note_lock(R);
	return 0;
}

static void release_lock(struct runner *R)
{
	if (R->lockfd < 0)
		return;
	unlink(R->lockpath);
	close(R->lockfd);
	R->lockfd = -1;
}

static int grid_state_exists(const struct runner *R)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s/state.json", R->rundir, R->prefix);
	return exists(p);
}

static void grid_down(struct runner *R)
{
	char *argv[] = { R->gridemu, "--prefix", R->prefix, "down", NULL };
	char log[PATH_MAX], p[PATH_MAX];
	DIR *d;
	struct dirent *e;

	if (R->attached) {
		gb_grid_close(&R->g);
		R->attached = 0;
	}
	if (!R->grid_up)
		return;
	snprintf(log, sizeof(log), "%s/gridemu.log", R->out);
	if (run_tool(argv, exists(R->out) ? log : NULL) != 0)
		warnx("'gridemu --prefix %s down' failed (see %s)", R->prefix, log);
	R->grid_up = 0;
	/* down keeps the rank maps (a job's record); ours were copied into the runs */
	snprintf(p, sizeof(p), "%s/%s", R->rundir, R->prefix);
	if ((d = opendir(p))) {
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, "mpirun-", 7)) {
				char f[PATH_MAX];

				snprintf(f, sizeof(f), "%s/%s", p, e->d_name);
				if (strstr(e->d_name, ".json"))
					unlink(f);
				else
					gb_rmtree(f);
			}
		closedir(d);
		rmdir(p);
	}
}

static int grid_up(struct runner *R)
{
	char *argv[] = { R->gridemu, "--prefix", R->prefix, "up", R->c.topology, "--backend",
			 R->c.backend, "--quiet", NULL };
	char log[PATH_MAX];
	struct gb_err e = { "" };
	int ret;

	snprintf(log, sizeof(log), "%s/gridemu.log", R->out);
	R->grid_up = 1;              /* a half-built grid is taken down too */
	ret = run_tool(argv, log);
	if (ret != 0) {
		warnx("'gridemu up %s' failed (exit %d); its messages are in %s", R->c.topology,
		      ret, log);
		return -1;
	}
	if (gb_grid_open(&R->g, R->prefix, 0, &e) < 0 || gb_grid_attach(&R->g, &e) < 0) {
		warnx("cannot attach the grid: %s", e.msg);
		return -1;
	}
	gb_grid_unlock(&R->g);
	R->attached = 1;
	snprintf(R->backend, sizeof(R->backend), "%s", gb_grid_backend(&R->g));
	/* wide-area links: the topology's own links (between routers and hubs) */
	R->nwan = 0;
	for (int k = R->g.topo->nhosts + R->g.topo->nclusters;
	     k < R->g.topo->nlinks && R->nwan < 64; k++)
		R->wan[R->nwan++] = k;
	return 0;
}

/* The version of a matrix file, or 0. */
static unsigned long long matrix_version(const char *path)
{
	json_error_t je;
	int ret;
	json_t *j = gb_json_load_file(path, &je, &ret);
	unsigned long long v = j ? (unsigned long long)json_integer_value(
					   json_object_get(j, "version")) : 0;

	json_decref(j);
	return v;
}

/* Copy a new version of gridmon's matrix into monitor/, if there is one. */
static void matrix_poll(struct runner *R)
{
	char to[PATH_MAX];
	unsigned long long v;

	if (R->mon.pid <= 0 || (v = matrix_version(R->matrix)) <= R->mon_seen)
		return;
	snprintf(to, sizeof(to), "%s/monitor/matrix-s%d-v%04llu.json", R->out, R->mon_session, v);
	if (gx_copy_atomic(R->matrix, to) == 0)
		R->mon_seen = v;
}

static int monitor_start(struct runner *R)
{
	char dir[PATH_MAX], log[PATH_MAX], period[32], scale[32], rtt[16];
	char *argv[24];
	int n = 0;
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "%s/monitor", R->out);
	if (gb_mkdir_p(dir, 0755) < 0)
		return -1;
	/* a resumed campaign's gridmon counts versions from 1 again: a new session */
	R->mon_session = 1;
	if ((d = opendir(dir))) {
		while ((e = readdir(d))) {
			int s;

			if (sscanf(e->d_name, "matrix-s%d-", &s) == 1 && s >= R->mon_session)
				R->mon_session = s + 1;
		}
		closedir(d);
	}
	snprintf(R->matrix, sizeof(R->matrix), "%s/matrix.json", dir);
	unlink(R->matrix);
	snprintf(log, sizeof(log), "%s/gridmon-s%d.log", dir, R->mon_session);
	snprintf(period, sizeof(period), "%.6fs", R->c.monitor.period);
	snprintf(scale, sizeof(scale), "%.9g", R->scale);
	argv[n++] = R->gridmon;        /* the grid: $GRIDBED_PREFIX */
	argv[n++] = "--out";
	argv[n++] = R->matrix;
	argv[n++] = "--period";
	argv[n++] = period;
	argv[n++] = "--scale";
	argv[n++] = scale;
	argv[n++] = "--port";
	argv[n++] = MON_PORT;
	if (R->c.monitor.bytes_per_probe[0]) {
		argv[n++] = "--bytes-per-probe";
		argv[n++] = R->c.monitor.bytes_per_probe;
	}
	if (R->c.monitor.max_bytes[0]) {
		argv[n++] = "--max-bytes-per-period";
		argv[n++] = R->c.monitor.max_bytes;
	}
	if (R->c.monitor.rtt_count > 0) {
		snprintf(rtt, sizeof(rtt), "%d", R->c.monitor.rtt_count);
		argv[n++] = "--rtt-count";
		argv[n++] = rtt;
	}
	argv[n] = NULL;
	R->mon_seen = 0;
	if (spawn(&R->mon, argv, log, NULL) < 0)
		return -1;
	/* the measured planners need a first matrix before the first broadcast */
	for (double t0 = gb_now(); !R->mon_seen; nap(0.1)) {
		if (got_signal)
			return -1;
		if (proc_poll(&R->mon)) {
			warnx("gridmon stopped before its first matrix (see %s)", log);
			return -1;
		}
		matrix_poll(R);
		if (R->tty) {
			char el[32];

			fmt_dur(gb_now() - t0, el, sizeof(el));
			fprintf(stderr, "\r" ME ": waiting for gridmon's first matrix ... %s ", el);
		}
	}
	if (R->tty)
		fputc('\n', stderr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* phoenixd: the Phoenix trees (seed 001 s3), from the real protocol    */
/* ------------------------------------------------------------------ */

/* Adds @what (a reference taken) under @key to the newest session of meta.json. */
static void meta_session_add(struct runner *R, const char *key, json_t *what)
{
	char path[PATH_MAX];
	json_error_t je;
	int ret;
	json_t *m, *ss;

	snprintf(path, sizeof(path), "%s/meta.json", R->out);
	m = gb_json_load_file(path, &je, &ret);
	ss = m ? json_object_get(m, "sessions") : NULL;
	if (json_array_size(ss) > 0) {
		json_object_set(json_array_get(ss, json_array_size(ss) - 1), key, what);
		if (gb_json_save_atomic(m, path) < 0)
			warnx("cannot update %s", path);
	}
	json_decref(m);
	json_decref(what);
}

/*
 * Run phoenixd on the campaign's grid until its trees are stable, check
 * every tree it reports (gx_wan_check(), independently of phoenixd's own
 * count) and point the runs at them (GRIDBED_PHOENIX_TREES): the `phoenix`
 * planner then uses the tree the protocol converged to for the root, never
 * its simulation.  Once per session: a resumed campaign's grid is new, so
 * are its trees (phoenixd/s<S>/).
 *
 * Defaults for grids of more than 16 hosts are phoenix-fig5.sh's, measured
 * at 168 hosts on 2 cores (docs/measurements.md): rounds of 2 s, a serial
 * every 2 rounds and serials batched for 10 ms keep the protocol's traffic
 * within what the userspace delay line carries; convergence then takes
 * about 5 min, hence the 15 min timeout.
 */
static int phoenixd_run(struct runner *R)
{
	const struct gx_phoenixd *o = &R->c.phoenixd;
	const struct gb_topo *t = R->c.topo;
	int big = t->nhosts > 16, session = 1, n = 0, st, nopt = 0, nvalid = 0, ret;
	char dir[PATH_MAX], log[PATH_MAX], path[PATH_MAX], rms[16], se[16], co[16], fo[16];
	char tmo[32];
	char *argv[24];
	double timeout = o->timeout > 0 ? o->timeout : big ? 900 : 120, t0 = gb_now(), last = 0;
	struct proc p;
	json_error_t je;
	json_t *sum, *ini, *res;
	FILE *csv;
	char *buf = NULL;
	size_t blen = 0;

	for (;; session++) {
		snprintf(dir, sizeof(dir), "%s/phoenixd/s%d", R->out, session);
		if (!exists(dir))
			break;
	}
	if (gb_mkdir_p(dir, 0755) < 0) {
		warnx("cannot create '%s': %s", dir, strerror(errno));
		return -1;
	}
	snprintf(log, sizeof(log), "%s/log", dir);
	snprintf(rms, sizeof(rms), "%d", o->round_ms ? o->round_ms : big ? 2000 : 200);
	snprintf(se, sizeof(se), "%d", o->serial_every ? o->serial_every : big ? 2 : 1);
	snprintf(co, sizeof(co), "%d", o->coalesce_ms ? o->coalesce_ms : big ? 10 : 2);
	snprintf(tmo, sizeof(tmo), "%.0f", ceil(timeout));
	argv[n++] = R->phoenixd;       /* the grid: $GRIDBED_PREFIX */
	argv[n++] = "run";
	argv[n++] = "--grid";
	argv[n++] = "--out";
	argv[n++] = dir;
	argv[n++] = "--round-ms";
	argv[n++] = rms;
	argv[n++] = "--serial-every";
	argv[n++] = se;
	argv[n++] = "--coalesce-ms";
	argv[n++] = co;
	argv[n++] = "--timeout";
	argv[n++] = tmo;
	if (o->fanout) {
		snprintf(fo, sizeof(fo), "%d", o->fanout);
		argv[n++] = "--fanout";
		argv[n++] = fo;
	}
	argv[n++] = "--verbose";
	argv[n] = NULL;
	fprintf(stderr, ME ": phoenixd: %d processes, rounds of %s ms, until the trees are "
		"stable (at most %s s; progress in %s)\n", t->nhosts, rms, tmo, log);
	if (spawn(&p, argv, log, NULL) < 0) {
		warnx("cannot run phoenixd: %s", strerror(errno));
		return -1;
	}
	while (!proc_poll(&p)) {
		if (got_signal) {
			proc_stop(&p, 10);
			return -1;
		}
		if (gb_now() - last > (R->tty ? 0.5 : 30)) {
			char el[32];

			last = gb_now();
			fmt_dur(last - t0, el, sizeof(el));
			fprintf(stderr, R->tty ? "\r" ME ": phoenixd converging ... %s   " :
				ME ": phoenixd converging ... %s\n", el);
		}
		nap(0.1);
	}
	if (R->tty)
		fputc('\n', stderr);
	st = WIFEXITED(p.status) ? WEXITSTATUS(p.status) : 128 + WTERMSIG(p.status);
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	sum = st == 0 ? gb_json_load_file(path, &je, &ret) : NULL;
	ini = json_object_get(sum, "initial");
	if (!sum || !json_is_true(json_object_get(ini, "converged"))) {
		warnx("phoenixd did not converge (exit %d); see %s", st, log);
		json_decref(sum);
		return -1;
	}
	/* every root's tree, checked here */
	if (!(csv = open_memstream(&buf, &blen))) {
		json_decref(sum);
		return -1;
	}
	fprintf(csv, "root,cluster,valid,wan_edges,wan_optimal,why\n");
	for (int h = 0; h < t->nhosts; h++) {
		struct gx_wan_check w;

		snprintf(path, sizeof(path), "%s/initial/%s.json", dir, t->nodes[h].name);
		ret = gx_wan_check(t, path, &w);
		if (ret == -ENOENT)
			snprintf(w.why, sizeof(w.why), "no tree file");
		nvalid += w.valid && !strcmp(w.root, t->nodes[h].name);
		nopt += w.optimal && !strcmp(w.root, t->nodes[h].name);
		if (!w.optimal && R->px_bad++ < 3)
			warnx("phoenixd's tree for root %s is not wide-area optimal: %s",
			      t->nodes[h].name, w.why);
		fprintf(csv, "%s,%s,%d,%d,%d,\"%s\"\n", t->nodes[h].name,
			t->clusters[t->nodes[h].cluster].name, w.valid, w.wan_edges, w.optimal,
			w.why);
	}
	fclose(csv);
	snprintf(path, sizeof(path), "%s/wan-check.csv", dir);
	if (!buf || gx_write_atomic(path, buf, blen) < 0)
		warnx("cannot write %s", path);
	free(buf);
	res = json_pack("{s:s,s:O,s:i,s:i,s:i,s:i,s:i,s:s,s:s}", "dir", dir, "initial", ini,
			"round_ms", atoi(rms), "serial_every", atoi(se), "coalesce_ms", atoi(co),
			"trees", t->nhosts, "wan_optimal_gridexp", nopt, "wan_check", path,
			"log", log);
	fprintf(stderr, ME ": phoenixd converged after %.1f s (%lld rounds, %lld messages, "
		"%lld parent changes, %lld by shortcut); wide-area optimal trees: %d of %d "
		"(gridexp's check), %lld (phoenixd's own)\n",
		json_number_value(json_object_get(ini, "time_s")),
		json_integer_value(json_object_get(ini, "rounds")),
		json_integer_value(json_object_get(ini, "messages")),
		json_integer_value(json_object_get(ini, "changes")),
		json_integer_value(json_object_get(ini, "shortcuts")), nopt, t->nhosts,
		json_integer_value(json_object_get(ini, "wan_optimal")));
	json_decref(sum);
	meta_session_add(R, "phoenixd", res);
	snprintf(R->ptrees, sizeof(R->ptrees), "%s", dir);
	return nvalid == t->nhosts ? 0 : (warnx("phoenixd reported %d valid trees of %d",
						 nvalid, t->nhosts), -1);
}

/* --hosts for gridemu mpirun when the rank order is not the topology's. */
static int rank_hosts(struct runner *R)
{
	const struct gb_topo *t = R->c.topo;
	int *h = malloc(sizeof(int) * (size_t)t->nhosts), n;
	size_t len = 0;
	FILE *f;

	if (R->c.ranks.order == GX_ORDER_TOPOLOGY) {
		free(h);
		return 0;
	}
	if (!h || !(f = open_memstream(&R->hosts, &len))) {
		free(h);
		return -ENOMEM;
	}
	n = gx_rank_hosts(&R->c, h);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", t->nodes[h[i]].name);
	free(h);
	return fclose(f) == 0 ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------------ */
/* One run                                                             */
/* ------------------------------------------------------------------ */

struct run {
	int cond, algo, rep;
	char id[128];
	char tmp[PATH_MAX], dir[PATH_MAX];
	struct gb_load_sched sched;
	struct proc mpirun, adv, load;
	int loadpipe;
	double load_t0;
	int go;
	struct gb_capture *cap;
	FILE *capf;
	char *capbuf;
	size_t caplen;
	uint64_t last[128];
	int nsample;
	double t0, t_ready, t_go, t_advisor;
	long applog_off;
	int bcasts;
	char status[160];
};

static volatile sig_atomic_t load_stop;

static void on_load_signal(int sig)
{
	(void)sig;
	load_stop = 1;
}

struct load_arg {
	int fd;
	int sent;
};

static void load_progress(void *arg, const struct gb_load_progress *p)
{
	struct load_arg *a = arg;
	/* gb_load_run measured p->elapsed from its start just now */
	double t0 = gb_now() - p->elapsed;

	if (!a->sent && write(a->fd, &t0, sizeof(t0)) == (ssize_t)sizeof(t0))
		a->sent = 1;
}

/*
 * The load schedule, in a child process: the same libgbload that `gridload
 * run` is, so that the child can tell us exactly when its clock started
 * (CLOCK_MONOTONIC, through a pipe): the load intervals the application
 * classifies its broadcasts by are then exact.
 */
static int load_start(struct runner *R, struct run *r, int mode)
{
	int fd[2];
	pid_t parent = getpid();
	char log[PATH_MAX], csv[PATH_MAX];

	if (pipe2(fd, O_CLOEXEC) < 0)
		return -errno;
	snprintf(log, sizeof(log), "%s/load.log", r->tmp);
	snprintf(csv, sizeof(csv), "%s/load.csv", r->tmp);
	fflush(stdout);
	fflush(stderr);
	memset(&r->load, 0, sizeof(r->load));
	r->load.pid = fork();
	if (r->load.pid < 0)
		return -errno;
	if (r->load.pid == 0) {
		struct load_arg a = { fd[1], 0 };
		struct gb_load_run_opts o = { .mode = mode, .log_path = csv,
					      .progress = load_progress, .arg = &a,
					      .stop = &load_stop };
		struct gb_grid g;
		struct gb_err e = { "" };
		struct sigaction sa;
		int lfd, err;

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(126);
		setpgid(0, 0);
		close(fd[0]);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_load_signal;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (lfd >= 0) {
			dup2(lfd, 1);
			dup2(lfd, 2);
		}
		R->attached = 0;        /* the parent's handle is not ours to close */
		if ((err = gb_grid_open(&g, R->prefix, 0, &e)) < 0 ||
		    (err = gb_grid_attach(&g, &e)) < 0) {
			fprintf(stderr, ME ": load: %s\n", e.msg);
			_exit(1);
		}
		gb_grid_unlock(&g);
		printf(ME ": load: %d intervals, %s mode, scale %g, seed %llu\n", r->sched.n,
		       gb_load_mode_name(mode), r->sched.scale,
		       (unsigned long long)r->sched.seed);
		fflush(stdout);
		err = gb_load_run(&g, &r->sched, &o, &e);
		if (err < 0 && err != -EINTR)
			fprintf(stderr, ME ": load: %s\n", e.msg);
		gb_grid_close(&g);
		_exit(err == 0 || err == -EINTR ? 0 : 1);
	}
	close(fd[1]);
	r->loadpipe = fd[0];
	fcntl(r->loadpipe, F_SETFL, O_NONBLOCK);
	return 0;
}

static int write_json(const char *path, json_t *j)
{
	int ret = j ? gb_json_save_atomic(j, path) : -ENOMEM;

	json_decref(j);
	return ret;
}

/* go.json: the load intervals in CLOCK_MONOTONIC s (none without load). */
static int write_go(struct runner *R, struct run *r)
{
	json_t *iv = json_array();
	char path[PATH_MAX];

	for (int i = 0; r->load.pid > 0 && i < r->sched.n; i++) {
		const struct gb_load_iv *v = &r->sched.iv[i];

		json_array_append_new(iv, json_pack("[f,f]", r->load_t0 + v->start * r->sched.scale,
						    r->load_t0 + (v->start + v->duration) *
								 r->sched.scale));
	}
	snprintf(path, sizeof(path), "%s/go.json", r->tmp);
	r->t_go = gb_now();
	(void)R;
	return write_json(path, json_pack("{s:b,s:o,s:o,s:f}", "load", r->load.pid > 0,
					  "load_t0", r->load.pid > 0 ? json_real(r->load_t0) :
					  json_null(), "intervals", iv, "t_go", r->t_go));
}

/* Cumulative IP bytes of each captured direction, one row when any changed. */
static void capture_sample(struct runner *R, struct run *r, int force)
{
	uint64_t now[128], tot = 0;
	int changed = force || !r->nsample;
	double t = gb_now();

	if (!r->cap || !r->capf)
		return;
	for (int k = 0; k < R->nwan; k++)
		for (int d = 0; d < 2; d++) {
			struct gb_capture_count cc = { 0 };

			gb_capture_counters(r->cap, R->wan[k], d, &cc);
			now[2 * k + d] = cc.ip_bytes;
			tot += cc.ip_bytes;
			changed |= cc.ip_bytes != r->last[2 * k + d];
		}
	if (!changed)
		return;
	fprintf(r->capf, "%.6f", t);
	for (int k = 0; k < 2 * R->nwan; k++) {
		fprintf(r->capf, ",%llu", (unsigned long long)now[k]);
		r->last[k] = now[k];
	}
	fprintf(r->capf, ",%llu\n", (unsigned long long)tot);
	r->nsample++;
}

static int capture_start(struct runner *R, struct run *r)
{
	struct gb_capture_opts o = { .filter = CAPTURE_FILTER, .dir = -1 };
	struct gb_err e = { "" };
	const struct gb_topo *t = R->g.topo;

	r->capf = open_memstream(&r->capbuf, &r->caplen);
	if (!r->capf)
		return -ENOMEM;
	fprintf(r->capf, "t_mono");
	for (int k = 0; k < R->nwan; k++) {
		const struct gb_link *l = &t->links[R->wan[k]];

		fprintf(r->capf, ",%s:%s>%s,%s:%s>%s", l->name, t->nodes[l->a].name,
			t->nodes[l->b].name, l->name, t->nodes[l->b].name, t->nodes[l->a].name);
	}
	fprintf(r->capf, ",wan_ip_bytes\n");
	if (!R->nwan)
		return 0;
	if (gb_capture_start(&R->g, R->wan, R->nwan, &o, &r->cap, &e) < 0) {
		warnx("capture on the wide-area links: %s (the run goes on without it)", e.msg);
		r->cap = NULL;
		return 0;
	}
	capture_sample(R, r, 1);
	return 0;
}

static void capture_finish(struct runner *R, struct run *r)
{
	struct gb_err e = { "" };
	char path[PATH_MAX], *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (r->cap) {
		gb_capture_stop(r->cap, &e);   /* drains what arrived before now */
		capture_sample(R, r, 1);
		/* per direction totals of the run */
		if ((f = open_memstream(&buf, &len))) {
			fprintf(f, "link,dir,packets,ip_bytes,frame_bytes,drops\n");
			for (int k = 0; k < R->nwan; k++)
				for (int d = 0; d < 2; d++) {
					const struct gb_link *l = &R->g.topo->links[R->wan[k]];
					struct gb_capture_count cc = { 0 };

					gb_capture_counters(r->cap, R->wan[k], d, &cc);
					fprintf(f, "%s,%s>%s,%llu,%llu,%llu,%llu\n", l->name,
						R->g.topo->nodes[d ? l->b : l->a].name,
						R->g.topo->nodes[d ? l->a : l->b].name,
						(unsigned long long)cc.packets,
						(unsigned long long)cc.ip_bytes,
						(unsigned long long)cc.frame_bytes,
						(unsigned long long)cc.drops);
				}
			if (fclose(f) == 0) {
				snprintf(path, sizeof(path), "%s/capture-links.csv", r->tmp);
				gx_write_atomic(path, buf, len);
			}
			free(buf);
		}
		gb_capture_free(r->cap);
		r->cap = NULL;
	}
	if (r->capf) {
		fclose(r->capf);
		r->capf = NULL;
		snprintf(path, sizeof(path), "%s/capture.csv", r->tmp);
		gx_write_atomic(path, r->capbuf, r->caplen);
		free(r->capbuf);
		r->capbuf = NULL;
	}
}

/* Broadcasts started so far: lines of the application log. */
static void count_applog(struct run *r)
{
	char path[PATH_MAX], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/applog.txt", r->tmp);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	while ((n = pread(fd, buf, sizeof(buf), r->applog_off)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			r->bcasts += buf[i] == '\n';
		r->applog_off += n;
	}
	close(fd);
}

static void copy_rankmap(struct run *r)
{
	char path[PATH_MAX], to[PATH_MAX];
	json_error_t je;
	int ret;
	json_t *j;

	snprintf(path, sizeof(path), "%s/ready.json", r->tmp);
	j = gb_json_load_file(path, &je, &ret);
	if (j && json_string_value(json_object_get(j, "rankmap"))) {
		snprintf(to, sizeof(to), "%s/rankmap.json", r->tmp);
		gx_copy_atomic(json_string_value(json_object_get(j, "rankmap")), to);
	}
	json_decref(j);
}

/* argv[(*n)++] = a new string from @fmt; NULL when out of memory (checked by the caller). */
static __attribute__((format(printf, 3, 4))) int add_arg(char **argv, int *n, const char *fmt,
							 ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	argv[(*n)++] = s;
	return s ? 0 : -ENOMEM;
}

/* gridemu mpirun ... -- synthapp ... */
static int mpirun_argv(struct runner *R, struct run *r, char **argv, char **env)
{
	const struct gx_campaign *c = &R->c;
	const struct gx_algo *a = &c->algos[r->algo];
	const struct gx_pattern *p = &c->app.pat;
	double timeout = c->timeout > 0 ? c->timeout : 180 + 3 * planned_app(R);
	int n = 0, e = 0;

	add_arg(argv, &n, "%s", R->gridemu);
	add_arg(argv, &n, "--prefix");
	add_arg(argv, &n, "%s", R->prefix);
	add_arg(argv, &n, "mpirun");
	add_arg(argv, &n, "--preload");
	add_arg(argv, &n, "%s", R->libbcast);
	add_arg(argv, &n, "--timeout");
	add_arg(argv, &n, "%.0f", ceil(timeout));
	if (R->hosts) {
		add_arg(argv, &n, "--hosts");
		add_arg(argv, &n, "%s", R->hosts);
	}
	add_arg(argv, &n, "--");
	add_arg(argv, &n, "%s", R->synthapp);
	add_arg(argv, &n, "--dir");
	add_arg(argv, &n, "%s", r->tmp);
	add_arg(argv, &n, "--root");
	add_arg(argv, &n, "%s", c->app.root);
	add_arg(argv, &n, "--campaign");
	add_arg(argv, &n, "%s", c->name);
	add_arg(argv, &n, "--run-id");
	add_arg(argv, &n, "%s", r->id);
	add_arg(argv, &n, "--algo");
	add_arg(argv, &n, "%s", a->label);
	add_arg(argv, &n, "--cond");
	add_arg(argv, &n, "%s", c->conds[r->cond].name);
	add_arg(argv, &n, "--rep");
	add_arg(argv, &n, "%d", r->rep);
	add_arg(argv, &n, "--seed");
	add_arg(argv, &n, "%llu", (unsigned long long)(c->seed + (uint64_t)r->rep - 1));
	add_arg(argv, &n, "--scale");
	add_arg(argv, &n, "%.17g", R->scale);
	if (p->nsizes) {
		char list[GX_MAX_SIZES * 16] = "";

		for (int i = 0; i < p->nsizes; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%.0f",
				 i ? "," : "", p->sizes[i]);
		add_arg(argv, &n, "--sizes");
		add_arg(argv, &n, "%s", list);
		add_arg(argv, &n, "--reps");
		add_arg(argv, &n, "%d", p->reps);
	} else {
		add_arg(argv, &n, "--broadcasts");
		add_arg(argv, &n, "%d", p->broadcasts);
		add_arg(argv, &n, "--size-first");
		add_arg(argv, &n, "%.0f", p->size_first);
		add_arg(argv, &n, "--size-last");
		add_arg(argv, &n, "%.0f", p->size_last);
	}
	add_arg(argv, &n, "--gap-first");
	add_arg(argv, &n, "%.9fs", p->gap_first);
	add_arg(argv, &n, "--gap-factor");
	add_arg(argv, &n, "%.17g", p->gap_factor);
	if (c->app.warmup)
		add_arg(argv, &n, "--warmup");
	if (c->app.start_clock)
		add_arg(argv, &n, "--start-clock");
	if (c->app.fail_rank >= 0 && (!c->app.fail_algo[0] ||
				      !strcmp(c->app.fail_algo, a->label))) {
		add_arg(argv, &n, "--fail-rank");
		add_arg(argv, &n, "%d", c->app.fail_rank);
		add_arg(argv, &n, "--fail-at");
		add_arg(argv, &n, "%d", c->app.fail_at);
	}
	argv[n] = NULL;

	/* gridemu mpirun exports every GRIDBED_* variable to the ranks */
	add_arg(env, &e, "GRIDBED_BCAST=%s", a->bcast);
	add_arg(env, &e, "GRIDBED_APPLOG=%s/applog.txt", r->tmp);
	add_arg(env, &e, "GRIDBED_BCAST_RECORD=%s/record.jsonl", r->tmp);
	add_arg(env, &e, "GRIDBED_SEED=%llu", (unsigned long long)c->seed);
	add_arg(env, &e, "GRIDBED_CAMPAIGN=%s", c->name);
	add_arg(env, &e, "GRIDBED_RUN_ID=%s", r->id);
	if (R->mon.pid > 0)
		add_arg(env, &e, "GRIDBED_MATRIX=%s", R->matrix);
	if (a->advisor)
		add_arg(env, &e, "GRIDBED_ADVISOR_DIR=%s/advisor", r->tmp);
	if (R->ptrees[0])
		add_arg(env, &e, "GRIDBED_PHOENIX_TREES=%s", R->ptrees);
	if (c->app.wait_sleep)
		add_arg(env, &e, "GRIDBED_BCAST_WAIT=sleep");
	if (!getenv("PMIX_MCA_gds"))   /* PLATFORM.md: many orteds on one box */
		add_arg(env, &e, "PMIX_MCA_gds=hash");
	env[e] = NULL;
	for (int i = 0; i < n; i++)
		if (!argv[i])
			return -ENOMEM;
	for (int i = 0; i < e; i++)
		if (!env[i])
			return -ENOMEM;
	return 0;
}

/*
 * gridadvisor for an adaptive run, over the application's sizes (powers of
 * two around them).  The paper's advisor is a service that runs before the
 * application (its mode 1 plans every size in turn); here it starts with the
 * run, so the run waits for its first pass over the sizes, else the first
 * broadcasts would find no tree or one planned for another size.
 */
static int advisor_start(struct runner *R, struct run *r)
{
	const struct gx_algo *a = &R->c.algos[r->algo];
	const struct gx_pattern *p = &R->c.app.pat;
	char out[PATH_MAX], applog[PATH_MAX], log[PATH_MAX], scale[32], lo[32], hi[32];
	char csv[PATH_MAX];
	char *argv[] = { R->advisor, "--matrix", R->matrix, "--out", out, "--applog", applog,
			 "--planner", (char *)a->planner, "--topology", R->c.topology, "--root",
			 R->c.app.root, "--scale", scale, "--min-size", lo, "--max-size", hi, NULL };
	double smin = INFINITY, pmin = 1024, pmax = 1024, t0 = gb_now();
	int want = 1;

	for (int i = 0; i < gx_pattern_count(p); i++)
		smin = fmin(smin, gx_pattern_size(p, i));
	while (pmin * 2 <= smin)
		pmin *= 2;
	for (pmax = pmin; pmax < gx_pattern_max_size(p); pmax *= 2)
		want++;
	snprintf(out, sizeof(out), "%s/advisor", r->tmp);
	snprintf(applog, sizeof(applog), "%s/applog.txt", r->tmp);
	snprintf(log, sizeof(log), "%s/advisor.log", r->tmp);
	snprintf(csv, sizeof(csv), "%s/advisor.csv", out);
	snprintf(scale, sizeof(scale), "%.9g", R->scale);
	snprintf(lo, sizeof(lo), "%.0f", pmin);
	snprintf(hi, sizeof(hi), "%.0f", pmax);
	if (gb_mkdir_p(out, 0755) < 0 || spawn(&r->adv, argv, log, NULL) < 0)
		return -errno;
	for (;;) {
		char el[32];
		FILE *f = fopen(csv, "re");
		int lines = 0, ch;

		while (f && (ch = getc(f)) != EOF)
			lines += ch == '\n';
		if (f)
			fclose(f);
		if (lines - 1 >= want)     /* the header, then one line per plan */
			break;
		if (got_signal || proc_poll(&r->adv))
			return got_signal ? -EINTR : -ECHILD;
		if (gb_now() - t0 > 600) {
			warnx("gridadvisor has not planned the %d sizes in 10 min; the run "
			      "starts anyway", want);
			break;
		}
		if (R->tty) {
			fmt_dur(gb_now() - t0, el, sizeof(el));
			fprintf(stderr, "\r" ME ": run %d/%d: gridadvisor plans %d sizes, %d done "
				"(%s)   ", R->run_k, R->nruns, want, lines > 0 ? lines - 1 : 0, el);
		}
		nap(0.1);
	}
	r->t_advisor = gb_now() - t0;
	return 0;
}

static void status_of(const struct proc *p, char *buf, size_t len, int interrupted)
{
	int st = p->status;

	if (interrupted)
		snprintf(buf, len, "interrupted");
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		snprintf(buf, len, "ok");
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 124)
		snprintf(buf, len, "failed: timeout");
	else if (WIFEXITED(st))
		snprintf(buf, len, "failed: mpirun exit %d", WEXITSTATUS(st));
	else
		snprintf(buf, len, "failed: mpirun killed by signal %d", WTERMSIG(st));
}

/* The first line of mpirun.log that names the failure, for the record. */
static void failure_reason(const struct run *r, char *buf, size_t len)
{
	char path[PATH_MAX], line[512];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/mpirun.log", r->tmp);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "fail") || strstr(line, "exit") || strstr(line, "knob")) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", line);
			if (strstr(line, "knob"))
				break;
		}
	fclose(f);
}

static int run_one(struct runner *R, struct run *r)
{
	const struct gx_campaign *c = &R->c;
	const struct gx_algo *a = &c->algos[r->algo];
	char *argv[80], *env[16], path[PATH_MAX], log[PATH_MAX], reason[512];
	struct gb_diag d;
	json_t *j;
	double last_ui = 0, last_mon = 0;
	int nb = gx_pattern_count(&c->app.pat), interrupted = 0, ret;

	memset(argv, 0, sizeof(argv));
	memset(env, 0, sizeof(env));
	r->t0 = gb_now();
	gb_rmtree(r->tmp);
	if (gb_mkdir_p(r->tmp, 0755) < 0) {
		warnx("cannot create '%s': %s", r->tmp, strerror(errno));
		return -1;
	}
	gb_load_sched_init(&r->sched);
	if (gx_campaign_schedule(c, r->cond, r->rep, &r->sched, &d) < 0) {
		warnx("%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
		return -1;
	}
	r->sched.scale = R->scale;   /* --scale overrides the campaign's */
	if (R->tcp_axis) {
		struct gb_err e = { "" };
		const struct gb_tcp_set *over = c->conds[r->cond].tcp.set ? &c->conds[r->cond].tcp
									   : NULL;

		/* the condition's stack (or the topology's again): an axis */
		if (gb_grid_tcp_set(&R->g, over, &e) < 0) {
			warnx("%s", e.msg);
			return -1;
		}
	}
	if (a->advisor && (ret = advisor_start(R, r)) < 0) {
		if (ret != -EINTR)
			warnx("gridadvisor did not start (see %s/advisor.log)", r->tmp);
		proc_stop(&r->adv, 10);
		return -1;
	}
	capture_start(R, r);
	if (mpirun_argv(R, r, argv, env) < 0) {
		warnx("out of memory");
		return -1;
	}
	snprintf(log, sizeof(log), "%s/mpirun.log", r->tmp);
	if (spawn(&r->mpirun, argv, log, env) < 0) {
		warnx("cannot run gridemu mpirun: %s", strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/ready.json", r->tmp);
	for (;;) {
		double t = gb_now();

		if (got_signal && !interrupted) {
			interrupted = 1;
			proc_stop(&r->mpirun, 10);
		}
		if (proc_poll(&r->mpirun))
			break;
		if (!r->go && exists(path)) {
			if (!r->t_ready)
				r->t_ready = t;
			if (r->sched.n > 0 && r->load.pid <= 0 &&
			    load_start(R, r, c->conds[r->cond].mode) < 0) {
				warnx("cannot start the load: %s", strerror(errno));
				proc_stop(&r->mpirun, 10);
				break;
			}
			if (r->load.pid > 0 && read(r->loadpipe, &r->load_t0, sizeof(double)) ==
			    (ssize_t)sizeof(double))
				r->go = 1;
			else if (r->load.pid <= 0)
				r->go = 1;
			else if (proc_poll(&r->load)) {
				warnx("the load schedule stopped before it started (see %s/load.log)",
				      r->tmp);
				proc_stop(&r->mpirun, 10);
				break;
			}
			if (r->go && write_go(R, r) < 0)
				warnx("cannot write %s/go.json", r->tmp);
		}
		capture_sample(R, r, 0);
		if (t - last_mon > 0.25) {
			matrix_poll(R);
			last_mon = t;
		}
		if (t - last_ui > 0.5) {
			count_applog(r);
			progress(R, a->label, r->bcasts, nb, r->t0, NULL);
			last_ui = t;
		}
		nap(TICK);
	}
	if (r->load.pid > 0) {
		proc_stop(&r->load, 15);
		close(r->loadpipe);
	}
	if (r->sched.n > 0 && c->conds[r->cond].mode == GB_LOAD_SHAPE) {
		struct gb_err e = { "" };

		/* what `gridload restore` does: links a stopped shaping left lowered */
		if (gb_load_restore(R->prefix, NULL, &e) < 0)
			warnx("gridload restore: %s", e.msg);
	}
	capture_finish(R, r);
	if (r->adv.pid > 0)
		proc_stop(&r->adv, 10);
	count_applog(r);
	copy_rankmap(r);
	snprintf(path, sizeof(path), "%s/broadcasts.csv", r->tmp);
	if (exists(path))
		gx_wan_compute(r->tmp);
	matrix_poll(R);
	status_of(&r->mpirun, r->status, sizeof(r->status), interrupted);
	reason[0] = '\0';
	if (strcmp(r->status, "ok") && !interrupted)
		failure_reason(r, reason, sizeof(reason));
	snprintf(path, sizeof(path), "%s/run.json", r->tmp);
	j = json_pack("{s:s,s:s,s:s,s:s,s:i,s:s,s:s,s:i,s:s,s:i,s:s,s:f,s:f,s:o,s:o,s:i,s:I}",
		      "format", "gridbed-campaign-run", "id", r->id, "campaign", c->name,
		      "algorithm", a->label, "algo", r->algo, "bcast", a->bcast, "condition",
		      c->conds[r->cond].name, "cond", r->cond, "status", r->status, "rep",
		      r->rep, "reason", reason, "started_mono", r->t0, "wall_s", gb_now() - r->t0,
		      "load_t0", r->load.pid > 0 && r->go ? json_real(r->load_t0) : json_null(),
		      "ready_to_go_s", r->go && r->t_ready ? json_real(r->t_go - r->t_ready) :
		      json_null(), "broadcasts_started", r->bcasts, "load_seed",
		      (json_int_t)(c->seed + (uint64_t)r->rep - 1));
	if (j) {
		json_object_set_new(j, "load_intervals", json_integer(r->sched.n));
		json_object_set_new(j, "load_mode", json_string(gb_load_mode_name(
							c->conds[r->cond].mode)));
		json_object_set_new(j, "advisor_planner", a->advisor ? json_string(a->planner) :
				    json_null());
		json_object_set_new(j, "advisor_first_pass_s", a->advisor ?
				    json_real(r->t_advisor) : json_null());
		json_object_set_new(j, "mpirun_status", json_integer(r->mpirun.status));
		json_t *tcp = gb_grid_tcp_json(&R->g);
		json_object_set_new(j, "tcp", tcp ? tcp : json_null());
	}
	ret = write_json(path, j);
	for (int i = 0; argv[i]; i++)
		free(argv[i]);
	for (int i = 0; env[i]; i++)
		free(env[i]);
	gb_load_sched_release(&r->sched);
	if (ret < 0 || interrupted)
		return -1;       /* incomplete: --resume runs it again from scratch */
	/* complete: the marker, then the directory appears under its name at once */
	snprintf(path, sizeof(path), "%s/complete", r->tmp);
	if (gx_write_atomic(path, r->status, strlen(r->status)) < 0 ||
	    rename(r->tmp, r->dir) < 0) {
		warnx("cannot complete run '%s': %s", r->id, strerror(errno));
		return -1;
	}
	R->run_wall_sum += gb_now() - r->t0;
	R->run_wall_n++;
	if (strcmp(r->status, "ok")) {
		R->failed_runs++;
		snprintf(r->status + strlen(r->status), sizeof(r->status) - strlen(r->status),
			 "%s%.100s", reason[0] ? " (" : "", reason[0] ? reason : "");
		if (reason[0])
			strcat(r->status, ")");
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Results directory and meta.json                                     */
/* ------------------------------------------------------------------ */

static void first_line_of(char *const *argv, char *buf, size_t len)
{
	int fd[2];
	pid_t pid;
	ssize_t n;

	buf[0] = '\0';
	if (pipe(fd) < 0)
		return;
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fd[1], 1);
		if (null >= 0)
			dup2(null, 2);
		close(fd[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	n = pid > 0 ? read(fd[0], buf, len - 1) : 0;
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static int write_meta(struct runner *R, int fresh)
{
	char path[PATH_MAX], mpi[256], gp[256];
	char *mv[] = { "mpirun", "--version", NULL }, *gv[] = { "gnuplot", "--version", NULL };
	json_error_t je;
	json_t *j = NULL, *runs, *sess, *tools, *wan, *tcp;
	struct utsname u;
	time_t now = time(NULL);
	char when[64];
	int ret;

	snprintf(path, sizeof(path), "%s/meta.json", R->out);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (!fresh)
		j = gb_json_load_file(path, &je, &ret);
	if (!j) {
		j = json_object();
		runs = json_array();
		json_object_set_new(j, "format", json_string("gridbed-campaign-results"));
		json_object_set_new(j, "results_id", json_string(R->stamp));
		json_object_set_new(j, "created", json_string(when));
		json_object_set_new(j, "campaign", gx_campaign_json(&R->c));
		json_object_set_new(j, "scale", json_real(R->scale));
		for (int rep = 1; rep <= R->c.repetitions; rep++)
			for (int c = 0; c < R->c.nconds; c++)
				for (int a = 0; a < R->c.nalgos; a++) {
					char id[128];

					gx_run_id(&R->c, c, a, rep, id, sizeof(id));
					json_array_append_new(runs, json_pack(
						"{s:s,s:i,s:i,s:i,s:s,s:s,s:I}", "id", id, "algo", a,
						"cond", c, "rep", rep, "algorithm", R->c.algos[a].label,
						"condition", R->c.conds[c].name, "load_seed",
						(json_int_t)(R->c.seed + (uint64_t)rep - 1)));
				}
		json_object_set_new(j, "runs", runs);
		json_object_set_new(j, "sessions", json_array());
	}
	uname(&u);
	first_line_of(mv, mpi, sizeof(mpi));
	first_line_of(gv, gp, sizeof(gp));
	tools = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "gridbed", GRIDBED_GIT_REV, "mpirun", mpi,
			  "gnuplot", gp, "libyaml", yaml_get_version_string(), "jansson",
			  JANSSON_VERSION, "libpcap", pcap_lib_version());
	wan = json_array();
	for (int k = 0; R->attached && k < R->nwan; k++)
		json_array_append_new(wan, json_string(R->g.topo->links[R->wan[k]].name));
	/* the hosts' TCP stack as read back from the grid (issue 18) */
	tcp = R->attached ? gb_grid_tcp_json(&R->g) : NULL;
	sess = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:o,s:s,s:b,s:o}", "started", when, "prefix",
			 R->prefix, "backend", R->backend, "kernel", u.release, "machine",
			 u.machine, "tools", tools, "wan_links", wan, "capture_filter",
			 CAPTURE_FILTER, "resumed", !fresh, "tcp", tcp ? tcp : json_null());
	json_array_append_new(json_object_get(j, "sessions"), sess);
	/* the first session's facts at the top, as ARCHITECTURE.md decision 7 lists them */
	if (fresh || !json_object_get(j, "backend")) {
		json_object_set_new(j, "topology", json_string(R->c.topology));
		json_object_set_new(j, "backend", json_string(R->backend));
		json_object_set_new(j, "kernel", json_string(u.release));
		json_object_set_new(j, "tcp", json_deep_copy(json_object_get(sess, "tcp")));
		json_object_set_new(j, "git_revision", json_string(GRIDBED_GIT_REV));
		json_object_set_new(j, "seeds", json_pack("{s:I,s:I,s:s}", "campaign",
							  (json_int_t)R->c.seed, "planner",
							  (json_int_t)R->c.seed, "load",
							  "campaign seed + repetition - 1"));
		json_object_set_new(j, "tools", json_deep_copy(tools));
	}
	ret = gb_json_save_atomic(j, path);
	json_decref(j);
	return ret;
}

static int prepare_out(struct runner *R, const char *out_root, const char *resume)
{
	char path[PATH_MAX];
	time_t now = time(NULL);
	char *old = NULL;
	size_t olen;
	int ret;

	if (resume) {
		json_error_t je;
		json_t *m;

		snprintf(R->out, sizeof(R->out), "%s", resume);
		snprintf(path, sizeof(path), "%s/meta.json", R->out);
		m = gb_json_load_file(path, &je, &ret);
		if (!m) {
			warnx("--resume: '%s' is not a campaign's results directory (%s)", resume,
			      ret == -EINVAL ? je.text : strerror(-ret));
			return -2;
		}
		snprintf(R->stamp, sizeof(R->stamp), "%s",
			 json_string_value(json_object_get(m, "results_id")) ?: "");
		if (R->scale != json_number_value(json_object_get(m, "scale"))) {
			if (R->scale != R->c.scale) {
				warnx("--resume: '%s' ran at scale %g, not %g", resume,
				      json_number_value(json_object_get(m, "scale")), R->scale);
				json_decref(m);
				return -2;
			}
			R->scale = json_number_value(json_object_get(m, "scale"));
		}
		json_decref(m);
		snprintf(path, sizeof(path), "%s/campaign.yaml", R->out);
		if (gb_read_file(path, 4u << 20, &old, &olen) < 0 || olen != R->c.text_len ||
		    memcmp(old, R->c.text, olen)) {
			warnx("--resume: '%s' was made by another campaign file than '%s'", resume,
			      R->c.path);
			free(old);
			return -2;
		}
		free(old);
		return 0;
	}
	strftime(R->stamp, sizeof(R->stamp), "%Y%m%dT%H%M%SZ", gmtime(&now));
	snprintf(R->out, sizeof(R->out), "%s/%s/%s", out_root, R->c.name, R->stamp);
	for (int k = 2; exists(R->out); k++)   /* two runs in one second */
		snprintf(R->out, sizeof(R->out), "%s/%s/%s-%d", out_root, R->c.name, R->stamp, k);
	snprintf(R->stamp, sizeof(R->stamp), "%s", strrchr(R->out, '/') + 1);
	if ((ret = gb_mkdir_p(R->out, 0755)) < 0) {
		warnx("cannot create '%s': %s", R->out, strerror(-ret));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/runs", R->out);
	gb_mkdir_p(path, 0755);
	snprintf(path, sizeof(path), "%s/campaign.yaml", R->out);
	if (gx_write_atomic(path, R->c.text, R->c.text_len) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/topology.yaml", R->out);
	gx_copy_atomic(R->c.topology, path);
	return 0;
}

/* ------------------------------------------------------------------ */
/* run                                                                 */
/* ------------------------------------------------------------------ */

struct run_opts {
	const char *file, *resume, *out_root, *prefix;
	char only[512];
	double scale;
	int plots, dry;
};

static void teardown(struct runner *R)
{
	proc_stop(&R->mon, 10);
	matrix_poll(R);
	grid_down(R);
	release_lock(R);
}

/* --dry-run: what would run, the load intervals, the planned durations. */
static int dry_run(struct runner *R)
{
	const struct gx_campaign *c = &R->c;
	char d1[32], d2[32];
	int n = 0;

	for (int rep = 1; rep <= c->repetitions; rep++)
		for (int k = 0; k < c->nconds; k++)
			for (int a = 0; a < c->nalgos; a++)
				n += R->use[a];
	double lo = INFINITY;

	for (int i = 0; i < gx_pattern_count(&c->app.pat); i++)
		lo = fmin(lo, gx_pattern_size(&c->app.pat, i));
	fmt_dur(planned_app(R), d1, sizeof(d1));
	fmt_dur(n * (planned_app(R) + 15), d2, sizeof(d2));
	printf("campaign %s (%s): topology %s, %d hosts, root %s, scale %g\n", c->name, c->path,
	       c->topology, c->topo->nhosts, c->app.root, R->scale);
	printf("application: %d broadcasts, %.0f .. %.0f bytes, planned %s per run (the sum of "
	       "the scaled gaps)\n", gx_pattern_count(&c->app.pat), lo,
	       gx_pattern_max_size(&c->app.pat), d1);
	printf("runs: %d (repetitions x conditions x algorithms); at least %s with ~15 s of "
	       "launch per run, more where broadcasts outlast their gaps\n", n, d2);
	printf("ranks: %s order%s; start: %s; wait: %s\n", gx_order_name(c->ranks.order),
	       c->ranks.order == GX_ORDER_SHUFFLE ? " (seeded)" : "",
	       c->app.start_clock ? "clock (no barrier)" : "barrier",
	       c->app.wait_sleep ? "sleep" : "spin");
	if (rank_hosts(R) < 0)
		return 1;
	if (R->hosts) {
		printf("  rank order: ");
		for (const char *p = R->hosts; *p; p++)
			putchar(*p == ',' ? ' ' : *p);
		printf("\n");
	}
	if (gx_campaign_needs_phoenixd(c, R->use))
		printf("phoenixd: runs once on the grid before the runs; the phoenix runs use "
		       "the trees it converges to\n");
	for (int rep = 1; rep <= c->repetitions; rep++)
		for (int k = 0; k < c->nconds; k++) {
			struct gb_load_sched s;
			struct gb_diag d;

			gb_load_sched_init(&s);
			if (gx_campaign_schedule(c, k, rep, &s, &d) < 0) {
				fprintf(stderr, "%s:%d:%d: %s\n", d.file, d.line, d.col, d.msg);
				return 2;
			}
			s.scale = R->scale;
			printf("condition %s, repetition %d: %d load interval%s (%s mode)\n",
			       c->conds[k].name, rep, s.n, s.n == 1 ? "" : "s",
			       gb_load_mode_name(c->conds[k].mode));
			for (int i = 0; i < s.n; i++)
				printf("  load %d: %.3f .. %.3f s, %.0f %%\n", i + 1,
				       s.iv[i].start * s.scale,
				       (s.iv[i].start + s.iv[i].duration) * s.scale,
				       s.iv[i].fraction * 100);
			for (int a = 0; a < c->nalgos; a++) {
				char id[128];

				if (!R->use[a])
					continue;
				gx_run_id(c, k, a, rep, id, sizeof(id));
				printf("  run %s: GRIDBED_BCAST=%s%s%s%s\n", id, c->algos[a].bcast,
				       c->algos[a].advisor ? ", gridadvisor --planner " : "",
				       c->algos[a].advisor ? c->algos[a].planner : "",
				       c->algos[a].monitor ? ", gridmon's matrix" : "");
			}
			gb_load_sched_release(&s);
		}
	return 0;
}

/* Returns the exit status; *@outdir gets the results directory. */
static int do_run(const struct run_opts *o, char *outdir, size_t outlen)
{
	struct runner *R = calloc(1, sizeof(*R));
	struct gb_diag d;
	struct sigaction sa;
	int leftover, status = 0, ret, nrun = 0;

	if (!R) {
		warnx("out of memory");
		return 1;
	}
	/* from the start: a signal at any point still ends in the teardown */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	R->lockfd = -1;
	R->tty = isatty(2);
	R->plots = o->plots;
	R->t_start = gb_now();
	find_tools(R);
	if (gx_campaign_load(o->file, &R->c, &d) < 0) {
		if (d.line)
			fprintf(stderr, "%s:%d:%d: %s\n", d.file, d.line, d.col, d.msg);
		else
			fprintf(stderr, ME ": %s: %s\n", d.file, d.msg);
		free(R);
		return 2;
	}
	R->scale = o->scale > 0 ? o->scale : R->c.scale;
	for (int c = 0; c < R->c.nconds; c++)
		R->tcp_axis |= R->c.conds[c].tcp.set != 0;
	for (int a = 0; a < R->c.nalgos; a++)
		R->use[a] = !o->only[0];
	if (o->only[0]) {
		char buf[512], *tok, *save;

		snprintf(buf, sizeof(buf), "%s", o->only);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			int a = gx_campaign_algo(&R->c, tok);

			if (a < 0) {
				warnx("--only: '%s' is not an algorithm of campaign '%s'", tok,
				      R->c.name);
				status = 2;
				goto out;
			}
			R->use[a] = 1;
		}
	}
	if (o->dry) {
		status = dry_run(R);
		goto out;
	}
	/* the tools the selected algorithms need */
	{
		const char *need[4] = { R->gridemu, R->synthapp, R->libbcast, NULL };

		if (gx_campaign_needs_monitor(&R->c, R->use))
			need[3] = R->gridmon;
		for (int i = 0; i < 4; i++)
			if (need[i] && access(need[i], X_OK | R_OK) != 0) {
				warnx("'%s' is not built (build gridbed first)", need[i]);
				status = 2;
				goto out;
			}
		if (gx_campaign_needs_phoenixd(&R->c, R->use) && access(R->phoenixd, X_OK) != 0) {
			warnx("algorithm 'phoenix' needs phoenixd, which is not built at '%s'",
			      R->phoenixd);
			status = 2;
			goto out;
		}
		if (gx_campaign_needs_advisor(&R->c, R->use) && access(R->advisor, X_OK) != 0) {
			warnx("algorithm 'adaptive' needs gridadvisor, which is not built at '%s'",
			      R->advisor);
			status = 2;
			goto out;
		}
	}
	if (geteuid() != 0) {
		warnx("a campaign builds network namespaces and needs root");
		status = 2;
		goto out;
	}
	snprintf(R->rundir, sizeof(R->rundir), "%s",
		 getenv("GRIDBED_RUNDIR") && *getenv("GRIDBED_RUNDIR") ? getenv("GRIDBED_RUNDIR") :
		 GB_RUNDIR_DEFAULT);
	if (o->prefix)
		snprintf(R->prefix, sizeof(R->prefix), "%s", o->prefix);
	else
		derive_prefix(R->c.name, R->prefix, sizeof(R->prefix));
	/* the lock first: a busy prefix changes nothing, not even the results */
	if ((ret = take_lock(R, &leftover)) < 0) {
		status = ret == -2 ? 2 : 1;
		goto out;
	}
	if ((ret = prepare_out(R, o->out_root, o->resume)) < 0) {
		status = ret == -2 ? 2 : 1;
		goto out;
	}
	snprintf(outdir, outlen, "%s", R->out);
	note_lock(R);
	setenv("GRIDBED_PREFIX", R->prefix, 1);
	setenv("GRIDBED_RUNDIR", R->rundir, 1);
	if (grid_state_exists(R)) {
		if (!leftover) {
			warnx("a grid with prefix '%s' is up and gridexp did not make it; take it "
			      "down (gridemu --prefix %s down) or give another --prefix", R->prefix,
			      R->prefix);
			status = 2;
			goto out;
		}
		warnx("taking down the grid a killed gridexp left (prefix %s)", R->prefix);
		R->grid_up = 1;
		grid_down(R);
	}
	fprintf(stderr, ME ": campaign '%s' (%s), prefix %s, results in %s\n", R->c.name,
		R->c.path, R->prefix, R->out);
	if (got_signal || grid_up(R) < 0) {
		status = got_signal ? 128 + got_signal : 1;
		goto out;
	}
	write_meta(R, !o->resume);
	if (gx_campaign_needs_monitor(&R->c, R->use) && monitor_start(R) < 0) {
		status = got_signal ? 128 + got_signal : 1;
		goto out;
	}
	if (rank_hosts(R) < 0) {
		warnx("out of memory");
		status = 1;
		goto out;
	}
	if (gx_campaign_needs_phoenixd(&R->c, R->use) && phoenixd_run(R) < 0) {
		status = got_signal ? 128 + got_signal : 1;
		goto out;
	}

	for (int rep = 1; rep <= R->c.repetitions; rep++)
		for (int c = 0; c < R->c.nconds; c++)
			for (int a = 0; a < R->c.nalgos; a++)
				nrun += R->use[a];
	R->nruns = nrun;
	for (int rep = 1; rep <= R->c.repetitions && !got_signal; rep++)
		for (int c = 0; c < R->c.nconds && !got_signal; c++)
			for (int a = 0; a < R->c.nalgos && !got_signal; a++) {
				struct run r;
				char label[GX_NAME_MAX + 64], done[PATH_MAX];

				if (!R->use[a])
					continue;
				memset(&r, 0, sizeof(r));
				r.cond = c;
				r.algo = a;
				r.rep = rep;
				R->run_k++;
				gx_run_id(&R->c, c, a, rep, r.id, sizeof(r.id));
				snprintf(r.dir, sizeof(r.dir), "%s/runs/%s", R->out, r.id);
				snprintf(r.tmp, sizeof(r.tmp), "%s/runs/%s.tmp", R->out, r.id);
				snprintf(done, sizeof(done), "%s/complete", r.dir);
				snprintf(label, sizeof(label), "%s [%s r%d]", R->c.algos[a].label,
					 R->c.conds[c].name, rep);
				if (exists(done)) {
					fprintf(stderr, ME ": run %d/%d %s: complete already, "
						"skipped\n", R->run_k, R->nruns, label);
					continue;
				}
				gb_rmtree(r.dir);   /* incomplete: from scratch */
				if (run_one(R, &r) < 0) {
					if (!got_signal)
						status = 1;
					if (!got_signal)
						warnx("run '%s' could not be completed", r.id);
					continue;
				}
				progress(R, label, r.bcasts, gx_pattern_count(&R->c.app.pat), r.t0,
					 r.status);
			}
	if (got_signal) {
		warnx("interrupted by signal %d: stopping everything", (int)got_signal);
		status = 128 + got_signal;
		goto out;
	}
	teardown(R);
	{
		char err[512];

		fputc('\n', stdout);
		if (gx_report(R->out, R->plots, stdout, NULL, err, sizeof(err)) < 0) {
			warnx("report: %s", err);
			status = 1;
		}
		fflush(stdout);
	}
	if (!status && R->failed_runs)
		status = 1;
	if (R->px_bad) {
		warnx("%d of phoenixd's trees are not wide-area optimal (see phoenixd/s*/"
		      "wan-check.csv)", R->px_bad);
		status = status ? status : 1;
	}
	fprintf(stderr, ME ": results in %s (%d run%s failed)\n", R->out, R->failed_runs,
		R->failed_runs == 1 ? "" : "s");
out:
	teardown(R);
	gx_campaign_release(&R->c);
	free(R->hosts);
	free(R);
	return status;
}

/* ------------------------------------------------------------------ */
/* CLI                                                                 */
/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gridexp run FILE.yaml [--scale F] [--resume DIR] [--only ALGO[,ALGO...]]\n"
		"                   [--out-root DIR] [--prefix P] [--no-plots] [--dry-run]\n"
		"       gridexp report DIR [--no-plots]\n"
		"       gridexp check FILE.yaml|DIR --expect EXPECT.yaml [run options]\n"
		"\n"
		"  run     run a campaign (docs/formats.md, \"Campaign file\") from an empty\n"
		"          machine to plotted results in OUT-ROOT/<campaign>/<UTC time>/\n"
		"          (OUT-ROOT: ./results); --resume DIR skips its complete runs and\n"
		"          runs the others again from scratch; --only runs some algorithms;\n"
		"          --scale overrides the campaign's time scale; --prefix names the\n"
		"          grid (default: gx + a hash of the campaign's name); --dry-run\n"
		"          checks the campaign and prints its runs and load schedules\n"
		"  report  summary.json, summary.txt and the plots again, from DIR's files\n"
		"  check   run the campaign (or take DIR's results) and test expectations;\n"
		"          exit 1 if one fails\n"
		"\n"
		"Exit: 0 ok; 1 a run or an expectation failed; 2 bad input or a busy\n"
		"prefix; 128+N interrupted by signal N (everything is torn down).\n"
		"Environment: GRIDBED_RUNDIR (default /run/gridbed).\n");
}

static int parse_run_opts(int argc, char **argv, struct run_opts *o, const char **expect)
{
	static const struct option lo[] = {
		{ "scale", required_argument, NULL, 's' },
		{ "resume", required_argument, NULL, 'r' },
		{ "only", required_argument, NULL, 'o' },
		{ "out-root", required_argument, NULL, 'O' },
		{ "prefix", required_argument, NULL, 'p' },
		{ "no-plots", no_argument, NULL, 'n' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "expect", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->out_root = "results";
	o->plots = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			o->scale = strtod(optarg, &end);
			if (*end || !(o->scale > 0) || !isfinite(o->scale)) {
				warnx("--scale: '%s' is not a positive number", optarg);
				return 2;
			}
			break;
		case 'r': o->resume = optarg; break;
		case 'o':
			snprintf(o->only + strlen(o->only), sizeof(o->only) - strlen(o->only), "%s%s",
				 o->only[0] ? "," : "", optarg);
			/* --only a b c: the following non-option words too */
			while (optind < argc && argv[optind][0] != '-' && !strchr(argv[optind], '.')
			       && !strchr(argv[optind], '/'))
				snprintf(o->only + strlen(o->only), sizeof(o->only) -
					 strlen(o->only), ",%s", argv[optind++]);
			break;
		case 'O': o->out_root = optarg; break;
		case 'p':
			if (!*optarg || strlen(optarg) > 6 || strspn(optarg,
			    "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(optarg)) {
				warnx("--prefix: '%s' must be 1 to 6 lowercase letters or digits",
				      optarg);
				return 2;
			}
			o->prefix = optarg;
			break;
		case 'n': o->plots = 0; break;
		case 'D': o->dry = 1; break;
		case 'e':
			if (!expect) {
				usage(stderr);
				return 2;
			}
			*expect = optarg;
			break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	o->file = argv[optind];
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	char out[PATH_MAX];
	int r = parse_run_opts(argc, argv, &o, NULL);

	if (r)
		return r < 0 ? 0 : r;
	return do_run(&o, out, sizeof(out));
}

static int cmd_report(int argc, char **argv)
{
	char err[1024];
	int plots = 1, ret;
	const char *dir = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-plots"))
			plots = 0;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] != '-' && !dir)
			dir = argv[i];
		else {
			usage(stderr);
			return 2;
		}
	}
	if (!dir) {
		usage(stderr);
		return 2;
	}
	ret = gx_report(dir, plots, stdout, NULL, err, sizeof(err));
	if (ret < 0) {
		warnx("%s", err);
		return ret == -ENOENT || ret == -EINVAL ? 2 : 1;
	}
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	struct run_opts o;
	struct gx_expect *e = NULL;
	struct gx_summary s;
	struct gb_diag d;
	const char *expect = NULL;
	char dir[PATH_MAX], err[1024];
	struct stat st;
	int r = parse_run_opts(argc, argv, &o, &expect), n, ret, status = 0;

	if (r)
		return r < 0 ? 0 : r;
	if (!expect) {
		warnx("check: --expect EXPECT.yaml is required");
		return 2;
	}
	if (gx_expect_load(expect, &e, &n, &d) < 0) {
		if (d.line)
			fprintf(stderr, "%s:%d:%d: %s\n", d.file, d.line, d.col, d.msg);
		else
			fprintf(stderr, ME ": %s: %s\n", d.file, d.msg);
		return 2;
	}
	if (stat(o.file, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(dir, sizeof(dir), "%s", o.file);
	} else {
		status = do_run(&o, dir, sizeof(dir));
		if (status == 2 || status >= 128) {
			free(e);
			return status;
		}
	}
	memset(&s, 0, sizeof(s));
	ret = gx_report(dir, 0, NULL, &s, err, sizeof(err));
	if (ret < 0) {
		warnx("%s", err);
		free(e);
		return 2;
	}
	ret = gx_expect_check(e, n, &s, stdout, err, sizeof(err));
	gx_summary_release(&s);
	free(e);
	if (ret < 0) {
		warnx("%s: %s", expect, err);
		return 2;
	}
	printf("%d expectation%s failed\n", ret, ret == 1 ? "" : "s");
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	warnx("unknown command '%s' (run, report, check)", argv[1]);
	return 2;
}
