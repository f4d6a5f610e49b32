/*
 * uring: the little of io_uring that zcc needs, on the raw system calls: one
 * ring, registered buffers, submitting and reaping. Errors come back as text.
 */
#ifndef ZC_URING_H
#define ZC_URING_H

#include <stdint.h>
#include <sys/uio.h>
#include <linux/io_uring.h>

/* What <linux/io_uring.h> older than Linux 6.2 lacks; the running kernel may have it. */
#ifndef IORING_CQE_F_NOTIF
#define IORING_OP_SEND_ZC 47
#define IORING_CQE_F_NOTIF (1U << 3)
#define IORING_RECVSEND_FIXED_BUF (1U << 2)
#endif
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

struct uring {
	int fd;
	unsigned *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned sq_entries;
	unsigned features;	/* IORING_FEAT_* */
	unsigned queued;	/* prepared and not yet submitted */
	void *sq_map, *cq_map;
	size_t sq_map_bytes, cq_map_bytes, sqes_bytes;
	char err[200];
};

/*
 * A ring of at least `entries` submission entries (twice as many completion
 * entries). Returns 0, or -1 with r->err saying why, naming
 * /proc/sys/kernel/io_uring_disabled when that is what refused it.
 */
int uring_open(struct uring *r, unsigned entries);
void uring_close(struct uring *r);

/*
 * Whether the running kernel knows an opcode (IORING_REGISTER_PROBE): 1 or 0;
 * -1 with r->err when it cannot say (a kernel older than 5.6).
 */
int uring_supports(struct uring *r, unsigned opcode);

/*
 * Whether the running kernel's SEND_ZC takes these flags in its ioprio
 * (IORING_SEND_ZC_REPORT_USAGE came in Linux 6.2, SEND_ZC in 6.0): 1 or 0;
 * -1 with r->err when it cannot say. r is only for the error: the probe has
 * a ring of its own.
 */
int uring_send_zc_takes(struct uring *r, unsigned flags);

/* Pin n buffers for IORING_OP_READ_FIXED and the sends' FIXED_BUF. 0, or -1 and r->err. */
int uring_register_buffers(struct uring *r, const struct iovec *iov, unsigned n);

/* The next submission entry, zeroed; NULL when the ring is full of unsubmitted ones. */
struct io_uring_sqe *uring_get_sqe(struct uring *r);

/*
 * Submit what was prepared and wait until at least wait_nr completions are
 * in the ring. Returns 0, or -1 with errno set (EINTR is retried).
 */
int uring_submit_and_wait(struct uring *r, unsigned wait_nr);

/*
 * As uring_submit_and_wait(), but waiting at most timeout_ns: -1 with errno
 * ETIME when the completions did not come in time. A kernel older than 5.11
 * (no IORING_FEAT_EXT_ARG) cannot bound the wait, and waits as long as it takes.
 */
int uring_submit_and_wait_ns(struct uring *r, unsigned wait_nr, uint64_t timeout_ns);

/* Take one completion if there is one: 1 and *cqe filled, or 0. */
int uring_take_cqe(struct uring *r, struct io_uring_cqe *cqe);

#endif
