/* SPDX-License-Identifier: MIT */
/*
 * stencil_priv.h - what gridstencil's two files share: its options and
 * the state of one run (stencil.c runs it, stencil_results.c reports it);
 * not API.
 */
#ifndef GRIDBED_STENCIL_PRIV_H
#define GRIDBED_STENCIL_PRIV_H

#include <stdint.h>

#include "gbstdriver.h"

#define ME "gridstencil"
#define MAXGROUPS 64

enum kind { K_PULSE, K_WAVE, K_NOISY, K_PERIODIC };
#define K_NKINDS (K_PERIODIC + 1)

struct gspec {
	enum kind kind;
	int nvars;
	int instance;           /* the how-many-th group of its kind */
	char name[32];
};

struct opts {
	struct gb_st_opts st;
	long iters;
	int block;
	int ngroups;
	struct gspec g[MAXGROUPS];
	uint64_t seed;
	const char *out, *events, *meta, *dump, *campaign, *run_id, *groups_s, *fields;
	int probe;              /* deflate probe every this many iterations (0: none) */
	int quiet;
};

/* One block of iterations: when it ended and its rate. */
struct block {
	long it;                /* last iteration of the block */
	double t, rate;
};

/* One run of the application, as main() goes through it. */
struct job {
	struct opts o;
	struct gb_st *s;
	int rank, size;
	char run_id[64];
	char (*host)[64], (*cpu)[160];  /* rank 0: every rank's host and CPU quota */
	uint64_t npts;                  /* points of the grid */
	int init_depth;                 /* the wide-area ghost depth at the start */
	struct block *blk;              /* the rate per block of iterations */
	int nb;
	double *t_it;                   /* iteration i began t_it[i] s after the start */
	uint64_t *sums, total;          /* checksums per group, their sum */
	struct gb_st_report rep;
	/* --probe: per probe p and group g, [p * ngroups + g], summed over the
	 * ranks at rank 0 after the run (gb_st_probe_deflate()) */
	int np;                         /* probes taken */
	long *probe_it;                 /* the iteration each probe followed */
	uint64_t *probe_raw, *probe_zip;
	double t_probe;                 /* s this rank spent probing (rank 0: the maximum) */
};

/*
 * gs_finish() - rank 0 after the run: the figures printed, the CSV, the
 * events and the metadata written.  Return: 0, or 1 if a file could not be
 * written.
 */
int gs_finish(const struct job *J);

#endif
