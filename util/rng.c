// SPDX-License-Identifier: MIT
/* rng.c - xoshiro256** and splitmix64 (gbutil.h). */
#include "gbutil.h"

uint64_t gb_splitmix64(uint64_t *x)
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
		r->s[i] = gb_splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

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
