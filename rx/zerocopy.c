/*
 * zerocopy: getsockopt(TCP_ZEROCOPY_RECEIVE) maps whole pages of received data
 * into a window mapped from the socket, instead of copying them out; the
 * headers in them are decoded where they lie. The kernel maps only data that
 * sits in whole pages at page offsets (segments of a whole number of pages,
 * e.g. zcc -M 4108 over loopback); what it cannot map it says to read(). The
 * layout is the kernel's (linux/tcp.h), up to the field this code reads.
 */
#include <err.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rx.h"

#ifndef TCP_ZEROCOPY_RECEIVE
#define TCP_ZEROCOPY_RECEIVE 35
#endif
struct zc_receive {
	uint64_t address;	/* in: the window */
	uint32_t length;	/* in: its size; out: bytes mapped */
	uint32_t recv_skip_hint;	/* out: bytes to read() before more can be mapped */
	uint32_t inq;
	int32_t err;
};

/*
 * A kernel with TCP_ZEROCOPY_RECEIVE refuses it on a listening socket with
 * ENOTCONN; one without it (before 4.18) does not know the option: zcs
 * fails now, not each connection.
 */
static void check_mapping(int lfd)
{
	struct zc_receive zc = { 0 };
	socklen_t len = sizeof(zc);

	if (getsockopt(lfd, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, &zc, &len) < 0 && errno != ENOTCONN)
		err(1, "-m zerocopy: getsockopt TCP_ZEROCOPY_RECEIVE (Linux 4.18 or later)");
}

/* The window: -b rounded up to whole pages, mapped from the socket. */
static void map_window(struct receiver *r)
{
	r->page = sysconf(_SC_PAGESIZE);
	r->map_bytes = (r->bufsize + r->page - 1) / r->page * r->page;
	r->map = mmap(NULL, r->map_bytes, PROT_READ, MAP_SHARED, r->fd, 0);
	if (r->map == MAP_FAILED)
		err(1, "mapping a %zu-byte window of the socket", r->map_bytes);
}

static void unmap_window(struct receiver *r)
{
	munmap(r->map, r->map_bytes);
	r->map = NULL;
}

/*
 * -d: why a page or more of data could not be mapped, once per connection.
 * Either the segments are not whole pages, or they are but the pages under
 * them cannot be given away: part of a larger page, or the page cache's.
 * Over loopback only zero-copy sends arrive in pages of their own, as the
 * kernel copies them into fresh ones.
 */
static void tell_why_unmapped(struct receiver *r, uint32_t skipped)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (!r->debug || r->told_why)
		return;
	r->told_why = 1;
	if (getsockopt(r->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		ti.tcpi_rcv_mss = 0;
	fprintf(stderr, "zcs: %s: %u bytes could not be mapped: ", r->peer, skipped);
	if (ti.tcpi_rcv_mss % r->page)
		fprintf(stderr,
			"the sender's segments carry %u bytes (TCP_INFO rcv_mss), not whole %u-byte pages (zcc -M %u sends whole pages, with timestamps on)\n",
			ti.tcpi_rcv_mss, r->page, r->page + 12);
	else
		fprintf(stderr,
			"the sender's segments carry whole pages (%u bytes, TCP_INFO rcv_mss), in memory the kernel cannot map (over loopback, only zcc -m zerocopy or uring-zc arrives in pages of its own)\n",
			ti.tcpi_rcv_mss);
}

static ssize_t receive_zerocopy(struct receiver *r)
{
	struct zc_receive zc = { .address = (uintptr_t)r->map, .length = r->map_bytes };
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	socklen_t len = sizeof(zc);
	uint32_t want;

	/* The option does not wait for data: poll() does, and honours SO_RCVLOWAT. */
	if (poll(&pfd, 1, -1) < 0)
		return -1;
	if (getsockopt(r->fd, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, &zc, &len) < 0) {
		/* EIO: nothing queued and the peer has closed; read() says so. */
		if (errno != EIO)
			return -1;
		zc.length = zc.recv_skip_hint = 0;
	}
	if (zc.length > 0) {
		proto_rx_feed(&r->rx, r->map, zc.length);
		r->mapped_bytes += zc.length;
		/* Unmapped now, the pages go back at once, not at the next call. */
		madvise(r->map, zc.length, MADV_DONTNEED);
		return zc.length;
	}
	want = zc.recv_skip_hint;
	if (want >= r->page) {
		tell_why_unmapped(r, zc.recv_skip_hint);
		/*
		 * A page or more that cannot be mapped, on a connection where none
		 * has been: the sender's segments are not pages, and what follows
		 * will not map either, so all that is queued is read at once, not a
		 * segment a call (zcs's own CPU for sendfile in 4 KiB segments fell
		 * from 1.34 to 0.48 us/KB, docs/results.md). Once pages have
		 * mapped, an odd page that does not is read alone, so that the
		 * pages after it can still be mapped.
		 */
		if (r->mapped_bytes == 0 && zc.inq > want)
			want = zc.inq;
	}
	/* The hint, or with nothing to hint at, whatever comes next: the end, say. */
	return rx_read_and_feed(r, want);
}

const struct recv_mode rx_zerocopy = {
	.name = "zerocopy",
	.check = check_mapping,
	.setup = map_window,
	.receive = receive_zerocopy,
	.close = unmap_window,
	.maps = 1,
};
