/* SPDX-License-Identifier: MIT */
/*
 * tcpstat.c - a host's kernel TCP counters (tcpstat.h).
 */
#include "tcpstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netns.h"

const struct gb_tcpstat_field gb_tcpstat_fields[GB_TS_N] = {
	[GB_TS_OUT_SEGS] = { "Tcp", "OutSegs", "out_segs" },
	[GB_TS_RETRANS_SEGS] = { "Tcp", "RetransSegs", "retrans_segs" },
	[GB_TS_TIMEOUTS] = { "TcpExt", "TCPTimeouts", "timeouts" },
	[GB_TS_LOSS_PROBES] = { "TcpExt", "TCPLossProbes", "loss_probes" },
	[GB_TS_FAST_RETRANS] = { "TcpExt", "TCPFastRetrans", "fast_retrans" },
	[GB_TS_SPURIOUS_RTOS] = { "TcpExt", "TCPSpuriousRTOs", "spurious_rtos" },
	[GB_TS_LOST_RETRANSMIT] = { "TcpExt", "TCPLostRetransmit", "lost_retransmit" },
	[GB_TS_SYN_RETRANS] = { "TcpExt", "TCPSynRetrans", "syn_retrans" },
	[GB_TS_OFO_DROP] = { "TcpExt", "TCPOFODrop", "ofo_drop" },
	[GB_TS_RCVQ_DROP] = { "TcpExt", "TCPRcvQDrop", "rcvq_drop" },
	[GB_TS_BACKLOG_DROP] = { "TcpExt", "TCPBacklogDrop", "backlog_drop" },
	[GB_TS_LISTEN_DROPS] = { "TcpExt", "ListenDrops", "listen_drops" },
};

/* The length of @s's line, without its newline. */
static size_t line_len(const char *s)
{
	const char *e = strchr(s, '\n');

	return e ? (size_t)(e - s) : strlen(s);
}

/* The table name of line @s ("Tcp" of "Tcp: ..."): its length, 0 if none. */
static size_t table_len(const char *s, size_t len)
{
	const char *c = memchr(s, ':', len);

	return c ? (size_t)(c - s) : 0;
}

/*
 * One table: the names on line @names, the values on line @vals (both
 * after "<table>:").  Return: counters set, or -EINVAL.
 */
static int parse_table(const char *table, size_t tlen, const char *names, size_t nlen,
		       const char *vals, size_t vlen, uint64_t v[GB_TS_N])
{
	const char *n = names + tlen + 1, *ne = names + nlen;
	const char *x = vals + tlen + 1, *xe = vals + vlen;
	int set = 0;

	for (;;) {
		const char *n0, *x0;
		char *end;
		unsigned long long val;

		while (n < ne && *n == ' ')
			n++;
		while (x < xe && *x == ' ')
			x++;
		if (n == ne || x == xe)
			return n == ne && x == xe ? set : -EINVAL;
		n0 = n;
		x0 = x;
		while (n < ne && *n != ' ')
			n++;
		while (x < xe && *x != ' ')
			x++;
		/* RtoMax and MaxConn can be -1: a value, not a counter we keep */
		errno = 0;
		val = strtoull(*x0 == '-' ? x0 + 1 : x0, &end, 10);
		if (end != x || errno)
			return -EINVAL;
		for (int k = 0; k < GB_TS_N; k++) {
			const struct gb_tcpstat_field *f = &gb_tcpstat_fields[k];

			if (strlen(f->table) == tlen && !memcmp(f->table, table, tlen) &&
			    strlen(f->kernel) == (size_t)(n - n0) && !memcmp(f->kernel, n0, n - n0)) {
				v[k] = val;
				set++;
			}
		}
	}
}

int gb_tcpstat_parse(const char *text, uint64_t v[GB_TS_N])
{
	const char *a = text;
	int set = 0;

	while (*a) {
		size_t alen = line_len(a), tlen = table_len(a, alen);
		const char *b = a[alen] ? a + alen + 1 : a + alen;
		size_t blen = line_len(b);

		/* a table is two lines with the same "<table>:" */
		if (tlen && *b && table_len(b, blen) == tlen && !memcmp(a, b, tlen)) {
			int r = parse_table(a, tlen, a, alen, b, blen, v);

			if (r < 0)
				return r;
			set += r;
			a = b[blen] ? b + blen + 1 : b + blen;
		} else {
			a = b;
		}
	}
	return set;
}

/* The whole of @fd, NUL-terminated, into a malloc'd *@out; closes @fd. */
static int slurp(int fd, char **out)
{
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap);
	int err = 0;

	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			char *p = realloc(buf, cap * 2);

			if (!p) {
				err = -ENOMEM;
				break;
			}
			buf = p;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int gb_tcpstat_read(int nsfd, uint64_t v[GB_TS_N])
{
	static const char *const files[] = { "/proc/thread-self/net/snmp",
					     "/proc/thread-self/net/netstat" };
	struct gb_nsguard g = { -1 };
	int fd[2] = { -1, -1 }, err;

	memset(v, 0, sizeof(*v) * GB_TS_N);
	/* one switch for both files: an open file keeps showing its namespace */
	err = gb_nsguard_enter(&g, nsfd);
	if (err < 0)
		return err;
	for (int i = 0; i < 2 && !err; i++)
		if ((fd[i] = open(files[i], O_RDONLY | O_CLOEXEC)) < 0)
			err = -errno;
	gb_nsguard_leave(&g);
	for (int i = 0; i < 2; i++) {
		char *text = NULL;

		if (fd[i] < 0)
			continue;
		if (err) {               /* the other file failed: only close this one */
			close(fd[i]);
			continue;
		}
		err = slurp(fd[i], &text);       /* closes fd[i] */
		if (!err && gb_tcpstat_parse(text, v) < 0)
			err = -EINVAL;
		free(text);
	}
	return err;
}

void gb_tcpstat_csv_header(FILE *f)
{
	fputs("t_mono,host", f);
	for (int k = 0; k < GB_TS_N; k++)
		fprintf(f, ",%s", gb_tcpstat_fields[k].name);
	fputc('\n', f);
}

void gb_tcpstat_csv_row(FILE *f, double t, const char *host, const uint64_t v[GB_TS_N])
{
	fprintf(f, "%.6f,%s", t, host);
	for (int k = 0; k < GB_TS_N; k++)
		fprintf(f, ",%llu", (unsigned long long)v[k]);
	fputc('\n', f);
}
