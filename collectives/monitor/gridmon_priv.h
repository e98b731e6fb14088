/* SPDX-License-Identifier: MIT */
/*
 * gridmon_priv.h - what gridmon.c (the program: rounds, stages, workers)
 * and gridmon_matrix.c (the matrix file, and the oracle) share.  Not an
 * API: libgbmon's is gridmon.h.
 */
#ifndef GRIDBED_GRIDMON_PRIV_H
#define GRIDBED_GRIDMON_PRIV_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "gbemu.h"
#include "gridmon.h"

#define HIST 3 /* bandwidths kept per pair: the uncertainty of the matrix */
/* A steady reading whose window's second half ran at less than half or more
 * than twice its first half did not measure a rate: the delay line or the
 * probe lost the CPU for part of it (gridmon --help; docs/measurements.md). */
#define UNSTEADY_LO 0.5
#define UNSTEADY_HI 2.0

struct mon {
	struct gb_grid g;
	int nc;               /* clusters */
	double *clat, *cbw;   /* nc x nc, cluster level; NAN = not measured */
	double *co;           /* nc: o of each cluster's representative */
	double *co_round;     /* nc: the smallest o seen this round */
	int *stale;           /* nc x nc: the last attempt failed */
	double *hist;         /* nc x nc x HIST: the last bandwidths, newest first */
	int *nhist;           /* nc x nc: how many of them */
	struct gb_mon_pairref *pairs;
	int npairs, nstages;
	int *stage;           /* npairs: each pair's stage (mon_sched.c) */
	uint64_t version;
	uint64_t bytes_round; /* so far in this round */
	uint64_t bytes_last;  /* in the last whole round */
	int unsteady, unsteady_last; /* readings refused as unsteady: this round, the last */
	double change;        /* --publish-change */
	int changed;          /* a reading since the last version was news */
	double round_s;       /* the last whole round's duration (virtual s) */
	double dilate;        /* the grid's time dilation k (gb_dilation()) */
	int avoid;            /* --avoid: a host no probe starts from or ends at while
				 its cluster has others (gb_mon_rep()), or -1 */
	long round;           /* the round being measured, from 1 */
	int warm;             /* --warm: a pair starts with its last window (emulator/grid/probe_warm.c) */
	FILE *probelog;       /* --probe-log: one row per probe, or NULL */
};

/** mon_hist_range() - the range of pair @k's last HIST bandwidths; NAN, NAN if none. */
void mon_hist_range(const struct mon *M, int k, double *lo, double *hi);

/**
 * mon_matrix_json() - the matrix file (docs/formats.md) of cluster-level
 * values @clat, @cbw (nc x nc, NAN not measured) and @co (nc), expanded
 * to every node pair; @oracle labels it as the configuration's.
 */
json_t *mon_matrix_json(struct mon *M, const double *clat, const double *cbw, const double *co,
			int oracle);

/** mon_write_json() - @j to @path atomically, or to stdout for NULL or "-"; 0 or -errno. */
int mon_write_json(json_t *j, const char *path);

/**
 * mon_print_configured() - --print-configured: the oracle's matrix, from
 * the link parameters of M->g.topo (the caller puts the configuration
 * there, after mon_derate()), as version M->version, to @out.
 * Return: 0 or -errno.
 */
int mon_print_configured(struct mon *M, const char *out);

/**
 * mon_derate() - --derate LINK:ab|ba:F on @t: that direction's rate x
 * (1 - F), 0 < F < 1.  Return: 0, or -EINVAL (the optional @why says what
 * is wrong, quoting @arg).
 */
int mon_derate(struct gb_topo *t, const char *arg, struct gb_err *why);

#endif
