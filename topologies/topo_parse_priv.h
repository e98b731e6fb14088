/* SPDX-License-Identifier: MIT */
/*
 * topo_parse_priv.h - what the topology parser's two steps share: the
 * builder (every value with where it was written) that topo_parse.c fills
 * from the YAML document and topo_build.c turns into a struct gb_topo; not API.
 */
#ifndef GRIDBED_TOPO_PARSE_PRIV_H
#define GRIDBED_TOPO_PARSE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "gbtopo.h"
#include "gbyaml.h"

#define LINK_NAME_MAX (2 * GB_NAME_MAX + 1)

/* ---- the builder ------------------------------------------------------- */

enum { P_DELAY, P_JITTER, P_LOSS, P_RATE, P_LIMIT, P_PPKT, P_N }; /* = GB_LD_* bit order */

struct pval {           /* one link parameter as written in the file */
	bool set;
	uint64_t u;     /* delay, jitter, per_packet (ns), rate (bit/s), limit */
	double d;       /* loss */
	const char *text;
	int line, col;
};

struct pset {
	struct pval v[P_N];
};

/* A parameter block: values for both directions, then per direction
 * (dir[0] = "a>b", dir[1] = "b>a"), which win. */
struct pblock {
	struct pset sym, dir[2];
};

struct bname {          /* a host or a hub */
	char name[GB_NAME_MAX + 1];
	int line, col;
	struct gb_tcp_set tcp;  /* a host's own `tcp:` */
};

struct bsite {
	char name[GB_NAME_MAX + 1];
	int line, col;
};

struct bcluster {
	char name[GB_NAME_MAX + 1];
	int line, col;
	int site, first_host, nhosts;
	struct pblock hl, ul;
	double cpu;
	struct gb_tcp_set tcp;
};

struct blink {
	char a[GB_NAME_MAX + 1], b[GB_NAME_MAX + 1];
	int aline, acol, bline, bcol;
	char name[LINK_NAME_MAX + 1];
	bool named;
	struct pblock p;
	int line, col;
};

struct ctx {
	struct gb_yaml y;       /* file, diagnostic, document (gbyaml.h) */

	char name[GB_NAME_MAX + 1];
	char root[GB_NAME_MAX + 1];
	int root_line, root_col;
	struct gb_prefix data, mgmt;
	int data_line, data_col, mgmt_line, mgmt_col;
	uint32_t mtu;
	uint64_t seed;
	struct pblock dhl, dul;
	struct gb_tcp_set tcp;  /* the top level's `tcp:` */

	struct bsite *sites;
	int nsites, csites;
	struct bcluster *clusters;
	int nclusters, cclusters;
	struct bname *hosts;
	int nhosts, chosts;
	struct bname *hubs;
	int nhubs, chubs;
	struct blink *links;
	int nlinks, clinks;

	struct gb_topo *t;      /* step 3 */
};

/* ---- diagnostics and YAML helpers (gbyaml.h) ------------------------------ */

#define LINE(n) GB_YLINE(n)
#define COL(n) GB_YCOL(n)
#define fail_at(c, line, col, ...) gb_yaml_fail_at(&(c)->y, (line), (col), __VA_ARGS__)
#define fail(c, n, ...) gb_yaml_fail(&(c)->y, (n), __VA_ARGS__)
#define quote(c, s) gb_yaml_quote(&(c)->y, (s))
#define node(c, id) gb_yaml_node(&(c)->y, (id))
#define sval(n) gb_yaml_str(n)
#define is_null(n) gb_yaml_is_null(n)
#define kind_of(c, n) gb_yaml_kind(&(c)->y, (n))
#define get(c, n, key) gb_yaml_get(&(c)->y, (n), (key))
#define get_list(c, v, what, items, n) gb_yaml_list(&(c)->y, (v), (what), (items), (n))
#define check_map(c, n, subject, allowed) gb_yaml_check_map(&(c)->y, (n), (subject), (allowed))

/*
 * topo_build() - step 3: the builder @c, filled by parse_top(), becomes
 * c->t: nodes, links, names, connectivity, addresses, routes, each checked.
 * Return: 0, -EINVAL with the diagnostic set, or -ENOMEM.
 */
int topo_build(struct ctx *c);

#endif
