/* SPDX-License-Identifier: MIT */
/*
 * gbstdriver.h - libgbstencil_mpi: a grid-aware parallel driver for
 * explicit finite-difference codes on cartesian grids (seed 004), in the
 * spirit of the paper's Cactus driver: the application registers groups of
 * grid functions and updates the points it is given; decomposition, halo
 * exchange, compression and ghost zones are the driver's business.
 *
 *	application                        driver
 *	-----------                        ------
 *	gb_st_create(comm, opts)           machines from the rank map, s4
 *	                                   benchmark, s3 topology, s4 slabs
 *	gb_st_add_group(name, nvars) ...   two time levels per variable
 *	gb_st_start()                      arrays with ghost zones
 *	fill level 0 and 1 (interior)
 *	for it = 0, 1, ...:
 *	        gb_st_sync(it)             exchange what is due, adapt (s5, s6)
 *	        gb_st_region(lo, hi)       where to update this iteration
 *	        new = f(level 0, level 1)  written into level 1
 *	        gb_st_advance()            level 1 becomes level 0
 *	gb_st_checksum(), gb_st_report()   results
 *
 * The stencil is the star of radius 1 (the 2n+1-point Laplacian and
 * friends): updating a point reads its 2n face neighbours at the current
 * level and itself at both levels.  The stencil size of s6 is therefore 1.
 *
 * Machines.  A machine is a topology cluster: rank r runs on the host the
 * rank map names (GRIDBED_RANKMAP, written by `gridemu mpirun`), else on
 * topology host r (GRIDBED_TOPOLOGY), through libgridbcast's
 * gb_bcast_comm_hosts() (docs/gridbcast.md); its machine is that host's
 * cluster.  Without a topology every rank is on one machine, and the
 * driver reduces to the classical scheme (s2.1: "single-machine as a
 * special case").  Nothing about machines is ever given by hand.
 *
 * Modes.
 *   standard: the classical driver: even topology (gb_st_topo_even()),
 *             ranks in row-major order as MPI_Cart_create without reorder,
 *             even slabs, no compression, ghost depth 1.
 *   grid:     every feature below, each of which can be switched off.
 *
 * Ghost zones (s6).  Only the wide-area faces along the longest dimension
 * L (the machine boundaries, planes by construction) get depth d > 1;
 * every other face keeps depth 1 and is exchanged every iteration.  After
 * an exchange at depth d the rank updates, besides its own points, the
 * d - 1 ghost layers next to a wide face, then d - 2, ..., so the wide
 * faces are exchanged every d-th iteration.  An exchange at depth d sends
 * d layers of the current level and d - 1 of the previous one (the update
 * of a ghost layer reads both).  Dimensions are exchanged L first, and the
 * other dimensions' messages span the ghost layers along L that will be
 * updated, so those layers have their neighbours.  Every point is computed
 * from the same operands as by its owner: results are bit-identical to a
 * standard run.
 *
 * Compression (s5).  Per group, on wide-area faces only, decided per rank;
 * the receiver tells by the size (gb_st_decode()).
 *
 * Waiting.  The paper's processors are dedicated: a rank waiting for the
 * WAN costs nobody anything.  Here 16 ranks share 2 cores (and a CPU quota
 * per host), and OpenMPI's spinning MPI_Wait would hand the waiting time of
 * one rank to no-one, or burn its own quota.  So by default a rank waits
 * asleep in poll(2) (libgridbcast's gb_bcast_wait()); wait_spin = 1 keeps
 * MPI's spinning, for comparison.
 *
 * Conventions: functions return 0 or a negative errno and print nothing;
 * gb_st_create(), gb_st_start() and gb_st_sync() say why they failed in
 * the optional error carrier @err (struct gb_err, util/gbutil.h), one line
 * ("" when there are no words, as for a lack of memory after the handle
 * exists).  Functions marked collective must be called by every rank of
 * the communicator.
 */
#ifndef GRIDBED_GBSTDRIVER_H
#define GRIDBED_GBSTDRIVER_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "gbstencil.h"
#include "gbutil.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gb_st_mode {
	GB_ST_STANDARD = 0,
	GB_ST_GRID = 1,
};

/* gb_st_opts.features (grid mode; standard mode uses none) */
#define GB_ST_F_TOPO     (1u << 0)  /**< s3.3 topology and placement */
#define GB_ST_F_BALANCE  (1u << 1)  /**< s4.1 slabs by measured speed (needs TOPO) */
#define GB_ST_F_OVERLAP  (1u << 2)  /**< s4.3 less work on WAN-boundary slabs */
#define GB_ST_F_COMPRESS (1u << 3)  /**< s5 adaptive compression */
#define GB_ST_F_GHOST    (1u << 4)  /**< s6 adaptive ghost depth (needs TOPO) */
#define GB_ST_F_ALL      0x1fu

/** How the driver runs; gb_st_opts_default() fills the paper's values. */
struct gb_st_opts {
	int ndim;
	int grid[GB_ST_MAXDIM];  /**< grid points per dimension */
	enum gb_st_mode mode;
	unsigned features;       /**< GB_ST_F_*, grid mode only */
	double reduce;           /**< s4.3 fraction (0.2) */
	double bench_s;          /**< s4.1 benchmark length per rank, s (1.0) */
	int monitor;             /**< N (20) */
	int reeval;              /**< M (300) */
	int warmup;              /**< iterations before adapting (20) */
	double eps;              /**< significance of a change (0.05: the noise of a shared box) */
	int zlevel;              /**< zlib level (1) */
	int ghost_max;           /**< deepest wide-area ghost zone (8) */
	int ghost_fixed;         /**< > 0: this wide-area depth, no ghost adaptation */
	int compress_fixed;      /**< -1: adaptive; 0: never; 1: always (WAN faces) */
	int wait_spin;           /**< 1: MPI's own spinning waits; 0: sleep until data
				      arrives (gb_bcast_wait(), GB_BCAST_SLEEP) */
};

/** gb_st_opts_default() - grid mode, every feature, the paper's parameters. */
void gb_st_opts_default(struct gb_st_opts *o);

/** What the driver decided at gb_st_create(); the same on every rank. */
struct gb_st_layout {
	int nranks;
	int nmach;
	char (*mach_name)[32];   /**< cluster names ("all" without topology) */
	int *mach_np;            /**< processors per machine */
	double *mach_speed;      /**< s4.1 benchmark, grid points/s per processor (0: not run) */
	int *rank_mach;          /**< machine of each rank */
	int k[GB_ST_MAXDIM];     /**< processor topology */
	int L;                   /**< the longest dimension */
	int *kl;                 /**< positions along L per machine (grid-aware topology) */
	int *slab;               /**< k[L] slab thicknesses along L */
	int ghost_cap;           /**< deepest wide-area ghost zone the slabs allow */
	int nwan;                /**< ranks with a wide-area face */
	double wan_face;         /**< grid points on wide-area faces (one layer) */
	char source[300];        /**< where the machines came from (rank map, topology, none) */
	char topology[256];      /**< the topology file, or "" */
};

/** The local box of a rank. */
struct gb_st_geom {
	int ndim;
	int n[GB_ST_MAXDIM];     /**< interior points per dimension */
	int off[GB_ST_MAXDIM];   /**< global index of local point 0 */
	long stride[GB_ST_MAXDIM]; /**< in doubles; stride[ndim-1] = 1 */
	int L;
};

/** Per-rank counters, summed over the run. */
struct gb_st_stats {
	double t_comm;           /**< s inside gb_st_sync() */
	double t_codec;          /**< s compressing and inflating */
	double t_bench;          /**< s of the s4.1 benchmark */
	uint64_t wan_raw;        /**< halo bytes for wide-area faces, before compression */
	uint64_t wan_wire;       /**< bytes actually sent on wide-area faces */
	uint64_t lan_bytes;      /**< bytes sent on the other faces */
	uint64_t wan_msgs, wan_compressed;  /**< messages on WAN faces, of them compressed */
	uint64_t exchanges_wan;  /**< wide-area exchanges (one per due cycle) */
};

/** gb_st_report() - what the root learns at the end (collective). */
struct gb_st_report {
	int nev;
	struct gb_st_event *ev;  /**< every rank's decisions, by iteration, then rank */
	int ngroups;
	int *final_comp;         /**< nranks x ngroups: compressed at the end (-1: no WAN face) */
	int *final_depth;        /**< per rank: wide-area depth at the end (0: no WAN face) */
	struct gb_st_stats *stats; /**< per rank */
};

struct gb_st;

/**
 * gb_st_create() - collective: find the machines, run the s4.1 benchmark
 * (grid mode with BALANCE), lay the grid out.
 * Return: 0, -EINVAL (bad options, or a grid with fewer points than
 * processors along a dimension; @err says which), -ENOMEM ("out of
 * memory" when no handle could be made); *@out is set even on failure
 * (release it with gb_st_destroy()).
 */
GB_WUR int gb_st_create(MPI_Comm comm, const struct gb_st_opts *o, struct gb_st **out,
			struct gb_err *err);

/** gb_st_layout_of() - the layout (valid after gb_st_create()). */
const struct gb_st_layout *gb_st_layout_of(const struct gb_st *s);

/**
 * gb_st_add_group() - a group of @nvars grid functions, compressed or not
 * together (s5); before gb_st_start(), the same on every rank.
 * Return: the group index, or -EINVAL / -ENOMEM.
 */
int gb_st_add_group(struct gb_st *s, const char *name, int nvars);

/**
 * gb_st_start() - collective: allocate the fields (zeroed) and the
 * adaptation.  Return: 0, -EINVAL (started already), -ENOMEM, or the
 * -errno of the communicators or the adaptation that could not be made
 * (@err says which).
 */
GB_WUR int gb_st_start(struct gb_st *s, struct gb_err *err);

/** gb_st_geometry() - the local box. */
const struct gb_st_geom *gb_st_geometry(const struct gb_st *s);

/**
 * gb_st_field() - variable @v of group @g at @level (0 = current,
 * 1 = previous; the update writes the new values into level 1), pointing
 * at local point 0: index sum x[d] * stride[d], x[d] from -ghost to
 * n[d] + ghost - 1.
 */
double *gb_st_field(struct gb_st *s, int g, int v, int level);

/**
 * gb_st_sync() - at the start of iteration @it (0, 1, ... in order):
 * adaptation decisions at cycle boundaries, then the halo exchanges that
 * are due.  Collective in effect (neighbours wait for each other).
 * Return: 0, -EPROTO (a message that does not decode; @err names the
 * ranks and the group), -ENOMEM.
 */
GB_WUR int gb_st_sync(struct gb_st *s, long it, struct gb_err *err);

/**
 * gb_st_region() - the local points to update in this iteration: lo[d] <=
 * x[d] < hi[d]; wider than the interior along L next to wide-area faces
 * (the redundant ghost-zone updates of s6).
 */
void gb_st_region(const struct gb_st *s, int *lo, int *hi);

/** gb_st_advance() - after the update: level 1 becomes level 0. */
void gb_st_advance(struct gb_st *s);

/**
 * gb_st_probe_deflate() - what s5's compression would make of this rank's
 * wide-area halos now, whether or not they are compressed: for every group
 * g, the message each wide-area face would carry at its current depth
 * (packed as gb_st_sync() packs it: @depth layers of level 0, then
 * @depth - 1 of level 1) is deflated with the driver's codec and level, and
 * its raw bytes are added to raw[g], its deflated bytes to zip[g] (the raw
 * size when deflate does not make it smaller, as on the wire); @raw and
 * @zip have ngroups entries.  Call it between gb_st_advance() and the next
 * gb_st_sync(), where it sees what the next exchange sends.  Sends nothing
 * and changes no field, state or counter (so not the adaptation's
 * communication time); not collective.  A rank without a wide-area face
 * adds nothing.  It costs one deflate per group and face: the caller times
 * it if it matters.
 * Return: 0, -EINVAL (not started, NULL arrays), -ENOMEM, or the codec's
 * negative errno.
 */
int gb_st_probe_deflate(struct gb_st *s, uint64_t *raw, uint64_t *zip);

/** gb_st_depth() - this rank's wide-area ghost depth now (0: no WAN face). */
int gb_st_depth(const struct gb_st *s);

/**
 * gb_st_checksum() - collective: per group, the wrapping sum of
 * gb_st_hash_point() over its variables' interior points at level 0 (the
 * index of variable v's point i is v * npoints + i); @per_group needs
 * ngroups entries, valid on every rank.
 */
int gb_st_checksum(struct gb_st *s, uint64_t *per_group);

/**
 * gb_st_dump() - collective: the root writes level 0 of every variable of
 * every group, each as the global grid in row-major order (the last
 * dimension fastest), native doubles, to @f (ignored elsewhere).
 */
int gb_st_dump(struct gb_st *s, int root, FILE *f);

/** gb_st_report() - collective: events, final states and counters to @root. */
int gb_st_report(struct gb_st *s, int root, struct gb_st_report *r);

/** gb_st_report_release() - free what gb_st_report() filled; zeroed is fine. */
void gb_st_report_release(struct gb_st_report *r);

/** gb_st_destroy() - collective (frees communicators); NULL is fine. */
void gb_st_destroy(struct gb_st *s);

#ifdef __cplusplus
}
#endif
#endif
