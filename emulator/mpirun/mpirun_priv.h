/* SPDX-License-Identifier: MIT */
/*
 * mpirun_priv.h - what the three programs of `gridemu mpirun` share.  Not an
 * API: mpirun.h is.
 *
 * One gridemu binary plays three roles in a job (mpirun.h draws the tree):
 *
 *   mpirun.c          gb_cmd_mpirun(): picks the role from the first argument
 *   mpirun_launch.c   the launcher, what the user runs: options, the job's
 *                     hosts and rank map, mpirun's command line, the end
 *   mpirun_run.c      the launcher's watch over the running job: mpirun in
 *                     the management namespace, signals and timeouts, its
 *                     stderr, the sweep of the job's processes, the verdict
 *   mpirun_agent.c    "--gb-agent": OpenMPI's plm_rsh_agent (the ssh stand-in)
 *   mpirun_rank.c     "--gb-rank": the wrapper that orted starts for each rank
 *   mpirun_job.c      the job's files as every role reads and writes them:
 *                     the rank map DIR.json and the rank statuses DIR/status/N
 *
 * Each role is a separate process.  They share the job directory (its path
 * is on the agent's and the wrapper's command lines), those files, and the
 * environment: GRIDBED_JOB, GRIDBED_PRELOAD, and GRIDBED_NODE, which the
 * agent sets for orted and so for the wrapper.
 */
#ifndef GRIDBED_MPIRUN_PRIV_H
#define GRIDBED_MPIRUN_PRIV_H

#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "gbemu.h"

/** The name every message of the job starts with. */
#define ME "gridemu mpirun"
/** Every process of a job carries JOB_ENV=<job id>: the cleanup's mark. */
#define JOB_ENV "GRIDBED_JOB"

/* Exit statuses (mpirun.h). */
#define EX_OK 0
#define EX_FAIL 1
#define EX_USAGE 2
#define EX_TIMEOUT 124

/** say() - "gridemu mpirun: <message>" on stderr (the launcher's reporter). */
__attribute__((format(printf, 1, 2))) static inline void say(const char *fmt, ...)
{
	va_list ap;
	char buf[1024];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, ME ": %s\n", buf);
}

/* ------------------------------------------------------------------ */
/* A growable NULL-terminated vector of owned strings                   */
/* ------------------------------------------------------------------ */

/**
 * struct strv - an argv under construction: @v[@n] is always NULL once
 * something was pushed, so @v goes to execv() as is.  Zero-initialised is
 * empty; out of memory aborts (these are command lines, not data).
 */
struct strv {
	char **v;       /* the strings, NULL-terminated */
	int n, cap;     /* strings in v; slots allocated */
};

/** strv_push() - append a copy of @str. */
static inline void strv_push(struct strv *s, const char *str)
{
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = realloc(s->v, (size_t)s->cap * sizeof(*s->v));
		if (!s->v)
			abort();
	}
	s->v[s->n] = strdup(str);
	if (!s->v[s->n])
		abort();
	s->v[++s->n] = NULL;
}

/** strv_pushf() - append a formatted string. */
__attribute__((format(printf, 2, 3))) static inline void strv_pushf(struct strv *s,
								     const char *fmt, ...)
{
	va_list ap;
	char *str = NULL;
	va_start(ap, fmt);
	if (vasprintf(&str, fmt, ap) < 0)
		abort();
	va_end(ap);
	strv_push(s, str);
	free(str);
}

/** strv_release() - free everything; @s is empty again (safe to call twice). */
static inline void strv_release(struct strv *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

/* ------------------------------------------------------------------ */
/* The job's files (mpirun_job.c)                                       */
/* ------------------------------------------------------------------ */

/*
 * DIR is the job directory $rundir/mpirun-J; the rank map is DIR.json.
 * Rank statuses: DIR/status/<rank> = "KIND VALUE T", KIND one of exit,
 * signal, misplaced, noexec, T the CLOCK_MONOTONIC nanoseconds when the
 * rank wrapper saw the end.  The wrapper writes them, the launcher reads.
 */

/** How a rank ended, as its wrapper recorded it; END_NONE: no record. */
enum rank_end { END_NONE = 0, END_EXIT, END_SIGNAL, END_MISPLACED, END_NOEXEC };

struct rank_status {
	enum rank_end kind;
	int value;      /* exit status, signal number, or errno of exec (noexec) */
	int64_t t_ns;   /* CLOCK_MONOTONIC when the wrapper saw the end */
};

/**
 * mpirun_read_status() - the status of @rank in job directory @dir into @rs
 * (zeroed first).  Return: 0, -EINVAL if the file is malformed, or -errno
 * (-ENOENT: the rank has not ended, or has no wrapper).
 */
int mpirun_read_status(const char *dir, int rank, struct rank_status *rs);

/**
 * mpirun_write_status() - record that @rank ended as @kind ("exit",
 * "signal", "misplaced", "noexec") with @value, stamped now; atomic, so the
 * launcher never reads half a line.  Return: 0 or -errno.
 */
int mpirun_write_status(const char *dir, int rank, const char *kind, int value);

/**
 * mpirun_write_json() - write @j to @path atomically (docs/architecture.md
 * decision 7), indented by 2, keys in insertion order.  Return: 0 or -errno.
 */
int mpirun_write_json(json_t *j, const char *path);

/** mpirun_load_map() - the rank map of job directory @dir (DIR.json), or NULL. */
json_t *mpirun_load_map(const char *dir);

/**
 * mpirun_map_str() - the string @key ("host", "netns", "mgmt", ...) of
 * @rank's entry in @map; "?" when there is none.  Borrowed from @map.
 */
const char *mpirun_map_str(json_t *map, int rank, const char *key);

/* ------------------------------------------------------------------ */
/* The roles (gb_cmd_mpirun() without its first argument)              */
/* ------------------------------------------------------------------ */

/** mpirun_agent_main() - "--gb-agent JOBDIR HOST CMD...": exits 255 on its own errors. */
int mpirun_agent_main(int argc, char **argv);

/** mpirun_rank_main() - "--gb-rank JOBDIR PROG ARGS...": PROG's exit status. */
int mpirun_rank_main(int argc, char **argv);

/** mpirun_launch_main() - the launcher, argv[0] "mpirun": the exit status of mpirun.h. */
int mpirun_launch_main(int argc, char **argv);

/* ------------------------------------------------------------------ */
/* The launcher: mpirun_launch.c sets up, mpirun_run.c runs and judges  */
/* ------------------------------------------------------------------ */

/** The launcher's command line (see usage() in mpirun_launch.c). */
struct opts {
	int n;                  /* ranks; 0 = all hosts (or all of --hosts) */
	const char *hosts;      /* comma-separated host names, or NULL */
	const char *prefix;     /* --prefix: the grid's prefix, or NULL (GRIDBED_PREFIX) */
	struct strv mca;        /* K, V, K, V... */
	struct strv xenv;       /* NAME or NAME=VALUE */
	struct strv extra;      /* raw mpirun arguments */
	const char *preload;    /* --preload LIB for the ranks only, or NULL */
	const char *rsh;        /* --rsh CMD: reaches the peer machine's hosts */
	double timeout;         /* seconds; 0 = none */
	double grace;           /* seconds between SIGTERM and SIGKILL */
	int keep, verbose;      /* --keep the job directory; --verbose */
	char **prog;            /* PROG ARGS..., NULL-terminated */
};

/**
 * struct job - one job, filled by the launcher's prepare() from the grid
 * (which is closed again before the job runs).  mgmt_fd is -1 and the
 * pointers NULL when unset; job_release() frees them.
 */
struct job {
	char id[48];            /* "YYYYmmdd-HHMMSS-PID", the value of JOB_ENV */
	char dir[PATH_MAX];     /* $rundir/mpirun-ID: tmp/, status/ */
	char map[PATH_MAX];     /* $rundir/mpirun-ID.json */
	char exe[PATH_MAX];     /* this gridemu, re-invoked as agent and wrapper */
	char mpirun[PATH_MAX];  /* the mpirun binary (PATH or GRIDBED_MPIRUN) */
	char rundir_base[PATH_MAX]; /* $GRIDBED_RUNDIR, for the ranks */
	char prefix[GB_PREFIX_MAX + 1]; /* the grid's prefix */
	double dilate;          /* the grid's time dilation k (dilate.h), for the ranks */
	char data_cidr[32], mgmt_cidr[32]; /* the grid's blocks, "A.B.C.D/N" */
	int n;                  /* ranks */
	int *node;              /* rank -> topology node */
	struct strv mgmt;       /* rank -> management address */
	unsigned long *inos;    /* the grid's namespaces (nodes and mgmt) */
	int ninos;              /* entries of inos */
	int mgmt_fd;            /* the management namespace, where mpirun runs */
	json_t *mapj;           /* the rank map as written, completed at the end */
	int64_t t0;             /* gb_now_ns() when the launcher started */
};

/* What mpirun said about the first failure (its help texts, 4.1). */
struct report {
	int rank;         /* -1: none */
	int code;         /* exit code or MPI_Abort error code, -1 unknown */
	int signal;       /* the signal that killed rank, 0 unknown */
	int improper;     /* "exiting improperly": no MPI_Finalize */
	int aborted;      /* MPI_Abort */
	int want_code;    /* the next "Exit code:" / "with errorcode" belongs to rank */
};

/** Why the launcher stopped the job, when it did (else a signal number > 0). */
enum why { WHY_NONE = 0, WHY_TIMEOUT = -1, WHY_HUNG = -2 };

/** struct run - how mpirun ran, for the verdict. */
struct run {
	pid_t pid;        /* mpirun's */
	int status;       /* mpirun's wait status, when done */
	int done;         /* mpirun was reaped: status and end_ns are valid */
	int why;          /* WHY_* or the signal that interrupted us */
	int64_t end_ns;   /* when mpirun was reaped */
	struct report rep; /* what its stderr said */
};

/**
 * mpirun_run_job() - run mpirun with argument vector @av (av[0] the binary)
 * in the management namespace, relaying and parsing its stderr, until it
 * ends; stop it on SIGINT/SIGTERM/SIGHUP, at --timeout, or when a rank
 * failed and mpirun does not end the job.  Fills @run.
 * Return: 0 when mpirun ran (whatever its result), EX_FAIL if it could not
 * be started.
 */
int mpirun_run_job(const struct opts *o, const struct job *j, char **av, struct run *run);

/**
 * mpirun_sweep() - SIGTERM the job's processes left in the grid (marked
 * with JOB_ENV), then SIGKILL what is left after @grace seconds.
 * Return: how many there were.
 */
int mpirun_sweep(const struct job *j, double grace);

/**
 * mpirun_verdict() - name the failing rank and its host (or the timeout, or
 * the signal) on stderr, nothing when the job succeeded, and complete the
 * rank map with every rank's end and the job's result.
 * Return: the launcher's exit status.
 */
int mpirun_verdict(const struct opts *o, const struct job *j, const struct run *run);

#endif /* GRIDBED_MPIRUN_PRIV_H */
