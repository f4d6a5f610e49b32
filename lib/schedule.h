/*
 * schedule: when each arm of a stream's turns has its slot, and the meter's
 * samples at the slot's edges. Every cycle gives each arm one slot, in an
 * order shuffled afresh; a slot lasts slot_ms, and its first quarter (its
 * guard) is not measured: what the arm before left queued in the socket's
 * buffers and the peer's is still going through then (a few MiB, 10 ms at
 * 400 MB/s), on that arm's account. The meter is sampled as the guard ends
 * and as the slot ends; the figures between are the slot's (lib/turns).
 *
 * The end that takes turns asks, between two of its calls, what is due now
 * (schedule_due), and does it: zcc's arms change between files, zcs's
 * receive modes between reads.
 */
#ifndef ZC_SCHEDULE_H
#define ZC_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "meter.h"
#include "turns.h"

/* The share of a slot its guard takes: a quarter. */
#define SCHEDULE_GUARD_SHARE 4

struct schedule {
	unsigned n_arms;
	long slot_ms;
	uint64_t slot_ns, guard_ns;
	unsigned order[TURNS_MAX_ARMS], at;
	unsigned cur;			/* the arm whose slot it is */
	uint32_t cycle;
	unsigned seed;
	uint64_t slot_start_ns;
	int measuring;			/* past the guard, its first sample taken */
	uint64_t slots;			/* slots begun */
	size_t short_slots;		/* ended before their guard did: nothing measured */
	struct meter *meter;		/* NULL: the time alone */
	int spoiled;			/* a sample failed: no load figures from then on */
	struct soak_sample a, b;	/* the guard's end, the slot's end */
	double *loads;			/* the slot's load on each of the meter's CPUs */
	uint64_t cost_ns;		/* the CPU time the samples took this thread */
};

/* What is due now. */
enum schedule_due { SCHEDULE_NOTHING, SCHEDULE_GUARD_ENDS, SCHEDULE_SLOT_ENDS };

/* n_arms arms, slots of slot_ms, the samples the meter m's (NULL: none); no slot yet. */
void schedule_init(struct schedule *s, unsigned n_arms, long slot_ms, struct meter *m);
enum schedule_due schedule_due(const struct schedule *s, uint64_t now);
/* The next slot begins at now: its arm, the next in the cycle's order (a new cycle shuffled). */
unsigned schedule_next(struct schedule *s, uint64_t now);
/* The guard ended: the first sample, and the slot is measured from here. */
void schedule_guard_ends(struct schedule *s);
/*
 * The slot ended, bytes moved since its guard's end: its figures into sl
 * (arm, cycle, bytes, fig, its load on each CPU, and its place in t, whose
 * slot it is to be; t given the meter's CPUs with the first slot) and
 * 1, t's meter dropped (n_cpus 0) once a sample failed; or 0 where its
 * guard had not ended (a short slot, counted).
 */
int schedule_slot_ends(struct schedule *s, uint64_t bytes, struct turns *t, struct turns_slot *sl);
/* Whether the samples carry the meter's figures (a meter, and none failed). */
int schedule_metered(const struct schedule *s);
void schedule_free(struct schedule *s);

/*
 * The slot events (zcc -e, zcs -e): a line as each slot begins and one as
 * the turns end, for a program beside the run (tests/loadgen, a user's
 * own), each written whole as it happens:
 *   slot N cycle C arm A time SECS offset BYTES [peer ADDR port P] name NAME
 *   end slots N time SECS offset BYTES [peer ADDR port P]
 * N counts the slots from 1, C the cycles from 1, A the arms from 1 in
 * the order given; SECS is CLOCK_MONOTONIC's (any program on the host can
 * compare it with its own clock_gettime), BYTES the stream's bytes sent
 * (zcc) or received (zcs) before the slot began; the peer is zcs's, its
 * connection's sender; NAME, the arm's as the summaries name it, is the
 * rest of the line (a sysctl's value may hold a space). The file is emptied and opened with O_APPEND, so
 * that zcs's connections write their lines whole into one file, a line at
 * a time; NULL with errno where it cannot be opened.
 */
FILE *schedule_events_open(const char *path);
void schedule_event_slot(FILE *f, const struct schedule *s, const char *name, uint64_t offset,
			 const char *peer);
void schedule_event_end(FILE *f, const struct schedule *s, uint64_t offset, const char *peer);

#endif
