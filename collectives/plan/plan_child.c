/* SPDX-License-Identifier: MIT */
/*
 * plan_child.c - run a planner's process with a deadline (plan_impl.h):
 * the contained half of plugins and external planners (docs/plugins.md).
 *
 * The child gets its standard input from a sealed-in-memory file (a memfd
 * holding the whole request, so that no write can block or raise SIGPIPE
 * in the caller), its standard output and error on two pipes, and a
 * process group of its own, so that a planner which forks helpers is
 * killed whole.  The caller's signal dispositions are not touched.
 *
 * Choices:
 *  - The deadline is wall-clock (CLOCK_MONOTONIC) from fork to the child's
 *    exit: what the broadcast waits for.
 *  - Standard output is kept up to GB_CHILD_OUT_MAX; more is a fault
 *    (a tree file of 4096 nodes is about 200 KB).
 *  - Of standard error only the last line is kept: it is the reason the
 *    child gives (the plugin host prints exactly one).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gbio.h"
#include "plan_impl.h"

#define GB_CHILD_OUT_MAX (64u << 20)

/* The last non-empty line of standard error, kept as it arrives. */
struct tail {
	char line[sizeof(((struct gb_child_result *)0)->errline)];
	size_t cur;
	int complete;           /* line[] holds a whole line: the next byte starts another */
};

static void tail_add(struct tail *t, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			t->complete = t->cur > 0;
			continue;
		}
		if (t->complete) {
			t->cur = 0;
			t->complete = 0;
		}
		if (t->cur + 1 < sizeof(t->line))
			t->line[t->cur++] = buf[i];
		t->line[t->cur] = '\0';
	}
}

/* Append @n bytes to @r->out (NUL-terminated), growing it; @cap its room. */
static int out_add(struct gb_child_result *r, size_t *cap, const char *buf, size_t n)
{
	if (r->outlen + n + 1 > *cap) {
		size_t nc = *cap ? *cap * 2 : 65536;
		char *nb;

		while (nc < r->outlen + n + 1)
			nc *= 2;
		nb = realloc(r->out, nc);
		if (!nb)
			return -ENOMEM;
		r->out = nb;
		*cap = nc;
	}
	memcpy(r->out + r->outlen, buf, n);
	r->outlen += n;
	r->out[r->outlen] = '\0';
	return 0;
}

/* A memfd holding @len bytes of @data, positioned at 0; -errno on failure. */
static int input_fd(const void *data, size_t len)
{
	int fd = memfd_create("gridbed-plan-request", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t w = write(fd, (const char *)data + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;

			close(fd);
			return -e;
		}
		done += (size_t)w;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn)) child(char *const argv[], int in, int out, int err)
{
	static const char msg[] = "cannot run the planner's program\n";

	setpgid(0, 0);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(127);
	if (close_range(3, ~0u, 0) < 0)
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	execv(argv[0], argv);
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(127);
	_exit(127);
}

int gb_child_run(char *const argv[], const void *in, size_t inlen, double timeout_s,
		 struct gb_child_result *r)
{
	int ifd, op[2] = { -1, -1 }, ep[2] = { -1, -1 }, ret, status = 0, open_fds = 2;
	struct tail tl = { .cur = 0 };
	char buf[4096];
	size_t cap = 0;
	double t0, deadline;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (access(argv[0], X_OK) < 0)
		return -errno;
	ifd = input_fd(in ? in : "", in ? inlen : 0);
	if (ifd < 0)
		return ifd;
	if (pipe2(op, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
		ret = -errno;
		goto fail_fds;
	}
	t0 = gb_now();
	deadline = t0 + timeout_s;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto fail_fds;
	}
	if (pid == 0)
		child(argv, ifd, op[1], ep[1]);
	setpgid(pid, pid);      /* also here: no race with the kill below */
	close(ifd);
	close(op[1]);
	close(ep[1]);
	ifd = op[1] = ep[1] = -1;

	while (open_fds > 0) {
		struct pollfd pf[2] = { { op[0], POLLIN, 0 }, { ep[0], POLLIN, 0 } };
		double left = deadline - gb_now();
		int pr;

		if (left <= 0) {
			r->timed_out = 1;
			break;
		}
		pr = poll(pf, 2, (int)(left * 1e3) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0) {
			ret = -errno;
			kill(-pid, SIGKILL);
			waitpid(pid, NULL, 0);
			goto fail_fds;
		}
		for (int k = 0; k < 2; k++) {
			ssize_t n;

			if (pf[k].fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(pf[k].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(pf[k].fd);
				if (k == 0)
					op[0] = -1;
				else
					ep[0] = -1;
				open_fds--;
				continue;
			}
			if (k == 1) {
				tail_add(&tl, buf, (size_t)n);
			} else if (r->outlen + (size_t)n > GB_CHILD_OUT_MAX) {
				r->too_much = 1;
				kill(-pid, SIGKILL);
			} else if (out_add(r, &cap, buf, (size_t)n) < 0) {
				ret = -ENOMEM;
				kill(-pid, SIGKILL);
				waitpid(pid, NULL, 0);
				goto fail_fds;
			}
		}
	}
	/* Both pipes closed (or the deadline passed): reap by the deadline. */
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			ret = -errno;
			goto fail_fds;
		}
		if (r->timed_out || gb_now() >= deadline) {
			r->timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		usleep(1000);
	}
	if (op[0] >= 0)
		close(op[0]);
	if (ep[0] >= 0)
		close(ep[0]);
	/* a planner's helpers may outlive it: take the whole group down */
	kill(-pid, SIGKILL);
	r->elapsed_s = gb_now() - t0;
	r->status = status;
	snprintf(r->errline, sizeof(r->errline), "%s", tl.line);
	return 0;

fail_fds:
	if (ifd >= 0)
		close(ifd);
	for (int k = 0; k < 2; k++) {
		if (op[k] >= 0)
			close(op[k]);
		if (ep[k] >= 0)
			close(ep[k]);
	}
	free(r->out);
	r->out = NULL;
	return ret;
}

void gb_child_result_release(struct gb_child_result *r)
{
	free(r->out);
	memset(r, 0, sizeof(*r));
}

int gb_child_fault(const struct gb_child_result *r, double budget_s, struct gb_err *e)
{
	const char *why = r->errline[0] ? r->errline : NULL;

	if (r->timed_out) {
		gb_err_set(e, "overran its budget of %.2f s (killed after %.2f s)", budget_s,
			   r->elapsed_s);
		return -ETIME;
	}
	if (r->too_much) {
		gb_err_set(e, "wrote more than %u MB on standard output",
			   GB_CHILD_OUT_MAX >> 20);
		return -EMSGSIZE;
	}
	if (WIFSIGNALED(r->status)) {
		int sig = WTERMSIG(r->status);

		gb_err_set(e, "crashed (signal %d, %s)%s%s", sig, strsignal(sig),
			   why ? ": " : "", why ? why : "");
		return -ECHILD;
	}
	if (WIFEXITED(r->status) && WEXITSTATUS(r->status) != 0) {
		if (why)
			gb_err_set(e, "%s", why);
		else
			gb_err_set(e, "exited with status %d", WEXITSTATUS(r->status));
		return WEXITSTATUS(r->status) == 127 ? -ENOEXEC : -EPROTO;
	}
	return 0;
}
