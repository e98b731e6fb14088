// SPDX-License-Identifier: MIT
/* files.c - mkdir -p, rm -r, whole reads and writes, atomic writes (gbutil.h). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gbutil.h"

int gb_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (!n || n >= sizeof(buf))
		return n ? -ENAMETOOLONG : -EINVAL;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* nftw() passes no context: the walk's first error, per thread. */
static __thread int rm_err;

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	/* like rm -rf: go on after an error, report the first one */
	if ((flag == FTW_DP ? rmdir(p) : unlink(p)) < 0 && errno != ENOENT && !rm_err)
		rm_err = -errno;
	return 0;
}

int gb_rmtree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	rm_err = 0;
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		return -errno;
	return rm_err;
}

int gb_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int gb_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t r = read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EPIPE;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

FILE *gb_atomic_open(const char *path, char **tmp)
{
	FILE *f;
	int fd, e;

	if (asprintf(tmp, "%s.XXXXXX", path) < 0) {
		*tmp = NULL;
		errno = ENOMEM;
		return NULL;
	}
	fd = mkstemp(*tmp);
	/* mkstemp creates 0600; a result file should read like any other */
	if (fd < 0 || fchmod(fd, 0644) < 0 || !(f = fdopen(fd, "w"))) {
		e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(*tmp);
		}
		free(*tmp);
		*tmp = NULL;
		errno = e;
		return NULL;
	}
	return f;
}

int gb_atomic_close(FILE *f, char *tmp, const char *path, int sync, int err)
{
	int ret = err;

	if (!ret && (fflush(f) == EOF || (sync && fsync(fileno(f)) < 0)))
		ret = -errno;
	if (fclose(f) == EOF && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int gb_write_file(const char *path, const void *buf, size_t len, int sync)
{
	char *tmp;
	FILE *f = gb_atomic_open(path, &tmp);

	if (!f)
		return -errno;
	return gb_atomic_close(f, tmp, path, sync, gb_write_full(fileno(f), buf, len));
}

int gb_write_atomic(const char *path, const void *buf, size_t len)
{
	if (strlen(path) + sizeof(".XXXXXX") > PATH_MAX)
		return -ENAMETOOLONG;
	return gb_write_file(path, buf, len, 1);
}
