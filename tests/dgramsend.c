/*
 * dgramsend: a minimal sender of zc's datagrams, sharing no code with zc,
 * against which scripts/dgram-sender-cost holds zcc -u's own cost. It sends
 * FILE LOOPS times to 127.0.0.1 PORT as datagrams of LEN bytes in zc's
 * format (docs/programs.txt, "Datagrams": a 32-byte header, then the slice),
 * a batch at a time, each batch's slices read in one preadv(), as fast as
 * the mode goes; then its END until zcs's ACK (2 s at most). It prints
 *
 *	sent B bytes, D datagrams, cpu U S
 *
 * with its own user and system CPU seconds, and exits 0 (1 without an ACK).
 *
 *   dgramsend MODE PORT LEN LOOPS FILE
 *	MODE: sendmsg (a call a datagram), sendmmsg (a call a batch), gso (a
 *	UDP_SEGMENT send a batch), gso-zerocopy (the same with MSG_ZEROCOPY,
 *	from 4 buffers), uring (a linked chain of SENDs a batch), uring-zc (of
 *	SEND_ZCs, from 4 buffers). A batch: 64 datagrams, for gso at most
 *	65507 bytes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "peer.h"

#define BATCH 64
#define BUFFERS 4

static int sock, fd, zc, gso, uring;
static const char *mode;
static size_t len, batch;
static unsigned char *bufs[BUFFERS];
static struct iovec iovs[BATCH];
static struct mmsghdr msgs[BATCH];
static uint64_t datagrams, bytes;
static uint32_t stream = 0x5e4d0001;

static void die(const char *what)
{
	perror(what);
	exit(2);
}


/* io_uring, by its system calls: the rings mapped, a batch's SQEs, and the CQEs. */
static struct {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned queued;
} ring;

static void ring_open(unsigned entries)
{
	struct io_uring_params p = { 0 };
	unsigned char *sq, *cq;

	ring.fd = syscall(SYS_io_uring_setup, entries, &p);
	if (ring.fd < 0)
		die("io_uring_setup");
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * 4, PROT_READ | PROT_WRITE, MAP_SHARED,
		  ring.fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED, ring.fd, IORING_OFF_CQ_RING);
	ring.sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
			 MAP_SHARED, ring.fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || ring.sqes == MAP_FAILED)
		die("mmap io_uring");
	ring.sq_tail = (unsigned *)(sq + p.sq_off.tail);
	ring.sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	ring.sq_array = (unsigned *)(sq + p.sq_off.array);
	ring.cq_head = (unsigned *)(cq + p.cq_off.head);
	ring.cq_tail = (unsigned *)(cq + p.cq_off.tail);
	ring.cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	ring.cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
}

static void ring_send(void *buf, size_t n, int link, uint64_t tag)
{
	unsigned tail = *ring.sq_tail, i = tail & *ring.sq_mask;
	struct io_uring_sqe *sqe = &ring.sqes[i];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = zc ? IORING_OP_SEND_ZC : IORING_OP_SEND;
	sqe->fd = sock;
	sqe->addr = (uintptr_t)buf;
	sqe->len = n;
	sqe->flags = link ? IOSQE_IO_LINK : 0;
	sqe->user_data = tag;
	ring.sq_array[i] = i;
	__atomic_store_n(ring.sq_tail, tail + 1, __ATOMIC_RELEASE);
	ring.queued++;
}

/* A completion's fields. */
struct done {
	uint64_t user_data;
	int32_t res;
	uint32_t flags;
};

/* Submit what is queued, and take one CQE, waiting for it. */
static struct done ring_take(void)
{
	struct io_uring_cqe *cqe;
	struct done d;
	unsigned head = *ring.cq_head;

	while (head == __atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE)) {
		if (syscall(SYS_io_uring_enter, ring.fd, ring.queued, 1, IORING_ENTER_GETEVENTS, NULL,
			    0) < 0 && errno != EINTR)
			die("io_uring_enter");
		ring.queued = 0;
	}
	cqe = &ring.cqes[head & *ring.cq_mask];
	d = (struct done){ cqe->user_data, cqe->res, cqe->flags };
	__atomic_store_n(ring.cq_head, head + 1, __ATOMIC_RELEASE);
	return d;
}

/* What the kernel still holds of each buffer: MSG_ZEROCOPY's sends, SEND_ZC's notifications. */
static unsigned held[BUFFERS];
static uint32_t next_id;
static uint32_t first_id[BUFFERS];

/* MSG_ZEROCOPY: the completions queued on the error queue, each a range of send ids. */
static void zc_reap(int wait)
{
	struct pollfd pfd = { .fd = sock, .events = 0 };
	char control[128];

	for (;;) {
		struct msghdr msg = { .msg_control = control, .msg_controllen = sizeof(control) };
		struct cmsghdr *cm;

		if (recvmsg(sock, &msg, MSG_ERRQUEUE) < 0) {
			if (errno != EAGAIN || !wait)
				return;
			poll(&pfd, 1, 100);
			continue;
		}
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			struct sock_extended_err *e = (struct sock_extended_err *)CMSG_DATA(cm);

			if (e->ee_origin != SO_EE_ORIGIN_ZEROCOPY)
				continue;
			for (uint32_t id = e->ee_info; id - e->ee_info <= e->ee_data - e->ee_info; id++)
				for (int b = 0; b < BUFFERS; b++)
					if (held[b] && first_id[b] == id)
						held[b] = 0;
		}
		return;
	}
}

/* Buffer b free again: its sends completed, by the kernel's word. */
static void wait_free(int b)
{
	while (held[b]) {
		if (uring) {
			struct done c = ring_take();

			if (c.flags & IORING_CQE_F_NOTIF)
				held[c.user_data]--;
		} else {
			zc_reap(1);
		}
	}
}

static void send_batch(int b, unsigned n, size_t total)
{
	unsigned char *p = bufs[b];

	if (gso) {
		char control[CMSG_SPACE(sizeof(uint16_t))] = { 0 };
		struct iovec iov = { p, total };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
				      .msg_controllen = sizeof(control) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
		uint16_t seg = len;

		cm->cmsg_level = SOL_UDP;
		cm->cmsg_type = UDP_SEGMENT;
		cm->cmsg_len = CMSG_LEN(sizeof(seg));
		memcpy(CMSG_DATA(cm), &seg, sizeof(seg));
		while (sendmsg(sock, &msg, zc ? MSG_ZEROCOPY : 0) < 0) {
			if (errno == ENOBUFS && zc)
				zc_reap(1);
			else if (errno != EINTR)
				die("sendmsg UDP_SEGMENT");
		}
		if (zc) {
			first_id[b] = next_id++;
			held[b] = 1;
		}
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		size_t one = i + 1 < n ? len : total - (n - 1) * len;

		iovs[i] = (struct iovec){ p, one };
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iovs[i], .msg_iovlen = 1 } };
		p += one;
	}
	if (uring) {
		unsigned results = 0;

		for (unsigned i = 0; i < n; i++)
			ring_send(iovs[i].iov_base, iovs[i].iov_len, i + 1 < n, b);
		held[b] = zc ? n : 0;
		while (results < n) {
			struct done c = ring_take();

			if (c.flags & IORING_CQE_F_NOTIF) {
				held[c.user_data]--;
				continue;
			}
			if (c.res < 0) {
				errno = -c.res;
				die("io_uring send");
			}
			if (zc && !(c.flags & IORING_CQE_F_MORE))
				held[c.user_data]--;
			results++;
		}
	} else if (!strcmp(mode, "sendmmsg")) {
		for (unsigned done = 0; done < n;) {
			int m = sendmmsg(sock, msgs + done, n - done, 0);

			if (m < 0 && errno != EINTR)
				die("sendmmsg");
			done += m > 0 ? m : 0;
		}
	} else {
		for (unsigned i = 0; i < n; i++)
			while (sendmsg(sock, &msgs[i].msg_hdr, 0) < 0)
				if (errno != EINTR)
					die("sendmsg");
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned loops, next = 0;
	struct stat st;
	struct rusage ru;
	unsigned char end[40], ack[64];
	int acked = 0;

	if (argc != 6) {
		fprintf(stderr, "usage: dgramsend MODE PORT LEN LOOPS FILE\n");
		return 2;
	}
	mode = argv[1];
	sin.sin_port = htons(atoi(argv[2]));
	len = strtoul(argv[3], NULL, 10);
	loops = strtoul(argv[4], NULL, 10);
	gso = !strncmp(mode, "gso", 3);
	uring = !strncmp(mode, "uring", 5);
	zc = !strcmp(mode, "gso-zerocopy") || !strcmp(mode, "uring-zc");
	if (strcmp(mode, "sendmsg") && strcmp(mode, "sendmmsg") && !gso && !uring) {
		fprintf(stderr, "dgramsend: unknown mode %s\n", mode);
		return 2;
	}
	batch = gso ? 65507 / len : BATCH;
	if (batch > BATCH)
		batch = BATCH;
	fd = open(argv[5], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		die(argv[5]);
	sock = socket(AF_INET, SOCK_DGRAM, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		die("socket");
	if (zc && !uring && setsockopt(sock, SOL_SOCKET, SO_ZEROCOPY, &(int){ 1 }, sizeof(int)) < 0)
		die("SO_ZEROCOPY");
	for (int b = 0; b < BUFFERS; b++)
		if (posix_memalign((void **)&bufs[b], 4096, batch * len))
			die("posix_memalign");
	if (uring)
		ring_open(4 * BATCH);
	for (uint32_t loop = 0; loop < loops; loop++) {
		uint64_t at = 0;

		do {
			int b = next++ % BUFFERS;
			unsigned n = 0;
			size_t total = 0, want = 0;
			struct iovec slices[BATCH];
			ssize_t got;

			wait_free(b);
			do {
				size_t data = st.st_size - at < len - HEADER ? st.st_size - at : len - HEADER;

				put_header(bufs[b] + total, 1, stream, loop, datagrams + n, 0, at);
				slices[n] = (struct iovec){ bufs[b] + total + HEADER, data };
				total += HEADER + data;
				want += data;
				at += data;
				n++;
			} while (n < batch && at < (uint64_t)st.st_size);
			got = preadv(fd, slices, n, at - want);
			if (got != (ssize_t)want)
				die("preadv");
			send_batch(b, n, total);
			datagrams += n;
			bytes += total;
		} while (at < (uint64_t)st.st_size);
	}
	for (int b = 0; b < BUFFERS; b++)
		wait_free(b);
	put_header(end, 2, stream, loops, datagrams, 1, 0);
	put32(end + 32, bytes >> 32);
	put32(end + 36, bytes);
	for (int i = 0; i < 20 && !acked; i++) {
		struct pollfd pfd = { .fd = sock, .events = POLLIN };

		send(sock, end, sizeof(end), 0);
		while (!acked && poll(&pfd, 1, 100) > 0) {
			ssize_t r = recv(sock, ack, sizeof(ack), 0);

			acked = r >= 40 && !memcmp(ack, "zcDG", 4) && ack[7] == 3;
			if (r < 0)
				break;
		}
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("sent %llu bytes, %llu datagrams, cpu %.3f %.3f\n", (unsigned long long)bytes,
	       (unsigned long long)datagrams, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return acked ? 0 : 1;
}
