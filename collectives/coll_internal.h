/* SPDX-License-Identifier: MIT */
/*
 * coll_internal.h - helpers shared by the files of libgridcoll, not part of
 * its API.
 */
#ifndef GRIDBED_COLL_INTERNAL_H
#define GRIDBED_COLL_INTERNAL_H

#include <jansson.h>
#include <stdio.h>

#include "gbcoll.h"

/**
 * gb_json_save_atomic() - dump @j to "@path.XXXXXX" next to @path, fsync,
 * then rename over @path, so that readers never see a truncated file
 * (ARCHITECTURE.md decision 7).  @path "-" writes to stdout instead.
 * Return: 0 or -errno.
 */
int gb_json_save_atomic(const json_t *j, const char *path);

/**
 * gb_json_load_file() - parse a JSON file.  On failure returns NULL with *ret
 * = -errno when the file cannot be read, -EINVAL (and @je filled) when it
 * is not JSON.
 */
json_t *gb_json_load_file(const char *path, json_error_t *je, int *ret);

/** gb_errf() - snprintf into an optional error buffer. */
__attribute__((format(printf, 3, 4)))
void gb_errf(char *err, size_t errlen, const char *fmt, ...);

#endif
