/* splice: the socket's pages into a pipe as large as -b, and on to /dev/null. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>

#include "rx.h"

/* The headers as trunc reads them; the data through the pipe. */
static ssize_t receive_splice(struct receiver *r)
{
	ssize_t n;

	if (proto_rx_data_due(&r->rx) == 0)
		return rx_receive_header(r);
	n = splice(r->fd, NULL, r->pipe[1], NULL, rx_data_chunk(r), SPLICE_F_MOVE);
	if (n <= 0)
		return n;
	proto_rx_skip(&r->rx, n);
	for (ssize_t left = n; left > 0;) {
		ssize_t m = splice(r->pipe[0], NULL, r->devnull, NULL, left, SPLICE_F_MOVE);

		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			err(1, "splice to /dev/null");
		left -= m;
	}
	return n;
}

const struct recv_mode rx_splice = { .name = "splice", .receive = receive_splice, .needs_pipe = 1 };
