/*
 * zcs: the zc receiver. Accepts connections from zcc, serves each in a forked
 * child that reads the stream into a buffer and throws it away (or has the
 * kernel drop the file data unseen), printing the throughput every few
 * seconds and a summary when the connection ends.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cpu.h"
#include "lib/json.h"
#include "lib/link.h"
#include "lib/meter.h"
#include "lib/net.h"
#include "lib/opt.h"
#include "lib/proto.h"
#include "lib/timing.h"

struct conn;

/*
 * A way of receiving: takes what arrives next, feeds the decoder, and returns
 * how many bytes it took from the socket, 0 at the end, -1 with errno.
 */
struct recv_mode {
	const char *name;
	ssize_t (*receive)(struct conn *c);
	int maps;	/* takes data by mapping it: its summary counts the bytes mapped */
};

struct settings {
	int debug;
	int json;		/* -J */
	const struct recv_mode *mode;
	const char *addr;
	long bufsize;
	int cpu;
	struct net_sockopts sockopts;
	long rcvlowat;
	int port;
	long report_secs;
	int measure_cpu;	/* -c */
	int calibrate_only;	/* -C */
	int n_cpus;		/* -N */
	long tare_ms;		/* -T */
	long max_conns;		/* -L */
	long idle_secs;		/* -W */
};

/*
 * -L: connections served at once. A peer can open connections and send
 * nothing for as long as it likes; each is a process and, once data comes,
 * a buffer. 64 is as many as one zcc -P runs.
 */
#define DEFAULT_MAX_CONNS 64
/* -W: a connection that sends nothing for this long ends, its summary says so. */
#define DEFAULT_IDLE_SECS 60

/* One -t interval of a connection, kept for -J. */
struct interval {
	uint64_t start_ns, end_ns;	/* from accept() */
	uint64_t bytes;
};

/* What the parent learns of a connection as it accepts it, before its child is forked. */
struct arrival {
	int shared;		/* -c: another connection was open in its tare, or its transfer */
	int linked;		/* its interface was found, and counted throughout */
	struct link link;
	struct link_sample link_at;	/* its counters at accept() */
};

/* One connection, in its own child. */
struct conn {
	int fd;
	unsigned char *buf;
	size_t bufsize;
	int pipe[2];		/* splice */
	int devnull;		/* splice */
	unsigned char *map;	/* zerocopy: the window the kernel maps received pages into */
	size_t map_bytes;
	uint32_t page;		/* zerocopy: the page size, what the kernel maps in */
	uint64_t mapped_bytes;	/* zerocopy: received by mapping, not by read() */
	int debug;
	int told_why;		/* zerocopy -d: why nothing was mapped, said once */
	struct proto_rx rx;
	const char *peer;
	struct interval *intervals;	/* -J */
	size_t n_intervals;
	struct arrival arr;	/* as the parent accepted it */
	struct link_figures link_fig;
	uint64_t accepted_as;	/* -c: the board's count with this connection */
	int idle_closed;	/* -W: ended for sending nothing for that long */
};

/*
 * -c: the soakers run for as long as zcs does. The parent samples them every
 * METER_PERIOD_MS while it waits, into a ring, and at each accept() takes the
 * connection's tare from it: the last -T ms before the connection came. The
 * board, in memory shared with every child, says whether another connection
 * was open in a connection's tare or transfer, when the soakers counted both.
 */
#define METER_PERIOD_MS 100
#define DEFAULT_TARE_MS 1000

struct board {
	uint64_t accepted;	/* connections so far */
	int open;		/* connections being served */
	uint64_t last_end_ns;	/* when the latest one ended (CLOCK_MONOTONIC) */
};

static struct meter *meter;
static struct meter_ring ring;
static struct board *board;

static volatile sig_atomic_t tick;

static const char usage[] =
	"usage: zcs [-cCdhJ] [-a addr] [-b bufsize] [-B cpu] [-i rcvbuf] [-l lowat] [-m mode]\n"
	"           [-L conns] [-N cpus] [-o sndbuf] [-p port] [-t secs] [-T msecs] [-W secs]\n";

/* Defined with the receive routines below. */
#define N_RECV_MODES 4
static const struct recv_mode recv_modes[N_RECV_MODES];

static const struct recv_mode *find_mode(const char *name)
{
	for (size_t i = 0; i < N_RECV_MODES; i++)
		if (strcmp(name, recv_modes[i].name) == 0)
			return &recv_modes[i];
	opt_fail('m', name, "unknown mode (read, trunc, splice or zerocopy)");
}

/* What one option means for another, once all are read. */
static void check_options(const struct settings *s, const char *given)
{
	if (s->calibrate_only)
		for (const char *o = given; *o; o++)
			if (!strchr("CNd", *o))
				opt_failx("-%c is for receiving: -C calibrates the meter and listens for nothing",
					  *o);
	meter_check_options(given, s->measure_cpu, s->calibrate_only, s->n_cpus);
}

static void parse_options(int argc, char **argv, struct settings *s)
{
	char given[64] = "";
	int c;

	*s = (struct settings){ .bufsize = NET_DEFAULT_BUFSIZE, .cpu = -1, .port = NET_DEFAULT_PORT,
				.report_secs = 5, .rcvlowat = NET_DEFAULT_RCVLOWAT,
				.mode = &recv_modes[0], .tare_ms = DEFAULT_TARE_MS,
				.max_conns = DEFAULT_MAX_CONNS, .idle_secs = DEFAULT_IDLE_SECS };
	opt_init(usage);
	while ((c = getopt(argc, argv, ":a:b:B:cCdhi:Jl:L:m:N:o:p:t:T:W:")) != -1) {
		opt_given(given, sizeof(given), c);
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
		case 'c':
			s->measure_cpu = 1;
			break;
		case 'C':
			s->calibrate_only = 1;
			break;
		case 'd':
			s->debug++;
			break;
		case 'h':
			opt_usage(stdout);
			exit(0);
		case 'i':
			s->sockopts.rcvbuf_bytes = opt_size(c, optarg, 1, NET_MAX_BUFSIZE);
			break;
		case 'J':
			s->json = 1;
			break;
		case 'l':
			s->rcvlowat = opt_size(c, optarg, 1, 1L << 30);
			break;
		case 'L':
			s->max_conns = opt_long(c, optarg, 1, 10000);
			break;
		case 'm':
			s->mode = find_mode(optarg);
			break;
		case 'N':
			s->n_cpus = opt_long(c, optarg, 1, CPU_MAX_INDEX + 1);
			break;
		case 'o':
			s->sockopts.sndbuf_bytes = opt_size(c, optarg, 1, NET_MAX_BUFSIZE);
			break;
		case 'p':
			s->port = opt_long(c, optarg, 1, 65535);
			break;
		case 't':
			s->report_secs = opt_long(c, optarg, 1, 86400);
			break;
		case 'T':
			s->tare_ms = opt_long(c, optarg, 1, 60000);
			break;
		case 'W':
			s->idle_secs = opt_long(c, optarg, 1, 86400);
			break;
		default:
			opt_fail_getopt(c, optopt);
		}
	}
	if (optind < argc)
		opt_failx("unexpected argument '%s'", argv[optind]);
	check_options(s, given);
}

/*
 * The summary ends with the CPU time this connection's server took (the child
 * serves one connection only), so that on loopback each end's share shows.
 */
static void print_summary(const struct settings *s, const struct conn *c, uint64_t bytes,
			  uint64_t ns, const struct soak_figures *fig)
{
	const struct proto_rx *rx = &c->rx;
	const char *waiting = proto_rx_waiting_for(rx);
	struct rusage ru;

	printf("received %llu bytes in %.3f s, %llu kbytes/sec", (unsigned long long)bytes,
	       timing_secs(ns), (unsigned long long)timing_kbytes_per_sec(bytes, ns));
	if (waiting)
		printf(", incomplete: waiting for %s", waiting);
	else if (rx->extra_bytes)
		printf(", %llu bytes after the end of the stream",
		       (unsigned long long)rx->extra_bytes);
	if (c->idle_closed)
		printf(", closed after %ld s with nothing received (-W)", s->idle_secs);
	if (fig) {
		meter_print(stdout, fig);
		if (c->arr.shared)
			printf(", shared with another connection");
	}
	getrusage(RUSAGE_SELF, &ru);
	printf(", cpu %.2fu %.2fs", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	if (s->mode->maps)
		printf(", mapped %llu of %llu bytes", (unsigned long long)c->mapped_bytes,
		       (unsigned long long)bytes);
	if (fig && c->arr.linked)
		link_print(stdout, &c->arr.link, &c->link_fig);
	printf("\n");
}

/* read() up to len bytes (at most the buffer) into the buffer, and decode them. */
static ssize_t read_and_feed(struct conn *c, size_t len)
{
	ssize_t n = read(c->fd, c->buf, len && len < c->bufsize ? len : c->bufsize);

	if (n > 0)
		proto_rx_feed(&c->rx, c->buf, n);
	return n;
}

/* read: everything through the buffer, as in 2001. */
static ssize_t receive_read(struct conn *c)
{
	return read_and_feed(c, c->bufsize);
}

/*
 * trunc and splice read the headers with read(), exactly the bytes due, so
 * that the file data is never read into the buffer; after the end of the
 * stream, whatever else comes is read to be counted.
 */
static ssize_t receive_header(struct conn *c)
{
	return read_and_feed(c, proto_rx_header_due(&c->rx));
}

static size_t data_chunk(const struct conn *c)
{
	uint32_t data = proto_rx_data_due(&c->rx);

	return data < c->bufsize ? data : c->bufsize;
}

/* trunc: recv() with MSG_TRUNC, which on TCP drops the data without copying it out. */
static ssize_t receive_trunc(struct conn *c)
{
	ssize_t n;

	if (proto_rx_data_due(&c->rx) == 0)
		return receive_header(c);
	n = recv(c->fd, c->buf, data_chunk(c), MSG_TRUNC);
	if (n > 0)
		proto_rx_skip(&c->rx, n);
	return n;
}

/* splice: the socket's pages into a pipe as large as -b, and on to /dev/null. */
static ssize_t receive_splice(struct conn *c)
{
	ssize_t n;

	if (proto_rx_data_due(&c->rx) == 0)
		return receive_header(c);
	n = splice(c->fd, NULL, c->pipe[1], NULL, data_chunk(c), SPLICE_F_MOVE);
	if (n <= 0)
		return n;
	proto_rx_skip(&c->rx, n);
	for (ssize_t left = n; left > 0;) {
		ssize_t m = splice(c->pipe[0], NULL, c->devnull, NULL, left, SPLICE_F_MOVE);

		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			err(1, "splice to /dev/null");
		left -= m;
	}
	return n;
}

/*
 * zerocopy: getsockopt(TCP_ZEROCOPY_RECEIVE) maps whole pages of received data
 * into a window mapped from the socket, instead of copying them out; the
 * headers in them are decoded where they lie. The kernel maps only data that
 * sits in whole pages at page offsets (segments of a whole number of pages,
 * e.g. zcc -M 4108 over loopback); what it cannot map it says to read(). The
 * layout is the kernel's (linux/tcp.h), up to the field this code reads.
 */
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
 * -d: why a page or more of data could not be mapped, once per connection.
 * Either the segments are not whole pages, or they are but the pages under
 * them cannot be given away: part of a larger page, or the page cache's.
 * Over loopback only zero-copy sends arrive in pages of their own, as the
 * kernel copies them into fresh ones.
 */
static void tell_why_unmapped(struct conn *c, uint32_t skipped)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (!c->debug || c->told_why)
		return;
	c->told_why = 1;
	if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		ti.tcpi_rcv_mss = 0;
	fprintf(stderr, "zcs: %s: %u bytes could not be mapped: ", c->peer, skipped);
	if (ti.tcpi_rcv_mss % c->page)
		fprintf(stderr,
			"the sender's segments carry %u bytes (TCP_INFO rcv_mss), not whole %u-byte pages (zcc -M %u sends whole pages, with timestamps on)\n",
			ti.tcpi_rcv_mss, c->page, c->page + 12);
	else
		fprintf(stderr,
			"the sender's segments carry whole pages (%u bytes, TCP_INFO rcv_mss), in memory the kernel cannot map (over loopback, only zcc -m zerocopy or uring-zc arrives in pages of its own)\n",
			ti.tcpi_rcv_mss);
}

static ssize_t receive_zerocopy(struct conn *c)
{
	struct zc_receive zc = { .address = (uintptr_t)c->map, .length = c->map_bytes };
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	socklen_t len = sizeof(zc);
	uint32_t want;

	/* The option does not wait for data: poll() does, and honours SO_RCVLOWAT. */
	if (poll(&pfd, 1, -1) < 0)
		return -1;
	if (getsockopt(c->fd, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, &zc, &len) < 0) {
		/* EIO: nothing queued and the peer has closed; read() says so. */
		if (errno != EIO)
			return -1;
		zc.length = zc.recv_skip_hint = 0;
	}
	if (zc.length > 0) {
		proto_rx_feed(&c->rx, c->map, zc.length);
		c->mapped_bytes += zc.length;
		/* Unmapped now, the pages go back at once, not at the next call. */
		madvise(c->map, zc.length, MADV_DONTNEED);
		return zc.length;
	}
	want = zc.recv_skip_hint;
	if (want >= c->page) {
		tell_why_unmapped(c, zc.recv_skip_hint);
		/*
		 * A page or more that cannot be mapped, on a connection where none
		 * has been: the sender's segments are not pages, and what follows
		 * will not map either, so all that is queued is read at once, not a
		 * segment a call (zcs's own CPU for sendfile in 4 KiB segments fell
		 * from 1.34 to 0.48 us/KB, docs/results.md). Once pages have
		 * mapped, an odd page that does not is read alone, so that the
		 * pages after it can still be mapped.
		 */
		if (c->mapped_bytes == 0 && zc.inq > want)
			want = zc.inq;
	}
	/* The hint, or with nothing to hint at, whatever comes next: the end, say. */
	return read_and_feed(c, want);
}

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

static const struct recv_mode recv_modes[N_RECV_MODES] = {
	{ "read", receive_read, .maps = 0 },
	{ "trunc", receive_trunc, .maps = 0 },
	{ "splice", receive_splice, .maps = 0 },
	{ "zerocopy", receive_zerocopy, .maps = 1 },
};

static void conn_setup(struct conn *c, int fd, const struct settings *s)
{
	*c = (struct conn){ .fd = fd, .bufsize = s->bufsize, .pipe = { -1, -1 }, .devnull = -1 };
	c->debug = s->debug;
	proto_rx_init(&c->rx);
}

/*
 * The mode's buffer, pipe or window, taken when the first data (or the end)
 * comes, not at accept(): a connection that sends nothing costs no more
 * than its process.
 */
static void conn_take_buffers(struct conn *c, const struct settings *s)
{
	int fd = c->fd;

	/* Set only now: with it, poll() would not say that fewer bytes had come. */
	net_set_rcvlowat(fd, s->rcvlowat, s->debug);
	c->buf = malloc(s->bufsize);
	if (!c->buf)
		err(1, "allocating a %ld-byte buffer", s->bufsize);
	if (s->mode->receive == receive_splice) {
		net_splice_pipe(c->pipe, s->bufsize);
		c->devnull = open("/dev/null", O_WRONLY);
		if (c->devnull < 0)
			err(1, "/dev/null");
	}
	if (s->mode->maps) {
		c->page = sysconf(_SC_PAGESIZE);
		c->map_bytes = (s->bufsize + c->page - 1) / c->page * c->page;
		c->map = mmap(NULL, c->map_bytes, PROT_READ, MAP_SHARED, fd, 0);
		if (c->map == MAP_FAILED)
			err(1, "mapping a %zu-byte window of the socket", c->map_bytes);
	}
}

/* -W ran out: what came and was not yet read (less than -l, say), read and counted. */
static uint64_t read_what_came(struct conn *c, const struct settings *s)
{
	uint64_t got = 0;
	ssize_t n;

	if (!c->buf)
		conn_take_buffers(c, s);
	while ((n = recv(c->fd, c->buf, c->bufsize, MSG_DONTWAIT)) > 0) {
		proto_rx_feed(&c->rx, c->buf, n);
		got += n;
	}
	return got;
}

/*
 * Before the first byte: wait without a buffer until something comes, for
 * what is left of -W (ms), then take the buffers. -1 with EINTR when a -t
 * tick or the data came (the loop goes round), EAGAIN when -W ran out.
 */
static ssize_t await_first_data(struct conn *c, const struct settings *s, int64_t ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	int rc = poll(&pfd, 1, ms > 0 ? (ms < INT_MAX ? (int)ms : INT_MAX) : 0);

	if (rc < 0)
		return -1;
	if (rc == 0) {
		errno = EAGAIN;
		return -1;
	}
	conn_take_buffers(c, s);
	errno = EINTR;
	return -1;
}

/* -J: the summary, every interval, the settings and the host, as one JSON object on a line. */
static void print_summary_json(const struct settings *s, const struct conn *c, uint64_t bytes,
			       uint64_t ns, const struct soak_figures *fig)
{
	const char *waiting = proto_rx_waiting_for(&c->rx);
	struct rusage ru;
	struct json j;

	getrusage(RUSAGE_SELF, &ru);
	json_begin(&j, stdout);
	json_string(&j, "program", "zcs");
	json_host(&j);
	json_string(&j, "peer", c->peer);
	json_object(&j, "settings");
	json_string(&j, "mode", s->mode->name);
	json_int(&j, "bufsize", s->bufsize);
	json_int(&j, "rcvlowat", s->rcvlowat);
	json_int(&j, "report_secs", s->report_secs);
	if (s->cpu >= 0)
		json_int(&j, "cpu", s->cpu);
	else
		json_null(&j, "cpu");
	json_int(&j, "rcvbuf", s->sockopts.rcvbuf_bytes);
	json_int(&j, "sndbuf", s->sockopts.sndbuf_bytes);
	json_close(&j);
	json_array(&j, "intervals");
	for (size_t i = 0; i < c->n_intervals; i++) {
		const struct interval *iv = &c->intervals[i];

		json_object(&j, NULL);
		json_double(&j, "start", timing_secs(iv->start_ns), 6);
		json_double(&j, "end", timing_secs(iv->end_ns), 6);
		json_uint(&j, "bytes", iv->bytes);
		json_uint(&j, "kbytes_per_sec",
			  timing_kbytes_per_sec(iv->bytes, iv->end_ns - iv->start_ns));
		json_close(&j);
	}
	json_close(&j);
	json_object(&j, "result");
	json_uint(&j, "bytes", bytes);
	json_double(&j, "seconds", timing_secs(ns), 6);
	json_uint(&j, "kbytes_per_sec", timing_kbytes_per_sec(bytes, ns));
	json_bool(&j, "complete", waiting == NULL);
	json_string(&j, "waiting_for", waiting);
	json_uint(&j, "extra_bytes", c->rx.extra_bytes);
	json_uint(&j, "files", c->rx.files_done);
	if (s->mode->maps)
		json_uint(&j, "mapped_bytes", c->mapped_bytes);
	else
		json_null(&j, "mapped_bytes");
	json_double(&j, "user_seconds", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6, 2);
	json_double(&j, "system_seconds", ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, 2);
	json_bool(&j, "idle_closed", c->idle_closed);
	json_close(&j);
	if (fig)
		meter_json(&j, meter, fig, c->arr.shared);
	if (c->arr.linked)
		link_json(&j, &c->arr.link, &c->link_fig);
	else
		json_null(&j, "link");
	json_end(&j);
}

/* An interval's rate: printed, or with -J kept for the summary. */
static void report_interval(const struct settings *s, struct conn *c, uint64_t from_ns,
			    uint64_t to_ns, uint64_t bytes)
{
	struct interval *more;

	if (!s->json) {
		printf("%llu kbytes/sec\n",
		       (unsigned long long)timing_kbytes_per_sec(bytes, to_ns - from_ns));
		return;
	}
	more = realloc(c->intervals, (c->n_intervals + 1) * sizeof(*more));
	if (!more)
		err(1, "realloc");
	c->intervals = more;
	c->intervals[c->n_intervals++] =
		(struct interval){ .start_ns = from_ns, .end_ns = to_ns, .bytes = bytes };
}

/*
 * -c: the connection's figures, over the window from its accept() to the
 * peer's close; NULL, said on stderr, when a soaker failed in it.
 */
static const struct soak_figures *meter_window(struct conn *c, uint64_t bytes,
					       struct soak_figures *fig)
{
	if (meter_mark(meter, METER_LAST_BYTE) < 0) {
		warnx("%s: %s during the transfer: no load figure", c->peer, meter->soak.err);
		return NULL;
	}
	if (__atomic_load_n(&board->accepted, __ATOMIC_SEQ_CST) != c->accepted_as)
		c->arr.shared = 1;
	meter_figures(meter, 0, bytes, fig);
	return fig;
}

/* The child's whole life: receive until the peer closes, reporting as it goes. */
static int serve(int fd, const struct settings *s, const char *peer, const struct arrival *arr)
{
	uint64_t start = timing_now_ns(), last = start, last_data = start, bytes = 0, bytes_at_last = 0;
	const struct soak_figures *metered = NULL;
	struct soak_figures fig;
	struct conn c;
	ssize_t n;

	conn_setup(&c, fd, s);
	c.peer = peer;
	c.arr = *arr;
	if (meter)
		c.accepted_as = board->accepted;
	net_set_receive_timeout(fd, s->idle_secs);
	timing_tick_start(s->report_secs * 1000, &tick);
	for (;;) {
		int64_t idle_left = s->idle_secs * 1000 - (int64_t)((timing_now_ns() - last_data) / 1000000);

		n = c.buf ? s->mode->receive(&c) : await_first_data(&c, s, idle_left);
		/* Count first: a read the tick cut short returns what had arrived by then. */
		if (n > 0) {
			bytes += n;
			last_data = timing_now_ns();
		}
		if (tick) {
			uint64_t now = timing_now_ns();

			tick = 0;
			report_interval(s, &c, last - start, now - start, bytes - bytes_at_last);
			last = now;
			bytes_at_last = bytes;
		}
		if (n > 0)
			continue;
		if (n == 0)
			break;
		/* -W: nothing for that long (SO_RCVTIMEO; a tick restarts its wait). */
		if (errno == EAGAIN || errno == EWOULDBLOCK ||
		    (errno == EINTR && timing_now_ns() - last_data >= (uint64_t)s->idle_secs * NSEC_PER_SEC)) {
			c.idle_closed = 1;
			bytes += read_what_came(&c, s);
			break;
		}
		if (errno == EINTR)
			continue;
		if (s->debug)
			warn("%s from %s", s->mode->name, peer);
		break;
	}
	timing_tick_stop();
	if (meter)
		metered = meter_window(&c, bytes, &fig);
	if (c.arr.linked)
		c.arr.linked = link_end(&c.arr.link, &c.arr.link_at, &c.link_fig);
	if (s->json)
		print_summary_json(s, &c, bytes, timing_now_ns() - start, metered);
	else
		print_summary(s, &c, bytes, timing_now_ns() - start, metered);
	if (metered && meter->note[0])
		warnx("%s: note: %s", peer, meter->note);
	if (s->debug)
		fprintf(stderr, "zcs: %s: %llu files\n", peer, (unsigned long long)c.rx.files_done);
	/*
	 * Closed now, not when the child exits: zcc's time runs until it sees
	 * the close, and an exit can take a while (LeakSanitizer's scan took
	 * some 50 ms, a sixth of a paced run of 0.3 s).
	 */
	close(fd);
	free(c.buf);
	free(c.intervals);
	return proto_rx_waiting_for(&c.rx) || (meter && !metered) ? 1 : 0;
}

/* Connections being served now, one a child, for -L; atomic, as SIGCHLD counts them down. */
static int serving;

/*
 * SIGCHLD. With -c, a connection's end goes on the board; a soaker reaped
 * here is marked gone, for the meter's next sample to say so.
 */
static void reap_children(int sig)
{
	int saved = errno;
	pid_t pid;

	(void)sig;
	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0) {
		int soaker = 0;

		if (!meter) {
			__atomic_sub_fetch(&serving, 1, __ATOMIC_SEQ_CST);
			continue;
		}
		for (int i = 0; i < meter->soak.n_cpus; i++)
			if (meter->soak.pids[i] == pid) {
				meter->soak.pids[i] = 0;
				soaker = 1;
			}
		if (soaker)
			continue;
		__atomic_sub_fetch(&serving, 1, __ATOMIC_SEQ_CST);
		__atomic_sub_fetch(&board->open, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&board->last_end_ns, timing_now_ns(), __ATOMIC_SEQ_CST);
	}
	errno = saved;
}

static void __attribute__((noreturn)) meter_failed(void)
{
	errx(1, "%s", meter->soak.err);
}

/*
 * -c: wait for a connection, sampling the soakers every METER_PERIOD_MS;
 * without the meter, accept() waits.
 */
static void wait_for_connection(int lfd)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };

	if (!meter)
		return;
	while (poll(&pfd, 1, METER_PERIOD_MS) <= 0 || (pfd.revents & POLLIN) == 0)
		if (meter_ring_take(meter, &ring) < 0)
			meter_failed();
}

/*
 * -c: the connection's tare, before its child is forked, and whether another
 * connection was open in it: one being served, or one that ended since the
 * tare began.
 */
static int meter_accepted(const struct settings *s)
{
	int shared;

	if (meter_ring_tare(meter, &ring, s->tare_ms) < 0)
		meter_failed();
	shared = __atomic_add_fetch(&board->open, 1, __ATOMIC_SEQ_CST) > 1 ||
		 __atomic_load_n(&board->last_end_ns, __ATOMIC_SEQ_CST) >= meter->tare_from_ns;
	__atomic_add_fetch(&board->accepted, 1, __ATOMIC_SEQ_CST);
	return shared;
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

/*
 * -L: while that many connections are being served, the next waits in the
 * listen queue (the kernel's handshake done, nothing read) until one ends;
 * said once. With -c the soakers are sampled meanwhile.
 */
static void wait_below_the_bound(const struct settings *s)
{
	static int said;

	while (__atomic_load_n(&serving, __ATOMIC_SEQ_CST) >= s->max_conns) {
		if (!said++)
			warnx("%ld connections at once (-L %ld): the next wait to be accepted until "
			      "one ends", s->max_conns, s->max_conns);
		poll(NULL, 0, METER_PERIOD_MS);
		if (meter && meter_ring_take(meter, &ring) < 0)
			meter_failed();
	}
}

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
		struct arrival arr = { 0 };
		int fd;
		pid_t pid;

		wait_below_the_bound(s);
		wait_for_connection(lfd);
		fd = accept(lfd, (struct sockaddr *)&ss, &len);
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
		if (meter)
			arr.shared = meter_accepted(s);
		/* The link is counted for -c's line and -J. */
		arr.linked = (meter || s->json) && link_find(&arr.link, fd) == 0;
		if (arr.linked)
			link_take(&arr.link, &arr.link_at);
		__atomic_add_fetch(&serving, 1, __ATOMIC_SEQ_CST);
		pid = fork();
		if (pid < 0) {
			warn("fork for %s", peer);
			__atomic_sub_fetch(&serving, 1, __ATOMIC_SEQ_CST);
			if (meter)
				__atomic_sub_fetch(&board->open, 1, __ATOMIC_SEQ_CST);
		} else if (pid == 0) {
			static char line_buf[BUFSIZ];

			/* Each message in one write(): connections end at once without interleaving. */
			setvbuf(stderr, line_buf, _IOLBF, sizeof(line_buf));
			signal(SIGCHLD, SIG_DFL);
			close(lfd);
			exit(serve(fd, s, peer, &arr));
		}
		close(fd);
	}
}

/*
 * -c: the soakers on every CPU, for as long as zcs runs (they die with it,
 * PR_SET_PDEATHSIG), and the board.
 */
static void start_meter(const struct settings *s)
{
	int rc;

	meter = calloc(1, sizeof(*meter));
	board = mmap(NULL, sizeof(*board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (!meter || board == MAP_FAILED)
		err(1, "allocating the meter");
	rc = meter_start(meter, s->n_cpus, s->debug);
	if (rc == SOAK_TOO_MANY_CPUS)
		opt_failx("-N %d: %s", s->n_cpus, meter->soak.err);
	if (rc < 0 || meter_ring_init(meter, &ring, s->tare_ms, METER_PERIOD_MS) < 0)
		meter_failed();
}

/* -c: a whole tare's worth of samples before listening, so the first connection has one too. */
static void warm_up(const struct settings *s)
{
	for (long ms = 0; ms < s->tare_ms; ms += METER_PERIOD_MS) {
		usleep(METER_PERIOD_MS * 1000);
		if (meter_ring_take(meter, &ring) < 0)
			meter_failed();
	}
}

int main(int argc, char **argv)
{
	struct settings s;
	int lfd;

	parse_options(argc, argv, &s);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (s.calibrate_only)
		return meter_calibrate(s.n_cpus, s.debug);
	/* Each connection makes its own pipe: one that cannot be made fails zcs now, not them. */
	if (s.mode->receive == receive_splice) {
		int trial[2];

		net_splice_pipe(trial, s.bufsize);
		close(trial[0]);
		close(trial[1]);
	}
	/* Soakers first: they cover every CPU, whichever one zcs itself is pinned to. */
	if (s.measure_cpu)
		start_meter(&s);
	if (s.cpu >= 0 && cpu_pin(s.cpu) < 0)
		err(1, "-B %d: sched_setaffinity", s.cpu);
	if (meter)
		warm_up(&s);
	lfd = net_listen(s.addr, s.port, &s.sockopts, s.debug);
	if (s.mode->maps)
		check_mapping(lfd);
	if (s.debug)
		fprintf(stderr, "zcs: receive mode %s, %ld-byte chunks\n", s.mode->name, s.bufsize);
	accept_forever(lfd, &s);
}
