#include <netinet/in.h>
#include <netinet/udp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/dgram.h"
#include "../lib/net.h"
#include "../rx/rx.h"
#include "check.h"

static const struct net_sockopts autotune = { 0 };

/* Every row as its facts say: found by name, and the facts that zcs acts on. */
static void the_table_has_every_mode_and_its_facts(void)
{
	size_t n = 0;

	for (const struct recv_mode *const *m = rx_modes; *m; m++, n++) {
		const struct recv_mode *mode = *m;

		CHECK(rx_find_mode(mode->name, mode->datagram) == mode);
		CHECK(mode->receive != NULL);
		CHECK(mode->needs_pipe == (strcmp(mode->name, "splice") == 0));
		CHECK(mode->maps == (strcmp(mode->name, "zerocopy") == 0));
		/* What a mode maps, it unmaps; a datagram mode's arrays go with its buffer. */
		CHECK(mode->datagram || !mode->setup == !mode->close);
		CHECK(!mode->batch || mode->datagram);
	}
	CHECK(n == 8);
	CHECK(rx_find_mode("peek", 0) == NULL);
	CHECK(rx_find_mode("", 0) == NULL);
	CHECK(rx_find_mode("gro", 0) == NULL);
	CHECK(rx_find_mode("splice", 1) == NULL);
	CHECK(rx_find_mode("read", 0) != rx_find_mode("read", 1));
	CHECK_STR(rx_mode_names(0), "read, trunc, splice or zerocopy");
	CHECK_STR(rx_mode_names(1), "read, recvmmsg, gro or trunc");
}

/* A connected pair over loopback: *rfd the accepted end, the return the connecting end. */
static int loopback_pair(int *rfd)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int lfd = net_listen("127.0.0.1", 0, &autotune, 0), fd;

	if (getsockname(lfd, (struct sockaddr *)&sa, &len) < 0)
		return -1;
	fd = net_connect("127.0.0.1", ntohs(sa.sin_port), &autotune, 0);
	*rfd = accept(lfd, NULL, NULL);
	close(lfd);
	net_set_receive_timeout(*rfd, 10);
	return fd;
}

static void put(int fd, const void *p, size_t len, size_t step)
{
	const unsigned char *b = p;

	for (size_t at = 0; at < len;) {
		size_t n = len - at < step ? len - at : step;
		ssize_t w = write(fd, b + at, n);

		if (w <= 0)
			_exit(1);
		at += w;
	}
}

static const uint32_t file_sizes[] = { 0, 5000, 70001, 1 };
#define N_FILES (sizeof(file_sizes) / sizeof(file_sizes[0]))
#define LOOPS 2

/* The 2001 stream: LOOPS loops of the files, each header and file written `step` bytes at a time. */
static void write_stream(int fd, size_t step)
{
	static unsigned char data[70001];
	unsigned char u32[PROTO_U32_BYTES];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = i * 7 + 3;
	proto_put_u32(u32, LOOPS);
	put(fd, u32, sizeof(u32), step);
	for (int l = 0; l < LOOPS; l++) {
		proto_put_u32(u32, N_FILES);
		put(fd, u32, sizeof(u32), step);
		for (size_t f = 0; f < N_FILES; f++) {
			proto_put_u32(u32, file_sizes[f]);
			put(fd, u32, sizeof(u32), step);
			put(fd, data, file_sizes[f], step);
		}
	}
}

/*
 * Each mode, at buffer sizes from 1 byte to 64 KiB, takes a whole stream
 * written in pieces of several sizes: every byte counted, every file seen,
 * nothing left over.
 */
static void every_mode_takes_a_whole_stream_at_every_buffer_size(void)
{
	static const size_t bufsizes[] = { 1, 3, 4096, 65536 }, steps[] = { 7, 4093, 1 << 20 };
	uint64_t want = 0;

	for (size_t f = 0; f < N_FILES; f++)
		want += file_sizes[f];
	want = proto_stream_bytes(LOOPS, N_FILES, want);
	for (const struct recv_mode *const *m = rx_modes; *m; m++)
		for (size_t b = 0; b < sizeof(bufsizes) / sizeof(bufsizes[0]) && !(*m)->datagram; b++)
			for (size_t st = 0; st < sizeof(steps) / sizeof(steps[0]); st++) {
				struct receiver r;
				uint64_t got = 0;
				ssize_t n;
				int rfd, wfd = loopback_pair(&rfd), status;
				pid_t pid = fork();

				if (pid == 0) {
					close(rfd);
					write_stream(wfd, steps[st]);
					_exit(0);
				}
				close(wfd);
				rx_init(&r, rfd, *m, bufsizes[b], "test", 0);
				rx_take_buffers(&r);
				while ((n = (*m)->receive(&r)) > 0)
					got += n;
				CHECK(n == 0);
				if (got != want || r.rx.files_done != LOOPS * N_FILES ||
				    proto_rx_waiting_for(&r.rx) || r.rx.extra_bytes)
					printf("#   mode %s, -b %zu, written %zu at a time:\n", (*m)->name,
					       bufsizes[b], steps[st]);
				CHECK_EQ_U64(got, want);
				CHECK_EQ_U64(r.rx.files_done, LOOPS * N_FILES);
				CHECK(proto_rx_waiting_for(&r.rx) == NULL);
				CHECK_EQ_U64(r.rx.extra_bytes, 0);
				CHECK(r.mapped_bytes <= got);
				rx_close(&r);
				CHECK(r.buf == NULL && r.pipe[0] < 0 && r.devnull < 0);
				close(rfd);
				waitpid(pid, &status, 0);
				CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
			}
}

/* Before the buffers are taken nothing is held; what came is read at once, without waiting. */
static void what_came_is_read_without_waiting(void)
{
	struct receiver r;
	int rfd, wfd = loopback_pair(&rfd);
	unsigned char hdr[PROTO_U32_BYTES + 2] = { 0 };

	proto_put_u32(hdr, 1);
	rx_init(&r, rfd, rx_find_mode("splice", 0), 4096, "test", 0);
	CHECK(r.buf == NULL && r.pipe[0] < 0 && r.devnull < 0);
	CHECK(write(wfd, hdr, sizeof(hdr)) == sizeof(hdr));
	usleep(100000);
	/* The writer stays open: a read that waited would take the 10 s timeout. */
	CHECK_EQ_U64(rx_read_what_came(&r), sizeof(hdr));
	CHECK(r.buf != NULL && r.pipe[0] >= 0);
	CHECK_STR(proto_rx_waiting_for(&r.rx), "header");
	rx_close(&r);
	close(rfd);
	close(wfd);
}

/* What a datagram mode delivered: each datagram's bytes as it took them, and its length. */
struct delivered {
	unsigned n;
	unsigned char data[64][DGRAM_MAX_BYTES];
	size_t len[64], wire_len[64];
};

static void keep(void *ctx, const struct rx_datagram *d)
{
	struct delivered *got = ctx;

	if (got->n < 64) {
		memcpy(got->data[got->n], d->data, d->len);
		got->len[got->n] = d->len;
		got->wire_len[got->n++] = d->wire_len;
	}
}

/* Datagram i's byte at: every datagram its own bytes. */
static unsigned char byte_of(unsigned i, size_t at)
{
	return (unsigned char)(i * 31 + at * 7 + 1);
}

/* UDP_SEGMENT: the buffer's segments of `segment` bytes go as datagrams (GRO may join them). */
static void send_segments(int fd, const unsigned char *buf, size_t len, uint16_t segment)
{
	char control[CMSG_SPACE(sizeof(segment))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			      .msg_controllen = sizeof(control) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = 103; /* UDP_SEGMENT */
	cm->cmsg_len = CMSG_LEN(sizeof(segment));
	memcpy(CMSG_DATA(cm), &segment, sizeof(segment));
	CHECK(sendmsg(fd, &msg, 0) == (ssize_t)len);
}

/*
 * Each datagram mode hands over every datagram as it was sent, byte for byte
 * (trunc: the bytes of its header and an END's count, and its length): datagrams of 0 bytes to the
 * largest, and runs sent with UDP_SEGMENT, which gro takes joined and cuts
 * apart again, the last of a run short.
 */
static void every_datagram_mode_hands_over_each_datagram_whole(void)
{
	static const size_t sizes[] = { 1, 32, 33, 1472, 4000, DGRAM_MAX_BYTES, 100, 0 };
	static const struct {
		uint16_t segment;
		unsigned whole, tail;
	} runs[] = { { 1000, 10, 0 }, { 1472, 5, 7 }, { 33, 3, 1 } };
	static struct delivered got;
	static unsigned char want[64][DGRAM_MAX_BYTES], buf[DGRAM_MAX_BYTES];
	struct net_sockopts dgram = { .datagram = 1 };
	size_t want_len[64];

	for (const struct recv_mode *const *m = rx_modes; *m; m++) {
		struct sockaddr_in sa;
		socklen_t salen = sizeof(sa);
		struct timeval tv = { .tv_sec = 2 };
		int rfd = net_listen("127.0.0.1", 0, &dgram, 0), sfd = socket(AF_INET, SOCK_DGRAM, 0);
		struct receiver r;
		unsigned n = 0, calls = 0;

		if (!(*m)->datagram) {
			close(rfd);
			close(sfd);
			continue;
		}
		getsockname(rfd, (struct sockaddr *)&sa, &salen);
		CHECK(connect(sfd, (struct sockaddr *)&sa, salen) == 0);
		setsockopt(rfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		memset(&got, 0, sizeof(got));
		rx_init(&r, rfd, *m, 0, "test", 0);
		r.deliver = keep;
		r.ctx = &got;
		rx_take_buffers(&r);
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++, n++) {
			for (size_t at = 0; at < sizes[i]; at++)
				want[n][at] = byte_of(n, at);
			want_len[n] = sizes[i];
			CHECK(send(sfd, want[n], sizes[i], 0) == (ssize_t)sizes[i]);
		}
		for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
			size_t len = 0;
			unsigned count = runs[k].whole + !!runs[k].tail;

			for (unsigned i = 0; i < count; i++, n++) {
				want_len[n] = i < runs[k].whole ? runs[k].segment : runs[k].tail;
				for (size_t at = 0; at < want_len[n]; at++)
					want[n][at] = buf[len + at] = byte_of(n, at);
				len += want_len[n];
			}
			send_segments(sfd, buf, len, runs[k].segment);
		}
		while (got.n < n && (*m)->receive(&r) >= 0)
			calls++;
		/* The runs came joined, each in one call: the cutting was tested. */
		if (strcmp((*m)->name, "gro") == 0)
			CHECK_EQ_U64(calls, sizeof(sizes) / sizeof(sizes[0]) +
						    sizeof(runs) / sizeof(runs[0]));
		if (got.n != n)
			printf("#   mode %s: %u datagrams of %u\n", (*m)->name, got.n, n);
		CHECK_EQ_U64(got.n, n);
		for (unsigned i = 0; i < got.n && i < n; i++) {
			size_t kept = strcmp((*m)->name, "trunc") == 0 && want_len[i] > DGRAM_END_BYTES
					      ? DGRAM_END_BYTES : want_len[i];

			if (got.wire_len[i] != want_len[i] || got.len[i] != kept ||
			    memcmp(got.data[i], want[i], kept) != 0)
				printf("#   mode %s: datagram %u of %zu bytes: %zu delivered, %zu "
				       "on the wire, %s\n", (*m)->name, i, want_len[i], got.len[i],
				       got.wire_len[i],
				       memcmp(got.data[i], want[i], kept) ? "not its bytes" : "its bytes");
			CHECK_EQ_U64(got.wire_len[i], want_len[i]);
			CHECK_EQ_U64(got.len[i], kept);
			CHECK(memcmp(got.data[i], want[i], kept) == 0);
		}
		rx_close(&r);
		close(rfd);
		close(sfd);
	}
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	RUN(the_table_has_every_mode_and_its_facts);
	RUN(every_mode_takes_a_whole_stream_at_every_buffer_size);
	RUN(what_came_is_read_without_waiting);
	RUN(every_datagram_mode_hands_over_each_datagram_whole);
	return CHECK_EXIT();
}
