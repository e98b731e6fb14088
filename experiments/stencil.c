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
 *
 * Initial values depend only on global coordinates (and --seed), so any
 * decomposition computes the same numbers: the final checksum (and --dump)
 * must be bit-identical between modes, adaptations included.
 *
 * This file is the application; everything grid-aware is in the driver.
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
#include "gridbcast.h"

#define ME "gridstencil"
#define MAXGROUPS 64

enum kind { K_PULSE, K_WAVE, K_NOISY };
static const char *const kind_names[] = { "pulse", "wave", "noisy" };

struct gspec {
	enum kind kind;
	int nvars;
	int instance;           /* the how-many-th group of its kind */
	char name[32];
};

struct opts {
	struct gb_st_opts st;
	long iters;
	int block;
	int ngroups;
	struct gspec g[MAXGROUPS];
	uint64_t seed;
	const char *out, *events, *meta, *dump, *campaign, *run_id, *groups_s;
	int quiet;
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
		fprintf(stderr, ME ": ");
		vfprintf(stderr, fmt, ap);
		fprintf(stderr, "\n");
		va_end(ap);
	}
	return 2;
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
"                       pulse, wave, noisy (default pulse,pulse,pulse,wave,wave,wave,\n"
"                       noisy,noisy,noisy: nine groups, as in the paper's s8.2 run)\n"
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
"  --out FILE.csv       one row per block: campaign, run_id, mode, iteration, time,\n"
"                       rate, depth, compressed, events; metadata in FILE.json\n"
"  --events FILE.csv    one row per adaptation decision of any rank\n"
"  --meta FILE.json     the metadata file (default: --out with .json)\n"
"  --dump FILE          the final fields, raw doubles (gbstdriver.h: gb_st_dump)\n"
"  --campaign NAME --run-id ID   labels for the files\n"
"  --quiet              no per-block lines\n"
"  -h, --help\n"
"Machines come from the rank map (gridemu mpirun) or GRIDBED_TOPOLOGY, never from\n"
"options.  Exit status: 0, 1 failure, 2 bad usage.\n");
	return f == stdout ? 0 : 2;
}

static int parse_groups(struct opts *o, const char *spec)
{
	char *dup = strdup(spec), *save = NULL, *tok;
	int count[3] = { 0, 0, 0 };

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
		for (k = 0; k < 3 && strcmp(tok, kind_names[k]); k++)
			;
		if (k == 3)
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
	       O_CAMP, O_RUNID, O_QUIET };
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
		{ "run-id", 1, 0, O_RUNID }, { "quiet", 0, 0, O_QUIET }, { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	const char *grid = "256x1024";
	double v;
	int c;

	gb_st_opts_default(&o->st);
	o->iters = 200;
	o->block = 10;
	o->seed = 1;
	o->campaign = "stencil";
	o->groups_s = "pulse,pulse,pulse,wave,wave,wave,noisy,noisy,noisy";
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_GRID: grid = optarg; break;
		case O_ITERS:
			if (num("--iters", optarg, 1, 1e9, &v))
				return 2;
			o->iters = (long)v;
			break;
		case O_GROUPS: o->groups_s = optarg; break;
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
		default: return usage(stderr);
		}
	}
	if (optind != argc)
		return bad("unexpected argument '%s' (see --help)", argv[optind]);
	if ((o->st.ndim = gb_st_parse_dims(grid, o->st.grid)) < 0)
		return bad("--grid: '%s' is not a grid (e.g. 256x1024, 1 to %d sizes >= 1)", grid,
			   GB_ST_MAXDIM);
	if (parse_groups(o, o->groups_s) < 0)
		return bad("--groups: '%s' is not a list of pulse, wave or noisy[:NVARS] (at most "
			   "%d)", o->groups_s, MAXGROUPS);
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
/* Output                                                              */
/* ------------------------------------------------------------------ */

struct block {
	long it;                /* last iteration of the block */
	double t, rate;
};

static FILE *open_tmp(const char *path, char *tmp, size_t len)
{
	snprintf(tmp, len, "%s.tmp", path);
	return fopen(tmp, "w");
}

static int close_tmp(FILE *f, const char *tmp, const char *path)
{
	int bad_write = ferror(f);

	if (fclose(f) != 0 || bad_write || rename(tmp, path) < 0) {
		fprintf(stderr, ME ": cannot write '%s': %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The decisions summarised per block: "comp-try pulse0=1 x8; ghost-keep 2". */
static void block_events(const struct gb_st_report *r, const struct opts *o, long from, long to,
			 char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < r->nev; i++) {
		const struct gb_st_event *e = &r->ev[i];
		int n = 1, dup = 0;

		if (e->it < from || e->it > to)
			continue;
		for (int j = 0; j < i && !dup; j++)
			dup = r->ev[j].it >= from && r->ev[j].it <= to && r->ev[j].kind == e->kind &&
			      r->ev[j].group == e->group && r->ev[j].value == e->value;
		if (dup)
			continue;
		for (int j = i + 1; j < r->nev; j++)
			n += r->ev[j].it >= from && r->ev[j].it <= to && r->ev[j].kind == e->kind &&
			     r->ev[j].group == e->group && r->ev[j].value == e->value;
		if (off >= len)
			break;
		if (e->group >= 0)
			off += snprintf(buf + off, len - off, "%s%s %s=%d x%d", off ? "; " : "",
					gb_st_ev_name(e->kind), o->g[e->group].name, e->value, n);
		else
			off += snprintf(buf + off, len - off, "%s%s %d", off ? "; " : "",
					gb_st_ev_name(e->kind), e->value);
	}
}

/* State replay from the events: depth and mean compressed groups per
 * boundary rank at the end of iteration @to. */
static void state_at(const struct gb_st_report *r, const struct opts *o, int nranks, long to,
		     int init_depth, int *depth, double *comp)
{
	int nwan = 0;
	long on = 0;

	*depth = init_depth;
	for (int q = 0; q < nranks; q++) {
		unsigned char st[MAXGROUPS];

		if (r->final_depth[q] == 0)
			continue;
		nwan++;
		for (int g = 0; g < o->ngroups; g++)
			st[g] = o->st.compress_fixed == 1;
		for (int i = 0; i < r->nev; i++) {
			const struct gb_st_event *e = &r->ev[i];

			if (e->rank != q || e->it > to)
				continue;
			if (e->group >= 0)
				st[e->group] = (unsigned char)e->value;
			else
				*depth = e->value;
		}
		for (int g = 0; g < o->ngroups; g++)
			on += st[g];
	}
	*comp = nwan ? (double)on / nwan : 0;
}

static int write_csv(const char *path, const struct opts *o, const char *run_id,
		     const struct block *b, int nb, const struct gb_st_report *r, int nranks,
		     int init_depth)
{
	char tmp[4096], ev[2048];
	FILE *f = open_tmp(path, tmp, sizeof(tmp));
	long from = 0;

	if (!f) {
		fprintf(stderr, ME ": cannot write '%s': %s\n", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "campaign,run_id,mode,iteration,time,rate,depth,compressed,events\n");
	for (int i = 0; i < nb; i++) {
		int depth;
		double comp;

		state_at(r, o, nranks, b[i].it, init_depth, &depth, &comp);
		block_events(r, o, from, b[i].it, ev, sizeof(ev));
		fprintf(f, "%s,%s,%s,%ld,%.6f,%.6g,%d,%.3f,%s\n", o->campaign, run_id,
			o->st.mode == GB_ST_GRID ? "grid" : "standard", b[i].it, b[i].t, b[i].rate,
			depth, comp, ev);
		from = b[i].it + 1;
	}
	return close_tmp(f, tmp, path);
}

static int write_events(const char *path, const struct opts *o, const char *run_id,
			const struct gb_st_report *r, const double *t_it, long niter,
			char (*host)[64])
{
	char tmp[4096];
	FILE *f = open_tmp(path, tmp, sizeof(tmp));

	if (!f) {
		fprintf(stderr, ME ": cannot write '%s': %s\n", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "campaign,run_id,mode,iteration,time,rank,host,event,group,value,before,"
		"after\n");
	for (int i = 0; i < r->nev; i++) {
		const struct gb_st_event *e = &r->ev[i];

		fprintf(f, "%s,%s,%s,%ld,%.6f,%d,%s,%s,%s,%d,%.6g,%.6g\n", o->campaign, run_id,
			o->st.mode == GB_ST_GRID ? "grid" : "standard", e->it,
			e->it < niter ? t_it[e->it] : t_it[niter], e->rank, host[e->rank],
			gb_st_ev_name(e->kind), e->group >= 0 ? o->g[e->group].name : "",
			e->value, e->before, e->after);
	}
	return close_tmp(f, tmp, path);
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

int main(int argc, char **argv)
{
	struct opts o;
	struct gb_st *s = NULL;
	struct gb_st_report rep;
	struct block *blk = NULL;
	double *t_it = NULL, t_start, C;
	uint64_t *sums = NULL, total = 0, npts = 1;
	char run_id[64], (*host)[64] = NULL, (*cpu)[160] = NULL, mycpu[160], myhost[64];
	int rank, size, rc, nb = 0, init_depth;

	memset(&o, 0, sizeof(o));
	memset(&rep, 0, sizeof(rep));
	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (o.run_id)
		snprintf(run_id, sizeof(run_id), "%s", o.run_id);
	else {
		long long stamp = (long long)time(NULL);

		MPI_Bcast(&stamp, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
		snprintf(run_id, sizeof(run_id), "%s-%lld", o.st.mode == GB_ST_GRID ? "grid" :
			 "standard", stamp);
	}
	for (int d = 0; d < o.st.ndim; d++)
		npts *= (uint64_t)o.st.grid[d];
	C = 0.5 / o.st.ndim;

	/* what each rank's processor is: its host and its CPU quota, read back */
	snprintf(myhost, sizeof(myhost), "%s", getenv("GRIDBED_NODE") ? getenv("GRIDBED_NODE") :
		 "");
	if (!myhost[0])
		snprintf(myhost, sizeof(myhost), "r%d", rank);
	cpu_limit_text(mycpu, sizeof(mycpu));
	if (rank == 0) {
		host = calloc(size, sizeof(*host));
		cpu = calloc(size, sizeof(*cpu));
		if (!host || !cpu)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Gather(myhost, 64, MPI_CHAR, host, 64, MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_Gather(mycpu, 160, MPI_CHAR, cpu, 160, MPI_CHAR, 0, MPI_COMM_WORLD);

	rc = gb_st_create(MPI_COMM_WORLD, &o.st, &s);
	for (int g = 0; rc == 0 && g < o.ngroups; g++)
		if (gb_st_add_group(s, o.g[g].name, o.g[g].nvars) < 0)
			rc = -ENOMEM;
	if (rc == 0)
		rc = gb_st_start(s);
	if (rc < 0) {
		if (rank == 0)
			fprintf(stderr, ME ": %s\n", gb_st_strerror(s));
		gb_st_destroy(s);
		MPI_Finalize();
		return rc == -EINVAL ? 2 : 1;
	}
	{
		const struct gb_st_layout *l = gb_st_layout_of(s);
		char b1[64];

		init_depth = gb_st_depth(s);
		MPI_Allreduce(MPI_IN_PLACE, &init_depth, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		if (rank == 0 && !o.quiet) {
			printf("gridstencil: %s mode, %d ranks, grid %s, machines:", o.st.mode ==
			       GB_ST_GRID ? "grid" : "standard", size,
			       gb_st_fmt_dims(o.st.ndim, o.st.grid, b1, sizeof(b1)));
			for (int m = 0; m < l->nmach; m++)
				printf(" %s=%d", l->mach_name[m], l->mach_np[m]);
			printf(" (from %s)\n", l->source);
			printf("gridstencil: topology %s, longest dimension %d, slabs",
			       gb_st_fmt_dims(o.st.ndim, l->k, b1, sizeof(b1)), l->L);
			for (int i = 0; i < l->k[l->L]; i++)
				printf(" %d", l->slab[i]);
			printf(", wide-area face %.0f points\n", l->wan_face);
			for (int m = 0; m < l->nmach; m++)
				if (l->mach_speed[m] > 0)
					printf("gridstencil: machine %s speed %.4g points/s per rank\n",
					       l->mach_name[m], l->mach_speed[m]);
			fflush(stdout);
		}
	}
	fill_initial(s, &o);
	blk = malloc(sizeof(*blk) * (o.iters / o.block + 2));
	t_it = malloc(sizeof(double) * (o.iters + 1));
	if (!blk || !t_it)
		MPI_Abort(MPI_COMM_WORLD, 1);

	MPI_Barrier(MPI_COMM_WORLD);
	t_start = MPI_Wtime();
	{
		double t_block = t_start;
		long b_first = 0;

		for (long it = 0; it < o.iters; it++) {
			const struct gb_st_geom *gm = gb_st_geometry(s);
			int lo[GB_ST_MAXDIM], hi[GB_ST_MAXDIM];

			t_it[it] = MPI_Wtime() - t_start;
			if ((rc = gb_st_sync(s, it)) < 0) {
				fprintf(stderr, ME ": rank %d: iteration %ld: %s\n", rank, it,
					gb_st_strerror(s)[0] ? gb_st_strerror(s) : strerror(-rc));
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			gb_st_region(s, lo, hi);
			for (int g = 0; g < o.ngroups; g++)
				for (int v = 0; v < o.g[g].nvars; v++)
					update(gm, gb_st_field(s, g, v, 0), gb_st_field(s, g, v, 1), lo,
					       hi, C);
			gb_st_advance(s);
			if ((it + 1) % o.block == 0 || it + 1 == o.iters) {
				double t = MPI_Wtime(), el = t - t_block;

				blk[nb].it = it;
				blk[nb].t = t - t_start;
				blk[nb].rate = el > 0 ? (double)npts * (it + 1 - b_first) / el : 0;
				if (rank == 0 && !o.quiet) {
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
		}
		t_it[o.iters] = MPI_Wtime() - t_start;
	}

	/* results: outside the measured loop */
	sums = calloc(o.ngroups, sizeof(uint64_t));
	if (!sums || gb_st_checksum(s, sums) < 0 || gb_st_report(s, 0, &rep) < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int g = 0; g < o.ngroups; g++)
		total += sums[g];
	if (o.dump) {
		FILE *f = rank == 0 ? fopen(o.dump, "w") : NULL;

		if (rank == 0 && !f)
			fprintf(stderr, ME ": cannot write '%s': %s\n", o.dump, strerror(errno));
		if (gb_st_dump(s, 0, f) < 0 && rank == 0)
			fprintf(stderr, ME ": cannot dump the fields to '%s'\n", o.dump);
		if (f && fclose(f) != 0)
			fprintf(stderr, ME ": cannot write '%s': %s\n", o.dump, strerror(errno));
	}
	rc = 0;
	if (rank == 0) {
		const struct gb_st_layout *l = gb_st_layout_of(s);
		double wall = t_it[o.iters], half = 0, comp_mean = 0;
		long ihalf = o.iters / 2;
		int depth_final = 0, ncomp = 0, nwan = 0, *wanc = calloc(o.ngroups, sizeof(int));
		uint64_t raw = 0, wire = 0, msgs = 0, zmsgs = 0;
		json_t *j = json_object(), *ja;
		struct utsname u;
		char b1[64], mp[4096];

		if (!wanc || !j)
			MPI_Abort(MPI_COMM_WORLD, 1);
		half = t_it[o.iters] - t_it[ihalf];
		for (int q = 0; q < size; q++) {
			if (rep.final_depth[q] == 0)
				continue;
			nwan++;
			depth_final = rep.final_depth[q];
			for (int g = 0; g < o.ngroups; g++)
				wanc[g] += rep.final_comp[q * o.ngroups + g] > 0;
		}
		for (int g = 0; g < o.ngroups; g++) {
			ncomp += nwan && 2 * wanc[g] >= nwan && wanc[g] > 0;
			comp_mean += wanc[g];
		}
		comp_mean = nwan ? comp_mean / nwan : 0;
		for (int q = 0; q < size; q++) {
			raw += rep.stats[q].wan_raw;
			wire += rep.stats[q].wan_wire;
			msgs += rep.stats[q].wan_msgs;
			zmsgs += rep.stats[q].wan_compressed;
		}
		printf("gridstencil: %ld iterations in %.3f s: mean rate %.4g points/s (second half "
		       "%.4g)\n", o.iters, wall, (double)npts * o.iters / wall,
		       half > 0 ? (double)npts * (o.iters - ihalf) / half : 0);
		printf("gridstencil: final wide-area ghost depth %d; groups compressed by most "
		       "boundary ranks: %d of %d (", depth_final, ncomp, o.ngroups);
		for (int g = 0; g < o.ngroups; g++)
			printf("%s%s %d/%d", g ? ", " : "", o.g[g].name, wanc[g], nwan);
		printf(")\n");
		printf("gridstencil: wide-area halo bytes %" PRIu64 " raw, %" PRIu64 " sent (%.1f %%), "
		       "%" PRIu64 " of %" PRIu64 " messages compressed\n", raw, wire,
		       raw ? 100.0 * wire / raw : 100.0, zmsgs, msgs);
		printf("gridstencil: checksum %016" PRIx64 "\n", total);

		/* metadata (ARCHITECTURE.md decision 7) */
		uname(&u);
		json_object_set_new(j, "format", json_string("gridbed-run"));
		json_object_set_new(j, "tool", json_string("gridstencil"));
		json_object_set_new(j, "campaign", json_string(o.campaign));
		json_object_set_new(j, "run_id", json_string(run_id));
		json_object_set_new(j, "git_revision", json_string(GRIDBED_GIT_REV));
		json_object_set_new(j, "kernel", json_string(u.release));
		json_object_set_new(j, "topology", json_string(l->topology));
		json_object_set_new(j, "machines_from", json_string(l->source));
		json_object_set_new(j, "prefix", getenv("GRIDBED_PREFIX") ?
				    json_string(getenv("GRIDBED_PREFIX")) : json_null());
		json_object_set_new(j, "tcp", gb_rankmap_tcp_json());  /* the hosts' stack */
		json_object_set_new(j, "mode", json_string(o.st.mode == GB_ST_GRID ? "grid" :
							   "standard"));
		ja = json_object();
		json_object_set_new(ja, "topo", json_boolean(o.st.features & GB_ST_F_TOPO));
		json_object_set_new(ja, "balance", json_boolean(o.st.features & GB_ST_F_BALANCE));
		json_object_set_new(ja, "overlap", json_boolean(o.st.features & GB_ST_F_OVERLAP));
		json_object_set_new(ja, "compress", json_boolean(o.st.features & GB_ST_F_COMPRESS));
		json_object_set_new(ja, "ghost", json_boolean(o.st.features & GB_ST_F_GHOST));
		json_object_set_new(j, "features", o.st.mode == GB_ST_GRID ? ja :
				    (json_decref(ja), json_null()));
		json_object_set_new(j, "parameters",
				    json_pack("{s:f, s:f, s:i, s:i, s:i, s:f, s:i, s:i, s:i, s:s, "
					      "s:s, s:I, s:i}",
					      "reduce", o.st.reduce, "bench_s", o.st.bench_s,
					      "monitor", o.st.monitor, "reeval", o.st.reeval,
					      "warmup", o.st.warmup, "eps", o.st.eps, "zlevel",
					      o.st.zlevel, "ghost_max", o.st.ghost_max, "ghost_fixed",
					      o.st.ghost_fixed, "compress", o.st.compress_fixed < 0 ?
					      "adaptive" : o.st.compress_fixed ? "always" : "never",
					      "wait", o.st.wait_spin ? "spin" : "sleep", "seed",
					      (json_int_t)o.seed, "block", o.block));
		json_object_set_new(j, "grid", json_string(gb_st_fmt_dims(o.st.ndim, o.st.grid, b1,
									    sizeof(b1))));
		json_object_set_new(j, "groups", json_string(o.groups_s));
		json_object_set_new(j, "iterations", json_integer(o.iters));
		json_object_set_new(j, "ranks", json_integer(size));
		ja = json_array();
		for (int m = 0; m < l->nmach; m++)
			json_array_append_new(ja, json_pack("{s:s, s:i, s:f, s:i}", "name",
							    l->mach_name[m], "ranks", l->mach_np[m],
							    "speed", l->mach_speed[m], "positions",
							    l->kl[m]));
		json_object_set_new(j, "machines", ja);
		json_object_set_new(j, "processor_topology",
				    json_string(gb_st_fmt_dims(o.st.ndim, l->k, b1, sizeof(b1))));
		json_object_set_new(j, "longest_dimension", json_integer(l->L));
		ja = json_array();
		for (int i = 0; i < l->k[l->L]; i++)
			json_array_append_new(ja, json_integer(l->slab[i]));
		json_object_set_new(j, "slabs", ja);
		json_object_set_new(j, "ghost_cap", json_integer(l->ghost_cap));
		json_object_set_new(j, "wan_face_points", json_real(l->wan_face));
		json_object_set_new(j, "boundary_ranks", json_integer(l->nwan));
		ja = json_array();
		for (int q = 0; q < size; q++)
			json_array_append_new(ja, json_pack("{s:i, s:s, s:s, s:i, s:f, s:f, s:f, "
							    "s:I, s:I, s:I}",
							    "rank", q, "host", host[q], "cpu_quota",
							    cpu[q], "machine", l->rank_mach[q],
							    "t_comm", rep.stats[q].t_comm, "t_codec",
							    rep.stats[q].t_codec, "t_bench",
							    rep.stats[q].t_bench, "wan_raw",
							    (json_int_t)rep.stats[q].wan_raw, "wan_wire",
							    (json_int_t)rep.stats[q].wan_wire,
							    "final_depth", (json_int_t)rep.final_depth[q]));
		json_object_set_new(j, "rank_info", ja);
		json_object_set_new(j, "results",
				    json_pack("{s:f, s:f, s:f, s:i, s:i, s:f, s:I, s:I, s:s, s:i}",
					      "wall_s", wall, "mean_rate", (double)npts * o.iters / wall,
					      "second_half_rate", half > 0 ?
					      (double)npts * (o.iters - ihalf) / half : 0.0,
					      "final_depth", depth_final, "groups_compressed", ncomp,
					      "mean_groups_compressed", comp_mean, "wan_raw_bytes",
					      (json_int_t)raw, "wan_wire_bytes", (json_int_t)wire,
					      "checksum", (snprintf(mp, sizeof(mp), "%016" PRIx64, total),
							   mp), "events", rep.nev));
		ja = json_array();
		for (int g = 0; g < o.ngroups; g++) {
			char hx[32];

			snprintf(hx, sizeof(hx), "%016" PRIx64, sums[g]);
			json_array_append_new(ja, json_pack("{s:s, s:i, s:s, s:i}", "name",
							    o.g[g].name, "vars", o.g[g].nvars,
							    "checksum", hx, "compressed_by", wanc[g]));
		}
		json_object_set_new(j, "group_results", ja);
		/* heterogeneous CPUs asked for but not in force: say so */
		{
			const struct gb_topo *t = gb_bcast_topology();

			for (int q = 0; t && q < size; q++) {
				int h = gb_topo_find_node(t, host[q]);
				int cl = h >= 0 ? t->nodes[h].cluster : -1;

				if (cl >= 0 && t->clusters[cl].cpu > 0 && !strstr(cpu[q], "core")) {
					printf("gridstencil: warning: rank %d on '%s' should have %g "
					       "core but its CPU quota is: %s\n", q, host[q],
					       t->clusters[cl].cpu, cpu[q]);
					json_object_set_new(j, "cpu_quota_warning", json_string(cpu[q]));
					break;
				}
			}
		}
		if (o.out) {
			size_t n = strlen(o.out);

			if (write_csv(o.out, &o, run_id, blk, nb, &rep, size, init_depth) < 0)
				rc = 1;
			if (!o.meta)
				snprintf(mp, sizeof(mp), "%.*s.json",
					 (int)(n > 4 && !strcmp(o.out + n - 4, ".csv") ? n - 4 : n),
					 o.out);
		}
		if (o.meta)
			snprintf(mp, sizeof(mp), "%s", o.meta);
		if (o.events && write_events(o.events, &o, run_id, &rep, t_it, o.iters, host) < 0)
			rc = 1;
		if (o.out || o.meta) {
			char tmp[4200];

			snprintf(tmp, sizeof(tmp), "%s.tmp", mp);
			if (json_dump_file(j, tmp, JSON_INDENT(1)) < 0 || rename(tmp, mp) < 0) {
				fprintf(stderr, ME ": cannot write '%s'\n", mp);
				unlink(tmp);
				rc = 1;
			}
		}
		json_decref(j);
		free(wanc);
	}
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	gb_st_report_release(&rep);
	gb_st_destroy(s);
	free(sums);
	free(blk);
	free(t_it);
	free(host);
	free(cpu);
	MPI_Finalize();
	return rc;
}
