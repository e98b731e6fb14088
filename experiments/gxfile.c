// SPDX-License-Identifier: MIT
/*
 * gxfile.c - atomic file writes (gxfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gbutil.h"
#include "gbyaml.h"
#include "gxfile.h"

int gx_write_file(const char *path, const void *buf, size_t len, int sync)
{
	return gb_write_file(path, buf, len, sync);
}

int gx_write_atomic(const char *path, const void *buf, size_t len)
{
	return gx_write_file(path, buf, len, 1);
}

int gx_copy_atomic(const char *from, const char *to)
{
	char *buf = NULL;
	size_t len = 0;
	int ret = gb_read_file(from, (size_t)1 << 30, &buf, &len);

	if (ret == 0)
		ret = gx_write_atomic(to, buf, len);
	free(buf);
	return ret;
}
