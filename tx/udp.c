#include <err.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../lib/timing.h"
#include "tx.h"

/*
 * The datagram modes (zcc -u). Each file is cut into datagrams of -l bytes,
 * zc's header (lib/dgram) and a slice of the file, the file's last one
 * short. A batch of them, up to snd->batch and all of one file, is built end
 * to end in a buffer, which is UDP_SEGMENT's layout, and the mode gives it to
 * the kernel: sendmsg, a call a datagram; sendmmsg, a call a batch; gso, one
 * UDP_SEGMENT send a batch; gso-zerocopy, the same with MSG_ZEROCOPY from a
 * ring of -q buffers; uring, a linked chain of SENDs a batch; uring-zc, of
 * SEND_ZCs from a ring of -q buffers.
 *
 * UDP has no flow control: each batch waits for its time at -R (tx_pace).
 */

/* How often the END goes again while zcc waits for zcs's ACK. */
#define END_REPEAT_MS 100

/* The length of datagram i of a batch of n in `bytes`: all -l but the last. */
static size_t dgram_len(const struct sender *snd, size_t bytes, unsigned n, unsigned i)
{
	return i + 1 < n ? snd->dgram_bytes : bytes - (size_t)(n - 1) * snd->dgram_bytes;
}

/*
 * -b bytes a batch, in whole datagrams: at least one, at most
 * TX_DGRAM_BATCH_MAX, and for UDP_SEGMENT no more than one UDP datagram's
 * 65507 bytes.
 */
static void setup_datagrams(struct sender *snd)
{
	size_t n = snd->bufsize / snd->dgram_bytes;

	if (n < 1)
		n = 1;
	if (n > TX_DGRAM_BATCH_MAX)
		n = TX_DGRAM_BATCH_MAX;
	if (snd->mode->gso && n * snd->dgram_bytes > DGRAM_MAX_BYTES)
		n = DGRAM_MAX_BYTES / snd->dgram_bytes;
	snd->batch = n;
	snd->bufsize = n * snd->dgram_bytes;
	tx_setup_buffers(snd);
	snd->msgs = calloc(n, sizeof(*snd->msgs));
	snd->iovs = calloc(n, sizeof(*snd->iovs));
	snd->zc_bufs = calloc(snd->depth, sizeof(*snd->zc_bufs));
	if (!snd->msgs || !snd->iovs || !snd->zc_bufs)
		err(1, "calloc");
	if (getrandom(&snd->stream_id, sizeof(snd->stream_id), 0) != sizeof(snd->stream_id))
		err(1, "getrandom");
}

/*
 * Datagrams bigger than the path's MTU go as IP fragments, which is not what
 * a datagram mode measures, and UDP_SEGMENT refuses segments that do not fit
 * it (EINVAL).
 */
static void connected_datagrams(struct sender *snd)
{
	int room = net_datagram_room(snd->sock);

	/* Never fragmented: a path that narrows mid-run refuses the next send (tx_die_sending). */
	if (net_forbid_fragments(snd->sock) < 0)
		err(1, "setting IP_PMTUDISC_DO");

	if (room > 0 && snd->dgram_bytes > (size_t)room)
		errx(1, "-l %zu: more than a datagram can carry unfragmented to the server (%d "
			"bytes: the path's MTU less the IP and UDP headers)%s", snd->dgram_bytes, room,
		     snd->mode->gso ? "; UDP_SEGMENT refuses such segments" : "");
}

static void connected_zerocopy(struct sender *snd)
{
	connected_datagrams(snd);
	tx_zc_connected(snd);
}

/*
 * The n slices of f from at, in one preadv(), again from where a short one
 * stopped; a slice of 0 bytes (an empty file's datagram) reads nothing.
 */
static void read_slices(int fd, struct iovec *iov, unsigned n, const struct tx_file *f,
			uint64_t at)
{
	unsigned i = 0;

	for (;;) {
		ssize_t got;

		while (i < n && iov[i].iov_len == 0)
			i++;
		if (i == n)
			return;
		got = preadv(fd, iov + i, n - i, at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			err(1, "read %s", f->path);
		if (got == 0)
			tx_die_shrunk(f, at);
		at += got;
		for (; i < n && (size_t)got >= iov[i].iov_len; i++)
			got -= iov[i].iov_len;
		if (got > 0) {
			iov[i].iov_base = (char *)iov[i].iov_base + got;
			iov[i].iov_len -= got;
		}
	}
}

/*
 * A batch of f's datagrams from *at, in buf: their headers, numbered on from
 * snd->datagrams, and their slices read from fd in one call (a read a slice
 * cost zcc -u -m gso half as much again as a sender that reads a batch).
 * At least one datagram: a file of 0 bytes is one of the header alone.
 * Returns how many; *bytes is their length in all.
 */
static unsigned build_batch(struct sender *snd, int fd, const struct tx_file *f, uint32_t loop,
			    uint32_t file, uint64_t *at, char *buf, size_t *bytes)
{
	size_t room = snd->dgram_bytes - DGRAM_HEADER_BYTES, pos = 0;
	uint64_t from = *at;
	unsigned n = 0;

	do {
		size_t data = f->size - *at < room ? f->size - *at : room;
		struct dgram_header h = { .kind = DGRAM_DATA, .stream = snd->stream_id,
					  .loop = loop, .seq = snd->datagrams + n, .file = file,
					  .offset = *at };

		dgram_put_header((unsigned char *)buf + pos, &h);
		pos += DGRAM_HEADER_BYTES;
		snd->iovs[n] = (struct iovec){ .iov_base = buf + pos, .iov_len = data };
		pos += data;
		*at += data;
		n++;
	} while (n < snd->batch && *at < f->size);
	read_slices(fd, snd->iovs, n, f, from);
	*bytes = pos;
	return n;
}

/* A datagram is sent whole or not at all; what was sent is counted. */
static void sent_datagram(struct sender *snd, size_t len)
{
	snd->sent += len;
	snd->datagrams++;
}

/* sendmsg: a call a datagram. */
static void send_datagrams_sendmsg(struct sender *snd, unsigned bufno, size_t bytes, unsigned n)
{
	char *p = snd->bufs[bufno];

	for (unsigned i = 0; i < n; i++) {
		struct iovec iov = { .iov_base = p, .iov_len = dgram_len(snd, bytes, n, i) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t m;

		while ((m = sendmsg(snd->sock, &msg, 0)) < 0 && errno == EINTR)
			;
		if (m < 0)
			tx_die_sending(snd, "sendmsg");
		snd->calls++;
		sent_datagram(snd, m);
		p += iov.iov_len;
	}
}

/* sendmmsg: a call a batch, again for what a call left unsent. */
static void send_datagrams_sendmmsg(struct sender *snd, unsigned bufno, size_t bytes, unsigned n)
{
	char *p = snd->bufs[bufno];

	for (unsigned i = 0; i < n; i++) {
		snd->iovs[i] = (struct iovec){ .iov_base = p, .iov_len = dgram_len(snd, bytes, n, i) };
		snd->msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &snd->iovs[i],
							      .msg_iovlen = 1 } };
		p += snd->iovs[i].iov_len;
	}
	for (unsigned done = 0; done < n;) {
		int m = sendmmsg(snd->sock, snd->msgs + done, n - done, 0);

		if (m < 0 && errno == EINTR)
			continue;
		if (m < 0)
			tx_die_sending(snd, "sendmmsg");
		snd->calls++;
		for (int i = 0; i < m; i++)
			sent_datagram(snd, snd->msgs[done + i].msg_len);
		done += m;
	}
}

/* One UDP_SEGMENT send of a batch: the kernel cuts it into datagrams of -l bytes. */
static ssize_t send_gso(struct sender *snd, char *buf, size_t bytes, int flags)
{
	char control[CMSG_SPACE(sizeof(uint16_t))] = { 0 };
	struct iovec iov = { .iov_base = buf, .iov_len = bytes };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			      .msg_controllen = sizeof(control) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	uint16_t segment = snd->dgram_bytes;

	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(segment));
	memcpy(CMSG_DATA(cm), &segment, sizeof(segment));
	return sendmsg(snd->sock, &msg, flags);
}

/* What UDP_SEGMENT's refusals mean, for the line that ends the run. */
static void __attribute__((noreturn)) gso_refused(const struct sender *snd)
{
	if (errno == EIO)
		errx(1, "-m %s: the kernel refused UDP_SEGMENT after %llu bytes (%s): segmenting "
			"needs the interface's checksum offload (ethtool -k: tx-checksumming)",
		     snd->mode->name, (unsigned long long)snd->sent, strerror(errno));
	if (errno == EINVAL)
		errx(1, "-m %s: the kernel refused UDP_SEGMENT of %zu-byte datagrams, %u a call, "
			"after %llu bytes (%s)", snd->mode->name, snd->dgram_bytes, snd->batch,
		     (unsigned long long)snd->sent, strerror(errno));
	tx_die_sending(snd, "sendmsg UDP_SEGMENT");
}

static void send_datagrams_gso(struct sender *snd, unsigned bufno, size_t bytes, unsigned n)
{
	ssize_t m;

	while ((m = send_gso(snd, snd->bufs[bufno], bytes, 0)) < 0 && errno == EINTR)
		;
	if (m < 0)
		gso_refused(snd);
	snd->calls++;
	snd->sent += m;
	snd->datagrams += n;
}

/*
 * gso-zerocopy: the buffer is held until the kernel completes the send's id
 * (tx_zc_wait, before the buffer is filled again).
 */
static void send_datagrams_gso_zerocopy(struct sender *snd, unsigned bufno, size_t bytes,
					unsigned n)
{
	struct zc_buf *z = &snd->zc_bufs[bufno];
	uint64_t refused_since = 0;
	ssize_t m;

	for (;;) {
		m = send_gso(snd, snd->bufs[bufno], bytes, MSG_ZEROCOPY);
		if (m >= 0)
			break;
		if (errno == ENOBUFS)
			tx_zc_refused(snd, &refused_since);
		else if (errno != EINTR)
			gso_refused(snd);
	}
	*z = (struct zc_buf){ .first_id = snd->next_id++, .n_ids = 1, .pending = 1 };
	snd->calls++;
	snd->sent += m;
	snd->datagrams += n;
}

static void finish_gso_zerocopy(struct sender *snd)
{
	tx_zc_wait(snd, NULL);
}

/*
 * uring: a ring with room for every send of the -q buffers, so that
 * uring-zc's notifications, which trail, never crowd out a batch.
 */
static void setup_uring(struct sender *snd)
{
	setup_datagrams(snd);
	tx_uring_open(snd, snd->batch * snd->depth, 0, IORING_SEND_ZC_REPORT_USAGE);
}

/*
 * Wait for one completion, for -W at most, and count it. A send's result
 * (user_data: its buffer) ends the run if it failed; with uring-zc a
 * notification follows it (CQE_F_MORE), and the buffer is free once every
 * notification of its batch has come.
 */
static void uring_reap_one(struct sender *snd)
{
	struct io_uring_cqe cqe;
	struct zc_buf *z;

	tx_uring_wait_cqe(snd, &cqe);
	z = &snd->zc_bufs[cqe.user_data];
	if (cqe.flags & IORING_CQE_F_NOTIF) {
		z->pending--;
		snd->zc_sends++;
		if ((uint32_t)cqe.res & IORING_NOTIF_USAGE_ZC_COPIED)
			snd->zc_copied++;
		return;
	}
	snd->results_due--;
	if (cqe.res < 0) {
		/* A chain cut short by an earlier failure says so; that failure is the one to tell. */
		if (cqe.res == -ECANCELED)
			return;
		errno = -cqe.res;
		tx_die_sending(snd, tx_uring_is_zc(snd) ? "io_uring send_zc" : "io_uring send");
	}
	sent_datagram(snd, cqe.res);
	/* pending counts the CQEs to come: SEND_ZC's notification, unless it says none follows. */
	z->pending--;
	if (tx_uring_is_zc(snd) && !(cqe.flags & IORING_CQE_F_MORE))
		z->pending--;
}

/*
 * A batch as one linked chain, so that its datagrams leave in order, and the
 * next batch only once this one's sends are done (a send that found the
 * socket's buffer full goes on later, and the next chain would pass it).
 */
static void send_datagrams_uring(struct sender *snd, unsigned bufno, size_t bytes, unsigned n)
{
	char *p = snd->bufs[bufno];
	struct zc_buf *z = &snd->zc_bufs[bufno];
	uint64_t before = snd->datagrams;

	for (unsigned i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = uring_get_sqe(&snd->ring);
		size_t len = dgram_len(snd, bytes, n, i);

		sqe->opcode = snd->mode->uring_op;
		sqe->fd = snd->sock;
		sqe->addr = (uintptr_t)p;
		sqe->len = len;
		sqe->flags = i + 1 < n ? IOSQE_IO_LINK : 0;
		sqe->user_data = bufno;
		if (tx_uring_is_zc(snd))
			sqe->ioprio = IORING_SEND_ZC_REPORT_USAGE;
		p += len;
	}
	z->pending = tx_uring_is_zc(snd) ? 2 * n : n;
	snd->results_due = n;
	if (uring_submit_and_wait(&snd->ring, 0) < 0)
		err(1, "io_uring_enter");
	snd->calls++;
	while (snd->results_due)
		uring_reap_one(snd);
	if (snd->datagrams - before < n) {
		errno = EPIPE;
		tx_die_sending(snd, "io_uring send");
	}
}

/* uring-zc: every buffer back from the kernel, so that every copy is counted. */
static void finish_uring(struct sender *snd)
{
	for (unsigned b = 0; b < snd->depth; b++)
		while (snd->zc_bufs[b].pending)
			uring_reap_one(snd);
}

/* The buffer the next batch goes in, once the kernel is done with what it held. */
static unsigned next_buffer(struct sender *snd)
{
	unsigned bufno = snd->next_buf;

	snd->next_buf = (bufno + 1) % snd->depth;
	if (snd->mode->uring_op)
		while (snd->zc_bufs[bufno].pending)
			uring_reap_one(snd);
	else if (snd->mode->counts_copies)
		tx_zc_wait(snd, &snd->zc_bufs[bufno]);
	return bufno;
}

/*
 * A datagram mode's send_stream: every file cut into datagrams, batch by
 * batch; no turns. With -t, the file set round and round until the time is
 * up, the last file whole; the END says the loops begun.
 */
static void send_stream_datagrams(struct sender *snd, tx_turn_fn turn, void *arg,
				  const struct tx_plan *plan, const struct tx_file *files,
				  size_t n_files, int debug)
{
	uint64_t start = timing_now_ns(), sent0 = snd->sent;

	(void)turn;
	(void)arg;
	snd->files = n_files;
	for (uint32_t loop = 0; plan->ns ? loop < UINT32_MAX : loop < plan->loops; loop++) {
		for (size_t i = 0; i < n_files; i++) {
			struct tx_file now;
			int fd;
			uint64_t at = 0;

			if (tx_time_up(snd, plan, start, sent0))
				return;
			if (i == 0)
				snd->loops = loop + 1;
			fd = tx_open_file(snd, &files[i], &now);

			if (debug > 1)
				tx_say_file(loop, &now);
			do {
				unsigned bufno = next_buffer(snd), n;
				size_t bytes;

				n = build_batch(snd, fd, &now, loop, i, &at, snd->bufs[bufno], &bytes);
				tx_pace(snd, bytes);
				snd->mode->send_datagrams(snd, bufno, bytes, n);
			} while (at < now.size);
			tx_close_file(snd, &files[i], fd, &now);
			snd->files_sent++;
		}
	}
}

/* zcs's ACK of this stream, if one is queued: 1 and its counts taken, or 0. */
static int take_ack(struct sender *snd)
{
	unsigned char in[DGRAM_END_BYTES + 64];
	struct dgram_header h;
	uint64_t bytes;
	ssize_t n;

	while ((n = recv(snd->sock, in, sizeof(in), MSG_DONTWAIT)) >= 0 || errno == EINTR) {
		if (n < 0 || dgram_parse(in, n, &h, &bytes) < 0 || h.kind != DGRAM_ACK ||
		    h.stream != snd->stream_id)
			continue;
		/* More than was sent is no answer of this stream's, whoever sent it. */
		if (h.seq > snd->datagrams || bytes > snd->sent) {
			if (!snd->bad_acks++)
				warnx("an ACK of this stream claims %llu datagrams (%llu bytes) of the "
				      "%llu sent (%llu bytes): ignored", (unsigned long long)h.seq,
				      (unsigned long long)bytes, (unsigned long long)snd->datagrams,
				      (unsigned long long)snd->sent);
			continue;
		}
		snd->acked = 1;
		snd->acked_datagrams = h.seq;
		snd->acked_bytes = bytes;
		return 1;
	}
	if (errno != EAGAIN && errno != EWOULDBLOCK)
		tx_die_sending(snd, "recv");
	return 0;
}

/*
 * The END, every END_REPEAT_MS (it may be lost as any datagram may), until
 * zcs answers it or wait_secs have passed: 0 if it answered, 1 if not. A
 * zero-copy mode's buffers come back after the first END, so that every copy
 * is counted and none holds the END back.
 */
static int await_ack(struct sender *snd, long wait_secs)
{
	struct dgram_header h = { .kind = DGRAM_END, .stream = snd->stream_id, .loop = snd->loops,
				  .seq = snd->datagrams, .file = snd->files };
	unsigned char end[DGRAM_END_BYTES];
	uint64_t deadline = timing_now_ns() + wait_secs * NSEC_PER_SEC;

	dgram_put_end(end, &h, snd->sent);
	for (int first = 1;; first = 0) {
		struct pollfd pfd = { .fd = snd->sock, .events = POLLIN };
		uint64_t now = timing_now_ns(), wait_ms;

		if (send(snd->sock, end, sizeof(end), 0) < 0 && errno != EINTR && errno != ENOBUFS)
			tx_die_sending(snd, "send END");
		if (first && snd->mode->finish)
			snd->mode->finish(snd);
		now = timing_now_ns();
		if (take_ack(snd))
			return 0;
		if (now >= deadline)
			return 1;
		wait_ms = (deadline - now + 999999) / 1000000;
		if (poll(&pfd, 1, wait_ms < END_REPEAT_MS ? wait_ms : END_REPEAT_MS) < 0 &&
		    errno != EINTR)
			err(1, "poll");
		if (take_ack(snd))
			return 0;
	}
}

const struct send_mode tx_dgram_sendmsg = {
	.name = "sendmsg", .send_stream = send_stream_datagrams, .await_end = await_ack,
	.setup = setup_datagrams, .connected = connected_datagrams,
	.chunked = 1, .io = NET_IO_SEND, .datagram = 1, .send_datagrams = send_datagrams_sendmsg
};
const struct send_mode tx_dgram_sendmmsg = {
	.name = "sendmmsg", .send_stream = send_stream_datagrams, .await_end = await_ack,
	.setup = setup_datagrams, .connected = connected_datagrams,
	.chunked = 1, .io = NET_IO_SEND, .datagram = 1, .send_datagrams = send_datagrams_sendmmsg
};
const struct send_mode tx_dgram_gso = {
	.name = "gso", .send_stream = send_stream_datagrams, .await_end = await_ack,
	.setup = setup_datagrams, .connected = connected_datagrams, .chunked = 1,
	.io = NET_IO_SEND, .datagram = 1, .gso = 1, .send_datagrams = send_datagrams_gso
};
const struct send_mode tx_dgram_gso_zerocopy = {
	.name = "gso-zerocopy", .send_stream = send_stream_datagrams, .await_end = await_ack,
	.setup = setup_datagrams, .connected = connected_zerocopy,
	.finish = finish_gso_zerocopy, .chunked = 1, .queued = 1, .io = NET_IO_SEND,
	.counts_copies = 1, .errqueue = 1, .datagram = 1, .gso = 1, .send_datagrams = send_datagrams_gso_zerocopy
};
/* SEND_ZC needs no SO_ZEROCOPY: io_uring brings its own notification. */
const struct send_mode tx_dgram_uring = {
	.name = "uring", .send_stream = send_stream_datagrams, .await_end = await_ack,
	.setup = setup_uring, .connected = connected_datagrams, .chunked = 1,
	.io = NET_IO_SEND, .uring_op = IORING_OP_SEND, .datagram = 1,
	.send_datagrams = send_datagrams_uring
};
const struct send_mode tx_dgram_uring_zc = {
	.name = "uring-zc", .send_stream = send_stream_datagrams, .await_end = await_ack,
	.setup = setup_uring, .connected = connected_datagrams,
	.finish = finish_uring, .chunked = 1, .queued = 1, .io = NET_IO_SEND, .counts_copies = 1,
	.uring_op = IORING_OP_SEND_ZC, .datagram = 1, .send_datagrams = send_datagrams_uring
};
