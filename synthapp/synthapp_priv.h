/* SPDX-License-Identifier: MIT */
/*
 * synthapp_priv.h - what synthapp's two files share: synthapp.c (options,
 * the schedule, the broadcasts, the rows) and synthapp_model.c (libgridbcast's
 * per-call record and the cost models' predictions).  Not an API.
 */
#ifndef GRIDBED_SYNTHAPP_PRIV_H
#define GRIDBED_SYNTHAPP_PRIV_H

#include <time.h>

#include "gbio.h"
#include "gbplan.h"
#include "gbtopo.h"

/* This rank and the job's size (MPI_COMM_WORLD). */
extern int world_rank, nranks;

/** die() - "synthapp: rank R: ..." on stderr, then MPI_Abort. */
__attribute__((format(printf, 1, 2), noreturn)) void die(const char *fmt, ...);

/*
 * One rank's times around one MPI_Bcast (CLOCK_MONOTONIC s).  t_recv and
 * the send times come from libgridbcast (gridbcast_last_timing()): NAN
 * under native or without the library.
 */
struct times {
	double t_begin, t_end;
	double t_recv;          /* the whole message had arrived */
	double t_send_start, t_send_done;  /* its sends to its children */
};
#define TIMES_N ((int)(sizeof(struct times) / sizeof(double)))

/* What the root keeps per broadcast. */
struct brow {
	double size, planned, start, completion, late, pred[8];
	long long mismatches;
	int loaded, fallback;
	char tree_via[48], model[256], pred_model[256], used[64];
	unsigned long long hdr_bytes;
	double seg_bytes;       /* bytes per segment the root used, 0: whole */
	int stripes;            /* trees the segments went down (the record's; 1: one) */
	int *parent;            /* n entries, -1 unknown */
	struct times *t;        /* n entries */
	double *psend;          /* n entries: when its parent began the send to it */
};

struct models {
	const char *matrix;            /* $GRIDBED_MATRIX or NULL */
	struct gb_netmodel sm;         /* the topology's static model over the ranks */
	char sm_label[300];
	int have_sm;
	struct gb_netmodel mx;         /* the matrix over the ranks, cached */
	char mx_label[300];
	struct timespec mx_mtime;
	int have_mx;
	int *hostidx;                  /* rank -> topology host */
	char (*host)[32];
	struct gb_topo *topo;
	long rec_off;                  /* how far the record has been read */
};

/** models_init() - the topology's static model over the ranks, $GRIDBED_MATRIX's name. */
void models_init(struct models *M);

/**
 * read_record() - the record line of this call from libgridbcast's record
 * file @path (docs/gridbcast.md) into @r's library fields and @t.
 * Return: 0, or -ENOENT when there is none.
 */
int read_record(struct models *M, const char *path, double size, struct brow *r,
		struct gb_tree *t);

/** predict() - @t's predicted time under every cost model into @r->pred. */
void predict(struct models *M, const struct gb_tree *t, struct brow *r);

/** find_root() - the rank of host (or rank number) @s, or -1. */
int find_root(const char *s, struct models *M);

#endif /* GRIDBED_SYNTHAPP_PRIV_H */
