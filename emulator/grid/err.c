/* SPDX-License-Identifier: MIT */
/*
 * err.c - gb_err_set() (gbemu.h): a library function's message, for the
 * caller to print.  Its own file, so that the grid library's parts
 * (calibrate, cgroup, hosttcp, partition, probe) need not reach grid.c.
 */
#include "gbemu.h"

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
