/*
 * The turns at the receiver: one struct turns, whichever source gives the
 * slots' edges. zcs's own (-m A,B,...): the receive modes of one connection
 * take turns slot by slot on zcs's own clock, so that what the host does to
 * the run moves neighbouring slots alike and the arms' difference sheds it;
 * the mode changes between two receives, each taking whatever the decoder
 * says is due next, so a change never splits what one call reads. zcc's,
 * followed: the slots are the sender's, their edges the offsets its table
 * gives after the stream (followslots.c).
 */
#include <err.h>
#include <string.h>

#include "lib/net.h"
#include "lib/timing.h"
#include "server.h"

/* Who took the turns, by the source of their edges: -J's "taken_by". */
static const char *const taken_by[] = {
	[RXTURNS_OWN] = "zcs",
	[RXTURNS_FOLLOWED] = "zcc",
};

static void begin(struct rxturns *t, enum rxturns_edges edges, const struct settings *s,
		  const char *peer)
{
	memset(t, 0, sizeof(*t));
	t->edges = edges;
	t->peer = peer;
	t->debug = s->debug;
}

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

void rxturns_own(struct rxturns *t, const struct settings *s, struct meter *m,
		 struct receiver *r)
{
	const char *names[RX_MAX_ARMS];

	begin(t, RXTURNS_OWN, s, r->peer);
	for (unsigned i = 0; i < s->n_arms; i++)
		names[i] = s->arms[i]->name;
	t->r = r;
	t->events = s->events;
	turns_init(&t->result, TURNS_RECEIVER, names, s->n_arms, s->slot_ms);
	t->result.n_cpus = meter_cpus(m);
	schedule_init(&t->sched, s->n_arms, s->slot_ms, m);
	t->measured = 1;
	begin_slot(t, timing_now_ns(), 0);
}

void rxturns_follow(struct rxturns *t, const struct settings *s, struct meter *m,
		    const struct receiver *r)
{
	begin(t, RXTURNS_FOLLOWED, s, r->peer);
	follow_start(&t->follow, m, r->fd);
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
	if (t->edges == RXTURNS_FOLLOWED)
		follow_sample(&t->follow, bytes, 0);
	if (t->edges != RXTURNS_OWN)
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
	if (t->edges == RXTURNS_FOLLOWED)
		follow_sample(&t->follow, bytes, 1);
	if (t->edges != RXTURNS_OWN)
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

int rxturns_table(struct rxturns *t, int fd, const unsigned char *table, size_t len, char *why,
		  size_t why_len)
{
	size_t done;

	switch (t->edges) {
	case RXTURNS_OWN:
		/* zcs's slots are not zcc's: the answer says so, and zcc says why its receiver's lines are missing. */
		if (net_write_full(fd, NET_IO_SEND, TURNS_DECLINE_MAGIC,
				   sizeof(TURNS_DECLINE_MAGIC) - 1, &done, NULL) < 0 && t->debug)
			warn("%s: declining the slot table", t->peer);
		return 0;
	case RXTURNS_FOLLOWED:
		if (follow_slots(&t->follow, &t->result, table, len, why, why_len) < 0)
			return -1;
		t->measured = 1;
		follow_answer(&t->follow, &t->result, fd, t->peer, t->debug);
		return 0;
	case RXTURNS_OFF:
		break;
	}
	snprintf(why, why_len, "no turns were followed");
	return -1;
}

/* What the own slots measured of the bytes, and their samples' cost; a note where many had nothing. */
static void print_own(const struct rxturns *t, FILE *out, uint64_t bytes)
{
	uint64_t measured = turns_bytes(&t->result);
	size_t all = t->result.n_slots + t->sched.short_slots;

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

void rxturns_print(const struct rxturns *t, FILE *out, char unit, uint64_t bytes)
{
	if (!t->measured)
		return;
	turns_print(&t->result, out, unit);
	if (t->edges == RXTURNS_OWN)
		print_own(t, out, bytes);
	else
		follow_print_samples(&t->follow, out);
}

void rxturns_json(const struct rxturns *t, struct json *j)
{
	if (!t->measured) {
		json_null(j, "turns");
		return;
	}
	json_object(j, "turns");
	json_string(j, "taken_by", taken_by[t->edges]);
	turns_json(&t->result, j);
	if (t->edges == RXTURNS_OWN)
		json_double(j, "samples_cpu_ms", t->sched.cost_ns / 1e6, 3);
	else
		follow_json_samples(&t->follow, j);
	json_close(j);
}

void rxturns_free(struct rxturns *t)
{
	if (t->edges == RXTURNS_OWN)
		schedule_free(&t->sched);
	if (t->edges == RXTURNS_FOLLOWED)
		follow_free(&t->follow);
	turns_free(&t->result);
	memset(t, 0, sizeof(*t));
}
