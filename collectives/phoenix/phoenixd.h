/* SPDX-License-Identifier: MIT */
/*
 * phoenixd.h - what phoenixd's command line (phoenixd_cli.c), its launcher
 * (phoenixd.c: spawning, phases, judging the trees) and its host processes
 * (phoenixd_host.c: the protocol of phoenix.h on one emulated host, over
 * UDP) share: the options, and the pipe protocol between launcher and
 * hosts.  Not an API.
 */
#ifndef GRIDBED_PHOENIXD_H
#define GRIDBED_PHOENIXD_H

#include <math.h>
#include <stdint.h>

#include "gbutil.h"

#include "phoenix.h"

struct opts {
	int port;
	int round_ms;
	int fanout;           /* 0: all peers up to 16 */
	int window;
	double timeout_s;
	int quiet_rounds;     /* 0: 2 cycles + 3 (cycle * window + 3 after --change) */
	double coalesce_ms;
	int hosts;            /* 0: all */
	const char *out;
	const char *change;   /* --change as given, NULL: none; read into: */
	char change_link[128];
	uint64_t change_delay_ns;
	double change_at_s;   /* after the first convergence */
	int no_shortcut, no_serial;
	int serial_every;
	int verbose;
	double dilate;        /* the grid's time dilation k (gb_dilation()), set by
				 the launcher from the grid, not the command line */
};

/*
 * The virtual clock (docs/architecture.md, decision 9; emulator/grid/dilate.h): on a
 * grid dilated by k every time phoenixd deals in, the launcher's and the
 * host processes', is CLOCK_MONOTONIC / k, shared by all of them as the
 * monotonic clock is (decision 4).  So measured round trips and the hold
 * times taken off them are in the topology's units, and the protocol's
 * latencies, thresholds (shortcut_s, the margins) and the trees built on
 * them are too; rounds, coalescing, the convergence timeout and --change's
 * AT_S are virtual, k times longer on the wall clock; every reported time
 * is virtual.  These three functions are the only conversions; timeouts
 * that guard the processes themselves (readiness, collecting parents,
 * reaping, progress lines) stay on the wall clock.
 */

/** phxd_virtual_ns() - a CLOCK_MONOTONIC time (ns) on the virtual clock (/ k). */
static inline uint64_t phxd_virtual_ns(const struct opts *o, uint64_t wall_ns)
{
	return o->dilate > 1 ? (uint64_t)((double)wall_ns / o->dilate) : wall_ns;
}

/** phxd_now() - now on the virtual clock, ns. */
static inline uint64_t phxd_now(const struct opts *o)
{
	return phxd_virtual_ns(o, (uint64_t)gb_now_ns());
}

/** phxd_wall_ms() - a virtual duration (ns) in wall-clock ms for poll(), rounded up. */
static inline int phxd_wall_ms(const struct opts *o, uint64_t virt_ns)
{
	double ms = ceil((double)virt_ns * (o->dilate > 1 ? o->dilate : 1) / 1e6);

	return ms > 1e9 ? 1000000000 : (int)ms;
}

static inline int phx_max_int(int a, int b)
{
	return a > b ? a : b;
}

/**
 * phxd_run() - the launcher (phoenixd.c): one run of the protocol on the live
 * grid with the options @o, checked by the command line (phoenixd_cli.c).
 * Catches the stop signals, prints its lines on stdout and its faults on
 * stderr, and returns the exit status: 0 converged (and again after
 * --change), 1 not, or an error.
 */
int phxd_run(const struct opts *o);

/* ------------------------------------------------------------------ */
/* Launcher <-> host process                                           */
/* ------------------------------------------------------------------ */

enum { REP_READY = 1, REP_STAT, REP_PARENTS, REP_ERROR };
enum { CMD_GO = 'G', CMD_REPORT = 'R', CMD_QUIT = 'Q' };

struct rep {
	uint8_t kind;
	uint16_t node;
	int32_t err;             /* REP_ERROR: -errno */
	uint32_t round;
	uint64_t now;
	uint64_t msgs, items, dgrams, bytes;
	uint64_t changes, shortcuts, rejected, lost, last_change;
	uint32_t connected;      /* trees this process is connected to */
	uint32_t measured;       /* peers measured */
	uint32_t pending;        /* JOINs in flight */
	uint32_t nparent;        /* REP_PARENTS: int16 parents follow */
};

/**
 * phxd_host_main() - host process @self of @n (data addresses @addr):
 * waits for CMD_GO on @cmd, runs the protocol until CMD_QUIT, and reports
 * on @rep (REP_* records).  Returns the process's exit code.
 */
int phxd_host_main(int self, int n, const uint32_t *addr, const struct opts *o,
		   const struct phx_params *pp, int rep, int cmd);

#endif
