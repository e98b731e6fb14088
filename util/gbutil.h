/* SPDX-License-Identifier: MIT */
/*
 * gbutil.h - libgbutil: the few helpers every part of gridbed shares, so
 * that none writes its own: the one clock, the random generator, sorting
 * and medians, file helpers (mkdir -p, rm -r, atomic writes), and the one
 * refusal of bad input on a command line.  Plain C and libc, no other
 * dependency; the lowest layer (topologies/ builds on it, and so does
 * everything else).
 *
 * Conventions: functions return 0 or a negative errno and print nothing,
 * except gb_refuse(), which is for command lines.  What went wrong in words
 * travels in a struct gb_err (below), the one carrier of every library
 * (docs/architecture.md, "One error convention for library code").
 */
#ifndef GRIDBED_GBUTIL_H
#define GRIDBED_GBUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the error carrier (err.c) ----------------------------------------- */

/**
 * GB_ERR_MAX - the room of a struct gb_err's message: a whole PATH_MAX path
 * (4096) and the words around it, so that no message that quotes a file is
 * cut (the buffers it replaced held up to 4608 bytes).
 */
#define GB_ERR_MAX 4608

/**
 * struct gb_err - what a failing call explains to its caller: one line, no
 * newline, for a command line to print (library code never prints).  A
 * library function that can fail for a reason a user must read takes an
 * optional `struct gb_err *` (NULL: the caller wants no words), returns a
 * negative errno, and fills it.  A parse of an input file says where
 * instead, in a struct gb_diag (topologies/gbtopo.h), which
 * gb_diag_err() turns into a gb_err.
 */
struct gb_err {
	char msg[GB_ERR_MAX];
};

/** gb_err_set() - printf into @e; nothing when @e is NULL. */
__attribute__((format(printf, 2, 3))) void gb_err_set(struct gb_err *e, const char *fmt, ...);

/** gb_err_vset() - gb_err_set() with a va_list (for a library's own wrapper). */
__attribute__((format(printf, 2, 0))) void gb_err_vset(struct gb_err *e, const char *fmt,
							va_list ap);

/* ---- the clock (clock.c) ------------------------------------------------ */

/** gb_now() - CLOCK_MONOTONIC in seconds: the one clock (docs/architecture.md, decision 4). */
double gb_now(void);

/** gb_now_ns() - the same clock in nanoseconds. */
int64_t gb_now_ns(void);

/**
 * gb_utc_iso() - the wall clock now as "2026-11-26T04:05:06Z" into @buf
 * (21 bytes or more): what records say, never what durations use.
 * Return: @buf.
 */
char *gb_utc_iso(char *buf, size_t len);

/**
 * gb_env_dilation() - the time dilation k of the grid a program runs on,
 * from $GRIDBED_DILATE (set by `gridemu mpirun`; docs/architecture.md, decision
 * 9): 1 when unset or empty.  A program on a dilated grid divides every
 * duration it reports by k (and stretches its own schedule by k).
 * Return: 0, or -EINVAL when the variable is not a number in [1, 1000]
 * (*@k is then 1).
 */
int gb_env_dilation(double *k);

/* ---- random numbers (rng.c) --------------------------------------------- */

/**
 * struct gb_rng - xoshiro256** (Blackman & Vigna, 2018).  Every random
 * choice in gridbed (planners, load schedules, the delay line's loss and
 * jitter) draws from one, so that a seed means the same result on every
 * libc.  Each user seeds it its own way (gb_rng_seed(), or its own streams
 * through gb_splitmix64()); the draws are shared.
 */
struct gb_rng {
	uint64_t s[4];
};

/** gb_splitmix64() - the next output of splitmix64 with state *@x (seeding). */
uint64_t gb_splitmix64(uint64_t *x);

/** gb_rng_seed() - seed from one 64-bit value (0 included) through splitmix64. */
void gb_rng_seed(struct gb_rng *r, uint64_t seed);

/** gb_rng_next() - the next 64 random bits. */
uint64_t gb_rng_next(struct gb_rng *r);

/** gb_rng_uniform() - uniform double in [0, 1), 53 random bits. */
double gb_rng_uniform(struct gb_rng *r);

/** gb_rng_range() - uniform double in [lo, hi). */
double gb_rng_range(struct gb_rng *r, double lo, double hi);

/** gb_rng_below() - uniform integer in [0, n), unbiased (Lemire); 0 when n == 0. */
uint32_t gb_rng_below(struct gb_rng *r, uint32_t n);

/* ---- samples (stats.c) -------------------------------------------------- */

/** gb_sort_doubles() - sort @n doubles in place, ascending (no NaN among them). */
void gb_sort_doubles(double *v, size_t n);

/**
 * gb_median() - the median of @n samples: the middle one, or the mean of
 * the two middle ones; NAN when @n is 0.  Sorts @v in place.
 */
double gb_median(double *v, size_t n);

/* ---- files (files.c) ---------------------------------------------------- */

/** gb_mkdir_p() - create @path and its missing parents with @mode; 0 if it exists. */
int gb_mkdir_p(const char *path, mode_t mode);

/**
 * gb_rmtree() - remove @path and everything below it, not following
 * symbolic links; 0 when it does not exist.  Returns the first error.
 */
int gb_rmtree(const char *path);

/** gb_write_full() - write all @len bytes to @fd, retrying on EINTR; 0 or -errno. */
int gb_write_full(int fd, const void *buf, size_t len);

/** gb_read_full() - read exactly @len bytes; 0, -EPIPE at end of file, or -errno. */
int gb_read_full(int fd, void *buf, size_t len);

/**
 * gb_write_atomic() - replace @path with @len bytes of @buf: written to a
 * temporary file next to it, flushed to disk, then renamed over it, so that
 * a reader or a crash never sees a truncated file (docs/architecture.md, decision
 * 7).  Mode 0644.
 */
int gb_write_atomic(const char *path, const void *buf, size_t len);

/**
 * gb_write_file() - gb_write_atomic() without the @path length check, and
 * with the flush to disk only when @sync is set.  0 or -errno.
 */
int gb_write_file(const char *path, const void *buf, size_t len, int sync);

/**
 * gb_atomic_open() - a stream onto a new temporary file "@path.XXXXXX" next
 * to @path (mode 0644), for an atomic write made piece by piece; *@tmp gets
 * its name.  Return: the stream, or NULL with errno set (*@tmp NULL).
 */
FILE *gb_atomic_open(const char *path, char **tmp);

/**
 * gb_atomic_close() - finish gb_atomic_open()'s write: flush, fsync when
 * @sync, close, and rename *@tmp over @path.  @err is an error already met
 * while writing (-errno, or 0): then, as on any failure here, the temporary
 * file is removed and @path is left as it was.  Frees @tmp.
 * Return: @err, or 0 or -errno.
 */
int gb_atomic_close(FILE *f, char *tmp, const char *path, int sync, int err);

/* ---- processes and signals (proc.c) ------------------------------------ */

/**
 * gb_find_in_path() - the executable @prog, searched in PATH as execvp()
 * does (a @prog with a '/' is taken as it is), into @out.
 * Return: 0, or -ENOENT / -errno when there is none.
 */
int gb_find_in_path(const char *prog, char *out, size_t len);

/** gb_kill_reap() - if @pid > 0, SIGKILL it and wait for it (no zombie left). */
void gb_kill_reap(pid_t pid);

/** gb_close_pipe() - close both ends of @fd that are open (>= 0). */
void gb_close_pipe(int fd[2]);

/**
 * gb_catch_signals() - @handler for SIGINT and SIGTERM, and SIGHUP when
 * @hup, with no SA_RESTART: a sleep or a blocking call the signal
 * interrupts ends (EINTR), so the caller's loop sees the flag @handler
 * sets.
 */
void gb_catch_signals(void (*handler)(int), int hup);

/* ---- command lines (cli.c) --------------------------------------------- */

/** The exit status of bad input, for every command (docs/exit-status.md). */
#define GB_EXIT_USAGE 2

/**
 * gb_refuse() - the one refusal of bad input that every command line makes
 * (issue 49; docs/exit-status.md): one line on stderr, "PROG: " and the
 * message, which names the place (the option, the value, FILE:LINE:COL),
 * and nothing else; no usage.  For main() programs only: the one function
 * here that prints.  Whatever the command started before it found the
 * fault, the caller undoes before it exits with the status.
 * Return: GB_EXIT_USAGE, the status to exit with.
 */
__attribute__((format(printf, 2, 3))) int gb_refuse(const char *prog, const char *fmt, ...);

/** gb_vrefuse() - gb_refuse() with a va_list (for a command's own wrapper). */
__attribute__((format(printf, 2, 0))) int gb_vrefuse(const char *prog, const char *fmt,
						      va_list ap);

/**
 * gb_git_revision() - `git describe --always --dirty` of the source tree
 * when this binary was built ("unknown" outside git): what results record
 * as the revision that made them.  Generated at every build
 * (util/gitrev.cmake), so a rebuild without reconfiguring still says it.
 */
const char *gb_git_revision(void);

#ifdef __cplusplus
}
#endif
#endif
