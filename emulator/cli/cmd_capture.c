// SPDX-License-Identifier: MIT
/*
 * cmd_capture.c - gridemu capture: capture on a link of a live grid
 * (capture.h), counters per direction on stdout or in a CSV file, packets
 * to a pcap file; or count the packets of a pcap file (--read).
 */
#include "capture.h"
#include "gbemu.h"
#include "gbutil.h"
#include "gridemu_cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ME "gridemu"

static volatile sig_atomic_t cli_stop;

static void on_cli_signal(int sig)
{
	cli_stop = 1;
}

static int cap_usage(FILE *f)
{
	fprintf(f, "usage: gridemu capture LINK [--dir A>B] [--out FILE.pcap] [--stats INTERVAL]\n"
		"                       [--csv FILE] [--filter BPF] [--duration S] [--snaplen N]\n"
		"       gridemu capture --read FILE.pcap\n"
		"  Capture on LINK's interface at the receiving end of each direction (both\n"
		"  unless --dir); counters per direction every INTERVAL seconds (stdout with\n"
		"  --stats, a CSV file with --csv), packets to a pcap file with --out.\n"
		"  Runs until --duration or Ctrl-C.  gridload's load is 'udp portrange "
		"9000-9099'.\n");
	return f == stdout ? 0 : 2;
}

/* what every refusal of capture's usage ends with (gb_refuse()) */
#define CAP_SEE " (see gridemu capture --help)"

static int cmd_read(const char *path)
{
	struct gb_capture_count t;
	struct gb_err e = { "" };
	int dlt = 0, err = gb_capture_read_file(path, &t, &dlt, &e);

	if (err < 0) {
		fprintf(stderr, ME ": %s\n", e.msg);
		return err == -EINVAL ? 2 : 1;
	}
	printf("%s: linktype %s (%d), %" PRIu64 " packets, %" PRIu64 " ip_bytes, %" PRIu64
	       " frame_bytes\n", path, gb_capture_dlt_name(dlt), dlt, t.packets, t.ip_bytes, t.frame_bytes);
	return 0;
}

struct cap_cli {
	const char *link, *dirs, *out, *filter, *csv, *read;
	double stats, duration;
	int snaplen;
};

static int parse_cap(int argc, char **argv, struct cap_cli *o)
{
	static const struct option lo[] = {
		{ "dir", required_argument, 0, 'd' }, { "out", required_argument, 0, 'o' },
		{ "stats", required_argument, 0, 's' }, { "csv", required_argument, 0, 'c' },
		{ "filter", required_argument, 0, 'f' }, { "duration", required_argument, 0, 't' },
		{ "snaplen", required_argument, 0, 'n' }, { "read", required_argument, 0, 'r' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;	/* the faults below, one line each, not getopt's and the usage */
	while ((c = getopt_long(argc, argv, ":d:o:s:c:f:t:n:r:h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o->dirs = optarg; break;
		case 'o': o->out = optarg; break;
		case 'c': o->csv = optarg; break;
		case 'f': o->filter = optarg; break;
		case 'r': o->read = optarg; break;
		case 's':
		case 't': {
			double v = strtod(optarg, &end);

			if (*end == 's' && !end[1])
				end++;
			if (*end || !(v > 0) || !isfinite(v)) {
				fprintf(stderr, ME ": capture: '%s' is not a number of seconds\n",
					optarg);
				return 2;
			}
			*(c == 's' ? &o->stats : &o->duration) = v;
			break;
		}
		case 'n':
			o->snaplen = (int)strtol(optarg, &end, 10);
			if (*end || o->snaplen < 64 || o->snaplen > GB_CAPTURE_SNAP_MAX) {
				fprintf(stderr, ME ": capture: snaplen '%s' is not 64 .. %d\n",
					optarg, GB_CAPTURE_SNAP_MAX);
				return 2;
			}
			break;
		case 'h': return cap_usage(stdout) ? 2 : -1;
		case ':':
			return gb_refuse(ME, "capture: option '%s' needs a value" CAP_SEE,
					 argv[optind - 1]);
		default:
			return gb_refuse(ME, "capture: unknown option '%s'" CAP_SEE,
					 argv[optind - 1]);
		}
	}
	if (o->read && optind != argc)
		return gb_refuse(ME, "capture: --read takes a file and no LINK ('%s')" CAP_SEE,
				 argv[optind]);
	if (o->read)
		return 0;
	if (optind == argc)
		return gb_refuse(ME, "capture: which LINK? gridemu link show lists them" CAP_SEE);
	if (optind != argc - 1)
		return gb_refuse(ME, "capture: one LINK, and '%s' after it is not an option"
				 CAP_SEE,
				 argv[optind + 1]);
	o->link = argv[optind];
	return 0;
}

/* One CSV/stats row per captured direction: the counters since @prev. */
static void emit(const struct gb_grid *g, struct gb_capture *c, int k, int dir, double t0,
		 double t1, struct gb_capture_count *prev, int print, FILE *csv)
{
	const struct gb_topo *t = g->topo;
	const struct gb_link *l = &t->links[k];
	struct gb_capture_count now;
	char dn[80];

	if (gb_capture_counters(c, k, dir, &now) < 0)
		return;
	snprintf(dn, sizeof(dn), "%s>%s", t->nodes[dir ? l->b : l->a].name,
		 t->nodes[dir ? l->a : l->b].name);
	uint64_t p = now.packets - prev->packets, ib = now.ip_bytes - prev->ip_bytes;
	uint64_t fb = now.frame_bytes - prev->frame_bytes, dr = now.drops - prev->drops;
	double mbps = t1 > t0 ? (double)ib * 8 / (t1 - t0) / 1e6 : 0;

	if (print)
		printf("%9.3f %-16s %-20s %9" PRIu64 " pkts %12" PRIu64 " ip_bytes %9.3f Mbit/s"
		       "%s\n", t1, l->name, dn, p, ib, mbps, dr ? "  (drops!)" : "");
	if (csv)
		fprintf(csv, "%.6f,%.6f,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f,%" PRIu64
			"\n", t0, t1, l->name, dn, p, ib, fb, mbps, dr);
	*prev = now;
}

int capture_main(int argc, char **argv)
{
	struct cap_cli o;
	struct gb_grid g;
	struct gb_err e = { "" };
	struct gb_capture *c = NULL;
	struct gb_capture_count prev[2], tot;
	char csvtmp[PATH_MAX];
	FILE *csv = NULL;
	int r = parse_cap(argc, argv, &o), k, dir = -1, rc = 0, err;

	if (r)
		return r < 0 ? 0 : r;
	if (o.read)
		return cmd_read(o.read);
	/* --prefix was taken out of argv by gridemu.c (late_prefix()) */
	if ((r = gridemu_attach(&g)))
		return r;
	/* A capture may last long: do not keep `link set` out meanwhile. */
	gb_grid_unlock(&g);
	k = gb_topo_find_link(g.topo, o.link);
	if (k < 0) {
		fprintf(stderr, ME ": no link '%s' in grid '%s' (see 'gridemu link show')\n",
			o.link, g.prefix);
		rc = 2;
		goto cleanup;
	}
	if (o.dirs) {
		const struct gb_link *l = &g.topo->links[k];
		char ab[80], ba[80];

		const char *na = g.topo->nodes[l->a].name, *nb = g.topo->nodes[l->b].name;

		snprintf(ab, sizeof(ab), "%s>%s", na, nb);
		snprintf(ba, sizeof(ba), "%s>%s", nb, na);
		if (!strcmp(o.dirs, ab) || !strcmp(o.dirs, "a>b"))
			dir = 0;
		else if (!strcmp(o.dirs, ba) || !strcmp(o.dirs, "b>a"))
			dir = 1;
		else if (strcmp(o.dirs, "both")) {
			fprintf(stderr, ME ": link '%s': direction '%s' is not %s, %s or both\n",
				l->name, o.dirs, ab, ba);
			rc = 2;
			goto cleanup;
		}
	}
	if (o.csv) {
		snprintf(csvtmp, sizeof(csvtmp), "%s.tmp", o.csv);
		if (!(csv = fopen(csvtmp, "we"))) {
			fprintf(stderr, ME ": cannot write '%s': %s\n", csvtmp, strerror(errno));
			rc = 1;
			goto cleanup;
		}
		fprintf(csv, "t_start,t_end,link,dir,packets,ip_bytes,frame_bytes,ip_mbps,drops\n");
	}
	struct gb_capture_opts co = { .filter = o.filter, .dir = dir, .pcap_path = o.out,
				      .snaplen = o.snaplen };
	/* before the start, so that a Ctrl-C while the capture process gets ready
	 * stops it as soon as it is (a signal that came earlier would be lost when
	 * the shell started us with SIGINT ignored, as it does with '&') */
	gb_catch_signals(on_cli_signal, 1);
	if ((err = gb_capture_start(&g, &k, 1, &co, &c, &e)) < 0) {
		fprintf(stderr, ME ": %s\n", e.msg);
		rc = err == -EINVAL ? 2 : 1;
		goto cleanup;
	}
	fprintf(stderr, ME ": capturing on link '%s' (%s, linktype %s)%s%s%s; %s\n",
		g.topo->links[k].name, dir < 0 ? "both directions" : o.dirs,
		gb_capture_dlt_name(gb_capture_datalink(c)), o.filter ? ", filter '" : "",
		o.filter ? o.filter : "", o.filter ? "'" : "",
		o.duration > 0 ? "until --duration" : "Ctrl-C to stop");
	fflush(stderr);

	double t0 = gb_now(), last = 0, step = o.stats > 0 ? o.stats : 1.0;
	memset(prev, 0, sizeof(prev));
	for (;;) {
		double now = gb_now() - t0, until = last + step;

		if (o.duration > 0 && until > o.duration)
			until = o.duration;
		if (cli_stop || (o.duration > 0 && now >= o.duration))
			break;
		if (now >= until) {
			for (int d = 0; d < 2; d++)
				if (dir < 0 || d == dir)
					emit(&g, c, k, d, last, now, &prev[d], o.stats > 0, csv);
			fflush(stdout);
			last = now;
			continue;
		}
		struct timespec ts;
		double left = fmin(until - now, 0.1);
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
	double tend = gb_now() - t0;
	if (gb_capture_stop(c, &e) < 0) {
		fprintf(stderr, ME ": %s\n", e.msg);
		rc = 1;
	}
	for (int d = 0; d < 2; d++)
		if (dir < 0 || d == dir)
			emit(&g, c, k, d, last, tend, &prev[d], o.stats > 0, csv);
	for (int d = 0; d < 2; d++) {
		const struct gb_link *l = &g.topo->links[k];

		if ((dir >= 0 && d != dir) || gb_capture_counters(c, k, d, &tot) < 0)
			continue;
		printf("total %s %s>%s packets %" PRIu64 " ip_bytes %" PRIu64
		       " frame_bytes %" PRIu64 " drops %" PRIu64 " seconds %.3f\n", l->name,
		       g.topo->nodes[d ? l->b : l->a].name, g.topo->nodes[d ? l->a : l->b].name,
		       tot.packets, tot.ip_bytes, tot.frame_bytes, tot.drops, tend);
	}
	if (csv) {
		int bad = fflush(csv) != 0 || fsync(fileno(csv)) < 0;

		bad |= fclose(csv) != 0;
		csv = NULL;
		if (bad || rename(csvtmp, o.csv) < 0) {
			fprintf(stderr, ME ": cannot write '%s': %s\n", o.csv, strerror(errno));
			unlink(csvtmp);
			rc = 1;
		}
	}
	if (o.out && !rc)
		fprintf(stderr, ME ": wrote %s\n", o.out);
cleanup:
	if (csv) {
		fclose(csv);
		unlink(csvtmp);
	}
	gb_capture_free(c);
	gb_grid_close(&g);
	return rc;
}
