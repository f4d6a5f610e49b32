/*
 * zcs: the zc receiver. Its options, then its server: TCP's (tcpserve.c), a
 * child a connection that reads the stream and throws it away, or -u's
 * (udpserve.c), one process for every sender's datagrams.
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

#include "server/server.h"
#include "lib/cpu.h"
#include "lib/json.h"
#include "lib/system.h"
#include "lib/link.h"
#include "lib/meter.h"
#include "lib/net.h"
#include "lib/opt.h"
#include "lib/options.h"
#include "lib/proto.h"
#include "lib/timing.h"
#include "lib/units.h"
#include "rx/rx.h"

/*
 * -L: connections served at once. A peer can open connections and send
 * nothing for as long as it likes; each is a process and, once data comes,
 * a buffer. 64 is as many as one zcc -P runs.
 */
#define DEFAULT_MAX_CONNS 64
/* -W: a connection that sends nothing for this long ends, its summary says so. */
#define DEFAULT_IDLE_SECS 60

#define FIELD(member) OPTION_FIELD(struct settings, member)

static const struct option_row rows[] = {
	{ 'a', OPTION_NAME, "addr", FIELD(addr),
	  .help = "listen on this address only (default every IPv4 and IPv6 one)" },
	OPTIONS_ROW_SLOT(struct settings),
	{ 'b', OPTION_NUMBER, "bufsize", FIELD(bufsize), .value = OPTION_CHUNK,
	  .help = "receive this many bytes at a time (default 1m; k, m, g: x1024)" },
	{ 'B', OPTION_NUMBER, "cpu", FIELD(cpu), .value = OPTION_CPU,
	  .help = "pin zcs and its connections to this CPU" },
	{ 'c', OPTION_FLAG, FIELD(measure_cpu),
	  .help = "measure the host's CPU load, connection by connection" },
	OPTIONS_ROW_CALIBRATE(struct settings),
	{ 'd', OPTION_COUNT, FIELD(debug), .help = "debug on stderr" },
	{ 'D', OPTION_FLAG, FIELD(sockopts.nodelay),
	  .help = "TCP_NODELAY on each connection: Nagle's algorithm off" },
	{ 'e', OPTION_TEXT, "file", FIELD(events_path),
	  .help = "with -m A,B,..., a line into file as each slot begins, from\n"
		  "every connection (a file, or a FIFO another program reads; zcs(1))" },
	OPTIONS_ROW_UNIT(struct settings),
	OPTIONS_ROW_HELP,
	OPTIONS_ROW_RCVBUF(struct settings),
	{ 'I', OPTION_FLAG, FIELD(tcp_line),
	  .help = "TCP_INFO's line after each connection's summary (-J has it always)" },
	{ 'J', OPTION_FLAG, FIELD(json), .help = "each summary as one JSON object" },
	{ 'l', OPTION_NUMBER, "lowat", FIELD(rcvlowat), .min = 1, .max = 1L << 30, .suffix = 1,
	  .help = "SO_RCVLOWAT on each connection" },
	{ 'L', OPTION_NUMBER, "conns", FIELD(max_conns), .min = 1, .max = 10000,
	  .help = "serve at most this many connections at once (default "
		  OPTIONS_STR(DEFAULT_MAX_CONNS) ")" },
	{ 'm', OPTION_TEXT, "mode", FIELD(mode_arg), .synopsis_arg = "mode[,mode...]",
	  .help = "how to receive (zcs -m '?' lists them; default read); two or more,\n"
		  "comma-separated, take turns on each connection" },
	OPTIONS_ROW_SOAK_CPUS(struct settings),
	OPTIONS_ROW_SNDBUF(struct settings),
	{ 'p', OPTION_NUMBER, "port", FIELD(port), .value = OPTION_PORT,
	  .help = "the port (default " OPTIONS_STR(NET_DEFAULT_PORT) ")" },
	{ 'Q', OPTION_FLAG, FIELD(sockopts.quickack),
	  .help = "TCP_QUICKACK after every read: each segment ACKed at once" },
	{ 't', OPTION_NUMBER, "secs", FIELD(report_secs), .min = 1, .max = 86400,
	  .help = "print the throughput every this many seconds (default 5)" },
	{ 'T', OPTION_TEXT, "msecs", FIELD(tare_arg),
	  .help = "with -c, each connection's tare; with -C, each period\n(default 1000)" },
	{ 'u', OPTION_FLAG, FIELD(datagram), .help = "receive UDP datagrams from zcc -u" },
	OPTIONS_ROW_SOAK_SET(struct settings),
	{ 'W', OPTION_NUMBER, "secs", FIELD(idle_secs), .min = 1, .max = 86400,
	  .help = "end a connection that sends nothing this long (default "
		  OPTIONS_STR(DEFAULT_IDLE_SECS) ")" },
	{ 0 }
};

static const struct option_table table = {
	.about = "Receives zcc's streams (or -u datagrams), says what came, discards it; see zcs(1).",
	.rows = rows,
};

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

/*
 * -m A,B,...: the receive modes that take turns on each connection, each
 * named as -m names one (twice: an A/A run); -A only with them. TCP's
 * alone: -u's datagrams come from many senders into one socket.
 */
static void parse_arms(struct settings *s, const char *given, const char *list)
{
	char buf[256], *items[RX_MAX_ARMS];

	s->mode_name = list;
	if (!strchr(list, ',')) {
		if (strchr(given, 'A'))
			opt_failx("-A sets the slots of modes that take turns: it needs -m with two "
				  "or more, as -m read,trunc");
		s->arms[0] = find_mode(list, s->datagram);
		s->n_arms = 1;
		s->maps = s->arms[0]->maps;
		return;
	}
	if (s->datagram)
		opt_failx("-m %s: modes take turns on a TCP connection: not with -u", list);
	s->n_arms = opt_mode_list(list, buf, sizeof(buf), items, RX_MAX_ARMS);
	for (unsigned i = 0; i < s->n_arms; i++) {
		s->arms[i] = find_mode(items[i], 0);
		s->maps |= s->arms[i]->maps;
	}
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
	if (s->datagram && strchr(given, 'I'))
		opt_failx("-I is for TCP (TCP_INFO): -u has no connection to ask");
	if (s->datagram && (strchr(given, 'D') || strchr(given, 'Q')))
		opt_failx("-%c is for TCP: -u has no connection", strchr(given, 'D') ? 'D' : 'Q');
	s->sockopts.datagram = s->datagram;
	parse_arms(s, given, mode_arg ? mode_arg : "read");
	if (s->events_path && s->n_arms == 1)
		opt_failx("-e writes each slot's start: it needs -m with two or more modes");
}

static void parse_options(int argc, char **argv, struct settings *s)
{
	char given[64];

	*s = (struct settings){ .bufsize = NET_DEFAULT_BUFSIZE, .cpu = -1, .port = NET_DEFAULT_PORT,
				.report_secs = 5, .rcvlowat = NET_DEFAULT_RCVLOWAT,
				.tare_ms = METER_DEFAULT_TARE_MS,
				.max_conns = DEFAULT_MAX_CONNS, .idle_secs = DEFAULT_IDLE_SECS,
				.unit = UNITS_DEFAULT, .slot_ms = TURNS_DEFAULT_SLOT_MS };
	if (options_parse(&table, s, argc, argv, given, sizeof(given)) < argc)
		opt_failx("unexpected argument '%s'", argv[optind]);
	if (s->tare_arg)
		s->tare_ms = meter_option_T(s->tare_arg, s->calibrate_only, OPTION_RING_TARE_MS);
	check_options(s, given, s->mode_arg);
}

int main(int argc, char **argv)
{
	struct hostmeter *hm = NULL;
	struct settings s;
	int lfd;

	parse_options(argc, argv, &s);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (s.calibrate_only)
		return meter_calibrate(s.n_cpus, &s.soak_set, s.tare_ms, s.debug);
	for (unsigned i = 0; i < s.n_arms; i++)
		rx_check(s.arms[i], s.bufsize);
	/* -e: opened before listening (a FIFO waits here for its reader). */
	if (s.events_path && !(s.events = schedule_events_open(s.events_path)))
		err(1, "-e %s", s.events_path);
	/* Soakers first: they cover every CPU, whichever one zcs itself is pinned to. */
	if (s.measure_cpu)
		hm = hostmeter_start(s.n_cpus, &s.soak_set, s.tare_ms, s.debug);
	if (s.cpu >= 0 && cpu_pin(s.cpu) < 0)
		err(1, "-B %d: sched_setaffinity", s.cpu);
	if (hm)
		hostmeter_warm_up(hm);
	lfd = net_listen(s.addr, s.port, &s.sockopts, s.debug);
	if (s.datagram)
		serve_datagrams(lfd, &s, hm);
	for (unsigned i = 0; i < s.n_arms; i++)
		rx_check_listening(s.arms[i], lfd);
	if (s.debug)
		fprintf(stderr, "zcs: receive mode %s, %ld-byte chunks\n", s.mode_name, s.bufsize);
	serve_connections(lfd, &s, hm);
}
