// SPDX-License-Identifier: MIT
/*
 * yaml_diag.c - libyaml plumbing shared by the topology, load schedule and
 * campaign parsers (gbyaml.h): one document, "file:line:col: message"
 * diagnostics, safe quoting, mapping and list checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gbyaml.h"

void gb_yaml_init(struct gb_yaml *y, const char *file, struct gb_diag *diag, const char *what)
{
	memset(y, 0, sizeof(*y));
	y->file = file ? file : "<string>";
	y->diag = diag;
	y->what = what ? what : "a document";
	if (diag)
		memset(diag, 0, sizeof(*diag));
}

void gb_yaml_release(struct gb_yaml *y)
{
	if (y->have_doc)
		yaml_document_delete(&y->doc);
	y->have_doc = false;
}

int gb_yaml_fail_at(struct gb_yaml *y, int line, int col, const char *fmt, ...)
{
	va_list ap;

	if (!y->diag)
		return -EINVAL;
	snprintf(y->diag->file, sizeof(y->diag->file), "%s", y->file);
	y->diag->line = line;
	y->diag->col = col;
	va_start(ap, fmt);
	vsnprintf(y->diag->msg, sizeof(y->diag->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int gb_yaml_fail(struct gb_yaml *y, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	if (!y->diag)
		return -EINVAL;
	snprintf(y->diag->file, sizeof(y->diag->file), "%s", y->file);
	y->diag->line = n ? GB_YLINE(n) : 0;
	y->diag->col = n ? GB_YCOL(n) : 0;
	va_start(ap, fmt);
	vsnprintf(y->diag->msg, sizeof(y->diag->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

char *gb_yaml_qbuf(struct gb_yaml *y)
{
	return y->q[y->qi++ & 3];
}

const char *gb_yaml_quote(struct gb_yaml *y, const char *s)
{
	char *q = gb_yaml_qbuf(y);
	size_t i, max = sizeof(y->q[0]) - 4;

	if (!s)
		s = "";
	for (i = 0; s[i] && i < max; i++)
		q[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	if (s[i])
		memcpy(q + i, "...", 4);
	else
		q[i] = '\0';
	return q;
}

/* A syntax error at the parser's problem mark; reader errors (bad UTF-8)
 * carry a byte offset instead, converted here. */
static int parser_error(struct gb_yaml *y, const yaml_parser_t *p, const char *buf, size_t len)
{
	int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;

	if (p->error == YAML_MEMORY_ERROR)
		return -ENOMEM;
	if (p->error == YAML_READER_ERROR) {
		line = 1;
		col = 1;
		for (size_t i = 0; i < p->problem_offset && i < len; i++, col++)
			if (buf[i] == '\n') {
				line++;
				col = 0;
			}
	}
	if (p->context)
		return gb_yaml_fail_at(y, line, col, "yaml syntax error: %s (%s)",
				       p->problem ? p->problem : "unknown error", p->context);
	return gb_yaml_fail_at(y, line, col, "yaml syntax error: %s",
			       p->problem ? p->problem : "unknown error");
}

int gb_yaml_load(struct gb_yaml *y, const char *buf, size_t len)
{
	yaml_parser_t parser;
	yaml_document_t doc2;
	int ret = 0;

	gb_yaml_release(y);
	if (!buf)
		return -EINVAL;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &y->doc)) {
		ret = parser_error(y, &parser, buf, len);
		goto cleanup;
	}
	y->have_doc = true;
	if (!yaml_document_get_root_node(&y->doc))
		goto cleanup;          /* empty: the caller says what was expected */
	if (!yaml_parser_load(&parser, &doc2)) {
		ret = parser_error(y, &parser, buf, len);
		goto cleanup;
	}
	if (yaml_document_get_root_node(&doc2))
		ret = gb_yaml_fail_at(y, (int)doc2.start_mark.line + 1,
				      (int)doc2.start_mark.column + 1,
				      "more than one yaml document in %s file", y->what);
	yaml_document_delete(&doc2);
cleanup:
	yaml_parser_delete(&parser);
	if (ret < 0)
		gb_yaml_release(y);
	return ret;
}

yaml_node_t *gb_yaml_root(struct gb_yaml *y)
{
	return y->have_doc ? yaml_document_get_root_node(&y->doc) : NULL;
}

yaml_node_t *gb_yaml_node(const struct gb_yaml *y, int id)
{
	return yaml_document_get_node((yaml_document_t *)&y->doc, id);
}

const char *gb_yaml_str(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

bool gb_yaml_is_null(const yaml_node_t *n)
{
	const char *s = gb_yaml_str(n);

	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
		!strcmp(s, "NULL"));
}

const char *gb_yaml_kind(struct gb_yaml *y, const yaml_node_t *n)
{
	char *q;

	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (gb_yaml_is_null(n))
		return "nothing";
	q = gb_yaml_qbuf(y);
	snprintf(q, sizeof(y->q[0]), "'%s'", gb_yaml_quote(y, gb_yaml_str(n)));
	return q;
}

int gb_yaml_refuse_aliases(struct gb_yaml *y)
{
	int nnodes = (int)(y->doc.nodes.top - y->doc.nodes.start), ret = 0;
	unsigned char *refs = calloc((size_t)nnodes + 2, 1);

	if (!refs)
		return -ENOMEM;
	refs[1] = 1; /* the root is referenced by the document */
	for (int id = 1; id <= nnodes && !ret; id++) {
		yaml_node_t *n = gb_yaml_node(y, id);

		if (n->type == YAML_SCALAR_NODE) {
			if (strlen(gb_yaml_str(n)) != n->data.scalar.length)
				ret = gb_yaml_fail(y, n, "value '%s' contains a nul character",
						   gb_yaml_quote(y, gb_yaml_str(n)));
			continue;
		}
		if (n->type == YAML_SEQUENCE_NODE) {
			for (yaml_node_item_t *it = n->data.sequence.items.start;
			     it < n->data.sequence.items.top && !ret; it++)
				if (refs[*it]++)
					ret = gb_yaml_fail(y, gb_yaml_node(y, *it), "yaml anchors and "
							   "aliases are not supported");
			continue;
		}
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top && !ret; p++) {
			int kids[2] = { p->key, p->value };

			for (int k = 0; k < 2 && !ret; k++)
				if (refs[kids[k]]++)
					ret = gb_yaml_fail(y, gb_yaml_node(y, kids[k]), "yaml anchors "
							   "and aliases are not supported");
		}
	}
	free(refs);
	return ret;
}

int gb_yaml_check_map(struct gb_yaml *y, const yaml_node_t *n, const char *subject,
		      const char *const *allowed)
{
	yaml_node_pair_t *p, *start, *top;

	if (n->type != YAML_MAPPING_NODE)
		return gb_yaml_fail(y, n, "%s must be a mapping, got %s", subject ? subject : y->what,
				    gb_yaml_kind(y, n));
	start = n->data.mapping.pairs.start;
	top = n->data.mapping.pairs.top;
	for (p = start; p < top; p++) {
		yaml_node_t *k = gb_yaml_node(y, p->key);
		const char *ks = gb_yaml_str(k), *hint;
		const char *const *a;

		if (!ks)
			return gb_yaml_fail(y, k, "%s%skeys must be plain words, got %s",
					    subject ? subject : "", subject ? ": " : "",
					    gb_yaml_kind(y, k));
		for (a = allowed; *a && strcmp(*a, ks); a++)
			;
		if (!*a) {
			hint = y->key_hint ? y->key_hint(ks) : NULL;
			if (!subject)
				return gb_yaml_fail(y, k, "unknown top-level key '%s'%s%s%s",
						    gb_yaml_quote(y, ks), hint ? " (" : "",
						    hint ? hint : "", hint ? ")" : "");
			return gb_yaml_fail(y, k, "%s: unknown key '%s'%s%s%s", subject,
					    gb_yaml_quote(y, ks), hint ? " (" : "", hint ? hint : "",
					    hint ? ")" : "");
		}
		for (yaml_node_pair_t *o = start; o < p; o++)
			if (!strcmp(gb_yaml_str(gb_yaml_node(y, o->key)), ks))
				return gb_yaml_fail(y, k, "%s%sduplicate key '%s'",
						    subject ? subject : "", subject ? ": " : "",
						    gb_yaml_quote(y, ks));
	}
	return 0;
}

yaml_node_t *gb_yaml_get(const struct gb_yaml *y, const yaml_node_t *n, const char *key)
{
	if (!n || n->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		const char *k = gb_yaml_str(gb_yaml_node(y, p->key));

		if (k && !strcmp(k, key))
			return gb_yaml_node(y, p->value);
	}
	return NULL;
}

int gb_yaml_list(struct gb_yaml *y, const yaml_node_t *v, const char *what,
		 yaml_node_item_t **items, int *n)
{
	*items = NULL;
	*n = 0;
	if (!v || gb_yaml_is_null(v))
		return 0;
	if (v->type != YAML_SEQUENCE_NODE)
		return gb_yaml_fail(y, v, "'%s' must be a list, got %s", what, gb_yaml_kind(y, v));
	*items = v->data.sequence.items.start;
	*n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
	return 0;
}

int gb_read_file(const char *path, size_t max, char **buf, size_t *len)
{
	struct stat st;
	char *b = NULL;
	size_t l = 0;
	int fd, ret = 0;

	*buf = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		goto cleanup;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EFBIG;
		goto cleanup;
	}
	b = malloc((size_t)st.st_size + 1);
	if (!b) {
		ret = -ENOMEM;
		goto cleanup;
	}
	while (l < (size_t)st.st_size) {
		ssize_t r = read(fd, b + l, (size_t)st.st_size - l);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			goto cleanup;
		}
		if (r == 0)
			break; /* the file shrank: take what is there */
		l += (size_t)r;
	}
	b[l] = '\0';
	*buf = b;
	*len = l;
	b = NULL;
cleanup:
	if (fd >= 0)
		close(fd);
	free(b);
	return ret;
}
