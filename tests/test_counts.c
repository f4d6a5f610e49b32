/* The calibration file: written and read back, every bad file its own message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/counts.h"
#include "check.h"

static char dir[] = "/tmp/test_counts.XXXXXX";
static char path[64];

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

/* CPUs 0 to 15, the first n of which a meter of n CPUs soaks. */
static const int first[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

static int read_counts(const char *text, int n_cpus, struct soak_counts *c, char *why)
{
	write_file(text);
	return counts_read(path, first, n_cpus, c, why, 256);
}

static void counts_round_trip_in_the_2001_format_plus_cpus_and_spread(void)
{
	static struct soak_counts c = { .per_sec = 6084496.4, .spread = 0.0123 }, got;
	char why[256], text[128] = "";
	int cpus[2] = { 0, 3 };
	FILE *f;

	c.cpu_per_sec[0] = 3042000.2;
	c.cpu_per_sec[1] = 3042496.7;
	CHECK(counts_write(path, &c, cpus, 2) == 0);
	f = fopen(path, "r");
	CHECK(f && fread(text, 1, sizeof(text) - 1, f) > 0);
	fclose(f);
	CHECK_STR(text, "6084496\ncpus 2\nspread 1.23%\nper_cpu 0:3042000 3:3042497\n");
	CHECK(counts_read(path, cpus, 2, &got, why, sizeof(why)) == 0);
	CHECK(got.per_sec == 6084496);
	CHECK(got.spread > 0.01229 && got.spread < 0.01231);
	CHECK(got.per_cpu_known && got.cpu_per_sec[0] == 3042000 && got.cpu_per_sec[1] == 3042497);
}

static void a_file_without_spread_or_cpus_is_accepted(void)
{
	struct soak_counts c = { 0 };
	char why[256];

	CHECK(read_counts("1234567\n", 4, &c, why) == 0 && c.per_sec == 1234567 && isnan(c.spread));
	/* No rate a CPU: each the total's share. */
	CHECK(!c.per_cpu_known && c.cpu_per_sec[3] == 1234567 / 4.0);
	CHECK(read_counts("1234567", 1, &c, why) == 0);
	CHECK(read_counts("1234567\ncpus 1\n", 1, &c, why) == 0 && isnan(c.spread));
}

/* text as the file, read for n_cpus, is refused with the path followed by tail. */
static void check_refused(const char *text, int n_cpus, struct soak_counts *c, const char *tail)
{
	char why[256], want[512];

	CHECK(read_counts(text, n_cpus, c, why) == -1);
	snprintf(want, sizeof(want), "%s%s", path, tail);
	CHECK_STR(why, want);
}

static void each_bad_file_has_its_own_message(void)
{
	static const char not_a_count[] =
		": the first line is not a count of loops/sec: run 'cyclesoak -C' on an idle system";
	static const char not_spread[] =
		": the third line is not 'spread P%': run 'cyclesoak -C' on an idle system";
	static const char not_per_cpu[] =
		": the fourth line is not 'per_cpu CPU:RATE ...', a rate for each of its CPUs: run "
		"'cyclesoak -C' on an idle system";
	static const struct {
		const char *text;
		int cpus;
	} bad_per_cpu[] = {
		{ "100\ncpus 2\nspread 1.2%\nper_cpu 0:50\n", 2 },
		{ "100\ncpus 1\nspread 1.2%\nper_cpu 0:50 1:50\n", 1 },
		{ "100\ncpus 2\nspread 1.2%\nper_cpu 0:50 0:50\n", 2 },
		{ "100\ncpus 2\nspread 1.2%\nper_cpu 0:50 1:0\n", 2 },
		{ "100\ncpus 2\nspread 1.2%\nper_cpu 0:50  1:50\n", 2 },
		{ "100\ncpus 2\nspread 1.2%\nper_cpu 0:50 1:50 \n", 2 },
		{ "100\ncpus 1\nspread 1.2%\nper_cpu 1024:50\n", 1 },
	};
	static struct soak_counts c = { .per_sec = 42 };
	char why[256], want[512];

	check_refused("", 1, &c, " is empty: run 'cyclesoak -C' on an idle system");
	check_refused("0\ncpus 1\n", 1, &c,
		      ": the calibrated rate is 0: run 'cyclesoak -C' on an idle system");
	check_refused("12 34\n", 1, &c, not_a_count);
	check_refused("99999999999999999999999\n", 1, &c, not_a_count);
	check_refused("100\ncpus two\n", 1, &c,
		      ": the second line is not 'cpus N': run 'cyclesoak -C' on an idle system");
	check_refused("100\ncpus 1\n", 2, &c,
		      " was calibrated on 1 CPU and this run uses 2: calibrate with "
		      "'cyclesoak -C -N 2' or measure with -N 1");
	check_refused("100\ncpus 1\nspread 1.2\n", 1, &c, not_spread);
	check_refused("100\ncpus 1\nspread 1.2%x\n", 1, &c, not_spread);
	/* A rate missing, one too many, a CPU twice, a rate of 0, a space too many, a CPU out of range. */
	for (size_t i = 0; i < sizeof(bad_per_cpu) / sizeof(bad_per_cpu[0]); i++)
		check_refused(bad_per_cpu[i].text, bad_per_cpu[i].cpus, &c, not_per_cpu);
	check_refused("100\ncpus 1\nspread 1.2%\nper_cpu 0:50\nmore\n", 1, &c,
		      ": it has more than four lines: run 'cyclesoak -C' on an idle system");
	/* A rate a CPU serves any set of its CPUs; a CPU it did not calibrate is refused. */
	check_refused("100\ncpus 2\nspread 1.2%\nper_cpu 4:50 6:50\n", 1, &c,
		      " has no rate for CPU 0 (it calibrated CPUs 4 and 6): calibrate the CPUs this "
		      "run uses");
	unlink(path);
	CHECK(counts_read(path, first, 1, &c, why, sizeof(why)) == -1);
	snprintf(want, sizeof(want),
		 "%s: No such file or directory: run 'cyclesoak -C' on an idle system", path);
	CHECK_STR(why, want);
	CHECK(c.per_sec == 42);
}

/* What is parsed from a stream is what is read from a file: the message names the path given. */
static void a_calibration_parses_from_any_stream(void)
{
	static char text[] = "5000\ncpus 3\nspread 0.50%\n";
	FILE *f = fmemopen(text, strlen(text), "r");
	struct soak_counts c = { 0 };
	char why[256];

	CHECK(counts_parse(f, "here", first, 3, &c, why, sizeof(why)) == 0);
	CHECK(c.per_sec == 5000 && c.spread > 0.00499 && c.spread < 0.00501);
	rewind(f);
	CHECK(counts_parse(f, "here", first, 2, &c, why, sizeof(why)) == -1);
	CHECK_STR(why, "here was calibrated on 3 CPUs and this run uses 2: calibrate with "
		       "'cyclesoak -C -N 2' or measure with -N 3");
	fclose(f);
}

/*
 * A calibration of CPUs 0 to 3 serves a meter of CPU 2 alone (its own rate),
 * of CPUs 1 and 3 (their sum), and of all four (the file's total, the median
 * of the whole's samples, as 2001 had it).
 */
static void a_rate_a_cpu_serves_any_set_of_its_cpus(void)
{
	static const int two[] = { 2 }, odd[] = { 1, 3 }, all[] = { 0, 1, 2, 3 };
	static struct soak_counts c;
	char why[256];

	write_file("4000\ncpus 4\nspread 0.50%\nper_cpu 0:990 1:1000 2:1010 3:1020\n");
	CHECK(counts_read(path, two, 1, &c, why, sizeof(why)) == 0);
	CHECK(c.per_sec == 1010 && c.cpu_per_sec[0] == 1010);
	CHECK(counts_read(path, odd, 2, &c, why, sizeof(why)) == 0);
	CHECK(c.per_sec == 2020 && c.cpu_per_sec[0] == 1000 && c.cpu_per_sec[1] == 1020);
	CHECK(counts_read(path, all, 4, &c, why, sizeof(why)) == 0);
	CHECK(c.per_sec == 4000 && c.cpu_per_sec[0] == 990 && c.cpu_per_sec[3] == 1020);
	/* A file of another zc, with no rate a CPU, serves its own count of CPUs alone. */
	write_file("4000\ncpus 4\nspread 0.50%\n");
	CHECK(counts_read(path, two, 1, &c, why, sizeof(why)) == -1);
}

/* A NUL byte does not end a line early: "12", NUL, junk is no count of 12. */
static void a_nul_byte_in_a_line_is_refused(void)
{
	static const char text[] = "12\0junk\n";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct soak_counts c = { 0 };
	char why[256];

	CHECK(counts_parse(f, "here", first, 1, &c, why, sizeof(why)) == -1);
	CHECK_STR(why, "here: the first line is not a count of loops/sec: run 'cyclesoak -C' on an "
		       "idle system");
	fclose(f);
}

/* A directory that takes no new file is found out before a calibration, not after. */
static void a_directory_is_checked_for_writing(void)
{
	char missing[128];

	CHECK(counts_check_writable(path) == 0);
	snprintf(missing, sizeof(missing), "%s/no/such/dir/counts_per_sec", dir);
	CHECK(counts_check_writable(missing) == -1);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/counts_per_sec", dir);
	RUN(counts_round_trip_in_the_2001_format_plus_cpus_and_spread);
	RUN(a_file_without_spread_or_cpus_is_accepted);
	RUN(each_bad_file_has_its_own_message);
	RUN(a_calibration_parses_from_any_stream);
	RUN(a_nul_byte_in_a_line_is_refused);
	RUN(a_rate_a_cpu_serves_any_set_of_its_cpus);
	RUN(a_directory_is_checked_for_writing);
	unlink(path);
	rmdir(dir);
	return CHECK_EXIT();
}
