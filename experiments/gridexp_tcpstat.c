// SPDX-License-Identifier: MIT
/*
 * gridexp_tcpstat.c - one run's hosts' TCP counters (emulator/grid/tcpstat.h):
 * every host built here sampled when the broadcasts may start, every
 * TCP_PERIOD of the wall clock while they run, and when the application
 * has ended.  Files:
 *   tcp.csv             a row per host whose counters changed since its
 *                       last row (cumulative values; the first sample
 *                       writes every host), on the clock of the
 *                       application's timestamps;
 *   tcp-broadcasts.csv  a row per broadcast of broadcasts.csv: each
 *                       counter's increase over all hosts between the last
 *                       sample at or before its start and the first at or
 *                       after its end, and the hosts that sent segments
 *                       again ("host:retrans_segs:timeouts", most first).
 * Why: a broadcast that takes 50 times its neighbours' time, with a
 * delay line that kept up (fidelity.csv), is most likely TCP waiting out
 * retransmission timeouts; these counters tell that from the hosts'
 * kernels without a packet capture of every link.  The window of a
 * broadcast is a sample period wider than the broadcast on each side, so
 * a short broadcast also counts what its neighbours' traffic (gridmon's
 * probes, the load's hosts, if any) did in that time.
 * Memory: a run keeps each sample's time and the changes (what tcp.csv
 * holds), not every host at every sample (about 7 KB a second on
 * teragrid); the end replays the changes to rebuild the samples that bound
 * a broadcast.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbemu.h"
#include "gbio.h"
#include "gbutil.h"
#include "gridexp_priv.h"
#include "gxfile.h"
#include "results.h"
#include "tcpstat.h"

#define TCP_PERIOD 1.0      /* s of the wall clock: one read of every host */
#define TCP_TOP_HOSTS 8     /* hosts named per broadcast */

/* One host's counters in the log: the sample they were read at. */
struct tcp_change {
	int sample, host;
	uint64_t v[GB_TS_N];
};

/* Room for one more sample time and @more log entries. */
static int tcp_room(struct run *r, int more)
{
	if (r->ntcp == r->ctcp) {
		int c = r->ctcp ? 2 * r->ctcp : 256;
		double *q = realloc(r->tcp_t, sizeof(*q) * (size_t)c);

		if (!q)
			return -ENOMEM;
		r->tcp_t = q;
		r->ctcp = c;
	}
	if (r->nlog + more > r->clog) {
		int c = r->clog ? 2 * r->clog : 256;
		struct tcp_change *p;

		while (c < r->nlog + more)
			c *= 2;
		p = realloc(r->tcp_log, sizeof(*p) * (size_t)c);
		if (!p)
			return -ENOMEM;
		r->tcp_log = p;
		r->clog = c;
	}
	return 0;
}

/*
 * One sample: every host read, and the hosts whose counters changed since
 * their last entry (every host the first time) logged and written to
 * tcp.csv.  Hosts that cannot be read keep their last counters.
 */
static int tcp_push(struct runner *R, struct run *r)
{
	const struct gb_topo *t = R->g.topo;
	double now = gb_now();

	if (!r->tcp_cur &&
	    !(r->tcp_cur = calloc((size_t)t->nnodes * GB_TS_N, sizeof(*r->tcp_cur))))
		return -ENOMEM;
	if (tcp_room(r, t->nnodes) < 0)
		return -ENOMEM;
	for (int h = 0; h < t->nnodes; h++) {
		uint64_t *cur = r->tcp_cur + (size_t)h * GB_TS_N;
		struct tcp_change *c = &r->tcp_log[r->nlog];

		if (t->nodes[h].kind != GB_NODE_HOST || !gb_grid_local(&R->g, h) ||
		    gb_tcpstat_read(R->g.nsfd[h], c->v) < 0)
			continue;
		if (r->ntcp && !memcmp(c->v, cur, sizeof(c->v)))
			continue;
		c->sample = r->ntcp;
		c->host = h;
		r->nlog++;
		memcpy(cur, c->v, sizeof(c->v));
		gb_tcpstat_csv_row(r->tcpf, now, t->nodes[h].name, c->v);
	}
	r->tcp_t[r->ntcp++] = now;
	return 0;
}

void tcpstat_start(struct runner *R, struct run *r)
{
	tcpstat_release(r);
	r->tcpf = open_memstream(&r->tcpbuf, &r->tcplen);
	if (!r->tcpf)
		return;
	gb_tcpstat_csv_header(r->tcpf);
	tcp_push(R, r);
}

void tcpstat_tick(struct runner *R, struct run *r)
{
	if (r->tcpf && r->ntcp && gb_now() - r->tcp_t[r->ntcp - 1] >= TCP_PERIOD)
		tcp_push(R, r);
}

struct host_retrans {
	int host;
	uint64_t retrans, timeouts;
};

static int by_retrans(const void *a, const void *b)
{
	const struct host_retrans *x = a, *y = b;

	if (x->retrans != y->retrans)
		return x->retrans < y->retrans ? 1 : -1;
	return x->host - y->host;
}

/* One broadcast's row: every node's counters @va at its window's start, @vz at its end. */
static void bcast_row(struct runner *R, FILE *f, int i, double s, double seconds,
		      const uint64_t *va, const uint64_t *vz, struct host_retrans *hr)
{
	const struct gb_topo *t = R->g.topo;
	uint64_t sum[GB_TS_N] = { 0 };
	int nh = 0;

	for (int h = 0; h < t->nnodes; h++) {
		const uint64_t *x = va + (size_t)h * GB_TS_N, *y = vz + (size_t)h * GB_TS_N;

		for (int k = 0; k < GB_TS_N; k++)
			sum[k] += y[k] - x[k];
		if (y[GB_TS_RETRANS_SEGS] > x[GB_TS_RETRANS_SEGS])
			hr[nh++] = (struct host_retrans){ h,
				y[GB_TS_RETRANS_SEGS] - x[GB_TS_RETRANS_SEGS],
				y[GB_TS_TIMEOUTS] - x[GB_TS_TIMEOUTS] };
	}
	qsort(hr, (size_t)nh, sizeof(*hr), by_retrans);
	fprintf(f, "%d,%.6f,%.6f", i, s, seconds);
	for (int k = 0; k < GB_TS_N; k++)
		fprintf(f, ",%llu", (unsigned long long)sum[k]);
	fputc(',', f);
	for (int k = 0; k < nh && k < TCP_TOP_HOSTS; k++)
		fprintf(f, "%s%s:%llu:%llu", k ? " " : "", t->nodes[hr[k].host].name,
			(unsigned long long)hr[k].retrans, (unsigned long long)hr[k].timeouts);
	fputc('\n', f);
}

static int by_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * Every node's counters at each of the @n sample indices @need (ascending,
 * distinct), into @snap (n rows of nnodes * GB_TS_N, zeroed): the log
 * replayed from zero.  Only the samples that bound a broadcast are rebuilt, so a
 * run keeps the changes, not every host at every second.
 */
static void replay(const struct run *r, int nnodes, const int *need, int n, uint64_t *snap)
{
	size_t per = (size_t)nnodes * GB_TS_N;
	int e = 0;

	for (int j = 0; j < n; j++) {
		uint64_t *v = snap + per * (size_t)j;

		if (j)
			memcpy(v, v - per, sizeof(*v) * per);
		for (; e < r->nlog && r->tcp_log[e].sample <= need[j]; e++)
			memcpy(v + (size_t)r->tcp_log[e].host * GB_TS_N, r->tcp_log[e].v,
			       sizeof(r->tcp_log[e].v));
	}
}

/* The last sample at or before @s (else the first), the first at or after @u (else the last). */
static void window(const struct run *r, double s, double u, int *a, int *z)
{
	gx_bracket(r->tcp_t, sizeof(*r->tcp_t), r->ntcp, s, u, a, z);
	if (*a < 0)
		*a = 0;
	if (*z < 0)
		*z = r->ntcp - 1;
}

/* tcp-broadcasts.csv from broadcasts.csv's rows @t. */
static int write_bcasts(struct runner *R, struct run *r, const struct gx_csv *t)
{
	int cs = gx_csv_col(t, "start_time"), cc = gx_csv_col(t, "completion_time");
	size_t per = (size_t)R->g.topo->nnodes * GB_TS_N;
	int *ab = NULL, *need = NULL, nneed = 0, nd = 0, rc = -ENOMEM;
	struct host_retrans *hr = NULL;
	uint64_t *snap = NULL;
	char path[PATH_MAX], *tmp = NULL;
	FILE *f = NULL;

	if (cs < 0 || cc < 0)
		return 0;	/* not a broadcasts.csv of this harness: nothing to bracket */
	ab = malloc(sizeof(*ab) * 2 * ((size_t)t->nrows + 1));
	need = malloc(sizeof(*need) * 2 * ((size_t)t->nrows + 1));
	hr = malloc(sizeof(*hr) * (size_t)R->g.topo->nnodes);
	if (!ab || !need || !hr)
		goto out;
	for (int i = 0; i < t->nrows; i++) {
		double s = gx_csv_num(t, i, cs), c = gx_csv_num(t, i, cc);

		ab[2 * i] = -1;
		if (!isfinite(s) || !isfinite(c))
			continue;
		window(r, s, gx_wall_end(s, c, R->dilate), &ab[2 * i], &ab[2 * i + 1]);
		need[nneed++] = ab[2 * i];
		need[nneed++] = ab[2 * i + 1];
	}
	qsort(need, (size_t)nneed, sizeof(*need), by_int);
	for (int j = 0; j < nneed; j++)
		if (!nd || need[j] != need[nd - 1])
			need[nd++] = need[j];
	if (!(snap = calloc(per * (size_t)(nd + 1), sizeof(*snap))))
		goto out;
	replay(r, R->g.topo->nnodes, need, nd, snap);
	snprintf(path, sizeof(path), "%s/tcp-broadcasts.csv", r->tmp);
	if (!(f = gb_atomic_open(path, &tmp))) {
		rc = -errno;
		goto out;
	}
	fprintf(f, "index,start_time,seconds");
	for (int k = 0; k < GB_TS_N; k++)
		fprintf(f, ",%s", gb_tcpstat_fields[k].name);
	fprintf(f, ",retrans_by_host\n");
	for (int i = 0; i < t->nrows; i++) {
		int a = ab[2 * i], z = ab[2 * i + 1];
		const int *ja, *jz;

		if (a < 0)
			continue;
		ja = bsearch(&a, need, (size_t)nd, sizeof(*need), by_int);
		jz = bsearch(&z, need, (size_t)nd, sizeof(*need), by_int);
		bcast_row(R, f, i, gx_csv_num(t, i, cs), r->tcp_t[z] - r->tcp_t[a],
			  snap + per * (size_t)(ja - need), snap + per * (size_t)(jz - need), hr);
	}
	rc = gb_atomic_close(f, tmp, path, 0, 0);
out:
	free(snap);
	free(hr);
	free(need);
	free(ab);
	return rc;
}

void tcpstat_finish(struct runner *R, struct run *r)
{
	struct gx_csv t = { 0 };
	char path[PATH_MAX];

	if (!r->tcpf)
		return;
	tcp_push(R, r);
	if (fclose(r->tcpf) == 0) {
		snprintf(path, sizeof(path), "%s/tcp.csv", r->tmp);
		if (gx_write_atomic(path, r->tcpbuf, r->tcplen) < 0)
			warnx("cannot write %s", path);
	}
	r->tcpf = NULL;
	snprintf(path, sizeof(path), "%s/broadcasts.csv", r->tmp);
	if (r->ntcp && gx_csv_read(path, &t) == 0 && write_bcasts(R, r, &t) < 0)
		warnx("cannot write %s/tcp-broadcasts.csv", r->tmp);
	gx_csv_release(&t);
	tcpstat_release(r);
}

void tcpstat_release(struct run *r)
{
	if (r->tcpf)
		fclose(r->tcpf);
	r->tcpf = NULL;
	free(r->tcpbuf);
	r->tcpbuf = NULL;
	r->tcplen = 0;
	free(r->tcp_cur);
	r->tcp_cur = NULL;
	free(r->tcp_log);
	r->tcp_log = NULL;
	r->nlog = r->clog = 0;
	free(r->tcp_t);
	r->tcp_t = NULL;
	r->ntcp = r->ctcp = 0;
}
