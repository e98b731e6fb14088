/* SPDX-License-Identifier: MIT */
/*
 * gbadvisor.h - the pure parts of Gupta & Vadhiyar's broadcast advisor
 * (seed 000 s2.5, Fig. 5), shared by the `gridadvisor` service, the
 * adaptive broadcast of libgridbcast (GRIDBED_BCAST=adaptive) and the tests:
 *
 *	application ──MPI_Bcast──► app log ──gb_applog_poll()──► history
 *	history ──gb_adv_predict()──► next size, gap before the next call
 *	gridadvisor: plan (any planner) ──gb_advtree_save()──► DIR/tree-<B>.json
 *	adaptive MPI_Bcast (root): gb_advtree_pick() nearest fresh size,
 *	        gb_advtree_for_ranks() relabel + restrict to the job's hosts
 *
 * No MPI, no root privileges.  Conventions as in gbcore.h: 0 or a negative
 * errno, nothing printed; times on CLOCK_MONOTONIC (gb_now()) unless named
 * wall.  File formats: docs/formats.md ("Advisor tree file", "advisor.csv")
 * and docs/gridbcast.md ("application log").
 */
#ifndef GRIDBED_GBADVISOR_H
#define GRIDBED_GBADVISOR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gbplan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The application log                                                 */
/* ------------------------------------------------------------------ */

/** One MPI_Bcast call, as its root logged it. */
struct gb_applog_entry {
	double t;        /**< CLOCK_MONOTONIC seconds at the call's entry */
	double size;     /**< bytes */
	int root;        /**< root rank */
	int nranks;      /**< communicator size */
};

/**
 * gb_applog_parse_line() - one line of the application log:
 * "<t> <size> <root> <comm size> <algorithm> [more fields]".  A trailing
 * newline is allowed.  Return: 0, or -EINVAL (not a log line).
 */
int gb_applog_parse_line(const char *line, struct gb_applog_entry *e);

/**
 * struct gb_applog - an application log read incrementally: every call of
 * gb_applog_poll() adds the complete lines appended since the last one.
 * @e, @n:    the history so far, in file order
 * @bad:      lines that did not parse (skipped)
 * @resets:   times the file was replaced or truncated (the history then
 *            starts again from its new content)
 */
struct gb_applog {
	char *path;
	struct gb_applog_entry *e;
	int n, cap;
	long bad;
	int resets;
	/* private */
	off_t off;
	dev_t dev;
	ino_t ino;
	char part[256];
	size_t plen;
};

/** gb_applog_init() - start reading @path (it need not exist yet). */
GB_WUR int gb_applog_init(struct gb_applog *l, const char *path);

/**
 * gb_applog_poll() - read what was appended.  A missing file is an empty
 * log.  A file that shrank or was replaced (another inode) resets the
 * history.  A partial last line waits for its newline.
 * Return: the number of entries added (>= 0), or -errno.
 */
int gb_applog_poll(struct gb_applog *l);

/** gb_applog_release() - free; safe on a zeroed struct and twice. */
void gb_applog_release(struct gb_applog *l);

/* ------------------------------------------------------------------ */
/* Prediction (seed 000 s2.5: "simple linear regression models")       */
/* ------------------------------------------------------------------ */

/** GB_ADV_PREDICTOR - name and version of gb_adv_predict()'s model. */
#define GB_ADV_PREDICTOR "linreg-window"
#define GB_ADV_PREDICTOR_VERSION 1
/** GB_ADV_WINDOW - default history window of gb_adv_predict(). */
#define GB_ADV_WINDOW 4

/**
 * struct gb_adv_pred - what gb_adv_predict() expects of the next call.
 * @n:      history entries used (after the window)
 * @size:   the next call's size (bytes, integral, >= 1); NAN without history
 * @gap:    seconds from the last call to the next; NAN with fewer than two
 *          calls (no gap observed yet)
 * @next_t: last call's t + @gap (CLOCK_MONOTONIC), NAN without @gap
 * @size_slope, @gap_slope: the fitted lines' slopes per call
 */
struct gb_adv_pred {
	int n;
	double size, gap, next_t;
	double size_slope, gap_slope;
};

/**
 * gb_adv_predict() - predict the next call from the last @window entries of
 * @h (0: all of them) by ordinary least squares on the call index:
 *
 *	sizes s_0 .. s_{m-1} (the window):  s_k ~ a + b k,  size = a + b m
 *	gaps  d_k = t_{k+1} - t_k, k < m-1: d_k ~ c + e k,  gap  = c + e (m-1)
 *
 * One point predicts itself (slope 0); two points give the line through
 * them.  Choices where the paper is silent: the regressor is the call index
 * (the paper's pattern is linear and exponential in the index); a window,
 * because a line fitted to a whole exponential history lags it (the
 * benchmark collectives/advisor/bench/advisor.sh measures both); a prediction that
 * is not positive is replaced by the last observed value (a line runs out
 * of range at the end of a decreasing pattern; the last value is the
 * closest one observed).  Sizes are rounded to whole bytes.
 * Return: 0, or -EINVAL (@n < 0, @window < 0).
 */
int gb_adv_predict(const struct gb_applog_entry *h, int n, int window, struct gb_adv_pred *p);

/**
 * gb_adv_synthetic() - seed 000 s3's synthetic application, for tests and
 * benchmarks: @n calls (the paper: "about 60"), the first of 1 MiB, sizes
 * decreasing linearly (call k: 1 MiB x (n - k) / n, rounded), gaps
 * decreasing exponentially from 90 s (gap after call k: 90 x 0.93^k s, so
 * 60 calls last about 21 min and the last gap is 1.5 s; the paper gives no
 * rate).  Every gap is multiplied by @scale (docs/architecture.md, decision 8);
 * the first call is at @t0.  @out: n entries, root 0 of @nranks ranks.
 */
void gb_adv_synthetic(int n, double t0, double scale, int nranks, struct gb_applog_entry *out);

/* ------------------------------------------------------------------ */
/* Tree files                                                          */
/* ------------------------------------------------------------------ */

/** GB_ADVTREE_VERSION - the advisor tree file's format_version. */
#define GB_ADVTREE_VERSION 1

/**
 * struct gb_advtree_meta - what an advisor tree file says about its tree,
 * besides the tree (docs/formats.md, "Advisor tree file").
 */
struct gb_advtree_meta {
	char planner[32];         /**< registry name */
	double size;              /**< bytes the tree was planned for */
	int mode;                 /**< 1: no application, 2: predicted */
	int oracle;               /**< 1: planned from the emulator's configuration */
	char matrix[256];         /**< the matrix file */
	uint64_t matrix_version;  /**< its "version" */
	char generator[96];       /**< its "generator" ("gridmon", ...) */
	char cost_model[16];      /**< the model predicted_cost is under */
	double predicted_cost;    /**< seconds, under @cost_model at @size */
	double planned_mono;      /**< CLOCK_MONOTONIC s when the file was made */
	double planned_wall;      /**< the same instant, Unix time */
	double plan_seconds;      /**< planning time */
	double budget_s;          /**< the planner's budget, 0: none */
	uint64_t seed;
	double pred_size, pred_gap; /**< mode 2: the prediction behind it, else NAN */
	int history;              /**< mode 2: log entries the prediction used */
};

/**
 * struct gb_advtree - a loaded advisor tree file: the tree over the file's
 * own node list (node i is @names[i]) and its metadata.
 */
struct gb_advtree {
	struct gb_advtree_meta meta;
	int n;
	char (*names)[32];
	char root[32];
	struct gb_tree t;
	char path[512];
};

/** gb_advtree_path() - "@dir/tree-<bytes>.json", the file for @size bytes. */
int gb_advtree_path(const char *dir, double size, char *buf, size_t len);

/**
 * gb_advtree_save() - write @t (over @m's nodes, planned for meta->size)
 * with @meta to gb_advtree_path(@dir, meta->size), atomically (temporary
 * file + rename: a reader sees the old file or the new one).  The file is
 * also a plain tree file (gb_tree_load_json(), `gridtree eval`).
 * @path: optional, receives the file's name.
 * Return: 0 or -errno.
 */
GB_WUR int gb_advtree_save(const char *dir, const struct gb_advtree_meta *meta,
			   const struct gb_tree *t, const struct gb_netmodel *m, char *path,
			   size_t pathlen);

/**
 * gb_advtree_load() - read an advisor tree file.  @a is initialised here
 * (release with gb_advtree_release()).
 * Return: 0, -ENOENT (no file), -EINVAL (not an advisor tree file; @e
 * says why, naming the file) or -ENOMEM.
 */
GB_WUR int gb_advtree_load(const char *path, struct gb_advtree *a, struct gb_err *e);

/** gb_advtree_release() - free; safe on a zeroed struct and twice. */
void gb_advtree_release(struct gb_advtree *a);

/**
 * gb_advtree_pick() - the tree for a broadcast of @size bytes: among the
 * files "tree-<B>.json" of @dir whose planned_mono is at most @maxage
 * seconds before @now, the one with the nearest planned size, nearness
 * being |log(B / size)| (ties: the larger B; size 0 counts as 1 byte).
 * Files are tried nearest first and the first fresh, readable one wins,
 * unless a fresh file within 1 % of its size was planned later: sizes that
 * close are the same message (a prediction one byte off), and the newer
 * plan is the current one.
 * @a:   filled on success (release with gb_advtree_release()).
 * @e:   on -ENOENT, why no tree was usable ("no tree files in 'd'",
 *       "nearest tree 'd/tree-1024.json' is 12.5 s old (max 10 s)").
 * Return: 0, -ENOENT (no fresh tree), or -errno (@dir unreadable).
 */
int gb_advtree_pick(const char *dir, double size, double maxage, double now,
		    struct gb_advtree *a, struct gb_err *e);

/**
 * gb_advtree_for_ranks() - the tree to run for a job whose rank i runs on
 * host @names[i] (@n ranks), rooted at rank @root:
 *   1. relabel for the root: if the file's root is not @root's host, the two
 *      swap places (gb_tree_relabel(): why a swap, see gbcore.h);
 *   2. restrict to the job's hosts: a rank's parent is its nearest ancestor
 *      that runs a rank of the job, and every rank's children are sent to
 *      in the order the file's tree reaches them (depth first, send order).
 *      With all hosts in the job, this is the file's tree itself.
 * @out: initialised here over the n ranks (release with gb_tree_release()).
 * Return: 0, -ENOENT (a host of the job is not in the file; @e names it),
 * -EINVAL (bad arguments, two ranks on one host) or -ENOMEM.
 */
GB_WUR int gb_advtree_for_ranks(const struct gb_advtree *a, const char (*names)[32], int n,
				int root, struct gb_tree *out, struct gb_err *e);

/* ------------------------------------------------------------------ */
/* Helpers of the advisor service                                      */
/* ------------------------------------------------------------------ */

/**
 * gb_adv_cost_model() - the cost model a planner optimises, under which
 * the advisor reports and compares its trees: "contention" for
 * sa-contention, "plogp" for the cluster-level (pLogP) family, else
 * "mateescu" (the SA family's, seed 000 s2.2).
 */
const char *gb_adv_cost_model(const struct gb_planner *p);

/**
 * gb_adv_matrix_label() - what a matrix file says about itself beyond the
 * model: its "oracle" flag (gridmon --print-configured) and "generator".
 * Return: 0, or -errno / -EINVAL (unreadable, not JSON).
 */
int gb_adv_matrix_label(const char *path, int *oracle, char *generator, size_t genlen);

#ifdef __cplusplus
}
#endif
#endif
