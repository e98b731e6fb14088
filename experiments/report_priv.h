/* SPDX-License-Identifier: MIT */
/*
 * report_priv.h - what the report's two files share: the collected
 * campaign (meta.json and the complete runs' rows) that report.c gathers
 * and report_plots.c draws; not API.
 */
#ifndef GRIDBED_REPORT_PRIV_H
#define GRIDBED_REPORT_PRIV_H

#include "gbexp.h"
#include "results.h"

/* What report_trees.c counts in one run's trees (gx_run_trees()). */
struct gx_tree_counts {
	int loaded, relay;              /* loaded broadcasts; those where the target relayed */
	int unloaded, mpich_wan;        /* unloaded ones; those with MPICH-G2's WAN structure */
};

struct run {
	char id[128];
	int algo, cond, rep;
	int complete, failed;
	/* the fidelity monitor's verdict (run.json "fidelity"; gridexp_fidelity.c):
	 * -1 not monitored, 0 faithful, 1 strayed; broadcasts judged and strayed */
	int fid_strayed, fid_bcasts, fid_bcasts_strayed;
	json_t *fid;                    /* its object in summary.json's fidelity.runs, or NULL */
	/* run.json "monitor_share": the largest share of a wide-area direction
	 * gridmon's probes took over the run, and where; NAN, "" when none */
	double mon_share;
	char mon_link[64];
	struct gx_tree_counts trees;    /* report_trees.c */
	int loads, loads_short;         /* load.csv's flows, and those that ran short */
};

struct coll {
	const char *dir;
	json_t *meta;
	char name[64], stamp[64];
	const char *algos[GX_MAX_ALGOS];
	int nalgos;
	const char *conds[GX_MAX_CONDS];
	int nconds;
	struct run *runs;
	int nruns;
	char models[GX_MAX_MODELS][32];
	const char *mp[GX_MAX_MODELS];
	int nmodels;
	struct gx_row *rows;
	int nrows, crows;
	struct gb_topo *topo;           /* the results' topology.yaml, or NULL */
};

/*
 * gx_run_trees() - the mechanism counts of report_trees.c over one run's
 * ranks.csv (@ranks) on topology @t, the load's target cluster @target
 * (-1: none) and the run's summary rows @rows[0 .. @nrows-1] (which say
 * whether each broadcast was loaded).  A missing file counts nothing.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int gx_run_trees(const struct gb_topo *t, const char *ranks, int target,
		 const struct gx_row *rows, int nrows, struct gx_tree_counts *out);

/*
 * gx_run_fidelity() - fill @r's fidelity fields (fid_strayed, fid_bcasts,
 * fid_bcasts_strayed, fid) from its run.json @run_json and, when some of
 * its broadcasts strayed, runs/<id>/fidelity.csv of results directory
 * @dir (report_fidelity.c).  A run without "fidelity" gets fid_strayed -1
 * and no fid.  Release with gx_run_fidelity_release().
 */
void gx_run_fidelity(const char *dir, struct run *r, json_t *run_json);

/** gx_run_fidelity_release() - drop @r's fid; safe on a zeroed run and twice. */
void gx_run_fidelity_release(struct run *r);

/*
 * gx_fidelity_json() - summary.json's "fidelity" of @C's complete runs:
 * the counts, the monitor's lines and "runs" (report_fidelity.c's header).
 * Return: a new object, or NULL without memory.
 */
json_t *gx_fidelity_json(const struct coll *C);

/*
 * gx_fidelity_text() - summary.txt's "fidelity:" line to @f and, when
 * @each, one line a strayed run or broadcast under it.
 */
void gx_fidelity_text(const struct coll *C, int each, FILE *f);

/*
 * gx_report_plots() - the campaign's gnuplot PNGs (report.c's header lists
 * them) into C->dir.  Return: 0, or -EIO when gnuplot failed on any.
 */
int gx_report_plots(const struct coll *C, const struct gx_summary *s);

/*
 * gx_report_branches() - the "where the broadcasts ended" table
 * (report_branches.c): per algorithm, load state and cluster, the median
 * finish of the cluster's last rank and how many broadcasts ended there;
 * then the edge times by kind of path (cluster, site, wan), when ranks.csv
 * has libgridbcast's per-edge columns.  From the complete runs' ranks.csv
 * and the results' topology.yaml.  Writes the tables to @f and sets *@out
 * to their JSON (NULL when there is no topology copy or no rank rows:
 * nothing is written then).
 * Return: 0, or -ENOMEM.
 */
int gx_report_branches(const struct coll *C, FILE *f, json_t **out);

/*
 * gx_report_intervals() - the "intervals" table (report_intervals.c): per
 * algorithm, the loaded and unloaded mean completion times and the gains
 * over the reference, each with its 95 % bootstrap interval (bootstrap.h;
 * 2000 resamples, seed 1, the same as `gridexp check`'s defaults), from
 * @s's rows.  Writes the table to @f and sets *@out to its JSON (NULL when
 * @s has no rows).  Return: 0, or -ENOMEM.
 */
int gx_report_intervals(const struct gx_summary *s, FILE *f, json_t **out);

#endif
