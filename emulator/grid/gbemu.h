/* SPDX-License-Identifier: MIT */
/*
 * gbemu.h - libgbemu: bring an emulated grid up and down, change links at
 * runtime, describe the live grid.  The CLI in emulator/cli/ is a thin layer over
 * this; experiments and tests link it too.
 *
 * Layout of a live grid with prefix P (default "gb"):
 *   - one network namespace per topology node, named "P-<node>", visible to
 *     `ip netns` (/run/netns/P-<node>);
 *   - link k of the topology appears as interface "d<k>" at both ends
 *     (a veth pair under the netem backend, a TUN device pair joined by
 *     gridemu-tapd under the tap backend);
 *   - every node has one /32 data address on each of its data interfaces and
 *     static routes computed by gb_topo_route(); routers forward;
 *   - a management namespace "P-mgmt" is an unshaped router that reaches
 *     every host through interface "m0" (host side), for MPI launch and RPC;
 *   - state lives in $GRIDBED_RUNDIR/P/ (default /run/gridbed/P/): a lock, a
 *     copy of the topology, state.json, the tap daemon's files.
 * The host's root namespace is never modified (docs/architecture.md, decision 3).
 * A grid across two machines (`up --part`, partition.h) builds only its
 * part's nodes, plus "P-edge" for the VXLANs of the links to the peer.
 */
#ifndef GRIDBED_GBEMU_H
#define GRIDBED_GBEMU_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "gbtopo.h"
#include "gbutil.h"         /* struct gb_err, gb_err_set(): the error carrier */

#ifndef GB_WUR
#define GB_WUR __attribute__((warn_unused_result))
#endif

#define GB_PREFIX_DEFAULT "gb"
#define GB_RUNDIR_DEFAULT "/run/gridbed"
#define GB_PREFIX_MAX 8

struct nl_sock;
struct gb_shaper;

/** A live (or being built) grid. */
struct gb_grid {
	char prefix[GB_PREFIX_MAX + 1];
	char rundir[256];          /**< $GRIDBED_RUNDIR/prefix */
	struct gb_topo *topo;
	const struct gb_shaper *shaper;
	int *nsfd;                 /**< per node, -1 when not open */
	struct nl_sock **sk;       /**< per node, NULL when not open */
	int *ifidx;                /**< per directed link dl: the ifindex of d<k> at the end
				        that sends dl, 0 when not known (up fills it) */
	int mgmt_nsfd;
	struct nl_sock *mgmt_sk;
	int lockfd;
	pid_t tapd_pid;            /**< tap backend: the delay-line daemon */
	/**
	 * Time dilation k >= 1 (docs/architecture.md, decision 9; 1 = none).  The
	 * topology and every API keep the topology's units; only the wire
	 * differs: the backends apply delays x k and rates / k (dilate.h), so
	 * the CPU looks k times faster, and whatever measures time on the grid
	 * divides by k.
	 */
	double dilate;
	/**
	 * What the hosts' `cubic` runs as on the data routes: "gbcubic", CUBIC on
	 * the topology's clock (gbcubic.h), on a dilated grid that could load
	 * it; "" for the kernel's own.  Kept in state.json.  When a dilated
	 * grid runs the kernel's, @cubic_why says why (up only).
	 */
	char cubic_as[16];
	char cubic_why[256];
	int verbose;
	/**
	 * One grid across two machines (partition.h): NULL when this machine
	 * builds the whole grid; else local[i] is 1 for the nodes built here
	 * and the others are on the peer, whose underlay address is @peer and
	 * whose grid has prefix @peer_prefix.  @part is --part as given.
	 */
	unsigned char *local;
	char part[256];
	uint32_t peer;
	uint32_t self;             /**< this machine's address facing @peer (the tunnels') */
	char peer_prefix[GB_PREFIX_MAX + 1];
	int edge_nsfd;             /**< "P-edge" (cross links' VXLANs), -1 if none */
};

/** gb_grid_local() - 1 if node @i is built on this machine. */
static inline int gb_grid_local(const struct gb_grid *g, int i)
{
	return !g->local || g->local[i];
}

/** Options for gb_grid_up(). */
struct gb_up_opts {
	const char *backend;       /**< "auto", "netem" or "tap" */
	const char *tapd_path;     /**< NULL: next to the running executable */
	int no_calibrate;          /**< skip the delay line's calibration (calibrate.h) */
	int recalibrate;           /**< measure it afresh: reuse no recent calibration
				        (calib_cache.h) */
	double dilate;             /**< time dilation k (0 or 1: none); see struct gb_grid */
	int kernel_cubic;          /**< a dilated grid keeps the kernel's cubic, whose clock
				        is the machine's (for comparisons; gbcubic.h) */
	int verbose;
	const char *part;          /**< --part SITE|HUB,...: build only these (partition.h) */
	const char *peer;          /**< --peer ADDR: the machine with the rest of the grid */
	const char *peer_prefix;   /**< the peer grid's prefix (NULL: the same as ours) */
};

/**
 * gb_grid_open() - prepare a handle for prefix @prefix (NULL = default or
 * $GRIDBED_PREFIX) and take its lock: @exclusive for commands that change
 * the grid (up, down, link set), shared for those that only read it.
 * Return: 0, -EBUSY if another gridemu holds the lock, -EINVAL for a bad
 * prefix, or -errno; @e explains.
 */
GB_WUR int gb_grid_open(struct gb_grid *g, const char *prefix, int exclusive,
			  struct gb_err *e);

/**
 * gb_grid_unlock() - release the prefix's lock but keep the handle: long
 * runs (mpirun, load, capture) read the grid once and must not keep
 * `gridemu link set` waiting for hours.  Idempotent.
 */
void gb_grid_unlock(struct gb_grid *g);

/** gb_grid_close() - release everything the handle holds; idempotent. */
void gb_grid_close(struct gb_grid *g);

/**
 * gb_grid_preflight() - what gb_grid_up() asks this machine about topology
 * @t before it creates anything, asked without creating anything: the data
 * and management blocks against the host's routes, and the hosts'
 * congestion controls against the kernel's (gb_tcp_check_kernel()).  For a
 * dry run that checks what the run checks (gridexp run --dry-run).
 * Return: 0, -EADDRINUSE (a block overlaps a route), -EINVAL (a congestion
 * control the kernel lacks; "file:line:col: ..."), or -errno; @e explains.
 */
GB_WUR int gb_grid_preflight(const struct gb_topo *t, struct gb_err *e);

/**
 * gb_grid_up() - build the grid of topology file @path.
 * Validation and all pre-flight checks happen before anything is created;
 * on any later failure everything created is removed again.
 * Return: 0, -EINVAL (bad topology: @e holds "file:line:col: msg"; also a
 * file that cannot be read, @e naming it and why), -EEXIST (a grid with this prefix is up), -EADDRINUSE (address block
 * overlaps a host route), or -errno.
 */
GB_WUR int gb_grid_up(struct gb_grid *g, const char *path, const struct gb_up_opts *o,
		      struct gb_err *e);

/**
 * gb_grid_down() - remove everything of this prefix: from the state file if
 * there is one, and by prefix otherwise (after a crash or SIGKILL of `up`).
 * @removed: number of namespaces removed (may be NULL).
 * Return: 0 (also when there was nothing to remove) or -errno.
 */
int gb_grid_down(struct gb_grid *g, int *removed, struct gb_err *e);

/**
 * gb_grid_attach() - load the state of the live grid of this prefix (topology
 * copy, backend, live link parameters) and open its namespaces.
 * Return: 0, -ENOENT if no grid is up, or -errno.
 */
GB_WUR int gb_grid_attach(struct gb_grid *g, struct gb_err *e);

/** Parameters for gb_grid_link_set(); only fields whose GB_LD_* bit is set apply. */
struct gb_link_change {
	struct gb_linkdir p;       /**< values; p.set says which */
	int dir;                   /**< 0 = a>b, 1 = b>a, -1 = both */
};

/**
 * gb_grid_link_set() - change link @name (or one direction) at runtime,
 * touching only that link's qdiscs / delay-line entries.
 */
GB_WUR int gb_grid_link_set(struct gb_grid *g, const char *name,
			    const struct gb_link_change *c, struct gb_err *e);

/**
 * gb_grid_dir_read() - read back the live parameters of directed link @dl
 * (2*link + dir) from the backend into @p (GB_LD_* bits say what was read).
 * Return: 0; -EREMOTE if that direction is shaped on the peer machine
 * (partition.h); -EOPNOTSUPP if the backend cannot read back; or -errno.
 */
GB_WUR int gb_grid_dir_read(struct gb_grid *g, int dl, struct gb_linkdir *p);

/**
 * gb_grid_status() - describe an attached grid: hosts (name, cluster, site,
 * namespace, data and management address) and links with their live
 * parameters, as text or JSON, and whether the data plane works
 * (gb_grid_health(): a "DATA PLANE BROKEN: why" line; "healthy", "health").
 * Return: 0, or 1 when the data plane is broken.
 */
int gb_grid_status(struct gb_grid *g, FILE *out, int json);

/**
 * gb_grid_health() - 1 if the grid's data plane works as far as gridbed's
 * own helpers go (the tap backend's delay line answers), 0 if not, with
 * the reason in @e; -errno if that cannot be told.  The netem backend
 * has no helper: always 1.
 */
int gb_grid_health(struct gb_grid *g, struct gb_err *e);

/* ------------------------------------------------------------------ */
/* The hosts' TCP stack (hosttcp.c; keys in docs/topology-format.md)   */
/* ------------------------------------------------------------------ */

/**
 * gb_tcp_cc_available() - 1 if this kernel has congestion control @name, 0
 * if not, -errno if its list cannot be read; @avail gets the list.
 */
int gb_tcp_cc_available(const char *name, char *avail, size_t len);

/**
 * gb_tcp_check_kernel() - refuse a topology whose hosts ask for a
 * congestion control this kernel lacks ("file:line:col: host 'x':
 * congestion control 'y' is not in this kernel (it has: ...)").  Reads the
 * kernel's list only; called by gb_grid_up() before anything is created.
 * Return: 0, -EINVAL or -errno, @e explains.
 */
int gb_tcp_check_kernel(const struct gb_topo *t, struct gb_err *e);

/**
 * gb_tcp_write_ns() - set @t's sysctls in the host namespace @nsfd (a
 * zeroed @t means the defaults).  The congestion control and the initial
 * window go on the host's data routes (gb_tcp_route_metrics()); the
 * namespace default algorithm is set too where the kernel allows it
 * (hosttcp.c says why it may not).  On failure @what names the file and
 * value.  Return: 0 or -errno.
 */
int gb_tcp_write_ns(int nsfd, const struct gb_tcp *t, char *what, size_t whatlen);

struct gb_nl_route_metrics;
/**
 * gb_tcp_route_metrics() - the route metrics that carry @t (a zeroed @t
 * means the defaults) on a grid at time dilation @dilate into @m: its
 * congestion control (@cubic_as for cubic when not NULL or "", see struct
 * gb_grid), its initial window and, when @dilate > 1, TCP's minimum RTO
 * 200 ms x @dilate (hosttcp.c says why); returns @m.
 */
struct gb_nl_route_metrics *gb_tcp_route_metrics(const struct gb_tcp *t, double dilate,
						 const char *cubic_as,
						 struct gb_nl_route_metrics *m);


/**
 * gb_grid_tcp_read() - the stack host @host really runs, read back from its
 * namespace (sysctls, and the initial window of its route to the data
 * block): what status and the results record.  Return: 0, -EINVAL (not a
 * host, or the grid is not open) or -errno.
 */
int gb_grid_tcp_read(struct gb_grid *g, int host, struct gb_tcp *out);

/**
 * gb_grid_tcp_set() - give every host of a live grid its topology stack
 * overlaid with @over (NULL: the topology's own), at runtime: sysctls and
 * the metrics of its data routes.  The kernel checks the algorithm
 * (-ENOENT for one it lacks).  Used by gridexp before each run of a
 * condition that sets `tcp:`.  Return: 0 or -errno, @e explains.
 */
int gb_grid_tcp_set(struct gb_grid *g, const struct gb_tcp_set *over, struct gb_err *e);

struct json_t;
/**
 * gb_grid_tcp_json() - the stacks the hosts run, read back, for result
 * files: a list with one object per distinct stack, {congestion,
 * slow_start_after_idle, buffers, initcwnd (0: the kernel's), text (the
 * gb_tcp_format() line), hosts (names)}.  Return: a new reference, or NULL
 * (a namespace could not be read, no memory).
 */
struct json_t *gb_grid_tcp_json(struct gb_grid *g);

/**
 * gb_tcp_json() - @t as a JSON object: congestion, slow_start_after_idle,
 * buffers, initcwnd, rto_min_ms (docs/formats.md); gb_grid_tcp_json() adds
 * text and hosts to each.  NULL without memory.
 */
struct json_t *gb_tcp_json(const struct gb_tcp *t);

/** gb_grid_link_show() - one line per directed link with live parameters. */
int gb_grid_link_show(struct gb_grid *g, FILE *out);

/** gb_grid_nsname() - "prefix-node" into @buf. */
const char *gb_grid_nsname(const struct gb_grid *g, const char *node, char *buf, size_t len);

/**
 * gb_grid_node_nsname() - the namespace of node @i into @buf: "prefix-node"
 * here, "peer_prefix-node" when the node is on the peer machine.
 */
const char *gb_grid_node_nsname(const struct gb_grid *g, int i, char *buf, size_t len);

/**
 * gb_grid_exec() - exec @argv inside host/node @node's namespace (does not
 * return on success).
 */
int gb_grid_exec(struct gb_grid *g, const char *node, char **argv, struct gb_err *e);

/**
 * gb_write_script() - print an iproute2 shell script that builds (or with
 * GB_SCRIPT_DOWN, removes) the same grid as gb_grid_up() with the netem
 * backend (GB_SCRIPT_NO_NETEM: rate only, for kernels without netem); the
 * setup-speed benchmark compares gridemu against it.
 */
#define GB_SCRIPT_DOWN     (1u << 0)
#define GB_SCRIPT_NO_NETEM (1u << 1)
int gb_write_script(const struct gb_topo *t, const char *prefix, unsigned flags, FILE *out);

/** gb_ifname() - interface name of link @k ("d<k>"). */
const char *gb_ifname(int k, char buf[16]);

/** gb_grid_backend() - the name of the grid's shaping backend ("netem", "tap", or ""). */
const char *gb_grid_backend(const struct gb_grid *g);

#endif
