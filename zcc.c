/*
 * zcc: the zc sender. Sends a set of files to zcs, n times over, with
 * sendfile(), read()+send() or read()+write() and the rest of tx/'s modes,
 * over TCP or (-u) as UDP datagrams, and reports what it sent.
 */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cpu.h"
#include "lib/json.h"
#include "lib/system.h"
#include "lib/opt.h"
#include "lib/options.h"
#include "lib/dgram.h"
#include "lib/proto.h"
#include "lib/timing.h"
#include "lib/units.h"
#include "client/client.h"

/* -W: how long zcs may take, in all, to close after the last byte, by default. */
#define DEFAULT_CLOSE_WAIT_SECS 60

/*
 * -u: the datagrams' payload by default, the largest that fits an Ethernet
 * frame of 1500 bytes over IPv4 (less 20 for IP, 8 for UDP); over IPv6 (40
 * for IP), 1452, taken when the server's first address is IPv6.
 */
#define DEFAULT_DGRAM_BYTES 1472
#define DEFAULT_DGRAM_BYTES_IPV6 1452

/*
 * -u without -R: the rate zcc paces itself at, 64 MiB/s. UDP has no flow
 * control, and a receiver that falls behind loses what it cannot take.
 */
#define DEFAULT_DGRAM_RATE (64UL << 20)

/* -t: at most a day. */
#define MAX_TIME_MS (86400L * 1000)

/*
 * A sysctl's full name for a setting given by its last part alone: net.ipv4's
 * or net.core's of that name where this kernel has one
 * ("net.ipv4.tcp_autocorking"), else the form, an example's.
 */
static const char *sysctl_named(const char *last)
{
	static char full[128];
	static const char *const dirs[] = { "net.ipv4", "net.core" };
	char path[160];

	if (last[0] && strspn(last, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(last) &&
	    strlen(last) < 64)
		for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
			snprintf(full, sizeof(full), "%s.%.63s", dirs[d], last);
			/* Its file: the name under /proc/sys, a dot a slash. */
			snprintf(path, sizeof(path), "/proc/sys/%s", full);
			for (char *c = path; *c; c++)
				*c = *c == '.' ? '/' : *c;
			if (access(path, F_OK) == 0)
				return full;
		}
	return "net.ipv4.tcp_autocorking";
}

/* -m: the mode of that name, of TCP's or -u's; '?' lists them all, one a line. */
static const struct send_mode *find_mode(const char *name, int datagram)
{
	const struct send_mode *m = tx_find_mode(name, datagram);
	char why[300];

	if (strcmp(name, "?") == 0) {
		for (const struct send_mode *const *t = tx_modes; *t; t++)
			if ((*t)->datagram == datagram)
				printf("%s\n", (*t)->name);
		exit(0);
	}
	if (!m && tx_find_mode(name, !datagram))
		opt_failx("-m %s %s", name, datagram ? "is for TCP: with -u, a mode sends datagrams ("
			  "see -u -m '?')" : "sends datagrams: it needs -u");
	if (!m) {
		snprintf(why, sizeof(why), "unknown mode (%s)", tx_mode_names(datagram, 0));
		opt_fail('m', name, why);
	}
	return m;
}

/*
 * The arms' buffers (-m A,B,... or -X; option and arg name them in a
 * refusal): the queued arms' depth, unless -q gives it (their buffers are
 * pinned, and share RLIMIT_MEMLOCK as -P's streams do), and every arm's
 * buffers together, each of chunk[i] bytes (NULL: -b's), at most half the
 * host's memory.
 */
static void arms_buffers(struct settings *s, const char *given, const char *option,
			 const char *arg, const uint64_t *chunk)
{
	uint64_t bytes = 0, host = (uint64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);

	if (!strchr(given, 'q'))
		s->depth = tx_default_depth(s->bufsize, s->queued_arms ? s->queued_arms : 1,
					    tx_pin_limit());
	for (unsigned i = 0; i < s->n_arms; i++)
		bytes += (s->arms[i]->queued ? s->depth : 1) * (chunk ? chunk[i] : (uint64_t)s->bufsize);
	if (host && bytes > host / 2)
		opt_failx("%s %s: its arms' buffers are %.1f GiB, more than half of this host's "
			  "%.1f GiB of memory", option, arg, bytes / 1073741824.0, host / 1073741824.0);
}

/*
 * -m A,B,...: the modes that take turns sending one stream, each named as -m
 * names one; -A only with them. One stream over TCP. Every arm's buffers
 * together must fit in memory.
 */
static void parse_arms(struct settings *s, const char *given, const char *list)
{
	char buf[sizeof(s->list_name)], *items[TURNS_MAX_ARMS];

	if (!list || !strchr(list, ',')) {
		if (strchr(given, 'A') && !strchr(given, 'X'))
			opt_failx("-A sets the slots of modes that take turns: it needs -m with two "
				  "or more, as -m write,sendfile, or -X");
		return;
	}
	if (strchr(given, 'X'))
		opt_failx("-X takes turns over one mode's setting: not with -m %s", list);
	if (s->datagram || s->streams > 1 || strchr(given, 'S'))
		opt_failx("-m %s: modes take turns in one TCP stream: not with %s", list,
			  s->datagram ? "-u" : s->streams > 1 ? "-P" : "-S");
	s->n_arms = opt_mode_list(list, buf, sizeof(s->list_name), items, TURNS_MAX_ARMS);
	strcpy(s->list_name, list);
	for (unsigned i = 0; i < s->n_arms; i++) {
		s->arms[i] = find_mode(items[i], 0);
		s->queued_arms += s->arms[i]->queued;
	}
	arms_buffers(s, given, "-m", list, NULL);
}

/*
 * -X NAME=V1,V2,...: one mode's arms, one for each value of the setting, in
 * one TCP stream; each arm named NAME=V as given ("#N" after a value given
 * twice, an A/A run). Settings a slot cannot change mid-stream are refused.
 */
static void parse_knob(struct settings *s, const char *given)
{
	char buf[256], why[160], *rest, *tok, *eq;
	const char *name;
	const struct knob *knob;
	struct knob_arms *k = &s->knob;
	unsigned times[TURNS_MAX_ARMS];

	if (!s->knob_arg)
		return;
	if (s->datagram || s->streams > 1)
		opt_failx("-X %s: the arms take turns in one TCP stream: not with %s", s->knob_arg,
			  s->datagram ? "-u" : "-P");
	if (strlen(s->knob_arg) >= sizeof(buf))
		opt_fail('X', s->knob_arg, "too long");
	/* Written to a sysctl and into the summaries' lines: one line of text, or refused. */
	for (const char *c = s->knob_arg; *c; c++)
		if ((unsigned char)*c < ' ' || *c == 0x7f)
			opt_failx("-X: a control character (0x%02x) in the setting or its values: each "
				  "is one line of text", (unsigned char)*c);
	strcpy(buf, s->knob_arg);
	eq = strchr(buf, '=');
	if (!eq) {
		snprintf(why, sizeof(why), "not NAME=V1,V2,... (%s)", knob_names());
		opt_fail('X', s->knob_arg, why);
	}
	*eq = '\0';
	if (strcmp(buf, "mss") == 0 || strcmp(buf, "rcvbuf") == 0)
		opt_failx("-X %s: %s is set before connecting, and a slot cannot change it "
			  "mid-stream", s->knob_arg,
			  strcmp(buf, "mss") == 0 ? "TCP_MAXSEG (-M)" : "SO_RCVBUF (-i)");
	knob = k->knob = knob_find(buf);
	if (!knob)
		opt_failx("-X %s: no setting '%s' (%s; as root, a sysctl by its full name, as %s)",
			  s->knob_arg, buf, knob_names(), sysctl_named(buf));
	/* A sysctl's arms are named for its last part. */
	name = knob->name ? knob->name : strrchr(buf, '.') + 1;
	if (!knob->name)
		strcpy(s->knob_name, buf);
	if (knob->option && strchr(given, knob->option))
		opt_failx("-X %s: -%c sets the same, for every arm: give one of them", s->knob_arg,
			  knob->option);
	if (knob->chunk && !s->arms[0]->chunked)
		opt_failx("-X %s: mode %s has no chunk to change (-b is for the modes that send "
			  "a chunk at a time)", s->knob_arg, s->arms[0]->name);
	if (knob->not_with_copies && s->arms[0]->counts_copies)
		opt_failx("-X %s conflicts with -m %s: %s", s->knob_arg, s->arms[0]->name,
			  knob->not_with_copies);
	rest = eq + 1;
	while ((tok = strsep(&rest, ","))) {
		if (*tok == '\0')
			opt_fail('X', s->knob_arg, "an empty value in the list");
		if (k->n == TURNS_MAX_ARMS)
			opt_failx("-X %s: more than %d values", s->knob_arg, TURNS_MAX_ARMS);
		switch (knob->values) {
		case KNOB_TEXT:
			if (strlen(tok) >= sizeof(k->text[0]))
				opt_fail('X', s->knob_arg, "a value too long for a sysctl");
			strcpy(k->text[k->n], tok);
			break;
		case KNOB_SIZE:
			k->value[k->n] = options_value(knob->value, 'X', tok);
			break;
		case KNOB_RATE:
			k->value[k->n] = opt_rate('X', tok, knob->min, knob->max);
			break;
		case KNOB_SWITCH:
			k->value[k->n] = opt_long('X', tok, knob->min, knob->max);
			break;
		}
		/* A setting's short name leaves its value more of the label than a sysctl's long one. */
		if (!knob->name)
			snprintf(k->label[k->n], sizeof(k->label[k->n]), "%.24s=%.12s", name, tok);
		else
			snprintf(k->label[k->n], sizeof(k->label[k->n]), "%.8s=%.28s", name, tok);
		k->n++;
	}
	if (k->n < 2)
		opt_failx("-X %s: the arms are its values: give two or more", s->knob_arg);
	/* A value given twice (an A/A run): its arms are told apart by their place. */
	for (unsigned a = 0; a < k->n; a++) {
		times[a] = 0;
		for (unsigned b = 0; b < k->n; b++)
			times[a] += strcmp(k->label[a], k->label[b]) == 0;
	}
	for (unsigned a = 0; a < k->n; a++)
		if (times[a] > 1)
			snprintf(k->label[a] + strlen(k->label[a]), sizeof(k->label[a]) - strlen(k->label[a]),
				 "#%u", a + 1);
	snprintf(s->list_name, sizeof(s->list_name), "%s -X %s", s->arms[0]->name, s->knob_arg);
	for (unsigned a = 0; a < k->n; a++) {
		s->arms[a] = s->arms[0];
		s->queued_arms += s->arms[0]->queued;
	}
	s->n_arms = k->n;
	arms_buffers(s, given, "-X", s->knob_arg, knob->chunk ? k->value : NULL);
}

/*
 * -X with a sysctl: it is opened (root's; what a killed run left put back
 * first), each value tried once, and the value it had put back at the end,
 * on a stop signal (parallel.c), or by the next run after a SIGKILL.
 */
static void open_sysctl(struct settings *s)
{
	static struct sysctl_knob knob;
	char why[512];

	if (sysctl_knob_open(&knob, s->knob_name, why, sizeof(why)) < 0)
		errx(1, "-X %s: %s", s->knob_arg, why);
	stop_signals_restore(&knob);
	for (unsigned i = 0; i < s->knob.n; i++)
		if (sysctl_knob_set(&knob, s->knob.text[i]) < 0)
			err(1, "-X %s: %s takes no '%s'", s->knob_arg, knob.path, s->knob.text[i]);
	if (sysctl_knob_set(&knob, knob.original) < 0)
		err(1, "-X %s: putting %s back", s->knob_arg, knob.path);
	s->knob.sysctl = &knob;
}

/* -u: the options that are TCP's alone, and -l, which is -u's. */
static void check_datagram_options(struct settings *s, const char *given)
{
	static const char tcp_only[] = "DEIkKMQSw";

	if (!s->datagram) {
		if (strchr(given, 'l'))
			opt_failx("-l sets the datagrams' size: it needs -u");
		return;
	}
	for (const char *o = tcp_only; *o; o++)
		if (strchr(given, *o))
			opt_failx("-%c is for TCP: -u sends datagrams", *o);
	s->sockopts.datagram = 1;
	if (!strchr(given, 'b'))
		s->bufsize = DGRAM_MAX_BYTES;
	if (!s->rate.bytes_per_sec)
		s->rate.bytes_per_sec = DEFAULT_DGRAM_RATE;
	if (!strchr(given, 'l') && s->server && net_first_family(s->server, 1) == AF_INET6)
		s->dgram_bytes = DEFAULT_DGRAM_BYTES_IPV6;
}

/*
 * -C calibrates and sends nothing: of the options, only -N and -d mean
 * anything to it, and a file names nothing to calibrate.
 */
static void check_calibrate_alone(const char *given, int argc, char **argv)
{
	int stray = meter_calibrate_stray(given);

	if (stray == 'J')
		opt_failx("-J is for the transfer's summary: -C writes %s and prints text",
			  SOAK_COUNTS_FILE);
	if (stray)
		opt_failx("-%c is for a transfer: -C calibrates the meter and sends nothing", stray);
	if (optind < argc)
		opt_failx("unexpected argument '%s': -C calibrates the meter and sends nothing",
			  argv[optind]);
}

/* -q x -b x -P: the buffers must fit in memory (tx_buffers_fit). */
static void check_buffer_memory(const struct settings *s)
{
	long depth = s->arms[0]->queued ? s->depth : 1;
	double gib = 1024.0 * 1024 * 1024;
	uint64_t host = (uint64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
	uint64_t bytes = (uint64_t)s->streams * depth * s->bufsize;

	if (!tx_buffers_fit(s->arms[0], bytes, host))
		opt_failx("-q %ld x -b %ld x -P %ld is %.1f GiB of buffers, more than half of "
			  "this host's %.1f GiB of memory", depth, s->bufsize, s->streams,
			  bytes / gib, host / gib);
}

/* -m memory: every stream holds the files; they must fit in half of memory, as the buffers must. */
static void check_file_memory(const struct settings *s)
{
	uint64_t bytes = 0, host = (uint64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
	int held = 0;

	for (unsigned i = 0; i < s->n_arms; i++)
		held |= s->arms[i]->load != NULL;
	if (!held)
		return;
	for (size_t i = 0; i < s->n_files; i++)
		bytes += (s->files[i].size + 4095) / 4096 * 4096;
	if (bytes * s->streams > host / 2)
		errx(1, "-m memory holds the files in each stream's memory: %.1f GiB x -P %ld is more "
		     "than half of this host's %.1f GiB", bytes / 1073741824.0, s->streams,
		     host / 1073741824.0);
}

/*
 * The stream's arms (one mode is turns of one, arms[0]), as the summaries
 * name them: the mode's name or the list's, and what any arm does.
 */
static void name_the_modes(struct settings *s)
{
	s->modes = (struct stream_modes){ .name = s->n_arms > 1 ? s->list_name : s->arms[0]->name,
					  .datagram = s->arms[0]->datagram };
	for (unsigned i = 0; i < s->n_arms; i++) {
		s->modes.chunked |= s->arms[i]->chunked;
		s->modes.queued |= s->arms[i]->queued;
		s->modes.counts_copies |= s->arms[i]->counts_copies;
	}
}

/* What one option means for another, once all are read. */
static void check_options(struct settings *s, const char *given, const char *mode_arg, int argc,
			  char **argv)
{
	int given_S = strchr(given, 'S') != NULL, given_w = strchr(given, 'w') != NULL;
	uint64_t each;

	if (strchr(given, 't') && strchr(given, 'n'))
		opt_failx("-t and -n both say how long to send: give one");
	if (given_w && !given_S)
		opt_failx("-w needs -S (write() replaces send() in the read/send mode)");
	if (s->calibrate_only)
		check_calibrate_alone(given, argc, argv);
	meter_check_options(given, s->measure_cpu, s->calibrate_only, s->n_cpus);
	check_datagram_options(s, given);
	/* The first row of each kind is its default: sendfile, or -u's sendmsg. */
	if (!mode_arg || !strchr(mode_arg, ','))
		s->arms[0] = find_mode(mode_arg ? mode_arg : s->datagram ? "sendmsg" : "sendfile",
				    s->datagram);
	parse_arms(s, given, mode_arg);
	if (given_S) {
		const struct send_mode *m = find_mode(given_w ? "write" : "send", 0);

		if (mode_arg && s->arms[0] != m)
			opt_failx("-m %s conflicts with -S%s", mode_arg, given_w ? " -w" : "");
		s->arms[0] = m;
	}
	parse_knob(s, given);
	name_the_modes(s);
	if (s->n_cpu_list > 1 && s->streams == 1)
		opt_failx("-B %d,...: a list of CPUs is for -P streams, one CPU each in turn",
			  s->cpu_list[0]);
	/* -k is -X cork's setting for every arm, and conflicts as it does. */
	if (s->cork && s->modes.counts_copies)
		opt_failx("-k conflicts with -m %s: %s", s->modes.name, knob_find("cork")->not_with_copies);
	each = rate_share(&s->rate, s->streams).bytes_per_sec;
	if (s->rate.bytes_per_sec && each < MIN_STREAM_RATE)
		opt_failx("-R %llu over -P %ld streams is %llu bytes/sec each: a stream needs at "
			  "least %d", (unsigned long long)s->rate.bytes_per_sec, s->streams,
			  (unsigned long long)each, MIN_STREAM_RATE);
	/* -W bounds the connect() too: a SYN that no one answers waits over a minute. */
	s->sockopts.connect_secs = s->close_wait_secs;
	if (!strchr(given, 'q') && s->n_arms == 1)
		s->depth = tx_default_depth(s->bufsize, s->streams, tx_pin_limit());
	if (strchr(given, 'q') && !s->modes.queued)
		opt_failx("-q needs -m %s (mode %s sends one %s at a time)",
			  tx_mode_names(s->datagram, 1), s->modes.name,
			  s->datagram ? "batch" : "chunk");
	if (s->n_arms == 1)
		check_buffer_memory(s);
	if (s->events_path && s->n_arms == 1)
		opt_failx("-e writes each slot's start: it needs turns, -m with two or more modes, "
			  "or -X");
	if (s->calibrate_only)
		return;
	if (!s->server)
		opt_failx("-s server is required");
	if (optind == argc)
		opt_failx("no files to send");
	s->paths = argv + optind;
	s->n_paths = argc - optind;
}

/* -B: one CPU, or a comma-separated list of them for -P's streams. */
static void parse_cpu_list(void *settings, int letter, const char *arg)
{
	struct settings *s = settings;
	char list[256], *rest = list, *tok;

	if (*arg == '\0')
		opt_fail(letter, arg, opt_status_text(OPT_EMPTY));
	if (strlen(arg) >= sizeof(list))
		opt_fail(letter, arg, "too long a list");
	strcpy(list, arg);
	s->n_cpu_list = 0;
	while ((tok = strsep(&rest, ","))) {
		if (*tok == '\0')
			opt_fail(letter, arg, "an empty item in the list");
		if (s->n_cpu_list == MAX_STREAMS)
			opt_failx("-B: more than %d CPUs", MAX_STREAMS);
		s->cpu_list[s->n_cpu_list++] = options_value(OPTION_CPU, letter, tok);
	}
	s->cpu = s->cpu_list[0];
}

/* -K: a congestion control, by a name the kernel could have. */
static void parse_congestion(void *settings, int letter, const char *arg)
{
	if (!*arg || strlen(arg) >= NET_CONGESTION_MAX)
		opt_fail(letter, arg, "not a congestion control's name (bbr, cubic)");
	((struct settings *)settings)->sockopts.congestion = arg;
}

/* -R: the whole transfer's pace, and the unit it was given in. */
static void parse_rate(void *settings, int letter, const char *arg)
{
	((struct settings *)settings)->rate =
		(struct rate){ .bytes_per_sec = opt_rate(letter, arg, MIN_STREAM_RATE, LONG_MAX),
			       .asked = 1, .unit = opt_rate_bits_letter(arg) };
}

/* -q's help names the queued modes, from the table of modes. */
static const char *depth_help(void)
{
	static char help[256];

	snprintf(help, sizeof(help), "the chunks in flight in %s", tx_mode_names(0, 1));
	return help;
}

/* -X's help names the settings, from the table of settings. */
static const char *knob_help(void)
{
	static char help[512];

	snprintf(help, sizeof(help),
		 "one mode in turns over a setting's values, an arm each:\n"
		 "%s (-X b=64k,1m); as root, a\n"
		 "sysctl by its full name (-X net.ipv4.tcp_autocorking=0,1)", knob_names());
	return help;
}

#define FIELD(member) OPTION_FIELD(struct settings, member)

static const struct option_row rows[] = {
	OPTIONS_ROW_SLOT(struct settings),
	{ 'b', OPTION_NUMBER, "bufsize", FIELD(bufsize), .value = OPTION_CHUNK,
	  .help = "the chunk a mode sends at a time (default 1m; k, m, g: x1024)" },
	{ 'B', OPTION_CALL, "cpu", .synopsis_arg = "cpu[,cpu...]", .parse = parse_cpu_list,
	  .help = "pin zcc to this CPU; with -P, a list, stream i on the i-th" },
	{ 'c', OPTION_FLAG, FIELD(measure_cpu),
	  .help = "measure the host's CPU load (cyclesoak's soakers) during the run" },
	OPTIONS_ROW_CALIBRATE(struct settings),
	{ 'd', OPTION_COUNT, FIELD(debug), .help = "debug on stderr; twice, each file as it goes" },
	{ 'D', OPTION_FLAG, FIELD(sockopts.nodelay), .help = "TCP_NODELAY: Nagle's algorithm off" },
	{ 'e', OPTION_TEXT, "file", FIELD(events_path),
	  .help = "with turns (-m A,B,... or -X), a line into file as each slot\n"
		  "begins (a file, or a FIFO another program reads; zcc(1))" },
	{ 'E', OPTION_FLAG, FIELD(exchange),
	  .help = "the opening exchange: 4 bytes each way before the stream" },
	OPTIONS_ROW_UNIT(struct settings),
	OPTIONS_ROW_HELP,
	OPTIONS_ROW_RCVBUF(struct settings),
	{ 'I', OPTION_FLAG, FIELD(tcp_line),
	  .help = "TCP_INFO's line after the summary: retransmissions, RTT,\n"
		  "window, and what limited the sending (-J has it always)" },
	{ 'J', OPTION_FLAG, FIELD(json), .help = "the summary as one JSON object" },
	{ 'k', OPTION_FLAG, FIELD(cork), .help = "TCP_CORK" },
	{ 'K', OPTION_CALL, "cc", .parse = parse_congestion,
	  .help = "TCP_CONGESTION: this congestion control, not the host's default" },
	{ 'l', OPTION_NUMBER, "bytes", FIELD(dgram_bytes), .min = DGRAM_HEADER_BYTES + 1,
	  .max = DGRAM_MAX_BYTES,
	  .help = "with -u, each datagram's size (default " OPTIONS_STR(DEFAULT_DGRAM_BYTES) ")" },
	{ 'm', OPTION_TEXT, "mode", FIELD(mode_arg), .synopsis_arg = "mode[,mode...]",
	  .help = "how to send (zcc -m '?' lists them; default sendfile);\n"
		  "a list takes turns in one stream (-m write,sendfile)" },
	{ 'M', OPTION_NUMBER, "mss", FIELD(sockopts.mss), .min = NET_MIN_MSS, .max = NET_MAX_MSS,
	  .help = "TCP_MAXSEG, set before connecting" },
	{ 'n', OPTION_NUMBER, "loops", FIELD(loops), .min = 1, .max = UINT32_MAX,
	  .help = "send the file set this many times (default 1)" },
	OPTIONS_ROW_SOAK_CPUS(struct settings),
	OPTIONS_ROW_SNDBUF(struct settings),
	{ 'p', OPTION_NUMBER, "port", FIELD(port), .value = OPTION_PORT,
	  .help = "zcs's port (default " OPTIONS_STR(NET_DEFAULT_PORT) ")" },
	{ 'Q', OPTION_FLAG, FIELD(sockopts.quickack), .help = "TCP_QUICKACK as the connection starts" },
	{ 'P', OPTION_NUMBER, "streams", FIELD(streams), .min = 1, .max = MAX_STREAMS,
	  .help = "this many streams at once (default 1)" },
	{ 'q', OPTION_NUMBER, "depth", FIELD(depth), .min = 1, .max = TX_MAX_DEPTH,
	  .help_of = depth_help },
	{ 'R', OPTION_CALL, "rate", .parse = parse_rate,
	  .help = "pace at this many bytes a second (k, m, g: x1024), or bits\n"
		  "with their unit (500mbit, 2.5gbit: bit, kbit, mbit, gbit, tbit)" },
	{ 's', OPTION_NAME, "server", FIELD(server), .required = 1, .help = "zcs's host or address" },
	{ 'S', OPTION_NOTED, .help = "read() + send(): -m send" },
	{ 't', OPTION_SECS, "secs", FIELD(time_ms), .min = 1, .max = MAX_TIME_MS,
	  .help = "send the file set round and round for this long, the last\n"
		  "file whole (0.5, 10), instead of -n times" },
	{ 'T', OPTION_TEXT, "msecs", FIELD(tare_arg),
	  .help = "with -c, the tare before the transfer; with -C, each period\n(default 1000)" },
	{ 'u', OPTION_FLAG, FIELD(datagram), .help = "UDP datagrams to zcs -u" },
	OPTIONS_ROW_SOAK_SET(struct settings),
	{ 'w', OPTION_NOTED, .help = "with -S, write() instead of send(): -m write" },
	{ 'W', OPTION_NUMBER, "secs", FIELD(close_wait_secs), .min = 1, .max = 3600,
	  .help = "the longest wait for zcs (default " OPTIONS_STR(DEFAULT_CLOSE_WAIT_SECS) ")" },
	{ 'X', OPTION_TEXT, "n=v,v...", FIELD(knob_arg), .synopsis_arg = "name=value,value...",
	  .help_of = knob_help },
	{ 0 }
};

static const struct option_table table = {
	.about = "Sends the files to zcs -n times and prints what it sent; see zcc(1).",
	.rows = rows,
	.operands = "file...",
};

static void parse_options(int argc, char **argv, struct settings *s)
{
	char given[64];

	*s = (struct settings){ .bufsize = NET_DEFAULT_BUFSIZE, .cpu = -1, .loops = 1,
				.port = NET_DEFAULT_PORT, .tare_ms = METER_DEFAULT_TARE_MS,
				.streams = 1, .close_wait_secs = DEFAULT_CLOSE_WAIT_SECS,
				.dgram_bytes = DEFAULT_DGRAM_BYTES, .n_arms = 1, .unit = UNITS_DEFAULT,
				.slot_ms = TURNS_DEFAULT_SLOT_MS };
	options_parse(&table, s, argc, argv, given, sizeof(given));
	if (s->tare_arg)
		s->tare_ms = meter_option_T(s->tare_arg, s->calibrate_only, OPTION_TARE_MS);
	check_options(s, given, s->mode_arg, argc, argv);
}

/*
 * Keep the readable regular files, warning about the rest; refuse any of 4 GiB
 * or more. The type is checked before the file is opened: opening a FIFO
 * blocks until a writer comes, and opening a device can act on it.
 */
static size_t scan_files(const struct settings *s, struct tx_file *files)
{
	size_t n = 0;

	for (int i = 0; i < s->n_paths; i++) {
		const char *path = s->paths[i];
		struct stat st;
		int fd;

		if (stat(path, &st) < 0) {
			warn("skipping %s", path);
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			warnx("skipping %s: not a regular file", path);
			continue;
		}
		fd = open(path, TX_OPEN_FLAGS);
		if (fd < 0) {
			warn("skipping %s", path);
			continue;
		}
		/* The protocol sends stat's size: /proc's and /sys's files say 0 and have more. */
		if (st.st_size == 0 && read(fd, &(char){ 0 }, 1) == 1)
			warnx("warning: %s: its size is 0 but it has data (a file of /proc or /sys?): "
			      "it is sent as 0 bytes", path);
		close(fd);
		if ((uint64_t)st.st_size > UINT32_MAX)
			errx(1, "%s: %lld bytes is too large: the protocol's lengths stop below 4 GiB",
			     path, (long long)st.st_size);
		files[n++] = (struct tx_file){ .path = path, .size = st.st_size };
	}
	return n;
}

/*
 * The soakers on every CPU (before zcc is pinned), and the tare. They die
 * with zcc (PR_SET_PDEATHSIG), and the stop signals and zcc's exit reap them.
 */
static struct meter *start_meter(const struct settings *s)
{
	struct meter *m = calloc(1, sizeof(*m));

	if (!m)
		err(1, "calloc");
	stop_signals_end_meter(m);
	meter_start_or_exit(m, s->n_cpus, &s->soak_set, s->debug);
	return m;
}

static void debug_files(const struct settings *s, const struct tx_file *files, size_t n)
{
	uint64_t per_loop = 0, datagrams = 0;

	for (size_t i = 0; i < n; i++) {
		per_loop += files[i].size;
		datagrams += dgram_file_datagrams(files[i].size, s->dgram_bytes);
	}
	fprintf(stderr, "zcc: %zu files, %llu bytes of file data a loop, ", n,
		(unsigned long long)per_loop);
	/* In all: the stream's bytes, or the datagrams' payload, each with its header. */
	if (s->time_ms)
		fprintf(stderr, "round and round for %.3f s", s->time_ms / 1000.0);
	else
		fprintf(stderr, "%llu bytes in all",
			(unsigned long long)(s->datagram
					     ? s->loops * (per_loop + datagrams * DGRAM_HEADER_BYTES)
					     : proto_stream_bytes(s->loops, n, per_loop)));
	fprintf(stderr, ", mode %s", s->modes.name);
	if (s->datagram)
		fprintf(stderr, ", %ld-byte datagrams, %llu of them%s", s->dgram_bytes,
			(unsigned long long)(s->time_ms ? datagrams : s->loops * datagrams),
			s->time_ms ? " a loop" : "");
	if (s->modes.queued)
		fprintf(stderr, ", %ld %s in flight", s->depth, s->datagram ? "batches" : "chunks");
	if (s->streams > 1)
		fprintf(stderr, ", %ld streams", s->streams);
	fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
	struct settings s;
	struct tx_file *files;
	struct summary sum, streams[MAX_STREAMS];
	struct meter *m = NULL;
	size_t n_files;
	long failed = 0;
	struct start_line alone = { -1, -1 };
	static struct txturns turns;

	parse_options(argc, argv, &s);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (s.calibrate_only)
		return meter_calibrate(s.n_cpus, &s.soak_set, s.tare_ms, s.debug);
	/* A vanished zcs must give an error with a byte count, not a silent SIGPIPE death. */
	signal(SIGPIPE, SIG_IGN);
	catch_stop_signals();
	files = calloc(s.n_paths, sizeof(*files));
	if (!files)
		err(1, "calloc");
	n_files = scan_files(&s, files);
	if (n_files == 0)
		errx(1, "no readable regular files to send");
	s.files = files;
	s.n_files = n_files;
	check_file_memory(&s);
	if (s.debug)
		debug_files(&s, files, n_files);
	/* -e: opened before the run (a FIFO waits here for its reader). */
	if (s.events_path && !(s.events = schedule_events_open(s.events_path)))
		err(1, "-e %s", s.events_path);
	/* A mode the kernel cannot do fails here, before the soakers start (-P: in each child). */
	if (s.streams == 1) {
		if (s.knob.knob && !s.knob.knob->name)
			open_sysctl(&s);
		stream_setup(&turns, &s);
		stop_signals_count(&turns.current);
	}
	/* Soakers first: they cover every CPU, whichever one zcc itself is pinned to. */
	if (s.measure_cpu)
		m = start_meter(&s);
	if (s.n_cpu_list == 1 && cpu_pin(s.cpu) < 0)
		err(1, "-B %d: sched_setaffinity", s.cpu);
	if (m && s.tare_ms > 0 && meter_tare(m, s.tare_ms) < 0)
		meter_die(m);
	if (s.streams > 1)
		failed = run_parallel(&s, m, files, n_files, streams, &sum);
	else
		run_stream(&s, &turns, files, n_files, &alone, m, &sum);
	sum.skipped = s.n_paths - n_files;
	report(&s, m, s.n_arms > 1 ? &turns : NULL, n_files, streams, failed, &sum);
	free(files);
	return 0;
}
