/* SPDX-License-Identifier: MIT */
/*
 * tap.h - a tiny header-only TAP producer for gridbed's C tests.
 *
 *   plan(n) / done_testing()      the plan, up front or at the end
 *   ok(cond, fmt, ...)            one assertion; returns cond
 *   is_int(got, want, fmt, ...)   with a diagnostic on mismatch
 *   is_double(got, want, tol, ...)
 *   is_str(got, want, fmt, ...)
 *   skip(n, why)                  n skipped assertions
 *   skip_all(why)                 "1..0 # SKIP why", exit 0
 *   diag(fmt, ...)                "# ..." on stdout
 *   bail(fmt, ...)                "Bail out! ...", exit 255
 *
 * Exit status: 0 when every assertion passed and the plan was met, else 1.
 */
#ifndef GRIDBED_TAP_H
#define GRIDBED_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed, tap_planned = -1;

__attribute__((unused)) static void tap_vline(const char *pre, const char *fmt, va_list ap)
{
	fputs(pre, stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
}

__attribute__((unused, format(printf, 1, 2))) static void diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vline("# ", fmt, ap);
	va_end(ap);
}

__attribute__((unused)) static void plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

__attribute__((unused, noreturn, format(printf, 1, 2))) static void skip_all(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vline("1..0 # SKIP ", fmt, ap);
	va_end(ap);
	exit(0);
}

__attribute__((unused, noreturn, format(printf, 1, 2))) static void bail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vline("Bail out! ", fmt, ap);
	va_end(ap);
	exit(255);
}

__attribute__((unused)) static int tap_vok(int cond, const char *fmt, va_list ap)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	return cond;
}

__attribute__((unused, format(printf, 2, 3))) static int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	return cond;
}

__attribute__((unused, format(printf, 3, 4))) static int is_int(long long got, long long want,
								const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = tap_vok(got == want, fmt, ap);
	va_end(ap);
	if (!r)
		diag("  got: %lld, expected: %lld", got, want);
	return r;
}

__attribute__((unused, format(printf, 4, 5))) static int is_double(double got, double want,
								   double tol, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = tap_vok(fabs(got - want) <= tol, fmt, ap);
	va_end(ap);
	if (!r)
		diag("  got: %.9g, expected: %.9g (+/- %g)", got, want, tol);
	return r;
}

__attribute__((unused, format(printf, 3, 4))) static int is_str(const char *got, const char *want,
								const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = tap_vok(got && want && strcmp(got, want) == 0, fmt, ap);
	va_end(ap);
	if (!r)
		diag("  got: '%s', expected: '%s'", got ? got : "(null)", want ? want : "(null)");
	return r;
}

__attribute__((unused)) static void skip(int n, const char *why)
{
	for (int i = 0; i < n; i++)
		printf("ok %d # skip %s\n", ++tap_n, why);
	fflush(stdout);
}

__attribute__((unused)) static int done_testing(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_n);
	else if (tap_planned != tap_n)
		diag("planned %d tests but ran %d", tap_planned, tap_n);
	fflush(stdout);
	return (tap_failed || (tap_planned >= 0 && tap_planned != tap_n)) ? 1 : 0;
}

#endif
