/*
 * capture: a test peer that shares no code with zc. It listens on a loopback
 * port of the kernel's choosing, prints that port, accepts one connection and
 * writes every byte it receives to a file, so a test can compare the stream a
 * zcc sent with one it built itself.
 *
 * usage: capture [-6Ez] [-a load,lost,kernel] [-c bytes] [-H msecs] [-r rcvbuf] [-s usecs] outfile
 *   -6        listen on ::1 instead of 127.0.0.1
 *   -a figs   with -E, answer the slot table that follows the stream (zcc -E
 *             -m A,B) as a zcs of this suite would, every slot measured:
 *             1000 bytes in 75 ms, its load, time lost and kernel's view
 *             these three numbers as strtod reads them ("0.2,0.1,inf")
 *   -E        answer zcc -E's opening exchange: read 4 bytes, and unless they
 *             are "zcEX" fail (exit 3); write "zcEX" back, and record the
 *             stream that follows only
 *   -c bytes  close the connection (with unread data: a reset) after this many bytes
 *   -H msecs  at the end of the stream, do not close: hold the connection open
 *             until killed, sending one byte back every msecs (0: none)
 *   -r rcvbuf set SO_RCVBUF before listening
 *   -s usecs  sleep this long between reads, and read 16 KiB at a time (else
 *             256 KiB), to make the sender wait
 *   -z        close with a reset (SO_LINGER 0) even when every byte was read
 */
#include <arpa/inet.h>
#include <endian.h>
#include <err.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static uint32_t u32_at(FILE *f)
{
	unsigned char b[4];

	if (fread(b, 1, 4, f) != 4)
		errx(3, "-a: the stream or the table is cut short");
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void put_u32(FILE *f, uint32_t v)
{
	uint32_t be = htobe32(v);

	fwrite(&be, 4, 1, f);
}

static void put_u64(FILE *f, uint64_t v)
{
	uint64_t be = htobe64(v);

	fwrite(&be, 8, 1, f);
}

static void put_double(FILE *f, double d)
{
	uint64_t v;

	memcpy(&v, &d, 8);
	put_u64(f, v);
}

/*
 * -a: the stream in path walked by its counts, the slot table after it read
 * for its number of slots, and an answer of that many written to fd.
 */
static void answer_the_table(const char *path, int fd, const char *figs)
{
	FILE *f = fopen(path, "rb"), *a;
	uint32_t loops, files, arms, slots;
	double load, lost, kernel;
	char *end;

	load = strtod(figs, &end);
	lost = *end == ',' ? strtod(end + 1, &end) : 0;
	kernel = *end == ',' ? strtod(end + 1, &end) : 0;
	if (*end)
		errx(2, "-a '%s': not load,lost,kernel", figs);
	if (!f)
		err(1, "%s", path);
	for (loops = u32_at(f); loops; loops--)
		for (files = u32_at(f); files; files--)
			fseeko(f, u32_at(f), SEEK_CUR);
	if (u32_at(f) != 0x7a635453)	/* "zcTS" */
		errx(3, "-a: no slot table after the stream");
	u32_at(f);
	for (arms = u32_at(f); arms; arms--)
		fseeko(f, u32_at(f), SEEK_CUR);
	slots = u32_at(f);
	fclose(f);
	a = fdopen(dup(fd), "wb");
	if (!a)
		err(1, "fdopen");
	fwrite("zcTA", 1, 4, a);
	put_u32(a, 2);
	put_u32(a, slots);
	for (uint32_t i = 0; i < slots; i++) {
		put_u32(a, 1);
		put_u64(a, 1000);
		put_u64(a, 75000000);
		put_double(a, load);
		put_double(a, lost);
		put_double(a, kernel);
	}
	if (fclose(a) != 0)
		err(1, "writing the answer");
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	long close_after = -1, total = 0, hold_ms = -1;
	int ipv6 = 0, rcvbuf = 0, sleep_us = 0, reset = 0, exchange = 0, c, lfd, fd, out;
	static char buf[262144];
	size_t read_size = sizeof(buf);
	const char *answer = NULL;

	while ((c = getopt(argc, argv, "6a:c:EH:r:s:z")) != -1) {
		switch (c) {
		case 'a':
			answer = optarg;
			break;
		case '6':
			ipv6 = 1;
			break;
		case 'c':
			close_after = atol(optarg);
			break;
		case 'E':
			exchange = 1;
			break;
		case 'r':
			rcvbuf = atoi(optarg);
			break;
		case 'H':
			hold_ms = atol(optarg);
			break;
		case 's':
			sleep_us = atoi(optarg);
			break;
		case 'z':
			reset = 1;
			break;
		default:
			return 2;
		}
	}
	if (optind + 1 != argc)
		errx(2, "usage: capture [-6Ez] [-a load,lost,kernel] [-c bytes] [-H msecs] [-r rcvbuf] [-s usecs] outfile");
	out = open(argv[optind], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		err(1, "%s", argv[optind]);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		err(1, "socket");
	if (rcvbuf && setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0)
		err(1, "SO_RCVBUF");
	if (ipv6 ? bind(lfd, (struct sockaddr *)&sin6, sizeof(sin6))
		 : bind(lfd, (struct sockaddr *)&sin, sizeof(sin)))
		err(1, "bind");
	if (listen(lfd, 1) < 0 || getsockname(lfd, (struct sockaddr *)&ss, &len) < 0)
		err(1, "listen");
	printf("%d\n", ntohs(ipv6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
				  : ((struct sockaddr_in *)&ss)->sin_port));
	fflush(stdout);
	if (sleep_us)
		read_size = 16384;
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		err(1, "accept");
	if (exchange) {
		char first[4];
		size_t got = 0;

		while (got < sizeof(first)) {
			ssize_t n = read(fd, first + got, sizeof(first) - got);

			if (n <= 0)
				errx(3, "the stream ended after %zu bytes of the exchange", got);
			got += n;
		}
		if (memcmp(first, "zcEX", 4) != 0)
			errx(3, "the first 4 bytes are not the exchange's");
		if (write(fd, "zcEX", 4) != 4)
			err(1, "write");
	}
	for (;;) {
		size_t want = read_size;
		ssize_t n;

		if (close_after >= 0 && (long)want > close_after - total)
			want = close_after - total;
		if (want == 0)
			break;
		n = read(fd, buf, want);
		if (n < 0)
			err(1, "read");
		if (n == 0)
			break;
		if (write(out, buf, n) != n)
			err(1, "write");
		total += n;
		if (sleep_us)
			usleep(sleep_us);
	}
	close(out);
	if (answer)
		answer_the_table(argv[optind], fd, answer);
	while (hold_ms >= 0) {
		if (hold_ms == 0) {
			pause();
			continue;
		}
		usleep(hold_ms * 1000);
		if (write(fd, "x", 1) != 1)
			err(1, "write");
	}
	if (reset) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) < 0)
			err(1, "SO_LINGER");
	}
	/* With bytes left unread, the kernel answers this close with a reset, as for a killed zcs. */
	close(fd);
	return 0;
}
