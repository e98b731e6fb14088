/* SPDX-License-Identifier: MIT */
/*
 * 9003-stencil-codec - seed 004 s5's halo compression: bit-exact round
 * trips for compressible and incompressible data, the receiver telling
 * compressed from raw by the size alone, and bad messages refused.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbstencil.h"
#include "tap.h"

static uint64_t rs = 88172645463325252ull;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

/* Encode, decode as the receiver would; 1 if bit-exact. */
static int roundtrip(struct gb_st_codec *c, const void *raw, size_t n, int *compressed,
		     size_t *wire)
{
	unsigned char *out = malloc(gb_st_codec_bound(n) + 1), *back = malloc(n + 1);
	size_t len = 0;
	int r, d, good;

	r = gb_st_encode(c, raw, n, out, gb_st_codec_bound(n), &len);
	*compressed = r;
	*wire = len;
	/* what goes on the wire: the compressed bytes, or the raw ones */
	d = gb_st_decode(c, r == 1 ? out : raw, len, back, n);
	good = r >= 0 && d == r && (n == 0 || !memcmp(raw, back, n));
	free(out);
	free(back);
	return good;
}

int main(void)
{
	struct gb_st_codec *c = NULL;
	size_t n = 81920, wire;
	double *zeros = calloc(n / 8, 8), *smooth = malloc(n), *noisy = malloc(n);
	unsigned char *bytes = malloc(n), *out = malloc(gb_st_codec_bound(n)), *back = malloc(n);
	int comp, ok_all = 1;

	plan(19);
	is_int(gb_st_codec_new(0, &c), -EINVAL, "level 0: -EINVAL");
	is_int(gb_st_codec_new(10, &c), -EINVAL, "level 10: -EINVAL");
	if (gb_st_codec_new(1, &c) < 0)
		bail("cannot make a codec");
	for (size_t i = 0; i < n / 8; i++) {
		smooth[i] = sin(0.001 * (double)i) * exp(-1e-5 * (double)i);
		noisy[i] = (double)(rnd() >> 11) / 9007199254740992.0 - 0.5;
	}
	for (size_t i = 0; i < n; i++)
		bytes[i] = (unsigned char)rnd();

	ok(roundtrip(c, zeros, n, &comp, &wire), "zeros: bit-exact round trip");
	ok(comp == 1 && wire < n / 100, "zeros: compressed to %zu of %zu bytes", wire, n);
	ok(roundtrip(c, smooth, n, &comp, &wire), "smooth doubles: bit-exact round trip");
	diag("smooth doubles: %s, %zu of %zu bytes", comp ? "compressed" : "raw", wire, n);
	ok(roundtrip(c, noisy, n, &comp, &wire), "noisy doubles: bit-exact round trip");
	diag("noisy doubles: %s, %zu of %zu bytes", comp ? "compressed" : "raw", wire, n);
	ok(roundtrip(c, bytes, n, &comp, &wire), "random bytes: bit-exact round trip");
	ok(comp == 0 && wire == n, "random bytes: sent raw, full size");
	ok(roundtrip(c, bytes, 0, &comp, &wire) && comp == 0 && wire == 0, "0 bytes: raw");
	ok(roundtrip(c, zeros, 1, &comp, &wire) && comp == 0 && wire == 1,
	   "1 byte: cannot shrink, raw");

	/* the receiver decides by size alone */
	{
		size_t len;
		int r = gb_st_encode(c, zeros, n, out, gb_st_codec_bound(n), &len);

		is_int(r, 1, "encode zeros -> compressed");
		/* a raw message of exactly n bytes whose content happens to be
		 * a zlib stream is still taken as raw */
		memset(back, 0xee, n);
		memcpy(bytes, out, len);
		is_int(gb_st_decode(c, bytes, n, back, n), 0, "n bytes: raw, whatever they hold");
		ok(!memcmp(back, bytes, n), "n bytes: copied unchanged");
		is_int(gb_st_decode(c, out, len, back, n), 1, "fewer than n bytes: inflated");
		is_int(gb_st_decode(c, out, len, back, n - 8), -EPROTO,
		       "inflating to other than the expected size: -EPROTO");
		is_int(gb_st_decode(c, out, len - 3, back, n), -EPROTO, "truncated: -EPROTO");
		out[len / 2] ^= 0x55;
		is_int(gb_st_decode(c, out, len, back, n), -EPROTO, "corrupted: -EPROTO");
		is_int(gb_st_decode(c, bytes, n + 1, back, n), -EPROTO, "more than n bytes: -EPROTO");
	}

	/* the kept zlib state is reset between messages */
	for (int i = 0; i < 200; i++) {
		size_t m = 8 * (1 + rnd() % 2000);
		const void *src = (i % 3 == 0) ? (const void *)noisy : (i % 3 == 1) ?
			(const void *)smooth : (const void *)zeros;

		ok_all &= roundtrip(c, src, m, &comp, &wire);
	}
	ok(ok_all, "200 messages of mixed sizes and kinds through one codec");
	gb_st_codec_free(c);
	gb_st_codec_free(NULL);   /* NULL is fine: a crash here fails the test */
	free(zeros);
	free(smooth);
	free(noisy);
	free(bytes);
	free(out);
	free(back);
	return done_testing();
}
