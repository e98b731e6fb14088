/* SPDX-License-Identifier: MIT */
/*
 * gridemu_cli.h - what gridemu's subcommand files share with gridemu.c
 * (the gridemu executable only: these print).
 */
#ifndef GRIDBED_GRIDEMU_CLI_H
#define GRIDBED_GRIDEMU_CLI_H

#include "gbemu.h"

/**
 * gridemu_attach() - open the grid of the current prefix (--prefix or
 * $GRIDBED_PREFIX) for reading, its lock shared, and attach to its
 * namespaces.  On failure prints "gridemu: <why>" on stderr.
 * Return: 0, or the exit status (2 for a busy lock or a bad prefix, 1
 * otherwise, no grid up included).
 */
int gridemu_attach(struct gb_grid *g);

#endif
