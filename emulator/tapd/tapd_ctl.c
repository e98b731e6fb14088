// SPDX-License-Identifier: MIT
/*
 * tapd_ctl.c - gridemu-tapd: the control socket (ping, set, stats, quit) and
 * the pidfile (tapd_daemon.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "tapd.h"
#include "tapd_daemon.h"

/* ---- control socket ------------------------------------------------------ */

int tapd_ctl_listen(struct tapd *t, struct gb_err *e)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, r;

	if (strlen(t->ctl_path) >= sizeof(sa.sun_path))
		return tapd_fail(e, "control socket '%s': path too long", t->ctl_path);
	strcpy(sa.sun_path, t->ctl_path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return tapd_fail(e, "control socket '%s': %s", t->ctl_path, strerror(errno));
	old = umask(077);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (r < 0 && errno == EADDRINUSE) {
		/* A live daemon answers; a stale socket file refuses. */
		int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

		if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof(sa)) < 0 &&
		    errno == ECONNREFUSED) {
			unlink(t->ctl_path);
			r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
		} else {
			errno = EADDRINUSE;
		}
		if (probe >= 0)
			close(probe);
	}
	umask(old);
	if (r < 0 || listen(fd, 64) < 0) {
		int en = errno;

		close(fd);
		return tapd_fail(e, "control socket '%s': %s", t->ctl_path,
				 en == EADDRINUSE ? "another daemon is listening there" : strerror(en));
	}
	t->listen_fd = fd;
	t->ctl_bound = 1;
	return 0;
}

int tapd_pidfile_write(struct tapd *t, struct gb_err *e)
{
	char tmp[PATH_MAX];
	FILE *f;
	int ok;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", t->pid_path, (int)getpid()) >=
	    sizeof(tmp))
		return tapd_fail(e, "pidfile '%s': path too long", t->pid_path);
	f = fopen(tmp, "we");
	if (!f)
		return tapd_fail(e, "pidfile '%s': %s", tmp, strerror(errno));
	ok = fprintf(f, "%d\n", (int)getpid()) > 0;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, t->pid_path) < 0) {
		int en = errno;

		unlink(tmp);
		return tapd_fail(e, "pidfile '%s': %s", t->pid_path, strerror(en));
	}
	t->pid_written = 1;
	return 0;
}

/* A strict unsigned decimal no larger than @max. */
int tapd_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t x = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (x > (max - (uint64_t)(*s - '0')) / 10)
			return -ERANGE;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*out = x;
	return 0;
}

static struct tapd_link *link_by_id(struct tapd *t, int64_t id)
{
	size_t i;

	for (i = 0; i < t->nlinks; i++)
		if (t->links[i].id == id)
			return &t->links[i];
	return NULL;
}

#define MAX_TOKENS 16

/* set <link-id> <ab|ba> key=value... : check everything, then apply. */
/* `pass <ns>`: the pass-through cost subtracted from every delay from now on. */
static void req_pass(struct tapd *t, char **tok, int ntok, char *reply, size_t len)
{
	uint64_t x;

	if (ntok != 2 || tapd_parse_u64(tok[1], TAPD_MAX_DELAY_NS, &x) < 0) {
		snprintf(reply, len, "err usage: pass <ns> (an integer in [0, %" PRIu64 "])",
			 (uint64_t)TAPD_MAX_DELAY_NS);
		return;
	}
	TAPD_ST(t->pass_ns, x);
	snprintf(reply, len, "ok");
}

static void req_set(struct tapd *t, char **tok, int ntok, char *reply, size_t len)
{
	struct tapd_link *l;
	struct tapd_dir *d;
	struct tapd_params p;
	unsigned seen = 0;
	uint64_t id, x;
	int i, which;

	if (ntok < 4) {
		snprintf(reply, len, "err set: usage: set <link-id> <ab|ba> [delay_ns=<n>] "
			 "[jitter_ns=<n>] [loss=<p>] [limit=<n>]");
		return;
	}
	if (tapd_parse_u64(tok[1], INT64_MAX, &id) < 0 || !(l = link_by_id(t, (int64_t)id))) {
		snprintf(reply, len, "err set: unknown link '%s'", tok[1]);
		return;
	}
	if (!strcmp(tok[2], "ab")) {
		which = TAPD_AB;
	} else if (!strcmp(tok[2], "ba")) {
		which = TAPD_BA;
	} else {
		snprintf(reply, len, "err set: direction '%s' is neither ab nor ba", tok[2]);
		return;
	}
	d = &l->dir[which];
	pthread_mutex_lock(&d->lock);
	p = d->pending;
	pthread_mutex_unlock(&d->lock);

	for (i = 3; i < ntok; i++) {
		static const char *const keys[] = { "delay_ns", "jitter_ns", "loss", "limit" };
		char *eq = strchr(tok[i], '='), *val, *end;
		unsigned k;

		if (!eq) {
			snprintf(reply, len, "err set: '%s' is not key=value", tok[i]);
			return;
		}
		*eq = '\0';
		val = eq + 1;
		for (k = 0; k < 4 && strcmp(tok[i], keys[k]); k++)
			;
		if (k == 4) {
			snprintf(reply, len, "err set: unknown key '%s' (delay_ns, jitter_ns, loss, "
				 "limit)", tok[i]);
			return;
		}
		if (seen & (1u << k)) {
			snprintf(reply, len, "err set: '%s' given twice", tok[i]);
			return;
		}
		seen |= 1u << k;
		if (k == 2) {
			double v;

			errno = 0;
			v = strtod(val, &end);
			if (!*val || *end || errno || !(v >= 0 && v <= 1)) {
				snprintf(reply, len, "err set: loss '%s' is not a probability in "
					 "[0, 1]", val);
				return;
			}
			p.loss = v;
			continue;
		}
		if (tapd_parse_u64(val, k == 3 ? TAPD_MAX_LIMIT : TAPD_MAX_DELAY_NS, &x) < 0 ||
		    (k == 3 && !x)) {
			snprintf(reply, len, "err set: %s '%s' is not an integer in [%d, %" PRIu64 "]",
				 keys[k], val, k == 3, k == 3 ? (uint64_t)TAPD_MAX_LIMIT :
				 (uint64_t)TAPD_MAX_DELAY_NS);
			return;
		}
		if (k == 0)
			p.delay_ns = x;
		else if (k == 1)
			p.jitter_ns = x;
		else
			p.limit = (uint32_t)x;
	}

	pthread_mutex_lock(&d->lock);
	d->pending = p;
	__atomic_store_n(&d->gen, d->gen + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&d->lock);
	/* TSO on the source device only while the direction has no loss. */
	tapd_tun_offload(t, &l->side[which], p.loss);
	snprintf(reply, len, "ok");
}

static json_t *lateness_json(const struct tq_hist *h)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			 "count", (json_int_t)h->count,
			 "mean", (json_int_t)(h->count ? h->sum / h->count : 0),
			 "p50", (json_int_t)tq_hist_quantile(h, 0.50),
			 "p90", (json_int_t)tq_hist_quantile(h, 0.90),
			 "p99", (json_int_t)tq_hist_quantile(h, 0.99),
			 "p999", (json_int_t)tq_hist_quantile(h, 0.999),
			 "max", (json_int_t)h->max);
}

static const char *const counter_names[] = {
	"rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "dropped_loss", "dropped_queue",
	"dropped_nomem", "tx_errors", "rx_errors", "queue_depth", "max_queue_depth", "late",
};

static void counters_read(const struct tapd_counters *c, uint64_t v[12])
{
	v[0] = TAPD_LD(c->rx_packets);
	v[1] = TAPD_LD(c->rx_bytes);
	v[2] = TAPD_LD(c->tx_packets);
	v[3] = TAPD_LD(c->tx_bytes);
	v[4] = TAPD_LD(c->dropped_loss);
	v[5] = TAPD_LD(c->dropped_queue);
	v[6] = TAPD_LD(c->dropped_nomem);
	v[7] = TAPD_LD(c->tx_errors);
	v[8] = TAPD_LD(c->rx_errors);
	v[9] = TAPD_LD(c->queue_depth);
	v[10] = TAPD_LD(c->max_queue_depth);
	v[11] = TAPD_LD(c->late);
}

/*
 * One link direction's counters into @v and its lateness histogram into @h,
 * both added to the totals @sum (max_queue_depth: the maximum) and @all.
 */
static void dir_collect(struct tapd_dir *d, uint64_t v[12], struct tq_hist *h, uint64_t sum[12],
			struct tq_hist *all)
{
	counters_read(&d->c, v);
	for (int k = 0; k < 12; k++)
		sum[k] = k == 10 ? (v[k] > sum[k] ? v[k] : sum[k]) : sum[k] + v[k];
	tq_hist_snapshot(&d->lateness, h);
	tq_hist_merge(all, h);
}

static char *req_stats(struct tapd *t)
{
	struct tq_hist *h = NULL, *all = NULL;
	json_t *root = NULL, *links, *workers, *total;
	uint64_t sum[12] = { 0 };
	char *out = NULL;
	size_t i;
	int s, w, k;

	h = malloc(sizeof(*h));
	all = calloc(1, sizeof(*all));
	root = json_object();
	links = json_array();
	workers = json_array();
	total = json_object();
	if (!h || !all || !root || !links || !workers || !total) {
		json_decref(links);
		json_decref(workers);
		json_decref(total);
		goto cleanup;
	}
	json_object_set_new(root, "uptime_ns", json_integer((json_int_t)(tapd_now_ns() -
									   t->start_ns)));
	json_object_set_new(root, "seed", json_integer((json_int_t)t->seed));
	json_object_set_new(root, "pass_ns", json_integer((json_int_t)TAPD_LD(t->pass_ns)));
	json_object_set_new(root, "offload", json_boolean(!t->no_offload));
	json_object_set_new(root, "pm_qos", json_boolean(t->pm_qos_fd >= 0));
	json_object_set_new(root, "workers", workers);
	json_object_set_new(root, "links", links);
	json_object_set_new(root, "total", total);

	for (w = 0; w < t->nworkers; w++) {
		struct tapd_worker *wk = &t->workers[w];

		tq_hist_snapshot(&wk->wake_late, h);
		json_array_append_new(workers, json_pack(
			"{s:i, s:I, s:s, s:I, s:I, s:I, s:I, s:o}", "id", w,
			"links", (json_int_t)wk->nlinks, "sched", wk->fifo ? "fifo" : "other",
			"spin_margin_ns", (json_int_t)TAPD_LD(wk->margin_ns),
			"spin_ns", (json_int_t)TAPD_LD(wk->spin_total_ns),
			"spin_capped", (json_int_t)TAPD_LD(wk->spin_capped),
			"timer_wakeups", (json_int_t)TAPD_LD(wk->timer_wakeups),
			"wake_late_ns", lateness_json(h)));
	}
	for (i = 0; i < t->nlinks; i++) {
		struct tapd_link *l = &t->links[i];
		json_t *lj = json_pack("{s:I, s:s}", "id", (json_int_t)l->id, "name", l->name);

		for (s = 0; s < 2; s++) {
			struct tapd_dir *d = &l->dir[s];
			struct tapd_params p;
			uint64_t v[12];
			json_t *dj;

			pthread_mutex_lock(&d->lock);
			p = d->pending;
			pthread_mutex_unlock(&d->lock);
			dj = json_pack("{s:I, s:I, s:f, s:I, s:i}", "delay_ns", (json_int_t)p.delay_ns,
				       "jitter_ns", (json_int_t)p.jitter_ns, "loss", p.loss,
				       "limit", (json_int_t)p.limit, "worker", d->worker);
			dir_collect(d, v, h, sum, all);
			for (k = 0; k < 12; k++)
				json_object_set_new(dj, counter_names[k], json_integer((json_int_t)v[k]));
			json_object_set_new(dj, "lateness_ns", lateness_json(h));
			json_object_set_new(lj, s ? "ba" : "ab", dj);
		}
		json_array_append_new(links, lj);
	}
	for (k = 0; k < 12; k++)
		json_object_set_new(total, counter_names[k], json_integer((json_int_t)sum[k]));
	json_object_set_new(total, "lateness_ns", lateness_json(all));
	out = json_dumps(root, JSON_COMPACT);

cleanup:
	json_decref(root);
	free(h);
	free(all);
	return out;
}

/*
 * `fidelity`: what a run's fidelity monitor samples (issue 16), small and
 * cheap enough to ask for every 100 ms: the clock, the totals that tell
 * whether the delay line kept up, and the merged lateness histogram as
 * [bucket, count] pairs of its non-empty buckets (tapd_queue.h's layout),
 * so that the caller can take quantiles over any interval by subtraction.
 */
static char *req_fidelity(struct tapd *t)
{
	struct tq_hist *h = malloc(sizeof(*h)), *all = calloc(1, sizeof(*all));
	json_t *root = NULL, *hist = json_array();
	uint64_t sum[12] = { 0 }, v[12];
	char *out = NULL;

	if (!h || !all || !hist)
		goto cleanup;
	for (size_t i = 0; i < t->nlinks; i++)
		for (int s = 0; s < 2; s++)
			dir_collect(&t->links[i].dir[s], v, h, sum, all);
	for (unsigned b = 0; b < TQ_HIST_BUCKETS; b++)
		if (all->b[b])
			json_array_append_new(hist, json_pack("[i, I]", (int)b, (json_int_t)all->b[b]));
	root = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
			 "t_ns", (json_int_t)tapd_now_ns(), "rx_packets", (json_int_t)sum[0],
			 "tx_packets", (json_int_t)sum[2], "late", (json_int_t)sum[11],
			 "dropped_nomem", (json_int_t)sum[6], "tx_errors", (json_int_t)sum[7],
			 "max_ns", (json_int_t)all->max, "hist", hist);
	hist = NULL;
	if (root)
		out = json_dumps(root, JSON_COMPACT);
cleanup:
	json_decref(hist);
	json_decref(root);
	free(h);
	free(all);
	return out;
}

/* Send @msg as messages of at most REPLY_CHUNK bytes. */
static void ctl_reply(int fd, const char *msg)
{
	size_t len = strlen(msg), off = 0;

	while (off < len) {
		size_t n = len - off > REPLY_CHUNK ? REPLY_CHUNK : len - off;
		ssize_t r = send(fd, msg + off, n, MSG_NOSIGNAL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return;		/* the client went away or is stuck: give up */
		}
		off += (size_t)r;
	}
}

void tapd_ctl_serve(struct tapd *t, int fd)
{
	struct timeval tv = { .tv_sec = CTL_TIMEOUT_MS / 1000,
			      .tv_usec = (CTL_TIMEOUT_MS % 1000) * 1000 };
	char buf[GB_TAPD_REQ_MAX + 2], reply[512], *tok[MAX_TOKENS], *save = NULL, *p;
	char *big = NULL;
	ssize_t n;
	int ntok = 0;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	if (n > GB_TAPD_REQ_MAX) {
		ctl_reply(fd, "err request too long");
		return;
	}
	buf[n] = '\0';
	for (p = strtok_r(buf, " \t\r\n", &save); p; p = strtok_r(NULL, " \t\r\n", &save)) {
		if (ntok == MAX_TOKENS) {
			ctl_reply(fd, "err too many words");
			return;
		}
		tok[ntok++] = p;
	}
	if (!ntok) {
		snprintf(reply, sizeof(reply), "err empty request");
	} else if (!strcmp(tok[0], "ping") && ntok == 1) {
		snprintf(reply, sizeof(reply), "pong");
	} else if (!strcmp(tok[0], "quit") && ntok == 1) {
		snprintf(reply, sizeof(reply), "ok");
		t->quit = 1;
	} else if (!strcmp(tok[0], "stats") && ntok == 1) {
		big = req_stats(t);
		if (!big)
			snprintf(reply, sizeof(reply), "err out of memory");
	} else if (!strcmp(tok[0], "set")) {
		req_set(t, tok, ntok, reply, sizeof(reply));
	} else if (!strcmp(tok[0], "pass")) {
		req_pass(t, tok, ntok, reply, sizeof(reply));
	} else if (!strcmp(tok[0], "fidelity") && ntok == 1) {
		big = req_fidelity(t);
		if (!big)
			snprintf(reply, sizeof(reply), "err out of memory");
	} else {
		snprintf(reply, sizeof(reply), "err unknown request '%.64s' (ping, set, pass, "
			 "stats, fidelity, quit)", tok[0]);
	}
	ctl_reply(fd, big ? big : reply);
	free(big);
}
