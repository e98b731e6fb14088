/* SPDX-License-Identifier: MIT */
/*
 * gb_connect.h - open a connection between every pair of ranks before
 * anything is timed (header-only: synthapp, which must not link
 * libgridbcast, and gridbcast both use it).
 *
 * OpenMPI's TCP transport connects a pair on its first message, which
 * costs a wide-area round trip or more plus its own greeting: paid inside
 * a timed broadcast, it would charge every algorithm for the edges it has
 * not used before, and most of all the adaptive trees, whose edges change
 * with the matrix.  An MPI_Alltoall does not do this: for one byte on more
 * than a few ranks OpenMPI picks Bruck's algorithm, whose log2(n) rounds
 * touch each rank's partners at distance 2^k only, the very pairs of a
 * binomial tree (on teragrid, 11 of 63 partners per rank, all of
 * MPICH-G2's tree edges and few of the others: docs/measurements.md,
 * session 6).  Here rank r sends one byte to r + s (mod n) and receives one
 * from r - s, for s = 1 .. n/2, all posted at once so that the connections
 * open in parallel: a pair at distance d <= n/2 meets at s = d, one at
 * distance d > n/2 at s = n - d, the other way (a connection serves both
 * directions, and every communicator of the pair).
 */
#ifndef GRIDBED_GB_CONNECT_H
#define GRIDBED_GB_CONNECT_H

#include <mpi.h>
#include <stdlib.h>

/** gb_connect_all() - every pair of @comm exchanges one byte; 0 or -1. */
static inline int gb_connect_all(MPI_Comm comm)
{
	static const char out = 1;
	MPI_Request *r;
	char *in;
	int rank, n, k = 0, ret = 0;

	if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &n) != MPI_SUCCESS)
		return -1;
	r = malloc(sizeof(*r) * (size_t)(n + 1));
	in = malloc((size_t)n / 2 + 1);
	if (!r || !in) {
		free(r);
		free(in);
		return -1;
	}
	for (int s = 1; s <= n / 2 && ret == 0; s++) {
		if (MPI_Irecv(&in[s], 1, MPI_BYTE, (rank - s + n) % n, 0, comm, &r[k++]) !=
			    MPI_SUCCESS ||
		    MPI_Isend(&out, 1, MPI_BYTE, (rank + s) % n, 0, comm, &r[k++]) != MPI_SUCCESS)
			ret = -1;
	}
	if (MPI_Waitall(k, r, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
		ret = -1;
	free(r);
	free(in);
	return ret;
}

#endif
