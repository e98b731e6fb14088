/* SPDX-License-Identifier: MIT */
/*
 * load_priv.h - what the parts of libgbload share and nobody else needs:
 * shape mode's link changes and its state file (shape.c).
 */
#ifndef GRIDBED_LOAD_PRIV_H
#define GRIDBED_LOAD_PRIV_H

#include "gbemu.h"
#include "gbload.h"

#include <jansson.h>
#include <math.h>

/**
 * gbl_json_dilate() - a grid's time dilation k as JSON (decision 9): an
 * integer when k is one (10, not 10.0), else a real; 1 when none.
 */
static inline json_t *gbl_json_dilate(double k)
{
	if (!(k > 1.0))
		k = 1.0;
	return k == floor(k) && k < 1e15 ? json_integer((json_int_t)k) : json_real(k);
}

/**
 * gbl_dirlock() - take the run directory's flock (exclusive, non-blocking):
 * one shaping gridload per grid.  A directory lock leaves no file behind.
 * Return: an fd to close to release it, -EBUSY, or -errno.
 */
int gbl_dirlock(const char *rundir, struct gb_err *e);

/**
 * gbl_shape_apply() - set the rate of link @link (name), direction @dir
 * (0 a>b, 1 b>a) of the grid with prefix @prefix to @rate (or, when
 * @factor > 0, to @factor x the live rate found before the change), with a fresh
 * handle that holds the grid's lock exclusively for just this change.
 * @note: first record the rate found before the change in the state file
 * (so that a crash after the change can be repaired).
 * @before, @readback: the live rate before, and the rate the shaper reads
 * back from the kernel (or the delay line) after; either may be NULL.
 * Every rate is in topology units, also on a dilated grid (the emulator
 * converts; docs/architecture.md, decision 9).
 * Return: 0 or -errno; @e explains.
 */
int gbl_shape_apply(const char *prefix, const char *link, int dir, uint64_t rate, double factor,
		    int note, uint64_t *before, uint64_t *readback, struct gb_err *e);

/**
 * gbl_state_forget() - drop @link/@dir from the state file (removed when
 * empty); @dilate: the grid's k, recorded in what remains.
 */
int gbl_state_forget(const char *rundir, const char *link, int dir, double dilate);

/**
 * gbl_restore_locked() - gb_load_restore() for a caller that holds
 * gbl_dirlock() already.
 */
int gbl_restore_locked(const char *prefix, const char *rundir, int *nrestored,
		       struct gb_err *e);

#endif
