#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h> /* <linux/errqueue.h> needs struct timespec */
#include <linux/errqueue.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "net.h"
#include "timing.h"

void net_addr_text(const struct sockaddr *sa, socklen_t len, char *buf, size_t size)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV];

	if (getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		snprintf(buf, size, "(unknown address)");
	else
		snprintf(buf, size, "%s port %s", host, serv);
}

int net_write_full(int fd, enum net_io io, const void *buf, size_t len, size_t *done, uint64_t *calls)
{
	const char *p = buf;
	size_t off = 0;
	int ret = 0;

	while (off < len) {
		ssize_t n = io == NET_IO_WRITE ? write(fd, p + off, len - off)
					       : send(fd, p + off, len - off,
						      MSG_NOSIGNAL | (io == NET_IO_SEND_MORE ? MSG_MORE : 0));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -1;
			break;
		}
		if (calls)
			(*calls)++;
		off += n;
	}
	*done = off;
	return ret;
}

/*
 * Linux doubles the value given to SO_RCVBUF/SO_SNDBUF for its bookkeeping and
 * caps the request at net.core.rmem_max/wmem_max first, so a request was
 * granted in full when the value read back is at least twice it.
 */
static void set_one_bufsize(int fd, int optname, long want, int debug)
{
	const char *name = optname == SO_RCVBUF ? "SO_RCVBUF" : "SO_SNDBUF";
	const char *sysctl = optname == SO_RCVBUF ? "rmem_max" : "wmem_max";
	int val = want, got = 0;
	socklen_t len = sizeof(got);

	if (setsockopt(fd, SOL_SOCKET, optname, &val, sizeof(val)) < 0)
		err(1, "setsockopt %s %ld", name, want);
	if (getsockopt(fd, SOL_SOCKET, optname, &got, &len) < 0)
		err(1, "getsockopt %s", name);
	if ((long)got < 2 * want)
		errx(1, "%s: asked for %ld bytes, the kernel granted %d (raise /proc/sys/net/core/%s)",
		     name, want, got / 2, sysctl);
	if (debug)
		fprintf(stderr, "%s: %s %ld (kernel reports %d)\n", program_invocation_short_name,
			name, want, got);
}

int net_pacing_kept(uint64_t asked, uint64_t got, socklen_t got_len, char *why, size_t why_len)
{
	if (got_len == sizeof(uint64_t) && got == asked)
		return 0;
	if (got_len == sizeof(uint32_t) && asked <= NET_MAX_PACING_32 && (uint32_t)got == asked)
		return 0;
	if (got_len == sizeof(uint32_t) && asked > NET_MAX_PACING_32)
		snprintf(why, why_len, "%llu bytes/sec is more than this kernel's 32-bit option holds "
			 "(%llu)", (unsigned long long)asked, NET_MAX_PACING_32);
	else
		snprintf(why, why_len, "asked for %llu bytes/sec, the kernel kept %llu",
			 (unsigned long long)asked, (unsigned long long)got);
	return -1;
}

/* A kernel that takes 32 bits reads the low half, and says so on reading back. */
void net_set_pacing(int fd, uint64_t bytes_per_sec, int debug)
{
	uint64_t got = 0;
	socklen_t len = sizeof(got);
	char why[160];

	if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &bytes_per_sec, sizeof(uint64_t)) < 0)
		err(1, "setsockopt SO_MAX_PACING_RATE %llu", (unsigned long long)bytes_per_sec);
	if (getsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &got, &len) < 0)
		err(1, "getsockopt SO_MAX_PACING_RATE");
	if (net_pacing_kept(bytes_per_sec, got, len, why, sizeof(why)) < 0)
		errx(1, "SO_MAX_PACING_RATE: %s", why);
	if (debug)
		fprintf(stderr, "%s: SO_MAX_PACING_RATE %llu bytes/sec\n",
			program_invocation_short_name, (unsigned long long)bytes_per_sec);
}

/*
 * TCP_CONGESTION: a name the kernel has not got (nor a module of it it may
 * load) is ENOENT; one not in tcp_allowed_congestion_control, for a user
 * without CAP_NET_ADMIN, EPERM. Either ends the run naming the list.
 */
static void set_congestion(int fd, const char *name, int debug)
{
	char have[256] = "", path[80];
	const char *list;
	int refused;
	FILE *f;

	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, strlen(name)) == 0) {
		if (debug)
			fprintf(stderr, "%s: TCP_CONGESTION %s\n", program_invocation_short_name, name);
		return;
	}
	if (errno != ENOENT && errno != EPERM)
		err(1, "setsockopt TCP_CONGESTION %s", name);
	refused = errno == EPERM;
	list = refused ? "allowed" : "available";
	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/tcp_%s_congestion_control", list);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(have, sizeof(have), f))
			have[0] = '\0';
		have[strcspn(have, "\n")] = '\0';
		fclose(f);
	}
	errx(1, "-K %s: %s (tcp_%s_congestion_control: %s)", name,
	     refused ? "not allowed to this user" : "no such congestion control here", list,
	     have[0] ? have : "unknown");
}

void net_set_sockopts(int fd, const struct net_sockopts *opts, int debug)
{
	if (opts->rcvbuf_bytes)
		set_one_bufsize(fd, SO_RCVBUF, opts->rcvbuf_bytes, debug);
	if (opts->sndbuf_bytes)
		set_one_bufsize(fd, SO_SNDBUF, opts->sndbuf_bytes, debug);
	if (opts->mss && setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &(int){ opts->mss }, sizeof(int)) < 0)
		err(1, "setsockopt TCP_MAXSEG %ld", opts->mss);
	if (opts->congestion)
		set_congestion(fd, opts->congestion, debug);
}

void net_set_tcp_flags(int fd, const struct net_sockopts *opts)
{
	if (opts->nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int)) < 0)
		err(1, "setsockopt TCP_NODELAY");
	if (opts->quickack)
		net_quickack(fd);
}

void net_quickack(int fd)
{
	if (setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &(int){ 1 }, sizeof(int)) < 0)
		err(1, "setsockopt TCP_QUICKACK");
}

int net_exchange_ask(int fd, long wait_secs, char *why, size_t why_len)
{
	char got[NET_EXCHANGE_BYTES];
	size_t done, have = 0;

	if (net_write_full(fd, NET_IO_SEND, NET_EXCHANGE, NET_EXCHANGE_BYTES, &done, NULL) < 0) {
		snprintf(why, why_len, "sending it: %s", strerror(errno));
		return -1;
	}
	net_set_receive_timeout(fd, wait_secs);
	while (have < sizeof(got)) {
		ssize_t n = recv(fd, got + have, sizeof(got) - have, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			snprintf(why, why_len,
				 "no answer within %ld s (-W): a zcs of 2001 answers none, and one "
				 "serving its -L connections answers this one only once another ends",
				 wait_secs);
			return -1;
		}
		if (n < 0) {
			snprintf(why, why_len, "%s", strerror(errno));
			return -1;
		}
		if (n == 0) {
			snprintf(why, why_len, "zcs closed the connection after %zu bytes of its answer", have);
			return -1;
		}
		have += n;
	}
	if (memcmp(got, NET_EXCHANGE, sizeof(got)) != 0) {
		snprintf(why, why_len, "zcs answered with other bytes");
		return -1;
	}
	return 0;
}

int net_exchange_answer(int fd, long wait_ms)
{
	uint64_t deadline = timing_now_ns() + (uint64_t)wait_ms * 1000000;
	char got[NET_EXCHANGE_BYTES];
	size_t done;
	ssize_t n, had = 0;

	/*
	 * A stream of 2001 differs at its first byte (a loop count's high byte);
	 * the exchange's bytes may come a few at a time.
	 */
	for (int first = 1;; first = 0) {
		struct pollfd p = { .fd = fd, .events = POLLRDHUP };

		/* What has come first, without waiting: most streams differ there. */
		n = recv(fd, got, sizeof(got), MSG_PEEK | (first ? MSG_DONTWAIT : MSG_WAITALL));
		if (n < 0 && first && (errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0 || memcmp(got, NET_EXCHANGE, n) != 0)
			return 0;
		if (n == (ssize_t)sizeof(got))
			break;
		/* -W counts from the last bytes that came. */
		if (n > had) {
			had = n;
			deadline = timing_now_ns() + (uint64_t)wait_ms * 1000000;
		}
		if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)))
			return 0;
		if (timing_now_ns() >= deadline) {
			errno = EAGAIN;
			return -1;
		}
	}
	if (recv(fd, got, sizeof(got), 0) != (ssize_t)sizeof(got) ||
	    net_write_full(fd, NET_IO_SEND, NET_EXCHANGE, NET_EXCHANGE_BYTES, &done, NULL) < 0)
		return -1;
	return 1;
}

long net_ask_rcvbuf(int fd, long bytes)
{
	int val = bytes, got = 0;
	socklen_t len = sizeof(got);

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &val, sizeof(val)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)) < 0)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) < 0)
		return -1;
	return got / 2;
}

int net_forbid_fragments(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	/* An IPv6 socket may carry IPv4 (to ::ffff:a.b.c.d): both options, then. */
	if (ss.ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &(int){ IPV6_PMTUDISC_DO }, sizeof(int)) < 0)
		return -1;
	if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &(int){ IP_PMTUDISC_DO }, sizeof(int)) < 0 &&
	    ss.ss_family == AF_INET)
		return -1;
	return 0;
}

int net_path_mtu(int fd, int *ip_header)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss), mlen = sizeof(int);
	int mtu = 0, v6;

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	v6 = ss.ss_family == AF_INET6;
	if (getsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_MTU : IP_MTU, &mtu, &mlen) < 0)
		return -1;
	/* An IPv4 peer reached through an IPv6 socket (::ffff:a.b.c.d) travels as IPv4. */
	if (v6 && IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)&ss)->sin6_addr))
		v6 = 0;
	*ip_header = v6 ? 40 : 20;
	return mtu;
}

int net_datagram_room(int fd)
{
	int ip_header = 0, mtu = net_path_mtu(fd, &ip_header);

	return mtu < 0 ? -1 : mtu - ip_header - 8;
}

void net_set_cork(int fd)
{
	int on = 1, got = 0;
	socklen_t len = sizeof(got);

	if (setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof(on)) < 0)
		err(1, "setsockopt TCP_CORK");
	if (getsockopt(fd, IPPROTO_TCP, TCP_CORK, &got, &len) < 0)
		err(1, "getsockopt TCP_CORK");
	if (!got)
		errx(1, "TCP_CORK did not stick: the kernel reads it back as 0");
}

void net_set_send_timeout(int fd, long secs)
{
	struct timeval tv = { .tv_sec = secs };

	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		err(1, "setsockopt SO_SNDTIMEO");
}

void net_set_receive_timeout(int fd, long secs)
{
	net_set_receive_timeout_ms(fd, secs * 1000);
}

void net_set_receive_timeout_ms(int fd, long ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		err(1, "setsockopt SO_RCVTIMEO");
}

long net_queued(int fd)
{
	int n = 0;

	return ioctl(fd, FIONREAD, &n) < 0 ? -1 : n;
}

/*
 * Asked for a mark, the kernel clamps the receive window to that many bytes
 * (TCP_WINDOW_CLAMP) and sizes the buffer for it. A sender sends whole
 * segments (64 KiB over loopback), and with the window full short of the
 * mark by less than a segment the sender waited for room and the reader for
 * the mark until the sender's persist timer, 200 ms: a paced zcc fell short
 * of its rate in 2-6 runs of 20 at -R 8m, 20m and 64m, the receive window
 * limiting it 37% of the time (tcp_info). Asked for twice the mark first,
 * the kernel lets the window grow to twice the mark, and keeps that when
 * the mark comes down to what was asked (the buffer still tuned upwards as
 * it would be): 0 runs of 80 fell short, and sendfile and send at full speed
 * moved the same within the runs' spread (docs/results.md). With SO_RCVBUF
 * given (-i), the kernel caps the mark and leaves the window.
 */
int net_set_rcvlowat(int fd, long bytes, int debug)
{
	int val = bytes, twice = val > INT_MAX / 2 ? INT_MAX : 2 * val, got = 0;
	socklen_t len = sizeof(got);

	if (setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &twice, sizeof(twice)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &val, sizeof(val)) < 0)
		err(1, "setsockopt SO_RCVLOWAT %ld", bytes);
	if (getsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &got, &len) < 0)
		err(1, "getsockopt SO_RCVLOWAT");
	if (debug)
		fprintf(stderr, "%s: SO_RCVLOWAT %ld (kernel reports %d)\n",
			program_invocation_short_name, bytes, got);
	return got;
}

/* -d: where, and the MSS the kernel settled on: what each segment's data may be, after options. */
static void say_connected(int fd, const char *where, long asked)
{
	int mss = 0;
	socklen_t len = sizeof(mss);

	fprintf(stderr, "%s: connected to %s\n", program_invocation_short_name, where);
	if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) < 0)
		return;
	if (asked)
		fprintf(stderr, "%s: TCP_MAXSEG %ld asked, %d settled (data per segment, after TCP options)\n",
			program_invocation_short_name, asked, mss);
	else
		fprintf(stderr, "%s: TCP_MAXSEG %d once connected (data per segment, after TCP options)\n",
			program_invocation_short_name, mss);
}

void net_say_mss_settled(int fd)
{
	int mss = 0;
	socklen_t len = sizeof(mss);

	if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) == 0)
		fprintf(stderr, "%s: TCP_MAXSEG %d at the last byte (as the transfer settled it: "
			"before data, the kernel may say less)\n", program_invocation_short_name, mss);
}

int net_first_family(const char *host, int datagram)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = datagram ? SOCK_DGRAM : SOCK_STREAM };
	struct addrinfo *res;
	int family;

	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return AF_UNSPEC;
	family = res->ai_family;
	freeaddrinfo(res);
	return family;
}

/*
 * connect(), waiting secs at most (0: as long as the kernel does, over a
 * minute for a SYN no one answers): 0, or -1 with errno (ETIMEDOUT when the
 * wait ran out).
 */
static int connect_within(int fd, const struct sockaddr *sa, socklen_t len, long secs)
{
	int flags = fcntl(fd, F_GETFL), rc, e = 0;
	socklen_t elen = sizeof(e);
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	uint64_t deadline;

	if (!secs)
		return connect(fd, sa, len);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -1;
	rc = connect(fd, sa, len);
	if (rc < 0 && errno == EINPROGRESS) {
		deadline = timing_now_ns() + secs * NSEC_PER_SEC;
		do {
			uint64_t now = timing_now_ns();

			rc = now >= deadline ? 0 : poll(&pfd, 1, (deadline - now + 999999) / 1000000);
		} while (rc < 0 && errno == EINTR);
		if (rc == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) < 0)
			return -1;
		rc = e ? -1 : 0;
		errno = e;
	}
	if (rc == 0 && fcntl(fd, F_SETFL, flags) < 0)
		return -1;
	return rc;
}

int net_connect(const char *host, int port_num, const struct net_sockopts *opts, int debug)
{
	char port[8];
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = opts->datagram ? SOCK_DGRAM : SOCK_STREAM };
	struct addrinfo *res, *ai;
	char where[NI_MAXHOST + NI_MAXSERV + 8];
	int fd = -1, saved = 0, rc;

	snprintf(port, sizeof(port), "%d", port_num);
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0)
		errx(1, "%s port %s: %s", host, port, rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		net_set_sockopts(fd, opts, debug);
		net_addr_text(ai->ai_addr, ai->ai_addrlen, where, sizeof(where));
		if (connect_within(fd, ai->ai_addr, ai->ai_addrlen, opts->connect_secs) == 0) {
			if (debug)
				say_connected(fd, where, opts->mss);
			break;
		}
		saved = errno;
		if (debug)
			fprintf(stderr, "%s: connect to %s: %s\n", program_invocation_short_name, where,
				strerror(saved));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0 && saved == ETIMEDOUT && opts->connect_secs)
		errx(1, "connect to %s port %s: no answer within %ld s (-W)", host, port,
		     opts->connect_secs);
	if (fd < 0) {
		errno = saved;
		err(1, "connect to %s port %s", host, port);
	}
	return fd;
}

static int bind_listen(int family, const struct sockaddr *sa, socklen_t len,
		       const struct net_sockopts *opts, int debug)
{
	int fd = socket(family, opts->datagram ? SOCK_DGRAM : SOCK_STREAM, 0), on = 1, off = 0;
	char where[NI_MAXHOST + NI_MAXSERV + 8];

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) < 0)
		err(1, "setsockopt SO_REUSEADDR");
	/* Without an address, one IPv6 socket serves IPv4 too, as ::ffff:a.b.c.d. */
	if (family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)sa)->sin6_addr))
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	net_set_sockopts(fd, opts, debug);
	net_addr_text(sa, len, where, sizeof(where));
	if (bind(fd, sa, len) < 0)
		err(1, "bind to %s", where);
	if (!opts->datagram && listen(fd, 128) < 0)
		err(1, "listen on %s", where);
	if (debug) {
		struct sockaddr_storage ss;
		socklen_t sslen = sizeof(ss);

		getsockname(fd, (struct sockaddr *)&ss, &sslen);
		net_addr_text((struct sockaddr *)&ss, sslen, where, sizeof(where));
		fprintf(stderr, "%s: listening on %s%s\n", program_invocation_short_name, where,
			opts->datagram ? " for datagrams (UDP)" : "");
	}
	return fd;
}

int net_listen(const char *addr, int port_num, const struct net_sockopts *opts, int debug)
{
	char port[8];
	struct addrinfo hints = { .ai_socktype = opts->datagram ? SOCK_DGRAM : SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res;
	int fd, rc;

	if (addr == NULL) {
		struct sockaddr_in6 any6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
		struct sockaddr_in any4 = { .sin_family = AF_INET, .sin_addr.s_addr = INADDR_ANY };
		any6.sin6_port = htons(port_num);
		any4.sin_port = htons(port_num);
		fd = bind_listen(AF_INET6, (struct sockaddr *)&any6, sizeof(any6), opts, debug);
		if (fd < 0 && errno == EAFNOSUPPORT)
			fd = bind_listen(AF_INET, (struct sockaddr *)&any4, sizeof(any4), opts, debug);
		if (fd < 0)
			err(1, "socket");
		return fd;
	}
	snprintf(port, sizeof(port), "%d", port_num);
	rc = getaddrinfo(addr, port, &hints, &res);
	if (rc != 0)
		errx(1, "%s: %s", addr, rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
	fd = bind_listen(res->ai_family, res->ai_addr, res->ai_addrlen, opts, debug);
	if (fd < 0)
		err(1, "socket for %s", addr);
	freeaddrinfo(res);
	return fd;
}

void net_splice_pipe(int fds[2], long bytes)
{
	if (pipe(fds) < 0)
		err(1, "pipe");
	if (fcntl(fds[1], F_SETPIPE_SZ, (int)bytes) < 0)
		err(1, "-b %ld: F_SETPIPE_SZ (a pipe may be at most /proc/sys/fs/pipe-max-size "
		       "bytes without CAP_SYS_RESOURCE)", bytes);
}

int net_set_zerocopy(int fd)
{
	int on = 1;

	return setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &on, sizeof(on));
}

int net_take_zc_completion(int fd, struct net_zc_range *range)
{
	char control[CMSG_SPACE(sizeof(struct sock_extended_err)) + 64];
	struct msghdr msg = { .msg_control = control, .msg_controllen = sizeof(control) };
	struct sock_extended_err *ee = NULL;
	struct cmsghdr *cm;

	if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if ((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
		    (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR))
			ee = (struct sock_extended_err *)CMSG_DATA(cm);
	}
	if (!ee || ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee->ee_errno != 0) {
		errno = EPROTO;
		return -1;
	}
	*range = (struct net_zc_range){ .lo = ee->ee_info, .hi = ee->ee_data,
					.copied = !!(ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED) };
	return 1;
}
