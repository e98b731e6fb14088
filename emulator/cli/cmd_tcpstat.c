// SPDX-License-Identifier: MIT
/*
 * cmd_tcpstat.c - `gridemu tcpstat`: every host's kernel TCP counters
 * (tcpstat.h) as CSV, once or every --every seconds, in the columns of
 * gridexp's tcp.csv (experiments/gridexp_tcpstat.c), so one reading serves
 * both.  For a benchmark that runs its own jobs on a grid it brought up
 * (collectives/bcast/bench/bcast-teragrid.sh): which hosts sent segments
 * again during which broadcast, and after how many timeouts.
 *
 * Rows: the first sample writes every host of this machine; later ones
 * only the hosts whose counters changed since their last row.  Values are
 * cumulative since the host's namespace was made; t_mono is CLOCK_MONOTONIC
 * (gb_now()), the clock of gridbcast's start_time.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gbemu.h"
#include "gbutil.h"
#include "gridemu_cli.h"
#include "tcpstat.h"

#define ME "gridemu tcpstat"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int usage(void)
{
	printf("usage: gridemu tcpstat [--every SECONDS [--count N]]\n"
	       "  Every host's kernel TCP counters (segments sent, sent again, timeouts, ...)\n"
	       "  as CSV: once, or every SECONDS until interrupted or N samples, then only\n"
	       "  the hosts whose counters changed.  Columns: t_mono,host,<counters>.\n");
	return 0;
}

/* One sample of every local host: rows for those that changed (all, the first time). */
static void sample(const struct gb_grid *g, uint64_t *last, int first)
{
	const struct gb_topo *t = g->topo;
	double now = gb_now();

	for (int h = 0; h < t->nnodes; h++) {
		uint64_t v[GB_TS_N], *l = last + (size_t)h * GB_TS_N;

		if (t->nodes[h].kind != GB_NODE_HOST || !gb_grid_local(g, h) ||
		    gb_tcpstat_read(g->nsfd[h], v) < 0)
			continue;
		if (!first && !memcmp(v, l, sizeof(v)))
			continue;
		memcpy(l, v, sizeof(v));
		gb_tcpstat_csv_row(stdout, now, t->nodes[h].name, v);
	}
	fflush(stdout);
}

int tcpstat_main(int argc, char **argv)
{
	double every = 0;
	long count = 0;
	struct gb_grid g;
	uint64_t *last;
	int err;

	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--every") && i + 1 < argc) {
			every = strtod(argv[++i], &end);
			if (*end || !(every >= 0.01 && every <= 3600)) {
				fprintf(stderr, ME ": --every must be seconds in [0.01, 3600], not '%s'\n",
					argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			count = strtol(argv[++i], &end, 10);
			if (*end || count < 1) {
				fprintf(stderr, ME ": --count must be a number of samples >= 1, not '%s'\n",
					argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			return usage();
		} else {
			fprintf(stderr, ME ": %s '%s' (see --help)\n",
				!strcmp(argv[i], "--every") || !strcmp(argv[i], "--count") ?
				"a value is missing after" : "unknown argument", argv[i]);
			return 2;
		}
	}
	if (count && !every) {
		fprintf(stderr, ME ": --count needs --every\n");
		return 2;
	}
	if ((err = gridemu_attach(&g)))
		return err;
	/* sampling may last a job long: do not keep `link set` out meanwhile */
	gb_grid_unlock(&g);
	last = calloc((size_t)g.topo->nnodes * GB_TS_N, sizeof(*last));
	if (!last) {
		fprintf(stderr, ME ": out of memory\n");
		gb_grid_close(&g);
		return 1;
	}
	gb_catch_signals(on_signal, 1);
	gb_tcpstat_csv_header(stdout);
	sample(&g, last, 1);
	for (long n = 1; every > 0 && !stop && (!count || n < count); n++) {
		double next = gb_now() + every;

		while (!stop && gb_now() < next) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		sample(&g, last, 0);	/* after a signal too: the counters at the end */
	}
	free(last);
	gb_grid_close(&g);
	return 0;
}
