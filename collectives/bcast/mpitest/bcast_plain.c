/* SPDX-License-Identifier: MIT */
/*
 * bcast_plain - an ordinary MPI program that knows nothing of gridbed: it
 * calls MPI_Bcast and checks what arrived.  t/3102 runs it with
 * LD_PRELOAD=libgridbcast.so (and as bcast_plain_linked, linked against
 * it) to test the PMPI path on unmodified code.
 *
 *	bcast_plain [--quick] [--sizes B,B,...]
 *
 * Broadcasts, on MPI_COMM_WORLD and on two sub-communicators made with
 * MPI_Comm_split (even/odd world ranks in reverse order, and the lower and
 * upper halves): roots 0, last and middle; sizes 0, 1, 1000, 1 MiB and
 * 8 MiB + 3 bytes (--quick: up to 1000); types MPI_BYTE, MPI_INT and a
 * vector of 3 blocks of 2 ints with stride 3 (24 data bytes in a 32-byte
 * extent, gaps inside).  A size is turned into ceil(size / data bytes per
 * element) elements.  Every rank checks every data byte and that the
 * gaps of the vector type were not written.
 *
 * Output (rank 0): "bcast_plain: N broadcasts, B bad" (per rank, B the
 * largest) and one line per bad broadcast.  Exit status 1 when anything
 * was bad.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bufcheck.h"

/* A cheap pattern: byte i of word i/8 of a splitmix-like sequence. */
static void pattern(void *buf, size_t len, uint64_t seed)
{
	uint8_t *out = buf;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t x = seed + (i / 8 + 1) * 0x9e3779b97f4a7c15ull;

		x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull;
		x ^= x >> 29;
		for (size_t b = 0; b < 8 && i + b < len; b++)
			out[i + b] = (uint8_t)(x >> (8 * b));
	}
}

static int run(MPI_Comm comm, const char *cname, struct ty *types, int ntypes,
	       const long *sizes, int nsizes, int *nb, int *nbad)
{
	int n, rank, world;

	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_rank(MPI_COMM_WORLD, &world);
	int roots[3] = { 0, n - 1, n / 2 };

	for (int ri = 0; ri < 3; ri++)
		for (int si = 0; si < nsizes; si++)
			for (int ti = 0; ti < ntypes; ti++) {
				struct ty *t = &types[ti];
				int data = t->nblk * t->blk;
				int count = (int)((sizes[si] + data - 1) / data);
				size_t len = (size_t)count * t->extent;
				uint64_t seed = (uint64_t)(*nb + 1) * 1000003u +
						(uint64_t)sizes[si];
				uint8_t *buf = malloc(len ? len : 1);
				long bad, tot = 0;

				if (!buf)
					MPI_Abort(MPI_COMM_WORLD, 2);
				/* the root writes the pattern, the others its complement
				 * (stale data must not pass); gaps are BUFCHECK_GAP everywhere */
				memset(buf, BUFCHECK_GAP, len);
				bufcheck_walk(buf, t, count, seed, rank == roots[ri] ? 1 : 2, pattern);
				MPI_Bcast(buf, count, t->dt, roots[ri], comm);
				bad = bufcheck_walk(buf, t, count, seed, 0, pattern);
				MPI_Allreduce(&bad, &tot, 1, MPI_LONG, MPI_SUM, comm);
				if (tot && rank == 0)
					printf("bcast_plain: BAD %s root %d size %ld type %s: "
					       "%ld bytes\n", cname, roots[ri], sizes[si],
					       t->name, tot);
				(*nb)++;
				*nbad += tot != 0;
				free(buf);
			}
	return 0;
}

int main(int argc, char **argv)
{
	long sizes[16] = { 0, 1, 1000, 1 << 20, (8 << 20) + 3 };
	int nsizes = 5, nb = 0, nbad = 0, tnb = 0, rank, n;
	struct ty types[3];
	MPI_Datatype vec;
	MPI_Comm c1, c2;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			nsizes = 3;
		} else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
			char *s = argv[++i], *end;

			for (nsizes = 0; *s && nsizes < 16; s = *end ? end + 1 : end)
				sizes[nsizes++] = strtol(s, &end, 0);
		} else {
			if (!rank)
				fprintf(stderr, "usage: bcast_plain [--quick] [--sizes B,B,...]\n");
			MPI_Finalize();
			return 2;
		}
	}
	bufcheck_types(types, &vec);

	run(MPI_COMM_WORLD, "world", types, 3, sizes, nsizes, &nb, &nbad);
	/* even/odd world ranks, each in reverse rank order */
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, n - rank, &c1);
	run(c1, "split-parity", types, 3, sizes, nsizes < 4 ? nsizes : 4, &nb, &nbad);
	/* lower and upper half, in rank order */
	MPI_Comm_split(MPI_COMM_WORLD, rank < n / 2, rank, &c2);
	run(c2, "split-half", types, 3, sizes, nsizes < 4 ? nsizes : 4, &nb, &nbad);
	MPI_Comm_free(&c1);
	MPI_Comm_free(&c2);
	MPI_Type_free(&vec);

	/* every rank took part in nb broadcasts (world + one communicator of
	 * each split); a broadcast is bad on all its ranks (Allreduce above),
	 * so the maximum over ranks is the number of bad ones some rank saw */
	MPI_Reduce(&nbad, &tnb, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
	if (!rank)
		printf("bcast_plain: %d broadcasts, %d bad\n", nb, tnb);
	MPI_Finalize();
	return tnb ? 1 : 0;
}
