// SPDX-License-Identifier: MIT
/*
 * units.c - tc-style unit parsers ("25ms", "45mbit", "1%", "64MiB") and
 * gb_fmt_ip().
 *
 * The numbers are parsed as decimal fixed point and scaled with integer
 * arithmetic, so "0.05ms" is exactly 50000 ns and "1.5gbit" exactly
 * 1500000000 bit/s: a topology read twice, or written by a script that
 * computed the values, always gives the same integers.
 *
 * Choices:
 *   - no sign, no exponent, no whitespace, no hex: "10 mbps" and "-1ms" are
 *     rejected rather than guessed at;
 *   - a bare number is rejected too (tc would read it in a default unit,
 *     which is a classic source of factor-1000 mistakes);
 *   - unit names are case-insensitive, as in tc; "mbps" is megaBYTES per
 *     second, as in tc;
 *   - rounding is to the nearest integer; a non-zero value that rounds to
 *     zero ("0.1ns", "0.1bit") is an error, not a silent 0 (which would mean
 *     "unlimited" for a rate).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gbtopo.h"

struct unit {
	const char *name;
	uint64_t mult;   /* value of one unit in the result's base unit */
};

static const struct unit time_units[] = {
	{ "ns", 1 }, { "nsec", 1 }, { "nsecs", 1 },
	{ "us", 1000 }, { "usec", 1000 }, { "usecs", 1000 },
	{ "ms", 1000000 }, { "msec", 1000000 }, { "msecs", 1000000 },
	{ "s", 1000000000 }, { "sec", 1000000000 }, { "secs", 1000000000 },
	{ NULL, 0 },
};

/* Durations of schedules and campaigns: the same, plus minutes and hours,
 * because the papers' schedules are in minutes. */
static const struct unit duration_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
	{ "s", 1000000000 }, { "sec", 1000000000 }, { "secs", 1000000000 },
	{ "min", 60000000000ull }, { "mins", 60000000000ull },
	{ "h", 3600000000000ull }, { "hour", 3600000000000ull }, { "hours", 3600000000000ull },
	{ NULL, 0 },
};

#define KB 1000ull
#define KI 1024ull
static const struct unit rate_units[] = {
	{ "bit", 1 },
	{ "kbit", KB }, { "mbit", KB * KB }, { "gbit", KB * KB * KB },
	{ "tbit", KB * KB * KB * KB },
	{ "kibit", KI }, { "mibit", KI * KI }, { "gibit", KI * KI * KI },
	{ "tibit", KI * KI * KI * KI },
	{ "bps", 8 },
	{ "kbps", 8 * KB }, { "mbps", 8 * KB * KB }, { "gbps", 8 * KB * KB * KB },
	{ "tbps", 8 * KB * KB * KB * KB },
	{ "kibps", 8 * KI }, { "mibps", 8 * KI * KI }, { "gibps", 8 * KI * KI * KI },
	{ "tibps", 8 * KI * KI * KI * KI },
	{ NULL, 0 },
};

/* Byte sizes (the hosts' TCP buffers): tc's "b", "kb"... and the binary forms. */
static const struct unit byte_units[] = {
	{ "b", 1 },
	{ "kb", KB }, { "mb", KB * KB }, { "gb", KB * KB * KB },
	{ "kib", KI }, { "mib", KI * KI }, { "gib", KI * KI * KI },
	{ NULL, 0 },
};

/*
 * A decimal number "ddd[.ddd]" at the start of @s: integer part, fraction
 * digits (at most 18 kept, the rest only checked), and the end.  At least
 * one digit is required.  Returns 0 or -EINVAL.
 */
static int parse_decimal(const char *s, uint64_t *ipart, uint64_t *frac, int *nfrac,
			 const char **end)
{
	uint64_t ip = 0, fr = 0;
	int ndig = 0, nf = 0;

	while (*s >= '0' && *s <= '9') {
		if (ip > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		ip = ip * 10 + (uint64_t)(*s - '0');
		s++;
		ndig++;
	}
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9') {
			if (nf < 18) {
				fr = fr * 10 + (uint64_t)(*s - '0');
				nf++;
			}
			s++;
			ndig++;
		}
	}
	if (ndig == 0)
		return -EINVAL;
	*ipart = ip;
	*frac = fr;
	*nfrac = nf;
	*end = s;
	return 0;
}

/* value = (ipart + frac / 10^nfrac) * mult, rounded to nearest; exact. */
static int scale(uint64_t ipart, uint64_t frac, int nfrac, uint64_t mult, uint64_t *out)
{
	unsigned __int128 pow10 = 1, v, f;

	for (int i = 0; i < nfrac; i++)
		pow10 *= 10;
	v = (unsigned __int128)ipart * mult;
	f = ((unsigned __int128)frac * mult + pow10 / 2) / pow10;
	v += f;
	if (v > UINT64_MAX)
		return -EINVAL;
	if (v == 0 && (ipart || frac))
		return -EINVAL; /* rounds to zero: almost surely a mistake */
	*out = (uint64_t)v;
	return 0;
}

static int parse_with_units(const char *s, const struct unit *units, uint64_t *out)
{
	uint64_t ip, fr, v;
	const char *end;
	int nf;

	if (!s || parse_decimal(s, &ip, &fr, &nf, &end) < 0)
		return -EINVAL;
	for (const struct unit *u = units; u->name; u++) {
		if (strcasecmp(end, u->name) == 0) {
			if (scale(ip, fr, nf, u->mult, &v) < 0)
				return -EINVAL;
			*out = v;
			return 0;
		}
	}
	return -EINVAL;
}

int gb_parse_time(const char *s, uint64_t *ns)
{
	return parse_with_units(s, time_units, ns);
}

int gb_parse_duration(const char *s, double *seconds)
{
	uint64_t ns;

	if (s && !strcmp(s, "0")) {
		*seconds = 0;
		return 0;
	}
	if (parse_with_units(s, duration_units, &ns) < 0)
		return -EINVAL;
	*seconds = (double)ns / 1e9;
	return 0;
}

int gb_parse_rate(const char *s, uint64_t *bps)
{
	return parse_with_units(s, rate_units, bps);
}

int gb_parse_bytes(const char *s, uint64_t *bytes)
{
	return parse_with_units(s, byte_units, bytes);
}

int gb_parse_loss(const char *s, double *p)
{
	uint64_t ip, fr, v;
	const char *end;
	int nf;

	if (!s || parse_decimal(s, &ip, &fr, &nf, &end) < 0)
		return -EINVAL;
	if (strcmp(end, "%") != 0)
		return -EINVAL;
	/* in millionths of a percent, so that "0.000001%" is still exact */
	if (ip > 100 || scale(ip, fr, nf, 1000000, &v) < 0 || v > 100000000)
		return -EINVAL;
	*p = (double)v / 1e8;
	return 0;
}

const char *gb_fmt_ip(uint32_t addr, char buf[16])
{
	snprintf(buf, 16, "%u.%u.%u.%u", (addr >> 24) & 0xff, (addr >> 16) & 0xff,
		 (addr >> 8) & 0xff, addr & 0xff);
	return buf;
}

uint64_t gb_ppkt_bytes(uint64_t per_packet_ns, uint64_t rate_bps)
{
	/* ns x bit/s / 8e9, rounded, in 128 bits: 1 s at 100 gbit overflows 64 */
	unsigned __int128 b = (unsigned __int128)per_packet_ns * rate_bps;

	if (!rate_bps)
		return 0;
	b = (b + 4000000000u) / 8000000000u;
	return b > UINT64_MAX ? UINT64_MAX : (uint64_t)b;
}
