/* SPDX-License-Identifier: MIT */
/*
 * topo_internal.h - what topo_parse.c and topo_model.c share; not API.
 */
#ifndef GRIDBED_TOPO_INTERNAL_H
#define GRIDBED_TOPO_INTERNAL_H

#include "gbtopo.h"

/*
 * Upper bound on the node count.  The routing table is nnodes^2 ints
 * (8192 nodes: 256 MiB), so the bound is a memory bound, not a taste.
 * The fuzz build lowers it so that each input stays cheap.
 */
#ifndef GB_TOPO_MAX_NODES
#define GB_TOPO_MAX_NODES 8192
#endif

/* A fixed-capacity string -> int map (open addressing).  Keys are borrowed:
 * they must outlive the map. */
struct gb_strmap {
	uint32_t cap;            /* power of two, >= 2 * the expected count */
	const char **keys;
	int *vals;
};

int gb_strmap_init(struct gb_strmap *m, size_t count);
void gb_strmap_release(struct gb_strmap *m);
/* The value stored under @k, or -1. */
int gb_strmap_get(const struct gb_strmap *m, const char *k);
/* Store @k -> @v unless @k is present; return the old value, or -1 when
 * added.  The map must have room (count given to init not exceeded). */
int gb_strmap_add(struct gb_strmap *m, const char *k, int v);

/* Same for an unordered pair of node indices -> link index. */
struct gb_pairmap {
	uint32_t cap;
	uint64_t *keys;          /* (min + 1) << 32 | (max + 1); 0 = empty */
	int *vals;
};

int gb_pairmap_init(struct gb_pairmap *m, size_t count);
void gb_pairmap_release(struct gb_pairmap *m);
int gb_pairmap_get(const struct gb_pairmap *m, int a, int b);
int gb_pairmap_add(struct gb_pairmap *m, int a, int b, int v);

/* What hangs off gb_topo.priv: lookup indexes and the default-limit cache. */
struct gb_topo_priv {
	struct gb_strmap nodes;  /* node name -> node index */
	struct gb_strmap links;  /* link name -> link index */
	struct gb_pairmap pairs; /* {a, b} -> link index */
	uint64_t *maxrtt;        /* per directed link, NULL until first needed */
};

/* Build t->priv's indexes (names must already be unique). 0 or -ENOMEM. */
int gb_topo_index(struct gb_topo *t);

/* Find the node that is not connected to node 0, or -1 if the graph is
 * connected; -ENOMEM on allocation failure. */
int gb_topo_disconnected(const struct gb_topo *t);

/* Give every node its data address and every host its management address
 * (see docs/topology-format.md, "Addressing"); t->data and t->mgmt must be
 * set and big enough. */
void gb_topo_address(struct gb_topo *t);

/* Usable addresses in a block: data needs nnodes + 1, mgmt nhosts + 3. */
uint64_t gb_topo_data_need(const struct gb_topo *t);
uint64_t gb_topo_mgmt_need(const struct gb_topo *t);

#endif
