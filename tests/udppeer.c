/*
 * udppeer: the tests' independent peer of zcc -u and zcs -u, written from
 * the datagram format's description (docs/programs.txt) and sharing no code
 * with zc.
 *
 *   udppeer check [-n] [-t] LEN LOOPS FILE...
 *	Binds 127.0.0.1 on a port of the kernel's choosing, prints it, and
 *	takes one sender's datagrams until its END: each DATA datagram must be
 *	byte for byte the one the format prescribes for its number, given the
 *	datagram size LEN, the loops and the files. Answers the END with an ACK
 *	(not with -n: its ENDs go unanswered until they stop for 2 s) and prints
 *	"datagrams D, distinct N, bytes B, out of order O, duplicated U, wrong W, end E"
 *	where E is the END's count of datagrams sent. Exits 0 when every
 *	datagram was right and none was missing, 1 if not, 2 on a failure.
 *	-t (zcc -t): LOOPS is the most the sender may send, and its END may
 *	come at the end of any file: every datagram before it must have come.
 *
 *   udppeer send [-e ends] [-x] [-c count] [-r msecs] PORT LEN LOOPS ORDER FILE...
 *	Sends the files' datagrams to 127.0.0.1 PORT in the ORDER given, a
 *	comma-separated list of datagram numbers (one may be left out, come
 *	twice or come late), then the END (-e times; -x: none; -c: claiming
 *	count datagrams, not how many there are), and waits a second for the
 *	ACK, printing "ack D" (the distinct datagrams zcs says came) or "no
 *	ack". -r: then, msecs later, its END once more from the same socket,
 *	and the answer to that on a second line.
 *
 *   udppeer many PORT N LEN FILE
 *	From one socket, N senders at once (stream ids 1 to N), taking turns a
 *	datagram each, 64 a millisecond: each sends the file's datagrams, then
 *	all send their END, again every 200 ms to those not yet answered (3 s
 *	at most), and prints "senders N, acked A, exact E", E the ACKs that
 *	count every datagram and byte of the file.
 *
 *   udppeer burst [-p] PORT N FILE
 *	A hostile burst: the file's first datagram once for each of N stream
 *	ids (0 to N-1), and nothing more, no END; from one socket, or with -p
 *	each from a socket of its own (N source ports). Prints "sent N".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "peer.h"

#define MAX_FILES 64
#define MAX_DGRAMS 200000

static unsigned char *contents[MAX_FILES];
static size_t sizes[MAX_FILES];
static int n_files;

/* Where datagram s's slice comes from: filled in by plan(). */
static struct slice {
	uint32_t loop, file, offset, len;
} slices[MAX_DGRAMS];
static size_t n_slices;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void load(char **paths, int n)
{
	for (int i = 0; i < n && i < MAX_FILES; i++) {
		struct stat st;
		int fd = open(paths[i], O_RDONLY);

		if (fd < 0 || fstat(fd, &st) < 0)
			die(paths[i]);
		sizes[i] = st.st_size;
		contents[i] = malloc(sizes[i] + 1);
		if (!contents[i] || read(fd, contents[i], sizes[i]) != (ssize_t)sizes[i])
			die(paths[i]);
		close(fd);
		n_files++;
	}
}

/* Every datagram in order: each loop, each file, slices of len - HEADER, at least one a file. */
static void plan(size_t len, unsigned loops)
{
	size_t room = len - HEADER;

	for (unsigned l = 0; l < loops; l++)
		for (int f = 0; f < n_files; f++) {
			size_t at = 0;

			do {
				size_t n = sizes[f] - at < room ? sizes[f] - at : room;

				if (n_slices == MAX_DGRAMS) {
					fprintf(stderr, "udppeer: more than %d datagrams\n", MAX_DGRAMS);
					exit(2);
				}
				slices[n_slices++] = (struct slice){ l, f, at, n };
				at += n;
			} while (at < sizes[f]);
		}
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* Datagram s as the format has it: "zcDG", kind 1, stream, loop, seq, file, offset, data. */
static size_t build(unsigned char *out, uint32_t stream, size_t s)
{
	const struct slice *sl = &slices[s];

	put_header(out, 1, stream, sl->loop, s, sl->file, sl->offset);
	memcpy(out + HEADER, contents[sl->file] + sl->offset, sl->len);
	return HEADER + sl->len;
}

/* An END or ACK: kind, stream, loop, count, file, 0, then the byte count. */
static size_t build_end(unsigned char *out, uint32_t kind, uint32_t stream, uint32_t loops,
			uint64_t count, uint64_t bytes)
{
	put_header(out, kind, stream, loops, count, n_files, 0);
	put32(out + 32, bytes >> 32);
	put32(out + 36, bytes);
	return 40;
}

static int check(int argc, char **argv)
{
	static unsigned char got[65536], want[65536], seen[MAX_DGRAMS];
	int no_ack = argc > 0 && strcmp(argv[0], "-n") == 0, timed;
	size_t len, datagrams = 0, distinct = 0, bytes = 0, ooo = 0, dups = 0, wrong = 0, high = 0;
	unsigned loops;
	uint64_t end = 0;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM, 0), big = 64 << 20, one = 1;
	int64_t stream = -1;
	uint32_t dropped = 0;

	argv += no_ack, argc -= no_ack;
	timed = argc > 0 && strcmp(argv[0], "-t") == 0;
	argv += timed, argc -= timed;
	if (argc < 3)
		return fprintf(stderr, "usage: udppeer check [-n] [-t] LEN LOOPS FILE...\n"), 2;
	len = atol(argv[0]);
	loops = atoi(argv[1]);
	load(argv + 2, argc - 2);
	plan(len, loops);
	/* Room for 1/8 s at 512m; what overflows it anyway is the kernel's count, said. */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &salen) < 0)
		die("bind");
	printf("%d\n", ntohs(sa.sin_port));
	fflush(stdout);
	for (;;) {
		struct sockaddr_storage from;
		socklen_t flen;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		union {
			struct cmsghdr align;
			char buf[CMSG_SPACE(sizeof(uint32_t))];
		} control;
		struct iovec iov = { .iov_base = got, .iov_len = sizeof(got) };
		struct msghdr msg = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
				      .msg_iovlen = 1, .msg_control = control.buf,
				      .msg_controllen = sizeof(control.buf) };
		struct cmsghdr *c;
		ssize_t n;
		uint64_t s;

		if (poll(&pfd, 1, 20000) <= 0) {
			fprintf(stderr, "udppeer: nothing for 20 s\n");
			return 2;
		}
		n = recvmsg(fd, &msg, 0);
		flen = msg.msg_namelen;
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL)
				memcpy(&dropped, CMSG_DATA(c), sizeof(dropped));
		if (n < HEADER || memcmp(got, "zcDG", 4) != 0) {
			wrong++;
			continue;
		}
		if (stream < 0)
			stream = get32(got + 8);
		if (get32(got + 8) != stream) {
			wrong++;
			continue;
		}
		if (get32(got + 4) == 2 && n == 40) {
			struct pollfd more = { .fd = fd, .events = POLLIN };

			end = get64(got + 16);
			if (!no_ack) {
				size_t m = build_end(want, 3, stream, 0, distinct, bytes);

				sendto(fd, want, m, 0, (struct sockaddr *)&from, flen);
				break;
			}
			/* -n: the port stays open, the ENDs that come again unanswered, until they stop. */
			while (poll(&more, 1, 2000) > 0)
				recv(fd, got, sizeof(got), 0);
			break;
		}
		s = get64(got + 16);
		datagrams++;
		if (get32(got + 4) != 1 || s >= n_slices || (size_t)n != build(want, stream, s) ||
		    memcmp(got, want, n) != 0) {
			wrong++;
			continue;
		}
		if (seen[s]++) {
			dups++;
			continue;
		}
		distinct++;
		bytes += n;
		if (s + 1 < high)
			ooo++;
		if (s + 1 > high)
			high = s + 1;
	}
	printf("datagrams %zu, distinct %zu, bytes %zu, out of order %zu, duplicated %zu, wrong %zu, "
	       "end %llu, dropped by this socket %u\n", datagrams, distinct, bytes, ooo, dups, wrong,
	       (unsigned long long)end, dropped);
	if (timed)
		return wrong || end > n_slices || distinct != end ||
		       (end < n_slices && slices[end].offset != 0) ? 1 : 0;
	return wrong || distinct != n_slices || end != n_slices ? 1 : 0;
}

static int send_order(int argc, char **argv)
{
	static unsigned char out[65536];
	int ends = 1, opt_args = 0, again_ms = -1, claims = 0;
	uint64_t claim = 0;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct pollfd pfd;
	uint32_t stream = 0x5eed0000 | (getpid() & 0xffff);
	uint64_t sent_bytes = 0;
	unsigned loops;
	char *order, *tok;
	int fd;

	while (argc > opt_args + 1 && argv[opt_args][0] == '-') {
		if (strcmp(argv[opt_args], "-e") == 0)
			ends = atoi(argv[opt_args + 1]), opt_args += 2;
		else if (strcmp(argv[opt_args], "-x") == 0)
			ends = 0, opt_args++;
		else if (strcmp(argv[opt_args], "-c") == 0)
			claim = strtoull(argv[opt_args + 1], NULL, 10), claims = 1, opt_args += 2;
		else if (strcmp(argv[opt_args], "-r") == 0)
			again_ms = atoi(argv[opt_args + 1]), opt_args += 2;
		else
			break;
	}
	argv += opt_args, argc -= opt_args;
	if (argc < 5)
		return fprintf(stderr, "usage: udppeer send [-e ends] [-x] [-c count] [-r msecs] PORT LEN LOOPS ORDER FILE...\n"), 2;
	sa.sin_port = htons(atoi(argv[0]));
	loops = atoi(argv[2]);
	load(argv + 4, argc - 4);
	plan(atol(argv[1]), loops);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect");
	order = strdup(argv[3]);
	for (tok = strtok(order, ","); tok; tok = strtok(NULL, ",")) {
		size_t s = strtoul(tok, NULL, 10), n;

		if (s >= n_slices)
			return fprintf(stderr, "udppeer: no datagram %zu\n", s), 2;
		n = build(out, stream, s);
		if (send(fd, out, n, 0) != (ssize_t)n)
			die("send");
		sent_bytes += n;
		/* Paced a little, so that the receiver's buffer never decides the count. */
		usleep(200);
	}
	for (int round = 0; round < 2; round++) {
		int acked = 0;

		for (int i = 0; i < ends; i++) {
			size_t n = build_end(out, 2, stream, loops, claims ? claim : n_slices, sent_bytes);

			if (send(fd, out, n, 0) != (ssize_t)n)
				die("send END");
			usleep(50000);
		}
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
		while (ends && !acked && poll(&pfd, 1, 1000) > 0) {
			ssize_t n = recv(fd, out, sizeof(out), 0);

			if (n == 40 && memcmp(out, "zcDG", 4) == 0 && get32(out + 4) == 3 &&
			    get32(out + 8) == stream) {
				printf("ack %llu\n", (unsigned long long)get64(out + 16));
				acked = 1;
			}
			if (n < 0 && errno != EINTR)
				die("recv");
		}
		if (!acked)
			printf("no ack\n");
		fflush(stdout);
		if (again_ms < 0)
			break;
		usleep(again_ms * 1000);
		ends = 1;
	}
	return 0;
}

static int many(int argc, char **argv)
{
	static unsigned char out[65536], in[128];
	static unsigned char acked[1 << 20];
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned n_senders, got = 0, exact = 0, sent = 0;
	size_t bytes = 0;
	int fd, big = 32 << 20;

	if (argc < 4)
		return fprintf(stderr, "usage: udppeer many PORT N LEN FILE\n"), 2;
	sa.sin_port = htons(atoi(argv[0]));
	n_senders = atoi(argv[1]);
	if (n_senders < 1 || n_senders >= sizeof(acked))
		return fprintf(stderr, "udppeer: N must be 1 to %zu\n", sizeof(acked) - 1), 2;
	load(argv + 3, 1);
	plan(atol(argv[2]), 1);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	/* Room for every ACK: they come back as fast as the ENDs go. */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect");
	for (size_t s = 0; s < n_slices; s++)
		for (unsigned i = 1; i <= n_senders; i++) {
			size_t n = build(out, i, s);

			if (send(fd, out, n, 0) != (ssize_t)n)
				die("send");
			if (i == 1)
				bytes += n;
			if (++sent % 64 == 0)
				usleep(1000);
		}
	for (int round = 0; round < 15 && got < n_senders; round++) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		for (unsigned i = 1; i <= n_senders; i++) {
			size_t n = build_end(out, 2, i, 1, n_slices, bytes);

			if (acked[i])
				continue;
			if (send(fd, out, n, 0) != (ssize_t)n)
				die("send END");
			if (i % 64 == 0)
				usleep(1000);
		}
		while (got < n_senders && poll(&pfd, 1, 200) > 0) {
			ssize_t n = recv(fd, in, sizeof(in), 0);
			uint32_t s;

			if (n != 40 || memcmp(in, "zcDG", 4) != 0 || get32(in + 4) != 3)
				continue;
			s = get32(in + 8);
			if (s < 1 || s > n_senders || acked[s]++)
				continue;
			got++;
			exact += get64(in + 16) == n_slices && get64(in + 32) == bytes;
		}
	}
	printf("senders %u, acked %u, exact %u\n", n_senders, got, exact);
	return 0;
}

static int burst(int argc, char **argv)
{
	static unsigned char out[65536];
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int ports = argc > 0 && strcmp(argv[0], "-p") == 0, fd = -1;
	unsigned n_ids, sent = 0;

	argv += ports, argc -= ports;
	if (argc < 3)
		return fprintf(stderr, "usage: udppeer burst [-p] PORT N FILE\n"), 2;
	sa.sin_port = htons(atoi(argv[0]));
	n_ids = atoi(argv[1]);
	load(argv + 2, 1);
	plan(1472, 1);
	for (unsigned i = 0; i < n_ids; i++) {
		size_t n = build(out, i, 0);

		if (fd < 0 && ((fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
			       connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0))
			die("connect");
		if (send(fd, out, n, 0) == (ssize_t)n)
			sent++;
		if (ports) {
			close(fd);
			fd = -1;
		}
		if (i % 64 == 63)
			usleep(1000);
	}
	printf("sent %u\n", sent);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "check") == 0)
		return check(argc - 2, argv + 2);
	if (argc > 1 && strcmp(argv[1], "send") == 0)
		return send_order(argc - 2, argv + 2);
	if (argc > 1 && strcmp(argv[1], "many") == 0)
		return many(argc - 2, argv + 2);
	if (argc > 1 && strcmp(argv[1], "burst") == 0)
		return burst(argc - 2, argv + 2);
	fprintf(stderr, "usage: udppeer check|send ...\n");
	return 2;
}
