/* SPDX-License-Identifier: MIT */
/*
 * gridemu - build, shape, inspect and tear down an emulated grid.
 *
 * This file is the command table, the global --prefix and the helpers the
 * command files share (gridemu_cli.h); each command is a file of its own,
 * cmd_<name>.c.  Only the command files print; the libraries return
 * -errno and a message.
 * Exit status: 0 success, 1 failure, 2 bad usage or bad input (a malformed
 * topology, an unknown link or backend).
 */
#include "gbemu.h"
#include "gbutil.h"
#include "gridemu_cli.h"
#include "mpirun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prefix_opt;

const char *gridemu_prefix(void)
{
	return prefix_opt ? prefix_opt : getenv("GRIDBED_PREFIX");
}

int gridemu_fail(int code, const char *msg)
{
	fprintf(stderr, "gridemu: %s\n", msg);
	return code;
}

int gridemu_open(struct gb_grid *g, int exclusive)
{
	struct gb_err e = { "" };
	int err = gb_grid_open(g, prefix_opt, exclusive, &e);
	if (err < 0)
		return gridemu_fail(err == -EBUSY || err == -EINVAL ? 2 : 1, e.msg);
	return 0;
}

/* gb_grid_attach() on @g, opened with @exclusive; prints the refusal. */
static int attach(struct gb_grid *g, int exclusive)
{
	struct gb_err e = { "" };
	int err, r = gridemu_open(g, exclusive);
	if (r)
		return r;
	if ((err = gb_grid_attach(g, &e)) < 0) {
		gb_grid_close(g);
		return gridemu_fail(err == -ENOENT ? 2 : 1, e.msg);
	}
	return 0;
}

int gridemu_attach(struct gb_grid *g)
{
	return attach(g, 0);
}

int gridemu_attach_excl(struct gb_grid *g)
{
	return attach(g, 1);
}

void gridemu_path_info(const struct gb_topo *t, int s, int d, double *rtt, uint64_t *rate)
{
	uint64_t fw = 0, bw = 0, r1 = 0, r2 = 0;
	gb_topo_path_metrics(t, s, d, &fw, &r1);
	gb_topo_path_metrics(t, d, s, &bw, &r2);
	*rtt = (double)(fw + bw) / 1e9;
	*rate = r1;
}

/* ------------------------------------------------------------- table */

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static int cmd_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "up", up_main, "build the grid of a topology file" },
	{ "down", down_main, "remove everything the grid created (also after a crash)" },
	{ "status", status_main, "hosts, addresses and live link parameters" },
	{ "exec", exec_main, "run a command inside a node" },
	{ "link", link_main, "show links, or change one at runtime" },
	{ "probe", probe_main, "measure RTT and TCP goodput between two nodes" },
	{ "script", script_main, "print the equivalent iproute2 script" },
	{ "demo", demo_main, "up, summary, fidelity table, down" },
	{ "capture", capture_main, "capture on a link: pcap file and byte/packet counters" },
	{ "mpirun", gb_cmd_mpirun, "run an OpenMPI job, one rank per host" },
	{ "tcpstat", tcpstat_main, "every host's kernel TCP counters (CSV), once or every S s" },
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
