/* SPDX-License-Identifier: MIT */
/*
 * gxfile.h - atomic file writes for the campaign's results (docs/architecture.md
 * decision 7: a crash never leaves a truncated file), shared by gridexp and
 * the synthetic application.
 */
#ifndef GRIDBED_GXFILE_H
#define GRIDBED_GXFILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * gx_write_file() - write @len bytes to "@path.XXXXXX" next to @path, then
 * rename it over @path, so that a reader (or a crash) sees the old file or
 * the new one, never a part.  @sync: fsync before the rename, so that the
 * new content also survives a power cut (the application skips it between
 * broadcasts and syncs its last write).  Return: 0 or -errno.
 */
int gx_write_file(const char *path, const void *buf, size_t len, int sync);

/** gx_write_atomic() - gx_write_file() with fsync. */
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
