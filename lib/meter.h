/*
 * meter: what a transfer costs the whole system in CPU, by the soakers (see
 * soak): the soakers on the CPUs asked for, an idle reference (a tare taken
 * just before the transfer, or ./counts_per_sec alone), samples at the
 * transfer's first byte, its last and the peer's close, and the figures of
 * the window between them. zcc -c uses it; so can any end of a transfer.
 * Failures return -1 with a one-line reason in soak.err.
 */
#ifndef ZC_METER_H
#define ZC_METER_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "json.h"
#include "marks.h"
#include "options.h"
#include "sampling.h"

/* -T: how long the soakers run on the idle system before a transfer, by default. */
#define METER_DEFAULT_TARE_MS 1000

/* The moments a transfer is sampled at; its window ends at the close, or at the last byte. */
enum meter_moment { METER_FIRST_BYTE, METER_LAST_BYTE, METER_CLOSED };

struct meter {
	struct soak soak;
	struct soak_reference ref;	/* the tare, or ./counts_per_sec alone */
	struct soak_sample at[3];	/* enum meter_moment */
	int spoiled;			/* a sample after the first failed: no figures */
	long tare_ms;			/* how long the tare was; 0 with none */
	uint64_t tare_from_ns;		/* when it began (CLOCK_MONOTONIC) */
	int debug;
	char note[200];			/* what a load below 0 means, for after the summary */
	struct soak_cpu_figures *cpu;	/* each CPU's, of the window meter_figures took */
};

/* A window whose steal passed this share of the metered CPUs' time is flagged. */
#define METER_STEAL_FLAG (STEAL_FLAG_PCT / 100)

/*
 * Open the soakers on n_cpus CPUs (0: all this process may run on), or on
 * set's where it has any (-U), read the calibration for them, and start
 * them. 0, -1, or SOAK_TOO_MANY_CPUS.
 */
int meter_start(struct meter *m, int n_cpus, const struct cpu_list *set, int debug);

/*
 * meter_start() for a program's -c: past the CPUs there are, -N's or -U's
 * usage error (exit 2); any other failure closes what was started and exits
 * 1 with the reason.
 */
void meter_start_or_exit(struct meter *m, int n_cpus, const struct cpu_list *set, int debug);

/* Close what was started and exit 1 with the reason the meter failed. */
void meter_die(struct meter *m) __attribute__((noreturn));

/* Why the meter failed, one line. */
const char *meter_error(const struct meter *m);

/*
 * For a program that reaps its children itself: whether pid, now reaped,
 * was one of the soakers (the next sample then says a soaker is gone).
 * Async-signal-safe.
 */
int meter_reaped(struct meter *m, pid_t pid);

/* Kill and reap the soakers, from a signal handler too. */
void meter_kill(struct meter *m);

/*
 * The tare: the soakers alone on the system for tare_ms. Warns on stderr when
 * it is more than 2% off the calibration, and when the system was busy.
 */
int meter_tare(struct meter *m, long tare_ms);

/* Stop and reap the soakers and free what meter_start() took. */
void meter_close(struct meter *m);

/* A sample at a moment: 0, or -1 (after the first byte, the figures are spoiled). */
int meter_mark(struct meter *m, enum meter_moment when);

/*
 * A window's opening (its tare and first-byte sample), kept aside and put
 * back, for windows that overlap on one meter (zcs -u serves every sender in
 * one process): meter_keep_opening() copies it (0, or -1 when there is no
 * memory for it); meter_restore_opening() makes it the meter's again, with
 * no note, and frees the copy.
 */
struct meter_opening {
	struct soak_reference ref;
	struct soak_sample first;
	long tare_ms;
	uint64_t tare_from_ns;
};
int meter_keep_opening(const struct meter *m, struct meter_opening *o);
void meter_restore_opening(struct meter *m, struct meter_opening *o);

/*
 * Samples at moments of the caller's own (the turns' slots, zcs's samples
 * along zcc's), beside the meter's three: the CPUs it soaks (0 with no
 * meter, m NULL), room for a sample's readings, a sample now (0, or -1 when
 * a soaker is gone: meter_error() says why), and the figures of `bytes`
 * between two, against the meter's idle reference.
 */
int meter_cpus(const struct meter *m);
int meter_sample_init(const struct meter *m, struct soak_sample *s);
int meter_take(struct meter *m, struct soak_sample *s);
void meter_between(const struct meter *m, const struct soak_sample *a, const struct soak_sample *b,
		   uint64_t bytes, struct soak_figures *f);
/* The load on each of its CPUs between two samples, into loads[meter_cpus()]; and those CPUs. */
void meter_between_loads(const struct meter *m, const struct soak_sample *a,
			 const struct soak_sample *b, double *loads);
const int *meter_cpu_list(const struct meter *m);

/*
 * The figures of a transfer of `bytes` whose peer closed (confirmed) or not,
 * and m->note when the load is below 0. With debug, the load's two parts on
 * stderr; with debug > 1, each soaker's share of the window too.
 */
void meter_figures(struct meter *m, int confirmed, uint64_t bytes, struct soak_figures *f);

/* The figures on a summary line: ", load LOAD%, demand DEMAND us/KB, kernel LOAD%". */
void meter_print(FILE *out, const struct soak_figures *f);

/*
 * After the summary, the busiest CPU of the window meter_figures took, and
 * what the kernel counted on it, largest first: "busiest CPU 1: load 97.8%
 * (kernel: system 52%, softirq 41%, user 3%)"; and a line of the steal
 * where it passed METER_STEAL_FLAG.
 */
void meter_print_cpus(FILE *out, const struct meter *m, const struct soak_figures *f);

/*
 * -J's "cpus", each metered CPU's cpu, load, user, system, irq, softirq and
 * steal (percent of that CPU), and "busiest" {cpu, load}: null without
 * figures (f NULL).
 */
void meter_json_cpus(struct json *j, const struct meter *m, const struct soak_figures *f);
/* The same two of any n_cpus CPUs' figures (cyclesoak's period). */
void meter_cpus_print(FILE *out, const struct soak_cpu_figures *cpu, int n_cpus,
		      const struct soak_figures *f);
void meter_cpus_json(struct json *j, const struct soak_cpu_figures *cpu, int n_cpus);

/*
 * The figures as -J's "meter" object: cpus, tare_ms, seconds, load_pct,
 * demand_us_per_kb, kernel_pct, time_lost_pct, slowdown_pct and note; and
 * shared, unless it is below 0; steal_pct and steal_flagged; null without
 * figures (f NULL: no meter).
 */
void meter_json(struct json *j, const struct meter *m, const struct soak_figures *f, int shared);

/*
 * -C of zcc and zcs: calibrate on n_cpus (0: all) or set's (-U) exactly as
 * cyclesoak -C does, into the same file, each period period_ms long (their
 * -T, as cyclesoak -m). Returns 0; exits 1 with the reason on failure.
 */
int meter_calibrate(int n_cpus, const struct cpu_list *set, long period_ms, int debug);

/*
 * The meter's options, as zcc and zcs take them: -T, -N and -U only with
 * -c or -C, and not -N with -U (given: the options given, see opt_given).
 * A usage error if not.
 */
void meter_check_options(const char *given, int measure_cpu, int calibrate_only, int n_cpus);

/*
 * -T's value, read once all options are: how long the meter takes its idle
 * reference, each period of the calibration with -C (OPTION_PERIOD_MS),
 * the tare (tare: the program's own limits) without. A usage error if out
 * of its limits.
 */
long meter_option_T(const char *arg, int calibrate_only, enum option_value tare);

/*
 * -C calibrates and does nothing else: of the options given, the first that
 * means nothing to it (all but -C, -N, -T, -U and -d), or 0.
 */
int meter_calibrate_stray(const char *given);

/*
 * A server's meter (zcs -c): the soakers run for as long as it does, and
 * while it waits it samples them now and then into a ring that holds a
 * little more than the tare's length, so that each connection's tare is
 * the span of the ring that ends as it arrives.
 */
struct meter_ring {
	struct soak_sample *s;
	size_t n;		/* samples the ring holds */
	size_t taken;		/* samples taken so far; the latest is s[(taken - 1) % n] */
};

/* A ring for tares of tare_ms sampled every period_ms; the first sample taken now. */
int meter_ring_init(struct meter *m, struct meter_ring *r, long tare_ms, unsigned period_ms);
/* One more sample into the ring. */
int meter_ring_take(struct meter *m, struct meter_ring *r);
/*
 * The tare for a connection arriving now: a sample now, the span from the
 * latest sample at least tare_ms older to it (or the oldest the ring has), and
 * the sample now as the window's first. Says what meter_tare() says.
 */
int meter_ring_tare(struct meter *m, struct meter_ring *r, long tare_ms);

#endif
