/* SPDX-License-Identifier: MIT */
/*
 * mpirun_rank.c - "gridemu mpirun --gb-rank DIR PROG ARGS...": the wrapper
 * that orted starts in place of each rank's PROG in a `gridemu mpirun` job.
 * It records how the rank ended in DIR/status/RANK, so that a failure is
 * pinned on the right rank even when mpirun's own report is missing or
 * unparsable.  See mpirun.h for the process tree.
 */
#include "mpirun_priv.h"

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t wrapped_child;

static void forward_signal(int sig)
{
	if (wrapped_child > 0)
		kill(wrapped_child, sig);
}

/*
 * orted starts this in place of PROG.  It checks that OpenMPI put the rank
 * where the rank map says (a wrong placement would silently corrupt every
 * result), runs PROG as a child, forwards signals to it, and records how it
 * ended with a CLOCK_MONOTONIC stamp: the first abnormal end is the failure
 * the launcher reports, the others are mpirun's teardown.
 */
int mpirun_rank_main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, ME " --gb-rank: usage: --gb-rank JOBDIR PROG ARGS...\n");
		return 127;
	}
	const char *dir = argv[1];
	const char *rs = getenv("OMPI_COMM_WORLD_RANK"), *node = getenv("GRIDBED_NODE");
	char *end;
	long rank = rs ? strtol(rs, &end, 10) : -1;
	if (!rs || *end || rank < 0) {
		fprintf(stderr, ME ": '%s' was not started by OpenMPI (no OMPI_COMM_WORLD_RANK)\n",
			argv[2]);
		return 127;
	}
	json_t *map = mpirun_load_map(dir);
	const char *want = map ? mpirun_map_str(map, (int)rank, "host") : "?";
	if (!node || strcmp(node, want)) {
		fprintf(stderr, ME ": rank %ld was started on host '%s', but the rank map "
			"places it on '%s'\n", rank, node ? node : "?", want);
		mpirun_write_status(dir, (int)rank, "misplaced", 0);
		json_decref(map);
		return 1;
	}
	json_decref(map);

	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, ME ": rank %ld: fork: %s\n", rank, strerror(errno));
		return 127;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		/* If the wrapper is SIGKILLed, the rank must not outlive it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(127);
		const char *pre = getenv("GRIDBED_PRELOAD");
		if (pre && *pre) {
			const char *cur = getenv("LD_PRELOAD");
			char buf[PATH_MAX * 2];
			snprintf(buf, sizeof(buf), "%s%s%s", pre, cur && *cur ? ":" : "",
				 cur ? cur : "");
			setenv("LD_PRELOAD", buf, 1);
		}
		execvp(argv[2], argv + 2);
		int err = errno;
		fprintf(stderr, ME ": rank %ld on '%s': cannot run '%s': %s\n", rank, node, argv[2],
			strerror(err));
		mpirun_write_status(dir, (int)rank, "noexec", err);
		_exit(127);
	}
	wrapped_child = pid;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sa.sa_flags = SA_RESTART;
	static const int fwd[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT };
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaction(fwd[i], &sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);

	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st);
		mpirun_write_status(dir, (int)rank, "signal", sig);
		/* Die the same way, so that orted and mpirun report the signal,
		 * without a second core file. */
		struct rlimit nocore = { 0, 0 };
		setrlimit(RLIMIT_CORE, &nocore);
		signal(sig, SIG_DFL);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		raise(sig);
		return 128 + sig;
	}
	int code = WEXITSTATUS(st);
	struct rank_status prev;
	if (code != 127 || mpirun_read_status(dir, (int)rank, &prev) < 0 || prev.kind != END_NOEXEC)
		mpirun_write_status(dir, (int)rank, "exit", code);
	return code;
}
