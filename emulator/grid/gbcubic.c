// SPDX-License-Identifier: MIT
/*
 * gbcubic.c - load, register, feed and unregister gbcubic, CUBIC on the
 * topology's clock (gbcubic.h says why and when; the program is
 * gbcubic.bpf.c, embedded here as bpftool's skeleton).
 *
 * Registration without a BPF link: the struct_ops map is updated once and
 * the kernel keeps it, and the program and map it holds, after this
 * process exits (as `bpftool struct_ops register` does), so that `up`
 * can return.  Later processes find the two maps by name among the
 * kernel's BPF maps; deleting the struct_ops map's one element unregisters
 * it.  No BPF file system is needed.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "gbcubic.h"
#include "gbemu.h"
#include "netns.h"

#ifdef GB_HAVE_GBCUBIC

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gbcubic.skel.h"

#define MAP_OPS "gb_cubic"             /* the struct_ops map: the variable's name */
#define MAP_DILATE "gb_cubic_dilate"   /* namespace inode -> k x 1000 */
#define MAX_KEYS 4096                  /* the map's max_entries */
#define LOCK_PATH "/run/lock/gridbed-gbcubic.lock"

/* The machine-wide lock (above): a descriptor to close, or -errno. */
static int lock_machine(void)
{
	int fd = open(LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			int err = -errno;

			close(fd);
			return err;
		}
	}
	return fd;
}

/* libbpf's first warning of a load, for the error; library code prints nothing */
static char first_warning[200];

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN && !first_warning[0]) {
		vsnprintf(first_warning, sizeof(first_warning), fmt, ap);
		first_warning[strcspn(first_warning, "\n")] = '\0';
	}
	return 0;
}

/*
 * A descriptor of the kernel's BPF map named @name of @type, or -ENOENT.
 * The newest (highest id) when there are several: an unregistered
 * gbcubic's maps outlive it for a moment, and ids only grow.
 */
static int map_by_name(const char *name, enum bpf_map_type type)
{
	__u32 id = 0;
	int best = -ENOENT;

	while (bpf_map_get_next_id(id, &id) == 0) {
		struct bpf_map_info info;
		__u32 len = sizeof(info);
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0)
			continue;       /* gone since the walk saw it */
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && info.type == type &&
		    !strcmp(info.name, name)) {
			if (best >= 0)
				close(best);
			best = fd;
		} else {
			close(fd);
		}
	}
	return best;
}

/*
 * The Kconfig text to open gbcubic with: NULL (libbpf reads the running
 * kernel's config) when /boot/config-RELEASE or /proc/config.gz is there,
 * where libbpf looks; else the tick rate gbcubic.bpf.c's choice f assumes.
 * Without either, libbpf 1.1 refuses the object ("failed to open system
 * Kconfig"), CONFIG_HZ being __weak or not: a kernel run from a folder of
 * its own, as emulator/bench/other-kernel.sh boots one, has no /boot copy.
 */
static const char *kconfig_text(void)
{
	struct utsname u;
	char path[sizeof(u.release) + 16];

	if (uname(&u) == 0) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		if (access(path, R_OK) == 0)
			return NULL;
	}
	return access("/proc/config.gz", R_OK) == 0 ? NULL : "CONFIG_HZ=250\n";
}

/*
 * Load gbcubic and register it.  Return: a descriptor of its map of
 * namespaces, -EEXIST when another process registered it meanwhile (@e
 * untouched), or -errno.
 */
static int load_register(struct gb_err *e)
{
	libbpf_print_fn_t old = libbpf_set_print(quiet_print);
	struct gbcubic_bpf *skel;
	struct bpf_link *link;
	int err = 0;
	LIBBPF_OPTS(bpf_object_open_opts, opts, .kconfig = kconfig_text());

	first_warning[0] = '\0';
	skel = gbcubic_bpf__open_opts(&opts);
	if (skel && (err = gbcubic_bpf__load(skel)) < 0) {
		gbcubic_bpf__destroy(skel);
		skel = NULL;
		errno = -err;
	}
	if (!skel) {
		err = errno ? -errno : -EINVAL;
		gb_err_set(e, "cannot load gbcubic (CUBIC on the topology's clock) into the "
			   "kernel: %s%s%s", strerror(-err), first_warning[0] ? ": " : "",
			   first_warning);
		goto out;
	}
	link = bpf_map__attach_struct_ops(skel->maps.gb_cubic);
	if (!link) {
		err = errno ? -errno : -EINVAL;
		if (err != -EEXIST)     /* else another grid's up registered it meanwhile */
			gb_err_set(e, "cannot register gbcubic as a congestion control: %s",
				   strerror(-err));
	} else {
		/* keep it registered when this process exits */
		bpf_link__disconnect(link);
		bpf_link__destroy(link);
		if ((err = dup(bpf_map__fd(skel->maps.gb_cubic_dilate))) < 0) {
			err = -errno;
			gb_err_set(e, "cannot keep gbcubic's map: %s", strerror(-err));
		}
	}
	gbcubic_bpf__destroy(skel);
out:
	libbpf_set_print(old);
	return err;
}

int gb_gbcubic_built(void)
{
	return 1;
}

static int attach_locked(const int *nsfd, int n, __u32 k, struct gb_err *e)
{
	char avail[512];
	int fd, r = gb_tcp_cc_available(GB_GBCUBIC_NAME, avail, sizeof(avail));

	if (r < 0) {
		gb_err_set(e, "cannot read the kernel's congestion controls: %s", strerror(-r));
		return r;
	}
	fd = r == 0 ? load_register(e) : -EEXIST;
	if (fd < 0 && fd != -EEXIST)
		return fd;
	if (fd < 0 && (fd = map_by_name(MAP_DILATE, BPF_MAP_TYPE_HASH)) < 0) {
		gb_err_set(e, "gbcubic is registered but its map '%s' is not found",
			   MAP_DILATE);
		return fd;
	}
	for (int i = 0; i < n && r >= 0; i++) {
		unsigned long ino;
		__u32 key;

		if (nsfd[i] < 0)
			continue;
		if ((r = gb_netns_inode(nsfd[i], &ino)) < 0) {
			gb_err_set(e, "cannot read a namespace's inode: %s", strerror(-r));
			break;
		}
		key = (__u32)ino;
		if ((r = bpf_map_update_elem(fd, &key, &k, BPF_ANY)) < 0)
			gb_err_set(e, "cannot give gbcubic a namespace's clock: %s", strerror(-r));
	}
	close(fd);
	return r < 0 ? r : 0;
}

int gb_gbcubic_attach(const int *nsfd, int n, double dilate, struct gb_err *e)
{
	int r, lk = lock_machine();

	if (lk < 0) {
		gb_err_set(e, "cannot lock %s: %s", LOCK_PATH, strerror(-lk));
		return lk;
	}
	r = attach_locked(nsfd, n, (__u32)lround(dilate * 1000), e);
	close(lk);
	return r;
}

/*
 * The inode numbers of the namespaces in /run/netns (every grid's), read
 * once for a prune, into @ino (at most @max); their count.
 */
static int live_inodes(__u32 *ino, int max)
{
	DIR *d = opendir("/run/netns");
	struct dirent *de;
	int n = 0;

	while (d && n < max && (de = readdir(d))) {
		char p[300];
		struct stat st;

		snprintf(p, sizeof(p), "/run/netns/%s", de->d_name);
		if (de->d_name[0] != '.' && stat(p, &st) == 0)
			ino[n++] = (__u32)st.st_ino;
	}
	if (d)
		closedir(d);
	return n;
}

/* 1 if @key is one of @ino[0..@n-1]. */
static int in_set(__u32 key, const __u32 *ino, int n)
{
	for (int i = 0; i < n; i++)
		if (ino[i] == key)
			return 1;
	return 0;
}

/* gb_gbcubic_prune() under the lock; the newest maps are the registered ones */
static int prune_locked(void)
{
	__u32 *keys = NULL, *live, key, next, zero = 0;
	int fd, ops, nkeys = 0, nlive, left = 0, err = 0;

	if ((fd = map_by_name(MAP_DILATE, BPF_MAP_TYPE_HASH)) < 0)
		return 0;       /* no gbcubic on this machine */
	/* the keys first, then the deletions: a walk does not survive them */
	if (!(keys = malloc(2 * MAX_KEYS * sizeof(*keys)))) {
		close(fd);
		return -ENOMEM;
	}
	live = keys + MAX_KEYS;
	nlive = live_inodes(live, MAX_KEYS);
	for (int r = bpf_map_get_next_key(fd, NULL, &next); r == 0 && nkeys < MAX_KEYS;
	     r = bpf_map_get_next_key(fd, &key, &next))
		keys[nkeys++] = key = next;
	for (int i = 0; i < nkeys; i++) {
		if (in_set(keys[i], live, nlive))
			left++;
		else
			bpf_map_delete_elem(fd, &keys[i]);
	}
	free(keys);
	close(fd);
	if (left)
		return 0;       /* another grid runs it */
	if ((ops = map_by_name(MAP_OPS, BPF_MAP_TYPE_STRUCT_OPS)) < 0)
		return 0;
	/*
	 * -EINPROGRESS: this one is unregistered already and waits for the
	 * last socket that holds it (those of deleted namespaces linger), as
	 * -ENOENT: never registered.  Either way there is nothing to undo.
	 */
	if ((err = bpf_map_delete_elem(ops, &zero)) == -EINPROGRESS || err == -ENOENT)
		err = 0;
	close(ops);
	return err;
}

int gb_gbcubic_prune(void)
{
	char avail[512];
	int r, lk;

	/* not registered: nothing to prune (what an unregistered gbcubic left
	 * dies with its last socket), and no lock file made */
	if (gb_tcp_cc_available(GB_GBCUBIC_NAME, avail, sizeof(avail)) <= 0)
		return 0;
	if ((lk = lock_machine()) < 0)
		return lk;
	r = prune_locked();
	close(lk);
	return r;
}

#else /* a build without clang, bpftool or libbpf (emulator/grid/CMakeLists.txt) */

int gb_gbcubic_built(void)
{
	return 0;
}

int gb_gbcubic_attach(const int *nsfd, int n, double dilate, struct gb_err *e)
{
	(void)nsfd;
	(void)n;
	(void)dilate;
	gb_err_set(e, "this build has no gbcubic: clang, bpftool or libbpf was missing, or "
		   "the build machine's kernel has no BTF");
	return -EOPNOTSUPP;
}

int gb_gbcubic_prune(void)
{
	return 0;
}

#endif
