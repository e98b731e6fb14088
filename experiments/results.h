/* SPDX-License-Identifier: MIT */
/*
 * results.h - reading what a campaign left in its results directory
 * (docs/formats.md, "Campaign results"): CSV tables and the runs' files.
 * Internal to libgbexp and gridexp.
 */
#ifndef GRIDBED_RESULTS_H
#define GRIDBED_RESULTS_H

#include <stddef.h>

/** A CSV file: a header and rows of fields (RFC 4180 quoting). */
struct gx_csv {
	int ncols, nrows;
	char **head;            /* ncols names */
	char ***rows;           /* nrows x ncols fields ("" when a row is short) */
};

/**
 * gx_csv_read() - read @path into @t (initialised here; release with
 * gx_csv_release()).  Return: 0, -ENOENT, -EINVAL (no header), -ENOMEM.
 */
int gx_csv_read(const char *path, struct gx_csv *t);

/** gx_csv_release() - free; safe on a zeroed struct and twice. */
void gx_csv_release(struct gx_csv *t);

/** gx_csv_col() - index of column @name, or -1. */
int gx_csv_col(const struct gx_csv *t, const char *name);

/** gx_csv_num() - field (@row, @col) as a number; NAN when empty, missing or not a number. */
double gx_csv_num(const struct gx_csv *t, int row, int col);

/** gx_csv_str() - field (@row, @col), "" when missing. */
const char *gx_csv_str(const struct gx_csv *t, int row, int col);

/**
 * gx_bracket() - the samples around a broadcast: among @n sample times in
 * increasing order, the k-th at *(const double *)((const char *)@t + k *
 * @stride) (sizeof(double) for an array, the element's size for a field of
 * a struct array), *@a = the last at or before @s and *@z = the first at or
 * after @u; -1 where there is none.
 */
void gx_bracket(const double *t, size_t stride, int n, double s, double u, int *a, int *z);

/**
 * gx_wall_end() - when a broadcast of results row (start @s on the one
 * clock, completion @c in the topology's time) ended on the wall clock of a
 * grid dilated @k times (k < 1, or not a number: 1).
 */
double gx_wall_end(double s, double c, double k);

/**
 * gx_wan_compute() - wan.csv of a run directory from its broadcasts.csv and
 * capture.csv: per broadcast, the IP bytes the wide-area links carried from
 * the last counter sample at or before its start to the first one at or
 * after its end plus the capture's lag (docs/formats.md); if that first one
 * comes more than GX_CAPTURE_QUIET later, the counters stood still since the
 * row before it, and that row ends the window.
 * Return: 0, -ENOENT (a file is missing), -errno.
 */
int gx_wan_compute(const char *rundir);

/** Seconds the capture's counters may lag the wire (capture.h: 50 ms buffer timeout). */
#define GX_CAPTURE_LAG 0.06

/** Seconds between capture.csv rows while no counter changes (gridexp_capture.c). */
#define GX_CAPTURE_HEARTBEAT 0.25

/**
 * Seconds after a broadcast's end (+ lag) beyond which the first row of
 * capture.csv is taken to be later traffic, not the broadcast's: four
 * heartbeats.  A capture written before the heartbeat (session 43) has no
 * row while the wide area is quiet, so its first row after a broadcast could
 * be the application's gather seconds later.
 */
#define GX_CAPTURE_QUIET 1.0

#endif
