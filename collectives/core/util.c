/* SPDX-License-Identifier: MIT */
/*
 * util.c - the random generator, the clock and the size parser shared by
 * libgbcore and the collectives tools.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gbio.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void gb_rng_seed(struct gb_rng *r, uint64_t seed)
{
	/* splitmix64 never yields four zero words, which xoshiro forbids. */
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman & Vigna, 2018). */
uint64_t gb_rng_next(struct gb_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double gb_rng_uniform(struct gb_rng *r)
{
	return (double)(gb_rng_next(r) >> 11) * 0x1.0p-53;
}

double gb_rng_range(struct gb_rng *r, double lo, double hi)
{
	return lo + (hi - lo) * gb_rng_uniform(r);
}

/* Lemire's multiply-and-reject: unbiased without a division per draw. */
uint32_t gb_rng_below(struct gb_rng *r, uint32_t n)
{
	uint64_t m;
	uint32_t l;

	if (n == 0)
		return 0;
	m = (uint64_t)(uint32_t)(gb_rng_next(r) >> 32) * n;
	l = (uint32_t)m;
	if (l < n) {
		uint32_t t = -n % n;

		while (l < t) {
			m = (uint64_t)(uint32_t)(gb_rng_next(r) >> 32) * n;
			l = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

double gb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int gb_parse_size(const char *s, double *bytes)
{
	char *end;
	double v, mult = 1.0;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		mult = 1024.0;
		end++;
		break;
	case 'M':
		mult = 1048576.0;
		end++;
		break;
	case 'G':
		mult = 1073741824.0;
		end++;
		break;
	default:
		break;
	}
	if (mult > 1.0 && (*end == 'i' || *end == 'I'))
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	*bytes = v * mult;
	return 0;
}

/* ------------------------------------------------------------------ */
/* JSON, CSV and error helpers (gbio.h)                                  */
/* ------------------------------------------------------------------ */

json_t *gb_json_load_file(const char *path, json_error_t *je, int *ret)
{
	FILE *f = fopen(path, "r");
	json_t *j;

	memset(je, 0, sizeof(*je));
	if (!f) {
		*ret = -errno;
		return NULL;
	}
	j = json_loadf(f, 0, je);
	fclose(f);
	*ret = j ? 0 : -EINVAL;
	return j;
}

void gb_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int gb_json_save_atomic(const json_t *j, const char *path)
{
	char *tmp = NULL;
	int fd = -1, ret;

	if (strcmp(path, "-") == 0) {
		if (json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) < 0 ||
		    fputc('\n', stdout) == EOF || fflush(stdout) == EOF)
			return -EIO;
		return 0;
	}

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		tmp = NULL;
		ret = -ENOMEM;
		goto cleanup;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		goto cleanup;
	}
	/* mkstemp creates 0600; a result file should read like any other. */
	if (fchmod(fd, 0644) < 0 ||
	    json_dumpfd(j, fd, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) < 0 ||
	    write(fd, "\n", 1) != 1 || fsync(fd) < 0) {
		ret = errno ? -errno : -EIO;
		goto cleanup;
	}
	if (close(fd) < 0) {
		fd = -1;
		ret = -errno;
		goto cleanup;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		ret = -errno;
		goto cleanup;
	}
	free(tmp);
	return 0;
cleanup:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	return ret;
}

void gb_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
