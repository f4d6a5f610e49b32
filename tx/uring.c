#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "../lib/timing.h"
#include "tx.h"

/*
 * uring and uring-zc: io_uring, from buffers registered once. Each chunk is
 * a READ_FIXED into a buffer linked to a SEND (or SEND_ZC) from it; a batch
 * of chunks is one chain, so the sends go out in file order, and one
 * io_uring_enter() submits it. A short read breaks the chain: the file shrank.
 * The next batch is submitted once this one's sends have completed. SEND_ZC
 * holds a buffer until its notification, which waits for the peer's ACK: so
 * uring-zc fills at most half its buffers a batch, and sends one half while
 * the other is still held.
 */
enum { URING_READ, URING_SEND };

int tx_uring_is_zc(const struct sender *snd)
{
	return snd->mode->uring_op == IORING_OP_SEND_ZC;
}

static void require_op(struct sender *snd, unsigned op, const char *name, const char *since)
{
	int rc = uring_supports(&snd->ring, op);

	if (rc < 0)
		errx(1, "-m %s: %s", snd->mode->name, snd->ring.err);
	if (rc == 0)
		errx(1, "-m %s: this kernel's io_uring has no %s (Linux %s or later)",
		     snd->mode->name, name, since);
}

static void require_send_zc_flags(struct sender *snd, unsigned flags)
{
	int rc = uring_send_zc_takes(&snd->ring, flags);

	if (rc < 0)
		errx(1, "-m %s: %s", snd->mode->name, snd->ring.err);
	if (rc == 0)
		errx(1, "-m %s: this kernel's SEND_ZC cannot say whether it copied "
			"(IORING_SEND_ZC_REPORT_USAGE, Linux 6.2 or later)", snd->mode->name);
}

void tx_uring_open(struct sender *snd, unsigned entries, int read_fixed, unsigned zc_flags)
{
	if (uring_open(&snd->ring, entries) < 0)
		errx(1, "-m %s: %s", snd->mode->name, snd->ring.err);
	if (read_fixed)
		require_op(snd, IORING_OP_READ_FIXED, "READ_FIXED", "5.1");
	if (tx_uring_is_zc(snd)) {
		require_op(snd, IORING_OP_SEND_ZC, "SEND_ZC", "6.0");
		require_send_zc_flags(snd, zc_flags);
	} else {
		require_op(snd, IORING_OP_SEND, "SEND", "5.6");
	}
}

static void setup_uring(struct sender *snd)
{
	struct iovec *iov = calloc(snd->depth, sizeof(*iov));

	tx_setup_buffers(snd);
	snd->zc_bufs = calloc(snd->depth, sizeof(*snd->zc_bufs));
	if (!iov || !snd->zc_bufs)
		err(1, "calloc");
	for (unsigned i = 0; i < snd->depth; i++)
		iov[i] = (struct iovec){ .iov_base = snd->bufs[i], .iov_len = snd->bufsize };
	tx_uring_open(snd, 2 * snd->depth, 1,
		      IORING_RECVSEND_FIXED_BUF | IORING_SEND_ZC_REPORT_USAGE);
	if (uring_register_buffers(&snd->ring, iov, snd->depth) < 0)
		errx(1, "-m %s: %s", snd->mode->name, snd->ring.err);
	free(iov);
}

static void prep_chunk(struct sender *snd, int fd, unsigned bufno, size_t len, uint64_t at,
		       int last)
{
	struct io_uring_sqe *rd = uring_get_sqe(&snd->ring), *sd = uring_get_sqe(&snd->ring);
	int zc = tx_uring_is_zc(snd);

	rd->opcode = IORING_OP_READ_FIXED;
	rd->fd = fd;
	rd->addr = (uintptr_t)snd->bufs[bufno];
	rd->len = len;
	rd->off = at;
	rd->buf_index = bufno;
	rd->flags = IOSQE_IO_LINK;
	rd->user_data = bufno << 1 | URING_READ;
	sd->opcode = zc ? IORING_OP_SEND_ZC : IORING_OP_SEND;
	sd->fd = snd->sock;
	sd->addr = (uintptr_t)snd->bufs[bufno];
	sd->len = len;
	sd->msg_flags = MSG_WAITALL | MSG_NOSIGNAL;
	/* Registered buffers for SEND_ZC only: plain SEND takes them from Linux 6.10 on. */
	if (zc) {
		/*
		 * The next chunk's data may not join this one's last skb: io_uring
		 * would link the two notifications, and this buffer would come back
		 * only with the next. Paced (zcc -R), a sender waiting for it let
		 * the stream drain, and over loopback held a quarter of 256 MiB/s.
		 */
		sd->msg_flags |= MSG_EOR;
		sd->ioprio = IORING_RECVSEND_FIXED_BUF | IORING_SEND_ZC_REPORT_USAGE;
		sd->buf_index = bufno;
	}
	sd->flags = last ? 0 : IOSQE_IO_LINK;
	sd->user_data = bufno << 1 | URING_SEND;
	snd->zc_bufs[bufno].pending = 1;
}

void tx_uring_wait_cqe(struct sender *snd, struct io_uring_cqe *cqe)
{
	uint64_t deadline = timing_now_ns() + snd->wait_secs * NSEC_PER_SEC;

	while (!uring_take_cqe(&snd->ring, cqe)) {
		uint64_t now = timing_now_ns();

		if (now >= deadline)
			errx(1, "io_uring completed nothing within %ld s (-W) after %llu bytes",
			     snd->wait_secs, (unsigned long long)snd->sent);
		if (uring_submit_and_wait_ns(&snd->ring, 1, deadline - now) < 0 && errno != ETIME)
			err(1, "io_uring_enter");
	}
}

/*
 * Wait for one completion, for -W at most, and account for it: a read's or a
 * send's result goes to rd[] or sd[] by buffer; a notification frees its
 * buffer.
 */
static void uring_reap_one(struct sender *snd, int *rd, int *sd)
{
	struct io_uring_cqe cqe;
	unsigned bufno;

	tx_uring_wait_cqe(snd, &cqe);
	bufno = cqe.user_data >> 1;
	if ((cqe.user_data & 1) == URING_READ) {
		rd[bufno] = cqe.res;
	} else if (cqe.flags & IORING_CQE_F_NOTIF) {
		/* The kernel is done with the buffer, and says whether it copied it. */
		snd->zc_bufs[bufno].pending = 0;
		snd->zc_sends++;
		if ((uint32_t)cqe.res & IORING_NOTIF_USAGE_ZC_COPIED)
			snd->zc_copied++;
	} else {
		sd[bufno] = cqe.res;
		if (cqe.res > 0) {
			snd->sent += cqe.res;
			snd->calls++;
		}
		/* MORE: a notification follows; without it the buffer is free now. */
		if (!(cqe.flags & IORING_CQE_F_MORE))
			snd->zc_bufs[bufno].pending = 0;
	}
}

/* The first failure in the chain, in chain order, ends the run. */
static void check_batch(struct sender *snd, const struct tx_file *f, uint64_t at,
			const unsigned *bufnos, const size_t *len, const int *rd, const int *sd,
			unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned b = bufnos[i];

		if (rd[b] < 0) {
			errno = -rd[b];
			err(1, "read %s", f->path);
		}
		if ((size_t)rd[b] < len[i])
			tx_die_shrunk(f, at + rd[b]);
		if (sd[b] < 0 || (size_t)sd[b] < len[i]) {
			int e = 0;
			socklen_t elen = sizeof(e);

			/* A short send was cut off by a socket error, which the socket still holds. */
			if (sd[b] >= 0 && getsockopt(snd->sock, SOL_SOCKET, SO_ERROR, &e, &elen) == 0)
				errno = e ? e : EPIPE;
			else
				errno = -sd[b];
			tx_die_sending(snd, tx_uring_is_zc(snd) ? "io_uring send_zc" : "io_uring send");
		}
		at += len[i];
	}
}

#define URING_UNSET INT32_MIN

static void send_data_uring(struct sender *snd, int fd, const struct tx_file *f)
{
	unsigned batch_max = tx_uring_is_zc(snd) && snd->depth > 1 ? snd->depth / 2
									: snd->depth;
	unsigned bufnos[TX_MAX_DEPTH];
	size_t len[TX_MAX_DEPTH];
	int rd[TX_MAX_DEPTH], sd[TX_MAX_DEPTH];

	for (uint64_t at = 0; at < f->size;) {
		uint64_t next = at;
		unsigned n = 0, done;

		/*
		 * Every buffer of the batch is free before any of it is prepared:
		 * waiting submits what the ring holds, and a chain cut off there,
		 * its last SEND still linked, would run beside the rest of the batch.
		 */
		for (; n < batch_max && next < f->size; n++) {
			unsigned b = (snd->next_buf + n) % snd->depth;

			while (snd->zc_bufs[b].pending)
				uring_reap_one(snd, rd, sd);
			bufnos[n] = b;
			len[n] = tx_chunk_at(snd, f, next);
			next += len[n];
		}
		next = at;
		for (unsigned i = 0; i < n; i++) {
			rd[bufnos[i]] = sd[bufnos[i]] = URING_UNSET;
			prep_chunk(snd, fd, bufnos[i], len[i], next, i + 1 == n);
			next += len[i];
		}
		snd->next_buf = (snd->next_buf + n) % snd->depth;
		if (uring_submit_and_wait(&snd->ring, 0) < 0)
			err(1, "io_uring_enter");
		do {
			done = 0;
			for (unsigned i = 0; i < n; i++)
				done += rd[bufnos[i]] != URING_UNSET && sd[bufnos[i]] != URING_UNSET;
			if (done < n)
				uring_reap_one(snd, rd, sd);
		} while (done < n);
		check_batch(snd, f, at, bufnos, len, rd, sd, n);
		at = next;
	}
}

/* uring-zc: every buffer back from the kernel, so that every copy is counted. */
static void finish_uring(struct sender *snd)
{
	int rd[TX_MAX_DEPTH], sd[TX_MAX_DEPTH];

	for (unsigned b = 0; b < snd->depth; b++)
		while (snd->zc_bufs[b].pending)
			uring_reap_one(snd, rd, sd);
}

const struct send_mode tx_uring = { .name = "uring", .send_stream = tx_stream_send,
				.await_end = tx_stream_await_close, .setup = setup_uring,
				    .send_data = send_data_uring, .chunked = 1, .queued = 1,
				    .io = NET_IO_SEND, .uring_op = IORING_OP_SEND };
const struct send_mode tx_uring_zc = { .name = "uring-zc", .send_stream = tx_stream_send,
				.await_end = tx_stream_await_close, .setup = setup_uring,
				       .send_data = send_data_uring, .finish = finish_uring,
				       .chunked = 1, .queued = 1, .io = NET_IO_SEND,
				       .counts_copies = 1, .uring_op = IORING_OP_SEND_ZC };
