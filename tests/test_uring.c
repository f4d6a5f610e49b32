#include <errno.h>
#include <time.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/uring.h"
#include "check.h"

/* Where the kernel refuses a ring, the tests that need one skip, saying why. */
static char why_no_ring[sizeof(((struct uring *)0)->err)];

#define OPEN_OR_SKIP(r, entries)                                                             \
	do {                                                                                 \
		if (uring_open((r), (entries)) < 0) {                                        \
			snprintf(why_no_ring, sizeof(why_no_ring), "%s", (r)->err);          \
			SKIP(why_no_ring);                                                   \
		}                                                                            \
	} while (0)

/* A registered buffer, read from a pipe with READ_FIXED and sent with SEND: both arrive. */
static void fixed_read_linked_to_send_moves_the_bytes(void)
{
	struct uring r;
	struct io_uring_sqe *rd, *sd;
	struct io_uring_cqe cqe;
	static char buf[4096] __attribute__((aligned(4096)));
	struct iovec iov = { buf, sizeof(buf) };
	char got[16] = "";
	int p[2], sv[2], n = 0, res[2] = { -1, -1 };

	OPEN_OR_SKIP(&r, 4);
	CHECK(pipe(p) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(write(p[1], "hello", 5) == 5);
	CHECK(uring_register_buffers(&r, &iov, 1) == 0);
	rd = uring_get_sqe(&r);
	sd = uring_get_sqe(&r);
	CHECK(rd && sd);
	rd->opcode = IORING_OP_READ_FIXED;
	rd->fd = p[0];
	rd->addr = (uintptr_t)buf;
	rd->len = 5;
	rd->off = -1;
	rd->flags = IOSQE_IO_LINK;
	rd->user_data = 0;
	sd->opcode = IORING_OP_SEND;
	sd->fd = sv[0];
	sd->addr = (uintptr_t)buf;
	sd->len = 5;
	sd->user_data = 1;
	CHECK(uring_submit_and_wait(&r, 2) == 0);
	while (n < 2 && uring_take_cqe(&r, &cqe))
		res[cqe.user_data & 1] = cqe.res, n++;
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(res[0], 5);
	CHECK_EQ_U64(res[1], 5);
	CHECK(read(sv[1], got, sizeof(got)) == 5);
	CHECK_STR(got, "hello");
	CHECK(!uring_take_cqe(&r, &cqe));
	uring_close(&r);
	close(p[0]), close(p[1]), close(sv[0]), close(sv[1]);
}

/* The ring hands out as many entries as it has, then NULL until they are submitted. */
static void a_full_submission_queue_gives_null(void)
{
	struct uring r;
	struct io_uring_cqe cqe;
	unsigned n = 0;

	OPEN_OR_SKIP(&r, 4);
	while (uring_get_sqe(&r)) /* zeroed: IORING_OP_NOP */
		n++;
	CHECK_EQ_U64(n, r.sq_entries);
	CHECK(uring_submit_and_wait(&r, n) == 0);
	CHECK(uring_get_sqe(&r) != NULL);
	r.queued = 0;
	for (unsigned i = 0; i < n; i++)
		CHECK(uring_take_cqe(&r, &cqe) && cqe.res == 0);
	uring_close(&r);
}

/* The probe knows NOP, which every ring has, and no opcode past the last. */
static void the_probe_knows_nop_and_not_beyond_the_last_op(void)
{
	struct uring r;

	OPEN_OR_SKIP(&r, 2);
	CHECK(uring_supports(&r, IORING_OP_NOP) == 1);
	CHECK(uring_supports(&r, 255) == 0);
	uring_close(&r);
}

/* A read of an empty pipe never completes: the bounded wait gives up with ETIME. */
static void a_bounded_wait_gives_up_in_time(void)
{
	struct uring r;
	struct io_uring_sqe *rd;
	struct io_uring_cqe cqe;
	struct timespec t0, t1;
	char buf[8];
	int p[2], rc;
	double secs;

	OPEN_OR_SKIP(&r, 2);
	if (!(r.features & IORING_FEAT_EXT_ARG)) {
		uring_close(&r);
		SKIP("this kernel cannot bound an io_uring wait (Linux 5.11 or later)");
	}
	CHECK(pipe(p) == 0);
	rd = uring_get_sqe(&r);
	rd->opcode = IORING_OP_READ;
	rd->fd = p[0];
	rd->addr = (uintptr_t)buf;
	rd->len = sizeof(buf);
	rd->off = -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = uring_submit_and_wait_ns(&r, 1, 200000000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	CHECK(rc == -1 && errno == ETIME);
	CHECK(secs >= 0.15 && secs < 2);
	CHECK(!uring_take_cqe(&r, &cqe));
	uring_close(&r);
	close(p[0]), close(p[1]);
}

/* The probe of SEND_ZC's flags tells a flag the kernel has from one it has not. */
static void the_send_zc_probe_tells_known_flags_from_unknown(void)
{
	struct uring r;
	int rc;

	OPEN_OR_SKIP(&r, 2);
	rc = uring_supports(&r, IORING_OP_SEND_ZC);
	uring_close(&r);
	if (rc != 1)
		SKIP("this kernel's io_uring has no SEND_ZC (Linux 6.0 or later)");
	CHECK(uring_send_zc_takes(&r, 0) == 1);
	/* No kernel has defined bit 15 of SEND_ZC's flags. */
	CHECK(uring_send_zc_takes(&r, 1U << 15) == 0);
	rc = uring_send_zc_takes(&r, IORING_SEND_ZC_REPORT_USAGE);
	if (rc == 0)
		SKIP("this kernel's SEND_ZC has no IORING_SEND_ZC_REPORT_USAGE (Linux 6.2 or later)");
	CHECK(rc == 1);
}

int main(void)
{
	RUN(fixed_read_linked_to_send_moves_the_bytes);
	RUN(a_full_submission_queue_gives_null);
	RUN(the_probe_knows_nop_and_not_beyond_the_last_op);
	RUN(a_bounded_wait_gives_up_in_time);
	RUN(the_send_zc_probe_tells_known_flags_from_unknown);
	return CHECK_EXIT();
}
