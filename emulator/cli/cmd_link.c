// SPDX-License-Identifier: MIT
/*
 * cmd_link.c - gridemu link: show the links, or change one (or one direction)
 * at runtime (gb_grid_link_set()).
 */
#include "gbemu.h"
#include "gbutil.h"
#include "gridemu_cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage_link(FILE *f)
{
	fprintf(f, "usage: gridemu link show\n"
		"       gridemu link set LINK [dir A>B] [delay T] [jitter T] [loss P%%] [rate R] "
		"[limit N]\n"
		"                        [per_packet T]\n"
		"  Change one link (or one direction of it) at runtime; other links are not "
		"touched.\n"
		"  T: 25ms, 100us; P: 1%%; R: 45mbit, 1gbit; N: packets.  per_packet (the\n"
		"  sender's cost per packet, charged by the rate; 0 for none) needs a rate.\n");
	return f == stdout ? 0 : 2;
}

/*
 * The words after `link set LINK`, into @c.  With @g NULL, before any grid
 * is looked up, every value is checked but the direction is not (it names
 * the link's ends); with @g, the direction is read against link @k.
 * Returns 0, or 2 with the fault printed.
 */
static int parse_change(struct gb_grid *g, int k, int argc, char **argv,
			struct gb_link_change *c)
{
	const struct gb_topo *t = g ? g->topo : NULL;
	const char *lname = t ? t->links[k].name : "set";
	memset(c, 0, sizeof(*c));
	c->dir = -1;
	for (int i = 0; i < argc; i++) {
		char key[32], *val;
		char *eq = strchr(argv[i], '=');
		if (eq) {
			snprintf(key, sizeof(key), "%.*s", (int)(eq - argv[i]), argv[i]);
			val = eq + 1;
		} else {
			if (i + 1 >= argc) {
				return gb_refuse("gridemu", "link set: '%s' needs a value",
						 argv[i]);
			}
			snprintf(key, sizeof(key), "%s", argv[i]);
			val = argv[++i];
		}
		int bad = 0;
		if (!strcmp(key, "dir") && !t) {
			continue;
		} else if (!strcmp(key, "dir")) {
			char ab[80], ba[80];
			const char *na = t->nodes[t->links[k].a].name, *nb = t->nodes[t->links[k].b].name;
			snprintf(ab, sizeof(ab), "%s>%s", na, nb);
			snprintf(ba, sizeof(ba), "%s>%s", nb, na);
			if (!strcmp(val, ab) || !strcmp(val, "a>b"))
				c->dir = 0;
			else if (!strcmp(val, ba) || !strcmp(val, "b>a"))
				c->dir = 1;
			else {
				return gb_refuse("gridemu",
						 "link '%s': direction '%s' is not %s or %s",
						 t->links[k].name, val, ab, ba);
			}
		} else if (!strcmp(key, "delay")) {
			bad = gb_parse_time(val, &c->p.delay_ns) < 0;
			c->p.set |= GB_LD_DELAY;
		} else if (!strcmp(key, "jitter")) {
			bad = gb_parse_time(val, &c->p.jitter_ns) < 0;
			c->p.set |= GB_LD_JITTER;
		} else if (!strcmp(key, "loss")) {
			bad = gb_parse_loss(val, &c->p.loss) < 0;
			c->p.set |= GB_LD_LOSS;
		} else if (!strcmp(key, "rate")) {
			bad = strcmp(val, "unlimited") && gb_parse_rate(val, &c->p.rate_bps) < 0;
			c->p.set |= GB_LD_RATE;
		} else if (!strcmp(key, "per_packet")) {
			bad = gb_parse_time(val, &c->p.per_packet_ns) < 0 ||
			      c->p.per_packet_ns > GB_PPKT_MAX_NS;
			c->p.set |= GB_LD_PPKT;
		} else if (!strcmp(key, "limit")) {
			char *end;
			long v = strtol(val, &end, 10);
			bad = *end || v <= 0 || v > 1000000;
			c->p.limit = (uint32_t)v;
			c->p.set |= GB_LD_LIMIT;
		} else {
			fprintf(stderr, "gridemu: link set: unknown parameter '%s' (delay, jitter, "
				"loss, rate, limit, per_packet, dir)\n", key);
			return 2;
		}
		if (bad) {
			return gb_refuse("gridemu", "link %s%s%s: %s '%s' is not valid",
					 t ? "'" : "", lname, t ? "'" : "", key, val);
		}
	}
	if (!c->p.set) {
		return gb_refuse("gridemu", "link set: nothing to change");
	}
	return 0;
}

int link_main(int argc, char **argv)
{
	if (argc < 2)
		return gb_refuse("gridemu", "link: show or set? (see gridemu link --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return usage_link(stdout);
	struct gb_grid g;
	struct gb_err e = { "" };
	int r;
	if (!strcmp(argv[1], "show")) {
		if ((r = gridemu_attach(&g)))
			return r;
		gb_grid_link_show(&g, stdout);
		gb_grid_close(&g);
		return 0;
	}
	if (strcmp(argv[1], "set"))
		return gb_refuse("gridemu", "link: unknown subcommand (show or set; see gridemu "
				 "link --help)");
	if (argc < 3)
		return gb_refuse("gridemu", "link set: which link? (see gridemu link show)");
	struct gb_link_change c;
	/* the values first: a bad one is refused whether or not a grid is up */
	if ((r = parse_change(NULL, 0, argc - 3, argv + 3, &c)))
		return r;
	if ((r = gridemu_attach_excl(&g)))
		return r;
	int k = gb_topo_find_link(g.topo, argv[2]);
	if (k < 0) {
		fprintf(stderr, "gridemu: no link '%s' in grid '%s' (see 'gridemu link show')\n",
			argv[2], g.prefix);
		gb_grid_close(&g);
		return 2;
	}
	if ((r = parse_change(&g, k, argc - 3, argv + 3, &c))) {
		gb_grid_close(&g);
		return r;
	}
	int err = gb_grid_link_set(&g, argv[2], &c, &e);
	gb_grid_close(&g);
	if (err < 0)    /* -EREMOTE: that direction is shaped on the peer machine */
		return gridemu_fail(err == -ENOENT || err == -EINVAL || err == -EREMOTE ? 2 : 1, e.msg);
	return 0;
}
