#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "meter.h"
#include "opt.h"
#include "timing.h"

/* The tare and the calibration file may differ this much before it is said. */
#define TARE_DRIFT_WARN 0.02
/* Below this share of their CPUs in the tare, the system was not idle. */
#define TARE_BUSY_NOTE 0.98

/* -dd: each soaker's share of its CPU and its speed over a window. */
static void debug_per_cpu(const struct meter *m, const char *window, const struct soak_sample *a,
			  const struct soak_sample *b)
{
	for (int i = 0; i < m->soak.n_cpus; i++)
		fprintf(stderr, "%s: %s: CPU %d: the soaker had %.1f%% of it, %.0f loops a second of it\n",
			program_invocation_short_name, window, m->soak.cpus[i],
			soak_cpu_share_one(a, b, i) * 100, soak_idle_rate_one(a, b, i));
}

int meter_start(struct meter *m, int n_cpus, const struct cpu_list *set, int debug)
{
	int rc = soak_open(&m->soak, n_cpus, set, debug);

	m->debug = debug;
	m->cpu = NULL;
	if (rc < 0)
		return rc;
	if (counts_read(SOAK_COUNTS_FILE, m->soak.cpus, m->soak.n_cpus, &m->ref.calibration,
			m->soak.err, sizeof(m->soak.err)) < 0 ||
	    soak_start(&m->soak) < 0)
		return -1;
	m->cpu = calloc(m->soak.n_cpus, sizeof(*m->cpu));
	if (!m->cpu) {
		snprintf(m->soak.err, sizeof(m->soak.err), "allocating the meter: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < 3; i++)
		if (soak_sample_init(&m->soak, &m->at[i]) < 0) {
			snprintf(m->soak.err, sizeof(m->soak.err), "allocating samples: %s",
				 strerror(errno));
			return -1;
		}
	return 0;
}

/* -N or -U past the CPUs this process may run on: their usage error. */
static void too_many_cpus(int n_cpus, const struct cpu_list *set, const char *why)
{
	char text[256];

	if (set && set->n)
		opt_failx("-U %s: %s", cpu_list_text(set->cpu, set->n, text, sizeof(text)), why);
	opt_failx("-N %d: %s", n_cpus, why);
}

void meter_start_or_exit(struct meter *m, int n_cpus, const struct cpu_list *set, int debug)
{
	int rc = meter_start(m, n_cpus, set, debug);

	if (rc == SOAK_TOO_MANY_CPUS)
		too_many_cpus(n_cpus, set, m->soak.err);
	if (rc < 0)
		meter_die(m);
}

void meter_die(struct meter *m)
{
	soak_close(&m->soak);
	errx(1, "%s", m->soak.err);
}

const char *meter_error(const struct meter *m)
{
	return m->soak.err;
}

int meter_reaped(struct meter *m, pid_t pid)
{
	int soaker = 0;

	for (int i = 0; i < m->soak.n_cpus && m->soak.pids; i++)
		if (m->soak.pids[i] == pid) {
			m->soak.pids[i] = 0;
			soaker = 1;
		}
	return soaker;
}

void meter_kill(struct meter *m)
{
	soak_kill(&m->soak);
}

void meter_close(struct meter *m)
{
	for (int i = 0; i < 3; i++)
		soak_sample_free(&m->at[i]);
	free(m->cpu);
	m->cpu = NULL;
	soak_close(&m->soak);
}

/*
 * A tare taken between a and b, and what it says: the drift, a busy system.
 * What the soakers lose to the transfer is measured against the tare, so
 * neither the calibration's drift since it was made nor a steady load already
 * running counts as the transfer's.
 */
static int tare_between(struct meter *m, const struct soak_sample *a, const struct soak_sample *b)
{
	struct soak_reference *ref = &m->ref;
	double drift;

	if (soak_tare(&m->soak, a, b, ref) < 0)
		return -1;
	m->tare_ms = (b->ns - a->ns + 500000) / 1000000;
	m->tare_from_ns = a->ns;
	if (m->debug > 1)
		debug_per_cpu(m, "tare", a, b);
	drift = ref->idle_rate / ref->calibration.per_sec - 1;
	if (m->debug)
		fprintf(stderr, "%s: tare: %.0f loops/sec, %.0f with all their CPUs "
				"(%s %+.1f%%), kernel busy %.1f%%\n",
			program_invocation_short_name, ref->rate, ref->idle_rate, SOAK_COUNTS_FILE,
			drift * 100, ref->kernel * 100);
	if (fabs(drift) > TARE_DRIFT_WARN)
		fprintf(stderr, "%s: warning: the tare (%.0f loops/sec) is %+.1f%% off %s (%.0f): the "
				"calibration has drifted; the load is measured against the tare, and this "
				"run's figures stand; if it persists, calibrate again (cyclesoak -C, the "
				"host idle), which runs without a tare (-T 0) need\n",
			program_invocation_short_name, ref->idle_rate, drift * 100, SOAK_COUNTS_FILE,
			ref->calibration.per_sec);
	if (ref->rate < TARE_BUSY_NOTE * ref->idle_rate)
		fprintf(stderr, "%s: note: the system was %.1f%% busy before the transfer; the load "
				"shown is what the transfer added\n",
			program_invocation_short_name, (1 - ref->rate / ref->idle_rate) * 100);
	return 0;
}

int meter_tare(struct meter *m, long tare_ms)
{
	struct soak_sample *a = &m->at[METER_FIRST_BYTE], *b = &m->at[METER_LAST_BYTE];
	struct timespec ts = { .tv_sec = tare_ms / 1000, .tv_nsec = tare_ms % 1000 * 1000000 };

	if (soak_take(&m->soak, a) < 0)
		return -1;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	if (soak_take(&m->soak, b) < 0 || tare_between(m, a, b) < 0)
		return -1;
	m->tare_ms = tare_ms;	/* what was asked: the sleep overran it by a little */
	return 0;
}

int meter_ring_init(struct meter *m, struct meter_ring *r, long tare_ms, unsigned period_ms)
{
	int ok;

	r->n = tare_ms / period_ms + 3;
	r->taken = 0;
	r->s = calloc(r->n, sizeof(*r->s));
	ok = r->s != NULL;
	for (size_t i = 0; ok && i < r->n; i++)
		ok = soak_sample_init(&m->soak, &r->s[i]) == 0;
	if (!ok) {
		snprintf(m->soak.err, sizeof(m->soak.err), "allocating samples: %s", strerror(errno));
		return -1;
	}
	return meter_ring_take(m, r);
}

int meter_ring_take(struct meter *m, struct meter_ring *r)
{
	if (soak_take(&m->soak, &r->s[r->taken % r->n]) < 0)
		return -1;
	r->taken++;
	return 0;
}

/* Sample i of the ring counting back from the latest (0). */
static const struct soak_sample *ring_back(const struct meter_ring *r, size_t i)
{
	return &r->s[(r->taken - 1 - i) % r->n];
}

int meter_ring_tare(struct meter *m, struct meter_ring *r, long tare_ms)
{
	const struct soak_sample *now, *from;
	size_t held, i;

	if (meter_ring_take(m, r) < 0)
		return -1;
	now = ring_back(r, 0);
	held = r->taken < r->n ? r->taken : r->n;
	for (i = 1; i + 1 < held; i++)
		if (now->ns - ring_back(r, i)->ns >= (uint64_t)tare_ms * 1000000)
			break;
	from = ring_back(r, i);
	soak_sample_copy(&m->at[METER_FIRST_BYTE], now, m->soak.n_cpus);
	return tare_between(m, from, now);
}

int meter_mark(struct meter *m, enum meter_moment when)
{
	if (soak_take(&m->soak, &m->at[when]) == 0)
		return 0;
	if (when != METER_FIRST_BYTE)
		m->spoiled = 1;
	return -1;
}

int meter_keep_opening(const struct meter *m, struct meter_opening *o)
{
	if (soak_sample_init(&m->soak, &o->first) < 0)
		return -1;
	soak_sample_copy(&o->first, &m->at[METER_FIRST_BYTE], m->soak.n_cpus);
	o->ref = m->ref;
	o->tare_ms = m->tare_ms;
	o->tare_from_ns = m->tare_from_ns;
	return 0;
}

void meter_restore_opening(struct meter *m, struct meter_opening *o)
{
	soak_sample_copy(&m->at[METER_FIRST_BYTE], &o->first, m->soak.n_cpus);
	m->ref = o->ref;
	m->tare_ms = o->tare_ms;
	m->tare_from_ns = o->tare_from_ns;
	m->note[0] = '\0';
	soak_sample_free(&o->first);
}

int meter_cpus(const struct meter *m)
{
	return m ? m->soak.n_cpus : 0;
}

int meter_sample_init(const struct meter *m, struct soak_sample *s)
{
	return soak_sample_init(&m->soak, s);
}

int meter_take(struct meter *m, struct soak_sample *s)
{
	return soak_take(&m->soak, s);
}

void meter_between(const struct meter *m, const struct soak_sample *a, const struct soak_sample *b,
		   uint64_t bytes, struct soak_figures *f)
{
	soak_figures(&m->ref, a, b, m->soak.n_cpus, bytes, f);
}

void meter_between_loads(const struct meter *m, const struct soak_sample *a,
			 const struct soak_sample *b, double *loads)
{
	soak_cpu_loads(&m->ref, a, b, m->soak.n_cpus, loads);
}

const int *meter_cpu_list(const struct meter *m)
{
	return m ? m->soak.cpus : NULL;
}

void meter_figures(struct meter *m, int confirmed, uint64_t bytes, struct soak_figures *f)
{
	const struct soak_sample *a = &m->at[METER_FIRST_BYTE];
	const struct soak_sample *b = &m->at[confirmed ? METER_CLOSED : METER_LAST_BYTE];
	char why[160];
	const char *below;

	if (m->debug > 1)
		debug_per_cpu(m, "transfer", a, b);
	soak_figures(&m->ref, a, b, m->soak.n_cpus, bytes, f);
	if (m->cpu)
		soak_cpu_figures(&m->ref, a, b, m->soak.cpus, m->soak.n_cpus, m->cpu);
	if (m->debug)
		fprintf(stderr, "%s: the load, %.1f%%: the soakers lost %.1f%% of their CPUs' time, "
				"and %.1f%% more to a slowdown while they held them\n",
			program_invocation_short_name, f->load * 100, f->time_lost * 100,
			f->slowdown * 100);
	below = soak_below_zero(f->load, &m->ref.calibration, why, sizeof(why));
	if (below)
		snprintf(m->note, sizeof(m->note), "the load measured, %.1f%%, is %s", f->load * 100,
			 below);
}

void meter_print(FILE *out, const struct soak_figures *f)
{
	fprintf(out, ", load %.1f%%, demand %.3f us/KB", f->load * 100, f->demand_us_per_kb);
	if (isnan(f->kernel))
		fprintf(out, ", kernel unknown");
	else
		fprintf(out, ", kernel %.1f%%", f->kernel * 100);
}

/* The kernel's categories of a CPU, "system 52%, softirq 41%, user 3%": the largest first, 1% and more. */
static void print_categories(FILE *out, const struct soak_cpu_figures *c)
{
	const char *name[] = { "user", "system", "irq", "softirq", "steal" };
	double v[] = { c->user, c->system, c->irq, c->softirq, c->steal };
	int done[5] = { 0 }, said = 0;

	if (isnan(c->system)) {
		fprintf(out, "unknown");
		return;
	}
	for (;;) {
		int best = -1;

		for (int k = 0; k < 5; k++)
			if (!done[k] && (best < 0 || v[k] > v[best]))
				best = k;
		if (best < 0 || (said && v[best] < 0.005))
			break;
		done[best] = 1;
		fprintf(out, "%s%s %.0f%%", said++ ? ", " : "", name[best], v[best] * 100);
	}
}

void meter_cpus_print(FILE *out, const struct soak_cpu_figures *cpu, int n_cpus,
		      const struct soak_figures *f)
{
	int b = soak_busiest(cpu, n_cpus);

	fprintf(out, "busiest CPU %d: load %.1f%% (kernel: ", cpu[b].cpu, cpu[b].load * 100);
	print_categories(out, &cpu[b]);
	fprintf(out, ")\n");
	if (f->steal > METER_STEAL_FLAG)
		fprintf(out, "steal: a hypervisor took %.1f%% of the metered CPUs' time (more than "
			"%.0f%%): it ran no task of this host's, and the load counts it\n",
			f->steal * 100, METER_STEAL_FLAG * 100);
}

void meter_cpus_json(struct json *j, const struct soak_cpu_figures *cpu, int n_cpus)
{
	int b = soak_busiest(cpu, n_cpus);

	json_array(j, "cpus");
	for (int i = 0; i < n_cpus; i++) {
		const struct soak_cpu_figures *c = &cpu[i];

		json_object(j, NULL);
		json_int(j, "cpu", c->cpu);
		json_pct(j, "load", c->load, 1);
		json_pct(j, "user", c->user, 1);
		json_pct(j, "system", c->system, 1);
		json_pct(j, "irq", c->irq, 1);
		json_pct(j, "softirq", c->softirq, 1);
		json_pct(j, "steal", c->steal, 1);
		json_close(j);
	}
	json_close(j);
	json_object(j, "busiest");
	json_int(j, "cpu", cpu[b].cpu);
	json_pct(j, "load", cpu[b].load, 1);
	json_close(j);
}

void meter_print_cpus(FILE *out, const struct meter *m, const struct soak_figures *f)
{
	if (m->cpu)
		meter_cpus_print(out, m->cpu, m->soak.n_cpus, f);
}

void meter_json_cpus(struct json *j, const struct meter *m, const struct soak_figures *f)
{
	if (!f || !m || !m->cpu) {
		json_null(j, "cpus");
		json_null(j, "busiest");
		return;
	}
	meter_cpus_json(j, m->cpu, m->soak.n_cpus);
}

void meter_json(struct json *j, const struct meter *m, const struct soak_figures *f, int shared)
{
	if (!f) {
		json_null(j, "meter");
		return;
	}
	json_object(j, "meter");
	json_int(j, "cpus", m->soak.n_cpus);
	json_int(j, "tare_ms", m->ref.tared ? m->tare_ms : 0);
	json_double(j, "seconds", timing_secs(f->ns), 6);
	json_double(j, "load_pct", f->load * 100, 1);
	json_double(j, "demand_us_per_kb", f->demand_us_per_kb, 3);
	json_double(j, "kernel_pct", f->kernel * 100, 1);
	json_double(j, "time_lost_pct", f->time_lost * 100, 1);
	json_double(j, "slowdown_pct", f->slowdown * 100, 1);
	/* How busy the host was before the transfer, by the tare: another load's share. */
	if (m->ref.tared && m->ref.idle_rate > 0)
		json_double(j, "load_before_pct", (1 - m->ref.rate / m->ref.idle_rate) * 100, 1);
	else
		json_null(j, "load_before_pct");
	json_string(j, "note", m->note[0] ? m->note : NULL);
	if (shared >= 0)
		json_bool(j, "shared", shared);
	json_pct(j, "steal_pct", f->steal, 1);
	json_bool(j, "steal_flagged", f->steal > METER_STEAL_FLAG);
	json_close(j);
}

void meter_check_options(const char *given, int measure_cpu, int calibrate_only, int n_cpus)
{
	if (strchr(given, 'T') && !measure_cpu && !calibrate_only)
		opt_failx("-T needs -c or -C (it sets how long the meter takes its idle reference)");
	if (n_cpus && !measure_cpu && !calibrate_only)
		opt_failx("-N needs -c or -C (it sets how many CPUs the meter soaks)");
	if (strchr(given, 'U') && !measure_cpu && !calibrate_only)
		opt_failx("-U needs -c or -C (it sets which CPUs the meter soaks)");
	if (strchr(given, 'U') && strchr(given, 'N'))
		opt_failx("-N and -U both choose the CPUs the meter soaks: give one of them");
}

long meter_option_T(const char *arg, int calibrate_only, enum option_value tare)
{
	return options_value(calibrate_only ? OPTION_PERIOD_MS : tare, 'T', arg);
}

int meter_calibrate_stray(const char *given)
{
	for (const char *o = given; *o; o++)
		if (!strchr("CNTUd", *o))
			return *o;
	return 0;
}

int meter_calibrate(int n_cpus, const struct cpu_list *set, long period_ms, int debug)
{
	static volatile sig_atomic_t never;
	struct soak soak;
	int rc = soak_open(&soak, n_cpus, set, debug);

	if (rc == SOAK_TOO_MANY_CPUS)
		too_many_cpus(n_cpus, set, soak.err);
	if (rc < 0)
		errx(1, "%s", soak.err);
	if (n_cpus == 0 && !(set && set->n))
		soak_announce(&soak);
	if (soak_calibrate(&soak, period_ms, &never) < 0)
		errx(1, "%s", soak.err);
	return 0;
}
