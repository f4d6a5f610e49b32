/*
 * zcs: the zc receiver. Accepts connections from zcc, serves each in a forked
 * child that reads the stream into a buffer and throws it away, printing the
 * throughput every few seconds and a summary when the connection ends.
 */
#include <err.h>
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cpu.h"
#include "lib/net.h"
#include "lib/opt.h"
#include "lib/proto.h"
#include "lib/timing.h"

struct settings {
	int debug;
	const char *addr;
	long bufsize;
	int cpu;
	struct net_bufsizes bufs;
	long rcvlowat;
	int port;
	long report_secs;
};

static volatile sig_atomic_t tick;

void usage(FILE *to)
{
	fprintf(to, "usage: zcs [-dh] [-a addr] [-b bufsize] [-B cpu] [-i rcvbuf] [-l lowat] "
		    "[-o sndbuf] [-p port] [-t secs]\n");
}

static void parse_options(int argc, char **argv, struct settings *s)
{
	int c;

	*s = (struct settings){ .bufsize = NET_DEFAULT_BUFSIZE, .cpu = -1, .port = NET_DEFAULT_PORT,
				.report_secs = 5, .rcvlowat = NET_DEFAULT_RCVLOWAT };
	while ((c = getopt(argc, argv, ":a:b:B:dhi:l:o:p:t:")) != -1) {
		switch (c) {
		case 'a':
			if (*optarg == '\0')
				opt_fail(c, optarg, opt_status_text(OPT_EMPTY));
			s->addr = optarg;
			break;
		case 'b':
			s->bufsize = opt_size(c, optarg, 1, 1L << 30);
			break;
		case 'B':
			s->cpu = opt_long(c, optarg, 0, CPU_MAX_INDEX);
			break;
		case 'd':
			s->debug++;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'i':
			s->bufs.rcvbuf_bytes = opt_size(c, optarg, 1, NET_MAX_BUFSIZE);
			break;
		case 'l':
			s->rcvlowat = opt_size(c, optarg, 1, 1L << 30);
			break;
		case 'o':
			s->bufs.sndbuf_bytes = opt_size(c, optarg, 1, NET_MAX_BUFSIZE);
			break;
		case 'p':
			s->port = opt_long(c, optarg, 1, 65535);
			break;
		case 't':
			s->report_secs = opt_long(c, optarg, 1, 86400);
			break;
		default:
			opt_fail_getopt(c, optopt);
		}
	}
	if (optind < argc)
		opt_failx("unexpected argument '%s'", argv[optind]);
}

/*
 * The summary ends with the CPU time this connection's server took (the child
 * serves one connection only), so that on loopback each end's share shows.
 */
static void print_summary(uint64_t bytes, uint64_t ns, const struct proto_rx *rx)
{
	const char *waiting = proto_rx_waiting_for(rx);
	struct rusage ru;

	printf("received %llu bytes in %.3f s, %llu kbytes/sec", (unsigned long long)bytes,
	       timing_secs(ns), (unsigned long long)timing_kbytes_per_sec(bytes, ns));
	if (waiting)
		printf(", incomplete: waiting for %s", waiting);
	else if (rx->extra_bytes)
		printf(", %llu bytes after the end of the stream",
		       (unsigned long long)rx->extra_bytes);
	getrusage(RUSAGE_SELF, &ru);
	printf(", cpu %.2fu %.2fs\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
}

/* The child's whole life: read until the peer closes, reporting as it goes. */
static int serve(int fd, const struct settings *s, const char *peer)
{
	unsigned char *buf = malloc(s->bufsize);
	uint64_t start = timing_now_ns(), last = start, bytes = 0, bytes_at_last = 0;
	struct proto_rx rx;
	ssize_t n;

	if (!buf)
		err(1, "allocating a %ld-byte buffer", s->bufsize);
	net_set_rcvlowat(fd, s->rcvlowat, s->debug);
	proto_rx_init(&rx);
	timing_tick_start(s->report_secs * 1000, &tick);
	for (;;) {
		n = read(fd, buf, s->bufsize);
		/* Count first: a read the tick cut short returns what had arrived by then. */
		if (n > 0) {
			bytes += n;
			proto_rx_feed(&rx, buf, n);
		}
		if (tick) {
			uint64_t now = timing_now_ns();

			tick = 0;
			printf("%llu kbytes/sec\n", (unsigned long long)timing_kbytes_per_sec(
							    bytes - bytes_at_last, now - last));
			last = now;
			bytes_at_last = bytes;
		}
		if (n > 0)
			continue;
		if (n == 0)
			break;
		if (errno == EINTR)
			continue;
		if (s->debug)
			warn("read from %s", peer);
		break;
	}
	timing_tick_stop();
	print_summary(bytes, timing_now_ns() - start, &rx);
	if (s->debug)
		fprintf(stderr, "zcs: %s: %llu files\n", peer, (unsigned long long)rx.files_done);
	free(buf);
	return proto_rx_waiting_for(&rx) ? 1 : 0;
}

static void reap_children(int sig)
{
	int saved = errno;

	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	errno = saved;
}

/*
 * accept() errors a server outlives: no descriptor or memory to spare for now
 * (Linux reserves the descriptor before it waits, so these come even with
 * nobody connecting), or a connection that failed while it was queued, which
 * accept(2) says to treat as EAGAIN.
 */
static int accept_error_passes(int e)
{
	switch (e) {
	case EMFILE:
	case ENFILE:
	case ENOBUFS:
	case ENOMEM:
	case ENETDOWN:
	case EPROTO:
	case ENOPROTOOPT:
	case EHOSTDOWN:
	case ENONET:
	case EHOSTUNREACH:
	case EOPNOTSUPP:
	case ENETUNREACH:
	case ETIMEDOUT:
		return 1;
	}
	return 0;
}

/* How long to wait after an accept() error that passes, before trying again. */
#define ACCEPT_RETRY_US 100000

static void accept_forever(int lfd, const struct settings *s)
{
	int last_error = 0;

	struct sigaction sa = { .sa_handler = reap_children, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGCHLD, &sa, NULL) < 0)
		err(1, "sigaction SIGCHLD");
	for (;;) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		char peer[NI_MAXHOST + NI_MAXSERV + 8];
		int fd = accept(lfd, (struct sockaddr *)&ss, &len);
		pid_t pid;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (!accept_error_passes(errno))
				err(1, "accept");
			/* Said once for a run of the same error, not ten times a second. */
			if (errno != last_error)
				warnx("accept: %s (waiting, and trying again)", strerror(errno));
			last_error = errno;
			usleep(ACCEPT_RETRY_US);
			continue;
		}
		last_error = 0;
		net_addr_text((struct sockaddr *)&ss, len, peer, sizeof(peer));
		if (s->debug)
			fprintf(stderr, "zcs: connection from %s\n", peer);
		pid = fork();
		if (pid < 0) {
			warn("fork for %s", peer);
		} else if (pid == 0) {
			signal(SIGCHLD, SIG_DFL);
			close(lfd);
			exit(serve(fd, s, peer));
		}
		close(fd);
	}
}

int main(int argc, char **argv)
{
	struct settings s;
	int lfd;

	parse_options(argc, argv, &s);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (s.cpu >= 0 && cpu_pin(s.cpu) < 0)
		err(1, "-B %d: sched_setaffinity", s.cpu);
	lfd = net_listen(s.addr, s.port, &s.bufs, s.debug);
	accept_forever(lfd, &s);
}
