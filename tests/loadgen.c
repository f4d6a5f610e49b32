/*
 * loadgen: a known CPU load. Pinned to one CPU, it spins until it has had a
 * set fraction of every period (10 ms, or -p us) in CPU time, or the period
 * is over, and sleeps for the rest. At the end it says how much CPU it got:
 * a soaker that steals from it shows up as less than the target. A short
 * period makes the same load out of many wake-ups; -m makes it walk a
 * buffer of that many KiB as it spins, writing a byte of every cache line,
 * so that it fills the caches it shares with others. -g makes it a load
 * of one arm of zcc -m A,B,... (or zcs's): it reads their slot events (-e:
 * lib/schedule.h) on its standard input and spins only while the latest
 * slot is arm N's, until the turns end.
 *
 * usage: loadgen [-c cpu] -f percent -t secs [-p usecs] [-m kib] [-g arm]
 * prints: loadgen: target P% of CPU C for S s, got G% (R% of target), W wake-ups a second
 * and with -g: loadgen: arm N had it for O s of S, got G% of CPU C then
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "../lib/cpu.h"
#include "../lib/opt.h"
#include "../lib/options.h"
#include "../lib/timing.h"

#define DEFAULT_PERIOD_US 10000
#define CACHE_LINE 64

struct load {
	long cpu, percent, secs, period_us, kib, arm;
};

#define FIELD(member) OPTION_FIELD(struct load, member)

static const struct option_row rows[] = {
	{ 'c', OPTION_NUMBER, "cpu", FIELD(cpu), .max = CPU_MAX_INDEX,
	  .help = "the CPU to load (default 0)" },
	{ 'f', OPTION_NUMBER, "percent", FIELD(percent), .max = 100, .required = 1,
	  .help = "the share of each period to spin" },
	{ 't', OPTION_NUMBER, "secs", FIELD(secs), .min = 1, .max = 3600, .required = 1,
	  .help = "how long" },
	{ 'p', OPTION_NUMBER, "usecs", FIELD(period_us), .min = 10, .max = 1000000,
	  .help = "the period in microseconds (default 10000)" },
	{ 'm', OPTION_NUMBER, "kib", FIELD(kib), .min = 1, .max = 1L << 22,
	  .help = "walk a buffer of this many KiB, writing a byte a cache line" },
	{ 'g', OPTION_NUMBER, "arm", FIELD(arm), .min = 1, .max = 64,
	  .help = "spin only in that arm's slots, from the slot events on standard input" },
	OPTIONS_ROW_HELP,
	{ 0 }
};

static const struct option_table table = {
	.about = "A known CPU load on one CPU.",
	.rows = rows,
};

/*
 * -g: whether arm `arm` has the slot now, from the slot events read so far
 * ("slot N cycle C arm A ..."), read without waiting; closed by "end ...";
 * -1 once the events have ended.
 */
static int gate_open(unsigned arm, int was_open)
{
	static char line[256];
	static size_t len;
	int open = was_open;
	ssize_t n;
	char c;

	while ((n = read(0, &c, 1)) == 1) {
		unsigned a;
		const char *at;

		if (c != '\n') {
			if (len < sizeof(line) - 1)
				line[len++] = c;
			continue;
		}
		line[len] = '\0';
		len = 0;
		at = strstr(line, " arm ");
		if (strncmp(line, "slot ", 5) == 0 && at && sscanf(at, " arm %u", &a) == 1)
			open = a == arm;
		else if (strncmp(line, "end ", 4) == 0)
			open = 0;
	}
	return n == 0 ? -1 : open;
}

static uint64_t cpu_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct load l = { .percent = -1, .period_us = DEFAULT_PERIOD_US };
	char given[16];
	uint64_t start, end, cpu_start, got_ns, busy_ns, period, period_ns, wakeups = 0;
	uint64_t open_ns = 0, open_cpu_ns = 0;
	int open = 0;
	size_t at = 0;
	char *buf = NULL;

	options_parse(&table, &l, argc, argv, given, sizeof(given));
	if (l.percent < 0 || l.secs == 0)
		opt_failx("-f and -t are required");
	if (l.arm && fcntl(0, F_SETFL, O_NONBLOCK) < 0)
		err(1, "-g: standard input");
	if (cpu_pin(l.cpu) < 0)
		err(1, "pinning to CPU %ld", l.cpu);
	if (l.kib) {
		buf = malloc(l.kib * 1024);
		if (!buf)
			err(1, "%ld KiB", l.kib);
		memset(buf, 1, l.kib * 1024);
	}
	/* Wake on time, so a late wake-up does not eat into the next busy phase. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	period_ns = l.period_us * 1000ULL;
	busy_ns = period_ns * l.percent / 100;
	start = timing_now_ns();
	end = start + l.secs * NSEC_PER_SEC;
	cpu_start = cpu_time_ns();
	for (period = start; period < end; period += period_ns) {
		uint64_t next = period + period_ns;
		struct timespec ts = { .tv_sec = next / NSEC_PER_SEC, .tv_nsec = next % NSEC_PER_SEC };

		uint64_t cpu_from = cpu_time_ns(), cpu_until = cpu_from + busy_ns;

		if (l.arm) {
			open = gate_open(l.arm, open);
			if (open < 0)
				break;
			open_ns += open ? period_ns : 0;
			if (!open)
				cpu_until = 0;
		}
		while (cpu_time_ns() < cpu_until && timing_now_ns() < next) {
			/* A stretch of the walk between two looks at the clock. */
			for (int i = 0; buf && i < 64; i++, at = (at + CACHE_LINE) % (l.kib * 1024))
				buf[at]++;
		}
		/* -g: the CPU it had while the gate was open, its reading of the lines aside. */
		if (open > 0)
			open_cpu_ns += cpu_time_ns() - cpu_from;
		if ((busy_ns < period_ns || !cpu_until) &&
		    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == 0)
			wakeups++;
	}
	got_ns = cpu_time_ns() - cpu_start;
	end = timing_now_ns();
	if (l.arm) {
		printf("loadgen: arm %ld had it for %.1f s of %.1f, got %.1f%% of CPU %ld then\n", l.arm,
		       open_ns / 1e9, (end - start) / 1e9, open_ns ? 100.0 * open_cpu_ns / open_ns : 0.0,
		       l.cpu);
		return 0;
	}
	printf("loadgen: target %ld%% of CPU %ld for %ld s, got %.1f%% (%.1f%% of target), "
	       "%.0f wake-ups a second\n",
	       l.percent, l.cpu, l.secs, 100.0 * got_ns / (end - start),
	       l.percent ? 100.0 * got_ns / ((end - start) * l.percent / 100.0) : 100.0,
	       wakeups * 1e9 / (end - start));
	free(buf);
	return 0;
}
