/* SPDX-License-Identifier: MIT */
/*
 * cgroup.c - CPU quotas per emulated host (cgroup.h).
 *
 * Only files under MOUNT/gridbed-PREFIX/ (and a campaign's
 * MOUNT2/gridbed-PREFIX-exp/ on the first cgroup2 mount) are ever created
 * or removed, and
 * the only other write is enabling the cpu controller in the v2 root's
 * cgroup.subtree_control, which the kernel needs before any child can have
 * a cpu.max (it changes no limit of anything else).
 */
#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_US 20000ull
#define MIN_QUOTA_US 1000ull
#define MAX_PERIOD_US 1000000ull

const char *gb_cpuctl_name(enum gb_cpuctl_kind k)
{
	switch (k) {
	case GB_CPUCTL_V2: return "v2 cpu.max";
	case GB_CPUCTL_V1: return "v1 cpu.cfs_quota_us";
	default: return "none";
	}
}

int gb_cpu_quota(double share, uint64_t *quota_us, uint64_t *period_us)
{
	uint64_t p = PERIOD_US;

	if (!(share > 0) || share > 1)
		return -EINVAL;
	if (share * (double)p < (double)MIN_QUOTA_US)
		p = (uint64_t)((double)MIN_QUOTA_US / share + 0.999999);
	if (p > MAX_PERIOD_US)
		return -EINVAL;	/* below 0.1 % of a core: not enforceable */
	*period_us = p;
	*quota_us = (uint64_t)(share * (double)p + 0.5);
	if (*quota_us < MIN_QUOTA_US)
		*quota_us = MIN_QUOTA_US;
	return 0;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		buf[0] = 0;
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = -errno;
	close(fd);
	return err;
}

/* Is @word one of the comma- or space-separated words of @list? */
static int has_word(const char *list, const char *word, const char *seps)
{
	size_t n = strlen(word);

	for (const char *p = list; *p;) {
		size_t m = strcspn(p, seps);

		if (m == n && !strncmp(p, word, n))
			return 1;
		p += m;
		p += strspn(p, seps);
	}
	return 0;
}

/* Both candidates: the first cgroup2 mount with the cpu controller and the
 * first writable v1 cpu mount (either may be absent: empty @v2[0]/@v1[0]). */
static int find_mounts(struct gb_cpuctl *v2, struct gb_cpuctl *v1)
{
	char line[4096], p[512];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	memset(v2, 0, sizeof(*v2));
	memset(v1, 0, sizeof(*v1));
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char root[256], mnt[256], fstype[64], super[1024];
		char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %255s %255s", root, mnt) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", fstype, super) != 2)
			continue;
		if (!strcmp(fstype, "cgroup2") && !v2->mount[0]) {
			char ctl[512];

			snprintf(p, sizeof(p), "%s/cgroup.controllers", mnt);
			if (read_line(p, ctl, sizeof(ctl)) == 0 && has_word(ctl, "cpu", " ")) {
				v2->kind = GB_CPUCTL_V2;
				snprintf(v2->mount, sizeof(v2->mount), "%s", mnt);
				snprintf(v2->root, sizeof(v2->root), "%s", root);
			}
		} else if (!strcmp(fstype, "cgroup") && !v1->mount[0] && has_word(super, "cpu", ",")) {
			snprintf(p, sizeof(p), "%s/cpu.cfs_quota_us", mnt);
			if (access(p, R_OK | W_OK) == 0) {
				v1->kind = GB_CPUCTL_V1;
				snprintf(v1->mount, sizeof(v1->mount), "%s", mnt);
				snprintf(v1->root, sizeof(v1->root), "%s", root);
			}
		}
	}
	fclose(f);
	return 0;
}

enum gb_cpuctl_kind gb_cpuctl_probe(struct gb_cpuctl *c)
{
	struct gb_cpuctl v2, v1;
	const char *force = getenv("GRIDBED_CPUCTL");
	int err = find_mounts(&v2, &v1);

	memset(c, 0, sizeof(*c));
	if (err < 0) {
		snprintf(c->why, sizeof(c->why), "cannot read /proc/self/mountinfo: %s",
			 strerror(-err));
		return GB_CPUCTL_NONE;
	}
	/* GRIDBED_CPUCTL=v1|v2|none narrows the choice (tests, comparisons) */
	if (force && *force) {
		if (strcmp(force, "v2"))
			v2.mount[0] = 0;
		if (strcmp(force, "v1"))
			v1.mount[0] = 0;
		if (!v1.mount[0] && !v2.mount[0]) {
			snprintf(c->why, sizeof(c->why), "GRIDBED_CPUCTL=%s%s", force,
				 strcmp(force, "none") ? " is not available" : "");
			return GB_CPUCTL_NONE;
		}
	}
	if (v2.mount[0])
		*c = v2;
	else if (v1.mount[0])
		*c = v1;
	else
		snprintf(c->why, sizeof(c->why), "no cgroup2 mount with the cpu controller and no "
			 "writable cgroup v1 cpu.cfs_quota_us");
	return c->kind;
}

const char *gb_cgroup_describe(const struct gb_topo *t, char *buf, size_t len)
{
	struct gb_cpuctl c;
	int any = 0;

	for (int k = 0; k < t->nclusters; k++)
		any |= t->clusters[k].cpu > 0;
	if (!any)
		snprintf(buf, len, "unused");
	else if (gb_cpuctl_probe(&c) == GB_CPUCTL_NONE)
		snprintf(buf, len, "none: %s", c.why);
	else
		snprintf(buf, len, "%s", gb_cpuctl_name(c.kind));
	return buf;
}

static void grid_dir(const struct gb_cpuctl *c, const char *prefix, char *buf, size_t len)
{
	snprintf(buf, len, "%s/gridbed-%s", c->mount, prefix);
}

static int set_quota(const struct gb_cpuctl *c, const char *dir, double share)
{
	char p[512], v[64];
	uint64_t q, per;
	int err = gb_cpu_quota(share, &q, &per);

	if (err < 0)
		return err;
	if (c->kind == GB_CPUCTL_V2) {
		snprintf(p, sizeof(p), "%s/cpu.max", dir);
		snprintf(v, sizeof(v), "%llu %llu", (unsigned long long)q, (unsigned long long)per);
		return write_str(p, v);
	}
	/* v1: the period first, so that the quota is never checked against
	 * the old one */
	snprintf(p, sizeof(p), "%s/cpu.cfs_period_us", dir);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)per);
	if ((err = write_str(p, v)) < 0)
		return err;
	snprintf(p, sizeof(p), "%s/cpu.cfs_quota_us", dir);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)q);
	return write_str(p, v);
}

int gb_cgroup_setup(const struct gb_grid *g, struct gb_cpuctl *c, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	char dir[512], p[768];
	int any = 0, err;

	gb_cpuctl_probe(c);
	for (int k = 0; k < t->nclusters; k++)
		any |= t->clusters[k].cpu > 0;
	if (!any || c->kind == GB_CPUCTL_NONE)
		return 0;
	grid_dir(c, g->prefix, dir, sizeof(dir));
	if (c->kind == GB_CPUCTL_V2) {
		/* children of the root can only get cpu.max once the root
		 * delegates the controller */
		snprintf(p, sizeof(p), "%s/cgroup.subtree_control", c->mount);
		if ((err = write_str(p, "+cpu")) < 0) {
			gb_err_set(e, "cannot enable the cpu controller in '%s': %s", p,
				   strerror(-err));
			return err;
		}
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		err = -errno;
		gb_err_set(e, "cannot create cgroup '%s': %s", dir, strerror(errno));
		return err;
	}
	if (c->kind == GB_CPUCTL_V2) {
		snprintf(p, sizeof(p), "%s/cgroup.subtree_control", dir);
		if ((err = write_str(p, "+cpu")) < 0) {
			gb_err_set(e, "cannot enable the cpu controller in '%s': %s", p,
				   strerror(-err));
			return err;
		}
	}
	for (int k = 0; k < t->nclusters; k++) {
		const struct gb_cluster *cl = &t->clusters[k];

		if (!(cl->cpu > 0))
			continue;
		for (int h = cl->first_host; h < cl->first_host + cl->nhosts; h++) {
			snprintf(p, sizeof(p), "%s/%s", dir, t->nodes[h].name);
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				err = -errno;
				gb_err_set(e, "cannot create cgroup '%s': %s", p, strerror(errno));
				return err;
			}
			if ((err = set_quota(c, p, cl->cpu)) < 0) {
				gb_err_set(e, "host '%s': cannot set a CPU quota of %g core in '%s': %s",
					   t->nodes[h].name, cl->cpu, p, strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

/* Remove the cgroup @dir (without children), moving what is still in it
 * to @to (a cgroup.procs file) first. */
static int rm_cg_to(const char *dir, const char *to)
{
	char p[PATH_MAX], line[64];

	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	for (int tries = 0; tries < 100; tries++) {
		FILE *f;

		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		/* down has killed the grid's processes; exiting ones may still
		 * be listed for a moment, anything else goes to @to */
		if ((f = fopen(p, "re"))) {
			while (fgets(line, sizeof(line), f))
				write_str(to, line);
			fclose(f);
		}
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}
	return -EBUSY;
}

/* Move whatever is still in @dir to the hierarchy's root, then remove it. */
static int rm_cgroup(const struct gb_cpuctl *c, const char *dir)
{
	char root[512];

	snprintf(root, sizeof(root), "%s/cgroup.procs", c->mount);
	return rm_cg_to(dir, root);
}

static int remove_in(const struct gb_cpuctl *c, const char *prefix)
{
	char dir[512], p[1024];
	DIR *d;
	struct dirent *de;
	int err = 0, r;

	grid_dir(c, prefix, dir, sizeof(dir));
	if (!(d = opendir(dir)))
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct stat sb;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && (r = rm_cgroup(c, p)) < 0 && !err)
			err = r;
	}
	closedir(d);
	if ((r = rm_cgroup(c, dir)) < 0 && !err)
		err = r;
	return err;
}

static int exp_remove(const char *mnt, const char *prefix);
static int cgroup2_mount(char *mnt, size_t len);

/* Wherever they were made (GRIDBED_CPUCTL may have chosen v1 over v2), and
 * a campaign's experiment cgroups (gb_cgroup_exp_enter()) left by a crash. */
int gb_cgroup_remove(const char *prefix)
{
	struct gb_cpuctl v2, v1;
	char mnt[256];
	int e2 = 0, e1 = 0;

	if (cgroup2_mount(mnt, sizeof(mnt)) == 0)
		exp_remove(mnt, prefix);
	if (find_mounts(&v2, &v1) < 0)
		return 0;
	if (v2.mount[0])
		e2 = remove_in(&v2, prefix);
	if (v1.mount[0])
		e1 = remove_in(&v1, prefix);
	return e2 < 0 ? e2 : e1;
}

int gb_cgroup_join(const char *prefix, const char *node)
{
	struct gb_cpuctl c;
	char p[768], pid[32];

	if (gb_cpuctl_probe(&c) == GB_CPUCTL_NONE)
		return 1;
	grid_dir(&c, prefix, p, sizeof(p));
	snprintf(p + strlen(p), sizeof(p) - strlen(p), "/%s", node);
	if (access(p, F_OK) < 0)
		return 1;
	strncat(p, "/cgroup.procs", sizeof(p) - strlen(p) - 1);
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	return write_str(p, pid);
}

int gb_cgroup_read(pid_t pid, struct gb_cpu_limit *l)
{
	struct gb_cpuctl c;
	char p[512], line[1024], rel[512] = "", v[128];
	FILE *f;

	memset(l, 0, sizeof(*l));
	l->quota_us = -1;
	if ((l->kind = gb_cpuctl_probe(&c)) == GB_CPUCTL_NONE)
		return 0;
	if (pid)
		snprintf(p, sizeof(p), "/proc/%ld/cgroup", (long)pid);
	else
		snprintf(p, sizeof(p), "/proc/self/cgroup");
	if (!(f = fopen(p, "re")))
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;

		if (!b)
			continue;
		*b = 0;
		b[1 + strcspn(b + 1, "\n")] = 0;
		if ((c.kind == GB_CPUCTL_V2 && a[1] == 0) ||
		    (c.kind == GB_CPUCTL_V1 && has_word(a + 1, "cpu", ","))) {
			snprintf(rel, sizeof(rel), "%s", b + 1);
			break;
		}
	}
	fclose(f);
	snprintf(l->path, sizeof(l->path), "%s", rel);
	/* the path is relative to the hierarchy's root; the mount may show a
	 * subtree of it (containers) */
	{
		size_t rl = strlen(c.root);
		const char *sub = rel;

		if (rl > 1 && !strncmp(rel, c.root, rl))
			sub = rel + rl;
		snprintf(p, sizeof(p), "%s%s", c.mount, sub);
	}
	if (c.kind == GB_CPUCTL_V2) {
		char q[32];
		long long per = 0;

		snprintf(line, sizeof(line), "%s/cpu.max", p);
		if (read_line(line, v, sizeof(v)) < 0)
			return 0;	/* the root has no cpu.max: unlimited */
		if (sscanf(v, "%31s %lld", q, &per) != 2)
			return -EPROTO;
		l->quota_us = strcmp(q, "max") ? atoll(q) : -1;
		l->period_us = per;
		return 0;
	}
	snprintf(line, sizeof(line), "%s/cpu.cfs_quota_us", p);
	if (read_line(line, v, sizeof(v)) < 0)
		return -EIO;
	l->quota_us = atoll(v);
	snprintf(line, sizeof(line), "%s/cpu.cfs_period_us", p);
	if (read_line(line, v, sizeof(v)) < 0)
		return -EIO;
	l->period_us = atoll(v);
	return 0;
}

/* ---- the experiment's own cgroup v2 (gb_cgroup_exp_*()) ------------------ */

/* The first cgroup2 mount, whatever its controllers, into @mnt; -ENOENT if none. */
static int cgroup2_mount(char *mnt, size_t len)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = 0;

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		char m[256], fstype[64];
		char *dash = strstr(line, " - ");

		if (dash && sscanf(line, "%*s %*s %*s %*s %255s", m) == 1 &&
		    sscanf(dash + 3, "%63s", fstype) == 1 && !strcmp(fstype, "cgroup2")) {
			snprintf(mnt, len, "%s", m);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

static void exp_dir(const char *mnt, const char *prefix, char *buf, size_t len)
{
	snprintf(buf, len, "%s/gridbed-%s-exp", mnt, prefix);
}

/* The experiment's cgroups of @prefix under @mnt, if any, removed. */
static int exp_remove(const char *mnt, const char *prefix)
{
	char top[PATH_MAX - 32], p[PATH_MAX], to[PATH_MAX];
	int err = 0, r;

	exp_dir(mnt, prefix, top, sizeof(top));
	snprintf(to, sizeof(to), "%s/cgroup.procs", mnt);
	for (int k = 0; k < 2; k++) {
		snprintf(p, sizeof(p), "%s/%s", top, k ? "planner" : "work");
		if ((r = rm_cg_to(p, to)) < 0 && !err)
			err = r;
	}
	if ((r = rm_cg_to(top, to)) < 0 && !err)
		err = r;
	return err;
}

int gb_cgroup_exp_enter(const char *prefix, struct gb_cgexp *x)
{
	char mnt[256], top[PATH_MAX - 32], line[PATH_MAX], p[PATH_MAX], pid[32];
	FILE *f;
	int err;

	memset(x, 0, sizeof(*x));
	if ((err = cgroup2_mount(mnt, sizeof(mnt))) < 0) {
		snprintf(x->why, sizeof(x->why), "no cgroup2 mount");
		return err;
	}
	/* where this process is now, to go back there: "0::/PATH" */
	if (!(f = fopen("/proc/self/cgroup", "re"))) {
		err = -errno;
		snprintf(x->why, sizeof(x->why), "cannot read /proc/self/cgroup: %s", strerror(errno));
		return err;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(x->orig, sizeof(x->orig), "%s%s/cgroup.procs", mnt, line + 3);
		}
	fclose(f);
	if (!x->orig[0])
		snprintf(x->orig, sizeof(x->orig), "%s/cgroup.procs", mnt);
	exp_remove(mnt, prefix);	/* a crashed campaign's, if any */
	exp_dir(mnt, prefix, top, sizeof(top));
	snprintf(x->work, sizeof(x->work), "%s/work", top);
	snprintf(x->planner, sizeof(x->planner), "%s/planner", top);
	if ((mkdir(top, 0755) < 0 && errno != EEXIST) || mkdir(x->work, 0755) < 0 ||
	    mkdir(x->planner, 0755) < 0) {
		err = -errno;
		snprintf(x->why, sizeof(x->why), "cannot create cgroups in %s: %s", top,
			 strerror(errno));
		exp_remove(mnt, prefix);
		return err;
	}
	snprintf(p, sizeof(p), "%s/cgroup.procs", x->work);
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if ((err = write_str(p, pid)) < 0) {
		snprintf(x->why, sizeof(x->why), "cannot join %s: %s", x->work, strerror(-err));
		exp_remove(mnt, prefix);
		return err;
	}
	snprintf(x->mount, sizeof(x->mount), "%s", mnt);
	snprintf(x->prefix, sizeof(x->prefix), "%s", prefix);
	snprintf(x->pressure, sizeof(x->pressure), "%s/cpu.pressure", x->work);
	x->on = 1;
	return 0;
}

int gb_cgroup_exp_place(const struct gb_cgexp *x, pid_t pid)
{
	char p[PATH_MAX], v[32];

	if (!x->on)
		return -ENOENT;
	snprintf(p, sizeof(p), "%s/cgroup.procs", x->planner);
	snprintf(v, sizeof(v), "%ld", (long)pid);
	return write_str(p, v);
}

void gb_cgroup_exp_leave(struct gb_cgexp *x)
{
	char pid[32];

	if (!x->on)
		return;
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	write_str(x->orig, pid);
	exp_remove(x->mount, x->prefix);
	x->on = 0;
}
