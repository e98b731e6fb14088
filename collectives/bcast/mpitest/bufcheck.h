/* SPDX-License-Identifier: MIT */
/*
 * bufcheck.h - what the MPI test programs of t/31xx share: the three
 * datatypes they broadcast and the check of every data byte and gap byte
 * of a buffer.  Plain MPI and libc, no gridbed header: bcast_plain must
 * stay an ordinary MPI program; each program brings its own pattern.
 */
#ifndef GRIDBED_BUFCHECK_H
#define GRIDBED_BUFCHECK_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/** What a datatype's gap bytes hold, at every rank, before and after. */
#define BUFCHECK_GAP 0x5a

/**
 * struct ty - a datatype as the check sees it: @nblk blocks of @blk data
 * bytes, @stride bytes apart, in an element of @extent bytes.
 */
struct ty {
	const char *name;
	MPI_Datatype dt;
	int nblk, blk, stride, extent;   /* bytes */
};

/**
 * bufcheck_types() - "byte" (MPI_BYTE), "int" (MPI_INT) and "vector" (3
 * blocks of 2 ints with stride 3: 24 data bytes in a 32-byte extent, gaps
 * inside) into @types; *@vec gets the committed vector type, for
 * MPI_Type_free().
 */
void bufcheck_types(struct ty types[3], MPI_Datatype *vec);

/**
 * bufcheck_walk() - over @count elements of @t in @buf, with @fill's
 * pattern of @seed taken packed: @mode 1 writes it into the data bytes, 2
 * its complement, 0 counts the data bytes that differ from it and the gap
 * bytes that are not BUFCHECK_GAP.  MPI_Abort()s when out of memory.
 * Return: that count (0 when writing).
 */
long bufcheck_walk(uint8_t *buf, const struct ty *t, int count, uint64_t seed, int mode,
		   void (*fill)(void *buf, size_t len, uint64_t seed));

#endif
