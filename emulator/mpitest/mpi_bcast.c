/* SPDX-License-Identifier: MIT */
/*
 * mpi_bcast - one MPI_Bcast of BYTES from ROOT (default 0), content checked
 * on every rank, for t/1101-mpirun-basic.t (which counts the bytes on the
 * emulated links) and emulator/bench/mpirun-launch.sh (BYTES = 0: init and
 * finalize only).
 *
 *   mpi_bcast BYTES [ROOT]
 *
 * Prints "bcast BYTES from ROOT: N/N ranks ok" on rank 0 and exits 1 if a
 * rank saw wrong content.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long bytes = argc > 1 ? atol(argv[1]) : 0;
	int root = argc > 2 ? atoi(argv[2]) : 0;
	if (bytes <= 0) {
		MPI_Finalize();
		return 0;
	}
	unsigned char *buf = malloc((size_t)bytes);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (long i = 0; i < bytes; i++)
		buf[i] = rank == root ? (unsigned char)(i * 7 + 3) : 0;
	MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD);
	int good = 1, goods = 0;
	for (long i = 0; i < bytes; i++)
		if (buf[i] != (unsigned char)(i * 7 + 3)) {
			good = 0;
			break;
		}
	MPI_Reduce(&good, &goods, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		printf("bcast %ld from %d: %d/%d ranks ok\n", bytes, root, goods, size);
		fflush(stdout);
	}
	free(buf);
	MPI_Finalize();
	return rank == 0 && goods != size;
}
