/* SPDX-License-Identifier: MIT */
/*
 * grid.c - bring a grid up and down, attach to a live one, change links.
 *
 * Crash safety rests on two rules:
 *   1. the state file is written *before* anything is created and lists what
 *      will be, so `down` after a SIGKILL at any point knows what to remove;
 *   2. everything is named "<prefix>-..." (namespaces) or lives under the
 *      prefix's run directory (daemon files), so `down` can also find it all
 *      with no state file at all.
 * Nothing is ever created in the caller's (the host's) network namespace:
 * veth pairs are created with their ends already inside the grid's
 * namespaces, and every netlink socket used for configuration is bound to the
 * namespace it configures.
 */
#include "gbemu.h"
#include "cgroup.h"
#include "netns.h"
#include "nl.h"
#include "shaping.h"
#include "gbutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <netlink/netlink.h>

void gb_err_set(struct gb_err *e, const char *fmt, ...)
{
	if (!e)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

const char *gb_grid_backend(const struct gb_grid *g)
{
	return g->shaper ? g->shaper->name : "";
}

const char *gb_ifname(int k, char buf[16])
{
	snprintf(buf, 16, "d%d", k);
	return buf;
}

const char *gb_grid_nsname(const struct gb_grid *g, const char *node, char *buf, size_t len)
{
	snprintf(buf, len, "%s-%s", g->prefix, node);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Shaping helpers shared by the backends                              */
/* ------------------------------------------------------------------ */

const struct gb_shaper *gb_shaper_find(const char *name)
{
	static const struct gb_shaper *all[] = { &gb_shaper_netem, &gb_shaper_tap };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

uint32_t gb_tbf_burst(uint64_t rate_bps, uint32_t mtu)
{
	uint64_t ms = rate_bps / 8 / 1000;
	uint64_t b = ms > 2ull * mtu ? ms : 2ull * mtu;
	return b > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)b;
}

uint32_t gb_limit_of(const struct gb_topo *t, int dl)
{
	const struct gb_linkdir *p = gb_topo_dir((struct gb_topo *)t, dl);
	return p->limit ? p->limit : gb_topo_default_limit(t, dl);
}

uint32_t gb_bdp_pkts(const struct gb_topo *t, int dl)
{
	const struct gb_linkdir *p = gb_topo_dir((struct gb_topo *)t, dl);
	double bytes = (double)p->rate_bps / 8.0 * ((double)(p->delay_ns + p->jitter_ns) / 1e9);
	return (uint32_t)(bytes / (t->mtu ? t->mtu : 1500)) + 1;
}

/* ------------------------------------------------------------------ */
/* Handle, lock, state file                                            */
/* ------------------------------------------------------------------ */

static int valid_prefix(const char *p)
{
	size_t n = strlen(p);
	if (n == 0 || n > GB_PREFIX_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)p[i]) && !isdigit((unsigned char)p[i]))
			return 0;
	return 1;
}

int gb_grid_open(struct gb_grid *g, const char *prefix, int exclusive, struct gb_err *e)
{
	char lockp[PATH_MAX];
	int err;

	memset(g, 0, sizeof(*g));
	g->lockfd = -1;
	g->mgmt_nsfd = -1;
	if (!prefix)
		prefix = getenv("GRIDBED_PREFIX");
	if (!prefix || !*prefix)
		prefix = GB_PREFIX_DEFAULT;
	if (!valid_prefix(prefix)) {
		gb_err_set(e, "prefix '%s' is not valid (1 to %d lowercase letters or digits)",
			   prefix, GB_PREFIX_MAX);
		return -EINVAL;
	}
	snprintf(g->prefix, sizeof(g->prefix), "%s", prefix);
	const char *rd = getenv("GRIDBED_RUNDIR");
	snprintf(g->rundir, sizeof(g->rundir), "%s/%s", rd && *rd ? rd : GB_RUNDIR_DEFAULT,
		 prefix);
	if ((err = gb_mkdir_p(g->rundir, 0755)) < 0) {
		gb_err_set(e, "cannot create '%s': %s", g->rundir, strerror(-err));
		return err;
	}
	snprintf(lockp, sizeof(lockp), "%s/lock", g->rundir);
	g->lockfd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (g->lockfd < 0) {
		err = -errno;
		gb_err_set(e, "cannot open lock '%s': %s", lockp, strerror(errno));
		return err;
	}
	if (flock(g->lockfd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		gb_err_set(e, "grid '%s' is busy: another gridemu holds '%s'", prefix, lockp);
		close(g->lockfd);
		g->lockfd = -1;
		return err;
	}
	return 0;
}

static void close_namespaces(struct gb_grid *g)
{
	if (g->topo && g->nsfd) {
		for (int i = 0; i < g->topo->nnodes; i++) {
			gb_nl_close(&g->sk[i]);
			if (g->nsfd[i] >= 0)
				close(g->nsfd[i]);
			g->nsfd[i] = -1;
		}
	}
	free(g->nsfd);
	free(g->sk);
	g->nsfd = NULL;
	g->sk = NULL;
	gb_nl_close(&g->mgmt_sk);
	if (g->mgmt_nsfd >= 0)
		close(g->mgmt_nsfd);
	g->mgmt_nsfd = -1;
}

void gb_grid_unlock(struct gb_grid *g)
{
	if (g->lockfd >= 0)
		close(g->lockfd);
	g->lockfd = -1;
}

void gb_grid_close(struct gb_grid *g)
{
	close_namespaces(g);
	gb_topo_free(g->topo);
	g->topo = NULL;
	gb_grid_unlock(g);
}

static void rpath(const struct gb_grid *g, const char *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", g->rundir, f);
}

static json_t *linkdir_json(const struct gb_linkdir *p)
{
	return json_pack("{s:I, s:I, s:f, s:I, s:i}", "delay_ns", (json_int_t)p->delay_ns,
			 "jitter_ns", (json_int_t)p->jitter_ns, "loss", p->loss, "rate_bps",
			 (json_int_t)p->rate_bps, "limit", (int)p->limit);
}

static void linkdir_from_json(json_t *j, struct gb_linkdir *p)
{
	json_int_t d = (json_int_t)p->delay_ns, jt = (json_int_t)p->jitter_ns;
	json_int_t r = (json_int_t)p->rate_bps;
	int lim = (int)p->limit;
	double loss = p->loss;
	json_unpack(j, "{s?I, s?I, s?F, s?I, s?i}", "delay_ns", &d, "jitter_ns", &jt, "loss",
		    &loss, "rate_bps", &r, "limit", &lim);
	p->delay_ns = (uint64_t)d;
	p->jitter_ns = (uint64_t)jt;
	p->loss = loss;
	p->rate_bps = (uint64_t)r;
	p->limit = (uint32_t)lim;
}

/* Atomic: write to a temporary file, then rename (decision 7). */
static int write_state(const struct gb_grid *g, const char *status, const char *topo_path)
{
	char path[PATH_MAX], tmp[PATH_MAX], buf[128];
	const struct gb_topo *t = g->topo;
	json_t *ns = json_array(), *links = json_array();

	json_array_append_new(ns, json_string(gb_grid_nsname(g, "mgmt", buf, sizeof(buf))));
	for (int i = 0; i < t->nnodes; i++)
		json_array_append_new(ns, json_string(gb_grid_nsname(g, t->nodes[i].name, buf,
								      sizeof(buf))));
	for (int k = 0; k < t->nlinks; k++)
		json_array_append_new(links, json_pack("{s:s, s:o, s:o}", "name", t->links[k].name,
						       "ab", linkdir_json(&t->links[k].ab), "ba",
						       linkdir_json(&t->links[k].ba)));
	json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:o}", "prefix", g->prefix,
				 "status", status, "topology", topo_path, "name", t->name,
				 "backend", g->shaper ? g->shaper->name : "", "created_unix",
				 (json_int_t)time(NULL), "netns", ns, "links", links);
	/* heterogeneous CPUs: which interface enforces the clusters' shares */
	json_object_set_new(root, "cpu_control",
			    json_string(gb_cgroup_describe(t, buf, sizeof(buf))));
	rpath(g, "state.json", path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	int err = json_dump_file(root, tmp, JSON_INDENT(1)) < 0 ? -EIO : 0;
	json_decref(root);
	if (!err) {
		int fd = open(tmp, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			fsync(fd);
			close(fd);
		}
		if (rename(tmp, path) < 0)
			err = -errno;
	}
	return err;
}

static int copy_file(const char *from, const char *to)
{
	char tmp[PATH_MAX], buf[65536];
	int err = 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", to);
	FILE *in = fopen(from, "rb");
	if (!in)
		return -errno;
	FILE *out = fopen(tmp, "wb");
	if (!out) {
		err = -errno;
		fclose(in);
		return err;
	}
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			err = -EIO;
	if (ferror(in))
		err = -EIO;
	fclose(in);
	if (fclose(out) != 0)
		err = -EIO;
	if (!err && rename(tmp, to) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* ------------------------------------------------------------------ */
/* Building                                                            */
/* ------------------------------------------------------------------ */

static int is_router(const struct gb_node *n)
{
	return n->kind != GB_NODE_HOST;
}

/* Raise the fd limit: a 1024-host grid keeps ~2 fds per node open. */
static void raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int alloc_ns_arrays(struct gb_grid *g)
{
	int n = g->topo->nnodes;
	g->nsfd = malloc(sizeof(int) * (size_t)n);
	g->sk = calloc((size_t)n, sizeof(struct nl_sock *));
	if (!g->nsfd || !g->sk)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		g->nsfd[i] = -1;
	return 0;
}

/*
 * IPv6 is switched off in every grid namespace before any device exists:
 * the papers' grids are IPv4, and router solicitations, MLD reports and DAD
 * probes would otherwise cross the shaped links and pollute the counters
 * that measure wide-area crossings.  A kernel without IPv6 has no such file.
 */
static int no_ipv6(int nsfd)
{
	static const char *const f[] = { "/proc/sys/net/ipv6/conf/all/disable_ipv6",
					 "/proc/sys/net/ipv6/conf/default/disable_ipv6" };
	for (size_t i = 0; i < 2; i++) {
		int err = gb_netns_sysctl_write(nsfd, f[i], "1");
		if (err < 0 && err != -ENOENT)
			return err;
	}
	return 0;
}

static int create_namespaces(struct gb_grid *g, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	char name[128];
	int err;

	for (int i = 0; i < t->nnodes; i++) {
		gb_grid_nsname(g, t->nodes[i].name, name, sizeof(name));
		if ((g->nsfd[i] = gb_netns_create(name)) < 0) {
			err = g->nsfd[i];
			gb_err_set(e, "cannot create network namespace '%s': %s", name,
				   strerror(-err));
			return err;
		}
		if ((err = gb_nl_open(g->nsfd[i], &g->sk[i])) < 0) {
			gb_err_set(e, "cannot open netlink in namespace '%s': %s", name,
				   strerror(-err));
			return err;
		}
		if ((err = no_ipv6(g->nsfd[i])) < 0) {
			gb_err_set(e, "cannot switch IPv6 off in namespace '%s': %s", name,
				   strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The routes of node @i.  The most common first hop becomes a route for the
 * whole data block, so a cluster switch or a host needs one route; only the
 * destinations that leave by another link get a /32.  Destinations outside
 * the block stay unreachable: nothing can leak towards the host. */
static int node_routes(struct gb_grid *g, int i, int *count, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	int n = t->nnodes, ndl = 2 * t->nlinks, best = -1, err = 0;
	int *cnt = calloc((size_t)ndl, sizeof(int));
	int *ifidx = malloc(sizeof(int) * (size_t)t->nlinks);
	struct gb_nl_route_metrics m, *mp = NULL;
	char ifn[16];

	/* a host's data routes carry its congestion control and initial
	 * window (hosttcp.c) */
	if (t->nodes[i].kind == GB_NODE_HOST)
		mp = gb_tcp_route_metrics(&t->nodes[i].tcp, &m);
	if (!cnt || !ifidx) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (int k = 0; k < t->nlinks; k++)
		ifidx[k] = -1;
	for (int j = 0; j < n; j++) {
		int dl = t->next[i * n + j];
		if (j != i && dl >= 0)
			cnt[dl]++;
	}
	for (int dl = 0; dl < ndl; dl++)
		if (cnt[dl] && (best < 0 || cnt[dl] > cnt[best]))
			best = dl;
	for (int j = -1; j < n; j++) {
		int dl = j < 0 ? best : t->next[i * n + j];
		if (dl < 0 || (j >= 0 && (j == i || dl == best)))
			continue;
		int k = dl / 2;
		if (ifidx[k] < 0 && (ifidx[k] = gb_nl_ifindex(g->sk[i], gb_ifname(k, ifn))) < 0) {
			err = ifidx[k];
			goto cleanup;
		}
		uint32_t gw = t->nodes[gb_topo_dir_to(t, dl)].addr;
		err = j < 0 ? gb_nl_route_add(g->sk[i], t->data.addr, t->data.len, ifidx[k], gw, mp)
			    : gb_nl_route_add(g->sk[i], t->nodes[j].addr, 32, ifidx[k], gw, mp);
		if (err < 0)
			goto cleanup;
		(*count)++;
	}
cleanup:
	if (err < 0)
		gb_err_set(e, "node '%s': cannot add routes: %s", t->nodes[i].name, strerror(-err));
	free(cnt);
	free(ifidx);
	return err;
}

/* A host's TCP stack (hosttcp.c), with the error in @e. */
static int tune_host(struct gb_grid *g, int i, struct gb_err *e)
{
	const struct gb_node *n = &g->topo->nodes[i];
	char what[96];
	int err = gb_tcp_write_ns(g->nsfd[i], &n->tcp, what, sizeof(what));

	if (err < 0)
		gb_err_set(e, "host '%s': cannot set %s: %s", n->name, what, strerror(-err));
	return err;
}

static int configure_nodes(struct gb_grid *g, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	char ifn[16];
	int err = 0, routes = 0;

	for (int i = 0; i < t->nnodes; i++) {
		int lo = gb_nl_ifindex(g->sk[i], "lo");
		if (lo < 0 || (err = gb_nl_link_config(g->sk[i], lo, 0, 0, GB_LINK_UP)) < 0) {
			err = lo < 0 ? lo : err;
			gb_err_set(e, "node '%s': cannot bring up lo: %s", t->nodes[i].name,
				   strerror(-err));
			return err;
		}
		if (t->nodes[i].kind == GB_NODE_HOST && (err = tune_host(g, i, e)) < 0)
			return err;
	}
	for (int k = 0; k < t->nlinks; k++) {
		const struct gb_link *l = &t->links[k];
		int ends[2] = { l->a, l->b };
		for (int s = 0; s < 2; s++) {
			int i = ends[s];
			unsigned fl = GB_LINK_UP | GB_LINK_NO_IPV6LL;
			if (is_router(&t->nodes[i]))
				fl |= GB_LINK_FORWARD;
			int ifi = gb_nl_ifindex(g->sk[i], gb_ifname(k, ifn));
			if (ifi < 0) {
				err = ifi;
				goto fail;
			}
			/* A long device queue: the TBF or the delay line is the queue
			 * that counts, the device must not drop before it. */
			if ((err = gb_nl_link_config(g->sk[i], ifi, t->mtu, 10000, fl)) < 0 ||
			    (err = gb_nl_addr_add(g->sk[i], ifi, t->nodes[i].addr, 32)) < 0)
				goto fail;
			continue;
fail:
			gb_err_set(e, "link '%s': cannot configure '%s' in node '%s': %s", l->name,
				   ifn, t->nodes[i].name, strerror(-err));
			return err;
		}
	}
	for (int i = 0; i < t->nnodes; i++)
		if ((err = node_routes(g, i, &routes, e)) < 0)
			return err;
	return 0;
}

static int build_mgmt(struct gb_grid *g, struct gb_err *e)
{
	const struct gb_topo *t = g->topo;
	uint32_t gw = t->mgmt.addr + 1;
	char hname[16];
	int err = 0, lo;

	if ((lo = gb_nl_ifindex(g->mgmt_sk, "lo")) < 0 ||
	    (err = gb_nl_link_config(g->mgmt_sk, lo, 0, 0, GB_LINK_UP)) < 0) {
		err = lo < 0 ? lo : err;
		goto fail;
	}
	for (int h = 0; h < t->nhosts; h++) {
		snprintf(hname, sizeof(hname), "h%d", h);
		int hi, mi;
		if ((err = gb_nl_veth(g->mgmt_sk, hname, "m0", g->nsfd[h], 0)) < 0)
			goto fail;
		if ((mi = gb_nl_ifindex(g->mgmt_sk, hname)) < 0 ||
		    (hi = gb_nl_ifindex(g->sk[h], "m0")) < 0) {
			err = -ENODEV;
			goto fail;
		}
		if ((err = gb_nl_link_config(g->mgmt_sk, mi, 0, 0,
					     GB_LINK_UP | GB_LINK_FORWARD | GB_LINK_NO_IPV6LL)) < 0 ||
		    (err = gb_nl_addr_add(g->mgmt_sk, mi, gw, 32)) < 0 ||
		    (err = gb_nl_route_add(g->mgmt_sk, t->nodes[h].mgmt, 32, mi, 0, NULL)) < 0 ||
		    (err = gb_nl_link_config(g->sk[h], hi, 0, 0, GB_LINK_UP | GB_LINK_NO_IPV6LL)) < 0 ||
		    (err = gb_nl_addr_add(g->sk[h], hi, t->nodes[h].mgmt, 32)) < 0 ||
		    (err = gb_nl_route_add(g->sk[h], t->mgmt.addr, t->mgmt.len, hi, gw, NULL)) < 0)
			goto fail;
	}
	return 0;
fail:
	gb_err_set(e, "cannot build the management network: %s", strerror(-err));
	return err;
}

static void self_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0) {
		snprintf(buf, len, ".");
		return;
	}
	buf[n] = 0;
	char *s = strrchr(buf, '/');
	if (s)
		*s = 0;
}

static int check_overlap(const struct gb_topo *t, struct gb_err *e)
{
	struct nl_sock *sk = nl_socket_alloc();
	char what[64];
	int err;
	if (!sk)
		return -ENOMEM;
	if ((err = nl_connect(sk, NETLINK_ROUTE)) < 0) {
		nl_socket_free(sk);
		return gb_nle2errno(err);
	}
	const struct gb_prefix *blocks[2] = { &t->data, &t->mgmt };
	const char *names[2] = { "data", "mgmt" };
	for (int b = 0; b < 2; b++) {
		int r = gb_nl_route_overlap(sk, blocks[b]->addr, blocks[b]->len, what, sizeof(what));
		if (r != 0) {
			char ip[16];
			err = r > 0 ? -EADDRINUSE : r;
			if (r > 0)
				gb_err_set(e, "%s: %s block %s/%d overlaps the host's route %s; choose "
					   "another block under 'addressing:'", t->path, names[b],
					   gb_fmt_ip(blocks[b]->addr, ip), blocks[b]->len, what);
			else
				gb_err_set(e, "cannot read the host's routes: %s", strerror(-r));
			nl_socket_free(sk);
			return err;
		}
	}
	nl_socket_free(sk);
	return 0;
}

int gb_grid_up(struct gb_grid *g, const char *path, const struct gb_up_opts *o,
	       struct gb_err *e)
{
	struct gb_diag d;
	char sp[PATH_MAX], abspath[PATH_MAX], name[128], why[256], tapd[PATH_MAX];
	char **left = NULL;
	int err, nleft;
	const char *backend = o && o->backend ? o->backend : "auto";

	/* 1. Everything that can be checked without creating anything. */
	memset(&d, 0, sizeof(d));
	if ((err = gb_topo_load(path, &g->topo, &d)) < 0) {
		if (err == -EINVAL)
			gb_err_set(e, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
		else
			gb_err_set(e, "cannot read topology '%s': %s", path, strerror(-err));
		return err;
	}
	if (!realpath(path, abspath))
		snprintf(abspath, sizeof(abspath), "%s", path);
	if (strcmp(backend, "auto") && !gb_shaper_find(backend)) {
		gb_err_set(e, "unknown backend '%s' (auto, netem or tap)", backend);
		err = -EINVAL;
		goto out_free;
	}
	rpath(g, "state.json", sp, sizeof(sp));
	if (access(sp, F_OK) == 0) {
		gb_err_set(e, "a grid with prefix '%s' is already up (%s); run 'gridemu down' first",
			   g->prefix, sp);
		err = -EEXIST;
		goto out_free;
	}
	if ((nleft = gb_netns_list_prefix(g->prefix, &left)) > 0) {
		gb_err_set(e, "namespace '%s' is left from an earlier grid with prefix '%s'; run "
			   "'gridemu down' first", left[0], g->prefix);
		gb_strv_free(left, nleft);
		err = -EEXIST;
		goto out_free;
	}
	for (int i = 0; i < g->topo->nnodes; i++)
		if (strlen(gb_grid_nsname(g, g->topo->nodes[i].name, name, sizeof(name))) > 64) {
			gb_err_set(e, "node '%s': namespace name too long", g->topo->nodes[i].name);
			err = -ENAMETOOLONG;
			goto out_free;
		}
	if ((err = check_overlap(g->topo, e)) < 0 || (err = gb_tcp_check_kernel(g->topo, e)) < 0)
		goto out_free;
	if (o && o->tapd_path)
		snprintf(tapd, sizeof(tapd), "%s", o->tapd_path);
	else if (getenv("GRIDBED_TAPD"))
		snprintf(tapd, sizeof(tapd), "%s", getenv("GRIDBED_TAPD"));
	else {
		self_dir(tapd, sizeof(tapd) - 16);
		strcat(tapd, "/gridemu-tapd");
	}
	raise_nofile();

	/* 2. The intent, then the namespaces.  From here on, failure = down. */
	g->shaper = strcmp(backend, "auto") ? gb_shaper_find(backend) : NULL;
	if ((err = write_state(g, "creating", abspath)) < 0) {
		gb_err_set(e, "cannot write '%s': %s", sp, strerror(-err));
		goto out_free;
	}
	gb_grid_nsname(g, "mgmt", name, sizeof(name));
	if ((g->mgmt_nsfd = gb_netns_create(name)) < 0) {
		err = g->mgmt_nsfd;
		gb_err_set(e, "cannot create network namespace '%s': %s", name, strerror(-err));
		goto undo;
	}
	if ((err = gb_nl_open(g->mgmt_nsfd, &g->mgmt_sk)) < 0 ||
	    (err = no_ipv6(g->mgmt_nsfd)) < 0) {
		gb_err_set(e, "cannot set up namespace '%s': %s", name, strerror(-err));
		goto undo;
	}

	/* 3. The backend: probe in our own namespace, never the host's. */
	if (!g->shaper) {
		g->shaper = gb_shaper_netem.probe(g, why, sizeof(why)) == 1 ? &gb_shaper_netem
									     : &gb_shaper_tap;
	}
	if ((err = g->shaper->probe(g, why, sizeof(why))) != 1) {
		gb_err_set(e, "backend '%s' cannot work here: %s%s", g->shaper->name, why,
			   g->shaper == &gb_shaper_netem ? " (use --backend tap or auto)" : "");
		err = err < 0 ? err : -EOPNOTSUPP;
		goto undo;
	}
	if ((err = write_state(g, "creating", abspath)) < 0)
		goto undo;

	if ((err = alloc_ns_arrays(g)) < 0 || (err = create_namespaces(g, e)) < 0)
		goto undo;
	if ((err = g->shaper->create_links(g, tapd, e)) < 0)
		goto undo;
	if ((err = configure_nodes(g, e)) < 0)
		goto undo;
	for (int dl = 0; dl < 2 * g->topo->nlinks; dl++)
		if ((err = g->shaper->apply(g, dl, 0, e)) < 0)
			goto undo;
	if ((err = build_mgmt(g, e)) < 0)
		goto undo;
	{
		struct gb_cpuctl cc;

		if ((err = gb_cgroup_setup(g, &cc, e)) < 0)
			goto undo;
	}

	rpath(g, "topology.yaml", sp, sizeof(sp));
	if ((err = copy_file(path, sp)) < 0) {
		gb_err_set(e, "cannot copy the topology to '%s': %s", sp, strerror(-err));
		goto undo;
	}
	if ((err = write_state(g, "up", abspath)) < 0) {
		gb_err_set(e, "cannot write the state file: %s", strerror(-err));
		goto undo;
	}
	return 0;

undo:
	if (!e->msg[0])
		gb_err_set(e, "cannot bring the grid up: %s", strerror(-err));
	{
		struct gb_err ignored;
		gb_grid_down(g, NULL, &ignored);
	}
out_free:
	close_namespaces(g);
	gb_topo_free(g->topo);
	g->topo = NULL;
	/* Refused before anything was created: leave no lock file or empty run
	 * directory behind either (bad input changes nothing).  Not when a
	 * grid of this prefix is up: its state file is there. */
	rpath(g, "state.json", sp, sizeof(sp));
	if (g->lockfd >= 0 && access(sp, F_OK) != 0) {
		rpath(g, "lock", sp, sizeof(sp));
		unlink(sp);
		rmdir(g->rundir);
	}
	return err;
}

/* ------------------------------------------------------------------ */
/* Tearing down                                                        */
/* ------------------------------------------------------------------ */

int gb_grid_down(struct gb_grid *g, int *removed, struct gb_err *e)
{
	char sp[PATH_MAX], name[128];
	char **names = NULL;
	int n = 0, cap = 0, err = 0, nrem = 0;
	char **byprefix = NULL;
	int nbp;

	/* Stop every helper first, so nothing recreates or holds devices. */
	gb_shaper_tap.stop(g);
	gb_shaper_netem.stop(g);
	close_namespaces(g);

	/* Namespaces: the state file's list, plus whatever carries the prefix. */
	rpath(g, "state.json", sp, sizeof(sp));
	json_t *st = json_load_file(sp, 0, NULL);
	json_t *ns = st ? json_object_get(st, "netns") : NULL;
	size_t nst = json_is_array(ns) ? json_array_size(ns) : 0;
	nbp = gb_netns_list_prefix(g->prefix, &byprefix);
	if (nbp < 0)
		nbp = 0;
	cap = (int)nst + nbp;
	names = calloc((size_t)cap + 1, sizeof(char *));
	if (!names) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < nst; i++) {
		const char *s = json_string_value(json_array_get(ns, i));
		/* Only names of this prefix: a corrupt state file must not make
		 * us delete someone else's namespace. */
		snprintf(name, sizeof(name), "%s-", g->prefix);
		if (s && !strncmp(s, name, strlen(name)))
			names[n++] = strdup(s);
	}
	for (int i = 0; i < nbp; i++) {
		int dup = 0;
		for (int j = 0; j < n && !dup; j++)
			dup = names[j] && !strcmp(names[j], byprefix[i]);
		if (!dup)
			names[n++] = strdup(byprefix[i]);
	}

	/* Processes still running inside (gridemu exec, MPI ranks, load). */
	unsigned long *inos = calloc((size_t)n + 1, sizeof(unsigned long));
	int ninos = 0;
	for (int i = 0; inos && i < n; i++) {
		if (!names[i])
			continue;
		int fd = gb_netns_open(names[i]);
		if (fd >= 0) {
			if (gb_netns_inode(fd, &inos[ninos]) == 0)
				ninos++;
			close(fd);
		}
	}
	gb_netns_kill_procs(inos, ninos);
	free(inos);
	/* the hosts' CPU quotas (their processes are gone now) */
	{
		int r = gb_cgroup_remove(g->prefix);

		if (r < 0 && !err) {
			err = r;
			gb_err_set(e, "cannot remove the cgroups of prefix '%s': %s", g->prefix,
				   strerror(-r));
		}
	}

	for (int i = 0; i < n; i++) {
		if (!names[i])
			continue;
		int r = gb_netns_delete(names[i]);
		if (r == 0)
			nrem++;
		else if (r != -ENOENT && !err) {
			err = r;
			gb_err_set(e, "cannot delete namespace '%s': %s", names[i], strerror(-r));
		}
	}
	if (!err) {
		gb_rmtree(g->rundir);
	}
cleanup:
	if (removed)
		*removed = nrem;
	json_decref(st);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	gb_strv_free(byprefix, nbp);
	return err;
}

/* ------------------------------------------------------------------ */
/* Attaching to a live grid                                            */
/* ------------------------------------------------------------------ */

int gb_grid_attach(struct gb_grid *g, struct gb_err *e)
{
	char sp[PATH_MAX], tp[PATH_MAX], name[128];
	struct gb_diag d;
	json_error_t je;
	int err;

	rpath(g, "state.json", sp, sizeof(sp));
	json_t *st = json_load_file(sp, 0, &je);
	if (!st) {
		if (access(sp, F_OK) < 0) {
			gb_err_set(e, "no grid with prefix '%s' is up", g->prefix);
			return -ENOENT;
		}
		gb_err_set(e, "%s:%d:%d: %s", sp, je.line, je.column, je.text);
		return -EINVAL;
	}
	const char *status = json_string_value(json_object_get(st, "status"));
	const char *backend = json_string_value(json_object_get(st, "backend"));
	if (!status || strcmp(status, "up")) {
		gb_err_set(e, "grid '%s' is not up (state '%s'); run 'gridemu down'", g->prefix,
			   status ? status : "?");
		err = -ENOENT;
		goto cleanup;
	}
	if (!backend || !(g->shaper = gb_shaper_find(backend))) {
		gb_err_set(e, "%s: unknown backend '%s'", sp, backend ? backend : "");
		err = -EINVAL;
		goto cleanup;
	}
	rpath(g, "topology.yaml", tp, sizeof(tp));
	if ((err = gb_topo_load(tp, &g->topo, &d)) < 0) {
		gb_err_set(e, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
		goto cleanup;
	}
	json_t *links = json_object_get(st, "links");
	size_t i;
	json_t *lj;
	json_array_foreach(links, i, lj) {
		int k = gb_topo_find_link(g->topo, json_string_value(json_object_get(lj, "name")));
		if (k < 0)
			continue;
		linkdir_from_json(json_object_get(lj, "ab"), &g->topo->links[k].ab);
		linkdir_from_json(json_object_get(lj, "ba"), &g->topo->links[k].ba);
	}
	raise_nofile();
	if ((err = alloc_ns_arrays(g)) < 0)
		goto cleanup;
	for (int n = 0; n < g->topo->nnodes; n++) {
		gb_grid_nsname(g, g->topo->nodes[n].name, name, sizeof(name));
		if ((g->nsfd[n] = gb_netns_open(name)) < 0 ||
		    (err = gb_nl_open(g->nsfd[n], &g->sk[n])) < 0) {
			err = g->nsfd[n] < 0 ? g->nsfd[n] : err;
			gb_err_set(e, "grid '%s' is damaged: namespace '%s': %s; run 'gridemu down'",
				   g->prefix, name, strerror(-err));
			goto cleanup;
		}
	}
	gb_grid_nsname(g, "mgmt", name, sizeof(name));
	if ((g->mgmt_nsfd = gb_netns_open(name)) >= 0)
		err = gb_nl_open(g->mgmt_nsfd, &g->mgmt_sk);
	err = 0;
cleanup:
	json_decref(st);
	if (err) {
		close_namespaces(g);
		gb_topo_free(g->topo);
		g->topo = NULL;
	}
	return err;
}

static int state_topo_path(const struct gb_grid *g, char *buf, size_t len)
{
	char sp[PATH_MAX];
	rpath(g, "state.json", sp, sizeof(sp));
	json_t *st = json_load_file(sp, 0, NULL);
	const char *p = st ? json_string_value(json_object_get(st, "topology")) : NULL;
	snprintf(buf, len, "%s", p ? p : "");
	json_decref(st);
	return 0;
}

int gb_grid_link_set(struct gb_grid *g, const char *name, const struct gb_link_change *c,
		     struct gb_err *e)
{
	struct gb_topo *t = g->topo;
	char tp[PATH_MAX];
	int k = gb_topo_find_link(t, name), err;

	if (k < 0) {
		gb_err_set(e, "no link '%s' in grid '%s' (see 'gridemu link show')", name,
			   g->prefix);
		return -ENOENT;
	}
	for (int dir = 0; dir < 2; dir++) {
		if (c->dir >= 0 && c->dir != dir)
			continue;
		struct gb_linkdir *p = dir ? &t->links[k].ba : &t->links[k].ab;
		struct gb_linkdir old = *p;
		if (c->p.set & GB_LD_DELAY)
			p->delay_ns = c->p.delay_ns;
		if (c->p.set & GB_LD_JITTER)
			p->jitter_ns = c->p.jitter_ns;
		if (c->p.set & GB_LD_LOSS)
			p->loss = c->p.loss;
		if (c->p.set & GB_LD_RATE)
			p->rate_bps = c->p.rate_bps;
		if (c->p.set & GB_LD_LIMIT)
			p->limit = c->p.limit;
		p->set |= c->p.set;
		if ((err = g->shaper->apply(g, 2 * k + dir, 1, e)) < 0) {
			*p = old;
			return err;
		}
	}
	state_topo_path(g, tp, sizeof(tp));
	if ((err = write_state(g, "up", tp)) < 0) {
		gb_err_set(e, "cannot write the state file: %s", strerror(-err));
		return err;
	}
	return 0;
}

int gb_grid_exec(struct gb_grid *g, const char *node, char **argv, struct gb_err *e)
{
	char name[128];
	int fd;

	gb_grid_nsname(g, node, name, sizeof(name));
	if ((fd = gb_netns_open(name)) < 0) {
		gb_err_set(e, "no node '%s' in grid '%s' (namespace '%s': %s)", node, g->prefix, name,
			   strerror(-fd));
		return fd;
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		int err = -errno;
		gb_err_set(e, "cannot enter namespace '%s': %s", name, strerror(errno));
		close(fd);
		return err;
	}
	close(fd);
	setenv("GRIDBED_NODE", node, 1);
	setenv("GRIDBED_PREFIX", g->prefix, 1);
	{
		int r = gb_cgroup_join(g->prefix, node);

		if (r < 0) {
			gb_err_set(e, "cannot join the CPU quota of '%s': %s", node, strerror(-r));
			return r;
		}
	}
	execvp(argv[0], argv);
	int err = -errno;
	gb_err_set(e, "cannot run '%s' in '%s': %s", argv[0], node, strerror(errno));
	return err;
}
