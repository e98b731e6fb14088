/* SPDX-License-Identifier: MIT */
/*
 * gxfile.h - atomic file writes for the campaign's results (docs/architecture.md
 * decision 7: a crash never leaves a truncated file), for gridexp (the
 * synthetic application calls gb_write_file() of util/gbutil.h itself).
 */
#ifndef GRIDBED_GXFILE_H
#define GRIDBED_GXFILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * gx_write_atomic() - write @len bytes to "@path.XXXXXX" next to @path,
 * fsync, then rename it over @path, so that a reader (or a crash, or a
 * power cut) sees the old file or the new one, never a part (gb_write_file()
 * of util/gbutil.h with its sync).  Return: 0 or -errno.
 */
int gx_write_atomic(const char *path, const void *buf, size_t len);

/** gx_copy_atomic() - copy file @from to @to atomically.  Return: 0 or -errno. */
int gx_copy_atomic(const char *from, const char *to);

/**
 * gx_dir_creatable() - whether directory @path (and its missing parents)
 * could be made, checked without making anything: its nearest existing
 * ancestor, @path itself included, must be a directory this process may
 * write into.  The place that fails goes into @bad (the ancestor's path).
 * Return: 0, -ENOTDIR (an ancestor is a file), -EACCES, or -errno of stat.
 */
int gx_dir_creatable(const char *path, char *bad, size_t badlen);

#ifdef __cplusplus
}
#endif
#endif
