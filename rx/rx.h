/*
 * rx: zcs's receive modes, the twin of tx/. Each family of modes is a file of
 * its own (copy.c: read, trunc; splice.c; zerocopy.c; and for -u's
 * datagrams udp.c) that defines its modes' rows. Above them, table.c holds
 * the table of rows; below them, receiver.c holds what they share: the
 * connection's buffers, taken when data first comes, and the reads that
 * feed the stream's decoder. A datagram mode hands each datagram it takes
 * to the receiver's deliver(). A new mode is a file (or a function in one)
 * and a row of rx_modes[].
 */
#ifndef ZC_RX_H
#define ZC_RX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "../lib/proto.h"

struct receiver;

/*
 * -u: the most a datagram can be, GRO's coalesced ones included (64 KiB of
 * UDP payload at most), and so each datagram's place in the buffer.
 */
#define RX_DGRAM_BYTES 65536

/* -u: the datagrams recvmmsg takes a call at most. */
#define RX_DGRAM_BATCH 64

/* One datagram as a mode took it: what of it is in the buffer, and its length on the wire. */
struct rx_datagram {
	const unsigned char *data;
	size_t len;		/* in data: all of it, or (trunc) the header */
	size_t wire_len;	/* its UDP payload */
	const struct sockaddr *from;
	socklen_t from_len;
};

/*
 * A way of receiving: a check of the listening socket that fails zcs at its
 * start, not each connection, where the kernel cannot do the mode; what it
 * takes besides the buffer when data first comes; and the receive itself,
 * which takes what arrives next, feeds the decoder, and returns how many
 * bytes it took from the socket, 0 at the end, -1 with errno. The facts
 * zcs needs about it besides.
 */
struct recv_mode {
	const char *name;
	void (*check)(int lfd);
	void (*setup)(struct receiver *r);
	ssize_t (*receive)(struct receiver *r);
	void (*close)(struct receiver *r);
	int maps;		/* takes data by mapping it: its summary counts the bytes mapped */
	int needs_pipe;		/* moves the data through a pipe of -b bytes, to /dev/null */
	int datagram;		/* -u: takes datagrams from a bound socket, each to deliver() */
	unsigned batch;		/* -u: datagrams a call at most (1 when 0) */
};

/* Every mode, in the order -m's lists give them; NULL ends the table. */
extern const struct recv_mode *const rx_modes[];

/* The mode of that name, among the datagram modes (-u) or the stream ones; or NULL. */
const struct recv_mode *rx_find_mode(const char *name, int datagram);

/* The modes' names of one kind (-u's or TCP's), "a, b or c". */
const char *rx_mode_names(int datagram);

/* zcs -m A,B,...: the most receive modes that take turns on a connection. */
#define RX_MAX_ARMS 8

/*
 * One connection's receiving: the socket, the mode's buffers, the decoder.
 * Modes that take turns (zcs -m A,B,...) share them: each arm's buffers
 * are taken at once, and the mode in use changes between receives.
 */
struct receiver {
	int fd;
	const struct recv_mode *mode;	/* the one in use */
	const struct recv_mode *arms[RX_MAX_ARMS];
	unsigned n_arms;
	const char *peer;
	int debug;
	unsigned char *buf;	/* NULL until data first comes */
	size_t bufsize;
	int pipe[2];		/* needs_pipe */
	int devnull;		/* needs_pipe */
	unsigned char *map;	/* maps: the window the kernel maps received pages into */
	size_t map_bytes;
	uint32_t page;		/* maps: the page size, what the kernel maps in */
	uint64_t mapped_bytes;	/* maps: received by mapping, not by read() */
	int told_why;		/* zerocopy -d: why nothing was mapped, said once */
	struct proto_rx rx;
	/* -u: where each datagram goes, and a batch's headers */
	void (*deliver)(void *ctx, const struct rx_datagram *d);
	void *ctx;
	struct mmsghdr *msgs;
	struct iovec *iovs;
	struct sockaddr_storage *froms;
	unsigned char control[64];	/* gro: the segment size */
};

/*
 * Before anything starts: a pipe of bufsize bytes, where the mode needs one
 * (each connection makes its own, and one that cannot be made fails zcs
 * now, not them); a failure ends zcs with err(1).
 */
void rx_check(const struct recv_mode *mode, size_t bufsize);
/* Then, on the listening socket, whatever else the kernel may not do for the mode. */
void rx_check_listening(const struct recv_mode *mode, int lfd);

/*
 * A connection accepted: nothing taken yet. A datagram mode's socket is the
 * bound one, and its buffer RX_DGRAM_BYTES a datagram of its batch.
 */
void rx_init(struct receiver *r, int fd, const struct recv_mode *mode, size_t bufsize,
	     const char *peer, int debug);
/* The same for n stream modes that take turns, arms[0] in use first. */
void rx_init_arms(struct receiver *r, int fd, const struct recv_mode *const *arms, unsigned n,
		  size_t bufsize, const char *peer, int debug);
/* From the next receive on, arm i's mode. */
void rx_use(struct receiver *r, unsigned i);

/*
 * The buffer and the mode's pipe or window (every arm's), when the first data (or the
 * end) comes, not at accept(): a connection that sends nothing costs no
 * more than its process. Failures end the connection's process, err(1).
 */
void rx_take_buffers(struct receiver *r);

/* What came and is queued (less than SO_RCVLOWAT, say), read without waiting and decoded. */
uint64_t rx_read_what_came(struct receiver *r);

/* Whatever was taken; the socket stays open. */
void rx_close(struct receiver *r);

/* For the modes' files: read() up to len bytes (0: the buffer's size) and decode them. */
ssize_t rx_read_and_feed(struct receiver *r, size_t len);
/* The headers, exactly the bytes due, so that file data never lands in the buffer. */
ssize_t rx_receive_header(struct receiver *r);
/* The file data due now, at most a buffer's worth. */
size_t rx_data_chunk(const struct receiver *r);

/* The rows the families define. */
extern const struct recv_mode rx_read, rx_trunc, rx_splice, rx_zerocopy;
extern const struct recv_mode rx_dgram_read, rx_dgram_recvmmsg, rx_dgram_gro, rx_dgram_trunc;

#endif
