/*
 * zcs's TCP server: accepts connections from zcc, serves each in a forked
 * child that reads the stream into a buffer and throws it away (or has the
 * kernel drop the file data unseen), printing the throughput every few
 * seconds and a summary when the connection ends.
 */
#include <err.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/json.h"
#include "lib/limit.h"
#include "lib/link.h"
#include "lib/meter.h"
#include "lib/net.h"
#include "lib/proto.h"
#include "lib/system.h"
#include "lib/netstat.h"
#include "lib/tcpinfo.h"
#include "lib/timing.h"
#include "lib/units.h"
#include "lib/window.h"
#include "server.h"

/* What the parent learns of a connection as it accepts it, before its child is forked. */
struct arrival {
	int shared;		/* -c: another connection was open in its tare, or its transfer */
	uint64_t accepted_as;	/* -c: the board's count with this connection */
	/* From accept(): the child's CPU time, its link (-c, -J) and the host's counters (-J, -I). */
	struct window win;
};

/* One connection, in its own child. */
struct conn {
	struct receiver r;
	struct intervals intervals;	/* -J */
	struct arrival arr;	/* as the parent accepted it */
	struct window_figures win;	/* its window's figures, and TCP_INFO at its end */
	int idle_closed;	/* -W: ended for sending nothing for that long */
	int tagged;		/* its interval lines name the peer: another connection was served at one */
	struct tcpinfo tcp;	/* TCP_INFO at each interval's end */
	uint64_t reads;		/* the receive calls that took bytes */
	int first_seen;		/* the stream's first bytes were looked at for the opening exchange */
	int exchanged;		/* zcc -E: they were, and answered */
	int exchange_counted;	/* as the last bytes that came, for -W */
	struct meter *m;	/* -c's */
	struct rxturns turns;	/* -m A,B,...: zcs's own; or with the exchange, zcc's followed */
	uint64_t accepted_ns;	/* when it was accepted (CLOCK_MONOTONIC) */
	uint32_t table_max_slots;	/* the most a table may hold, once the stream was whole */
};

/*
 * The connections being served, counted by the parent in memory it shares
 * with every child: a child whose interval lines may interleave with
 * another's tags them (report_interval).
 */
static int *serving;

static volatile sig_atomic_t tick;

/*
 * The summary ends with the CPU time this connection's server took (the child
 * serves one connection only), so that on loopback each end's share shows.
 */
static void print_summary(const struct settings *s, const struct conn *c, uint64_t bytes,
			  uint64_t ns, const struct soak_figures *fig)
{
	const struct proto_rx *rx = &c->r.rx;
	const char *waiting = proto_rx_waiting_for(rx);
	char rate[48];

	printf("received %llu bytes in %.3f s, %s", (unsigned long long)bytes, timing_secs(ns),
	       units_rate(rate, sizeof(rate), bytes, ns, s->unit));
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
	window_print_cpu(stdout, &c->win);
	if (s->maps)
		printf(", mapped %llu of %llu bytes", (unsigned long long)c->r.mapped_bytes,
		       (unsigned long long)bytes);
	if (fig)
		window_print_link(stdout, &c->win);
	printf("\n");
}

/*
 * proto_rx's keep: what follows the stream is kept while it may be a slot
 * table, and no more than one of a stream that long can hold.
 */
static size_t keep_a_table(const unsigned char *kept, size_t len, void *arg)
{
	struct conn *c = arg;

	if (!c->table_max_slots)
		c->table_max_slots = turns_table_max_slots(timing_now_ns() - c->accepted_ns);
	return turns_table_want(kept, len, c->table_max_slots, NULL, 0);
}

/* The receiver's buffers, and SO_RCVLOWAT with them. */
static void conn_take_buffers(struct conn *c, const struct settings *s)
{
	/* Set only now: with it, poll() would not say that fewer bytes had come. */
	net_set_rcvlowat(c->r.fd, s->rcvlowat, s->debug);
	rx_take_buffers(&c->r);
	if (s->n_arms > 1)
		rxturns_own(&c->turns, s, c->m, &c->r);
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
	if (!c->first_seen) {
		int ex = net_exchange_answer(c->r.fd, ms);

		if (ex < 0)
			return -1;
		c->first_seen = 1;
		c->exchanged = ex;
		if (s->debug && ex)
			fprintf(stderr, "zcs: %s: the opening exchange, answered\n", c->r.peer);
		if (ex) {
			/*
			 * zcc is of this suite: a slot table may follow the stream,
			 * followed, or with turns of zcs's own declined.
			 */
			if (s->n_arms == 1)
				rxturns_follow(&c->turns, s, c->m, &c->r);
			c->r.rx.keep = keep_a_table;
			c->r.rx.keep_arg = c;
			errno = EINTR;
			return -1;
		}
	}
	conn_take_buffers(c, s);
	errno = EINTR;
	return -1;
}

/* -J: the summary, every interval, the settings and the host, as one JSON object on a line. */
static void print_summary_json(const struct settings *s, const struct conn *c,
			       const struct hostmeter *hm, uint64_t bytes, uint64_t ns,
			       const struct soak_figures *fig, const struct limit *limit)
{
	const char *waiting = proto_rx_waiting_for(&c->r.rx);
	struct json j;

	json_begin(&j, stdout);
	json_string(&j, "program", "zcs");
	json_host(&j);
	system_json(&j);
	json_string(&j, "peer", c->r.peer);
	json_null(&j, "stream");
	json_object(&j, "settings");
	json_string(&j, "protocol", "tcp");
	json_string(&j, "mode", s->mode_name);
	json_int(&j, "bufsize", s->bufsize);
	json_int(&j, "rcvlowat", s->rcvlowat);
	json_int(&j, "report_secs", s->report_secs);
	if (s->cpu >= 0)
		json_int(&j, "cpu", s->cpu);
	else
		json_null(&j, "cpu");
	json_int(&j, "rcvbuf", s->sockopts.rcvbuf_bytes);
	json_int(&j, "sndbuf", s->sockopts.sndbuf_bytes);
	json_bool(&j, "nodelay", s->sockopts.nodelay);
	json_bool(&j, "quickack", s->sockopts.quickack);
	json_close(&j);
	json_intervals(&j, &c->intervals);
	tcpinfo_json(&j, &c->win.tcp);
	json_object(&j, "result");
	json_uint(&j, "bytes", bytes);
	json_double(&j, "seconds", timing_secs(ns), 6);
	json_uint(&j, "kbytes_per_sec", timing_kbytes_per_sec(bytes, ns));
	json_bool(&j, "complete", waiting == NULL);
	json_string(&j, "waiting_for", waiting);
	json_uint(&j, "extra_bytes", c->r.rx.extra_bytes);
	json_uint(&j, "files", c->r.rx.files_done);
	if (s->maps)
		json_uint(&j, "mapped_bytes", c->r.mapped_bytes);
	else
		json_null(&j, "mapped_bytes");
	window_json_cpu(&j, &c->win);
	json_bool(&j, "idle_closed", c->idle_closed);
	json_bool(&j, "exchange", c->exchanged);
	json_uint(&j, "reads", c->reads);
	json_ratio(&j, "bytes_per_read", bytes, c->reads, 1);
	json_close(&j);
	/* Every member of docs/zc-json.schema.json's, null where it does not apply. */
	window_json(&j, &c->win, fig ? &hm->m : NULL, fig, c->arr.shared);
	limit_json(&j, limit);
	rxturns_json(&c->turns, &j);
	json_end(&j);
}

/*
 * What came after zcc's stream, as zcs following its turns takes it: one
 * table, each part of it kept as it came (not a table, or more slots than
 * the stream had time for, are refused). 1, or 0 with why.
 */
static int one_table(const struct conn *c, char *why, size_t why_len)
{
	const struct proto_rx *rx = &c->r.rx;

	if (!turns_table_want(rx->after, rx->after_len, c->table_max_slots, why, why_len))
		return 0;
	if (rx->after_len == rx->extra_bytes)
		return 1;
	snprintf(why, why_len, "%llu bytes, more than a table's %zu",
		 (unsigned long long)rx->extra_bytes, rx->after_len);
	return 0;
}

/*
 * After the stream, from a zcc that took turns: its slot table, taken and
 * answered before the close (each slot's figures, or with zcs's own turns
 * a decline, and zcc says why its receiver's lines are missing). The
 * table's bytes are not the stream's: they leave the count.
 */
static void take_the_slot_table(struct conn *c, uint64_t *bytes)
{
	struct proto_rx *rx = &c->r.rx;
	char why[200];

	if (!c->exchanged || proto_rx_waiting_for(rx) || !rx->extra_bytes)
		return;
	/* With zcs's own turns, declined where it is a table; anything else is bytes after the end. */
	if (c->turns.edges == RXTURNS_OWN &&
	    (rx->after_len != rx->extra_bytes || rx->after_len < sizeof(TURNS_TABLE_MAGIC) - 1 ||
	     memcmp(rx->after, TURNS_TABLE_MAGIC, sizeof(TURNS_TABLE_MAGIC) - 1) != 0))
		return;
	if ((c->turns.edges != RXTURNS_OWN && !one_table(c, why, sizeof(why))) ||
	    rxturns_table(&c->turns, c->r.fd, rx->after, rx->after_len, why, sizeof(why)) < 0) {
		warnx("%s: what came after the stream is not a slot table (%s): counted as bytes "
		      "after the end", c->r.peer, why);
		return;
	}
	*bytes -= rx->extra_bytes;
	rx->extra_bytes = 0;
}

/* The child's whole life: receive until the peer closes, reporting as it goes. */
static int serve(int fd, const struct settings *s, struct hostmeter *hm, const char *peer,
		 const struct arrival *arr)
{
	uint64_t start = timing_now_ns(), last = start, last_data = start, bytes = 0, bytes_at_last = 0;
	int64_t timeout_ms = s->idle_secs * 1000;	/* SO_RCVTIMEO's, as set */
	const struct soak_figures *metered = NULL;
	struct soak_figures fig;
	struct conn c = { .arr = *arr, .m = hm ? &hm->m : NULL, .accepted_ns = start };
	struct limit limit;
	uint64_t ns;
	ssize_t n;
	int incomplete;

	window_forked(&c.arr.win);
	net_set_tcp_flags(fd, &s->sockopts);
	rx_init_arms(&c.r, fd, s->arms, s->n_arms, s->bufsize, peer, s->debug);
	net_set_receive_timeout(fd, s->idle_secs);
	timing_tick_start(s->report_secs * 1000, &tick);
	for (;;) {
		uint64_t began = timing_now_ns();
		int64_t idle_left = s->idle_secs * 1000 - (int64_t)((began - last_data) / 1000000);
		long queued = 0;

		/*
		 * -W from the last data that came: a read waits for SO_RCVLOWAT's
		 * bytes until its timeout, the rest of -W, and bytes that were
		 * already queued when it began came no later than that.
		 */
		if (c.r.buf) {
			queued = net_queued(fd);
			if (idle_left < timeout_ms - 10 || idle_left > timeout_ms + 10) {
				timeout_ms = idle_left > 1 ? idle_left : 1;
				net_set_receive_timeout_ms(fd, timeout_ms);
			}
		}
		n = c.r.buf ? c.r.mode->receive(&c.r) : await_first_data(&c, s, idle_left);
		/* The exchange's bytes came: -W counts from them. */
		if (!c.r.buf && c.exchanged && !c.exchange_counted) {
			c.exchange_counted = 1;
			last_data = timing_now_ns();
		}
		/* Count first: a read the tick cut short returns what had arrived by then. */
		if (n > 0) {
			bytes += n;
			c.reads++;
			rxturns_received(&c.turns, bytes);
			if (s->sockopts.quickack)
				net_quickack(fd);
			last_data = c.r.buf && queued >= 0 && n <= queued ? began : timing_now_ns();
		}
		if (tick) {
			uint64_t now = timing_now_ns();

			tick = 0;
			c.tagged |= __atomic_load_n(serving, __ATOMIC_SEQ_CST) > 1;
			/* TCP_INFO at each interval's end, where -I or -J shows it. */
			if (s->tcp_line || s->json)
				tcpinfo_read(fd, &c.tcp);
			report_interval(s, &c.intervals, last - start, now - start, bytes - bytes_at_last,
					c.tagged ? peer : NULL, s->tcp_line || s->json ? &c.tcp : NULL);
			last = now;
			bytes_at_last = bytes;
		}
		if (n > 0)
			continue;
		if (n == 0) {
			rxturns_end(&c.turns, bytes);
			break;
		}
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
			warn("%s from %s", c.r.mode->name, peer);
		break;
	}
	timing_tick_stop();
	take_the_slot_table(&c, &bytes);
	if (hm)
		metered = hostmeter_window(hm, peer, c.arr.accepted_as, bytes, &fig, &c.arr.shared);
	window_close(&c.arr.win, 1, fd, &c.win);
	ns = timing_now_ns() - start;
	/* The receiver's own TCP_INFO says nothing of what held the sending back. */
	limit_find(&limit, "receiver", metered ? hm->m.cpu : NULL, metered ? meter_cpus(&hm->m) : 0,
		   ns ? (c.win.user_secs + c.win.sys_secs) / timing_secs(ns) : 0, s->cpu, NULL, ns, 0);
	if (s->json)
		print_summary_json(s, &c, hm, bytes, ns, metered, &limit);
	else
		print_summary(s, &c, bytes, ns, metered);
	if (s->tcp_line && !s->json) {
		char prefix[NI_MAXHOST + NI_MAXSERV + 16];

		snprintf(prefix, sizeof(prefix), "%s%s", c.tagged ? peer : "", c.tagged ? ": " : "");
		tcpinfo_print(stdout, prefix, &c.win.tcp);
		printf("%sreads: %llu, %.1f bytes a read; ", prefix, (unsigned long long)c.reads,
		       c.reads ? (double)bytes / c.reads : 0.0);
		netstat_print(stdout, &c.win.host);
		printf("\n");
	}
	if (!s->json)
		rxturns_print(&c.turns, stdout, s->unit, bytes);
	if (metered && !s->json)
		meter_print_cpus(stdout, &hm->m, metered);
	if ((metered || s->tcp_line) && !s->json)
		limit_print(stdout, &limit);
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
	rxturns_free(&c.turns);
	free(c.intervals.list);
	return incomplete || (hm && !metered) ? 1 : 0;
}

/*
 * What SIGCHLD reaches: the connections being served now, one a child, for
 * -L (atomic, as the handler counts them down), and with -c the meter.
 */
static struct {
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
		__atomic_sub_fetch(serving, 1, __ATOMIC_SEQ_CST);
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

	while (__atomic_load_n(serving, __ATOMIC_SEQ_CST) >= s->max_conns) {
		if (!said++)
			warnx("%ld connections at once (-L %ld): the next wait to be accepted until "
			      "one ends", s->max_conns, s->max_conns);
		poll(NULL, 0, HOSTMETER_PERIOD_MS);
		if (hm)
			hostmeter_sample(hm);
	}
}

void serve_connections(int lfd, const struct settings *s, struct hostmeter *hm)
{
	int last_error = 0;

	struct sigaction sa = { .sa_handler = reap_children, .sa_flags = SA_RESTART };

	children.hm = hm;
	serving = mmap(NULL, sizeof(*serving), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (serving == MAP_FAILED)
		err(1, "mmap");
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGCHLD, &sa, NULL) < 0)
		err(1, "sigaction SIGCHLD");
	for (;;) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		char peer[NI_MAXHOST + NI_MAXSERV + 8];
		struct arrival arr = { 0 };
		struct link link;
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
		/* The link is counted for -c's line and -J; the host's counters, where -J or -I shows them. */
		if (!(hm || s->json) || link_find(&link, fd) < 0)
			link = (struct link){ .ifname = "" };
		window_open(&arr.win, &(struct window_counts){ .who = RUSAGE_SELF, .link = &link,
							     .host = s->json || s->tcp_line });
		__atomic_add_fetch(serving, 1, __ATOMIC_SEQ_CST);
		pid = fork();
		if (pid < 0) {
			warn("fork for %s", peer);
			__atomic_sub_fetch(serving, 1, __ATOMIC_SEQ_CST);
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
