// SPDX-License-Identifier: MIT
/*
 * gridexp_slurm.c - `gridexp slurm` (issue 17): a campaign's runs as a Slurm
 * job array, one run per task, on an engine users already run (docs/architecture.md
 * decision 11).  gridexp grows no scheduler: every step is a Slurm command.
 *
 *	the results directory, new or --resume's (prepare_out()), and meta.json
 *	    without a session: each task adds its own, with its node and task
 *	the tasks: run K of the campaign (meta.json "runs"[K]; task_run()) for
 *	    each selected run that is not complete; none left: the report alone
 *	slurm/job-<id>.sh, the batch script, kept for the record (sbatch copies
 *	    it): `exec gridexp run FILE --resume DIR --task $SLURM_ARRAY_TASK_ID`,
 *	    with --exclusive (a node per task: the run's timings are its own,
 *	    and the tasks of a single-node cluster take turns), its output in
 *	    slurm/<job>-<task>.out
 *	sbatch --parsable; meta.json "slurm" += {job, submitted, tasks: [{task,
 *	    run}]}
 *	until squeue lists none of the job's tasks: a progress line (runs
 *	    complete, tasks running and pending); SIGINT/SIGTERM/SIGHUP: scancel,
 *	    which sends each task's gridexp SIGTERM, and that tears its grid down
 *	    as a local run's does; wait for the tasks to leave, then report
 *	the fates: scontrol's state and exit code of every task, into the job's
 *	    entry of meta.json (the report says why a run is not complete)
 *	gridexp report (summary.json as a local run's, plus the incomplete runs)
 *
 * Choices where the issue is silent: a failed task fails nothing else; its
 * run stays incomplete, as a local run that could not complete does, so that
 * --resume submits it again.  The tasks run as the submitter (root: they
 * build namespaces), with the submitter's environment (sbatch's default),
 * so SLURM_CONF and GRIDBED_RUNDIR reach them.  gridbed must be built at
 * the same path on every node, and OUT-ROOT must be shared by them.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gbexp.h"
#include "gbio.h"
#include "gbutil.h"
#include "gridexp_priv.h"

#define POLL_S 2.0             /* squeue every 2 s */
#define MAX_TASKS 1001          /* Slurm's default MaxArraySize: task ids 0..1000 */

/* @s in single quotes for sh, its own single quotes as '\'' . */
static void sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* "0-3,5,7-8" from the ascending task ids @t[@n]. */
static void array_spec(const int *t, int n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++) {
		int j = i;

		while (j + 1 < n && t[j + 1] == t[j] + 1)
			j++;
		used += (size_t)snprintf(buf + used, len - used, j > i ? "%s%d-%d" : "%s%d",
					 i ? "," : "", t[i], t[j]);
		i = j;
	}
}

/* The batch script, slurm/job.sh (renamed after its job once submitted). */
static int write_script(const struct runner *R, const struct run_opts *o, const char *path,
			const char *array, const char *file, const char *out)
{
	char exe[PATH_MAX], *buf = NULL;
	size_t len = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f || n <= 0)
		return -ENOMEM;
	exe[n] = '\0';
	fprintf(f, "#!/bin/sh\n"
		"# gridexp slurm: campaign '%s', one run per array task; task K runs the\n"
		"# campaign's run K (meta.json \"runs\"[K]) into the results directory.\n"
		"#SBATCH --job-name=gridexp-%s\n"
		"#SBATCH --array=%s\n"
		"#SBATCH --nodes=1\n"
		"#SBATCH --ntasks=1\n"
		"#SBATCH --exclusive\n"
		"#SBATCH --output=%s/slurm/%%A-%%a.out\n", R->c.name, R->c.name, array, out);
	if (o->partition)
		fprintf(f, "#SBATCH --partition=%s\n", o->partition);
	if (o->time_limit)
		fprintf(f, "#SBATCH --time=%s\n", o->time_limit);
	fputs("exec ", f);
	sh_quote(f, exe);
	fputs(" run ", f);
	sh_quote(f, file);
	fputs(" --resume ", f);
	sh_quote(f, out);
	fputs(" --task \"$SLURM_ARRAY_TASK_ID\" --no-plots", f);
	if (o->prefix)
		fprintf(f, " --prefix %s", o->prefix);
	fputc('\n', f);
	if (fclose(f) == EOF) {
		free(buf);
		return -ENOMEM;
	}
	ret = gx_write_atomic(path, buf, len);
	free(buf);
	if (ret == 0 && chmod(path, 0755) < 0)
		ret = -errno;
	return ret;
}

/* meta.json "slurm" += @job (a reference taken), under the directory's lock. */
static int meta_add_job(const char *dir, json_t *job)
{
	char path[PATH_MAX];
	json_error_t je;
	int ret, lk = meta_lock(dir);
	json_t *m;

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	if (lk < 0) {
		json_decref(job);
		return lk;
	}
	if (!(m = gb_json_load_file(path, &je, &ret))) {
		meta_unlock(lk);
		json_decref(job);
		return ret;
	}
	if (!json_is_array(json_object_get(m, "slurm")))
		json_object_set_new(m, "slurm", json_array());
	json_array_append_new(json_object_get(m, "slurm"), job);
	ret = gb_json_save_atomic(m, path);
	meta_unlock(lk);
	json_decref(m);
	return ret;
}

/* The value of KEY= in scontrol's one-line record @rec, into @buf. */
static void field(const char *rec, const char *key, char *buf, size_t len)
{
	const char *p = rec;
	size_t kl = strlen(key);

	buf[0] = '\0';
	while ((p = strstr(p, key))) {
		if ((p == rec || p[-1] == ' ') && p[kl] == '=') {
			p += kl + 1;
			snprintf(buf, len, "%.*s", (int)strcspn(p, " \n"), p);
			return;
		}
		p += kl;
	}
}

/*
 * Every task's fate, from scontrol (the job stays there MinJobAge seconds
 * after its end, 300 by default): its state and exit code into the job's
 * entry of meta.json.  A task scontrol no longer knows gets "unknown".
 */
static void record_fates(const char *dir, const char *jobid, const int *task, int n)
{
	char path[PATH_MAX], id[64], rec[8192], st[64], ex[32], now[32];
	json_error_t je;
	int ret, lk;
	json_t *m, *jobs, *job = NULL, *t;
	size_t i, k;

	lk = meta_lock(dir);
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	if (lk < 0 || !(m = gb_json_load_file(path, &je, &ret))) {
		meta_unlock(lk);
		warnx("cannot record the tasks' fates in %s", path);
		return;
	}
	jobs = json_object_get(m, "slurm");
	json_array_foreach(jobs, i, t)
		if (!strcmp(json_string_value(json_object_get(t, "job")) ?: "", jobid))
			job = t;
	for (int x = 0; job && x < n; x++) {
		char *argv[] = { "scontrol", "-o", "show", "job", id, NULL };

		snprintf(id, sizeof(id), "%s_%d", jobid, task[x]);
		st[0] = ex[0] = '\0';
		if (run_capture(argv, rec, sizeof(rec), 0) == 0) {
			field(rec, "JobState", st, sizeof(st));
			field(rec, "ExitCode", ex, sizeof(ex));
		}
		json_array_foreach(json_object_get(job, "tasks"), k, t)
			if (json_integer_value(json_object_get(t, "task")) == task[x]) {
				json_object_set_new(t, "state", json_string(*st ? st : "unknown"));
				json_object_set_new(t, "exit", json_string(*ex ? ex : "?"));
			}
	}
	if (job)
		json_object_set_new(job, "ended", json_string(gb_utc_iso(now, sizeof(now))));
	if (gb_json_save_atomic(m, path) < 0)
		warnx("cannot update %s", path);
	meta_unlock(lk);
	json_decref(m);
}

/* The job's tasks that squeue still lists: *@run running, *@pend the others.  Return: 0, -1. */
static int queue_state(const char *jobid, int *run, int *pend)
{
	char *argv[] = { "squeue", "-h", "-r", "-j", (char *)jobid, "-o", "%K %T", NULL };
	char out[65536], *line, *save;
	int st = run_capture(argv, out, sizeof(out), 1);

	*run = *pend = 0;
	if (st != 0)            /* gone from slurmctld's memory: "Invalid job id" */
		return strstr(out, "Invalid job id") ? 0 : -1;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "RUNNING") || strstr(line, "COMPLETING"))
			(*run)++;
		else if (*line)
			(*pend)++;
	}
	return 0;
}

static int runs_complete(const struct runner *R, const int *task, int n)
{
	char p[PATH_MAX], id[128];
	int done = 0;

	for (int x = 0; x < n; x++) {
		int rep, c, a;

		task_run(&R->c, task[x], &rep, &c, &a);
		gx_run_id(&R->c, c, a, rep, id, sizeof(id));
		snprintf(p, sizeof(p), "%s/runs/%s/complete", R->out, id);
		done += exists(p);
	}
	return done;
}

/*
 * A job of this directory that has not ended (no "ended" in its meta.json
 * entry: its gridexp slurm was killed, or ran --no-wait) and is still in
 * the queue: its tasks would run the same runs.  Its id into @busy.
 * Return: 1 if there is one, 0 if none.
 */
static int job_still_queued(const char *dir, char *busy, size_t len)
{
	char path[PATH_MAX];
	json_error_t je;
	int ret, found = 0;
	json_t *m, *job;
	size_t i;

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	if (!(m = gb_json_load_file(path, &je, &ret)))
		return 0;
	json_array_foreach(json_object_get(m, "slurm"), i, job) {
		const char *id = json_string_value(json_object_get(job, "job"));
		int run, pend;

		if (!id || json_object_get(job, "ended"))
			continue;
		if (queue_state(id, &run, &pend) == 0 && run + pend > 0) {
			snprintf(busy, len, "%s", id);
			found = 1;
			break;
		}
	}
	json_decref(m);
	return found;
}

/* Waits for the job's tasks to leave the queue, with a progress line; scancel on a signal. */
static void follow(const struct runner *R, const char *jobid, const int *task, int n)
{
	char last[256] = "", line[256], el[32];
	double t0 = gb_now(), t_err = 0;
	int cancelled = 0, run, pend;

	for (;;) {
		if (got_signal && !cancelled) {
			char *argv[] = { "scancel", (char *)jobid, NULL };
			char out[1024];

			fprintf(stderr, "%s" ME ": signal %d: scancel %s; the tasks tear their grids "
				"down\n", R->tty ? "\n" : "", (int)got_signal, jobid);
			if (run_capture(argv, out, sizeof(out), 1) != 0)
				warnx("scancel %s failed: %s", jobid, out);
			cancelled = 1;
		}
		if (queue_state(jobid, &run, &pend) < 0) {
			if (gb_now() - t_err > 60) {
				warnx("squeue cannot say how job %s goes (is slurmctld up?); still "
				      "waiting (Ctrl-C: scancel)", jobid);
				t_err = gb_now();
			}
			nap(POLL_S);
			continue;
		}
		fmt_dur(gb_now() - t0, el, sizeof(el));
		snprintf(line, sizeof(line), "slurm job %s: %d of %d runs complete, %d running, "
			 "%d pending", jobid, runs_complete(R, task, n), n, run, pend);
		if (R->tty)
			fprintf(stderr, "\r" ME ": %s, %s   ", line, el);
		else if (strcmp(line, last))
			fprintf(stderr, ME ": %s (%s)\n", line, el);
		snprintf(last, sizeof(last), "%s", line);
		if (run + pend == 0)
			break;
		nap(POLL_S);
	}
	if (R->tty)
		fputc('\n', stderr);
}

int do_slurm(const struct run_opts *o)
{
	struct runner *R = calloc(1, sizeof(*R));
	static const char *const cmds[] = { "sbatch", "squeue", "scontrol", "scancel" };
	char file[PATH_MAX], out[PATH_MAX], script[PATH_MAX], path[PATH_MAX], array[8192];
	char sb[4096], jobid[64];
	struct gb_err err = { "" };
	int *task = NULL, n = 0, status = 0, failed = 0, ret;
	struct gx_summary s;
	json_t *tj;

	if (!R) {
		warnx("out of memory");
		return 1;
	}
	if ((status = runner_setup(R, o)) != 0)
		goto out;
	if (o->dry) {
		status = dry_run(R);
		goto out;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (gb_find_in_path(cmds[i], path, sizeof(path)) < 0) {
			warnx("'%s' is not in PATH: gridexp slurm needs Slurm's commands (Debian: "
			      "slurm-client)", cmds[i]);
			status = 2;
			goto out;
		}
	if (!realpath(o->file, file)) {
		warnx("%s: %s", o->file, strerror(errno));
		status = 2;
		goto out;
	}
	if ((ret = prepare_out(R, o->out_root, o->resume)) < 0) {
		status = ret == -2 ? 2 : 1;
		goto out;
	}
	if (!realpath(R->out, out)) {
		warnx("%s: %s", R->out, strerror(errno));
		status = 1;
		goto out;
	}
	snprintf(R->out, sizeof(R->out), "%s", out);
	if (strpbrk(out, " \t\n'\"")) {    /* sbatch's #SBATCH --output= line cannot quote it */
		warnx("the results directory '%s' has a blank or a quote in its path, which "
		      "sbatch's --output cannot take; give another --out-root", out);
		if (!o->resume)
			gb_rmtree(out);
		status = 2;
		goto out;
	}
	if (o->resume && job_still_queued(out, jobid, sizeof(jobid))) {
		warnx("--resume: slurm job %s of '%s' is still in the queue; wait for it "
		      "(squeue -j %s) or scancel it", jobid, out, jobid);
		status = 2;
		goto out;
	}
	if (write_meta(R, !o->resume, 0) < 0) {
		warnx("cannot write %s/meta.json", out);
		status = 1;
		goto out;
	}
	/* the tasks: the selected runs that are not complete */
	if (!(task = calloc(MAX_TASKS, sizeof(*task)))) {
		status = 1;
		goto out;
	}
	tj = json_array();
	for (int k = 0, rep, c, a; task_run(&R->c, k, &rep, &c, &a) == 0; k++) {
		char id[128];

		gx_run_id(&R->c, c, a, rep, id, sizeof(id));
		snprintf(path, sizeof(path), "%s/runs/%s/complete", out, id);
		if (!R->use[a] || exists(path))
			continue;
		if (k >= MAX_TASKS) {
			warnx("campaign '%s' has more runs than a job array's %d tasks", R->c.name,
			      MAX_TASKS);
			json_decref(tj);
			status = 2;
			goto out;
		}
		task[n++] = k;
		json_array_append_new(tj, json_pack("{s:i,s:s}", "task", k, "run", id));
	}
	if (!n) {
		json_decref(tj);
		fprintf(stderr, ME ": every run of campaign '%s' in %s is complete already\n",
			R->c.name, out);
		goto report;
	}
	array_spec(task, n, array, sizeof(array));
	snprintf(path, sizeof(path), "%s/slurm", out);
	gb_mkdir_p(path, 0755);
	snprintf(script, sizeof(script), "%s/slurm/job.sh", out);
	if ((ret = write_script(R, o, script, array, file, out)) < 0) {
		warnx("cannot write '%s': %s", script, strerror(-ret));
		json_decref(tj);
		status = 1;
		goto out;
	}
	catch_signals();        /* from here on a signal scancels what was submitted */
	{
		char *argv[] = { "sbatch", "--parsable", script, NULL };
		char *nl;

		ret = run_capture(argv, sb, sizeof(sb), 1);
		while ((nl = strrchr(sb, '\n')) && !nl[1])
			*nl = '\0';
		if (ret != 0) {
			warnx("sbatch failed (exit %d): %s", ret, *sb ? sb : "no message");
			json_decref(tj);
			if (!o->resume)        /* nothing was submitted: nothing is left */
				gb_rmtree(out);
			else
				unlink(script);
			status = 1;
			goto out;
		}
		/* the job id: the last line, "ID" or "ID;CLUSTER" */
		nl = strrchr(sb, '\n');
		snprintf(jobid, sizeof(jobid), "%.*s", (int)strcspn(nl ? nl + 1 : sb, ";"),
			 nl ? nl + 1 : sb);
	}
	snprintf(path, sizeof(path), "%s/slurm/job-%s.sh", out, jobid);
	if (rename(script, path) < 0)
		warnx("cannot rename '%s': %s", script, strerror(errno));
	meta_add_job(out, json_pack("{s:s,s:s,s:s,s:o}", "job", jobid, "submitted",
				    gb_utc_iso(sb, sizeof(sb)), "script", strrchr(path, '/') + 1, "tasks",
				    tj));
	fprintf(stderr, ME ": campaign '%s': slurm job %s, %d task%s (runs %s), results in %s\n",
		R->c.name, jobid, n, n == 1 ? "" : "s", array, out);
	if (o->no_wait) {
		fprintf(stderr, ME ": not waiting; follow it with 'squeue -j %s', and when it has "
			"ended: gridexp report %s\n", jobid, out);
		goto out;
	}
	follow(R, jobid, task, n);
	record_fates(out, jobid, task, n);
report:
	fputc('\n', stdout);
	memset(&s, 0, sizeof(s));
	if (gx_report(out, R->plots, stdout, &s, &err) < 0) {
		warnx("report: %s", err.msg);
		status = 1;
	}
	fflush(stdout);
	for (int a = 0; a < s.nalgos; a++)
		failed += s.a[a].failed_runs;
	gx_summary_release(&s);
	{
		int done = n ? runs_complete(R, task, n) : 0;

		if (done < n) {
			warnx("%d of the job's %d runs did not complete (summary.txt says why)",
			      n - done, n);
			status = status ? status : 1;
		}
	}
	if (got_signal)
		status = 128 + got_signal;
	else if (!status && failed)
		status = 1;
	fprintf(stderr, ME ": results in %s (%d run%s failed)\n", out, failed,
		failed == 1 ? "" : "s");
out:
	free(task);
	gx_campaign_release(&R->c);
	free(R);
	return status;
}
