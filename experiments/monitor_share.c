// SPDX-License-Identifier: MIT
/*
 * monitor_share.c - how much of the wide-area links gridmon's own probes
 * took during a run (gbexp.h, gx_monitor_share()).
 *
 * Seed 000 s2.5 refreshes its matrices "every 5 minutes"; issue 44 found a
 * monitor that probed back to back loading the backbone 78 % of the time,
 * so that an "unloaded" broadcast was not unloaded.  The figure is taken
 * from what the monitor says it sent (its probe log), not from a capture,
 * so that it separates the monitor's bytes from the application's and the
 * load's on the same links; routing is the topology's (gb_topo_path()).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbexp.h"
#include "results.h"

/* A direction between two routers or hubs: neither end is a host or a
 * cluster switch. */
static int wide_area(const struct gb_topo *t, int dl)
{
	const struct gb_link *l = &t->links[dl / 2];
	int ka = t->nodes[l->a].kind, kb = t->nodes[l->b].kind;

	return ka != GB_NODE_HOST && ka != GB_NODE_SWITCH && kb != GB_NODE_HOST &&
	       kb != GB_NODE_SWITCH;
}

int gx_monitor_share(const struct gb_topo *t, const char *probes, double t0, double t1,
		     double dilate, const char *csv, struct gx_mon_share *s)
{
	struct gx_csv p = { 0 };
	int ndl = 2 * t->nlinks, ret, *path = NULL;
	double *bytes = NULL, k = dilate > 1 ? dilate : 1, span = t1 - t0;
	FILE *f = NULL;

	memset(s, 0, sizeof(*s));
	if (!(span > 0))
		return -EINVAL;
	if ((ret = gx_csv_read(probes, &p)) < 0)
		return ret;
	int cs = gx_csv_col(&p, "src"), cd = gx_csv_col(&p, "dst");
	int cb = gx_csv_col(&p, "t_begin"), ce = gx_csv_col(&p, "t_end");
	int cn = gx_csv_col(&p, "bytes");

	if (cs < 0 || cd < 0 || cb < 0 || ce < 0 || cn < 0) {
		ret = -EINVAL;
		goto out;
	}
	bytes = calloc((size_t)ndl, sizeof(double));
	path = malloc((size_t)t->nnodes * sizeof(int));
	if (!bytes || !path) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < p.nrows; i++) {
		int a = gb_topo_find_node(t, gx_csv_str(&p, i, cs));
		int b = gb_topo_find_node(t, gx_csv_str(&p, i, cd));
		double tb = gx_csv_num(&p, i, cb), te = gx_csv_num(&p, i, ce);
		double nb = gx_csv_num(&p, i, cn), lo, hi, part;

		if (a < 0 || b < 0 || isnan(tb) || isnan(te) || isnan(nb))
			continue;
		lo = tb > t0 ? tb : t0;
		hi = te < t1 ? te : t1;
		if (hi < lo || (hi == lo && te > tb))
			continue;
		part = te > tb ? (hi - lo) / (te - tb) : 1;
		s->probes++;
		s->bytes += part * nb;
		int n = gb_topo_path(t, a, b, path);
		for (int j = 0; j < n; j++)
			bytes[path[j]] += part * nb;
	}
	if (csv && !(f = fopen(csv, "we"))) {
		ret = -errno;
		goto out;
	}
	if (f)
		fputs("link,dir,rate_bps,bytes,share\n", f);
	for (int dl = 0; dl < ndl; dl++) {
		const struct gb_link *l = &t->links[dl / 2];
		const struct gb_linkdir *d = dl & 1 ? &l->ba : &l->ab;
		int from = dl & 1 ? l->b : l->a, to = dl & 1 ? l->a : l->b;
		double share;

		if (!wide_area(t, dl) || !d->rate_bps)
			continue;
		share = bytes[dl] * 8.0 / ((double)d->rate_bps / k * span);
		if (f)
			fprintf(f, "%s,%s>%s,%llu,%.0f,%.6f\n", l->name, t->nodes[from].name,
				t->nodes[to].name, (unsigned long long)d->rate_bps, bytes[dl],
				share);
		if (share > s->max) {
			s->max = share;
			snprintf(s->link, sizeof(s->link), "%s>%s", t->nodes[from].name,
				 t->nodes[to].name);
		}
	}
	ret = 0;
out:
	if (f && fclose(f) != 0 && ret == 0)
		ret = -errno;
	free(bytes);
	free(path);
	gx_csv_release(&p);
	return ret;
}
