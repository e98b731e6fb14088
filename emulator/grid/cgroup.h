/* SPDX-License-Identifier: MIT */
/*
 * cgroup.h - heterogeneous processors: a CPU quota per emulated host, from
 * the `cpu` share of its cluster in the topology (docs/topology-format.md).
 *
 * The kernel's CPU bandwidth controller enforces it, through whichever
 * interface the machine has, probed at run time:
 *
 *	v2  a cgroup2 mount whose cgroup.controllers lists "cpu":
 *	    DIR/cpu.max = "QUOTA PERIOD"
 *	v1  a cgroup (v1) mount of the "cpu" controller:
 *	    DIR/cpu.cfs_period_us = PERIOD, DIR/cpu.cfs_quota_us = QUOTA
 *	    (the development VMs have only this: their cgroup2 mount has no
 *	    cpu controller)
 *	none  the grid runs without quotas; `gridemu up` says so on one line
 *	    and state.json records it ("cpu_control")
 *
 * GRIDBED_CPUCTL=v2, v1 or none restricts the probe to that interface (none:
 * run without quotas), for tests and comparisons.
 *
 * with DIR = MOUNT/gridbed-PREFIX/HOST, created by `gridemu up` for every
 * host of a cluster that has a `cpu` share, and removed (with the prefix's
 * directory) by `gridemu down`, after a crash too: down finds them by name.
 * `gridemu exec` and every `gridemu mpirun` rank (its orted, through the
 * launch agent) join their host's cgroup before they run anything, so
 * every process of the host shares its quota.
 *
 * The arithmetic.  `cpu: S` is S of one core per host:
 *
 *	quota = S * period,  period = 20 ms, longer when S < 5 % (the kernel's
 *	smallest quota is 1 ms): period = max(20 ms, 1 ms / S)
 *
 * 20 ms rather than the kernel's 100 ms default so that a throttled rank
 * waits at most ~20 ms at a time, well inside one iteration of the
 * experiments.  A quota only bites when it is below what the host would
 * get anyway: H busy processes on C cores get about C/H core each, so on
 * a 2-core box running 8 + 8 ranks (0.125 core each) "one machine at half
 * the CPU of the other" needs both clusters quota'd below that, e.g.
 * cpu 0.10 and 0.05 (8 x 0.15 = 1.2 cores in all, so the box can give
 * both their full quota and the ratio is the configured 2:1).
 */
#ifndef GRIDBED_CGROUP_H
#define GRIDBED_CGROUP_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "gbemu.h"

enum gb_cpuctl_kind {
	GB_CPUCTL_NONE = 0,
	GB_CPUCTL_V2,
	GB_CPUCTL_V1,
};

/** What the kernel offers. */
struct gb_cpuctl {
	enum gb_cpuctl_kind kind;
	char mount[256];         /**< the hierarchy's mount point */
	char root[256];          /**< the mount's root within the hierarchy ("/" usually) */
	char why[256];           /**< NONE: why neither works */
};

/**
 * gb_cpuctl_probe() - find the CPU bandwidth controller: v2 first, then
 * v1 (/proc/self/mountinfo, cgroup.controllers, cpu.cfs_quota_us).
 * Return: the kind (GB_CPUCTL_NONE with @c->why filled when neither).
 */
enum gb_cpuctl_kind gb_cpuctl_probe(struct gb_cpuctl *c);

/** gb_cpuctl_name() - "v2 cpu.max", "v1 cpu.cfs_quota_us" or "none". */
const char *gb_cpuctl_name(enum gb_cpuctl_kind k);

/**
 * gb_cpu_quota() - the arithmetic above: @share of one core, in (0, 1],
 * as a quota and period in microseconds.  Return: 0 or -EINVAL.
 */
int gb_cpu_quota(double share, uint64_t *quota_us, uint64_t *period_us);

/**
 * gb_cgroup_setup() - `gridemu up`: a cgroup with its quota for every host
 * of every cluster with a `cpu` share.  Nothing to do (and 0) when no
 * cluster has one or when the probe finds no controller (@c says which).
 * Return: 0 or -errno (@e explains); the caller's undo removes what was made.
 */
int gb_cgroup_setup(const struct gb_grid *g, struct gb_cpuctl *c, struct gb_err *e);

/**
 * gb_cgroup_describe() - one line for state.json's "cpu_control": "unused"
 * (no cluster of @t has a `cpu` share), the interface in use ("v1
 * cpu.cfs_quota_us"), or "none: WHY" (shares asked for, not enforced).
 */
const char *gb_cgroup_describe(const struct gb_topo *t, char *buf, size_t len);

/** gb_cgroup_remove() - `gridemu down`: remove the prefix's cgroups; idempotent. */
int gb_cgroup_remove(const char *prefix);

/**
 * gb_cgroup_join() - move the calling process into host @node's cgroup of
 * grid @prefix.  Return: 0 joined, 1 the host has no quota (nothing to
 * join), or -errno.
 */
int gb_cgroup_join(const char *prefix, const char *node);

/** The quota that applies to a process (gb_cgroup_read()). */
struct gb_cpu_limit {
	enum gb_cpuctl_kind kind;
	char path[256];          /**< its cgroup, as /proc/PID/cgroup names it */
	int64_t quota_us;        /**< -1: unlimited */
	int64_t period_us;
};

/**
 * gb_cgroup_read() - read back the quota of process @pid (0 = self) from
 * its cgroup's files: what the kernel enforces, not what was asked.
 * Return: 0 (kind NONE when there is no controller), or -errno.
 */
int gb_cgroup_read(pid_t pid, struct gb_cpu_limit *l);

/**
 * struct gb_cgexp - a campaign's own cgroup v2 (gb_cgroup_exp_enter()): the
 * fidelity monitor's CPU pressure is read from its `work` group, which
 * holds the campaign and everything it starts (the delay line, the ranks,
 * the loads, gridmon), and not from the whole machine's, so that a
 * planner that only takes the CPU the experiment leaves (gridadvisor at
 * nice 19, in the `planner` group) is not counted as starving it.
 */
struct gb_cgexp {
	int on;                  /**< 1: entered */
	char mount[256];         /**< the cgroup2 mount */
	char prefix[64];
	char work[PATH_MAX - 64], planner[PATH_MAX - 64];  /**< the two groups' directories */
	char pressure[PATH_MAX]; /**< work's cpu.pressure */
	char orig[PATH_MAX];     /**< the cgroup.procs the caller came from */
	char why[PATH_MAX];      /**< why not entered */
};

/**
 * gb_cgroup_exp_enter() - create MOUNT/gridbed-@prefix-exp/{work,planner}
 * on the first cgroup2 mount (any controllers: cpu.pressure is the kernel's
 * pressure stall information of a group, there without a controller),
 * after removing a crashed campaign's, and move the calling process into
 * `work`: its children are born there.  `gridemu down` (gb_cgroup_remove())
 * removes them too.  Processes that join a host's cgroup on the same
 * cgroup2 hierarchy (a v2 CPU quota, gb_cgroup_join()) leave `work`.
 * Return: 0, -ENOENT (no cgroup2 mount), -errno; @x->why says why not.
 */
int gb_cgroup_exp_enter(const char *prefix, struct gb_cgexp *x);

/** gb_cgroup_exp_place() - move process @pid into @x's `planner` group. Return: 0 or -errno. */
int gb_cgroup_exp_place(const struct gb_cgexp *x, pid_t pid);

/** gb_cgroup_exp_leave() - move the caller back where it came from and remove @x's groups. */
void gb_cgroup_exp_leave(struct gb_cgexp *x);

#endif
