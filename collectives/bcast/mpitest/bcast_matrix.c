/* SPDX-License-Identifier: MIT */
/*
 * bcast_matrix - libgridbcast's correctness matrix through the library API
 * (gb_bcast_run()), batched into one MPI job so that t/3101 stays fast.
 *
 *	bcast_matrix [--planners all|P,P,..] [--roots 0,last,mid,N,..]
 *	             [--sizes B,B,..] [--types byte,int,vector] [--big-from B]
 *	             [--isend] [--shared] [--split] [--relabel]
 *
 * For every planner (all = every registered one, plus native), root, size
 * and type: the root fills the data bytes with a pattern, the others with
 * its complement and the vector type's gaps with a marker; after
 * gb_bcast_run() every rank counts data bytes that differ and gap bytes
 * that were written.  The root also gathers the timings and checks that
 *   - no rank's receive-done precedes its parent's send start,
 *   - every rank's parent is the parent in the root's tree,
 *   - the header bytes sent are (n - 1) * (30 + 4n) for piggybacked trees
 *     and 0 otherwise.
 * --split runs everything again on MPI_Comm_split(parity, reverse order),
 * whose rank order differs from the world's.  --relabel also runs every
 * static planner's tree for root 0 from the other roots through
 * gb_bcast_tree(), with and without the piggybacked header.
 *
 * A size of B bytes is ceil(B / data bytes per element) elements.
 * --big-from B: sizes above B run with MPI_BYTE from the first root only
 * (time on a slow emulated WAN: neither the datatype nor the root changes
 * how the executor treats a big message).
 * Output (rank 0), one line per communicator, planner and mode:
 *	RESULT comm=world planner=binomial mode=blocking cases=45 bad=0 via=local model=...
 * then "TOTAL cases=N bad=M".  Exit status 1 if anything was bad.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bufcheck.h"
#include "gridbcast.h"

/* Cases whose root sent segments (gb_bcast_timing.seg_bytes), per RESULT line. */
static long seg_cases;

struct args {
	const char *planners, *roots, *types;
	long sizes[16];
	int nsizes;
	unsigned flags;
	int split, relabel;
	long big_from;          /* sizes above: MPI_BYTE, first root (-1: no limit) */
};

static int in_list(const char *list, const char *name)
{
	size_t l = strlen(name);

	for (const char *s = list; s && *s;) {
		const char *e = strchr(s, ',');
		size_t sl = e ? (size_t)(e - s) : strlen(s);

		if (sl == l && !strncmp(s, name, l))
			return 1;
		s = e ? e + 1 : NULL;
	}
	return 0;
}

static int parse_roots(const char *list, int n, int *roots)
{
	int k = 0;

	for (const char *s = list; s && *s && k < 16;) {
		const char *e = strchr(s, ',');

		if (!strncmp(s, "last", 4))
			roots[k++] = n - 1;
		else if (!strncmp(s, "mid", 3))
			roots[k++] = n / 2;
		else
			roots[k++] = atoi(s) % n;
		s = e ? e + 1 : NULL;
	}
	return k;
}

/*
 * One broadcast case; returns the number of problems seen (same value on
 * every rank).  @t != NULL: gb_bcast_tree() with @t and @flags instead of
 * gb_bcast_run().
 */
static long one_case(MPI_Comm comm, const char *algo, const struct gb_tree *t, int root,
		     long size, const struct ty *ty, const struct gb_bcast_opts *o,
		     uint64_t caseno, struct gb_bcast_info *info, char *why, size_t whylen)
{
	int n, rank, data = ty->nblk * ty->blk, count = (int)((size + data - 1) / data), ret;
	size_t len = (size_t)count * ty->extent;
	uint64_t seed = gb_pattern_seed((uint64_t)size, caseno, (uint64_t)ty->extent);
	struct gb_bcast_rankrec *rec = NULL;
	struct gb_bcast_timing tm;
	uint8_t *buf = malloc(len ? len : 1);
	long bad = 0, tot = 0;

	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &rank);
	rec = calloc(n, sizeof(*rec));
	if (!buf || !rec)
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(buf, BUFCHECK_GAP, len);
	bufcheck_walk(buf, ty, count, seed, rank == root ? 1 : 2, gb_pattern_fill);
	if (t)
		ret = gb_bcast_tree(buf, count, ty->dt, root, comm, t, o, &tm);
	else
		ret = gb_bcast_run(buf, count, ty->dt, root, comm, algo, o, &tm, info);
	if (ret < 0) {
		fprintf(stderr, "bcast_matrix: rank %d: %s: %s\n", rank, algo, gb_bcast_strerror());
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	bad = bufcheck_walk(buf, ty, count, seed, 0, gb_pattern_fill);
	if (bad)
		snprintf(why, whylen, "%ld bad bytes on rank %d", bad, rank);
	if (gb_bcast_gather(&tm, root, comm, rec) < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (rank == root && strcmp(algo, "native") != 0) {
		const struct gb_tree *tr = t ? NULL : info->tree;
		int pig = t ? !!(o->flags & GB_BCAST_PIGGYBACK) :
			      !strcmp(info->tree_via, "piggyback");
		uint64_t hb = 0, want = pig ? (uint64_t)(n - 1) * gb_bhdr_size(n) : 0;
		int v = gb_bcast_order_violations(rec, n);

		for (int i = 0; i < n; i++) {
			hb += rec[i].hdr_bytes;
			if (tr && rec[i].parent != tr->parent[i]) {
				snprintf(why, whylen, "rank %d's parent %d, the tree says %d", i,
					 rec[i].parent, tr->parent[i]);
				bad++;
			}
			if (i != root && rec[i].parent < 0) {
				snprintf(why, whylen, "rank %d has no parent", i);
				bad++;
			}
		}
		if (v) {
			snprintf(why, whylen, "%d ranks received before their parent sent", v);
			bad += v;
		}
		if (hb != want) {
			snprintf(why, whylen, "header bytes %llu, expected %llu",
				 (unsigned long long)hb, (unsigned long long)want);
			bad++;
		}
	}
	/* [0]: problems, [1]: the root cut the message into segments */
	long v[2] = { bad, rank == root && tm.seg_bytes > 0 }, sum[2];

	MPI_Allreduce(v, sum, 2, MPI_LONG, MPI_SUM, comm);
	tot = sum[0];
	seg_cases += sum[1];
	free(buf);
	free(rec);
	return tot;
}

static void run_comm(MPI_Comm comm, const char *cname, const struct args *a, struct ty *types,
		     int ntypes, long *tcases, long *tbad)
{
	struct gb_bcast_opts o;
	int n, rank, roots[16], nroots;
	const char *mode = a->flags & GB_BCAST_ISEND ? "isend" : "blocking";

	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &rank);
	nroots = parse_roots(a->roots, n, roots);
	if (gb_bcast_opts_env(&o) < 0) {
		fprintf(stderr, "bcast_matrix: %s\n", gb_bcast_strerror());
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	o.flags |= a->flags;
	if (a->flags & GB_BCAST_SHARED)
		mode = "shared-file";

	for (int pi = -1; pi < gb_nplanners; pi++) {
		const char *algo = pi < 0 ? "native" : gb_planners[pi].name;
		struct gb_bcast_info info;
		long cases = 0, bad = 0;
		char why[256] = "", model[256] = "";
		const char *via = "?";

		if (strcmp(a->planners, "all") && !in_list(a->planners, algo))
			continue;
		seg_cases = 0;
		for (int ri = 0; ri < nroots; ri++)
			for (int si = 0; si < a->nsizes; si++)
				for (int ti = 0; ti < ntypes; ti++) {
					int big = a->big_from >= 0 &&
						  a->sizes[si] > a->big_from;

					if (!in_list(a->types, types[ti].name) ||
					    (big && (ti > 0 || ri > 0)))
						continue;
					memset(&info, 0, sizeof(info));
					bad += one_case(comm, algo, NULL, roots[ri], a->sizes[si],
							&types[ti], &o, (uint64_t)cases, &info,
							why, sizeof(why));
					cases++;
					/* the model is known where the tree was planned */
					via = info.tree_via ? info.tree_via : "?";
					if (rank == roots[ri] || !model[0])
						snprintf(model, sizeof(model), "%s", info.model);
				}
		if (rank == 0) {
			printf("RESULT comm=%s planner=%s mode=%s cases=%ld bad=%ld segmented=%ld "
			       "via=%s model=%s%s%s\n",
			       cname, algo, mode, cases, bad, seg_cases, via, model,
			       bad ? " why=" : "", bad ? why : "");
			fflush(stdout);
		}
		*tcases += cases;
		*tbad += bad;
	}

	if (!a->relabel)
		return;
	/* static trees planned for root 0, run from the other roots */
	for (int pi = 0; pi < gb_nplanners; pi++) {
		const struct gb_planner *p = &gb_planners[pi];
		long cases = 0, bad = 0;
		char why[256] = "";

		if (!(p->flags & GB_PLAN_STATIC) ||
		    (strcmp(a->planners, "all") && !in_list(a->planners, p->name)))
			continue;
		seg_cases = 0;
		for (int pig = 0; pig < 2; pig++)
			for (int ri = 0; ri < nroots; ri++)
				for (int si = 0; si < a->nsizes; si++) {
					struct gb_bcast_info info;
					struct gb_bcast_opts oo = o;
					struct gb_tree t0 = { 0 };  /* gb_tree_copy releases it */

					/* copied: the cache may evict it during the run */
					if (gb_bcast_prepare(p->name, 0, (double)a->sizes[si], comm,
							     &o, &info) < 0 ||
					    gb_tree_copy(&t0, info.tree) < 0)
						MPI_Abort(MPI_COMM_WORLD, 1);
					oo.flags = (a->flags & GB_BCAST_ISEND) |
						   (pig ? GB_BCAST_PIGGYBACK : 0);
					bad += one_case(comm, p->name, &t0, roots[ri], a->sizes[si],
							&types[0], &oo, (uint64_t)cases, NULL, why,
							sizeof(why));
					cases++;
					gb_tree_release(&t0);
				}
		if (rank == 0) {
			printf("RESULT comm=%s planner=%s mode=%s-relabel cases=%ld bad=%ld "
			       "segmented=%ld via=tree%s%s\n", cname, p->name, mode, cases, bad,
			       seg_cases, bad ? " why=" : "", bad ? why : "");
			fflush(stdout);
		}
		*tcases += cases;
		*tbad += bad;
	}
}

int main(int argc, char **argv)
{
	struct args a = { "all", "0,last,mid", "byte,int,vector",
			  { 0, 1, 1000, 1 << 20, (8 << 20) + 3 }, 5, 0, 0, 0, -1 };
	long cases = 0, bad = 0;
	struct ty types[3];
	MPI_Datatype vec;
	int rank, n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--planners") && v) {
			a.planners = argv[++i];
		} else if (!strcmp(argv[i], "--roots") && v) {
			a.roots = argv[++i];
		} else if (!strcmp(argv[i], "--types") && v) {
			a.types = argv[++i];
		} else if (!strcmp(argv[i], "--sizes") && v) {
			char *s = argv[++i], *end;
			double b;

			for (a.nsizes = 0; *s && a.nsizes < 16; s = *end ? end + 1 : end) {
				char tok[32];
				size_t l;

				end = strchr(s, ',');
				if (!end)
					end = s + strlen(s);
				l = (size_t)(end - s);
				if (l >= sizeof(tok))
					l = sizeof(tok) - 1;
				memcpy(tok, s, l);
				tok[l] = 0;
				if (gb_parse_size(tok, &b) < 0) {
					if (!rank)
						fprintf(stderr, "bcast_matrix: bad size "
							"'%s'\n", tok);
					MPI_Abort(MPI_COMM_WORLD, 2);
				}
				a.sizes[a.nsizes++] = (long)b;
			}
		} else if (!strcmp(argv[i], "--big-from") && v) {
			double b;

			if (gb_parse_size(argv[++i], &b) < 0)
				MPI_Abort(MPI_COMM_WORLD, 2);
			a.big_from = (long)b;
		} else if (!strcmp(argv[i], "--isend")) {
			a.flags |= GB_BCAST_ISEND;
		} else if (!strcmp(argv[i], "--shared")) {
			a.flags |= GB_BCAST_SHARED;
		} else if (!strcmp(argv[i], "--split")) {
			a.split = 1;
		} else if (!strcmp(argv[i], "--relabel")) {
			a.relabel = 1;
		} else {
			if (!rank)
				fprintf(stderr, "usage: bcast_matrix [--planners all|LIST] "
					"[--roots LIST] [--sizes LIST] [--types LIST] "
					"[--big-from SIZE] [--isend] [--shared] [--split] "
					"[--relabel]\n");
			MPI_Finalize();
			return 2;
		}
	}
	bufcheck_types(types, &vec);

	run_comm(MPI_COMM_WORLD, "world", &a, types, 3, &cases, &bad);
	if (a.split) {
		MPI_Comm sub;
		long sc = 0, sb = 0, tsb = 0;
		int srank;

		MPI_Comm_split(MPI_COMM_WORLD, rank % 2, n - rank, &sub);
		MPI_Comm_rank(sub, &srank);
		run_comm(sub, rank % 2 ? "split-odd" : "split-even", &a, types, 3, &sc, &sb);
		/* rank 0 prints the even half; the odd half's counts come here */
		sb = srank == 0 ? sb : 0;
		MPI_Allreduce(&sb, &tsb, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		cases += 2 * sc;
		bad += tsb;
		MPI_Comm_free(&sub);
	}
	MPI_Type_free(&vec);
	if (!rank)
		printf("TOTAL cases=%ld bad=%ld\n", cases, bad);
	MPI_Finalize();
	return bad ? 1 : 0;
}
