/* SPDX-License-Identifier: MIT */
/*
 * stencil_results.c - what gridstencil reports at rank 0 after a run: the
 * figures on stdout, the rate per block (--out CSV, with the decisions
 * replayed from the events), the events (--events) and the run's metadata
 * (JSON).  stencil.c is the application and runs it.
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

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

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
/* Rank 0 after the run                                                */
/* ------------------------------------------------------------------ */

/* Rank 0's figures of the whole run. */
struct totals {
	double wall, half, comp_mean;
	long ihalf;
	int depth_final, ncomp, nwan;
	int *wanc;                      /* per group: boundary ranks compressing it */
	uint64_t raw, wire, msgs, zmsgs;
};

/* Rank 0: the run's figures from the report; T->wanc is allocated. */
static void totals_of(const struct job *J, struct totals *T)
{
	const struct opts *o = &J->o;
	const struct gb_st_report *rep = &J->rep;
	const double *t_it = J->t_it;

	T->wall = t_it[o->iters];
	T->ihalf = o->iters / 2;
	T->half = t_it[o->iters] - t_it[T->ihalf];
	for (int q = 0; q < J->size; q++) {
		if (rep->final_depth[q] == 0)
			continue;
		T->nwan++;
		T->depth_final = rep->final_depth[q];
		for (int g = 0; g < o->ngroups; g++)
			T->wanc[g] += rep->final_comp[q * o->ngroups + g] > 0;
	}
	for (int g = 0; g < o->ngroups; g++) {
		T->ncomp += T->nwan && 2 * T->wanc[g] >= T->nwan && T->wanc[g] > 0;
		T->comp_mean += T->wanc[g];
	}
	T->comp_mean = T->nwan ? T->comp_mean / T->nwan : 0;
	for (int q = 0; q < J->size; q++) {
		T->raw += rep->stats[q].wan_raw;
		T->wire += rep->stats[q].wan_wire;
		T->msgs += rep->stats[q].wan_msgs;
		T->zmsgs += rep->stats[q].wan_compressed;
	}
}

/* Group @g's deflate probes: raw and deflated bytes summed over probes
 * [from, to). */
static void probe_sum(const struct job *J, int g, int from, int to, uint64_t *raw, uint64_t *zip)
{
	*raw = *zip = 0;
	for (int p = from; p < to; p++) {
		*raw += J->probe_raw[(size_t)p * J->o.ngroups + g];
		*zip += J->probe_zip[(size_t)p * J->o.ngroups + g];
	}
}

/* Deflated over raw of group @g in probes [from, to), or -1 without bytes. */
static double probe_ratio(const struct job *J, int g, int from, int to)
{
	uint64_t raw, zip;

	probe_sum(J, g, from, to, &raw, &zip);
	return raw ? (double)zip / (double)raw : -1;
}

static void print_totals(const struct job *J, const struct totals *T)
{
	const struct opts *o = &J->o;
	uint64_t npts = J->npts;

	printf("gridstencil: %ld iterations in %.3f s: mean rate %.4g points/s (second half "
	       "%.4g)\n", o->iters, T->wall, (double)npts * o->iters / T->wall,
	       T->half > 0 ? (double)npts * (o->iters - T->ihalf) / T->half : 0);
	printf("gridstencil: final wide-area ghost depth %d; groups compressed by most "
	       "boundary ranks: %d of %d (", T->depth_final, T->ncomp, o->ngroups);
	for (int g = 0; g < o->ngroups; g++)
		printf("%s%s %d/%d", g ? ", " : "", o->g[g].name, T->wanc[g], T->nwan);
	printf(")\n");
	printf("gridstencil: wide-area halo bytes %" PRIu64 " raw, %" PRIu64 " sent (%.1f %%), "
	       "%" PRIu64 " of %" PRIu64 " messages compressed\n", T->raw, T->wire,
	       T->raw ? 100.0 * T->wire / T->raw : 100.0, T->zmsgs, T->msgs);
	if (J->np > 0 && probe_ratio(J, 0, 0, J->np) >= 0) {
		printf("gridstencil: deflated wide-area halos (%d probes; whole run, first, last): ",
		       J->np);
		for (int g = 0; g < o->ngroups; g++)
			printf("%s%s %.1f/%.1f/%.1f %%", g ? ", " : "", o->g[g].name,
			       100 * probe_ratio(J, g, 0, J->np), 100 * probe_ratio(J, g, 0, 1),
			       100 * probe_ratio(J, g, J->np - 1, J->np));
		printf("\n");
	}
	printf("gridstencil: checksum %016" PRIx64 "\n", J->total);
}

/* The run's metadata (docs/architecture.md, decision 7) into @j: the run, the
 * options, the layout; then meta_ranks() and meta_results() add theirs. */
static void meta_run(const struct job *J, json_t *j)
{
	const struct opts *o = &J->o;
	const struct gb_st_layout *l = gb_st_layout_of(J->s);
	struct utsname u;
	char b1[64];
	json_t *ja;

	uname(&u);
	json_object_set_new(j, "format", json_string("gridbed-run"));
	json_object_set_new(j, "tool", json_string("gridstencil"));
	json_object_set_new(j, "campaign", json_string(o->campaign));
	json_object_set_new(j, "run_id", json_string(J->run_id));
	json_object_set_new(j, "git_revision", json_string(gb_git_revision()));
	json_object_set_new(j, "kernel", json_string(u.release));
	json_object_set_new(j, "topology", json_string(l->topology));
	json_object_set_new(j, "machines_from", json_string(l->source));
	json_object_set_new(j, "prefix", getenv("GRIDBED_PREFIX") ?
			    json_string(getenv("GRIDBED_PREFIX")) : json_null());
	json_object_set_new(j, "tcp", gb_rankmap_tcp_json());  /* the hosts' stack */
	json_object_set_new(j, "mode", json_string(o->st.mode == GB_ST_GRID ? "grid" :
						   "standard"));
	ja = json_object();
	json_object_set_new(ja, "topo", json_boolean(o->st.features & GB_ST_F_TOPO));
	json_object_set_new(ja, "balance", json_boolean(o->st.features & GB_ST_F_BALANCE));
	json_object_set_new(ja, "overlap", json_boolean(o->st.features & GB_ST_F_OVERLAP));
	json_object_set_new(ja, "compress", json_boolean(o->st.features & GB_ST_F_COMPRESS));
	json_object_set_new(ja, "ghost", json_boolean(o->st.features & GB_ST_F_GHOST));
	json_object_set_new(j, "features", o->st.mode == GB_ST_GRID ? ja :
			    (json_decref(ja), json_null()));
	json_object_set_new(j, "parameters",
			    json_pack("{s:f, s:f, s:i, s:i, s:i, s:f, s:i, s:i, s:i, s:s, "
				      "s:s, s:I, s:i}",
				      "reduce", o->st.reduce, "bench_s", o->st.bench_s,
				      "monitor", o->st.monitor, "reeval", o->st.reeval,
				      "warmup", o->st.warmup, "eps", o->st.eps, "zlevel",
				      o->st.zlevel, "ghost_max", o->st.ghost_max, "ghost_fixed",
				      o->st.ghost_fixed, "compress", o->st.compress_fixed < 0 ?
				      "adaptive" : o->st.compress_fixed ? "always" : "never",
				      "wait", o->st.wait_spin ? "spin" : "sleep", "seed",
				      (json_int_t)o->seed, "block", o->block));
	json_object_set_new(json_object_get(j, "parameters"), "probe", json_integer(o->probe));
	json_object_set_new(j, "grid", json_string(gb_st_fmt_dims(o->st.ndim, o->st.grid, b1,
								    sizeof(b1))));
	json_object_set_new(j, "groups", json_string(o->groups_s));
	json_object_set_new(j, "fields", o->fields ? json_string(o->fields) : json_null());
	json_object_set_new(j, "iterations", json_integer(o->iters));
	json_object_set_new(j, "ranks", json_integer(J->size));
	ja = json_array();
	for (int m = 0; m < l->nmach; m++)
		json_array_append_new(ja, json_pack("{s:s, s:i, s:f, s:i}", "name",
						    l->mach_name[m], "ranks", l->mach_np[m],
						    "speed", l->mach_speed[m], "positions",
						    l->kl[m]));
	json_object_set_new(j, "machines", ja);
	json_object_set_new(j, "processor_topology",
			    json_string(gb_st_fmt_dims(o->st.ndim, l->k, b1, sizeof(b1))));
	json_object_set_new(j, "longest_dimension", json_integer(l->L));
	ja = json_array();
	for (int i = 0; i < l->k[l->L]; i++)
		json_array_append_new(ja, json_integer(l->slab[i]));
	json_object_set_new(j, "slabs", ja);
	json_object_set_new(j, "ghost_cap", json_integer(l->ghost_cap));
	json_object_set_new(j, "wan_face_points", json_real(l->wan_face));
	json_object_set_new(j, "boundary_ranks", json_integer(l->nwan));
}

/* Every rank's host, CPU quota, machine and statistics. */
static void meta_ranks(const struct job *J, json_t *j)
{
	const struct gb_st_layout *l = gb_st_layout_of(J->s);
	const struct gb_st_report *rep = &J->rep;
	json_t *ja = json_array();

	for (int q = 0; q < J->size; q++)
		json_array_append_new(ja, json_pack("{s:i, s:s, s:s, s:i, s:f, s:f, s:f, "
						    "s:I, s:I, s:I}",
						    "rank", q, "host", J->host[q], "cpu_quota",
						    J->cpu[q], "machine", l->rank_mach[q],
						    "t_comm", rep->stats[q].t_comm, "t_codec",
						    rep->stats[q].t_codec, "t_bench",
						    rep->stats[q].t_bench, "wan_raw",
						    (json_int_t)rep->stats[q].wan_raw, "wan_wire",
						    (json_int_t)rep->stats[q].wan_wire,
						    "final_depth", (json_int_t)rep->final_depth[q]));
	json_object_set_new(j, "rank_info", ja);
}

/* Group @g's deflate probes: bytes and ratios (deflated / raw) over the
 * whole run, in the first and the last probe, the smallest and the
 * largest; null without probes or wide-area faces. */
static json_t *meta_deflate(const struct job *J, int g)
{
	uint64_t raw, zip;
	double lo = 2, hi = -1;

	probe_sum(J, g, 0, J->np, &raw, &zip);
	if (!raw)
		return json_null();
	for (int p = 0; p < J->np; p++) {
		double r = probe_ratio(J, g, p, p + 1);

		if (r >= 0 && r < lo)
			lo = r;
		if (r > hi)
			hi = r;
	}
	return json_pack("{s:i, s:I, s:I, s:f, s:f, s:f, s:f, s:f}", "probes", J->np, "raw_bytes",
			 (json_int_t)raw, "deflated_bytes", (json_int_t)zip, "ratio",
			 (double)zip / (double)raw, "first", probe_ratio(J, g, 0, 1), "last",
			 probe_ratio(J, g, J->np - 1, J->np), "min", lo, "max", hi);
}

/* "deflate_probe": how often, how long the probes took, and every group's
 * ratio per probe (summed over the boundary ranks). */
static void meta_probes(const struct job *J, json_t *j)
{
	json_t *jp, *it = json_array(), *gr = json_object();

	if (J->np == 0) {
		json_object_set_new(j, "deflate_probe", json_null());
		json_decref(it);
		json_decref(gr);
		return;
	}
	for (int p = 0; p < J->np; p++)
		json_array_append_new(it, json_integer(J->probe_it[p]));
	for (int g = 0; g < J->o.ngroups; g++) {
		json_t *a = json_array();

		for (int p = 0; p < J->np; p++) {
			double r = probe_ratio(J, g, p, p + 1);

			json_array_append_new(a, r >= 0 ? json_real(r) : json_null());
		}
		json_object_set_new(gr, J->o.g[g].name, a);
	}
	jp = json_pack("{s:i, s:i, s:f, s:s, s:o, s:o}", "every", J->o.probe, "zlevel",
		       J->o.st.zlevel, "max_rank_s", J->t_probe, "what",
		       "deflated / raw bytes of each group's wide-area halo messages at the "
		       "current depth, summed over the ranks, after the probe's iteration",
		       "iterations", it, "ratios", gr);
	json_object_set_new(j, "deflate_probe", jp);
}

/* The run's results, overall and per group. */
static void meta_results(const struct job *J, const struct totals *T, json_t *j)
{
	const struct opts *o = &J->o;
	uint64_t npts = J->npts;
	char hx[32];
	json_t *ja;

	snprintf(hx, sizeof(hx), "%016" PRIx64, J->total);
	json_object_set_new(j, "results",
			    json_pack("{s:f, s:f, s:f, s:i, s:i, s:f, s:I, s:I, s:s, s:i}",
				      "wall_s", T->wall, "mean_rate",
				      (double)npts * o->iters / T->wall, "second_half_rate",
				      T->half > 0 ? (double)npts * (o->iters - T->ihalf) / T->half :
				      0.0, "final_depth", T->depth_final, "groups_compressed",
				      T->ncomp, "mean_groups_compressed", T->comp_mean,
				      "wan_raw_bytes", (json_int_t)T->raw, "wan_wire_bytes",
				      (json_int_t)T->wire, "checksum", hx, "events", J->rep.nev));
	ja = json_array();
	for (int g = 0; g < o->ngroups; g++) {
		json_t *jg;

		snprintf(hx, sizeof(hx), "%016" PRIx64, J->sums[g]);
		jg = json_pack("{s:s, s:i, s:s, s:i}", "name", o->g[g].name, "vars",
			       o->g[g].nvars, "checksum", hx, "compressed_by", T->wanc[g]);
		json_object_set_new(jg, "deflate", meta_deflate(J, g));
		json_array_append_new(ja, jg);
	}
	json_object_set_new(j, "group_results", ja);
	meta_probes(J, j);
}

/* Heterogeneous CPUs asked for but not in force: say so (the first rank). */
static void warn_cpu_quota(const struct job *J, json_t *j)
{
	const struct gb_topo *t = gb_bcast_topology();

	for (int q = 0; t && q < J->size; q++) {
		int h = gb_topo_find_node(t, J->host[q]);
		int cl = h >= 0 ? t->nodes[h].cluster : -1;

		if (cl >= 0 && t->clusters[cl].cpu > 0 && !strstr(J->cpu[q], "core")) {
			printf("gridstencil: warning: rank %d on '%s' should have %g "
			       "core but its CPU quota is: %s\n", q, J->host[q],
			       t->clusters[cl].cpu, J->cpu[q]);
			json_object_set_new(j, "cpu_quota_warning", json_string(J->cpu[q]));
			break;
		}
	}
}

/* --out, --events and the metadata file.  Return: 0, or 1 if any failed. */
static int write_files(const struct job *J, json_t *j)
{
	const struct opts *o = &J->o;
	char mp[4096];
	int rc = 0;

	if (o->out) {
		size_t n = strlen(o->out);

		if (write_csv(o->out, o, J->run_id, J->blk, J->nb, &J->rep, J->size,
			      J->init_depth) < 0)
			rc = 1;
		if (!o->meta)
			snprintf(mp, sizeof(mp), "%.*s.json",
				 (int)(n > 4 && !strcmp(o->out + n - 4, ".csv") ? n - 4 : n),
				 o->out);
	}
	if (o->meta)
		snprintf(mp, sizeof(mp), "%s", o->meta);
	if (o->events && write_events(o->events, o, J->run_id, &J->rep, J->t_it, o->iters,
				      J->host) < 0)
		rc = 1;
	if (o->out || o->meta) {
		char tmp[4200];

		snprintf(tmp, sizeof(tmp), "%s.tmp", mp);
		if (json_dump_file(j, tmp, JSON_INDENT(1)) < 0 || rename(tmp, mp) < 0) {
			fprintf(stderr, ME ": cannot write '%s'\n", mp);
			unlink(tmp);
			rc = 1;
		}
	}
	return rc;
}

/* Rank 0 after the run: the figures printed, the files written.
 * Return: 0, or 1 if a file could not be written. */
int gs_finish(const struct job *J)
{
	struct totals T = { 0 };
	json_t *j = json_object();
	int rc;

	T.wanc = calloc(J->o.ngroups, sizeof(int));
	if (!T.wanc || !j)
		MPI_Abort(MPI_COMM_WORLD, 1);
	totals_of(J, &T);
	print_totals(J, &T);
	meta_run(J, j);
	meta_ranks(J, j);
	meta_results(J, &T, j);
	warn_cpu_quota(J, j);
	rc = write_files(J, j);
	json_decref(j);
	free(T.wanc);
	return rc;
}
