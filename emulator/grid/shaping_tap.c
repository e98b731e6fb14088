/* SPDX-License-Identifier: MIT */
/*
 * shaping_tap.c - the userspace backend for kernels without sch_netem.
 *
 *   sender ns               gridemu-tapd (one process)             receiver ns
 *   d<k> (TUN) egress:      read -> deadline heap -> write         d<k> (TUN)
 *     tbf (rate, queue) --> (delay +/- jitter, seeded loss,  -->   delivered as
 *                            drop-tail limit)                      received
 *
 * The daemon creates both TUN devices of every link inside their namespaces
 * and holds them open.  They are persistent (--persist): they live as long
 * as their namespaces, so `down` is the namespaces' batch deletion, not 2 x
 * links serialised device removals.  gridemu configures them over netlink
 * exactly like veths (addresses, routes, TBF).
 */
#include "shaping.h"
#include "dilate.h"
#include "netns.h"
#include "nl.h"
#include "partition.h"
#include "tapd.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/pkt_sched.h>

#define TBF_HANDLE TC_H_MAKE(1u << 16, 0)

static int tap_probe(struct gb_grid *g, struct gb_err *e)
{
	if (access("/dev/net/tun", R_OK | W_OK) < 0) {
		gb_err_set(e, "/dev/net/tun: %s", strerror(errno));
		return 0;
	}
	return 1;
}

static void path_in_rundir(const struct gb_grid *g, const char *file, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", g->rundir, file);
}

/* The delay line must hold what is in flight, plus the queue when there is
 * no TBF in front of it to hold the queue. */
static uint32_t tapd_limit(const struct gb_topo *t, int dl)
{
	const struct gb_linkdir *p = gb_topo_dir((struct gb_topo *)t, dl);
	uint32_t limit = gb_limit_of(t, dl);
	return p->rate_bps ? gb_bdp_pkts(t, dl) + limit + 64 : limit;
}

/* The daemon's parameters for @dl: on the wire, i.e. dilated (dilate.h).
 * A direction that arrives from the peer machine was shaped there: it only
 * passes through (partition.h). */
static json_t *dir_json(const struct gb_grid *g, int dl)
{
	const struct gb_topo *t = g->topo;
	const struct gb_linkdir *p = gb_topo_dir((struct gb_topo *)t, dl);

	if (!gb_grid_local(g, gb_topo_dir_from(t, dl)))
		return json_pack("{s:I, s:I, s:f, s:i}", "delay_ns", (json_int_t)0, "jitter_ns",
				 (json_int_t)0, "loss", 0.0, "limit", (int)tapd_limit(t, dl));
	return json_pack("{s:I, s:I, s:f, s:i}", "delay_ns", (json_int_t)gb_wire_ns(g, p->delay_ns),
			 "jitter_ns", (json_int_t)gb_wire_ns(g, p->jitter_ns), "loss", p->loss,
			 "limit", (int)tapd_limit(t, dl));
}

static int write_config(struct gb_grid *g, const char *path)
{
	const struct gb_topo *t = g->topo;
	json_t *links = json_array();
	char nsa[PATH_MAX], nsb[PATH_MAX], ifn[16], tmp[PATH_MAX];

	for (int k = 0; k < t->nlinks; k++) {
		const struct gb_link *l = &t->links[k];
		int ends[2] = { l->a, l->b };
		char *nsp[2] = { nsa, nsb }, buf[128], vif[16];
		json_t *side[2];

		if (!gb_grid_local(g, l->a) && !gb_grid_local(g, l->b))
			continue;       /* wholly on the peer machine */
		gb_ifname(k, ifn);
		snprintf(vif, sizeof(vif), "v%d", k);
		for (int s = 0; s < 2; s++) {
			/* the peer's end: the cross link's VXLAN, in P-edge */
			int here = gb_grid_local(g, ends[s]);

			snprintf(nsp[s], PATH_MAX, GB_NETNS_DIR "/%s",
				 gb_grid_nsname(g, here ? t->nodes[ends[s]].name : GB_PART_EDGE,
						buf, sizeof(buf)));
			side[s] = here ? json_pack("{s:s, s:s}", "netns", nsp[s], "ifname", ifn)
				       : json_pack("{s:s, s:s, s:s}", "netns", nsp[s], "ifname", vif,
						   "kind", "packet");
		}
		json_array_append_new(links, json_pack("{s:i, s:s, s:o, s:o, s:o, s:o}",
			"id", k, "name", l->name, "a", side[0], "b", side[1],
			"ab", dir_json(g, 2 * k), "ba", dir_json(g, 2 * k + 1)));
	}
	json_t *root = json_pack("{s:I, s:o}", "seed", (json_int_t)t->seed, "links", links);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	int err = json_dump_file(root, tmp, JSON_INDENT(1)) < 0 ? -EIO : 0;
	json_decref(root);
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	return err;
}

static int tap_create_links(struct gb_grid *g, const char *tapd_path, struct gb_err *e)
{
	char cfg[PATH_MAX], ctl[PATH_MAX], pidf[PATH_MAX], log[PATH_MAX], fdarg[16];
	int pfd[2] = { -1, -1 };
	int err;

	path_in_rundir(g, "tapd.json", cfg, sizeof(cfg));
	path_in_rundir(g, "tapd.sock", ctl, sizeof(ctl));
	path_in_rundir(g, "tapd.pid", pidf, sizeof(pidf));
	path_in_rundir(g, "tapd.log", log, sizeof(log));
	/* cross links: the VXLANs the daemon's packet sockets use, first */
	for (int k = 0; k < g->topo->nlinks; k++) {
		char vif[16];

		snprintf(vif, sizeof(vif), "v%d", k);
		if (gb_part_cross(g, k) &&
		    (err = gb_part_vxlan(g, vif, GB_PART_VNI_BASE + (uint32_t)k, g->edge_nsfd,
					 g->topo->mtu, e)) < 0)
			return err;
	}
	if ((err = write_config(g, cfg)) < 0) {
		gb_err_set(e, "cannot write '%s': %s", cfg, strerror(-err));
		return err;
	}
	if (access(tapd_path, X_OK) < 0) {
		err = -errno;
		gb_err_set(e, "cannot run the tap daemon '%s': %s", tapd_path, strerror(errno));
		return err;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;

	pid_t pid = fork();
	if (pid < 0) {
		err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (pid == 0) {
		/* The daemon outlives this process: own session, no terminal. */
		setsid();
		int nul = open("/dev/null", O_RDONLY);
		int lf = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (nul >= 0)
			dup2(nul, 0);
		if (lf >= 0) {
			dup2(lf, 1);
			dup2(lf, 2);
		}
		dup2(pfd[1], 3); /* dup2 clears O_CLOEXEC on the copy */
		snprintf(fdarg, sizeof(fdarg), "3");
		execl(tapd_path, "gridemu-tapd", "--config", cfg, "--ready-fd", fdarg,
		      "--control", ctl, "--pidfile", pidf, "--persist", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	g->tapd_pid = pid;

	char buf[600];
	ssize_t n, got = 0;
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(pfd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		got += n;
		if (buf[0] == 'R')
			break;
	}
	close(pfd[0]);
	buf[got] = 0;
	if (got > 0 && buf[0] == 'R')
		return 0;

	/* Failed: reap it and report its one line. */
	int st;
	waitpid(pid, &st, 0);
	g->tapd_pid = 0;
	char *nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	if (got > 1 && buf[0] == 'E')
		gb_err_set(e, "%s", buf + 1);
	else
		gb_err_set(e, "the tap daemon '%s' exited before it was ready (see %s)", tapd_path,
			   log);
	return -EIO;
}

/* The TBF of a new direction, on its node's batch (the delay, jitter and
 * loss are in the daemon's configuration already). */
static int tap_queue(struct gb_grid *g, int dl, struct gb_nl_batch *b)
{
	struct gb_topo *t = g->topo;
	const struct gb_linkdir *p = gb_topo_dir(t, dl);
	int ifi = gb_grid_dir_ifindex(g, dl);
	uint32_t ovh = gb_tbf_overhead(p);

	if (ifi < 0 || !p->rate_bps)
		return ifi < 0 ? ifi : 0;
	/* the burst and the per-packet overhead are bytes: not dilated */
	return gb_nl_batch_tbf(b, ifi, TC_H_ROOT, TBF_HANDLE, gb_wire_rate(g, p->rate_bps),
			       gb_tbf_burst(p->rate_bps, t->mtu, ovh), gb_limit_of(t, dl) * t->mtu,
			       ovh, 0);
}

static int tap_apply(struct gb_grid *g, int dl, int replace, struct gb_err *e)
{
	struct gb_topo *t = g->topo;
	const struct gb_linkdir *p = gb_topo_dir(t, dl);
	int from = gb_topo_dir_from(t, dl);
	char ctl[PATH_MAX], req[256], reply[512];
	int ifi = gb_grid_dir_ifindex(g, dl);
	int err;

	if (ifi < 0) {
		err = ifi;
		goto fail;
	}
	if (replace) {
		path_in_rundir(g, "tapd.sock", ctl, sizeof(ctl));
		snprintf(req, sizeof(req), "set %d %s delay_ns=%llu jitter_ns=%llu loss=%.9f limit=%u",
			 dl / 2, dl % 2 ? "ba" : "ab", (unsigned long long)gb_wire_ns(g, p->delay_ns),
			 (unsigned long long)gb_wire_ns(g, p->jitter_ns), p->loss, tapd_limit(t, dl));
		err = gb_tapd_request(ctl, req, reply, sizeof(reply));
		if (err < 0)
			goto fail;
		if (strncmp(reply, "ok", 2) != 0) {
			gb_err_set(e, "link '%s': the tap daemon refused: %s", t->links[dl / 2].name,
				   reply);
			return -EINVAL;
		}
		if ((err = gb_nl_qdisc_del_root(g->sk[from], ifi)) < 0)
			goto fail;
	}
	if (p->rate_bps) {
		struct gb_nl_batch b;

		gb_nl_batch_init(&b, g->sk[from]);
		tap_queue(g, dl, &b);
		if ((err = gb_nl_batch_finish(&b, NULL)) < 0)
			goto fail;
	}
	return 0;
fail:
	gb_err_set(e, "link '%s' %s: cannot set up tap shaping: %s", t->links[dl / 2].name,
		   dl % 2 ? "b>a" : "a>b", strerror(-err));
	return err;
}

static int tap_read(struct gb_grid *g, int dl, struct gb_linkdir *p)
{
	/* Delay, jitter and loss live in the daemon, which applies exactly what
	 * the state file records; the rate is read back from the kernel. */
	struct gb_qdisc_info qi;
	int from = gb_topo_dir_from(g->topo, dl);
	*p = *gb_topo_dir(g->topo, dl);
	p->set = GB_LD_DELAY | GB_LD_JITTER | GB_LD_LOSS;
	int ifi = gb_grid_dir_ifindex(g, dl);
	if (ifi < 0)
		return ifi;
	p->rate_bps = 0;
	p->per_packet_ns = 0;
	if (gb_nl_qdisc_get(g->sk[from], ifi, TBF_HANDLE, &qi) == 0 && !strcmp(qi.kind, "tbf")) {
		p->rate_bps = gb_topo_rate(g, qi.rate_bps);
		p->limit = g->topo->mtu ? qi.limit / g->topo->mtu : qi.limit;
		p->per_packet_ns = gb_ppkt_of_overhead(qi.overhead, p->rate_bps);
		p->set |= GB_LD_RATE | GB_LD_LIMIT | GB_LD_PPKT;
	}
	return 0;
}

/* One read of /proc/@pid/@name into @buf, at most @size - 1 bytes (room
 * left for a terminating 0); the bytes read, or <= 0 when there are none. */
static ssize_t read_proc(pid_t pid, const char *name, char *buf, size_t size)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/%s", (int)pid, name);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	return n;
}

/* Is @pid a gridemu-tapd serving this rundir?  Guards against a stale pid
 * file pointing at an unrelated process after a reboot. */
static int is_our_tapd(const struct gb_grid *g, pid_t pid)
{
	char cmd[4096];
	ssize_t n = read_proc(pid, "cmdline", cmd, sizeof(cmd));
	if (n <= 0)
		return 0;
	for (ssize_t i = 0; i < n; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	cmd[n] = 0;
	char needle[PATH_MAX];
	snprintf(needle, sizeof(needle), "%s/tapd.json ", g->rundir);
	return strstr(cmd, "gridemu-tapd") && strstr(cmd, needle);
}

/* Alive and not a zombie: the daemon's parent (the `up` that started it)
 * is gone, and on some systems nobody reaps orphans promptly. */
static int alive(pid_t pid)
{
	char buf[256];
	ssize_t n = read_proc(pid, "stat", buf, sizeof(buf));
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

static void wait_gone(pid_t pid, int max_ms)
{
	for (int i = 0; i < max_ms / 5 && alive(pid); i++) {
		waitpid(pid, NULL, WNOHANG);
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/*
 * The daemon closes its TUN devices from several threads on SIGTERM (each
 * close unregisters a device and waits for an RCU grace period), so it is
 * gone in well under a second.  SIGKILL is the fallback; the kernel then
 * closes the devices one by one, so we still wait for the process to be
 * gone: `down` must not return while the grid's devices still exist.
 */
static void stop_pid(pid_t pid)
{
	kill(pid, SIGTERM);
	wait_gone(pid, 10000);
	if (alive(pid)) {
		kill(pid, SIGKILL);
		wait_gone(pid, 120000);
	}
	waitpid(pid, NULL, WNOHANG);
}

static void tap_stop(struct gb_grid *g)
{
	char pidf[PATH_MAX];

	/* The pid file can be missing (up killed before the daemon wrote it)
	 * or stale, so look at every process: the daemon's command line names
	 * this grid's run directory. */
	DIR *d = opendir("/proc");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid == getpid())
			continue;
		if (alive((pid_t)pid) && is_our_tapd(g, (pid_t)pid))
			stop_pid((pid_t)pid);
	}
	if (d)
		closedir(d);
	g->tapd_pid = 0;
	path_in_rundir(g, "tapd.pid", pidf, sizeof(pidf));
	unlink(pidf);
}

/*
 * Health: the delay line answers "ping" on its control socket within
 * GB_TAPD_TIMEOUT_MS.  Without it every packet of the data plane is lost
 * (the TUN devices have no reader), so a dead or stalled daemon is a broken
 * grid, whatever the namespaces look like.
 */
/* The daemon's pid: the one this process started, else its pidfile's; 0 if none. */
static pid_t tap_pid(struct gb_grid *g)
{
	char pidf[PATH_MAX], buf[32] = "";
	long pid = 0;
	int fd;

	if (g->tapd_pid > 0)
		return g->tapd_pid;
	path_in_rundir(g, "tapd.pid", pidf, sizeof(pidf));
	if ((fd = open(pidf, O_RDONLY | O_CLOEXEC)) >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			pid = strtol(buf, NULL, 10);
		}
	}
	return pid > 0 ? (pid_t)pid : 0;
}

static int tap_health(struct gb_grid *g, struct gb_err *e)
{
	char ctl[PATH_MAX], reply[64];
	long pid;
	int r;

	path_in_rundir(g, "tapd.sock", ctl, sizeof(ctl));
	r = gb_tapd_request(ctl, "ping", reply, sizeof(reply));
	if (r >= 0 && !strcmp(reply, "pong"))
		return 1;
	pid = (long)tap_pid(g);
	if (pid > 0 && alive((pid_t)pid))
		gb_err_set(e, "the delay line gridemu-tapd (pid %ld) is stalled: no "
			   "answer on %s (%s)", pid, ctl, r < 0 ? strerror(-r) : reply);
	else if (pid > 0)
		gb_err_set(e, "the delay line gridemu-tapd (pid %ld) is not running: "
			   "the data plane loses every packet; run 'gridemu down' and 'up' again",
			   pid);
	else
		gb_err_set(e, "the delay line gridemu-tapd is not running: the data "
			   "plane loses every packet; run 'gridemu down' and 'up' again");
	return 0;
}

/* The daemon's pass-through cost (calibrate.h): `pass <ns>` on its socket. */
static int tap_request(struct gb_grid *g, const char *req, char *reply, size_t len)
{
	char ctl[PATH_MAX];

	path_in_rundir(g, "tapd.sock", ctl, sizeof(ctl));
	return gb_tapd_request(ctl, req, reply, len);
}

static int tap_pass(struct gb_grid *g, uint64_t ns, struct gb_err *e)
{
	char req[64], reply[256];
	int r;

	snprintf(req, sizeof(req), "pass %" PRIu64, ns);
	r = tap_request(g, req, reply, sizeof(reply));
	if (r < 0) {
		gb_err_set(e, "the delay line of grid %s: %s", g->prefix, strerror(-r));
		return r;
	}
	if (strcmp(reply, "ok")) {
		gb_err_set(e, "the delay line refused '%s': %s", req, reply);
		return -EINVAL;
	}
	return 0;
}

const struct gb_shaper gb_shaper_tap = {
	.name = "tap",
	.summary = "userspace delay line (gridemu-tapd) over TUN pairs, rate in TBF",
	.probe = tap_probe,
	.create_links = tap_create_links,
	.apply = tap_apply,
	.queue = tap_queue,
	.read = tap_read,
	.stop = tap_stop,
	.health = tap_health,
	.pass = tap_pass,
	.request = tap_request,
	.helper_pid = tap_pid,
};
