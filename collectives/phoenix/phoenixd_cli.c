/* SPDX-License-Identifier: MIT */
/*
 * phoenixd_cli.c - phoenixd's command line: `phoenixd run --grid [options]`
 * read into struct opts (phoenixd.h), --change's LINK:DELAY:AT_S included,
 * the help text, and every refusal of bad usage (one line naming the fault,
 * exit 2, gb_refuse(); docs/exit-status.md).  Then phxd_run() (phoenixd.c,
 * where the options and the run are described) does the rest.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbtopo.h"
#include "gbutil.h"
#include "phoenixd.h"

#define ME "phoenixd"
#define STR_(x) #x
#define STR(x) STR_(x)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: phoenixd run --grid [options]\n"
		"  Run Saito, Taura & Chikayama's dynamic-tree protocol (seed 001 s3), one\n"
		"  process per host of the live grid ($GRIDBED_PREFIX), over UDP on the data\n"
		"  plane, until the trees are stable; print rounds, messages and convergence\n"
		"  time, check that every tree is wide-area optimal.\n"
		"  --port N            UDP port (default %d)\n"
		"  --round-ms N        round length (default 200)\n"
		"  --fanout N          peers probed per round (default: all up to 16 hosts,\n"
		"                      else 8)\n"
		"  --window N          latency samples per peer, minimum taken (default 8)\n"
		"  --quiet-rounds N    rounds without a change that mean stable (default:\n"
		"                      2 probe cycles + 3; after --change, probe cycle x\n"
		"                      window + 3; at least 10)\n"
		"  --timeout S         give up on a convergence after S seconds (default 60)\n"
		"  --coalesce-ms N     hold serials up to N ms to batch them (default 2, 0: off)\n"
		"  --serial-every N    roots send a serial every N rounds (default 1)\n"
		"  --change LINK:DELAY:AT_S\n"
		"                      AT_S seconds after convergence, set LINK's delay (both\n"
		"                      directions) with gb_grid_link_set and follow the second\n"
		"                      convergence\n"
		"  --hosts N           only N hosts, spread over the clusters in proportion\n"
		"                      (to measure how many processes fit)\n"
		"  --out DIR           DIR/summary.json, DIR/initial/<root>.json,\n"
		"                      DIR/changed/<root>.json (gridbed-tree format)\n"
		"  --no-shortcut       ablation: without Fig. 3\n"
		"  --no-serial         ablation: without criterion (4)\n"
		"  --verbose           progress on stderr every 5 s\n"
		"Exit: 0 converged; 1 not, or an error; 2 bad usage (docs/exit-status.md).\n",
		PHX_PORT_DEFAULT);
}

static int parse_change(const char *s, char *link, size_t len, uint64_t *delay, double *at)
{
	const char *c2 = strrchr(s, ':'), *c1;
	char tmp[64], *end;

	if (!c2 || c2 == s)
		return -EINVAL;
	for (c1 = c2 - 1; c1 > s && *c1 != ':'; c1--)
		;
	if (*c1 != ':' || c1 == s || (size_t)(c1 - s) >= len ||
	    (size_t)(c2 - c1 - 1) >= sizeof(tmp))
		return -EINVAL;
	memcpy(link, s, c1 - s);
	link[c1 - s] = 0;
	memcpy(tmp, c1 + 1, c2 - c1 - 1);
	tmp[c2 - c1 - 1] = 0;
	if (gb_parse_time(tmp, delay) < 0)
		return -EINVAL;
	*at = strtod(c2 + 1, &end);
	if (*end || !(*at >= 0))
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "grid", no_argument, NULL, 'g' },
		{ "port", required_argument, NULL, 'p' },
		{ "round-ms", required_argument, NULL, 'r' },
		{ "fanout", required_argument, NULL, 'f' },
		{ "window", required_argument, NULL, 'w' },
		{ "quiet-rounds", required_argument, NULL, 'q' },
		{ "timeout", required_argument, NULL, 't' },
		{ "coalesce-ms", required_argument, NULL, 'C' },
		{ "change", required_argument, NULL, 'c' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "out", required_argument, NULL, 'o' },
		{ "no-shortcut", no_argument, NULL, 'S' },
		{ "no-serial", no_argument, NULL, 'N' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "serial-every", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .port = PHX_PORT_DEFAULT, .round_ms = 200, .window = 8,
			  .timeout_s = 60, .coalesce_ms = 2, .serial_every = 1 };
	int grid = 0, c, li = 0;

	if (argc < 2)
		return gb_refuse(ME, "which command? (run; see 'phoenixd --help')");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "run"))
		return gb_refuse(ME, "unknown command '%s' (try 'phoenixd --help')", argv[1]);
	argv++;
	argc--;
	opterr = 0;	/* the faults below, one line each, not getopt's and the usage */
	while ((c = getopt_long(argc, argv, ":h", lo, &li)) != -1) {
		char *end = NULL;

		switch (c) {
		case 'g': grid = 1; break;
		case 'p': o.port = (int)strtol(optarg, &end, 10); break;
		case 'r': o.round_ms = (int)strtol(optarg, &end, 10); break;
		case 'f': o.fanout = (int)strtol(optarg, &end, 10); break;
		case 'w': o.window = (int)strtol(optarg, &end, 10); break;
		case 'q': o.quiet_rounds = (int)strtol(optarg, &end, 10); break;
		case 't': o.timeout_s = strtod(optarg, &end); break;
		case 'C': o.coalesce_ms = strtod(optarg, &end); break;
		case 'c': o.change = optarg; break;
		case 'H': o.hosts = (int)strtol(optarg, &end, 10); break;
		case 'o': o.out = optarg; break;
		case 'S': o.no_shortcut = 1; break;
		case 'N': o.no_serial = 1; break;
		case 'v': o.verbose = 1; break;
		case 'E': o.serial_every = (int)strtol(optarg, &end, 10); break;
		case 'h': usage(stdout); return 0;
		case ':':
			return gb_refuse(ME, "run: option '%s' needs a value", argv[optind - 1]);
		default:
			return gb_refuse(ME, "run: unknown option '%s' (see 'phoenixd --help')",
					 argv[optind - 1]);
		}
		if (end && (end == optarg || *end))
			return gb_refuse(ME, "run: --%s: '%s' is not a number", lo[li].name,
					 optarg);
	}
	if (optind != argc)
		return gb_refuse(ME, "run: unexpected argument '%s' (see 'phoenixd --help')",
				 argv[optind]);
	if (!grid)
		return gb_refuse(ME, "run: --grid is required: the protocol runs on the live grid "
				 "($GRIDBED_PREFIX)");
	const char *range = o.port < 1 || o.port > 65535 ? "--port: 1 to 65535" :
			    o.round_ms < 1 ? "--round-ms: at least 1" :
			    o.fanout < 0 ? "--fanout: at least 0" :
			    o.window < 1 || o.window > PHX_WINDOW_MAX ? "--window: 1 to "
									  STR(PHX_WINDOW_MAX) :
			    o.quiet_rounds < 0 ? "--quiet-rounds: at least 0" :
			    !(o.timeout_s > 0) ? "--timeout: above 0" :
			    !(o.coalesce_ms >= 0) ? "--coalesce-ms: at least 0" :
			    o.hosts < 0 ? "--hosts: at least 0" :
			    o.serial_every < 1 ? "--serial-every: at least 1" : NULL;
	if (range)
		return gb_refuse(ME, "run: %s (see 'phoenixd --help')", range);
	if (o.change && parse_change(o.change, o.change_link, sizeof(o.change_link),
				     &o.change_delay_ns, &o.change_at_s) < 0)
		return gb_refuse(ME, "--change '%s': expected LINK:DELAY:AT_S, e.g. "
				 "siteB-siteC:30ms:2", o.change);
	return phxd_run(&o);
}
