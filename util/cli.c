/* SPDX-License-Identifier: MIT */
/* cli.c - the one refusal of bad input every command line makes (gbutil.h). */
#include <stdarg.h>
#include <stdio.h>

#include "gbutil.h"

int gb_vrefuse(const char *prog, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	return GB_EXIT_USAGE;
}

int gb_refuse(const char *prog, const char *fmt, ...)
{
	va_list ap;
	int st;

	va_start(ap, fmt);
	st = gb_vrefuse(prog, fmt, ap);
	va_end(ap);
	return st;
}
