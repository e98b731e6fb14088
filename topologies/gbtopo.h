/* SPDX-License-Identifier: MIT */
/*
 * gbtopo.h - the grid topology model shared by gridemu, the planners and the
 * experiment runner.
 *
 * A topology is a graph of nodes (hosts, cluster switches, site routers and
 * wide-area hubs) joined by links.  Every link is two *directed* links, each
 * with its own delay, jitter, loss, rate and queue limit (docs/architecture.md
 * decision 2).  The model is parsed from YAML (libyaml), validated as a whole
 * before anyone acts on it, given automatic addresses and static
 * shortest-path routes.  It is pure data: nothing here touches the kernel.
 *
 * Conventions (docs/architecture.md, practice 1): functions return 0 or a negative errno and print
 * nothing.  Parse and validation errors are described in a struct gb_diag as
 * "file:line:col: message" (gb_diag_format()) so that the CLI can print it
 * as one line.
 *
 * Node numbering is stable and meaningful:
 *   - hosts come first, 0 .. nhosts-1, in file order (cluster by cluster);
 *     this is the default MPI rank order;
 *   - then cluster switches, site routers and hubs.
 *
 * Link numbering is stable too (topologies loaded from files):
 *   - link h (h < nhosts) joins host h (a) to its cluster switch (b);
 *   - link nhosts + k joins cluster k's switch (a) to its site router (b);
 *   - then the file's `links:` in file order.
 *
 * Addresses (docs/topology-format.md): node i has data address
 * data.addr + 1 + i (so each cluster's hosts are contiguous); host i has
 * management address mgmt.addr + 2 + i; mgmt.addr + 1 is the management
 * gateway (the bridge).
 */
#ifndef GRIDBED_GBTOPO_H
#define GRIDBED_GBTOPO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GB_WUR __attribute__((warn_unused_result))

/** Longest node, cluster, site or link name, without the NUL. */
#define GB_NAME_MAX 31

enum gb_node_kind {
	GB_NODE_HOST = 0,   /**< an end host: runs MPI ranks, has a data address */
	GB_NODE_SWITCH,     /**< a cluster switch (routes at L3 in the emulation) */
	GB_NODE_ROUTER,     /**< a site router */
	GB_NODE_HUB,        /**< a wide-area hub that belongs to no site */
};

/* Bits of gb_linkdir.set: which parameters the file gave explicitly.
 * (libnl style: the emulator only programs what is set or defaulted.) */
#define GB_LD_DELAY  (1u << 0)
#define GB_LD_JITTER (1u << 1)
#define GB_LD_LOSS   (1u << 2)
#define GB_LD_RATE   (1u << 3)
#define GB_LD_LIMIT  (1u << 4)
#define GB_LD_PPKT   (1u << 5)

/** Longest per-packet cost a file may give (docs/topology-format.md). */
#define GB_PPKT_MAX_NS 1000000000ull
/** Largest per-packet overhead the kernel's TBF carries (tc_ratespec.overhead, u16). */
#define GB_PPKT_MAX_BYTES 65535u

/** The parameters of one direction of a link. */
struct gb_linkdir {
	uint64_t delay_ns;   /**< one-way propagation delay */
	uint64_t jitter_ns;  /**< +/- uniform jitter around delay (netem semantics) */
	double loss;         /**< drop probability, 0.0 .. 1.0 */
	uint64_t rate_bps;   /**< bits per second; 0 means unlimited */
	uint32_t limit;      /**< queue limit in packets; 0 means "size by rule" */
	uint64_t per_packet_ns; /**< sender's injection cost per packet; needs a rate */
	unsigned set;        /**< GB_LD_* bits given explicitly in the file */
};

/**
 * gb_ppkt_bytes() - the per-packet cost @per_packet_ns of a direction with
 * rate @rate_bps as bytes at that rate, rounded: the overhead its token
 * bucket charges every packet besides the packet's own length, so that a
 * packet of len bytes costs (len + O) * 8 / rate.  0 without a rate.  The
 * caller compares the result with GB_PPKT_MAX_BYTES.
 */
uint64_t gb_ppkt_bytes(uint64_t per_packet_ns, uint64_t rate_bps);

/** Longest TCP congestion control name, without the NUL (TCP_CA_NAME_MAX - 1). */
#define GB_TCP_CC_MAX 15

/**
 * struct gb_tcp - the TCP stack of an emulated host (docs/topology-format.md,
 * "The hosts' TCP stack").  gridemu up writes it into every host namespace,
 * whatever the machine's own defaults are: a new namespace would otherwise
 * inherit the root namespace's congestion control, and results would depend
 * on the machine that ran them.  Defaults: gb_tcp_defaults().
 */
struct gb_tcp {
	char congestion[GB_TCP_CC_MAX + 1]; /**< net.ipv4.tcp_congestion_control */
	int slow_start_after_idle;  /**< net.ipv4.tcp_slow_start_after_idle: 0 or 1 */
	uint64_t buf_max;           /**< bytes: the maximum of tcp_rmem and tcp_wmem */
	uint32_t initcwnd;          /**< segments, on the host's routes; 0 = the kernel's */
	/** TCP's minimum retransmission timeout on the host's routes, ms of the
	 *  wire; 0 = the kernel's (200 ms).  Not a key of the file: gridemu up
	 *  sets it to 200 ms x k on a dilated grid (emulator/grid/hosttcp.c) */
	uint32_t rto_min_ms;
	int cc_line, cc_col;        /**< where the file set congestion (0: the default) */
};

/* The defaults, and why (docs/topology-format.md says the same). */
#define GB_TCP_DEFAULT_CC "cubic"
#define GB_TCP_DEFAULT_SSAI 1
#define GB_TCP_DEFAULT_BUF (64ull << 20)
#define GB_TCP_DEFAULT_INITCWND 0
/** Largest initcwnd a file may ask for (the kernel caps route metrics lower). */
#define GB_TCP_INITCWND_MAX 1000

/** gb_tcp_defaults() - fill @t with the GB_TCP_DEFAULT_* values. */
void gb_tcp_defaults(struct gb_tcp *t);

/**
 * gb_tcp_format() - one line for people: "cubic, slow start after idle on,
 * buffers 64 MiB, initcwnd kernel's", and ", rto_min 800 ms" when the
 * grid set one (a dilated grid).  Returns @buf.
 */
const char *gb_tcp_format(const struct gb_tcp *t, char *buf, size_t len);

/**
 * gb_tcp_cc_clocked() - 1 if congestion control @cc grows its window on the
 * kernel's clock (cubic, bbr), which time dilation does not slow, so that on
 * a dilated grid it recovers from losses faster than on the network
 * emulated (docs/topology-format.md, "The hosts' TCP stack"); 0 for one
 * counted in ACKs (reno).  "" is the default, GB_TCP_DEFAULT_CC.
 */
int gb_tcp_cc_clocked(const char *cc);

/** gb_tcp_equal() - 1 if @a and @b are the same stack. */
int gb_tcp_equal(const struct gb_tcp *a, const struct gb_tcp *b);

#define GB_TCP_SET_CC       (1u << 0)
#define GB_TCP_SET_SSAI     (1u << 1)
#define GB_TCP_SET_BUF      (1u << 2)
#define GB_TCP_SET_INITCWND (1u << 3)

/**
 * struct gb_tcp_set - a `tcp:` block as written (a topology layer, or a
 * campaign condition's): the values, and which of them it sets.
 */
struct gb_tcp_set {
	struct gb_tcp v;
	unsigned set;     /**< GB_TCP_SET_* */
};

/** gb_tcp_apply() - overlay what @s sets on @dst. */
void gb_tcp_apply(struct gb_tcp *dst, const struct gb_tcp_set *s);

struct gb_node {
	char name[GB_NAME_MAX + 1];
	enum gb_node_kind kind;
	int site;       /**< index into sites, or -1 (hubs) */
	int cluster;    /**< index into clusters, or -1 (routers, hubs) */
	uint32_t addr;  /**< data-plane IPv4 address, host byte order */
	uint32_t mgmt;  /**< management address (hosts only, else 0) */
	int line, col;  /**< where the node was declared (1-based; 0 if implicit) */
	struct gb_tcp tcp; /**< hosts: the TCP stack; zero for other nodes */
};

struct gb_link {
	char name[2 * GB_NAME_MAX + 2]; /**< "A-B" unless the file names it */
	int a, b;                  /**< node indices */
	struct gb_linkdir ab;      /**< direction a -> b */
	struct gb_linkdir ba;      /**< direction b -> a */
	int line, col;
};

struct gb_cluster {
	char name[GB_NAME_MAX + 1];
	int site;
	int sw;          /**< node index of the cluster switch */
	int first_host;  /**< hosts of a cluster are contiguous node indices */
	int nhosts;
	double cpu;      /**< CPU share for heterogeneous emulation, 0 = unset */
};

struct gb_site {
	char name[GB_NAME_MAX + 1];
	int router;      /**< node index of the site router */
};

/** An IPv4 prefix, host byte order. */
struct gb_prefix {
	uint32_t addr;
	int len;
};

/**
 * struct gb_diag - a parse/validation diagnostic: where in an input file,
 * and what.  Every YAML parser fills one (gbyaml.h); its one line,
 * "file:line:col: msg", is made by gb_diag_format() or gb_diag_err() and
 * nowhere else.
 */
struct gb_diag {
	char file[256];
	int line, col;
	char msg[256];
};

/** A buffer that holds any gb_diag's line whole (gb_diag_format()). */
#define GB_DIAG_LINE_MAX (256 + 256 + 32)

struct gb_err;

/**
 * gb_diag_format() - @d's one line, "FILE:LINE:COL: MSG", into @buf (of
 * @len bytes; GB_DIAG_LINE_MAX never truncates).  FILE is @d's own file, or
 * @file when @d names none and @file is not NULL.  Nothing is written when
 * @buf is NULL or @len is 0.
 * Return: @buf.
 */
char *gb_diag_format(const struct gb_diag *d, const char *file, char *buf, size_t len);

/**
 * gb_diag_err() - gb_diag_format() into the error carrier @e (util/gbutil.h;
 * nothing when @e is NULL), for a library that reports a parse's failure
 * as a struct gb_err.
 */
void gb_diag_err(struct gb_err *e, const struct gb_diag *d, const char *file);

struct gb_topo {
	char name[GB_NAME_MAX + 1];
	char path[256];            /**< file it came from ("<string>" if none) */

	struct gb_node *nodes;
	int nnodes;
	int nhosts;                /**< hosts are nodes[0 .. nhosts-1] */
	struct gb_link *links;
	int nlinks;
	struct gb_cluster *clusters;
	int nclusters;
	struct gb_site *sites;
	int nsites;

	struct gb_prefix data;     /**< data-plane block (default 10.250.0.0/16) */
	struct gb_prefix mgmt;     /**< management block (default 10.251.0.0/16) */
	uint32_t mtu;              /**< data-plane MTU (default 1500) */
	uint64_t seed;             /**< seed for loss/jitter (default 1) */

	/*
	 * Routing, filled by gb_topo_route() (called by the loaders):
	 * next[i * nnodes + j] is the index of the *directed* link that node i
	 * uses first towards node j, encoded as 2*link + (0 for a->b, 1 for b->a),
	 * or -1 when i == j.  Shortest path by total one-way delay of the
	 * direction travelled, ties broken by hop count, then by lower link index,
	 * so routes are deterministic.  Unreachable pairs are -1 too.
	 */
	int *next;

	/** Default broadcast root: a host index (the file's `root:`, else 0). */
	int root;

	/**
	 * Internal: name indexes and caches, owned by the library and released
	 * by gb_topo_free().  NULL in a hand-built topology is fine (lookups
	 * fall back to linear scans).
	 */
	void *priv;
};

/**
 * gb_topo_load() - read, validate, address and route a topology file.
 * @path: YAML file.
 * @out:  on success, a new topology to release with gb_topo_free().
 * @diag: on failure with -EINVAL, filled with the place and message.
 *
 * Return: 0, -EINVAL for bad content (see @diag), or another -errno for I/O.
 * Nothing is allocated on failure.
 */
GB_WUR int gb_topo_load(const char *path, struct gb_topo **out, struct gb_diag *diag);

/**
 * gb_topo_parse() - like gb_topo_load() from a buffer.
 * @name: the file name used in diagnostics.
 */
GB_WUR int gb_topo_parse(const char *buf, size_t len, const char *name,
			 struct gb_topo **out, struct gb_diag *diag);

/** gb_topo_free() - release a topology; NULL is fine. */
void gb_topo_free(struct gb_topo *t);

/** gb_topo_find_node() - node index by name, or -1. */
int gb_topo_find_node(const struct gb_topo *t, const char *name);

/**
 * gb_tcp_hosts_run() - 1 if a host of @t runs congestion control @cc (a
 * host without `congestion:` runs GB_TCP_DEFAULT_CC).
 */
int gb_tcp_hosts_run(const struct gb_topo *t, const char *cc);

/** gb_topo_find_link() - link index by name ("A-B", or "B-A" too), or -1. */
int gb_topo_find_link(const struct gb_topo *t, const char *name);

/** gb_topo_find_cluster() - cluster index by name, or -1. */
int gb_topo_find_cluster(const struct gb_topo *t, const char *name);

/**
 * gb_topo_dir() - the parameters of directed link @dl (2*link + dir).
 * Returns a pointer into @t, so callers may change it (gridemu link set).
 */
struct gb_linkdir *gb_topo_dir(struct gb_topo *t, int dl);

/** gb_topo_dir_from() - the node a directed link leaves from. */
int gb_topo_dir_from(const struct gb_topo *t, int dl);

/**
 * gb_topo_dir_out() - the directed link of link @l that leaves node @n,
 * one of its ends (2*l for its a end, else 2*l + 1).
 */
int gb_topo_dir_out(const struct gb_topo *t, int l, int n);

/** gb_topo_dir_to() - the node a directed link arrives at. */
int gb_topo_dir_to(const struct gb_topo *t, int dl);

/**
 * gb_topo_path() - the directed links from node @src to node @dst.
 * @out: array of at least nnodes entries; filled with directed-link ids
 *       (NULL to only count hops).
 * The path is the hop-by-hop walk of t->next, i.e. what the routers do.
 * Return: the number of hops (0 when src == dst), or -ENOENT if unreachable
 * (or not routed yet, or a node index is out of range).
 */
int gb_topo_path(const struct gb_topo *t, int src, int dst, int *out);

/**
 * gb_topo_path_metrics() - sum of one-way delays and bottleneck rate along
 * the routed path (rate 0 = unlimited along the whole path).
 * Return: 0 or -ENOENT as gb_topo_path().
 */
int gb_topo_path_metrics(const struct gb_topo *t, int src, int dst,
			 uint64_t *delay_ns, uint64_t *rate_bps);

/**
 * gb_topo_egress_per_packet() - the per_packet cost (ns) of @host's own
 * egress: its host link, host -> switch (docs/topology-format.md).  0 when
 * it has none, or @host is not a host.
 */
uint64_t gb_topo_egress_per_packet(const struct gb_topo *t, int host);

/**
 * gb_topo_dir_goodput() - the bytes per second a long message gets on
 * direction @ld: its rate, or with a per_packet cost c the rate its MTU
 * packets get, R x mtu / (mtu + c x R).  0: unlimited.
 */
double gb_topo_dir_goodput(const struct gb_topo *t, const struct gb_linkdir *ld);

/**
 * gb_topo_path_goodput() - the smallest gb_topo_dir_goodput() along the
 * routed path from @src to @dst, in *@bps (bytes per second; 0: unlimited).
 * Return: 0 or -ENOENT as gb_topo_path().
 */
int gb_topo_path_goodput(const struct gb_topo *t, int src, int dst, double *bps);

/**
 * gb_topo_route() - (re)compute t->next from the current link parameters.
 * Return: 0, -ENOMEM, or -EHOSTUNREACH if some pair of hosts is
 * disconnected.
 */
GB_WUR int gb_topo_route(struct gb_topo *t);

/**
 * gb_topo_default_limit() - the queue limit (packets) used for a direction
 * whose limit is 0 ("size by rule").
 *
 * Rule: a queue must hold one bandwidth-delay product of the longest routed
 * host-to-host path that crosses the direction, so that a single TCP flow
 * can fill the pipe (Villamizar & Song's rule of thumb), and never fewer
 * than 64 packets.  rate 0 (unlimited) gives 1000 packets.
 *
 * Precisely: over the host pairs (s, d) whose routed path s -> d uses @dl,
 * take the largest round-trip delay D = delay(s -> d) + delay(d -> s) (routed
 * one-way delays, jitter ignored); the limit is
 * max(64, ceil(rate(@dl) * D / (8 * mtu))).  A direction no host path
 * crosses gets 64.  The per-direction D is computed lazily on the first
 * call after gb_topo_route() (about nhosts^2 * hops steps) and cached, so
 * this is not thread-safe; the rate is read live, so changing a rate with
 * gb_topo_dir() needs no re-routing, but changing a delay does.
 */
uint32_t gb_topo_default_limit(const struct gb_topo *t, int dl);

/** gb_fmt_ip() - dotted quad of a host-order address into buf[16]. */
const char *gb_fmt_ip(uint32_t addr, char buf[16]);

/**
 * Unit parsers shared by topology files, the CLI (gridemu link set) and
 * load schedules.  Each returns 0 or -EINVAL, and accepts tc's spellings:
 *   time: "25ms", "0.05ms", "100us", "1s", "500ns"
 *   rate: "45mbit", "1gbit", "100kbit", "800bit", "10mbps" (megabytes/s)
 *   loss: "1%", "0.5%"
 *   bytes: "64MiB", "4mb", "131072b" (kb, mb, gb decimal; kib, mib, gib binary)
 */
int gb_parse_time(const char *s, uint64_t *ns);
/**
 * gb_parse_duration() - a duration in seconds for schedules and campaigns:
 * the time units above plus "min"/"mins" and "h"/"hour"/"hours" ("4min",
 * "6.5min", "90s", "250ms"); a bare "0" is 0.  Exact to the nanosecond.
 */
int gb_parse_duration(const char *s, double *seconds);
int gb_parse_rate(const char *s, uint64_t *bps);
int gb_parse_loss(const char *s, double *p);
int gb_parse_bytes(const char *s, uint64_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
