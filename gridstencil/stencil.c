/* SPDX-License-Identifier: MIT */
/*
 * gridstencil - an explicit finite-difference MPI application (the wave
 * equation in n dimensions) on the grid-aware driver of seed 004
 * (stencil/gbstdriver.h), to reproduce the paper's s8 runs: rate over
 * iterations in "standard" and "grid" mode (Figs. 4 and 5).
 *
 *	u^{t+1} = 2 u^t - u^{t-1} + C sum_d (u^t[x+e_d] + u^t[x-e_d] - 2 u^t[x])
 *
 * with C = 0.5 / ndim (stable: C <= 1 / ndim) and u = 0 on the grid's
 * boundary.  The grid functions come in groups of different
 * compressibility (s5: "periodic, wave-like functions compress much faster
 * and better than irregular, noisy functions"):
 *
 *	pulse  a compact bump (1 - (r/R)^2)^3 near the low end of the longest
 *	       dimension: exactly zero elsewhere until its front arrives, so
 *	       its halos compress to almost nothing, less as it spreads
 *	wave   standing sine waves over the whole grid: smooth, but every
 *	       double has busy mantissa bits
 *	noisy  uniform random values: deflate finds nothing
 *	periodic a standing wave along the face of the grid-aware layout's
 *	       machine boundary (the first dimension that is not the longest),
 *	       16, 32 or 64 points per wavelength, computed so that it repeats
 *	       bit for bit along that dimension and the zero boundary at its
 *	       low end is one of its nodes: its halos deflate by repetition,
 *	       until the disturbance from the high end (not a node) arrives
 *
 * --fields names two sets of nine groups: "classic" (three each of pulse,
 * wave and noisy, the default) and "spectrum" (periodic x3, pulse x2,
 * wave x2, noisy x2: the "whole spectrum" of s5, from halos that deflate to
 * a few per cent to ones that do not deflate).  --probe measures what
 * deflate makes of each group's wide-area halos during the run
 * (gb_st_probe_deflate()), compressed or not.
 * Initial values depend only on global coordinates (and --seed), so any
 * decomposition computes the same numbers: the final checksum (and --dump)
 * must be bit-identical between modes, adaptations included.
 *
 * This file is the application and runs it (main() in steps); what rank 0
 * reports after the run is stencil_results.c.  Everything grid-aware is in
 * the driver.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "gbstdriver.h"
#include "gbtopo.h"
#include "gbutil.h"
#include "gridbcast.h"
#include "stencil_priv.h"

static const char *const kind_names[K_NKINDS] = { "pulse", "wave", "noisy", "periodic" };

/* --fields: named sets of groups (docs/stencil.md, "Fields") */
static const struct {
	const char *name, *groups;
} field_sets[] = {
	{ "classic", "pulse,pulse,pulse,wave,wave,wave,noisy,noisy,noisy" },
	{ "spectrum", "periodic,periodic,periodic,pulse,pulse,wave,wave,noisy,noisy" },
};

static int rank0(void)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK");

	return !r || !strcmp(r, "0");
}

__attribute__((format(printf, 1, 2))) static int bad(const char *fmt, ...)
{
	va_list ap;

	if (rank0()) {
		va_start(ap, fmt);
		gb_vrefuse(ME, fmt, ap);
		va_end(ap);
	}
	return GB_EXIT_USAGE;
}

static int usage(FILE *f)
{
	if (!rank0())
		return f == stdout ? 0 : 2;
	fprintf(f,
"usage: gridstencil [options]    (an MPI program: gridemu mpirun -- gridstencil ...)\n"
"  The wave equation on a cartesian grid over the grid-aware driver of\n"
"  Dramlitsch et al. (stencil/gbstdriver.h); prints the rate (grid-point\n"
"  updates per second) per block of iterations on rank 0.\n"
"problem:\n"
"  --grid DIMS          grid points, e.g. 256x1024 or 64x64x256 (default 256x1024)\n"
"  --iters N            iterations (default 200)\n"
"  --groups SPEC        function groups, comma-separated KIND[:NVARS], KIND one of\n"
"                       pulse, wave, noisy, periodic (default: --fields classic)\n"
"  --fields SET         a named --groups: classic (pulse,pulse,pulse,wave,wave,wave,\n"
"                       noisy,noisy,noisy: nine groups, as in the paper's s8.2 run) or\n"
"                       spectrum (periodic x3, pulse x2, wave x2, noisy x2; s5's range\n"
"                       of compressibility, docs/stencil.md); --groups wins\n"
"  --seed N             noisy data seed (default 1)\n"
"driver:\n"
"  --mode standard|grid standard: even topology, no compression, depth 1;\n"
"                       grid (default): everything below\n"
"  --no-topo --no-balance --no-overlap --no-compress --no-ghost\n"
"                       switch one grid-mode feature off (s3.3, s4.1, s4.3, s5, s6)\n"
"  --reduce F           s4.3 work reduction on WAN-boundary slabs (default 0.2)\n"
"  --bench-time S       s4.1 benchmark length per rank (default 1)\n"
"  --monitor N          s5/s6 monitoring window, iterations (default 20)\n"
"  --reeval M           s5 re-evaluation period, iterations (default 300)\n"
"  --warmup N           iterations before the first window (default 20)\n"
"  --eps F              a change must be this much better to stay (default 0.05)\n"
"  --zlevel N           zlib level 1..9 (default 1)\n"
"  --ghost-max N        deepest wide-area ghost zone (default 8)\n"
"  --ghost N            fixed wide-area ghost depth, no s6 adaptation\n"
"  --compress MODE      adaptive (default), always or never (WAN faces only)\n"
"  --wait sleep|spin    how ranks wait for messages (default sleep; see gbstdriver.h)\n"
"output:\n"
"  --block B            iterations per rate sample (default 10)\n"
"  --probe N            every N iterations, deflate each group's wide-area halos\n"
"                       to measure their compressibility, compressed or not\n"
"                       (outside the timed blocks; 0: never; default 10)\n"
"  --out FILE.csv       one row per block: campaign, run_id, mode, iteration, time,\n"
"                       rate, depth, compressed, events; metadata in FILE.json\n"
"  --events FILE.csv    one row per adaptation decision of any rank\n"
"  --meta FILE.json     the metadata file (default: --out with .json)\n"
"  --dump FILE          the final fields, raw doubles (gbstdriver.h: gb_st_dump)\n"
"  --campaign NAME --run-id ID   labels for the files\n"
"  --quiet              no per-block lines\n"
"  -h, --help\n"
"Machines come from the rank map (gridemu mpirun) or GRIDBED_TOPOLOGY, never from\n"
"options.  Exit status: 0, 1 failure, 2 bad usage (docs/exit-status.md).\n");
	return f == stdout ? 0 : 2;
}

static int parse_groups(struct opts *o, const char *spec)
{
	char *dup = strdup(spec), *save = NULL, *tok;
	int count[K_NKINDS] = { 0 };

	if (!dup)
		return -ENOMEM;
	o->ngroups = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *end;
		struct gspec *g = &o->g[o->ngroups];
		int k;

		if (o->ngroups == MAXGROUPS)
			goto fail;
		if (colon)
			*colon = 0;
		for (k = 0; k < K_NKINDS && strcmp(tok, kind_names[k]); k++)
			;
		if (k == K_NKINDS)
			goto fail;
		g->kind = (enum kind)k;
		g->nvars = 1;
		if (colon) {
			long v = strtol(colon + 1, &end, 10);

			if (end == colon + 1 || *end || v < 1 || v > 64)
				goto fail;
			g->nvars = (int)v;
		}
		g->instance = count[k]++;
		snprintf(g->name, sizeof(g->name), "%s%d", kind_names[k], g->instance);
		o->ngroups++;
	}
	free(dup);
	return o->ngroups ? 0 : -EINVAL;
fail:
	free(dup);
	return -EINVAL;
}

static int num(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= lo) || !(v <= hi))
		return bad("%s: '%s' is not a number in [%g, %g]", opt, s, lo, hi);
	*out = v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	enum { O_GRID = 256, O_ITERS, O_GROUPS, O_SEED, O_MODE, O_NOTOPO, O_NOBAL, O_NOOVL,
	       O_NOCOMP, O_NOGHOST, O_REDUCE, O_BENCH, O_MON, O_REEVAL, O_WARM, O_EPS, O_ZL,
	       O_GMAX, O_GHOST, O_COMP, O_WAIT, O_BLOCK, O_OUT, O_EVENTS, O_META, O_DUMP,
	       O_CAMP, O_RUNID, O_QUIET, O_FIELDS, O_PROBE };
	static const struct option lo[] = {
		{ "grid", 1, 0, O_GRID }, { "iters", 1, 0, O_ITERS }, { "groups", 1, 0, O_GROUPS },
		{ "seed", 1, 0, O_SEED }, { "mode", 1, 0, O_MODE }, { "no-topo", 0, 0, O_NOTOPO },
		{ "no-balance", 0, 0, O_NOBAL }, { "no-overlap", 0, 0, O_NOOVL },
		{ "no-compress", 0, 0, O_NOCOMP }, { "no-ghost", 0, 0, O_NOGHOST },
		{ "reduce", 1, 0, O_REDUCE }, { "bench-time", 1, 0, O_BENCH },
		{ "monitor", 1, 0, O_MON }, { "reeval", 1, 0, O_REEVAL }, { "warmup", 1, 0, O_WARM },
		{ "eps", 1, 0, O_EPS }, { "zlevel", 1, 0, O_ZL }, { "ghost-max", 1, 0, O_GMAX },
		{ "ghost", 1, 0, O_GHOST }, { "compress", 1, 0, O_COMP }, { "wait", 1, 0, O_WAIT },
		{ "block", 1, 0, O_BLOCK }, { "out", 1, 0, O_OUT }, { "events", 1, 0, O_EVENTS },
		{ "meta", 1, 0, O_META }, { "dump", 1, 0, O_DUMP }, { "campaign", 1, 0, O_CAMP },
		{ "run-id", 1, 0, O_RUNID }, { "quiet", 0, 0, O_QUIET }, { "fields", 1, 0, O_FIELDS },
		{ "probe", 1, 0, O_PROBE }, { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	const char *grid = "256x1024", *groups = NULL;
	double v;
	int c;

	gb_st_opts_default(&o->st);
	o->iters = 200;
	o->block = 10;
	o->seed = 1;
	o->campaign = "stencil";
	o->fields = field_sets[0].name;
	o->groups_s = field_sets[0].groups;
	o->probe = 10;
	opterr = 0;	/* the faults below, one line each, not getopt's and the usage */
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case O_GRID: grid = optarg; break;
		case O_ITERS:
			if (num("--iters", optarg, 1, 1e9, &v))
				return 2;
			o->iters = (long)v;
			break;
		case O_GROUPS: groups = optarg; break;
		case O_FIELDS: {
			size_t i = 0;

			while (i < sizeof(field_sets) / sizeof(field_sets[0]) &&
			       strcmp(optarg, field_sets[i].name))
				i++;
			if (i == sizeof(field_sets) / sizeof(field_sets[0]))
				return bad("--fields: '%s' is not classic or spectrum", optarg);
			o->fields = field_sets[i].name;
			o->groups_s = field_sets[i].groups;
			break;
		}
		case O_PROBE:
			if (num("--probe", optarg, 0, 1e9, &v))
				return 2;
			o->probe = (int)v;
			break;
		case O_SEED:
			if (num("--seed", optarg, 0, 1e18, &v))
				return 2;
			o->seed = (uint64_t)v;
			break;
		case O_MODE:
			if (!strcmp(optarg, "standard"))
				o->st.mode = GB_ST_STANDARD;
			else if (!strcmp(optarg, "grid"))
				o->st.mode = GB_ST_GRID;
			else
				return bad("--mode: '%s' is not standard or grid", optarg);
			break;
		case O_NOTOPO: o->st.features &= ~GB_ST_F_TOPO; break;
		case O_NOBAL: o->st.features &= ~GB_ST_F_BALANCE; break;
		case O_NOOVL: o->st.features &= ~GB_ST_F_OVERLAP; break;
		case O_NOCOMP: o->st.features &= ~GB_ST_F_COMPRESS; break;
		case O_NOGHOST: o->st.features &= ~GB_ST_F_GHOST; break;
		case O_REDUCE:
			if (num("--reduce", optarg, 0, 0.99, &o->st.reduce))
				return 2;
			break;
		case O_BENCH:
			if (num("--bench-time", optarg, 0.001, 600, &o->st.bench_s))
				return 2;
			break;
		case O_MON:
			if (num("--monitor", optarg, 1, 1e6, &v))
				return 2;
			o->st.monitor = (int)v;
			break;
		case O_REEVAL:
			if (num("--reeval", optarg, 0, 1e9, &v))
				return 2;
			o->st.reeval = (int)v;
			break;
		case O_WARM:
			if (num("--warmup", optarg, 0, 1e9, &v))
				return 2;
			o->st.warmup = (int)v;
			break;
		case O_EPS:
			if (num("--eps", optarg, 0, 0.99, &o->st.eps))
				return 2;
			break;
		case O_ZL:
			if (num("--zlevel", optarg, 1, 9, &v))
				return 2;
			o->st.zlevel = (int)v;
			break;
		case O_GMAX:
			if (num("--ghost-max", optarg, 1, 1024, &v))
				return 2;
			o->st.ghost_max = (int)v;
			break;
		case O_GHOST:
			if (num("--ghost", optarg, 1, 1024, &v))
				return 2;
			o->st.ghost_fixed = (int)v;
			break;
		case O_COMP:
			if (!strcmp(optarg, "adaptive"))
				o->st.compress_fixed = -1;
			else if (!strcmp(optarg, "always"))
				o->st.compress_fixed = 1;
			else if (!strcmp(optarg, "never"))
				o->st.compress_fixed = 0;
			else
				return bad("--compress: '%s' is not adaptive, always or never", optarg);
			break;
		case O_WAIT:
			if (strcmp(optarg, "sleep") && strcmp(optarg, "spin"))
				return bad("--wait: '%s' is not sleep or spin", optarg);
			o->st.wait_spin = !strcmp(optarg, "spin");
			break;
		case O_BLOCK:
			if (num("--block", optarg, 1, 1e6, &v))
				return 2;
			o->block = (int)v;
			break;
		case O_OUT: o->out = optarg; break;
		case O_EVENTS: o->events = optarg; break;
		case O_META: o->meta = optarg; break;
		case O_DUMP: o->dump = optarg; break;
		case O_CAMP: o->campaign = optarg; break;
		case O_RUNID: o->run_id = optarg; break;
		case O_QUIET: o->quiet = 1; break;
		case 'h': return usage(stdout) ? 2 : 1;
		case ':': return bad("option '%s' needs a value", argv[optind - 1]);
		default: return bad("unknown option '%s' (see --help)", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return bad("unexpected argument '%s' (see --help)", argv[optind]);
	if ((o->st.ndim = gb_st_parse_dims(grid, o->st.grid)) < 0)
		return bad("--grid: '%s' is not a grid (e.g. 256x1024, 1 to %d sizes >= 1)", grid,
			   GB_ST_MAXDIM);
	if (groups) {
		o->groups_s = groups;
		o->fields = NULL;       /* the groups, not a named set */
	}
	if (parse_groups(o, o->groups_s) < 0)
		return bad("--groups: '%s' is not a list of pulse, wave, noisy or periodic[:NVARS] "
			   "(at most %d)", o->groups_s, MAXGROUPS);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The application: initial data and the update                        */
/* ------------------------------------------------------------------ */

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double initial(const struct opts *o, const struct gspec *g, int v, const int *x, int L)
{
	int nd = o->st.ndim;
	double val;

	switch (g->kind) {
	case K_PULSE: {
		/* centre along L at 0.1, 0.18, 0.26 ... of the grid, mid elsewhere */
		double r2 = 0, R = 0.06 * o->st.grid[L], q;

		for (int d = 0; d < nd; d++) {
			double c = d == L ? (0.1 + 0.08 * (g->instance % 6)) * o->st.grid[d]
					  : 0.5 * o->st.grid[d] + 3 * v;
			double dx = x[d] + 0.5 - c;

			r2 += dx * dx;
		}
		q = 1 - r2 / (R * R);
		return q > 0 ? q * q * q : 0;
	}
	case K_WAVE:
		val = 1;
		for (int d = 0; d < nd; d++)
			val *= sin(M_PI * (1 + g->instance + v + d) * (x[d] + 0.5) / o->st.grid[d]);
		return val;
	case K_PERIODIC: {
		/*
		 * Along D, the first dimension that is not L (the direction of
		 * the grid-aware layout's wide-area face), P = 16, 32, 64 points
		 * per wavelength (the well-resolved range of a second-order
		 * scheme), one sign per half wave: w(r), r = (x + 1) mod P, is
		 * sin(2 pi r / P) for r < P/2 and -w(P - r) above, exactly 0 at
		 * r = 0 and P/2.  So the values repeat bit for bit every P points,
		 * and the wave is odd about x = -1, where the zero boundary is: the
		 * update keeps that oddness bit for bit (IEEE rounding is
		 * symmetric), so the boundary stays a node and the low end does not
		 * disturb the repetition; the boundary at the high end, x =
		 * grid[D], is a node only if P/2 divides grid[D] + 1 (not for 256
		 * or any power of two), so it disturbs the repetition from there
		 * inwards, at most one point per iteration.  Along the other
		 * dimensions a smooth sine, as for wave.
		 */
		int D = L == 0 && nd > 1 ? 1 : 0, P = 16 << (g->instance % 3), r;
		double w;

		if (nd == 1)
			D = L;
		r = (x[D] + 1) % P;
		if (r == 0 || r == P / 2)
			w = 0;
		else if (r < P / 2)
			w = sin(2 * M_PI * r / P);
		else
			w = -sin(2 * M_PI * (P - r) / P);
		val = w;
		for (int d = 0; d < nd; d++)
			if (d != D)
				val *= sin(M_PI * (1 + v + (d != L)) * (x[d] + 0.5) / o->st.grid[d]);
		return val;
	}
	case K_NOISY: {
		uint64_t h = mix(o->seed ^ mix(((uint64_t)g->instance << 8) + (uint64_t)v));

		for (int d = 0; d < nd; d++)
			h = mix(h ^ (uint64_t)x[d]);
		return (double)(h >> 11) / 9007199254740992.0 - 0.5;
	}
	}
	return 0;
}

static void fill_initial(struct gb_st *s, const struct opts *o)
{
	const struct gb_st_geom *gm = gb_st_geometry(s);
	int nd = gm->ndim;
	long cnt = 1;

	for (int d = 0; d < nd; d++)
		cnt *= gm->n[d];
	for (int g = 0; g < o->ngroups; g++)
		for (int v = 0; v < o->g[g].nvars; v++) {
			double *u0 = gb_st_field(s, g, v, 0), *u1 = gb_st_field(s, g, v, 1);
			int x[GB_ST_MAXDIM] = { 0 }, gx[GB_ST_MAXDIM];

			for (long i = 0; i < cnt; i++) {
				long off = 0;

				for (int d = 0; d < nd; d++) {
					gx[d] = gm->off[d] + x[d];
					off += (long)x[d] * gm->stride[d];
				}
				/* at rest: both levels equal */
				u0[off] = u1[off] = initial(o, &o->g[g], v, gx, gm->L);
				for (int d = nd - 1; d >= 0; d--) {
					if (++x[d] < gm->n[d])
						break;
					x[d] = 0;
				}
			}
		}
}

/*
 * The update of one variable over [lo, hi): new values into @up (level 1,
 * which holds u^{t-1} and is read only at the point itself).  The same
 * expression in the same order for every point, whichever rank owns it.
 */
static void update(const struct gb_st_geom *gm, const double *u, double *up, const int *lo,
		   const int *hi, double C)
{
	int nd = gm->ndim, x[GB_ST_MAXDIM];
	long sl = gm->stride[nd - 1];

	memcpy(x, lo, sizeof(int) * nd);
	if (hi[nd - 1] <= lo[nd - 1])
		return;
	for (int d = 0; d < nd; d++)
		if (hi[d] <= lo[d])
			return;
	for (;;) {
		long base = 0;

		for (int d = 0; d < nd; d++)
			base += (long)x[d] * gm->stride[d];
		for (long i = base, e = base + (hi[nd - 1] - lo[nd - 1]) * sl; i < e; i += sl) {
			double c = u[i], lap = 0;

			for (int d = 0; d < nd; d++) {
				long s = gm->stride[d];

				lap += (u[i - s] + u[i + s]) - 2 * c;
			}
			up[i] = (2 * c - up[i]) + C * lap;
		}
		int d = nd - 2;
		for (; d >= 0; d--) {
			if (++x[d] < hi[d])
				break;
			x[d] = lo[d];
		}
		if (d < 0)
			return;
	}
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

static void cpu_limit_text(char *buf, size_t len)
{
	struct gb_cpu_limit l;
	struct gb_cpuctl c;
	int r = gb_cgroup_read(0, &l);

	if (r < 0)
		snprintf(buf, len, "error: %s", strerror(-r));
	else if (l.kind == GB_CPUCTL_NONE)
		snprintf(buf, len, "none: %s", (gb_cpuctl_probe(&c), c.why));
	else if (l.quota_us < 0)
		snprintf(buf, len, "%s %s unlimited", gb_cpuctl_name(l.kind), l.path);
	else
		snprintf(buf, len, "%s %s %lld/%lld us = %.4f core", gb_cpuctl_name(l.kind),
			 l.path, (long long)l.quota_us, (long long)l.period_us,
			 (double)l.quota_us / (double)(l.period_us ? l.period_us : 1));
}

static void make_run_id(struct job *J)
{
	if (J->o.run_id)
		snprintf(J->run_id, sizeof(J->run_id), "%s", J->o.run_id);
	else {
		long long stamp = (long long)time(NULL);

		MPI_Bcast(&stamp, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
		snprintf(J->run_id, sizeof(J->run_id), "%s-%lld", J->o.st.mode == GB_ST_GRID ?
			 "grid" : "standard", stamp);
	}
}

/* What each rank's processor is: its host and its CPU quota, read back;
 * gathered at rank 0. */
static void gather_processors(struct job *J)
{
	char mycpu[160], myhost[64];

	snprintf(myhost, sizeof(myhost), "%s", getenv("GRIDBED_NODE") ? getenv("GRIDBED_NODE") :
		 "");
	if (!myhost[0])
		snprintf(myhost, sizeof(myhost), "r%d", J->rank);
	cpu_limit_text(mycpu, sizeof(mycpu));
	if (J->rank == 0) {
		J->host = calloc(J->size, sizeof(*J->host));
		J->cpu = calloc(J->size, sizeof(*J->cpu));
		if (!J->host || !J->cpu)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Gather(myhost, 64, MPI_CHAR, J->host, 64, MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_Gather(mycpu, 160, MPI_CHAR, J->cpu, 160, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* The driver with the application's groups, started.  Return: 0 or -errno
 * (@err says why, or is left as it was). */
static int start_driver(struct job *J, struct gb_err *err)
{
	int rc = gb_st_create(MPI_COMM_WORLD, &J->o.st, &J->s, err);

	for (int g = 0; rc == 0 && g < J->o.ngroups; g++)
		if (gb_st_add_group(J->s, J->o.g[g].name, J->o.g[g].nvars) < 0)
			rc = -ENOMEM;
	if (rc == 0)
		rc = gb_st_start(J->s, err);
	return rc;
}

/* Rank 0: the machines, the processor topology and the slabs. */
static void print_layout(const struct job *J)
{
	const struct opts *o = &J->o;
	const struct gb_st_layout *l = gb_st_layout_of(J->s);
	char b1[64];

	printf("gridstencil: %s mode, %d ranks, grid %s, machines:", o->st.mode ==
	       GB_ST_GRID ? "grid" : "standard", J->size,
	       gb_st_fmt_dims(o->st.ndim, o->st.grid, b1, sizeof(b1)));
	for (int m = 0; m < l->nmach; m++)
		printf(" %s=%d", l->mach_name[m], l->mach_np[m]);
	printf(" (from %s)\n", l->source);
	printf("gridstencil: topology %s, longest dimension %d, slabs",
	       gb_st_fmt_dims(o->st.ndim, l->k, b1, sizeof(b1)), l->L);
	for (int i = 0; i < l->k[l->L]; i++)
		printf(" %d", l->slab[i]);
	printf(", wide-area face %.0f points\n", l->wan_face);
	for (int m = 0; m < l->nmach; m++)
		if (l->mach_speed[m] > 0)
			printf("gridstencil: machine %s speed %.4g points/s per rank\n",
			       l->mach_name[m], l->mach_speed[m]);
	fflush(stdout);
}

/* --probe after iteration @it: what deflate makes of each group's
 * wide-area halos now (gb_st_probe_deflate()), into probe number J->np. */
static void probe(struct job *J, long it)
{
	size_t at = (size_t)J->np * (size_t)J->o.ngroups;
	int rc = gb_st_probe_deflate(J->s, J->probe_raw + at, J->probe_zip + at);

	if (rc < 0) {
		fprintf(stderr, ME ": rank %d: iteration %ld: deflate probe: %s\n", J->rank, it,
			strerror(-rc));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	J->probe_it[J->np++] = it;
}

/* The measured loop: o.iters iterations, a rate per block of them.  The
 * deflate probes are taken out of rank 0's clock (the time of its own
 * probe; a boundary rank's probe, a few deflates of a few kB, delays its
 * neighbours by as much). */
static void iterate(struct job *J)
{
	const struct opts *o = &J->o;
	struct gb_st *s = J->s;
	struct block *blk = J->blk;
	double *t_it = J->t_it, C = 0.5 / o->st.ndim, t_start, t_block, paused = 0;
	long b_first = 0;
	struct gb_err err = { "" };
	int rc, nb = 0;

	MPI_Barrier(MPI_COMM_WORLD);
	t_start = MPI_Wtime();
	t_block = t_start;
	for (long it = 0; it < o->iters; it++) {
		const struct gb_st_geom *gm = gb_st_geometry(s);
		int lo[GB_ST_MAXDIM], hi[GB_ST_MAXDIM];

		t_it[it] = MPI_Wtime() - t_start - paused;
		if ((rc = gb_st_sync(s, it, &err)) < 0) {
			fprintf(stderr, ME ": rank %d: iteration %ld: %s\n", J->rank, it,
				err.msg[0] ? err.msg : strerror(-rc));
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		gb_st_region(s, lo, hi);
		for (int g = 0; g < o->ngroups; g++)
			for (int v = 0; v < o->g[g].nvars; v++)
				update(gm, gb_st_field(s, g, v, 0), gb_st_field(s, g, v, 1), lo, hi,
				       C);
		gb_st_advance(s);
		if ((it + 1) % o->block == 0 || it + 1 == o->iters) {
			double t = MPI_Wtime(), el = t - t_block;

			blk[nb].it = it;
			blk[nb].t = t - t_start - paused;
			blk[nb].rate = el > 0 ? (double)J->npts * (it + 1 - b_first) / el : 0;
			if (J->rank == 0 && !o->quiet) {
				/* the depth rank 0 sees, if it is on the boundary */
				printf("it %6ld  t %9.3f s  rate %.4g points/s", it, blk[nb].t,
				       blk[nb].rate);
				if (gb_st_depth(s) > 0)
					printf("  depth %d", gb_st_depth(s));
				printf("\n");
				fflush(stdout);
			}
			nb++;
			t_block = t;
			b_first = it + 1;
		}
		if (o->probe > 0 && (it + 1) % o->probe == 0) {
			double p0 = MPI_Wtime(), dt;

			probe(J, it);
			dt = MPI_Wtime() - p0;
			paused += dt;
			t_block += dt;
			J->t_probe += dt;
		}
	}
	t_it[o->iters] = MPI_Wtime() - t_start - paused;
	J->nb = nb;
}

/* The probes summed over the ranks at rank 0 (every rank took the same
 * number, at the same iterations); the longest probing time. */
static void gather_probes(struct job *J)
{
	int n = J->np * J->o.ngroups;
	double t = J->t_probe;

	if (n > 0) {
		/* the receive buffer counts at rank 0 only */
		MPI_Reduce(J->rank ? J->probe_raw : MPI_IN_PLACE, J->rank ? NULL : J->probe_raw, n,
			   MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
		MPI_Reduce(J->rank ? J->probe_zip : MPI_IN_PLACE, J->rank ? NULL : J->probe_zip, n,
			   MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	}
	MPI_Reduce(&t, &J->t_probe, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
}

/* --dump: every field, gathered at rank 0. */
static void dump_fields(struct job *J)
{
	const char *path = J->o.dump;
	FILE *f = J->rank == 0 ? fopen(path, "w") : NULL;

	if (J->rank == 0 && !f)
		fprintf(stderr, ME ": cannot write '%s': %s\n", path, strerror(errno));
	if (gb_st_dump(J->s, 0, f) < 0 && J->rank == 0)
		fprintf(stderr, ME ": cannot dump the fields to '%s'\n", path);
	if (f && fclose(f) != 0)
		fprintf(stderr, ME ": cannot write '%s': %s\n", path, strerror(errno));
}

int main(int argc, char **argv)
{
	static struct job job;
	struct job *J = &job;
	struct gb_err err = { "" };
	int rc;

	rc = parse_opts(argc, argv, &J->o);
	if (rc)
		return rc == 1 ? 0 : rc;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &J->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &J->size);
	make_run_id(J);
	J->npts = 1;
	for (int d = 0; d < J->o.st.ndim; d++)
		J->npts *= (uint64_t)J->o.st.grid[d];
	gather_processors(J);

	if ((rc = start_driver(J, &err)) < 0) {
		if (J->rank == 0)
			fprintf(stderr, ME ": %s\n", err.msg);
		gb_st_destroy(J->s);
		MPI_Finalize();
		return rc == -EINVAL ? 2 : 1;
	}
	J->init_depth = gb_st_depth(J->s);
	MPI_Allreduce(MPI_IN_PLACE, &J->init_depth, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (J->rank == 0 && !J->o.quiet)
		print_layout(J);
	fill_initial(J->s, &J->o);
	J->blk = malloc(sizeof(*J->blk) * (J->o.iters / J->o.block + 2));
	J->t_it = malloc(sizeof(double) * (J->o.iters + 1));
	if (J->o.probe > 0) {
		size_t n = (size_t)(J->o.iters / J->o.probe + 1);

		J->probe_it = calloc(n, sizeof(long));
		J->probe_raw = calloc(n * (size_t)J->o.ngroups, sizeof(uint64_t));
		J->probe_zip = calloc(n * (size_t)J->o.ngroups, sizeof(uint64_t));
		if (!J->probe_it || !J->probe_raw || !J->probe_zip)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (!J->blk || !J->t_it)
		MPI_Abort(MPI_COMM_WORLD, 1);
	iterate(J);
	gather_probes(J);

	/* results: outside the measured loop */
	J->sums = calloc(J->o.ngroups, sizeof(uint64_t));
	if (!J->sums || gb_st_checksum(J->s, J->sums) < 0 || gb_st_report(J->s, 0, &J->rep) < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int g = 0; g < J->o.ngroups; g++)
		J->total += J->sums[g];
	if (J->o.dump)
		dump_fields(J);
	rc = J->rank == 0 ? gs_finish(J) : 0;
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	gb_st_report_release(&J->rep);
	gb_st_destroy(J->s);
	free(J->sums);
	free(J->blk);
	free(J->t_it);
	free(J->host);
	free(J->cpu);
	free(J->probe_it);
	free(J->probe_raw);
	free(J->probe_zip);
	MPI_Finalize();
	return rc;
}
