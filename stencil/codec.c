/* SPDX-License-Identifier: MIT */
/*
 * codec.c - halo compression (seed 004 s5): zlib's deflate, lossless, with
 * the receiver telling compressed from raw by the message size alone.
 *
 *	sender                                  receiver (knows S)
 *	raw (S bytes) -> deflate -> c bytes     got n bytes:
 *	c <  S: send the c bytes                  n <  S: inflate -> exactly S
 *	c >= S: send the S raw bytes              n == S: raw
 *
 * The zlib streams are kept and reset between messages: deflateInit
 * allocates about 256 KiB, which per message would cost more than small
 * halos take to compress.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gbstencil.h"

struct gb_st_codec {
	z_stream def, inf;
	int def_ok, inf_ok;
};

int gb_st_codec_new(int level, struct gb_st_codec **out)
{
	struct gb_st_codec *c;

	if (level < 1 || level > 9 || !out)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (deflateInit(&c->def, level) != Z_OK) {
		free(c);
		return -ENOMEM;
	}
	c->def_ok = 1;
	if (inflateInit(&c->inf) != Z_OK) {
		gb_st_codec_free(c);
		return -ENOMEM;
	}
	c->inf_ok = 1;
	*out = c;
	return 0;
}

void gb_st_codec_free(struct gb_st_codec *c)
{
	if (!c)
		return;
	if (c->def_ok)
		deflateEnd(&c->def);
	if (c->inf_ok)
		inflateEnd(&c->inf);
	free(c);
}

size_t gb_st_codec_bound(size_t n)
{
	return (size_t)compressBound((uLong)n);
}

int gb_st_encode(struct gb_st_codec *c, const void *raw, size_t n, void *out, size_t cap,
		 size_t *outlen)
{
	int zr;

	if (!c || (!raw && n) || !out || !outlen || n > (size_t)UINT32_MAX ||
	    cap < gb_st_codec_bound(n))
		return -EINVAL;
	*outlen = n;
	if (n == 0)
		return 0;
	if (deflateReset(&c->def) != Z_OK)
		return -EIO;
	c->def.next_in = (Bytef *)raw;
	c->def.avail_in = (uInt)n;
	c->def.next_out = out;
	/* Stop as soon as it could not be smaller than the raw message. */
	c->def.avail_out = (uInt)(n - 1 < cap ? n - 1 : cap);
	zr = deflate(&c->def, Z_FINISH);
	if (zr == Z_STREAM_END) {
		*outlen = c->def.total_out;
		return 1;
	}
	if (zr == Z_OK || zr == Z_BUF_ERROR)
		return 0;	/* out of room: incompressible, send raw */
	return -EIO;
}

int gb_st_decode(struct gb_st_codec *c, const void *msg, size_t len, void *raw, size_t n)
{
	int zr;

	if (!c || (!msg && len) || (!raw && n) || n > (size_t)UINT32_MAX)
		return -EINVAL;
	if (len > n)
		return -EPROTO;
	if (len == n) {
		if (msg != raw && n)
			memcpy(raw, msg, n);
		return 0;
	}
	if (inflateReset(&c->inf) != Z_OK)
		return -EIO;
	c->inf.next_in = (Bytef *)msg;
	c->inf.avail_in = (uInt)len;
	c->inf.next_out = raw;
	c->inf.avail_out = (uInt)n;
	zr = inflate(&c->inf, Z_FINISH);
	if (zr != Z_STREAM_END || c->inf.total_out != n || c->inf.avail_in != 0)
		return -EPROTO;
	return 1;
}
