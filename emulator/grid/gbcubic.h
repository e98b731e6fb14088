/* SPDX-License-Identifier: MIT */
/*
 * gbcubic.h - CUBIC on the topology's clock, for dilated grids.
 *
 * A grid at time dilation k puts every delay x k on the wire; the kernel's
 * CUBIC grows its window with the machine's clock, so at k = 4 it climbs
 * back after a loss in a quarter of the topology's round trips, and a
 * lossy transfer ends sooner than on the network emulated (session 50,
 * docs/measurements.md: -26 % for 1 MiB over a 60 ms round trip at 0.5 %
 * loss).  gbcubic (gbcubic.bpf.c) is CUBIC as a BPF congestion control
 * (struct_ops) that reads every time - its clock and its round-trip
 * samples - divided by the k of the socket's network namespace.
 *
 * Its life: `gridemu up` of a dilated grid whose hosts run cubic loads and
 * registers it if no grid has (the kernel then lists "gbcubic" in
 * tcp_available_congestion_control; nothing of the host's own stack
 * changes, no default, no allowed list), writes the k of each of its
 * namespaces into gbcubic's map, and names it on the hosts' data routes
 * instead of cubic.  `gridemu down` removes its namespaces from the map,
 * with any entry whose namespace no longer exists (a crash), and
 * unregisters gbcubic when the map is empty.
 *
 * A build without clang, bpftool or libbpf, or a kernel that refuses the
 * program, has no gbcubic: gb_gbcubic_attach() says why and the grid runs
 * the kernel's cubic, which `gridemu up` then notes.
 */
#ifndef GRIDBED_GBCUBIC_H
#define GRIDBED_GBCUBIC_H

#include "gbutil.h"

/** The name the kernel knows it by (tcp_congestion_ops.name). */
#define GB_GBCUBIC_NAME "gbcubic"

/**
 * gb_gbcubic_built() - 1 if this build carries gbcubic.  A topology may
 * also name it (`congestion: gbcubic`), at any k, for the same CUBIC at
 * k = 1 as at k > 1; the kernel lists it only once a grid has loaded it.
 */
int gb_gbcubic_built(void);

/**
 * gb_gbcubic_attach() - make gbcubic a congestion control of this machine
 * (load and register it unless it is registered already), and give the
 * network namespaces @nsfd[0..@n-1] (entries < 0 are skipped) the clock
 * factor @dilate (>= 1).
 * Return: 0, -EOPNOTSUPP (this build has no gbcubic) or -errno; @e explains.
 */
int gb_gbcubic_attach(const int *nsfd, int n, double dilate, struct gb_err *e);

/**
 * gb_gbcubic_prune() - forget every namespace that is gone (no longer in
 * /run/netns, where every grid's namespaces are named), then unregister
 * gbcubic if none is left: what `down` calls once its namespaces are
 * deleted, also after a crash.  Nothing to do (no gbcubic loaded, or a
 * build without it) is 0.
 * Return: 0 or -errno.
 */
int gb_gbcubic_prune(void);

#endif
