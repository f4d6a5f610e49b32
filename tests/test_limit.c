/*
 * What limited a flow: a CPU at its ceiling first, named with who used it;
 * else the receiver's window or the send buffer where TCP_INFO says so;
 * else the pace; else nothing found, saying what was looked at.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../lib/limit.h"
#include "check.h"

/* CPU 0 at a tenth, CPU 1 as busy as asked: its user, system and softirq shares. */
static void two_cpus(struct soak_cpu_figures c[2], double busy, double user, double system,
		     double softirq)
{
	c[0] = (struct soak_cpu_figures){ .cpu = 0, .load = 0.1, .busy = 0.1, .user = 0.05,
					  .system = 0.05 };
	c[1] = (struct soak_cpu_figures){ .cpu = 1, .load = busy, .busy = busy, .user = user,
					  .system = system, .softirq = softirq };
}

static void a_cpu_at_its_ceiling_is_named_with_who_used_it(void)
{
	struct soak_cpu_figures c[2];
	struct tcpinfo ti = { .have = 1, .have_limits = 1, .busy_us = 1000000,
			      .rwnd_limited_us = 900000 };
	struct limit l;

	/* Another task spinning on CPU 1, the program pinned to CPU 0. */
	two_cpus(c, 0.98, 0.90, 0.05, 0.03);
	limit_find(&l, "sender", c, 2, 0.3, 0, &ti, 1000000000, 0);
	CHECK(l.kind == LIMIT_CPU && l.cpu == 1);
	CHECK_STR(l.text, "CPU 1 at its ceiling here, at the sender (98.0% busy; most of it another "
			  "task's, 95%)");
	/* The program pinned there: its own. */
	limit_find(&l, "sender", c, 2, 0.6, 1, &ti, 1000000000, 0);
	CHECK_STR(l.used_by, "the program");
	CHECK(fabs(l.used - 0.6) < 1e-9);
	/* Softirqs the most of it. */
	two_cpus(c, 0.97, 0.02, 0.30, 0.65);
	limit_find(&l, "receiver", c, 2, 0.2, -1, NULL, 1000000000, 0);
	CHECK_STR(l.text, "CPU 1 at its ceiling here, at the receiver (97.0% busy; most of it "
			  "softirq's, 65%)");
	/* Below the ceiling, TCP_INFO's: the receiver's window. */
	two_cpus(c, 0.90, 0.10, 0.30, 0.20);
	limit_find(&l, "sender", c, 2, 0.2, -1, &ti, 1000000000, 0);
	CHECK(l.kind == LIMIT_RWND);
	CHECK_STR(l.text, "the receiver's window (90% of the busy time)");
}

static void the_window_the_buffer_the_pace_or_nothing(void)
{
	struct tcpinfo ti = { .have = 1, .have_limits = 1, .busy_us = 1000000,
			      .sndbuf_limited_us = 400000 };
	struct limit l;
	char out[512];
	FILE *f;

	limit_find(&l, "sender", NULL, 0, 0, -1, &ti, 1000000000, 1);
	CHECK(l.kind == LIMIT_SNDBUF);
	CHECK_STR(l.text, "the send buffer (40% of the busy time)");
	ti.sndbuf_limited_us = 0;
	limit_find(&l, "sender", NULL, 0, 0, -1, &ti, 1000000000, 1);
	CHECK_STR(l.text, "the pace asked (-R), which it reached");
	limit_find(&l, "sender", NULL, 0, 0, -1, &ti, 1000000000, 0);
	CHECK(l.kind == LIMIT_NONE);
	CHECK_STR(l.text, "nothing found (no meter here: -c looks for a CPU at its ceiling; the "
			  "receiver's window and the send buffer each under 20% of the busy time)");
	limit_find(&l, "receiver", NULL, 0, 0, -1, NULL, 1000000000, 0);
	CHECK_STR(l.text, "nothing found (no meter here: -c looks for a CPU at its ceiling)");
	f = fmemopen(out, sizeof(out), "w");
	limit_print(f, &l);
	fclose(f);
	CHECK_STR(out, "limited by: nothing found (no meter here: -c looks for a CPU at its ceiling)\n");
}

static void its_json(void)
{
	struct soak_cpu_figures c[2];
	struct limit l;
	char out[1024];
	struct json j;
	FILE *f;

	two_cpus(c, 0.98, 0.90, 0.05, 0.03);
	limit_find(&l, "sender", c, 2, 0.3, 0, NULL, 1000000000, 0);
	f = fmemopen(out, sizeof(out), "w");
	json_begin(&j, f);
	limit_json(&j, &l);
	json_end(&j);
	fclose(f);
	CHECK_STR(out, "{\"limit\":{\"by\":\"cpu\",\"end\":\"sender\",\"cpu\":1,\"busy_pct\":98.0,"
		       "\"used_by\":\"another task\",\"used_pct\":95.0,\"held_pct\":null,\"text\":\"CPU 1 "
		       "at its ceiling here, at the sender (98.0% busy; most of it another task's, "
		       "95%)\"}}\n");
}

int main(void)
{
	RUN(a_cpu_at_its_ceiling_is_named_with_who_used_it);
	RUN(the_window_the_buffer_the_pace_or_nothing);
	RUN(its_json);
	return CHECK_EXIT();
}
