/* SPDX-License-Identifier: MIT */
/*
 * diag.c - the one formatter of a struct gb_diag (gbtopo.h):
 * "file:line:col: message", into a buffer or into a struct gb_err.
 */
#include <stdio.h>

#include "gbtopo.h"
#include "gbutil.h"

char *gb_diag_format(const struct gb_diag *d, const char *file, char *buf, size_t len)
{
	if (!buf || !len)
		return buf;
	snprintf(buf, len, "%s:%d:%d: %s", d->file[0] || !file ? d->file : file, d->line, d->col,
		 d->msg);
	return buf;
}

void gb_diag_err(struct gb_err *e, const struct gb_diag *d, const char *file)
{
	if (e)
		gb_diag_format(d, file, e->msg, sizeof(e->msg));
}
