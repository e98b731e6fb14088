/* SPDX-License-Identifier: MIT */
/*
 * fidelity.c - samples of the grid's fidelity counters and the judgement
 * of an interval (fidelity.h).
 */
#include "fidelity.h"
#include "dilate.h"
#include "grid_priv.h"
#include "shaping.h"
#include "tapd.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbutil.h"

/* /proc/pressure/cpu's "some ... total=<us>" in seconds, or -1. */
static double cpu_some(void)
{
	char line[256];
	FILE *f = fopen("/proc/pressure/cpu", "re");
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

int gb_fid_sample(struct gb_grid *g, struct gb_fid_sample *s, struct tq_hist *out)
{
	char ctl[PATH_MAX];
	char *reply;
	json_t *j, *h, *pair;
	struct tq_hist *hist = out ? out : malloc(sizeof(*hist));
	uint64_t from = (uint64_t)(GB_FID_LATE_NS * gb_dilation(g));
	size_t i;
	int r = 0;

	memset(s, 0, sizeof(*s));
	if (!hist)
		return -ENOMEM;
	memset(hist, 0, sizeof(*hist));
	s->cpu_some_s = cpu_some();
	s->t = gb_now();
	if (!g->shaper || !g->shaper->pass)	/* no delay line (netem) */
		goto out;
	if (!(reply = malloc(65536))) {
		r = -ENOMEM;
		goto out;
	}
	gb_grid_rpath(g, "tapd.sock", ctl, sizeof(ctl));
	r = gb_tapd_request(ctl, "fidelity", reply, 65536);
	j = r > 0 && reply[0] == '{' ? json_loads(reply, 0, NULL) : NULL;
	free(reply);
	r = 0;
	if (!j)
		goto out;
	s->delay_line = 1;
	s->t = (double)json_integer_value(json_object_get(j, "t_ns")) * 1e-9;
	s->tx = (uint64_t)json_integer_value(json_object_get(j, "tx_packets"));
	s->lost = (uint64_t)json_integer_value(json_object_get(j, "dropped_nomem")) +
		  (uint64_t)json_integer_value(json_object_get(j, "tx_errors"));
	hist->max = (uint64_t)json_integer_value(json_object_get(j, "max_ns"));
	h = json_object_get(j, "hist");
	json_array_foreach(h, i, pair) {
		json_int_t b = json_integer_value(json_array_get(pair, 0));

		if (b >= 0 && b < TQ_HIST_BUCKETS) {
			hist->b[b] = (uint64_t)json_integer_value(json_array_get(pair, 1));
			hist->count += hist->b[b];
		}
	}
	json_decref(j);
	/* late: the buckets from the one holding GB_FID_LATE_NS x k up */
	for (unsigned b = tq_hist_bucket(from); b < TQ_HIST_BUCKETS; b++)
		s->late += hist->b[b];
out:
	if (hist != out)
		free(hist);
	return r < 0 ? r : 0;
}

void gb_fid_judge(const struct gb_fid_sample *a, const struct gb_fid_sample *b,
		  const struct tq_hist *ha, const struct tq_hist *hb, int cpu,
		  struct gb_fid_verdict *v)
{
	size_t n = 0;

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
	if (v->late_share > GB_FID_MAX_LATE_SHARE)
		n += (size_t)snprintf(v->why + n, sizeof(v->why) - n, "%s%.1f %% of packets late",
				      n ? "; " : "", v->late_share * 100);
	if (v->lost && n < sizeof(v->why))
		n += (size_t)snprintf(v->why + n, sizeof(v->why) - n, "%s%llu packets lost by the "
				      "machine", n ? "; " : "", (unsigned long long)v->lost);
	if (cpu && v->cpu_some_share > GB_FID_MAX_CPU_SOME && n < sizeof(v->why))
		snprintf(v->why + n, sizeof(v->why) - n, "%sCPU pressure %.0f %% of the time",
			 n ? "; " : "", v->cpu_some_share * 100);
	v->strayed = v->why[0] != '\0';
}
