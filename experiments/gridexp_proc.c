// SPDX-License-Identifier: MIT
/*
 * gridexp_proc.c - gridexp's child processes: spawn one that dies with
 * gridexp, poll it, stop it (SIGTERM, then SIGKILL), run one to completion.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gbutil.h"
#include "gridexp_priv.h"

/*
 * fork + exec @argv with stdout and stderr to @log (appended; NULL keeps
 * ours), @env ("NAME=VALUE", NULL-terminated, may be NULL) added.  The
 * child dies with us (SIGTERM), and is its own process group leader so
 * that a terminal's Ctrl-C reaches only gridexp, which stops it in order.
 */
int spawn(struct proc *p, char *const *argv, const char *log, char *const *env)
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

int proc_poll(struct proc *p)
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
void proc_stop(struct proc *p, double grace)
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

/* A reaped child's exit status, or 128 + the signal that killed it (as a shell says). */
int proc_exit_status(const struct proc *p)
{
	return WIFEXITED(p->status) ? WEXITSTATUS(p->status) : 128 + WTERMSIG(p->status);
}

/* Run @argv to completion; its output to @log or, on failure, shown. */
int run_tool(char *const *argv, const char *log)
{
	struct proc p;
	int ret = spawn(&p, argv, log, NULL);

	if (ret < 0)
		return ret;
	while (waitpid(p.pid, &p.status, 0) < 0 && errno == EINTR)
		;
	return proc_exit_status(&p);
}

/*
 * Run @argv (searched in PATH) to completion; its standard output (and its
 * errors with @with_err) into @buf, cut at @len - 1 bytes (the rest is
 * read and dropped).  No signal handling of its own: our signals reach it.
 */
int run_capture(char *const *argv, char *buf, size_t len, int with_err)
{
	size_t n = 0;
	ssize_t k;
	char sink[4096];
	int fd[2], status;
	pid_t pid;

	buf[0] = '\0';
	if (pipe2(fd, O_CLOEXEC) < 0)
		return -errno;
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(fd[1], 1);
		dup2(with_err ? fd[1] : null, 2);
		if (null >= 0)
			dup2(null, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		k = n + 1 < len ? read(fd[0], buf + n, len - 1 - n) : read(fd[0], sink, sizeof(sink));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (n + 1 < len)
			n += (size_t)k;
	}
	buf[n] = '\0';
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
