/*
 * The datagram modes (zcs -u): read, a recvfrom() a datagram; recvmmsg, a
 * call for as many as are queued, RX_DGRAM_BATCH at most; gro, UDP_GRO's
 * coalesced datagrams, a recvmsg() for each run of them, cut apart again
 * at the segment size the kernel gives; trunc, a recvfrom() of the header
 * alone (and an END's count) with MSG_TRUNC, which drops the rest of the
 * datagram uncopied and says its length. Each returns the UDP payload bytes
 * it took, or -1.
 */
#include <err.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/dgram.h"
#include "rx.h"

static ssize_t deliver_one(struct receiver *r, const unsigned char *data, size_t len,
			   size_t wire_len, const struct sockaddr_storage *from, socklen_t from_len)
{
	struct rx_datagram d = { .data = data, .len = len, .wire_len = wire_len,
				 .from = (const struct sockaddr *)from, .from_len = from_len };

	r->deliver(r->ctx, &d);
	return wire_len;
}

static ssize_t receive_dgram_read(struct receiver *r)
{
	struct sockaddr_storage from;
	socklen_t len = sizeof(from);
	ssize_t n = recvfrom(r->fd, r->buf, r->bufsize, 0, (struct sockaddr *)&from, &len);

	return n < 0 ? -1 : deliver_one(r, r->buf, n, n, &from, len);
}

static ssize_t receive_dgram_trunc(struct receiver *r)
{
	struct sockaddr_storage from;
	socklen_t len = sizeof(from);
	ssize_t n = recvfrom(r->fd, r->buf, DGRAM_END_BYTES, MSG_TRUNC,
			     (struct sockaddr *)&from, &len);

	if (n < 0)
		return -1;
	return deliver_one(r, r->buf, n < DGRAM_END_BYTES ? n : DGRAM_END_BYTES, n, &from, len);
}

/* recvmmsg: a batch's headers, each datagram its RX_DGRAM_BYTES of the buffer. */
static void setup_recvmmsg(struct receiver *r)
{
	unsigned n = r->mode->batch;

	r->msgs = calloc(n, sizeof(*r->msgs));
	r->iovs = calloc(n, sizeof(*r->iovs));
	r->froms = calloc(n, sizeof(*r->froms));
	if (!r->msgs || !r->iovs || !r->froms)
		err(1, "calloc");
}

/* MSG_WAITFORONE: wait for the first datagram only, then take what else is queued. */
static ssize_t receive_dgram_recvmmsg(struct receiver *r)
{
	unsigned n = r->mode->batch;
	ssize_t got = 0;
	int m;

	for (unsigned i = 0; i < n; i++) {
		r->iovs[i] = (struct iovec){ .iov_base = r->buf + (size_t)i * RX_DGRAM_BYTES,
					     .iov_len = RX_DGRAM_BYTES };
		r->msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_name = &r->froms[i],
							    .msg_namelen = sizeof(r->froms[i]),
							    .msg_iov = &r->iovs[i],
							    .msg_iovlen = 1 } };
	}
	m = recvmmsg(r->fd, r->msgs, n, MSG_WAITFORONE, NULL);
	if (m < 0)
		return -1;
	for (int i = 0; i < m; i++)
		got += deliver_one(r, r->iovs[i].iov_base, r->msgs[i].msg_len, r->msgs[i].msg_len,
				   &r->froms[i], r->msgs[i].msg_hdr.msg_namelen);
	return got;
}

/* gro: UDP_GRO on the socket, so that the kernel may hand over runs of datagrams whole. */
static void setup_gro(struct receiver *r)
{
	int on = 1;

	if (setsockopt(r->fd, SOL_UDP, UDP_GRO, &on, sizeof(on)) < 0)
		err(1, "-m gro: setsockopt UDP_GRO (Linux 5.0 or later)");
}

/*
 * A run of datagrams of the segment size the cmsg gives, the last one
 * shorter or not; with no cmsg, one datagram.
 */
static ssize_t receive_dgram_gro(struct receiver *r)
{
	struct sockaddr_storage from;
	struct iovec iov = { .iov_base = r->buf, .iov_len = r->bufsize };
	struct msghdr msg = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
			      .msg_iovlen = 1, .msg_control = r->control,
			      .msg_controllen = sizeof(r->control) };
	ssize_t n = recvmsg(r->fd, &msg, 0);
	size_t segment;

	if (n < 0)
		return -1;
	segment = n;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		int size;

		if (cm->cmsg_level != SOL_UDP || cm->cmsg_type != UDP_GRO)
			continue;
		memcpy(&size, CMSG_DATA(cm), sizeof(size));
		if (size > 0)
			segment = size;
	}
	for (size_t at = 0; at < (size_t)n || (n == 0 && at == 0); at += segment) {
		size_t len = (size_t)n - at < segment ? (size_t)n - at : segment;

		deliver_one(r, r->buf + at, len, len, &from, msg.msg_namelen);
		if (segment == 0)
			break;
	}
	return n;
}

/*
 * The rows. zcs gives read and trunc the names of their TCP twins, which do
 * the same with a stream; recvmmsg and gro are -u's alone.
 */
const struct recv_mode rx_dgram_read = { .name = "read", .receive = receive_dgram_read,
					 .datagram = 1 };
const struct recv_mode rx_dgram_recvmmsg = { .name = "recvmmsg", .setup = setup_recvmmsg,
					     .receive = receive_dgram_recvmmsg, .datagram = 1,
					     .batch = RX_DGRAM_BATCH };
const struct recv_mode rx_dgram_gro = { .name = "gro", .setup = setup_gro,
					.receive = receive_dgram_gro, .datagram = 1 };
const struct recv_mode rx_dgram_trunc = { .name = "trunc", .receive = receive_dgram_trunc,
					  .datagram = 1 };
