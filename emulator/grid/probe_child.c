/* SPDX-License-Identifier: MIT */
/*
 * probe_child.c - the common part of gridbed's measuring and loading
 * children (probe_child.h).
 */
#include "probe_child.h"
#include "gbutil.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
/* glibc's <netinet/tcp.h> has a struct tcp_info without tcpi_bytes_acked */
#include <linux/tcp.h>

pid_t gb_child_fork(int nsfd, const char *name, double hard_end)
{
	pid_t parent = getpid(), pid;
	struct itimerval it;
	sigset_t none;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0)
		return pid;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1); /* the caller died before prctl() took effect */
	if (name)
		prctl(PR_SET_NAME, name);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (hard_end > 0) {
		double left = hard_end - gb_now();

		if (left < 0.001)
			left = 0.001;
		memset(&it, 0, sizeof(it));
		it.it_value.tv_sec = (time_t)left;
		it.it_value.tv_usec = (suseconds_t)((left - floor(left)) * 1e6);
		if (setitimer(ITIMER_REAL, &it, NULL) < 0)
			_exit(3);
	}
	if (nsfd >= 0 && setns(nsfd, CLONE_NEWNET) < 0)
		_exit(3);
	return 0;
}

struct sockaddr_in gb_sockaddr(uint32_t addr, int port)
{
	struct sockaddr_in s;

	memset(&s, 0, sizeof(s));
	s.sin_family = AF_INET;
	s.sin_addr.s_addr = htonl(addr);
	s.sin_port = htons((uint16_t)port);
	return s;
}

void gb_probe_server_open(uint32_t addr, int port, int backlog, int rcvbuf, int ready, int *u,
			  int *l)
{
	int one = 1;

	*u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	*l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in su = gb_sockaddr(addr, port), st = gb_sockaddr(addr, port + 1);
	if (*l >= 0)
		setsockopt(*l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (*u < 0 || *l < 0 || bind(*u, (void *)&su, sizeof(su)) < 0 ||
	    (rcvbuf > 0 && setsockopt(*l, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0) ||
	    bind(*l, (void *)&st, sizeof(st)) < 0 || listen(*l, backlog) < 0) {
		gb_write_full(ready, "E", 1);
		_exit(1);
	}
	gb_write_full(ready, "R", 1);
	close(ready);
}

void gb_udp_echo(int u, void *buf, size_t size)
{
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	ssize_t n = recvfrom(u, buf, size, 0, (void *)&from, &fl);

	if (n > 0)
		sendto(u, buf, (size_t)n, 0, (void *)&from, fl);
}

static int tcp_info(int fd, struct tcp_info *ti)
{
	socklen_t len = sizeof(*ti);

	memset(ti, 0, sizeof(*ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, ti, &len) < 0)
		return -errno;
	if (len < offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof(ti->tcpi_bytes_acked))
		return -EOPNOTSUPP; /* a kernel older than 4.1 */
	return 0;
}

int gb_tcp_bytes_delivered(int fd, uint64_t *bytes)
{
	struct tcp_info ti;
	int err = tcp_info(fd, &ti);

	if (err < 0)
		return err;
	*bytes = ti.tcpi_bytes_acked + (uint64_t)ti.tcpi_sacked * ti.tcpi_snd_mss;
	return 0;
}

int gb_tcp_state(int fd, struct gb_tcp_state *st)
{
	struct tcp_info ti;
	int err = tcp_info(fd, &ti);

	if (err < 0)
		return err;
	st->delivered = ti.tcpi_bytes_acked + (uint64_t)ti.tcpi_sacked * ti.tcpi_snd_mss;
	st->srtt = ti.tcpi_rtt / 1e6;
	st->cwnd_bytes = (uint64_t)ti.tcpi_snd_cwnd * ti.tcpi_snd_mss;
	st->cwnd = ti.tcpi_snd_cwnd;
	st->slow_start = ti.tcpi_snd_cwnd < ti.tcpi_snd_ssthresh;
	return 0;
}

int gb_tcp_bytes_acked(int fd, uint64_t *acked)
{
	struct tcp_info ti;
	int err = tcp_info(fd, &ti);

	if (err < 0)
		return err;
	*acked = ti.tcpi_bytes_acked;
	return 0;
}

int gb_tcp_connect_wait(int s, double until)
{
	for (double left; (left = until - gb_now()) > 0;) {
		struct pollfd pf = { s, POLLOUT, 0 };
		int soerr = 0;
		socklen_t l = sizeof(soerr);

		if (poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		if (getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &l) < 0)
			return -errno;
		return -soerr;
	}
	return -ETIMEDOUT;
}
