/* The modes that take data with a read or a recv: read, trunc. */
#include <sys/socket.h>

#include "rx.h"

/* read: everything through the buffer, as in 2001. */
static ssize_t receive_read(struct receiver *r)
{
	return rx_read_and_feed(r, r->bufsize);
}

/*
 * trunc: the headers with read(), exactly the bytes due; the data with
 * recv() and MSG_TRUNC, which on TCP drops it without copying it out. After
 * the end of the stream, whatever else comes is read to be counted.
 */
static ssize_t receive_trunc(struct receiver *r)
{
	ssize_t n;

	if (proto_rx_data_due(&r->rx) == 0)
		return rx_receive_header(r);
	n = recv(r->fd, r->buf, rx_data_chunk(r), MSG_TRUNC);
	if (n > 0)
		proto_rx_skip(&r->rx, n);
	return n;
}

const struct recv_mode rx_read = { .name = "read", .receive = receive_read };
const struct recv_mode rx_trunc = { .name = "trunc", .receive = receive_trunc };
