/* What samples say: rates, shares, the load against a tare or the calibration, the figures. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../lib/sampling.h"
#include "../lib/timing.h"
#include "check.h"

static void a_load_below_0_is_measured_against_the_spread(void)
{
	struct soak_counts c = { .per_sec = 1, .spread = 0.015 }, old = { .per_sec = 1, .spread = NAN };
	char buf[160];

	CHECK(soak_below_zero(0, &c, buf, sizeof(buf)) == NULL);
	CHECK_STR(soak_below_zero(-0.01, &c, buf, sizeof(buf)),
		  "below 0, within the calibration's spread of 1.5 points");
	CHECK_STR(soak_below_zero(-0.02, &c, buf, sizeof(buf)),
		  "below 0 by more than the calibration's spread of 1.5 points: recalibrate on an "
		  "idle system");
	CHECK_STR(soak_below_zero(-0.02, &old, buf, sizeof(buf)),
		  "below 0: the meter's noise, or a calibration made on a busier system");
}

static void load_is_the_shortfall_from_calibration(void)
{
	CHECK(soak_load(1000, 1000) == 0);
	CHECK(soak_load(750, 1000) == 0.25);
	CHECK(soak_load(0, 1000) == 1);
	CHECK(soak_load(1010, 1000) < 0); /* not clamped */
}

static void rates_are_per_second_between_samples(void)
{
	uint64_t s1[2] = { 100, 1000 }, s2[2] = { 600, 3000 };
	uint64_t c1[2] = { 0, 0 }, c2[2] = { NSEC_PER_SEC / 4, NSEC_PER_SEC / 2 };
	struct soak_sample a = { .ns = NSEC_PER_SEC, .steps = s1, .cpu_ns = c1 };
	struct soak_sample b = { .ns = NSEC_PER_SEC * 3 / 2, .steps = s2, .cpu_ns = c2 };

	CHECK(soak_rate_one(&a, &b, 0) == 1000);
	CHECK(soak_rate_one(&a, &b, 1) == 4000);
	CHECK(soak_rate(&a, &b, 2) == 5000);
	/* Half and all of the half second: 500 steps in 0.25 s, 2000 in 0.5 s. */
	CHECK(soak_cpu_share_one(&a, &b, 0) == 0.5);
	CHECK(soak_cpu_share_one(&a, &b, 1) == 1);
	CHECK(soak_idle_rate(&a, &b, 2) == 2000 + 4000);
}

static void kernel_load_is_proc_stat_busy_less_the_soakers(void)
{
	uint64_t steps[1] = { 0 }, c1[1] = { 0 }, c2[1] = { 600 };
	struct soak_sample a = { .steps = steps, .cpu_ns = c1, .stat_busy_ns = 100,
				 .stat_all_ns = 1000 };
	struct soak_sample b = { .steps = steps, .cpu_ns = c2, .stat_busy_ns = 1000,
				 .stat_all_ns = 2000 };

	/* 900 busy of 1000, 600 of it the soaker's. */
	CHECK(soak_kernel_load(&a, &b, 1) > 0.2999 && soak_kernel_load(&a, &b, 1) < 0.3001);
	b.stat_all_ns = 0;
	CHECK(isnan(soak_kernel_load(&a, &b, 1)));
}

static void a_tare_in_which_a_soaker_had_no_cpu_is_refused(void)
{
	uint64_t s1[2] = { 0, 0 }, s2[2] = { 500, 0 };
	uint64_t c1[2] = { 0, 7 }, c2[2] = { NSEC_PER_SEC / 4, 7 };
	int cpus[2] = { 0, 3 };
	struct soak m = { .n_cpus = 2, .cpus = cpus };
	struct soak_sample a = { .ns = 0, .steps = s1, .cpu_ns = c1 };
	struct soak_sample b = { .ns = NSEC_PER_SEC / 5, .steps = s2, .cpu_ns = c2 };
	struct soak_reference ref = { .rate = -1, .idle_rate = -1 };

	CHECK(soak_tare(&m, &a, &b, &ref) == -1);
	CHECK_STR(m.err, "the tare: the soaker on CPU 3 had no CPU time in 200 ms, so there is no "
			 "idle rate to measure against: the CPU was busy throughout (a longer -T "
			 "may find it idle)");
	CHECK(!ref.tared && ref.rate == -1 && ref.idle_rate == -1);
	c2[1] = 8;
	s2[1] = 1;
	CHECK(soak_tare(&m, &a, &b, &ref) == 0);
	CHECK(ref.tared && ref.rate == 2500 + 5 && ref.idle_rate == 2000 + 1e9);
	CHECK(fabs(ref.cpu_share - (1.25 + 5e-9) / 2) < 1e-12);
}

/* A window's figures: against the tare, or against the calibration alone. */
static void figures_are_the_load_added_and_its_cpu_time_per_kib(void)
{
	uint64_t s1[1] = { 0 }, s2[1] = { 600 }, c1[1] = { 0 }, c2[1] = { NSEC_PER_SEC };
	struct soak_sample a = { .ns = 0, .steps = s1, .cpu_ns = c1, .stat_busy_ns = 0,
				 .stat_all_ns = 1 };
	struct soak_sample b = { .ns = 2 * NSEC_PER_SEC, .steps = s2, .cpu_ns = c2,
				 .stat_busy_ns = 3 * NSEC_PER_SEC / 2, .stat_all_ns = 2 * NSEC_PER_SEC + 1 };
	struct soak_reference tared = { .calibration = { .per_sec = 1000 }, .tared = 1,
					.rate = 400, .idle_rate = 500, .kernel = 0.1, .cpu_share = 0.6 };
	struct soak_reference file = { .calibration = { .per_sec = 1000 } };
	struct soak_figures f;

	/* 300 steps a second now: the tare's 400 less that, of 500 with all of the CPU. */
	soak_figures(&tared, &a, &b, 1, 1024 * 1000, &f);
	CHECK(fabs(f.load - 0.2) < 1e-9);
	/* /proc/stat: 1.5 s busy of 2, less the soaker's 1 s, less the tare's 10%. */
	CHECK(fabs(f.kernel - 0.15) < 1e-9);
	CHECK_EQ_U64(f.ns, 2 * NSEC_PER_SEC);
	/* 0.2 of a CPU for 2 s is 400000 us, over 1000 KiB. */
	CHECK(fabs(f.demand_us_per_kb - 400) < 1e-6);
	/* The soaker had half of the CPU, against 60% in the tare; the rest is its slowdown. */
	CHECK(fabs(f.time_lost - 0.1) < 1e-9 && fabs(f.slowdown - 0.1) < 1e-9);
	soak_figures(&file, &a, &b, 1, 0, &f);
	CHECK(fabs(f.load - 0.7) < 1e-9);
	CHECK(fabs(f.kernel - 0.25) < 1e-9);
	CHECK(f.demand_us_per_kb == 0);
	/* Against the calibration, which had all of the CPU. */
	CHECK(fabs(f.time_lost - 0.5) < 1e-9 && fabs(f.slowdown - 0.2) < 1e-9);
}

/*
 * A CPU whose soaker made no step over the window was at its ceiling: all
 * of it, SOAK_CEILING, where the tare's rate over its idle rate (0.8
 * here) was taken for it before; a CPU whose soaker ran reads as before.
 */
static void a_cpu_whose_soaker_made_no_step_is_at_its_ceiling(void)
{
	uint64_t s1[2] = { 0, 0 }, s2[2] = { 0, 300 }, c1[2] = { 0, 0 }, c2[2] = { 0, NSEC_PER_SEC / 2 };
	struct soak_sample a = { .ns = 0, .steps = s1, .cpu_ns = c1 };
	struct soak_sample b = { .ns = NSEC_PER_SEC, .steps = s2, .cpu_ns = c2 };
	struct soak_reference ref = { .calibration = { .per_sec = 1000, .cpu_per_sec = { 500, 500 } },
				      .tared = 1, .cpu_rate = { 400, 400 }, .cpu_idle_rate = { 500, 500 } };
	double loads[2];

	soak_cpu_loads(&ref, &a, &b, 2, loads);
	CHECK(loads[0] == SOAK_CEILING);
	CHECK(fabs(loads[1] - 0.2) < 1e-9);
	ref.tared = 0;
	soak_cpu_loads(&ref, &a, &b, 2, loads);
	CHECK(loads[0] == SOAK_CEILING);
	CHECK(fabs(loads[1] - 0.4) < 1e-9);
}

int main(void)
{
	RUN(a_load_below_0_is_measured_against_the_spread);
	RUN(load_is_the_shortfall_from_calibration);
	RUN(rates_are_per_second_between_samples);
	RUN(kernel_load_is_proc_stat_busy_less_the_soakers);
	RUN(a_tare_in_which_a_soaker_had_no_cpu_is_refused);
	RUN(figures_are_the_load_added_and_its_cpu_time_per_kib);
	RUN(a_cpu_whose_soaker_made_no_step_is_at_its_ceiling);
	return CHECK_EXIT();
}
