/* SPDX-License-Identifier: MIT */
/*
 * gridstencil-topo - print the processor topology seed 004 s3 gives for a
 * grid and a list of machine sizes, next to the classical one, with the
 * wide-area face sizes of both, and (with --speeds) the s4 slabs.
 *
 *	gridstencil-topo --grid 128x256x64 --machines 64,128,128,256
 *	gridstencil-topo --grid 320x320x160 --machines 128,128 --speeds 1/4.40,1/2.41
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbstencil.h"
#include "gbutil.h"

#define MAXMACH 4096

static int usage(FILE *f)
{
	fprintf(f,
		"usage: gridstencil-topo --grid NxN[xN...] --machines P[,P...] [options]\n"
		"  Print the processor topology of Dramlitsch et al. s3 for a grid of grid\n"
		"  points and machines of P processors each (lined up along the longest\n"
		"  dimension, in the order given), the classical even topology, and the\n"
		"  grid points on wide-area faces for both.\n"
		"options:\n"
		"  --grid DIMS        grid points per dimension, e.g. 128x256x64 (1-%d dims)\n"
		"  --machines LIST    processors per machine, e.g. 8,16\n"
		"  --speeds LIST      per-machine speed (any unit; a/b allowed: 1/4.40):\n"
		"                     also print the s4 slab thicknesses along the longest\n"
		"                     dimension\n"
		"  --reduce F         s4.3: work reduction on wide-area boundary slabs, 0..0.99\n"
		"                     (the paper: 0.2; default 0)\n"
		"  --min N            thinnest slab allowed (default 1)\n"
		"  -h, --help         this text\n"
		"Exit status: 0, or 2 for bad arguments (docs/exit-status.md).\n",
		GB_ST_MAXDIM);
	return f == stdout ? 0 : 2;
}

static int bad(const char *opt, const char *val, const char *why)
{
	return gb_refuse("gridstencil-topo", "%s: '%s' %s", opt, val, why);
}

/* what every refusal of the usage ends with (gb_refuse()) */
#define SEE " (see --help)"

/* "1,2.5,1/4.40" -> speeds; returns the count or -1. */
static int parse_speeds(const char *s, double *v, int max)
{
	char *dup = strdup(s), *save = NULL, *tok;
	int n = 0;

	if (!dup)
		return -1;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end, *slash = strchr(tok, '/');
		double a, b = 1;

		if (n == max)
			goto fail;
		if (slash)
			*slash = 0;
		a = strtod(tok, &end);
		if (end == tok || *end)
			goto fail;
		if (slash) {
			b = strtod(slash + 1, &end);
			if (end == slash + 1 || *end || !(b > 0))
				goto fail;
		}
		v[n] = a / b;
		if (!(v[n] > 0) || !isfinite(v[n]))
			goto fail;
		n++;
	}
	free(dup);
	return n;
fail:
	free(dup);
	return -1;
}

/* Even lengths in every dimension (the classical decomposition). */
static int even_lengths(int ndim, const int *grid, const int *k, int **len)
{
	for (int d = 0; d < ndim; d++) {
		len[d] = malloc(sizeof(int) * k[d]);
		if (!len[d] || gb_st_split_even(grid[d], k[d], len[d]) < 0)
			return -1;
	}
	return 0;
}

static void print_lengths(const char *what, int n, const int *len)
{
	printf("%s", what);
	for (int i = 0; i < n; i++)
		printf("%s%d", i ? " " : "", len[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "grid", required_argument, 0, 'g' }, { "machines", required_argument, 0, 'm' },
		{ "speeds", required_argument, 0, 's' }, { "reduce", required_argument, 0, 'r' },
		{ "min", required_argument, 0, 'n' },   { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	int grid[GB_ST_MAXDIM], k[GB_ST_MAXDIM], ke[GB_ST_MAXDIM], ndim = 0, nmach = 0, nspeed = 0;
	int *np = NULL, *kl = NULL, *cell = NULL, *cellmach = NULL, *len[GB_ST_MAXDIM] = { 0 };
	int *elen[GB_ST_MAXDIM] = { 0 }, minlen = 1, total = 0, ncell = 1, c, rc = 2;
	double *speed = NULL, reduce = 0, *w = NULL;
	const char *grid_s = NULL, *mach_s = NULL, *speed_s = NULL;
	struct gb_st_topo_info info;
	char b1[128], b2[128];
	char *end;

	opterr = 0;	/* the faults below, one line each, not getopt's and the usage */
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'g': grid_s = optarg; break;
		case 'm': mach_s = optarg; break;
		case 's': speed_s = optarg; break;
		case 'r':
			reduce = strtod(optarg, &end);
			if (end == optarg || *end || !(reduce >= 0) || !(reduce < 1))
				return bad("--reduce", optarg, "is not a fraction in [0, 1)");
			break;
		case 'n':
			minlen = (int)strtol(optarg, &end, 10);
			if (end == optarg || *end || minlen < 1)
				return bad("--min", optarg, "is not a count >= 1");
			break;
		case 'h': return usage(stdout);
		case ':':
			return gb_refuse("gridstencil-topo", "option '%s' needs a value" SEE,
					 argv[optind - 1]);
		default:
			return gb_refuse("gridstencil-topo", "unknown option '%s'" SEE,
					 argv[optind - 1]);
		}
	}
	if (optind != argc)
		return gb_refuse("gridstencil-topo", "unexpected argument '%s'" SEE, argv[optind]);
	if (!grid_s || !mach_s)
		return gb_refuse("gridstencil-topo", "%s is required" SEE,
				 !grid_s ? "--grid" : "--machines");
	if ((ndim = gb_st_parse_dims(grid_s, grid)) < 0)
		return bad("--grid", grid_s, "is not a grid (use e.g. 128x256x64, sizes >= 1)");
	np = malloc(sizeof(int) * MAXMACH);
	kl = malloc(sizeof(int) * MAXMACH);
	speed = malloc(sizeof(double) * MAXMACH);
	if (!np || !kl || !speed)
		goto oom;
	if ((nmach = gb_st_parse_list(mach_s, np, MAXMACH)) < 0) {
		rc = bad("--machines", mach_s, "is not a list of processor counts (use e.g. 8,16)");
		goto cleanup;
	}
	for (int m = 0; m < nmach; m++)
		total += np[m];
	if (speed_s && (nspeed = parse_speeds(speed_s, speed, MAXMACH)) != nmach) {
		rc = bad("--speeds", speed_s, "needs one positive speed per machine");
		goto cleanup;
	}
	if (gb_st_topo_grid(ndim, grid, nmach, np, k, kl, &info) < 0 ||
	    gb_st_topo_even(ndim, total, ke) < 0) {
		rc = bad("--machines", mach_s, "cannot be laid out");
		goto cleanup;
	}
	printf("grid: %s (%d dimensions)\n", gb_st_fmt_dims(ndim, grid, b1, sizeof(b1)), ndim);
	printf("machines: %d (%s), %d processors\n", nmach, mach_s, total);
	printf("longest dimension: %d (%d points)\n", info.longest, grid[info.longest]);
	printf("smallest machine: %d (%d processors), subgrid %s -> %s\n", info.smallest,
	       np[info.smallest], gb_st_fmt_dims(ndim, info.sub_grid, b1, sizeof(b1)),
	       gb_st_fmt_dims(ndim, info.sub_k, b2, sizeof(b2)));
	printf("topology: %s\n", gb_st_fmt_dims(ndim, k, b1, sizeof(b1)));
	print_lengths("positions per machine along the longest dimension: ", nmach, kl);
	printf("standard topology: %s\n", gb_st_fmt_dims(ndim, ke, b1, sizeof(b1)));

	/* Wide-area faces of both layouts, with even decompositions. */
	for (int d = 0; d < ndim; d++)
		ncell *= k[d] > ke[d] ? k[d] : ke[d];
	cell = malloc(sizeof(int) * ncell);
	cellmach = malloc(sizeof(int) * ncell);
	if (!cell || !cellmach)
		goto oom;
	{
		int *first = malloc(sizeof(int) * (nmach + 1)), n = 1;

		if (!first)
			goto oom;
		first[0] = 0;
		for (int m = 0; m < nmach; m++)
			first[m + 1] = first[m] + np[m];
		/* grid-aware: the machines' processors fill their cuboids */
		for (int d = 0; d < ndim; d++)
			n *= k[d];
		if (gb_st_place_grid(ndim, k, info.longest, nmach, kl, cell) < 0 ||
		    even_lengths(ndim, grid, k, len) < 0) {
			free(first);
			rc = bad("--grid", grid_s, "has fewer points than processors in a dimension");
			goto cleanup;
		}
		for (int i = 0; i < n; i++) {
			int m = 0;

			while (cell[i] >= first[m + 1])
				m++;
			cellmach[i] = m;
		}
		printf("wide-area face: %.0f points\n", gb_st_wan_face(ndim, k, len, cellmach));
		/* standard: rank r is cell r, row-major (MPI_Cart_create, no reorder) */
		n = 1;
		for (int d = 0; d < ndim; d++)
			n *= ke[d];
		if (even_lengths(ndim, grid, ke, elen) < 0) {
			free(first);
			printf("standard wide-area face: - (fewer points than processors)\n");
			rc = 0;
			goto slabs;
		}
		for (int i = 0; i < n; i++) {
			int m = 0;

			while (i >= first[m + 1])
				m++;
			cellmach[i] = m;
		}
		printf("standard wide-area face: %.0f points\n",
		       gb_st_wan_face(ndim, ke, elen, cellmach));
		free(first);
	}
slabs:
	printf("face size: %.0f points, standard %.0f\n", gb_st_face_size(ndim, grid, k),
	       gb_st_face_size(ndim, grid, ke));
	rc = 0;
	if (speed_s) {
		int L = info.longest, *slab = malloc(sizeof(int) * k[L]);

		w = malloc(sizeof(double) * k[L]);
		if (!slab || !w) {
			free(slab);
			goto oom;
		}
		if (gb_st_slab_weights(nmach, kl, speed, reduce, w) < 0 ||
		    gb_st_balance(grid[L], k[L], w, minlen, slab) < 0) {
			free(slab);
			rc = bad("--speeds", speed_s, "gives no decomposition (too few points)");
			goto cleanup;
		}
		print_lengths("slabs: ", k[L], slab);
		free(slab);
	}
	goto cleanup;
oom:
	fprintf(stderr, "gridstencil-topo: out of memory\n");
	rc = 1;
cleanup:
	for (int d = 0; d < GB_ST_MAXDIM; d++) {
		free(len[d]);
		free(elen[d]);
	}
	free(np);
	free(kl);
	free(speed);
	free(w);
	free(cell);
	free(cellmach);
	return rc;
}
