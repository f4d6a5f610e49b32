/*
 * turns: what the slots of arms taking turns in one stream say, arm against
 * arm, at whichever end measured them. A slot is one arm's turn, measured
 * past its guard: its bytes, its time and the meter's figures over it. Each
 * arm is set against the cheapest block of cycles by block (paired), and
 * the verdict says it costs more, the same, or is not resolved.
 *
 * The sender (zcc) knows its slots by time; the receiver (zcs) cannot tell
 * the arms apart from the bytes and does not share the sender's clock, so
 * the sender tells it each measured slot by the stream's offsets (the slot
 * table, after the stream), and the receiver answers with its figures over
 * the same bytes (the answer): both are encoded here.
 */
#ifndef ZC_TURNS_H
#define ZC_TURNS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "sampling.h"

struct paired;

/* The most arms a stream's turns may have (each TCP mode once, and one again). */
#define TURNS_MAX_ARMS 8
#define TURNS_NAME_BYTES 40

/* -A: a slot's length by default, and the bounds on it, in ms (zcc's and zcs's). */
#define TURNS_DEFAULT_SLOT_MS 100
#define TURNS_MIN_SLOT_MS 20
#define TURNS_MAX_SLOT_MS 60000

/* What one slot measured, from its guard's end to its end. */
struct turns_slot {
	unsigned arm;
	uint32_t cycle;
	uint32_t at;		/* its place in the slot table: the sender's order */
	uint64_t bytes;
	uint64_t queued;	/* the sender's: its send queue's bytes as it began (SIOCOUTQ) */
	struct soak_figures fig;	/* fig.ns always; the load's figures when metered */
};

/* Which end's figures a turns holds: the line's prefix and the sum's difference. */
enum turns_end { TURNS_SENDER, TURNS_RECEIVER, TURNS_BOTH };

struct turns {
	enum turns_end end;
	unsigned n_arms;
	char arm[TURNS_MAX_ARMS][TURNS_NAME_BYTES];	/* as lines name it: its mode, #N if twice */
	char mode[TURNS_MAX_ARMS][TURNS_NAME_BYTES];
	long slot_ms;
	int n_cpus;		/* the meter's CPUs; 0 without a meter (or once it failed) */
	int notsent_lowat;	/* the sender's: TCP_NOTSENT_LOWAT, where it held the queue; 0 */
	struct turns_slot *slots;
	size_t n_slots, cap_slots;
};

/* No slots yet; arms named for their modes, "#N" after those named twice. */
void turns_init(struct turns *t, enum turns_end end, const char *const *modes, unsigned n_arms,
		long slot_ms);
/* The same, the arms named as names says (zcc -X: "b=64k"); names NULL: as turns_init. */
void turns_init_named(struct turns *t, enum turns_end end, const char *const *modes,
		      const char *const *names, unsigned n_arms, long slot_ms);
/* One more slot, kept. */
void turns_add(struct turns *t, const struct turns_slot *sl);
void turns_free(struct turns *t);

/*
 * Both ends' slots, the same slots by their place (each end's from its own
 * meter), into one whose demand is the two ends' sum: what a KiB costs the
 * sending host and the receiving host together. Slots either end did not
 * measure are left out. Its lines give the demand alone.
 */
void turns_sum(const struct turns *sender, const struct turns *receiver, struct turns *both);

/* The median of v[0..n) (the upper of the middle two), 0 for none; v is left as it was. */
uint64_t turns_median(const uint64_t *v, size_t n);

/* The bytes the slots measured, every arm's. */
uint64_t turns_bytes(const struct turns *t);
/*
 * The soakers' difference d and the kernel's view of it k both leave out 0,
 * on opposite sides: the meter says an arm costs more, the kernel's
 * accounting that it costs less (or the other way).
 */
int turns_views_disagree(const struct paired *d, const struct paired *k);
/* The arms' lines, and with a meter each arm against the cheapest. */
void turns_print(const struct turns *t, FILE *out, char unit);
/* The same as -J's slot_ms, block_cycles, arms, cheapest, comparisons and slots. */
void turns_json(const struct turns *t, struct json *j);

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
 * A table read back: its arms into t (turns_init'd as the receiver's) and
 * its slots' ranges (malloc'd, *n of them). 0, or -1 with why.
 */
int turns_table_decode(const unsigned char *buf, size_t len, struct turns *t,
		       struct turns_range **ranges, size_t *n, char *why, size_t why_len);

/*
 * The answer: for each of the table's n slots, whether it was measured and
 * its figures (the turns' slots in order; measured[i] 0 where none), with
 * the meter's CPUs.
 */
unsigned char *turns_answer_encode(const struct turns_slot *slots, const int *measured, size_t n,
				   int n_cpus, size_t *len);
/*
 * An answer to a table of the sender's slots read back into t (turns_init'd
 * with the sender's arms): the slots the receiver measured, each with the
 * sender's arm, cycle and place. 0, or -1 with why.
 */
int turns_answer_decode(const unsigned char *buf, size_t len, const struct turns *sender,
			struct turns *t, char *why, size_t why_len);

#endif
