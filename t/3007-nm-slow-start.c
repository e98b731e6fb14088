/* SPDX-License-Identifier: MIT */
/*
 * 3007-nm-slow-start - what a message of a given size gets from a matrix
 * of steady TCP rates (collectives/core/nm_tcp.c):
 *   - gb_nm_ss_time(): no slow start where the initial window covers the
 *     path or the message; on a 62 ms, 29 Mbit/s path 256 KiB takes four
 *     doubling round trips and the rest at the path's rate (worked by hand);
 *   - the matrix file's "tcp" key: slow start restarts only if every stack
 *     says so; the initial window is the largest initcwnd (0: 10 segments);
 *   - gb_nm_for_size(): above the eager limit bandwidths become size /
 *     time where it restarts; up to it the bandwidth stays and the round
 *     trips join the latency; copied as they are where it does not
 *     restart, and the diagonal stays.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbcore.h"
#include "tap.h"

static char path[] = "/tmp/gb3007.XXXXXX";

/* A two-node matrix file with the given "tcp" value (JSON text). */
static int load(const char *tcp, struct gb_netmodel *m)
{
	struct gb_err err = { "" };
	FILE *f = fopen(path, "w");

	if (!f)
		bail("cannot write %s", path);
	fprintf(f, "{\"format\": \"gridbed-matrix\", \"version\": 3,"
		   " \"nodes\": [{\"name\": \"a\", \"cluster\": \"A\", \"site\": \"S\"},"
		   "             {\"name\": \"b\", \"cluster\": \"B\", \"site\": \"T\"}],"
		   " \"o\": 1e-5, \"lat\": [[null, 0.031], [0.031, null]],"
		   " \"bw\": [[null, 3625000], [3625000, null]], \"tcp\": %s}\n", tcp);
	fclose(f);
	memset(m, 0, sizeof(*m));
	return gb_nm_load_json(m, path, &err);
}

int main(void)
{
	struct gb_netmodel m, s;
	int fd = mkstemp(path);

	if (fd < 0)
		bail("mkstemp");
	close(fd);
	plan(15);

	is_double(gb_nm_ss_time(262144, 0.5e-3, 12.5e6, 14480), 262144 / 12.5e6, 1e-12,
		  "LAN: the initial window covers the path, no slow start");
	is_double(gb_nm_ss_time(8000, 0.062, 3.625e6, 14480), 8000 / 3.625e6, 1e-12,
		  "a message within the initial window goes at the path's rate");
	is_double(gb_nm_ss_time(262144, 0.062, 3.625e6, 14480), 4 * 0.062 + 44944 / 3.625e6,
		  1e-9, "WAN: 256 KiB = 4 round trips (14480, 28960, 57920, 115840 B) + 44944 B");
	is_double(gb_nm_ss_time(262144, 0.062, 3.625e6, 0), 262144 / 3.625e6, 1e-12,
		  "no initial window: the steady rate");

	ok(load("[{\"slow_start_after_idle\": true, \"initcwnd\": 0}]", &m) == 0 &&
	   m.tcp_restart == 1 && m.init_window == 10 * GB_NM_MSS,
	   "slow start after idle on, kernel's initcwnd: restart from 10 segments");
	ok(gb_nm_for_size(&s, &m, 262144) == 0, "gb_nm_for_size() on it");
	is_double(s.bw[1], 262144 / gb_nm_ss_time(262144, 0.062, 3.625e6, 14480), 1e-6,
		  "a -> b: 256 KiB over its slow-start time");
	ok(isinf(s.bw[0]) && s.lat[1] == m.lat[1] && s.o[0] == m.o[0] && s.version == 3,
	   "diagonal, latency, o and version kept");
	gb_nm_release(&s);
	/* up to the eager limit the send returns at once: the round trips are
	 * flight time, the sender is busy size / bw */
	ok(gb_nm_for_size(&s, &m, 52429) == 0 && s.bw[1] == m.bw[1],
	   "52429 B (eager): the bandwidth stays the steady rate");
	is_double(s.lat[1], m.lat[1] + gb_nm_ss_time(52429, 0.062, 3.625e6, 14480) - 52429 / 3.625e6,
		  1e-12, "... and the slow start's round trips join the latency (2 x 62 ms)");
	gb_nm_release(&s);
	gb_nm_release(&m);

	ok(load("[{\"slow_start_after_idle\": true, \"initcwnd\": 3},"
		" {\"slow_start_after_idle\": true, \"initcwnd\": 0}]", &m) == 0 &&
	   m.tcp_restart == 1 && m.init_window == 10 * GB_NM_MSS,
	   "two stacks: the largest initial window (kernel's 10 > 3)");
	gb_nm_release(&m);
	ok(load("[{\"slow_start_after_idle\": true, \"initcwnd\": 3}]", &m) == 0 &&
	   m.init_window == 3 * GB_NM_MSS, "initcwnd 3: 3 segments");
	gb_nm_release(&m);
	ok(load("[{\"slow_start_after_idle\": true}, {\"slow_start_after_idle\": false}]", &m) == 0 &&
	   m.tcp_restart == 0, "a stack without the restart: the steady model");
	ok(gb_nm_for_size(&s, &m, 262144) == 0 && s.bw[1] == 3625000,
	   "and gb_nm_for_size() copies the bandwidths as they are");
	gb_nm_release(&s);
	gb_nm_release(&m);
	ok(load("null", &m) == 0 && m.tcp_restart == 0, "no stack recorded: the steady model");
	gb_nm_release(&m);
	unlink(path);
	return done_testing();
}
