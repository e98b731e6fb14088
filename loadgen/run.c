// SPDX-License-Identifier: MIT
/*
 * run.c - apply a schedule in real time, in traffic or shape mode, and log
 * each interval's planned and achieved rate.
 *
 *   t0 = now
 *   loop until every interval is done (or *stop):
 *       start intervals whose start time has come
 *           traffic: one flow per (src, dst) of the interval, rate f x its capacity
 *                    (the loaded direction's rate, or the path's bottleneck)
 *           shape:   lower each directed link, see below
 *       end intervals whose end time has come
 *           traffic: the flows stop by themselves; the interval is done when
 *                    both processes of every flow have reported and exited
 *           shape:   put the links back (or to what overlapping intervals need)
 *       log finished intervals (CSV, atomic rewrite); report progress
 *       sleep until the next event, at most 0.1 s (flows are polled)
 *
 * Time dilation (docs/architecture.md, decision 9): on a grid dilated k times
 * (emulator/grid/dilate.h), the loop runs on wall-clock times = scaled times x k
 * (wall()), and a flow's rate is divided by k once, where its sender's spec
 * is filled (traffic_start()); what it measured on the wire is multiplied
 * by k back (traffic_collect()).  Everything else here (rows, progress
 * rates, the log) is in virtual, topology units.  Shape mode needs no
 * conversion of rates: the emulator's link change takes topology units and
 * dilates them itself.
 *
 * Overlapping shape intervals on one directed link compose additively, as
 * the traffic they stand for would: rate = orig x max(1 - sum of active
 * fractions, GB_LOAD_SHAPE_FLOOR).  The floor exists because a rate of 0
 * means "unlimited" to the emulator.
 */
#include "load_priv.h"
#include "dilate.h"
#include "gbutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { IV_PENDING, IV_RUNNING, IV_DONE };

/* A UDP flow that sent less than this share of its planned rate is "short"
 * (issue 44: the algorithms must meet "the same load dynamics", seed 000
 * s3, so a load more than 5 % light marks its run). */
#define SHORT_OF 0.95

/* One CSV row: a flow or a shaped direction of an interval. */
struct row {
	int iv;
	int dl;                 /* shape: the direction; traffic: the one sized for, or -1 */
	int src, dst;           /* traffic: the flow; shape: -1 */
	int port;
	uint64_t cap;           /* capacity the fraction is of */
	double planned, achieved, sent;
	uint64_t tx_pkts, rx_pkts;
	char status[96];
	struct gb_load_flow flow;
	int running;            /* traffic: the flow has processes left */
};

struct dlstate {
	int dl;
	uint64_t orig;          /* the rate before gridload changed it */
	double sumf;            /* sum of the fractions of active intervals */
	int nactive;
	int touched;            /* it was changed and is listed in the state file */
};

struct run {
	struct gb_grid *g;
	const struct gb_load_sched *s;
	const struct gb_load_run_opts *o;
	double t0;              /* CLOCK_MONOTONIC at the start */
	double k;               /* the grid's time dilation, >= 1 */
	int *state;             /* per interval */
	struct row *rows;
	int nrows, crows;
	int *first_row, *nrow;  /* per interval */
	struct dlstate *dls;
	int ndls;
	int failed;
	struct gb_err first_err;
};

/* Wall-clock seconds from the start of paper time @paper: scaled x k (decision 9). */
static double wall(const struct run *R, double paper)
{
	return gb_load_wall(R->s, R->k, paper);
}

static __attribute__((format(printf, 2, 3))) void row_status(struct row *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->status, sizeof(r->status), fmt, ap);
	va_end(ap);
	for (char *p = r->status; *p; p++)
		if (*p == ',' || *p == '\n' || *p == '"')
			*p = ';'; /* keep the CSV one field */
}

static void fail_row(struct run *R, struct row *r, const char *msg)
{
	row_status(r, "error: %s", msg);
	if (!R->failed++)
		gb_err_set(&R->first_err, "%s", msg);
}

static struct row *add_row(struct run *R)
{
	if (R->nrows == R->crows) {
		int nc = R->crows ? 2 * R->crows : 32;
		struct row *nr = realloc(R->rows, (size_t)nc * sizeof(*nr));

		if (!nr)
			return NULL;
		R->rows = nr;
		R->crows = nc;
	}
	struct row *r = &R->rows[R->nrows++];

	memset(r, 0, sizeof(*r));
	r->dl = r->src = r->dst = -1;
	r->flow.tx = r->flow.rx = -1;
	r->flow.fd = -1;
	return r;
}

/* ---- the log ------------------------------------------------------------- */

/* The public view of row @r (strings point into @dir or the topology). */
static void row_view(const struct run *R, const struct row *r, struct gb_load_row *v,
		     char *dir, size_t dlen)
{
	const struct gb_topo *t = R->g->topo;
	const struct gb_load_iv *iv = &R->s->iv[r->iv];

	dir[0] = 0;
	if (r->dl >= 0)
		snprintf(dir, dlen, "%s>%s", t->nodes[gb_topo_dir_from(t, r->dl)].name,
			 t->nodes[gb_topo_dir_to(t, r->dl)].name);
	memset(v, 0, sizeof(*v));
	v->interval = r->iv + 1;
	v->mode = R->o->mode;
	v->start = gb_load_scaled(R->s, iv->start);
	v->end = gb_load_scaled(R->s, iv->start + iv->duration);
	v->dilate = R->k;
	v->fraction = iv->fraction;
	v->link = r->dl >= 0 ? t->links[r->dl / 2].name : "";
	v->dir = dir;
	v->src = r->src >= 0 ? t->nodes[r->src].name : "";
	v->dst = r->dst >= 0 ? t->nodes[r->dst].name : "";
	v->port = r->port;
	v->capacity_bps = r->cap;
	v->planned_bps = r->planned;
	v->achieved_bps = r->achieved;
	v->sent_bps = r->sent;
	v->tx_packets = r->tx_pkts;
	v->rx_packets = r->rx_pkts;
	v->status = r->status;
}

static void report_rows(struct run *R, int i)
{
	struct gb_load_row v;
	char dir[80];

	if (!R->o->row)
		return;
	for (int k = 0; k < R->nrows; k++) {
		if (R->rows[k].iv != i)
			continue;
		row_view(R, &R->rows[k], &v, dir, sizeof(dir));
		R->o->row(R->o->arg, &v);
	}
}

static int write_log(struct run *R)
{
	char tmp[4096];
	FILE *f;
	int err = 0;

	if (!R->o->log_path)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", R->o->log_path);
	if (!(f = fopen(tmp, "we")))
		return -errno;
	fprintf(f, "interval,mode,start_s,end_s,fraction,link,dir,src,dst,port,capacity_bps,"
		"planned_bps,achieved_bps,sent_bps,tx_packets,rx_packets,status,dilate\n");
	for (int i = 0; i < R->nrows; i++) {
		struct gb_load_row v;
		char dir[80];

		if (R->state[R->rows[i].iv] != IV_DONE)
			continue;
		row_view(R, &R->rows[i], &v, dir, sizeof(dir));
		fprintf(f, "%d,%s,%.6f,%.6f,%.6f,%s,%s,%s,%s,%d,%llu,%.0f,%.0f,%.0f,%llu,%llu,%s,%g\n",
			v.interval, gb_load_mode_name(v.mode), v.start, v.end, v.fraction, v.link,
			v.dir, v.src, v.dst, v.port, (unsigned long long)v.capacity_bps,
			v.planned_bps, v.achieved_bps, v.sent_bps,
			(unsigned long long)v.tx_packets, (unsigned long long)v.rx_packets,
			v.status, v.dilate);
	}
	if (fflush(f) != 0 || fsync(fileno(f)) < 0)
		err = -errno;
	if (fclose(f) != 0 && !err)
		err = -errno;
	if (!err && rename(tmp, R->o->log_path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* ---- shape mode ---------------------------------------------------------- */

static struct dlstate *dlstate_of(struct run *R, int dl)
{
	for (int i = 0; i < R->ndls; i++)
		if (R->dls[i].dl == dl)
			return &R->dls[i];
	return NULL;
}

/* Program @d's rate from its active intervals; @readback may be NULL. */
static int shape_update(struct run *R, struct dlstate *d, uint64_t *readback, struct gb_err *e)
{
	const char *name = R->g->topo->links[d->dl / 2].name;
	double f = fmax(1.0 - d->sumf, GB_LOAD_SHAPE_FLOOR);
	uint64_t before = 0;
	int err;

	if (!d->nactive) {
		if (!d->touched)
			return 0;
		err = gbl_shape_apply(R->g->prefix, name, d->dl % 2, d->orig, 0, 0, NULL,
				      readback, e);
		if (err < 0)
			return err;
		d->touched = 0;
		return gbl_state_forget(R->g->rundir, name, d->dl % 2, R->k);
	}
	if (d->touched)
		return gbl_shape_apply(R->g->prefix, name, d->dl % 2,
				       (uint64_t)llround(f * (double)d->orig), 0, 0, NULL, readback,
				       e);
	/* First change: the live rate is the original; it is recorded first. */
	err = gbl_shape_apply(R->g->prefix, name, d->dl % 2, 0, f, 1, &before, readback, e);
	if (err < 0)
		return err;
	d->orig = before;
	d->touched = 1;
	return 0;
}

static void shape_start(struct run *R, int i)
{
	const struct gb_load_iv *iv = &R->s->iv[i];

	for (int k = 0; k < iv->ndl; k++) {
		struct row *r = add_row(R);
		struct dlstate *d = dlstate_of(R, iv->dl[k]);
		struct gb_err e = { "" };
		uint64_t rb = 0;

		if (!r)
			return;
		r->iv = i;
		r->dl = iv->dl[k];
		d->sumf += iv->fraction;
		d->nactive++;
		if (shape_update(R, d, &rb, &e) < 0) {
			fail_row(R, r, e.msg);
			continue;
		}
		r->cap = d->orig;
		r->planned = fmax(1.0 - iv->fraction, GB_LOAD_SHAPE_FLOOR) * (double)d->orig;
		r->achieved = (double)rb;
		row_status(r, "%s", "ok");
	}
}

static void shape_end(struct run *R, int i)
{
	const struct gb_load_iv *iv = &R->s->iv[i];

	for (int k = 0; k < iv->ndl; k++) {
		struct dlstate *d = dlstate_of(R, iv->dl[k]);
		struct gb_err e = { "" };

		d->sumf -= iv->fraction;
		if (--d->nactive == 0)
			d->sumf = 0;
		if (shape_update(R, d, NULL, &e) < 0 && !R->failed++)
			R->first_err = e;
	}
}

/* ---- traffic mode -------------------------------------------------------- */

/* The first port of the block not used by a running flow to host @dst. */
static int free_port(struct run *R, int dst)
{
	int base = R->s->port ? R->s->port : GB_LOAD_PORT;

	for (int p = base; p < base + GB_LOAD_PORTS; p++) {
		int used = 0;

		for (int i = 0; i < R->nrows && !used; i++)
			used = R->rows[i].running && R->rows[i].dst == dst && R->rows[i].port == p;
		if (!used)
			return p;
	}
	return -1;
}

static void traffic_start(struct run *R, int i)
{
	const struct gb_topo *t = R->g->topo;
	const struct gb_load_iv *iv = &R->s->iv[i];
	double end = R->t0 + wall(R, iv->start + iv->duration);

	for (int k = 0; k < iv->nflows; k++) {
		struct row *r = add_row(R);
		struct gb_err e = { "" };
		uint64_t fw = 0, bw = 0, rt = 0;

		if (!r)
			return;
		r->iv = i;
		r->src = iv->fsrc[k];
		r->dst = iv->fdst[k];
		r->dl = iv->fdl[k]; /* the link it loads, if it was placed for one */
		r->cap = gb_load_capacity(t, iv, k);
		r->planned = iv->fraction * (double)r->cap;
		r->port = free_port(R, r->dst);
		gb_topo_path_metrics(t, r->src, r->dst, &fw, &rt);
		gb_topo_path_metrics(t, r->dst, r->src, &bw, &rt);
		/*
		 * docs/architecture.md, decision 9: the planned rate is in topology
		 * units; the wire of a grid dilated k times carries it / k (its
		 * shapers run at rate / k), and so does the sender: this is the
		 * one place the rate is converted.  Path delays are x k on the
		 * wire, and so is the time in-flight packets still need.
		 */
		struct gb_load_flow_spec sp = {
			.src = r->src, .dst = r->dst, .rate_bps = r->planned / R->k,
			.proto = R->s->proto, .size = R->s->size, .port = r->port, .end = end,
			/* in-flight and queued packets still arrive after the end */
			.grace = 0.25 + 2.0 * R->k * (double)(fw + bw) / 1e9,
		};
		if (r->port < 0) {
			fail_row(R, r, "no free port for another flow to this node");
			continue;
		}
		if (gb_load_flow_start(R->g, &sp, &r->flow, &e) < 0) {
			fail_row(R, r, e.msg);
			continue;
		}
		r->running = 1;
	}
}

/* The flow's counters (wire bytes, wall seconds) as topology rates: x k (decision 9). */
static void traffic_collect(struct row *r, double k)
{
	const struct gb_load_flow_result *res = &r->flow.res;
	double dt = res->tx_t1 - res->tx_t0;

	r->tx_pkts = res->tx_pkts;
	r->rx_pkts = res->rx_pkts;
	r->sent = dt > 0 ? k * (double)res->tx_bytes * 8.0 / dt : 0;
	r->achieved = dt > 0 ? k * (double)res->rx_bytes * 8.0 / dt : 0;
	if (r->status[0])
		return;
	if (!res->tx_done || !res->rx_done)
		row_status(r, "%s", "error: a flow process died without reporting");
	else if (res->tx_err)
		row_status(r, "error: sender: %s", strerror(res->tx_err));
	else if (res->rx_err)
		row_status(r, "error: receiver: %s", strerror(res->rx_err));
	else if (r->flow.spec.proto == GB_LOAD_UDP && r->sent < SHORT_OF * r->planned)
		/* not an error: the load ran, but lighter than asked (on a busy
		 * box the sender lacks CPU); a reader must not take it as planned */
		row_status(r, "short: sent %.1f of %.1f Mbit/s", r->sent / 1e6, r->planned / 1e6);
	else
		row_status(r, "%s", "ok");
}

/* 1 when every flow of interval @i has finished. */
static int traffic_poll(struct run *R, int i)
{
	int left = 0;

	for (int k = 0; k < R->nrows; k++) {
		struct row *r = &R->rows[k];

		if (r->iv != i || !r->running)
			continue;
		if (gb_load_flow_poll(&r->flow)) {
			r->running = 0;
			traffic_collect(r, R->k);
			if (!strncmp(r->status, "error", 5) && !R->failed++)
				gb_err_set(&R->first_err, "interval %d %s>%s: %s", i + 1,
					   R->g->topo->nodes[r->src].name,
					   R->g->topo->nodes[r->dst].name, r->status);
		} else {
			left++;
		}
	}
	return left == 0;
}

/* ---- the loop ------------------------------------------------------------ */

static void sleep_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - floor(t)) * 1e9) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void progress(struct run *R, double now)
{
	struct gb_load_progress p = { .n = R->s->n, .dilate = R->k };
	const struct gb_load_sched *s = R->s;

	if (!R->o->progress)
		return;
	p.elapsed = now - R->t0;
	for (int i = 0; i < s->n; i++) {
		double end = wall(R, s->iv[i].start + s->iv[i].duration);

		p.total = fmax(p.total, end);
		if (R->state[i] == IV_DONE)
			p.done++;
		else if (R->state[i] == IV_RUNNING) {
			p.active++;
			for (int k = 0; k < R->nrows; k++)
				if (R->rows[k].iv == i)
					p.load_bps += R->rows[k].planned;
		}
	}
	p.vt_elapsed = p.elapsed / R->k;
	p.vt_total = p.total / R->k;
	R->o->progress(R->o->arg, &p);
}

/* Stop everything still running: kill flows, put links back. */
static void abort_all(struct run *R)
{
	for (int k = 0; k < R->nrows; k++) {
		struct row *r = &R->rows[k];

		if (r->running) {
			gb_load_flow_stop(&r->flow);
			r->running = 0;
			traffic_collect(r, R->k);
			row_status(r, "%s", "stopped");
		}
	}
	for (int i = 0; i < R->s->n; i++) {
		if (R->state[i] != IV_RUNNING)
			continue;
		if (R->o->mode == GB_LOAD_SHAPE) {
			shape_end(R, i);
			for (int k = 0; k < R->nrows; k++)
				if (R->rows[k].iv == i && !strcmp(R->rows[k].status, "ok"))
					row_status(&R->rows[k], "%s", "stopped");
		}
		R->state[i] = IV_DONE;
		report_rows(R, i);
	}
}

int gb_load_run(struct gb_grid *g, const struct gb_load_sched *s,
		const struct gb_load_run_opts *o, struct gb_err *e)
{
	struct run R = { .g = g, .s = s, .o = o, .k = gb_dilation(g) };
	int err = 0, lockfd = -1, shape = o->mode == GB_LOAD_SHAPE;
	double last_progress = 0;

	R.state = calloc((size_t)s->n + 1, sizeof(int));
	R.dls = calloc(2 * (size_t)s->n + 1, sizeof(*R.dls));
	if (!R.state || !R.dls) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (int i = 0; i < s->n; i++) {
		if (s->iv[i].nflows < 1 || s->iv[i].ndl < 1) {
			gb_err_set(e, "load %d is not resolved", i + 1);
			err = -EINVAL;
			goto cleanup;
		}
		for (int k = 0; k < s->iv[i].ndl; k++)
			if (!dlstate_of(&R, s->iv[i].dl[k]))
				R.dls[R.ndls++].dl = s->iv[i].dl[k];
	}
	if (shape) {
		if ((lockfd = gbl_dirlock(g->rundir, e)) < 0) {
			err = lockfd;
			goto cleanup;
		}
		if ((err = gbl_restore_locked(g->prefix, g->rundir, NULL, e)) < 0)
			goto cleanup;
	}

	R.t0 = gb_now();
	for (;;) {
		double now = gb_now(), next = now + 0.1;
		int pending = 0, changed = 0;

		if (o->stop && *o->stop) {
			abort_all(&R);
			write_log(&R);
			gb_err_set(e, "stopped");
			err = -EINTR;
			goto cleanup;
		}
		for (int i = 0; i < s->n; i++) {
			const struct gb_load_iv *iv = &s->iv[i];
			double ts = R.t0 + wall(&R, iv->start);
			double te = R.t0 + wall(&R, iv->start + iv->duration);

			if (R.state[i] == IV_PENDING && ts <= now) {
				R.state[i] = IV_RUNNING;
				changed = 1;
				if (shape)
					shape_start(&R, i);
				else
					traffic_start(&R, i);
			}
			if (R.state[i] == IV_RUNNING) {
				if (shape && te <= now) {
					shape_end(&R, i);
					R.state[i] = IV_DONE;
					report_rows(&R, i);
					changed = 1;
				} else if (!shape && traffic_poll(&R, i) && te <= now) {
					R.state[i] = IV_DONE;
					report_rows(&R, i);
					changed = 1;
				}
			}
			if (R.state[i] == IV_PENDING)
				next = fmin(next, ts);
			else if (R.state[i] == IV_RUNNING && shape)
				next = fmin(next, te);
			pending += R.state[i] != IV_DONE;
		}
		if (changed) {
			int werr = write_log(&R);

			if (werr < 0 && !R.failed++)
				gb_err_set(&R.first_err, "cannot write the log '%s': %s",
					   o->log_path, strerror(-werr));
		}
		if (changed || now - last_progress >= 0.5) {
			progress(&R, now);
			last_progress = now;
		}
		if (!pending)
			break;
		sleep_until(fmax(next, now + 0.001));
	}
	if (R.failed) {
		*e = R.first_err;
		err = -EIO;
	}
cleanup:
	if (err < 0 && R.state)
		abort_all(&R);
	if (lockfd >= 0)
		close(lockfd);
	for (int k = 0; k < R.nrows; k++)
		gb_load_flow_stop(&R.rows[k].flow);
	free(R.rows);
	free(R.state);
	free(R.dls);
	return err;
}
