#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

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

		CHECK(rx_find_mode(mode->name) == mode);
		CHECK(mode->receive != NULL);
		CHECK(mode->needs_pipe == (strcmp(mode->name, "splice") == 0));
		CHECK(mode->maps == (strcmp(mode->name, "zerocopy") == 0));
		/* What a mode maps, it unmaps. */
		CHECK(!mode->setup == !mode->close);
	}
	CHECK(n == 4);
	CHECK(rx_find_mode("peek") == NULL);
	CHECK(rx_find_mode("") == NULL);
	CHECK_STR(rx_mode_names(), "read, trunc, splice or zerocopy");
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
		for (size_t b = 0; b < sizeof(bufsizes) / sizeof(bufsizes[0]); b++)
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
	rx_init(&r, rfd, rx_find_mode("splice"), 4096, "test", 0);
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

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	RUN(the_table_has_every_mode_and_its_facts);
	RUN(every_mode_takes_a_whole_stream_at_every_buffer_size);
	RUN(what_came_is_read_without_waiting);
	return CHECK_EXIT();
}
