// SPDX-License-Identifier: MIT
/*
 * tapd.c - gridemu-tapd: command line, startup, workers, the event loop and
 * teardown.  The configuration is read in tapd_config.c, the TUN devices in
 * tapd_tun.c, the control socket in tapd_ctl.c (their shared state:
 * tapd_daemon.h); the data path is in tapd_worker.c; the protocol and the
 * configuration format are documented in tapd.h.
 *
 * Startup, in an order chosen so that a failure at any step leaves nothing
 * behind and "R" on the ready fd means that everything is in place:
 *
 *   parse and validate the whole configuration     (nothing created yet)
 *   for each link, side a then b:
 *       setns(side's netns); refuse an existing name; open /dev/net/tun;
 *       TUNSETIFF(IFF_TUN | IFF_NO_PI | IFF_VNET_HDR); setns(back)
 *       (a TUN device lives in the namespace its fd was opened in)
 *   TUNSETOFFLOAD each device (TSO only where its egress has no loss)
 *   bind the control socket, write the pidfile, start the workers
 *   write "R" to the ready fd
 *
 * Everything that fails before "R" ends in fail_startup(): one line on
 * stderr and "E<line>" on the ready fd, then the fds are closed (which
 * destroys the non-persistent devices), the socket and pidfile removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/un.h>

#include "tapd.h"
#include "tapd_daemon.h"

int tapd_fail(struct gb_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gb_err_vset(e, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void tapd_log(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/* ---- workers ----------------------------------------------------------- */

static int workers_start(struct tapd *t, struct gb_err *e)
{
	size_t i, k = 0;
	int w, err;

	t->nworkers = t->threads;
	if ((size_t)t->nworkers > t->nlinks)
		t->nworkers = (int)t->nlinks;
	if (!t->nworkers)
		return 0;
	t->workers = calloc((size_t)t->nworkers, sizeof(*t->workers));
	t->dirv = calloc(2 * t->nlinks, sizeof(*t->dirv));
	if (!t->workers || !t->dirv)
		return tapd_fail(e, "out of memory");
	for (w = 0; w < t->nworkers; w++)
		t->workers[w].epfd = t->workers[w].timerfd = t->workers[w].stopfd = -1;
	/* Round-robin: link i goes to worker i % n, both its directions, so
	 * that one heap orders everything the link carries.  (Putting the two
	 * directions of one busy link in two threads was measured and did not
	 * help: the cost is the kernel's TCP work inside write(2).) */
	for (w = 0; w < t->nworkers; w++) {
		size_t first = k, nl = 0;

		for (i = (size_t)w; i < t->nlinks; i += (size_t)t->nworkers) {
			t->dirv[k++] = &t->links[i].dir[0];
			t->dirv[k++] = &t->links[i].dir[1];
			t->links[i].dir[0].worker = t->links[i].dir[1].worker = w;
			nl++;
		}
		err = tapd_worker_init(&t->workers[w], w, t->dirv + first, k - first, nl, POOL_MAX,
				       t->spin_ns, t->spin_pct);
		if (err < 0)
			return tapd_fail(e, "cannot set up worker %d: %s", w, strerror(-err));
		t->workers[w].pass_ns = &t->pass_ns;
	}
	for (w = 0; w < t->nworkers; w++) {
		err = tapd_worker_start(&t->workers[w], t->no_rt ? 0 : RT_PRIO);
		if (err < 0)
			return tapd_fail(e, "cannot start worker %d: %s", w, strerror(-err));
		if (!t->no_rt && !t->workers[w].fifo)
			tapd_log("worker %d: SCHED_FIFO refused, running SCHED_OTHER "
			       "(timing will be noisier)", w);
	}
	return 0;
}

static void workers_release(struct tapd *t)
{
	int w;

	for (w = 0; w < t->nworkers; w++)
		tapd_worker_release(&t->workers[w]);
	free(t->workers);
	free(t->dirv);
	t->workers = NULL;
	t->dirv = NULL;
	t->nworkers = 0;
}

/*
 * Keep the CPUs out of idle states that take long to leave, for as long as
 * the daemon lives (the kernel drops the request when the fd closes, so a
 * crash leaves nothing behind).  Measured on the 2-core CI VM (haltpoll
 * cpuidle): an idle vCPU halts, and waking the worker for a lone packet
 * then costs tens of microseconds more, with a p99 in milliseconds; held
 * at 0 the idle loop polls and a host-to-host echo inside a cluster drops
 * from p50/p99 0.35/2.4 ms to 0.26/0.32 ms.  Not fatal when refused.
 */
static void pm_qos_hold(struct tapd *t)
{
	int32_t zero = 0;

	if (t->no_pm_qos)
		return;
	t->pm_qos_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
	if (t->pm_qos_fd < 0 || write(t->pm_qos_fd, &zero, sizeof(zero)) != sizeof(zero)) {
		tapd_log("cannot hold the CPUs' wake-up latency at 0 (/dev/cpu_dma_latency: %s): "
			 "timing will be noisier", strerror(errno));
		if (t->pm_qos_fd >= 0)
			close(t->pm_qos_fd);
		t->pm_qos_fd = -1;
	}
}

/* ---- main ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --config FILE [--ready-fd N] [--control PATH] [--pidfile PATH]\n"
		"                    [--log PATH] [--threads K] [--foreground] [--spin-us N]\n"
		"                    [--spin-budget PCT] [--no-offload] [--no-rt] [--no-pm-qos]\n"
		"                    [--persist]\n"
		"       " PROG " --control PATH --send REQUEST\n"
		"The userspace delay line of gridemu's tap backend; see emulator/tapd/tapd.h.\n");
}

/* --threads or GRIDBED_TAPD_THREADS (@what), one parser for both. */
static int parse_threads(struct tapd *t, const char *what, const char *s, struct gb_err *e)
{
	uint64_t x;

	if (tapd_parse_u64(s, MAX_THREADS, &x) < 0 || !x)
		return tapd_fail(e, "%s: '%s' is not a number in [1, %d]", what, s, MAX_THREADS);
	t->threads = (int)x;
	return 0;
}

/* --spin-budget or GRIDBED_TAPD_SPIN_BUDGET (@what), one parser for both. */
static int parse_budget(struct tapd *t, const char *what, const char *s, struct gb_err *e)
{
	uint64_t x;

	if (tapd_parse_u64(s, 100, &x) < 0)
		return tapd_fail(e, "%s: '%s' is not a percentage in [0, 100]", what, s);
	t->spin_pct = (unsigned)x;
	return 0;
}

static int parse_args(struct tapd *t, int argc, char **argv, struct gb_err *e)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "control", required_argument, NULL, 's' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "log", required_argument, NULL, 'l' },
		{ "threads", required_argument, NULL, 't' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "spin-us", required_argument, NULL, 'S' },
		{ "spin-budget", required_argument, NULL, 'B' },
		{ "no-offload", no_argument, NULL, 'O' },
		{ "no-rt", no_argument, NULL, 'R' },
		{ "no-pm-qos", no_argument, NULL, 'Q' },
		{ "persist", no_argument, NULL, 'P' },
		{ "send", required_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env;
	int budget_set = 0, err;
	uint64_t x;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c': t->config_path = optarg; break;
		case 's': t->ctl_path = optarg; break;
		case 'p': t->pid_path = optarg; break;
		case 'l': t->log_path = optarg; break;
		case 'f': t->foreground = 1; break;
		case 'O': t->no_offload = 1; break;
		case 'R': t->no_rt = 1; break;
		case 'Q': t->no_pm_qos = 1; break;
		case 'P': t->persist = 1; break;
		case 'q': t->send_req = optarg; break;
		case 'h': usage(stdout); exit(0);
		case 'r':
			if (tapd_parse_u64(optarg, INT_MAX, &x) < 0 || fcntl((int)x, F_GETFD) < 0)
				return tapd_fail(e, "--ready-fd: '%s' is not an open file descriptor",
						 optarg);
			t->ready_fd = (int)x;
			fcntl(t->ready_fd, F_SETFD, FD_CLOEXEC);
			break;
		case 't':
			if ((err = parse_threads(t, "--threads", optarg, e)) < 0)
				return err;
			break;
		case 'B':
			if ((err = parse_budget(t, "--spin-budget", optarg, e)) < 0)
				return err;
			budget_set = 1;
			break;
		case 'S':
			if (tapd_parse_u64(optarg, 100000, &x) < 0)
				return tapd_fail(e, "--spin-us: '%s' is not a number in [0, 100000]",
						 optarg);
			t->spin_ns = (int64_t)x * 1000;
			break;
		default:
			return tapd_fail(e, "bad usage (see --help)");
		}
	}
	if (optind < argc)
		return tapd_fail(e, "unexpected argument '%s' (see --help)", argv[optind]);
	/* What gridemu's daemon inherits: defaults that the options override. */
	env = getenv("GRIDBED_TAPD_THREADS");
	if (!t->threads && env && *env &&
	    (err = parse_threads(t, "GRIDBED_TAPD_THREADS", env, e)) < 0)
		return err;
	env = getenv("GRIDBED_TAPD_SPIN_BUDGET");
	if (!budget_set && env && *env &&
	    (err = parse_budget(t, "GRIDBED_TAPD_SPIN_BUDGET", env, e)) < 0)
		return err;
	if (t->send_req && !t->ctl_path)
		return tapd_fail(e, "--send needs --control PATH");
	if (!t->send_req && !t->config_path)
		return tapd_fail(e, "--config FILE is required (see --help)");
	return 0;
}

static int client_main(struct tapd *t)
{
	/* `stats` takes about 1.5 KiB per link: room for thousands. */
	size_t len = (size_t)16 << 20;
	char *reply = malloc(len);
	int r, ret;

	if (!reply) {
		tapd_log("out of memory");
		return 1;
	}
	r = gb_tapd_request(t->ctl_path, t->send_req, reply, len);
	if (r < 0) {
		tapd_log("control socket '%s': %s", t->ctl_path, strerror(-r));
		ret = 1;
	} else {
		printf("%s\n", reply);
		ret = strncmp(reply, "err", 3) ? 0 : 1;
	}
	free(reply);
	return ret;
}

static void ready_say(struct tapd *t, const char *what)
{
	size_t len = strlen(what), off = 0;

	if (t->ready_fd < 0)
		return;
	while (off < len) {
		ssize_t n = write(t->ready_fd, what + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(t->ready_fd);
	t->ready_fd = -1;
}

static void teardown(struct tapd *t)
{
	size_t i;

	workers_release(t);
	tapd_links_close(t);
	if (t->listen_fd >= 0)
		close(t->listen_fd);
	if (t->sig_fd >= 0)
		close(t->sig_fd);
	if (t->ep_fd >= 0)
		close(t->ep_fd);
	if (t->pm_qos_fd >= 0)
		close(t->pm_qos_fd);
	t->listen_fd = t->sig_fd = t->ep_fd = t->pm_qos_fd = -1;
	if (t->ctl_bound)
		unlink(t->ctl_path);
	if (t->pid_written)
		unlink(t->pid_path);
	t->ctl_bound = t->pid_written = 0;
	for (i = 0; i < t->nlinks; i++) {
		free(t->links[i].name);
		free(t->links[i].side[0].netns);
		free(t->links[i].side[1].netns);
		pthread_mutex_destroy(&t->links[i].dir[0].lock);
		pthread_mutex_destroy(&t->links[i].dir[1].lock);
	}
	free(t->links);
	t->links = NULL;
	t->nlinks = 0;
}

static int fail_startup(struct tapd *t, const struct gb_err *e)
{
	char *line;
	size_t len = strlen(e->msg) + sizeof(PROG) + 4;

	tapd_log("%s", e->msg);
	line = malloc(len);
	if (line) {
		snprintf(line, len, "E" PROG ": %s\n", e->msg);
		ready_say(t, line);
		free(line);
	} else {
		ready_say(t, "E" PROG ": out of memory\n");
	}
	teardown(t);
	return 1;
}

static int serve(struct tapd *t)
{
	struct epoll_event ev = { .events = EPOLLIN };

	ev.data.fd = t->sig_fd;
	if (epoll_ctl(t->ep_fd, EPOLL_CTL_ADD, t->sig_fd, &ev) < 0)
		return -errno;
	if (t->listen_fd >= 0) {
		ev.data.fd = t->listen_fd;
		if (epoll_ctl(t->ep_fd, EPOLL_CTL_ADD, t->listen_fd, &ev) < 0)
			return -errno;
	}
	while (!t->quit) {
		struct epoll_event evs[4];
		int n = epoll_wait(t->ep_fd, evs, 4, -1), i;

		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == t->sig_fd) {
				struct signalfd_siginfo si;

				if (read(t->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
					tapd_log("signal %u: exiting", si.ssi_signo);
					t->quit = 1;
				}
				continue;
			}
			for (;;) {
				int cfd = accept4(t->listen_fd, NULL, NULL, SOCK_CLOEXEC);

				if (cfd < 0)
					break;
				tapd_ctl_serve(t, cfd);
				close(cfd);
			}
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tapd t = {
		.ready_fd = -1, .listen_fd = -1, .sig_fd = -1, .ep_fd = -1, .spin_ns = -1,
		.pm_qos_fd = -1,
		.spin_pct = DEFAULT_SPIN_PCT,
	};
	struct gb_err e = { "" };
	sigset_t mask;
	long ncpu;

	t.start_ns = tapd_now_ns();
	if (parse_args(&t, argc, argv, &e) < 0)
		return fail_startup(&t, &e);
	if (t.send_req)
		return client_main(&t);
	if (!t.threads) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		t.threads = ncpu >= 2 ? 2 : 1;
	}
	if (t.log_path) {
		int fd = open(t.log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		if (fd < 0) {
			tapd_fail(&e, "log '%s': %s", t.log_path, strerror(errno));
			return fail_startup(&t, &e);
		}
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
		setvbuf(stdout, NULL, _IOLBF, 0);
	}
	if (tapd_config_load(&t, &e) < 0)
		return fail_startup(&t, &e);
	if (!t.foreground) {
		/* gridemu already forked us into our own session; be sure. */
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (getsid(0) != getpid())
			setsid();
		if (nul >= 0) {
			dup2(nul, STDIN_FILENO);
			close(nul);
		}
	}
	/* Signals are read from a signalfd by the main thread; the workers
	 * inherit the blocked mask and never see them. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	t.sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	t.ep_fd = epoll_create1(EPOLL_CLOEXEC);
	if (t.sig_fd < 0 || t.ep_fd < 0) {
		tapd_fail(&e, "cannot set up the event loop: %s", strerror(errno));
		return fail_startup(&t, &e);
	}

	if (tapd_links_create(&t, &e) < 0)
		return fail_startup(&t, &e);
	if (t.ctl_path && tapd_ctl_listen(&t, &e) < 0)
		return fail_startup(&t, &e);
	if (t.pid_path && tapd_pidfile_write(&t, &e) < 0)
		return fail_startup(&t, &e);
	if (workers_start(&t, &e) < 0)
		return fail_startup(&t, &e);
	if (t.persist && tapd_links_persist(&t, &e) < 0)
		return fail_startup(&t, &e);
	pm_qos_hold(&t);
	ready_say(&t, "R");
	tapd_log("ready: %zu links, %d workers (%s, spin budget %u %%), offload %s, "
		 "cpu wake-up latency %s, pid %d", t.nlinks, t.nworkers,
		 t.nworkers && t.workers[0].fifo ? "SCHED_FIFO" : "SCHED_OTHER", t.spin_pct,
		 t.no_offload ? "off" : "on", t.pm_qos_fd >= 0 ? "held at 0" : "the kernel's",
		 (int)getpid());

	if (serve(&t) < 0)
		tapd_log("event loop failed: %s", strerror(errno));
	teardown(&t);
	tapd_log("stopped");
	return 0;
}
