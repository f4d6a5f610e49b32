#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/cpu.h"
#include "../lib/soak.h"
#include "../lib/timing.h"
#include "check.h"

void usage(FILE *to)
{
	fprintf(to, "usage: test_soak\n");
}

static char dir[] = "/tmp/test_soak.XXXXXX";
static char path[64];

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static int read_counts(const char *text, int n_cpus, double *rate, char *why)
{
	write_file(text);
	return soak_read_counts(path, n_cpus, rate, why, 256);
}

static void counts_round_trip_in_the_2001_format_plus_cpus(void)
{
	double rate = 0;
	char why[256], text[64] = "";
	FILE *f;

	CHECK(soak_write_counts(path, 6084496.4, 2) == 0);
	f = fopen(path, "r");
	CHECK(f && fread(text, 1, sizeof(text) - 1, f) > 0);
	fclose(f);
	CHECK_STR(text, "6084496\ncpus 2\n");
	CHECK(soak_read_counts(path, 2, &rate, why, sizeof(why)) == 0);
	CHECK(rate == 6084496);
}

static void a_one_line_file_is_accepted_for_any_cpu_count(void)
{
	double rate = 0;
	char why[256];

	CHECK(read_counts("1234567\n", 4, &rate, why) == 0 && rate == 1234567);
	CHECK(read_counts("1234567", 1, &rate, why) == 0);
}

static void each_bad_file_has_its_own_message(void)
{
	double rate = 42;
	char why[256], want[512];

	CHECK(read_counts("", 1, &rate, why) == -1);
	snprintf(want, sizeof(want), "%s is empty: run 'cyclesoak -C' on an idle system", path);
	CHECK_STR(why, want);
	CHECK(read_counts("0\ncpus 1\n", 1, &rate, why) == -1);
	snprintf(want, sizeof(want), "%s: the calibrated rate is 0: run 'cyclesoak -C' on an idle system", path);
	CHECK_STR(why, want);
	CHECK(read_counts("12 34\n", 1, &rate, why) == -1);
	snprintf(want, sizeof(want),
		 "%s: the first line is not a count of loops/sec: run 'cyclesoak -C' on an idle system", path);
	CHECK_STR(why, want);
	CHECK(read_counts("99999999999999999999999\n", 1, &rate, why) == -1);
	CHECK_STR(why, want);
	CHECK(read_counts("100\ncpus two\n", 1, &rate, why) == -1);
	snprintf(want, sizeof(want), "%s: the second line is not 'cpus N': run 'cyclesoak -C' on an idle system", path);
	CHECK_STR(why, want);
	CHECK(read_counts("100\ncpus 1\n", 2, &rate, why) == -1);
	snprintf(want, sizeof(want), "%s was calibrated on 1 CPU and this run uses 2: calibrate with "
				     "'cyclesoak -C -N 2' or measure with -N 1", path);
	CHECK_STR(why, want);
	unlink(path);
	CHECK(soak_read_counts(path, 1, &rate, why, sizeof(why)) == -1);
	snprintf(want, sizeof(want), "%s: No such file or directory: run 'cyclesoak -C' on an idle system", path);
	CHECK_STR(why, want);
	CHECK(rate == 42);
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
	struct soak_sample a = { .ns = NSEC_PER_SEC, .steps = s1 };
	struct soak_sample b = { .ns = NSEC_PER_SEC * 3 / 2, .steps = s2 };

	CHECK(soak_rate_one(&a, &b, 0) == 1000);
	CHECK(soak_rate_one(&a, &b, 1) == 4000);
	CHECK(soak_rate(&a, &b, 2) == 5000);
}

static void soakers_count_and_are_reaped(void)
{
	int cpus[CPU_MAX_INDEX + 1], n = soak_choose_cpus(1, cpus, CPU_MAX_INDEX + 1);
	struct soak s;
	struct soak_sample a, b;

	CHECK(n == 1);
	soak_start(&s, cpus, 1, 0);
	soak_sample_init(&s, &a);
	soak_sample_init(&s, &b);
	soak_take(&s, &a);
	usleep(50000);
	soak_take(&s, &b);
	CHECK(soak_rate(&a, &b, 1) > 0);
	soak_sample_free(&a);
	soak_sample_free(&b);
	soak_stop(&s);
	soak_stop(&s);
	errno = 0;
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/counts_per_sec", dir);
	RUN(counts_round_trip_in_the_2001_format_plus_cpus);
	RUN(a_one_line_file_is_accepted_for_any_cpu_count);
	RUN(each_bad_file_has_its_own_message);
	RUN(load_is_the_shortfall_from_calibration);
	RUN(rates_are_per_second_between_samples);
	RUN(soakers_count_and_are_reaped);
	unlink(path);
	rmdir(dir);
	return CHECK_EXIT();
}
