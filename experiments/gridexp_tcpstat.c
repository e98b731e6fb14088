// SPDX-License-Identifier: MIT
/*
 * gridexp_tcpstat.c - one run's hosts' TCP counters (emulator/tcpstat.h):
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

/* One sample: every host's counters (hosts that could not be read: the last ones). */
static int tcp_push(struct runner *R, struct run *r)
{
	const struct gb_topo *t = R->g.topo;
	size_t per = (size_t)t->nnodes * GB_TS_N;
	double now = gb_now();
	uint64_t *v;

	if (r->ntcp == r->ctcp) {
		int c = r->ctcp ? 2 * r->ctcp : 256;
		uint64_t *p = realloc(r->tcp_v, sizeof(*p) * per * (size_t)c);
		double *q;

		if (!p)
			return -ENOMEM;
		r->tcp_v = p;
		q = realloc(r->tcp_t, sizeof(*q) * (size_t)c);
		if (!q)
			return -ENOMEM;
		r->tcp_t = q;
		r->ctcp = c;
	}
	v = r->tcp_v + per * (size_t)r->ntcp;
	for (int h = 0; h < t->nnodes; h++) {
		uint64_t *hv = v + (size_t)h * GB_TS_N;
		const uint64_t *last = r->ntcp ? hv - per : NULL;

		if (t->nodes[h].kind != GB_NODE_HOST || !gb_grid_local(&R->g, h) ||
		    gb_tcpstat_read(R->g.nsfd[h], hv) < 0) {
			if (last)
				memcpy(hv, last, sizeof(*hv) * GB_TS_N);
			else
				memset(hv, 0, sizeof(*hv) * GB_TS_N);
			continue;
		}
		if (last && !memcmp(hv, last, sizeof(*hv) * GB_TS_N))
			continue;
		fprintf(r->tcpf, "%.6f,%s", now, t->nodes[h].name);
		for (int k = 0; k < GB_TS_N; k++)
			fprintf(r->tcpf, ",%llu", (unsigned long long)hv[k]);
		fputc('\n', r->tcpf);
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
	fprintf(r->tcpf, "t_mono,host");
	for (int k = 0; k < GB_TS_N; k++)
		fprintf(r->tcpf, ",%s", gb_tcpstat_fields[k].name);
	fputc('\n', r->tcpf);
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

/* One broadcast's row: samples @a and @z (a <= z). */
static void bcast_row(struct runner *R, struct run *r, FILE *f, int i, double s, int a, int z,
		      struct host_retrans *hr)
{
	const struct gb_topo *t = R->g.topo;
	size_t per = (size_t)t->nnodes * GB_TS_N;
	const uint64_t *va = r->tcp_v + per * (size_t)a, *vz = r->tcp_v + per * (size_t)z;
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
	fprintf(f, "%d,%.6f,%.6f", i, s, r->tcp_t[z] - r->tcp_t[a]);
	for (int k = 0; k < GB_TS_N; k++)
		fprintf(f, ",%llu", (unsigned long long)sum[k]);
	fputc(',', f);
	for (int k = 0; k < nh && k < TCP_TOP_HOSTS; k++)
		fprintf(f, "%s%s:%llu:%llu", k ? " " : "", t->nodes[hr[k].host].name,
			(unsigned long long)hr[k].retrans, (unsigned long long)hr[k].timeouts);
	fputc('\n', f);
}

void tcpstat_finish(struct runner *R, struct run *r)
{
	struct gx_csv t = { 0 };
	struct host_retrans *hr = NULL;
	char path[PATH_MAX], *tmp = NULL;
	FILE *f = NULL;
	int cs, cc;

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
	hr = malloc(sizeof(*hr) * (size_t)R->g.topo->nnodes);
	if (!hr || gx_csv_read(path, &t) < 0)
		goto cleanup;
	cs = gx_csv_col(&t, "start_time");
	cc = gx_csv_col(&t, "completion_time");
	snprintf(path, sizeof(path), "%s/tcp-broadcasts.csv", r->tmp);
	if (cs < 0 || cc < 0 || !(f = gb_atomic_open(path, &tmp)))
		goto cleanup;
	fprintf(f, "index,start_time,seconds");
	for (int k = 0; k < GB_TS_N; k++)
		fprintf(f, ",%s", gb_tcpstat_fields[k].name);
	fprintf(f, ",retrans_by_host\n");
	for (int i = 0; i < t.nrows; i++) {
		double s = gx_csv_num(&t, i, cs), c = gx_csv_num(&t, i, cc), u;
		int a = 0, z = r->ntcp - 1;

		if (!isfinite(s) || !isfinite(c))
			continue;
		/* completion_time is the topology's: k times longer on the wall clock */
		u = s + c * (R->dilate >= 1 ? R->dilate : 1.0);
		for (int k = 0; k < r->ntcp; k++) {
			if (r->tcp_t[k] <= s)
				a = k;
			if (r->tcp_t[k] >= u) {
				z = k;
				break;
			}
		}
		bcast_row(R, r, f, i, s, a, z, hr);
	}
	if (gb_atomic_close(f, tmp, path, 0, 0) < 0)
		warnx("cannot write %s", path);
cleanup:
	gx_csv_release(&t);
	free(hr);
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
	free(r->tcp_v);
	r->tcp_v = NULL;
	free(r->tcp_t);
	r->tcp_t = NULL;
	r->ntcp = r->ctcp = 0;
}
