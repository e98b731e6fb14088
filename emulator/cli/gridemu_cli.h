/* SPDX-License-Identifier: MIT */
/*
 * gridemu_cli.h - what gridemu's command files share (the gridemu
 * executable only: these print).
 *
 * gridemu is one command table (gridemu.c) and one file per command,
 * cmd_<name>.c exporting <name>_main(), as wireguard-tools does.  The
 * libraries below it (emulator/grid, capture, mpirun) return -errno and a
 * message; only these files print.
 */
#ifndef GRIDBED_GRIDEMU_CLI_H
#define GRIDBED_GRIDEMU_CLI_H

#include <stdint.h>

#include "gbemu.h"

/** gridemu_prefix() - the prefix of --prefix or $GRIDBED_PREFIX, or NULL. */
const char *gridemu_prefix(void);

/** gridemu_fail() - print "gridemu: @msg" on stderr; return @code (the exit status). */
int gridemu_fail(int code, const char *msg);

/**
 * gridemu_open() - gb_grid_open() of the current prefix, its lock taken
 * @exclusive or shared.  On failure prints why.
 * Return: 0, or the exit status (2 for a busy lock or a bad prefix, 1 otherwise).
 */
int gridemu_open(struct gb_grid *g, int exclusive);

/**
 * gridemu_attach() - open the grid of the current prefix for reading, its
 * lock shared, and attach to its namespaces.  On failure prints why.
 * Return: 0, or the exit status (2 for a busy lock, a bad prefix or no grid
 * up: bad input, as in gridload, gridmon, capture and mpirun,
 * docs/exit-status.md; 1 otherwise).
 */
int gridemu_attach(struct gb_grid *g);

/** gridemu_attach_excl() - gridemu_attach() with the lock taken exclusive (a change). */
int gridemu_attach_excl(struct gb_grid *g);

/**
 * gridemu_path_info() - the configured round-trip time @rtt (seconds) of
 * the path between nodes @s and @d, and its bottleneck rate @rate from @s
 * to @d (bit/s), for the tables of probe and demo.
 */
void gridemu_path_info(const struct gb_topo *t, int s, int d, double *rtt, uint64_t *rate);

/* The commands, one file each (cmd_<name>.c): argv[0] is the command's
 * name; each returns the exit status (docs/exit-status.md). */
int up_main(int argc, char **argv);
int down_main(int argc, char **argv);
int status_main(int argc, char **argv);
int exec_main(int argc, char **argv);
int link_main(int argc, char **argv);
int probe_main(int argc, char **argv);
int script_main(int argc, char **argv);
int demo_main(int argc, char **argv);
int capture_main(int argc, char **argv);
int tcpstat_main(int argc, char **argv);

#endif
