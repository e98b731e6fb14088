/* SPDX-License-Identifier: MIT */
/*
 * mpi_fail - misbehave on purpose, for t/1102-mpirun-fail.t:
 *
 *   mpi_fail RANK exit CODE     RANK exits with CODE before MPI_Finalize
 *   mpi_fail RANK kill SIG      RANK kills itself with SIG
 *   mpi_fail RANK abort CODE    RANK calls MPI_Abort(MPI_COMM_WORLD, CODE)
 *   mpi_fail RANK sleep SEC     RANK (-1: every rank) sleeps SEC seconds
 *
 * The other ranks wait in a barrier, as a real program would when a peer
 * disappears.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 4) {
		if (rank == 0)
			fprintf(stderr, "usage: mpi_fail RANK exit|kill|abort|sleep N\n");
		MPI_Finalize();
		return 2;
	}
	int who = atoi(argv[1]), n = atoi(argv[3]);
	const char *what = argv[2];
	if (who == rank || who < 0) {
		if (!strcmp(what, "exit")) {
			exit(n);
		} else if (!strcmp(what, "kill")) {
			raise(n);
		} else if (!strcmp(what, "abort")) {
			MPI_Abort(MPI_COMM_WORLD, n);
		} else if (!strcmp(what, "sleep")) {
			/* Short sleeps: a signal ends the rank promptly anyway. */
			for (int i = 0; i < n * 10; i++)
				usleep(100000);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
