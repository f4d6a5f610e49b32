#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sampling.h"
#include "timing.h"

/* Periods calibration discards, then keeps; how far they may spread before it is said. */
#define SOAK_WARMUP_PERIODS 2
#define SOAK_CALIBRATION_PERIODS 5
#define SOAK_SPREAD_WARN 0.02
/* Below this share of their CPUs during calibration, something else was running. */
#define SOAK_IDLE_SHARE_WARN 0.98
/*
 * Below this, the calibration is refused: with both CPUs taken by tasks above
 * idle priority the soakers got no CPU, and "calibrated OK.  0 loops/sec"
 * was written, a rate every later load divided by.
 */
#define SOAK_IDLE_SHARE_REFUSE 0.5
/* How many times a calibration is made before it is refused for that. */
#define SOAK_CALIBRATION_TRIES 3
/*
 * A calibration this much below the one it would replace is refused: two
 * made minutes apart on a shared host measured 9% apart, and every later run
 * measured its tare 11% off the lower one.
 */
#define SOAK_REPLACE_DROP 0.05
/* A period this much longer than asked (and at least 50 ms) is a stall, not a sample. */
#define SOAK_STALL_FACTOR 1.5
#define SOAK_STALL_MIN_NS (50 * 1000000ULL)

double soak_rate_one(const struct soak_sample *a, const struct soak_sample *b, int cpu_i)
{
	return (double)(b->steps[cpu_i] - a->steps[cpu_i]) * NSEC_PER_SEC / (double)(b->ns - a->ns);
}

/* The sum over every soaker of a per-soaker figure. */
static double sum_cpus(double (*one)(const struct soak_sample *, const struct soak_sample *, int),
		       const struct soak_sample *a, const struct soak_sample *b, int n_cpus)
{
	double total = 0;

	for (int i = 0; i < n_cpus; i++)
		total += one(a, b, i);
	return total;
}

double soak_rate(const struct soak_sample *a, const struct soak_sample *b, int n_cpus)
{
	return sum_cpus(soak_rate_one, a, b, n_cpus);
}

double soak_cpu_share_one(const struct soak_sample *a, const struct soak_sample *b, int cpu_i)
{
	return (double)(b->cpu_ns[cpu_i] - a->cpu_ns[cpu_i]) / (double)(b->ns - a->ns);
}

double soak_cpu_share(const struct soak_sample *a, const struct soak_sample *b, int n_cpus)
{
	return sum_cpus(soak_cpu_share_one, a, b, n_cpus) / n_cpus;
}

double soak_idle_rate_one(const struct soak_sample *a, const struct soak_sample *b, int cpu_i)
{
	uint64_t cpu_ns = b->cpu_ns[cpu_i] - a->cpu_ns[cpu_i];

	return cpu_ns ? (double)(b->steps[cpu_i] - a->steps[cpu_i]) * NSEC_PER_SEC / cpu_ns : 0;
}

double soak_idle_rate(const struct soak_sample *a, const struct soak_sample *b, int n_cpus)
{
	return sum_cpus(soak_idle_rate_one, a, b, n_cpus);
}

int soak_tare(struct soak *m, const struct soak_sample *a, const struct soak_sample *b,
	      struct soak_reference *ref)
{
	for (int i = 0; i < m->n_cpus; i++)
		if (b->cpu_ns[i] == a->cpu_ns[i]) {
			snprintf(m->err, sizeof(m->err),
				 "the tare: the soaker on CPU %d had no CPU time in %.0f ms, so "
				 "there is no idle rate to measure against: the CPU was busy "
				 "throughout (a longer -T may find it idle)",
				 m->cpus[i], (b->ns - a->ns) / 1e6);
			return -1;
		}
	ref->tared = 1;
	ref->rate = soak_rate(a, b, m->n_cpus);
	ref->idle_rate = soak_idle_rate(a, b, m->n_cpus);
	ref->kernel = soak_kernel_load(a, b, m->n_cpus);
	ref->cpu_share = soak_cpu_share(a, b, m->n_cpus);
	for (int i = 0; i < m->n_cpus; i++) {
		ref->cpu_rate[i] = soak_rate_one(a, b, i);
		ref->cpu_idle_rate[i] = soak_idle_rate_one(a, b, i);
	}
	return 0;
}

void soak_figures(const struct soak_reference *ref, const struct soak_sample *a,
		  const struct soak_sample *b, int n_cpus, uint64_t bytes, struct soak_figures *f)
{
	double rate = soak_rate(a, b, n_cpus);

	f->kernel = soak_kernel_load(a, b, n_cpus);
	/* The calibration counted steps per second of the soakers' own CPU time: all of it. */
	f->time_lost = (ref->tared ? ref->cpu_share : 1.0) - soak_cpu_share(a, b, n_cpus);
	if (ref->tared) {
		f->load = (ref->rate - rate) / ref->idle_rate;
		f->kernel -= ref->kernel;
	} else {
		f->load = soak_load(rate, ref->calibration.per_sec);
	}
	f->slowdown = f->load - f->time_lost;
	f->steal = soak_steal(a, b, n_cpus);
	f->ns = b->ns - a->ns;
	f->demand_us_per_kb = bytes ? f->load * n_cpus * (f->ns / 1000.0) / (bytes / 1024.0) : 0;
}

/*
 * The soakers' CPU time comes from their CPU clocks, exact to the ns, where
 * /proc/stat's figures are counted tick by tick; over a run of a second or
 * more the difference is a fraction of a percent.
 */
double soak_kernel_load(const struct soak_sample *a, const struct soak_sample *b, int n_cpus)
{
	double all = (double)(b->stat_all_ns - a->stat_all_ns);
	double busy = (double)(b->stat_busy_ns - a->stat_busy_ns);

	if (a->stat_all_ns == 0 || b->stat_all_ns == 0 || all <= 0)
		return NAN;
	for (int i = 0; i < n_cpus; i++)
		busy -= (double)(b->cpu_ns[i] - a->cpu_ns[i]);
	return busy / all;
}

/* A share of a CPU's window by the kernel's count; NAN where there is none. */
static double share_of(uint64_t a_ns, uint64_t b_ns, double all)
{
	return all > 0 ? ((double)b_ns - (double)a_ns) / all : NAN;
}

/* CPU i's load over a..b: against the tare's rate on it, or without a tare its calibration. */
static double cpu_load(const struct soak_reference *ref, const struct soak_sample *a,
		       const struct soak_sample *b, int i)
{
	double rate = soak_rate_one(a, b, i);

	if (rate == 0)
		return SOAK_CEILING;
	if (!ref->tared)
		return soak_load(rate, ref->calibration.cpu_per_sec[i]);
	return ref->cpu_idle_rate[i] > 0 ? (ref->cpu_rate[i] - rate) / ref->cpu_idle_rate[i] : NAN;
}

void soak_cpu_loads(const struct soak_reference *ref, const struct soak_sample *a,
		    const struct soak_sample *b, int n_cpus, double *loads)
{
	for (int i = 0; i < n_cpus; i++)
		loads[i] = cpu_load(ref, a, b, i);
}

void soak_cpu_figures(const struct soak_reference *ref, const struct soak_sample *a,
		      const struct soak_sample *b, const int *cpus, int n_cpus,
		      struct soak_cpu_figures *out)
{
	for (int i = 0; i < n_cpus; i++) {
		const struct procstat_cpu *x = a->stat ? &a->stat[i] : NULL;
		const struct procstat_cpu *y = b->stat ? &b->stat[i] : NULL;
		double all = NAN;
		struct soak_cpu_figures *f = &out[i];

		f->cpu = cpus[i];
		f->load = cpu_load(ref, a, b, i);
		f->busy = soak_load(soak_rate_one(a, b, i), ref->calibration.cpu_per_sec[i]);
		if (x && y && procstat_all(x) && procstat_all(y))
			all = (double)procstat_all(y) - (double)procstat_all(x);
		if (!(all > 0)) {
			f->user = f->system = f->irq = f->softirq = f->steal = NAN;
			continue;
		}
		/*
		 * The soaker's own time is in user (SCHED_IDLE at nice 0), but exact
		 * where the ticks are sampled, and with the softirqs it ran under
		 * charged to it: taken out, what is left may read below 0; it is 0.
		 */
		f->user = fmax(0, ((double)(y->user + y->nice) - (double)(x->user + x->nice) -
				   (double)(b->cpu_ns[i] - a->cpu_ns[i])) / all);
		f->system = share_of(x->system, y->system, all);
		f->irq = share_of(x->irq, y->irq, all);
		f->softirq = share_of(x->softirq, y->softirq, all);
		f->steal = share_of(x->steal, y->steal, all);
	}
}

int soak_busiest(const struct soak_cpu_figures *f, int n_cpus)
{
	int best = 0;

	for (int i = 1; i < n_cpus; i++)
		if (f[i].load > f[best].load || (isnan(f[best].load) && !isnan(f[i].load)))
			best = i;
	return best;
}

double soak_steal(const struct soak_sample *a, const struct soak_sample *b, int n_cpus)
{
	double steal = 0, all = 0;

	if (!a->stat || !b->stat || a->stat_all_ns == 0 || b->stat_all_ns == 0)
		return NAN;
	for (int i = 0; i < n_cpus; i++) {
		steal += (double)b->stat[i].steal - (double)a->stat[i].steal;
		all += (double)procstat_all(&b->stat[i]) - (double)procstat_all(&a->stat[i]);
	}
	return all > 0 ? steal / all : NAN;
}

double soak_load(double measured_per_sec, double reference_per_sec)
{
	return 1.0 - measured_per_sec / reference_per_sec;
}

const char *soak_below_zero(double load, const struct soak_counts *c, char *buf, size_t len)
{
	if (load >= 0)
		return NULL;
	if (isnan(c->spread))
		snprintf(buf, len, "below 0: the meter's noise, or a calibration made on a busier "
				   "system");
	else if (-load <= c->spread)
		snprintf(buf, len, "below 0, within the calibration's spread of %.1f points",
			 c->spread * 100);
	else
		snprintf(buf, len, "below 0 by more than the calibration's spread of %.1f points: "
				   "recalibrate on an idle system", c->spread * 100);
	return buf;
}

/* Sleep until deadline_ns on CLOCK_MONOTONIC, returning early if *stop becomes set. */
static void sleep_until(uint64_t deadline_ns, volatile sig_atomic_t *stop)
{
	struct timespec ts = { .tv_sec = deadline_ns / NSEC_PER_SEC,
			       .tv_nsec = deadline_ns % NSEC_PER_SEC };

	while (!*stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int soak_every(struct soak *m, unsigned period_ms, volatile sig_atomic_t *stop,
	       int (*each)(void *arg, const struct soak_sample *a, const struct soak_sample *b),
	       void *arg)
{
	struct soak_sample a, b, t;
	uint64_t period_ns = period_ms * 1000000ULL, next, late_ns;
	int rc = 0;

	late_ns = period_ns * (SOAK_STALL_FACTOR - 1);
	if (late_ns < SOAK_STALL_MIN_NS)
		late_ns = SOAK_STALL_MIN_NS;
	if (soak_sample_init(m, &a) < 0 || soak_sample_init(m, &b) < 0) {
		soak_sample_free(&a);
		snprintf(m->err, sizeof(m->err), "allocating samples: %s", strerror(errno));
		return -1;
	}
	if (soak_take(m, &a) < 0)
		rc = -1;
	next = a.ns;
	while (rc == 0 && !*stop) {
		next += period_ns;
		sleep_until(next, stop);
		if (*stop)
			break;
		if (soak_take(m, &b) < 0) {
			rc = -1;
			break;
		}
		if (b.ns - a.ns > period_ns + late_ns) {
			fprintf(stderr,
				"%s: %.3f s passed in a %.3f s period (stopped or stalled): "
				"that period is not a sample\n",
				program_invocation_short_name, timing_secs(b.ns - a.ns),
				timing_secs(period_ns));
			next = b.ns;
		} else if (each(arg, &a, &b)) {
			break;
		}
		t = a, a = b, b = t;
	}
	soak_sample_free(&a);
	soak_sample_free(&b);
	return rc;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct calibration {
	int n_cpus;
	int periods;
	double rates[SOAK_CALIBRATION_PERIODS];
	double *cpu_rates;	/* n_cpus x SOAK_CALIBRATION_PERIODS: each CPU's own */
	double min_share;
};

static int calibration_period(void *arg, const struct soak_sample *a, const struct soak_sample *b)
{
	struct calibration *c = arg;
	double rate = soak_idle_rate(a, b, c->n_cpus);
	int kept = c->periods - SOAK_WARMUP_PERIODS;

	printf("calibrating: %.0f loops/sec\n", rate);
	if (kept >= 0) {
		c->rates[kept] = rate;
		for (int i = 0; i < c->n_cpus; i++) {
			c->cpu_rates[i * SOAK_CALIBRATION_PERIODS + kept] = soak_idle_rate_one(a, b, i);
			if (soak_cpu_share_one(a, b, i) < c->min_share)
				c->min_share = soak_cpu_share_one(a, b, i);
		}
	}
	return ++c->periods == SOAK_WARMUP_PERIODS + SOAK_CALIBRATION_PERIODS;
}

/* The median of v[0..SOAK_CALIBRATION_PERIODS), which it sorts. */
static double median_of_periods(double *v)
{
	qsort(v, SOAK_CALIBRATION_PERIODS, sizeof(*v), compare_doubles);
	return v[SOAK_CALIBRATION_PERIODS / 2];
}

/*
 * Each period's rate is per second of the soakers' own CPU time, so a task
 * that runs now and then during calibration does not lower it (it is still
 * warned about). Time the soakers are charged for but do not get, interrupts
 * and the hypervisor's share, stays in: it is the idle system's own.
 */
int soak_calibrate(struct soak *m, unsigned period_ms, volatile sig_atomic_t *stop)
{
	static struct soak_counts counts, old;
	static int cpus[CPU_SETSIZE];
	struct calibration c;
	double *cpu_rates;
	char why[400];
	int rc;

	if (counts_check_writable(SOAK_COUNTS_FILE) < 0) {
		snprintf(m->err, sizeof(m->err), "writing %s: %s", SOAK_COUNTS_FILE, strerror(errno));
		return -1;
	}
	cpu_rates = calloc((size_t)m->n_cpus * SOAK_CALIBRATION_PERIODS, sizeof(*cpu_rates));
	if (!cpu_rates) {
		snprintf(m->err, sizeof(m->err), "allocating the calibration: %s", strerror(errno));
		return -1;
	}
	if (soak_start(m) < 0) {
		free(cpu_rates);
		return -1;
	}
	/* Another task that took a soaker's CPU for a while: the calibration is made again. */
	for (int try = 1;; try++) {
		c = (struct calibration){ .n_cpus = m->n_cpus, .min_share = 1, .cpu_rates = cpu_rates };
		rc = soak_every(m, period_ms, stop, calibration_period, &c);
		if (rc < 0 || *stop || c.min_share >= SOAK_IDLE_SHARE_REFUSE ||
		    try == SOAK_CALIBRATION_TRIES)
			break;
		fprintf(stderr, "%s: a soaker had only %.1f%% of its CPU in a period (other tasks were "
				"running): calibrating again (%d of %d)\n", program_invocation_short_name,
			c.min_share * 100, try + 1, SOAK_CALIBRATION_TRIES);
	}
	if (rc == 0 && !*stop)
		for (int i = 0; i < m->n_cpus; i++)
			counts.cpu_per_sec[i] = median_of_periods(cpu_rates + i * SOAK_CALIBRATION_PERIODS);
	free(cpu_rates);
	memcpy(cpus, m->cpus, m->n_cpus * sizeof(*cpus));
	soak_close(m);
	if (rc < 0)
		return -1;
	if (*stop)
		return 1;
	counts.per_sec = median_of_periods(c.rates);
	counts.spread = (c.rates[SOAK_CALIBRATION_PERIODS - 1] - c.rates[0]) / counts.per_sec;
	if (counts.spread > SOAK_SPREAD_WARN)
		fprintf(stderr, "%s: warning: the calibration samples spread by %.1f%% (more than "
				"%.0f%%): the host was not idle throughout; the calibration is kept, but "
				"a load below 0 by up to %.1f points reads as noise against it: calibrate "
				"again once the host is idle\n",
			program_invocation_short_name, counts.spread * 100, SOAK_SPREAD_WARN * 100,
			counts.spread * 100);
	if (c.min_share < SOAK_IDLE_SHARE_REFUSE || !(counts.per_sec > 0)) {
		snprintf(m->err, sizeof(m->err),
			 "calibration refused: a soaker had only %.1f%% of its CPU in a period (less "
			 "than %.0f%%: other tasks were running); calibrate on an idle system",
			 c.min_share * 100, SOAK_IDLE_SHARE_REFUSE * 100);
		return -1;
	}
	if (c.min_share < SOAK_IDLE_SHARE_WARN)
		fprintf(stderr, "%s: warning: a soaker had only %.1f%% of its CPU in a period: "
				"other tasks were running\n",
			program_invocation_short_name, c.min_share * 100);
	/*
	 * A calibration well below the one it would replace was made on a busier
	 * (or slower) host: every later load would read high against it.
	 */
	if (counts_read(SOAK_COUNTS_FILE, cpus, m->n_cpus, &old, why, sizeof(why)) == 0 &&
	    old.per_sec > 0) {
		double change = counts.per_sec / old.per_sec - 1;

		if (change < -SOAK_REPLACE_DROP) {
			snprintf(m->err, sizeof(m->err),
				 "calibration refused: %.0f loops/sec is %.1f%% below %s's %.0f: the host "
				 "is busier, or slower, than when that was made; calibrate on an idle "
				 "system, or remove %s to keep this one", counts.per_sec, -change * 100,
				 SOAK_COUNTS_FILE, old.per_sec, SOAK_COUNTS_FILE);
			return -1;
		}
		if (change > SOAK_REPLACE_DROP)
			fprintf(stderr, "%s: note: %.0f loops/sec is %.1f%% above %s's %.0f, which it "
					"replaces: that one was made on a busier, or slower, host\n",
				program_invocation_short_name, counts.per_sec, change * 100,
				SOAK_COUNTS_FILE, old.per_sec);
	}
	if (counts_write(SOAK_COUNTS_FILE, &counts, cpus, m->n_cpus) < 0) {
		snprintf(m->err, sizeof(m->err), "writing %s: %s", SOAK_COUNTS_FILE,
			 strerror(errno));
		return -1;
	}
	printf("calibrated OK.  %.0f loops/sec\n", counts.per_sec);
	return 0;
}
