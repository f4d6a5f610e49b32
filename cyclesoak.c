/*
 * cyclesoak: measures the whole system's CPU load by the subtractive method.
 * Soakers at idle priority on every CPU count their steps; whatever else runs
 * (processes, interrupts, softirqs, memory traffic) slows them, and the load
 * is how far their rate falls below the rate calibrated on an idle system.
 */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cpu.h"
#include "lib/hostlock.h"
#include "lib/json.h"
#include "lib/meter.h"
#include "lib/opt.h"
#include "lib/options.h"
#include "lib/sampling.h"
#include "lib/soak.h"
#include "lib/stopsig.h"
#include "lib/timing.h"

struct settings {
	int per_cpu;
	int kernel;
	int calibrate;
	int debug;
	int one_shot;
	int json;		/* -J */
	int n_cpus; /* 0: every CPU in the affinity mask */
	struct cpu_list set;	/* -U: these CPUs, where it has any */
	long period_ms;
	char **hold;		/* -H: the command to run holding the host's meter */
};

static volatile sig_atomic_t stop_signal;

/* -p: the period in whole seconds. */
static void parse_period_secs(void *settings, int letter, const char *arg)
{
	((struct settings *)settings)->period_ms = opt_long(letter, arg, 1, 3600) * 1000;
}

#define FIELD(member) OPTION_FIELD(struct settings, member)

static const struct option_row rows[] = {
	{ 'B', OPTION_FLAG, FIELD(per_cpu), .help = "each CPU's free capacity too" },
	{ 'C', OPTION_FLAG, FIELD(calibrate),
	  .help = "calibrate on an idle system into ./counts_per_sec, and exit" },
	{ 'd', OPTION_COUNT, FIELD(debug), .help = "debug: how each soaker was scheduled" },
	OPTIONS_ROW_HELP,
	{ 'H', OPTION_REST, "command", .help = "hold the host's meter while command runs" },
	{ 'J', OPTION_FLAG, FIELD(json), .help = "each sample as one JSON object" },
	{ 'k', OPTION_FLAG, FIELD(kernel), .help = "the kernel's view of each period too" },
	{ 'm', OPTION_NUMBER, "msecs", FIELD(period_ms), .value = OPTION_PERIOD_MS,
	  .either = 'p', .help = "the period in milliseconds" },
	{ 'N', OPTION_NUMBER, "cpus", FIELD(n_cpus), .value = OPTION_SOAK_CPUS, .either = 'U',
	  .help = "soak this many CPUs (default all)" },
	{ 'p', OPTION_CALL, "secs", .parse = parse_period_secs, .either = 'm',
	  .help = "the period in seconds (default 1)" },
	{ 'U', OPTION_CPUS, "cpus", FIELD(set), .either = 'N',
	  .help = "soak these CPUs alone (1,3 or 2-5): the load is their share" },
	{ '1', OPTION_FLAG, FIELD(one_shot), .help = "one sample, the load alone, and exit" },
	{ 0 }
};

/* "+": the options end at -H's command, whose own options are its business. */
static const struct option_table table = {
	.about = "Measures the whole system's CPU load by subtraction; see cyclesoak(1).",
	.rows = rows,
	.forms = "cyclesoak -H command [arg...]",
	.stop_at_operand = 1,
};

static void parse_options(int argc, char **argv, struct settings *s)
{
	char given[32];
	int first;

	*s = (struct settings){ .period_ms = 1000 };
	first = options_parse(&table, s, argc, argv, given, sizeof(given));
	if (s->json && s->calibrate)
		opt_failx("-J is for load samples: -C writes ./counts_per_sec and prints text");
	if (s->calibrate && (s->per_cpu || s->kernel || s->one_shot))
		opt_failx("-%c is for load samples: -C writes ./counts_per_sec",
			  s->per_cpu ? 'B' : s->kernel ? 'k' : '1');
	if (s->one_shot && s->per_cpu && !s->json)
		opt_failx("-B is for the load lines: -1 prints the load alone (-J has each CPU's share)");
	if (strchr(given, 'p') && strchr(given, 'm'))
		opt_failx("-p and -m both set the period: give one of them");
	if (s->n_cpus && s->set.n)
		opt_failx("-N and -U both choose the CPUs to soak: give one of them");
	if (strchr(given, 'H')) {
		if (strlen(given) > 1)
			opt_failx("-H takes no other option: cyclesoak -H command [arg...]");
		if (first == argc)
			opt_failx("-H needs a command to run holding the host's meter");
		s->hold = argv + first;
		return;
	}
	if (first < argc)
		opt_failx("unexpected argument '%s'", argv[first]);
}

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

struct reading {
	const struct settings *s;
	const struct soak *meter;
	struct soak_counts calibration;
	struct soak_cpu_figures *cpu;	/* each CPU's, of the period */
	int periods;
};

/*
 * -J: a sample as one JSON object on a line: the load, the kernel's view, the
 * load's two parts (see soak_figures), each CPU's free share, each CPU's
 * figures and the busiest, and the steal.
 */
static void print_sample_json(const struct reading *r, const struct soak_sample *a,
			      const struct soak_sample *b, const struct soak_figures *f,
			      const char *below)
{
	const struct soak *m = r->meter;
	struct json j;

	json_begin(&j, stdout);
	json_string(&j, "program", "cyclesoak");
	json_host(&j);
	json_int(&j, "n_cpus", m->n_cpus);
	json_double(&j, "seconds", timing_secs(b->ns - a->ns), 6);
	json_double(&j, "load_pct", f->load * 100, 1);
	json_double(&j, "kernel_pct", f->kernel * 100, 1);
	json_double(&j, "time_lost_pct", f->time_lost * 100, 1);
	json_double(&j, "slowdown_pct", f->slowdown * 100, 1);
	json_string(&j, "below_zero", below);
	json_array(&j, "free_pct");
	for (int i = 0; i < m->n_cpus; i++) {
		json_object(&j, NULL);
		json_int(&j, "cpu", m->cpus[i]);
		json_double(&j, "pct", (1 - r->cpu[i].load) * 100, 1);
		json_close(&j);
	}
	json_close(&j);
	meter_cpus_json(&j, r->cpu, m->n_cpus);
	json_pct(&j, "steal_pct", f->steal, 1);
	json_bool(&j, "steal_flagged", f->steal > METER_STEAL_FLAG);
	json_end(&j);
}

/*
 * A period's load, as the 2001 line or, with -1, the bare number; a load
 * below 0 says what that means, and -k adds the kernel's view of the period.
 */
static int print_load(void *arg, const struct soak_sample *a, const struct soak_sample *b)
{
	struct reading *r = arg;
	const struct soak *m = r->meter;
	const struct soak_reference ref = { .calibration = r->calibration };
	struct soak_figures f;
	double load, kernel;
	char why[160];
	const char *below;

	soak_figures(&ref, a, b, m->n_cpus, 0, &f);
	soak_cpu_figures(&ref, a, b, m->cpus, m->n_cpus, r->cpu);
	load = f.load;
	kernel = f.kernel;
	below = soak_below_zero(load, &r->calibration, why, sizeof(why));
	/* -1: the first period is a warm-up. */
	if (r->s->one_shot && r->periods++ == 0)
		return 0;
	if (r->s->json) {
		print_sample_json(r, a, b, &f, below);
		return r->s->one_shot;
	}
	if (r->s->one_shot) {
		printf("%.1f", load * 100);
		if (r->s->kernel)
			printf(" %.1f", kernel * 100);
		printf("\n");
		if (below)
			warnx("%.1f%% is %s", load * 100, below);
		return 1;
	}
	printf("System load:%5.1f%%", load * 100);
	if (below)
		printf(" (%s)", below);
	if (r->s->kernel)
		printf(", kernel %.1f%%", kernel * 100);
	if (r->s->per_cpu) {
		printf(" || Free:");
		for (int i = 0; i < m->n_cpus; i++)
			printf(" %5.1f%%(%d)", (1 - r->cpu[i].load) * 100, m->cpus[i]);
	}
	printf("\n");
	meter_cpus_print(stdout, r->cpu, m->n_cpus, &f);
	return 0;
}

/* -H: the command, whose stop signals reach it through cyclesoak. */
static pid_t held_child;

static void pass_on_stop_signal(int sig)
{
	if (held_child > 0)
		kill(held_child, sig);
}

/*
 * -H: wait for the host's meter (ZC_METER_WAIT), hold it with no soakers
 * while the command runs, and end as the command did: other meters on the
 * host wait for it, and the meters the command starts take their turns
 * inside it. Returns the command's exit status, 128 + N if signal N killed
 * it, 127 if it could not be run.
 */
static int hold_the_meter(char **cmd)
{
	char why[512], token[64];
	long wait_secs = hostlock_wait_secs(why, sizeof(why));
	int fd, st;

	if (wait_secs < 0)
		errx(1, "%s", why);
	/*
	 * A hold outlives no one: it ends, and its command with it, when its
	 * parent goes. One started with no parent left (`( cyclesoak -H cmd & )`)
	 * ends with its command alone.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
		err(1, "-H: prctl(PR_SET_PDEATHSIG)");
	if (hostlock_hold(SOAK_LOCK_FILE, &fd, wait_secs, stderr, why, sizeof(why)) < 0)
		errx(1, "%s", why);
	/* The command's processes, and those it hands the token to, run inside the hold. */
	if (hostlock_hand_token(fd, token, sizeof(token), why, sizeof(why)) < 0)
		errx(1, "-H: the hold's token: %s", why);
	if (*token && setenv(HOSTLOCK_INSIDE_ENV, token, 1) < 0)
		err(1, "-H: setenv");
	stopsig_catch(pass_on_stop_signal);
	fflush(NULL);
	held_child = fork();
	if (held_child < 0)
		err(1, "fork");
	if (held_child == 0) {
		stopsig_uncatch(pass_on_stop_signal);
		execvp(cmd[0], cmd);
		warn("%s", cmd[0]);
		_exit(127);
	}
	while (waitpid(held_child, &st, 0) < 0)
		if (errno != EINTR)
			err(1, "waitpid");
	close(fd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	struct settings s;
	struct soak meter;
	struct reading r = { .s = &s, .meter = &meter };
	char text[256];
	int rc;

	parse_options(argc, argv, &s);
	if (s.hold)
		return hold_the_meter(s.hold);
	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = soak_open(&meter, s.n_cpus, &s.set, s.debug);
	if (rc == SOAK_TOO_MANY_CPUS && s.set.n)
		opt_failx("-U %s: %s", cpu_list_text(s.set.cpu, s.set.n, text, sizeof(text)), meter.err);
	if (rc == SOAK_TOO_MANY_CPUS)
		opt_failx("-N %d: %s", s.n_cpus, meter.err);
	if (rc < 0)
		errx(1, "%s", meter.err);
	if (!s.calibrate && counts_read(SOAK_COUNTS_FILE, meter.cpus, meter.n_cpus, &r.calibration,
					     meter.err, sizeof(meter.err)) < 0)
		errx(1, "%s", meter.err);
	r.cpu = calloc(meter.n_cpus, sizeof(*r.cpu));
	if (!r.cpu)
		err(1, "allocating the meter");
	if (s.n_cpus == 0 && !s.set.n && !s.one_shot && !s.json)
		soak_announce(&meter);
	/* Under nohup (SIGHUP ignored), a hangup leaves cyclesoak running. */
	stopsig_catch(on_stop_signal);
	if (s.calibrate) {
		rc = soak_calibrate(&meter, s.period_ms, &stop_signal);
	} else {
		rc = soak_start(&meter);
		if (rc == 0)
			rc = soak_every(&meter, s.period_ms, &stop_signal, print_load, &r);
	}
	soak_close(&meter);
	free(r.cpu);
	if (rc < 0)
		errx(1, "%s", meter.err);
	if (stop_signal) {
		/* Soakers are gone; die of the signal so the caller sees why we stopped. */
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
	return 0;
}
