// SPDX-License-Identifier: MIT
/*
 * gridexp_session.c - one `gridexp run` of a campaign on one grid, from the
 * lock to the report (the loop at the top of gridexp.c): the campaign's
 * lock, gridemu up and down, gridmon for the whole session, the rank order,
 * the runs in turn, and the one teardown that every way out goes through.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "gbemu.h"
#include "gbexp.h"
#include "gbio.h"
#include "gbutil.h"
#include "gbyaml.h"
#include "gridexp_priv.h"

#define MON_PORT "47100"       /* gridmon's probes: UDP port, TCP port + 1 */

volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

void catch_signals(void)
{
	gb_catch_signals(on_signal, 1);
	signal(SIGPIPE, SIG_IGN);
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
	char p[PATH_MAX];
	DIR *d;
	struct dirent *e;

	if (R->attached) {
		gb_grid_close(&R->g);
		R->attached = 0;
	}
	if (!R->grid_up)
		return;
	if (run_tool(argv, R->emulog[0] && exists(R->out) ? R->emulog : NULL) != 0)
		warnx("'gridemu --prefix %s down' failed (see %s)", R->prefix, R->emulog);
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
	char dil[32];
	char *argv[] = { R->gridemu, "--prefix", R->prefix, "up", R->c.topology, "--backend",
			 R->c.backend, "--dilate", dil, "--quiet", NULL };
	struct gb_err e = { "" };
	int ret;

	snprintf(dil, sizeof(dil), "%.17g", R->dilate >= 1 ? R->dilate : 1.0);
	R->grid_up = 1;              /* a half-built grid is taken down too */
	ret = run_tool(argv, R->emulog);
	if (ret != 0) {
		warnx("'gridemu up %s' failed (exit %d); its messages are in %s", R->c.topology,
		      ret, R->emulog);
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

/* The version in a matrix file's bytes @buf, or 0. */
static unsigned long long matrix_version(const char *buf, size_t len)
{
	json_error_t je;
	json_t *j = json_loadb(buf, len, 0, &je);
	unsigned long long v = j ? (unsigned long long)json_integer_value(
					   json_object_get(j, "version")) : 0;

	json_decref(j);
	return v;
}

/* Append "V,T" to monitor/versions-s<N>.csv (its header first): version V was
 * copied at T on this machine's monotonic clock, the clock of go.json. */
static void version_time(const struct runner *R, unsigned long long v, double t)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/monitor/versions-s%d.csv", R->out, R->mon_session);
	if (!(f = fopen(path, "ae"))) {
		warnx("cannot write '%s': %s", path, strerror(errno));
		return;
	}
	if (ftell(f) == 0)
		fputs("version,t_mono\n", f);
	fprintf(f, "%llu,%.6f\n", v, t);
	if (fclose(f) != 0)
		warnx("cannot write '%s': %s", path, strerror(errno));
}

/* Copy a new version of gridmon's matrix into monitor/, if there is one, and
 * note when it was seen (during a run the poll is every 0.25 s: that late at
 * most; a version replaced between two polls is never seen).  The copy is
 * the bytes the version was read from: gridmon may replace its file at any
 * moment, and a second read could be the next version under this one's
 * name (t/8010 saw it, session 45). */
void matrix_poll(struct runner *R)
{
	char to[PATH_MAX], *buf = NULL;
	unsigned long long v;
	size_t len = 0;
	double t;

	if (!R->mon_matrix || gb_read_file(R->matrix, (size_t)1 << 30, &buf, &len) < 0)
		return;
	t = gb_now();
	if ((v = matrix_version(buf, len)) > R->mon_seen) {
		snprintf(to, sizeof(to), "%s/monitor/matrix-s%d-v%04llu.json", R->out,
			 R->mon_session, v);
		if (gx_write_atomic(to, buf, len) == 0) {
			R->mon_seen = v;
			version_time(R, v, t);
		}
	}
	free(buf);
}

json_t *monitor_share_finish(struct runner *R, struct run *r)
{
	char probes[PATH_MAX], csv[PATH_MAX];
	struct gx_mon_share m;
	double t0 = r->go && r->t_go > 0 ? r->t_go : r->t0;

	if (!gx_campaign_needs_monitor(&R->c) || R->c.monitor.oracle)
		return NULL;
	snprintf(probes, sizeof(probes), "%s/monitor/probes-s%d.csv", R->out, R->mon_session);
	snprintf(csv, sizeof(csv), "%s/monitor-share.csv", r->tmp);
	if (gx_monitor_share(R->c.topo, probes, t0, gb_now(), R->dilate, csv, &m) < 0)
		return NULL;
	return json_pack("{s:f, s:s, s:f, s:i}", "max", m.max, "link", m.link, "bytes", m.bytes,
			 "probes", m.probes);
}

static int monitor_start(struct runner *R)
{
	char dir[PATH_MAX], log[PATH_MAX], probes[PATH_MAX], period[32], scale[32], rtt[16],
		conc[16], chg[32];
	char *argv[32];
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/monitor", R->out);
	if (gb_mkdir_p(dir, 0755) < 0)
		return -1;
	/* a resumed campaign's gridmon counts versions from 1 again: a new session,
	 * the first number whose log does not exist, claimed by creating it (every
	 * session has its log; Slurm tasks on several nodes may share the directory) */
	R->mon_session = 1;
	for (;; R->mon_session++) {
		int fd;

		snprintf(log, sizeof(log), "%s/gridmon-s%d.log", dir, R->mon_session);
		if ((fd = open(log, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) >= 0) {
			close(fd);
			break;
		}
		if (errno != EEXIST) {
			warnx("cannot create '%s': %s", log, strerror(errno));
			return -1;
		}
	}
	/* gridmon's own file, this session's: the copies are matrix-s<N>-v<V>.json */
	snprintf(R->matrix, sizeof(R->matrix), "%s/matrix-s%d.json", dir, R->mon_session);
	unlink(R->matrix);
	R->mon_seen = 0;
	R->mon_matrix = 1;
	if (R->c.monitor.oracle) {
		fprintf(stderr, ME ": monitor: ORACLE, the emulator's configuration with the loads "
			"applied while they are on (monitor: {oracle: true}), not gridmon\n");
		R->oracle_on = 0;
		if (oracle_write(R, NULL, 0) < 0) {
			warnx("the oracle's matrix could not be written (see %s)", log);
			return -1;
		}
		return 0;
	}
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
	/* which broadcasts shared a link with a probe (docs/formats.md) */
	snprintf(probes, sizeof(probes), "%s/probes-s%d.csv", dir, R->mon_session);
	argv[n++] = "--probe-log";
	argv[n++] = probes;
	/* the root's own link carries no probe (issue 44; gb_mon_rep()) */
	argv[n++] = "--avoid";
	argv[n++] = R->c.app.root;
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
	if (R->c.monitor.concurrency >= 0) {
		snprintf(conc, sizeof(conc), "%d", R->c.monitor.concurrency);
		argv[n++] = "--concurrency";
		argv[n++] = conc;
	}
	if (R->c.monitor.fixed)
		argv[n++] = "--fixed";
	if (R->c.monitor.sites_free)
		argv[n++] = "--sites-free";
	if (R->c.monitor.duplex)
		argv[n++] = "--duplex";
	if (R->c.monitor.warm)
		argv[n++] = "--warm";
	if (R->c.monitor.publish_change >= 0) {
		snprintf(chg, sizeof(chg), "%.6g", R->c.monitor.publish_change);
		argv[n++] = "--publish-change";
		argv[n++] = chg;
	}
	argv[n] = NULL;
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

/* Host names, comma-separated, of @h[0 .. @n-1]; NULL when out of memory. */
static char *host_list(const struct gb_topo *t, const int *h, int n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", t->nodes[h[i]].name);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* --hosts for gridemu mpirun when the rank order is not the topology's. */
int rank_hosts(struct runner *R)
{
	const struct gb_topo *t = R->c.topo;
	int *h, n;

	if (R->c.ranks.order == GX_ORDER_TOPOLOGY)
		return 0;
	if (!(h = malloc(sizeof(int) * (size_t)t->nhosts)))
		return -ENOMEM;
	n = gx_rank_hosts(&R->c, h);
	free(R->hosts);
	R->hosts = host_list(t, h, n);
	free(h);
	return R->hosts ? 0 : -ENOMEM;
}

char *cond_host_list(const struct gx_campaign *c, int cond)
{
	int *h = malloc(sizeof(int) * (size_t)c->topo->nhosts), n;
	char *s = NULL;

	if (h && (n = gx_cond_hosts(c, cond, h)) > 0)
		s = host_list(c->topo, h, n);
	free(h);
	return s;
}

static void teardown(struct runner *R)
{
	proc_stop(&R->mon, 10);
	matrix_poll(R);
	gb_cgroup_exp_leave(&R->cgexp);   /* before down, which would remove it under us */
	grid_down(R);
	release_lock(R);
}

int task_run(const struct gx_campaign *c, int k, int *rep, int *cond, int *algo)
{
	int n = 0;

	for (int r = 1; r <= c->repetitions; r++)
		for (int cd = 0; cd < c->nconds; cd++)
			for (int a = 0; a < c->nalgos; a++)
				if (n++ == k) {
					*rep = r;
					*cond = cd;
					*algo = a;
					return 0;
				}
	return -ERANGE;
}

/* The programs R->use's algorithms (and the campaign's gridmon) need are built.
 * Return: 0 or 2 (said why). */
static int check_tools(const struct runner *R)
{
	const char *need[4] = { R->gridemu, R->synthapp, R->libbcast, NULL };

	if (gx_campaign_needs_monitor(&R->c))
		need[3] = R->gridmon;
	for (int i = 0; i < 4; i++)
		if (need[i] && access(need[i], X_OK | R_OK) != 0) {
			return refuse("'%s' is not built (build gridbed first)", need[i]);
		}
	if (gx_campaign_needs_phoenixd(&R->c, R->use) && access(R->phoenixd, X_OK) != 0) {
		return refuse("algorithm 'phoenix' needs phoenixd, which is not built at '%s'",
			      R->phoenixd);
	}
	if (gx_campaign_needs_advisor(&R->c, R->use) && access(R->advisor, X_OK) != 0) {
		return refuse("algorithm 'adaptive' needs gridadvisor, which is not built at '%s'",
			      R->advisor);
	}
	return 0;
}

int runner_setup(struct runner *R, const struct run_opts *o)
{
	struct gb_diag d;
	int ret;

	R->lockfd = -1;
	R->task = o->task;
	R->meta_session = -1;
	R->tty = isatty(2);
	R->plots = o->plots;
	R->t_start = gb_now();
	find_tools(R);
	if (gx_campaign_load(o->file, &R->c, &d) < 0) {
		print_diag(&d);
		return 2;
	}
	R->scale = o->scale > 0 ? o->scale : R->c.scale;
	R->dilate = o->dilate > 0 ? o->dilate : R->c.dilate;
	if (o->seed_set) {
		gx_campaign_set_seed(&R->c, o->seed);
		R->seed_given = 1;
	}
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
				return refuse("--only: '%s' is not an algorithm of campaign '%s'",
					      tok, R->c.name);
			}
			R->use[a] = 1;
		}
	}
	if (R->task >= 0) {     /* one run: its algorithm alone needs its tools */
		int rep, cond, algo;

		if (task_run(&R->c, R->task, &rep, &cond, &algo) < 0) {
			return refuse("--task: campaign '%s' has no run %d (it has %d)", R->c.name,
				      R->task, R->c.repetitions * R->c.nconds * R->c.nalgos);
		}
		for (int a = 0; a < R->c.nalgos; a++)
			R->use[a] = a == algo;
	}
	/* what gridemu up will ask this machine (the address blocks against its
	 * routes, the hosts' congestion controls against its kernel), asked
	 * before the results directory exists, and by a dry run too */
	{
		struct gb_err e = { "" };
		int err = gb_grid_preflight(R->c.topo, &e);

		if (err < 0) {
			warnx("%s", e.msg);
			return err == -EINVAL || err == -EADDRINUSE ? 2 : 1;
		}
	}
	if ((ret = check_out(R, o->out_root, o->resume)) < 0)
		return 2;
	return o->dry ? 0 : check_tools(R);
}

/* Returns the exit status; *@outdir gets the results directory. */
int do_run(const struct run_opts *o, char *outdir, size_t outlen)
{
	struct runner *R = calloc(1, sizeof(*R));
	int leftover, status = 0, ret, k_all = -1;

	if (!R) {
		warnx("out of memory");
		return 1;
	}
	catch_signals();        /* from the start: a signal at any point ends in the teardown */
	if ((status = runner_setup(R, o)) != 0)
		goto out;
	if (o->dry) {
		status = dry_run(R);
		goto out;
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
	if (R->task >= 0)
		snprintf(R->emulog, sizeof(R->emulog), "%s/gridemu-task%d.log", R->out, R->task);
	else
		snprintf(R->emulog, sizeof(R->emulog), "%s/gridemu.log", R->out);
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
	/* the experiment's own cgroup, before anything of it starts: the fidelity
	 * monitor's CPU pressure is then the experiment's, not the planner's */
	{
		char how[320];

		/* ranks that join their host's v2 CPU quota would leave it */
		if (!strcmp(gb_cgroup_describe(R->c.topo, how, sizeof(how)),
			    gb_cpuctl_name(GB_CPUCTL_V2)))
			warnx("the fidelity monitor reads the whole machine's CPU pressure: the "
			      "hosts' CPU quotas are cgroup v2 groups of their own");
		else if (gb_cgroup_exp_enter(R->prefix, &R->cgexp) < 0)
			warnx("the fidelity monitor reads the whole machine's CPU pressure: %s",
			      R->cgexp.why);
	}
	if (got_signal || grid_up(R) < 0) {
		status = got_signal ? 128 + got_signal : 1;
		goto out;
	}
	write_meta(R, !o->resume, 1);
	if (gx_campaign_needs_monitor(&R->c) && monitor_start(R) < 0) {
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

	R->nruns = R->task >= 0 ? 1 : count_runs(R);
	for (int rep = 1; rep <= R->c.repetitions && !got_signal; rep++)
		for (int c = 0; c < R->c.nconds && !got_signal; c++)
			for (int a = 0; a < R->c.nalgos && !got_signal; a++) {
				struct run r;
				char label[GX_NAME_MAX + 64], done[PATH_MAX];

				k_all++;        /* the run's index in the campaign (--task's) */
				if (!R->use[a] || (R->task >= 0 && k_all != R->task))
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
	if (R->task < 0) {      /* a Slurm task's: gridexp slurm's, once all have ended */
		struct gb_err err = { "" };

		fputc('\n', stdout);
		if (gx_report(R->out, R->plots, stdout, NULL, &err) < 0) {
			warnx("report: %s", err.msg);
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
