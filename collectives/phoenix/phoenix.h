/* SPDX-License-Identifier: MIT */
/*
 * phoenix.h - latency-aware dynamic spanning trees of Saito, Taura and
 * Chikayama, "Collective Operations for the Phoenix Programming Model"
 * (seed 001, s3), in three layers:
 *
 *   phoenix_proto.c  the protocol state machine of one process: pure C, no
 *                    I/O, no clock.  Inputs are received messages and round
 *                    ticks (each with the current time), outputs are
 *                    messages in an outbox that the driver sends; its wire
 *                    format is phoenix_wire.c, the checks of the parent
 *                    arrays it yields and their trees phoenix_tree.c;
 *   phoenix_sim.c    a discrete-event driver that runs N state machines over
 *                    the latency matrix of a struct gb_netmodel (the
 *                    `phoenix` planner, plan_phoenix.c, uses it);
 *   phoenixd.c       the real thing: one process per emulated host, UDP on
 *                    the data plane (port PHX_PORT_DEFAULT).
 *
 * The algorithm (s3.1, Fig. 1).  Every process is the root of its own
 * spanning tree; for each tree every node keeps a parent and its children.
 * A node n with parent p, in the tree rooted at r, makes candidate c its
 * parent when c is "more suitable", i.e. all four criteria hold:
 *
 *	(1) c is connected to the tree rooted at r
 *	(2) latency(n,c) < latency(n,p)
 *	(3) latency(c,r) < latency(n,r)
 *	(4) serial(c,r) = serial(n,r)
 *
 * latency(n,c) is measured directly (RTT/2 of probes); latency(x,r) is x's
 * latency from the root *along the tree*, which roots refresh by broadcasting
 * a serial number down their tree every serial_every rounds (1 by default):
 * each non-root forwards it with its own latency(x,r) = latency(parent,r) +
 * latency(x,parent).
 * serial(x,r) is the largest serial x has received from r.
 *
 * Shortcut (s3.2, Fig. 3): n may also switch to c when that shortens
 * latency(n,r) by more than 10 ms, even if latency(n,c) > latency(n,p).
 *
 * Choices where the paper is silent or ambiguous (each is marked
 * "[choice N]" in phoenix_proto.c where it is implemented):
 *  1. Latencies are one-way: half the round-trip time of a probe, less the
 *     time the answerer held it (phoenixd also takes arrival times from the
 *     kernel), the minimum over the last `window` samples per peer
 *     (scheduling delays only ever add to a round trip, so the minimum is
 *     the stable estimate; a window, not the all-time minimum, lets a slower
 *     link be noticed).
 *  2. Candidates and their (serial, latency) per tree are learnt from
 *     probes: every round a node probes `fanout` peers, round robin over a
 *     seeded permutation, and the answer carries the answerer's state for
 *     every tree.  A candidate is judged as soon as its state arrives
 *     ("changing parents as it finds more suitable ones", s3.1).
 *  3. Criterion (2) has hysteresis: latency(n,c) must be smaller than
 *     latency(n,p) by margin_abs + margin_rel * latency(n,p).  Without it two
 *     nearly equidistant parents make a node flap forever on measurement
 *     noise.  Criterion (3) is strict with ties broken by node index, which
 *     keeps it a strict total order (needed against cycles) and lets equal
 *     latencies, common in emulated clusters, still form a tree.
 *  4. At most one parent change per tree and serial number.  The paper's
 *     argument for (4) ("if two nodes have the same serial number, the node
 *     with higher latency cannot be a descendant of the other") fails right
 *     after a node changes parents to one that raises its latency: its
 *     descendants still hold the old, lower latency under the same serial.
 *     Forbidding a second change until the next serial closes that hole; the
 *     unit test t/7001 drives exactly this race.
 *  5. A change is a handshake: n sends JOIN(serial, latency(n,r)) to c; c
 *     accepts only if, on its *current* state, it is connected, has the same
 *     serial (not checked when c is the root, which cannot be anyone's
 *     descendant), latency(c,r) < latency(n,r), and it is not itself
 *     waiting for a JOIN answer.  n's information about c may be a round
 *     old; the check at c makes the decision atomic with c's own changes.
 *     While its JOIN is out, n holds back a new serial from its old parent
 *     (and forwards it once the JOIN is refused), so that n is still at the
 *     serial c accepted when the answer comes.  A refusal carries c's
 *     current state, and n judges c again when its own serial catches up
 *     with c's: rounds are periodic, so a pair whose timing made them miss
 *     each other once would otherwise miss each other every round.
 *  6. The shortcut is one mechanism with two sides: it fires when
 *     latency(c,r) + latency(n,c) < latency(n,r) - 10 ms (criteria (1) and
 *     (4) still apply, (3) follows), and a Fig. 1 switch is not taken when
 *     the shortcut would undo it at once, i.e. when the switch lengthens
 *     latency(n,r) and the new value exceeds the best path n knows of by
 *     more than 10 ms.  Without that second side, Fig. 2 oscillates: B
 *     leaves A for the root by the shortcut, then the root for A by Fig. 1.
 *     Both tests have a band of 2 ms (a fifth of the threshold) as
 *     hysteresis: a switch may lengthen n's path by up to 2 ms regardless,
 *     and must otherwise stay 2 ms inside the threshold, so that noisy
 *     estimates near 10 ms do not make the two sides undo each other.
 *  7. A node not yet connected to a tree joins, at its next tick, the
 *     connected candidate that offers the shortest path to the root among
 *     those it has heard of, and improves from there.  Initially only the
 *     root is connected to its own tree.  (Joining the first one heard of
 *     makes the result depend on the order of the first answers: a cluster
 *     may then hang behind another one for good, as Fig. 1 (2) never
 *     prefers a parent at the same distance.)
 *  8. A node that hears nothing from its parent for parent_timeout serial
 *     periods leaves the tree and tells its children (serial 0, "tree
 *     lost"), who do the same; then they rejoin as in 7, but only through a
 *     node with a newer serial than the one they lost the tree at: their
 *     former descendants, which may not have heard the news yet, hold at
 *     most that one.  Over a lossless, unloaded network this never
 *     triggers, but UDP may lose messages and overloaded hosts delay them.
 *  9. Send order (s5, "future work"): children with the most descendants
 *     first; ties in the order the parent accepted them, which is the
 *     paper's current order ("in the order that it encounters them").
 */
#ifndef GRIDBED_PHOENIX_H
#define GRIDBED_PHOENIX_H

#include <stddef.h>
#include <stdint.h>

#include "gbcore.h"

#ifdef __cplusplus
extern "C" {
#endif

/** UDP port of phoenixd on every host's data address. */
#define PHX_PORT_DEFAULT 7400

/** Items per message: 26-byte header + 12 bytes per item fits one 1500-byte MTU. */
#define PHX_ITEMS_MAX 112
/** Items per state message (PROBE_ACK, STATE): consecutive roots, 8 bytes each. */
#define PHX_STATE_MAX 170
/** Largest encoded message. */
#define PHX_MSG_MAX (26 + 4 + 8 * PHX_STATE_MAX)
/** Node indices are 16 bits on the wire. */
#define PHX_NODES_MAX 4096
/** Latency samples kept per peer ([choice 1]). */
#define PHX_WINDOW_MAX 16
/** "Infinite" latency (not connected), in ns. */
#define PHX_LAT_INF UINT32_MAX

enum phx_type {
	PHX_PROBE = 1,  /**< stamp = sender's time; no items */
	PHX_PROBE_ACK,  /**< stamp echoed; items: the answerer's state, first chunk */
	PHX_STATE,      /**< further chunks of that state vector */
	PHX_SERIAL,     /**< items (root, serial, sender's latency(., root)); serial 0: tree lost */
	PHX_JOIN,       /**< items (root, joiner's serial, joiner's latency); not connected:
			     (root, serial it lost the tree at or 0, INF) */
	PHX_ACCEPT,     /**< items (root, parent's serial, parent's latency) */
	PHX_REJECT,     /**< items (root, rejecter's serial, rejecter's latency) */
	PHX_LEAVE,      /**< items (root, -, -): "I am not your child" */
	PHX_NTYPES
};

/** One entry: a tree root, a serial number and a latency in ns. */
struct phx_item {
	uint32_t root;
	uint32_t serial;
	uint32_t lat;
};

/** A protocol message; on the wire see phx_encode(). */
struct phx_msg {
	uint8_t type;
	uint16_t src, dst;
	uint32_t round;       /**< the sender's round (diagnostics) */
	uint64_t stamp;       /**< PROBE: sender's clock (ns); PROBE_ACK: echoed */
	uint32_t hold;        /**< PROBE_ACK: ns between the probe's arrival and this
				   answer's departure, which the prober subtracts
				   from the round trip (set by the driver at send
				   time; 0 is fine) */
	uint64_t rx;          /**< PROBE_ACK, not on the wire: when the probe arrived
				   (the @now of phx_node_recv), for the driver's hold */
	uint16_t nitems;
	struct phx_item item[PHX_STATE_MAX];
};

/** phx_type_name() - "probe", "serial", ...; "?" for a bad type. */
const char *phx_type_name(int type);

/**
 * phx_encode() - the wire format, little endian:
 *	"PX" u8 version(1) u8 type u16 src u16 dst u16 nitems u32 round u64 stamp
 *	u32 hold, then
 *	  PROBE_ACK, STATE: u32 first root, nitems (<= PHX_STATE_MAX) x (u32 serial,
 *	                    u32 lat_ns) for roots first, first + 1, ...
 *	  the others:       nitems (<= PHX_ITEMS_MAX) x (u32 root, u32 serial, u32 lat_ns)
 * Return: the encoded length (<= PHX_MSG_MAX) or -EINVAL (too many items,
 * state roots not consecutive) / -ENOSPC.
 */
int phx_encode(const struct phx_msg *m, void *buf, size_t len);

/** phx_decode() - the inverse; -EINVAL for anything malformed (never crashes). */
int phx_decode(struct phx_msg *m, const void *buf, size_t len);

/* ------------------------------------------------------------------ */
/* The state machine of one process (phoenix_proto.c)                  */
/* ------------------------------------------------------------------ */

struct phx_params {
	double shortcut_s;     /**< Fig. 3 threshold, 0.010 */
	double margin_abs_s;   /**< [choice 3] hysteresis on (2), absolute part */
	double margin_rel;     /**< [choice 3] hysteresis on (2), relative part */
	int use_serial;        /**< 1; 0 drops (4) and [choice 4] (ablation) */
	int use_shortcut;      /**< 1; 0 drops Fig. 3 and its veto (ablation) */
	int measure;           /**< 1: probe answers give latency samples; 0: only
				    phx_node_measure() does (unit tests) */
	int fanout;            /**< peers probed per round ([choice 2]); 0: none, the
				    driver calls phx_node_probe() (unit tests) */
	int window;            /**< samples per peer, 1 .. PHX_WINDOW_MAX */
	int join_timeout;      /**< rounds before an unanswered JOIN is given up */
	int parent_timeout;    /**< [choice 8] serial periods without a serial from the parent */
	int serial_every;      /**< a root sends a serial every this many rounds */
	int only_tree;         /**< -1: every process's tree; r: only the tree rooted
				    at r (the trees do not interact, so tree r
				    evolves as it would among all of them, given
				    the same latency estimates; the planner needs
				    one tree and saves a factor n) */
	uint64_t seed;         /**< probe order */
};

/** phx_params_default() - the values above: 10 ms, 100 us, 20 %, 1, 1, 1, 8, 8, 3, 4, 1, -1. */
void phx_params_default(struct phx_params *p);

/** Counters of one node, for "how many messages did it take". */
struct phx_stats {
	uint64_t sent[PHX_NTYPES];   /**< messages by type */
	uint64_t msgs;               /**< all messages sent */
	uint64_t items;              /**< all items sent */
	uint64_t changes;            /**< parent changes (first joins included) */
	uint64_t shortcuts;          /**< of which by Fig. 3 */
	uint64_t rejected;           /**< JOINs answered with REJECT */
	uint64_t lost;               /**< [choice 8] trees left on timeout or "tree lost" */
	uint64_t last_change;        /**< time (ns) of the last parent change */
};

/**
 * struct phx_node - one process.  Drivers read the fields, never write
 * them (tests may tweak @p between events).  Arrays indexed by root r
 * describe this node in tree r; peer arrays indexed [c * n + r] hold what
 * peer c last advertised about tree r.
 */
struct phx_node {
	int self, n;
	struct phx_params p;
	uint32_t round;

	/* per tree r */
	int *parent;           /**< -1: not connected (or r == self) */
	uint32_t *serial;      /**< serial(self, r); 0 = not connected */
	uint32_t *lat;         /**< latency(self, r) along the tree, ns; INF if not connected */
	uint32_t *sw_serial;   /**< serial at the last parent change ([choice 4]) */
	int *pending;          /**< candidate a JOIN is out to, or -1 */
	uint8_t *pending_sc;   /**< that JOIN is a shortcut */
	uint32_t *pending_round;
	uint32_t *heard_round; /**< round of the last serial from the parent */
	uint32_t *held_serial; /**< [choice 5] serial held back while a JOIN is out, or 0 */
	uint32_t *held_lat;    /**< and the parent's latency that came with it */
	uint32_t *lost_serial; /**< [choice 8] serial when we last lost the tree */
	uint32_t *pmin;        /**< best known latency(c,r) + latency(self,c), [choice 6] */
	int *best;             /**< [choice 7] the candidate joined through, or -1 */
	int **child;           /**< children in acceptance order */
	int *nchild, *capchild;

	/* per peer c */
	uint32_t *est;         /**< latency(self, c) estimate, ns; INF = not measured */
	uint32_t *win;         /**< n * window samples */
	uint8_t *wcount, *wnext;
	uint32_t *peer_serial; /**< [c * n + r] */
	uint32_t *peer_lat;    /**< [c * n + r] */

	int *perm;             /**< probe order over the n - 1 peers */
	int perm_pos;

	struct phx_msg *out;   /**< outbox: messages to send, in order */
	int nout, capout, ev_start;

	struct phx_stats st;
};

/**
 * phx_node_init() - node @self of @n (1 .. PHX_NODES_MAX): connected only to
 * its own tree (serial 0 until its first tick), nothing measured.
 * Return: 0, -EINVAL or -ENOMEM.
 */
GB_WUR int phx_node_init(struct phx_node *nd, int self, int n, const struct phx_params *p);

/** phx_node_release() - free everything; safe on a zeroed node and twice. */
void phx_node_release(struct phx_node *nd);

/**
 * phx_node_tick() - start a round at time @now (ns): a root increments its
 * serial and sends it to its children, JOINs and parents that time out are
 * given up, and `fanout` peers are probed.  Return: 0 or -ENOMEM.
 */
GB_WUR int phx_node_tick(struct phx_node *nd, uint64_t now);

/**
 * phx_node_recv() - handle message @m (m->dst must be this node) at time
 * @now.  Malformed or misaddressed messages are ignored (return 0).
 * Return: 0 or -ENOMEM.
 */
GB_WUR int phx_node_recv(struct phx_node *nd, const struct phx_msg *m, uint64_t now);

/**
 * phx_node_probe() - probe peer @c now (what a tick does for `fanout`
 * peers); tests use it to control who learns what when.
 */
GB_WUR int phx_node_probe(struct phx_node *nd, int c, uint64_t now);

/**
 * phx_node_measure() - add a latency sample (one-way, seconds) for peer @c,
 * as a probe answer would.
 */
void phx_node_measure(struct phx_node *nd, int c, double lat_s);

/** phx_node_out_clear() - empty the outbox once the driver has sent it. */
void phx_node_out_clear(struct phx_node *nd);

/** phx_node_connected() - 1 if the node is connected to tree @r. */
int phx_node_connected(const struct phx_node *nd, int r);

/** phx_node_settled() - 1 if connected to every tree, no JOIN pending, every peer measured. */
int phx_node_settled(const struct phx_node *nd);

/* ------------------------------------------------------------------ */
/* Trees and the wide-area check                                       */
/* ------------------------------------------------------------------ */

/** Send orders for phx_tree_build(). */
enum phx_order {
	PHX_ORDER_DESC = 0,  /**< s5: most descendants first, ties in acceptance order */
	PHX_ORDER_JOIN,      /**< the paper's implementation: acceptance order */
};

/**
 * phx_tree_build() - a struct gb_tree from parent[] (-1 at @root) and,
 * optionally, each node's acceptance rank among its siblings (@rank, n
 * entries, NULL: node index), children in send order @order.
 * @out: gb_tree_init()ed to (n, root).
 * Return: 0, -EINVAL (not a tree rooted at @root) or -ENOMEM.
 */
GB_WUR int phx_tree_build(struct gb_tree *out, const int *parent, const int *rank,
			  enum phx_order order);

/**
 * phx_wan_check() - wide-area optimality in the sense of issue 7: exactly
 * one tree edge from another cluster into each cluster that does not hold
 * the root, none into the root's cluster.
 * @cluster: n entries, cluster index (0 .. ncl - 1) of every node.
 * @wan_edges: optional: number of edges between different clusters.
 * @bad: optional: number of clusters entered zero or more than once.
 * Return: 1 if optimal, 0 if not, -EINVAL or -ENOMEM.
 */
int phx_wan_check(const int *parent, int n, int root, const int *cluster, int ncl,
		  int *wan_edges, int *bad);

/* ------------------------------------------------------------------ */
/* Discrete-event simulator (phoenix_sim.c)                            */
/* ------------------------------------------------------------------ */

struct phx_sim_opts {
	struct phx_params proto;
	double round_s;        /**< round length (virtual seconds), 1.0 */
	double noise_rel;      /**< each delivery takes lat * (1 + U[0, noise_rel)) ... */
	double noise_abs_s;    /**< ... + U[0, noise_abs_s); 0 and 0 by default */
	int quiet_rounds;      /**< 0: 2 probe cycles + 3 rounds (cycle x window + 3
				    after a latency was raised), at least 10 */
	int max_rounds;        /**< give up after this many rounds per run, 1000 */
	uint64_t seed;         /**< tick phases and noise (and proto.seed if that is 0) */
};

/** phx_sim_opts_default() - defaults above, phx_params_default() for proto. */
void phx_sim_opts_default(struct phx_sim_opts *o);

/** What one phx_sim_run() took, counted from the start of that run. */
struct phx_sim_result {
	int converged;         /**< 1: stable for quiet_rounds; 0: max_rounds hit */
	int rounds;            /**< rounds until the last parent change */
	double time_s;         /**< virtual time until the last parent change */
	uint64_t msgs;         /**< messages sent until the last parent change */
	uint64_t items, bytes; /**< the same in items and encoded bytes */
	uint64_t msgs_total;   /**< messages sent in the whole run (incl. quiet rounds) */
	uint64_t changes, shortcuts, rejected, lost;
	uint64_t sent[PHX_NTYPES];  /**< messages by type until the last change */
};

struct phx_sim_ev;

/** struct phx_sim - N nodes, the latency matrix and an event queue. */
struct phx_sim {
	int n;
	struct phx_sim_opts o;
	struct phx_node *nodes;
	uint32_t *lat;         /**< n*n one-way latency, ns */
	struct gb_rng rng;
	uint64_t now;          /**< virtual time, ns */
	uint64_t seq;
	struct phx_sim_ev *heap;
	int nheap, capheap;
	uint64_t msgs, items, bytes;   /**< totals since init */
	uint64_t sent[PHX_NTYPES];     /**< messages by type since init */
	int started;
	int raised;            /**< a latency went up since the last run */
};

/**
 * phx_sim_init() - nodes for every node of @m, latencies from m->lat.
 * Return: 0, -EINVAL or -ENOMEM.
 */
GB_WUR int phx_sim_init(struct phx_sim *s, const struct gb_netmodel *m,
			const struct phx_sim_opts *o);

/** phx_sim_release() - free everything; safe on a zeroed struct and twice. */
void phx_sim_release(struct phx_sim *s);

/**
 * phx_sim_run() - run until the trees are stable (no parent change and every
 * node settled for quiet_rounds) or max_rounds more rounds have passed.
 * Can be called again, e.g. after phx_sim_set_lat().
 * Return: 0 (see r->converged) or -ENOMEM.
 */
GB_WUR int phx_sim_run(struct phx_sim *s, struct phx_sim_result *r);

/** phx_sim_set_lat() - change the one-way latency i -> j from now on. */
void phx_sim_set_lat(struct phx_sim *s, int i, int j, double lat_s);

/**
 * phx_sim_parents() - the current parent of every node in tree @root
 * (@parent: n entries; -1 at the root and at disconnected nodes) and their
 * acceptance ranks (@rank, optional) for phx_tree_build().
 */
void phx_sim_parents(const struct phx_sim *s, int root, int *parent, int *rank);

/** phx_sim_has_cycle() - 1 if the parent pointers of tree @root contain a cycle. */
int phx_sim_has_cycle(const struct phx_sim *s, int root);

/**
 * phx_parents_have_cycle() - 1 if following parent[] (-1 ends a chain) from
 * some node comes back to a node of the same chain.
 */
int phx_parents_have_cycle(const int *parent, int n);

#ifdef __cplusplus
}
#endif
#endif
