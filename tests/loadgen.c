/*
 * loadgen: a known CPU load. Pinned to one CPU, it spins until it has had a
 * set fraction of every 10 ms period in CPU time, or the period is over, and
 * sleeps for the rest. At the end it says how much CPU it got: a soaker that
 * steals from it shows up as less than the target.
 *
 * usage: loadgen -c cpu -f percent -t secs
 * prints: loadgen: target P% of CPU C for S s, got G% (R% of target)
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "../lib/cpu.h"
#include "../lib/opt.h"
#include "../lib/timing.h"

#define PERIOD_NS 10000000ULL


static uint64_t cpu_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long cpu = 0, percent = -1, secs = 0;
	uint64_t start, end, cpu_start, got_ns, busy_ns, period;
	int c;

	opt_init("usage: loadgen -c cpu -f percent -t secs\n");
	while ((c = getopt(argc, argv, ":c:f:t:")) != -1) {
		switch (c) {
		case 'c':
			cpu = opt_long(c, optarg, 0, CPU_MAX_INDEX);
			break;
		case 'f':
			percent = opt_long(c, optarg, 0, 100);
			break;
		case 't':
			secs = opt_long(c, optarg, 1, 3600);
			break;
		default:
			opt_fail_getopt(c, optopt);
		}
	}
	if (percent < 0 || secs == 0)
		opt_failx("-f and -t are required");
	if (cpu_pin(cpu) < 0)
		err(1, "pinning to CPU %ld", cpu);
	/* Wake on time, so a late wake-up does not eat into the next busy phase. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	busy_ns = PERIOD_NS * percent / 100;
	start = timing_now_ns();
	end = start + secs * NSEC_PER_SEC;
	cpu_start = cpu_time_ns();
	for (period = start; period < end; period += PERIOD_NS) {
		uint64_t next = period + PERIOD_NS;
		struct timespec ts = { .tv_sec = next / NSEC_PER_SEC, .tv_nsec = next % NSEC_PER_SEC };

		uint64_t cpu_until = cpu_time_ns() + busy_ns;

		while (cpu_time_ns() < cpu_until && timing_now_ns() < next)
			;
		if (busy_ns < PERIOD_NS)
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	got_ns = cpu_time_ns() - cpu_start;
	end = timing_now_ns();
	printf("loadgen: target %ld%% of CPU %ld for %ld s, got %.1f%% (%.1f%% of target)\n",
	       percent, cpu, secs, 100.0 * got_ns / (end - start),
	       percent ? 100.0 * got_ns / ((end - start) * percent / 100.0) : 100.0);
	return 0;
}
