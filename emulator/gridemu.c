/* SPDX-License-Identifier: MIT */
/*
 * gridemu - build, shape, inspect and tear down an emulated grid.
 *
 * Only this file prints; everything else returns -errno and a message.
 * Exit status: 0 success, 1 failure, 2 bad usage or bad input (a malformed
 * topology, an unknown link or backend).
 */
#include "calibrate.h"
#include "capture.h"
#include "dilate.h"
#include "cgroup.h"
#include "gbemu.h"
#include "mpirun.h"
#include "probe.h"
#include "tcpstat.h"
#include "gridemu_cli.h"
#include "gbutil.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *prefix_opt;

/* One line on stderr, "gridemu: " first; returns @code for the exit status. */
static int die(int code, const char *what, const char *msg)
{
	fprintf(stderr, "gridemu: %s%s\n", what, msg);
	return code;
}

static int open_grid(struct gb_grid *g, int exclusive)
{
	struct gb_err e = { "" };
	int err = gb_grid_open(g, prefix_opt, exclusive, &e);
	if (err < 0)
		return die(err == -EBUSY || err == -EINVAL ? 2 : 1, "", e.msg);
	return 0;
}

/* gb_grid_attach() on @g, opened with @exclusive; prints the refusal.  No
 * grid up under this prefix (-ENOENT) is bad input, exit 2, as in gridload,
 * gridmon, capture and mpirun (docs/exit-status.md). */
static int attach(struct gb_grid *g, int exclusive)
{
	struct gb_err e = { "" };
	int err, r = open_grid(g, exclusive);
	if (r)
		return r;
	if ((err = gb_grid_attach(g, &e)) < 0) {
		gb_grid_close(g);
		return die(err == -ENOENT ? 2 : 1, "", e.msg);
	}
	return 0;
}

int gridemu_attach(struct gb_grid *g)
{
	return attach(g, 0);
}

/* ---------------------------------------------------------------- up */

static int usage_up(FILE *f)
{
	fprintf(f, "usage: gridemu up FILE [--backend auto|netem|tap] [--dilate K] [--no-calibrate]\n"
		"                 [--part SITE|HUB,... --peer ADDR [--peer-prefix P]] [--quiet]\n"
		"  Build the grid described by topology FILE (see docs/topology-format.md).\n"
		"  auto picks netem when the kernel has sch_netem, else the tap delay line.\n"
		"  The tap delay line's own cost per link traversal is measured and subtracted\n"
		"  from every delay (~0.1 s); --no-calibrate leaves it in (status shows it).\n"
		"  --dilate K: time dilation (K >= 1): the wire carries every delay x K and every\n"
		"  rate / K, so the CPUs look K times faster; gridbed's tools report times / K.\n"
		"  --part, --peer: one grid across two machines (docs/scale-out.md): build only\n"
		"  these sites (with their clusters and hosts) and hubs; the rest is built by\n"
		"  the machine at ADDR, whose grid has prefix P (default: ours).  Links between\n"
		"  the two are VXLANs over the machines' own network (UDP 4789), from this\n"
		"  machine's address that faces ADDR, and only ADDR's frames pass; anyone who\n"
		"  can forge ADDR still can (docs/scale-out.md, \"Trust\").\n");
	return f == stdout ? 0 : 2;
}

static int cmd_up(int argc, char **argv)
{
	static const struct option lo[] = { { "backend", required_argument, 0, 'b' },
					    { "no-calibrate", no_argument, 0, 'C' },
					    { "dilate", required_argument, 0, 'd' },
					    { "quiet", no_argument, 0, 'q' },
					    { "help", no_argument, 0, 'h' },
					    { "part", required_argument, 0, 'P' },
					    { "peer", required_argument, 0, 'R' },
					    { "peer-prefix", required_argument, 0, 'X' },
					    { 0, 0, 0, 0 } };
	struct gb_up_opts o = { .backend = "auto" };
	int quiet = 0, c;
	opterr = 0;     /* one line of ours names the fault, not getopt's and the usage */
	while ((c = getopt_long(argc, argv, ":b:d:qh", lo, NULL)) != -1) {
		if (c == 'b')
			o.backend = optarg;
		else if (c == 'C')
			o.no_calibrate = 1;
		else if (c == 'd') {
			char *end;

			o.dilate = strtod(optarg, &end);
			if (end == optarg || *end || !(o.dilate >= 1 && o.dilate <= GB_DILATE_MAX)) {
				fprintf(stderr, "gridemu: up: --dilate '%s' is not a number in "
					"[1, %g]\n", optarg, GB_DILATE_MAX);
				return 2;
			}
		}
		else if (c == 'q')
			quiet = 1;
		else if (c == 'P')
			o.part = optarg;
		else if (c == 'R')
			o.peer = optarg;
		else if (c == 'X')
			o.peer_prefix = optarg;
		else if (c == 'h')
			return usage_up(stdout);
		else {
			return gb_refuse("gridemu", "up: %s '%s' (see gridemu up --help)",
					 c == ':' ? "option needs a value:" : "unknown option",
					 argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return gb_refuse("gridemu", "up: %s (see gridemu up --help)", optind == argc ?
				 "which topology file?" : "one topology file only");

	struct gb_grid g;
	struct gb_err e = { "" };
	int r = open_grid(&g, 1);
	if (r)
		return r;
	double t0 = gb_now();
	int err = gb_grid_up(&g, argv[optind], &o, &e);
	double el = gb_now() - t0;
	char dil[64] = "";

	if (g.dilate > 1.0)
		snprintf(dil, sizeof(dil), "time dilated x%g, ", g.dilate);
	if (err < 0) {
		gb_grid_close(&g);
		return die(err == -EINVAL || err == -EEXIST || err == -EADDRINUSE ? 2 : 1, "",
			   e.msg);
	}
	if (!quiet)
		printf("grid '%s' up: %d hosts, %d nodes, %d links, backend %s, prefix %s, "
		       "%sin %.3f s\n", g.topo->name, g.topo->nhosts, g.topo->nnodes,
		       g.topo->nlinks, gb_grid_backend(&g), g.prefix, dil, el);
	{
		struct gb_calib cal;
		char line[512], warn[512];

		if (gb_grid_calib_read(&g, &cal, NULL) == 0) {
			gb_calib_describe(g.topo, &cal, line, sizeof(line), warn, sizeof(warn));
			if (!quiet)
				printf("%s\n", line);
			if (warn[0])
				fprintf(stderr, "gridemu: warning: %s\n", warn);
		}
	}
	/* heterogeneous CPUs asked for but not enforceable: say so, always */
	{
		char cpu[256];

		if (!strncmp(gb_cgroup_describe(g.topo, cpu, sizeof(cpu)), "none", 4))
			fprintf(stderr, "gridemu: warning: the topology gives clusters a cpu share, "
				"but no CPU controller enforces it (%s)\n", cpu + 6);
	}
	gb_grid_close(&g);
	return 0;
}

/* -------------------------------------------------------------- down */

static int cmd_down(int argc, char **argv)
{
	if (argc > 1) {
		int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
		fprintf(help ? stdout : stderr,
			"usage: gridemu down\n  Remove everything the grid of this prefix created, "
			"even after a crash.\n");
		return help ? 0 : 2;
	}
	struct gb_grid g;
	struct gb_err e = { "" };
	int removed = 0, r = open_grid(&g, 1);
	if (r)
		return r;
	double t0 = gb_now();
	int err = gb_grid_down(&g, &removed, &e);
	gb_grid_close(&g);
	if (err < 0)
		return die(1, "", e.msg);
	printf("grid '%s' down: %d namespaces removed in %.3f s\n", g.prefix, removed, gb_now() - t0);
	return 0;
}

/* ------------------------------------------------------------ status */

static int cmd_status(int argc, char **argv)
{
	int json = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else {
			int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
			fprintf(help ? stdout : stderr, "usage: gridemu status [--json]\n");
			return help ? 0 : 2;
		}
	}
	struct gb_grid g;
	int r = gridemu_attach(&g);
	if (r)
		return r;
	/* exit 1 when the data plane is broken (a dead or stalled delay line) */
	r = gb_grid_status(&g, stdout, json);
	gb_grid_close(&g);
	return r;
}

/* -------------------------------------------------------------- exec */

static int cmd_exec(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: gridemu exec NODE -- CMD [ARG...]\n"
		       "  Run CMD inside NODE's network namespace.\n");
		return 0;
	}
	if (argc < 2)
		return gb_refuse("gridemu",
				 "exec: which node? (gridemu exec NODE -- CMD [ARG...])");
	if (argc < 3 || strcmp(argv[2], "--"))
		return gb_refuse("gridemu",
				 "exec: '--' must follow NODE (gridemu exec NODE -- CMD [ARG...])");
	if (argc < 4)
		return gb_refuse("gridemu",
				 "exec: no command after '--' (gridemu exec NODE -- CMD [ARG...])");
	struct gb_grid g;
	struct gb_err e = { "" };
	int r = open_grid(&g, 0);
	if (r)
		return r;
	/* Without the state file we still exec: it names the node's namespace
	 * directly, which is what a user debugging a half-built grid wants. */
	gb_grid_exec(&g, argv[1], argv + 3, &e);
	gb_grid_close(&g);
	return die(e.msg[0] && strstr(e.msg, "no node") ? 2 : 127, "", e.msg);
}

/* -------------------------------------------------------------- link */

static int usage_link(FILE *f)
{
	fprintf(f, "usage: gridemu link show\n"
		"       gridemu link set LINK [dir A>B] [delay T] [jitter T] [loss P%%] [rate R] "
		"[limit N]\n"
		"  Change one link (or one direction of it) at runtime; other links are not "
		"touched.\n"
		"  T: 25ms, 100us; P: 1%%; R: 45mbit, 1gbit; N: packets.\n");
	return f == stdout ? 0 : 2;
}

/*
 * The words after `link set LINK`, into @c.  With @g NULL, before any grid
 * is looked up, every value is checked but the direction is not (it names
 * the link's ends); with @g, the direction is read against link @k.
 * Returns 0, or 2 with the fault printed.
 */
static int parse_change(struct gb_grid *g, int k, int argc, char **argv,
			struct gb_link_change *c)
{
	const struct gb_topo *t = g ? g->topo : NULL;
	const char *lname = t ? t->links[k].name : "set";
	memset(c, 0, sizeof(*c));
	c->dir = -1;
	for (int i = 0; i < argc; i++) {
		char key[32], *val;
		char *eq = strchr(argv[i], '=');
		if (eq) {
			snprintf(key, sizeof(key), "%.*s", (int)(eq - argv[i]), argv[i]);
			val = eq + 1;
		} else {
			if (i + 1 >= argc) {
				return gb_refuse("gridemu", "link set: '%s' needs a value",
						 argv[i]);
			}
			snprintf(key, sizeof(key), "%s", argv[i]);
			val = argv[++i];
		}
		int bad = 0;
		if (!strcmp(key, "dir") && !t) {
			continue;
		} else if (!strcmp(key, "dir")) {
			char ab[80], ba[80];
			const char *na = t->nodes[t->links[k].a].name, *nb = t->nodes[t->links[k].b].name;
			snprintf(ab, sizeof(ab), "%s>%s", na, nb);
			snprintf(ba, sizeof(ba), "%s>%s", nb, na);
			if (!strcmp(val, ab) || !strcmp(val, "a>b"))
				c->dir = 0;
			else if (!strcmp(val, ba) || !strcmp(val, "b>a"))
				c->dir = 1;
			else {
				return gb_refuse("gridemu",
						 "link '%s': direction '%s' is not %s or %s",
						 t->links[k].name, val, ab, ba);
			}
		} else if (!strcmp(key, "delay")) {
			bad = gb_parse_time(val, &c->p.delay_ns) < 0;
			c->p.set |= GB_LD_DELAY;
		} else if (!strcmp(key, "jitter")) {
			bad = gb_parse_time(val, &c->p.jitter_ns) < 0;
			c->p.set |= GB_LD_JITTER;
		} else if (!strcmp(key, "loss")) {
			bad = gb_parse_loss(val, &c->p.loss) < 0;
			c->p.set |= GB_LD_LOSS;
		} else if (!strcmp(key, "rate")) {
			bad = strcmp(val, "unlimited") && gb_parse_rate(val, &c->p.rate_bps) < 0;
			c->p.set |= GB_LD_RATE;
		} else if (!strcmp(key, "limit")) {
			char *end;
			long v = strtol(val, &end, 10);
			bad = *end || v <= 0 || v > 1000000;
			c->p.limit = (uint32_t)v;
			c->p.set |= GB_LD_LIMIT;
		} else {
			fprintf(stderr, "gridemu: link set: unknown parameter '%s' (delay, jitter, "
				"loss, rate, limit, dir)\n", key);
			return 2;
		}
		if (bad) {
			return gb_refuse("gridemu", "link %s%s%s: %s '%s' is not valid",
					 t ? "'" : "", lname, t ? "'" : "", key, val);
		}
	}
	if (!c->p.set) {
		return gb_refuse("gridemu", "link set: nothing to change");
	}
	return 0;
}

static int cmd_link(int argc, char **argv)
{
	if (argc < 2)
		return gb_refuse("gridemu", "link: show or set? (see gridemu link --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return usage_link(stdout);
	struct gb_grid g;
	struct gb_err e = { "" };
	int r;
	if (!strcmp(argv[1], "show")) {
		if ((r = gridemu_attach(&g)))
			return r;
		gb_grid_link_show(&g, stdout);
		gb_grid_close(&g);
		return 0;
	}
	if (strcmp(argv[1], "set"))
		return gb_refuse("gridemu", "link: unknown subcommand (show or set; see gridemu "
				 "link --help)");
	if (argc < 3)
		return gb_refuse("gridemu", "link set: which link? (see gridemu link show)");
	struct gb_link_change c;
	/* the values first: a bad one is refused whether or not a grid is up */
	if ((r = parse_change(NULL, 0, argc - 3, argv + 3, &c)))
		return r;
	if ((r = attach(&g, 1)))
		return r;
	int k = gb_topo_find_link(g.topo, argv[2]);
	if (k < 0) {
		fprintf(stderr, "gridemu: no link '%s' in grid '%s' (see 'gridemu link show')\n",
			argv[2], g.prefix);
		gb_grid_close(&g);
		return 2;
	}
	if ((r = parse_change(&g, k, argc - 3, argv + 3, &c))) {
		gb_grid_close(&g);
		return r;
	}
	int err = gb_grid_link_set(&g, argv[2], &c, &e);
	gb_grid_close(&g);
	if (err < 0)    /* -EREMOTE: that direction is shaped on the peer machine */
		return die(err == -ENOENT || err == -EINVAL || err == -EREMOTE ? 2 : 1, "", e.msg);
	return 0;
}

/* ------------------------------------------------------------ script */

static int cmd_script(int argc, char **argv)
{
	unsigned flags = 0;
	const char *file = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--down"))
			flags |= GB_SCRIPT_DOWN;
		else if (!strcmp(argv[i], "--no-netem"))
			flags |= GB_SCRIPT_NO_NETEM;
		else if (argv[i][0] != '-' && !file)
			file = argv[i];
		else {
			int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
			fprintf(help ? stdout : stderr,
				"usage: gridemu script FILE [--down] [--no-netem]\n"
				"  Print the iproute2 shell script equivalent to 'gridemu up FILE'\n"
				"  (--no-netem: rate only, for kernels without sch_netem).\n");
			return help ? 0 : 2;
		}
	}
	if (!file)
		return gb_refuse("gridemu", "script: which topology file?");
	struct gb_topo *t = NULL;
	struct gb_diag d;
	int err;
	if ((err = gb_topo_load(file, &t, &d)) < 0) {
		/* a file that cannot be read has no line and column to name */
		if (err == -EINVAL && d.line > 0)
			return gb_refuse("gridemu", "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
		return gb_refuse("gridemu", "cannot read topology '%s': %s", file, strerror(-err));
	}
	const char *p = prefix_opt ? prefix_opt : getenv("GRIDBED_PREFIX");
	gb_write_script(t, p && *p ? p : GB_PREFIX_DEFAULT, flags, stdout);
	gb_topo_free(t);
	return 0;
}

/* ------------------------------------------------------------- probe */

static int find_node_or_die(const struct gb_topo *t, const char *name)
{
	int i = gb_topo_find_node(t, name);
	if (i < 0)
		fprintf(stderr, "gridemu: no node '%s' in grid '%s'\n", name, t->name);
	return i;
}

static void path_info(const struct gb_topo *t, int s, int d, double *rtt, uint64_t *rate)
{
	uint64_t fw = 0, bw = 0, r1 = 0, r2 = 0;
	gb_topo_path_metrics(t, s, d, &fw, &r1);
	gb_topo_path_metrics(t, d, s, &bw, &r2);
	*rtt = (double)(fw + bw) / 1e9;
	*rate = r1;
}

static int cmd_probe(int argc, char **argv)
{
	struct gb_probe_opts o = { .count = 20, .interval = 0.01, .tcp_seconds = 2 };
	const char *pos[2] = { NULL, NULL };
	int np = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--count") && i + 1 < argc)
			o.count = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tcp") && i + 1 < argc)
			o.tcp_seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--interval") && i + 1 < argc) {
			char *end;

			o.interval = strtod(argv[++i], &end);
			if (*end || !(o.interval >= 0 && o.interval <= 10))
				return gb_refuse("gridemu",
						 "probe: --interval must be seconds in [0, 10]");
		}
		else if (argv[i][0] != '-' && np < 2)
			pos[np++] = argv[i];
		else {
			int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
			fprintf(help ? stdout : stderr,
				"usage: gridemu probe SRC DST [--count N] [--interval S] [--tcp SECONDS]\n"
				"  UDP echo RTTs (N echoes, S seconds apart, default 20 and 0.01) and\n"
				"  TCP goodput from SRC to DST over the data plane.\n");
			return help ? 0 : 2;
		}
	}
	if (np != 2)
		return gb_refuse("gridemu", "probe: need SRC and DST");
	struct gb_grid g;
	struct gb_err e = { "" };
	int r = gridemu_attach(&g);
	if (r)
		return r;
	int s = find_node_or_die(g.topo, pos[0]), d = find_node_or_die(g.topo, pos[1]);
	if (s < 0 || d < 0) {
		gb_grid_close(&g);
		return 2;
	}
	struct gb_probe_result pr;
	if (gb_probe(&g, s, d, &o, &pr, &e) < 0) {
		gb_grid_close(&g);
		return die(1, "", e.msg);
	}
	double rtt;
	uint64_t rate;
	path_info(g.topo, s, d, &rtt, &rate);
	printf("%s -> %s: %d/%d echoes, rtt min/p50/p99/max %.3f/%.3f/%.3f/%.3f ms "
	       "(configured %.3f ms)", pos[0], pos[1], pr.received, pr.sent, pr.rtt_min * 1e3,
	       pr.rtt_p50 * 1e3, pr.rtt_p99 * 1e3, pr.rtt_max * 1e3, rtt * 1e3);
	if (o.tcp_seconds > 0)
		printf(", tcp %.2f Mbit/s (bottleneck %.2f Mbit/s)", pr.tcp_bps / 1e6,
		       (double)rate / 1e6);
	printf("\n");
	gb_grid_close(&g);
	return 0;
}

/* -------------------------------------------------------------- demo */

static volatile sig_atomic_t interrupted;
static void on_int(int sig)
{
	interrupted = 1;
}

/*
 * The README's default job until the campaign runner exists: bring the grid
 * up, print its summary and a fidelity table measured over the data plane
 * (one path from the root host to every other cluster), tear it down.
 */
static int cmd_demo(int argc, char **argv)
{
	const char *file = argc > 1 ? argv[1] : GRIDBED_SOURCE_DIR "/topologies/teragrid.yaml";
	const char *backend = argc > 2 ? argv[2] : "auto";
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: gridemu demo [FILE [BACKEND]]\n"
		       "  Up, summary, fidelity table, down (default: topologies/teragrid.yaml).\n");
		return 0;
	}
	struct gb_grid g;
	struct gb_err e = { "" };
	struct gb_up_opts o = { .backend = backend };
	int r = open_grid(&g, 1);
	if (r)
		return r;
	gb_catch_signals(on_int, 0);

	double t0 = gb_now();
	int err = gb_grid_up(&g, file, &o, &e);
	if (err < 0) {
		gb_grid_close(&g);
		return die(err == -EINVAL || err == -EEXIST || err == -EADDRINUSE ? 2 : 1, "",
			   e.msg);
	}
	printf("== grid up in %.3f s ==\n", gb_now() - t0);
	const struct gb_topo *t = g.topo;
	printf("grid '%s': %d hosts in %d clusters at %d sites, %d nodes, %d links, backend %s\n",
	       t->name, t->nhosts, t->nclusters, t->nsites, t->nnodes, t->nlinks, gb_grid_backend(&g));
	for (int c = 0; c < t->nclusters; c++)
		printf("  %-8s site %-8s %3d hosts  %s .. %s\n", t->clusters[c].name,
		       t->sites[t->clusters[c].site].name, t->clusters[c].nhosts,
		       t->nodes[t->clusters[c].first_host].name,
		       t->nodes[t->clusters[c].first_host + t->clusters[c].nhosts - 1].name);

	int src = t->root >= 0 && t->root < t->nhosts ? t->root : 0;
	printf("\n== fidelity: from %s, 20 UDP echoes and 3 s of TCP per path"
	       " (goodput after a 0.75 s warm-up) ==\n",
	       t->nodes[src].name);
	printf("%-16s %10s %10s %10s %8s %12s %12s %7s\n", "path", "rtt-conf", "rtt-p50",
	       "rtt-p99", "err", "bottleneck", "tcp", "ratio");
	struct gb_probe_opts po = { .count = 20, .interval = 0.005, .tcp_seconds = 3 };
	for (int c = 0; c < t->nclusters && !interrupted; c++) {
		int d = t->clusters[c].first_host;
		if (d == src)
			d = t->clusters[c].nhosts > 1 ? d + 1 : -1;
		if (d < 0)
			continue;
		struct gb_probe_result pr;
		if (gb_probe(&g, src, d, &po, &pr, &e) < 0) {
			fprintf(stderr, "gridemu: %s\n", e.msg);
			continue;
		}
		double rtt;
		uint64_t rate;
		char path[64];
		path_info(t, src, d, &rtt, &rate);
		snprintf(path, sizeof(path), "%s>%s", t->nodes[src].name, t->nodes[d].name);
		printf("%-16s %8.3fms %8.3fms %8.3fms %+7.1f%% %7.1fMbit/s %7.1fMbit/s %6.1f%%\n",
		       path, rtt * 1e3, pr.rtt_p50 * 1e3, pr.rtt_p99 * 1e3,
		       rtt > 0 ? (pr.rtt_p50 - rtt) / rtt * 100 : 0, (double)rate / 1e6,
		       pr.tcp_bps / 1e6, rate ? pr.tcp_bps / (double)rate * 100 : 0);
		fflush(stdout);
	}
	t0 = gb_now();
	int removed = 0;
	err = gb_grid_down(&g, &removed, &e);
	gb_grid_close(&g);
	if (err < 0)
		return die(1, "", e.msg);
	printf("\n== grid down in %.3f s (%d namespaces removed) ==\n", gb_now() - t0, removed);
	return interrupted ? 130 : 0;
}

/* ------------------------------------------------------------- table */

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static int cmd_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "up", cmd_up, "build the grid of a topology file" },
	{ "down", cmd_down, "remove everything the grid created (also after a crash)" },
	{ "status", cmd_status, "hosts, addresses and live link parameters" },
	{ "exec", cmd_exec, "run a command inside a node" },
	{ "link", cmd_link, "show links, or change one at runtime" },
	{ "probe", cmd_probe, "measure RTT and TCP goodput between two nodes" },
	{ "script", cmd_script, "print the equivalent iproute2 script" },
	{ "demo", cmd_demo, "up, summary, fidelity table, down" },
	{ "capture", gb_cmd_capture, "capture on a link: pcap file and byte/packet counters" },
	{ "mpirun", gb_cmd_mpirun, "run an OpenMPI job, one rank per host" },
	{ "tcpstat", gb_cmd_tcpstat, "every host's kernel TCP counters (CSV), once or every S s" },
	{ "help", cmd_help, "this text" },
};

static int cmd_help(int argc, char **argv)
{
	printf("usage: gridemu [--prefix P] COMMAND [ARGS]   (COMMAND --help for more)\n"
	       "       --prefix P may also follow the command (before a '--')\n\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		printf("  %-8s %s\n", cmds[i].name, cmds[i].summary);
	printf("\nenvironment: GRIDBED_PREFIX (default gb), GRIDBED_RUNDIR (default "
	       "/run/gridbed), GRIDBED_TAPD\n"
	       "exit: 0 ok; 1 failure; 2 bad input, no grid up or a busy prefix; exec 127,\n"
	       "mpirun 124 timeout; 128+N signal N (docs/exit-status.md)\n");
	return 0;
}

static void set_prefix(const char *p)
{
	prefix_opt = p;
	/* Children (mpirun's agent, rank wrappers) re-run gridemu. */
	setenv("GRIDBED_PREFIX", prefix_opt, 1);
}

/*
 * The global option after the subcommand too (`gridemu up FILE --prefix P`):
 * taken out of argv[from..] up to a "--", after which the words belong to
 * the program that exec or mpirun runs.  Returns the new argc, or -1 with
 * the message printed when --prefix has no value.
 */
static int late_prefix(int argc, char **argv, int from)
{
	for (int k = from; k < argc && strcmp(argv[k], "--"); k++) {
		int take = 0;

		if (!strcmp(argv[k], "--prefix")) {
			if (k + 1 >= argc || !strcmp(argv[k + 1], "--")) {
				fprintf(stderr, "gridemu: --prefix needs a value\n");
				return -1;
			}
			set_prefix(argv[k + 1]);
			take = 2;
		} else if (!strncmp(argv[k], "--prefix=", 9)) {
			set_prefix(argv[k] + 9);
			take = 1;
		}
		if (take) {
			memmove(&argv[k], &argv[k + take], sizeof(char *) * (size_t)(argc - k - take + 1));
			argc -= take;
			k--;
		}
	}
	return argc;
}

int main(int argc, char **argv)
{
	int i = 1;
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--prefix") && i + 1 < argc) {
			set_prefix(argv[i + 1]);
			i += 2;
		} else if (!strncmp(argv[i], "--prefix=", 9)) {
			set_prefix(argv[i] + 9);
			i++;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			return cmd_help(0, NULL);
		} else {
			return gb_refuse("gridemu", "unknown option '%s'", argv[i]);
		}
	}
	if (i >= argc) {
		return gb_refuse("gridemu", "which command? (see gridemu help)");
	}
	if ((argc = late_prefix(argc, argv, i + 1)) < 0)
		return 2;
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
		if (!strcmp(argv[i], cmds[c].name))
			return cmds[c].fn(argc - i, argv + i);
	return gb_refuse("gridemu", "unknown command '%s' (see gridemu help)", argv[i]);
}
