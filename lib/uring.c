#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uring.h"

/* The same numbers on every architecture since Linux 5.1; older libc headers lack them. */
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#define __NR_io_uring_enter 426
#define __NR_io_uring_register 427
#endif

#ifndef IORING_ENTER_EXT_ARG
#define IORING_ENTER_EXT_ARG (1U << 3)
#define IORING_FEAT_EXT_ARG (1U << 8)
#endif

/* struct io_uring_getevents_arg and __kernel_timespec, for headers older than 5.11. */
struct getevents_arg {
	uint64_t sigmask;
	uint32_t sigmask_sz, pad;
	uint64_t ts;
};

struct kernel_timespec {
	int64_t tv_sec;
	long long tv_nsec;
};

#define DISABLED_SYSCTL "/proc/sys/kernel/io_uring_disabled"

/* Why io_uring_setup() said EPERM or ENOSYS, in words a user can act on. */
static void explain_setup_error(struct uring *r, int e)
{
	char val[16] = "";
	FILE *f = fopen(DISABLED_SYSCTL, "r");

	if (f) {
		if (!fgets(val, sizeof(val), f))
			val[0] = '\0';
		fclose(f);
		val[strcspn(val, "\n")] = '\0';
	}
	if (e == EPERM && val[0] && strcmp(val, "0") != 0)
		snprintf(r->err, sizeof(r->err), "io_uring is disabled (%s is %s)", DISABLED_SYSCTL,
			 val);
	else if (e == ENOSYS)
		snprintf(r->err, sizeof(r->err), "this kernel has no io_uring (io_uring_setup: %s)",
			 strerror(e));
	else
		snprintf(r->err, sizeof(r->err), "io_uring_setup: %s", strerror(e));
}

int uring_open(struct uring *r, unsigned entries)
{
	struct io_uring_params p = { 0 };

	memset(r, 0, sizeof(*r));
	r->fd = syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0) {
		explain_setup_error(r, errno);
		return -1;
	}
	r->sq_map_bytes = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	r->cq_map_bytes = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	r->sqes_bytes = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sq_map = mmap(NULL, r->sq_map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			 r->fd, IORING_OFF_SQ_RING);
	r->cq_map = mmap(NULL, r->cq_map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			 r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, r->sqes_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       r->fd, IORING_OFF_SQES);
	if (r->sq_map == MAP_FAILED || r->cq_map == MAP_FAILED || r->sqes == MAP_FAILED) {
		snprintf(r->err, sizeof(r->err), "mapping the io_uring: %s", strerror(errno));
		uring_close(r);
		return -1;
	}
	r->sq_head = (unsigned *)((char *)r->sq_map + p.sq_off.head);
	r->sq_tail = (unsigned *)((char *)r->sq_map + p.sq_off.tail);
	r->sq_mask = (unsigned *)((char *)r->sq_map + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)((char *)r->sq_map + p.sq_off.array);
	r->cq_head = (unsigned *)((char *)r->cq_map + p.cq_off.head);
	r->cq_tail = (unsigned *)((char *)r->cq_map + p.cq_off.tail);
	r->cq_mask = (unsigned *)((char *)r->cq_map + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)r->cq_map + p.cq_off.cqes);
	r->sq_entries = p.sq_entries;
	r->features = p.features;
	return 0;
}

void uring_close(struct uring *r)
{
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_bytes);
	if (r->cq_map && r->cq_map != MAP_FAILED)
		munmap(r->cq_map, r->cq_map_bytes);
	if (r->sq_map && r->sq_map != MAP_FAILED)
		munmap(r->sq_map, r->sq_map_bytes);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->sqes = NULL;
	r->cq_map = r->sq_map = NULL;
}

/* Room for every opcode a probe can report (its op count is a byte). */
#define PROBE_OPS 256

int uring_supports(struct uring *r, unsigned opcode)
{
	struct io_uring_probe *p = calloc(1, sizeof(*p) + PROBE_OPS * sizeof(p->ops[0]));
	int yes;

	if (!p) {
		snprintf(r->err, sizeof(r->err), "probing io_uring: %s", strerror(errno));
		return -1;
	}
	if (syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_PROBE, p, PROBE_OPS) < 0) {
		snprintf(r->err, sizeof(r->err), "probing io_uring: %s", strerror(errno));
		free(p);
		return -1;
	}
	yes = opcode <= p->last_op && (p->ops[opcode].flags & IO_URING_OP_SUPPORTED);
	free(p);
	return yes;
}

/*
 * SEND_ZC checks its flags when it is prepared, and only then, when it is
 * issued, that its file is a socket: to /dev/null it fails with EINVAL if the
 * flags are unknown, with ENOTSOCK if they are not. A ring of its own keeps
 * the request's completions away from the caller's.
 */
int uring_send_zc_takes(struct uring *r, unsigned flags)
{
	struct uring t;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe cqe;
	int fd, rc = -1;

	if (uring_open(&t, 2) < 0) {
		memcpy(r->err, t.err, sizeof(r->err));
		return -1;
	}
	fd = open("/dev/null", O_WRONLY);
	sqe = uring_get_sqe(&t);
	if (fd < 0) {
		snprintf(r->err, sizeof(r->err), "/dev/null: %s", strerror(errno));
		goto out;
	}
	sqe->opcode = IORING_OP_SEND_ZC;
	sqe->fd = fd;
	sqe->ioprio = flags;
	if (uring_submit_and_wait(&t, 1) < 0 || !uring_take_cqe(&t, &cqe)) {
		snprintf(r->err, sizeof(r->err), "probing SEND_ZC: %s", strerror(errno));
		goto out;
	}
	rc = cqe.res != -EINVAL;
out:
	if (fd >= 0)
		close(fd);
	uring_close(&t);
	return rc;
}

int uring_register_buffers(struct uring *r, const struct iovec *iov, unsigned n)
{
	if (syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_BUFFERS, iov, n) < 0) {
		snprintf(r->err, sizeof(r->err), "registering %u buffers of %zu bytes: %s%s", n,
			 iov[0].iov_len, strerror(errno),
			 errno == ENOMEM ? " (ulimit -l: they are locked in memory)" : "");
		return -1;
	}
	return 0;
}

struct io_uring_sqe *uring_get_sqe(struct uring *r)
{
	unsigned head = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
	unsigned tail = *r->sq_tail + r->queued, idx;

	if (tail - head >= r->sq_entries)
		return NULL;
	idx = tail & *r->sq_mask;
	r->sq_array[idx] = idx;
	r->queued++;
	memset(&r->sqes[idx], 0, sizeof(r->sqes[idx]));
	return &r->sqes[idx];
}

static unsigned cq_ready(const struct uring *r)
{
	return __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) - *r->cq_head;
}

/* Publish what was prepared and enter the kernel; arg, if any, bounds the wait. */
static int submit(struct uring *r, unsigned wait_nr, const struct getevents_arg *arg)
{
	unsigned to_submit = r->queued;
	unsigned flags = (wait_nr ? IORING_ENTER_GETEVENTS : 0) | (arg ? IORING_ENTER_EXT_ARG : 0);

	/* The kernel reads the entries once it sees the new tail: publish them first. */
	__atomic_store_n(r->sq_tail, *r->sq_tail + r->queued, __ATOMIC_RELEASE);
	r->queued = 0;
	for (;;) {
		long n = syscall(__NR_io_uring_enter, r->fd, to_submit, wait_nr, flags, arg,
				 arg ? sizeof(*arg) : 0);

		if (n >= 0) {
			to_submit -= n;
			if (to_submit > 0)
				continue;
			/* A call that submitted says so even when its bounded wait ran out. */
			if (arg && wait_nr > cq_ready(r)) {
				errno = ETIME;
				return -1;
			}
			return 0;
		}
		if (errno != EINTR)
			return -1;
	}
}

int uring_submit_and_wait(struct uring *r, unsigned wait_nr)
{
	return submit(r, wait_nr, NULL);
}

int uring_submit_and_wait_ns(struct uring *r, unsigned wait_nr, uint64_t timeout_ns)
{
	struct kernel_timespec ts = { .tv_sec = timeout_ns / 1000000000,
				      .tv_nsec = timeout_ns % 1000000000 };
	struct getevents_arg arg = { .ts = (uintptr_t)&ts };

	if (!(r->features & IORING_FEAT_EXT_ARG))
		return submit(r, wait_nr, NULL);
	return submit(r, wait_nr, &arg);
}

int uring_take_cqe(struct uring *r, struct io_uring_cqe *cqe)
{
	unsigned head = *r->cq_head;

	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return 0;
	*cqe = r->cqes[head & *r->cq_mask];
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return 1;
}
