// SPDX-License-Identifier: MIT
/*
 * capture.c - libpcap capture on grid links (capture.h); the `gridemu
 * capture` command is emulator/cli/cmd_capture.c.
 *
 * Choices:
 *   - one child process for all links, counters in a MAP_SHARED page, so a
 *     caller can read them at any time without a protocol; one writer per
 *     counter, so relaxed atomic stores/loads are enough;
 *   - TPACKET_V3 blocks with a 50 ms timeout instead of immediate mode: one
 *     wakeup per block rather than per packet keeps the capture from
 *     competing with the delay line for the two cores; the price is that
 *     counters lag by up to 50 ms, and the stop drains for three timeouts;
 *   - with both directions in one pcap file, packets of the two handles are
 *     written in the order their blocks arrive, so timestamps may step back
 *     by up to a block timeout between directions (reordercap sorts them).
 */
#include "capture.h"
#include "gbutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_MS 50
#define SNAP_HEADERS 128
#define SNAP_FULL GB_CAPTURE_SNAP_MAX

/* One captured direction; lives in memory shared with the child. */
struct point {
	int link, dir;
	uint64_t packets, ip_bytes, frame_bytes, drops;
};

struct gb_capture {
	pid_t pid;
	int npoints;
	struct point *pts;      /* shared mapping of npoints entries + the datalink */
	size_t maplen;
	int *datalink;          /* in the mapping, after the points */
	int status;             /* the child's exit status, -1 while running */
};

/* ---- the child ----------------------------------------------------------- */

static volatile sig_atomic_t child_stop;

static void on_term(int sig)
{
	child_stop = 1;
}

struct handle {
	pcap_t *p;
	struct point *pt;
	int dlt;
	pcap_dumper_t *dump;
};

/* IP total length of a captured packet, or 0 if it is not IP. */
static uint32_t ip_len(int dlt, const u_char *b, uint32_t caplen)
{
	uint32_t off;

	switch (dlt) {
	case DLT_EN10MB:
		if (caplen < 14)
			return 0;
		off = 14;
		if (b[12] == 0x81 && b[13] == 0x00) /* one 802.1Q tag */
			off = 18;
		break;
	case DLT_LINUX_SLL:
		off = 16;
		break;
	case DLT_LINUX_SLL2:
		off = 20;
		break;
	default: /* DLT_RAW, DLT_IPV4, DLT_IPV6: bare IP */
		off = 0;
		break;
	}
	if (caplen < off + 4)
		return 0;
	b += off;
	if ((b[0] >> 4) == 4)
		return (uint32_t)b[2] << 8 | b[3];
	if ((b[0] >> 4) == 6 && caplen >= off + 6)
		return 40 + ((uint32_t)b[4] << 8 | b[5]);
	return 0;
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct handle *hd = (struct handle *)user;
	struct point *pt = hd->pt;

	if (hd->dump)
		pcap_dump((u_char *)hd->dump, h, bytes);
	__atomic_store_n(&pt->packets, pt->packets + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&pt->frame_bytes, pt->frame_bytes + h->len, __ATOMIC_RELAXED);
	__atomic_store_n(&pt->ip_bytes, pt->ip_bytes + ip_len(hd->dlt, bytes, h->caplen),
			 __ATOMIC_RELAXED);
}

static void __attribute__((noreturn)) child_fail(int ready, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	msg[0] = 'E';
	va_start(ap, fmt);
	vsnprintf(msg + 1, sizeof(msg) - 1, fmt, ap);
	va_end(ap);
	if (write(ready, msg, strlen(msg)) < 0)
		_exit(2);
	_exit(2);
}

static void update_drops(struct handle *h, int n)
{
	for (int i = 0; i < n; i++) {
		struct pcap_stat st;

		if (pcap_stats(h[i].p, &st) == 0)
			__atomic_store_n(&h[i].pt->drops, (uint64_t)st.ps_drop, __ATOMIC_RELAXED);
	}
}

static void __attribute__((noreturn)) capture_child(struct gb_grid *g, struct gb_capture *c,
						    const struct gb_capture_opts *o, pid_t parent,
						    int ready)
{
	const struct gb_topo *t = g->topo;
	struct handle *h = calloc((size_t)c->npoints, sizeof(*h));
	struct pollfd *pf = calloc((size_t)c->npoints, sizeof(*pf));
	char err[PCAP_ERRBUF_SIZE], ifn[16], tmp[PATH_MAX] = "";
	pcap_dumper_t *dump = NULL;
	int snap = o->snaplen > 0 ? o->snaplen : o->pcap_path ? SNAP_FULL : SNAP_HEADERS;
	struct sigaction sa;
	sigset_t none;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	prctl(PR_SET_NAME, "gridemu-capture");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGINT, SIG_IGN); /* the caller decides when to stop (Ctrl-C reaches both) */
	signal(SIGHUP, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (!h || !pf)
		child_fail(ready, "out of memory");

	for (int i = 0; i < c->npoints; i++) {
		struct point *pt = &c->pts[i];
		const struct gb_link *l = &t->links[pt->link];
		/* the receiving end: b for a>b, a for b>a */
		int node = pt->dir == 0 ? l->b : l->a;

		if (setns(g->nsfd[node], CLONE_NEWNET) < 0)
			child_fail(ready, "cannot enter namespace of '%s': %s", t->nodes[node].name,
				   strerror(errno));
		gb_ifname(pt->link, ifn);
		pcap_t *p = pcap_create(ifn, err);
		if (!p)
			child_fail(ready, "link '%s': %s", l->name, err);
		h[i].p = p;
		h[i].pt = pt;
		pcap_set_snaplen(p, snap);
		pcap_set_promisc(p, 0);
		pcap_set_timeout(p, TIMEOUT_MS);
		pcap_set_buffer_size(p, 8 << 20);
		int r = pcap_activate(p);
		if (r < 0)
			child_fail(ready, "link '%s': cannot capture on '%s' in '%s': %s", l->name,
				   ifn, t->nodes[node].name, pcap_geterr(p));
		if (pcap_setdirection(p, PCAP_D_IN) < 0)
			child_fail(ready, "link '%s': %s", l->name, pcap_geterr(p));
		if (o->filter && *o->filter) {
			struct bpf_program bpf;

			if (pcap_compile(p, &bpf, o->filter, 1, PCAP_NETMASK_UNKNOWN) < 0)
				child_fail(ready, "filter '%s': %s", o->filter, pcap_geterr(p));
			if (pcap_setfilter(p, &bpf) < 0)
				child_fail(ready, "filter '%s': %s", o->filter, pcap_geterr(p));
			pcap_freecode(&bpf);
		}
		pcap_setnonblock(p, 1, err);
		h[i].dlt = pcap_datalink(p);
		if (i > 0 && h[i].dlt != h[0].dlt && o->pcap_path)
			child_fail(ready, "links with different link types cannot share one pcap "
				   "file");
		pf[i].fd = pcap_get_selectable_fd(p);
		pf[i].events = POLLIN;
	}
	*c->datalink = c->npoints ? h[0].dlt : 0;
	if (o->pcap_path && c->npoints) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", o->pcap_path);
		if (!(dump = pcap_dump_open(h[0].p, tmp)))
			child_fail(ready, "cannot write '%s': %s", tmp, pcap_geterr(h[0].p));
		for (int i = 0; i < c->npoints; i++)
			h[i].dump = dump;
	}
	if (write(ready, "R", 1) != 1)
		_exit(1);
	close(ready);

	double last_stats = gb_now(), drain_until = 0;
	for (;;) {
		int got = 0;

		if (child_stop && !drain_until)
			drain_until = gb_now() + 3 * TIMEOUT_MS / 1e3;
		if (drain_until && gb_now() >= drain_until)
			break;
		poll(pf, (nfds_t)c->npoints, TIMEOUT_MS);
		for (int i = 0; i < c->npoints; i++) {
			int n = pcap_dispatch(h[i].p, -1, on_packet, (u_char *)&h[i]);

			got += n > 0 ? n : 0;
		}
		if (gb_now() - last_stats > 0.5) {
			update_drops(h, c->npoints);
			last_stats = gb_now();
		}
		(void)got;
	}
	update_drops(h, c->npoints);
	int rc = 0;
	if (dump) {
		if (pcap_dump_flush(dump) < 0)
			rc = 3;
		pcap_dump_close(dump);
		if (!rc && rename(tmp, o->pcap_path) < 0)
			rc = 3;
		if (rc)
			unlink(tmp);
	}
	for (int i = 0; i < c->npoints; i++)
		pcap_close(h[i].p);
	_exit(rc);
}

/* ---- the library --------------------------------------------------------- */

int gb_capture_start(struct gb_grid *g, const int *links, int nlinks,
		     const struct gb_capture_opts *o, struct gb_capture **out, struct gb_err *e)
{
	static const struct gb_capture_opts defaults = { .dir = -1 };
	struct gb_capture *c = NULL;
	int rp[2] = { -1, -1 }, err = 0, dir;
	pid_t self = getpid();

	*out = NULL;
	if (!o)
		o = &defaults;
	dir = o->dir == 0 || o->dir == 1 ? o->dir : -1;
	if (!g->topo || !g->nsfd) {
		gb_err_set(e, "capture: the grid is not attached");
		return -EINVAL;
	}
	if (nlinks < 1) {
		gb_err_set(e, "capture: no link to capture on");
		return -EINVAL;
	}
	for (int i = 0; i < nlinks; i++) {
		if (links[i] < 0 || links[i] >= g->topo->nlinks) {
			gb_err_set(e, "capture: link %d is not a link of grid '%s'", links[i],
				   g->topo->name);
			return -EINVAL;
		}
	}
	if (!(c = calloc(1, sizeof(*c))))
		return -ENOMEM;
	c->pid = -1;
	c->status = -1;
	c->npoints = nlinks * (dir < 0 ? 2 : 1);
	c->maplen = (size_t)c->npoints * sizeof(struct point) + sizeof(int);
	c->pts = mmap(NULL, c->maplen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c->pts == MAP_FAILED) {
		c->pts = NULL;
		err = -errno;
		goto cleanup;
	}
	c->datalink = (int *)(c->pts + c->npoints);
	for (int i = 0, n = 0; i < nlinks; i++) {
		for (int d = 0; d < 2; d++) {
			if (dir >= 0 && d != dir)
				continue;
			c->pts[n].link = links[i];
			c->pts[n++].dir = d;
		}
	}
	if (pipe2(rp, O_CLOEXEC) < 0) {
		err = -errno;
		goto cleanup;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid == 0) {
		close(rp[0]);
		capture_child(g, c, o, self, rp[1]);
	}
	if (c->pid < 0) {
		err = -errno;
		gb_err_set(e, "capture: fork: %s", strerror(errno));
		goto cleanup;
	}
	close(rp[1]);
	rp[1] = -1;
	char msg[600];
	ssize_t n, got = 0;
	while (got < (ssize_t)sizeof(msg) - 1 &&
	       (n = read(rp[0], msg + got, sizeof(msg) - 1 - (size_t)got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += n;
		if (msg[0] == 'R')
			break;
	}
	msg[got > 0 ? got : 0] = 0;
	if (got < 1 || msg[0] != 'R') {
		err = strstr(msg, "filter '") ? -EINVAL : -ENODEV;
		gb_err_set(e, "capture: %s", got > 1 ? msg + 1 : "the capture process died");
		goto cleanup;
	}
cleanup:
	for (int i = 0; i < 2; i++)
		if (rp[i] >= 0)
			close(rp[i]);
	if (err < 0) {
		gb_capture_free(c);
		return err;
	}
	*out = c;
	return 0;
}

int gb_capture_counters(const struct gb_capture *c, int link, int dir,
			struct gb_capture_count *out)
{
	int found = 0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < c->npoints; i++) {
		const struct point *pt = &c->pts[i];

		if (pt->link != link || (dir >= 0 && pt->dir != dir))
			continue;
		found = 1;
		out->packets += __atomic_load_n(&pt->packets, __ATOMIC_RELAXED);
		out->ip_bytes += __atomic_load_n(&pt->ip_bytes, __ATOMIC_RELAXED);
		out->frame_bytes += __atomic_load_n(&pt->frame_bytes, __ATOMIC_RELAXED);
		out->drops += __atomic_load_n(&pt->drops, __ATOMIC_RELAXED);
	}
	return found ? 0 : -ENOENT;
}

int gb_capture_datalink(const struct gb_capture *c)
{
	return c->datalink ? *c->datalink : -1;
}

int gb_capture_stop(struct gb_capture *c, struct gb_err *e)
{
	int st = 0;
	pid_t w = 0;

	if (!c)
		return 0;
	if (c->pid > 0) {
		kill(c->pid, SIGTERM);
		/* the child drains for 3 x 50 ms; give it a generous bound */
		for (int i = 0; i < 300 && (w = waitpid(c->pid, &st, WNOHANG)) == 0; i++) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		if (w != c->pid) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &st, 0);
		}
		c->pid = -1;
		c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	if (c->status > 0) {
		gb_err_set(e, "capture: the capture process failed (status %d)%s", c->status,
			   c->status == 3 ? ": cannot write the pcap file" : "");
		return -EIO;
	}
	return 0;
}

void gb_capture_free(struct gb_capture *c)
{
	struct gb_err e;

	if (!c)
		return;
	gb_capture_stop(c, &e);
	if (c->pts)
		munmap(c->pts, c->maplen);
	free(c);
}

int gb_capture_read_file(const char *path, struct gb_capture_count *total, int *datalink,
			 struct gb_err *e)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *b;
	int r;
	pcap_t *p = pcap_open_offline(path, err);

	memset(total, 0, sizeof(*total));
	if (!p) {
		gb_err_set(e, "cannot read '%s': %s", path, err);
		return access(path, R_OK) < 0 ? -errno : -EINVAL;
	}
	*datalink = pcap_datalink(p);
	while ((r = pcap_next_ex(p, &h, &b)) == 1) {
		total->packets++;
		total->frame_bytes += h->len;
		total->ip_bytes += ip_len(*datalink, b, h->caplen);
	}
	if (r == -1) {
		gb_err_set(e, "'%s' is truncated or damaged: %s", path, pcap_geterr(p));
		pcap_close(p);
		return -EINVAL;
	}
	pcap_close(p);
	return 0;
}

const char *gb_capture_dlt_name(int dlt)
{
	const char *n = pcap_datalink_val_to_name(dlt);

	return n ? n : "?";
}
