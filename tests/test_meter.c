/* The meter: started from a calibration, tared, marked, and its figures and note. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/meter.h"
#include "../lib/timing.h"
#include "check.h"

static char dir[] = "/tmp/test_meter.XXXXXX";

/* The window's end is the close when the peer closed, else the last byte; below 0 is noted. */
static void figures_end_the_window_at_the_close_or_the_last_byte(void)
{
	uint64_t s0[1] = { 0 }, s1[1] = { 150 }, s2[1] = { 200 }, c[3][1] = { { 0 }, { 1 }, { 2 } };
	struct meter m = { .soak = { .n_cpus = 1 },
			   .ref = { .calibration = { .per_sec = 100, .spread = 0.01 } } };
	struct soak_figures f;

	m.at[METER_FIRST_BYTE] = (struct soak_sample){ .ns = 0, .steps = s0, .cpu_ns = c[0] };
	m.at[METER_LAST_BYTE] = (struct soak_sample){ .ns = NSEC_PER_SEC, .steps = s1, .cpu_ns = c[1] };
	m.at[METER_CLOSED] = (struct soak_sample){ .ns = 2 * NSEC_PER_SEC, .steps = s2,
						   .cpu_ns = c[2] };
	/* Closed: 200 steps in 2 s against 100 a second, no load; unconfirmed: 150 in 1 s. */
	meter_figures(&m, 1, 1024, &f);
	CHECK(f.load == 0 && f.ns == 2 * NSEC_PER_SEC && m.note[0] == '\0');
	meter_figures(&m, 0, 1024, &f);
	CHECK(f.load == -0.5 && f.ns == NSEC_PER_SEC);
	CHECK_STR(m.note, "the load measured, -50.0%, is below 0 by more than the calibration's "
			  "spread of 1.0 points: recalibrate on an idle system");
}

/*
 * Overlapping windows on one meter (zcs -u's senders): an opening kept aside
 * is the meter's again when put back, whatever opened since, and its note
 * is cleared; a window between two samples of one's own has the figures
 * the meter's reference gives them.
 */
static void an_opening_kept_aside_comes_back_whole(void)
{
	uint64_t s0[2] = { 10, 20 }, c0[2] = { 1, 2 };
	uint64_t s2[2] = { 110, 120 }, c2[2] = { 1 + NSEC_PER_SEC, 2 + NSEC_PER_SEC };
	struct meter m = { .soak = { .n_cpus = 2 }, .tare_ms = 700, .tare_from_ns = 5,
			   .ref = { .calibration = { .per_sec = 200, .spread = 0.01 },
				    .rate = 42 } };
	struct meter_opening o;
	struct soak_figures f;

	m.at[METER_FIRST_BYTE] = (struct soak_sample){ .ns = 1000, .steps = s0, .cpu_ns = c0,
						       .stat_busy_ns = 7, .stat_all_ns = 70 };
	CHECK(meter_keep_opening(&m, &o) == 0);
	/* Another sender's window opens: its tare and first sample replace these. */
	s0[0] = s0[1] = 0;
	c0[0] = c0[1] = 0;
	m.at[METER_FIRST_BYTE].ns = 5000;
	m.ref.rate = 1;
	m.tare_ms = 1;
	strcpy(m.note, "another's");
	meter_restore_opening(&m, &o);
	CHECK(m.at[METER_FIRST_BYTE].ns == 1000);
	CHECK(m.at[METER_FIRST_BYTE].stat_busy_ns == 7 && m.at[METER_FIRST_BYTE].stat_all_ns == 70);
	CHECK(s0[0] == 10 && s0[1] == 20 && c0[0] == 1 && c0[1] == 2);
	CHECK(m.at[METER_FIRST_BYTE].steps == s0);
	CHECK(m.ref.rate == 42 && m.tare_ms == 700 && m.tare_from_ns == 5);
	CHECK_STR(m.note, "");
	CHECK(meter_cpus(&m) == 2 && meter_cpus(NULL) == 0);
	/* 100 steps on each CPU in 1 s, its whole time, against 200 a second for both: no load. */
	meter_between(&m, &(struct soak_sample){ .ns = 0, .steps = s0, .cpu_ns = c0 },
		      &(struct soak_sample){ .ns = NSEC_PER_SEC, .steps = s2, .cpu_ns = c2 }, 1024,
		      &f);
	CHECK(f.ns == NSEC_PER_SEC);
	CHECK(fabs(f.load) < 1e-9 && fabs(f.time_lost) < 1e-9);
}

/* Without ./counts_per_sec the meter does not start, and says so. */
static void a_missing_calibration_is_an_error(void)
{
	struct meter m = { 0 };

	CHECK(meter_start(&m, 1, NULL, 0) == -1);
	CHECK_STR(m.soak.err, "./counts_per_sec: No such file or directory: run 'cyclesoak -C' on "
			      "an idle system");
	meter_close(&m);
}

/* Started, tared, marked at each moment: the figures are numbers. */
static void a_tared_window_gives_figures(void)
{
	struct meter m = { 0 };
	struct soak_figures f;
	FILE *cal = fopen("counts_per_sec", "w");

	CHECK(cal && fputs("3000000\ncpus 1\nspread 1.00%\n", cal) >= 0 && fclose(cal) == 0);
	if (meter_start(&m, 1, NULL, 0) < 0) {
		CHECK(!"meter_start");
		printf("#   %s\n", m.soak.err);
		return;
	}
	CHECK(meter_tare(&m, 100) == 0 && m.ref.tared && m.ref.idle_rate > 0);
	CHECK(meter_mark(&m, METER_FIRST_BYTE) == 0);
	usleep(50000);
	CHECK(meter_mark(&m, METER_LAST_BYTE) == 0);
	CHECK(meter_mark(&m, METER_CLOSED) == 0 && !m.spoiled);
	meter_figures(&m, 1, 1 << 20, &f);
	CHECK(isfinite(f.load) && f.load > -1 && f.load <= 1 && f.ns >= 50000000);
	meter_close(&m);
	unlink("counts_per_sec");
}

/* -C's options: the first that is not -C, -N or -d; and a soaker reaped is marked gone. */
static void calibration_strays_and_reaped_soakers(void)
{
	pid_t pids[2] = { 101, 102 };
	struct meter m = { .soak = { .n_cpus = 2, .pids = pids } };

	CHECK(meter_calibrate_stray("") == 0);
	CHECK(meter_calibrate_stray("CNd") == 0);
	CHECK(meter_calibrate_stray("CdJc") == 'J');
	CHECK(meter_calibrate_stray("cC") == 'c');
	CHECK(!meter_reaped(&m, 103));
	CHECK(meter_reaped(&m, 102));
	CHECK(pids[0] == 101 && pids[1] == 0);
	snprintf(m.soak.err, sizeof(m.soak.err), "soaker on CPU 1 gone");
	CHECK_STR(meter_error(&m), "soaker on CPU 1 gone");
}

int main(void)
{
	if (!mkdtemp(dir) || chdir(dir) < 0)
		return 1;
	RUN(figures_end_the_window_at_the_close_or_the_last_byte);
	RUN(a_missing_calibration_is_an_error);
	RUN(a_tared_window_gives_figures);
	RUN(calibration_strays_and_reaped_soakers);
	RUN(an_opening_kept_aside_comes_back_whole);
	rmdir(dir);
	return CHECK_EXIT();
}
