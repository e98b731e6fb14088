/* SPDX-License-Identifier: MIT */
/*
 * err.c - gb_err_set() (gbutil.h): the one error carrier's message, written
 * by a library function for its caller to print.
 */
#include "gbutil.h"

#include <stdarg.h>
#include <stdio.h>

void gb_err_set(struct gb_err *e, const char *fmt, ...)
{
	if (!e)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

void gb_err_vset(struct gb_err *e, const char *fmt, va_list ap)
{
	if (e)
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
}
