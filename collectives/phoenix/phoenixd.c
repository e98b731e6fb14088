/* SPDX-License-Identifier: MIT */
/*
 * phoenixd - Saito, Taura and Chikayama's latency-aware dynamic trees (seed
 * 001 s3) as a real distributed protocol on the emulated grid: one process
 * per host, UDP on the data plane (port 7400 unless --port), latencies
 * measured by the processes themselves (RTT/2 of their probes).
 *
 *	phoenixd run --grid [--round-ms N] [--fanout N] [--window N] [--timeout S]
 *	                    [--quiet-rounds N] [--change LINK:DELAY:AT_S]
 *	                    [--coalesce-ms N] [--serial-every N] [--hosts N]
 *	                    [--port N] [--out DIR] [--no-shortcut] [--no-serial]
 *	                    [--verbose]
 *
 *	launcher (root netns)                        host h (netns prefix-h)
 *	  gb_grid_attach()
 *	  fork() per host  ─────────────────────────► setns(), bind data addr:7400
 *	       ◄── READY ─────────────── report pipe
 *	       ─── GO(t0) ────────────── command pipe ► rounds at t0 + k * round
 *	       ◄── STAT per round ─────                phx_node_tick/recv (phoenix_proto.c)
 *	  stable? (no parent change for            ◄──► UDP with the other hosts
 *	  quiet rounds, all settled)
 *	       ─── REPORT ────────────►
 *	       ◄── PARENTS (every tree) ─
 *	  trees, wide-area check, JSON
 *	  [--change: gb_grid_link_set(), wait for the second convergence]
 *	       ─── QUIT ──────────────►
 *
 * Rounds are aligned on CLOCK_MONOTONIC, which every process on the box
 * shares (docs/architecture.md, decision 4), each started 0-5 % of a round late
 * at random, so all roots send their serials at about the same moment.
 * SERIAL items to one destination are coalesced for up to --coalesce-ms
 * (default 2 ms) into one datagram: forwarding one serial per tree and edge
 * is N^2 datagrams per round (28 000 for 168 hosts), far more than the
 * userspace delay line of the tap backend carries on two cores, while the
 * distinct parent-child pairs over all trees are 5 to 15 times fewer
 * (phoenix_sim on phoenix.yaml).  Coalescing delays serials; it does not
 * change the protocol.  For many hosts on a small box, longer rounds and
 * --serial-every 2 keep the load below what makes the delay line drop
 * (168 hosts on 2 cores: --round-ms 2000 --serial-every 2 --coalesce-ms 10).
 *
 * Round trips are measured from the probe's departure to the answer's
 * kernel arrival timestamp (SO_TIMESTAMPNS), less the time the answering
 * process held the probe, so that scheduling delays of the two processes,
 * dozens of them sharing two cores, stay out of the latencies.
 *
 * Convergence is judged by the launcher, which sees every process: the
 * trees are stable when no parent has changed for --quiet-rounds rounds
 * (default: two probe cycles plus 3; after --change one probe cycle times
 * the latency window plus 3, so that the minimum over the window has
 * forgotten the samples from before the change; at least 10) and every
 * process is connected to every tree, has no JOIN pending and has measured
 * every peer.  The reported time, rounds and messages are those until the
 * last parent change; the message count is taken from the per-round
 * reports, so it is exact to within one round.
 *
 * --out DIR writes DIR/initial/<root>.json (and DIR/changed/<root>.json
 * after --change), one tree file per root in the gridbed-tree format of
 * docs/formats.md (children most-descendants first, s5), and
 * DIR/summary.json ("format": "gridbed-phoenixd"): hosts, port, round_ms,
 * fanout, window, quiet_rounds, shortcut, serial, and per convergence
 * ("initial", "after_change": {link, delay_s, result}) converged, time_s,
 * rounds, messages, datagrams, bytes, changes, shortcuts, valid,
 * wan_optimal and per root {valid, wan_optimal, wan_edges, entered_from:
 * {cluster: cluster its wide-area edge comes from}}.
 *
 * Time dilation (docs/architecture.md, decision 9): on a grid brought up with
 * `gridemu up --dilate K`, the launcher reads K from the grid
 * (gb_dilation()) and every process runs on the virtual clock of
 * phoenixd.h, CLOCK_MONOTONIC / K: latencies, thresholds and trees are in
 * the topology's units, --round-ms, --coalesce-ms, --timeout and --change's
 * AT_S are virtual (K times longer on the wall clock), and so is every
 * reported time.  summary.json and every tree file say "dilate": K (1 when
 * none); the first line says it when K > 1.
 *
 * Exit status: 0 converged (and re-converged after --change), 1 not, or an
 * error, 2 usage.
 *
 * Size: about 810 lines with this comment (81 of them).  This file is the
 * launcher, phxd_run(), one program whose phases all work on struct run,
 * so it is kept whole; the command line (options, help text, refusals) is
 * phoenixd_cli.c, the host side phoenixd_host.c, what they share phoenixd.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "gbio.h"
#include "gbemu.h"
#include "gbutil.h"
#include "dilate.h"

#define NS_PER_S 1000000000ULL
#include "phoenixd.h"

/* ------------------------------------------------------------------ */
/* Launcher                                                            */
/* ------------------------------------------------------------------ */

struct child {
	pid_t pid;
	int rep, cmd;
	int ready;
	struct rep last;
	int16_t *parent;
	int got_parents;
};

struct run {
	const struct opts *o;
	struct gb_grid g;
	struct gb_netmodel m;
	int n;
	int *host;               /* --hosts: topology host of process i, else NULL */
	uint32_t *addr;
	struct child *ch;
	uint64_t round;
	int quiet, quiet_change;
	int cur_quiet;
};

struct phase {
	const char *name;
	uint64_t start;          /* GO time, or the link change */
	int converged;
	uint64_t last_change;    /* 0: none since start */
	uint64_t msgs0, dgrams0, bytes0, changes0, shortcuts0;
	uint64_t msgs, dgrams, bytes, changes, shortcuts;  /* until the last change */
	int valid, optimal;
	int quiet;               /* rounds without a change that mean stable */
	json_t *trees;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("phoenixd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static void sum(const struct run *R, uint64_t *msgs, uint64_t *dgrams, uint64_t *bytes,
		uint64_t *changes, uint64_t *shortcuts)
{
	*msgs = *dgrams = *bytes = *changes = *shortcuts = 0;
	for (int i = 0; i < R->n; i++) {
		*msgs += R->ch[i].last.msgs;
		*dgrams += R->ch[i].last.dgrams;
		*bytes += R->ch[i].last.bytes;
		*changes += R->ch[i].last.changes;
		*shortcuts += R->ch[i].last.shortcuts;
	}
}

/* Read one report from child i; returns its kind, or -errno. */
static int read_report(struct run *R, int i)
{
	struct child *c = &R->ch[i];
	struct rep r;
	int ret = gb_read_full(c->rep, &r, sizeof(r));

	if (ret < 0)
		return ret;
	if (r.kind == REP_ERROR) {
		fail("host '%s': %s", R->m.nodes[i].name, strerror(-r.err));
		return -EIO;
	}
	if (r.kind == REP_READY) {
		c->ready = 1;
		return r.kind;
	}
	if (r.kind == REP_PARENTS) {
		if ((int)r.nparent != R->n)
			return -EPROTO;
		ret = gb_read_full(c->rep, c->parent, sizeof(int16_t) * R->n);
		if (ret < 0)
			return ret;
		c->got_parents = 1;
	}
	c->last = r;
	return r.kind;
}

/*
 * Pump reports for up to @until (ns); with @ph, follow convergence and
 * return when stable.  Return: 1 stable, 0 time is up, -errno.
 */
static int pump(struct run *R, uint64_t until, struct phase *ph)
{
	struct pollfd *pf = calloc(R->n, sizeof(*pf));
	uint64_t next_progress = (uint64_t)gb_now_ns() + 5 * NS_PER_S; /* wall clock */
	int ret = 0;

	if (!pf)
		return -ENOMEM;
	for (;;) {
		uint64_t now = phxd_now(R->o);

		if (stop) {
			ret = -EINTR;
			break;
		}
		if (ph && R->o->verbose && (uint64_t)gb_now_ns() >= next_progress) {
			uint64_t m, d, b, c, s;
			int settled = 0, conn = 0;

			sum(R, &m, &d, &b, &c, &s);
			for (int i = 0; i < R->n; i++) {
				const struct rep *r = &R->ch[i].last;

				conn += r->connected == (uint32_t)R->n;
				settled += r->connected == (uint32_t)R->n &&
					   r->measured == (uint32_t)R->n - 1 && r->pending == 0;
			}
			fprintf(stderr, "phoenixd: %s +%.0f s: %llu changes, last at +%.1f s; "
				"%d/%d connected to all trees, %d settled; %llu datagrams\n",
				ph->name,
				(double)(now - ph->start) / 1e9, (unsigned long long)c,
				ph->last_change > ph->start ?
				(double)(ph->last_change - ph->start) / 1e9 : 0.0,
				conn, R->n, settled, (unsigned long long)d);
			next_progress = (uint64_t)gb_now_ns() + 5 * NS_PER_S;
		}
		if (ph) {
			uint64_t last = ph->start;
			int settled = 1;

			for (int i = 0; i < R->n; i++) {
				const struct rep *r = &R->ch[i].last;

				if (r->last_change > last)
					last = r->last_change;
				settled &= r->connected == (uint32_t)R->n &&
					   r->measured == (uint32_t)R->n - 1 && r->pending == 0;
			}
			if (settled && now > last + (uint64_t)R->cur_quiet * R->round) {
				ret = 1;
				break;
			}
		}
		if (now >= until)
			break;
		for (int i = 0; i < R->n; i++)
			pf[i] = (struct pollfd){ R->ch[i].rep, POLLIN, 0 };
		if (poll(pf, R->n, 50) < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		for (int i = 0; i < R->n && ret >= 0; i++) {
			uint64_t prev;

			if (!pf[i].revents)
				continue;
			prev = R->ch[i].last.changes;
			ret = read_report(R, i);
			if (ret < 0) {
				if (ret == -EPIPE)
					fail("host '%s' exited", R->m.nodes[i].name);
				break;
			}
			ret = 0;
			if (ph && R->ch[i].last.changes != prev) {
				uint64_t m, d, b, c, s;

				/* totals as of this report: the cost until now */
				sum(R, &m, &d, &b, &c, &s);
				if (R->ch[i].last.last_change > ph->last_change) {
					ph->last_change = R->ch[i].last.last_change;
					ph->msgs = m - ph->msgs0;
					ph->dgrams = d - ph->dgrams0;
					ph->bytes = b - ph->bytes0;
				}
			}
		}
		if (ret < 0)
			break;
	}
	free(pf);
	return ret;
}

static int send_cmd(struct run *R, char c, const void *extra, size_t len)
{
	for (int i = 0; i < R->n; i++) {
		if (R->ch[i].cmd < 0)
			continue;
		if (gb_write_full(R->ch[i].cmd, &c, 1) < 0 ||
		    (len && gb_write_full(R->ch[i].cmd, extra, len) < 0))
			return -EPIPE;
	}
	return 0;
}

/* Ask every process for its parents and wait for all answers. */
static int collect(struct run *R)
{
	uint64_t until = (uint64_t)gb_now_ns() + 10 * NS_PER_S;
	int ret;

	for (int i = 0; i < R->n; i++)
		R->ch[i].got_parents = 0;
	if ((ret = send_cmd(R, CMD_REPORT, NULL, 0)) < 0)
		return ret;
	for (;;) {
		int all = 1;

		for (int i = 0; i < R->n; i++)
			all &= R->ch[i].got_parents;
		if (all)
			return 0;
		if ((uint64_t)gb_now_ns() > until)
			return -ETIMEDOUT;
		if ((ret = pump(R, phxd_now(R->o) + 50000000ULL, NULL)) < 0)
			return ret;
	}
}

/* Trees from the collected parents: validity, wide-area check, JSON. */
static int judge_trees(struct run *R, struct phase *ph, const char *dir)
{
	int n = R->n, *par = malloc(sizeof(int) * n), *cl = malloc(sizeof(int) * n);
	char path[4096];
	int ret = 0;

	if (!par || !cl) {
		free(par);
		free(cl);
		return -ENOMEM;
	}
	ph->valid = ph->optimal = 0;
	ph->trees = json_object();
	for (int v = 0; v < n; v++)
		cl[v] = R->m.nodes[v].cluster;
	for (int r = 0; r < n; r++) {
		struct gb_tree t;
		json_t *jt = json_object(), *from = json_object();
		int wan = 0, bad = 0, ok, valid;

		for (int v = 0; v < n; v++)
			par[v] = v == r ? -1 : R->ch[v].parent[r];
		memset(&t, 0, sizeof(t));
		valid = gb_tree_init(&t, n, r) == 0 &&
			phx_tree_build(&t, par, NULL, PHX_ORDER_DESC) == 0 &&
			gb_tree_check(&t, NULL) == 0;
		ok = valid && phx_wan_check(par, n, r, cl, R->m.nclusters, &wan, &bad) == 1;
		ph->valid += valid;
		ph->optimal += ok;
		/* which cluster each cluster is entered from */
		for (int v = 0; v < n; v++) {
			int p = par[v];

			if (p >= 0 && p < n && cl[p] != cl[v])
				json_object_set_new(from, R->m.cluster_names[cl[v]],
						    json_string(R->m.cluster_names[cl[p]]));
		}
		json_object_set_new(jt, "valid", json_boolean(valid));
		json_object_set_new(jt, "wan_optimal", json_boolean(ok));
		json_object_set_new(jt, "wan_edges", json_integer(wan));
		json_object_set_new(jt, "entered_from", from);
		json_object_set_new(ph->trees, R->m.nodes[r].name, jt);
		if (!ok)
			printf("  tree %s: %s, %d wide-area edges, %d clusters not entered once\n",
			       R->m.nodes[r].name, valid ? "valid" : "NOT a tree", wan, bad);
		if (!strcmp(R->m.nodes[r].name, R->g.topo->nodes[R->g.topo->root].name)) {
			const char *k;
			json_t *v;

			printf("  tree %s: %d wide-area edges;", R->m.nodes[r].name, wan);
			json_object_foreach(from, k, v)
				printf(" %s entered from %s;", k, json_string_value(v));
			printf("\n");
		}
		if (dir && valid) {
			json_t *j = gb_tree_to_json(&t, &R->m, "phoenixd", 1024);

			snprintf(path, sizeof(path), "%s/%s", dir, R->m.nodes[r].name);
			strcat(path, ".json");
			/* the k its latencies were measured at (decision 9) */
			if (j)
				json_object_set_new(j, "dilate", json_real(R->o->dilate));
			if (!j || (ret = gb_json_save_atomic(j, path)) < 0) {
				ret = j ? ret : -ENOMEM;
				fail("cannot write '%s': %s", path, strerror(-ret));
			}
			json_decref(j);
		}
		gb_tree_release(&t);
	}
	free(par);
	free(cl);
	return ret;
}

static void print_phase(const struct run *R, const struct phase *ph)
{
	double t = ph->last_change > ph->start ? (double)(ph->last_change - ph->start) / 1e9 : 0;
	int rounds = (int)ceil(t * 1e9 / (double)R->round);

	printf("%s: %s after %.3f s (%d rounds of %d ms): %llu messages, %llu datagrams, "
	       "%llu bytes; %llu parent changes, %llu by shortcut\n",
	       ph->name, ph->converged ? "converged" : "NOT converged", t, rounds,
	       R->o->round_ms, (unsigned long long)ph->msgs, (unsigned long long)ph->dgrams,
	       (unsigned long long)ph->bytes, (unsigned long long)ph->changes,
	       (unsigned long long)ph->shortcuts);
	printf("%s: %d/%d trees valid, %d/%d wide-area optimal\n", ph->name, ph->valid, R->n,
	       ph->optimal, R->n);
	fflush(stdout);
}

static json_t *phase_json(const struct run *R, const struct phase *ph)
{
	double t = ph->last_change > ph->start ? (double)(ph->last_change - ph->start) / 1e9 : 0;

	return json_pack("{s:b, s:f, s:i, s:I, s:I, s:I, s:I, s:I, s:i, s:i, s:O}", "converged",
			 ph->converged, "time_s", t, "rounds",
			 (int)ceil(t * 1e9 / (double)R->round), "messages", (json_int_t)ph->msgs,
			 "datagrams", (json_int_t)ph->dgrams, "bytes", (json_int_t)ph->bytes,
			 "changes", (json_int_t)ph->changes, "shortcuts",
			 (json_int_t)ph->shortcuts, "valid", ph->valid, "wan_optimal",
			 ph->optimal, "trees", ph->trees);
}

/* Follow one convergence from ph->start; fills everything but the trees. */
static int converge(struct run *R, struct phase *ph)
{
	uint64_t c, s;
	int ret;

	sum(R, &ph->msgs0, &ph->dgrams0, &ph->bytes0, &ph->changes0, &ph->shortcuts0);
	R->cur_quiet = ph->quiet;
	ph->last_change = 0;
	ph->msgs = ph->dgrams = ph->bytes = 0;
	ret = pump(R, ph->start + (uint64_t)(R->o->timeout_s * 1e9), ph);
	if (ret < 0)
		return ret;
	ph->converged = ret == 1;
	{
		uint64_t m, d, b;

		sum(R, &m, &d, &b, &c, &s);
	}
	ph->changes = c - ph->changes0;
	ph->shortcuts = s - ph->shortcuts0;
	if (!ph->last_change)
		ph->last_change = ph->start;
	return 0;
}

static void reap(struct run *R)
{
	uint64_t until = (uint64_t)gb_now_ns() + 3 * NS_PER_S;

	send_cmd(R, CMD_QUIT, NULL, 0);
	for (int i = 0; i < R->n; i++) {
		if (R->ch[i].cmd >= 0)
			close(R->ch[i].cmd);
		R->ch[i].cmd = -1;
	}
	for (int i = 0; i < R->n; i++) {
		while (R->ch[i].pid > 0) {
			pid_t p = waitpid(R->ch[i].pid, NULL, WNOHANG);

			if (p == R->ch[i].pid || (p < 0 && errno == ECHILD)) {
				R->ch[i].pid = 0;
				break;
			}
			if ((uint64_t)gb_now_ns() > until) {
				kill(R->ch[i].pid, SIGKILL);
				waitpid(R->ch[i].pid, NULL, 0);
				R->ch[i].pid = 0;
				break;
			}
			usleep(10000);
		}
		if (R->ch[i].rep >= 0)
			close(R->ch[i].rep);
		R->ch[i].rep = -1;
		free(R->ch[i].parent);
		R->ch[i].parent = NULL;
	}
}

static int spawn(struct run *R, const struct phx_params *pp)
{
	for (int i = 0; i < R->n; i++) {
		int rp[2], cp[2];
		pid_t pid;

		if (pipe2(rp, O_CLOEXEC) < 0)
			return -errno;
		if (pipe2(cp, O_CLOEXEC) < 0) {
			close(rp[0]);
			close(rp[1]);
			return -errno;
		}
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			close(rp[0]);
			close(rp[1]);
			close(cp[0]);
			close(cp[1]);
			return -errno;
		}
		if (pid == 0) {
			int code, a, b;

			signal(SIGINT, SIG_IGN);
			signal(SIGTERM, SIG_DFL);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				_exit(1);
			if (setns(R->g.nsfd[R->host ? R->host[i] : i], CLONE_NEWNET) < 0) {
				struct rep r = { .kind = REP_ERROR, .node = (uint16_t)i,
						 .err = -errno };
				gb_write_full(rp[1], &r, sizeof(r));
				_exit(1);
			}
			/* our two pipe ends on 3 and 4, then nothing else open: the
			 * grid's lock and namespace fds stay with the launcher */
			a = fcntl(rp[1], F_DUPFD, 5);
			b = fcntl(cp[0], F_DUPFD, 5);
			if (a < 0 || b < 0 || dup2(a, 3) < 0 || dup2(b, 4) < 0)
				_exit(1);
			if (close_range(5, ~0U, 0) < 0)
				for (int fd = 5; fd < 4096; fd++)
					close(fd);
			code = phxd_host_main(i, R->n, R->addr, R->o, pp, 3, 4);
			_exit(code);
		}
		close(rp[1]);
		close(cp[0]);
		R->ch[i].pid = pid;
		R->ch[i].rep = rp[0];
		R->ch[i].cmd = cp[1];
	}
	return 0;
}

/*
 * --hosts N: N hosts spread over the clusters in proportion to their sizes
 * (largest remainders; every cluster keeps one host while N allows), each
 * cluster's first ones, in topology order.
 */
static int pick_hosts(const struct gb_topo *t, int want, int *idx)
{
	int ncl = t->nclusters, *take = calloc(ncl, sizeof(int)), k = 0, left = want;

	if (!take)
		return -ENOMEM;
	for (int c = 0; c < ncl; c++) {
		take[c] = (int)((long)want * t->clusters[c].nhosts / t->nhosts);
		if (take[c] == 0 && t->clusters[c].nhosts > 0 && want >= ncl)
			take[c] = 1;
		left -= take[c];
	}
	while (left > 0) {
		int best = -1;
		double bf = -1;

		for (int c = 0; c < ncl; c++) {
			double f = (double)want * t->clusters[c].nhosts / t->nhosts - take[c];

			if (take[c] < t->clusters[c].nhosts && f > bf) {
				bf = f;
				best = c;
			}
		}
		if (best < 0)
			break;
		take[best]++;
		left--;
	}
	while (left < 0) {             /* the minimum of one overshot */
		int big = 0;

		for (int c = 1; c < ncl; c++)
			if (take[c] > take[big])
				big = c;
		take[big]--;
		left++;
	}
	for (int c = 0; c < ncl; c++)
		for (int i = 0; i < take[c]; i++)
			idx[k++] = t->clusters[c].first_host + i;
	free(take);
	return k == want ? 0 : -EINVAL;
}

int phxd_run(const struct opts *cmdline)
{
	struct opts od = *cmdline;      /* plus the grid's k, below */
	const struct opts *o = &od;
	struct run R;
	struct gb_err e = { "" };
	struct phx_params pp;
	struct phase ph1 = { .name = "initial" }, ph2 = { .name = "after change" };
	const char *link = cmdline->change_link;     /* --change, read by phoenixd_cli.c */
	uint64_t delay = cmdline->change_delay_ns;
	double at = cmdline->change_at_s;
	char dir[4096];
	json_t *summary = NULL;
	int ret, status = 1, cycle;

	gb_catch_signals(on_signal, 0);
	signal(SIGPIPE, SIG_IGN);
	memset(&R, 0, sizeof(R));
	R.o = o;
	/* link changes need the exclusive lock gridemu's `link set` takes */
	ret = gb_grid_open(&R.g, NULL, o->change ? 1 : 0, &e);
	if (ret == 0)
		ret = gb_grid_attach(&R.g, &e);
	if (ret < 0) {
		fail("%s", e.msg);
		goto cleanup;
	}
	/* decision 9: every process runs on the grid's virtual clock (phoenixd.h) */
	od.dilate = gb_dilation(&R.g);
	if (o->change && gb_topo_find_link(R.g.topo, link) < 0) {
		fail("--change: no link '%s' in grid '%s'", link, R.g.prefix);
		goto cleanup;
	}
	if ((ret = gb_nm_from_topo(&R.m, R.g.topo, 10e-6)) < 0) {
		fail("cannot model grid '%s': %s", R.g.prefix, strerror(-ret));
		goto cleanup;
	}
	R.n = R.g.topo->nhosts;
	if (o->hosts > 0 && o->hosts < R.n) {
		struct gb_netmodel sub;
		int *idx = malloc(sizeof(int) * o->hosts);

		ret = idx ? pick_hosts(R.g.topo, o->hosts, idx) : -ENOMEM;
		if (ret == 0)
			ret = gb_nm_sub(&sub, &R.m, idx, o->hosts);
		if (ret == 0)
			R.host = idx;
		else
			free(idx);
		if (ret < 0) {
			fail("cannot take %d hosts: %s", o->hosts, strerror(-ret));
			goto cleanup;
		}
		gb_nm_release(&R.m);
		R.m = sub;
		R.n = o->hosts;
	}
	if (R.n < 2 || R.n > PHX_NODES_MAX) {
		fail("grid '%s' has %d hosts; phoenixd needs 2 to %d", R.g.prefix, R.n,
		     PHX_NODES_MAX);
		goto cleanup;
	}
	R.addr = malloc(sizeof(uint32_t) * R.n);
	R.ch = calloc(R.n, sizeof(*R.ch));
	if (!R.addr || !R.ch) {
		fail("out of memory");
		goto cleanup;
	}
	for (int i = 0; i < R.n; i++) {
		R.addr[i] = R.g.topo->nodes[R.host ? R.host[i] : i].addr;
		R.ch[i].rep = R.ch[i].cmd = -1;
		if (!(R.ch[i].parent = malloc(sizeof(int16_t) * R.n))) {
			fail("out of memory");
			goto cleanup;
		}
	}
	phx_params_default(&pp);
	pp.fanout = o->fanout > 0 ? o->fanout : R.n <= 16 ? R.n - 1 : 8;
	pp.window = o->window;
	pp.use_shortcut = !o->no_shortcut;
	pp.use_serial = !o->no_serial;
	pp.serial_every = o->serial_every;
	pp.seed = 7400;
	R.round = (uint64_t)o->round_ms * 1000000ULL;
	cycle = (R.n - 1 + pp.fanout - 1) / pp.fanout;
	/* as phoenix_sim.c: every peer heard twice; after a latency change,
	 * the latency window must have forgotten the old samples */
	R.quiet = o->quiet_rounds > 0 ? o->quiet_rounds : phx_max_int(2 * cycle + 3, 10);
	R.quiet_change = o->quiet_rounds > 0 ? o->quiet_rounds : phx_max_int(cycle * pp.window + 3, 10);

	char dil[64] = "";

	if (o->dilate > 1)
		snprintf(dil, sizeof(dil), ", time dilated x%g: every time virtual", o->dilate);
	printf("phoenixd: %d processes on grid '%s' (%s, %s backend%s), UDP port %d; round %d ms, "
	       "fanout %d, window %d, serial every %d rounds, quiet %d rounds (%d after a "
	       "change), shortcut %s, serials %s\n",
	       R.n, R.g.prefix, R.g.topo->name, gb_grid_backend(&R.g), dil, o->port, o->round_ms,
	       pp.fanout, pp.window, pp.serial_every, R.quiet, R.quiet_change,
	       pp.use_shortcut ? "on" : "off", pp.use_serial ? "on" : "off");
	fflush(stdout);

	if ((ret = spawn(&R, &pp)) < 0) {
		fail("cannot start host processes: %s", strerror(-ret));
		goto cleanup;
	}
	/* everyone bound before anyone probes */
	{
		uint64_t until = (uint64_t)gb_now_ns() + 20 * NS_PER_S;
		int ready = 0;

		while (ready < R.n) {
			if ((ret = pump(&R, phxd_now(R.o) + 50000000ULL, NULL)) < 0)
				goto cleanup;
			ready = 0;
			for (int i = 0; i < R.n; i++)
				ready += R.ch[i].ready;
			if ((uint64_t)gb_now_ns() > until) {
				fail("only %d of %d host processes became ready", ready, R.n);
				goto cleanup;
			}
		}
	}
	ph1.start = (phxd_now(R.o) / R.round + 2) * R.round;
	ph1.quiet = R.quiet;
	ph2.quiet = R.quiet_change;
	if (send_cmd(&R, CMD_GO, &ph1.start, sizeof(ph1.start)) < 0) {
		fail("lost a host process at start");
		goto cleanup;
	}
	if ((ret = converge(&R, &ph1)) < 0 || (ret = collect(&R)) < 0) {
		fail("%s", strerror(-ret));
		goto cleanup;
	}
	if (o->out) {
		snprintf(dir, sizeof(dir), "%s/initial", o->out);
		mkdir(o->out, 0755);
		mkdir(dir, 0755);
	}
	judge_trees(&R, &ph1, o->out ? dir : NULL);
	print_phase(&R, &ph1);
	status = !(ph1.converged && ph1.valid == R.n);

	if (o->change) {
		struct gb_link_change lc = { .dir = -1 };

		if ((ret = pump(&R, phxd_now(R.o) + (uint64_t)(at * 1e9), NULL)) < 0)
			goto cleanup;
		lc.p.delay_ns = delay;
		lc.p.set = GB_LD_DELAY;
		ret = gb_grid_link_set(&R.g, link, &lc, &e);
		ph2.start = phxd_now(R.o);
		if (ret < 0) {
			fail("%s", e.msg);
			status = 1;
			goto cleanup;
		}
		printf("change: link '%s' delay %.3f ms, %.1f s after convergence\n", link,
		       (double)delay / 1e6, at);
		fflush(stdout);
		if ((ret = converge(&R, &ph2)) < 0 || (ret = collect(&R)) < 0) {
			fail("%s", strerror(-ret));
			goto cleanup;
		}
		if (o->out) {
			snprintf(dir, sizeof(dir), "%s/changed", o->out);
			mkdir(dir, 0755);
		}
		judge_trees(&R, &ph2, o->out ? dir : NULL);
		print_phase(&R, &ph2);
		status |= !(ph2.converged && ph2.valid == R.n);
	}
	if (o->out) {
		summary = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:b, s:o}",
				    "format", "gridbed-phoenixd", "topology", R.g.topo->name,
				    "hosts", R.n, "port", o->port, "round_ms", o->round_ms,
				    "fanout", pp.fanout, "window", pp.window, "quiet_rounds",
				    R.quiet, "shortcut", pp.use_shortcut, "serial", pp.use_serial,
				    "initial", phase_json(&R, &ph1));
		if (summary)
			json_object_set_new(summary, "dilate", json_real(o->dilate));
		if (summary && o->change)
			json_object_set_new(summary, "after_change",
					    json_pack("{s:s, s:f, s:o}", "link", link, "delay_s",
						      (double)delay / 1e9, "result",
						      phase_json(&R, &ph2)));
		snprintf(dir, sizeof(dir), "%s/summary.json", o->out);
		if (!summary || (ret = gb_json_save_atomic(summary, dir)) < 0) {
			fail("cannot write '%s'", dir);
			status = 1;
		}
	}
cleanup:
	if (R.ch)
		reap(&R);
	json_decref(summary);
	json_decref(ph1.trees);
	json_decref(ph2.trees);
	free(R.ch);
	free(R.addr);
	free(R.host);
	gb_nm_release(&R.m);
	gb_grid_close(&R.g);
	return status;
}
