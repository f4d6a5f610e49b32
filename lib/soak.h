/*
 * soak: the cycle-soak meter behind cyclesoak and zcc -c. One soaker per CPU,
 * pinned, at idle priority, all in one session group at nice 19, counting
 * fixed steps of work in shared memory. A sample reads every soaker's step
 * count and the CPU time the kernel gave it; the load is how far the soakers'
 * rate falls below an idle reference: the calibration file, or a tare taken
 * just before. Failures return -1 with a one-line reason in err.
 */
#ifndef ZC_SOAK_H
#define ZC_SOAK_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "counts.h"


/* soak_open's return when more CPUs are asked for than the affinity mask holds. */
#define SOAK_TOO_MANY_CPUS (-2)

/*
 * Two meters on one host count each other's soakers, and both figures are
 * wrong. While its soakers run, a meter holds a lock on this file (fcntl
 * F_SETLK: the kernel drops it when the process dies), and soak_start()
 * refuses, naming the holder's pid, while another holds it. /tmp is one
 * for every network namespace of the host, so a meter in another one
 * (ip netns exec) is seen too.
 */
#define SOAK_LOCK_FILE "/tmp/zc-meter.lock"


struct soak_shared;

struct soak {
	int n_cpus;
	int *cpus;
	pid_t *pids;		/* 0 once reaped */
	clockid_t *clocks;	/* each soaker's CPU-time clock */
	struct soak_shared *shared;
	int lock_fd;		/* SOAK_LOCK_FILE, locked while the soakers run; -1 */
	int debug;
	char err[384];
};

/* A reading of every soaker, and when it was taken (CLOCK_MONOTONIC). */
struct soak_sample {
	uint64_t ns;
	uint64_t *steps;	/* n_cpus entries */
	uint64_t *cpu_ns;	/* each soaker's CPU time so far */
	/* /proc/stat of the soaked CPUs, in ns: busy (user, nice, system, irq,
	 * softirq) and all (busy, idle, iowait, steal); all is 0 if unreadable. */
	uint64_t stat_busy_ns, stat_all_ns;
};

/*
 * Choose the CPUs: the first n_cpus of this process's affinity mask, or all of
 * them when n_cpus is 0. No soaker runs yet. Returns 0, -1, or
 * SOAK_TOO_MANY_CPUS (err says how many there are).
 */
int soak_open(struct soak *m, int n_cpus, int debug);
/* Print "using N CPUs", as cyclesoak and zcc -C announce it. */
void soak_announce(const struct soak *m);
/*
 * Take the host's meter lock, start a soaker on each CPU and wait until all
 * are counting. -1 if another meter holds the lock, err naming its pid.
 */
int soak_start(struct soak *m);
/* Kill and reap every soaker; async-signal-safe, so a signal handler may stop the meter. */
void soak_kill(struct soak *m);
/* Kill and reap every soaker and free what open and start took. Safe to call twice. */
void soak_close(struct soak *m);

int soak_sample_init(const struct soak *m, struct soak_sample *smp);
void soak_sample_free(struct soak_sample *smp);
/* One sample's readings into another's arrays, both of n_cpus. */
void soak_sample_copy(struct soak_sample *dst, const struct soak_sample *src, int n_cpus);
/* Read every soaker; -1 if one has died or been stopped, which spoils the count. */
int soak_take(struct soak *m, struct soak_sample *smp);


/* Steps a second between two samples: all CPUs, or one (index cpu_i). */
double soak_rate(const struct soak_sample *a, const struct soak_sample *b, int n_cpus);
double soak_rate_one(const struct soak_sample *a, const struct soak_sample *b, int cpu_i);
/* The share of wall time soaker cpu_i was given by the scheduler; all soakers' mean. */
double soak_cpu_share_one(const struct soak_sample *a, const struct soak_sample *b, int cpu_i);
double soak_cpu_share(const struct soak_sample *a, const struct soak_sample *b, int n_cpus);
/*
 * Steps a second every soaker would make if it had all of its CPU: each one's
 * steps per second of its own CPU time, summed. Time the scheduler gave to
 * other tasks does not lower it; time lost while the soaker was charged for
 * it (interrupts, a slower CPU) does.
 */
double soak_idle_rate(const struct soak_sample *a, const struct soak_sample *b, int n_cpus);
double soak_idle_rate_one(const struct soak_sample *a, const struct soak_sample *b, int cpu_i);

/*
 * What a transfer's load is measured against: a tare taken just before it,
 * or, without one, the calibration alone.
 */
struct soak_reference {
	struct soak_counts calibration;	/* ./counts_per_sec */
	int tared;
	double rate;		/* the tare's: the soakers' rate */
	double idle_rate;	/* and the rate they would have had with all their CPUs */
	double kernel;		/* /proc/stat's busy share in the tare */
	double cpu_share;	/* the soakers' mean share of their CPUs in the tare */
};

/*
 * A tare, taken between a and b, into ref. -1, with err naming the CPU, when
 * a soaker had no CPU time in it: there is no idle rate to measure against.
 */
int soak_tare(struct soak *m, const struct soak_sample *a, const struct soak_sample *b,
	      struct soak_reference *ref);

/*
 * What a window of the meter says of a transfer. The load is in two parts:
 * the CPU time the soakers lost (the time the scheduler gave to others,
 * which the kernel's view counts too), and their slowdown, the work they
 * lost while they held their CPUs (interrupts and softirqs run on top of
 * them and charged to them, their caches filled by others, a hypervisor's
 * time), which no tick of /proc/stat sees.
 */
struct soak_figures {
	double load;		/* the share of the soaked CPUs the transfer took */
	double kernel;		/* the same, by /proc/stat; NAN if unknown */
	double time_lost;	/* the soakers' share of CPU time lost, against the reference's */
	double slowdown;	/* load - time_lost */
	double demand_us_per_kb;	/* CPU microseconds per KiB sent: load x CPUs x time */
	uint64_t ns;		/* the window's length */
};

/*
 * The figures of a transfer of `bytes` over the window a..b: with a tare,
 * what it added to what ran before; without one, the whole system's load.
 */
void soak_figures(const struct soak_reference *ref, const struct soak_sample *a,
		  const struct soak_sample *b, int n_cpus, uint64_t bytes, struct soak_figures *f);

/*
 * The lines "cpuN user nice system idle iowait irq softirq steal" of
 * /proc/stat for the CPUs listed, summed, in ns: busy (user, nice, system,
 * irq, softirq) and all. -1 if ticks_per_sec is not positive.
 */
int soak_parse_proc_stat(FILE *f, const int *cpus, int n_cpus, long ticks_per_sec,
			 uint64_t *busy_ns, uint64_t *all_ns);

/*
 * The kernel's view of the same period: the busy share of the soaked CPUs in
 * /proc/stat, less the soakers' own CPU time. NAN when /proc/stat was not read.
 */
double soak_kernel_load(const struct soak_sample *a, const struct soak_sample *b, int n_cpus);

/* Load as a fraction of all soaked CPUs: 1 - measured / reference. */
double soak_load(double measured_per_sec, double reference_per_sec);

/*
 * For a load below 0, what it means, in words, into buf: within the
 * calibration's spread (noise), or beyond it (a calibration made on a busier
 * system). NULL for a load of 0 or more.
 */
const char *soak_below_zero(double load, const struct soak_counts *c, char *buf, size_t len);


/*
 * Call each(arg, a, b) for every period of period_ms, a and b being the samples
 * that bound it, until each returns non-zero or *stop is set. A period that
 * ran far longer than asked (the process was stopped or starved) is skipped
 * with a warning, and the schedule starts again from then. Returns 0, or -1 if
 * a soaker failed.
 */
int soak_every(struct soak *m, unsigned period_ms, volatile sig_atomic_t *stop,
	       int (*each)(void *arg, const struct soak_sample *a, const struct soak_sample *b),
	       void *arg);

/*
 * Calibrate on an idle system: print "calibrating: N loops/sec" each period,
 * discard the warm-up periods, write the median to SOAK_COUNTS_FILE and print
 * "calibrated OK.  N loops/sec". Starts and stops the soakers itself. Returns
 * 0, 1 if *stop was set, or -1.
 */
int soak_calibrate(struct soak *m, unsigned period_ms, volatile sig_atomic_t *stop);

#endif
