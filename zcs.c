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
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zcs.h"
#include "lib/cpu.h"
#include "lib/json.h"
#include "lib/system.h"
#include "lib/link.h"
#include "lib/meter.h"
#include "lib/net.h"
#include "lib/opt.h"
#include "lib/proto.h"
#include "lib/timing.h"
#include "rx/rx.h"

/*
 * -L: connections served at once. A peer can open connections and send
 * nothing for as long as it likes; each is a process and, once data comes,
 * a buffer. 64 is as many as one zcc -P runs.
 */
#define DEFAULT_MAX_CONNS 64
/* -W: a connection that sends nothing for this long ends, its summary says so. */
#define DEFAULT_IDLE_SECS 60

/* What the parent learns of a connection as it accepts it, before its child is forked. */
struct arrival {
	int shared;		/* -c: another connection was open in its tare, or its transfer */
	uint64_t accepted_as;	/* -c: the board's count with this connection */
	int linked;		/* its interface was found, and counted throughout */
	struct link link;
	struct link_sample link_at;	/* its counters at accept() */
};

/* One connection, in its own child. */
struct conn {
	struct receiver r;
	struct intervals intervals;	/* -J */
	struct arrival arr;	/* as the parent accepted it */
	struct link_figures link_fig;
	int idle_closed;	/* -W: ended for sending nothing for that long */
};

static volatile sig_atomic_t tick;

static const char usage[] =
	"usage: zcs [-cCdhJu] [-a addr] [-b bufsize] [-B cpu] [-i rcvbuf] [-l lowat] [-m mode]\n"
	"           [-L conns] [-N cpus] [-o sndbuf] [-p port] [-t secs] [-T msecs] [-W secs]\n";

/* -m: the mode of that name, of TCP's or -u's; '?' lists them all, one a line. */
static const struct recv_mode *find_mode(const char *name, int datagram)
{
	const struct recv_mode *m = rx_find_mode(name, datagram);
	char why[300];

	if (strcmp(name, "?") == 0) {
		for (const struct recv_mode *const *r = rx_modes; *r; r++)
			if ((*r)->datagram == datagram)
				printf("%s\n", (*r)->name);
		exit(0);
	}
	if (!m && rx_find_mode(name, !datagram))
		opt_failx("-m %s %s", name, datagram ? "is for TCP: with -u, a mode receives "
			  "datagrams (see -u -m '?')" : "receives datagrams: it needs -u");
	if (!m) {
		snprintf(why, sizeof(why), "unknown mode (%s)", rx_mode_names(datagram));
		opt_fail('m', name, why);
	}
	return m;
}

/* What one option means for another, once all are read. */
static void check_options(struct settings *s, const char *given, const char *mode_arg)
{
	int stray = s->calibrate_only ? meter_calibrate_stray(given) : 0;

	if (stray)
		opt_failx("-%c is for receiving: -C calibrates the meter and listens for nothing", stray);
	meter_check_options(given, s->measure_cpu, s->calibrate_only, s->n_cpus);
	/* -u takes each datagram whole, into a buffer that holds the largest (RX_DGRAM_BYTES). */
	if (s->datagram && strchr(given, 'b'))
		opt_failx("-b is for TCP: -u takes each datagram whole, into %d bytes", RX_DGRAM_BYTES);
	if (s->datagram && strchr(given, 'l'))
		opt_failx("-l is for TCP (SO_RCVLOWAT): -u takes each datagram as it comes");
	s->sockopts.datagram = s->datagram;
	s->mode = find_mode(mode_arg ? mode_arg : "read", s->datagram);
}

static void parse_options(int argc, char **argv, struct settings *s)
{
	const char *mode_arg = NULL;
	char given[64] = "";
	int c;

	*s = (struct settings){ .bufsize = NET_DEFAULT_BUFSIZE, .cpu = -1, .port = NET_DEFAULT_PORT,
				.report_secs = 5, .rcvlowat = NET_DEFAULT_RCVLOWAT,
				.tare_ms = METER_DEFAULT_TARE_MS,
				.max_conns = DEFAULT_MAX_CONNS, .idle_secs = DEFAULT_IDLE_SECS };
	opt_init(usage);
	while ((c = getopt(argc, argv, ":a:b:B:cCdhi:Jl:L:m:N:o:p:t:T:uW:")) != -1) {
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
			mode_arg = optarg;
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
		case 'u':
			s->datagram = 1;
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
	check_options(s, given, mode_arg);
}

/*
 * The summary ends with the CPU time this connection's server took (the child
 * serves one connection only), so that on loopback each end's share shows.
 */
static void print_summary(const struct settings *s, const struct conn *c, uint64_t bytes,
			  uint64_t ns, const struct soak_figures *fig)
{
	const struct proto_rx *rx = &c->r.rx;
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
	printf(", cpu %.2fu %.2fs", timing_timeval_secs(ru.ru_utime),
	       timing_timeval_secs(ru.ru_stime));
	if (s->mode->maps)
		printf(", mapped %llu of %llu bytes", (unsigned long long)c->r.mapped_bytes,
		       (unsigned long long)bytes);
	if (fig && c->arr.linked)
		link_print(stdout, &c->arr.link, &c->link_fig);
	printf("\n");
}

/* The receiver's buffers, and SO_RCVLOWAT with them. */
static void conn_take_buffers(struct conn *c, const struct settings *s)
{
	/* Set only now: with it, poll() would not say that fewer bytes had come. */
	net_set_rcvlowat(c->r.fd, s->rcvlowat, s->debug);
	rx_take_buffers(&c->r);
}

/*
 * Before the first byte: wait without a buffer until something comes, for
 * what is left of -W (ms), then take the buffers. -1 with EINTR when a -t
 * tick or the data came (the loop goes round), EAGAIN when -W ran out.
 */
static ssize_t await_first_data(struct conn *c, const struct settings *s, int64_t ms)
{
	struct pollfd pfd = { .fd = c->r.fd, .events = POLLIN };
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
static void print_summary_json(const struct settings *s, const struct conn *c,
			       const struct hostmeter *hm, uint64_t bytes, uint64_t ns,
			       const struct soak_figures *fig)
{
	const char *waiting = proto_rx_waiting_for(&c->r.rx);
	struct rusage ru;
	struct json j;

	getrusage(RUSAGE_SELF, &ru);
	json_begin(&j, stdout);
	json_string(&j, "program", "zcs");
	json_host(&j);
	system_json(&j);
	json_string(&j, "peer", c->r.peer);
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
	json_intervals(&j, &c->intervals);
	json_object(&j, "result");
	json_uint(&j, "bytes", bytes);
	json_double(&j, "seconds", timing_secs(ns), 6);
	json_uint(&j, "kbytes_per_sec", timing_kbytes_per_sec(bytes, ns));
	json_bool(&j, "complete", waiting == NULL);
	json_string(&j, "waiting_for", waiting);
	json_uint(&j, "extra_bytes", c->r.rx.extra_bytes);
	json_uint(&j, "files", c->r.rx.files_done);
	if (s->mode->maps)
		json_uint(&j, "mapped_bytes", c->r.mapped_bytes);
	else
		json_null(&j, "mapped_bytes");
	json_double(&j, "user_seconds", timing_timeval_secs(ru.ru_utime), 2);
	json_double(&j, "system_seconds", timing_timeval_secs(ru.ru_stime), 2);
	json_bool(&j, "idle_closed", c->idle_closed);
	json_close(&j);
	if (fig)
		meter_json(&j, &hm->m, fig, c->arr.shared);
	if (c->arr.linked)
		link_json(&j, &c->arr.link, &c->link_fig);
	else
		json_null(&j, "link");
	json_end(&j);
}

void report_interval(const struct settings *s, struct intervals *iv, uint64_t from_ns,
		     uint64_t to_ns, uint64_t bytes)
{
	struct interval *more;

	if (!s->json) {
		printf("%llu kbytes/sec\n",
		       (unsigned long long)timing_kbytes_per_sec(bytes, to_ns - from_ns));
		return;
	}
	more = realloc(iv->list, (iv->n + 1) * sizeof(*more));
	if (!more)
		err(1, "realloc");
	iv->list = more;
	iv->list[iv->n++] = (struct interval){ .start_ns = from_ns, .end_ns = to_ns, .bytes = bytes };
}

void json_intervals(struct json *j, const struct intervals *iv)
{
	json_array(j, "intervals");
	for (size_t i = 0; i < iv->n; i++) {
		const struct interval *one = &iv->list[i];

		json_object(j, NULL);
		json_double(j, "start", timing_secs(one->start_ns), 6);
		json_double(j, "end", timing_secs(one->end_ns), 6);
		json_uint(j, "bytes", one->bytes);
		json_uint(j, "kbytes_per_sec",
			  timing_kbytes_per_sec(one->bytes, one->end_ns - one->start_ns));
		json_close(j);
	}
	json_close(j);
}

/* The child's whole life: receive until the peer closes, reporting as it goes. */
static int serve(int fd, const struct settings *s, struct hostmeter *hm, const char *peer,
		 const struct arrival *arr)
{
	uint64_t start = timing_now_ns(), last = start, last_data = start, bytes = 0, bytes_at_last = 0;
	const struct soak_figures *metered = NULL;
	struct soak_figures fig;
	struct conn c = { .arr = *arr };
	ssize_t n;
	int incomplete;

	rx_init(&c.r, fd, s->mode, s->bufsize, peer, s->debug);
	net_set_receive_timeout(fd, s->idle_secs);
	timing_tick_start(s->report_secs * 1000, &tick);
	for (;;) {
		int64_t idle_left = s->idle_secs * 1000 - (int64_t)((timing_now_ns() - last_data) / 1000000);

		n = c.r.buf ? s->mode->receive(&c.r) : await_first_data(&c, s, idle_left);
		/* Count first: a read the tick cut short returns what had arrived by then. */
		if (n > 0) {
			bytes += n;
			last_data = timing_now_ns();
		}
		if (tick) {
			uint64_t now = timing_now_ns();

			tick = 0;
			report_interval(s, &c.intervals, last - start, now - start, bytes - bytes_at_last);
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
			if (!c.r.buf)
				conn_take_buffers(&c, s);
			bytes += rx_read_what_came(&c.r);
			break;
		}
		if (errno == EINTR)
			continue;
		if (s->debug)
			warn("%s from %s", s->mode->name, peer);
		break;
	}
	timing_tick_stop();
	if (hm)
		metered = hostmeter_window(hm, peer, c.arr.accepted_as, bytes, &fig, &c.arr.shared);
	if (c.arr.linked)
		c.arr.linked = link_end(&c.arr.link, &c.arr.link_at, &c.link_fig);
	if (s->json)
		print_summary_json(s, &c, hm, bytes, timing_now_ns() - start, metered);
	else
		print_summary(s, &c, bytes, timing_now_ns() - start, metered);
	if (metered && hm->m.note[0])
		warnx("%s: note: %s", peer, hm->m.note);
	if (s->debug)
		fprintf(stderr, "zcs: %s: %llu files\n", peer, (unsigned long long)c.r.rx.files_done);
	/*
	 * Closed now, not when the child exits: zcc's time runs until it sees
	 * the close, and an exit can take a while (LeakSanitizer's scan took
	 * some 50 ms, a sixth of a paced run of 0.3 s).
	 */
	close(fd);
	incomplete = proto_rx_waiting_for(&c.r.rx) != NULL;
	rx_close(&c.r);
	free(c.intervals.list);
	return incomplete || (hm && !metered) ? 1 : 0;
}

/*
 * What SIGCHLD reaches: the connections being served now, one a child, for
 * -L (atomic, as the handler counts them down), and with -c the meter.
 */
static struct {
	int serving;
	struct hostmeter *hm;
} children;

/*
 * SIGCHLD. With -c, a connection's end goes on the board; a soaker reaped
 * here is marked gone, for the meter's next sample to say so.
 */
static void reap_children(int sig)
{
	struct hostmeter *hm = children.hm;
	int saved = errno;
	pid_t pid;

	(void)sig;
	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0) {
		if (hm && hostmeter_reaped(hm, pid))
			continue;
		__atomic_sub_fetch(&children.serving, 1, __ATOMIC_SEQ_CST);
	}
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

/*
 * -L: while that many connections are being served, the next waits in the
 * listen queue (the kernel's handshake done, nothing read) until one ends;
 * said once. With -c the soakers are sampled meanwhile.
 */
static void wait_below_the_bound(const struct settings *s, struct hostmeter *hm)
{
	static int said;

	while (__atomic_load_n(&children.serving, __ATOMIC_SEQ_CST) >= s->max_conns) {
		if (!said++)
			warnx("%ld connections at once (-L %ld): the next wait to be accepted until "
			      "one ends", s->max_conns, s->max_conns);
		poll(NULL, 0, HOSTMETER_PERIOD_MS);
		if (hm)
			hostmeter_sample(hm);
	}
}

static void accept_forever(int lfd, const struct settings *s, struct hostmeter *hm)
{
	int last_error = 0;

	struct sigaction sa = { .sa_handler = reap_children, .sa_flags = SA_RESTART };

	children.hm = hm;
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

		wait_below_the_bound(s, hm);
		if (hm)
			hostmeter_wait(hm, lfd);
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
		if (hm)
			arr.shared = hostmeter_accepted(hm, &arr.accepted_as);
		/* The link is counted for -c's line and -J. */
		arr.linked = (hm || s->json) && link_find(&arr.link, fd) == 0;
		if (arr.linked)
			link_take(&arr.link, &arr.link_at);
		__atomic_add_fetch(&children.serving, 1, __ATOMIC_SEQ_CST);
		pid = fork();
		if (pid < 0) {
			warn("fork for %s", peer);
			__atomic_sub_fetch(&children.serving, 1, __ATOMIC_SEQ_CST);
			if (hm)
				hostmeter_not_served(hm);
		} else if (pid == 0) {
			static char line_buf[BUFSIZ];

			/* Each message in one write(): connections end at once without interleaving. */
			setvbuf(stderr, line_buf, _IOLBF, sizeof(line_buf));
			signal(SIGCHLD, SIG_DFL);
			close(lfd);
			exit(serve(fd, s, hm, peer, &arr));
		}
		close(fd);
	}
}

int main(int argc, char **argv)
{
	struct hostmeter *hm = NULL;
	struct settings s;
	int lfd;

	parse_options(argc, argv, &s);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (s.calibrate_only)
		return meter_calibrate(s.n_cpus, s.debug);
	rx_check(s.mode, s.bufsize);
	/* Soakers first: they cover every CPU, whichever one zcs itself is pinned to. */
	if (s.measure_cpu)
		hm = hostmeter_start(s.n_cpus, s.tare_ms, s.debug);
	if (s.cpu >= 0 && cpu_pin(s.cpu) < 0)
		err(1, "-B %d: sched_setaffinity", s.cpu);
	if (hm)
		hostmeter_warm_up(hm);
	lfd = net_listen(s.addr, s.port, &s.sockopts, s.debug);
	if (s.datagram)
		serve_datagrams(lfd, &s, hm);
	rx_check_listening(s.mode, lfd);
	if (s.debug)
		fprintf(stderr, "zcs: receive mode %s, %ld-byte chunks\n", s.mode->name, s.bufsize);
	accept_forever(lfd, &s, hm);
}
