/*
 * cyclesoak: measures the whole system's CPU load by the subtractive method.
 * Soakers at idle priority on every CPU count their steps; whatever else runs
 * (processes, interrupts, softirqs, memory traffic) slows them, and the load
 * is how far their rate falls below the rate calibrated on an idle system.
 */
#include <err.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cpu.h"
#include "lib/opt.h"
#include "lib/soak.h"
#include "lib/timing.h"

struct settings {
	int per_cpu;
	int calibrate;
	int debug;
	int one_shot;
	int n_cpus; /* 0: every CPU in the affinity mask */
	long period_ms;
};

static volatile sig_atomic_t stop_signal;

void usage(FILE *to)
{
	fprintf(to, "usage: cyclesoak [-BCdh1] [-N cpus] [-p secs | -m msecs]\n");
}

static void parse_options(int argc, char **argv, struct settings *s)
{
	int c, have_p = 0, have_m = 0;

	*s = (struct settings){ .period_ms = 1000 };
	while ((c = getopt(argc, argv, ":BCdh1N:p:m:")) != -1) {
		switch (c) {
		case 'B':
			s->per_cpu = 1;
			break;
		case 'C':
			s->calibrate = 1;
			break;
		case 'd':
			s->debug++;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case '1':
			s->one_shot = 1;
			break;
		case 'N':
			s->n_cpus = opt_long(c, optarg, 1, CPU_MAX_INDEX + 1);
			break;
		case 'p':
			have_p = 1;
			s->period_ms = opt_long(c, optarg, 1, 3600) * 1000;
			break;
		case 'm':
			have_m = 1;
			s->period_ms = opt_long(c, optarg, 10, 3600 * 1000);
			break;
		default:
			opt_fail_getopt(c, optopt);
		}
	}
	if (have_p && have_m)
		opt_failx("-p and -m both set the period: give one of them");
	if (optind < argc)
		opt_failx("unexpected argument '%s'", argv[optind]);
}

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void print_load(const struct settings *s, const struct soak *soak, double calibrated,
		       const struct soak_sample *a, const struct soak_sample *b)
{
	double load = soak_load(soak_rate(a, b, soak->n_cpus), calibrated);

	if (s->one_shot) {
		printf("%.1f\n", load * 100);
		return;
	}
	printf("System load:%5.1f%%", load * 100);
	if (s->per_cpu) {
		printf(" || Free:");
		for (int i = 0; i < soak->n_cpus; i++)
			printf(" %5.1f%%(%d)", soak_rate_one(a, b, i) * soak->n_cpus / calibrated * 100,
			       soak->cpus[i]);
	}
	printf("\n");
}

/* Print the load every period until a signal, or once after a warm-up period with -1. */
static void measure(const struct settings *s, const int *cpus, int n_cpus, double calibrated)
{
	struct soak soak;
	struct soak_sample a, b, t;
	uint64_t period_ns = s->period_ms * 1000000ULL, next;

	soak_start(&soak, cpus, n_cpus, s->debug);
	soak_sample_init(&soak, &a);
	soak_sample_init(&soak, &b);
	soak_take(&soak, &a);
	next = a.ns;
	if (s->one_shot) {
		next += period_ns;
		soak_sleep_until(next, &stop_signal);
		soak_take(&soak, &a);
	}
	while (!stop_signal) {
		next += period_ns;
		soak_sleep_until(next, &stop_signal);
		if (stop_signal)
			break;
		soak_take(&soak, &b);
		print_load(s, &soak, calibrated, &a, &b);
		if (s->one_shot)
			break;
		t = a, a = b, b = t;
	}
	soak_sample_free(&a);
	soak_sample_free(&b);
	soak_stop(&soak);
}

int main(int argc, char **argv)
{
	struct settings s;
	int cpus[CPU_MAX_INDEX + 1], n_cpus;
	double calibrated = 0;
	char why[512];

	parse_options(argc, argv, &s);
	setvbuf(stdout, NULL, _IOLBF, 0);
	n_cpus = soak_choose_cpus(s.n_cpus, cpus, CPU_MAX_INDEX + 1);
	if (n_cpus < 0)
		return 1;
	if (!s.calibrate && soak_read_counts(SOAK_COUNTS_FILE, n_cpus, &calibrated, why,
					     sizeof(why)) < 0)
		errx(1, "%s", why);
	if (s.n_cpus == 0 && !s.one_shot)
		printf("using %d CPU%s\n", n_cpus, n_cpus == 1 ? "" : "s");
	catch_stop_signals();
	if (s.calibrate)
		soak_calibrate(cpus, n_cpus, s.period_ms, s.debug, &stop_signal);
	else
		measure(&s, cpus, n_cpus, calibrated);
	if (stop_signal) {
		/* Soakers are gone; die of the signal so the caller sees why we stopped. */
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
	return 0;
}
