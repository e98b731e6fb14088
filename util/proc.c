// SPDX-License-Identifier: MIT
/*
 * proc.c - ending child processes and closing their pipes (gbutil.h).
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gbutil.h"

void gb_kill_reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

void gb_close_pipe(int fd[2])
{
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}
