/*
 * zcc's turns: the arms of one stream (one mode is turns of one arm, which
 * sends it all), and with -m A,B,... their slots, the samples at their
 * edges, and what the slots say, arm against arm.
 */
#include <err.h>
#include <limits.h>
#include <math.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/net.h"
#include "lib/opt.h"
#include "lib/timing.h"
#include "lib/units.h"
#include "txturns.h"

/* Paced, the bytes not yet sent are held to this share of a slot's at the rate. */
#define TURNS_QUEUE_SHARE 16

void txturns_setup(struct txturns *turns, const struct send_mode *const *modes, unsigned n,
		   const struct tx_config *c, long slot_ms, const struct knob_arms *knob)
{
	const char *names[TURNS_MAX_ARMS], *arms[TURNS_MAX_ARMS];

	memset(turns, 0, sizeof(*turns));
	turns->n_arms = n;
	turns->slot_ms = slot_ms;
	turns->debug = c->debug;
	if (knob)
		turns->knob = *knob;
	for (unsigned i = 0; i < n; i++) {
		struct tx_config own = *c;

		/* -R: the socket is paced once, by the arm that connects it. */
		if (i > 0)
			own.rate = 0;
		if (turns->knob.knob && turns->knob.knob->chunk)
			own.bufsize = turns->knob.value[i];
		tx_sender_setup(&turns->arms[i], modes[i], &own);
		turns->errqueue_arms += modes[i]->errqueue;
		names[i] = modes[i]->name;
		arms[i] = turns->knob.knob ? turns->knob.label[i] : NULL;
	}
	turns->current = &turns->arms[0];
	turns_init_named(&turns->result, TURNS_SENDER, names, turns->knob.knob ? arms : NULL, n,
			 slot_ms);
}

/*
 * Paced, what the arms hand the socket waits there to be sent at the rate:
 * the kernel's send buffer (4 MiB) held 39 ms of bytes at 100 MiB/s, a
 * whole 40 ms slot, so each slot's bytes left (and reached zcs) in the
 * next one. The bytes not yet sent are held to a sixteenth of a slot at
 * the rate (64 KiB at least), so that a slot's bytes leave in that slot.
 */
static void bound_the_queue(struct txturns *turns, uint64_t rate)
{
	uint64_t bytes = rate * turns->slot_ms / 1000 / TURNS_QUEUE_SHARE;
	int lowat;

	if (!rate)
		return;
	lowat = bytes < 65536 ? 65536 : bytes > INT_MAX ? INT_MAX : (int)bytes;
	if (setsockopt(turns->current->sock, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat,
		       sizeof(lowat)) < 0)
		err(1, "setsockopt TCP_NOTSENT_LOWAT %d", lowat);
	turns->notsent_lowat = turns->result.notsent_lowat = lowat;
	if (turns->debug)
		fprintf(stderr,
			"zcc: the turns hold the bytes not yet sent to %d (TCP_NOTSENT_LOWAT)\n",
			lowat);
}

/* -X: a socket option that is an int, as the row names it. */
static void apply_sockopt(struct txturns *turns, const struct knob *k, unsigned arm)
{
	uint64_t v = turns->knob.value[arm];
	int iv = v > INT_MAX ? INT_MAX : (int)v;

	if (setsockopt(turns->current->sock, k->level, k->optname, &iv, sizeof(iv)) < 0)
		err(1, "-X %s: setsockopt %s", turns->knob.label[arm], k->said);
}

/* -X pacing: SO_MAX_PACING_RATE, and the queue held to a sixteenth of a slot at it, as -R's is. */
static void apply_pacing(struct txturns *turns, const struct knob *k, unsigned arm)
{
	(void)k;
	net_set_pacing(turns->current->sock, turns->knob.value[arm], 0);
	bound_the_queue(turns, turns->knob.value[arm]);
}

/* -X net.ipv4.NAME: the sysctl, opened as root before the run (zcc.c), written. */
static void apply_sysctl(struct txturns *turns, const struct knob *k, unsigned arm)
{
	(void)k;
	if (sysctl_knob_set(turns->knob.sysctl, turns->knob.text[arm]) < 0)
		err(1, "-X %s: writing %s", turns->knob.label[arm], turns->knob.sysctl->path);
}

/*
 * -X's settings. A corked partial segment waits up to 200 ms, and a
 * zero-copy send's buffer under it until then.
 */
static const struct knob knobs[] = {
	{ "b", 'b', KNOB_SIZE, OPTION_CHUNK, .chunk = 1 },
	{ "sndbuf", 'o', KNOB_SIZE, OPTION_SOCKBUF, .apply = apply_sockopt, .level = SOL_SOCKET,
	  .optname = SO_SNDBUF, .said = "SO_SNDBUF" },
	{ "nodelay", 'D', KNOB_SWITCH, OPTION_OWN, 0, 1, .apply = apply_sockopt, .level = IPPROTO_TCP,
	  .optname = TCP_NODELAY, .said = "TCP_NODELAY" },
	{ "cork", 'k', KNOB_SWITCH, OPTION_OWN, 0, 1, .apply = apply_sockopt, .level = IPPROTO_TCP,
	  .optname = TCP_CORK, .said = "TCP_CORK",
	  .not_with_copies = "TCP_CORK holds each chunk's last partial segment for up to 200 ms, "
			     "and the buffer under it until then" },
	{ "pacing", 'R', KNOB_RATE, OPTION_OWN, MIN_STREAM_RATE, LONG_MAX, .apply = apply_pacing },
	{ NULL, 0, KNOB_TEXT, .apply = apply_sysctl },
};

#define N_KNOBS (sizeof(knobs) / sizeof(knobs[0]))

const struct knob *knob_find(const char *name)
{
	for (size_t i = 0; i < N_KNOBS; i++)
		if (knobs[i].name ? strcmp(knobs[i].name, name) == 0 : strchr(name, '.') != NULL)
			return &knobs[i];
	return NULL;
}

const char *knob_names(void)
{
	static char out[128];
	const char *names[N_KNOBS];
	size_t n = 0;

	for (size_t i = 0; i < N_KNOBS; i++)
		if (knobs[i].name)
			names[n++] = knobs[i].name;
	return opt_join_names(out, sizeof(out), names, n);
}

/* -X: the current arm's value of the setting, as its slot begins. */
static void set_knob(struct txturns *turns)
{
	const struct knob *k = turns->knob.knob;

	if (!k || !k->apply)
		return;
	k->apply(turns, k, turns->sched.cur);
	if (turns->debug)
		fprintf(stderr, "zcc: -X %s set\n", turns->knob.label[turns->sched.cur]);
}

void txturns_connected(struct txturns *turns)
{
	for (unsigned i = 0; i < turns->n_arms; i++) {
		turns->arms[i].sock = turns->arms[0].sock;
		tx_sender_connected(&turns->arms[i]);
	}
	if (turns->n_arms > 1)
		bound_the_queue(turns, turns->arms[0].rate);
}

/* The bytes in the send queue now, sent and not acknowledged or not yet sent (SIOCOUTQ). */
static uint64_t queued(const struct txturns *turns)
{
	int v = 0;

	return ioctl(turns->current->sock, SIOCOUTQ, &v) == 0 && v > 0 ? (uint64_t)v : 0;
}

/* A slot begins now, for the arm next in the cycle. */
static void begin_slot(struct txturns *turns, uint64_t now)
{
	struct sender *before = turns->current;
	int first = turns->sched.slots == 0;

	turns->current = &turns->arms[schedule_next(&turns->sched, now)];
	/*
	 * The kernel numbers a socket's MSG_ZEROCOPY sends, whichever arm made
	 * them, and its completions come on the one error queue: an arm that
	 * reads it hands over with its own completions read, lest the next take
	 * them (another that reads it may come next but one), and the next
	 * numbers on from the socket's count.
	 */
	if (before != turns->current && before->mode->errqueue && turns->errqueue_arms > 1)
		before->mode->finish(before);
	turns->current->next_id = before->next_id;
	turns->current->sent = before->sent;
	turns->current->calls = before->calls;
	if (before != turns->current || first)
		set_knob(turns);
	schedule_event_slot(turns->events, &turns->sched, turns->result.arm[turns->sched.cur],
			    turns->current->sent, NULL);
	if (turns->debug)
		fprintf(stderr, "zcc: slot %llu, cycle %u, arm %u (%s)\n",
			(unsigned long long)turns->sched.slots, turns->sched.cycle + 1,
			turns->sched.cur + 1, turns->result.arm[turns->sched.cur]);
}

static void start(struct txturns *turns, struct meter *m)
{
	turns->meter = m;
	turns->result.n_cpus = meter_cpus(m);
	schedule_init(&turns->sched, turns->n_arms, turns->slot_ms, m);
	begin_slot(turns, timing_now_ns());
}

/* The slot that ends now: what it measured past its guard, kept. */
static void end_slot(struct txturns *turns)
{
	struct turns *t = &turns->result;
	struct turns_slot sl;

	if (!schedule_slot_ends(&turns->sched, turns->current->sent - turns->sent_at_guard, t, &sl))
		return;
	sl.queued = turns->queued_at_guard;
	if (t->n_slots == t->cap_slots) {
		turns->ranges = realloc(turns->ranges, (t->cap_slots ? 2 * t->cap_slots : 256) *
							   sizeof(*turns->ranges));
		if (!turns->ranges)
			err(1, "realloc");
	}
	turns->ranges[t->n_slots] = (struct turns_range){ .arm = sl.arm, .cycle = sl.cycle,
							.from = turns->sent_at_guard,
							.to = turns->current->sent };
	turns_add(t, &sl);
}

/* tx_send_stream's turn: the arm that sends the next file. */
static struct sender *next(void *arg)
{
	struct txturns *turns = arg;
	uint64_t now = timing_now_ns();

	/*
	 * The arm changes between files only: a slot whose guard and end both
	 * passed while one file was sent has no window of its own to measure.
	 */
	switch (schedule_due(&turns->sched, now)) {
	case SCHEDULE_SLOT_ENDS:
		end_slot(turns);
		begin_slot(turns, timing_now_ns());
		break;
	case SCHEDULE_GUARD_ENDS:
		schedule_guard_ends(&turns->sched);
		turns->queued_at_guard = queued(turns);
		turns->sent_at_guard = turns->current->sent;
		break;
	case SCHEDULE_NOTHING:
		break;
	}
	return turns->current;
}

static void settle(struct txturns *turns)
{
	for (unsigned i = 0; i < turns->n_arms; i++) {
		struct sender *a = &turns->arms[i];

		if (a != turns->current && a->mode->finish)
			a->mode->finish(a);
	}
}

void txturns_warn(const struct txturns *turns)
{
	size_t all = turns->result.n_slots + turns->sched.short_slots;

	if (turns->sched.short_slots * 10 > all)
		warnx("note: %zu of %zu slots had nothing to measure: the arms change between files, "
		      "and a file took longer to send than a quarter of a slot (-A %ld); send "
		      "smaller files, or give longer slots", turns->sched.short_slots, all, turns->slot_ms);
}

void txturns_close(struct txturns *turns)
{
	for (unsigned i = 1; i < turns->n_arms; i++) {
		turns->arms[i].sock = -1;
		tx_sender_close(&turns->arms[i]);
	}
	tx_sender_close(&turns->arms[0]);
	free(turns->ranges);
	turns->ranges = NULL;
	schedule_free(&turns->sched);
}

/* -E: the slot table, after the stream's last byte (before the half-close). */
static void send_table(struct txturns *turns)
{
	struct sender *snd = turns->current;
	size_t len, done;
	unsigned char *table = turns_table_encode(&turns->result, turns->ranges, &len);

	if (net_write_full(snd->sock, NET_IO_SEND, table, len, &done, NULL) < 0)
		tx_die_sending(snd, "sending the slot table");
	free(table);
	snd->keep_answer = 1;
}

static void read_answer(struct txturns *turns, const unsigned char *buf, size_t len)
{
	char why[160];

	if (!len) {
		warnx("note: zcs sent no figures over the slots: it is older than zcc, or died "
		      "first; the receiver's lines are missing");
		return;
	}
	if (len == sizeof(TURNS_DECLINE_MAGIC) - 1 &&
	    memcmp(buf, TURNS_DECLINE_MAGIC, len) == 0) {
		warnx("note: zcs takes turns of its own (zcs -m A,B,...), by its own slots: it gave "
		      "no figures over these; the receiver's lines are missing");
		return;
	}
	if (turns_answer_decode(buf, len, &turns->result, &turns->receiver, why, sizeof(why)) < 0) {
		warnx("note: zcs's figures over the slots make no sense (%s): the receiver's lines "
		      "are missing", why);
		return;
	}
	turns->answered = 1;
	turns_sum(&turns->result, &turns->receiver, &turns->both);
}

void txturns_send(struct txturns *turns, struct meter *m, const struct tx_plan *plan,
		  const struct tx_file *files, size_t n_files, int exchange)
{
	if (turns->n_arms == 1) {
		tx_send_stream(turns->current, NULL, NULL, plan, files, n_files, turns->debug);
		return;
	}
	start(turns, m);
	tx_send_stream(turns->current, next, turns, plan, files, n_files, turns->debug);
	schedule_event_end(turns->events, &turns->sched, turns->current->sent, NULL);
	/* -E: zcs is of this suite, and takes the slot table after the stream. */
	if (exchange)
		send_table(turns);
	settle(turns);
}

void txturns_finish(struct txturns *turns, int exchange, uint64_t *zc_sends, uint64_t *zc_copied)
{
	uint64_t sends = 0, copied = 0;

	if (exchange && turns->n_arms > 1)
		read_answer(turns, turns->current->answer, turns->current->answer_len);
	for (unsigned i = 0; i < turns->n_arms; i++) {
		sends += turns->arms[i].zc_sends;
		copied += turns->arms[i].zc_copied;
	}
	*zc_sends = sends;
	*zc_copied = copied;
}

void txturns_print(const struct txturns *turns, FILE *out, char unit)
{
	/*
	 * Each arm's count runs on from the stream's offset as it takes its
	 * turn: the current one's is the stream's.
	 */
	uint64_t sent = turns->current->sent, measured = turns_bytes(&turns->result);

	turns_print(&turns->result, out, unit);
	/* Why the arms' bytes add to less than the stream's. */
	if (sent)
		fprintf(out, "the slots measured %llu of the %llu bytes sent (%.0f%%): the first "
			"quarter of each slot (%.1f ms, its guard) is not measured, nor a slot the end "
			"cut short\n", (unsigned long long)measured, (unsigned long long)sent,
			100.0 * measured / sent, turns->sched.guard_ns / 1e6);
	if (!turns->answered)
		return;
	turns_print(&turns->receiver, out, unit);
	if (turns->both.n_cpus)
		turns_print(&turns->both, out, unit);
}

void txturns_json(const struct txturns *turns, struct json *j)
{
	turns_json(&turns->result, j);
	if (turns->answered) {
		json_object(j, "receiver");
		turns_json(&turns->receiver, j);
		json_close(j);
	} else {
		json_null(j, "receiver");
	}
	if (turns->answered && turns->both.n_cpus) {
		json_object(j, "both_ends");
		turns_json(&turns->both, j);
		json_close(j);
	} else {
		json_null(j, "both_ends");
	}
}
