/*
 * zcc -P: the streams, a child each (run.c's run), their start together and
 * their stop signals; and what a stop signal ends in a run of one stream too.
 */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cpu.h"
#include "lib/stopsig.h"
#include "lib/timing.h"
#include "client.h"

/*
 * -P's streams, in memory shared with zcc: each stream's arm (one mode,
 * turns of one), so that its count is known however it ends, and its
 * summary.
 */
struct stream_share {
	struct txturns turns;
	struct summary sum;
};

/*
 * What a stop signal, or zcc's exit, must stop: -P's streams and the meter's
 * soakers; and the count so far (the one stream's sender, or the streams').
 * A signal handler takes no arguments: this is what it reaches.
 */
static struct {
	pid_t owner;
	struct sender *const *snd;	/* the sender sending now */
	struct stream_share *streams;
	pid_t pids[MAX_STREAMS];	/* 0 once reaped */
	volatile sig_atomic_t n_pids;
	struct meter *meter;
	struct sysctl_knob *sysctl;
} running;

void stop_signals_count(struct sender *const *snd)
{
	running.snd = snd;
}

void stop_signals_end_meter(struct meter *m)
{
	running.meter = m;
}

void stop_signals_restore(struct sysctl_knob *k)
{
	running.sysctl = k;
}

/* Kill and reap every stream still running, and the soakers; async-signal-safe. */
static void stop_children(void)
{
	if (getpid() != running.owner)
		return;
	if (running.sysctl)
		sysctl_knob_restore(running.sysctl);
	if (running.meter)
		meter_kill(running.meter);
	for (long i = 0; i < running.n_pids; i++)
		if (running.pids[i] > 0)
			kill(running.pids[i], SIGKILL);
	for (long i = 0; i < running.n_pids; i++)
		if (running.pids[i] > 0) {
			while (waitpid(running.pids[i], NULL, 0) < 0 && errno == EINTR)
				;
			running.pids[i] = 0;
		}
}

static uint64_t running_sent(void)
{
	uint64_t sent = running.snd ? (*running.snd)->sent : 0;

	for (long i = 0; i < running.n_pids; i++)
		sent += running.streams[i].turns.arms[0].sent;
	return sent;
}

/* v in decimal, ending at end; returns where it starts. Async-signal-safe. */
static char *decimal(char *end, uint64_t v)
{
	do
		*--end = '0' + v % 10;
	while (v /= 10);
	return end;
}

/*
 * SIGINT, SIGTERM, SIGHUP: stop the streams and the soakers, reap them, say
 * how far the run got, and exit 1. Only async-signal-safe calls.
 */
static void on_stop_signal(int sig)
{
	const char *name = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
	const char *prog = program_invocation_short_name;
	char num[24];
	struct iovec iov[5];
	uint64_t sent;

	stop_children();
	sent = running_sent();
	iov[0] = (struct iovec){ (void *)prog, strlen(prog) };
	iov[1] = (struct iovec){ ": stopped by ", 13 };
	iov[2] = (struct iovec){ (void *)name, strlen(name) };
	iov[3] = (struct iovec){ " after ", 7 };
	iov[4].iov_base = decimal(num + sizeof(num), sent);
	iov[4].iov_len = num + sizeof(num) - (char *)iov[4].iov_base;
	if (writev(STDERR_FILENO, iov, 5) >= 0)
		(void)!write(STDERR_FILENO, " bytes\n", 7);
	_exit(1);
}

/* SIGINT and SIGHUP stay ignored if they were (a background job, nohup). */
void catch_stop_signals(void)
{
	running.owner = getpid();
	atexit(stop_children);
	stopsig_catch(on_stop_signal);
}

/* A child of -P: one stream, which dies with zcc. */
static void __attribute__((noreturn)) stream_child(const struct settings *s, long i,
						   const struct tx_file *files,
						   size_t n_files,
						   const struct start_line *line)
{
	static char line_buf[BUFSIZ], name[64];
	struct stream_share *st = &running.streams[i];
	sigset_t no_signals;

	sigemptyset(&no_signals);

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != running.owner)
		_exit(1);
	/* The stop signals as zcc found them, so that they end the child. */
	stopsig_uncatch(on_stop_signal);
	sigprocmask(SIG_SETMASK, &no_signals, NULL);
	/*
	 * Its messages name the stream, and each goes out in one write(), so
	 * that streams failing at once do not interleave their lines.
	 */
	snprintf(name, sizeof(name), "%s: stream %ld", program_invocation_short_name, i + 1);
	program_invocation_short_name = name;
	setvbuf(stderr, line_buf, _IOLBF, sizeof(line_buf));
	if (s->n_cpu_list > 1 && cpu_pin(s->cpu_list[i % s->n_cpu_list]) < 0)
		err(1, "-B %d: sched_setaffinity", s->cpu_list[i % s->n_cpu_list]);
	stream_setup(&st->turns, s);
	run_stream(s, &st->turns, files, n_files, line, NULL, &st->sum);
	/* Past the atexit handlers: the soakers are the parent's. */
	fflush(NULL);
	_exit(0);
}

/* Read one byte from each stream: ready, or at its last byte; end-of-file if it failed. */
static void hear_from_each(const int *out, long n)
{
	char c;

	for (long i = 0; i < n; i++)
		while (read(out[i], &c, 1) < 0 && errno == EINTR)
			;
}

/* A stream's figures once it is reaped: its summary, or what it sent before failing. */
static void collect_stream(long i, int status, struct summary *sum)
{
	const struct stream_share *st = &running.streams[i];
	const struct sender *snd = &st->turns.arms[0];

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && st->sum.end_ns)
		*sum = st->sum;
	else
		*sum = (struct summary){ .bytes = snd->sent, .failed = 1,
					 .zc_sends = snd->zc_sends, .zc_copied = snd->zc_copied,
					 .datagrams = snd->datagrams, .calls = snd->calls };
}

long run_parallel(const struct settings *s, struct meter *m, const struct tx_file *files,
		  size_t n_files, struct summary *streams, struct summary *total)
{
	int go[2], out[MAX_STREAMS];
	char release[MAX_STREAMS] = { 0 };
	sigset_t stops;
	long failed = 0;
	uint64_t start, end = 0;
	struct link link = { .ifname = "" };
	struct window_counts counts;
	struct window win;

	running.streams = mmap(NULL, s->streams * sizeof(*running.streams), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (running.streams == MAP_FAILED)
		err(1, "mmap");
	if (pipe(go) < 0)
		err(1, "pipe");
	fflush(NULL);
	stopsig_set(&stops);
	for (long i = 0; i < s->streams; i++) {
		int p[2];
		pid_t pid;

		if (pipe(p) < 0)
			err(1, "pipe");
		/* Each child is in running.pids before a stop signal can be handled. */
		sigprocmask(SIG_BLOCK, &stops, NULL);
		pid = fork();
		if (pid < 0)
			err(1, "fork");
		if (pid == 0) {
			struct start_line line = { .ready = p[1], .go = go[0] };

			close(go[1]);
			close(p[0]);
			for (long k = 0; k < i; k++)
				close(out[k]);
			stream_child(s, i, files, n_files, &line);
		}
		running.pids[i] = pid;
		running.n_pids = i + 1;
		sigprocmask(SIG_UNBLOCK, &stops, NULL);
		close(p[1]);
		out[i] = p[0];
	}
	close(go[0]);
	/* A stream that fails to connect exits: its pipe reads as ended, not ready. */
	hear_from_each(out, s->streams);
	for (long i = 0; i < s->streams && !link.ifname[0]; i++)
		link = running.streams[i].sum.win.link;
	counts = stream_window(s, RUSAGE_CHILDREN, m, &link);
	window_open(&win, &counts);
	start = timing_now_ns();
	/* EPIPE: every stream has failed already. */
	if (write(go[1], release, s->streams) < 0 && errno != EPIPE)
		err(1, "starting the streams");
	close(go[1]);
	hear_from_each(out, s->streams);
	window_last_byte(&win);
	*total = (struct summary){ .confirmed = 1, .rate = s->rate };
	for (long i = 0; i < s->streams; i++) {
		int status;

		while (waitpid(running.pids[i], &status, 0) < 0)
			if (errno != EINTR)
				err(1, "waitpid");
		running.pids[i] = 0;
		close(out[i]);
		collect_stream(i, status, &streams[i]);
		/* A stream that exited said why; one a signal killed could not. */
		if (WIFSIGNALED(status))
			warnx("stream %ld of %ld was killed by SIG%s after %llu bytes", i + 1, s->streams,
			      sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?",
			      (unsigned long long)running.streams[i].turns.arms[0].sent);
		if (streams[i].failed) {
			failed++;
			continue;
		}
		total->bytes += streams[i].bytes;
		total->confirmed &= streams[i].confirmed;
		total->zc_sends += streams[i].zc_sends;
		total->zc_copied += streams[i].zc_copied;
		total->datagrams += streams[i].datagrams;
		total->calls += streams[i].calls;
		total->files_sent += streams[i].files_sent;
		total->received += streams[i].received;
		if (streams[i].end_ns > end)
			end = streams[i].end_ns;
	}
	window_close(&win, total->confirmed, -1, &total->win);
	total->ns = end > start ? end - start : 0;
	return failed;
}

