/*
 * samplecost: what one meter sample costs, for scripts/meter-scale. Two
 * figures, each the median of -r rounds of -n calls, in ns of this
 * thread's CPU time a call:
 *   parse N   procstat_parse of a /proc/stat of N CPUs made up here (each
 *             line as the kernel writes one), every CPU asked for: what a
 *             sample reads of the kernel's per-CPU counts on a host of N;
 *   stat      this host's /proc/stat read and parsed (procstat_read), the
 *             kernel's writing of it included, every CPU asked for;
 *   sample    a whole sample of a meter of every CPU here (soak_take: the
 *             soakers' counts and CPU clocks and /proc/stat), the soakers
 *             running.
 *
 * usage: samplecost [-n calls] [-r rounds] parse N | stat | sample
 * prints: parse N: M ns a call (R rounds of C), P ns a CPU
 *         stat: M ns a call (R rounds of C), P ns a CPU, N CPUs
 *         sample: M ns a call (R rounds of C), P ns a CPU, N CPUs
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/cpu.h"
#include "../lib/opt.h"
#include "../lib/options.h"
#include "../lib/procstat.h"
#include "../lib/soak.h"
#include "../lib/timing.h"

struct rounds {
	long calls, rounds;
};

static const struct option_row rows[] = {
	{ 'n', OPTION_NUMBER, "calls", OPTION_FIELD(struct rounds, calls), .min = 1,
	  .max = 10000000, .help = "calls a round (default 2000)" },
	{ 'r', OPTION_NUMBER, "rounds", OPTION_FIELD(struct rounds, rounds), .min = 1, .max = 1000,
	  .help = "rounds, of which the median is given (default 9)" },
	OPTIONS_ROW_HELP,
	{ 0 }
};

static const struct option_table table = {
	.about = "What one meter sample costs, in ns of CPU time a call.",
	.rows = rows,
	.operands = "parse N | stat | sample",
};

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), by_value);
	return v[n / 2];
}

/* A /proc/stat of n CPUs, each line of large counts, as the kernel's after days up. */
static char *made_up_stat(int n, size_t *len)
{
	size_t cap = 4096 + (size_t)n * 128;
	char *text = malloc(cap);
	size_t at = 0;

	if (!text)
		err(1, "malloc");
	at += snprintf(text + at, cap - at, "cpu  %d 123 4567890 987654321 12345 0 65432 0 0 0\n", 1234567 * n);
	for (int c = 0; c < n; c++)
		at += snprintf(text + at, cap - at, "cpu%d 1234567 123 4567890 987654321 12345 0 65432 %d 0 0\n",
			       c, c);
	at += snprintf(text + at, cap - at, "intr 123456789 0 0 0\nctxt 987654321\nbtime 1764300000\n"
		       "processes 123456\nprocs_running 1\nprocs_blocked 0\nsoftirq 1 2 3 4 5 6 7 8 9 10 11\n");
	*len = at;
	return text;
}

int main(int argc, char **argv)
{
	struct rounds o = { .calls = 2000, .rounds = 9 };
	long calls, rounds;
	double *per;
	int n_cpus = 0;
	char given[8];

	optind = options_parse(&table, &o, argc, argv, given, sizeof(given));
	calls = o.calls;
	rounds = o.rounds;
	per = calloc(rounds, sizeof(*per));
	if (!per)
		err(1, "calloc");
	if (optind + 2 == argc && strcmp(argv[optind], "parse") == 0) {
		size_t len;
		char *text;
		int *cpus;
		struct procstat_cpu *each;
		uint64_t busy, all;

		n_cpus = opt_long('N', argv[optind + 1], 1, 4096);
		text = made_up_stat(n_cpus, &len);
		cpus = calloc(n_cpus, sizeof(*cpus));
		each = calloc(n_cpus, sizeof(*each));
		if (!cpus || !each)
			err(1, "calloc");
		for (int i = 0; i < n_cpus; i++)
			cpus[i] = i;
		for (long r = 0; r < rounds; r++) {
			uint64_t t0 = timing_thread_cpu_ns();

			for (long k = 0; k < calls; k++) {
				FILE *f = fmemopen(text, len, "r");

				procstat_parse(f, cpus, n_cpus, 100, each, &busy, &all);
				fclose(f);
			}
			per[r] = (double)(timing_thread_cpu_ns() - t0) / calls;
		}
		if (each[n_cpus - 1].steal != (uint64_t)(n_cpus - 1) * 10000000ULL)
			errx(1, "the last CPU's line was not read whole");
		printf("parse %d: %.0f ns a call (%ld rounds of %ld), %.1f ns a CPU\n", n_cpus,
		       median(per, rounds), rounds, calls, median(per, rounds) / n_cpus);
		free(text);
		free(cpus);
		free(each);
		free(per);
		return 0;
	}
	if (optind + 1 == argc && strcmp(argv[optind], "stat") == 0) {
		int cpus[CPU_SETSIZE];
		struct procstat_cpu *each;
		uint64_t busy, all;

		n_cpus = cpu_allowed(cpus, CPU_SETSIZE);
		each = calloc(n_cpus, sizeof(*each));
		if (n_cpus < 1 || !each)
			err(1, "the CPUs");
		for (long r = 0; r < rounds; r++) {
			uint64_t t0 = timing_thread_cpu_ns();

			for (long k = 0; k < calls; k++)
				procstat_read(cpus, n_cpus, each, &busy, &all);
			per[r] = (double)(timing_thread_cpu_ns() - t0) / calls;
		}
		printf("stat: %.0f ns a call (%ld rounds of %ld), %.1f ns a CPU, %d CPUs\n",
		       median(per, rounds), rounds, calls, median(per, rounds) / n_cpus, n_cpus);
		free(each);
		free(per);
		return 0;
	}
	if (optind + 1 == argc && strcmp(argv[optind], "sample") == 0) {
		struct soak m;
		struct soak_sample s;

		if (soak_open(&m, 0, NULL, 0) < 0 || soak_start(&m) < 0 || soak_sample_init(&m, &s) < 0)
			errx(1, "%s", m.err);
		for (long r = 0; r < rounds; r++) {
			uint64_t t0 = timing_thread_cpu_ns();

			for (long k = 0; k < calls; k++)
				if (soak_take(&m, &s) < 0)
					errx(1, "%s", m.err);
			per[r] = (double)(timing_thread_cpu_ns() - t0) / calls;
		}
		printf("sample: %.0f ns a call (%ld rounds of %ld), %.1f ns a CPU, %d CPUs\n",
		       median(per, rounds), rounds, calls, median(per, rounds) / m.n_cpus, m.n_cpus);
		soak_sample_free(&s);
		soak_close(&m);
		free(per);
		return 0;
	}
	free(per);
	opt_failx("what to measure: parse N, stat or sample");
}
