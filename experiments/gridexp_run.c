// SPDX-License-Identifier: MIT
/*
 * gridexp_run.c - one run: the load schedule in a child process, started
 * when the application is ready; gridadvisor for an adaptive algorithm;
 * gridemu mpirun of synthapp with libgridbcast.so preloaded; then run.json,
 * the complete marker and runs/ID.tmp -> runs/ID.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gbemu.h"
#include "gbexp.h"
#include "gbio.h"
#include "gbload.h"
#include "gbutil.h"
#include "results.h"
#include "gridexp_priv.h"

#define TICK 0.02              /* s: the run loop's period (capture samples) */

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
		int lfd, err;

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(126);
		setpgid(0, 0);
		close(fd[0]);
		gb_catch_signals(on_load_signal, 1);
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

		/* on the wall clock: the load runs k times longer on a dilated grid */
		json_array_append_new(iv, json_pack("[f,f]", r->load_t0 +
						    gb_load_wall(&r->sched, R->dilate, v->start),
						    r->load_t0 + gb_load_wall(&r->sched, R->dilate,
									      v->start + v->duration)));
	}
	snprintf(path, sizeof(path), "%s/go.json", r->tmp);
	r->t_go = gb_now();
	return write_json(path, json_pack("{s:b,s:o,s:o,s:f}", "load", r->load.pid > 0,
					  "load_t0", r->load.pid > 0 ? json_real(r->load_t0) :
					  json_null(), "intervals", iv, "t_go", r->t_go));
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
static __attribute__((format(printf, 3, 0))) int vadd_arg(char **argv, int *n, const char *fmt,
							  va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	argv[(*n)++] = s;
	return s ? 0 : -ENOMEM;
}

static __attribute__((format(printf, 3, 4))) int add_arg(char **argv, int *n, const char *fmt,
							 ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vadd_arg(argv, n, fmt, ap);
	va_end(ap);
	return ret;
}

/* Option @opt, then its value from @fmt: two arguments. */
static __attribute__((format(printf, 4, 5))) int add_opt(char **argv, int *n, const char *opt,
							 const char *fmt, ...)
{
	va_list ap;
	int ret = add_arg(argv, n, "%s", opt);

	va_start(ap, fmt);
	ret = vadd_arg(argv, n, fmt, ap) ?: ret;
	va_end(ap);
	return ret;
}

int algo_bcast_env(const struct gx_algo *a, char *seg, size_t seglen, char *stripes,
		   size_t stlen)
{
	int w = a->segment < 0 ? snprintf(seg, seglen, "auto") :
		snprintf(seg, seglen, "%.0f", a->segment);

	if (w < 0 || (size_t)w >= seglen)
		return -ENOSPC;
	return gb_stripes_format(&a->stripes, stripes, stlen) < 0 ? -ENOSPC : 0;
}

/* gridemu mpirun ... -- synthapp ... */
static int mpirun_argv(struct runner *R, struct run *r, char **argv, char **env)
{
	const struct gx_campaign *c = &R->c;
	const struct gx_algo *a = &c->algos[r->algo];
	const struct gx_pattern *p = &c->app.pat;
	const char *lib = gx_campaign_library(c, a->bcast);
	double timeout = c->timeout > 0 ? c->timeout : 180 + 3 * planned_app(R);
	char seg[32], stripes[GB_STRIPES_FMT_MAX];
	int n = 0, e = 0;

	add_arg(argv, &n, "%s", R->gridemu);
	add_opt(argv, &n, "--prefix", "%s", R->prefix);
	add_arg(argv, &n, "mpirun");
	/* the user's own MPI_Bcast (library:) replaces libgridbcast.so */
	add_opt(argv, &n, "--preload", "%s", lib ? lib : R->libbcast);
	add_opt(argv, &n, "--timeout", "%.0f", ceil(timeout));
	if (c->conds[r->cond].procs) {
		/* `procs: N`: the condition's ranks, named in rank order */
		char *list = cond_host_list(c, r->cond);

		if (!list)
			return -ENOMEM;
		add_opt(argv, &n, "--hosts", "%s", list);
		free(list);
	} else if (R->hosts) {
		add_opt(argv, &n, "--hosts", "%s", R->hosts);
	}
	add_arg(argv, &n, "--");
	add_arg(argv, &n, "%s", R->synthapp);
	add_opt(argv, &n, "--dir", "%s", r->tmp);
	add_opt(argv, &n, "--root", "%s", c->app.root);
	add_opt(argv, &n, "--campaign", "%s", c->name);
	add_opt(argv, &n, "--run-id", "%s", r->id);
	add_opt(argv, &n, "--algo", "%s", a->label);
	add_opt(argv, &n, "--cond", "%s", c->conds[r->cond].name);
	add_opt(argv, &n, "--rep", "%d", r->rep);
	add_opt(argv, &n, "--seed", "%llu", (unsigned long long)(c->seed + (uint64_t)r->rep - 1));
	add_opt(argv, &n, "--scale", "%.17g", R->scale);
	if (p->nsizes) {
		char list[GX_MAX_SIZES * 16] = "";

		for (int i = 0; i < p->nsizes; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%.0f",
				 i ? "," : "", p->sizes[i]);
		add_opt(argv, &n, "--sizes", "%s", list);
		add_opt(argv, &n, "--reps", "%d", p->reps);
	} else {
		add_opt(argv, &n, "--broadcasts", "%d", p->broadcasts);
		add_opt(argv, &n, "--size-first", "%.0f", p->size_first);
		add_opt(argv, &n, "--size-last", "%.0f", p->size_last);
	}
	add_opt(argv, &n, "--gap-first", "%.9fs", p->gap_first);
	add_opt(argv, &n, "--gap-factor", "%.17g", p->gap_factor);
	if (c->app.warmup)
		add_arg(argv, &n, "--warmup");
	if (c->app.start_clock)
		add_arg(argv, &n, "--start-clock");
	if (c->app.fail_rank >= 0 && (!c->app.fail_algo[0] ||
				      !strcmp(c->app.fail_algo, a->label))) {
		add_opt(argv, &n, "--fail-rank", "%d", c->app.fail_rank);
		add_opt(argv, &n, "--fail-at", "%d", c->app.fail_at);
	}
	argv[n] = NULL;

	/* gridemu mpirun exports every GRIDBED_* variable to the ranks */
	add_arg(env, &e, "GRIDBED_BCAST=%s", lib ? "native" : gx_campaign_spec(c, a->bcast));
	add_arg(env, &e, "GRIDBED_APPLOG=%s/applog.txt", r->tmp);
	add_arg(env, &e, "GRIDBED_BCAST_RECORD=%s/record.jsonl", r->tmp);
	add_arg(env, &e, "GRIDBED_SEED=%llu", (unsigned long long)c->seed);
	add_arg(env, &e, "GRIDBED_CAMPAIGN=%s", c->name);
	add_arg(env, &e, "GRIDBED_RUN_ID=%s", r->id);
	if (R->mon_matrix)
		add_arg(env, &e, "GRIDBED_MATRIX=%s", R->matrix);
	if (a->advisor)
		add_arg(env, &e, "GRIDBED_ADVISOR_DIR=%s/advisor", r->tmp);
	if (R->ptrees[0])
		add_arg(env, &e, "GRIDBED_PHOENIX_TREES=%s", R->ptrees);
	if (c->app.wait_sleep)
		add_arg(env, &e, "GRIDBED_BCAST_WAIT=sleep");
	/* always set, so that a GRIDBED_STRIPES of the caller's shell does not leak in */
	if (algo_bcast_env(a, seg, sizeof(seg), stripes, sizeof(stripes)) < 0)
		return -ENOSPC;
	add_arg(env, &e, "GRIDBED_SEGMENT=%s", seg);
	add_arg(env, &e, "GRIDBED_STRIPES=%s", stripes);
	if (!getenv("PMIX_MCA_gds"))   /* docs/platform.md: many orteds on one box */
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
			 "--planner", (char *)gx_campaign_spec(&R->c, a->planner),
			 "--topology", R->c.topology, "--root", R->c.app.root, "--scale", scale, "--min-size", lo, "--max-size", hi, NULL };
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
	/* The paper's advisor runs beside the root on a machine of its own;
	 * here it shares the box's cores with every rank and with the
	 * emulator's delay line, and clusteredSA plans all the time (490 of a
	 * run's 543 s at scale 0.3, session 5): at full priority it took a core
	 * from the grid that only the adaptive runs lost.  At nice 19 it plans
	 * with what the grid leaves (docs/measurements.md). */
	if (setpriority(PRIO_PROCESS, (id_t)r->adv.pid, 19) < 0)
		warnx("cannot lower gridadvisor's priority: %s", strerror(errno));
	/* and out of the experiment's cgroup: waiting for the CPU the grid
	 * leaves, it would count as the grid's CPU pressure (fidelity.h) */
	if (R->cgexp.on) {
		int err = gb_cgroup_exp_place(&R->cgexp, r->adv.pid);

		if (err < 0)
			warnx("cannot move gridadvisor out of the experiment's cgroup: %s",
			      strerror(-err));
	}
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

int run_one(struct runner *R, struct run *r)
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
		char line[GB_DIAG_LINE_MAX];

		warnx("%s", gb_diag_format(&d, NULL, line, sizeof(line)));
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
	if ((ret = mpirun_argv(R, r, argv, env)) < 0) {
		warnx("cannot build the mpirun command: %s", strerror(-ret));
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
			if (r->go) {
				fidelity_start(R, r);
				tcpstat_start(R, r);
			}
		}
		capture_sample(R, r, 0);
		fidelity_tick(R, r);
		tcpstat_tick(R, r);
		oracle_tick(R, r);
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
	oracle_tick(R, NULL);	/* no load between runs */
	if (r->adv.pid > 0)
		proc_stop(&r->adv, 10);
	count_applog(r);
	copy_rankmap(r);
	snprintf(path, sizeof(path), "%s/broadcasts.csv", r->tmp);
	if (exists(path))
		gx_wan_compute(r->tmp);
	json_t *fid = fidelity_finish(R, r);
	tcpstat_finish(R, r);
	matrix_poll(R);
	json_t *mshare = monitor_share_finish(R, r);
	status_of(&r->mpirun, r->status, sizeof(r->status), interrupted);
	reason[0] = '\0';
	if (strcmp(r->status, "ok") && !interrupted)
		failure_reason(r, reason, sizeof(reason));
	/* a run over a broken data plane (a dead or stalled delay line) is
	 * spoiled, whatever the job said (issue 16, "Health") */
	if (!interrupted) {
		struct gb_err why = { "" };

		if (gb_grid_health(&R->g, &why) == 0) {
			snprintf(r->status, sizeof(r->status), "failed: data plane broken");
			snprintf(reason, sizeof(reason), "%s", why.msg);
		}
	}
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
		json_object_set_new(j, "procs", json_integer(c->conds[r->cond].procs ?
								    c->conds[r->cond].procs :
								    c->topo->nhosts));
		json_object_set_new(j, "load_intervals", json_integer(r->sched.n));
		json_object_set_new(j, "load_mode", json_string(gb_load_mode_name(
							c->conds[r->cond].mode)));
		json_object_set_new(j, "advisor_planner", a->advisor ? json_string(a->planner) :
				    json_null());
		json_object_set_new(j, "advisor_first_pass_s", a->advisor ?
				    json_real(r->t_advisor) : json_null());
		json_object_set_new(j, "mpirun_status", json_integer(r->mpirun.status));
		/* issue 44: the monitor's own share of the wide-area links */
		json_object_set(j, "monitor_share", mshare ? mshare : json_null());
		json_t *tcp = gb_grid_tcp_json(&R->g);
		json_object_set_new(j, "tcp", tcp ? tcp : json_null());
		json_object_set(j, "fidelity", fid ? fid : json_null());
	}
	json_decref(fid);
	json_decref(mshare);
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
