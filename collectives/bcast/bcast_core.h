/* SPDX-License-Identifier: MIT */
/*
 * bcast_core.h - the pure (MPI-free) half of libgridbcast: the tree header
 * that travels with a piggybacked broadcast, per-rank timing records and
 * what is computed from them, the rank map, the topology's lower bound and
 * the content pattern used to verify buffers.
 *
 * It is a library of its own (gbbcastcore) so that the unit tests can run
 * without mpirun.  gridbcast.h includes it.
 *
 * Conventions: functions return 0 or a negative errno and print nothing;
 * times are seconds on CLOCK_MONOTONIC (docs/architecture.md, decision 4).
 */
#ifndef GRIDBED_BCAST_CORE_H
#define GRIDBED_BCAST_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "gbplan.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gb_topo;

/* ------------------------------------------------------------------ */
/* The piggybacked tree header                                         */
/* ------------------------------------------------------------------ */

/*
 * A tree planned at the root from measurements reaches the other ranks on
 * the broadcast itself: along every tree edge, the sender first sends this
 * header, then the payload.  A receiver takes the header from any source
 * (that source is its parent), learns its children and their order, and
 * forwards the same bytes.  All fields are little-endian:
 *
 *	off  size  field
 *	  0     4  magic "GBT1"
 *	  4     2  version (1)
 *	  6     2  flags (0)
 *	  8     4  n, the number of ranks
 *	 12     4  root
 *	 16     4  seq, the broadcast's sequence number on its communicator
 *	 20     4  reserved (0)
 *	 24     8  payload bytes (count * type size at the root)
 *	 32    2n  nchild[v], v = 0 .. n-1
 *	32+2n  2(n-1)  the child lists of v = 0 .. n-1, concatenated, each in
 *	                send order
 *
 * i.e. 30 + 4n bytes (286 for 64 ranks).  Node indices are 16 bits wide,
 * which covers the 65536 nodes a network model may have.  The whole tree
 * travels, not the receiver's subtree: it costs at most 4n bytes per edge
 * and lets every rank know its parent and siblings (timing records, logs).
 *
 * A striped broadcast (gb_bcast_opts.stripes = k >= 2) sends version 2:
 * flags = k, and after the child lists
 *
 *	30+4n  2n  group[v], v = 0 .. n-1 (0xffff: none)
 *
 * the groups gb_tree_stripe() rotates, so that every rank derives the
 * same k trees from the one that travels (stripe 0).  30 + 6n bytes.
 */
#define GB_BHDR_MAGIC 0x31544247u  /* "GBT1" little-endian */
#define GB_BHDR_FIXED 32

/** gb_bhdr_size() - bytes of the header for @n ranks (30 + 4n). */
static inline size_t gb_bhdr_size(int n)
{
	return (size_t)GB_BHDR_FIXED + 2 * (size_t)n + 2 * (size_t)(n > 0 ? n - 1 : 0);
}

/**
 * gb_bhdr_encode() - write @t's header into @buf (@len >= gb_bhdr_size(t->n)).
 * Return: the number of bytes written, or -EINVAL (n > 65536, invalid
 * tree) or -ENOSPC.
 */
long gb_bhdr_encode(const struct gb_tree *t, uint32_t seq, uint64_t payload, void *buf,
		    size_t len);

/** gb_bhdr_size_striped() - bytes of the header of a broadcast of @k stripes. */
static inline size_t gb_bhdr_size_striped(int n, int k)
{
	return gb_bhdr_size(n) + (k > 1 ? 2 * (size_t)n : 0);
}

/**
 * gb_bhdr_encode_striped() - gb_bhdr_encode() for a broadcast of @stripes
 * stripes (1: version 1, the same bytes as gb_bhdr_encode()) whose ranks
 * are in @group (n entries, -1 .. 65534; NULL: none).
 * Return: the bytes written, -EINVAL (also @stripes outside 1 ..
 * GB_STRIPES_MAX, a group out of range) or -ENOSPC.
 */
long gb_bhdr_encode_striped(const struct gb_tree *t, int stripes, const int *group, uint32_t seq,
			    uint64_t payload, void *buf, size_t len);

/**
 * gb_bhdr_decode_striped() - gb_bhdr_decode() for version 1 or 2: *@stripes
 * gets the stripes (1 for version 1), @group (n entries, may be NULL) the
 * groups (all -1 for version 1).  @len must be the size its version and
 * stripes give.  Return: as gb_bhdr_decode().
 */
GB_WUR int gb_bhdr_decode_striped(const void *buf, size_t len, int n, struct gb_tree *t,
				  int *stripes, int *group, uint32_t *seq, uint64_t *payload);

/**
 * gb_bhdr_decode() - read a header of @len bytes for a communicator of @n
 * ranks.  @t is initialised here (release with gb_tree_release()) and is
 * gb_tree_check()ed.  @seq and @payload may be NULL.  Version 1 only.
 * Return: 0, -EPROTO (bad magic, version, size or tree) or -ENOMEM.
 */
GB_WUR int gb_bhdr_decode(const void *buf, size_t len, int n, struct gb_tree *t,
			  uint32_t *seq, uint64_t *payload);

/* ------------------------------------------------------------------ */
/* Per-rank timing records                                             */
/* ------------------------------------------------------------------ */

/**
 * struct gb_bcast_rankrec - one rank's times for one broadcast, as gathered
 * to the root (gb_bcast_gather()).  CLOCK_MONOTONIC seconds.
 * @t_begin:     the rank entered the broadcast
 * @t_recv_done: the full message was received (the root: = t_begin; native
 *               MPI_Bcast: when it returned, an upper bound)
 * @t_send_done: its last send returned (a leaf: = t_recv_done)
 * @t_send_start: its first send began (NAN for a leaf)
 * @parent_send_start: when its parent began the send to it (NAN for the
 *               root and for native MPI_Bcast, whose tree is unknown)
 * @parent:      its parent's rank, -1 for the root or when unknown
 * @nchild:      how many children it sent to
 * @hdr_bytes:   tree-header bytes it sent (piggybacked trees)
 */
struct gb_bcast_rankrec {
	double t_begin;
	double t_recv_done;
	double t_send_done;
	double t_send_start;
	double parent_send_start;
	int parent;
	int nchild;
	uint64_t hdr_bytes;
};

/**
 * gb_bcast_completion() - docs/architecture.md, decision 4: the broadcast's
 * completion time, max over ranks of t_recv_done minus the root's t_begin.
 */
double gb_bcast_completion(const struct gb_bcast_rankrec *r, int n, int root);

/**
 * gb_bcast_all_returned() - max over ranks of t_send_done minus the root's
 * t_begin: when the last rank was done with the broadcast.  Unlike
 * completion it is measured the same way for native MPI_Bcast, whose
 * receive time is only known as its return time.
 */
double gb_bcast_all_returned(const struct gb_bcast_rankrec *r, int n, int root);

/**
 * gb_bcast_order_violations() - the ranks whose t_recv_done is before their
 * parent's send start (physically impossible on one clock: a non-zero count
 * means a timing bug).  Ranks without a known parent are not counted.
 */
int gb_bcast_order_violations(const struct gb_bcast_rankrec *r, int n);

/* ------------------------------------------------------------------ */
/* The rank map                                                        */
/* ------------------------------------------------------------------ */

/**
 * struct gb_rankmap - which emulated host each MPI_COMM_WORLD rank runs on,
 * read from the JSON file `gridemu mpirun` names in $GRIDBED_RANKMAP.
 * @host[r] is rank r's host name; @topology is the topology file the grid
 * was built from ("" if the map does not say).
 */
struct gb_rankmap {
	int n;
	char (*host)[32];
	char topology[512];
};

/**
 * gb_rankmap_load() - read a rank map.  Accepted shapes (the writer is
 * gridemu mpirun; the reader is lenient so that both can evolve):
 *   {"topology": "...", "ranks": [{"rank": 0, "host": "a-1", ...}, ...]}
 *   {"ranks": {"0": {"host": "a-1"}, ...}}     (an object keyed by rank)
 *   [{"host": "a-1"}, ...]                      (index = rank)
 * A rank entry may also be a plain host-name string; "node" and "name" are
 * accepted for "host".  Without "rank", an entry's index is its rank.
 * Every rank 0 .. n-1 must appear exactly once.  Why it failed goes into
 * the optional @err (emptied first; nothing more on -ENOMEM), naming the file.
 * Return: 0, -ENOENT/-EACCES (file), -EINVAL (content; see @err) or -ENOMEM.
 */
GB_WUR int gb_rankmap_load(const char *path, struct gb_rankmap *rm, struct gb_err *err);

/** gb_rankmap_release() - free; safe on a zeroed struct and twice. */
void gb_rankmap_release(struct gb_rankmap *rm);

struct json_t;
/**
 * gb_rankmap_tcp_json() - the hosts' TCP stack that `gridemu mpirun` read
 * back into the job's rank map ($GRIDBED_RANKMAP, key "tcp"), for a
 * program's own result files (issue 18).  Return: a new reference, or
 * json_null() without a rank map or without the key.
 */
struct json_t *gb_rankmap_tcp_json(void);

/* ------------------------------------------------------------------ */
/* The topology's lower bound                                          */
/* ------------------------------------------------------------------ */

/**
 * gb_bcast_lower_bound() - no broadcast of @size bytes from @hosts[@root]
 * can finish before max over the other hosts h of (one-way path delay +
 * size / path bottleneck rate) from the root to h (gb_topo_path_metrics();
 * an unlimited path adds no transfer time).  @hosts lists @k topology host
 * indices (the ranks' hosts, in rank order).
 * It ignores protocol overheads, queueing and TCP's slow start, so a real
 * broadcast is always slower.
 * Return: 0, or -EINVAL / -ENOENT (bad index, unrouted pair).
 */
int gb_bcast_lower_bound(const struct gb_topo *t, const int *hosts, int k, int root, double size,
			 double *lb);

/* ------------------------------------------------------------------ */
/* Content pattern                                                     */
/* ------------------------------------------------------------------ */

/**
 * gb_pattern_seed() - the seed of the content of one broadcast, derived from
 * its size, repetition and index, so that a buffer left over from another
 * broadcast never passes the check.
 */
uint64_t gb_pattern_seed(uint64_t size, uint64_t rep, uint64_t index);

/** gb_pattern_byte() - byte @i of the pattern of @seed. */
uint8_t gb_pattern_byte(uint64_t seed, size_t i);

/** gb_pattern_fill() - bytes 0 .. @len-1 of the pattern of @seed into @buf. */
void gb_pattern_fill(void *buf, size_t len, uint64_t seed);

/** gb_pattern_check() - how many of the @len bytes of @buf differ from the pattern. */
size_t gb_pattern_check(const void *buf, size_t len, uint64_t seed);

/* ------------------------------------------------------------------ */
/* Stripes by message size (bcast_stripes.c)                             */
/* ------------------------------------------------------------------ */

/** Most size rules a struct gb_stripes holds. */
#define GB_STRIPE_RULES 8

/**
 * struct gb_stripes - the trees a segmented message goes down, by its size
 * (gb_bcast_opts.stripes, GRIDBED_STRIPES, gridbcast --stripes): a message
 * of at most @upto[i] bytes, for the first such rule i, goes down @k[i]
 * trees; a larger one down @rest.  A decision table that users write from
 * measurements (bcast_stripes.c says why there is no model's choice).  A
 * zeroed struct is one tree for every size.
 */
struct gb_stripes {
	int n;                          /**< rules, 0 .. GB_STRIPE_RULES */
	double upto[GB_STRIPE_RULES];   /**< bytes, strictly increasing */
	int k[GB_STRIPE_RULES];         /**< 1 .. GB_STRIPES_MAX */
	int rest;                       /**< 1 .. GB_STRIPES_MAX (0 reads as 1) */
};

/**
 * gb_stripes_parse() - @out from its written form: K, the same number of
 * trees for every size, or "SIZE:K,SIZE:K,...[,K]" (sizes as
 * gb_parse_size() reads them, strictly increasing; a last bare K for the
 * messages larger than every SIZE, else 1), e.g. "2M:4,1"; every K from
 * 1 to GB_STRIPES_MAX, at most GB_STRIPE_RULES sizes, each above 0.
 * Return: 0, or -EINVAL (@out unchanged).
 */
int gb_stripes_parse(const char *s, struct gb_stripes *out);

/**
 * gb_stripes_parse_why() - gb_stripes_parse(), and on -EINVAL what is wrong
 * in the optional @why, one phrase that quotes the part at fault: "sizes
 * must increase: '1M' after 2097152 bytes", "more than 8 SIZE:K rules",
 * "the bare K '4' is not last ...", "'0' is not a number of trees from 1
 * to 16", "'0:4' holds no message ...".
 */
int gb_stripes_parse_why(const char *s, struct gb_stripes *out, struct gb_err *why);

/** gb_stripes_for() - the trees a segmented message of @bytes goes down (1 for NULL). */
int gb_stripes_for(const struct gb_stripes *t, double bytes);

/** Bytes that always hold gb_stripes_format()'s text: a rule's size is a
 *  finite double, at most 309 digits. */
#define GB_STRIPES_FMT_MAX (GB_STRIPE_RULES * 320 + 8)

/**
 * gb_stripes_format() - @t as gb_stripes_parse() reads it, sizes in bytes
 * ("2097152:4,1"; "4" without rules).
 * Return: 0, -EINVAL or -ENOSPC (@len too small).
 */
int gb_stripes_format(const struct gb_stripes *t, char *buf, size_t len);

/**
 * gb_stripes_json() - @t as gridbcast.json and a campaign's meta.json say
 * it: one number of trees as an integer, a table as gb_stripes_format()'s
 * string.  Return: a new reference, or NULL when out of memory.
 */
struct json_t *gb_stripes_json(const struct gb_stripes *t);

#ifdef __cplusplus
}
#endif
#endif
