/*
 * pagesend: a test sender that shares no code with zc. It reads a whole
 * stream from standard input and sends it to 127.0.0.1:port in one
 * MSG_ZEROCOPY send after setting TCP_MAXSEG, so that over loopback every
 * segment carries one whole page of the stream, at stream offsets that are
 * multiples of the page size: a receiver that maps pages sees page
 * boundaries exactly where the test put them. It then shuts down its side
 * and waits for the receiver to close.
 *
 * usage: pagesend port mss < stream
 */
#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "peer.h"

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	size_t size = 0, cap = 1 << 20, off = 0;
	int one = 1, mss, fd;
	char *data, sink[4096];
	ssize_t n;

	if (argc != 3)
		errx(2, "usage: pagesend port mss < stream");
	sin.sin_port = htons(atoi(argv[1]));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	mss = atoi(argv[2]);
	data = malloc(cap);
	while (data && (n = read(0, data + size, cap - size)) > 0) {
		size += n;
		if (size == cap) {
			char *more = realloc(data, cap *= 2);

			if (!more)
				free(data);
			data = more;
		}
	}
	if (!data)
		err(1, "reading the stream");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) < 0)
		err(1, "socket options");
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		err(1, "connect");
	while (off < size) {
		n = send(fd, data + off, size - off, MSG_ZEROCOPY);
		if (n < 0 && errno == ENOBUFS)
			n = send(fd, data + off, size - off, 0);
		if (n < 0)
			err(1, "send");
		off += n;
	}
	shutdown(fd, SHUT_WR);
	while ((n = read(fd, sink, sizeof(sink))) > 0)
		;
	close(fd);
	free(data);
	return 0;
}
