/*
 * zcc -m A,B,...: one stream sent by several modes in turn, each for a slot
 * of -A ms in an order shuffled afresh every cycle, under one meter that runs
 * throughout, sampled at every slot's start and end. What the host does to
 * the run (another guest, a hypervisor's time, a burst of interrupts) moves
 * neighbouring slots alike, so the arms' difference, block of cycles by
 * block, keeps what the modes do and sheds most of what the host does.
 */
#ifndef ZC_ALTERNATE_H
#define ZC_ALTERNATE_H

#include <stdint.h>
#include <stdio.h>

#include "lib/json.h"
#include "lib/meter.h"
#include "lib/schedule.h"
#include "lib/sysctl.h"
#include "lib/turns.h"
#include "tx/tx.h"

/* -m's list: the most modes it may name (each TCP mode once, and one again). */
#define ALT_MAX_ARMS TURNS_MAX_ARMS

/*
 * -X NAME=V1,V2,...: one mode, its arms the values of one setting. The
 * chunk (b) is each arm's own buffers; the socket options are set on the
 * one socket as each arm's slot begins: SO_SNDBUF, TCP_NODELAY, TCP_CORK
 * (uncorking sends what it held) and SO_MAX_PACING_RATE; and, as root, a
 * sysctl by its name (net.ipv4.tcp_autocorking), put back at the end.
 */
enum alt_knob { ALT_KNOB_NONE, ALT_KNOB_CHUNK, ALT_KNOB_SNDBUF, ALT_KNOB_NODELAY, ALT_KNOB_CORK,
		ALT_KNOB_PACING, ALT_KNOB_SYSCTL };

struct alt_knob_arms {
	enum alt_knob knob;
	unsigned n;
	uint64_t value[ALT_MAX_ARMS];
	char text[ALT_MAX_ARMS][64];	/* a sysctl's values, as written to it */
	char label[ALT_MAX_ARMS][TURNS_NAME_BYTES];	/* the arm's name: "b=64k", "nodelay=1" */
	struct sysctl_knob *sysctl;	/* a sysctl, opened (lib/sysctl): set as each slot begins */
};

struct alternation {
	unsigned n_arms;
	struct sender arms[ALT_MAX_ARMS];
	struct sender *current;		/* the arm sending now; what a stop signal counts */
	unsigned errqueue_arms;		/* arms that read the socket's error queue (MSG_ZEROCOPY) */
	struct alt_knob_arms knob;	/* -X: the setting the arms differ in; knob NONE without */
	long slot_ms;
	int debug;
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
void alt_setup(struct alternation *alt, const struct send_mode *const *modes, unsigned n,
	       const struct tx_config *c, long slot_ms, const struct alt_knob_arms *knob);
/* The socket, connected by arms[0]: every arm sends on it, with its mode's options. */
void alt_connected(struct alternation *alt);
/* The first slot starts now; with m, its samples are the meter's (m may be NULL). */
void alt_start(struct alternation *alt, struct meter *m);
/* tx_send_stream_turns's turn: the arm that sends the next file. */
struct sender *alt_turn(void *alt);
/*
 * After the stream, before the wait for zcs's close: the arms other than the
 * last to send take their last completions (their sends are a slot old or
 * more; a completion left on the error queue would wake that wait, whose
 * read then blocked past -W).
 */
void alt_settle(struct alternation *alt);
/* After zcs closed (or -W ran out): the zero-copy sends of all arms, summed. */
void alt_finish(struct alternation *alt, uint64_t *zc_sends, uint64_t *zc_copied);
/* Every arm's buffers, and the socket, once; the slots stay for the report. */
void alt_close(struct alternation *alt);

/*
 * zcc -E: the slot table, sent after the stream's last byte (before the
 * half-close) to a zcs that answered the opening exchange; its answer, read
 * back with zcs's close (alt_read_answer).
 */
void alt_send_table(struct alternation *alt);
/* zcs's answer: its figures over the slots, and with the meter here the two ends' sum. */
void alt_read_answer(struct alternation *alt, const unsigned char *buf, size_t len);

/* On stderr, when more than a tenth of the slots measured nothing: why, and what to do. */
void alt_warn(const struct alternation *alt);
/* The arms' lines, and with the meter each arm against the cheapest. */
void alt_print(const struct alternation *alt, FILE *out, char unit);
/* The same as -J's "arms", "comparisons" and "slots". */
void alt_json(const struct alternation *alt, struct json *j);

#endif
