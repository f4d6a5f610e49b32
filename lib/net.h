/*
 * net: the sockets of zcs and zcc, TCP's and (with -u) UDP's: resolve and
 * connect, listen or bind, buffer sizes, cork.
 */
#ifndef ZC_NET_H
#define ZC_NET_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define NET_DEFAULT_PORT 2222

/*
 * The default -b of zcs and zcc: bytes per read() and per send() or write().
 * 1 MiB, not 2001's 64 KiB for zcc (its zcs read 16 KiB at a time and had no
 * -b): every chunk costs a read(), a send() and,
 * on loopback, usually a wake-up of the receiver on another CPU, and with
 * 64 KiB chunks read()+send() ran at little more than half the speed it
 * reaches with 1 MiB (docs/results.md).
 */
#define NET_DEFAULT_BUFSIZE (1024 * 1024)

/*
 * The default zcs -l: SO_RCVLOWAT on each connection. With the kernel's one
 * byte, every segment that arrives wakes the receiver, and on virtual CPUs
 * that wake-up (an interrupt to the other CPU) cost the sender more than the
 * data did: sendfile over loopback ran 1.4 times as fast with 256 KiB. It
 * is not free everywhere: read()+send() of 1 MiB chunks ran at 0.76 times
 * (docs/programs.txt, "Chunk size and wake-ups").
 */
#define NET_DEFAULT_RCVLOWAT (256 * 1024)

/*
 * The largest -i and -o: Linux caps a SO_RCVBUF or SO_SNDBUF request at
 * INT_MAX / 2 before doubling it, so a larger size could never be granted.
 */
#define NET_MAX_BUFSIZE (INT_MAX / 2)

/* What is set on a socket before connect() or listen(); 0 leaves the kernel's choice. */
struct net_sockopts {
	int datagram;		/* -u: UDP (SOCK_DGRAM), not TCP */
	long rcvbuf_bytes;	/* -i */
	long sndbuf_bytes;	/* -o */
	long mss;		/* zcc -M: TCP_MAXSEG */
	const char *congestion;	/* zcc -K: TCP_CONGESTION; NULL: the host's default */
	long connect_secs;	/* zcc -W: the longest wait for a TCP connect(); 0: the kernel's */
	int nodelay;		/* -D: TCP_NODELAY, Nagle's algorithm off */
	int quickack;		/* -Q: TCP_QUICKACK, as the connection starts (zcs: after every read) */
};

/*
 * The opening exchange (zcc -E): before the stream, zcc sends these 4 bytes
 * and zcs, which takes them for the exchange only as a stream's first 4
 * bytes (a loop count of 2,053,326,168 in the 2001 protocol, which no run
 * asks for), answers with the same 4; then the stream begins as in 2001.
 * A 2001 zcs answers nothing.
 */
#define NET_EXCHANGE "zcEX"
#define NET_EXCHANGE_BYTES 4

#ifndef SO_MAX_PACING_RATE
#define SO_MAX_PACING_RATE 47
#endif

/*
 * SO_MAX_PACING_RATE takes 64 bits on 64-bit kernels since Linux 4.20; older
 * ones keep 32, in which ~0U means no limit, so the most they can hold is one
 * less.
 */
#define NET_MAX_PACING_32 4294967294ULL

/*
 * Whether the kernel kept the pacing rate asked for, from what getsockopt()
 * read back (got, in got_len bytes): 0, or -1 with why (which names the most
 * a 32-bit option holds when that is why).
 */
int net_pacing_kept(uint64_t asked, uint64_t got, socklen_t got_len, char *why, size_t why_len);

/*
 * SO_MAX_PACING_RATE of bytes_per_sec, as 64 bits, read back and checked; a
 * kernel that did not keep it ends the run. debug says it on stderr.
 */
void net_set_pacing(int fd, uint64_t bytes_per_sec, int debug);

/* The range of TCP_MAXSEG that Linux accepts (TCP_MIN_MSS, MAX_TCP_WINDOW). */
#define NET_MIN_MSS 88
#define NET_MAX_MSS 32767

/*
 * Connect to host:port, trying every address getaddrinfo() returns, with the
 * buffer sizes set before connect() so the window scale reflects them, and
 * the MSS so that the SYN announces it. Exits with a message naming the host
 * on failure. With debug, says the MSS the kernel gives once connected.
 */
int net_connect(const char *host, int port, const struct net_sockopts *opts, int debug);
/* The family of host's first address, the one net_connect tries first; AF_UNSPEC if none. */
int net_first_family(const char *host, int datagram);
/*
 * -d: the MSS at a stream's last byte. Over loopback the kernel says 32741
 * once connected and 65483 once data has gone (what ss -ti shows).
 */
void net_say_mss_settled(int fd);

/*
 * Listen on addr:port, or on every IPv4 and IPv6 address when addr is NULL,
 * with SO_REUSEADDR. Buffer sizes set here are inherited by accepted sockets.
 * A datagram socket is bound and not listened on; -d says "listening on" for
 * both.
 */
int net_listen(const char *addr, int port, const struct net_sockopts *opts, int debug);

/*
 * Set SO_RCVBUF/SO_SNDBUF as asked, exiting naming the size the kernel
 * granted and the sysctl that limits it when that is less than asked;
 * TCP_MAXSEG, exiting if the kernel refuses it; TCP_CONGESTION, exiting
 * with what the kernel has if it refuses the name; and SO_MAX_PACING_RATE,
 * exiting if the kernel does not keep it whole. TCP paces a socket with a
 * maximum rate itself (since Linux 4.13), whatever the qdisc.
 */
void net_set_sockopts(int fd, const struct net_sockopts *opts, int debug);

/* TCP_CONGESTION's names are shorter than this (the kernel's TCP_CA_NAME_MAX). */
#define NET_CONGESTION_MAX 16

/*
 * The most payload one datagram may carry on a connected UDP socket's path
 * without being cut into IP fragments: the path's MTU (IP_MTU, IPV6_MTU) less
 * the IP and UDP headers. -1 with errno when the kernel cannot say.
 */
int net_datagram_room(int fd);
/* The connected socket's path MTU (IP_MTU, IPV6_MTU), and its IP header's bytes; -1. */
int net_path_mtu(int fd, int *ip_header);
/*
 * A UDP socket's datagrams are never fragmented (IP_PMTUDISC_DO, and
 * IPV6_PMTUDISC_DO on an IPv6 socket): one too large for the path is refused
 * with EMSGSIZE. 0, or -1 with errno.
 */
int net_forbid_fragments(int fd);

/*
 * Ask for a receive buffer of `bytes` without failing: SO_RCVBUFFORCE, which
 * passes net.core.rmem_max where the process may (CAP_NET_ADMIN), else
 * SO_RCVBUF. Returns the bytes granted (half what the kernel reports), or -1.
 */
long net_ask_rcvbuf(int fd, long bytes);

/* Set TCP_CORK and read it back; exits if it did not stick. */
void net_set_cork(int fd);

/*
 * Set SO_SNDTIMEO: a blocking send, write, sendfile or splice to the socket
 * that can queue nothing for this long fails with EAGAIN.
 */
void net_set_send_timeout(int fd, long secs);

/*
 * Set SO_RCVTIMEO: a blocking read, recv or splice from the socket that
 * gets nothing for this long fails with EAGAIN.
 */
void net_set_receive_timeout(int fd, long secs);
void net_set_receive_timeout_ms(int fd, long ms);
/* The bytes a socket holds unread (FIONREAD), -1 if the kernel cannot say. */
long net_queued(int fd);

/*
 * Set SO_RCVLOWAT: readers are woken only once this many bytes are queued (or
 * at the end of the stream, or when the receive buffer is nearly full), with
 * the receive window free to grow to twice the mark, so that a sender's
 * whole segment always fits past it. The kernel caps it at half a receive
 * buffer fixed with SO_RCVBUF; returns the value it kept.
 */
int net_set_rcvlowat(int fd, long bytes, int debug);

/*
 * MSG_ZEROCOPY (Documentation/networking/msg_zerocopy.rst): each send() with
 * the flag that queues data is given the next 32-bit id, counting from 0; the
 * kernel tells on the socket's error queue when it no longer needs the
 * buffers of a range of ids, and whether it had to copy them after all.
 */
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

struct net_zc_range {
	uint32_t lo, hi;	/* inclusive */
	int copied;
};

/* Set SO_ZEROCOPY, without which MSG_ZEROCOPY is ignored. 0, or -1 with errno. */
int net_set_zerocopy(int fd);

/*
 * Take one completion from the error queue without waiting: 1 and *range,
 * 0 when there is none, -1 with errno on a socket error or an unexpected
 * message (EPROTO).
 */
int net_take_zc_completion(int fd, struct net_zc_range *range);

/*
 * A pipe of at least bytes (F_SETPIPE_SZ) for splice() to or from a socket;
 * exits naming -b and the limit when the kernel refuses the size.
 */
void net_splice_pipe(int fds[2], long bytes);

/* "addr port N" for messages. */
void net_addr_text(const struct sockaddr *sa, socklen_t len, char *buf, size_t size);

/*
 * How bytes reach the socket: write(), or send() (with MSG_NOSIGNAL); or
 * send() with MSG_MORE too, for bytes that more bytes follow at once: TCP
 * holds them back to go out in one segment with what follows.
 */
enum net_io { NET_IO_WRITE, NET_IO_SEND, NET_IO_SEND_MORE };

/* -D and -Q on a connected TCP socket (zcs: each one accepted). */
void net_set_tcp_flags(int fd, const struct net_sockopts *opts);
/* TCP_QUICKACK again: the kernel leaves quick-ACK mode on its own. */
void net_quickack(int fd);
/*
 * zcc -E: send NET_EXCHANGE and wait for zcs's, wait_secs at most: 0, or -1
 * with why (the peer closed, answered otherwise, or nothing within the wait).
 */
int net_exchange_ask(int fd, long wait_secs, char *why, size_t why_len);
/*
 * zcs: if the stream's first bytes are NET_EXCHANGE, take them and answer:
 * 1; 0 if they are not (nothing taken); -1 with errno if the socket failed,
 * or EAGAIN if wait_ms passed (each wait of SO_RCVTIMEO at most) since the
 * last of them came, before 4 bytes or the end came.
 */
int net_exchange_answer(int fd, long wait_ms);

/*
 * Write all len bytes, retrying after EINTR and short writes. Returns 0, or -1
 * with errno set; *done is the count written either way, and *calls (unless
 * NULL) goes up by the calls that wrote some.
 */
int net_write_full(int fd, enum net_io io, const void *buf, size_t len, size_t *done, uint64_t *calls);

#endif
