/* SPDX-License-Identifier: MIT */
/*
 * mpirun_launch.c - the launcher of `gridemu mpirun`, what the user runs:
 * options, the job's hosts and rank map, mpirun's command line, and the end
 * (verdict, rank map completed, job directory removed).  Running and
 * watching mpirun is mpirun_run.c.  Rank i runs on emulated host i,
 * launched over the management network, with MPI traffic on the shaped data
 * plane only (docs/architecture.md, decision 3).  See mpirun.h for the process
 * tree and the files a job leaves.
 *
 * Choices made where OpenMPI leaves room:
 *   - one slot per host (--host ADDR:1,...) and --bind-to none: 64 ranks
 *     share two cores, and binding would pile them onto one;
 *   - pml ob1 with btl tcp,self: no vader (shared memory) and no UCX/OFI,
 *     which would bypass the emulated links;
 *   - no tree spawn: every orted is started by mpirun from the management
 *     namespace, so no agent ever runs inside a host's namespace;
 *   - a TMPDIR per host and PMIX_MCA_gds=hash: all orteds share one
 *     hostname on one box, and would otherwise share session directories
 *     (docs/platform.md: PMIx dstore errors);
 *   - the launcher is a child subreaper, because orted daemonizes and its
 *     orphans would otherwise end up as zombies of the box's init.
 */
#include "mpirun_priv.h"
#include "dilate.h"

#include "gbemu.h"
#include "netns.h"
#include "gbutil.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Options                                                            */
/* ------------------------------------------------------------------ */

static int usage(FILE *f)
{
	fprintf(f,
		"usage: gridemu mpirun [-n N | --hosts H1,H2,...] [--mca KEY VALUE]...\n"
		"                      [-x NAME[=VALUE]]... [--preload LIB] [--timeout SEC]\n"
		"                      [--grace SEC] [--mpirun-arg ARG]... [--rsh CMD] [--keep]\n"
		"                      [--verbose]\n"
		"                      -- PROG [ARG...]\n"
		"  Run an OpenMPI job on the live grid, rank i on host i in topology order\n"
		"  (or in the order of --hosts; -n N takes the first N).  mpirun runs in the\n"
		"  management namespace and starts one orted per host over the management\n"
		"  network; MPI traffic uses the TCP BTL on the data addresses only.\n"
		"\n"
		"  -n, -np N           number of ranks (default: every host)\n"
		"  -H, --hosts LIST    host names, comma-separated, each at most once\n"
		"  --mca KEY VALUE     an MCA parameter; replaces gridemu's default for KEY\n"
		"                      (defaults: pml ob1, btl tcp,self, btl_tcp_if_include\n"
		"                      <data block>, oob_tcp_if_include <mgmt block>,\n"
		"                      mpi_yield_when_idle 1, opal_event_include epoll,\n"
		"                      plm_rsh_no_tree_spawn 1,\n"
		"                      btl_tcp_flags send,inplace,need-ack,need-csum: no\n"
		"                      emulated put, whose FIN waits for the sender's next\n"
		"                      MPI call)\n"
		"  -x, --env NAME[=V]  export NAME to the ranks (GRIDBED_* are exported anyway)\n"
		"  --preload LIB       LD_PRELOAD LIB into the ranks only (e.g. libgridbcast.so)\n"
		"  --timeout SEC       stop the job after SEC seconds (exit 124)\n"
		"  --grace SEC         after SIGTERM, wait SEC before SIGKILL (default 5)\n"
		"  --mpirun-arg ARG    pass ARG to mpirun as is (repeatable)\n"
		"  --rsh CMD           a grid across two machines (gridemu up --part): how to\n"
		"                      start orted on a host whose namespace is not on this\n"
		"                      machine: CMD PEER gridemu ... (default 'ssh -o\n"
		"                      BatchMode=yes'); the job directory must be shared\n"
		"  --keep              keep the job directory (TMPDIRs, rank statuses)\n"
		"  -v, --verbose       print the job id, rank map path and mpirun command\n"
		"\n"
		"  Ranks get GRIDBED_PREFIX, GRIDBED_RUNDIR, GRIDBED_NODE, GRIDBED_JOB,\n"
		"  GRIDBED_RANKMAP (the rank map, $GRIDBED_RUNDIR/PREFIX/mpirun-JOB.json) and\n"
		"  GRIDBED_DILATE (the grid's time dilation k; what they time is / k).\n"
		"  On a rank failure, SIGINT or SIGTERM every process of the job is stopped.\n"
		"  Exit: 0 ok, 1 job failed (rank and host named), 2 usage, 124 timeout,\n"
		"  128+N interrupted by signal N.  GRIDBED_MPIRUN overrides the mpirun binary.\n");
	return f == stdout ? EX_OK : EX_USAGE;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v >= 0) || v > 1e6)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int i;
	memset(o, 0, sizeof(*o));
	o->grace = 5;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int left = argc - i - 1;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-')
			break;
#define NEED(k)                                                                      \
	do {                                                                         \
		if (left < (k)) {                                                    \
			say("option '%s' needs %s", a, (k) == 1 ? "a value" : "two values"); \
			return EX_USAGE;                                             \
		}                                                                    \
	} while (0)
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			return usage(stdout) - 1; /* -1: "stop, exit 0" */
		} else if (!strcmp(a, "-n") || !strcmp(a, "-np")) {
			NEED(1);
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v <= 0 || v > 1000000) {
				say("-n '%s' is not a positive number", argv[i]);
				return EX_USAGE;
			}
			o->n = (int)v;
		} else if (!strcmp(a, "-H") || !strcmp(a, "--hosts") || !strcmp(a, "--host")) {
			NEED(1);
			o->hosts = argv[++i];
		} else if (!strcmp(a, "--mca") || !strcmp(a, "-mca")) {
			NEED(2);
			strv_push(&o->mca, argv[i + 1]);
			strv_push(&o->mca, argv[i + 2]);
			i += 2;
		} else if (!strcmp(a, "-x") || !strcmp(a, "--env")) {
			NEED(1);
			strv_push(&o->xenv, argv[++i]);
		} else if (!strcmp(a, "--preload")) {
			NEED(1);
			o->preload = argv[++i];
		} else if (!strcmp(a, "--timeout") || !strcmp(a, "--grace")) {
			NEED(1);
			if (parse_seconds(argv[++i], a[2] == 't' ? &o->timeout : &o->grace) < 0) {
				say("%s '%s' is not a number of seconds", a, argv[i]);
				return EX_USAGE;
			}
		} else if (!strcmp(a, "--mpirun-arg")) {
			NEED(1);
			strv_push(&o->extra, argv[++i]);
		} else if (!strcmp(a, "--rsh")) {
			NEED(1);
			o->rsh = argv[++i];
		} else if (!strcmp(a, "--prefix")) {
			NEED(1);
			o->prefix = argv[++i];
		} else if (!strcmp(a, "--keep")) {
			o->keep = 1;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o->verbose = 1;
		} else {
			say("unknown option '%s' (see gridemu mpirun --help)", a);
			return EX_USAGE;
		}
#undef NEED
	}
	if (i >= argc) {
		say("which program? (gridemu mpirun [OPTIONS] -- PROG [ARG...])");
		return EX_USAGE;
	}
	o->prog = argv + i;
	return 0;
}

static void opts_release(struct opts *o)
{
	strv_release(&o->mca);
	strv_release(&o->xenv);
	strv_release(&o->extra);
}

/* ------------------------------------------------------------------ */
/* The job: hosts, rank map, mpirun's command line                    */
/* ------------------------------------------------------------------ */

static void job_release(struct job *j)
{
	free(j->node);
	j->node = NULL;
	free(j->inos);
	j->inos = NULL;
	strv_release(&j->mgmt);
	if (j->mgmt_fd >= 0)
		close(j->mgmt_fd);
	j->mgmt_fd = -1;
	json_decref(j->mapj);
	j->mapj = NULL;
}

static const char *cidr(const struct gb_prefix *p, char *buf, size_t len)
{
	char ip[16];
	snprintf(buf, len, "%s/%d", gb_fmt_ip(p->addr, ip), p->len);
	return buf;
}

/* The host named @name in --hosts, as rank @n; EX_USAGE (printed) if bad. */
static int add_host(const struct gb_topo *t, const char *name, struct job *j, int n)
{
	int k = gb_topo_find_node(t, name);
	if (k < 0) {
		say("unknown host '%s' in --hosts: grid '%s' has no such host", name, t->name);
		return EX_USAGE;
	}
	if (k >= t->nhosts) {
		say("'%s' in --hosts is a router or switch, not a host of grid '%s'", name,
		    t->name);
		return EX_USAGE;
	}
	for (int r = 0; r < n; r++)
		if (j->node[r] == k) {
			say("host '%s' appears twice in --hosts (one rank per host)", name);
			return EX_USAGE;
		}
	j->node[n] = k;
	return 0;
}

/* Ranks -> hosts from -n / --hosts; prints and returns EX_USAGE on bad input. */
static int pick_hosts(const struct gb_grid *g, const struct opts *o, struct job *j)
{
	const struct gb_topo *t = g->topo;
	int n = 0, rc = 0;
	j->node = calloc((size_t)t->nhosts, sizeof(*j->node));
	if (!j->node)
		return EX_FAIL;
	if (o->hosts) {
		char *list = strdup(o->hosts), *save = NULL;
		char *tok = list ? strtok_r(list, ", ", &save) : NULL;
		for (; tok && !rc; tok = strtok_r(NULL, ", ", &save), n++)
			rc = add_host(t, tok, j, n);
		free(list);
		if (rc)
			return rc;
		if (n == 0) {
			say("--hosts '%s' names no host", o->hosts);
			return EX_USAGE;
		}
	} else {
		for (n = 0; n < t->nhosts; n++)
			j->node[n] = n;
	}
	if (o->n > n) {
		say("-n %d is more than the %d %s of grid '%s'", o->n, n,
		    o->hosts ? "hosts given to --hosts" : "hosts", t->name);
		return EX_USAGE;
	}
	j->n = o->n ? o->n : n;
	for (int r = 0; r < j->n; r++) {
		char ip[16];
		strv_push(&j->mgmt, gb_fmt_ip(t->nodes[j->node[r]].mgmt, ip));
	}
	return 0;
}

static json_t *build_map(const struct gb_grid *g, const struct opts *o, const struct job *j)
{
	const struct gb_topo *t = g->topo;
	char ts[32], ns[128], ip[16];
	gb_utc_iso(ts, sizeof(ts));
	json_t *prog = json_array(), *ranks = json_array();
	for (char **a = o->prog; *a; a++)
		json_array_append_new(prog, json_string(*a));
	for (int r = 0; r < j->n; r++) {
		const struct gb_node *nd = &t->nodes[j->node[r]];
		json_t *e = json_object();
		json_object_set_new(e, "rank", json_integer(r));
		json_object_set_new(e, "host", json_string(nd->name));
		json_object_set_new(e, "node", json_integer(j->node[r]));
		json_object_set_new(e, "cluster", json_string(nd->cluster >= 0 ?
						  t->clusters[nd->cluster].name : ""));
		json_object_set_new(e, "site", json_string(nd->site >= 0 ? t->sites[nd->site].name
							    : ""));
		json_object_set_new(e, "netns", json_string(gb_grid_node_nsname(g, j->node[r], ns,
										   sizeof(ns))));
		json_object_set_new(e, "prefix", json_string(gb_grid_local(g, j->node[r]) ?
							      g->prefix : g->peer_prefix));
		/* a host on the peer machine (partition.h): the agent reaches it
		 * with "rsh peer" when its namespace is not here */
		if (!gb_grid_local(g, j->node[r]))
			json_object_set_new(e, "peer", json_string(gb_fmt_ip(g->peer, ip)));
		json_object_set_new(e, "data", json_string(gb_fmt_ip(nd->addr, ip)));
		json_object_set_new(e, "mgmt", json_string(gb_fmt_ip(nd->mgmt, ip)));
		json_array_append_new(ranks, e);
	}
	/* "topology": the grid's own copy, readable by the ranks while it is up. */
	json_t *map = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:i, s:o}", "job", j->id,
			 "grid", t->name, "topology", t->path, "prefix", g->prefix, "backend",
			 gb_grid_backend(g), "data_block", j->data_cidr, "mgmt_block", j->mgmt_cidr,
			 "started", ts, "program", prog, "nranks", j->n, "ranks", ranks);
	if (map && g->local)
		json_object_set_new(map, "rsh", json_string(o->rsh ? o->rsh : "ssh -o BatchMode=yes"));
	return map;
}

/*
 * Everything that needs the grid: attach (shared lock), resolve hosts, note
 * the namespaces' identities, write the rank map.  The lock is released
 * before the job runs so that `gridemu link set` can change links during a
 * run (experiments do); `down` during a job kills the job's processes anyway.
 */
static int prepare(const struct opts *o, struct job *j)
{
	struct gb_grid g;
	struct gb_err e = { "" };
	int err, rc = EX_FAIL;

	err = gb_grid_open(&g, o->prefix, 0, &e);
	if (err < 0) {
		say("%s", e.msg);
		return err == -EINVAL || err == -EBUSY ? EX_USAGE : EX_FAIL;
	}
	if ((err = gb_grid_attach(&g, &e)) < 0) {
		say("%s", e.msg);
		rc = err == -ENOENT ? EX_USAGE : EX_FAIL;
		goto cleanup;
	}
	if (g.mgmt_nsfd < 0) {
		say("grid '%s' has no management namespace; run 'gridemu down' and 'up' again",
		    g.prefix);
		goto cleanup;
	}
	snprintf(j->prefix, sizeof(j->prefix), "%s", g.prefix);
	cidr(&g.topo->data, j->data_cidr, sizeof(j->data_cidr));
	cidr(&g.topo->mgmt, j->mgmt_cidr, sizeof(j->mgmt_cidr));
	if ((rc = pick_hosts(&g, o, j)))
		goto cleanup;
	rc = EX_FAIL;

	j->inos = calloc((size_t)g.topo->nnodes + 1, sizeof(*j->inos));
	if (!j->inos)
		goto cleanup;
	for (int k = 0; k < g.topo->nnodes; k++) {
		char pns[128];
		int fd;

		if (g.nsfd[k] >= 0 && gb_netns_inode(g.nsfd[k], &j->inos[j->ninos]) == 0)
			j->ninos++;
		/* the peer's part, when it is on this box too (the suite's two
		 * "machines"): the cleanup reaches its orteds as well */
		if (g.nsfd[k] < 0 && !gb_grid_local(&g, k) &&
		    (fd = gb_netns_open(gb_grid_node_nsname(&g, k, pns, sizeof(pns)))) >= 0) {
			if (gb_netns_inode(fd, &j->inos[j->ninos]) == 0)
				j->ninos++;
			close(fd);
		}
	}
	if (gb_netns_inode(g.mgmt_nsfd, &j->inos[j->ninos]) == 0)
		j->ninos++;
	j->mgmt_fd = fcntl(g.mgmt_nsfd, F_DUPFD_CLOEXEC, 3);
	if (j->mgmt_fd < 0) {
		say("cannot keep the management namespace open: %s", strerror(errno));
		goto cleanup;
	}

	/* Job id: readable, sortable, unique per box (pid). */
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
	snprintf(j->id, sizeof(j->id), "%s-%d", ts, (int)getpid());
	snprintf(j->dir, sizeof(j->dir), "%s/mpirun-%s", g.rundir, j->id);
	snprintf(j->map, sizeof(j->map), "%s.json", j->dir);
	snprintf(j->rundir_base, sizeof(j->rundir_base), "%s", g.rundir);
	char *slash = strrchr(j->rundir_base, '/');
	if (slash)
		*slash = 0;
	if (strpbrk(j->dir, " \t\n'\"\\") || strpbrk(j->exe, " \t\n'\"\\")) {
		/* plm_rsh_agent is split on blanks by OpenMPI. */
		say("paths with blanks or quotes cannot be passed to mpirun: '%s', '%s'", j->exe,
		    j->dir);
		goto cleanup;
	}
	char sub[PATH_MAX];
	if (mkdir(j->dir, 0700) < 0) {
		say("cannot create '%s': %s", j->dir, strerror(errno));
		goto cleanup;
	}
	snprintf(sub, sizeof(sub), "%s/tmp", j->dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/tmp/mpirun", j->dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/status", j->dir);
	if (mkdir(sub, 0700) < 0) {
		say("cannot create '%s': %s", sub, strerror(errno));
		goto cleanup;
	}
	j->mapj = build_map(&g, o, j);
	/* the hosts' TCP stack as read back from the grid (issue 18): the
	 * job's programs (gridbcast) copy it into their results */
	if (j->mapj) {
		json_t *tcp = gb_grid_tcp_json(&g);

		json_object_set_new(j->mapj, "tcp", tcp ? tcp : json_null());
		/* time dilation (docs/architecture.md, decision 9): the ranks divide
		 * what they time by it ($GRIDBED_DILATE) */
		j->dilate = gb_dilation(&g);
		json_object_set_new(j->mapj, "dilate", json_real(j->dilate));
	}
	if (!j->mapj || (err = mpirun_write_json(j->mapj, j->map)) < 0) {
		say("cannot write the rank map '%s'", j->map);
		goto cleanup;
	}
	rc = 0;
cleanup:
	gb_grid_close(&g);
	return rc;
}

/* MCA defaults; a user's --mca KEY replaces the default for KEY (OpenMPI
 * refuses a parameter given twice). */
static void add_mca(struct strv *av, const struct opts *o, const char *k, const char *v)
{
	for (int i = 0; i + 1 < o->mca.n; i += 2)
		if (!strcmp(o->mca.v[i], k))
			return;
	strv_push(av, "--mca");
	strv_push(av, k);
	strv_push(av, v);
}

static void build_argv(const struct opts *o, const struct job *j, struct strv *av)
{
	extern char **environ;
	strv_push(av, j->mpirun);
	strv_push(av, "--allow-run-as-root");
	strv_push(av, "--bind-to");
	strv_push(av, "none");
	strv_push(av, "-n");
	strv_pushf(av, "%d", j->n);
	size_t len = 1;
	for (int r = 0; r < j->n; r++)
		len += strlen(j->mgmt.v[r]) + 3;
	char *hl = calloc(1, len);
	if (!hl)
		abort();
	for (int r = 0; r < j->n; r++) {
		if (r)
			strcat(hl, ",");
		strcat(hl, j->mgmt.v[r]);
		strcat(hl, ":1");
	}
	strv_push(av, "--host");
	strv_push(av, hl);
	free(hl);

	char agent[PATH_MAX * 2 + 32];
	snprintf(agent, sizeof(agent), "%s mpirun --gb-agent %s", j->exe, j->dir);
	add_mca(av, o, "plm_rsh_agent", agent);
	add_mca(av, o, "plm_rsh_no_tree_spawn", "1");
	add_mca(av, o, "pml", "ob1");
	add_mca(av, o, "btl", "tcp,self");
	add_mca(av, o, "btl_tcp_if_include", j->data_cidr);
	add_mca(av, o, "oob_tcp_if_include", j->mgmt_cidr);
	add_mca(av, o, "mpi_yield_when_idle", "1");
	/* OpenMPI 4.1's libevent polls with poll(2) by default: every turn of
	 * its progress looked at each of a rank's sockets (66 on teragrid), and
	 * those calls were most of the ranks' CPU time in a development run of
	 * teragrid-paper (docs/measurements.md, session 33).  epoll costs per
	 * ready socket; the transport is the same TCP. */
	add_mca(av, o, "opal_event_include", "epoll");
	add_mca(av, o, "btl_base_warn_component_unused", "0");
	/* No emulated put: with it, ob1 sends the middle of a message above
	 * btl_tcp_min_rdma_pipeline_size (192 KiB) as a put and completes the
	 * sender's request when the put is written, before the FIN that tells
	 * the receiver (pml_ob1_sendreq.c, mca_pml_ob1_put_completion()).  A
	 * FIN that finds the socket full waits in the endpoint's queue until
	 * the sender's next MPI call, so a rank that returns from a broadcast
	 * and sleeps holds its child's completion hostage (teragrid-quick
	 * seeds 8 and 9, adaptive, broadcast 2: 25 s, ended by the next
	 * gather; docs/measurements.md, sessions 20-21).  With send fragments
	 * only, a sender completes when its last byte is in its socket, and
	 * the kernel delivers the rest without it. */
	add_mca(av, o, "btl_tcp_flags", "send,inplace,need-ack,need-csum");
	/* One-sided: no shared-memory window, no UCX. */
	add_mca(av, o, "osc", "^sm,ucx");
	for (int i = 0; i + 1 < o->mca.n; i += 2) {
		strv_push(av, "--mca");
		strv_push(av, o->mca.v[i]);
		strv_push(av, o->mca.v[i + 1]);
	}

	/* Environment of the ranks.  GRIDBED_NODE is per host: the agent sets it
	 * in orted's environment, which the ranks inherit. */
	strv_push(av, "-x");
	strv_pushf(av, JOB_ENV "=%s", j->id);
	strv_push(av, "-x");
	strv_pushf(av, "GRIDBED_PREFIX=%s", j->prefix);
	strv_push(av, "-x");
	strv_pushf(av, "GRIDBED_RUNDIR=%s", j->rundir_base);
	strv_push(av, "-x");
	strv_pushf(av, "GRIDBED_RANKMAP=%s", j->map);
	strv_push(av, "-x");
	strv_pushf(av, "GRIDBED_DILATE=%.17g", j->dilate >= 1.0 ? j->dilate : 1.0);
	static const char *const ours[] = { JOB_ENV "=", "GRIDBED_PREFIX=", "GRIDBED_RUNDIR=",
					    "GRIDBED_RANKMAP=", "GRIDBED_NODE=",
					    "GRIDBED_PRELOAD=", "GRIDBED_DILATE=" };
	for (char **e = environ; *e; e++) {
		if (strncmp(*e, "GRIDBED_", 8))
			continue;
		int skip = 0;
		for (size_t k = 0; k < sizeof(ours) / sizeof(ours[0]); k++)
			skip |= !strncmp(*e, ours[k], strlen(ours[k]));
		if (!skip) {
			strv_push(av, "-x");
			strv_pushf(av, "%.*s", (int)strcspn(*e, "="), *e);
		}
	}
	const char *preload = o->preload;
	for (int i = 0; i < o->xenv.n; i++) {
		const char *x = o->xenv.v[i];
		/* LD_PRELOAD goes through the wrapper, or it would be loaded into
		 * the wrapper (and into mpirun and orted with the plain form). */
		if (!strncmp(x, "LD_PRELOAD=", 11)) {
			preload = x + 11;
			continue;
		}
		if (!strcmp(x, "LD_PRELOAD")) {
			preload = getenv("LD_PRELOAD");
			continue;
		}
		strv_push(av, "-x");
		strv_push(av, x);
	}
	if (preload && *preload) {
		strv_push(av, "-x");
		strv_pushf(av, "GRIDBED_PRELOAD=%s", preload);
	}
	for (int i = 0; i < o->extra.n; i++)
		strv_push(av, o->extra.v[i]);

	strv_push(av, j->exe);
	strv_push(av, "mpirun");
	strv_push(av, "--gb-rank");
	strv_push(av, j->dir);
	for (char **a = o->prog; *a; a++)
		strv_push(av, *a);
}

/* ------------------------------------------------------------------ */
/* The command                                                        */
/* ------------------------------------------------------------------ */

int mpirun_launch_main(int argc, char **argv)
{
	struct opts o;
	struct job j;
	struct strv av = { 0 };
	struct run run;
	int rc;

	memset(&j, 0, sizeof(j));
	j.mgmt_fd = -1;
	j.t0 = gb_now_ns();
	rc = parse_opts(argc, argv, &o);
	if (rc) {
		opts_release(&o);
		return rc < 0 ? EX_OK : rc;
	}
	const char *mp = getenv("GRIDBED_MPIRUN");
	if (gb_find_in_path(mp && *mp ? mp : "mpirun", j.mpirun, sizeof(j.mpirun)) < 0) {
		say("'%s' not found (install openmpi-bin, or set GRIDBED_MPIRUN)",
		    mp && *mp ? mp : "mpirun");
		rc = EX_FAIL;
		goto cleanup;
	}
	char prog[PATH_MAX];
	if (gb_find_in_path(o.prog[0], prog, sizeof(prog)) < 0) {
		say("program '%s' not found or not executable", o.prog[0]);
		rc = EX_USAGE;
		goto cleanup;
	}
	ssize_t n = readlink("/proc/self/exe", j.exe, sizeof(j.exe) - 1);
	if (n <= 0) {
		say("cannot find my own executable: %s", strerror(errno));
		rc = EX_FAIL;
		goto cleanup;
	}
	j.exe[n] = 0;
	if ((rc = prepare(&o, &j)))
		goto cleanup;
	build_argv(&o, &j, &av);
	if (o.verbose) {
		say("job %s: %d ranks on grid '%s' (prefix %s)", j.id, j.n,
		    json_string_value(json_object_get(j.mapj, "grid")), j.prefix);
		say("rank map %s", j.map);
		fprintf(stderr, ME ": in %s-mgmt:", j.prefix);
		for (int i = 0; i < av.n; i++)
			fprintf(stderr, strpbrk(av.v[i], " ^*") ? " '%s'" : " %s", av.v[i]);
		fprintf(stderr, "\n");
	}
	if (mpirun_run_job(&o, &j, av.v, &run)) {
		rc = EX_FAIL;
		mpirun_sweep(&j, o.grace);
		goto cleanup;
	}
	int left = mpirun_sweep(&j, run.why > 0 ? 1.0 : o.grace);
	rc = mpirun_verdict(&o, &j, &run);
	if (o.verbose)
		say("job %s ended in %.3f s (exit %d)%s", j.id, (double)(gb_now_ns() - j.t0) / 1e9, rc,
		    left ? ", leftover processes were stopped" : "");
cleanup:
	if (j.dir[0] && !o.keep)
		gb_rmtree(j.dir);
	strv_release(&av);
	job_release(&j);
	opts_release(&o);
	return rc;
}
