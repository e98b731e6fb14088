/* SPDX-License-Identifier: MIT */
/*
 * netns.h - named network namespaces, compatible with iproute2's
 * /run/netns/NAME convention so that `ip netns exec` works on a live grid.
 *
 * A namespace is created without ever leaving the caller in it: the calling
 * thread unshares, bind-mounts its new namespace onto /run/netns/NAME and
 * switches back to the namespace it started in (docs/architecture.md, practice 2).
 */
#ifndef GRIDBED_NETNS_H
#define GRIDBED_NETNS_H

#include <stddef.h>
#include <sys/types.h>

#ifndef GB_WUR
#define GB_WUR __attribute__((warn_unused_result))
#endif

#define GB_NETNS_DIR "/run/netns"

/**
 * gb_netns_create() - create the named namespace @name.
 * Return: an O_CLOEXEC fd of the new namespace (>= 0), -EEXIST if the name
 * is taken, or -errno.  On failure nothing is left behind.
 */
GB_WUR int gb_netns_create(const char *name);

/** gb_netns_open() - fd of an existing named namespace, or -errno. */
GB_WUR int gb_netns_open(const char *name);

/**
 * gb_netns_delete() - unmount and remove /run/netns/@name.  The namespace
 * itself disappears when no process and no fd holds it any more.
 * Return: 0, or -ENOENT if it did not exist, or -errno.
 */
int gb_netns_delete(const char *name);

/** gb_netns_exists() - 1 if /run/netns/@name exists, else 0. */
int gb_netns_exists(const char *name);

/**
 * struct gb_nsguard - a saved "current namespace", restored by
 * gb_nsguard_leave().  Enter/leave nest strictly.
 */
struct gb_nsguard {
	int saved;
};

/** gb_nsguard_enter() - save the current netns and switch to @nsfd. */
GB_WUR int gb_nsguard_enter(struct gb_nsguard *g, int nsfd);

/** gb_nsguard_leave() - switch back; safe to call twice. */
void gb_nsguard_leave(struct gb_nsguard *g);

/**
 * gb_netns_sysctl_write() - write @val to @path (a /proc/sys/net file) as
 * seen from namespace @nsfd: net sysctls resolve to the namespace of the
 * task that opens them.  Return: 0 or -errno.
 */
int gb_netns_sysctl_write(int nsfd, const char *path, const char *val);

/** One write of gb_netns_sysctl_writev(), and how it went. */
struct gb_sysctl {
	const char *path;       /**< a /proc/sys/net file */
	const char *val;
	int err;                /**< out: 0 or -errno */
};

/**
 * gb_netns_sysctl_writev() - gb_netns_sysctl_write() of each of the @n
 * writes @v in turn, entering namespace @nsfd once for all of them (a host
 * has seven: each namespace switch costs two system calls and an open).
 * Return: 0, each v[i].err saying how its write went; or -errno when the
 * namespace cannot be entered (nothing written).
 */
int gb_netns_sysctl_writev(int nsfd, struct gb_sysctl *v, size_t n);

/**
 * gb_netns_sysctl_read() - the value of @path in namespace @nsfd, without
 * the trailing newline, into @buf.  Return: 0 or -errno.
 */
int gb_netns_sysctl_read(int nsfd, const char *path, char *buf, size_t len);

/**
 * gb_netns_inode() - the inode number identifying the namespace behind
 * @nsfd, to recognise processes that live in it (/proc/PID/ns/net).
 */
int gb_netns_inode(int nsfd, unsigned long *ino);

/**
 * gb_netns_list_prefix() - names in /run/netns starting with "@prefix-".
 * @names: receives a malloc'd array of malloc'd strings (free with
 * gb_strv_free()).  Return: count >= 0 or -errno.
 */
GB_WUR int gb_netns_list_prefix(const char *prefix, char ***names);

/** gb_strv_free() - free an array from gb_netns_list_prefix(). */
void gb_strv_free(char **v, int n);

/**
 * gb_netns_signal_procs() - send @sig (0: only count) to every process,
 * except the caller, whose network namespace is one of @inos and, when
 * @match is not NULL, for which @match(@arg, pid) is non-zero.  One pass
 * over /proc: processes that exit meanwhile are skipped.
 * Return: number of processes that matched.
 */
int gb_netns_signal_procs(const unsigned long *inos, int ninos, int sig,
			  int (*match)(const void *arg, long pid), const void *arg);

/**
 * gb_netns_kill_procs() - SIGKILL every process (except the caller) whose
 * network namespace is one of @inos, then wait until they are gone (up to
 * ~2 s).  Return: number of processes signalled.
 */
int gb_netns_kill_procs(const unsigned long *inos, int ninos);

#endif
