/*
 * zcc's turns (zcs's own are server/rxturns). One mode is turns of one arm,
 * which sends the whole stream. With -m A,B,..., one stream is sent by
 * several modes in turn, each for a slot of -A ms in an order shuffled
 * afresh every cycle, under one meter that runs throughout, sampled at every
 * slot's start and end. What the host does to the run (another guest, a
 * hypervisor's time, a burst of interrupts) moves neighbouring slots alike,
 * so the arms' difference, block of cycles by block, keeps what the modes do
 * and sheds most of what the host does.
 */
#ifndef ZC_TXTURNS_H
#define ZC_TXTURNS_H

#include <stdint.h>
#include <stdio.h>

#include "lib/json.h"
#include "lib/meter.h"
#include "lib/options.h"
#include "lib/schedule.h"
#include "lib/sysctl.h"
#include "lib/turnsout.h"
#include "lib/turnswire.h"
#include "tx/tx.h"

struct txturns;

/*
 * -R, -X pacing: the least rate a stream may be paced at. Below it a send can wait for
 * room in the socket buffer long enough to look like a stalled receiver (-W).
 */
#define MIN_STREAM_RATE 1024

/*
 * -X NAME=V1,V2,...: one mode, its arms the values of one setting, a row of
 * knobs[] (txturns.c) each: its name, the option that sets the same for
 * every arm, how its values parse, and its apply function, run on the one
 * socket as each arm's slot begins (none for the chunk, which is each arm's
 * own buffers). The sysctl's row, named by a name with dots, writes it as
 * root; it is put back at the end.
 */
enum knob_values {
	KNOB_SIZE,	/* a size, k, m, g taken, within the shared limits of value (lib/options) */
	KNOB_RATE,	/* a rate, as -R takes it */
	KNOB_SWITCH,	/* 0 or 1 */
	KNOB_TEXT,	/* written as given */
};

struct knob {
	const char *name;	/* -X's NAME; NULL: the sysctl's row */
	char option;		/* the option that sets the same for every arm; 0 */
	enum knob_values values;
	enum option_value value;	/* KNOB_SIZE: the option's limits it shares */
	long min, max;		/* KNOB_RATE, KNOB_SWITCH: its own */
	int chunk;		/* each arm's chunk, its own buffers (needs a mode with a chunk) */
	const char *not_with_copies;	/* why a mode that counts its copies cannot take it */
	void (*apply)(struct txturns *turns, const struct knob *k, unsigned arm);
	int level, optname;	/* a socket option's, where apply sets an int */
	const char *said;	/* that option's name, for its error */
};

/* -X's setting of that name: a name with dots is the sysctl's row; NULL for no setting. */
const struct knob *knob_find(const char *name);
/* The settings by name, as a message lists them ("b, sndbuf, nodelay, cork or pacing"). */
const char *knob_names(void);

struct knob_arms {
	const struct knob *knob;	/* NULL: no -X */
	unsigned n;
	uint64_t value[TURNS_MAX_ARMS];
	char text[TURNS_MAX_ARMS][64];	/* a sysctl's values, as written to it */
	char label[TURNS_MAX_ARMS][TURNS_NAME_BYTES];	/* the arm's name: "b=64k", "nodelay=1" */
	struct sysctl_knob *sysctl;	/* a sysctl, opened (lib/sysctl): set as each slot begins */
};

/* A stream's turns: its arms, the senders taking them, and the slots. */
struct txturns {
	unsigned n_arms;
	struct sender arms[TURNS_MAX_ARMS];
	struct sender *current;		/* the arm sending now; what a stop signal counts */
	unsigned errqueue_arms;		/* arms that read the socket's error queue (MSG_ZEROCOPY) */
	struct knob_arms knob;		/* -X: the setting the arms differ in; knob NULL without */
	long slot_ms;
	int debug;
	FILE *events;			/* -e: the slot events (lib/schedule); NULL */
	struct meter *meter;		/* -c; NULL */
	struct schedule sched;		/* whose slot it is, and the meter's samples at its edges */
	uint64_t sent_at_guard;
	uint64_t queued_at_guard;	/* the send queue's bytes then (SIOCOUTQ) */
	int notsent_lowat;		/* paced: TCP_NOTSENT_LOWAT, as set; 0 */
	struct turns result;		/* the slots measured, and what they say */
	struct turns_range *ranges;	/* each one's stream offsets, for zcs (the slot table) */
	struct turns receiver;		/* zcs's figures over the same slots, where it answered */
	struct turns both;		/* and the two ends' sum, where both had a meter */
	int answered;
};

/*
 * Each arm's buffers, pipe or ring (tx_sender_setup), before connecting, as
 * c asks; slots of slot_ms. A mode the kernel cannot do fails here. With
 * knob (-X; NULL without), the arms are its values, named for them, the
 * chunk each arm's own.
 */
void txturns_setup(struct txturns *turns, const struct send_mode *const *modes, unsigned n,
		   const struct tx_config *c, long slot_ms, const struct knob_arms *knob);
/*
 * The socket, connected by arms[0]: every arm sends on it, with its mode's
 * options (-R's pacing set once, by arms[0]).
 */
void txturns_connected(struct txturns *turns);
/*
 * The stream, from its first byte to its last: one arm sends it all; two or
 * more take turns by slots, whose samples are the meter's (m; NULL without),
 * and with -E (exchange) the slot table follows the stream for zcs. Then the
 * arms other than the last to send take their last completions (their sends
 * are a slot old or more; a completion left on the error queue would wake
 * the wait for zcs's close, whose read then blocked past -W). turns->current
 * is the last arm to send.
 */
void txturns_send(struct txturns *turns, struct meter *m, const struct tx_plan *plan,
		  const struct tx_file *files, size_t n_files, int exchange);
/*
 * After zcs closed (or -W ran out): with -E and turns, zcs's answer (its
 * figures over the slots, and with the meter here the two ends' sum); the
 * zero-copy sends of all arms, summed.
 */
void txturns_finish(struct txturns *turns, int exchange, uint64_t *zc_sends, uint64_t *zc_copied);
/* Every arm's buffers, and the socket, once; the slots stay for the report. */
void txturns_close(struct txturns *turns);

/* On stderr, when more than a tenth of the slots measured nothing: why, and what to do. */
void txturns_warn(const struct txturns *turns);
/* The arms' lines, and with the meter each arm against the cheapest. */
void txturns_print(const struct txturns *turns, FILE *out, char unit);
/* The same as -J's "arms", "comparisons" and "slots". */
void txturns_json(const struct txturns *turns, struct json *j);

#endif
