// SPDX-License-Identifier: MIT
/*
 * gxfile.c - atomic file writes (gxfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gbyaml.h"
#include "gxfile.h"

int gx_write_file(const char *path, const void *buf, size_t len, int sync)
{
	char *tmp = NULL;
	size_t off = 0;
	int fd, ret = 0;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		free(tmp);
		return ret;
	}
	/* mkstemp creates 0600; a result file should read like any other */
	if (fchmod(fd, 0644) < 0)
		ret = -errno;
	while (!ret && off < len) {
		ssize_t w = write(fd, (const char *)buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			ret = -errno;
		else
			off += (size_t)w;
	}
	if (!ret && sync && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
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
