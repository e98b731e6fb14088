/* SPDX-License-Identifier: MIT */
/*
 * util.c - the size parser and the JSON, CSV and error helpers (gbio.h)
 * shared by libgbcore and the collectives tools.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gbio.h"

int gb_parse_segment(const char *s, double *bytes)
{
	if (s && !strcmp(s, "auto")) {
		*bytes = GB_SEG_AUTO;
		return 0;
	}
	if (gb_parse_size(s, bytes) < 0 || *bytes != floor(*bytes) || *bytes > 2147483647.0)
		return -EINVAL;
	return 0;
}

int gb_parse_size(const char *s, double *bytes)
{
	char *end;
	double v, mult = 1.0;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		mult = 1024.0;
		end++;
		break;
	case 'M':
		mult = 1048576.0;
		end++;
		break;
	case 'G':
		mult = 1073741824.0;
		end++;
		break;
	default:
		break;
	}
	if (mult > 1.0 && (*end == 'i' || *end == 'I'))
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	*bytes = v * mult;
	return 0;
}

/* ------------------------------------------------------------------ */
/* JSON, CSV and error helpers (gbio.h)                                  */
/* ------------------------------------------------------------------ */

json_t *gb_json_load_file(const char *path, json_error_t *je, int *ret)
{
	FILE *f = fopen(path, "r");
	json_t *j;

	memset(je, 0, sizeof(*je));
	if (!f) {
		*ret = -errno;
		return NULL;
	}
	j = json_loadf(f, 0, je);
	fclose(f);
	*ret = j ? 0 : -EINVAL;
	return j;
}

json_t *gb_json_load_err(const char *path, int *ret, struct gb_err *e)
{
	json_error_t je;
	json_t *j = gb_json_load_file(path, &je, ret);

	if (!j && *ret == -EINVAL)
		gb_err_set(e, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	else if (!j)
		gb_err_set(e, "cannot open '%s': %s", path, strerror(-*ret));
	return j;
}

int gb_json_save_atomic(const json_t *j, const char *path)
{
	char *tmp = NULL;
	int fd = -1, ret;

	if (strcmp(path, "-") == 0) {
		if (json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) < 0 ||
		    fputc('\n', stdout) == EOF || fflush(stdout) == EOF)
			return -EIO;
		return 0;
	}

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		tmp = NULL;
		ret = -ENOMEM;
		goto cleanup;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		goto cleanup;
	}
	/* mkstemp creates 0600; a result file should read like any other. */
	if (fchmod(fd, 0644) < 0 ||
	    json_dumpfd(j, fd, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) < 0 ||
	    write(fd, "\n", 1) != 1 || fsync(fd) < 0) {
		ret = errno ? -errno : -EIO;
		goto cleanup;
	}
	if (close(fd) < 0) {
		fd = -1;
		ret = -errno;
		goto cleanup;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		ret = -errno;
		goto cleanup;
	}
	free(tmp);
	return 0;
cleanup:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	return ret;
}

void gb_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
