/* SPDX-License-Identifier: MIT */
/*
 * netns.c - named network namespaces without `ip netns`.
 */
#include "netns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int ns_path(const char *name, char *buf, size_t len)
{
	if (!name || !*name || strchr(name, '/') || strlen(name) > NAME_MAX)
		return -EINVAL;
	int n = snprintf(buf, len, "%s/%s", GB_NETNS_DIR, name);
	return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

/*
 * /run/netns must be a shared mount point so that the bind mounts below
 * propagate to other mount namespaces (what iproute2 does too).  Done once per
 * process.
 */
static int prepare_netns_dir(void)
{
	static int done;
	if (done)
		return 0;
	if (mkdir(GB_NETNS_DIR, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (mount("", GB_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) < 0) {
		if (errno != EINVAL)
			return -errno;
		/* Not a mount point yet: make it one, then share it. */
		if (mount(GB_NETNS_DIR, GB_NETNS_DIR, "none", MS_BIND | MS_REC, NULL) < 0)
			return -errno;
		if (mount("", GB_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) < 0)
			return -errno;
	}
	done = 1;
	return 0;
}

int gb_netns_create(const char *name)
{
	char path[PATH_MAX];
	int err, fd = -1, saved = -1, newfd = -1;
	int created = 0, mounted = 0;

	if ((err = ns_path(name, path, sizeof(path))) < 0)
		return err;
	if ((err = prepare_netns_dir()) < 0)
		return err;

	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	created = 1;

	saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (saved < 0) {
		err = -errno;
		goto cleanup;
	}
	if (unshare(CLONE_NEWNET) < 0) {
		err = -errno;
		goto cleanup;
	}
	if (mount("/proc/thread-self/ns/net", path, "none", MS_BIND, NULL) < 0)
		err = -errno;
	else
		mounted = 1;
	/* Always go back, even when the bind failed. */
	if (setns(saved, CLONE_NEWNET) < 0 && !err)
		err = -errno;
	if (err)
		goto cleanup;

	newfd = open(path, O_RDONLY | O_CLOEXEC);
	if (newfd < 0) {
		err = -errno;
		goto cleanup;
	}
	close(saved);
	return newfd;

cleanup:
	if (saved >= 0)
		close(saved);
	if (mounted)
		umount2(path, MNT_DETACH);
	if (created)
		unlink(path);
	return err;
}

int gb_netns_open(const char *name)
{
	char path[PATH_MAX];
	int err;
	if ((err = ns_path(name, path, sizeof(path))) < 0)
		return err;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int gb_netns_exists(const char *name)
{
	char path[PATH_MAX];
	if (ns_path(name, path, sizeof(path)) < 0)
		return 0;
	return access(path, F_OK) == 0;
}

int gb_netns_delete(const char *name)
{
	char path[PATH_MAX];
	int err;
	if ((err = ns_path(name, path, sizeof(path))) < 0)
		return err;
	if (access(path, F_OK) < 0)
		return -ENOENT;
	/* EINVAL: not mounted (a crash between create and bind); still unlink. */
	if (umount2(path, MNT_DETACH) < 0 && errno != EINVAL)
		return -errno;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int gb_nsguard_enter(struct gb_nsguard *g, int nsfd)
{
	g->saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (g->saved < 0)
		return -errno;
	if (setns(nsfd, CLONE_NEWNET) < 0) {
		int err = -errno;
		close(g->saved);
		g->saved = -1;
		return err;
	}
	return 0;
}

void gb_nsguard_leave(struct gb_nsguard *g)
{
	if (g->saved < 0)
		return;
	if (setns(g->saved, CLONE_NEWNET) < 0)
		abort(); /* continuing in the wrong namespace would touch the host */
	close(g->saved);
	g->saved = -1;
}

/* Open @path inside @nsfd and come straight back (fd or -errno). */
static int ns_open(int nsfd, const char *path, int flags)
{
	struct gb_nsguard ng = { -1 };
	int err = gb_nsguard_enter(&ng, nsfd), fd;

	if (err < 0)
		return err;
	fd = open(path, flags | O_CLOEXEC);
	err = fd < 0 ? -errno : fd;
	gb_nsguard_leave(&ng);
	return err;
}

int gb_netns_sysctl_writev(int nsfd, struct gb_sysctl *v, size_t n)
{
	struct gb_nsguard ng = { -1 };
	int err = gb_nsguard_enter(&ng, nsfd);

	if (err < 0)
		return err;
	for (size_t i = 0; i < n; i++) {
		int fd = open(v[i].path, O_WRONLY | O_CLOEXEC);
		size_t len = strlen(v[i].val);

		v[i].err = fd < 0 ? -errno : write(fd, v[i].val, len) == (ssize_t)len ? 0 : -errno;
		if (fd >= 0)
			close(fd);
	}
	gb_nsguard_leave(&ng);
	return 0;
}

int gb_netns_sysctl_write(int nsfd, const char *path, const char *val)
{
	struct gb_sysctl v = { path, val, 0 };
	int err = gb_netns_sysctl_writev(nsfd, &v, 1);

	return err < 0 ? err : v.err;
}

int gb_netns_sysctl_read(int nsfd, const char *path, char *buf, size_t len)
{
	int fd = ns_open(nsfd, path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

int gb_netns_inode(int nsfd, unsigned long *ino)
{
	struct stat st;
	if (fstat(nsfd, &st) < 0)
		return -errno;
	*ino = (unsigned long)st.st_ino;
	return 0;
}

void gb_strv_free(char **v, int n)
{
	if (!v)
		return;
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int gb_netns_list_prefix(const char *prefix, char ***names)
{
	char pre[64];
	int n = 0, cap = 0;
	char **v = NULL;

	*names = NULL;
	snprintf(pre, sizeof(pre), "%s-", prefix);
	DIR *d = opendir(GB_NETNS_DIR);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, pre, strlen(pre)) != 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **nv = realloc(v, (size_t)cap * sizeof(*v));
			if (!nv)
				goto nomem;
			v = nv;
		}
		if (!(v[n] = strdup(de->d_name)))
			goto nomem;
		n++;
	}
	closedir(d);
	*names = v;
	return n;
nomem:
	closedir(d);
	gb_strv_free(v, n);
	return -ENOMEM;
}

static int proc_in_set(const char *pid, const unsigned long *inos, int ninos)
{
	char p[64];
	struct stat st;
	snprintf(p, sizeof(p), "/proc/%s/ns/net", pid);
	if (stat(p, &st) < 0)
		return 0;
	for (int i = 0; i < ninos; i++)
		if ((unsigned long)st.st_ino == inos[i])
			return 1;
	return 0;
}

int gb_netns_signal_procs(const unsigned long *inos, int ninos, int sig,
			  int (*match)(const void *arg, long pid), const void *arg)
{
	int count = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	struct dirent *de;
	pid_t self = getpid();
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self)
			continue;
		if (!proc_in_set(de->d_name, inos, ninos))
			continue;
		if (match && !match(arg, pid))
			continue;
		if (sig)
			kill((pid_t)pid, sig);
		count++;
	}
	closedir(d);
	return count;
}

int gb_netns_kill_procs(const unsigned long *inos, int ninos)
{
	if (ninos <= 0)
		return 0;
	int n = gb_netns_signal_procs(inos, ninos, SIGKILL, NULL, NULL);
	for (int i = 0; i < 200 && n && gb_netns_signal_procs(inos, ninos, 0, NULL, NULL); i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return n;
}
