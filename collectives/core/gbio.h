/* SPDX-License-Identifier: MIT */
/*
 * gbio.h - libgbcore's file helpers, public for the other folders: atomic
 * JSON writes, JSON loading, tree files, CSV fields and error strings.
 * Used by the planners' tools, the advisor, libgridbcast and gridexp.
 */
#ifndef GRIDBED_GBIO_H
#define GRIDBED_GBIO_H

#include <jansson.h>
#include <stdio.h>

#include "gbcore.h"

/**
 * gb_json_save_atomic() - dump @j to "@path.XXXXXX" next to @path, fsync,
 * then rename over @path, so that readers never see a truncated file
 * (docs/architecture.md, decision 7).  @path "-" writes to stdout instead.
 * Return: 0 or -errno.
 */
int gb_json_save_atomic(const json_t *j, const char *path);

/**
 * gb_json_load_file() - parse a JSON file.  On failure returns NULL with *ret
 * = -errno when the file cannot be read, -EINVAL (and @je filled) when it
 * is not JSON.
 */
json_t *gb_json_load_file(const char *path, json_error_t *je, int *ret);

/**
 * gb_json_load_err() - gb_json_load_file() with its failure written into
 * @e ("FILE:LINE:COL: what" for bad JSON, "cannot open 'FILE': why").
 * Return: the document, or NULL with *ret = -errno or -EINVAL.
 */
json_t *gb_json_load_err(const char *path, int *ret, struct gb_err *e);

/**
 * gb_tree_to_json() - the tree file's object (docs/formats.md) of @t over
 * @m's node names, with its predictions for @size; gb_tree_save_json() is
 * this plus the atomic write.  Writers that add keys of their own (the
 * advisor's tree files) start from it.  Return: a new reference, or NULL
 * (bad arguments, no memory).
 */
json_t *gb_tree_to_json(const struct gb_tree *t, const struct gb_netmodel *m, const char *algo,
			double size);

/**
 * gb_tree_from_json() - gb_tree_load_json() on an object already parsed
 * (@path only names it in errors).
 */
int gb_tree_from_json(struct gb_tree *t, const struct gb_netmodel *m, const json_t *root,
		      const char *path, struct gb_err *e);

/**
 * gb_nm_to_json() - the matrix file's object (docs/formats.md) of @m;
 * gb_nm_save_json() is this plus the atomic write.  Return: a new
 * reference, or NULL (no memory).
 */
json_t *gb_nm_to_json(const struct gb_netmodel *m);

/**
 * gb_nm_from_json() - gb_nm_load_json() on an object already parsed (@path
 * only names it in errors).  @m is zeroed first; release with gb_nm_release().
 */
GB_WUR int gb_nm_from_json(struct gb_netmodel *m, const json_t *root, const char *path,
			   struct gb_err *e);

/**
 * gb_csv_field() - write @s as one CSV field (RFC 4180): as it is, or in
 * double quotes (inner quotes doubled) when it holds a comma, a quote or a
 * newline.  Shared by the programs that write result CSVs (gridbcast,
 * synthapp).
 */
void gb_csv_field(FILE *f, const char *s);

#endif
