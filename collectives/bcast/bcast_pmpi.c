/* SPDX-License-Identifier: MIT */
/*
 * bcast_pmpi.c - MPI_Bcast for unmodified programs, through the MPI
 * profiling interface (issue 4; seed 000 s2.5).  Only in libgridbcast.so:
 *
 *	LD_PRELOAD=.../libgridbcast.so GRIDBED_BCAST=mpich-g2 ./app
 *	cc app.c -L... -lgridbcast -lmpi         (linked: the same, no preload)
 *
 * GRIDBED_BCAST names a planner of gb_planners[] or "native" (the default:
 * straight to PMPI_Bcast).  Intercommunicators always go to PMPI_Bcast.
 * Other options come from the environment (gridbcast.h,
 * gb_bcast_opts_env()), read once at the first call.
 *
 * The application log, $GRIDBED_APPLOG (none by default): the paper's
 * MPI_Bcast writes "the time stamp corresponding to the broadcast and the
 * message size" to app_file, which the broadcast advisor watches.  Here the
 * root of every call appends one line, in one write(2) to a file opened
 * with O_APPEND, so lines from several processes never interleave:
 *
 *	<CLOCK_MONOTONIC s> <size B> <root> <communicator size> <algorithm>
 *	1234.567890123 1048576 0 64 mpich-g2
 *
 * Fields are separated by one space; readers must accept further fields
 * after the fifth.  The timestamp is taken on entry, before any planning.
 *
 * The per-call record, $GRIDBED_BCAST_RECORD (none by default): what only
 * the library knows about a call, for programs that time MPI_Bcast
 * themselves (synthapp/synthapp.c).  The root of every call appends one
 * JSON object on one line, in one write(2) (O_APPEND), after the broadcast:
 *
 *	{"seq": 3, "t": 1234.5678, "size": 1048576, "root": 8, "ranks": 64,
 *	 "algo": "mateescu", "tree_via": "piggyback", "model": "matrix m.json v4",
 *	 "hdr_bytes": 18018, "seg_bytes": 0, "stripes": 1, "fallback": false,
 *	 "children": [[...], ...]}
 *
 * seq counts this process's MPI_Bcast calls from 0; t is the entry time
 * (the application log's); size in bytes; algo the GRIDBED_BCAST value;
 * tree_via and model as struct gb_bcast_info; hdr_bytes the tree-header
 * bytes of the whole broadcast ((n - 1) x (30 + 4n) when the tree travelled
 * with the data, else 0); seg_bytes the bytes per segment the root cut
 * the message into (0: whole, gb_bcast_opts.segment); stripes the trees
 * its segments went down (gb_stripes_for() of gb_bcast_opts.stripes at
 * this size; children lists stripe
 * 0, header bytes (n - 1) x (30 + 6n) when more than 1); fallback whether
 * tree_via says "fallback:..."
 * (the adaptive broadcast used its fallback planner); children, when a
 * tree was used, every rank's children in send order (from which the
 * reader predicts the tree's time).  Writing it costs the root one
 * snprintf and one write after its last send.
 *
 * The calling rank's own times in its last call, for the same programs:
 * gridbcast_last_timing() (gridbcast.h), found with dlsym(RTLD_DEFAULT, ...)
 * by a program that must also run without this library.
 *
 * Errors (an unknown planner, a topology that cannot be read, a failed
 * send) are printed once as "gridbcast: ..." and raised through the
 * communicator's error handler (MPI_ERRORS_ARE_FATAL unless the program set
 * another), as an MPI library reports its own errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gridbcast.h"

/* Also declared by mpi.h; repeated so -Wmissing-prototypes sees it here. */
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);

static struct {
	int ready;
	const char *algo;          /* NULL: native */
	int bad;                   /* GRIDBED_BCAST names no planner */
	char bad_env[160];         /* a GRIDBED_* value gb_bcast_opts_env() refused */
	char bad_algo[512];        /* why GRIDBED_BCAST names no planner */
	int logfd;
	int recfd;                 /* GRIDBED_BCAST_RECORD, -1: none */
	unsigned long seq;
	int printed;
	struct gb_bcast_opts o;
	struct gb_bcast_timing last;   /* the last call's, when last_tree
					* (child_start: the executor's) */
	int last_tree;                 /* the last call ran a tree of ours */
} S = { .logfd = -1, .recfd = -1 };

static void record_setup(void)
{
	const char *rec = getenv("GRIDBED_BCAST_RECORD");

	if (rec && *rec)
		S.recfd = open(rec, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

/* JSON string contents: the few characters JSON needs escaped. */
static int record_str(char *p, size_t len, const char *s)
{
	size_t k = 0;

	for (; s && *s && k + 7 < len; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			k += (size_t)snprintf(p + k, len - k, "\\%c", ch);
		else if (ch < 0x20)
			k += (size_t)snprintf(p + k, len - k, "\\u%04x", ch);
		else
			p[k++] = (char)ch;
	}
	p[k < len ? k : len - 1] = '\0';
	return (int)k;
}

/* The record of one call (see the top of this file); the root only. */
static void record_call(double ts, int count, MPI_Datatype dt, int root, MPI_Comm comm,
			const struct gb_bcast_info *info, const struct gb_bcast_timing *tm)
{
	const struct gb_tree *t = info ? info->tree : NULL;
	const char *via = info && info->tree_via ? info->tree_via : "native";
	char *line, model[600];
	int rank = -1, size = 0, tsize = 0;
	size_t cap, k;
	unsigned long long hdr = 0;

	if (S.recfd < 0 || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || rank != root)
		return;
	PMPI_Comm_size(comm, &size);
	PMPI_Type_size(dt, &tsize);
	if (tm && tm->hdr_bytes)   /* the root sent headers: every non-root got one */
		hdr = (unsigned long long)(size - 1) * gb_bhdr_size_striped(size, tm->stripes);
	cap = 1024 + (t && t->n == size ? 12 * (size_t)size + 8 : 0);
	if (!(line = malloc(cap)))
		return;
	record_str(model, sizeof(model), info ? info->model : "MPI library");
	k = (size_t)snprintf(line, cap, "{\"seq\": %lu, \"t\": %.9f, \"size\": %lld, "
			     "\"root\": %d, \"ranks\": %d, \"algo\": \"", S.seq, ts,
			     (long long)count * tsize, root, size);
	k += (size_t)record_str(line + k, cap - k, S.algo ? S.algo : "native");
	k += (size_t)snprintf(line + k, cap - k, "\", \"tree_via\": \"");
	k += (size_t)record_str(line + k, cap - k, via);
	k += (size_t)snprintf(line + k, cap - k, "\", \"model\": \"%s\", \"hdr_bytes\": %llu, "
			      "\"seg_bytes\": %llu, \"stripes\": %d, \"fallback\": %s", model,
			      hdr, (unsigned long long)(tm ? tm->seg_bytes : 0),
			      tm && tm->stripes > 1 ? tm->stripes : 1,
			      strncmp(via, "fallback", 8) ? "false" : "true");
	if (t && t->n == size && k < cap) {
		k += (size_t)snprintf(line + k, cap - k, ", \"children\": [");
		for (int v = 0; v < t->n && k < cap; v++) {
			k += (size_t)snprintf(line + k, cap - k, "%s[", v ? ", " : "");
			for (int c = 0; c < t->nchild[v] && k < cap; c++)
				k += (size_t)snprintf(line + k, cap - k, "%s%d", c ? "," : "",
						      t->child[t->cstart[v] + c]);
			k += (size_t)snprintf(line + k, cap - k, "]");
		}
		k += (size_t)snprintf(line + k, cap - k, "]");
	}
	k += (size_t)snprintf(line + k, cap - k, "}\n");
	if (k < cap && write(S.recfd, line, k) < 0)
		S.recfd = -1;      /* stop trying; the broadcasts go on */
	free(line);
}

static void setup(void)
{
	const char *a = getenv("GRIDBED_BCAST"), *log = getenv("GRIDBED_APPLOG");

	S.ready = 1;
	if (gb_bcast_opts_env(&S.o) < 0)
		snprintf(S.bad_env, sizeof(S.bad_env), "%s", gb_bcast_strerror());
	if (a && *a && strcmp(a, "native") != 0) {
		S.algo = a;
		const struct gb_planner *p;
		struct gb_err why = { "" };

		/* gridbcast.h; plugin:PATH and external:PATH are resolved (and a
		 * plugin probed) here, once per process; why not is kept for every
		 * MPI_Bcast to fail with (the PMPI boundary's last error) */
		if (strcmp(a, "adaptive") && gb_planner_resolve(a, &p, &why) < 0) {
			snprintf(S.bad_algo, sizeof(S.bad_algo), "%s", why.msg);
			S.bad = 1;
		}
	}
	if (log && *log)
		S.logfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	record_setup();
}

static void app_log(double ts, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
	char line[160];
	int rank = -1, size = 0, tsize = 0, len;

	if (S.logfd < 0 || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || rank != root)
		return;
	PMPI_Comm_size(comm, &size);
	PMPI_Type_size(dt, &tsize);
	len = snprintf(line, sizeof(line), "%.9f %lld %d %d %s\n", ts,
		       (long long)count * tsize, root, size, S.algo ? S.algo : "native");
	if (len > 0 && (size_t)len < sizeof(line) && write(S.logfd, line, (size_t)len) < 0)
		S.logfd = -1;      /* stop trying; the broadcast itself goes on */
}

static int fail(MPI_Comm comm, const char *what)
{
	if (!S.printed++)
		fprintf(stderr, "gridbcast: MPI_Bcast with '%s': %s\n", S.algo, what);
	PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
	return MPI_ERR_OTHER;
}

/*
 * MPI_Init and MPI_Init_thread: after the library's own, set up what every
 * broadcast on MPI_COMM_WORLD needs once (the duplicated communicator, the
 * rank map, the topology and the ranks' model), as an MPI library sets up
 * its collectives at initialisation.  Otherwise the application's first
 * MPI_Bcast pays for it (about 0.1 s for 12 ranks on 2 cores, measured with
 * synthapp), which OpenMPI's own broadcast never does, and the first row of
 * every comparison is biased.  A failure here is not reported: the first
 * MPI_Bcast meets it again and reports it as before.
 */
static void init_world(void)
{
	int n = 0, *hosts;

	if (!S.ready)
		setup();
	if (!S.algo || S.bad || MPI_Comm_size(MPI_COMM_WORLD, &n) != MPI_SUCCESS ||
	    !(hosts = malloc(sizeof(int) * (size_t)n)))
		return;
	(void)gb_bcast_comm_hosts(MPI_COMM_WORLD, hosts);
	free(hosts);
}

int MPI_Init(int *argc, char ***argv)
{
	int ret = PMPI_Init(argc, argv);

	if (ret == MPI_SUCCESS)
		init_world();
	return ret;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int ret = PMPI_Init_thread(argc, argv, required, provided);

	if (ret == MPI_SUCCESS)
		init_world();
	return ret;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	struct gb_bcast_timing tm;
	struct gb_bcast_info info;
	double ts = gb_now();
	int inter = 0, ret;

	if (!S.ready)
		setup();
	if (comm != MPI_COMM_NULL)
		app_log(ts, count, datatype, root, comm);
	S.last_tree = 0;
	if (!S.algo || comm == MPI_COMM_NULL) {
		ret = PMPI_Bcast(buffer, count, datatype, root, comm);
		goto record;
	}
	PMPI_Comm_test_inter(comm, &inter);
	if (inter)
		return PMPI_Bcast(buffer, count, datatype, root, comm);
	if (S.bad)
		return fail(comm, S.bad_algo);
	if (S.bad_env[0])
		return fail(comm, S.bad_env);
	memset(&tm, 0, sizeof(tm));
	if (gb_bcast_run(buffer, count, datatype, root, comm, S.algo, &S.o, &tm,
			 S.recfd >= 0 ? &info : NULL) < 0)
		return fail(comm, gb_bcast_strerror());
	S.last = tm;
	S.last_tree = 1;
	if (S.recfd >= 0)
		record_call(ts, count, datatype, root, comm, &info, &tm);
	S.seq++;
	return MPI_SUCCESS;
record:
	if (S.recfd >= 0 && comm != MPI_COMM_NULL && ret == MPI_SUCCESS)
		record_call(ts, count, datatype, root, comm, NULL, NULL);
	S.seq++;
	return ret;
}

int gridbcast_last_timing(struct gb_bcast_timing *out)
{
	if (!S.last_tree)
		return -1;
	*out = S.last;
	return 0;
}
