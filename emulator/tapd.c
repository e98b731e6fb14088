// SPDX-License-Identifier: MIT
/*
 * tapd.c - gridemu-tapd: command line, configuration, TUN devices, control
 * socket and signals.  The data path is in tapd_worker.c; the protocol and
 * the configuration format are documented in tapd.h.
 *
 * Startup, in an order chosen so that a failure at any step leaves nothing
 * behind and "R" on the ready fd means that everything is in place:
 *
 *   parse and validate the whole configuration     (nothing created yet)
 *   for each link, side a then b:
 *       setns(side's netns); refuse an existing name; open /dev/net/tun;
 *       TUNSETIFF(IFF_TUN | IFF_NO_PI | IFF_VNET_HDR); setns(back)
 *       (a TUN device lives in the namespace its fd was opened in)
 *   TUNSETOFFLOAD each device (TSO only where its egress has no loss)
 *   bind the control socket, write the pidfile, start the workers
 *   write "R" to the ready fd
 *
 * Everything that fails before "R" ends in fail_startup(): one line on
 * stderr and "E<line>" on the ready fd, then the fds are closed (which
 * destroys the non-persistent devices), the socket and pidfile removed.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <linux/if_tun.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "tapd.h"
#include "tapd_priv.h"

#define PROG "gridemu-tapd"
#define DEFAULT_LIMIT 1000u
#define DEFAULT_SEED 1u
#define RT_PRIO 10
#define DEFAULT_SPIN_PCT 25
#define MAX_THREADS 64
/* A worker's packet pool never exceeds this (see tapd_queue.h). */
#define POOL_MAX ((size_t)1 << 30)
/* Replies are sent in messages of at most this size (SEQPACKET). */
#define REPLY_CHUNK 32768
#define CTL_TIMEOUT_MS 1000

struct tapd {
	/* Options. */
	const char *config_path, *ctl_path, *pid_path, *log_path, *send_req;
	int ready_fd;
	int threads;
	int foreground, no_offload, no_rt;
	int persist; /* --persist: devices outlive us and die with their namespaces */
	int64_t spin_ns;
	unsigned spin_pct;

	/* Configuration. */
	uint64_t seed;
	struct tapd_link *links;
	size_t nlinks;

	/* Runtime. */
	struct tapd_worker *workers;
	int nworkers;
	struct tapd_dir **dirv;     /* every direction, grouped by worker */
	int listen_fd, sig_fd, ep_fd;
	int ctl_bound, pid_written, quit;
	uint64_t start_ns;
	char err[1024];
};

__attribute__((format(printf, 2, 3)))
static int set_err(struct tapd *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

__attribute__((format(printf, 1, 2)))
static void logmsg(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/* ---- configuration ----------------------------------------------------- */

/* Is every key of @obj in @allowed (NULL-terminated)?  Names the first
 * stranger in t->err. */
static int cfg_keys(struct tapd *t, const char *place, json_t *obj, const char *const *allowed)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		const char *const *a;

		for (a = allowed; *a; a++)
			if (!strcmp(*a, key))
				break;
		if (!*a)
			return set_err(t, "%s: %s: unknown key '%s'", t->config_path, place, key);
	}
	return 0;
}

static int cfg_uint(struct tapd *t, const char *place, json_t *v, uint64_t max, uint64_t *out)
{
	json_int_t x;

	if (!json_is_integer(v))
		return set_err(t, "%s: %s: expected an integer", t->config_path, place);
	x = json_integer_value(v);
	if (x < 0 || (uint64_t)x > max)
		return set_err(t, "%s: %s: %lld is out of range [0, %" PRIu64 "]",
			       t->config_path, place, (long long)x, max);
	*out = (uint64_t)x;
	return 0;
}

static int valid_ifname(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= IFNAMSIZ || !strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || *s == '%' || isspace((unsigned char)*s) ||
		    !isprint((unsigned char)*s))
			return 0;
	return 1;
}

static int cfg_params(struct tapd *t, const char *place, json_t *obj, struct tapd_params *p)
{
	static const char *const keys[] = { "delay_ns", "jitter_ns", "loss", "limit", NULL };
	char sub[128];
	uint64_t x;
	json_t *v;
	int err;

	p->delay_ns = 0;
	p->jitter_ns = 0;
	p->loss = 0;
	p->limit = DEFAULT_LIMIT;
	if (!obj)
		return 0;
	if (!json_is_object(obj))
		return set_err(t, "%s: %s: expected an object", t->config_path, place);
	if ((err = cfg_keys(t, place, obj, keys)) < 0)
		return err;
	if ((v = json_object_get(obj, "delay_ns"))) {
		snprintf(sub, sizeof(sub), "%s.delay_ns", place);
		if ((err = cfg_uint(t, sub, v, TAPD_MAX_DELAY_NS, &p->delay_ns)) < 0)
			return err;
	}
	if ((v = json_object_get(obj, "jitter_ns"))) {
		snprintf(sub, sizeof(sub), "%s.jitter_ns", place);
		if ((err = cfg_uint(t, sub, v, TAPD_MAX_DELAY_NS, &p->jitter_ns)) < 0)
			return err;
	}
	if ((v = json_object_get(obj, "loss"))) {
		double l = json_number_value(v);

		if (!json_is_number(v))
			return set_err(t, "%s: %s.loss: expected a number", t->config_path, place);
		if (!(l >= 0 && l <= 1))
			return set_err(t, "%s: %s.loss: %g is not a probability in [0, 1]",
				       t->config_path, place, l);
		p->loss = l;
	}
	if ((v = json_object_get(obj, "limit"))) {
		snprintf(sub, sizeof(sub), "%s.limit", place);
		if ((err = cfg_uint(t, sub, v, TAPD_MAX_LIMIT, &x)) < 0)
			return err;
		if (!x)
			return set_err(t, "%s: %s: the limit must be at least 1 packet",
				       t->config_path, sub);
		p->limit = (uint32_t)x;
	}
	return 0;
}

static int cfg_side(struct tapd *t, const char *place, json_t *obj, struct tapd_side *s)
{
	static const char *const keys[] = { "netns", "ifname", NULL };
	json_t *ns, *ifn;
	int err;

	if (!obj)
		return set_err(t, "%s: %s: missing (an object with netns and ifname)",
			       t->config_path, place);
	if (!json_is_object(obj))
		return set_err(t, "%s: %s: expected an object", t->config_path, place);
	if ((err = cfg_keys(t, place, obj, keys)) < 0)
		return err;
	ns = json_object_get(obj, "netns");
	ifn = json_object_get(obj, "ifname");
	if (!json_is_string(ns) || !*json_string_value(ns) ||
	    strlen(json_string_value(ns)) >= PATH_MAX)
		return set_err(t, "%s: %s.netns: expected the path of a network namespace",
			       t->config_path, place);
	if (!json_is_string(ifn))
		return set_err(t, "%s: %s.ifname: expected an interface name", t->config_path,
			       place);
	if (!valid_ifname(json_string_value(ifn)))
		return set_err(t, "%s: %s.ifname: '%s' is not a valid interface name "
			       "(1-15 printable characters, no '/', ':', '%%' or space)",
			       t->config_path, place, json_string_value(ifn));
	s->netns = strdup(json_string_value(ns));
	if (!s->netns)
		return set_err(t, "%s: out of memory", t->config_path);
	snprintf(s->ifname, sizeof(s->ifname), "%s", json_string_value(ifn));
	return 0;
}

static int cfg_link(struct tapd *t, size_t i, json_t *obj, struct tapd_link *l)
{
	static const char *const keys[] = { "id", "name", "a", "b", "ab", "ba", NULL };
	static const char *const side_name[2] = { "a", "b" };
	static const char *const dir_name[2] = { "ab", "ba" };
	char place[64], sub[80];
	uint64_t id;
	json_t *v;
	int k, err;

	snprintf(place, sizeof(place), "links[%zu]", i);
	if (!json_is_object(obj))
		return set_err(t, "%s: %s: expected an object", t->config_path, place);
	if ((err = cfg_keys(t, place, obj, keys)) < 0)
		return err;
	snprintf(sub, sizeof(sub), "%s.id", place);
	if (!(v = json_object_get(obj, "id")))
		return set_err(t, "%s: %s: missing", t->config_path, sub);
	if ((err = cfg_uint(t, sub, v, INT64_MAX, &id)) < 0)
		return err;
	l->id = (int64_t)id;
	v = json_object_get(obj, "name");
	if (!json_is_string(v) || !*json_string_value(v))
		return set_err(t, "%s: %s.name: expected a non-empty string", t->config_path,
			       place);
	l->name = strdup(json_string_value(v));
	if (!l->name)
		return set_err(t, "%s: out of memory", t->config_path);
	for (k = 0; k < 2; k++) {
		snprintf(sub, sizeof(sub), "%s.%s", place, side_name[k]);
		if ((err = cfg_side(t, sub, json_object_get(obj, side_name[k]), &l->side[k])) < 0)
			return err;
		snprintf(sub, sizeof(sub), "%s.%s", place, dir_name[k]);
		if ((err = cfg_params(t, sub, json_object_get(obj, dir_name[k]),
				      &l->dir[k].pending)) < 0)
			return err;
	}
	return 0;
}

/* Two links with one id, or two devices with one name in one namespace,
 * can only be a bug in whoever wrote the file. */
static int cfg_unique(struct tapd *t)
{
	static const char *const side_name[2] = { "a", "b" };
	size_t i, j;
	int s, u;

	for (i = 0; i < t->nlinks; i++) {
		for (j = 0; j < i; j++) {
			if (t->links[i].id == t->links[j].id)
				return set_err(t, "%s: links[%zu].id: %" PRId64 " is also the id of "
					       "links[%zu]", t->config_path, i, t->links[i].id, j);
		}
		for (s = 0; s < 2; s++) {
			const struct tapd_side *a = &t->links[i].side[s];

			for (j = 0; j <= i; j++) {
				for (u = 0; u < 2 && (j < i || u < s); u++) {
					const struct tapd_side *b = &t->links[j].side[u];

					if (!strcmp(a->netns, b->netns) && !strcmp(a->ifname, b->ifname))
						return set_err(t, "%s: links[%zu].%s: device '%s' in %s "
							       "is also links[%zu].%s", t->config_path,
							       i, side_name[s], a->ifname, a->netns, j,
							       side_name[u]);
				}
			}
		}
	}
	return 0;
}

static int cfg_load(struct tapd *t)
{
	static const char *const keys[] = { "seed", "links", NULL };
	json_error_t jerr;
	json_t *root, *links, *v;
	size_t i;
	int err;

	root = json_load_file(t->config_path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (jerr.line > 0)
			return set_err(t, "%s:%d:%d: %s", t->config_path, jerr.line, jerr.column,
				       jerr.text);
		return set_err(t, "%s: %s", t->config_path, jerr.text);
	}
	if (!json_is_object(root)) {
		err = set_err(t, "%s: expected a JSON object at the top", t->config_path);
		goto cleanup;
	}
	if ((err = cfg_keys(t, "top level", root, keys)) < 0)
		goto cleanup;
	t->seed = DEFAULT_SEED;
	if ((v = json_object_get(root, "seed")) &&
	    (err = cfg_uint(t, "seed", v, INT64_MAX, &t->seed)) < 0)
		goto cleanup;
	links = json_object_get(root, "links");
	if (!json_is_array(links)) {
		err = set_err(t, "%s: links: expected an array", t->config_path);
		goto cleanup;
	}
	t->nlinks = json_array_size(links);
	t->links = calloc(t->nlinks ? t->nlinks : 1, sizeof(*t->links));
	if (!t->links) {
		err = set_err(t, "%s: out of memory", t->config_path);
		goto cleanup;
	}
	for (i = 0; i < t->nlinks; i++) {
		t->links[i].side[0].fd = t->links[i].side[1].fd = -1;
		pthread_mutex_init(&t->links[i].dir[0].lock, NULL);
		pthread_mutex_init(&t->links[i].dir[1].lock, NULL);
	}
	for (i = 0; i < t->nlinks; i++) {
		if ((err = cfg_link(t, i, json_array_get(links, i), &t->links[i])) < 0)
			goto cleanup;
	}
	err = cfg_unique(t);

cleanup:
	json_decref(root);
	return err;
}

/* ---- TUN devices ------------------------------------------------------- */

/* Create TUN device @ifname in the namespace at @netns; the caller's
 * namespace is @self_ns and is restored before returning (a failure to
 * restore is -ENOTRECOVERABLE: the caller must not go on). */
static int tun_create(const char *netns, const char *ifname, int self_ns, int *fdp)
{
	struct ifreq ifr;
	int nsfd, fd = -1, err = 0;

	nsfd = open(netns, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return -errno;
	if (setns(nsfd, CLONE_NEWNET) < 0) {
		err = -errno;
		close(nsfd);
		return err;
	}
	close(nsfd);
	/* TUNSETIFF on an existing name would attach to it, not create. */
	if (if_nametoindex(ifname)) {
		err = -EEXIST;
		goto restore;
	}
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto restore;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		err = -errno;
		close(fd);
		fd = -1;
	}
restore:
	if (setns(self_ns, CLONE_NEWNET) < 0) {
		if (fd >= 0)
			close(fd);
		return -ENOTRECOVERABLE;
	}
	*fdp = fd;
	return err;
}

/* Offload what the direction leaving through @s allows (tapd.h, Offloads).
 * Older kernels refuse unknown bits with EINVAL: fall back step by step. */
static void tun_offload(struct tapd *t, struct tapd_side *s, double loss)
{
	unsigned want[4], i, n = 0;

	if (!t->no_offload) {
		if (loss == 0) {
			want[n++] = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN;
			want[n++] = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
		}
		want[n++] = TUN_F_CSUM;
	}
	want[n++] = 0;
	if (s->offload == want[0])
		return;
	for (i = 0; i < n; i++) {
		if (ioctl(s->fd, TUNSETOFFLOAD, (unsigned long)want[i]) == 0) {
			s->offload = want[i];
			return;
		}
	}
}

/* Closing the last fd of a TUN device unregisters it, and each
 * unregistration waits for RCU (about 16 ms on the CI VM): 160 devices
 * closed one by one took 2.6 s, longer than gridemu is willing to wait
 * after SIGTERM.  The waits overlap across threads (0.34 s with 16, about
 * 0.1 s with 128 for teragrid's 154 devices), so the fds are closed by many
 * small threads at once.  Same at startup failure. */
#define CLOSE_THREADS 128
#define CLOSE_SERIAL_MAX 8

struct closer {
	struct tapd *t;
	size_t first, stride;
};

static void *closer_main(void *arg)
{
	const struct closer *c = arg;
	size_t k;

	for (k = c->first; k < 2 * c->t->nlinks; k += c->stride) {
		struct tapd_side *s = &c->t->links[k / 2].side[k % 2];

		if (s->fd >= 0)
			close(s->fd);
		s->fd = -1;
	}
	return NULL;
}

static void links_close(struct tapd *t)
{
	struct closer c[CLOSE_THREADS];
	pthread_t th[CLOSE_THREADS];
	unsigned char started[CLOSE_THREADS] = { 0 };
	pthread_attr_t attr;
	size_t n = 1, i;

	if (2 * t->nlinks > CLOSE_SERIAL_MAX)
		n = CLOSE_THREADS;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024); /* they only call close() */
	for (i = 0; i < n; i++)
		c[i] = (struct closer){ .t = t, .first = i, .stride = n };
	/* Slice 0 is closed by this thread; a slice whose thread cannot be
	 * created is closed here too. */
	for (i = 1; i < n; i++) {
		if (pthread_create(&th[i], &attr, closer_main, &c[i]) == 0)
			started[i] = 1;
		else
			closer_main(&c[i]);
	}
	pthread_attr_destroy(&attr);
	closer_main(&c[0]);
	for (i = 1; i < n; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

/*
 * --persist (what gridemu uses): once every device exists, mark them
 * persistent, so that closing our fds no longer unregisters them one by one
 * (~16 ms each, serialised on the RTNL lock).  They then live exactly as
 * long as their namespaces, and `gridemu down` deleting the namespaces lets
 * the kernel remove them all in one batch.  Done only after a complete
 * start, so a failed start still leaves nothing behind.
 */
static int links_persist(struct tapd *t)
{
	for (size_t k = 0; k < 2 * t->nlinks; k++) {
		struct tapd_side *s = &t->links[k / 2].side[k % 2];

		if (ioctl(s->fd, TUNSETPERSIST, 1UL) < 0) {
			int err = errno;

			while (k-- > 0) /* undo, so that a failed start leaves nothing */
				ioctl(t->links[k / 2].side[k % 2].fd, TUNSETPERSIST, 0UL);
			return set_err(t, "link '%s': cannot make tun '%s' persistent: %s",
				       t->links[k / 2].name, s->ifname, strerror(err));
		}
	}
	return 0;
}

static int links_create(struct tapd *t)
{
	int self_ns, err = 0, s;
	size_t i;

	self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self_ns < 0)
		return set_err(t, "cannot open /proc/self/ns/net: %s", strerror(errno));
	for (i = 0; i < t->nlinks && !err; i++) {
		struct tapd_link *l = &t->links[i];

		for (s = 0; s < 2 && !err; s++) {
			err = tun_create(l->side[s].netns, l->side[s].ifname, self_ns,
					 &l->side[s].fd);
			if (err == -ENOTRECOVERABLE)
				set_err(t, "link '%s': cannot return to the daemon's network "
					"namespace after creating tun '%s'", l->name,
					l->side[s].ifname);
			else if (err < 0)
				set_err(t, "link '%s': cannot create tun '%s' in %s: %s", l->name,
					l->side[s].ifname, l->side[s].netns, strerror(-err));
		}
	}
	close(self_ns);
	if (err < 0) {
		links_close(t);
		return err;
	}
	for (i = 0; i < t->nlinks; i++) {
		struct tapd_link *l = &t->links[i];

		for (s = 0; s < 2; s++) {
			struct tapd_dir *d = &l->dir[s];

			/* Direction s leaves through side s and enters side 1 - s. */
			d->link = l;
			d->which = s;
			d->rx_fd = l->side[s].fd;
			d->tx_fd = l->side[1 - s].fd;
			l->side[s].offload = ~0u;
			tun_offload(t, &l->side[s], d->pending.loss);
			tq_rng_seed(&d->loss_rng, t->seed, (uint64_t)l->id * 4 + (uint64_t)s * 2);
			tq_rng_seed(&d->jitter_rng, t->seed,
				    (uint64_t)l->id * 4 + (uint64_t)s * 2 + 1);
		}
	}
	return 0;
}

/* ---- workers ----------------------------------------------------------- */

static int workers_start(struct tapd *t)
{
	size_t i, k = 0;
	int w, err;

	t->nworkers = t->threads;
	if ((size_t)t->nworkers > t->nlinks)
		t->nworkers = (int)t->nlinks;
	if (!t->nworkers)
		return 0;
	t->workers = calloc((size_t)t->nworkers, sizeof(*t->workers));
	t->dirv = calloc(2 * t->nlinks, sizeof(*t->dirv));
	if (!t->workers || !t->dirv)
		return set_err(t, "out of memory");
	for (w = 0; w < t->nworkers; w++)
		t->workers[w].epfd = t->workers[w].timerfd = t->workers[w].stopfd = -1;
	/* Round-robin: link i goes to worker i % n, both its directions, so
	 * that one heap orders everything the link carries.  (Putting the two
	 * directions of one busy link in two threads was measured and did not
	 * help: the cost is the kernel's TCP work inside write(2).) */
	for (w = 0; w < t->nworkers; w++) {
		size_t first = k, nl = 0;

		for (i = (size_t)w; i < t->nlinks; i += (size_t)t->nworkers) {
			t->dirv[k++] = &t->links[i].dir[0];
			t->dirv[k++] = &t->links[i].dir[1];
			t->links[i].dir[0].worker = t->links[i].dir[1].worker = w;
			nl++;
		}
		err = tapd_worker_init(&t->workers[w], w, t->dirv + first, k - first, nl, POOL_MAX,
				       t->spin_ns, t->spin_pct);
		if (err < 0)
			return set_err(t, "cannot set up worker %d: %s", w, strerror(-err));
	}
	for (w = 0; w < t->nworkers; w++) {
		err = tapd_worker_start(&t->workers[w], t->no_rt ? 0 : RT_PRIO);
		if (err < 0)
			return set_err(t, "cannot start worker %d: %s", w, strerror(-err));
		if (!t->no_rt && !t->workers[w].fifo)
			logmsg("worker %d: SCHED_FIFO refused, running SCHED_OTHER "
			       "(timing will be noisier)", w);
	}
	return 0;
}

static void workers_release(struct tapd *t)
{
	int w;

	for (w = 0; w < t->nworkers; w++)
		tapd_worker_release(&t->workers[w]);
	free(t->workers);
	free(t->dirv);
	t->workers = NULL;
	t->dirv = NULL;
	t->nworkers = 0;
}

/* ---- control socket ------------------------------------------------------ */

static int ctl_listen(struct tapd *t)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, r;

	if (strlen(t->ctl_path) >= sizeof(sa.sun_path))
		return set_err(t, "control socket '%s': path too long", t->ctl_path);
	strcpy(sa.sun_path, t->ctl_path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return set_err(t, "control socket '%s': %s", t->ctl_path, strerror(errno));
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
		int e = errno;

		close(fd);
		return set_err(t, "control socket '%s': %s", t->ctl_path,
			       e == EADDRINUSE ? "another daemon is listening there" : strerror(e));
	}
	t->listen_fd = fd;
	t->ctl_bound = 1;
	return 0;
}

static int pidfile_write(struct tapd *t)
{
	char tmp[PATH_MAX];
	FILE *f;
	int ok;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", t->pid_path, (int)getpid()) >=
	    sizeof(tmp))
		return set_err(t, "pidfile '%s': path too long", t->pid_path);
	f = fopen(tmp, "we");
	if (!f)
		return set_err(t, "pidfile '%s': %s", tmp, strerror(errno));
	ok = fprintf(f, "%d\n", (int)getpid()) > 0;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, t->pid_path) < 0) {
		int e = errno;

		unlink(tmp);
		return set_err(t, "pidfile '%s': %s", t->pid_path, strerror(e));
	}
	t->pid_written = 1;
	return 0;
}

/* A strict unsigned decimal no larger than @max. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
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
	if (parse_u64(tok[1], INT64_MAX, &id) < 0 || !(l = link_by_id(t, (int64_t)id))) {
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
		if (parse_u64(val, k == 3 ? TAPD_MAX_LIMIT : TAPD_MAX_DELAY_NS, &x) < 0 ||
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
	tun_offload(t, &l->side[which], p.loss);
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
	json_object_set_new(root, "offload", json_boolean(!t->no_offload));
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
			counters_read(&d->c, v);
			for (k = 0; k < 12; k++) {
				json_object_set_new(dj, counter_names[k], json_integer((json_int_t)v[k]));
				sum[k] = k == 10 ? (v[k] > sum[k] ? v[k] : sum[k]) : sum[k] + v[k];
			}
			tq_hist_snapshot(&d->lateness, h);
			tq_hist_merge(all, h);
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

static void ctl_serve(struct tapd *t, int fd)
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
	} else {
		snprintf(reply, sizeof(reply), "err unknown request '%.64s' (ping, set, stats, "
			 "quit)", tok[0]);
	}
	ctl_reply(fd, big ? big : reply);
	free(big);
}

/* ---- main ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --config FILE [--ready-fd N] [--control PATH] [--pidfile PATH]\n"
		"                    [--log PATH] [--threads K] [--foreground] [--spin-us N]\n"
		"                    [--spin-budget PCT] [--no-offload] [--no-rt] [--persist]\n"
		"       " PROG " --control PATH --send REQUEST\n"
		"The userspace delay line of gridemu's tap backend; see emulator/tapd.h.\n");
}

static int parse_args(struct tapd *t, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "control", required_argument, NULL, 's' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "log", required_argument, NULL, 'l' },
		{ "threads", required_argument, NULL, 't' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "spin-us", required_argument, NULL, 'S' },
		{ "spin-budget", required_argument, NULL, 'B' },
		{ "no-offload", no_argument, NULL, 'O' },
		{ "no-rt", no_argument, NULL, 'R' },
		{ "persist", no_argument, NULL, 'P' },
		{ "send", required_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t x;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c': t->config_path = optarg; break;
		case 's': t->ctl_path = optarg; break;
		case 'p': t->pid_path = optarg; break;
		case 'l': t->log_path = optarg; break;
		case 'f': t->foreground = 1; break;
		case 'O': t->no_offload = 1; break;
		case 'R': t->no_rt = 1; break;
		case 'P': t->persist = 1; break;
		case 'q': t->send_req = optarg; break;
		case 'h': usage(stdout); exit(0);
		case 'r':
			if (parse_u64(optarg, INT_MAX, &x) < 0 || fcntl((int)x, F_GETFD) < 0)
				return set_err(t, "--ready-fd: '%s' is not an open file descriptor",
					       optarg);
			t->ready_fd = (int)x;
			fcntl(t->ready_fd, F_SETFD, FD_CLOEXEC);
			break;
		case 't':
			if (parse_u64(optarg, MAX_THREADS, &x) < 0 || !x)
				return set_err(t, "--threads: '%s' is not a number in [1, %d]",
					       optarg, MAX_THREADS);
			t->threads = (int)x;
			break;
		case 'B':
			if (parse_u64(optarg, 100, &x) < 0)
				return set_err(t, "--spin-budget: '%s' is not a percentage in [0, 100]",
					       optarg);
			t->spin_pct = (unsigned)x;
			break;
		case 'S':
			if (parse_u64(optarg, 100000, &x) < 0)
				return set_err(t, "--spin-us: '%s' is not a number in [0, 100000]",
					       optarg);
			t->spin_ns = (int64_t)x * 1000;
			break;
		default:
			return set_err(t, "bad usage (see --help)");
		}
	}
	if (optind < argc)
		return set_err(t, "unexpected argument '%s' (see --help)", argv[optind]);
	if (t->send_req && !t->ctl_path)
		return set_err(t, "--send needs --control PATH");
	if (!t->send_req && !t->config_path)
		return set_err(t, "--config FILE is required (see --help)");
	return 0;
}

static int client_main(struct tapd *t)
{
	/* `stats` takes about 1.5 KiB per link: room for thousands. */
	size_t len = (size_t)16 << 20;
	char *reply = malloc(len);
	int r, ret;

	if (!reply) {
		logmsg("out of memory");
		return 1;
	}
	r = gb_tapd_request(t->ctl_path, t->send_req, reply, len);
	if (r < 0) {
		logmsg("control socket '%s': %s", t->ctl_path, strerror(-r));
		ret = 1;
	} else {
		printf("%s\n", reply);
		ret = strncmp(reply, "err", 3) ? 0 : 1;
	}
	free(reply);
	return ret;
}

static void ready_say(struct tapd *t, const char *what)
{
	size_t len = strlen(what), off = 0;

	if (t->ready_fd < 0)
		return;
	while (off < len) {
		ssize_t n = write(t->ready_fd, what + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(t->ready_fd);
	t->ready_fd = -1;
}

static void teardown(struct tapd *t)
{
	size_t i;

	workers_release(t);
	links_close(t);
	if (t->listen_fd >= 0)
		close(t->listen_fd);
	if (t->sig_fd >= 0)
		close(t->sig_fd);
	if (t->ep_fd >= 0)
		close(t->ep_fd);
	t->listen_fd = t->sig_fd = t->ep_fd = -1;
	if (t->ctl_bound)
		unlink(t->ctl_path);
	if (t->pid_written)
		unlink(t->pid_path);
	t->ctl_bound = t->pid_written = 0;
	for (i = 0; i < t->nlinks; i++) {
		free(t->links[i].name);
		free(t->links[i].side[0].netns);
		free(t->links[i].side[1].netns);
		pthread_mutex_destroy(&t->links[i].dir[0].lock);
		pthread_mutex_destroy(&t->links[i].dir[1].lock);
	}
	free(t->links);
	t->links = NULL;
	t->nlinks = 0;
}

static int fail_startup(struct tapd *t)
{
	char *line;
	size_t len = strlen(t->err) + sizeof(PROG) + 4;

	logmsg("%s", t->err);
	line = malloc(len);
	if (line) {
		snprintf(line, len, "E" PROG ": %s\n", t->err);
		ready_say(t, line);
		free(line);
	} else {
		ready_say(t, "E" PROG ": out of memory\n");
	}
	teardown(t);
	return 1;
}

static int serve(struct tapd *t)
{
	struct epoll_event ev = { .events = EPOLLIN };

	ev.data.fd = t->sig_fd;
	if (epoll_ctl(t->ep_fd, EPOLL_CTL_ADD, t->sig_fd, &ev) < 0)
		return -errno;
	if (t->listen_fd >= 0) {
		ev.data.fd = t->listen_fd;
		if (epoll_ctl(t->ep_fd, EPOLL_CTL_ADD, t->listen_fd, &ev) < 0)
			return -errno;
	}
	while (!t->quit) {
		struct epoll_event evs[4];
		int n = epoll_wait(t->ep_fd, evs, 4, -1), i;

		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == t->sig_fd) {
				struct signalfd_siginfo si;

				if (read(t->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
					logmsg("signal %u: exiting", si.ssi_signo);
					t->quit = 1;
				}
				continue;
			}
			for (;;) {
				int cfd = accept4(t->listen_fd, NULL, NULL, SOCK_CLOEXEC);

				if (cfd < 0)
					break;
				ctl_serve(t, cfd);
				close(cfd);
			}
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tapd t = {
		.ready_fd = -1, .listen_fd = -1, .sig_fd = -1, .ep_fd = -1, .spin_ns = -1,
		.spin_pct = DEFAULT_SPIN_PCT,
	};
	sigset_t mask;
	long ncpu;

	t.start_ns = tapd_now_ns();
	if (parse_args(&t, argc, argv) < 0)
		return fail_startup(&t);
	if (t.send_req)
		return client_main(&t);
	if (!t.threads) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		t.threads = ncpu >= 2 ? 2 : 1;
	}
	if (t.log_path) {
		int fd = open(t.log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		if (fd < 0) {
			set_err(&t, "log '%s': %s", t.log_path, strerror(errno));
			return fail_startup(&t);
		}
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
		setvbuf(stdout, NULL, _IOLBF, 0);
	}
	if (cfg_load(&t) < 0)
		return fail_startup(&t);
	if (!t.foreground) {
		/* gridemu already forked us into our own session; be sure. */
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (getsid(0) != getpid())
			setsid();
		if (nul >= 0) {
			dup2(nul, STDIN_FILENO);
			close(nul);
		}
	}
	/* Signals are read from a signalfd by the main thread; the workers
	 * inherit the blocked mask and never see them. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	t.sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	t.ep_fd = epoll_create1(EPOLL_CLOEXEC);
	if (t.sig_fd < 0 || t.ep_fd < 0) {
		set_err(&t, "cannot set up the event loop: %s", strerror(errno));
		return fail_startup(&t);
	}

	if (links_create(&t) < 0)
		return fail_startup(&t);
	if (t.ctl_path && ctl_listen(&t) < 0)
		return fail_startup(&t);
	if (t.pid_path && pidfile_write(&t) < 0)
		return fail_startup(&t);
	if (workers_start(&t) < 0)
		return fail_startup(&t);
	if (t.persist && links_persist(&t) < 0)
		return fail_startup(&t);
	ready_say(&t, "R");
	logmsg("ready: %zu links, %d workers (%s), offload %s, pid %d", t.nlinks, t.nworkers,
	       t.nworkers && t.workers[0].fifo ? "SCHED_FIFO" : "SCHED_OTHER",
	       t.no_offload ? "off" : "on", (int)getpid());

	if (serve(&t) < 0)
		logmsg("event loop failed: %s", strerror(errno));
	teardown(&t);
	logmsg("stopped");
	return 0;
}
