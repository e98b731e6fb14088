/* SPDX-License-Identifier: MIT */
/*
 * fidelity.h - did the machine emulate what it was asked to?  (issue 16,
 * "A fidelity monitor on every run"; in the spirit of Mininet-HiFi's
 * performance-fidelity checks.)  A run samples the grid now and then and
 * judges any interval between two samples.
 *
 * A sample holds:
 *   - the delay line's totals (gridemu-tapd's `fidelity` request): packets
 *     released, packets released late (more than GB_FID_LATE_NS of the
 *     topology's time after their deadline: x k on the wire of a dilated
 *     grid, dilate.h; counted from the daemon's histogram, to 6 %), packets
 *     the machine lost (the daemon's pool ran out, or a write failed) -
 *     none under the netem backend, where the kernel holds the packets and
 *     no daemon can fall behind;
 *   - optionally its lateness histogram, for quantiles over the interval;
 *   - the CPU pressure ("some": the time during which at least one runnable
 *     task waited for a CPU), when the kernel has PSI: of the experiment's
 *     own cgroup where the caller made one (a campaign's, cgroup.h: its
 *     ranks, delay line, loads and monitor, not a planner that only takes
 *     the CPU they leave), else of the whole machine (/proc/pressure/cpu);
 *   - the CPU time the machine used (/proc/stat) and the delay line's own
 *     (its /proc/PID/stat), reported, not judged: what the harness itself
 *     costs, where a time dilation is chosen (issue 44);
 *   - the CPU time the hypervisor took from the machine's vCPUs (/proc/stat's
 *     steal), reported, not judged, and named beside late packets: a vCPU
 *     that is not run releases nothing, so on a virtual machine late
 *     packets come with it (session 45: two-clusters at k = 16, runs of
 *     about 2500 packets, 0 late with 1 tick of steal, 3-7 late with 7-16
 *     ticks, and 1.3-1.8 % late in the runs that strayed).
 *
 * An interval strayed (the stated thresholds; choices, since no paper
 * gives any):
 *   - more than GB_FID_MAX_LATE_SHARE of its packets were released late:
 *     the delays the experiment saw were not the configured ones;
 *   - any packet was lost by the machine (not by the configured loss or a
 *     full queue, which are the emulation working);
 *   - the CPU pressure exceeded GB_FID_MAX_CPU_SOME of the interval: for
 *     most of it some task - a rank, the delay line, a load flow - was
 *     waiting for a CPU, so what was timed is the machine's CPU, not the
 *     emulated network.  Judged over whole runs only (gb_fid_judge()'s
 *     @cpu): sampled every 100 ms or so, the pressure is coarser than most
 *     broadcasts, and a broadcast's own forwarding ranks are runnable
 *     together for its length.
 */
#ifndef GRIDBED_FIDELITY_H
#define GRIDBED_FIDELITY_H

#include <stdint.h>

#include "gbemu.h"
#include "tapd_queue.h"

/** Lateness (topology time) from which a released packet is late. */
#define GB_FID_LATE_NS 100000.0
/** Share of late packets above which an interval strayed. */
#define GB_FID_MAX_LATE_SHARE 0.01
/** Share of the interval with CPU pressure above which it strayed. */
#define GB_FID_MAX_CPU_SOME 0.5

/** One sample of the grid's fidelity counters. */
struct gb_fid_sample {
	double t;               /**< CLOCK_MONOTONIC seconds */
	int delay_line;         /**< 1: the tap delay line answered; 0: none here */
	uint64_t tx;            /**< packets the delay line released */
	uint64_t late;          /**< of which late (GB_FID_LATE_NS, topology time) */
	uint64_t lost;          /**< packets the machine lost (no memory, write errors) */
	double cpu_some_s;      /**< cumulative CPU pressure "some", s; < 0 unknown */
	double machine_some_s;  /**< the same of the whole machine (the same as
				     cpu_some_s when that is the machine's) */
	double cpu_busy_s;      /**< the machine's CPU time used (/proc/stat), s; < 0 unknown */
	double cpu_steal_s;     /**< of which the hypervisor took (steal), s; < 0 unknown */
	double delay_line_cpu_s; /**< the delay line's CPU time, s; < 0 none or unknown */
};

/** The judgement of one interval. */
struct gb_fid_verdict {
	double seconds;         /**< the interval's length */
	uint64_t packets, late, lost;
	double late_share;      /**< late / packets (0 without packets) */
	double cpu_some_share;  /**< CPU pressure / seconds; < 0 unknown */
	double machine_some_share; /**< the whole machine's, reported only; < 0 unknown */
	double cpu_busy_share;  /**< CPU time used / (seconds x CPUs); < 0 unknown */
	double cpu_steal_share; /**< CPU time the hypervisor took, same unit; < 0 unknown */
	double delay_line_cpu_share; /**< the delay line's part of it, same unit; < 0 unknown */
	uint64_t p50_ns, p99_ns, max_ns; /**< lateness quantiles (0 without histograms) */
	int strayed;            /**< past a threshold above */
	char why[192];          /**< which, in words; "" when none */
};

/**
 * gb_fid_sample() - sample @g now into @s, and the delay line's lateness
 * histogram into @hist when it is not NULL (zeroed when there is none).
 * The CPU pressure is read from @psi, a cgroup's cpu.pressure (the
 * experiment's own, cgroup.h's gb_cgroup_exp_enter()), or from the whole
 * machine's /proc/pressure/cpu when @psi is NULL.
 * A delay line that does not answer is not an error here (health is
 * gb_grid_health()'s business): @s->delay_line is then 0.
 * Return: 0 or -errno.
 */
int gb_fid_sample(struct gb_grid *g, const char *psi, struct gb_fid_sample *s,
		  struct tq_hist *hist);

/**
 * gb_fid_judge() - judge the interval from sample @a to the later @b into
 * @v; @ha and @hb are their histograms, or NULL (no quantiles); @cpu: the
 * CPU pressure counts (a whole run), else it is only reported.
 * Quantiles are wire time (the daemon's).
 */
void gb_fid_judge(const struct gb_fid_sample *a, const struct gb_fid_sample *b,
		  const struct tq_hist *ha, const struct tq_hist *hb, int cpu,
		  struct gb_fid_verdict *v);

#endif /* GRIDBED_FIDELITY_H */
