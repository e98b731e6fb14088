/* SPDX-License-Identifier: MIT */
/*
 * toolio.h - the files of collectives/tools/' programs (gridtree, its paper
 * simulators, bench_plan, bench_sa): the network model named by --topo or
 * --matrix, result files written atomically, gnuplot run on a script.
 *
 * Library-style: functions return 0 or a negative errno (tool_gnuplot()
 * also a positive "it ran and failed") and print nothing; messages go into
 * the error carrier, struct gb_err (util/gbutil.h), or are left to the
 * caller (toolcli.h words them for the command line).
 */
#ifndef GRIDBED_TOOLIO_H
#define GRIDBED_TOOLIO_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "gbcore.h"
#include "gbutil.h"

/**
 * tool_load_model() - the network model of exactly one of @topo (a topology
 * file: static latencies and bottleneck bandwidths, initiation cost @o at
 * every node, see gb_nm_from_topo()) and @matrix (a matrix file,
 * docs/formats.md).  On failure @m is left empty and the optional @err
 * says why in one line (it is emptied first), quoting the file:
 * "FILE:LINE:COL: what" for bad content, "cannot load topology 'FILE':
 * why", "cannot model topology 'FILE': why", or the matrix reader's
 * message.
 * Return: 0; -EINVAL when both or neither file is given, or the content is
 * bad; another -errno when a file cannot be read or modelled.
 */
GB_WUR int tool_load_model(struct gb_netmodel *m, const char *topo, const char *matrix, double o,
			   struct gb_err *err);

/**
 * struct tool_out - a result file written atomically (docs/architecture.md
 * decision 7): what is written to @f is kept in memory and only
 * tool_out_close() puts it in place at @path, through gb_write_atomic(), so
 * that a reader never sees half a file and a failed run leaves none.
 * A zeroed one is closed; @path names the file in messages.
 */
struct tool_out {
	FILE *f;
	char *buf;
	size_t len;
	char path[4200];
};

/**
 * tool_out_open() - start the file @dir/@name: write to @o->f.
 * Return: 0, -ENAMETOOLONG, or -errno (no memory).
 */
GB_WUR int tool_out_open(struct tool_out *o, const char *dir, const char *name);

/**
 * tool_out_close() - write what @o->f received to @o->path atomically and
 * release @o (@o->path stays, for the message).  Nothing is written when a
 * write to @o->f failed.
 * Return: 0, -EBADF (@o is not open), -EIO (a write to @o->f failed), or
 * gb_write_atomic()'s -errno.
 */
GB_WUR int tool_out_close(struct tool_out *o);

/** tool_out_discard() - release @o without writing it; safe on a closed one. */
void tool_out_discard(struct tool_out *o);

/**
 * tool_json_write() - @j as @dir/@name, indented by 2 with sorted keys (the
 * simulators' meta.json), written atomically.
 * Return: 0, -ENAMETOOLONG, -ENOMEM, or gb_write_atomic()'s -errno.
 */
GB_WUR int tool_json_write(const json_t *j, const char *dir, const char *name);

/**
 * tool_gnuplot_png() - the lines of a gnuplot script that choose its PNG
 * terminal, @w x @h pixels: pngcairo (anti-aliased, font sans 10) where
 * gnuplot has it, else png.
 */
void tool_gnuplot_png(FILE *f, int w, int h);

/**
 * tool_gnuplot() - run "gnuplot @script" in the folder @dir as a child
 * process and wait for it; its output and errors go where ours go.
 * Return: 0 when gnuplot succeeded; 1 when it ran and failed (or @dir
 * could not be entered); -ENOENT when there is no gnuplot to run; another
 * -errno when no child could be started.
 */
int tool_gnuplot(const char *dir, const char *script);

#endif
