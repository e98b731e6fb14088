/* SPDX-License-Identifier: MIT */
/*
 * grid.c - the grid handle and its state file; take a grid down, attach to a
 * live one, change links.  Bringing one up is grid_up.c.
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
#include "grid_priv.h"
#include "partition.h"
#include "gbcubic.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <netlink/netlink.h>

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

const char *gb_grid_node_nsname(const struct gb_grid *g, int i, char *buf, size_t len)
{
	const char *node = g->topo->nodes[i].name;

	if (gb_grid_local(g, i))
		return gb_grid_nsname(g, node, buf, len);
	snprintf(buf, len, "%s-%s", g->peer_prefix, node);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Handle, lock, state file                                            */
/* ------------------------------------------------------------------ */

int gb_grid_prefix_valid(const char *p)
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
	g->edge_nsfd = -1;
	if (!prefix)
		prefix = getenv("GRIDBED_PREFIX");
	if (!prefix || !*prefix)
		prefix = GB_PREFIX_DEFAULT;
	if (!gb_grid_prefix_valid(prefix)) {
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

void gb_grid_close_ns(struct gb_grid *g)
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
	free(g->ifidx);
	g->nsfd = NULL;
	g->sk = NULL;
	g->ifidx = NULL;
	gb_nl_close(&g->mgmt_sk);
	if (g->mgmt_nsfd >= 0)
		close(g->mgmt_nsfd);
	g->mgmt_nsfd = -1;
	if (g->edge_nsfd >= 0)
		close(g->edge_nsfd);
	g->edge_nsfd = -1;
	free(g->local);
	g->local = NULL;
}

void gb_grid_unlock(struct gb_grid *g)
{
	if (g->lockfd >= 0)
		close(g->lockfd);
	g->lockfd = -1;
}

void gb_grid_close(struct gb_grid *g)
{
	gb_grid_close_ns(g);
	gb_topo_free(g->topo);
	g->topo = NULL;
	gb_grid_unlock(g);
}

void gb_grid_rpath(const struct gb_grid *g, const char *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", g->rundir, f);
}

/* per_packet_ns only where there is one: other grids' state stays as it was */
static json_t *linkdir_json(const struct gb_linkdir *p)
{
	json_t *j = json_pack("{s:I, s:I, s:f, s:I, s:i}", "delay_ns", (json_int_t)p->delay_ns,
			      "jitter_ns", (json_int_t)p->jitter_ns, "loss", p->loss, "rate_bps",
			      (json_int_t)p->rate_bps, "limit", (int)p->limit);

	if (j && p->per_packet_ns)
		json_object_set_new(j, "per_packet_ns", json_integer((json_int_t)p->per_packet_ns));
	return j;
}

static void linkdir_from_json(json_t *j, struct gb_linkdir *p)
{
	json_int_t d = (json_int_t)p->delay_ns, jt = (json_int_t)p->jitter_ns;
	json_int_t r = (json_int_t)p->rate_bps;
	/* written only when not 0: a direction whose cost `link set` removed */
	json_int_t pp = j ? 0 : (json_int_t)p->per_packet_ns;
	int lim = (int)p->limit;
	double loss = p->loss;
	json_unpack(j, "{s?I, s?I, s?F, s?I, s?i, s?I}", "delay_ns", &d, "jitter_ns", &jt, "loss",
		    &loss, "rate_bps", &r, "limit", &lim, "per_packet_ns", &pp);
	p->delay_ns = (uint64_t)d;
	p->jitter_ns = (uint64_t)jt;
	p->loss = loss;
	p->rate_bps = (uint64_t)r;
	p->limit = (uint32_t)lim;
	p->per_packet_ns = (uint64_t)pp;
}

/* Atomic: write to a temporary file, then rename (decision 7).  Not
 * flushed to disk: what it describes (namespaces, the daemon) does not
 * outlive the machine either, and a crashed process's write is in the
 * page cache all the same (each flush cost `up` 2-4 ms). */
int gb_grid_write_state(const struct gb_grid *g, const char *status, const char *topo_path)
{
	char path[PATH_MAX], tmp[PATH_MAX], buf[128];
	const struct gb_topo *t = g->topo;
	json_t *ns = json_array(), *links = json_array();

	json_array_append_new(ns, json_string(gb_grid_nsname(g, "mgmt", buf, sizeof(buf))));
	if (gb_part_ncross(g))
		json_array_append_new(ns, json_string(gb_grid_nsname(g, GB_PART_EDGE, buf,
								      sizeof(buf))));
	for (int i = 0; i < t->nnodes; i++)
		if (gb_grid_local(g, i))
			json_array_append_new(ns, json_string(gb_grid_nsname(g, t->nodes[i].name,
									      buf, sizeof(buf))));
	for (int k = 0; k < t->nlinks; k++)
		json_array_append_new(links, json_pack("{s:s, s:o, s:o}", "name", t->links[k].name,
						       "ab", linkdir_json(&t->links[k].ab), "ba",
						       linkdir_json(&t->links[k].ba)));
	json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:o}", "prefix", g->prefix,
				 "status", status, "topology", topo_path, "name", t->name,
				 "backend", g->shaper ? g->shaper->name : "", "created_unix",
				 (json_int_t)time(NULL), "netns", ns, "links", links);
	json_object_set_new(root, "dilate", json_real(g->dilate >= 1.0 ? g->dilate : 1.0));
	/* what the hosts' cubic runs as (gbcubic.h); absent: the kernel's */
	if (g->cubic_as[0])
		json_object_set_new(root, "cubic_as", json_string(g->cubic_as));
	/* heterogeneous CPUs: which interface enforces the clusters' shares */
	json_object_set_new(root, "cpu_control",
			    json_string(gb_cgroup_describe(t, buf, sizeof(buf))));
	/* one grid across two machines (partition.h): what is built here */
	if (g->local) {
		char ip[16], self[16];

		json_object_set_new(root, "part", json_pack("{s:s, s:s, s:s, s:i, s:s}", "sites",
				    g->part, "peer", gb_fmt_ip(g->peer, ip), "peer_prefix",
				    g->peer_prefix, "side", gb_part_side(g),
				    "local", gb_fmt_ip(g->self, self)));
	}
	gb_grid_rpath(g, "state.json", path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	int err = json_dump_file(root, tmp, JSON_INDENT(1)) < 0 ? -EIO : 0;
	json_decref(root);
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	return err;
}

int gb_grid_copy_file(const char *from, const char *to)
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
	gb_grid_close_ns(g);
	gb_part_metadata_release(g);

	/* Namespaces: the state file's list, plus whatever carries the prefix. */
	gb_grid_rpath(g, "state.json", sp, sizeof(sp));
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
	/* gbcubic forgets the namespaces just deleted, and leaves the kernel
	 * with the last grid that used it (gbcubic.h) */
	{
		int r = gb_gbcubic_prune();

		if (r < 0 && !err) {
			err = r;
			gb_err_set(e, "cannot unregister gbcubic: %s", strerror(-r));
		}
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

void gb_grid_forget_rundir(struct gb_grid *g)
{
	char p[PATH_MAX];

	gb_grid_rpath(g, "state.json", p, sizeof(p));
	if (g->lockfd < 0 || access(p, F_OK) == 0)
		return;
	gb_grid_rpath(g, "lock", p, sizeof(p));
	unlink(p);
	rmdir(g->rundir);       /* fails, harmlessly, when anything else is there */
}

int gb_grid_attach(struct gb_grid *g, struct gb_err *e)
{
	char sp[PATH_MAX], tp[PATH_MAX], name[128];
	struct gb_diag d;
	json_error_t je;
	int err;

	gb_grid_rpath(g, "state.json", sp, sizeof(sp));
	json_t *st = json_load_file(sp, 0, &je);
	if (!st) {
		if (access(sp, F_OK) < 0) {
			gb_err_set(e, "no grid with prefix '%s' is up", g->prefix);
			gb_grid_forget_rundir(g);   /* a wrong prefix leaves nothing */
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
	gb_grid_rpath(g, "topology.yaml", tp, sizeof(tp));
	if ((err = gb_topo_load(tp, &g->topo, &d)) < 0) {
		gb_diag_err(e, &d, NULL);
		goto cleanup;
	}
	/* before the links: the backends read them back through it */
	g->dilate = json_is_number(json_object_get(st, "dilate"))
		? json_number_value(json_object_get(st, "dilate")) : 1.0;
	const char *cubic_as = json_string_value(json_object_get(st, "cubic_as"));
	snprintf(g->cubic_as, sizeof(g->cubic_as), "%s", cubic_as ? cubic_as : "");
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
	json_t *part = json_object_get(st, "part");
	if (part) {
		const char *sites = json_string_value(json_object_get(part, "sites"));
		const char *peer = json_string_value(json_object_get(part, "peer"));
		const char *pp = json_string_value(json_object_get(part, "peer_prefix"));
		const char *self = json_string_value(json_object_get(part, "local"));

		if (!sites || !peer || !pp || gb_part_parse_ip(peer, &g->peer) < 0 ||
		    /* no "local": a grid from before issue 47 (0 in status) */
		    (self && gb_part_parse_ip(self, &g->self) < 0) ||
		    (err = gb_part_parse(g->topo, sites, &g->local, e)) < 0) {
			gb_err_set(e, "%s: a bad \"part\"; run 'gridemu down'", sp);
			err = -EINVAL;
			goto cleanup;
		}
		snprintf(g->part, sizeof(g->part), "%s", sites);
		snprintf(g->peer_prefix, sizeof(g->peer_prefix), "%s", pp);
	}
	gb_grid_raise_nofile();
	if ((err = gb_grid_alloc_ns(g)) < 0)
		goto cleanup;
	for (int n = 0; n < g->topo->nnodes; n++) {
		if (!gb_grid_local(g, n))
			continue;
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
		gb_grid_close_ns(g);
		gb_topo_free(g->topo);
		g->topo = NULL;
	}
	return err;
}

static int state_topo_path(const struct gb_grid *g, char *buf, size_t len)
{
	char sp[PATH_MAX];
	gb_grid_rpath(g, "state.json", sp, sizeof(sp));
	json_t *st = json_load_file(sp, 0, NULL);
	const char *p = st ? json_string_value(json_object_get(st, "topology")) : NULL;
	snprintf(buf, len, "%s", p ? p : "");
	json_decref(st);
	return 0;
}

int gb_grid_dir_read(struct gb_grid *g, int dl, struct gb_linkdir *p)
{
	if (!gb_grid_local(g, gb_topo_dir_from(g->topo, dl)))
		return -EREMOTE;
	if (!g->shaper || !g->shaper->read)
		return -EOPNOTSUPP;
	return g->shaper->read(g, dl, p);
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
		int from = dir ? t->links[k].b : t->links[k].a;
		char ip[16];

		if ((c->dir < 0 || c->dir == dir) && !gb_grid_local(g, from)) {
			gb_err_set(e, "link '%s' %s is shaped on the peer machine %s (grid '%s'): "
				   "change it there%s", name, dir ? "b>a" : "a>b",
				   gb_fmt_ip(g->peer, ip), g->peer_prefix,
				   c->dir < 0 ? ", and this machine's with 'dir'" : "");
			return -EREMOTE;
		}
	}
	/* A per-packet cost needs a rate, in the 16 bits of the TBF's overhead
	 * (topo_build.c checks the same on a file): both directions first */
	for (int dir = 0; dir < 2; dir++) {
		const struct gb_linkdir *p = dir ? &t->links[k].ba : &t->links[k].ab;
		uint64_t rate = (c->p.set & GB_LD_RATE) ? c->p.rate_bps : p->rate_bps;
		uint64_t pp = (c->p.set & GB_LD_PPKT) ? c->p.per_packet_ns : p->per_packet_ns;
		const char *dname = dir ? "b>a" : "a>b";

		if (c->dir >= 0 && c->dir != dir)
			continue;
		if (pp && !rate) {
			gb_err_set(e, "link '%s' %s: a per_packet cost needs a rate (give one, or "
				   "per_packet 0)", name, dname);
			return -EINVAL;
		}
		if (gb_ppkt_bytes(pp, rate) > GB_PPKT_MAX_BYTES) {
			gb_err_set(e, "link '%s' %s: per_packet %llu ns at %llu bit/s is more than "
				   "%u bytes a packet, the most the kernel's token bucket can charge",
				   name, dname, (unsigned long long)pp, (unsigned long long)rate,
				   GB_PPKT_MAX_BYTES);
			return -ERANGE;
		}
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
		if (c->p.set & GB_LD_PPKT)
			p->per_packet_ns = c->p.per_packet_ns;
		p->set |= c->p.set;
		if ((err = g->shaper->apply(g, 2 * k + dir, 1, e)) < 0) {
			*p = old;
			return err;
		}
	}
	state_topo_path(g, tp, sizeof(tp));
	if ((err = gb_grid_write_state(g, "up", tp)) < 0) {
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
		gb_grid_forget_rundir(g);	/* no grid up: the refusal leaves nothing */
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
