/*
 * sampling: what the soakers' samples say. Rates and shares between two
 * samples, the idle reference a load is measured against (a tare, or the
 * calibration), a window's figures, the sampling loop of cyclesoak, and
 * the calibration itself.
 */
#ifndef ZC_SAMPLING_H
#define ZC_SAMPLING_H

#include "soak.h"

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
	/* The tare's, each soaker's: its rate, and its rate with all of its CPU. */
	double cpu_rate[CPU_SETSIZE], cpu_idle_rate[CPU_SETSIZE];
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
	double steal;		/* the share of the CPUs' time a hypervisor took; NAN if unknown */
	uint64_t ns;		/* the window's length */
};

/*
 * What a window says of each soaked CPU: the load the transfer added to it
 * (as the whole's: against the tare's rate on it, or its calibration), and
 * what the kernel counted on it over the window, shares of its time; NAN
 * if /proc/stat was not read. user is the tasks' (user and nice) less the
 * soaker's own time, 0 at least.
 */
struct soak_cpu_figures {
	int cpu;
	double load;
	double busy;		/* how busy it was in all, against its calibration */
	double user, system, irq, softirq, steal;
};

/*
 * A CPU whose soaker made no step over a window was at its ceiling: its
 * load is SOAK_CEILING, all of it, whatever the tare said (nothing finer
 * can be read of it: a change in what ran there does not show).
 */
#define SOAK_CEILING 1.0
/* The load on each of the n_cpus CPUs over a..b, as soak_cpu_figures gives it, into loads[]. */
void soak_cpu_loads(const struct soak_reference *ref, const struct soak_sample *a,
		    const struct soak_sample *b, int n_cpus, double *loads);
/* The figures of each of the n_cpus CPUs cpus[] over a..b, into out[]. */
void soak_cpu_figures(const struct soak_reference *ref, const struct soak_sample *a,
		      const struct soak_sample *b, const int *cpus, int n_cpus,
		      struct soak_cpu_figures *out);
/* The busiest of them: the index of the highest load (the first of equals). */
int soak_busiest(const struct soak_cpu_figures *f, int n_cpus);
/* The share of the soaked CPUs' time over a..b a hypervisor took (steal); NAN if unknown. */
double soak_steal(const struct soak_sample *a, const struct soak_sample *b, int n_cpus);

/*
 * The figures of a transfer of `bytes` over the window a..b: with a tare,
 * what it added to what ran before; without one, the whole system's load.
 */
void soak_figures(const struct soak_reference *ref, const struct soak_sample *a,
		  const struct soak_sample *b, int n_cpus, uint64_t bytes, struct soak_figures *f);

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
