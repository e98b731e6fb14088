/* SPDX-License-Identifier: MIT */
/*
 * fidelity.c - samples of the grid's fidelity counters and the judgement
 * of an interval (fidelity.h).
 */
#include "fidelity.h"
#include "dilate.h"
#include "grid_priv.h"
#include "shaping.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbutil.h"

/* A cpu.pressure file's "some ... total=<us>" in seconds, or -1. */
static double cpu_some(const char *path)
{
	char line[256];
	FILE *f = fopen(path ? path : "/proc/pressure/cpu", "re");
	double v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "total=");

		if (!strncmp(line, "some ", 5) && p) {
			v = strtod(p + 6, NULL) / 1e6;
			break;
		}
	}
	fclose(f);
	return v;
}

/* The machine's CPU time used so far (/proc/stat's "cpu" line: all but
 * idle and iowait) into *@busy, and the part of it the hypervisor took
 * (steal: a vCPU that wanted to run and was not run) into *@steal, in
 * seconds; both -1 when unknown. */
static void cpu_times(double *busy, double *steal)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "re");
	long hz = sysconf(_SC_CLK_TCK);
	int n;

	*busy = *steal = -1;
	if (!f)
		return;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 8 || hz <= 0)
		return;
	/* user nice system [idle iowait] irq softirq steal */
	*busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)hz;
	*steal = (double)v[7] / (double)hz;
}

/* The CPU time of process @pid (utime + stime of /proc/PID/stat), s, or -1. */
static double proc_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	size_t n;

	if (pid <= 0 || hz <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');	/* the name may hold spaces */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)hz;
}

/* The delay line's "fidelity" reply (tapd_ctl.c) into @s and, if not NULL, @hist. */
static void parse_reply(json_t *j, uint64_t from, struct gb_fid_sample *s, struct tq_hist *hist)
{
	unsigned first = tq_hist_bucket(from);
	json_t *pair;
	size_t i;

	s->delay_line = 1;
	s->t = (double)json_integer_value(json_object_get(j, "t_ns")) * 1e-9;
	s->tx = (uint64_t)json_integer_value(json_object_get(j, "tx_packets"));
	s->lost = (uint64_t)json_integer_value(json_object_get(j, "dropped_nomem")) +
		  (uint64_t)json_integer_value(json_object_get(j, "tx_errors"));
	if (hist)
		hist->max = (uint64_t)json_integer_value(json_object_get(j, "max_ns"));
	json_array_foreach(json_object_get(j, "hist"), i, pair) {
		json_int_t b = json_integer_value(json_array_get(pair, 0));
		uint64_t n = (uint64_t)json_integer_value(json_array_get(pair, 1));

		if (b < 0 || b >= TQ_HIST_BUCKETS)
			continue;
		if ((unsigned)b >= first)	/* late: from the bucket holding the threshold up */
			s->late += n;
		if (hist) {
			hist->b[b] = n;
			hist->count += n;
		}
	}
}

int gb_fid_sample(struct gb_grid *g, const char *psi, struct gb_fid_sample *s,
		  struct tq_hist *hist)
{
	/* at most TQ_HIST_BUCKETS [bucket, count] pairs: ~17 KB */
	char reply[32768];
	json_t *j;
	int r;

	memset(s, 0, sizeof(*s));
	if (hist)
		memset(hist, 0, sizeof(*hist));
	s->cpu_some_s = cpu_some(psi);
	s->machine_some_s = psi ? cpu_some(NULL) : s->cpu_some_s;
	cpu_times(&s->cpu_busy_s, &s->cpu_steal_s);
	s->delay_line_cpu_s = -1;
	s->t = gb_now();
	if (!g->shaper || !g->shaper->request)	/* no delay line (netem) */
		return 0;
	if (g->shaper->helper_pid)
		s->delay_line_cpu_s = proc_cpu(g->shaper->helper_pid(g));
	r = g->shaper->request(g, "fidelity", reply, sizeof(reply));
	j = r > 0 && reply[0] == '{' ? json_loads(reply, 0, NULL) : NULL;
	if (j)
		parse_reply(j, (uint64_t)(GB_FID_LATE_NS * gb_dilation(g)), s, hist);
	json_decref(j);
	return 0;
}

/* CPU seconds from @a to @b as a share of @secs on @ncpu CPUs; -1 when a
 * figure is unknown (< 0). */
static double cpu_share(double a, double b, double secs, long ncpu)
{
	return a >= 0 && b >= 0 && secs > 0 && ncpu > 0 ? (b - a) / (secs * (double)ncpu) : -1;
}

void gb_fid_judge(const struct gb_fid_sample *a, const struct gb_fid_sample *b,
		  const struct tq_hist *ha, const struct tq_hist *hb, int cpu,
		  struct gb_fid_verdict *v)
{
	size_t n = 0;
	long ncpu;

	memset(v, 0, sizeof(*v));
	v->seconds = b->t - a->t;
	if (a->delay_line && b->delay_line) {
		v->packets = b->tx - a->tx;
		v->late = b->late - a->late;
		v->lost = b->lost - a->lost;
	}
	v->late_share = v->packets ? (double)v->late / (double)v->packets : 0;
	v->cpu_some_share = a->cpu_some_s >= 0 && b->cpu_some_s >= 0 && v->seconds > 0
		? (b->cpu_some_s - a->cpu_some_s) / v->seconds : -1;
	v->machine_some_share = a->machine_some_s >= 0 && b->machine_some_s >= 0 && v->seconds > 0
		? (b->machine_some_s - a->machine_some_s) / v->seconds : -1;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	v->cpu_busy_share = cpu_share(a->cpu_busy_s, b->cpu_busy_s, v->seconds, ncpu);
	v->cpu_steal_share = cpu_share(a->cpu_steal_s, b->cpu_steal_s, v->seconds, ncpu);
	v->delay_line_cpu_share = cpu_share(a->delay_line_cpu_s, b->delay_line_cpu_s, v->seconds,
					    ncpu);
	if (ha && hb) {
		struct tq_hist *d = calloc(1, sizeof(*d));

		if (d) {
			for (unsigned i = 0; i < TQ_HIST_BUCKETS; i++) {
				d->b[i] = hb->b[i] >= ha->b[i] ? hb->b[i] - ha->b[i] : 0;
				d->count += d->b[i];
			}
			/* the max over the interval is known only when it grew */
			d->max = hb->max > ha->max ? hb->max : 0;
			v->p50_ns = tq_hist_quantile(d, 0.50);
			v->p99_ns = tq_hist_quantile(d, 0.99);
			v->max_ns = d->max ? d->max : tq_hist_quantile(d, 1.0);
			free(d);
		}
	}
	if (v->late_share > GB_FID_MAX_LATE_SHARE) {
		n += (size_t)snprintf(v->why + n, sizeof(v->why) - n, "%s%.1f %% of packets late",
				      n ? "; " : "", v->late_share * 100);
		if (v->cpu_steal_share > 0 && n < sizeof(v->why))
			n += (size_t)snprintf(v->why + n, sizeof(v->why) - n, " (the hypervisor "
					      "took %.2f %% of the CPUs' time)",
					      v->cpu_steal_share * 100);
	}
	if (v->lost && n < sizeof(v->why))
		n += (size_t)snprintf(v->why + n, sizeof(v->why) - n, "%s%llu packets lost by the "
				      "machine", n ? "; " : "", (unsigned long long)v->lost);
	if (cpu && v->cpu_some_share > GB_FID_MAX_CPU_SOME && n < sizeof(v->why))
		snprintf(v->why + n, sizeof(v->why) - n, "%sCPU pressure %.0f %% of the time",
			 n ? "; " : "", v->cpu_some_share * 100);
	v->strayed = v->why[0] != '\0';
}
