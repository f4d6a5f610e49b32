#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/net.h"
#include "check.h"

static const struct net_sockopts autotune = { 0 };

/* The port the kernel chose for a socket bound to port 0. */
static int local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static int accept_one(int lfd)
{
	int fd = accept(lfd, NULL, NULL);

	CHECK(fd >= 0);
	return fd;
}

/* A listener on 127.0.0.1 with lopts, a connection to it with copts, and the connection accepted. */
struct loopback {
	int lfd, port, fd, afd;
};

static struct loopback connected(const struct net_sockopts *lopts, const struct net_sockopts *copts)
{
	struct loopback l;

	l.lfd = net_listen("127.0.0.1", 0, lopts, 0);
	l.port = local_port(l.lfd);
	l.fd = net_connect("127.0.0.1", l.port, copts, 0);
	l.afd = accept_one(l.lfd);
	return l;
}

static void disconnect(struct loopback *l)
{
	close(l->fd);
	close(l->afd);
	close(l->lfd);
}

static void listen_and_connect_on_ipv4(void)
{
	struct loopback l = connected(&autotune, &autotune);
	char c = 0;

	CHECK(l.port > 0);
	CHECK(write(l.fd, "z", 1) == 1);
	CHECK(read(l.afd, &c, 1) == 1 && c == 'z');
	disconnect(&l);
}

static void wildcard_listener_takes_ipv4_and_ipv6(void)
{
	int lfd = net_listen(NULL, 0, &autotune, 0), port = local_port(lfd);
	int fd4 = net_connect("127.0.0.1", port, &autotune, 0), a4 = accept_one(lfd);
	int fd6 = net_connect("::1", port, &autotune, 0), a6 = accept_one(lfd);

	CHECK(fd4 >= 0 && fd6 >= 0);
	close(fd4);
	close(a4);
	close(fd6);
	close(a6);
	close(lfd);
}

static int get_int_opt(int fd, int level, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	CHECK(getsockopt(fd, level, name, &v, &len) == 0);
	return v;
}

static void buffer_sizes_are_set_and_inherited(void)
{
	struct net_sockopts bufs = { .rcvbuf_bytes = 96 * 1024, .sndbuf_bytes = 48 * 1024 };
	struct loopback l = connected(&bufs, &bufs);

	/* Linux reports twice what was asked, the other half being its bookkeeping. */
	CHECK(get_int_opt(l.fd, SOL_SOCKET, SO_RCVBUF) == 2 * 96 * 1024);
	CHECK(get_int_opt(l.fd, SOL_SOCKET, SO_SNDBUF) == 2 * 48 * 1024);
	CHECK(get_int_opt(l.afd, SOL_SOCKET, SO_RCVBUF) == 2 * 96 * 1024);
	disconnect(&l);
}

/* zcc -M: the MSS is set before connect(); the kernel settles on it less the timestamp option. */
static void mss_is_set_before_connecting(void)
{
	struct net_sockopts opts = { .mss = 1012 };
	struct loopback l = connected(&autotune, &opts);

	CHECK(get_int_opt(l.fd, IPPROTO_TCP, TCP_MAXSEG) == 1000);
	disconnect(&l);
}

/*
 * The mark is kept as asked, and the window may grow to twice it (the kernel
 * clamped the window to the mark alone: TCP_WINDOW_CLAMP 262144 for 256 KiB),
 * so a whole segment fits past it; with SO_RCVBUF fixed, the kernel caps the
 * mark at half of it and leaves the buffer.
 */
static void rcvlowat_leaves_a_window_past_the_mark(void)
{
	struct net_sockopts fixed = { .rcvbuf_bytes = 65536 };
	struct loopback l = connected(&autotune, &autotune);
	int fixed_fd = net_connect("127.0.0.1", l.port, &fixed, 0), fixed_afd = accept_one(l.lfd);

	CHECK(net_set_rcvlowat(l.fd, 262144, 0) == 262144);
	CHECK(get_int_opt(l.fd, IPPROTO_TCP, TCP_WINDOW_CLAMP) == 2 * 262144);
	CHECK(get_int_opt(l.fd, SOL_SOCKET, SO_RCVBUF) >= 2 * 262144);
	CHECK(net_set_rcvlowat(fixed_fd, 262144, 0) == 65536);
	CHECK(get_int_opt(fixed_fd, SOL_SOCKET, SO_RCVBUF) == 2 * 65536);
	close(fixed_fd);
	close(fixed_afd);
	disconnect(&l);
}

static uint64_t pacing_read_back(int fd)
{
	uint64_t got = 0;
	socklen_t len = sizeof(got);

	CHECK(getsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &got, &len) == 0);
	return got;
}

/* On a connected socket, before its first byte; past 32 bits on a kernel that takes 64. */
static void pacing_rate_is_set_as_asked(void)
{
	struct loopback l = connected(&autotune, &autotune);
	int fd2 = net_connect("127.0.0.1", l.port, &autotune, 0), afd2 = accept_one(l.lfd);

	net_set_pacing(l.fd, 123456789, 0);
	net_set_pacing(fd2, 5ULL << 32, 0);
	CHECK_EQ_U64(pacing_read_back(l.fd), 123456789);
	CHECK_EQ_U64(pacing_read_back(fd2), 5ULL << 32);
	CHECK_EQ_U64(pacing_read_back(l.afd), ~0ULL);
	close(fd2);
	close(afd2);
	disconnect(&l);
}

/*
 * What a kernel kept, read back: all 64 bits, or on a kernel whose option is
 * 32 bits wide (before 4.20) the low 32, which holds a rate up to 2^32 - 2.
 */
static void pacing_read_back_says_what_was_kept(void)
{
	char why[160] = "";

	CHECK(net_pacing_kept(1000, 1000, 8, why, sizeof(why)) == 0);
	CHECK(net_pacing_kept(5ULL << 32, 5ULL << 32, 8, why, sizeof(why)) == 0);
	CHECK(net_pacing_kept(4294967294ULL, 4294967294ULL, 4, why, sizeof(why)) == 0);
	CHECK(net_pacing_kept(1000, 999, 8, why, sizeof(why)) == -1);
	CHECK_STR(why, "asked for 1000 bytes/sec, the kernel kept 999");
	CHECK(net_pacing_kept(5ULL << 32, 0, 4, why, sizeof(why)) == -1);
	CHECK_STR(why, "21474836480 bytes/sec is more than this kernel's 32-bit option holds "
		       "(4294967294)");
	CHECK(net_pacing_kept(4294967295ULL, 4294967295ULL, 4, why, sizeof(why)) == -1);
	CHECK_STR(why, "4294967295 bytes/sec is more than this kernel's 32-bit option holds "
		       "(4294967294)");
}

static void buffer_size_beyond_the_limit_exits_1(void)
{
	struct net_sockopts bufs = { .rcvbuf_bytes = 1L << 30 };
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		close(2); /* the message is checked by the end-to-end tests */
		net_set_sockopts(fd, &bufs, 0);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
}

static void cork_sticks(void)
{
	struct loopback l = connected(&autotune, &autotune);

	CHECK(get_int_opt(l.fd, IPPROTO_TCP, TCP_CORK) == 0);
	net_set_cork(l.fd);
	CHECK(get_int_opt(l.fd, IPPROTO_TCP, TCP_CORK) == 1);
	disconnect(&l);
}

static void addr_text_is_numeric(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(2222),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char buf[64];

	net_addr_text((struct sockaddr *)&sin, sizeof(sin), buf, sizeof(buf));
	CHECK_STR(buf, "127.0.0.1 port 2222");
}

static void write_full_delivers_everything(void)
{
	static char big[1 << 20];
	char got[8];
	size_t done = 0;
	uint64_t calls = 0;
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(net_write_full(sv[0], NET_IO_SEND, "abcdefgh", 8, &done, NULL) == 0);
	CHECK_EQ_U64(done, 8);
	CHECK(read(sv[1], got, sizeof(got)) == (ssize_t)sizeof(got));
	CHECK(memcmp(got, "abcdefgh", sizeof(got)) == 0);
	CHECK(net_write_full(sv[0], NET_IO_WRITE, "xyz", 3, &done, &calls) == 0 && done == 3);
	CHECK_EQ_U64(calls, 1);
	close(sv[1]);
	/* The peer is gone: -1 with EPIPE and no signal, and the count so far. */
	signal(SIGPIPE, SIG_IGN);
	CHECK(net_write_full(sv[0], NET_IO_SEND, big, sizeof(big), &done, NULL) == -1);
	CHECK(errno == EPIPE);
	CHECK_EQ_U64(done, 0);
	close(sv[0]);
}

int main(void)
{
	RUN(listen_and_connect_on_ipv4);
	RUN(wildcard_listener_takes_ipv4_and_ipv6);
	RUN(buffer_sizes_are_set_and_inherited);
	RUN(mss_is_set_before_connecting);
	RUN(rcvlowat_leaves_a_window_past_the_mark);
	RUN(pacing_rate_is_set_as_asked);
	RUN(pacing_read_back_says_what_was_kept);
	RUN(buffer_size_beyond_the_limit_exits_1);
	RUN(cork_sticks);
	RUN(addr_text_is_numeric);
	RUN(write_full_delivers_everything);
	return CHECK_EXIT();
}
