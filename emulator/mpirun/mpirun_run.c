/* SPDX-License-Identifier: MIT */
/*
 * mpirun_run.c - the launcher of `gridemu mpirun` while the job runs: it
 * starts mpirun in the management namespace, relays and reads its stderr,
 * stops the job on a signal, at --timeout or when a failed rank is not
 * followed by mpirun's own teardown, sweeps the job's processes out of the
 * grid, and judges how the job ended (which rank failed, on which host).
 * mpirun_launch.c prepares the job and calls it.
 */
#include "mpirun_priv.h"

#include "gbutil.h"
#include "netns.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static int abnormal(const struct rank_status *rs)
{
	return rs->kind != END_NONE && !(rs->kind == END_EXIT && rs->value == 0);
}

/* ------------------------------------------------------------------ */
/* Finding and stopping the job's processes                           */
/* ------------------------------------------------------------------ */

/* 1 if /proc/PID/environ holds exactly "GRIDBED_JOB=<id>" (@arg: the job). */
static int has_mark(const void *arg, long pid)
{
	const struct job *j = arg;
	char p[64], mark[80];
	snprintf(p, sizeof(p), "/proc/%ld/environ", pid);
	snprintf(mark, sizeof(mark), JOB_ENV "=%s", j->id);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap + 1);
	ssize_t n;
	while (buf && (n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			char *nb = cap < (16u << 20) ? realloc(buf, 2 * cap + 1) : NULL;
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	int found = 0;
	if (buf) {
		buf[len] = 0;
		for (size_t off = 0; off < len && !found; off += strlen(buf + off) + 1)
			found = !strcmp(buf + off, mark);
	}
	free(buf);
	return found;
}

/* Signal (or with @sig 0 count) the job's live processes in the grid. */
static int job_procs(const struct job *j, int sig)
{
	return gb_netns_signal_procs(j->inos, j->ninos, sig, has_mark, j);
}

static void reap_all(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* Wait up to @ms for the job's processes to go, reaping our orphans. */
static int wait_gone(const struct job *j, int ms)
{
	int left = job_procs(j, 0);
	for (int t = 0; left && t < ms; t += 20) {
		sleep_ms(20);
		reap_all();
		left = job_procs(j, 0);
	}
	return left;
}

/* SIGTERM, then SIGKILL what is left; returns how many were left over. */
int mpirun_sweep(const struct job *j, double grace)
{
	reap_all();
	int n = job_procs(j, SIGTERM);
	if (n && wait_gone(j, (int)(grace * 1000)) > 0) {
		job_procs(j, SIGKILL);
		wait_gone(j, 3000);
	}
	reap_all();
	return n;
}

/* ------------------------------------------------------------------ */
/* mpirun's stderr                                                    */
/* ------------------------------------------------------------------ */

static void parse_line(struct report *r, const char *l)
{
	const char *p;
	int a, b, v;
	if ((p = strstr(l, "Process name: [[")) && r->rank < 0 &&
	    sscanf(p, "Process name: [[%d,%d],%d]", &a, &b, &v) == 3) {
		r->rank = v;
		r->want_code = 1;
	} else if ((p = strstr(l, "Exit code:")) && r->want_code &&
		   sscanf(p, "Exit code: %d", &v) == 1) {
		r->code = v;
		r->want_code = 0;
	} else if ((p = strstr(l, "MPI_ABORT was invoked on rank ")) && r->rank < 0 &&
		   sscanf(p, "MPI_ABORT was invoked on rank %d", &v) == 1) {
		r->rank = v;
		r->aborted = 1;
		r->want_code = 1;
	} else if ((p = strstr(l, "with errorcode ")) && r->aborted && r->want_code &&
		   sscanf(p, "with errorcode %d", &v) == 1) {
		r->code = v;
		r->want_code = 0;
	} else if ((p = strstr(l, "process rank ")) && r->rank < 0 &&
		   sscanf(p, "process rank %d", &v) == 1) {
		r->rank = v;
		if ((p = strstr(l, "on signal ")) && sscanf(p, "on signal %d", &v) == 1)
			r->signal = v;
	}
	if (strstr(l, "exiting improperly"))
		r->improper = 1;
}

/* Harmless noise: the parent's setpgid() races with the child's own
 * setpgid()+exec and loses with EACCES; the child is in its group anyway. */
static int harmless(const char *l)
{
	return strstr(l, "plm:rsh: Warning: setpgid(") != NULL;
}

struct linebuf {
	char buf[8192];
	size_t len;
};

static void emit_lines(struct linebuf *lb, struct report *rep, int flush)
{
	char *start = lb->buf, *nl;
	while ((nl = memchr(start, '\n', lb->len - (size_t)(start - lb->buf)))) {
		*nl = 0;
		if (!harmless(start)) {
			parse_line(rep, start);
			fprintf(stderr, "%s\n", start);
		}
		start = nl + 1;
	}
	size_t rest = lb->len - (size_t)(start - lb->buf);
	if (rest && (flush || rest == sizeof(lb->buf))) {
		fwrite(start, 1, rest, stderr);
		rest = 0;
	}
	memmove(lb->buf, lb->buf + (lb->len - rest), rest);
	lb->len = rest;
	fflush(stderr);
}

/* Returns 0 at EOF, 1 if more may come. */
static int pump(int fd, struct linebuf *lb, struct report *rep)
{
	for (;;) {
		ssize_t n = read(fd, lb->buf + lb->len, sizeof(lb->buf) - lb->len);
		if (n > 0) {
			lb->len += (size_t)n;
			emit_lines(lb, rep, 0);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		emit_lines(lb, rep, 1);
		return 0;
	}
}

/* ------------------------------------------------------------------ */
/* Running and judging the job                                        */
/* ------------------------------------------------------------------ */

static pid_t start_mpirun(const struct job *j, char **av, const sigset_t *oldmask, int errfd)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* Its own process group: a terminal's Ctrl-C reaches us only, and we
	 * forward exactly one signal (mpirun takes a second one as "die now,
	 * without cleanup"). */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (setns(j->mgmt_fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, ME ": cannot enter the management namespace: %s\n",
			strerror(errno));
		_exit(127);
	}
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s/tmp/mpirun", j->dir);
	setenv("TMPDIR", tmp, 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	setenv("PMIX_MCA_gds", "hash", 0);
	setenv(JOB_ENV, j->id, 1);
	setenv("GRIDBED_PREFIX", j->prefix, 1);
	setenv("GRIDBED_RUNDIR", j->rundir_base, 1);
	setenv("GRIDBED_RANKMAP", j->map, 1);
	unsetenv("GRIDBED_NODE");
	/* The grid's job is no batch job: in a Slurm task (gridexp slurm) mpirun
	 * would take the allocation's node list and launch through srun, not on
	 * the grid's hosts through the agent. */
	extern char **environ;
	for (char **e = environ; *e;) {
		char name[256];
		size_t n = strcspn(*e, "=");

		if (strncmp(*e, "SLURM_", 6) || n >= sizeof(name)) {
			e++;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)n, *e);
		unsetenv(name);          /* shifts environ: look at *e again */
	}
	if (dup2(errfd, 2) < 0)
		_exit(127);
	execv(av[0], av);
	fprintf(stderr, ME ": cannot run '%s': %s\n", av[0], strerror(errno));
	_exit(127);
}

static void note_failure(const struct job *j, int64_t *seen)
{
	struct rank_status rs;
	if (*seen >= 0)
		return;
	for (int r = 0; r < j->n; r++)
		if (mpirun_read_status(j->dir, r, &rs) == 0 && abnormal(&rs)) {
			*seen = gb_now_ns();
			return;
		}
}

int mpirun_run_job(const struct opts *o, const struct job *j, char **av, struct run *run)
{
	sigset_t set, old;
	int pfd[2] = { -1, -1 }, sfd = -1, rc = EX_FAIL;
	struct linebuf *lb = calloc(1, sizeof(*lb));

	memset(run, 0, sizeof(*run));
	run->rep.rank = -1;
	run->rep.code = -1;
	if (!lb)
		return EX_FAIL;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	/* SIGINT counts even when inherited as ignored (a script's background
	 * job); SIGHUP does not when ignored (nohup). */
	struct sigaction hup;
	if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN)
		sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	/* A closed stderr (| head) must not kill us before the cleanup. */
	signal(SIGPIPE, SIG_IGN);
	/* orted daemonizes: make its orphans ours, so we reap them. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if ((sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0 ||
	    pipe2(pfd, O_CLOEXEC) < 0) {
		say("cannot set up: %s", strerror(errno));
		goto cleanup;
	}
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	run->pid = start_mpirun(j, av, &old, pfd[1]);
	if (run->pid < 0) {
		say("fork: %s", strerror(errno));
		goto cleanup;
	}
	setpgid(run->pid, run->pid);
	close(pfd[1]);
	pfd[1] = -1;

	enum { RUNNING, STOPPING, KILLED } phase = RUNNING;
	int64_t start = gb_now_ns(), deadline = -1, seen = -1, last_check = start;
	int64_t job_end = o->timeout > 0 ? start + (int64_t)(o->timeout * 1e9) : -1;
	int64_t grace = (int64_t)(o->grace * 1e9);
	int open_pipe = 1;
	while (!run->done) {
		int64_t t = gb_now_ns(), wake = t + 500000000;
		if (deadline >= 0 && deadline < wake)
			wake = deadline;
		if (job_end >= 0 && phase == RUNNING && job_end < wake)
			wake = job_end;
		struct pollfd pf[2] = { { sfd, POLLIN, 0 }, { pfd[0], POLLIN, 0 } };
		int ms = wake > t ? (int)((wake - t + 999999) / 1000000) : 0;
		poll(pf, open_pipe ? 2 : 1, ms);
		if (open_pipe && (pf[1].revents & (POLLIN | POLLHUP)))
			open_pipe = pump(pfd[0], lb, &run->rep);

		struct signalfd_siginfo si;
		int stop_sig = 0;
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo != SIGCHLD)
				stop_sig = (int)si.ssi_signo;
		}
		pid_t p;
		int st;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			if (p == run->pid) {
				run->status = st;
				run->done = 1;
				run->end_ns = gb_now_ns();
			}
		if (run->done)
			break;

		t = gb_now_ns();
		if (stop_sig && phase == RUNNING) {
			run->why = stop_sig;
			kill(run->pid, stop_sig);
			phase = STOPPING;
			deadline = t + grace;
		} else if (stop_sig && phase == STOPPING) {
			/* A second Ctrl-C: no more patience. */
			kill(run->pid, SIGKILL);
			job_procs(j, SIGKILL);
			phase = KILLED;
			deadline = -1;
		}
		if (phase == RUNNING && job_end >= 0 && t >= job_end) {
			run->why = WHY_TIMEOUT;
			kill(run->pid, SIGTERM);
			phase = STOPPING;
			deadline = t + grace;
		}
		/* A rank died and mpirun has not ended the job by itself within
		 * two grace periods: end it for it. */
		if (phase == RUNNING && t - last_check >= 500000000) {
			last_check = t;
			note_failure(j, &seen);
			if (seen >= 0 && t - seen >= 2 * grace) {
				run->why = WHY_HUNG;
				kill(run->pid, SIGTERM);
				phase = STOPPING;
				deadline = t + grace;
			}
		}
		if (phase == STOPPING && deadline >= 0 && t >= deadline) {
			kill(run->pid, SIGKILL);
			phase = KILLED;
			deadline = -1;
		}
	}
	/* Whatever mpirun said last; orphans may hold the pipe open, so do not
	 * wait for EOF. */
	for (int i = 0; open_pipe && i < 10; i++) {
		struct pollfd pf = { pfd[0], POLLIN, 0 };
		if (poll(&pf, 1, 20) <= 0)
			break;
		open_pipe = pump(pfd[0], lb, &run->rep);
	}
	emit_lines(lb, &run->rep, 1);
	rc = 0;
cleanup:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(lb);
	return rc;
}

static void describe_end(const struct rank_status *rs, char *buf, size_t len)
{
	switch (rs->kind) {
	case END_EXIT:
		snprintf(buf, len, "exited with status %d", rs->value);
		break;
	case END_SIGNAL:
		snprintf(buf, len, "was killed by signal %d (%s)", rs->value,
			 strsignal(rs->value));
		break;
	case END_MISPLACED:
		snprintf(buf, len, "was started on the wrong host");
		break;
	case END_NOEXEC:
		snprintf(buf, len, "could not run its program (%s)", strerror(rs->value));
		break;
	default:
		snprintf(buf, len, "failed");
	}
}

/*
 * Which rank failed.  mpirun names "the first process to do so" in its
 * report; without a report (a format we do not know, --quiet), the rank
 * whose abnormal end the wrappers stamped first, among those that ended
 * before mpirun did (later ends are our own cleanup, after mpirun itself
 * died).  The statuses then say how it ended.
 */
static int culprit(const struct job *j, const struct run *run, struct rank_status *out)
{
	struct rank_status rs;
	int best = -1;
	memset(out, 0, sizeof(*out));
	if (run->rep.rank >= 0 && run->rep.rank < j->n) {
		best = run->rep.rank;
		if (mpirun_read_status(j->dir, best, out) < 0) {
			if (run->rep.signal > 0) {
				out->kind = END_SIGNAL;
				out->value = run->rep.signal;
			} else if (run->rep.code >= 0) {
				out->kind = END_EXIT;
				out->value = run->rep.code;
			}
		}
		return best;
	}
	for (int r = 0; r < j->n; r++)
		if (mpirun_read_status(j->dir, r, &rs) == 0 && abnormal(&rs) && rs.t_ns <= run->end_ns &&
		    (best < 0 || rs.t_ns < out->t_ns)) {
			best = r;
			*out = rs;
		}
	return best;
}

/* Complete the rank map with how every rank and the job ended. */
static void finish_map(const struct job *j, const char *result, int exit_status, int failed)
{
	char ts[32];
	gb_utc_iso(ts, sizeof(ts));
	json_t *ranks = json_object_get(j->mapj, "ranks");
	for (int r = 0; r < j->n; r++) {
		struct rank_status rs;
		json_t *e = json_array_get(ranks, (size_t)r);
		if (mpirun_read_status(j->dir, r, &rs) < 0)
			continue;
		if (rs.kind == END_SIGNAL)
			json_object_set_new(e, "signal", json_integer(rs.value));
		else if (rs.kind == END_EXIT || rs.kind == END_NOEXEC)
			json_object_set_new(e, "exit", json_integer(rs.value));
		else
			json_object_set_new(e, "misplaced", json_true());
	}
	json_object_set_new(j->mapj, "finished", json_string(ts));
	json_object_set_new(j->mapj, "elapsed_s", json_real((double)(gb_now_ns() - j->t0) / 1e9));
	json_object_set_new(j->mapj, "result", json_string(result));
	json_object_set_new(j->mapj, "exit_status", json_integer(exit_status));
	if (failed >= 0)
		json_object_set_new(j->mapj, "failed_rank", json_integer(failed));
	if (mpirun_write_json(j->mapj, j->map) < 0)
		say("cannot update the rank map '%s'", j->map);
}

int mpirun_verdict(const struct opts *o, const struct job *j, const struct run *run)
{
	int st = run->status, failed = -1, rc;
	const char *result;
	if (run->why > 0) {
		say("interrupted by SIG%s: job %s stopped", sigabbrev_np(run->why), j->id);
		result = "interrupted";
		rc = 128 + run->why;
	} else if (run->why == WHY_TIMEOUT) {
		say("job %s timed out after %g s and was stopped", j->id, o->timeout);
		result = "timeout";
		rc = EX_TIMEOUT;
	} else if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && run->why == WHY_NONE) {
		result = "ok";
		rc = EX_OK;
	} else {
		struct rank_status rs;
		char how[128];
		failed = culprit(j, run, &rs);
		if (failed >= 0) {
			if (rs.kind == END_EXIT && rs.value == 0 && run->rep.improper)
				snprintf(how, sizeof(how), "exited without calling MPI_Finalize");
			else if (run->rep.aborted && run->rep.rank == failed)
				snprintf(how, sizeof(how), "called MPI_Abort with error code %d",
					 run->rep.code);
			else
				describe_end(&rs, how, sizeof(how));
			say("rank %d (host %s) %s", failed, mpirun_map_str(j->mapj, failed, "host"), how);
		} else if (WIFSIGNALED(st)) {
			say("mpirun was killed by signal %d (%s)", WTERMSIG(st),
			    strsignal(WTERMSIG(st)));
		} else {
			say("mpirun exited with status %d", WEXITSTATUS(st));
		}
		if (run->why == WHY_HUNG)
			say("mpirun did not end the job after the failure; it was stopped");
		result = "failed";
		rc = EX_FAIL;
	}
	finish_map(j, result, rc, failed);
	return rc;
}
