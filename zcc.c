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
#include "lib/dgram.h"
#include "lib/proto.h"
#include "lib/timing.h"
#include "zcc.h"

/* -W: how long zcs may take, in all, to close after the last byte, by default. */
#define DEFAULT_CLOSE_WAIT_SECS 60

/*
 * -R: the least rate a stream may be paced at. Below it a send can wait for
 * room in the socket buffer long enough to look like a stalled receiver (-W).
 */
#define MIN_STREAM_RATE 1024

/* -R: a run that reaches less of the rate than this did not run at it. */
#define RATE_REACHED_PCT 95.0

/*
 * -u: the datagrams' payload by default, the largest that fits an Ethernet
 * frame of 1500 bytes over IPv4 (less 20 for IP, 8 for UDP); over IPv6, 1452.
 */
#define DEFAULT_DGRAM_BYTES 1472

/*
 * -u without -R: the rate zcc paces itself at, 64 MiB/s. UDP has no flow
 * control, and a receiver that falls behind loses what it cannot take.
 */
#define DEFAULT_DGRAM_RATE (64UL << 20)

static const char usage[] =
	"usage: zcc [-cCdhJkSuw] [-A msecs] [-b bufsize] [-B cpu[,cpu...]] [-i rcvbuf]\n"
	"           [-o sndbuf] [-l bytes] [-M mss] [-n loops] [-N cpus] [-p port] [-P streams]\n"
	"           [-m mode[,mode...]] [-q depth] [-R rate] [-T msecs] [-W secs] -s server file...\n";

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
 * -m A,B,...: the modes that take turns sending one stream, each named as -m
 * names one; -A only with them. One stream over TCP. The summaries describe
 * them as one mode (s->listed): the list's name, chunked, queued or counting
 * copies if any arm is; every arm's buffers together must fit in memory.
 */
static void parse_arms(struct settings *s, const char *given, const char *list)
{
	char buf[256], *rest = buf, *tok;
	uint64_t bytes = 0, host = (uint64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);

	if (!list || !strchr(list, ',')) {
		if (strchr(given, 'A'))
			opt_failx("-A sets the slots of modes that take turns: it needs -m with two "
				  "or more, as -m write,sendfile");
		return;
	}
	if (s->datagram || s->streams > 1 || strchr(given, 'S'))
		opt_failx("-m %s: modes take turns in one TCP stream: not with %s", list,
			  s->datagram ? "-u" : s->streams > 1 ? "-P" : "-S");
	if (strlen(list) >= sizeof(s->list_name))
		opt_fail('m', list, "too long a list");
	strcpy(buf, list);
	strcpy(s->list_name, list);
	s->n_arms = 0;
	s->listed = (struct send_mode){ .name = s->list_name, .io = NET_IO_SEND };
	while ((tok = strsep(&rest, ","))) {
		if (*tok == '\0')
			opt_fail('m', list, "an empty item in the list");
		if (s->n_arms == ALT_MAX_ARMS)
			opt_failx("-m %s: more than %d modes", list, ALT_MAX_ARMS);
		s->arms[s->n_arms] = find_mode(tok, 0);
		s->listed.chunked |= s->arms[s->n_arms]->chunked;
		s->listed.queued |= s->arms[s->n_arms]->queued;
		s->listed.counts_copies |= s->arms[s->n_arms]->counts_copies;
		s->queued_arms += s->arms[s->n_arms]->queued;
		s->n_arms++;
	}
	s->mode = &s->listed;
	/* The queued arms' buffers are pinned, and share RLIMIT_MEMLOCK as -P's streams do. */
	if (!strchr(given, 'q'))
		s->depth = tx_default_depth(s->bufsize, s->queued_arms ? s->queued_arms : 1,
					    tx_pin_limit());
	for (unsigned i = 0; i < s->n_arms; i++)
		bytes += (s->arms[i]->queued ? s->depth : 1) * (uint64_t)s->bufsize;
	if (host && bytes > host / 2)
		opt_failx("-m %s: its arms' buffers are %.1f GiB, more than half of this host's "
			  "%.1f GiB of memory", list, bytes / 1073741824.0, host / 1073741824.0);
}

/* -u: the options that are TCP's alone, and -l, which is -u's. */
static void check_datagram_options(struct settings *s, const char *given)
{
	static const char tcp_only[] = "kMSw";

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
	if (!s->rate_bytes_per_sec)
		s->rate_bytes_per_sec = DEFAULT_DGRAM_RATE;
}

/* -B: one CPU, or a comma-separated list of them for -P's streams. */
static void parse_cpu_list(const char *arg, struct settings *s)
{
	char list[256], *rest = list, *tok;

	if (*arg == '\0')
		opt_fail('B', arg, opt_status_text(OPT_EMPTY));
	if (strlen(arg) >= sizeof(list))
		opt_fail('B', arg, "too long a list");
	strcpy(list, arg);
	s->n_cpu_list = 0;
	while ((tok = strsep(&rest, ","))) {
		if (*tok == '\0')
			opt_fail('B', arg, "an empty item in the list");
		if (s->n_cpu_list == MAX_STREAMS)
			opt_failx("-B: more than %d CPUs", MAX_STREAMS);
		s->cpu_list[s->n_cpu_list++] = opt_long('B', tok, 0, CPU_MAX_INDEX);
	}
	s->cpu = s->cpu_list[0];
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
	long depth = s->mode->queued ? s->depth : 1;
	double gib = 1024.0 * 1024 * 1024;
	uint64_t host = (uint64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
	uint64_t bytes = (uint64_t)s->streams * depth * s->bufsize;

	if (!tx_buffers_fit(s->mode, bytes, host))
		opt_failx("-q %ld x -b %ld x -P %ld is %.1f GiB of buffers, more than half of "
			  "this host's %.1f GiB of memory", depth, s->bufsize, s->streams,
			  bytes / gib, host / gib);
}

/* What one option means for another, once all are read. */
static void check_options(struct settings *s, const char *given, const char *mode_arg, int argc,
			  char **argv)
{
	int given_S = strchr(given, 'S') != NULL, given_w = strchr(given, 'w') != NULL;

	if (given_w && !given_S)
		opt_failx("-w needs -S (write() replaces send() in the read/send mode)");
	if (s->calibrate_only)
		check_calibrate_alone(given, argc, argv);
	meter_check_options(given, s->measure_cpu, s->calibrate_only, s->n_cpus);
	check_datagram_options(s, given);
	/* The first row of each kind is its default: sendfile, or -u's sendmsg. */
	if (!mode_arg || !strchr(mode_arg, ','))
		s->mode = find_mode(mode_arg ? mode_arg : s->datagram ? "sendmsg" : "sendfile",
				    s->datagram);
	parse_arms(s, given, mode_arg);
	if (given_S) {
		const struct send_mode *m = find_mode(given_w ? "write" : "send", 0);

		if (mode_arg && s->mode != m)
			opt_failx("-m %s conflicts with -S%s", mode_arg, given_w ? " -w" : "");
		s->mode = m;
	}
	if (s->n_cpu_list > 1 && s->streams == 1)
		opt_failx("-B %d,...: a list of CPUs is for -P streams, one CPU each in turn",
			  s->cpu_list[0]);
	/* A corked partial segment waits up to 200 ms, and the zero-copy buffer under it too. */
	if (s->cork && s->mode->counts_copies)
		opt_failx("-k conflicts with -m %s: TCP_CORK holds each chunk's last partial segment "
			  "for up to 200 ms, and the buffer under it until then", s->mode->name);
	if (s->rate_bytes_per_sec && s->rate_bytes_per_sec / s->streams < MIN_STREAM_RATE)
		opt_failx("-R %llu over -P %ld streams is %llu bytes/sec each: a stream needs at "
			  "least %d", (unsigned long long)s->rate_bytes_per_sec, s->streams,
			  (unsigned long long)s->rate_bytes_per_sec / s->streams, MIN_STREAM_RATE);
	s->stream_rate = s->rate_bytes_per_sec / s->streams;
	/* UDP is paced by zcc itself (tx/udp.c), TCP by the kernel. */
	if (!s->datagram)
		s->sockopts.pacing_bytes_per_sec = s->stream_rate;
	if (!strchr(given, 'q') && s->n_arms == 1)
		s->depth = tx_default_depth(s->bufsize, s->streams, tx_pin_limit());
	if (strchr(given, 'q') && !s->mode->queued)
		opt_failx("-q needs -m %s (mode %s sends one %s at a time)",
			  tx_mode_names(s->datagram, 1), s->mode->name,
			  s->datagram ? "batch" : "chunk");
	if (s->n_arms == 1)
		check_buffer_memory(s);
	if (s->calibrate_only)
		return;
	if (!s->server)
		opt_failx("-s server is required");
	if (optind == argc)
		opt_failx("no files to send");
	s->paths = argv + optind;
	s->n_paths = argc - optind;
}

static void parse_options(int argc, char **argv, struct settings *s)
{
	const char *mode_arg = NULL;
	char given[64] = "";
	int c;

	*s = (struct settings){ .bufsize = NET_DEFAULT_BUFSIZE, .cpu = -1, .loops = 1,
				.port = NET_DEFAULT_PORT, .tare_ms = METER_DEFAULT_TARE_MS,
				.streams = 1, .close_wait_secs = DEFAULT_CLOSE_WAIT_SECS,
				.dgram_bytes = DEFAULT_DGRAM_BYTES, .n_arms = 1,
				.slot_ms = ALT_DEFAULT_SLOT_MS };
	opt_init(usage);
	while ((c = getopt(argc, argv, ":A:b:B:cCdhi:Jkl:M:m:n:N:o:p:P:q:R:s:ST:uwW:")) != -1) {
		opt_given(given, sizeof(given), c);
		switch (c) {
		case 'A':
			s->slot_ms = opt_long(c, optarg, 20, 60000);
			break;
		case 'b':
			s->bufsize = opt_size(c, optarg, 1, 1L << 30);
			break;
		case 'B':
			parse_cpu_list(optarg, s);
			break;
		case 'c':
			s->measure_cpu = 1;
			break;
		case 'C':
			s->calibrate_only = 1;
			break;
		case 'N':
			s->n_cpus = opt_long(c, optarg, 1, CPU_MAX_INDEX + 1);
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
		case 'k':
			s->cork = 1;
			break;
		case 'l':
			s->dgram_bytes = opt_long(c, optarg, DGRAM_HEADER_BYTES + 1, DGRAM_MAX_BYTES);
			break;
		case 'm':
			mode_arg = optarg;
			break;
		case 'M':
			s->sockopts.mss = opt_long(c, optarg, NET_MIN_MSS, NET_MAX_MSS);
			break;
		case 'n':
			s->loops = opt_long(c, optarg, 1, UINT32_MAX);
			break;
		case 'o':
			s->sockopts.sndbuf_bytes = opt_size(c, optarg, 1, NET_MAX_BUFSIZE);
			break;
		case 'p':
			s->port = opt_long(c, optarg, 1, 65535);
			break;
		case 'P':
			s->streams = opt_long(c, optarg, 1, MAX_STREAMS);
			break;
		case 'q':
			s->depth = opt_long(c, optarg, 1, TX_MAX_DEPTH);
			break;
		case 'R':
			s->rate_bytes_per_sec = opt_size(c, optarg, MIN_STREAM_RATE, LONG_MAX);
			break;
		case 's':
			if (*optarg == '\0')
				opt_fail(c, optarg, opt_status_text(OPT_EMPTY));
			s->server = optarg;
			break;
		case 'u':
			s->datagram = 1;
			break;
		case 'S':
		case 'w':
			/* In given: check_options() sets the mode from them. */
			break;
		case 'T':
			s->tare_ms = opt_long(c, optarg, 0, 60000);
			break;
		case 'W':
			s->close_wait_secs = opt_long(c, optarg, 1, 3600);
			break;
		default:
			opt_fail_getopt(c, optopt);
		}
	}
	check_options(s, given, mode_arg, argc, argv);
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

void meter_at(struct meter *m, enum meter_moment when)
{
	if (meter_mark(m, when) < 0 && when == METER_FIRST_BYTE)
		meter_die(m);
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
	meter_start_or_exit(m, s->n_cpus, s->debug);
	return m;
}

/* -R: the share of the rate asked that the summary's bytes reached over its time. */
static double rate_reached_pct(const struct summary *sum)
{
	return sum->ns ? 100.0 * sum->bytes * 1e9 / sum->ns / sum->rate : 0;
}

static int below_rate(const struct summary *sum)
{
	return sum->rate && rate_reached_pct(sum) < RATE_REACHED_PCT;
}

/*
 * A summary line: what was sent, with -c ", cpu LOAD%, DEMAND us/KB, kernel
 * LOAD%", the CPU time zcc took, and in the zero-copy modes how many sends the
 * kernel copied. With -P, each stream's line and the total's have a prefix.
 */
static void print_summary(const char *prefix, const struct send_mode *mode,
			  const struct summary *sum)
{
	printf("%ssent %llu bytes in %.3f s, %llu kbytes/sec, mode %s", prefix,
	       (unsigned long long)sum->bytes, timing_secs(sum->ns),
	       (unsigned long long)timing_kbytes_per_sec(sum->bytes, sum->ns), mode->name);
	if (mode->datagram)
		printf(", %llu datagrams in %llu calls", (unsigned long long)sum->datagrams,
		       (unsigned long long)sum->calls);
	if (mode->datagram && sum->confirmed)
		printf(", %llu received", (unsigned long long)sum->received);
	if (sum->rate)
		printf(", rate %.0f kbytes/sec asked", sum->rate / 1024.0);
	if (below_rate(sum))
		printf(", %.0f%% reached (short of it)", floor(rate_reached_pct(sum)));
	if (sum->metered)
		meter_print(stdout, &sum->fig);
	printf(", cpu %.2fu %.2fs", sum->user_secs, sum->sys_secs);
	if (mode->counts_copies)
		printf(", zerocopy %llu of %llu sends (kernel copied %llu)",
		       (unsigned long long)(sum->zc_sends - sum->zc_copied),
		       (unsigned long long)sum->zc_sends, (unsigned long long)sum->zc_copied);
	if (sum->metered && sum->linked)
		link_print(stdout, &sum->link, &sum->link_fig);
	printf("\n");
}

/* -J: a summary's figures, as members of the object open now. */
static void json_summary(struct json *j, const struct send_mode *mode, const struct summary *sum)
{
	json_uint(j, "bytes", sum->bytes);
	json_double(j, "seconds", timing_secs(sum->ns), 6);
	json_uint(j, "kbytes_per_sec", timing_kbytes_per_sec(sum->bytes, sum->ns));
	json_bool(j, "confirmed", sum->confirmed);
	json_double(j, "user_seconds", sum->user_secs, 2);
	json_double(j, "system_seconds", sum->sys_secs, 2);
	if (sum->rate) {
		json_double(j, "rate_reached_pct", rate_reached_pct(sum), 1);
		json_bool(j, "below_rate", below_rate(sum));
	} else {
		json_null(j, "rate_reached_pct");
		json_null(j, "below_rate");
	}
	if (mode->datagram) {
		json_uint(j, "datagrams", sum->datagrams);
		json_uint(j, "calls", sum->calls);
		if (sum->confirmed)
			json_uint(j, "received_datagrams", sum->received);
		else
			json_null(j, "received_datagrams");
	}
	if (mode->counts_copies) {
		json_object(j, "zerocopy");
		json_uint(j, "sends", sum->zc_sends);
		json_uint(j, "zerocopy", sum->zc_sends - sum->zc_copied);
		json_uint(j, "copied", sum->zc_copied);
		json_close(j);
	}
}

static void json_settings(struct json *j, const struct settings *s, size_t n_files)
{
	json_object(j, "settings");
	json_string(j, "server", s->server);
	json_int(j, "port", s->port);
	json_string(j, "protocol", s->datagram ? "udp" : "tcp");
	json_string(j, "mode", s->mode->name);
	if (s->datagram)
		json_int(j, "datagram_bytes", s->dgram_bytes);
	else
		json_null(j, "datagram_bytes");
	if (s->mode->chunked)
		json_int(j, "bufsize", s->bufsize);
	else
		json_null(j, "bufsize");
	if (s->mode->queued)
		json_int(j, "depth", s->depth);
	else
		json_null(j, "depth");
	json_uint(j, "loops", s->loops);
	json_uint(j, "files", n_files);
	json_int(j, "streams", s->streams);
	if (s->rate_bytes_per_sec)
		json_uint(j, "rate_bytes_per_sec", s->rate_bytes_per_sec);
	else
		json_null(j, "rate_bytes_per_sec");
	json_bool(j, "cork", s->cork);
	if (s->n_cpu_list > 1) {
		json_array(j, "cpu");
		for (int i = 0; i < s->n_cpu_list; i++)
			json_int(j, NULL, s->cpu_list[i]);
		json_close(j);
	} else if (s->cpu >= 0) {
		json_int(j, "cpu", s->cpu);
	} else {
		json_null(j, "cpu");
	}
	json_int(j, "rcvbuf", s->sockopts.rcvbuf_bytes);
	json_int(j, "sndbuf", s->sockopts.sndbuf_bytes);
	if (s->sockopts.mss)
		json_int(j, "mss", s->sockopts.mss);
	else
		json_null(j, "mss");
	json_int(j, "close_wait_secs", s->close_wait_secs);
	json_close(j);
}

/*
 * -J: the run as one JSON object on a line: the settings, the host, with -P
 * every stream's figures, the result (the total with -P), and the meter's.
 */
static void print_summary_json(const struct settings *s, const struct meter *m,
			       const struct alternation *alt, size_t n_files,
			       const struct summary *streams, long failed,
			       const struct summary *sum)
{
	struct json j;

	json_begin(&j, stdout);
	json_string(&j, "program", "zcc");
	json_host(&j);
	system_json(&j);
	json_settings(&j, s, n_files);
	if (s->streams > 1) {
		json_array(&j, "streams");
		for (long i = 0; i < s->streams; i++) {
			json_object(&j, NULL);
			json_summary(&j, s->mode, &streams[i]);
			json_bool(&j, "failed", streams[i].failed);
			json_close(&j);
		}
		json_close(&j);
	}
	json_object(&j, "result");
	json_summary(&j, s->mode, sum);
	if (s->streams > 1)
		json_int(&j, "failed_streams", failed);
	json_close(&j);
	if (sum->metered)
		meter_json(&j, m, &sum->fig, -1);
	if (sum->linked)
		link_json(&j, &sum->link, &sum->link_fig);
	else
		json_null(&j, "link");
	if (alt) {
		json_object(&j, "turns");
		alt_json(alt, &j);
		json_close(&j);
	}
	json_end(&j);
}

void sender_setup(struct sender *snd, const struct settings *s)
{
	tx_sender_setup(snd, s->mode, s->bufsize, s->depth, s->close_wait_secs,
			s->datagram ? s->dgram_bytes : 0, s->datagram ? s->stream_rate : 0);
}

static void debug_files(const struct settings *s, const struct tx_file *files, size_t n)
{
	uint64_t per_loop = 0, datagrams = 0;

	for (size_t i = 0; i < n; i++) {
		per_loop += files[i].size;
		datagrams += dgram_file_datagrams(files[i].size, s->dgram_bytes);
	}
	/* In all: the stream's bytes, or the datagrams' payload, each with its header. */
	fprintf(stderr, "zcc: %zu files, %llu bytes of file data a loop, %llu bytes in all, mode %s",
		n, (unsigned long long)per_loop,
		(unsigned long long)(s->datagram
					     ? s->loops * (per_loop + datagrams * DGRAM_HEADER_BYTES)
					     : proto_stream_bytes(s->loops, n, per_loop)),
		s->mode->name);
	if (s->datagram)
		fprintf(stderr, ", %ld-byte datagrams, %llu of them", s->dgram_bytes,
			(unsigned long long)(s->loops * datagrams));
	if (s->mode->queued)
		fprintf(stderr, ", %ld %s in flight", s->depth, s->datagram ? "batches" : "chunks");
	if (s->streams > 1)
		fprintf(stderr, ", %ld streams", s->streams);
	fprintf(stderr, "\n");
}

/* run_stream(), or with alt its arms in turn (snd: arms[0], which connects). */
static void stream(const struct settings *s, struct sender *snd, struct alternation *alt,
		   const struct tx_file *files, size_t n_files, const struct start_line *line,
		   struct meter *m, struct summary *sum)
{
	int alone = line->ready < 0;
	struct rusage ru0, ru1;
	uint64_t start, end;
	int unconfirmed, linked, counted = 0;
	struct link lk;
	struct link_sample la;
	struct link_figures lf;

	snd->sock = net_connect(s->server, s->port, &s->sockopts, s->debug);
	/* The link is counted for -c's line and -J; with -P, by the parent, from the name here. */
	linked = (s->measure_cpu || s->json) && link_find(&lk, snd->sock) == 0;
	if (linked)
		sum->link = lk;
	net_set_send_timeout(snd->sock, snd->wait_secs);
	if (s->cork)
		net_set_cork(snd->sock);
	if (alt)
		alt_connected(alt);
	else
		tx_sender_connected(snd);
	if (!alone)
		wait_for_the_others(line);
	else if (m)
		meter_at(m, METER_FIRST_BYTE);
	if (alone && linked)
		link_take(&lk, &la);
	getrusage(RUSAGE_SELF, &ru0);
	start = timing_now_ns();
	if (alt) {
		alt_start(alt, m);
		tx_send_stream_turns(snd, alt_turn, alt, s->loops, files, n_files, s->debug);
		snd = alt->current;
	} else {
		tx_send_stream(snd, s->loops, files, n_files, s->debug);
	}
	end = timing_now_ns();
	if (!alone)
		tell_the_parent(line);
	else if (m)
		meter_at(m, METER_LAST_BYTE);
	unconfirmed = tx_await_close(snd, s->close_wait_secs);
	if (!unconfirmed) {
		end = timing_now_ns();
		if (m && alone)
			meter_at(m, METER_CLOSED);
	}
	if (alone && linked)
		counted = link_end(&lk, &la, &lf);
	if (alt)
		alt_finish(alt, &snd->zc_sends, &snd->zc_copied);
	getrusage(RUSAGE_SELF, &ru1);
	*sum = (struct summary){ .bytes = snd->sent, .ns = end - start, .end_ns = end,
				 .confirmed = !unconfirmed,
				 .user_secs = timing_timeval_secs(ru1.ru_utime) - timing_timeval_secs(ru0.ru_utime),
				 .sys_secs = timing_timeval_secs(ru1.ru_stime) - timing_timeval_secs(ru0.ru_stime),
				 .zc_sends = snd->zc_sends, .zc_copied = snd->zc_copied,
				 .datagrams = snd->datagrams, .calls = snd->calls,
				 .received = snd->acked_datagrams, .rate = s->stream_rate };
	if (linked)
		sum->link = lk;
	if (counted) {
		sum->linked = 1;
		sum->link_fig = lf;
	}
	if (alt)
		alt_close(alt);
	else
		tx_sender_close(snd);
}

void run_stream(const struct settings *s, struct sender *snd, const struct tx_file *files,
		size_t n_files, const struct start_line *line, struct meter *m,
		struct summary *sum)
{
	stream(s, snd, NULL, files, n_files, line, m, sum);
}

void run_stream_alternating(const struct settings *s, struct alternation *alt,
			    const struct tx_file *files, size_t n_files, struct meter *m,
			    struct summary *sum)
{
	struct start_line alone = { -1, -1 };

	stream(s, &alt->arms[0], alt, files, n_files, &alone, m, sum);
}

/* Each stream's line, then the total's. */
static void print_streams(const struct settings *s, const struct summary *streams,
			  const struct summary *total)
{
	char prefix[40];

	for (long i = 0; i < s->streams; i++) {
		if (streams[i].failed)
			continue;
		snprintf(prefix, sizeof(prefix), "stream %ld: ", i + 1);
		print_summary(prefix, s->mode, &streams[i]);
	}
	snprintf(prefix, sizeof(prefix), "all %ld streams: ", s->streams);
	print_summary(prefix, s->mode, total);
}

/* The summary, then whatever went wrong, each a line and exit 1. */
static void report(const struct settings *s, struct meter *m, const struct alternation *alt,
		   size_t n_files, const struct summary *streams, long failed, struct summary *sum)
{
	int meter_ok = !m || !m->spoiled;

	sum->metered = m && meter_ok && !failed;
	if (sum->metered)
		meter_figures(m, sum->confirmed, sum->bytes, &sum->fig);
	if (s->json)
		print_summary_json(s, m, alt, n_files, streams, failed, sum);
	else if (s->streams > 1)
		print_streams(s, streams, sum);
	else
		print_summary("", s->mode, sum);
	if (alt && !s->json)
		alt_print(alt, stdout);
	if (alt)
		alt_warn(alt);
	if (failed)
		errx(1, "%ld of %ld streams failed: the total above counts the others", failed,
		     s->streams);
	if (!sum->confirmed && s->datagram)
		errx(1, "zcs did not answer the end of the datagrams within %ld s of the last one: "
			"the time above runs to the last datagram sent, unconfirmed",
		     s->close_wait_secs);
	if (!sum->confirmed)
		errx(1, "zcs did not close the connection within %ld s of the last byte: the time "
			"above runs to the last byte sent, unconfirmed", s->close_wait_secs);
	if (!meter_ok)
		errx(1, "%s during the transfer: no load figure", meter_error(m));
	if (m && m->note[0])
		warnx("note: %s", m->note);
	if (s->datagram && dgram_lossy(sum->datagrams, sum->received))
		warnx("note: zcs received %llu of %llu datagrams, %.1f%% lost: more than %.0f%%, and "
		      "the load is not comparable with that of runs that lost less",
		      (unsigned long long)sum->received, (unsigned long long)sum->datagrams,
		      dgram_loss_pct(sum->datagrams, sum->received), DGRAM_LOSS_PCT);
	if (below_rate(sum))
		warnx("note: mode %s reached %.1f%% of the rate asked (-R %llu): it could not run at "
		      "that rate here, and its load is not comparable with that of runs that did",
		      s->mode->name, rate_reached_pct(sum), (unsigned long long)s->rate_bytes_per_sec);
}

int main(int argc, char **argv)
{
	struct settings s;
	struct tx_file *files;
	struct summary sum, streams[MAX_STREAMS];
	struct sender snd;
	struct meter *m = NULL;
	size_t n_files;
	long failed = 0;
	struct start_line alone = { -1, -1 };
	struct sender *sending = &snd;
	static struct alternation alt;

	parse_options(argc, argv, &s);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (s.calibrate_only)
		return meter_calibrate(s.n_cpus, s.debug);
	/* A vanished zcs must give an error with a byte count, not a silent SIGPIPE death. */
	signal(SIGPIPE, SIG_IGN);
	catch_stop_signals();
	files = calloc(s.n_paths, sizeof(*files));
	if (!files)
		err(1, "calloc");
	n_files = scan_files(&s, files);
	if (n_files == 0)
		errx(1, "no readable regular files to send");
	if (s.debug)
		debug_files(&s, files, n_files);
	/* A mode the kernel cannot do fails here, before the soakers start (-P: in each child). */
	if (s.n_arms > 1) {
		alt_setup(&alt, s.arms, s.n_arms, s.bufsize, s.depth, s.close_wait_secs, s.slot_ms,
			  s.debug);
		stop_signals_count(&alt.current);
	} else if (s.streams == 1) {
		sender_setup(&snd, &s);
		stop_signals_count(&sending);
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
	else if (s.n_arms > 1)
		run_stream_alternating(&s, &alt, files, n_files, m, &sum);
	else
		run_stream(&s, &snd, files, n_files, &alone, m, &sum);
	report(&s, m, s.n_arms > 1 ? &alt : NULL, n_files, streams, failed, &sum);
	free(files);
	return 0;
}
