// SPDX-License-Identifier: MIT
/*
 * gridexp_keep.c - `gridexp keep DIR DEST`: the part of a results directory
 * that `gridexp report`, `gridexp check` and `gridexp run --resume` read,
 * copied to DEST to be kept (committed, say).
 *
 * A campaign split over sessions with --only and --resume (issue 13: three
 * runs of 90 minutes per seed) outlives the machine it started on only if
 * its results do.  A results directory holds every matrix version, the
 * capture's and the TCP counters' samples, the advisor's trees and the
 * logs (6.4 MB for seed 9's adaptive run of teragrid-quick at scale 0.3),
 * of which the summary reads 0.43 MB.
 *
 * Kept (docs/formats.md, "Campaign results"; a missing optional file is
 * skipped):
 *	campaign.yaml, topology.yaml, meta.json      required
 *	summary.json, summary.txt
 *	calibrate.json                               (run --dilate auto's table:
 *	                                             why the run's k is what
 *	                                             it is)
 *	monitor/gridmon-s*.log, versions-s*.csv, probes-s*.csv
 *	                                             (the session numbers that
 *	                                             --resume counts on, and
 *	                                             when each probe ran)
 *	runs/<id>/ of each complete run: complete, run.json, broadcasts.csv,
 *	           ranks.csv, wan.csv, tcp-broadcasts.csv, fidelity.csv, load.csv,
 *	           monitor-share.csv, capture-links.csv, advisor/advisor.csv
 * Left out: runs that are not complete (--resume runs them again anyway),
 * the matrices, the capture's and the TCP counters' samples, the per-call
 * record, the logs, the plots (`gridexp report DEST` draws them again).
 *
 * DEST must not exist.  The copy is made in DEST.tmp-<pid> and renamed to
 * DEST at the end: a failure removes the temporary directory, and an
 * interruption leaves no DEST (only DEST.tmp-<pid>, to remove).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gbutil.h"
#include "gridexp_priv.h"
#include "gxfile.h"

static const char *const top_files[] = { "campaign.yaml", "topology.yaml", "meta.json",
					 "summary.json", "summary.txt", "calibrate.json" };
static const char *const monitor_globs[] = { "gridmon-s*.log", "versions-s*.csv",
					     "probes-s*.csv" };
static const char *const run_files[] = { "complete", "run.json", "broadcasts.csv", "ranks.csv",
					 "wan.csv", "tcp-broadcasts.csv", "fidelity.csv", "load.csv",
					 "monitor-share.csv", "capture-links.csv",
					 "advisor/advisor.csv" };

struct keep {
	const char *dir;        /* the results directory */
	char tmp[PATH_MAX];     /* DEST.tmp-<pid>, the copy being made */
	int files, runs, left;  /* files copied, runs kept, runs left out */
	long long bytes;
	char err[PATH_MAX + 128];
};

/* @rel from k->dir into k->tmp, its directory made; 0, 1 when @optional
 * and absent, or -1 with k->err set. */
static int copy_rel(struct keep *k, const char *rel, int optional)
{
	char from[PATH_MAX], to[PATH_MAX], *slash;
	struct stat st;
	int ret;

	if ((size_t)snprintf(from, sizeof(from), "%s/%s", k->dir, rel) >= sizeof(from) ||
	    (size_t)snprintf(to, sizeof(to), "%s/%s", k->tmp, rel) >= sizeof(to)) {
		snprintf(k->err, sizeof(k->err), "%s/%s: path too long", k->dir, rel);
		return -1;
	}
	if (stat(from, &st) < 0) {
		if (optional && errno == ENOENT)
			return 1;
		snprintf(k->err, sizeof(k->err), "%s: %s", from, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(k->err, sizeof(k->err), "%s: not a file", from);
		return -1;
	}
	slash = strrchr(to, '/');
	*slash = '\0';
	ret = gb_mkdir_p(to, 0755);
	*slash = '/';
	if (ret == 0)
		ret = gx_copy_atomic(from, to);
	if (ret < 0) {
		snprintf(k->err, sizeof(k->err), "cannot copy %s to %s: %s", from, to,
			 strerror(-ret));
		return -1;
	}
	k->files++;
	k->bytes += st.st_size;
	return 0;
}

static int keep_monitor(struct keep *k)
{
	char path[PATH_MAX], rel[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/monitor", k->dir);
	if (!(d = opendir(path)))
		return 0;       /* a campaign without gridmon */
	while (ret == 0 && (e = readdir(d)))
		for (size_t i = 0; i < sizeof(monitor_globs) / sizeof(*monitor_globs); i++)
			if (!fnmatch(monitor_globs[i], e->d_name, 0)) {
				snprintf(rel, sizeof(rel), "monitor/%s", e->d_name);
				ret = copy_rel(k, rel, 0) < 0 ? -1 : 0;
				break;
			}
	closedir(d);
	return ret;
}

static int keep_runs(struct keep *k)
{
	char path[PATH_MAX], rel[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/runs", k->dir);
	if (!(d = opendir(path)))
		return 0;       /* no run has started */
	while (ret == 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/runs/%s/complete", k->dir, e->d_name);
		if (stat(path, &st) < 0) {
			k->left++;
			continue;
		}
		for (size_t i = 0; ret == 0 && i < sizeof(run_files) / sizeof(*run_files); i++) {
			snprintf(rel, sizeof(rel), "runs/%s/%s", e->d_name, run_files[i]);
			/* a complete run has these three whatever its algorithm */
			ret = copy_rel(k, rel, i > 2) < 0 ? -1 : 0;
		}
		k->runs++;
	}
	closedir(d);
	return ret;
}

int cmd_keep(int argc, char **argv)
{
	struct keep k = { 0 };
	char meta[PATH_MAX], dbuf[PATH_MAX];
	const char *dest;
	struct stat st;
	int ret = 0;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: gridexp keep DIR DEST\n"
		       "  copy to DEST (which must not exist) what gridexp report, check and\n"
		       "  run --resume read of the results directory DIR: its inputs,\n"
		       "  meta.json, the summary, and each complete run's per-broadcast and\n"
		       "  per-rank files (about 0.4 MB a run, to commit; the list is at\n"
		       "  the top of experiments/gridexp_keep.c)\n");
		return 0;
	}
	if (argc != 3) {
		return refuse("keep: usage: gridexp keep DIR DEST");
	}
	k.dir = argv[1];
	if (!*argv[2]) {
		return refuse("keep: DEST '' is empty (give a new directory)");
	}
	/* "DIR/" is DIR: the temporary copy goes beside it, not inside it */
	if ((size_t)snprintf(dbuf, sizeof(dbuf), "%s", argv[2]) >= sizeof(dbuf)) {
		return refuse("keep: %s: path too long", argv[2]);
	}
	for (size_t n = strlen(dbuf); n > 1 && dbuf[n - 1] == '/'; n--)
		dbuf[n - 1] = '\0';
	dest = dbuf;
	snprintf(meta, sizeof(meta), "%s/meta.json", k.dir);
	if (stat(meta, &st) < 0) {
		return refuse("keep: %s: not a results directory (no meta.json)", k.dir);
	}
	if (lstat(dest, &st) == 0) {
		return refuse("keep: %s: exists (give a new directory)", dest);
	}
	if ((size_t)snprintf(k.tmp, sizeof(k.tmp), "%s.tmp-%ld", dest, (long)getpid()) >=
	    sizeof(k.tmp)) {
		return refuse("keep: %s: path too long", dest);
	}
	if ((ret = gx_dir_creatable(dest, k.err, sizeof(k.err))) < 0) {
		return refuse("keep: DEST '%s': '%s' %s", argv[2], k.err,
			      ret == -ENOTDIR ? "is not a directory" : strerror(-ret));
	}
	ret = 0;
	for (size_t i = 0; ret == 0 && i < sizeof(top_files) / sizeof(*top_files); i++)
		ret = copy_rel(&k, top_files[i], i > 2) < 0 ? -1 : 0;
	if (ret == 0)
		ret = keep_monitor(&k);
	if (ret == 0)
		ret = keep_runs(&k);
	if (ret == 0 && rename(k.tmp, dest) < 0) {
		snprintf(k.err, sizeof(k.err), "cannot rename %s to %s: %s", k.tmp, dest,
			 strerror(errno));
		ret = -1;
	}
	if (ret < 0) {
		gb_rmtree(k.tmp);
		warnx("keep: %s", k.err);
		return 1;
	}
	printf("kept %d complete run%s (%d left out: not complete), %d files, %.1f kB, in %s\n",
	       k.runs, k.runs == 1 ? "" : "s", k.left, k.files, k.bytes / 1e3, dest);
	return 0;
}
