/*
 * The transmit modes: each sends the stream, byte for byte, to a loopback
 * peer that checks it against an encoding made here; the table's facts hold
 * together; and MSG_ZEROCOPY's completion ids wrap at 2^32.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tx/tx.h"
#include "check.h"

/* Awkward sizes: empty, one byte, a page and one, and several chunks and a bit. */
static const size_t sizes[] = { 0, 1, 4097, 300001 };
#define N_FILES (sizeof(sizes) / sizeof(sizes[0]))
#define LOOPS 2

static char dir[] = "/tmp/test_tx.XXXXXX";
static char paths[N_FILES][64];
static struct tx_file files[N_FILES];
static unsigned char *expected;
static size_t expected_len;

static void put_be32(uint32_t v)
{
	unsigned char b[4] = { v >> 24, v >> 16, v >> 8, v };

	memcpy(expected + expected_len, b, 4);
	expected_len += 4;
}

/* The files, and the stream they make, written out by hand. */
static int make_files(void)
{
	size_t total = 4 + LOOPS * 4;
	unsigned char *data[N_FILES];

	if (!mkdtemp(dir))
		return -1;
	for (size_t i = 0; i < N_FILES; i++) {
		FILE *f;

		total += LOOPS * (4 + sizes[i]);
		data[i] = malloc(sizes[i] + 1);
		for (size_t k = 0; k < sizes[i]; k++)
			data[i][k] = rand();
		snprintf(paths[i], sizeof(paths[i]), "%s/f%zu", dir, i);
		f = fopen(paths[i], "w");
		if (!f || fwrite(data[i], 1, sizes[i], f) != sizes[i] || fclose(f) != 0)
			return -1;
		files[i] = (struct tx_file){ .path = paths[i], .size = sizes[i] };
	}
	expected = malloc(total);
	put_be32(LOOPS);
	for (int loop = 0; loop < LOOPS; loop++) {
		put_be32(N_FILES);
		for (size_t i = 0; i < N_FILES; i++) {
			put_be32(sizes[i]);
			memcpy(expected + expected_len, data[i], sizes[i]);
			expected_len += sizes[i];
		}
	}
	for (size_t i = 0; i < N_FILES; i++)
		free(data[i]);
	return 0;
}

static void remove_files(void)
{
	for (size_t i = 0; i < N_FILES; i++)
		unlink(paths[i]);
	rmdir(dir);
	free(expected);
}

/* Why this kernel cannot run a uring mode, or NULL. */
/* The table's names of a family (the queued ones alone), "a, b or c", joined here by hand. */
static const char *names_of(int datagram, int queued)
{
	static char out[512];
	const char *last = NULL;
	size_t len = 0;

	out[0] = '\0';
	for (const struct send_mode *const *m = tx_modes; *m; m++) {
		if ((*m)->datagram != datagram || (queued && !(*m)->queued))
			continue;
		if (last)
			len += snprintf(out + len, sizeof(out) - len, "%s%s", len ? ", " : "", last);
		last = (*m)->name;
	}
	snprintf(out + len, sizeof(out) - len, "%s%s", len ? " or " : "", last ? last : "");
	return out;
}

static const char *uring_missing(const struct send_mode *m)
{
	static struct uring r;
	int rc;

	if (!m->uring_op)
		return NULL;
	if (uring_open(&r, 2) < 0)
		return r.err;
	rc = uring_supports(&r, m->uring_op);
	if (rc == 1 && m->uring_op == IORING_OP_SEND_ZC)
		rc = uring_send_zc_takes(&r, IORING_RECVSEND_FIXED_BUF | IORING_SEND_ZC_REPORT_USAGE);
	uring_close(&r);
	return rc == 1 ? NULL : "this kernel's io_uring lacks the mode's send";
}

/*
 * The mode sends the files LOOPS times, in a child, to a peer here on
 * loopback, which reads to the end and closes. Returns how many bytes the
 * peer got, and whether they were the stream, in *same.
 */
static size_t send_to_a_peer(const struct send_mode *m, unsigned depth, size_t bufsize, int *same,
			     int *status)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	size_t got = 0, room = expected_len + 65536;
	unsigned char *buf = malloc(room);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), fd;
	pid_t pid;
	ssize_t n;

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sin, &len) < 0)
		return 0;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct sender snd;
		int unconfirmed;
		struct tx_config c = { .bufsize = bufsize, .depth = depth, .wait_secs = 10,
				       .files = files, .n_files = N_FILES };

		tx_sender_setup(&snd, m, &c);
		snd.sock = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(snd.sock, (struct sockaddr *)&sin, sizeof(sin)) < 0)
			_exit(2);
		tx_sender_connected(&snd);
		tx_send_stream(&snd, NULL, NULL, &(struct tx_plan){ .loops = LOOPS }, files, N_FILES, 0);
		unconfirmed = tx_await_close(&snd, 10);
		if (snd.sent != expected_len)
			_exit(4);
		tx_sender_close(&snd);
		_exit(unconfirmed ? 3 : 0);
	}
	fd = accept(lfd, NULL, NULL);
	while (fd >= 0 && (n = read(fd, buf + got, room - got)) > 0)
		got += n;
	close(fd);
	close(lfd);
	waitpid(pid, status, 0);
	*same = got == expected_len && memcmp(buf, expected, got) == 0;
	free(buf);
	return got;
}

/* Every shape the mode has: depths and chunks, a page and less, several MiB not needed here. */
static void mode_sends_the_stream_whole(const char *name)
{
	static const struct {
		unsigned depth;
		size_t bufsize;
	} shapes[] = { { 1, 65536 }, { 3, 4096 }, { 8, 1000 }, { 2, 1 << 20 }, { 64, 12345 } };
	const struct send_mode *m = tx_find_mode(name, 0);
	const char *missing;

	CHECK(m != NULL);
	if (!m)
		return;
	missing = uring_missing(m);
	if (missing)
		SKIP(missing);
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		int same = 0, status = -1;
		size_t got = send_to_a_peer(m, shapes[i].depth, shapes[i].bufsize, &same, &status);

		if (!same || status != 0)
			printf("#   -m %s -q %u -b %zu: the peer got %zu bytes of %zu, %s; sender "
			       "status %d\n",
			       name, shapes[i].depth, shapes[i].bufsize, got, expected_len,
			       same ? "the same" : "not the stream", status);
		CHECK(same);
		CHECK(status == 0);
	}
}

static void sendfile_sends_the_stream_whole(void)
{
	mode_sends_the_stream_whole("sendfile");
}

static void send_sends_the_stream_whole(void)
{
	mode_sends_the_stream_whole("send");
}

static void write_sends_the_stream_whole(void)
{
	mode_sends_the_stream_whole("write");
}

static void splice_sends_the_stream_whole(void)
{
	mode_sends_the_stream_whole("splice");
}

static void zerocopy_sends_the_stream_whole(void)
{
	mode_sends_the_stream_whole("zerocopy");
}

static void memory_sends_the_stream_whole(void)
{
	mode_sends_the_stream_whole("memory");
}

static void uring_sends_the_stream_whole(void)
{
	mode_sends_the_stream_whole("uring");
}

static void uring_zc_sends_the_stream_whole(void)
{
	mode_sends_the_stream_whole("uring-zc");
}

/* The table's facts hold together, and its names make zcc's lists. */
static void the_table_is_consistent(void)
{
	size_t n = 0;

	for (const struct send_mode *const *m = tx_modes; *m; m++, n++) {
		const struct send_mode *mode = *m;

		CHECK(tx_find_mode(mode->name, mode->datagram) == mode);
		/*
		 * A stream mode sends a file's data, or (memory) whole files from
		 * what it loaded; a datagram mode a batch of datagrams.
		 */
		CHECK(mode->datagram ? mode->send_datagrams && !mode->send_data && !mode->send_file
				     : !mode->send_data != !mode->send_file && !mode->send_datagrams);
		CHECK(!mode->send_file == !mode->load && !mode->load == !mode->unload);
		CHECK(!mode->gso || mode->datagram);
		/* A queued mode has chunks in buffers; copies are counted only of queued sends. */
		CHECK(!mode->queued || mode->chunked);
		CHECK(!mode->counts_copies || mode->queued);
		/* -u's uring waits for each batch's sends, and so needs one buffer. */
		CHECK(!mode->uring_op || mode->queued || mode->datagram);
		CHECK(mode->uring_op != IORING_OP_SEND_ZC || mode->counts_copies);
		CHECK((mode->io == NET_IO_WRITE) == (strcmp(mode->name, "write") == 0));
		CHECK(!mode->chunked == (strcmp(mode->name, "sendfile") == 0));
	}
	CHECK(tx_find_mode("zero", 0) == NULL);
	CHECK(tx_find_mode("gso", 0) == NULL);
	CHECK(tx_find_mode("sendfile", 1) == NULL);
	CHECK(tx_find_mode("uring", 0) != tx_find_mode("uring", 1));
	for (int datagram = 0; datagram <= 1; datagram++)
		for (int queued = 0; queued <= 1; queued++)
			CHECK_STR(tx_mode_names(datagram, queued), names_of(datagram, queued));
	CHECK_STR(tx_mode_names(0, 1), "zerocopy, uring or uring-zc");
	/* The memory rule, beside the depth rule: half the host's memory, for the chunked modes. */
	CHECK(tx_buffers_fit(tx_find_mode("send", 0), 1000, 2000));
	CHECK(!tx_buffers_fit(tx_find_mode("send", 0), 1001, 2000));
	CHECK(tx_buffers_fit(tx_find_mode("sendfile", 0), 1001, 2000));
	CHECK(tx_buffers_fit(tx_find_mode("zerocopy", 0), 1001, 0));
}

/* MSG_ZEROCOPY ids are 32 bits and wrap: a buffer's ids may straddle 2^32. */
static void completion_ids_wrap_at_2_to_the_32(void)
{
	struct zc_buf z = { .first_id = 0xfffffffe, .n_ids = 4 }; /* ...fe, ...ff, 0, 1 */
	struct net_zc_range r;

	r = (struct net_zc_range){ .lo = 0xffffffff, .hi = 0 };
	CHECK_EQ_U64(tx_zc_overlap(&z, &r), 2);
	r = (struct net_zc_range){ .lo = 0xfffffff0, .hi = 5 };
	CHECK_EQ_U64(tx_zc_overlap(&z, &r), 4);
	r = (struct net_zc_range){ .lo = 1, .hi = 9 };
	CHECK_EQ_U64(tx_zc_overlap(&z, &r), 1);
	r = (struct net_zc_range){ .lo = 2, .hi = 9 };
	CHECK_EQ_U64(tx_zc_overlap(&z, &r), 0);
	r = (struct net_zc_range){ .lo = 0xfffffff0, .hi = 0xfffffffd };
	CHECK_EQ_U64(tx_zc_overlap(&z, &r), 0);
}

/* The default -q: 4 MiB in flight, within 1..64 and half of RLIMIT_MEMLOCK for all streams. */
static void default_depth_follows_the_bytes_in_flight(void)
{
	rlim_t none = RLIM_INFINITY, eight_mib = 8 << 20;

	CHECK_EQ_U64(tx_default_depth(1 << 20, 1, none), 4);
	CHECK_EQ_U64(tx_default_depth(64 << 10, 1, none), 64);
	CHECK_EQ_U64(tx_default_depth(32 << 10, 1, none), 64);
	CHECK_EQ_U64(tx_default_depth(1, 1, none), 64);
	CHECK_EQ_U64(tx_default_depth(300000, 1, none), 13);
	CHECK_EQ_U64(tx_default_depth(4 << 20, 1, none), 1);
	CHECK_EQ_U64(tx_default_depth(1 << 30, 1, none), 1);
	CHECK_EQ_U64(tx_default_depth(1 << 20, 64, none), 4);
	/* Half of 8 MiB: four 1 MiB buffers for one stream, one each for four, never 0. */
	CHECK_EQ_U64(tx_default_depth(1 << 20, 1, eight_mib), 4);
	CHECK_EQ_U64(tx_default_depth(1 << 20, 2, eight_mib), 2);
	CHECK_EQ_U64(tx_default_depth(1 << 20, 4, eight_mib), 1);
	CHECK_EQ_U64(tx_default_depth(1 << 20, 8, eight_mib), 1);
	CHECK_EQ_U64(tx_default_depth(64 << 10, 1, eight_mib), 64);
	CHECK_EQ_U64(tx_default_depth(64 << 10, 2, eight_mib), 32);
	/* Buffers are whole pages when pinned: 4097 bytes pin two. */
	CHECK_EQ_U64(tx_default_depth(4097, 1, 64 << 10), 4);
	CHECK_EQ_U64(tx_default_depth(1 << 20, 1, 0), 1);
}

int main(void)
{
	if (make_files() < 0) {
		printf("FAIL %s: making the files in %s\n", __FILE__, dir);
		return 1;
	}
	RUN(the_table_is_consistent);
	RUN(completion_ids_wrap_at_2_to_the_32);
	RUN(default_depth_follows_the_bytes_in_flight);
	RUN(sendfile_sends_the_stream_whole);
	RUN(send_sends_the_stream_whole);
	RUN(write_sends_the_stream_whole);
	RUN(splice_sends_the_stream_whole);
	RUN(zerocopy_sends_the_stream_whole);
	RUN(memory_sends_the_stream_whole);
	RUN(uring_sends_the_stream_whole);
	RUN(uring_zc_sends_the_stream_whole);
	remove_files();
	return CHECK_EXIT();
}
