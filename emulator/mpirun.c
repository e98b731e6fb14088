/* SPDX-License-Identifier: MIT */
/*
 * mpirun.c - `gridemu mpirun`: run an OpenMPI job with rank i on emulated
 * host i, launched over the management network, with MPI traffic on the
 * shaped data plane only (ARCHITECTURE.md decision 3).  See mpirun.h for the
 * process tree and the files a job leaves.
 *
 * Three roles share this file, selected by the first argument:
 *   - the launcher (what the user runs);
 *   - "--gb-agent DIR HOST CMD..." - OpenMPI's plm_rsh_agent, the stand-in
 *     for ssh: HOST is a management address, CMD the orted command line;
 *   - "--gb-rank DIR PROG ARGS" - the per-rank wrapper that records the
 *     rank's exit status, so that a failure is pinned on the right rank even
 *     when mpirun's own report is missing or unparsable.
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
 *     (PLATFORM.md: PMIx dstore errors);
 *   - the launcher is a child subreaper, because orted daemonizes and its
 *     orphans would otherwise end up as zombies of the box's init.
 */
#include "mpirun.h"

#include "cgroup.h"
#include "gbemu.h"
#include "netns.h"
#include "gbutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ME "gridemu mpirun"
#define JOB_ENV "GRIDBED_JOB"

/* Exit statuses (mpirun.h). */
#define EX_OK 0
#define EX_FAIL 1
#define EX_USAGE 2
#define EX_TIMEOUT 124

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	va_list ap;
	char buf[1024];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, ME ": %s\n", buf);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------ */
/* A growable NULL-terminated vector of owned strings                   */
/* ------------------------------------------------------------------ */

struct strv {
	char **v;
	int n, cap;
};

static void strv_push(struct strv *s, const char *str)
{
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = realloc(s->v, (size_t)s->cap * sizeof(*s->v));
		if (!s->v)
			abort();
	}
	s->v[s->n] = strdup(str);
	if (!s->v[s->n])
		abort();
	s->v[++s->n] = NULL;
}

__attribute__((format(printf, 2, 3))) static void strv_pushf(struct strv *s, const char *fmt, ...)
{
	va_list ap;
	char *str = NULL;
	va_start(ap, fmt);
	if (vasprintf(&str, fmt, ap) < 0)
		abort();
	va_end(ap);
	strv_push(s, str);
	free(str);
}

static void strv_release(struct strv *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

/* ------------------------------------------------------------------ */
/* Files                                                                */
/* ------------------------------------------------------------------ */

/* Results are written atomically (ARCHITECTURE.md decision 7). */
static int write_json_atomic(json_t *j, const char *path)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	if (json_dump_file(j, tmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path) < 0) {
		int err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}

static int write_text_atomic(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	ssize_t w = write(fd, text, len);
	int err = (w < 0 || (size_t)w != len) ? -EIO : 0;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* The executable named @prog, searched in PATH like execvp() does. */
static int find_in_path(const char *prog, char *out, size_t len)
{
	if (strchr(prog, '/')) {
		snprintf(out, len, "%s", prog);
		return access(prog, X_OK) == 0 ? 0 : -errno;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t dl = colon ? (size_t)(colon - path) : strlen(path);
		snprintf(out, len, "%.*s/%s", (int)dl, dl ? path : ".", prog);
		struct stat st;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return 0;
		path += dl + (colon ? 1 : 0);
	}
	return -ENOENT;
}

/* ------------------------------------------------------------------ */
/* Rank statuses: DIR/status/<rank> = "exit N T" | "signal N T" | ...    */
/* ------------------------------------------------------------------ */

enum rank_end { END_NONE = 0, END_EXIT, END_SIGNAL, END_MISPLACED, END_NOEXEC };

struct rank_status {
	enum rank_end kind;
	int value;
	int64_t t_ns;   /* CLOCK_MONOTONIC when the wrapper saw the end */
};

static int read_status(const char *dir, int rank, struct rank_status *rs)
{
	char p[PATH_MAX], kind[16] = "";
	long long t = 0;
	int v = 0;
	memset(rs, 0, sizeof(*rs));
	snprintf(p, sizeof(p), "%s/status/%d", dir, rank);
	FILE *f = fopen(p, "re");
	if (!f)
		return -errno;
	int n = fscanf(f, "%15s %d %lld", kind, &v, &t);
	fclose(f);
	if (n != 3)
		return -EINVAL;
	rs->kind = !strcmp(kind, "exit") ? END_EXIT : !strcmp(kind, "signal") ? END_SIGNAL :
		   !strcmp(kind, "misplaced") ? END_MISPLACED : END_NOEXEC;
	rs->value = v;
	rs->t_ns = t;
	return 0;
}

static int write_status(const char *dir, int rank, const char *kind, int value)
{
	char p[PATH_MAX], text[96];
	snprintf(p, sizeof(p), "%s/status/%d", dir, rank);
	snprintf(text, sizeof(text), "%s %d %" PRId64 "\n", kind, value, gb_now_ns());
	return write_text_atomic(p, text);
}

static int abnormal(const struct rank_status *rs)
{
	return rs->kind != END_NONE && !(rs->kind == END_EXIT && rs->value == 0);
}

/* ------------------------------------------------------------------ */
/* The rank map: DIR.json                                               */
/* ------------------------------------------------------------------ */

static json_t *load_map(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s.json", dir);
	return json_load_file(p, 0, NULL);
}

static const char *map_str(json_t *map, int rank, const char *key)
{
	json_t *r = json_array_get(json_object_get(map, "ranks"), (size_t)rank);
	const char *s = json_string_value(json_object_get(r, key));
	return s ? s : "?";
}

/* ------------------------------------------------------------------ */
/* --gb-agent: the plm_rsh_agent                                        */
/* ------------------------------------------------------------------ */

/*
 * Called by mpirun as "AGENT HOST CMD..." exactly like ssh: HOST is one of
 * the management addresses we passed to --host, CMD the words of a shell
 * command line (PATH=...; orted ...).  We map HOST back to the host's
 * namespace through the rank map, enter it, and run CMD with sh -c as sshd
 * would.  Exit 255 on our own errors, like ssh.
 */
static int agent_main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, ME " --gb-agent: usage: --gb-agent JOBDIR HOST CMD...\n");
		return 255;
	}
	const char *dir = argv[1], *host = argv[2];
	json_t *map = load_map(dir);
	if (!map) {
		fprintf(stderr, ME " agent: cannot read the rank map of '%s'\n", dir);
		return 255;
	}
	const char *node = NULL, *netns = NULL;
	json_t *ranks = json_object_get(map, "ranks"), *r;
	size_t i;
	json_array_foreach(ranks, i, r) {
		const char *m = json_string_value(json_object_get(r, "mgmt"));
		const char *h = json_string_value(json_object_get(r, "host"));
		if ((m && !strcmp(m, host)) || (h && !strcmp(h, host))) {
			node = h;
			netns = json_string_value(json_object_get(r, "netns"));
			break;
		}
	}
	if (!node || !netns) {
		fprintf(stderr, ME " agent: host '%s' is not in job '%s'\n", host, dir);
		json_decref(map);
		return 255;
	}

	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s/tmp/%s", dir, node);
	if (mkdir(tmp, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, ME " agent: cannot create '%s': %s\n", tmp, strerror(errno));
		json_decref(map);
		return 255;
	}
	setenv("TMPDIR", tmp, 1);
	setenv("GRIDBED_NODE", node, 1);
	int fd = gb_netns_open(netns);
	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, ME " agent: cannot enter namespace '%s': %s\n", netns,
			strerror(fd < 0 ? -fd : errno));
		json_decref(map);
		return 255;
	}
	close(fd);
	/* Heterogeneous CPUs: orted, and so the rank, share the host's quota. */
	const char *gprefix = json_string_value(json_object_get(map, "prefix"));
	int cg = gprefix ? gb_cgroup_join(gprefix, node) : 1;
	if (cg < 0) {
		fprintf(stderr, ME " agent: cannot join the CPU quota of '%s': %s\n", node,
			strerror(-cg));
		json_decref(map);
		return 255;
	}
	json_decref(map);

	struct strv cmd = { 0 };
	size_t len = 1;
	for (int k = 3; k < argc; k++)
		len += strlen(argv[k]) + 1;
	char *line = calloc(1, len);
	if (!line)
		return 255;
	for (int k = 3; k < argc; k++) {
		if (k > 3)
			strcat(line, " ");
		strcat(line, argv[k]);
	}
	strv_push(&cmd, "sh");
	strv_push(&cmd, "-c");
	strv_push(&cmd, line);
	free(line);
	execv("/bin/sh", cmd.v);
	fprintf(stderr, ME " agent: cannot run /bin/sh: %s\n", strerror(errno));
	strv_release(&cmd);
	return 255;
}

/* ------------------------------------------------------------------ */
/* --gb-rank: the per-rank wrapper                                      */
/* ------------------------------------------------------------------ */

static volatile pid_t wrapped_child;

static void forward_signal(int sig)
{
	if (wrapped_child > 0)
		kill(wrapped_child, sig);
}

/*
 * orted starts this in place of PROG.  It checks that OpenMPI put the rank
 * where the rank map says (a wrong placement would silently corrupt every
 * result), runs PROG as a child, forwards signals to it, and records how it
 * ended with a CLOCK_MONOTONIC stamp: the first abnormal end is the failure
 * the launcher reports, the others are mpirun's teardown.
 */
static int rank_main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, ME " --gb-rank: usage: --gb-rank JOBDIR PROG ARGS...\n");
		return 127;
	}
	const char *dir = argv[1];
	const char *rs = getenv("OMPI_COMM_WORLD_RANK"), *node = getenv("GRIDBED_NODE");
	char *end;
	long rank = rs ? strtol(rs, &end, 10) : -1;
	if (!rs || *end || rank < 0) {
		fprintf(stderr, ME ": '%s' was not started by OpenMPI (no OMPI_COMM_WORLD_RANK)\n",
			argv[2]);
		return 127;
	}
	json_t *map = load_map(dir);
	const char *want = map ? map_str(map, (int)rank, "host") : "?";
	if (!node || strcmp(node, want)) {
		fprintf(stderr, ME ": rank %ld was started on host '%s', but the rank map "
			"places it on '%s'\n", rank, node ? node : "?", want);
		write_status(dir, (int)rank, "misplaced", 0);
		json_decref(map);
		return 1;
	}
	json_decref(map);

	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, ME ": rank %ld: fork: %s\n", rank, strerror(errno));
		return 127;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		/* If the wrapper is SIGKILLed, the rank must not outlive it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(127);
		const char *pre = getenv("GRIDBED_PRELOAD");
		if (pre && *pre) {
			const char *cur = getenv("LD_PRELOAD");
			char buf[PATH_MAX * 2];
			snprintf(buf, sizeof(buf), "%s%s%s", pre, cur && *cur ? ":" : "",
				 cur ? cur : "");
			setenv("LD_PRELOAD", buf, 1);
		}
		execvp(argv[2], argv + 2);
		int err = errno;
		fprintf(stderr, ME ": rank %ld on '%s': cannot run '%s': %s\n", rank, node, argv[2],
			strerror(err));
		write_status(dir, (int)rank, "noexec", err);
		_exit(127);
	}
	wrapped_child = pid;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sa.sa_flags = SA_RESTART;
	static const int fwd[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT };
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaction(fwd[i], &sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);

	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st);
		write_status(dir, (int)rank, "signal", sig);
		/* Die the same way, so that orted and mpirun report the signal,
		 * without a second core file. */
		struct rlimit nocore = { 0, 0 };
		setrlimit(RLIMIT_CORE, &nocore);
		signal(sig, SIG_DFL);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		raise(sig);
		return 128 + sig;
	}
	int code = WEXITSTATUS(st);
	struct rank_status prev;
	if (code != 127 || read_status(dir, (int)rank, &prev) < 0 || prev.kind != END_NOEXEC)
		write_status(dir, (int)rank, "exit", code);
	return code;
}

/* ------------------------------------------------------------------ */
/* The launcher: options                                                */
/* ------------------------------------------------------------------ */

struct opts {
	int n;                  /* ranks; 0 = all hosts (or all of --hosts) */
	const char *hosts;      /* comma-separated host names, or NULL */
	const char *prefix;
	struct strv mca;        /* K, V, K, V... */
	struct strv xenv;       /* NAME or NAME=VALUE */
	struct strv extra;      /* raw mpirun arguments */
	const char *preload;
	double timeout;         /* seconds; 0 = none */
	double grace;           /* seconds between SIGTERM and SIGKILL */
	int keep, verbose;
	char **prog;            /* PROG ARGS..., NULL-terminated */
};

static int usage(FILE *f)
{
	fprintf(f,
		"usage: gridemu mpirun [-n N | --hosts H1,H2,...] [--mca KEY VALUE]...\n"
		"                      [-x NAME[=VALUE]]... [--preload LIB] [--timeout SEC]\n"
		"                      [--grace SEC] [--mpirun-arg ARG]... [--keep] [--verbose]\n"
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
		"                      mpi_yield_when_idle 1, plm_rsh_no_tree_spawn 1)\n"
		"  -x, --env NAME[=V]  export NAME to the ranks (GRIDBED_* are exported anyway)\n"
		"  --preload LIB       LD_PRELOAD LIB into the ranks only (e.g. libgridbcast.so)\n"
		"  --timeout SEC       stop the job after SEC seconds (exit 124)\n"
		"  --grace SEC         after SIGTERM, wait SEC before SIGKILL (default 5)\n"
		"  --mpirun-arg ARG    pass ARG to mpirun as is (repeatable)\n"
		"  --keep              keep the job directory (TMPDIRs, rank statuses)\n"
		"  -v, --verbose       print the job id, rank map path and mpirun command\n"
		"\n"
		"  Ranks get GRIDBED_PREFIX, GRIDBED_RUNDIR, GRIDBED_NODE, GRIDBED_JOB and\n"
		"  GRIDBED_RANKMAP (the rank map, $GRIDBED_RUNDIR/PREFIX/mpirun-JOB.json).\n"
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
/* The launcher: the job                                                */
/* ------------------------------------------------------------------ */

struct job {
	char id[48];
	char dir[PATH_MAX];     /* $rundir/mpirun-ID: tmp/, status/ */
	char map[PATH_MAX];     /* $rundir/mpirun-ID.json */
	char exe[PATH_MAX];     /* this gridemu, re-invoked as agent and wrapper */
	char mpirun[PATH_MAX];
	char rundir_base[PATH_MAX];
	char prefix[GB_PREFIX_MAX + 1];
	char data_cidr[32], mgmt_cidr[32];
	int n;                  /* ranks */
	int *node;              /* rank -> topology node */
	struct strv mgmt;       /* rank -> management address */
	unsigned long *inos;    /* the grid's namespaces (nodes and mgmt) */
	int ninos;
	int mgmt_fd;
	json_t *mapj;
	int64_t t0;
};

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
	time_t now = time(NULL);
	struct tm tm;
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
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
		json_object_set_new(e, "netns", json_string(gb_grid_nsname(g, nd->name, ns,
									      sizeof(ns))));
		json_object_set_new(e, "data", json_string(gb_fmt_ip(nd->addr, ip)));
		json_object_set_new(e, "mgmt", json_string(gb_fmt_ip(nd->mgmt, ip)));
		json_array_append_new(ranks, e);
	}
	/* "topology": the grid's own copy, readable by the ranks while it is up. */
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:i, s:o}", "job", j->id,
			 "grid", t->name, "topology", t->path, "prefix", g->prefix, "backend",
			 gb_grid_backend(g), "data_block", j->data_cidr, "mgmt_block", j->mgmt_cidr,
			 "started", ts, "program", prog, "nranks", j->n, "ranks", ranks);
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
	for (int k = 0; k < g.topo->nnodes; k++)
		if (g.nsfd[k] >= 0 && gb_netns_inode(g.nsfd[k], &j->inos[j->ninos]) == 0)
			j->ninos++;
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
	if (!j->mapj || (err = write_json_atomic(j->mapj, j->map)) < 0) {
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
	add_mca(av, o, "btl_base_warn_component_unused", "0");
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
	static const char *const ours[] = { JOB_ENV "=", "GRIDBED_PREFIX=", "GRIDBED_RUNDIR=",
					    "GRIDBED_RANKMAP=", "GRIDBED_NODE=",
					    "GRIDBED_PRELOAD=" };
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
/* The launcher: finding and stopping the job's processes               */
/* ------------------------------------------------------------------ */

static int in_grid(const struct job *j, long pid)
{
	char p[64];
	struct stat st;
	snprintf(p, sizeof(p), "/proc/%ld/ns/net", pid);
	if (stat(p, &st) < 0)
		return 0;
	for (int i = 0; i < j->ninos; i++)
		if ((unsigned long)st.st_ino == j->inos[i])
			return 1;
	return 0;
}

/* 1 if /proc/PID/environ holds exactly "GRIDBED_JOB=<id>". */
static int has_mark(const struct job *j, long pid)
{
	char p[64], mark[80];
	snprintf(p, sizeof(p), "/proc/%ld/environ", pid);
	snprintf(mark, sizeof(mark), JOB_ENV "=%s", j->id);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap + 1);
	ssize_t n;
	while (buf && (n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			char *nb = cap < (16u << 20) ? realloc(buf, 2 * cap + 1) : NULL;
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	int found = 0;
	if (buf) {
		buf[len] = 0;
		for (size_t off = 0; off < len && !found; off += strlen(buf + off) + 1)
			found = !strcmp(buf + off, mark);
	}
	free(buf);
	return found;
}

/* Signal (or with @sig 0 count) the job's live processes in the grid. */
static int job_procs(const struct job *j, int sig)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	struct dirent *de;
	long self = (long)getpid();
	int count = 0;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self)
			continue;
		if (!in_grid(j, pid) || !has_mark(j, pid))
			continue;
		if (sig)
			kill((pid_t)pid, sig);
		count++;
	}
	closedir(d);
	return count;
}

static void reap_all(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* Wait up to @ms for the job's processes to go, reaping our orphans. */
static int wait_gone(const struct job *j, int ms)
{
	int left = job_procs(j, 0);
	for (int t = 0; left && t < ms; t += 20) {
		sleep_ms(20);
		reap_all();
		left = job_procs(j, 0);
	}
	return left;
}

/* SIGTERM, then SIGKILL what is left; returns how many were left over. */
static int sweep(const struct job *j, double grace)
{
	reap_all();
	int n = job_procs(j, SIGTERM);
	if (n && wait_gone(j, (int)(grace * 1000)) > 0) {
		job_procs(j, SIGKILL);
		wait_gone(j, 3000);
	}
	reap_all();
	return n;
}

/* ------------------------------------------------------------------ */
/* The launcher: mpirun's stderr                                        */
/* ------------------------------------------------------------------ */

/* What mpirun said about the first failure (its help texts, 4.1). */
struct report {
	int rank;         /* -1: none */
	int code;         /* exit code or MPI_Abort error code, -1 unknown */
	int signal;
	int improper;     /* "exiting improperly": no MPI_Finalize */
	int aborted;      /* MPI_Abort */
	int want_code;    /* the next "Exit code:" / "with errorcode" belongs to rank */
};

static void parse_line(struct report *r, const char *l)
{
	const char *p;
	int a, b, v;
	if ((p = strstr(l, "Process name: [[")) && r->rank < 0 &&
	    sscanf(p, "Process name: [[%d,%d],%d]", &a, &b, &v) == 3) {
		r->rank = v;
		r->want_code = 1;
	} else if ((p = strstr(l, "Exit code:")) && r->want_code &&
		   sscanf(p, "Exit code: %d", &v) == 1) {
		r->code = v;
		r->want_code = 0;
	} else if ((p = strstr(l, "MPI_ABORT was invoked on rank ")) && r->rank < 0 &&
		   sscanf(p, "MPI_ABORT was invoked on rank %d", &v) == 1) {
		r->rank = v;
		r->aborted = 1;
		r->want_code = 1;
	} else if ((p = strstr(l, "with errorcode ")) && r->aborted && r->want_code &&
		   sscanf(p, "with errorcode %d", &v) == 1) {
		r->code = v;
		r->want_code = 0;
	} else if ((p = strstr(l, "process rank ")) && r->rank < 0 &&
		   sscanf(p, "process rank %d", &v) == 1) {
		r->rank = v;
		if ((p = strstr(l, "on signal ")) && sscanf(p, "on signal %d", &v) == 1)
			r->signal = v;
	}
	if (strstr(l, "exiting improperly"))
		r->improper = 1;
}

/* Harmless noise: the parent's setpgid() races with the child's own
 * setpgid()+exec and loses with EACCES; the child is in its group anyway. */
static int harmless(const char *l)
{
	return strstr(l, "plm:rsh: Warning: setpgid(") != NULL;
}

struct linebuf {
	char buf[8192];
	size_t len;
};

static void emit_lines(struct linebuf *lb, struct report *rep, int flush)
{
	char *start = lb->buf, *nl;
	while ((nl = memchr(start, '\n', lb->len - (size_t)(start - lb->buf)))) {
		*nl = 0;
		if (!harmless(start)) {
			parse_line(rep, start);
			fprintf(stderr, "%s\n", start);
		}
		start = nl + 1;
	}
	size_t rest = lb->len - (size_t)(start - lb->buf);
	if (rest && (flush || rest == sizeof(lb->buf))) {
		fwrite(start, 1, rest, stderr);
		rest = 0;
	}
	memmove(lb->buf, lb->buf + (lb->len - rest), rest);
	lb->len = rest;
	fflush(stderr);
}

/* Returns 0 at EOF, 1 if more may come. */
static int pump(int fd, struct linebuf *lb, struct report *rep)
{
	for (;;) {
		ssize_t n = read(fd, lb->buf + lb->len, sizeof(lb->buf) - lb->len);
		if (n > 0) {
			lb->len += (size_t)n;
			emit_lines(lb, rep, 0);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		emit_lines(lb, rep, 1);
		return 0;
	}
}

/* ------------------------------------------------------------------ */
/* The launcher: running and judging the job                            */
/* ------------------------------------------------------------------ */

static pid_t start_mpirun(const struct job *j, char **av, const sigset_t *oldmask, int errfd)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* Its own process group: a terminal's Ctrl-C reaches us only, and we
	 * forward exactly one signal (mpirun takes a second one as "die now,
	 * without cleanup"). */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (setns(j->mgmt_fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, ME ": cannot enter the management namespace: %s\n",
			strerror(errno));
		_exit(127);
	}
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s/tmp/mpirun", j->dir);
	setenv("TMPDIR", tmp, 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	setenv("PMIX_MCA_gds", "hash", 0);
	setenv(JOB_ENV, j->id, 1);
	setenv("GRIDBED_PREFIX", j->prefix, 1);
	setenv("GRIDBED_RUNDIR", j->rundir_base, 1);
	setenv("GRIDBED_RANKMAP", j->map, 1);
	unsetenv("GRIDBED_NODE");
	if (dup2(errfd, 2) < 0)
		_exit(127);
	execv(av[0], av);
	fprintf(stderr, ME ": cannot run '%s': %s\n", av[0], strerror(errno));
	_exit(127);
}

enum why { WHY_NONE = 0, WHY_TIMEOUT = -1, WHY_HUNG = -2 };

struct run {
	pid_t pid;
	int status;       /* mpirun's wait status, when done */
	int done;
	int why;          /* WHY_* or the signal that interrupted us */
	int64_t end_ns;   /* when mpirun was reaped */
	struct report rep;
};

static void note_failure(const struct job *j, int64_t *seen)
{
	struct rank_status rs;
	if (*seen >= 0)
		return;
	for (int r = 0; r < j->n; r++)
		if (read_status(j->dir, r, &rs) == 0 && abnormal(&rs)) {
			*seen = gb_now_ns();
			return;
		}
}

static int run_job(const struct opts *o, const struct job *j, char **av, struct run *run)
{
	sigset_t set, old;
	int pfd[2] = { -1, -1 }, sfd = -1, rc = EX_FAIL;
	struct linebuf *lb = calloc(1, sizeof(*lb));

	memset(run, 0, sizeof(*run));
	run->rep.rank = -1;
	run->rep.code = -1;
	if (!lb)
		return EX_FAIL;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	/* SIGINT counts even when inherited as ignored (a script's background
	 * job); SIGHUP does not when ignored (nohup). */
	struct sigaction hup;
	if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN)
		sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	/* A closed stderr (| head) must not kill us before the cleanup. */
	signal(SIGPIPE, SIG_IGN);
	/* orted daemonizes: make its orphans ours, so we reap them. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if ((sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0 ||
	    pipe2(pfd, O_CLOEXEC) < 0) {
		say("cannot set up: %s", strerror(errno));
		goto cleanup;
	}
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	run->pid = start_mpirun(j, av, &old, pfd[1]);
	if (run->pid < 0) {
		say("fork: %s", strerror(errno));
		goto cleanup;
	}
	setpgid(run->pid, run->pid);
	close(pfd[1]);
	pfd[1] = -1;

	enum { RUNNING, STOPPING, KILLED } phase = RUNNING;
	int64_t start = gb_now_ns(), deadline = -1, seen = -1, last_check = start;
	int64_t job_end = o->timeout > 0 ? start + (int64_t)(o->timeout * 1e9) : -1;
	int64_t grace = (int64_t)(o->grace * 1e9);
	int open_pipe = 1;
	while (!run->done) {
		int64_t t = gb_now_ns(), wake = t + 500000000;
		if (deadline >= 0 && deadline < wake)
			wake = deadline;
		if (job_end >= 0 && phase == RUNNING && job_end < wake)
			wake = job_end;
		struct pollfd pf[2] = { { sfd, POLLIN, 0 }, { pfd[0], POLLIN, 0 } };
		int ms = wake > t ? (int)((wake - t + 999999) / 1000000) : 0;
		poll(pf, open_pipe ? 2 : 1, ms);
		if (open_pipe && (pf[1].revents & (POLLIN | POLLHUP)))
			open_pipe = pump(pfd[0], lb, &run->rep);

		struct signalfd_siginfo si;
		int stop_sig = 0;
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo != SIGCHLD)
				stop_sig = (int)si.ssi_signo;
		}
		pid_t p;
		int st;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			if (p == run->pid) {
				run->status = st;
				run->done = 1;
				run->end_ns = gb_now_ns();
			}
		if (run->done)
			break;

		t = gb_now_ns();
		if (stop_sig && phase == RUNNING) {
			run->why = stop_sig;
			kill(run->pid, stop_sig);
			phase = STOPPING;
			deadline = t + grace;
		} else if (stop_sig && phase == STOPPING) {
			/* A second Ctrl-C: no more patience. */
			kill(run->pid, SIGKILL);
			job_procs(j, SIGKILL);
			phase = KILLED;
			deadline = -1;
		}
		if (phase == RUNNING && job_end >= 0 && t >= job_end) {
			run->why = WHY_TIMEOUT;
			kill(run->pid, SIGTERM);
			phase = STOPPING;
			deadline = t + grace;
		}
		/* A rank died and mpirun has not ended the job by itself within
		 * two grace periods: end it for it. */
		if (phase == RUNNING && t - last_check >= 500000000) {
			last_check = t;
			note_failure(j, &seen);
			if (seen >= 0 && t - seen >= 2 * grace) {
				run->why = WHY_HUNG;
				kill(run->pid, SIGTERM);
				phase = STOPPING;
				deadline = t + grace;
			}
		}
		if (phase == STOPPING && deadline >= 0 && t >= deadline) {
			kill(run->pid, SIGKILL);
			phase = KILLED;
			deadline = -1;
		}
	}
	/* Whatever mpirun said last; orphans may hold the pipe open, so do not
	 * wait for EOF. */
	for (int i = 0; open_pipe && i < 10; i++) {
		struct pollfd pf = { pfd[0], POLLIN, 0 };
		if (poll(&pf, 1, 20) <= 0)
			break;
		open_pipe = pump(pfd[0], lb, &run->rep);
	}
	emit_lines(lb, &run->rep, 1);
	rc = 0;
cleanup:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(lb);
	return rc;
}

static void describe_end(const struct rank_status *rs, char *buf, size_t len)
{
	switch (rs->kind) {
	case END_EXIT:
		snprintf(buf, len, "exited with status %d", rs->value);
		break;
	case END_SIGNAL:
		snprintf(buf, len, "was killed by signal %d (%s)", rs->value,
			 strsignal(rs->value));
		break;
	case END_MISPLACED:
		snprintf(buf, len, "was started on the wrong host");
		break;
	case END_NOEXEC:
		snprintf(buf, len, "could not run its program (%s)", strerror(rs->value));
		break;
	default:
		snprintf(buf, len, "failed");
	}
}

/*
 * Which rank failed.  mpirun names "the first process to do so" in its
 * report; without a report (a format we do not know, --quiet), the rank
 * whose abnormal end the wrappers stamped first, among those that ended
 * before mpirun did (later ends are our own cleanup, after mpirun itself
 * died).  The statuses then say how it ended.
 */
static int culprit(const struct job *j, const struct run *run, struct rank_status *out)
{
	struct rank_status rs;
	int best = -1;
	memset(out, 0, sizeof(*out));
	if (run->rep.rank >= 0 && run->rep.rank < j->n) {
		best = run->rep.rank;
		if (read_status(j->dir, best, out) < 0) {
			if (run->rep.signal > 0) {
				out->kind = END_SIGNAL;
				out->value = run->rep.signal;
			} else if (run->rep.code >= 0) {
				out->kind = END_EXIT;
				out->value = run->rep.code;
			}
		}
		return best;
	}
	for (int r = 0; r < j->n; r++)
		if (read_status(j->dir, r, &rs) == 0 && abnormal(&rs) && rs.t_ns <= run->end_ns &&
		    (best < 0 || rs.t_ns < out->t_ns)) {
			best = r;
			*out = rs;
		}
	return best;
}

/* Complete the rank map with how every rank and the job ended. */
static void finish_map(const struct job *j, const char *result, int exit_status, int failed)
{
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	json_t *ranks = json_object_get(j->mapj, "ranks");
	for (int r = 0; r < j->n; r++) {
		struct rank_status rs;
		json_t *e = json_array_get(ranks, (size_t)r);
		if (read_status(j->dir, r, &rs) < 0)
			continue;
		if (rs.kind == END_SIGNAL)
			json_object_set_new(e, "signal", json_integer(rs.value));
		else if (rs.kind == END_EXIT || rs.kind == END_NOEXEC)
			json_object_set_new(e, "exit", json_integer(rs.value));
		else
			json_object_set_new(e, "misplaced", json_true());
	}
	json_object_set_new(j->mapj, "finished", json_string(ts));
	json_object_set_new(j->mapj, "elapsed_s", json_real((double)(gb_now_ns() - j->t0) / 1e9));
	json_object_set_new(j->mapj, "result", json_string(result));
	json_object_set_new(j->mapj, "exit_status", json_integer(exit_status));
	if (failed >= 0)
		json_object_set_new(j->mapj, "failed_rank", json_integer(failed));
	if (write_json_atomic(j->mapj, j->map) < 0)
		say("cannot update the rank map '%s'", j->map);
}

static int verdict(const struct opts *o, const struct job *j, const struct run *run)
{
	int st = run->status, failed = -1, rc;
	const char *result;
	if (run->why > 0) {
		say("interrupted by SIG%s: job %s stopped", sigabbrev_np(run->why), j->id);
		result = "interrupted";
		rc = 128 + run->why;
	} else if (run->why == WHY_TIMEOUT) {
		say("job %s timed out after %g s and was stopped", j->id, o->timeout);
		result = "timeout";
		rc = EX_TIMEOUT;
	} else if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && run->why == WHY_NONE) {
		result = "ok";
		rc = EX_OK;
	} else {
		struct rank_status rs;
		char how[128];
		failed = culprit(j, run, &rs);
		if (failed >= 0) {
			if (rs.kind == END_EXIT && rs.value == 0 && run->rep.improper)
				snprintf(how, sizeof(how), "exited without calling MPI_Finalize");
			else if (run->rep.aborted && run->rep.rank == failed)
				snprintf(how, sizeof(how), "called MPI_Abort with error code %d",
					 run->rep.code);
			else
				describe_end(&rs, how, sizeof(how));
			say("rank %d (host %s) %s", failed, map_str(j->mapj, failed, "host"), how);
		} else if (WIFSIGNALED(st)) {
			say("mpirun was killed by signal %d (%s)", WTERMSIG(st),
			    strsignal(WTERMSIG(st)));
		} else {
			say("mpirun exited with status %d", WEXITSTATUS(st));
		}
		if (run->why == WHY_HUNG)
			say("mpirun did not end the job after the failure; it was stopped");
		result = "failed";
		rc = EX_FAIL;
	}
	finish_map(j, result, rc, failed);
	return rc;
}

static int launcher(int argc, char **argv)
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
	if (find_in_path(mp && *mp ? mp : "mpirun", j.mpirun, sizeof(j.mpirun)) < 0) {
		say("'%s' not found (install openmpi-bin, or set GRIDBED_MPIRUN)",
		    mp && *mp ? mp : "mpirun");
		rc = EX_FAIL;
		goto cleanup;
	}
	char prog[PATH_MAX];
	if (find_in_path(o.prog[0], prog, sizeof(prog)) < 0) {
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
	if (run_job(&o, &j, av.v, &run)) {
		rc = EX_FAIL;
		sweep(&j, o.grace);
		goto cleanup;
	}
	int left = sweep(&j, run.why > 0 ? 1.0 : o.grace);
	rc = verdict(&o, &j, &run);
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

int gb_cmd_mpirun(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--gb-agent"))
		return agent_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "--gb-rank"))
		return rank_main(argc - 1, argv + 1);
	return launcher(argc, argv);
}
