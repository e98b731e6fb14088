// SPDX-License-Identifier: MIT
/*
 * gxfile.c - atomic file writes (gxfile.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gbutil.h"
#include "gbyaml.h"
#include "gxfile.h"

int gx_write_atomic(const char *path, const void *buf, size_t len)
{
	return gb_write_file(path, buf, len, 1);
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

int gx_dir_creatable(const char *path, char *bad, size_t badlen)
{
	char p[PATH_MAX], *slash;
	struct stat st;

	if (!*path)
		return -ENOENT;
	snprintf(p, sizeof(p), "%s", path);
	while (stat(p, &st) < 0) {
		if (errno != ENOENT && errno != ENOTDIR) {  /* ENOTDIR: a file above */
			int err = -errno;

			snprintf(bad, badlen, "%s", p);
			return err;
		}
		while ((slash = strrchr(p, '/')) && slash[1] == '\0' && slash > p)
			*slash = '\0';     /* "a/b/" is "a/b" */
		if (!(slash = strrchr(p, '/')))
			snprintf(p, sizeof(p), ".");
		else if (slash == p)
			p[1] = '\0';       /* "/x": "/" */
		else
			*slash = '\0';
	}
	snprintf(bad, badlen, "%s", p);
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (access(p, W_OK | X_OK) < 0)
		return -errno;
	return 0;
}
