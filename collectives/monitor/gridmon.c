/* SPDX-License-Identifier: MIT */
/*
 * gridmon - the communication benchmark of Gupta & Vadhiyar (seed 000 s2.5):
 * keeps the latency and bandwidth matrices of the live grid fresh.
 *
 *	gridmon [--out FILE] [--period 300s] [--scale F] [--once | --rounds N]
 *	        [--bytes-per-probe 4M] [--max-bytes-per-period B] [--rtt-count N]
 *	        [--fixed | --steady-rtts 4] [--concurrency N] [--publish-change 0.25]
 *	        [--port N] [--timeout S] [--probe-log FILE] [--avoid HOST]
 *	        [--sites-free] [--duplex] [--warm] [-v]
 *	gridmon --print-configured [--out FILE]      (oracle, an ablation)
 *	        [--version N] [--derate LINK:ab|ba:F ...]
 *
 * Every period (300 s in the paper, times --scale), one round:
 *
 *	rep(c) = the first host of cluster c (its second if the first is
 *	         --avoid HOST, the broadcast root: gb_mon_rep());
 *	sec(c) = the next host that is not HOST (gb_mon_sec())
 *	pairs: rep(A) -> rep(B) for A != B (off-diagonal A,B), and
 *	       rep(A) -> sec(A) if A has 2+ hosts (diagonal A,A),
 *	       in rotation order (mon_sched.c)
 *	stages: pairs that share no uplink or site access link run together
 *	       (mon_sched.c; with --duplex, no direction of one), at most
 *	       --concurrency
 *	pair = median RTT/2 of small UDP echoes (latency),
 *	       TCP goodput once the rate stops growing (bandwidth; mon_probe.c;
 *	       --fixed: a fixed-size transfer after warm-up),
 *	       median send() time of a probe on rep(A) (o of every host of A)
 *	expand: node i of A -> node j of B gets (A,B); i, j both in A get (A,A)
 *	after each stage: write the matrix file (docs/formats.md) with
 *	       version+1, atomically, if the round ended or some pair's
 *	       bandwidth moved by more than --publish-change since the last
 *	       version written
 *
 * Choices where the paper is silent:
 *   - bandwidth is the path's steady TCP goodput, the "bandwidth of the
 *     link" of Mateescu's model, which the planners use; what a message
 *     gets while its connection is still in slow start is not in that
 *     model (issue 13, cause 4; docs/measurements.md);
 *   - one pair at a time by default (--concurrency 1): pairs that share no
 *     link may run together (--concurrency 0 or N, mon_sched.c), but on a
 *     2-core box the emulator's delay line is then short of CPU and
 *     100 Mbit/s pairs read as low as 0.09 of their rate, for a round only
 *     12 % shorter (docs/measurements.md);
 *   - a version as soon as a change is measured, not only at the end of a
 *     round: the paper's 5-minute refresh is a period, not a delay;
 *   - the uncertainty: clusters.bw_lo and bw_hi are the range of the pair's
 *     last 3 readings; the matrix's value is the newest reading (a filter
 *     over readings would delay every change by rounds);
 *   - outliers: a steady reading whose window's second half ran at less
 *     than half or more than twice the rate of its first half measured no
 *     rate (the delay line or the probe lost the CPU): it is measured once
 *     more, alone, at the round's end; if that is unsteady too, the
 *     previous value is kept (the count is clusters.unsteady);
 *   - a 1-host cluster has no intra-cluster pair: its diagonal is marked not
 *     measured (it has no node pair that would use it);
 *   - a pair that fails keeps its previous value and is reported as stale;
 *     nothing is written before every pair has a value;
 *   - --warm (a labelled variant, not the campaigns' default): a pair's
 *     connection starts with the window of its last steady reading,
 *     bandwidth x round trip (emulator/grid/probe_warm.c), so slow start begins near the
 *     path's bandwidth-delay product and goes on from there; a pair's
 *     first reading, and one after a failed attempt, is cold;
 *   - the probe budget: --max-bytes-per-period caps the round's bytes by
 *     capping the TCP transfer of every pair alike (never below 64 KiB).
 *
 * --probe-log FILE appends one CSV row per probe (docs/formats.md): its
 * pair, when it ran on the machine's monotonic clock (the clock of a
 * campaign run's go.json and capture.csv), its bytes, its reading and
 * what became of it.  The probes are real traffic on the grid's links; the
 * log says which broadcasts shared a link with one.
 *
 * Time dilation (docs/architecture.md, decision 9; emulator/grid/dilate.h): on a grid
 * brought up with `gridemu up --dilate K`, the wire is K times slower and the
 * matrices stay in the topology's units.  Two places convert, nowhere else:
 *   - what a pair measured (latency / K, bandwidth x K, o / K): the probe,
 *     gb_mon_pair() (mon_probe.c, to_topology()), with its own echo gaps
 *     and waits x K;
 *   - the schedule: --period (times --scale, decision 8's separate factor)
 *     and --timeout are virtual seconds, wall_s() makes them K times
 *     longer on the wall clock; a round's measured duration is reported
 *     virtual (virtual_s()).
 * Thresholds (--publish-change, the unsteady halves, the history range)
 * compare bandwidths in the topology's units with each other, or are
 * ratios.  Every matrix says "dilate": K (1 when none).
 *
 * It never reads the emulator's link configuration: only the host list,
 * cluster membership and data addresses of the live grid (decision 6).
 * --print-configured is the labelled exception: an oracle for the accuracy
 * benchmark, and gridexp's `monitor: {oracle: true}` (a perfect monitor,
 * issue 13).  It reads the grid's configuration as brought up (the run
 * directory's topology.yaml), not its live links; --derate LINK:DIR:F gives
 * link LINK's direction DIR (1 - F) of its rate, what a load taking F of
 * it leaves; --version N numbers the file (readers reload on a new one).
 */
#include "gbplan.h"
#include "gbemu.h"
#include "dilate.h"
#include "gridmon.h"
#include "gridmon_priv.h"
#include "probe_child.h"
#include "gbutil.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sys/wait.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIN_TCP_BYTES 65536ULL

static volatile sig_atomic_t stop;

/*
 * docs/architecture.md, decision 9: gridmon's schedule in virtual seconds on the
 * wall clock of a grid dilated by k, and back.  The only conversions of
 * time in gridmon.c; measured values are converted by gb_mon_pair().
 */
static double wall_s(const struct mon *M, double virt)
{
	return virt * M->dilate;
}

static double virtual_s(const struct mon *M, double wall)
{
	return wall / M->dilate;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gridmon [--out FILE] [--period 300s] [--scale F] [--once | --rounds N]\n"
		"               [--bytes-per-probe SIZE] [--max-bytes-per-period SIZE]\n"
		"               [--rtt-count N] [--fixed | --steady-rtts K] [--concurrency N]\n"
		"               [--publish-change SHARE] [--port N] [--timeout S]\n"
		"               [--probe-log FILE] [--avoid HOST] [--sites-free] [--duplex]\n"
		"               [--warm] [-v]\n"
		"       gridmon --print-configured [--out FILE] [--version N]\n"
		"               [--derate LINK:ab|ba:F ...]   (oracle: the emulator's config,\n"
		"               LINK's direction at (1 - F) of its rate)\n"
		"--avoid HOST: no probe starts from or ends at HOST (a campaign passes its\n"
		"  broadcast root) while HOST's cluster has another host to represent it\n"
		"--sites-free: no site access link is a shared bottleneck (each carries all\n"
		"  its site's cluster uplinks at once): pairs hold only their clusters' uplinks\n"
		"--duplex: a link is one direction: a pair holds only the directions its data\n"
		"  take, so a cluster may send one probe and receive another at once (half\n"
		"  the round; under load, ACKs that meet a loaded direction misread their\n"
		"  pair: for unloaded grids, docs/results.md)\n"
		"--warm: a pair's connection starts with the window of its last reading\n"
		"  (bandwidth x round trip) instead of 10 segments, through a route of its\n"
		"  own; slow start goes on from there (a variant: docs/results.md)\n"
		"Exit: 0 ok; 1 failure; 2 bad input or no grid up (docs/exit-status.md).\n");
}

static const char *node_name(struct mon *M, int i)
{
	return M->g.topo->nodes[i].name;
}

/* What a worker sends back for its pair. */
struct worker_msg {
	int err;
	struct gb_mon_result r;
	double t_begin, t_end; /* set by stage_run(): CLOCK_MONOTONIC, wall */
};

/*
 * --warm: the window pair @p's connection starts with, in segments of
 * GB_NM_MSS bytes (collectives/core/gbcore.h): its
 * last reading's bandwidth x round trip (both in the topology's units, a
 * product that dilation leaves as it is), at least the kernel's 10; 0
 * (cold) without a reading, or when the last attempt failed.
 */
static unsigned warm_window(const struct mon *M, const struct gb_mon_pairref *p)
{
	int k = p->a * M->nc + p->b;
	double w = M->cbw[k] * 2 * M->clat[k] / GB_NM_MSS;

	if (M->stale[k] || !(w > 0))
		return 0;
	return w < 10 ? 10 : w > 65535 ? 65535 : (unsigned)ceil(w);
}

/* Fork a worker that measures pair @p; its report comes on *@rfd. */
static pid_t worker_start(struct mon *M, const struct gb_mon_pairref *p,
			  const struct gb_mon_opts *po, int *rfd)
{
	int pp[2];
	pid_t pid;

	if (pipe2(pp, O_CLOEXEC) < 0)
		return -errno;
	/* dies with gridmon; stage_run() kills it at its deadline */
	pid = gb_child_fork(-1, "gridmon-pair", 0);
	if (pid < 0) {
		close(pp[0]);
		close(pp[1]);
		return pid;
	}
	if (pid == 0) {
		struct worker_msg w;
		struct gb_mon_opts o = *po;
		close(pp[0]);
		memset(&w, 0, sizeof(w));
		if (M->warm)
			o.initcwnd = warm_window(M, p);
		w.err = gb_mon_pair(M->g.nsfd[p->src], M->g.nsfd[p->dst],
				    M->g.topo->nodes[p->dst].addr, &o, &w.r);
		_exit(gb_write_full(pp[1], &w, sizeof(w)) < 0);
	}
	close(pp[1]);
	*rfd = pp[0];
	return pid;
}

/* Run the pairs of one stage together; their reports into @w. */
static void stage_run(struct mon *M, const int *idx, int n, const struct gb_mon_opts *po,
		      struct worker_msg *w)
{
	pid_t pid[n];
	struct pollfd pf[n];
	size_t got[n];
	double deadline = gb_now() + po->timeout + 2, t_begin[n], t_end[n];
	int left = 0;

	for (int i = 0; i < n; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].err = -EIO;
		got[i] = 0;
		pf[i].fd = -1;
		pf[i].events = POLLIN;
		t_begin[i] = t_end[i] = gb_now();
		pid[i] = worker_start(M, &M->pairs[idx[i]], po, &pf[i].fd);
		if (pid[i] < 0)
			w[i].err = pid[i];
		else
			left++;
	}
	while (left && !stop) {
		double rest = deadline - gb_now();
		if (rest <= 0)
			break;
		int k = poll(pf, (nfds_t)n, (int)(rest * 1000) + 1);
		if (k < 0 && errno != EINTR)
			break;
		for (int i = 0; k > 0 && i < n; i++) {
			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			ssize_t r = read(pf[i].fd, (char *)&w[i] + got[i], sizeof(w[i]) - got[i]);
			if (r > 0 && (got[i] += (size_t)r) < sizeof(w[i]))
				continue;
			if (r < 0 && errno == EINTR)
				continue;
			if (got[i] != sizeof(w[i])) {
				memset(&w[i], 0, sizeof(w[i]));
				w[i].err = -EIO; /* the worker died */
			}
			t_end[i] = gb_now();
			close(pf[i].fd);
			pf[i].fd = -1;
			left--;
		}
	}
	for (int i = 0; i < n; i++) {
		if (pf[i].fd >= 0) {
			t_end[i] = gb_now(); /* timed out, or stopped */
			close(pf[i].fd);
			if (got[i] != sizeof(w[i])) {
				memset(&w[i], 0, sizeof(w[i]));
				w[i].err = -ETIMEDOUT;
			}
		}
		if (pid[i] > 0) {
			kill(pid[i], SIGKILL);
			waitpid(pid[i], NULL, 0);
		}
		w[i].t_begin = t_begin[i];
		w[i].t_end = t_end[i];
	}
}

/* Take pair @p's report into the cluster matrices; 0, or -1 if it failed. */
static int take(struct mon *M, const struct gb_mon_pairref *p, const struct worker_msg *w,
		const struct gb_mon_opts *po, int verbose, int retry)
{
	int nc = M->nc, k = p->a * nc + p->b;
	const struct gb_mon_result *r = &w->r;

	M->bytes_round += r->bytes_sent;
	if (w->err < 0) {
		fprintf(stderr, "gridmon: pair '%s' -> '%s': %s\n", node_name(M, p->src),
			node_name(M, p->dst), strerror(-w->err));
		M->stale[k] = 1;
		return -1;
	}
	if (po->tcp_bytes && r->steady && !(r->halves >= UNSTEADY_LO && r->halves <= UNSTEADY_HI)) {
		if (verbose || retry)
			fprintf(stderr, "gridmon: %s -> %s: %.2f Mbit/s is not a steady rate "
				"(second half / first %.2f)%s\n", node_name(M, p->src),
				node_name(M, p->dst), r->bw * 8 / 1e6, r->halves,
				!retry ? ", measured again at the round's end" :
				!isnan(M->cbw[k]) ? ", the previous value is kept" :
				", taken: there is no other");
		M->unsteady++;
		if (!retry || !isnan(M->cbw[k]))
			return 1;
	}
	M->stale[k] = 0;
	M->clat[k] = r->rtt_p50 / 2;
	M->cbw[k] = po->tcp_bytes ? r->bw : NAN;
	if (po->tcp_bytes) {
		double *h = &M->hist[k * HIST], lo, hi;
		mon_hist_range(M, k, &lo, &hi);
		/* a change: outside the range of the pair's last readings, widened
		 * by the share --publish-change (the noise it has shown is no news) */
		if (isnan(lo) || r->bw < lo * (1 - M->change) || r->bw > hi * (1 + M->change))
			M->changed = 1;
		memmove(h + 1, h, (HIST - 1) * sizeof(double));
		h[0] = r->bw;
		if (M->nhist[k] < HIST)
			M->nhist[k]++;
	}
	/* o of the representative: the smallest of this round's per-pair
	 * medians, since a busy core only ever adds to it */
	if (isnan(M->co_round[p->a]) || r->o_send < M->co_round[p->a])
		M->co[p->a] = M->co_round[p->a] = r->o_send;
	if (verbose)
		fprintf(stderr,
			"gridmon: %s -> %s: rtt p50 %.3f ms min %.3f ms (%d/%d), "
			"bw %.2f Mbit/s over %.3f s (%s, halves %.2f, %llu B, from a window of "
			"%u segments), o %.2f us\n",
			node_name(M, p->src), node_name(M, p->dst), r->rtt_p50 * 1e3,
			r->rtt_min * 1e3, r->rtt_received, r->rtt_sent, r->bw * 8 / 1e6,
			r->bw_seconds, r->steady ? "steady" : "capped", r->halves,
			(unsigned long long)r->tcp_bytes, r->cwnd_start, r->o_send * 1e6);
	return 0;
}

/*
 * --probe-log: pair @p's probe of @stage (@again: measured once more at the
 * round's end), as take() returned @taken for it.  A write error is said
 * once, and ends the log, not the monitor.
 */
static void log_probe(struct mon *M, int stage, int again, const struct gb_mon_pairref *p,
		      const struct worker_msg *w, int taken)
{
	FILE *f = M->probelog;

	if (!f)
		return;
	fprintf(f, "%ld,%d,%d,%s,%s,%.6f,%.6f,%llu,", M->round, stage, again,
		node_name(M, p->src), node_name(M, p->dst), w->t_begin, w->t_end,
		(unsigned long long)w->r.bytes_sent);
	if (w->err < 0)
		fputs(",failed\n", f);
	else
		fprintf(f, "%.0f,%s\n", w->r.bw, taken > 0 ? "unsteady" : "ok");
	if (ferror(f)) {
		fprintf(stderr, "gridmon: probe log: %s; no more rows are written\n",
			strerror(errno));
		fclose(f);
		M->probelog = NULL;
	}
}

/*
 * One round: every pair once, stage by stage (mon_sched.c).  After each
 * stage @publish(M, last) is called; it writes a version when it should.
 * Returns the number of failed pairs, or -errno if publishing failed.
 */
static int round_once(struct mon *M, const struct gb_mon_opts *po, int verbose,
		      int (*publish)(struct mon *, int last, void *), void *ctx)
{
	int failed = 0, idx[M->npairs], again[M->npairs], nagain = 0, err;
	struct worker_msg w[M->npairs];
	double t0 = gb_now();

	M->bytes_round = 0;
	M->unsteady = 0;
	for (int a = 0; a < M->nc; a++)
		M->co_round[a] = NAN;
	for (int s = 0; s < M->nstages && !stop; s++) {
		int n = 0;
		for (int i = 0; i < M->npairs; i++)
			if (M->stage[i] == s)
				idx[n++] = i;
		stage_run(M, idx, n, po, w);
		if (stop)
			return failed;
		for (int i = 0; i < n; i++) {
			int t = take(M, &M->pairs[idx[i]], &w[i], po, verbose, 0);
			log_probe(M, s, 0, &M->pairs[idx[i]], &w[i], t);
			failed += t < 0;
			if (t > 0)
				again[nagain++] = idx[i];
		}
		if (s < M->nstages - 1 && (err = publish(M, 0, ctx)) < 0)
			return err;
	}
	/* an unsteady reading is measured once more, alone */
	for (int i = 0; i < nagain && !stop; i++) {
		stage_run(M, &again[i], 1, po, w);
		if (!stop) {
			int t = take(M, &M->pairs[again[i]], &w[0], po, verbose, 1);
			log_probe(M, M->stage[again[i]], 1, &M->pairs[again[i]], &w[0], t);
			failed += t < 0;
		}
	}
	if (stop)
		return failed;
	M->round_s = virtual_s(M, gb_now() - t0);
	M->bytes_last = M->bytes_round;
	M->unsteady_last = M->unsteady;
	if ((err = publish(M, 1, ctx)) < 0)
		return err;
	return failed;
}

/* Every pair that a round measures has a value. */
static int is_complete(const struct mon *M)
{
	for (int i = 0; i < M->npairs; i++)
		if (isnan(M->clat[M->pairs[i].a * M->nc + M->pairs[i].b]))
			return 0;
	return 1;
}

/* Where and when versions are written. */
struct publisher {
	const char *out;
	const struct gb_mon_opts *po;
	uint64_t cap;
	double period;
	int verbose, written;
};

/*
 * After each stage: write a version at the end of every round, and in the
 * middle of one as soon as some pair's new reading fell outside the range
 * of its last HIST readings widened by the share --publish-change, so that
 * a load reaches the matrix when it is measured, not a round later, while
 * the noise a pair has already shown does not.  Nothing is written before
 * every pair has a value.
 */
static int publish(struct mon *M, int last, void *ctx)
{
	struct publisher *P = ctx;

	if (!is_complete(M) || (!last && !M->changed))
		return 0;
	M->version++;
	json_t *j = mon_matrix_json(M, M->clat, M->cbw, M->co, 0);
	json_object_set_new(j, "period_s", json_real(P->period));
	json_object_set_new(j, "round", json_integer(M->round));
	json_object_set_new(j, "round_complete", json_boolean(last));
	json_object_set_new(j, "bytes_per_probe", json_integer((json_int_t)P->po->tcp_bytes));
	json_object_set_new(j, "transfer", json_string(P->po->steady ? "steady" : "fixed"));
	/* the hosts' TCP stack the probes ran on (issue 18) */
	json_t *tcp = gb_grid_tcp_json(&M->g);
	json_object_set_new(j, "tcp", tcp ? tcp : json_null());
	if (P->cap)
		json_object_set_new(j, "max_bytes_per_period", json_integer((json_int_t)P->cap));
	int err = mon_write_json(j, P->out);
	json_decref(j);
	if (err < 0)
		return err;
	M->changed = 0;
	P->written++;
	if (P->verbose)
		fprintf(stderr, "gridmon: version %llu (round %ld%s), %llu B in the last round of %.3f s\n",
			(unsigned long long)M->version, M->round, last ? ", end" : ", a change",
			(unsigned long long)M->bytes_last, M->round_s);
	return 0;
}

static int parse_bytes(const char *s, uint64_t *v)
{
	double d;
	if (gb_parse_size(s, &d) < 0 || d < 0 || d > 1e15)
		return -EINVAL;
	*v = (uint64_t)d;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "period", required_argument, NULL, 'p' },
		{ "scale", required_argument, NULL, 's' },
		{ "once", no_argument, NULL, '1' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "bytes-per-probe", required_argument, NULL, 'b' },
		{ "max-bytes-per-period", required_argument, NULL, 'B' },
		{ "rtt-count", required_argument, NULL, 'n' },
		{ "port", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 't' },
		{ "print-configured", no_argument, NULL, 'C' },
		{ "derate", required_argument, NULL, 'D' },
		{ "version", required_argument, NULL, 'V' },
		{ "concurrency", required_argument, NULL, 'K' },
		{ "fixed", no_argument, NULL, 'F' },
		{ "publish-change", required_argument, NULL, 'c' },
		{ "steady-rtts", required_argument, NULL, 'R' },
		{ "probe-log", required_argument, NULL, 'L' },
		{ "avoid", required_argument, NULL, 'A' },
		{ "sites-free", no_argument, NULL, 'S' },
		{ "duplex", no_argument, NULL, 'X' },
		{ "warm", no_argument, NULL, 'W' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mon M;
	struct gb_err e = { "" };
	struct gb_mon_opts po = { .rtt_count = 10, .tcp_bytes = 4 << 20, .warm_frac = 0.25,
				  .port = 47100, .timeout = 30, .steady = 1, .steady_rtts = 4 };
	double change = 0.25;
	int concurrency = 1; /* docs/measurements.md: on a 2-core box, 2 at once read LANs low */
	int sched_flags = 0;
	const char *out = "-", *probelog = NULL, *avoid = NULL;
	uint64_t period_ns = 300ULL * 1000000000ULL, cap = 0;
	double scale = 1;
	long rounds = 0;
	int oracle = 0, verbose = 0, opt, ret = 1, written = 0, nder = 0;
	const char *der[64];
	long long version = 0;
	char *end;

	memset(&M, 0, sizeof(M));
	M.g.lockfd = -1;
	opterr = 0;     /* one line of ours names the fault, not getopt's and the usage */
	while ((opt = getopt_long(argc, argv, ":o:v1h", lo, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'p':
			if (gb_parse_time(optarg, &period_ns) < 0 || !period_ns) {
				return gb_refuse("gridmon", "period '%s' is not a time (use 300s)",
						 optarg);
			}
			break;
		case 's':
			scale = strtod(optarg, &end);
			if (*end || !(scale > 0)) {
				return gb_refuse("gridmon", "scale '%s' is not a positive number",
						 optarg);
			}
			break;
		case '1': rounds = 1; break;
		case 'r':
			rounds = strtol(optarg, &end, 10);
			if (*end || rounds < 1) {
				return gb_refuse("gridmon", "rounds '%s' is not a positive integer",
						 optarg);
			}
			break;
		case 'b':
			if (parse_bytes(optarg, &po.tcp_bytes) < 0) {
				return gb_refuse("gridmon", "bytes-per-probe '%s' is not a size",
						 optarg);
			}
			break;
		case 'B':
			if (parse_bytes(optarg, &cap) < 0) {
				return gb_refuse("gridmon",
						 "max-bytes-per-period '%s' is not a size", optarg);
			}
			break;
		case 'n':
			po.rtt_count = (int)strtol(optarg, &end, 10);
			if (*end || po.rtt_count < 1 || po.rtt_count > 10000) {
				return gb_refuse("gridmon", "rtt-count '%s' is not 1..10000",
						 optarg);
			}
			break;
		case 'P':
			po.port = (int)strtol(optarg, &end, 10);
			if (*end || po.port < 1 || po.port > 65534) {
				return gb_refuse("gridmon", "port '%s' is not 1..65534", optarg);
			}
			break;
		case 't':
			po.timeout = strtod(optarg, &end);
			if (*end || !(po.timeout > 0)) {
				return gb_refuse("gridmon", "timeout '%s' is not positive", optarg);
			}
			break;
		case 'C': oracle = 1; break;
		case 'D':
			if (nder == (int)(sizeof(der) / sizeof(der[0]))) {
				return gb_refuse("gridmon", "more than %d --derate", nder);
			}
			der[nder++] = optarg;
			break;
		case 'V':
			version = strtoll(optarg, &end, 10);
			if (*end || version < 0) {
				return gb_refuse("gridmon", "version '%s' is not an integer >= 0",
						 optarg);
			}
			break;
		case 'K':
			concurrency = (int)strtol(optarg, &end, 10);
			if (*end || concurrency < 0 || concurrency > 1000) {
				return gb_refuse("gridmon", "concurrency '%s' is not 0..1000",
						 optarg);
			}
			break;
		case 'F': po.steady = 0; break;
		case 'R':
			po.steady_rtts = strtod(optarg, &end);
			if (*end || !(po.steady_rtts >= 1 && po.steady_rtts <= 100)) {
				return gb_refuse("gridmon", "steady-rtts '%s' is not 1..100",
						 optarg);
			}
			break;
		case 'c':
			change = strtod(optarg, &end);
			if (*end || !(change >= 0)) {
				return gb_refuse("gridmon",
						 "publish-change '%s' is not a number >= 0",
						 optarg);
			}
			break;
		case 'L': probelog = optarg; break;
		case 'A': avoid = optarg; break;
		case 'S': sched_flags |= GB_MON_SITES_FREE; break;
		case 'X': sched_flags |= GB_MON_DUPLEX; break;
		case 'W': M.warm = 1; break;
		case 'v': verbose = 1; break;
		case 'h': usage(stdout); return 0;
		case ':':
			return gb_refuse("gridmon",
					 "option '%s' needs a value (see gridmon --help)",
					 argv[optind - 1]);
		default:
			return gb_refuse("gridmon", "unknown option '%s' (see gridmon --help)",
					 argv[optind - 1]);
		}
	}
	if (optind != argc) {
		return gb_refuse("gridmon", "unexpected argument '%s' (see gridmon --help)",
				 argv[optind]);
	}
	if ((nder || version) && !oracle) {
		return gb_refuse("gridmon", "--derate and --version go with --print-configured");
	}
	if (probelog && oracle) {
		return gb_refuse("gridmon",
				 "--probe-log goes with measuring, not --print-configured");
	}

	int err = gb_grid_open(&M.g, NULL, 0, &e);
	if (err >= 0)
		err = gb_grid_attach(&M.g, &e);
	if (err < 0) {
		fprintf(stderr, "gridmon: %s\n", e.msg[0] ? e.msg : strerror(-err));
		gb_grid_close(&M.g);
		/* no grid up, a bad prefix, a busy one: bad input, as in gridemu */
		return err == -ENOENT || err == -EINVAL || err == -EBUSY ? 2 : 1;
	}
	/* Long runs must not keep `gridemu link set` waiting. */
	gb_grid_unlock(&M.g);
	M.nc = M.g.topo->nclusters;
	M.dilate = gb_dilation(&M.g);
	M.avoid = -1;
	if (avoid && ((M.avoid = gb_topo_find_node(M.g.topo, avoid)) < 0 ||
		      M.g.topo->nodes[M.avoid].kind != GB_NODE_HOST)) {
		fprintf(stderr, "gridmon: --avoid '%s': no such host in grid '%s'\n", avoid,
			M.g.topo->name);
		gb_grid_close(&M.g);
		return 2;
	}
	if (oracle) {
		struct gb_topo *cfg = NULL, *live = M.g.topo;
		char tp[512], line[GB_DIAG_LINE_MAX];
		struct gb_err why;
		struct gb_diag d;

		/* the configuration the grid was brought up with, not its live
		 * links: a shape-mode load lowers a link there, --derate says it */
		snprintf(tp, sizeof(tp), "%s/topology.yaml", M.g.rundir);
		if (gb_topo_load(tp, &cfg, &d) < 0) {
			fprintf(stderr, "gridmon: %s\n",
				gb_diag_format(&d, NULL, line, sizeof(line)));
			gb_grid_close(&M.g);
			return 1;
		}
		for (int i = 0; i < nder; i++)
			if (mon_derate(cfg, der[i], &why) < 0) {
				fprintf(stderr, "gridmon: --derate %s\n", why.msg);
				gb_topo_free(cfg);
				gb_grid_close(&M.g);
				return 2;
			}
		M.version = (uint64_t)version;
		M.g.topo = cfg;
		err = mon_print_configured(&M, out);
		M.g.topo = live;
		gb_topo_free(cfg);
		if (err < 0)
			fprintf(stderr, "gridmon: cannot write '%s': %s\n", out, strerror(-err));
		gb_grid_close(&M.g);
		return err < 0;
	}

	if (probelog) {
		/* appended to: a header only into an empty file; rows as they come */
		if (!(M.probelog = fopen(probelog, "ae"))) {
			fprintf(stderr, "gridmon: probe log '%s': %s\n", probelog, strerror(errno));
			goto cleanup;
		}
		setvbuf(M.probelog, NULL, _IOLBF, 0);
		if (fseek(M.probelog, 0, SEEK_END) == 0 && ftell(M.probelog) == 0)
			fputs("round,stage,again,src,dst,t_begin,t_end,bytes,bw,result\n", M.probelog);
	}

	size_t nn = (size_t)(M.nc * M.nc);
	M.clat = malloc(nn * sizeof(double));
	M.cbw = malloc(nn * sizeof(double));
	M.stale = calloc(nn, sizeof(int));
	M.co = malloc((size_t)M.nc * sizeof(double));
	M.co_round = malloc((size_t)M.nc * sizeof(double));
	M.hist = calloc(nn * HIST, sizeof(double));
	M.nhist = calloc(nn, sizeof(int));
	M.pairs = calloc(nn, sizeof(*M.pairs));
	M.stage = calloc(nn, sizeof(int));
	if (!M.clat || !M.cbw || !M.stale || !M.co || !M.co_round || !M.hist || !M.nhist ||
	    !M.pairs || !M.stage) {
		fprintf(stderr, "gridmon: out of memory\n");
		goto cleanup;
	}
	for (size_t i = 0; i < nn; i++)
		M.clat[i] = M.cbw[i] = NAN;
	M.npairs = gb_mon_pairs(M.g.topo, M.avoid, M.pairs, (int)nn);
	M.nstages = M.npairs < 0 ? M.npairs : gb_mon_schedule(M.g.topo, M.pairs, M.npairs,
								    concurrency, sched_flags, M.stage);
	if (M.nstages < 0) {
		fprintf(stderr, "gridmon: cannot schedule the pairs: %s\n", strerror(-M.nstages));
		goto cleanup;
	}
	if (verbose)
		fprintf(stderr, "gridmon: %d pairs in %d stages\n", M.npairs, M.nstages);
	if (M.dilate > 1)
		fprintf(stderr, "gridmon: time dilated x%g: periods and timeouts x%g on the "
			"wall clock, matrices in the topology's units\n", M.dilate, M.dilate);
	for (int a = 0; a < M.nc; a++)
		M.co[a] = NAN;

	/* The probe budget: pairs x (echoes both ways + transfer) <= cap. */
	int npairs = M.npairs;
	uint64_t udp = (uint64_t)po.rtt_count * 64 * 2;
	if (cap && npairs && (udp + po.tcp_bytes) * (uint64_t)npairs > cap) {
		uint64_t per = cap / (uint64_t)npairs;
		po.tcp_bytes = per > udp + MIN_TCP_BYTES ? per - udp : MIN_TCP_BYTES;
		fprintf(stderr, "gridmon: probe budget %llu B per period: %d pairs of %llu B\n",
			(unsigned long long)cap, npairs, (unsigned long long)po.tcp_bytes);
	}

	gb_catch_signals(on_signal, 0); /* the sleep must end */

	M.change = change;
	struct publisher P = { .out = out, .po = &po, .cap = cap,
			       .verbose = verbose,
			       .period = (double)period_ns / 1e9 * scale };
	/* the period (virtual, as reported) and the pair's timeout on the
	 * wall clock; the probe's own gaps follow po.dilate (decision 9) */
	double period_wall = wall_s(&M, P.period);
	po.timeout = wall_s(&M, po.timeout);
	po.dilate = M.dilate;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long k = 0; !stop && (!rounds || k < rounds); k++) {
		M.round = k + 1;
		int failed = round_once(&M, &po, verbose, publish, &P);
		if (failed < 0) {
			fprintf(stderr, "gridmon: cannot write '%s': %s\n", out, strerror(-failed));
			goto cleanup;
		}
		if (stop)
			break;
		if (!is_complete(&M))
			fprintf(stderr, "gridmon: round %ld: %d pair(s) never measured, "
				"nothing written\n", k + 1, failed);
		if (rounds && k + 1 >= rounds)
			break;
		/* Rounds start on a fixed grid: start + k * period.  A round
		 * longer than the period is followed at once by the next. */
		double ns = (double)next.tv_nsec + period_wall * 1e9;
		next.tv_sec += (time_t)(ns / 1e9);
		next.tv_nsec = (long)fmod(ns, 1e9);
		while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	written = P.written;
	ret = written ? 0 : 1;
cleanup:
	free(M.clat);
	free(M.cbw);
	free(M.stale);
	free(M.co);
	free(M.co_round);
	free(M.hist);
	free(M.nhist);
	free(M.pairs);
	free(M.stage);
	if (M.probelog)
		fclose(M.probelog);
	gb_grid_close(&M.g);
	return ret;
}
