#include <err.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "timing.h"

static volatile sig_atomic_t *tick_flag;

uint64_t timing_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

uint64_t timing_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

double timing_secs(uint64_t ns)
{
	return (double)ns / NSEC_PER_SEC;
}

double timing_timeval_secs(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

uint64_t timing_kbytes_per_sec(uint64_t bytes, uint64_t ns)
{
	if (ns == 0)
		return 0;
	return (unsigned __int128)bytes * NSEC_PER_SEC / ((unsigned __int128)ns * 1024);
}

static void on_tick(int sig)
{
	(void)sig;
	*tick_flag = 1;
}

void timing_tick_start(unsigned period_ms, volatile sig_atomic_t *flag)
{
	struct sigaction sa;
	struct itimerval it = { 0 };

	tick_flag = flag;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0)
		err(1, "sigaction SIGALRM");
	it.it_interval.tv_sec = period_ms / 1000;
	it.it_interval.tv_usec = (period_ms % 1000) * 1000;
	it.it_value = it.it_interval;
	if (setitimer(ITIMER_REAL, &it, NULL) < 0)
		err(1, "setitimer");
}

void timing_tick_stop(void)
{
	struct itimerval it = { 0 };

	setitimer(ITIMER_REAL, &it, NULL);
}
