// SPDX-License-Identifier: MIT
/*
 * appsched.c - the synthetic application's pattern (appsched.h).
 */
#include <math.h>

#include "appsched.h"

int gx_pattern_count(const struct gx_pattern *p)
{
	return p->nsizes > 0 ? p->nsizes * (p->reps > 0 ? p->reps : 1) : p->broadcasts;
}

double gx_pattern_size(const struct gx_pattern *p, int i)
{
	if (p->nsizes > 0)
		return p->sizes[i % p->nsizes];
	if (p->broadcasts <= 1)
		return p->size_first;
	return round(p->size_first + (p->size_last - p->size_first) * i / (p->broadcasts - 1));
}

double gx_pattern_gap(const struct gx_pattern *p, int i)
{
	return p->gap_first * pow(p->gap_factor, i);
}

double gx_pattern_offset(const struct gx_pattern *p, int i, double scale)
{
	double s = 0;

	/* summed term by term, as the application adds them, so that both
	 * sides get the same floating-point result */
	for (int j = 0; j < i; j++)
		s += gx_pattern_gap(p, j) * scale;
	return s;
}

double gx_pattern_max_size(const struct gx_pattern *p)
{
	double m = 0;

	for (int i = 0, n = gx_pattern_count(p); i < n; i++)
		m = fmax(m, gx_pattern_size(p, i));
	return m;
}
