/*
 * zcc: the zc sender. Sends a set of files to zcs, n times over, with
 * sendfile(), read()+send() or read()+write(), and reports what it sent.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cpu.h"
#include "lib/net.h"
#include "lib/opt.h"
#include "lib/proto.h"
#include "lib/soak.h"
#include "lib/timing.h"

/* -W: how long zcs may take, in all, to close after the last byte, by default. */
#define DEFAULT_CLOSE_WAIT_SECS 60

/* -T: how long the soakers run on the idle system before the transfer, by default. */
#define DEFAULT_TARE_MS 1000
/* The tare and the calibration file may differ this much before zcc says so. */
#define TARE_DRIFT_WARN 0.02
/* Below this share of their CPUs in the tare, the system was not idle. */
#define TARE_BUSY_NOTE 0.98

enum mode { MODE_SENDFILE, MODE_SEND, MODE_WRITE };

static const char *const mode_names[] = {
	[MODE_SENDFILE] = "sendfile",
	[MODE_SEND] = "send",
	[MODE_WRITE] = "write",
};

struct settings {
	int debug;
	long bufsize;
	int cpu;
	struct net_bufsizes bufs;
	long loops;
	int port;
	enum mode mode;
	int cork;
	int measure_cpu;
	long tare_ms;
	long close_wait_secs;
	int calibrate;
	int n_cpus; /* 0: every CPU in the affinity mask */
	const char *server;
	char **paths;
	int n_paths;
};

struct file_entry {
	const char *path;
	uint64_t size;
};

/* The connection and what has gone down it so far. */
struct sender {
	int sock;
	enum mode mode;
	uint64_t sent;
	char *buf;
	size_t bufsize;
};

void usage(FILE *to)
{
	fprintf(to, "usage: zcc [-cCdhkSw] [-b bufsize] [-B cpu] [-i rcvbuf] [-o sndbuf] [-n loops]\n"
		    "           [-N cpus] [-p port] [-m mode] [-T msecs] [-W secs] -s server file...\n");
}

static enum mode parse_mode(const char *name)
{
	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (strcmp(name, mode_names[i]) == 0)
			return i;
	if (strcmp(name, "splice") == 0 || strcmp(name, "zerocopy") == 0)
		opt_fail('m', name, "not supported yet");
	opt_fail('m', name, "unknown mode (sendfile, send or write)");
}

static void parse_options(int argc, char **argv, struct settings *s)
{
	const char *mode_arg = NULL;
	int opt_S = 0, opt_w = 0, opt_T = 0, c;

	*s = (struct settings){ .bufsize = NET_DEFAULT_BUFSIZE, .cpu = -1, .loops = 1,
				.port = NET_DEFAULT_PORT, .tare_ms = DEFAULT_TARE_MS,
				.close_wait_secs = DEFAULT_CLOSE_WAIT_SECS };
	while ((c = getopt(argc, argv, ":b:B:cCdhi:km:n:N:o:p:s:ST:wW:")) != -1) {
		switch (c) {
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
			s->calibrate = 1;
			break;
		case 'N':
			s->n_cpus = opt_long(c, optarg, 1, CPU_MAX_INDEX + 1);
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
		case 'k':
			s->cork = 1;
			break;
		case 'm':
			mode_arg = optarg;
			s->mode = parse_mode(optarg);
			break;
		case 'n':
			s->loops = opt_long(c, optarg, 1, UINT32_MAX);
			break;
		case 'o':
			s->bufs.sndbuf_bytes = opt_size(c, optarg, 1, NET_MAX_BUFSIZE);
			break;
		case 'p':
			s->port = opt_long(c, optarg, 1, 65535);
			break;
		case 's':
			if (*optarg == '\0')
				opt_fail(c, optarg, opt_status_text(OPT_EMPTY));
			s->server = optarg;
			break;
		case 'S':
			opt_S = 1;
			break;
		case 'T':
			opt_T = 1;
			s->tare_ms = opt_long(c, optarg, 0, 60000);
			break;
		case 'w':
			opt_w = 1;
			break;
		case 'W':
			s->close_wait_secs = opt_long(c, optarg, 1, 3600);
			break;
		default:
			opt_fail_getopt(c, optopt);
		}
	}
	if (opt_w && !opt_S)
		opt_failx("-w needs -S (write() replaces send() in the read/send mode)");
	if (opt_T && !s->measure_cpu)
		opt_failx("-T needs -c (it sets how long the meter takes its idle reference)");
	if (opt_S) {
		enum mode m = opt_w ? MODE_WRITE : MODE_SEND;

		if (mode_arg && s->mode != m)
			opt_failx("-m %s conflicts with -S%s", mode_arg, opt_w ? " -w" : "");
		s->mode = m;
	}
	if (s->calibrate)
		return;
	if (!s->server)
		opt_failx("-s server is required");
	if (optind == argc)
		opt_failx("no files to send");
	s->paths = argv + optind;
	s->n_paths = argc - optind;
}

/*
 * The files' open flags: a FIFO or a device must never block zcc or change
 * state by being opened, should one take a regular file's place.
 */
#define FILE_OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY)

/*
 * Keep the readable regular files, warning about the rest; refuse any of 4 GiB
 * or more. The type is checked before the file is opened: opening a FIFO
 * blocks until a writer comes, and opening a device can act on it.
 */
static size_t scan_files(const struct settings *s, struct file_entry *files)
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
		fd = open(path, FILE_OPEN_FLAGS);
		if (fd < 0) {
			warn("skipping %s", path);
			continue;
		}
		close(fd);
		if ((uint64_t)st.st_size > UINT32_MAX)
			errx(1, "%s: %lld bytes is too large: the protocol's lengths stop below 4 GiB",
			     path, (long long)st.st_size);
		files[n++] = (struct file_entry){ .path = path, .size = st.st_size };
	}
	return n;
}

/* A failed write to the socket ends the run, saying how far it got. */
static void __attribute__((noreturn)) die_sending(const struct sender *snd, const char *what)
{
	/* A socket the peer reset before shutdown() is no longer connected: the same reset. */
	if (errno == ENOTCONN)
		errno = ECONNRESET;
	if (errno == EPIPE || errno == ECONNRESET)
		errx(1, "connection %s after %llu bytes: %s",
		     errno == ECONNRESET ? "reset" : "closed", (unsigned long long)snd->sent,
		     strerror(errno));
	err(1, "%s after %llu bytes", what, (unsigned long long)snd->sent);
}

static void send_bytes(struct sender *snd, const void *buf, size_t len)
{
	enum proto_io io = snd->mode == MODE_WRITE ? PROTO_IO_WRITE : PROTO_IO_SEND;
	size_t done;
	int rc = proto_write_full(snd->sock, io, buf, len, &done);

	snd->sent += done;
	if (rc < 0)
		die_sending(snd, snd->mode == MODE_WRITE ? "write" : "send");
}

static void send_u32(struct sender *snd, uint32_t v)
{
	unsigned char b[PROTO_U32_BYTES];

	proto_put_u32(b, v);
	send_bytes(snd, b, sizeof(b));
}

static void send_file_sendfile(struct sender *snd, int fd, const struct file_entry *f)
{
	off_t off = 0;

	while ((uint64_t)off < f->size) {
		ssize_t n = sendfile(snd->sock, fd, &off, f->size - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die_sending(snd, "sendfile");
		}
		if (n == 0)
			errx(1, "%s: shrank while being sent (%lld of %llu bytes)", f->path,
			     (long long)off, (unsigned long long)f->size);
		snd->sent += n;
	}
}

static void send_file_copy(struct sender *snd, int fd, const struct file_entry *f)
{
	uint64_t left = f->size;

	while (left > 0) {
		ssize_t n = read(fd, snd->buf, left < snd->bufsize ? left : snd->bufsize);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err(1, "read %s", f->path);
		}
		if (n == 0)
			errx(1, "%s: shrank while being sent (%llu of %llu bytes)", f->path,
			     (unsigned long long)(f->size - left), (unsigned long long)f->size);
		send_bytes(snd, snd->buf, n);
		left -= n;
	}
}

static void send_file(struct sender *snd, const struct file_entry *f)
{
	struct file_entry now = *f;
	struct stat st;
	int fd = open(f->path, FILE_OPEN_FLAGS);

	if (fd < 0)
		err(1, "open %s", f->path);
	if (fstat(fd, &st) < 0)
		err(1, "fstat %s", f->path);
	if (!S_ISREG(st.st_mode))
		errx(1, "%s: no longer a regular file", f->path);
	if ((uint64_t)st.st_size > UINT32_MAX)
		errx(1, "%s: grew to %lld bytes, too large for the protocol", f->path,
		     (long long)st.st_size);
	now.size = st.st_size;
	send_u32(snd, now.size);
	if (snd->mode == MODE_SENDFILE)
		send_file_sendfile(snd, fd, &now);
	else
		send_file_copy(snd, fd, &now);
	if (fstat(fd, &st) < 0)
		err(1, "fstat %s", f->path);
	if ((uint64_t)st.st_size != now.size)
		errx(1, "%s: changed size while being sent (%llu bytes, now %lld)", f->path,
		     (unsigned long long)now.size, (long long)st.st_size);
	close(fd);
}

/*
 * Half-close and wait for zcs to close too, so the time counts until the
 * receiver has read the last byte rather than until it left this host's
 * buffers. The wait has one deadline, whatever the peer sends meanwhile;
 * returns 0 if zcs closed in time, 1 if it did not.
 */
static int await_close(struct sender *snd, long wait_secs)
{
	struct pollfd pfd = { .fd = snd->sock, .events = POLLIN };
	uint64_t deadline;
	char sink[256];

	if (shutdown(snd->sock, SHUT_WR) < 0)
		die_sending(snd, "shutdown");
	deadline = timing_now_ns() + wait_secs * NSEC_PER_SEC;
	for (;;) {
		uint64_t now = timing_now_ns();
		int rc;
		ssize_t n;

		if (now >= deadline)
			return 1;
		rc = poll(&pfd, 1, (deadline - now + 999999) / 1000000);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			err(1, "poll");
		if (rc == 0)
			continue;
		n = read(snd->sock, sink, sizeof(sink));
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			die_sending(snd, "read");
	}
}

static void send_all_loops(struct sender *snd, const struct settings *s,
			   const struct file_entry *files, size_t n_files)
{
	send_u32(snd, s->loops);
	for (long loop = 0; loop < s->loops; loop++) {
		send_u32(snd, n_files);
		for (size_t i = 0; i < n_files; i++) {
			if (s->debug > 1)
				fprintf(stderr, "zcc: loop %ld: %s, %llu bytes\n", loop + 1,
					files[i].path, (unsigned long long)files[i].size);
			send_file(snd, &files[i]);
		}
	}
}

/*
 * -c: the soakers, their idle reference, and the samples that bound the
 * transfer. The reference is the tare when there is one, else the file.
 */
struct cpu_meter {
	struct soak soak;
	struct soak_counts calibration;	/* ./counts_per_sec */
	int tared;
	double tare_rate;	/* the soakers' rate before the transfer */
	double idle_rate;	/* and the rate they would have had with all their CPUs */
	double tare_kernel;	/* /proc/stat's busy share before the transfer */
	char note[200];		/* said after the summary */
	struct soak_sample before, after;
};

static struct cpu_meter meter;

static void stop_soakers(void)
{
	soak_close(&meter.soak);
}

/* -dd: each soaker's share of its CPU and its speed over a window. */
static void debug_per_cpu(const char *window, const struct soak_sample *a,
			 const struct soak_sample *b)
{
	for (int i = 0; i < meter.soak.n_cpus; i++)
		fprintf(stderr,
			"zcc: %s: CPU %d: the soaker had %.1f%% of it, %.0f loops a second of it\n",
			window, meter.soak.cpus[i], soak_cpu_share_one(a, b, i) * 100,
			soak_idle_rate_one(a, b, i));
}

static void __attribute__((noreturn)) meter_failed(void)
{
	soak_close(&meter.soak);
	errx(1, "%s", meter.soak.err);
}

/* Open the meter on the CPUs -N names, or fail as cyclesoak would. */
static void meter_open(const struct settings *s)
{
	int rc = soak_open(&meter.soak, s->n_cpus, s->debug);

	if (rc == SOAK_TOO_MANY_CPUS)
		opt_failx("-N %d: %s", s->n_cpus, meter.soak.err);
	if (rc < 0)
		errx(1, "%s", meter.soak.err);
}

/* -C: calibrate exactly as cyclesoak -C does, into the same file. */
static int calibrate(const struct settings *s)
{
	static volatile sig_atomic_t never;

	meter_open(s);
	if (s->n_cpus == 0)
		soak_announce(&meter.soak);
	if (soak_calibrate(&meter.soak, 1000, &never) < 0)
		errx(1, "%s", meter.soak.err);
	return 0;
}

/*
 * The tare: the soakers alone on the system, just before the transfer. What
 * they lose to the transfer is measured against it, so neither the
 * calibration's drift since it was made nor a steady load already running
 * counts as the transfer's.
 */
static void meter_tare(const struct settings *s)
{
	struct soak_sample a, b;
	struct timespec ts = { .tv_sec = s->tare_ms / 1000,
			       .tv_nsec = s->tare_ms % 1000 * 1000000 };
	int n = meter.soak.n_cpus;
	double drift;

	if (soak_sample_init(&meter.soak, &a) < 0 || soak_sample_init(&meter.soak, &b) < 0)
		err(1, "allocating samples");
	if (soak_take(&meter.soak, &a) < 0)
		meter_failed();
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	if (soak_take(&meter.soak, &b) < 0)
		meter_failed();
	meter.tared = 1;
	meter.tare_rate = soak_rate(&a, &b, n);
	meter.idle_rate = soak_idle_rate(&a, &b, n);
	meter.tare_kernel = soak_kernel_load(&a, &b, n);
	if (s->debug > 1)
		debug_per_cpu("tare", &a, &b);
	drift = meter.idle_rate / meter.calibration.per_sec - 1;
	if (s->debug)
		fprintf(stderr, "zcc: tare: %.0f loops/sec, %.0f with all their CPUs "
				"(%s %+.1f%%), kernel busy %.1f%%\n",
			meter.tare_rate, meter.idle_rate, SOAK_COUNTS_FILE, drift * 100,
			meter.tare_kernel * 100);
	if (fabs(drift) > TARE_DRIFT_WARN)
		warnx("warning: the tare (%.0f loops/sec) is %+.1f%% off %s (%.0f): the "
		      "calibration has drifted; the load is measured against the tare",
		      meter.idle_rate, drift * 100, SOAK_COUNTS_FILE, meter.calibration.per_sec);
	if (meter.tare_rate < TARE_BUSY_NOTE * meter.idle_rate)
		warnx("note: the system was %.1f%% busy before the transfer; the load shown is "
		      "what the transfer added", (1 - meter.tare_rate / meter.idle_rate) * 100);
	soak_sample_free(&a);
	soak_sample_free(&b);
}

/* Read the calibration, start the soakers (on every CPU, before zcc is pinned). */
static void meter_start(const struct settings *s)
{
	meter_open(s);
	if (soak_read_counts(SOAK_COUNTS_FILE, meter.soak.n_cpus, &meter.calibration,
			     meter.soak.err, sizeof(meter.soak.err)) < 0)
		errx(1, "%s", meter.soak.err);
	/* Soakers die with zcc (PR_SET_PDEATHSIG); this reaps them on every exit() too. */
	atexit(stop_soakers);
	if (soak_start(&meter.soak) < 0)
		meter_failed();
	if (soak_sample_init(&meter.soak, &meter.before) < 0 ||
	    soak_sample_init(&meter.soak, &meter.after) < 0)
		err(1, "allocating samples");
}

/*
 * ", cpu LOAD%, DEMAND us/KB, kernel LOAD%": the system load the transfer
 * added, the CPU time it stands for (load x CPUs x seconds) per KiB sent,
 * netperf's service demand, and the same load as /proc/stat counted it. With
 * a tare both are the load added to what was running before; without one
 * they are the whole system's.
 */
static void print_cpu_cost(uint64_t bytes)
{
	const struct soak_sample *a = &meter.before, *b = &meter.after;
	int n = meter.soak.n_cpus;
	double run_rate = soak_rate(a, b, n), kernel = soak_kernel_load(a, b, n), load, cpu_us;
	char why[160];
	const char *below;

	if (meter.tared) {
		load = (meter.tare_rate - run_rate) / meter.idle_rate;
		kernel -= meter.tare_kernel;
	} else {
		load = soak_load(run_rate, meter.calibration.per_sec);
	}
	below = soak_below_zero(load, &meter.calibration, why, sizeof(why));
	if (below)
		snprintf(meter.note, sizeof(meter.note), "the load measured, %.1f%%, is %s",
			 load * 100, below);
	cpu_us = load * n * (b->ns - a->ns) / 1000.0;
	printf(", cpu %.1f%%, %.3f us/KB", load * 100, bytes ? cpu_us / (bytes / 1024.0) : 0.0);
	if (isnan(kernel))
		printf(", kernel unknown");
	else
		printf(", kernel %.1f%%", kernel * 100);
}

static double timeval_secs(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct settings s;
	struct file_entry *files;
	struct sender snd = { 0 };
	struct rusage ru0, ru1;
	size_t n_files;
	uint64_t start, ns;
	int meter_ok = 1, unconfirmed;

	parse_options(argc, argv, &s);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (s.calibrate)
		return calibrate(&s);
	/* A vanished zcs must give an error with a byte count, not a silent SIGPIPE death. */
	signal(SIGPIPE, SIG_IGN);
	files = calloc(s.n_paths, sizeof(*files));
	if (!files)
		err(1, "calloc");
	n_files = scan_files(&s, files);
	if (n_files == 0)
		errx(1, "no readable regular files to send");
	snd.mode = s.mode;
	snd.bufsize = s.bufsize;
	if (s.mode != MODE_SENDFILE && posix_memalign((void **)&snd.buf, sysconf(_SC_PAGESIZE),
						      s.bufsize) != 0)
		errx(1, "cannot allocate a %ld-byte buffer", s.bufsize);
	if (s.debug) {
		uint64_t per_loop = 0;

		for (size_t i = 0; i < n_files; i++)
			per_loop += files[i].size;
		fprintf(stderr, "zcc: %zu files, %llu bytes of file data a loop, mode %s\n", n_files,
			(unsigned long long)per_loop, mode_names[s.mode]);
	}
	/* Soakers first: they cover every CPU, whichever one zcc itself is pinned to. */
	if (s.measure_cpu)
		meter_start(&s);
	if (s.cpu >= 0 && cpu_pin(s.cpu) < 0)
		err(1, "-B %d: sched_setaffinity", s.cpu);
	if (s.measure_cpu && s.tare_ms > 0)
		meter_tare(&s);
	snd.sock = net_connect(s.server, s.port, &s.bufs, s.debug);
	if (s.cork)
		net_set_cork(snd.sock);
	if (s.measure_cpu && soak_take(&meter.soak, &meter.before) < 0)
		meter_failed();
	getrusage(RUSAGE_SELF, &ru0);
	start = timing_now_ns();
	send_all_loops(&snd, &s, files, n_files);
	ns = timing_now_ns() - start;
	unconfirmed = await_close(&snd, s.close_wait_secs);
	if (!unconfirmed)
		ns = timing_now_ns() - start;
	getrusage(RUSAGE_SELF, &ru1);
	if (s.measure_cpu)
		meter_ok = soak_take(&meter.soak, &meter.after) == 0;
	printf("sent %llu bytes in %.3f s, %llu kbytes/sec, mode %s",
	       (unsigned long long)snd.sent, timing_secs(ns),
	       (unsigned long long)timing_kbytes_per_sec(snd.sent, ns), mode_names[s.mode]);
	if (s.measure_cpu && meter_ok && s.debug > 1)
		debug_per_cpu("transfer", &meter.before, &meter.after);
	if (s.measure_cpu && meter_ok)
		print_cpu_cost(snd.sent);
	printf(", cpu %.2fu %.2fs\n", timeval_secs(ru1.ru_utime) - timeval_secs(ru0.ru_utime),
	       timeval_secs(ru1.ru_stime) - timeval_secs(ru0.ru_stime));
	if (unconfirmed)
		errx(1, "zcs did not close the connection within %ld s of the last byte: the time "
			"above runs to the last byte sent, unconfirmed", s.close_wait_secs);
	if (!meter_ok)
		errx(1, "%s during the transfer: no load figure", meter.soak.err);
	if (meter.note[0])
		warnx("note: %s", meter.note);
	close(snd.sock);
	free(snd.buf);
	free(files);
	return 0;
}
