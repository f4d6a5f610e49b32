/* timing: the monotonic clock, rate arithmetic, and the periodic tick that drives reports. */
#ifndef ZC_TIMING_H
#define ZC_TIMING_H

#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

#define NSEC_PER_SEC 1000000000ULL

uint64_t timing_now_ns(void);
/* The CPU time this thread has taken, in ns: what an instrument's own work costs. */
uint64_t timing_thread_cpu_ns(void);
double timing_secs(uint64_t ns);
/* A struct timeval (rusage's times, say) in seconds. */
double timing_timeval_secs(struct timeval tv);

/* bytes / 1024 / seconds, truncated to an integer as the 2001 output was. */
uint64_t timing_kbytes_per_sec(uint64_t bytes, uint64_t ns);

/*
 * Set *flag every period_ms from a SIGALRM handler, installed without
 * SA_RESTART so a blocking read() or pause() returns and the caller notices.
 * The handler only stores the flag; the caller prints.
 */
void timing_tick_start(unsigned period_ms, volatile sig_atomic_t *flag);
void timing_tick_stop(void);

#endif
