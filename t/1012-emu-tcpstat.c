/* SPDX-License-Identifier: MIT */
/*
 * 1012-emu-tcpstat: a host's kernel TCP counters (emulator/grid/tcpstat.h).
 * The parser on the kernel's own layout (a table is a line of names and a
 * line of values; -1 values; tables and counters that are not kept; a
 * line of values that does not match its names), then the counters of a
 * namespace created here: zero in a new namespace, and after a loopback
 * TCP transfer inside it, the segments it sent - while the namespace the
 * test runs in is left as it was.  The live half needs root.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netns.h"
#include "tap.h"
#include "tcpstat.h"

static const char snmp[] =
	"Ip: Forwarding DefaultTTL InReceives\n"
	"Ip: 1 64 12345\n"
	"Icmp: InMsgs InErrors\n"
	"Icmp: 3 0\n"
	"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
	"EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
	"Tcp: 1 200 120000 -1 40 38 0 2 5 98765 87654 321 0 7 0\n"
	"Udp: InDatagrams NoPorts\n"
	"Udp: 10 0\n";

static const char netstat[] =
	"TcpExt: SyncookiesSent ListenDrops TCPTimeouts TCPLossProbes TCPFastRetrans "
	"TCPSpuriousRTOs TCPLostRetransmit TCPSynRetrans TCPOFODrop TCPRcvQDrop "
	"TCPBacklogDrop TCPZeroWindowDrop\n"
	"TcpExt: 0 4 17 9 11 2 3 6 1 5 8 0\n"
	"IpExt: InNoRoutes InTruncatedPkts OutMcastPkts\n"
	"IpExt: 0 0 4\n";

static char nsname[64];

static void drop_ns(void)
{
	if (nsname[0])
		gb_netns_delete(nsname);
}

/* In namespace @fd: lo up, a listener, a connection, @len bytes through it. */
static int loopback_transfer(int fd, size_t len)
{
	struct gb_nsguard g = { -1 };
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	struct ifreq ifr = { 0 };
	int l = -1, c = -1, s = -1, io = -1, err = -1;
	static char buf[65536];
	size_t sent = 0, got = 0;

	if (gb_nsguard_enter(&g, fd) < 0)
		return -1;
	io = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (io < 0 || ioctl(io, SIOCGIFFLAGS, &ifr) < 0)
		goto cleanup;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(io, SIOCSIFFLAGS, &ifr) < 0)
		goto cleanup;
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || c < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &al) < 0 ||
	    connect(c, (struct sockaddr *)&a, sizeof(a)) < 0 || (s = accept(l, NULL, NULL)) < 0)
		goto cleanup;
	/* loopback buffers hold more than we send: write all, then read all */
	while (sent < len) {
		ssize_t n = write(c, buf, len - sent < sizeof(buf) ? len - sent : sizeof(buf));

		if (n <= 0)
			goto cleanup;
		sent += (size_t)n;
		while (got < sent) {
			ssize_t m = read(s, buf, sizeof(buf));

			if (m <= 0)
				goto cleanup;
			got += (size_t)m;
		}
	}
	err = 0;
cleanup:
	for (int *p = (int[]){ io, l, c, s }, k = 0; k < 4; k++)
		if (p[k] >= 0)
			close(p[k]);
	gb_nsguard_leave(&g);
	return err;
}

int main(void)
{
	uint64_t v[GB_TS_N], w[GB_TS_N], own0[GB_TS_N], own1[GB_TS_N];
	int fd, self, r;

	plan(17);

	memset(v, 0xff, sizeof(v));
	is_int(gb_tcpstat_parse(snmp, v), 2, "snmp: the two Tcp counters kept are set");
	ok(v[GB_TS_OUT_SEGS] == 87654 && v[GB_TS_RETRANS_SEGS] == 321,
	   "  OutSegs and RetransSegs, past MaxConn's -1");
	ok(v[GB_TS_TIMEOUTS] == UINT64_MAX, "  the TcpExt counters are left as they were");
	is_int(gb_tcpstat_parse(netstat, v), GB_TS_N - 2, "netstat: every TcpExt counter kept");
	ok(v[GB_TS_TIMEOUTS] == 17 && v[GB_TS_LOSS_PROBES] == 9 && v[GB_TS_FAST_RETRANS] == 11 &&
	   v[GB_TS_SPURIOUS_RTOS] == 2 && v[GB_TS_LOST_RETRANSMIT] == 3 &&
	   v[GB_TS_SYN_RETRANS] == 6 && v[GB_TS_OFO_DROP] == 1 && v[GB_TS_RCVQ_DROP] == 5 &&
	   v[GB_TS_BACKLOG_DROP] == 8 && v[GB_TS_LISTEN_DROPS] == 4,
	   "  each from its own column (SyncookiesSent and TCPZeroWindowDrop not kept)");
	is_int(gb_tcpstat_parse("Tcp: OutSegs RetransSegs\nTcp: 5\n", v), -EINVAL,
	       "a line of values shorter than its names: -EINVAL");
	is_int(gb_tcpstat_parse("Tcp: OutSegs\nTcp: x5\n", v), -EINVAL,
	       "a value that is not a number: -EINVAL");
	is_int(gb_tcpstat_parse("Tcp: OutSegs\nUdp: 5\n", v), 0,
	       "two lines of different tables are not a table");
	is_int(gb_tcpstat_parse("", v), 0, "empty text: nothing set");
	ok(strcmp(gb_tcpstat_fields[GB_TS_RETRANS_SEGS].name, "retrans_segs") == 0 &&
	   strcmp(gb_tcpstat_fields[GB_TS_TIMEOUTS].kernel, "TCPTimeouts") == 0,
	   "the fields table names the columns and the kernel's counters");

	if (geteuid() != 0) {
		skip(7, "namespaces need root");
		return done_testing();
	}
	snprintf(nsname, sizeof(nsname), "gbt1012-%ld", (long)getpid());
	atexit(drop_ns);
	fd = gb_netns_create(nsname);
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || self < 0)
		bail("cannot create namespace '%s': %s", nsname, strerror(fd < 0 ? -fd : errno));
	is_int(gb_tcpstat_read(fd, v), 0, "a new namespace's counters are read");
	ok(v[GB_TS_OUT_SEGS] == 0 && v[GB_TS_RETRANS_SEGS] == 0,
	   "  and it has sent nothing yet (%llu, %llu)", (unsigned long long)v[GB_TS_OUT_SEGS],
	   (unsigned long long)v[GB_TS_RETRANS_SEGS]);
	r = gb_tcpstat_read(self, own0);
	is_int(loopback_transfer(fd, 16 << 20), 0, "16 MiB over loopback TCP inside it");
	is_int(gb_tcpstat_read(fd, w), 0, "its counters read again");
	/* 16 MiB in loopback's segments of at most 64 KiB (GSO): at least 256 */
	ok(w[GB_TS_OUT_SEGS] >= 256, "  it sent the transfer's segments (%llu)",
	   (unsigned long long)w[GB_TS_OUT_SEGS]);
	ok(r == 0 && gb_tcpstat_read(self, own1) == 0 &&
	   own1[GB_TS_OUT_SEGS] - own0[GB_TS_OUT_SEGS] < w[GB_TS_OUT_SEGS] / 2,
	   "  the test's own namespace did not count them (%llu more)",
	   (unsigned long long)(own1[GB_TS_OUT_SEGS] - own0[GB_TS_OUT_SEGS]));
	{
		struct stat a, b;

		ok(fstat(self, &a) == 0 && stat("/proc/thread-self/ns/net", &b) == 0 &&
		   a.st_ino == b.st_ino, "the test is back in its own namespace");
	}
	close(fd);
	close(self);
	return done_testing();
}
