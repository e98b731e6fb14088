/* SPDX-License-Identifier: MIT */
/*
 * gbstencil.h - libgbstencil: the grid-aware parallelising algorithms of
 * Dramlitsch, Allen and Seidel, "Grid Aware Parallelizing Algorithms"
 * (seed 004), as pure functions and state machines (no MPI):
 *
 *	processor topology   s3.1 one machine, s3.3 several machines    topo.c
 *	load balance         s4.1 slabs by speed, s4.3 WAN-boundary     balance.c
 *	compression          s5 zlib deflate, size tells the receiver   codec.c
 *	adaptation           s5 compression on/off, s6 ghost depth      adapt.c
 *
 * The MPI driver that applies them to a running stencil code is
 * gbstdriver.h (libgbstencil_mpi); gridstencil-topo prints what the
 * functions here decide.
 *
 * Vocabulary.  A *grid* is the global cartesian grid of grid points,
 * grid[d] points in dimension d.  A *processor topology* k[] has k[d]
 * processors along dimension d, prod k[d] = the number of processors.  A
 * *machine* (the paper's subjob; an emulated cluster in gridbed) is a set
 * of processors with a fast network inside and a wide-area one to the
 * others.  The *longest* dimension L is the one with the most grid points;
 * machines are lined up along it.
 *
 * Conventions: functions return 0 or a negative errno and print nothing.
 */
#ifndef GRIDBED_GBSTENCIL_H
#define GRIDBED_GBSTENCIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GB_WUR
#define GB_WUR __attribute__((warn_unused_result))
#endif

/** Most dimensions a grid may have (the paper's largest example has 6). */
#define GB_ST_MAXDIM 8

/* ------------------------------------------------------------------ */
/* Processor topology (s3)                                             */
/* ------------------------------------------------------------------ */

/**
 * gb_st_face_size() - total size of the communication faces of topology @k
 * on @grid: the grid points of every cut plane, summed,
 *
 *	sum over d of (k[d] - 1) * prod_{j != d} grid[j]
 *
 * which is what one iteration's halo exchange moves (per ghost layer, per
 * direction).  s3.1's 64x128 example: 1x2 gives 64, 2x1 gives 128.
 * Return: the size, or -1 for bad arguments.
 */
double gb_st_face_size(int ndim, const int *grid, const int *k);

/**
 * gb_st_topo_single() - s3.1, one machine: of **all** factorisations
 * k[0] * ... * k[ndim-1] = @np, the one with the smallest total face size
 * (gb_st_face_size()).
 *
 * Ties, where the paper says nothing: fewer cut dimensions first (fewer
 * neighbours, fewer messages per exchange), then the lexicographically
 * largest k (more processors in earlier dimensions).  This reproduces the
 * paper's 6-D example: 128x64x76x96x32x128 on 2048 -> 8x4x4x4x1x4, one of
 * six factorisations with the same face size.
 *
 * @divides: if > 0, only factorisations whose product over the dimensions
 *           other than @skipdim divides @divides are considered (s3.3 needs
 *           the other dimensions to fit every machine); 0 = no constraint.
 * @skipdim: see @divides; -1 when unused.
 * Return: 0, or -EINVAL (np < 1, ndim out of range, a grid size < 1).
 */
GB_WUR int gb_st_topo_single(int ndim, const int *grid, int np, int divides, int skipdim,
			     int *k);

/**
 * gb_st_topo_even() - the classical, grid-unaware topology that "standard"
 * mode uses: factors as equal as possible, in non-increasing order, the
 * way MPI_Dims_create() spreads processors (s3.4: "distribute the numbers
 * of processors equally across the dimensions", 576 on 3-D -> 9x8x8;
 * ordered non-increasing as MPI_Dims_create orders them).  It ignores the
 * grid's shape and the machines.
 * Return: 0 or -EINVAL.
 */
GB_WUR int gb_st_topo_even(int ndim, int np, int *k);

/** What gb_st_topo_grid() decided on the way (s3.3 steps 2-5). */
struct gb_st_topo_info {
	int longest;                    /**< L, step 2 (ties: the lower dimension) */
	int smallest;                   /**< the machine of step 4 (ties: the first) */
	int sub_grid[GB_ST_MAXDIM];     /**< its imaginary subgrid, step 5 */
	int sub_k[GB_ST_MAXDIM];        /**< its optimal topology, step 5 */
	int others;                     /**< prod of k[d] over d != L */
};

/**
 * gb_st_topo_grid() - s3.3's road map for @nmach machines of @np[m]
 * processors, lined up along the longest dimension in machine order:
 *
 *	(2) L = the dimension with the most grid points
 *	(3) split grid[L] over the machines in proportion to np[m]
 *	    (largest remainder: s3.4's 256 over 64:128:128:256 -> 28:57:57:114)
 *	(4) s = the machine with the fewest processors
 *	(5) k_s = gb_st_topo_single(its subgrid, np[s])
 *	(6) k[d] = k_s[d] for d != L
 *	(7) k[L] = sum np / prod_{d != L} k[d];  kl[m] = np[m] / prod_{d != L} k[d]
 *
 * The paper assumes "the number of processors on each machine are
 * divisible"; we make that exact: step 5 only considers topologies whose
 * product over d != L divides every np[m], so every machine is a whole
 * cuboid of kl[m] x (the other dimensions) processors and the machine
 * boundaries are planes (there is always one: all ones).  One machine is
 * s3.1 (the paper's "single-machine as a special case").
 *
 * @k:    out, ndim entries; @kl: out, nmach entries; @info: optional.
 * Return: 0 or -EINVAL.
 */
GB_WUR int gb_st_topo_grid(int ndim, const int *grid, int nmach, const int *np, int *k,
			   int *kl, struct gb_st_topo_info *info);

/**
 * gb_st_longest() - s3.2's longest dimension: most grid points, ties to the
 * lower index.  -1 for bad arguments.
 */
int gb_st_longest(int ndim, const int *grid);

/**
 * gb_st_place_grid() - where the grid-aware layout puts each processor:
 * machine m owns the slab positions [off_m, off_m + kl[m]) along @L
 * (machines in order), and its processors, in their order, fill those
 * cells with L varying slowest, then the other dimensions row-major.
 * @cellidx: out, prod k entries, by cartesian cell in row-major order
 *           (the last dimension fastest): the index of the processor in
 *           the concatenation of the machines' processor lists.
 * Return: 0 or -EINVAL (sum kl != k[L]).
 */
GB_WUR int gb_st_place_grid(int ndim, const int *k, int L, int nmach, const int *kl,
			    int *cellidx);

/**
 * gb_st_wan_face() - grid points on the faces between processors of
 * different machines: what one ghost layer of one exchange sends across
 * the wide area in each direction (s3.4 counts 8 bytes per point).
 * @len:      per dimension d, k[d] slab lengths (the decomposition)
 * @cellmach: the machine of each cell, row-major as in gb_st_place_grid()
 * Return: the count, or -1 for bad arguments.
 */
double gb_st_wan_face(int ndim, const int *k, int *const *len, const int *cellmach);

/* ------------------------------------------------------------------ */
/* Load balance (s4)                                                   */
/* ------------------------------------------------------------------ */

/**
 * gb_st_split_even() - @n points over @parts, the first n % parts get one
 * more: the classical decomposition.  Return: 0 or -EINVAL (parts < 1,
 * n < parts).
 */
GB_WUR int gb_st_split_even(int n, int parts, int *len);

/**
 * gb_st_balance() - s4.1's painters: @n grid points over @parts slabs with
 * len[i] / len[j] = w[i] / w[j] as nearly as integers allow.
 *
 * Largest remainder: len[i] = floor(n w[i] / W), then the points left go,
 * one each, to the largest fractional parts (ties: the lower index).  So
 * the lengths sum to @n and |len[i] - n w[i] / W| < 1 for every slab.
 * (s4.2's 320 points over 4 + 4 slabs with times 4.40 s and 2.41 s gives
 * 28 x 4 + 52 x 4; the paper's own 28+28+28+26+52+52+52+54 puts the
 * remainder on each machine's last slab, 2.3 points off.)
 *
 * @minlen: every slab gets at least this many points (1, or the widest
 *          ghost zone, which a slab must be able to fill); slabs the
 *          proportion would make thinner are fixed at @minlen and the rest
 *          is shared again among the others.
 * Return: 0, or -EINVAL (parts < 1, a weight <= 0 or not finite,
 * n < parts * minlen).
 */
GB_WUR int gb_st_balance(int n, int parts, const double *w, int minlen, int *len);

/**
 * gb_st_slab_weights() - the weight of each of the sum(kl) slab positions
 * along L for gb_st_balance(): the speed of its machine (s4.1), and with
 * @reduce > 0 s4.3's computation/communication overlap: a position on a
 * machine boundary gets (1 - reduce) of its share and the machine's other
 * positions share what it gave up, so every machine's total is unchanged
 * ("redistribute this on the other processors of that subjob"; the paper
 * uses reduce = 0.2).  A machine whose every position is on a boundary
 * keeps equal shares.
 * @speed: per machine, > 0 (any unit: only ratios matter).
 * @w:     out, sum(kl) entries.
 * Return: 0 or -EINVAL (reduce outside [0, 1), kl < 1, speed <= 0).
 */
GB_WUR int gb_st_slab_weights(int nmach, const int *kl, const double *speed, double reduce,
			      double *w);

/* ------------------------------------------------------------------ */
/* Compression (s5)                                                    */
/* ------------------------------------------------------------------ */

/*
 * Wire format.  A halo message of a group has a size S both ends know (the
 * face's geometry).  The sender deflates it (zlib format: deflate with
 * the zlib header and the adler32 check, so a corrupted message is an
 * error, not wrong numbers) and sends the compressed bytes if they are
 * fewer than S, else the S raw bytes.  The receiver needs no flag: fewer
 * than S bytes means compressed (s5: "If the size of the arrived data is
 * smaller than the expected size then it assumes compression").
 */

/** An encoder/decoder with its zlib state kept between messages. */
struct gb_st_codec;

/**
 * gb_st_codec_new() - a codec compressing at zlib @level (1 = fastest, 9 =
 * smallest; the driver's default is 1: halos are compressed every
 * iteration, speed matters more than the last few per cent).
 * Return: 0, -EINVAL (level outside 1..9) or -ENOMEM.
 */
GB_WUR int gb_st_codec_new(int level, struct gb_st_codec **out);

/** gb_st_codec_free() - release; NULL is fine. */
void gb_st_codec_free(struct gb_st_codec *c);

/** gb_st_codec_bound() - the most bytes gb_st_encode() may write for @n raw bytes. */
size_t gb_st_codec_bound(size_t n);

/**
 * gb_st_encode() - compress @n bytes of @raw into @out (@cap bytes, at
 * least gb_st_codec_bound(n)).
 * Return: 1 and *@outlen < @n when compressed: send @out, *@outlen bytes;
 * 0 when compression does not make the message smaller: send @raw as is
 * (*@outlen = @n); or a negative errno.
 */
GB_WUR int gb_st_encode(struct gb_st_codec *c, const void *raw, size_t n, void *out, size_t cap,
			size_t *outlen);

/**
 * gb_st_decode() - turn a received message of @len bytes into the @n raw
 * bytes at @raw: @len == @n is raw (copied unless @msg == @raw), @len < @n
 * is inflated and must give exactly @n bytes.
 * Return: 1 (it was compressed), 0 (raw), -EPROTO (@len > @n, or the data
 * does not inflate to exactly @n bytes), or another negative errno.
 */
GB_WUR int gb_st_decode(struct gb_st_codec *c, const void *msg, size_t len, void *raw, size_t n);

/* ------------------------------------------------------------------ */
/* Adaptation (s5 compression, s6 ghost zones, s7 monitoring)          */
/* ------------------------------------------------------------------ */

/** Configuration of one rank's adaptation controller. */
struct gb_st_adapt_cfg {
	int ngroups;        /**< function groups, each compressed or not */
	int monitor;        /**< N: iterations per measurement window (paper: 20) */
	int reeval;         /**< M: compression re-evaluated every M iterations (paper: 300) */
	int warmup;         /**< iterations before the first window */
	double eps;         /**< a change is kept only if it is this much better (0.02) */
	int compress;       /**< adapt compression (else the states stay as given) */
	int ghost;          /**< adapt the ghost depth */
	int ghost_step;     /**< the stencil size: depth changes by this */
	int ghost_init;     /**< starting depth */
	int ghost_max;      /**< never deeper (the thinnest slab on the boundary) */
};

enum gb_st_ev_kind {
	GB_ST_EV_COMP_TRY = 0,  /**< group's compression toggled for a trial window; value = new state */
	GB_ST_EV_COMP_KEEP,     /**< trial better: kept; value = state */
	GB_ST_EV_COMP_REVERT,   /**< trial not better: back; value = state */
	GB_ST_EV_GHOST_TRY,     /**< depth widened for a trial window; value = new depth */
	GB_ST_EV_GHOST_KEEP,    /**< wider was faster: kept; value = depth */
	GB_ST_EV_GHOST_REVERT,  /**< wider was not faster: back; value = depth */
	GB_ST_EV_GHOST_SETTLE,  /**< no further widening; value = final depth */
	GB_ST_EV_NKINDS
};

/** One decision, with the two measurements it compared. */
struct gb_st_event {
	long it;            /**< the iteration at whose start it took effect */
	int kind;           /**< enum gb_st_ev_kind */
	int group;          /**< compression events: the group; else -1 */
	int value;          /**< see enum gb_st_ev_kind */
	int rank;           /**< filled by the driver (the controller does not know it) */
	double before;      /**< compression: s of communication per iteration before;
				 ghost: iterations/s before */
	double after;       /**< the same, in the trial window (0 for a TRY) */
};

/** gb_st_ev_name() - "comp-try", "ghost-keep", ...; "?" for a bad kind. */
const char *gb_st_ev_name(int kind);

/**
 * The controller of one rank on the wide-area boundary.  It only sees
 * iteration numbers, a clock and its rank's accumulated communication
 * time, so it is deterministic and testable without MPI; the driver calls
 * it at every *cycle boundary* (an iteration at which the wide-area halos
 * are exchanged; every iteration at depth 1, every d-th at depth d).
 *
 *	warm-up: @warmup iterations, nothing changes
 *	compression cycle (s5), once per group g, local:
 *	        window(N) of the current states -> A (s of communication
 *	        per iteration; the previous window's result is reused)
 *	        toggle g; window(N) -> B
 *	        keep if B < A (1 - eps), else toggle back
 *	ghost phase (s6), after the first compression cycle, global:
 *	        window(N) at depth d -> R (iterations/s, agreed by all)
 *	        d += step; window(N) -> R'
 *	        R' > R (1 + eps): keep, widen again (R = R');
 *	        else d -= step and settle for good
 *	steady: a new compression cycle every M iterations (from the start
 *	        of the previous one, or when the ghost phase ends)
 *
 * A window ends at the first boundary at least N iterations after it
 * began.  Choices where the paper is open: the compression metric is the
 * rank's own communication time (s5, s7: "communication times"), the
 * ghost metric the iteration rate (s7: "the new floprate is compared with
 * the previous one"), each the median over the window's cycles of the
 * per-iteration value (on a shared machine single iterations stall - other
 * processes, CPU quota periods - and a mean would follow them); groups are
 * tried one at a time so that each
 * measurement sees one change; a compression trial that loses is toggled
 * back (the paper: "depending on the success this mode is maintained or
 * not"); the ghost depth is not re-evaluated once settled (s6: "the code
 * settles down").
 */
struct gb_st_adapt;

/**
 * gb_st_adapt_new() - a controller; compression starts with the states in
 * @comp (ngroups entries, NULL = all off), the depth at cfg->ghost_init.
 * Return: 0, -EINVAL (monitor < 1, ghost_step < 1, ghost_init outside
 * [1, ghost_max], ngroups < 0) or -ENOMEM.
 */
GB_WUR int gb_st_adapt_new(const struct gb_st_adapt_cfg *cfg, const unsigned char *comp,
			   struct gb_st_adapt **out);

/** gb_st_adapt_free() - release; NULL is fine. */
void gb_st_adapt_free(struct gb_st_adapt *a);

/**
 * gb_st_adapt_tick() - one cycle boundary: iteration @it, clock @t (s),
 * @comm = this rank's communication time so far (s, non-decreasing).
 * @agree: called (only) when a ghost window ends, with this rank's window
 *         time per iteration; must return the value all the ranks on the
 *         boundary agree on (the driver: the maximum over them, so every
 *         rank takes the same decision); NULL = use the local value.
 * Return: 1 if a compression state or the depth changed (read them with
 * gb_st_adapt_comp() / gb_st_adapt_depth()), else 0.
 */
int gb_st_adapt_tick(struct gb_st_adapt *a, long it, double t, double comm,
		     double (*agree)(void *ctx, double local), void *ctx);

/** gb_st_adapt_comp() - is group @g's wide-area halo compressed now? */
int gb_st_adapt_comp(const struct gb_st_adapt *a, int g);

/** gb_st_adapt_depth() - the wide-area ghost depth now. */
int gb_st_adapt_depth(const struct gb_st_adapt *a);

/** gb_st_adapt_settled() - 1 once the ghost phase has settled (or is off). */
int gb_st_adapt_settled(const struct gb_st_adapt *a);

/**
 * gb_st_adapt_events() - the decisions so far, in order; *@ev points into
 * the controller (valid until the next tick or free).  Return: the count.
 */
int gb_st_adapt_events(const struct gb_st_adapt *a, const struct gb_st_event **ev);

/* ------------------------------------------------------------------ */
/* Small helpers shared by the driver, the tools and the tests         */
/* ------------------------------------------------------------------ */

/**
 * gb_st_parse_dims() - "128x256x64" into @grid (1..GB_ST_MAXDIM numbers
 * >= 1, 'x' or 'X' between them).  Return: ndim, or -EINVAL.
 */
int gb_st_parse_dims(const char *s, int *grid);

/**
 * gb_st_parse_list() - "64,128,128" into @v (at most @max numbers >= 1).
 * Return: the count, or -EINVAL.
 */
int gb_st_parse_list(const char *s, int *v, int max);

/** gb_st_fmt_dims() - "8x18x4" into @buf. */
const char *gb_st_fmt_dims(int ndim, const int *k, char *buf, size_t len);

/**
 * gb_st_hash_point() - the contribution of one grid point to a field's
 * checksum: a 64-bit mix of its global index and the bits of its value.
 * Checksums are wrapping sums of these, so they do not depend on the
 * decomposition or the order of summation: equal checksums from two
 * decompositions mean (up to 2^-64) bit-identical fields.
 */
uint64_t gb_st_hash_point(uint64_t index, double value);

#ifdef __cplusplus
}
#endif
#endif
