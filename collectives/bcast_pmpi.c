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

static struct {
	int ready;
	const char *algo;          /* NULL: native */
	int bad;                   /* GRIDBED_BCAST names no planner */
	int logfd;
	int printed;
	struct gb_bcast_opts o;
} S = { .logfd = -1 };

static void setup(void)
{
	const char *a = getenv("GRIDBED_BCAST"), *log = getenv("GRIDBED_APPLOG");

	S.ready = 1;
	gb_bcast_opts_env(&S.o);
	if (a && *a && strcmp(a, "native") != 0) {
		S.algo = a;
		S.bad = !gb_planner_find(a);
	}
	if (log && *log)
		S.logfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
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

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	double ts = gb_now();
	int inter = 0;

	if (!S.ready)
		setup();
	if (comm != MPI_COMM_NULL)
		app_log(ts, count, datatype, root, comm);
	if (!S.algo || comm == MPI_COMM_NULL)
		return PMPI_Bcast(buffer, count, datatype, root, comm);
	PMPI_Comm_test_inter(comm, &inter);
	if (inter)
		return PMPI_Bcast(buffer, count, datatype, root, comm);
	if (S.bad)
		return fail(comm, "unknown planner in GRIDBED_BCAST (see gridtree list)");
	if (gb_bcast_run(buffer, count, datatype, root, comm, S.algo, &S.o, NULL, NULL) < 0)
		return fail(comm, gb_bcast_strerror());
	return MPI_SUCCESS;
}
