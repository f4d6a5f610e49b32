/*
 * turnswire: what the two ends of the turns tell each other. The sender
 * (zcc) knows its slots by time; the receiver (zcs) cannot tell the arms
 * apart from the bytes and does not share the sender's clock, so the
 * sender tells it each measured slot by the stream's offsets (the slot
 * table, after the stream), and the receiver answers with its figures over
 * the same bytes (the answer). The decoders take whatever a peer sends.
 */
#ifndef ZC_TURNSWIRE_H
#define ZC_TURNSWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "turns.h"

/*
 * The slot table, after the stream (only to a zcs that answered zcc -E's
 * opening exchange): "zcTS", slot_ms, the arms' modes, and each measured
 * slot as its arm, its cycle and the stream offsets it began and ended at
 * (from: the bytes sent before its guard's end; to: before its end).
 * Every integer big-endian, as the stream's.
 */
#define TURNS_TABLE_MAGIC "zcTS"
/* The answer, zcs's figures over each slot of the table: "zcTA", then one record a slot. */
#define TURNS_ANSWER_MAGIC "zcTA"
/*
 * The same with the load on each of the meter's CPUs: "zcTC", the CPUs'
 * numbers after the count of slots, and each slot's record followed by its
 * load on each. A zcs of this suite answers so where its meter has CPUs; a
 * zcc reads both.
 */
#define TURNS_ANSWER_CPUS_MAGIC "zcTC"
/*
 * Instead of the answer, from a zcs that takes turns of its own (zcs -m
 * A,B,...): its slots are not the sender's, and it gives no figures over them.
 */
#define TURNS_DECLINE_MAGIC "zcTN"
/* The most slots a table holds (a day of 40 ms slots is 2.2 million). */
#define TURNS_MAX_SLOTS (1u << 22)

struct turns_range {
	unsigned arm;
	uint32_t cycle;
	uint64_t from, to;
};

/* The table of t's slots, whose offsets are ranges[i], into a buffer of *len bytes (malloc'd). */
unsigned char *turns_table_encode(const struct turns *t, const struct turns_range *ranges,
				  size_t *len);
/*
 * How many bytes a table begun in buf[0..len) needs, for a receiver that
 * keeps what follows the stream only while it may be a table, and no more
 * than one holds: past len while its head is incomplete (where the next
 * field ends), its whole size once its slot count is read; 0 when it is
 * not a table (another beginning, a slot's length or a count of arms out
 * of range, a name too long, more than max_slots slots), with why (why_len
 * bytes; why may be NULL).
 */
size_t turns_table_want(const unsigned char *buf, size_t len, uint32_t max_slots, char *why,
			size_t why_len);
/*
 * The most slots a table may hold of a stream that took elapsed_ns from its
 * accept: one a TURNS_MIN_SLOT_MS at most, twice over, for the clocks.
 */
uint32_t turns_table_max_slots(uint64_t elapsed_ns);
/*
 * A table read back: its arms into t (turns_init'd as the receiver's) and
 * its slots' ranges (malloc'd, *n of them). 0, or -1 with why.
 */
int turns_table_decode(const unsigned char *buf, size_t len, struct turns *t,
		       struct turns_range **ranges, size_t *n, char *why, size_t why_len);

/*
 * The answer: for each of the table's n slots, whether it was measured and
 * its figures (the turns' slots in order; measured[i] 0 where none), with
 * the meter's CPUs; with cpus (their numbers) and loads (n_cpus a slot),
 * each slot's load on each ("zcTC").
 */
unsigned char *turns_answer_encode(const struct turns_slot *slots, const int *measured, size_t n,
				   int n_cpus, const int *cpus, const double *loads, size_t *len);
/*
 * An answer to a table of the sender's slots read back into t (turns_init'd
 * with the sender's arms): the slots the receiver measured, each with the
 * sender's arm, cycle and place, and its load on each CPU where the answer
 * gives them. 0, or -1 with why.
 */
int turns_answer_decode(const unsigned char *buf, size_t len, const struct turns *sender,
			struct turns *t, char *why, size_t why_len);

#endif
