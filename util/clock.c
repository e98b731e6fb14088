// SPDX-License-Identifier: MIT
/*
 * clock.c - the one clock, the wall clock for records, and the grid's time
 * dilation as a program on it learns it (gbutil.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "gbutil.h"

double gb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int64_t gb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

char *gb_utc_iso(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!len)
		return buf;
	if (!strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm)))
		buf[0] = '\0';
	return buf;
}

int gb_env_dilation(double *k)
{
	const char *s = getenv("GRIDBED_DILATE");
	char *end;
	double v;

	*k = 1.0;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno || !(v >= 1.0 && v <= 1000.0))
		return -EINVAL;
	*k = v;
	return 0;
}
