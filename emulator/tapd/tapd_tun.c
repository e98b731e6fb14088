// SPDX-License-Identifier: MIT
/*
 * tapd_tun.c - gridemu-tapd: the TUN devices: created in their namespaces,
 * offloads, persistence, closing (tapd_daemon.h); and the packet sockets
 * of "packet" sides (tapd.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <sys/socket.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/un.h>
#include <unistd.h>

#include "tapd.h"
#include "tapd_daemon.h"

/* ---- TUN devices ------------------------------------------------------- */

/* In the current namespace: create TUN device @ifname. */
static int tun_create(const char *ifname, int *fdp)
{
	struct ifreq ifr;
	int fd;

	/* TUNSETIFF on an existing name would attach to it, not create. */
	if (if_nametoindex(ifname))
		return -EEXIST;
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

/* In the current namespace: a packet socket on the existing device
 * @ifname (tapd.h, "kind": "packet"), with the TUN devices' virtio-net
 * header. */
static int packet_open(const char *ifname, int *fdp)
{
	struct sockaddr_ll sll;
	int fd, one = 1, buf = 4 << 20;
	unsigned idx;

	if (!(idx = if_nametoindex(ifname)))
		return -ENODEV;
	/* SOCK_RAW: the kernel allows the virtio-net header on no other kind */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_IP));
	if (fd < 0)
		return -errno;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_IP);
	sll.sll_ifindex = (int)idx;
	/* IGNORE_OUTGOING: not our own sends (kernels before 4.20 lack it,
	 * and then the sending socket is skipped anyway). */
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (const struct sockaddr *)&sll, sizeof(sll)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

/* Open side @s in its namespace: create its TUN device, or its packet
 * socket.  The caller's namespace is @self_ns and is restored before
 * returning (a failure to restore is -ENOTRECOVERABLE: the caller must not
 * go on). */
static int side_open(struct tapd_side *s, int self_ns)
{
	int nsfd, fd = -1, err;

	nsfd = open(s->netns, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return -errno;
	if (setns(nsfd, CLONE_NEWNET) < 0) {
		err = -errno;
		close(nsfd);
		return err;
	}
	close(nsfd);
	err = s->packet ? packet_open(s->ifname, &fd) : tun_create(s->ifname, &fd);
	if (setns(self_ns, CLONE_NEWNET) < 0) {
		if (fd >= 0)
			close(fd);
		return -ENOTRECOVERABLE;
	}
	s->fd = fd;
	return err;
}

/* Offload what the direction leaving through @s allows (tapd.h, Offloads).
 * Older kernels refuse unknown bits with EINVAL: fall back step by step. */
void tapd_tun_offload(struct tapd *t, struct tapd_side *s, double loss)
{
	unsigned want[4], i, n = 0;

	if (s->packet)
		return; /* a socket: what the device does is the kernel's business */
	if (!t->no_offload && !s->no_gso) {
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

void tapd_links_close(struct tapd *t)
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
int tapd_links_persist(struct tapd *t, struct gb_err *e)
{
	for (size_t k = 0; k < 2 * t->nlinks; k++) {
		struct tapd_side *s = &t->links[k / 2].side[k % 2];

		if (!s->packet && ioctl(s->fd, TUNSETPERSIST, 1UL) < 0) {
			int err = errno;

			while (k-- > 0) /* undo, so that a failed start leaves nothing */
				if (!t->links[k / 2].side[k % 2].packet)
					ioctl(t->links[k / 2].side[k % 2].fd, TUNSETPERSIST, 0UL);
			return tapd_fail(e, "link '%s': cannot make tun '%s' persistent: %s",
					 t->links[k / 2].name, s->ifname, strerror(err));
		}
	}
	return 0;
}

int tapd_links_create(struct tapd *t, struct gb_err *e)
{
	int self_ns, err = 0, s;
	size_t i;

	self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self_ns < 0)
		return tapd_fail(e, "cannot open /proc/self/ns/net: %s", strerror(errno));
	for (i = 0; i < t->nlinks && !err; i++) {
		struct tapd_link *l = &t->links[i];

		for (s = 0; s < 2 && !err; s++) {
			struct tapd_side *sd = &l->side[s];

			err = side_open(sd, self_ns);
			if (err == -ENOTRECOVERABLE)
				tapd_fail(e, "link '%s': cannot return to the daemon's network "
					  "namespace after opening '%s'", l->name, sd->ifname);
			else if (err < 0)
				tapd_fail(e, "link '%s': cannot %s '%s' in %s: %s", l->name,
					  sd->packet ? "open a packet socket on" : "create tun",
					  sd->ifname, sd->netns, strerror(-err));
			/* a TUN facing a packet side hands over whole packets: a
			 * socket on another machine's tunnel takes no TSO frames */
			l->side[1 - s].no_gso |= sd->packet;
		}
	}
	close(self_ns);
	if (err < 0) {
		tapd_links_close(t);
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
			d->rx_packet = l->side[s].packet;
			d->tx_packet = l->side[1 - s].packet;
			l->side[s].offload = ~0u;
			tapd_tun_offload(t, &l->side[s], d->pending.loss);
			tq_rng_seed(&d->loss_rng, t->seed, (uint64_t)l->id * 4 + (uint64_t)s * 2);
			tq_rng_seed(&d->jitter_rng, t->seed,
				    (uint64_t)l->id * 4 + (uint64_t)s * 2 + 1);
		}
	}
	return 0;
}
