// SPDX-License-Identifier: MIT
/*
 * gridexp - experiment campaigns (issue 6): from an empty machine to plotted
 * results, resumable.
 *
 *	gridexp run FILE.yaml [--scale F] [--dilate K|auto[:K]] [--seed N]
 *	            [--resume DIR] [--only ALGO,...] [--out-root DIR] [--prefix P]
 *	            [--no-plots]
 *	gridexp calibrate FILE.yaml [--max-k K] [--prefix P]
 *	gridexp report DIR [DIR...] [--no-plots]
 *	gridexp check FILE.yaml|DIR [DIR...] --expect EXPECT.yaml [run options]
 *	gridexp slurm FILE.yaml [run options] [--partition P] [--time T] [--no-wait]
 *
 * `slurm` (issue 17) makes the results directory and submits the runs that
 * are not complete in it as a Slurm job array, one run per task, each task
 * on a node of its own (--exclusive): `gridexp run FILE --resume DIR --task
 * K` there, with its own grid.  It shows the array's progress, scancels it
 * on SIGINT/SIGTERM, records the tasks that ended without their run, and
 * reports (gridexp_slurm.c).
 *
 * `run`, for a campaign file (docs/formats.md, "Campaign file"):
 *
 *	lock the campaign's prefix (its own lock; busy: refuse)
 *	gridemu up TOPOLOGY                              one grid for the campaign
 *	gridmon --out results/.../monitor/matrix.json    if an algorithm plans from
 *	                                                 measurements (kept all along,
 *	                                                 so that every algorithm's
 *	                                                 broadcasts share its probes)
 *	for each repetition, load condition, algorithm:  one run, results/.../runs/ID/
 *	    gridadvisor --applog ... (adaptive only)
 *	    capture the wide-area links (libgbcapture; counters sampled every 20 ms)
 *	    gridemu mpirun --preload libgridbcast.so -- synthapp ...
 *	        synthapp: ready.json -> the load schedule starts, same seed for
 *	        every algorithm (libgbload in a child process) -> go.json with the
 *	        load intervals -> the broadcasts
 *	    stop the load, gridload restore, stop the capture and the advisor
 *	    run.json, complete marker, rename runs/ID.tmp -> runs/ID
 *	stop gridmon; gridemu down; report (summary + plots)
 *
 * Teardown happens on success, on failure and on SIGINT/SIGTERM/SIGHUP; every
 * child dies with gridexp (PR_SET_PDEATHSIG), and after a SIGKILL the next
 * `run` (or `--resume`) of the same campaign takes the grid it left down.
 *
 * Exit status: 0; 1 a run failed (recorded; the campaign went on) or a
 * step failed; 2 bad input or a busy prefix; 130/143 interrupted.
 * `check`: 0 all expectations hold, 1 one failed, 2 bad input.
 * `calibrate` (and `run --dilate auto[:K]` before its run): 1 also when no
 * k up to K is faithful (then run runs nothing).
 *
 * This file is the command line; gridexp_priv.h says where the rest lives.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gbexp.h"
#include "gridexp_priv.h"

/* Bad input: at its place (FILE:LINE:COL) when it has one, else the file's name. */
void print_diag(const struct gb_diag *d)
{
	char line[GB_DIAG_LINE_MAX];

	if (d->line)
		fprintf(stderr, "%s\n", gb_diag_format(d, NULL, line, sizeof(line)));
	else
		fprintf(stderr, ME ": %s: %s\n", d->file, d->msg);
}

int refuse(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gb_vrefuse(ME, fmt, ap);
	va_end(ap);
	return GB_EXIT_USAGE;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gridexp run FILE.yaml [--scale F] [--dilate K|auto[:K]] [--seed N]\n"
		"                   [--resume DIR] [--only ALGO[,ALGO...]]\n"
		"                   [--out-root DIR] [--prefix P] [--no-plots] [--dry-run]\n"
		"       gridexp report DIR [DIR...] [--no-plots]\n"
		"       gridexp check FILE.yaml|DIR [DIR...] --expect EXPECT.yaml\n"
		"                     [--level P] [--resamples N] [--ci-seed S]\n"
		"                     [--junit FILE] [--tap] [run options]\n"
		"       gridexp slurm FILE.yaml [run options] [--partition P] [--time T]\n"
		"                     [--no-wait]\n"
		"       gridexp keep DIR DEST\n"
		"       gridexp calibrate FILE.yaml [--max-k K] [--prefix P]\n"
		"\n"
		"  run     run a campaign (docs/formats.md, \"Campaign file\") from an empty\n"
		"          machine to plotted results in OUT-ROOT/<campaign>/<UTC time>/\n"
		"          (OUT-ROOT: ./results); --resume DIR skips its complete runs and\n"
		"          runs the others again from scratch; --only runs some algorithms\n"
		"          (gridmon still runs if any of the campaign's algorithms reads it,\n"
		"          so that every algorithm meets the same probe traffic);\n"
		"          --scale overrides the campaign's time scale, --dilate its time\n"
		"          dilation (delays x K, rates / K on the wire, times reported / K;\n"
		"          auto: the smallest K calibrate finds faithful, kept in\n"
		"          calibrate.json beside meta.json; auto:K climbs no higher than\n"
		"          K, and if none up to K is faithful runs nothing, exit 1),\n"
		"          --seed its seed\n"
		"          (repetition k uses seed + k - 1); --prefix names the\n"
		"          grid (default: gx + a hash of the campaign's name); --dry-run\n"
		"          checks the campaign and prints its runs and load schedules;\n"
		"          progress goes to stderr: one line kept up to date on a\n"
		"          terminal, else a line a minute as broadcasts complete\n"
		"  report  summary.json, summary.txt and the plots again, from DIR's files;\n"
		"          with several DIRs of one campaign (one seed each, say), one\n"
		"          summary of all their broadcasts, printed only\n"
		"  check   run the campaign (or take DIR's results, or several DIRs'\n"
		"          pooled) and test expectations; exit 1 if one fails.  A line\n"
		"          on a mean, median, improvement, ratio, crossing or time per\n"
		"          byte passes only when its bootstrap interval (paired over\n"
		"          broadcasts, one block per DIR) clears the bound: --level (0.95),\n"
		"          --resamples (2000; 0: point estimates only), --ci-seed (1);\n"
		"          --junit FILE also writes JUnit XML, --tap prints TAP instead\n"
		"          of text (docs/formats.md, \"Expectations\")\n"
		"  slurm   the same campaign as a Slurm job array: one run per task, each\n"
		"          on its own node (as root, gridbed built at this path there), the\n"
		"          results in OUT-ROOT (or --resume's DIR) on a shared directory;\n"
		"          shows progress, scancels the job on Ctrl-C, then reports;\n"
		"          --partition and --time go to sbatch; --no-wait submits and\n"
		"          returns (then: gridexp report DIR)\n"
		"  keep    copy what report, check and run --resume read of DIR (each\n"
		"          complete run's per-broadcast and per-rank files, about 0.4 MB\n"
		"          a run) to the new directory DEST, to commit a campaign that spans\n"
		"          sessions or machines\n"
		"  calibrate  the smallest time dilation k (" CAL_LADDER ") at which the\n"
		"          fidelity monitor marks none of 3 broadcasts of the campaign's\n"
		"          largest size, its scaled gap apart (its first two algorithms\n"
		"          that need no advisor or phoenixd, under its heaviest load\n"
		"          held throughout, with its gridmon when they read one, else\n"
		"          the oracle), and no link's delay is below the delay line's own\n"
		"          cost, one line per k tried; --max-k K (one of those k)\n"
		"          stops there: none faithful up to K is said in one line, exit 1;\n"
		"          the runs go to a folder in /tmp that is removed\n"
		"  (run --task K --resume DIR is what one array task runs: run K alone,\n"
		"   no report)\n"
		"\n"
		"Exit: 0 ok; 1 a run or an expectation failed; 2 bad input or a busy\n"
		"prefix; 128+N interrupted by signal N (everything is torn down);\n"
		"docs/exit-status.md.\n"
		"Environment: GRIDBED_RUNDIR (default /run/gridbed).\n");
}

static int parse_run_opts(int argc, char **argv, struct run_opts *o, const char **expect)
{
	static const struct option lo[] = {
		{ "scale", required_argument, NULL, 's' },
		{ "dilate", required_argument, NULL, 'd' },
		{ "max-k", required_argument, NULL, 'K' },
		{ "seed", required_argument, NULL, 'S' },
		{ "resume", required_argument, NULL, 'r' },
		{ "only", required_argument, NULL, 'o' },
		{ "out-root", required_argument, NULL, 'O' },
		{ "prefix", required_argument, NULL, 'p' },
		{ "no-plots", no_argument, NULL, 'n' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "expect", required_argument, NULL, 'e' },
		{ "task", required_argument, NULL, 'T' },
		{ "partition", required_argument, NULL, 'P' },
		{ "time", required_argument, NULL, 't' },
		{ "no-wait", no_argument, NULL, 'W' },
		{ "level", required_argument, NULL, 'L' },
		{ "resamples", required_argument, NULL, 'R' },
		{ "ci-seed", required_argument, NULL, 'C' },
		{ "junit", required_argument, NULL, 'J' },
		{ "tap", no_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->out_root = "results";
	o->plots = 1;
	o->task = -1;
	o->level = GX_CHECK_LEVEL;
	o->resamples = GX_CHECK_RESAMPLES;
	o->ci_seed = GX_CHECK_SEED;
	optind = 1;
	opterr = 0;     /* one line of ours names the fault, not getopt's and the usage */
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			o->scale = strtod(optarg, &end);
			if (*end || !(o->scale > 0) || !isfinite(o->scale)) {
				return refuse("--scale: '%s' is not a positive number", optarg);
			}
			break;
		case 'd':
			if (!strcmp(optarg, "auto")) {
				o->dilate = -1; /* measured first: gridexp_calibrate.c */
				break;
			}
			if (!strncmp(optarg, "auto:", 5)) {
				o->max_k = strtod(optarg + 5, &end);
				if (*end || !optarg[5] || !cal_on_ladder(o->max_k)) {
					return refuse("--dilate: '%s': K is not one of the "
						      "calibration's k (" CAL_LADDER ")",
						      optarg);
				}
				o->dilate = -1;
				break;
			}
			o->dilate = strtod(optarg, &end);
			if (*end || !(o->dilate >= 1 && o->dilate <= 1000)) {
				return refuse("--dilate: '%s' is not a number in [1, 1000] or auto",
					      optarg);
			}
			break;
		case 'K':
			o->max_k = strtod(optarg, &end);
			if (*end || !*optarg || !cal_on_ladder(o->max_k)) {
				return refuse("--max-k: '%s' is not one of the calibration's "
					      "k (" CAL_LADDER ")", optarg);
			}
			o->cal_opts = 1;
			break;
		case 'S':
			errno = 0;
			o->seed = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-') {
				return refuse("--seed: '%s' is not a non-negative integer", optarg);
			}
			o->seed_set = 1;
			break;
		case 'r': o->resume = optarg; break;
		case 'o':
			snprintf(o->only + strlen(o->only), sizeof(o->only) - strlen(o->only), "%s%s",
				 o->only[0] ? "," : "", optarg);
			/* --only a b c: the following non-option words too */
			while (optind < argc && argv[optind][0] != '-' && !strchr(argv[optind], '.')
			       && !strchr(argv[optind], '/'))
				snprintf(o->only + strlen(o->only), sizeof(o->only) -
					 strlen(o->only), ",%s", argv[optind++]);
			break;
		case 'O': o->out_root = optarg; break;
		case 'p':
			/* as gridemu's (gb_grid_open()) */
			if (!*optarg || strlen(optarg) > GB_PREFIX_MAX || strspn(optarg,
			    "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(optarg)) {
				return refuse("--prefix: '%s' must be 1 to %d lowercase letters "
					      "or digits", optarg, GB_PREFIX_MAX);
			}
			o->prefix = optarg;
			break;
		case 'n': o->plots = 0; break;
		case 'D': o->dry = 1; break;
		case 'T':
			errno = 0;
			{
				long k = strtol(optarg, &end, 10);

				if (errno || *end || !*optarg || k < 0 || k > 1000000) {
					return refuse("--task: '%s' is not a run's index (0, 1, "
						      "...)", optarg);
				}
				o->task = (int)k;
			}
			break;
		case 'P':
			if (!*optarg || strspn(optarg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					       "0123456789_-.,") != strlen(optarg)) {
				return refuse("--partition: '%s' is not a partition's name",
					      optarg);
			}
			o->partition = optarg;
			break;
		case 't':
			if (!*optarg || strspn(optarg, "0123456789:-") != strlen(optarg)) {
				return refuse("--time: '%s' is not a time limit (MIN, H:MM:SS or "
					      "D-H)", optarg);
			}
			o->time_limit = optarg;
			break;
		case 'W': o->no_wait = 1; break;
		case 'e':
			if (!expect) {
				return refuse("%s: --expect is an option of 'gridexp check'",
					      argv[0]);
			}
			*expect = optarg;
			break;
		case 'L':
			o->level = strtod(optarg, &end);
			if (*end || !*optarg || !(o->level >= 0.5 && o->level < 1)) {
				return refuse("--level: '%s' is not a confidence from 0.5 to "
					      "below 1 (0.95: 95 %%)", optarg);
			}
			o->check_opts = 1;
			break;
		case 'R':
			errno = 0;
			{
				long k = strtol(optarg, &end, 10);

				if (errno || *end || !*optarg || (k != 0 && k < 100) || k > 1000000) {
					return refuse("--resamples: '%s' is not 0 (no intervals) "
						      "or a count from 100 to 1000000", optarg);
				}
				o->resamples = (int)k;
			}
			o->check_opts = 1;
			break;
		case 'C':
			errno = 0;
			o->ci_seed = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-') {
				return refuse("--ci-seed: '%s' is not a non-negative integer",
					      optarg);
			}
			o->check_opts = 1;
			break;
		case 'J':
			if (!*optarg) {
				return refuse("--junit: give the XML file to write");
			}
			o->junit = optarg;
			o->check_opts = 1;
			break;
		case 'X': o->tap = 1; o->check_opts = 1; break;
		case 'h': usage(stdout); return -1;
		case ':':
			return refuse("%s: option '%s' needs a value (see gridexp --help)", argv[0],
				      argv[optind - 1]);
		default:
			return refuse("%s: unknown option '%s' (see gridexp --help)", argv[0],
				      argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		return refuse("%s: which campaign file? (see gridexp --help)", argv[0]);
	}
	o->file = argv[optind];
	o->files = (const char *const *)argv + optind;
	o->nfiles = argc - optind;
	return 0;
}

/* --partition, --time and --no-wait are slurm's; --task is run's, with --resume. */
static int misplaced(const struct run_opts *o, const char *cmd)
{
	int slurm = !strcmp(cmd, "slurm");

	if (o->nfiles > 1 && strcmp(cmd, "check")) {
		return refuse("%s: one campaign file, not %d (%s ...)", cmd, o->nfiles,
			      o->files[1]);
	}

	/* only run calibrates first: check and slurm would run at the campaign's k */
	if (o->dilate < 0 && strcmp(cmd, "run")) {
		return refuse("%s: --dilate auto is an option of 'gridexp run' (here: gridexp "
			      "calibrate, then --dilate K)", cmd);
	}
	if (o->cal_opts) {
		return refuse("%s: --max-k is an option of 'gridexp calibrate' (run: --dilate "
			      "auto:K)", cmd);
	}
	if (o->check_opts && strcmp(cmd, "check")) {
		return refuse("%s: --level, --resamples, --ci-seed, --junit and --tap are options "
			      "of 'gridexp check'", cmd);
	}
	if (!slurm && (o->partition || o->time_limit || o->no_wait)) {
		return refuse("%s: --partition, --time and --no-wait are options of 'gridexp "
			      "slurm'", cmd);
	}
	if (o->task >= 0 && strcmp(cmd, "run")) {
		return refuse("%s: --task is an option of 'gridexp run' (what one Slurm task runs)",
			      cmd);
	}
	if (o->task >= 0 && !o->resume) {
		return refuse("run: --task needs --resume DIR (the results directory gridexp "
			      "slurm made)");
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	char out[PATH_MAX] = "";
	json_t *cal = NULL;
	int r = parse_run_opts(argc, argv, &o, NULL);

	if (r)
		return r < 0 ? 0 : r;
	if ((r = misplaced(&o, "run")))
		return r;
	if (o.dilate < 0 && (o.resume || o.dry || o.task >= 0)) {
		return refuse("run: --dilate auto measures before a new run; --resume, --task and "
			      "--dry-run take the results' or a number");
	}
	if (o.dilate < 0) {
		if ((r = do_calibrate(&o, &o.dilate, &cal)))
			return r;
	}
	r = do_run(&o, out, sizeof(out));
	if (cal && out[0]) {
		char path[PATH_MAX];

		/* beside meta.json: how the run's k was chosen */
		snprintf(path, sizeof(path), "%s/calibrate.json", out);
		if (json_dump_file(cal, path, JSON_INDENT(1)) < 0)
			warnx("cannot write '%s'", path);
	}
	json_decref(cal);
	return r;
}

static int cmd_calibrate(int argc, char **argv)
{
	struct run_opts o;
	json_t *cal = NULL;
	double k;
	int r = parse_run_opts(argc, argv, &o, NULL);

	if (r)
		return r < 0 ? 0 : r;
	if (o.resume || o.dry || o.task >= 0 || o.dilate || o.only[0] || o.scale || o.seed_set) {
		return refuse("calibrate: takes FILE.yaml, --max-k and --prefix only");
	}
	r = do_calibrate(&o, &k, &cal);
	json_decref(cal);
	return r;
}

static int cmd_slurm(int argc, char **argv)
{
	struct run_opts o;
	int r = parse_run_opts(argc, argv, &o, NULL);

	if (r)
		return r < 0 ? 0 : r;
	if ((r = misplaced(&o, "slurm")))
		return r;
	return do_slurm(&o);
}

static int cmd_report(int argc, char **argv)
{
	struct gb_err err = { "" };
	int plots = 1, ret, ndirs = 0;
	const char *dirs[argc];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-plots"))
			plots = 0;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] != '-')
			dirs[ndirs++] = argv[i];
		else {
			return refuse("report: unknown option '%s' (see gridexp --help)", argv[i]);
		}
	}
	if (!ndirs) {
		return refuse("report: which results directory? (see gridexp --help)");
	}
	if (ndirs > 1)
		ret = gx_report_pool(dirs, ndirs, stdout, NULL, &err);
	else
		ret = gx_report(dirs[0], plots, stdout, NULL, &err);
	if (ret < 0) {
		warnx("%s", err.msg);
		return ret == -ENOENT || ret == -EINVAL ? 2 : 1;
	}
	return 0;
}

/*
 * The names expectations @e use, against the algorithms of what @o names
 * (a campaign file, or results directories), before anything runs or is
 * rewritten: 0, or the exit status with the fault said.
 */
static int check_names(const struct run_opts *o, const char *expect, const struct gx_expect *e,
		       int n)
{
	char labels[GX_MAX_ALGOS][GX_NAME_MAX], clabels[GX_MAX_CONDS][GX_NAME_MAX];
	const char *names[GX_MAX_ALGOS], *cnames[GX_MAX_CONDS];
	struct gb_err err = { "" };
	struct stat st;
	int na, nc, ret;

	for (int i = 0; i < o->nfiles; i++) {
		if (stat(o->files[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if ((na = gx_results_algos(o->files[i], labels, GX_MAX_ALGOS, &err)) < 0) {
				warnx("check: %s", err.msg);
				return na == -ENOMEM ? 1 : 2;
			}
			if ((nc = gx_results_conds(o->files[i], clabels, GX_MAX_CONDS, &err)) < 0) {
				warnx("check: %s", err.msg);
				return nc == -ENOMEM ? 1 : 2;
			}
		} else if (o->nfiles > 1) {
			return refuse("check: '%s' is not a results directory (several arguments "
				      "are results directories to pool)", o->files[i]);
		} else {
			struct gx_campaign c;
			struct gb_diag d;

			if (gx_campaign_load(o->files[i], &c, &d) < 0) {
				print_diag(&d);
				return 2;
			}
			na = c.nalgos;
			for (int a = 0; a < na; a++)
				snprintf(labels[a], GX_NAME_MAX, "%s", c.algos[a].label);
			nc = c.nconds;
			for (int k = 0; k < nc; k++)
				snprintf(clabels[k], GX_NAME_MAX, "%s", c.conds[k].name);
			gx_campaign_release(&c);
		}
		for (int a = 0; a < na; a++)
			names[a] = labels[a];
		for (int k = 0; k < nc; k++)
			cnames[k] = clabels[k];
		if ((ret = gx_expect_names(e, n, names, na, expect, &err)) < 0 ||
		    (ret = gx_expect_conds(e, n, cnames, nc, expect, &err)) < 0) {
			return refuse("check: %s", err.msg);
		}
	}
	return 0;
}

/* --junit FILE: the check as JUnit XML, written whole or not at all. */
static int write_junit(const struct gx_check *c, const char *expect, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		return -errno;
	ret = gx_check_write_junit(c, expect, f);
	if (fclose(f) != 0 && !ret)
		ret = -EIO;
	if (!ret)
		ret = gb_write_atomic(path, buf, len);
	free(buf);
	return ret;
}

/* --junit FILE's folder must exist and be writable before anything runs. */
static int junit_writable(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) ? (int)(slash - path) : 1,
			 path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		return refuse("check: --junit %s is a directory, not a file to write", path);
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK) != 0) {
		return refuse("check: --junit %s: its folder %s is not a writable directory", path,
			      dir);
	}
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	struct run_opts o;
	struct gx_expect *e = NULL;
	struct gx_summary s;
	struct gb_diag d;
	const char *expect = NULL;
	char dir[PATH_MAX];
	struct gb_err err = { "" };
	struct stat st;
	int r = parse_run_opts(argc, argv, &o, &expect), n, ret, status = 0;

	if (r)
		return r < 0 ? 0 : r;
	if ((r = misplaced(&o, "check")))
		return r;
	if (!expect) {
		return refuse("check: --expect EXPECT.yaml is required");
	}
	if (o.junit && (r = junit_writable(o.junit)))
		return r;
	if (gx_expect_load(expect, &e, &n, &d) < 0) {
		print_diag(&d);
		return 2;
	}
	if ((r = check_names(&o, expect, e, n))) {
		free(e);
		return r;
	}
	dir[0] = '\0';
	memset(&s, 0, sizeof(s));
	if (o.nfiles > 1) {
		for (int i = 0; i < o.nfiles; i++)
			if (stat(o.files[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
				free(e);
				return refuse("check: '%s' is not a results directory (several "
					      "arguments are results directories to pool)",
					      o.files[i]);
			}
		ret = gx_report_pool(o.files, o.nfiles, NULL, &s, &err);
	} else {
		if (stat(o.file, &st) == 0 && S_ISDIR(st.st_mode)) {
			snprintf(dir, sizeof(dir), "%s", o.file);
		} else {
			status = do_run(&o, dir, sizeof(dir));
			/* --dry-run ran nothing: there is nothing to check */
			if (status == 0 && o.dry) {
				free(e);
				return 0;
			}
			if (status == 2 || status >= 128) {
				free(e);
				return status;
			}
		}
		ret = gx_report(dir, 0, NULL, &s, &err);
	}
	if (ret < 0) {
		free(e);
		return refuse("%s", err.msg);
	}
	struct gx_check_opts co = { o.level, o.resamples, o.ci_seed };
	struct gx_check c;

	ret = gx_expect_eval(e, n, &s, &co, &c, &err);
	gx_summary_release(&s);
	free(e);
	if (ret < 0) {
		return refuse("%s: %s", expect, err.msg);
	}
	if (o.junit && (ret = write_junit(&c, expect, o.junit)) < 0) {
		warnx("check: cannot write %s: %s", o.junit, strerror(-ret));
		gx_check_release(&c);
		return 2;
	}
	if (o.tap) {
		gx_check_write_tap(&c, stdout);
	} else {
		gx_check_write_text(&c, stdout);
		printf("%d expectation%s failed\n", c.failures, c.failures == 1 ? "" : "s");
	}
	ret = c.failures;
	gx_check_release(&c);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		return refuse("which command? (run, report, check, slurm, keep, calibrate; see "
			      "gridexp --help)");
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "slurm"))
		return cmd_slurm(argc - 1, argv + 1);
	if (!strcmp(argv[1], "keep"))
		return cmd_keep(argc - 1, argv + 1);
	if (!strcmp(argv[1], "calibrate"))
		return cmd_calibrate(argc - 1, argv + 1);
	return refuse("unknown command '%s' (run, report, check, slurm, keep, calibrate)", argv[1]);
}
