/* SPDX-License-Identifier: MIT */
/*
 * partition.h - one grid across two machines (issue 17, docs/scale-out.md).
 *
 * Every machine parses the same topology file and builds the nodes of its
 * part: `gridemu up TOPO --part SITE|HUB[,...] --peer ADDR`.  A site brings
 * its hosts, cluster switches and router; a hub is named on its own.  The
 * nodes left out are on the peer machine at ADDR.  Addresses, routes and
 * link indices then agree on both machines without a protocol between them.
 *
 * A link with one end in each part (a "cross" link) is a VXLAN device
 * (VNI GB_PART_VNI_BASE + link index) over the machines' own network; the
 * two management namespaces are joined by one more VXLAN (GB_PART_VNI_MGMT).
 * Each direction of a cross link is shaped on the machine that sends it.
 *
 * Trust (docs/scale-out.md, "Trust"): every tunnel is bound to the local
 * address that faces the peer (g->self, from the route to it) and lets in
 * only what the peer sent with its VNI (gb_nl_peer_filter(), on the device,
 * in the grid's namespace).  The kernel's UDP socket on GB_PART_PORT, in
 * the machine's own namespace, still receives from anyone.
 */
#ifndef GRIDBED_PARTITION_H
#define GRIDBED_PARTITION_H

#include <stdint.h>
#include <jansson.h>

#include "gbemu.h"

#define GB_PART_VNI_BASE 1000u
#define GB_PART_VNI_MGMT 999u
#define GB_PART_PORT 4789
/** VXLAN's encapsulation: what the underlay's MTU must add to the grid's. */
#define GB_PART_OVERHEAD 50u
/** The namespace of the cross links' VXLAN devices: "P-edge". */
#define GB_PART_EDGE "edge"
/** The management namespace's VXLAN to the peer's. */
#define GB_PART_MGMT_IF "w0"

/**
 * gb_part_parse() - which nodes of @t the part @spec (comma-separated site
 * and hub names) holds: @local (t->nnodes bytes, allocated) is 1 for them.
 * A bad name, a name given twice, an empty part or the whole grid is an
 * error in @e that names the token.  0 or -EINVAL / -ENOMEM.
 */
int gb_part_parse(const struct gb_topo *t, const char *spec, unsigned char **local,
		  struct gb_err *e);

/** gb_part_cross() - 1 if link @k has exactly one end on this machine. */
int gb_part_cross(const struct gb_grid *g, int k);

/** gb_part_ncross() - how many links cross to the peer (0 for a whole grid). */
int gb_part_ncross(const struct gb_grid *g);

/**
 * gb_part_side() - 0 on the machine that holds node 0 (the first host),
 * else 1: what tells the two machines' management addresses apart.
 */
int gb_part_side(const struct gb_grid *g);

/**
 * gb_part_mgmt_addr() - the management namespace's address on the VXLAN
 * to the peer, for machine @side: the first two addresses after the hosts'
 * in the mgmt block.  0 if the block has no room for them.
 */
uint32_t gb_part_mgmt_addr(const struct gb_topo *t, int side);

/**
 * gb_part_vxlan() - VXLAN device @name, VNI @vni, from g->self to g->peer,
 * created from this process's own namespace (the machine's network, where
 * its UDP socket stays) straight into namespace @nsfd, given the peer
 * filter there (gb_nl_peer_filter(): only g->peer's frames with VNI @vni
 * pass), and brought up with @mtu (0: the kernel's default).  0 or -errno,
 * with @e naming the device.
 */
int gb_part_vxlan(struct gb_grid *g, const char *name, uint32_t vni, int nsfd, unsigned mtu,
		  struct gb_err *e);

/**
 * gb_part_peer_unusable() - why @a (host order) cannot be a peer machine's
 * address (0.0.0.0/8, loopback, multicast, broadcast, 240.0.0.0/4), as the
 * end of a sentence; NULL if it is a unicast address another machine can
 * have.
 */
const char *gb_part_peer_unusable(uint32_t a);

/**
 * gb_part_self() - g->self: the address of this process's namespace (the
 * machine's own, where the tunnels' sockets are) that faces g->peer, from
 * a route lookup there (read-only).  0 or -errno with @e: -EADDRINUSE when
 * the peer is one of this machine's own addresses, -ENETUNREACH without a
 * route to it.
 */
int gb_part_self(struct gb_grid *g, struct gb_err *e);

/** GB_PART_META_PREF - the mgmt namespace's rule that asks for tunnel keys. */
#define GB_PART_META_PREF 32765u

/**
 * gb_part_metadata_release() - for gridemu down: delete the rule at
 * GB_PART_META_PREF in @g's mgmt namespace, which withdraws the kernel-wide
 * request for tunnel keys (deleting the namespace would not).  A grid that
 * made no rule, or has no mgmt namespace left, is left as it is.
 */
void gb_part_metadata_release(struct gb_grid *g);

/**
 * gb_part_tunnels_json() - the tunnels to the peer, for status: an array
 * of {ifname, netns, vni, link (null for the management one), local,
 * remote, port}, empty for a whole grid; NULL without memory.
 */
json_t *gb_part_tunnels_json(const struct gb_grid *g);

/** gb_part_parse_ip() - dotted quad @s into *@addr (host order).  0 or -EINVAL. */
int gb_part_parse_ip(const char *s, uint32_t *addr);

#endif
