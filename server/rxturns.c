/*
 * zcs -m A,B,...: the receive modes of one connection taking turns, slot by
 * slot on zcs's own clock, so that what the host does to the run moves
 * neighbouring slots alike and the arms' difference sheds it. The mode
 * changes between two receives: each mode takes whatever the decoder says
 * is due next, so a change never splits what one call reads.
 */
#include <err.h>
#include <string.h>

#include "lib/timing.h"
#include "server.h"

/* The mode of the arm whose slot begins now. */
static void begin_slot(struct rxturns *t, uint64_t now, uint64_t bytes)
{
	unsigned arm = schedule_next(&t->sched, now);

	schedule_event_slot(t->events, &t->sched, t->result.arm[arm], bytes, t->peer);
	rx_use(t->r, arm);
	if (t->debug)
		fprintf(stderr, "zcs: %s: slot %llu, cycle %u, arm %u (%s)\n", t->peer,
			(unsigned long long)t->sched.slots, t->sched.cycle + 1, arm + 1,
			t->result.arm[arm]);
}

void rxturns_start(struct rxturns *t, const struct settings *s, struct meter *m,
		   struct receiver *r)
{
	const char *names[RX_MAX_ARMS];

	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < s->n_arms; i++)
		names[i] = s->arms[i]->name;
	t->r = r;
	t->peer = r->peer;
	t->debug = s->debug;
	t->events = s->events;
	turns_init(&t->result, TURNS_RECEIVER, names, s->n_arms, s->slot_ms);
	t->result.n_cpus = meter_cpus(m);
	schedule_init(&t->sched, s->n_arms, s->slot_ms, m);
	t->on = 1;
	begin_slot(t, timing_now_ns(), 0);
}

/* The slot that ends now: what it measured past its guard, kept. */
static void end_slot(struct rxturns *t, uint64_t bytes)
{
	struct turns_slot sl;

	if (!schedule_slot_ends(&t->sched, bytes - t->bytes_at_guard, &t->result, &sl))
		return;
	turns_add(&t->result, &sl);
}

void rxturns_received(struct rxturns *t, uint64_t bytes)
{
	if (!t->on)
		return;
	switch (schedule_due(&t->sched, timing_now_ns())) {
	case SCHEDULE_SLOT_ENDS:
		end_slot(t, bytes);
		begin_slot(t, timing_now_ns(), bytes);
		break;
	case SCHEDULE_GUARD_ENDS:
		schedule_guard_ends(&t->sched);
		t->bytes_at_guard = bytes;
		break;
	case SCHEDULE_NOTHING:
		break;
	}
}

void rxturns_end(struct rxturns *t, uint64_t bytes)
{
	if (!t->on)
		return;
	schedule_event_end(t->events, &t->sched, bytes, t->peer);
	if (t->debug)
		fprintf(stderr, "zcs: %s: the turns end after %llu slots\n", t->peer,
			(unsigned long long)t->sched.slots);
	/* The meter's failure, said once, where a sample failed. */
	if (t->sched.spoiled)
		warnx("%s: %s, along the stream: no load figures over the slots", t->peer,
		      meter_error(t->sched.meter));
}

void rxturns_print(const struct rxturns *t, FILE *out, char unit, uint64_t bytes)
{
	uint64_t measured = turns_bytes(&t->result);
	size_t all = t->result.n_slots + t->sched.short_slots;

	if (!t->on)
		return;
	turns_print(&t->result, out, unit);
	if (bytes) {
		fprintf(out, "the slots measured %llu of the %llu bytes received (%.0f%%): the first "
			"quarter of each slot (%.1f ms, its guard) is not measured, nor a slot the end "
			"cut short", (unsigned long long)measured, (unsigned long long)bytes,
			100.0 * measured / bytes, t->sched.guard_ns / 1e6);
		if (t->result.n_cpus)
			fprintf(out, "; the meter's samples at the slots' edges took %.1f ms of CPU",
				t->sched.cost_ns / 1e6);
		fprintf(out, "\n");
	}
	if (t->sched.short_slots * 10 > all)
		warnx("%s: note: %zu of %zu slots had nothing to measure: the mode changes between "
		      "receives, and a receive waited longer than a quarter of a slot (-A %ld): the "
		      "sender paused, or -l held the reads; give longer slots", t->peer,
		      t->sched.short_slots, all, t->sched.slot_ms);
}

void rxturns_json(const struct rxturns *t, struct json *j)
{
	json_object(j, "turns");
	json_string(j, "taken_by", "zcs");
	turns_json(&t->result, j);
	json_double(j, "samples_cpu_ms", t->sched.cost_ns / 1e6, 3);
	json_close(j);
}

void rxturns_free(struct rxturns *t)
{
	if (!t->on)
		return;
	schedule_free(&t->sched);
	turns_free(&t->result);
	memset(t, 0, sizeof(*t));
}
