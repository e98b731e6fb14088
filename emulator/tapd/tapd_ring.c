// SPDX-License-Identifier: MIT
/*
 * tapd_ring.c - a minimal io_uring ring on the raw system calls (tapd_ring.h).
 *
 * The layout is the kernel's (io_uring_setup(2)): the submission ring (head,
 * tail, mask, an index array) and the completion ring (head, tail, mask, the
 * completions) are shared memory, mapped at IORING_OFF_SQ_RING and
 * IORING_OFF_CQ_RING (one mapping when the kernel has
 * IORING_FEAT_SINGLE_MMAP), the submission entries at IORING_OFF_SQES.  The
 * index array is filled once with the identity, so entry i of the array is
 * always sqes[i]: a submission is written at sq_tail & sq_mask and published
 * by storing the tail (release) before io_uring_enter(2).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tapd_ring.h"

static int ring_setup(unsigned entries, struct io_uring_params *p)
{
#ifdef __NR_io_uring_setup
	long fd = syscall(__NR_io_uring_setup, entries, p);

	return fd < 0 ? -errno : (int)fd;
#else
	(void)entries;
	(void)p;
	return -ENOSYS;
#endif
}

static void *map(int fd, size_t len, off_t off)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, off);

	return m == MAP_FAILED ? NULL : m;
}

int tapd_ring_init(struct tapd_ring *r, unsigned entries)
{
	struct io_uring_params p;
	unsigned i;
	int fd, err;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = 4 * entries;
	fd = ring_setup(entries, &p);
	if (fd < 0)
		return fd;
	r->fd = fd;
	/* The timeout argument of io_uring_enter (5.11), and completions never dropped. */
	if (!(p.features & IORING_FEAT_EXT_ARG) || !(p.features & IORING_FEAT_NODROP)) {
		err = -EOPNOTSUPP;
		goto fail;
	}
	r->sq_map_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	r->cq_map_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->cq_map_len > r->sq_map_len)
			r->sq_map_len = r->cq_map_len;
		r->sq_map = map(fd, r->sq_map_len, IORING_OFF_SQ_RING);
		r->cq_map = r->sq_map;
		r->cq_map_len = 0;
	} else {
		r->sq_map = map(fd, r->sq_map_len, IORING_OFF_SQ_RING);
		r->cq_map = map(fd, r->cq_map_len, IORING_OFF_CQ_RING);
	}
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = map(fd, r->sqes_len, IORING_OFF_SQES);
	if (!r->sq_map || !r->cq_map || !r->sqes) {
		err = -ENOMEM;
		goto fail;
	}
	r->sq_khead = (unsigned *)((char *)r->sq_map + p.sq_off.head);
	r->sq_ktail = (unsigned *)((char *)r->sq_map + p.sq_off.tail);
	r->sq_array = (unsigned *)((char *)r->sq_map + p.sq_off.array);
	r->sq_mask = *(unsigned *)((char *)r->sq_map + p.sq_off.ring_mask);
	r->sq_entries = p.sq_entries;
	r->sq_tail = *r->sq_ktail;
	r->cq_khead = (unsigned *)((char *)r->cq_map + p.cq_off.head);
	r->cq_ktail = (unsigned *)((char *)r->cq_map + p.cq_off.tail);
	r->cq_mask = *(unsigned *)((char *)r->cq_map + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)r->cq_map + p.cq_off.cqes);
	for (i = 0; i < p.sq_entries; i++)
		r->sq_array[i] = i;
	return 0;

fail:
	tapd_ring_release(r);
	return err;
}

void tapd_ring_release(struct tapd_ring *r)
{
	if (r->sqes)
		munmap(r->sqes, r->sqes_len);
	if (r->cq_map && r->cq_map != r->sq_map)
		munmap(r->cq_map, r->cq_map_len);
	if (r->sq_map)
		munmap(r->sq_map, r->sq_map_len);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

struct io_uring_sqe *tapd_ring_sqe(struct tapd_ring *r)
{
	struct io_uring_sqe *sqe;

	if (tapd_ring_unsubmitted(r) >= r->sq_entries)
		return NULL;
	sqe = &r->sqes[r->sq_tail & r->sq_mask];
	r->sq_tail++;
	memset(sqe, 0, sizeof(*sqe));
	return sqe;
}

int tapd_ring_enter(struct tapd_ring *r, unsigned wait_nr, long long timeout_ns)
{
	struct __kernel_timespec ts;
	struct io_uring_getevents_arg arg;
	unsigned n;
	long ret;

	__atomic_store_n(r->sq_ktail, r->sq_tail, __ATOMIC_RELEASE);
	n = tapd_ring_unsubmitted(r);
	if (!wait_nr) {
		if (!n)
			return 0;
		ret = syscall(__NR_io_uring_enter, r->fd, n, 0, 0, NULL, 0);
		return ret < 0 ? -errno : (int)ret;
	}
	memset(&arg, 0, sizeof(arg));
	if (timeout_ns >= 0) {
		ts.tv_sec = timeout_ns / 1000000000ll;
		ts.tv_nsec = timeout_ns % 1000000000ll;
		arg.ts = (uint64_t)(uintptr_t)&ts;
	}
	ret = syscall(__NR_io_uring_enter, r->fd, n, wait_nr,
		      IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &arg, sizeof(arg));
	return ret < 0 ? -errno : (int)ret;
}
