/*
 * soak: the cycle soakers behind cyclesoak and zcc -c. One soaker per CPU,
 * pinned, at idle priority, counting fixed steps of work in shared memory; the
 * load is how far their rate falls below the rate calibrated on an idle system.
 */
#ifndef ZC_SOAK_H
#define ZC_SOAK_H

#include <stdint.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#define SOAK_COUNTS_FILE "./counts_per_sec"

struct soak_counter;

struct soak {
	int n_cpus;
	int *cpus;
	pid_t *pids;
	struct soak_counter *counters; /* shared with the soakers, a cache line each */
};

/* A reading of every soaker's step count, and when it was taken. */
struct soak_sample {
	uint64_t ns;
	uint64_t *steps; /* n_cpus entries */
};

/*
 * The CPUs to soak: the first n_cpus of this process's affinity mask, or all of
 * them when n_cpus is 0. Returns the count, or -1 if the mask cannot be read;
 * more CPUs than the mask holds is a usage error (-N).
 */
int soak_choose_cpus(int n_cpus, int *cpus, int max);

/* Start a soaker on each CPU and wait until all are running; exits on failure. */
void soak_start(struct soak *s, const int *cpus, int n_cpus, int debug);
/* Kill and reap every soaker and free what soak_start took. Safe to call twice. */
void soak_stop(struct soak *s);

void soak_sample_init(const struct soak *s, struct soak_sample *smp);
void soak_sample_free(struct soak_sample *smp);
void soak_take(const struct soak *s, struct soak_sample *smp);
/* Steps a second between two samples: all CPUs, or one (index cpu_i). */
double soak_rate(const struct soak_sample *a, const struct soak_sample *b, int n_cpus);
double soak_rate_one(const struct soak_sample *a, const struct soak_sample *b, int cpu_i);

/*
 * The calibration file: the total steps a second on its first line (the 2001
 * format) and "cpus N" on the second. Reading returns 0, or -1 with a message
 * in err that says what is wrong with the file.
 */
int soak_read_counts(const char *path, int n_cpus, double *per_sec, char *err, size_t errlen);
int soak_write_counts(const char *path, double per_sec, int n_cpus);

/* Load as a fraction of all soaked CPUs: 1 - measured / calibrated. */
double soak_load(double measured_per_sec, double calibrated_per_sec);

/*
 * Calibrate on an idle system: print "calibrating: N loops/sec" each period,
 * discard the warm-up periods, write the median to SOAK_COUNTS_FILE and print
 * "calibrated OK.  N loops/sec". stop is polled so a signal can cut it short;
 * returns 0, or 1 if stopped.
 */
int soak_calibrate(const int *cpus, int n_cpus, unsigned period_ms, int debug,
		   volatile sig_atomic_t *stop);

/* Sleep until deadline_ns on CLOCK_MONOTONIC, returning early if *stop becomes set. */
void soak_sleep_until(uint64_t deadline_ns, volatile sig_atomic_t *stop);

#endif
