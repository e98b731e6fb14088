/* SPDX-License-Identifier: MIT */
/*
 * bufcheck.c - the datatypes and the buffer check of the MPI test programs
 * (bufcheck.h).
 */
#include <stdlib.h>
#include <string.h>

#include "bufcheck.h"

void bufcheck_types(struct ty types[3], MPI_Datatype *vec)
{
	MPI_Type_vector(3, 2, 3, MPI_INT, vec);
	MPI_Type_commit(vec);
	types[0] = (struct ty){ "byte", MPI_BYTE, 1, 1, 1, 1 };
	types[1] = (struct ty){ "int", MPI_INT, 1, 4, 4, 4 };
	types[2] = (struct ty){ "vector", *vec, 3, 8, 12, 32 };
}

/* The pattern is made packed, once, and compared block by block. */
long bufcheck_walk(uint8_t *buf, const struct ty *t, int count, uint64_t seed, int mode,
		   void (*fill)(void *buf, size_t len, uint64_t seed))
{
	size_t blk = (size_t)t->blk, data = (size_t)count * t->nblk * blk, k = 0;
	uint8_t *pk = malloc(data ? data : 1), gap[64];
	long bad = 0;

	if (!pk)
		MPI_Abort(MPI_COMM_WORLD, 2);
	fill(pk, data, seed);
	if (mode == 2)
		for (size_t i = 0; i < data; i++)
			pk[i] = (uint8_t)~pk[i];
	memset(gap, BUFCHECK_GAP, sizeof(gap));
	for (int e = 0; e < count; e++) {
		uint8_t *el = buf + (size_t)e * t->extent;

		for (int b = 0; b < t->nblk; b++, k += blk) {
			uint8_t *p = el + (size_t)b * t->stride;

			if (mode)
				memcpy(p, pk + k, blk);
			else if (memcmp(p, pk + k, blk))
				for (size_t y = 0; y < blk; y++)
					bad += p[y] != pk[k + y];
			/* the gap after this block, up to the next one or the extent */
			if (!mode) {
				size_t end = b + 1 < t->nblk ? (size_t)(b + 1) * t->stride :
							      (size_t)t->extent;
				size_t g = end - (size_t)b * t->stride - blk;

				if (g && memcmp(p + blk, gap, g))
					for (size_t y = 0; y < g; y++)
						bad += p[blk + y] != BUFCHECK_GAP;
			}
		}
	}
	free(pk);
	return bad;
}
