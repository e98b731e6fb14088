// SPDX-License-Identifier: MIT
/*
 * gridload - synthetic load on a live emulated grid (libgbload).
 *
 *   gridload [--prefix P] plan    [SCHEDULE] [--json] [--topology FILE]
 *   gridload [--prefix P] run     [SCHEDULE] [--mode traffic|shape] [--log FILE.csv] [--quiet]
 *   gridload [--prefix P] flow    SRC DST [--fraction F | --rate R] [--duration T] [...]
 *   gridload [--prefix P] restore
 *   SCHEDULE: --schedule FILE | --random [--target CLUSTER] [--on pair|uplink] [--horizon T]
 *             [--seed N] [--scale F] [--tcp] [--size BYTES] [--port P]
 *
 * Only this file prints.  Exit status: 0 success, 1 failure (a flow or a
 * link change failed), 2 bad usage or input (a bad schedule, a destination
 * that is not a host of the grid, no grid up), 130 interrupted.
 */
#include "gbemu.h"
#include "dilate.h"
#include "gbload.h"
#include "gbutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ME "gridload"

static const char *prefix_opt;
static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	stop_flag = sig;
}

static __attribute__((format(printf, 2, 3))) int die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs(ME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

/* The schedule options shared by plan, run and flow. */
struct opts {
	const char *schedule;
	int random;
	const char *target;
	int on;                 /* enum gb_load_on */
	const char *topology;
	unsigned long long seed;
	int have_seed;
	double scale;           /* 0: the file's (or 1) */
	double horizon;         /* paper seconds; 0: default */
	int json, quiet, mode, tcp, size, port;
	const char *log;
	/* flow */
	double fraction, duration;
	uint64_t rate;
};

enum { O_SCHED = 256, O_RANDOM, O_TARGET, O_TOPO, O_SEED, O_SCALE, O_HORIZON, O_JSON,
       O_QUIET, O_MODE, O_TCP, O_SIZE, O_PORT, O_LOG, O_FRACTION, O_RATE, O_DURATION,
       O_PREFIX, O_ON, O_HELP };

static const struct option long_opts[] = {
	{ "schedule", required_argument, 0, O_SCHED },
	{ "random", no_argument, 0, O_RANDOM },
	{ "target", required_argument, 0, O_TARGET },
	{ "on", required_argument, 0, O_ON },
	{ "topology", required_argument, 0, O_TOPO },
	{ "seed", required_argument, 0, O_SEED },
	{ "scale", required_argument, 0, O_SCALE },
	{ "horizon", required_argument, 0, O_HORIZON },
	{ "json", no_argument, 0, O_JSON },
	{ "quiet", no_argument, 0, O_QUIET },
	{ "mode", required_argument, 0, O_MODE },
	{ "tcp", no_argument, 0, O_TCP },
	{ "size", required_argument, 0, O_SIZE },
	{ "port", required_argument, 0, O_PORT },
	{ "log", required_argument, 0, O_LOG },
	{ "fraction", required_argument, 0, O_FRACTION },
	{ "rate", required_argument, 0, O_RATE },
	{ "duration", required_argument, 0, O_DURATION },
	{ "prefix", required_argument, 0, O_PREFIX },
	{ "help", no_argument, 0, O_HELP },
	{ 0, 0, 0, 0 },
};

static int usage(FILE *f)
{
	fprintf(f,
		"usage: gridload [--prefix P] COMMAND [OPTIONS]\n"
		"  plan    [SCHEDULE] [--json] [--topology FILE]  print the schedule only\n"
		"  run     [SCHEDULE] [--mode traffic|shape] [--log FILE.csv] [--quiet]\n"
		"  flow    SRC DST [--fraction F | --rate R] [--duration T] [--mode M]\n"
		"          [--log F]\n"
		"  restore                                        undo a killed run's cuts\n"
		"SCHEDULE: --schedule FILE (docs/formats.md) | --random (the paper's)\n"
		"  --target CLUSTER (c3)  --horizon T (60min)  --seed N  --scale F\n"
		"  --on pair (default: a host of CLUSTER and one of another cluster, at\n"
		"    a share of their path's bottleneck, as the paper's loading program)\n"
		"    | uplink (a variant: CLUSTER's uplink)\n"
		"  --tcp  --size BYTES (MTU - 28)  --port P (%d; flows use P .. P+%d)\n"
		"Times: 90s, 6min, 1h, 250ms.  --scale F multiplies every time of the\n"
		"  schedule: --scale 0.01 turns a 6 min load into 3.6 s.\n"
		"traffic mode: CBR UDP flows at fraction x the path's bottleneck.\n"
		"shape mode:   link rate = (1 - fraction) x its rate, then restored.\n"
		"Time dilation: on a grid up with --dilate K, gridload follows the grid's K\n"
		"  automatically: every time lasts K x as long on the wall clock (on top of\n"
		"  --scale), flows send rate / K on the wire; times and rates printed and\n"
		"  logged stay virtual (the topology's), and every output states K.\n"
		"Exit: 0 ok; 1 a flow or a link change failed; 2 bad input or no grid up;\n"
		"  130 interrupted (docs/exit-status.md).\n",
		GB_LOAD_PORT, GB_LOAD_PORTS - 1);
	return f == stdout ? 0 : 2;
}

/* "6min", "90s", "250ms", "1h": seconds. */
static int parse_secs(const char *s, double *out)
{
	char *end;
	uint64_t ns;
	double v = strtod(s, &end);

	if (end == s || v < 0 || !isfinite(v))
		return -EINVAL;
	if (!strcmp(end, "min")) {
		*out = v * 60;
		return 0;
	}
	if (!strcmp(end, "h")) {
		*out = v * 3600;
		return 0;
	}
	if (gb_parse_time(s, &ns) < 0)
		return -EINVAL;
	*out = (double)ns / 1e9;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o, int npos, const char **pos)
{
	int c, np = 0;
	char *end;

	memset(o, 0, sizeof(*o));
	o->mode = GB_LOAD_TRAFFIC;
	optind = 1;
	opterr = 0;     /* one line of ours names the fault, not getopt's and the usage */
	while ((c = getopt_long(argc, argv, "+:h", long_opts, NULL)) != -1 || optind < argc) {
		if (c == -1) {
			/* a positional argument: keep it, go on with the options */
			if (np >= npos)
				return gb_refuse(ME, "unexpected argument '%s'", argv[optind]);
			pos[np++] = argv[optind++];
			continue;
		}
		switch (c) {
		case O_SCHED: o->schedule = optarg; break;
		case O_RANDOM: o->random = 1; break;
		case O_TARGET: o->target = optarg; break;
		case O_ON:
			if ((o->on = gb_load_on_parse(optarg)) < 0)
				return gb_refuse(ME, "--on '%s' is not pair or uplink", optarg);
			break;
		case O_TOPO: o->topology = optarg; break;
		case O_SEED:
			errno = 0;
			o->seed = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg || *optarg == '-')
				return gb_refuse(ME, "seed '%s' is not a non-negative integer",
						 optarg);
			o->have_seed = 1;
			break;
		case O_SCALE:
			o->scale = strtod(optarg, &end);
			if (*end || !(o->scale > 0) || !isfinite(o->scale))
				return gb_refuse(ME, "scale '%s' is not a positive number", optarg);
			break;
		case O_HORIZON:
			if (parse_secs(optarg, &o->horizon) < 0 || !(o->horizon > 0))
				return gb_refuse(ME, "horizon '%s' is not a time (e.g. 60min)",
						 optarg);
			break;
		case O_JSON: o->json = 1; break;
		case O_QUIET: o->quiet = 1; break;
		case O_MODE:
			if (!strcmp(optarg, "traffic"))
				o->mode = GB_LOAD_TRAFFIC;
			else if (!strcmp(optarg, "shape"))
				o->mode = GB_LOAD_SHAPE;
			else
				return gb_refuse(ME, "mode '%s' is not traffic or shape", optarg);
			break;
		case O_TCP: o->tcp = 1; break;
		case O_SIZE:
			o->size = (int)strtol(optarg, &end, 10);
			if (*end || o->size < 16 || o->size > (1 << 20))
				return gb_refuse(ME, "size '%s' is not a packet size in bytes",
						 optarg);
			break;
		case O_PORT:
			o->port = (int)strtol(optarg, &end, 10);
			if (*end || o->port < 1 || o->port > 65535 - GB_LOAD_PORTS)
				return gb_refuse(ME, "port '%s' is not valid", optarg);
			break;
		case O_LOG: o->log = optarg; break;
		case O_FRACTION:
			o->fraction = strtod(optarg, &end);
			if (*end == '%' && !end[1])
				o->fraction /= 100, end++;
			if (*end || !(o->fraction > 0) || !(o->fraction < 1))
				return gb_refuse(ME, "fraction '%s' is not between 0 and 1 (or "
						 "0%% and 100%%)", optarg);
			break;
		case O_RATE:
			if (gb_parse_rate(optarg, &o->rate) < 0)
				return gb_refuse(ME, "rate '%s' is not a rate (e.g. 20mbit)",
						 optarg);
			break;
		case O_DURATION:
			if (parse_secs(optarg, &o->duration) < 0 || !(o->duration > 0))
				return gb_refuse(ME, "duration '%s' is not a time (e.g. 10s)",
						 optarg);
			break;
		case O_PREFIX: prefix_opt = optarg; break;
		case O_HELP: return usage(stdout) ? 2 : 1;
		case ':':
			return gb_refuse(ME, "option '%s' needs a value (see --help)",
					 argv[optind - 1]);
		default:
			return gb_refuse(ME, "unknown option '%s' (see --help)", argv[optind - 1]);
		}
	}
	if (np != npos)
		return gb_refuse(ME, "expected %d argument%s (see --help)", npos,
				 npos == 1 ? "" : "s");
	if (o->schedule && o->random)
		return gb_refuse(ME, "--schedule and --random are exclusive");
	return 0;
}

/* Open and attach the live grid, then release its lock (see gb_load_run()). */
static int attach(struct gb_grid *g)
{
	struct gb_err e = { "" };
	int err = gb_grid_open(g, prefix_opt, 0, &e);

	if (err < 0)
		return die(err == -EINVAL || err == -EBUSY ? 2 : 1, "%s", e.msg);
	if ((err = gb_grid_attach(g, &e)) < 0) {
		gb_grid_close(g);
		return die(err == -ENOENT ? 2 : 1, "%s", e.msg);
	}
	/* As `gridemu mpirun` does: a long run must not block `link set`. */
	gb_grid_unlock(g);
	return 0;
}

static int print_diag(const struct gb_diag *d)
{
	char line[GB_DIAG_LINE_MAX];

	if (d->line)
		fprintf(stderr, "%s\n", gb_diag_format(d, NULL, line, sizeof(line)));
	else
		fprintf(stderr, ME ": %s: %s\n", d->file, d->msg);
	return 2;
}

/* Build the schedule the options describe, against topology @t. */
static int build_schedule(const struct opts *o, const struct gb_topo *t, struct gb_load_sched *s)
{
	struct gb_diag d = { "", 0, 0, "" };
	int err;

	if (o->schedule) {
		if ((err = gb_load_parse_file(o->schedule, t, s, &d)) < 0)
			return err == -EINVAL || err == -ENOENT ? print_diag(&d) : die(1, "%s: %s",
				o->schedule, strerror(-err));
		if (o->have_seed)
			s->seed = o->seed;
		if (o->scale > 0)
			s->scale = o->scale;
	} else {
		struct gb_load_rand_opts r = { .target = o->target, .on = o->on,
					       .seed = o->have_seed ? o->seed : 1,
					       .scale = o->scale, .horizon = o->horizon };

		if ((err = gb_load_random(t, &r, s, &d)) < 0)
			return err == -EINVAL ? print_diag(&d) : die(1, "%s", strerror(-err));
	}
	if (o->tcp)
		s->proto = GB_LOAD_TCP;
	if (o->size)
		s->size = o->size;
	if (o->port)
		s->port = o->port;
	if (s->proto == GB_LOAD_UDP && s->size > (int)t->mtu - 28)
		return gb_refuse(ME, "size %d does not fit the grid's MTU %u in one UDP datagram",
			   s->size, t->mtu);
	if ((err = gb_load_resolve(t, s, &d)) < 0)
		return print_diag(&d);
	return 0;
}

/* ---------------------------------------------------------------- plan */

static int cmd_plan(int argc, char **argv)
{
	struct opts o;
	struct gb_load_sched s;
	struct gb_grid g;
	struct gb_topo *t = NULL;
	int r = parse_opts(argc, argv, &o, 0, NULL), attached = 0;

	if (r)
		return r == 1 ? 0 : r;
	gb_load_sched_init(&s);
	if (o.topology) {
		struct gb_diag d;

		if (gb_topo_load(o.topology, &t, &d) < 0)
			return print_diag(&d);
	} else {
		if ((r = attach(&g)))
			return r;
		attached = 1;
		t = g.topo;
	}
	/* a live grid's dilation; a topology file alone has none */
	if (!(r = build_schedule(&o, t, &s)))
		gb_load_plan_write(&s, t, attached ? gb_dilation(&g) : 1.0, stdout, o.json);
	gb_load_sched_release(&s);
	if (attached)
		gb_grid_close(&g);
	else
		gb_topo_free(t);
	return r;
}

/* ----------------------------------------------------------------- run */

struct view {
	int tty;
	int quiet;
	int printed;
};

static void on_progress(void *arg, const struct gb_load_progress *p)
{
	struct view *v = arg;

	if (!v->tty || v->quiet)
		return;
	/* virtual seconds, as the schedule and the rows count them */
	fprintf(stderr, "\r" ME ": %7.1f / %.1f s%s  %d/%d loads done, %d active, %.2f Mbit/s "
		"planned   ", p->vt_elapsed, p->vt_total, p->dilate > 1.0 ? " virtual" : "",
		p->done, p->n, p->active, p->load_bps / 1e6);
	v->printed = 1;
}

static void on_row(void *arg, const struct gb_load_row *r)
{
	struct view *v = arg;

	if (v->quiet)
		return;
	if (v->printed) {
		fputc('\n', stderr);
		v->printed = 0;
	}
	if (r->mode == GB_LOAD_SHAPE)
		printf("load %d  %8.3f-%-8.3f s  %4.1f%%  shape %s %s: %.3f -> %.3f Mbit/s, "
		       "read back %.3f Mbit/s  %s\n", r->interval, r->start, r->end,
		       r->fraction * 100, r->link, r->dir, (double)r->capacity_bps / 1e6,
		       r->planned_bps / 1e6, r->achieved_bps / 1e6, r->status);
	else
		printf("load %d  %8.3f-%-8.3f s  %4.1f%%  flow %s>%s:%d: planned %.3f Mbit/s "
		       "(of %.3f, %s), sent %.3f, received %.3f Mbit/s  %s\n", r->interval,
		       r->start, r->end, r->fraction * 100, r->src, r->dst, r->port,
		       r->planned_bps / 1e6, (double)r->capacity_bps / 1e6,
		       r->link[0] ? r->link : "path", r->sent_bps / 1e6, r->achieved_bps / 1e6,
		       r->status);
	fflush(stdout);
}

static int run_schedule(struct gb_grid *g, const struct opts *o, const struct gb_load_sched *s)
{
	struct view v = { .tty = isatty(2), .quiet = o->quiet };
	struct gb_load_run_opts ro = { .mode = o->mode, .log_path = o->log,
				       .progress = on_progress, .row = on_row, .arg = &v,
				       .stop = &stop_flag };
	struct gb_err e = { "" };
	int err;

	gb_catch_signals(on_signal, 1);
	if (!o->quiet) {
		double k = gb_dilation(g);
		double end = s->n ? gb_load_scaled(s, s->iv[s->n - 1].start +
						   s->iv[s->n - 1].duration) : 0.0;
		char dil[160] = "";

		if (k > 1.0)
			snprintf(dil, sizeof(dil), " virtual, time dilated x%g: %.3f s on the wall "
				 "clock; times and rates below are virtual", k, end * k);
		printf("gridload: %d load%s on grid '%s' (prefix %s), %s mode, %.3f s%s%s%s\n", s->n,
		       s->n == 1 ? "" : "s", g->topo->name, g->prefix, gb_load_mode_name(o->mode),
		       end, dil, o->log ? ", log " : "", o->log ? o->log : "");
	}
	fflush(stdout);
	err = gb_load_run(g, s, &ro, &e);
	if (v.printed)
		fputc('\n', stderr);
	if (err == -EINTR)
		return die(130, "interrupted; flows stopped%s", o->mode == GB_LOAD_SHAPE ?
			   " and links restored" : "");
	if (err < 0)
		return die(err == -EBUSY ? 2 : 1, "%s", e.msg);
	return 0;
}

/* Shape mode: what a killed run left must be undone before the grid is read. */
static int restore_first(const struct opts *o)
{
	struct gb_err e = { "" };
	int n = 0, err;

	if (o->mode != GB_LOAD_SHAPE)
		return 0;
	if ((err = gb_load_restore(prefix_opt, &n, &e)) < 0)
		return die(err == -EBUSY ? 2 : 1, "%s", e.msg);
	if (n && !o->quiet)
		printf("gridload: restored %d link direction%s a previous run had changed\n", n,
		       n == 1 ? "" : "s");
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	struct opts o;
	struct gb_load_sched s;
	struct gb_grid g;
	int r = parse_opts(argc, argv, &o, 0, NULL);

	if (r)
		return r == 1 ? 0 : r;
	if (o.topology)
		return gb_refuse(ME, "run: --topology is for plan; run uses the live grid");
	if ((r = restore_first(&o)) || (r = attach(&g)))
		return r;
	gb_load_sched_init(&s);
	if (!(r = build_schedule(&o, g.topo, &s)))
		r = run_schedule(&g, &o, &s);
	gb_load_sched_release(&s);
	gb_grid_close(&g);
	return r;
}

/* ---------------------------------------------------------------- flow */

/* A host of the grid by name or data address; anything else is refused. */
static int find_host(const struct gb_grid *g, const char *what, const char *s)
{
	const struct gb_topo *t = g->topo;
	struct in_addr a;
	int i = gb_topo_find_node(t, s);

	if (i < 0 && inet_pton(AF_INET, s, &a) == 1)
		for (int h = 0; h < t->nhosts && i < 0; h++)
			if (t->nodes[h].addr == ntohl(a.s_addr))
				i = h;
	if (i < 0 || i >= t->nhosts || t->nodes[i].kind != GB_NODE_HOST) {
		fprintf(stderr, ME ": %s '%s' is not a host of grid '%s' (prefix %s); load stays "
			"inside the emulated grid\n", what, s, t->name, g->prefix);
		return -1;
	}
	return i;
}

static int cmd_flow(int argc, char **argv)
{
	struct opts o;
	const char *pos[2];
	struct gb_load_sched s;
	struct gb_load_iv iv;
	struct gb_grid g;
	struct gb_diag d;
	int r = parse_opts(argc, argv, &o, 2, pos), src, dst;

	if (r)
		return r == 1 ? 0 : r;
	if (o.schedule || o.random || o.topology)
		return gb_refuse(ME, "flow: takes SRC and DST, not a schedule");
	if (o.fraction && o.rate)
		return gb_refuse(ME, "flow: --fraction and --rate are exclusive");
	if ((r = restore_first(&o)) || (r = attach(&g)))
		return r;
	if ((src = find_host(&g, "source", pos[0])) < 0 ||
	    (dst = find_host(&g, "destination", pos[1])) < 0) {
		gb_grid_close(&g);
		return 2;
	}
	if (src == dst) {
		gb_grid_close(&g);
		return gb_refuse(ME, "flow: source and destination are both '%s'", pos[0]);
	}
	gb_load_sched_init(&s);
	snprintf(s.source, sizeof(s.source), "flow");
	memset(&iv, 0, sizeof(iv));
	iv.start = 0;
	iv.duration = o.duration > 0 ? o.duration : 10;
	iv.link = -1;
	iv.dir = -1;
	iv.src = src;
	iv.dst = dst;
	iv.fraction = o.fraction > 0 ? o.fraction : 0.5;
	s.iv = &iv;
	s.n = 1;
	s.proto = o.tcp ? GB_LOAD_TCP : GB_LOAD_UDP;
	s.size = o.size;
	s.port = o.port;
	if (o.scale > 0)
		s.scale = o.scale;
	if (o.have_seed)
		s.seed = o.seed;
	if (gb_load_resolve(g.topo, &s, &d) < 0) {
		gb_grid_close(&g);
		return print_diag(&d);
	}
	if (o.rate) {
		uint64_t cap = gb_load_capacity(g.topo, &iv, 0);

		iv.fraction = (double)o.rate / (double)cap;
		if (!(iv.fraction < 1)) {
			gb_grid_close(&g);
			return gb_refuse(ME, "flow: rate %.3f Mbit/s is not below the path's "
					 "bottleneck %.3f Mbit/s", (double)o.rate / 1e6,
					 (double)cap / 1e6);
		}
	}
	r = run_schedule(&g, &o, &s);
	gb_grid_close(&g);
	return r;
}

/* ------------------------------------------------------------- restore */

static int cmd_restore(int argc, char **argv)
{
	struct opts o;
	struct gb_err e = { "" };
	int n = 0, err, r = parse_opts(argc, argv, &o, 0, NULL);

	if (r)
		return r == 1 ? 0 : r;
	if ((err = gb_load_restore(prefix_opt, &n, &e)) < 0)
		return die(err == -EBUSY ? 2 : 1, "%s", e.msg);
	printf("gridload: restored %d link direction%s\n", n, n == 1 ? "" : "s");
	return 0;
}

/* --------------------------------------------------------------- table */

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "plan", cmd_plan },
	{ "run", cmd_run },
	{ "flow", cmd_flow },
	{ "restore", cmd_restore },
};

int main(int argc, char **argv)
{
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--prefix") && i + 1 < argc) {
			prefix_opt = argv[i + 1];
			i += 2;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			return usage(stdout);
		} else {
			return gb_refuse(ME, "unknown option '%s' (see --help)", argv[i]);
		}
	}
	if (i >= argc)
		return gb_refuse(ME, "which command? (plan, run, flow, restore; see --help)");
	if (!strcmp(argv[i], "help"))
		return usage(stdout);
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
		if (!strcmp(argv[i], cmds[c].name))
			return cmds[c].fn(argc - i, argv + i);
	return gb_refuse(ME, "unknown command '%s' (see --help)", argv[i]);
}
