/* /proc/stat: the lines of the CPUs asked for, in ns, at any uptime. */
#include <stdio.h>
#include <string.h>

#include "../lib/procstat.h"
#include "../lib/timing.h"
#include "check.h"

/* Parse a /proc/stat text for the CPUs listed. */
static int parse_stat(const char *text, const int *cpus, int n, uint64_t *busy, uint64_t *all)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc = procstat_parse(f, cpus, n, 100, NULL, busy, all);

	fclose(f);
	return rc;
}

static void proc_stat_counts_the_cpus_asked_for_and_not_the_total_line(void)
{
	/* The total line's first figure, 1, is no CPU number. */
	const char *text = "cpu  1 0 0 1000 0 0 0 0 0 0\n"
			   "cpu0 100 0 0 900 0 0 0 0 0 0\n"
			   "cpu1 10 20 30 400 50 60 70 80 0 0\n"
			   "intr 12345\n";
	int one[1] = { 1 }, both[2] = { 0, 1 };
	uint64_t busy, all;

	CHECK(parse_stat(text, one, 1, &busy, &all) == 0);
	/* busy: user, nice, system, irq, softirq; all adds idle, iowait, steal. At 100 Hz. */
	CHECK_EQ_U64(busy, (10 + 20 + 30 + 60 + 70) * (NSEC_PER_SEC / 100));
	CHECK_EQ_U64(all, (10 + 20 + 30 + 400 + 50 + 60 + 70 + 80) * (NSEC_PER_SEC / 100));
	CHECK(parse_stat(text, both, 2, &busy, &all) == 0);
	CHECK_EQ_U64(all, (1000 + 720) * (NSEC_PER_SEC / 100));
}

static void proc_stat_ticks_of_a_long_uptime_do_not_wrap(void)
{
	/* 3e10 ticks: 16.7 days on 128 CPUs at 100 Hz would wrap ticks x 10^9. */
	const char *text = "cpu0 30000000000 0 0 7 0 0 0 0 0 0\n";
	int cpu0[1] = { 0 };
	uint64_t busy, all;

	CHECK(parse_stat(text, cpu0, 1, &busy, &all) == 0);
	CHECK_EQ_U64(busy, 300000000ULL * NSEC_PER_SEC);
	CHECK_EQ_U64(all, 300000000ULL * NSEC_PER_SEC + 70000000);
}

/* This host's own /proc/stat: CPU 0 has been busy and idle since boot, and busy is part of all. */
static void this_hosts_cpu_0_reads_as_part_busy(void)
{
	int cpu0[1] = { 0 };
	uint64_t busy = 1, all = 0;

	procstat_read(cpu0, 1, NULL, &busy, &all);
	CHECK(all > 0);
	CHECK(busy > 0 && busy < all);
	CHECK(procstat_parse(stdin, cpu0, 1, 0, NULL, &busy, &all) == -1);
}

/* Each CPU asked for, by its place in the list, with every column; a CPU with no line is all 0. */
static void each_cpus_columns_come_in_the_order_asked(void)
{
	const char *text = "cpu  1 0 0 1000 0 0 0 0 0 0\n"
			   "cpu0 100 0 0 900 0 0 0 0 0 0\n"
			   "cpu1 10 20 30 400 50 60 70 80 0 0\n"
			   "intr 12345\n";
	int cpus[3] = { 1, 7, 0 };
	struct procstat_cpu each[3];
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	uint64_t busy, all, tick = NSEC_PER_SEC / 100;

	CHECK(procstat_parse(f, cpus, 3, 100, each, &busy, &all) == 0);
	fclose(f);
	CHECK_EQ_U64(each[0].user, 10 * tick);
	CHECK_EQ_U64(each[0].nice, 20 * tick);
	CHECK_EQ_U64(each[0].system, 30 * tick);
	CHECK_EQ_U64(each[0].idle, 400 * tick);
	CHECK_EQ_U64(each[0].iowait, 50 * tick);
	CHECK_EQ_U64(each[0].irq, 60 * tick);
	CHECK_EQ_U64(each[0].softirq, 70 * tick);
	CHECK_EQ_U64(each[0].steal, 80 * tick);
	CHECK_EQ_U64(procstat_all(&each[1]), 0);
	CHECK_EQ_U64(each[2].user, 100 * tick);
	CHECK_EQ_U64(procstat_busy(&each[2]), 100 * tick);
	CHECK_EQ_U64(all, (1000 + 720) * tick);
}

int main(void)
{
	RUN(proc_stat_counts_the_cpus_asked_for_and_not_the_total_line);
	RUN(proc_stat_ticks_of_a_long_uptime_do_not_wrap);
	RUN(this_hosts_cpu_0_reads_as_part_busy);
	RUN(each_cpus_columns_come_in_the_order_asked);
	return CHECK_EXIT();
}
