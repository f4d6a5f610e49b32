#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "meter.h"

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

int meter_start(struct meter *m, int n_cpus, int debug)
{
	int rc = soak_open(&m->soak, n_cpus, debug);

	m->debug = debug;
	if (rc < 0)
		return rc;
	if (counts_read(SOAK_COUNTS_FILE, m->soak.n_cpus, &m->ref.calibration, m->soak.err,
			sizeof(m->soak.err)) < 0 ||
	    soak_start(&m->soak) < 0)
		return -1;
	for (int i = 0; i < 3; i++)
		if (soak_sample_init(&m->soak, &m->at[i]) < 0) {
			snprintf(m->soak.err, sizeof(m->soak.err), "allocating samples: %s",
				 strerror(errno));
			return -1;
		}
	return 0;
}

void meter_close(struct meter *m)
{
	for (int i = 0; i < 3; i++)
		soak_sample_free(&m->at[i]);
	soak_close(&m->soak);
}

/*
 * What the soakers lose to the transfer is measured against the tare, so
 * neither the calibration's drift since it was made nor a steady load already
 * running counts as the transfer's.
 */
int meter_tare(struct meter *m, long tare_ms)
{
	struct soak_reference *ref = &m->ref;
	struct soak_sample *a = &m->at[METER_FIRST_BYTE], *b = &m->at[METER_LAST_BYTE];
	struct timespec ts = { .tv_sec = tare_ms / 1000, .tv_nsec = tare_ms % 1000 * 1000000 };
	double drift;

	if (soak_take(&m->soak, a) < 0)
		return -1;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	if (soak_take(&m->soak, b) < 0 || soak_tare(&m->soak, a, b, ref) < 0)
		return -1;
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
				"calibration has drifted; the load is measured against the tare\n",
			program_invocation_short_name, ref->idle_rate, drift * 100, SOAK_COUNTS_FILE,
			ref->calibration.per_sec);
	if (ref->rate < TARE_BUSY_NOTE * ref->idle_rate)
		fprintf(stderr, "%s: note: the system was %.1f%% busy before the transfer; the load "
				"shown is what the transfer added\n",
			program_invocation_short_name, (1 - ref->rate / ref->idle_rate) * 100);
	return 0;
}

int meter_mark(struct meter *m, enum meter_moment when)
{
	if (soak_take(&m->soak, &m->at[when]) == 0)
		return 0;
	if (when != METER_FIRST_BYTE)
		m->spoiled = 1;
	return -1;
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
	below = soak_below_zero(f->load, &m->ref.calibration, why, sizeof(why));
	if (below)
		snprintf(m->note, sizeof(m->note), "the load measured, %.1f%%, is %s", f->load * 100,
			 below);
}
