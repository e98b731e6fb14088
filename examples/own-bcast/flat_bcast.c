/* SPDX-License-Identifier: MIT */
/*
 * flat_bcast.c - an example of your own MPI_Bcast for gridbed
 * (docs/plugins.md, "Your own MPI_Bcast"): a PMPI library that replaces
 * MPI_Bcast in any MPI program it is preloaded into, here with the flat
 * tree (the root sends to every rank in turn, in rank order).
 *
 * gridbed preloads it into its synthetic application instead of
 * libgridbcast.so, and measures each call as it measures every algorithm:
 * from the root's entry to the last rank's return, every rank's buffer
 * checked.  Replace the loop with your broadcast.
 *
 * Its messages go over a duplicate of the caller's communicator, made once
 * and kept as an attribute, so that they never match the program's own.
 *
 *	make                     # flat-bcast.so, with mpicc
 */
#include <mpi.h>

static int keyval = MPI_KEYVAL_INVALID;

static int free_dup(MPI_Comm comm, int key, void *val, void *extra)
{
	MPI_Comm *dup = val;

	(void)comm;
	(void)key;
	(void)extra;
	PMPI_Comm_free(dup);
	PMPI_Free_mem(dup);
	return MPI_SUCCESS;
}

/* The private duplicate of @comm, made on first use (collective then). */
static int private_comm(MPI_Comm comm, MPI_Comm *out)
{
	MPI_Comm *dup;
	int found, ret;

	if (keyval == MPI_KEYVAL_INVALID) {
		ret = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_dup, &keyval, NULL);
		if (ret != MPI_SUCCESS)
			return ret;
	}
	ret = PMPI_Comm_get_attr(comm, keyval, &dup, &found);
	if (ret == MPI_SUCCESS && !found) {
		ret = PMPI_Alloc_mem(sizeof(*dup), MPI_INFO_NULL, &dup);
		if (ret == MPI_SUCCESS)
			ret = PMPI_Comm_dup(comm, dup);
		if (ret == MPI_SUCCESS)
			ret = PMPI_Comm_set_attr(comm, keyval, dup);
	}
	if (ret == MPI_SUCCESS)
		*out = *dup;
	return ret;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	MPI_Comm pc;
	int inter, rank, size, ret;

	ret = PMPI_Comm_test_inter(comm, &inter);
	if (ret != MPI_SUCCESS || inter)
		return PMPI_Bcast(buf, count, type, root, comm);
	ret = private_comm(comm, &pc);
	if (ret != MPI_SUCCESS)
		return ret;
	PMPI_Comm_rank(pc, &rank);
	PMPI_Comm_size(pc, &size);
	if (rank != root)
		return PMPI_Recv(buf, count, type, root, 0, pc, MPI_STATUS_IGNORE);
	for (int r = 0; r < size && ret == MPI_SUCCESS; r++)
		if (r != root)
			ret = PMPI_Send(buf, count, type, r, 0, pc);
	return ret;
}
