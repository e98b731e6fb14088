// SPDX-License-Identifier: MIT
/*
 * gridexp_capture.c - one run's wide-area counters (libgbcapture, in
 * gridexp itself, on the clock of the application's timestamps):
 * capture.csv, a row whenever a direction's bytes changed and at least
 * every GX_CAPTURE_HEARTBEAT seconds (results.h), and capture-links.csv,
 * each direction's totals.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture.h"
#include "gbemu.h"
#include "gbexp.h"
#include "gbutil.h"
#include "gridexp_priv.h"
#include "results.h"

/* Cumulative IP bytes of each captured direction, one row when any changed,
 * or when the last row is GX_CAPTURE_HEARTBEAT old: a quiet wide area then
 * still has rows, and a broadcast's window ends at one (gx_wan_compute()). */
void capture_sample(struct runner *R, struct run *r, int force)
{
	uint64_t now[128], tot = 0;
	int changed = force || !r->nsample;
	double t = gb_now();

	if (!r->cap || !r->capf)
		return;
	for (int k = 0; k < R->nwan; k++)
		for (int d = 0; d < 2; d++) {
			struct gb_capture_count cc = { 0 };

			gb_capture_counters(r->cap, R->wan[k], d, &cc);
			now[2 * k + d] = cc.ip_bytes;
			tot += cc.ip_bytes;
			changed |= cc.ip_bytes != r->last[2 * k + d];
		}
	changed |= t - r->last_row_t >= GX_CAPTURE_HEARTBEAT;
	if (!changed)
		return;
	r->last_row_t = t;
	fprintf(r->capf, "%.6f", t);
	for (int k = 0; k < 2 * R->nwan; k++) {
		fprintf(r->capf, ",%llu", (unsigned long long)now[k]);
		r->last[k] = now[k];
	}
	fprintf(r->capf, ",%llu\n", (unsigned long long)tot);
	r->nsample++;
}

int capture_start(struct runner *R, struct run *r)
{
	struct gb_capture_opts o = { .filter = CAPTURE_FILTER, .dir = -1 };
	struct gb_err e = { "" };
	const struct gb_topo *t = R->g.topo;

	r->capf = open_memstream(&r->capbuf, &r->caplen);
	if (!r->capf)
		return -ENOMEM;
	fprintf(r->capf, "t_mono");
	for (int k = 0; k < R->nwan; k++) {
		const struct gb_link *l = &t->links[R->wan[k]];

		fprintf(r->capf, ",%s:%s>%s,%s:%s>%s", l->name, t->nodes[l->a].name,
			t->nodes[l->b].name, l->name, t->nodes[l->b].name, t->nodes[l->a].name);
	}
	fprintf(r->capf, ",wan_ip_bytes\n");
	if (!R->nwan)
		return 0;
	if (gb_capture_start(&R->g, R->wan, R->nwan, &o, &r->cap, &e) < 0) {
		warnx("capture on the wide-area links: %s (the run goes on without it)", e.msg);
		r->cap = NULL;
		return 0;
	}
	capture_sample(R, r, 1);
	return 0;
}

void capture_finish(struct runner *R, struct run *r)
{
	struct gb_err e = { "" };
	char path[PATH_MAX], *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (r->cap) {
		gb_capture_stop(r->cap, &e);   /* drains what arrived before now */
		capture_sample(R, r, 1);
		/* per direction totals of the run */
		if ((f = open_memstream(&buf, &len))) {
			fprintf(f, "link,dir,packets,ip_bytes,frame_bytes,drops\n");
			for (int k = 0; k < R->nwan; k++)
				for (int d = 0; d < 2; d++) {
					const struct gb_link *l = &R->g.topo->links[R->wan[k]];
					struct gb_capture_count cc = { 0 };

					gb_capture_counters(r->cap, R->wan[k], d, &cc);
					fprintf(f, "%s,%s>%s,%llu,%llu,%llu,%llu\n", l->name,
						R->g.topo->nodes[d ? l->b : l->a].name,
						R->g.topo->nodes[d ? l->a : l->b].name,
						(unsigned long long)cc.packets,
						(unsigned long long)cc.ip_bytes,
						(unsigned long long)cc.frame_bytes,
						(unsigned long long)cc.drops);
				}
			if (fclose(f) == 0) {
				snprintf(path, sizeof(path), "%s/capture-links.csv", r->tmp);
				gx_write_atomic(path, buf, len);
			}
			free(buf);
		}
		gb_capture_free(r->cap);
		r->cap = NULL;
	}
	if (r->capf) {
		fclose(r->capf);
		r->capf = NULL;
		snprintf(path, sizeof(path), "%s/capture.csv", r->tmp);
		gx_write_atomic(path, r->capbuf, r->caplen);
		free(r->capbuf);
		r->capbuf = NULL;
	}
}
