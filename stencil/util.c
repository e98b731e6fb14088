/* SPDX-License-Identifier: MIT */
/*
 * util.c - parsing and formatting shared by the driver, gridstencil-topo
 * and gridstencil, and the decomposition-independent point hash.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbstencil.h"

/* One decimal number >= 1 at *s, up to INT_MAX; advances *s. */
static int parse_pos(const char **s, int *out)
{
	long v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (*p - '0');
		if (v > INT_MAX)
			return -EINVAL;
		p++;
	}
	if (v < 1)
		return -EINVAL;
	*out = (int)v;
	*s = p;
	return 0;
}

int gb_st_parse_dims(const char *s, int *grid)
{
	int n = 0;

	if (!s || !grid)
		return -EINVAL;
	for (;;) {
		if (n == GB_ST_MAXDIM || parse_pos(&s, &grid[n]) < 0)
			return -EINVAL;
		n++;
		if (!*s)
			return n;
		if (*s != 'x' && *s != 'X')
			return -EINVAL;
		s++;
	}
}

int gb_st_parse_list(const char *s, int *v, int max)
{
	int n = 0;

	if (!s || !v || max < 1)
		return -EINVAL;
	for (;;) {
		if (n == max || parse_pos(&s, &v[n]) < 0)
			return -EINVAL;
		n++;
		if (!*s)
			return n;
		if (*s != ',')
			return -EINVAL;
		s++;
	}
}

const char *gb_st_fmt_dims(int ndim, const int *k, char *buf, size_t len)
{
	size_t off = 0;

	if (len)
		buf[0] = 0;
	for (int d = 0; d < ndim && off < len; d++)
		off += snprintf(buf + off, len - off, "%s%d", d ? "x" : "", k[d]);
	return buf;
}

/* splitmix64's finaliser: every input bit affects every output bit. */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t gb_st_hash_point(uint64_t index, double value)
{
	uint64_t bits;

	memcpy(&bits, &value, sizeof(bits));
	return mix64(mix64(index + 0x9e3779b97f4a7c15ull) ^ bits);
}
