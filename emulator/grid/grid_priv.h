/* SPDX-License-Identifier: MIT */
/*
 * grid_priv.h - what grid.c (handle, state file, down, attach, links) and
 * grid_up.c (bringing a grid up) share; not API.
 */
#ifndef GRIDBED_GRID_PRIV_H
#define GRIDBED_GRID_PRIV_H

#include <stddef.h>

#include "gbemu.h"

/* Close the grid's namespace fds and netlink sockets. */
void gb_grid_close_ns(struct gb_grid *g);

/* "@rundir/@f" into @buf. */
void gb_grid_rpath(const struct gb_grid *g, const char *f, char *buf, size_t len);

/*
 * gb_grid_forget_rundir() - where no grid is up (no state file) and @g holds
 * the lock: remove the lock file and the run directory, if nothing else is
 * in it, so that a refused `up` or a wrong prefix leaves nothing behind.
 * Does nothing when a grid of this prefix is up.
 */
void gb_grid_forget_rundir(struct gb_grid *g);

/* The state file with @status and the topology's path: atomic, written to a
 * temporary file, then renamed (decision 7).  0 or -errno. */
int gb_grid_write_state(const struct gb_grid *g, const char *status, const char *topo_path);

/* Copy file @from to @to through "@to.tmp" and a rename.  0 or -errno. */
int gb_grid_copy_file(const char *from, const char *to);

/* 1 if @p is a valid prefix: 1 to GB_PREFIX_MAX lowercase letters or digits. */
int gb_grid_prefix_valid(const char *p);

/* Raise the fd limit: a 1024-host grid keeps ~2 fds per node open. */
void gb_grid_raise_nofile(void);

/* Allocate the per-node namespace fds and netlink sockets of @g (fds -1).
 * 0 or -ENOMEM. */
int gb_grid_alloc_ns(struct gb_grid *g);

#endif
