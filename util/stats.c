/* SPDX-License-Identifier: MIT */
/*
 * stats.c - sorting and the order statistics of samples (gbutil.h).
 */
#include "gbutil.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void gb_sort_doubles(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_double);
}

double gb_median(double *v, size_t n)
{
	if (!n)
		return NAN;
	gb_sort_doubles(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
