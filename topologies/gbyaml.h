/* SPDX-License-Identifier: MIT */
/*
 * gbyaml.h - the libyaml plumbing shared by gridbed's file parsers:
 * topology files (topo_parse.c), load schedules (loadgen/schedule_yaml.c),
 * campaign and expectation files (experiments/campaign.c).
 *
 * Every parser reports the first error as a struct gb_diag
 * "file:line:col: message" that points at the offending key or value, and
 * quotes the user's text safely.  What they share is here, so that the
 * three give the same kind of message for the same kind of mistake:
 *
 *	struct gb_yaml y;
 *	gb_yaml_init(&y, "camp.yaml", diag, "a campaign");
 *	if ((err = gb_yaml_load(&y, buf, len)) < 0) ...   syntax errors, one document
 *	root = gb_yaml_root(&y);
 *	gb_yaml_check_map(&y, root, NULL, keys)            unknown / duplicate keys
 *	v = gb_yaml_get(&y, root, "name"); gb_yaml_str(v)
 *	return gb_yaml_fail(&y, v, "name '%s' is ...", gb_yaml_quote(&y, s));
 *	gb_yaml_release(&y);
 *
 * Conventions: functions return 0 or a negative errno and print nothing;
 * the fail functions fill the diagnostic and return -EINVAL, so a parser
 * stops at the first error with `return gb_yaml_fail(...)` at any depth.
 */
#ifndef GRIDBED_GBYAML_H
#define GRIDBED_GBYAML_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "gbtopo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Line and column (1-based) where node @n starts. */
#define GB_YLINE(n) ((int)(n)->start_mark.line + 1)
#define GB_YCOL(n) ((int)(n)->start_mark.column + 1)

/**
 * struct gb_yaml - one document being parsed, and where its errors go.
 * @file:     the name used in diagnostics (borrowed)
 * @diag:     the diagnostic to fill, or NULL
 * @what:     the top-level subject for messages, e.g. "a topology"
 * @key_hint: optional; for an unknown key, a hint to append in parentheses
 *            (NULL for none), e.g. topology links' per-direction keys
 */
struct gb_yaml {
	const char *file;
	struct gb_diag *diag;
	const char *what;
	const char *(*key_hint)(const char *key);
	yaml_document_t doc;
	bool have_doc;
	char q[4][64];          /* gb_yaml_quote()'s ring: four quotes per message */
	int qi;
};

/** gb_yaml_init() - an empty parser state; @diag is cleared. */
void gb_yaml_init(struct gb_yaml *y, const char *file, struct gb_diag *diag, const char *what);

/**
 * gb_yaml_load() - parse @buf (@len bytes) as exactly one YAML document.
 * Syntax errors become "yaml syntax error: PROBLEM (CONTEXT)" at the
 * problem's place (reader errors, which libyaml gives as a byte offset,
 * are converted to line and column); a second document is an error.
 * An empty stream loads as a document without a root (gb_yaml_root() is
 * NULL): the caller says what was expected.
 * Return: 0, -EINVAL (@diag filled) or -ENOMEM.
 */
GB_WUR int gb_yaml_load(struct gb_yaml *y, const char *buf, size_t len);

/** gb_yaml_root() - the document's root node, or NULL (empty). */
yaml_node_t *gb_yaml_root(struct gb_yaml *y);

/** gb_yaml_release() - free the document; idempotent. */
void gb_yaml_release(struct gb_yaml *y);

/**
 * gb_yaml_fail_at() - record "file:line:col: message" in @y->diag (if
 * any) and return -EINVAL.
 */
__attribute__((format(printf, 4, 5)))
int gb_yaml_fail_at(struct gb_yaml *y, int line, int col, const char *fmt, ...);

/** gb_yaml_fail() - the same at node @n's place (NULL: line 0, column 0). */
__attribute__((format(printf, 3, 4)))
int gb_yaml_fail(struct gb_yaml *y, const yaml_node_t *n, const char *fmt, ...);

/**
 * gb_yaml_quote() - @s made safe to quote in a one-line message: control
 * characters become '?', a long text is cut with "...".  The result lives
 * in a ring of four buffers in @y.
 */
const char *gb_yaml_quote(struct gb_yaml *y, const char *s);

/** gb_yaml_qbuf() - the next buffer of the ring (64 bytes), for a caller's own text. */
char *gb_yaml_qbuf(struct gb_yaml *y);

/** gb_yaml_node() - node @id of the document. */
yaml_node_t *gb_yaml_node(const struct gb_yaml *y, int id);

/** gb_yaml_str() - the text of a scalar node, NULL for anything else (or NULL). */
const char *gb_yaml_str(const yaml_node_t *n);

/** gb_yaml_is_null() - a plain scalar spelling null: "", "~", "null", "Null", "NULL". */
bool gb_yaml_is_null(const yaml_node_t *n);

/**
 * gb_yaml_kind() - what @n is, for "expected X, got Y": "a list",
 * "a mapping", "nothing" or the quoted scalar.
 */
const char *gb_yaml_kind(struct gb_yaml *y, const yaml_node_t *n);

/**
 * gb_yaml_refuse_aliases() - refuse anchors and aliases (a tiny file could
 * describe a huge one) and scalars with an embedded NUL (parsers read C
 * strings).  In libyaml's document an alias is a node id referenced twice,
 * so counting references over the node array finds them in O(nodes).
 */
int gb_yaml_refuse_aliases(struct gb_yaml *y);

/**
 * gb_yaml_check_map() - @n is a mapping whose keys are distinct scalars
 * from the NULL-terminated @allowed.  @subject prefixes messages
 * ("cluster 'c1'"); NULL means the top level (@y->what).
 */
int gb_yaml_check_map(struct gb_yaml *y, const yaml_node_t *n, const char *subject,
		      const char *const *allowed);

/** gb_yaml_get() - the value under @key in mapping @n, or NULL. */
yaml_node_t *gb_yaml_get(const struct gb_yaml *y, const yaml_node_t *n, const char *key);

/**
 * gb_yaml_list() - the items of list value @v ("'@what' must be a list"
 * otherwise); a missing or null @v is an empty list (*@items = NULL).
 */
int gb_yaml_list(struct gb_yaml *y, const yaml_node_t *v, const char *what,
		 yaml_node_item_t **items, int *n);

/**
 * gb_tcp_parse() - a `tcp:` mapping (docs/topology-format.md, "The hosts'
 * TCP stack") of @subject ("topology", "cluster 'c1'", "load condition
 * 'x'") into @out, which the caller zeroed.  Return: 0 or -EINVAL with the
 * diagnostic in @y.  (topologies/topo_tcp.c)
 */
int gb_tcp_parse(struct gb_yaml *y, const yaml_node_t *n, const char *subject,
		 struct gb_tcp_set *out);

/**
 * gb_read_file() - read a whole regular file of at most @max bytes into a
 * new NUL-terminated buffer (*@buf, free() it; *@len without the NUL).
 * Return: 0, -EISDIR, -EFBIG (not a regular file, or too big), -ENOMEM or
 * -errno of open/read.
 */
GB_WUR int gb_read_file(const char *path, size_t max, char **buf, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
