#include <math.h>
#include <stdio.h>
#include <string.h>

#include "limit.h"

/*
 * Who used a CPU at its ceiling: its softirqs and interrupts, the program
 * (its own CPU time, all of it on this CPU where it was pinned here, at
 * most the tasks' time on it where not), or another task (the tasks' time
 * the program did not take): the largest.
 */
static void who_used(struct limit *l, const struct soak_cpu_figures *c, double program_share,
		     int pinned_cpu)
{
	double tasks = c->user + c->system, soft = c->softirq + c->irq;
	double program = pinned_cpu < 0 || pinned_cpu == c->cpu ? fmin(program_share, tasks) : 0;

	l->used_by = "softirq";
	l->used = soft;
	if (program > l->used) {
		l->used_by = "the program";
		l->used = program;
	}
	if (tasks - program > l->used) {
		l->used_by = "another task";
		l->used = tasks - program;
	}
	if (isnan(c->system)) {
		l->used_by = NULL;
		l->used = NAN;
	}
}

void limit_find(struct limit *l, const char *end, const struct soak_cpu_figures *cpus, int n_cpus,
		double program_share, int pinned_cpu, const struct tcpinfo *ti, uint64_t run_ns,
		int paced)
{
	int busiest = -1;
	size_t at;

	memset(l, 0, sizeof(*l));
	l->end = end;
	l->cpu = -1;
	l->busy = l->used = l->pct = NAN;
	l->metered = cpus && n_cpus > 0;
	for (int i = 0; l->metered && i < n_cpus; i++)
		if (cpus[i].busy >= LIMIT_CEILING && (busiest < 0 || cpus[i].busy > cpus[busiest].busy))
			busiest = i;
	if (busiest >= 0) {
		l->kind = LIMIT_CPU;
		l->cpu = cpus[busiest].cpu;
		l->busy = cpus[busiest].busy;
		who_used(l, &cpus[busiest], program_share, pinned_cpu);
		at = snprintf(l->text, sizeof(l->text), "CPU %d at its ceiling here, at the %s (%.1f%% "
			      "busy", l->cpu, end, 100 * l->busy);
		if (l->used_by)
			at += snprintf(l->text + at, sizeof(l->text) - at, "; most of it %s's, %.0f%%",
				       l->used_by, 100 * l->used);
		snprintf(l->text + at, sizeof(l->text) - at, ")");
		return;
	}
	if (ti && ti->have && ti->have_limits && ti->busy_us && run_ns) {
		double rwnd = tcpinfo_rwnd_pct(ti), sndbuf = tcpinfo_sndbuf_pct(ti);

		if (rwnd > TCPINFO_HELD_PCT && rwnd >= sndbuf) {
			l->kind = LIMIT_RWND;
			l->pct = rwnd;
			snprintf(l->text, sizeof(l->text), "the receiver's window (%.0f%% of the busy "
				 "time)", rwnd);
			return;
		}
		if (sndbuf > TCPINFO_HELD_PCT) {
			l->kind = LIMIT_SNDBUF;
			l->pct = sndbuf;
			snprintf(l->text, sizeof(l->text), "the send buffer (%.0f%% of the busy time)",
				 sndbuf);
			return;
		}
	}
	if (paced) {
		l->kind = LIMIT_PACE;
		snprintf(l->text, sizeof(l->text), "the pace asked (-R), which it reached");
		return;
	}
	at = snprintf(l->text, sizeof(l->text), "nothing found");
	if (!l->metered)
		at += snprintf(l->text + at, sizeof(l->text) - at, " (no meter here: -c looks for a "
			       "CPU at its ceiling");
	else
		at += snprintf(l->text + at, sizeof(l->text) - at, " (no CPU here at %.0f%% or more",
			       100 * LIMIT_CEILING);
	if (ti && ti->have && ti->have_limits)
		snprintf(l->text + at, sizeof(l->text) - at, "; the receiver's window and the send "
			 "buffer each under %d%% of the busy time)", TCPINFO_HELD_PCT);
	else
		snprintf(l->text + at, sizeof(l->text) - at, ")");
}

void limit_print(FILE *out, const struct limit *l)
{
	fprintf(out, "limited by: %s\n", l->text);
}

void limit_json(struct json *j, const struct limit *l)
{
	static const char *const by[] = { "none", "cpu", "rwnd", "sndbuf", "pace" };

	if (!l) {
		json_null(j, "limit");
		return;
	}
	json_object(j, "limit");
	json_string(j, "by", by[l->kind]);
	json_string(j, "end", l->end);
	if (l->kind == LIMIT_CPU)
		json_int(j, "cpu", l->cpu);
	else
		json_null(j, "cpu");
	json_pct(j, "busy_pct", l->busy, 1);
	json_string(j, "used_by", l->used_by);
	json_pct(j, "used_pct", l->used, 1);
	if (isnan(l->pct))
		json_null(j, "held_pct");
	else
		json_double(j, "held_pct", l->pct, 1);
	json_string(j, "text", l->text);
	json_close(j);
}
