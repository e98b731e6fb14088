/* SPDX-License-Identifier: MIT */
/*
 * 8024-monitor-share - gx_monitor_share() (experiments/monitor_share.c):
 * the share of each wide-area direction that gridmon's probes took during
 * a run, from a probe log written here by hand, on a grid of two sites
 * joined by one 10 Mbit/s link:
 *   - a probe inside the window counts whole, on its path's wide-area
 *     directions only (none for a pair inside one site);
 *   - a probe half inside counts half; one outside, nothing;
 *   - the share is bytes x 8 / (rate / k x span): dilation k divides the
 *     wire's rate, so the same bytes over the same wall span are k times
 *     the share;
 *   - the CSV has one row per wide-area direction; a missing log is
 *     -ENOENT, a log without the columns -EINVAL.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbexp.h"
#include "gbtopo.h"
#include "tap.h"

static const char topo[] =
	"name: share\n"
	"defaults:\n"
	"  host_link: {rate: 100mbit, delay: 0.05ms}\n"
	"  uplink: {rate: 100mbit, delay: 0.25ms}\n"
	"sites:\n"
	"  - name: A\n"
	"    clusters: [{name: a, hosts: 2}, {name: a2, hosts: 1}]\n"
	"  - name: B\n"
	"    clusters: [{name: b, hosts: 2}]\n"
	"links:\n"
	"  - {a: A, b: B, delay: 5ms, rate: 10mbit}\n";

static int write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(s, f);
	return fclose(f);
}

int main(void)
{
	char dir[] = "/tmp/gb-8024.XXXXXX", log[64], csv[64], line[256];
	struct gb_topo *t = NULL;
	struct gb_diag d;
	char where[GB_DIAG_LINE_MAX];
	struct gx_mon_share m;

	plan(12);
	if (!mkdtemp(dir))
		bail("mkdtemp");
	if (gb_topo_parse(topo, sizeof(topo) - 1, "share.yaml", &t, &d) < 0)
		bail("%s", gb_diag_format(&d, NULL, where, sizeof(where)));
	snprintf(log, sizeof(log), "%s/probes.csv", dir);
	snprintf(csv, sizeof(csv), "%s/share.csv", dir);
	/* window [100, 200] s: 1.25 MB a>b inside (1 s of 10 Mbit/s x 10 s...),
	 * 1 MB b>a half inside, 5 MB a>a2 inside one site, 9 MB before */
	write_file(log, "round,stage,again,src,dst,t_begin,t_end,bytes,bw,result\n"
			"1,0,0,a-1,b-1,110,111,1250000,1e6,ok\n"
			"1,1,0,b-1,a-1,190,210,1000000,1e6,ok\n"
			"1,2,0,a-1,a2-1,120,121,5000000,1e7,ok\n"
			"1,3,0,a-1,b-1,10,20,9000000,1e6,ok\n");
	is_int(gx_monitor_share(t, log, 100, 200, 1, csv, &m), 0, "a probe log over a window");
	is_int(m.probes, 3, "three probes overlap [100, 200] s, the one before does not");
	is_double(m.bytes, 1250000 + 500000 + 5000000, 1e-6,
		  "bytes: the inside ones whole, the straddling one half");
	/* A>B: 1.25 MB x 8 / (10 Mbit/s x 100 s) = 0.01 */
	is_double(m.max, 0.01, 1e-9, "the largest share: 1.25 MB over 100 s of 10 Mbit/s = 1 %%");
	is_str(m.link, "A>B", "on direction A>B");

	FILE *f = fopen(csv, "r");
	int rows = 0, ab = 0, ba = 0;
	while (f && fgets(line, sizeof(line), f)) {
		rows++;
		ab += strncmp(line, "A-B,A>B,10000000,1250000,0.010000", 33) == 0;
		ba += strncmp(line, "A-B,B>A,10000000,500000,0.004000", 32) == 0;
	}
	if (f)
		fclose(f);
	is_int(rows, 3, "the CSV: a header and the two wide-area directions");
	ok(ab && ba, "A>B 1 %%, B>A (half of 1 MB) 0.4 %%; the intra-site probe is on neither");

	is_int(gx_monitor_share(t, log, 100, 200, 10, NULL, &m), 0, "the same log at dilation 10");
	is_double(m.max, 0.1, 1e-9, "the wire is 10 times slower: 10 times the share");

	is_int(gx_monitor_share(t, log, 300, 400, 1, NULL, &m), 0, "a window with no probe");
	ok(m.max == 0 && m.probes == 0 && m.link[0] == '\0', "no probe: a share of 0, no link");

	write_file(log, "a,b\n1,2\n");
	ok(gx_monitor_share(t, log, 0, 1, 1, NULL, &m) == -EINVAL &&
		   gx_monitor_share(t, "/nonexistent/probes.csv", 0, 1, 1, NULL, &m) == -ENOENT,
	   "a log without the columns: -EINVAL; no log: -ENOENT");
	unlink(log);
	unlink(csv);
	rmdir(dir);
	gb_topo_free(t);
	return done_testing();
}
