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

#include "server/zcs.h"
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

static const char usage[] =
	"usage: zcs [-cCdDhIJQu] [-a addr] [-A msecs] [-b bufsize] [-B cpu] [-f unit] [-i rcvbuf]\n"
	"           [-l lowat] [-m mode[,mode...]] [-L conns] [-N cpus] [-o sndbuf] [-p port]\n"
	"           [-t secs] [-T msecs] [-U cpus] [-W secs]\n";

static const char options[] =
	"Receives zcc's streams (or -u datagrams), says what came, discards it; see zcs(1).\n"
	"  -a addr     listen on this address only (default every IPv4 and IPv6 one)\n"
	OPTIONS_HELP_SLOT
	"  -b bufsize  receive this many bytes at a time (default 1m; k, m, g: x1024)\n"
	"  -B cpu      pin zcs and its connections to this CPU\n"
	"  -c          measure the host's CPU load, connection by connection\n"
	OPTIONS_HELP_CALIBRATE
	"  -d          debug on stderr\n"
	"  -D          TCP_NODELAY on each connection: Nagle's algorithm off\n"
	"  -f unit     the rates in k, m, g, t (bits a second, x1000) or K (kbytes/sec,\n"
	"              the default), M, G (bytes a second, x1024)\n"
	OPTIONS_HELP_HELP
	OPTIONS_HELP_RCVBUF
	"  -I          TCP_INFO's line after each connection's summary (-J has it always)\n"
	"  -J          each summary as one JSON object\n"
	"  -l lowat    SO_RCVLOWAT on each connection\n"
	"  -L conns    serve at most this many connections at once (default 64)\n"
	"  -m mode     how to receive (zcs -m '?' lists them; default read); two or more,\n"
	"              comma-separated, take turns on each connection\n"
	OPTIONS_HELP_SOAK_CPUS
	OPTIONS_HELP_SNDBUF
	"  -p port     the port (default 2222)\n"
	"  -Q          TCP_QUICKACK after every read: each segment ACKed at once\n"
	"  -t secs     print the throughput every this many seconds (default 5)\n"
	"  -T msecs    with -c, each connection's tare; with -C, each period\n"
	"              (default 1000)\n"
	"  -u          receive UDP datagrams from zcc -u\n"
	OPTIONS_HELP_SOAK_SET
	"  -W secs     end a connection that sends nothing this long (default 60)\n";

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
		s->arms[0] = s->mode = find_mode(list, s->datagram);
		s->n_arms = 1;
		s->maps = s->mode->maps;
		return;
	}
	if (s->datagram)
		opt_failx("-m %s: modes take turns on a TCP connection: not with -u", list);
	s->n_arms = opt_mode_list(list, buf, sizeof(buf), items, RX_MAX_ARMS);
	for (unsigned i = 0; i < s->n_arms; i++) {
		s->arms[i] = find_mode(items[i], 0);
		s->maps |= s->arms[i]->maps;
	}
	s->mode = s->arms[0];
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
}

static void parse_options(int argc, char **argv, struct settings *s)
{
	const char *mode_arg = NULL, *tare_arg = NULL;
	char given[64] = "";
	int c;

	*s = (struct settings){ .bufsize = NET_DEFAULT_BUFSIZE, .cpu = -1, .port = NET_DEFAULT_PORT,
				.report_secs = 5, .rcvlowat = NET_DEFAULT_RCVLOWAT,
				.tare_ms = METER_DEFAULT_TARE_MS,
				.max_conns = DEFAULT_MAX_CONNS, .idle_secs = DEFAULT_IDLE_SECS,
				.unit = UNITS_DEFAULT, .slot_ms = TURNS_DEFAULT_SLOT_MS };
	opt_init(usage, options, argc, argv);
	while ((c = getopt(argc, argv, ":a:A:b:B:cCdDf:hi:IJl:L:m:N:o:p:Qt:T:uU:W:")) != -1) {
		opt_given(given, sizeof(given), c);
		switch (c) {
		case 'a':
			if (*optarg == '\0')
				opt_fail(c, optarg, opt_status_text(OPT_EMPTY));
			s->addr = optarg;
			break;
		case 'A':
			s->slot_ms = options_value(OPTION_SLOT_MS, c, optarg);
			break;
		case 'b':
			s->bufsize = options_value(OPTION_CHUNK, c, optarg);
			break;
		case 'B':
			s->cpu = options_value(OPTION_CPU, c, optarg);
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
		case 'f':
			s->unit = units_option(c, optarg);
			break;
		case 'h':
			opt_help();
		case 'i':
			s->sockopts.rcvbuf_bytes = options_value(OPTION_SOCKBUF, c, optarg);
			break;
		case 'D':
			s->sockopts.nodelay = 1;
			break;
		case 'I':
			s->tcp_line = 1;
			break;
		case 'Q':
			s->sockopts.quickack = 1;
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
			s->n_cpus = options_value(OPTION_SOAK_CPUS, c, optarg);
			break;
		case 'U':
			options_cpu_list(c, optarg, &s->soak_set);
			break;
		case 'o':
			s->sockopts.sndbuf_bytes = options_value(OPTION_SOCKBUF, c, optarg);
			break;
		case 'p':
			s->port = options_value(OPTION_PORT, c, optarg);
			break;
		case 't':
			s->report_secs = opt_long(c, optarg, 1, 86400);
			break;
		case 'T':
			tare_arg = optarg;	/* read once -C is known */
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
	if (tare_arg)
		s->tare_ms = meter_option_T(tare_arg, s->calibrate_only, OPTION_RING_TARE_MS);
	check_options(s, given, mode_arg);
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
