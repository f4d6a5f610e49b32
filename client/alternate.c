/*
 * zcc -m A,B,...: the arms of one stream, their slots and the samples at
 * their edges, and what the slots say, arm against arm.
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
#include "lib/timing.h"
#include "lib/units.h"
#include "alternate.h"

/* Paced, the bytes not yet sent are held to this share of a slot's at the rate. */
#define TURNS_QUEUE_SHARE 16

void alt_setup(struct alternation *alt, const struct send_mode *const *modes, unsigned n,
	       const struct tx_config *c, long slot_ms, const struct alt_knob_arms *knob)
{
	const char *names[ALT_MAX_ARMS], *arms[ALT_MAX_ARMS];

	memset(alt, 0, sizeof(*alt));
	alt->n_arms = n;
	alt->slot_ms = slot_ms;
	alt->debug = c->debug;
	if (knob)
		alt->knob = *knob;
	for (unsigned i = 0; i < n; i++) {
		struct tx_config own = *c;

		/* -R: the socket is paced once, by the arm that connects it. */
		if (i > 0)
			own.rate = 0;
		if (alt->knob.knob == ALT_KNOB_CHUNK)
			own.bufsize = alt->knob.value[i];
		tx_sender_setup(&alt->arms[i], modes[i], &own);
		alt->errqueue_arms += modes[i]->errqueue;
		names[i] = modes[i]->name;
		arms[i] = alt->knob.knob ? alt->knob.label[i] : NULL;
	}
	alt->current = &alt->arms[0];
	turns_init_named(&alt->result, TURNS_SENDER, names, alt->knob.knob ? arms : NULL, n, slot_ms);
}

/*
 * Paced, what the arms hand the socket waits there to be sent at the rate:
 * the kernel's send buffer (4 MiB) held 39 ms of bytes at 100 MiB/s, a
 * whole 40 ms slot, so each slot's bytes left (and reached zcs) in the
 * next one. The bytes not yet sent are held to a sixteenth of a slot at
 * the rate (64 KiB at least), so that a slot's bytes leave in that slot.
 */
static void bound_the_queue(struct alternation *alt, uint64_t rate)
{
	uint64_t bytes = rate * alt->slot_ms / 1000 / TURNS_QUEUE_SHARE;
	int lowat;

	if (!rate)
		return;
	lowat = bytes < 65536 ? 65536 : bytes > INT_MAX ? INT_MAX : (int)bytes;
	if (setsockopt(alt->current->sock, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat,
		       sizeof(lowat)) < 0)
		err(1, "setsockopt TCP_NOTSENT_LOWAT %d", lowat);
	alt->notsent_lowat = alt->result.notsent_lowat = lowat;
	if (alt->debug)
		fprintf(stderr,
			"zcc: the turns hold the bytes not yet sent to %d (TCP_NOTSENT_LOWAT)\n", lowat);
}

/* -X's socket options that are an int, by knob. */
static const struct {
	int level, name;
	const char *said;
} knob_options[] = {
	[ALT_KNOB_SNDBUF] = { SOL_SOCKET, SO_SNDBUF, "SO_SNDBUF" },
	[ALT_KNOB_NODELAY] = { IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY" },
	[ALT_KNOB_CORK] = { IPPROTO_TCP, TCP_CORK, "TCP_CORK" },
};

/* -X: the current arm's value of the setting, on the socket, as its slot begins. */
static void set_knob(struct alternation *alt)
{
	enum alt_knob k = alt->knob.knob;
	uint64_t v = alt->knob.value[alt->sched.cur];
	int iv = v > INT_MAX ? INT_MAX : (int)v;

	if (k == ALT_KNOB_NONE || k == ALT_KNOB_CHUNK)
		return;
	if (k == ALT_KNOB_SYSCTL) {
		if (sysctl_knob_set(alt->knob.sysctl, alt->knob.text[alt->sched.cur]) < 0)
			err(1, "-X %s: writing %s", alt->knob.label[alt->sched.cur], alt->knob.sysctl->path);
	} else if (k == ALT_KNOB_PACING) {
		net_set_pacing(alt->current->sock, v, 0);
		/* The queue held to a sixteenth of a slot at this arm's rate, as -R's is. */
		bound_the_queue(alt, v);
	} else if (setsockopt(alt->current->sock, knob_options[k].level, knob_options[k].name, &iv,
			      sizeof(iv)) < 0) {
		err(1, "-X %s: setsockopt %s", alt->knob.label[alt->sched.cur], knob_options[k].said);
	}
	if (alt->debug)
		fprintf(stderr, "zcc: -X %s set\n", alt->knob.label[alt->sched.cur]);
}

void alt_connected(struct alternation *alt)
{
	for (unsigned i = 0; i < alt->n_arms; i++) {
		alt->arms[i].sock = alt->arms[0].sock;
		tx_sender_connected(&alt->arms[i]);
	}
	bound_the_queue(alt, alt->arms[0].rate);
}

/* The bytes in the send queue now, sent and not acknowledged or not yet sent (SIOCOUTQ). */
static uint64_t queued(const struct alternation *alt)
{
	int v = 0;

	return ioctl(alt->current->sock, SIOCOUTQ, &v) == 0 && v > 0 ? (uint64_t)v : 0;
}

/* A slot begins now, for the arm next in the cycle. */
static void begin_slot(struct alternation *alt, uint64_t now)
{
	struct sender *before = alt->current;
	int first = alt->sched.slots == 0;

	alt->current = &alt->arms[schedule_next(&alt->sched, now)];
	/*
	 * The kernel numbers a socket's MSG_ZEROCOPY sends, whichever arm made
	 * them, and its completions come on the one error queue: an arm that
	 * reads it hands over with its own completions read, lest the next take
	 * them (another that reads it may come next but one), and the next
	 * numbers on from the socket's count.
	 */
	if (before != alt->current && before->mode->errqueue && alt->errqueue_arms > 1)
		before->mode->finish(before);
	alt->current->next_id = before->next_id;
	alt->current->sent = before->sent;
	alt->current->calls = before->calls;
	if (before != alt->current || first)
		set_knob(alt);
	if (alt->debug)
		fprintf(stderr, "zcc: slot %llu, cycle %u, arm %u (%s)\n",
			(unsigned long long)alt->sched.slots, alt->sched.cycle + 1, alt->sched.cur + 1,
			alt->result.arm[alt->sched.cur]);
}

void alt_start(struct alternation *alt, struct meter *m)
{
	alt->meter = m;
	alt->result.n_cpus = m ? m->soak.n_cpus : 0;
	schedule_init(&alt->sched, alt->n_arms, alt->slot_ms, m);
	begin_slot(alt, timing_now_ns());
}

/* The slot that ends now: what it measured past its guard, kept. */
static void end_slot(struct alternation *alt)
{
	struct turns *t = &alt->result;
	struct turns_slot sl;

	if (!schedule_slot_ends(&alt->sched, alt->current->sent - alt->sent_at_guard, t, &sl))
		return;
	sl.queued = alt->queued_at_guard;
	if (t->n_slots == t->cap_slots) {
		alt->ranges = realloc(alt->ranges, (t->cap_slots ? 2 * t->cap_slots : 256) *
							   sizeof(*alt->ranges));
		if (!alt->ranges)
			err(1, "realloc");
	}
	alt->ranges[t->n_slots] = (struct turns_range){ .arm = sl.arm, .cycle = sl.cycle,
							.from = alt->sent_at_guard,
							.to = alt->current->sent };
	turns_add(t, &sl);
}

struct sender *alt_turn(void *arg)
{
	struct alternation *alt = arg;
	uint64_t now = timing_now_ns();

	/*
	 * The arm changes between files only: a slot whose guard and end both
	 * passed while one file was sent has no window of its own to measure.
	 */
	switch (schedule_due(&alt->sched, now)) {
	case SCHEDULE_SLOT_ENDS:
		end_slot(alt);
		begin_slot(alt, timing_now_ns());
		break;
	case SCHEDULE_GUARD_ENDS:
		schedule_guard_ends(&alt->sched);
		alt->queued_at_guard = queued(alt);
		alt->sent_at_guard = alt->current->sent;
		break;
	case SCHEDULE_NOTHING:
		break;
	}
	return alt->current;
}

void alt_settle(struct alternation *alt)
{
	for (unsigned i = 0; i < alt->n_arms; i++) {
		struct sender *a = &alt->arms[i];

		if (a != alt->current && a->mode->finish)
			a->mode->finish(a);
	}
}

void alt_finish(struct alternation *alt, uint64_t *zc_sends, uint64_t *zc_copied)
{
	uint64_t sends = 0, copied = 0;

	for (unsigned i = 0; i < alt->n_arms; i++) {
		sends += alt->arms[i].zc_sends;
		copied += alt->arms[i].zc_copied;
	}
	*zc_sends = sends;
	*zc_copied = copied;
}

void alt_warn(const struct alternation *alt)
{
	size_t all = alt->result.n_slots + alt->sched.short_slots;

	if (alt->sched.short_slots * 10 > all)
		warnx("note: %zu of %zu slots had nothing to measure: the arms change between files, "
		      "and a file took longer to send than a quarter of a slot (-A %ld); send "
		      "smaller files, or give longer slots", alt->sched.short_slots, all, alt->slot_ms);
}

void alt_close(struct alternation *alt)
{
	for (unsigned i = 1; i < alt->n_arms; i++) {
		alt->arms[i].sock = -1;
		tx_sender_close(&alt->arms[i]);
	}
	tx_sender_close(&alt->arms[0]);
	free(alt->ranges);
	alt->ranges = NULL;
	schedule_free(&alt->sched);
}

void alt_send_table(struct alternation *alt)
{
	struct sender *snd = alt->current;
	size_t len, done;
	unsigned char *table = turns_table_encode(&alt->result, alt->ranges, &len);

	if (net_write_full(snd->sock, NET_IO_SEND, table, len, &done, NULL) < 0)
		tx_die_sending(snd, "sending the slot table");
	free(table);
	snd->keep_answer = 1;
}

void alt_read_answer(struct alternation *alt, const unsigned char *buf, size_t len)
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
	if (turns_answer_decode(buf, len, &alt->result, &alt->receiver, why, sizeof(why)) < 0) {
		warnx("note: zcs's figures over the slots make no sense (%s): the receiver's lines "
		      "are missing", why);
		return;
	}
	alt->answered = 1;
	turns_sum(&alt->result, &alt->receiver, &alt->both);
}

void alt_print(const struct alternation *alt, FILE *out, char unit)
{
	/*
	 * Each arm's count runs on from the stream's offset as it takes its
	 * turn: the current one's is the stream's.
	 */
	uint64_t sent = alt->current->sent, measured = turns_bytes(&alt->result);

	turns_print(&alt->result, out, unit);
	/* Why the arms' bytes add to less than the stream's. */
	if (sent)
		fprintf(out, "the slots measured %llu of the %llu bytes sent (%.0f%%): the first "
			"quarter of each slot (%.1f ms, its guard) is not measured, nor a slot the end "
			"cut short\n", (unsigned long long)measured, (unsigned long long)sent,
			100.0 * measured / sent, alt->sched.guard_ns / 1e6);
	if (!alt->answered)
		return;
	turns_print(&alt->receiver, out, unit);
	if (alt->both.n_cpus)
		turns_print(&alt->both, out, unit);
}

void alt_json(const struct alternation *alt, struct json *j)
{
	turns_json(&alt->result, j);
	if (alt->answered) {
		json_object(j, "receiver");
		turns_json(&alt->receiver, j);
		json_close(j);
	} else {
		json_null(j, "receiver");
	}
	if (alt->answered && alt->both.n_cpus) {
		json_object(j, "both_ends");
		turns_json(&alt->both, j);
		json_close(j);
	} else {
		json_null(j, "both_ends");
	}
}
