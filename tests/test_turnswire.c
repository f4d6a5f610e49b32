/* The slot table and the answer on the wire, and what a peer may send in their place. */
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "../lib/proto.h"
#include "../lib/turnswire.h"
#include "check.h"

/* The table goes over the wire and back whole; the answer too, to the sender's slots. */
static void the_table_and_the_answer_come_back_whole(void)
{
	const char *modes[] = { "send", "zerocopy", "send" };
	struct turns s, r, back;
	struct turns_range ranges[3] = { { 2, 0, 100, 5000 }, { 0, 0, 6000, 9000 }, { 1, 1, 9000, 4294967396ULL } };
	struct turns_range *got;
	struct turns_slot slots[3] = { { 0 } };
	int measured[3] = { 1, 0, 1 };
	size_t len, n;
	char why[160];
	unsigned char *table, *answer;

	turns_init(&s, TURNS_SENDER, modes, 3, 40);
	for (int i = 0; i < 3; i++) {
		struct turns_slot sl = { .arm = ranges[i].arm, .cycle = ranges[i].cycle, .at = i,
					 .bytes = ranges[i].to - ranges[i].from };

		turns_add(&s, &sl);
	}
	table = turns_table_encode(&s, ranges, &len);
	/* Magic, slot_ms, 3 arms of 4 + send, zerocopy, send; 3 slots of 24. */
	CHECK_EQ_U64(len, 4 + 4 + 4 + 3 * 4 + 4 + 8 + 4 + 4 + 3 * 24);
	CHECK(turns_table_decode(table, len, &r, &got, &n, why, sizeof(why)) == 0);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(r.slot_ms, 40);
	CHECK_STR(r.arm[2], "send#3");
	CHECK_EQ_U64(got[2].to, 4294967396ULL);
	CHECK_EQ_U64(got[0].arm, 2);
	free(got);
	/* Cut short, or one byte more: refused, with why. */
	CHECK(turns_table_decode(table, len - 1, &r, &got, &n, why, sizeof(why)) < 0);
	CHECK_STR(why, "3 slots in 71 bytes");
	CHECK(turns_table_decode(table, 10, &r, &got, &n, why, sizeof(why)) < 0);
	table[0] = 'x';
	CHECK(turns_table_decode(table, len, &r, &got, &n, why, sizeof(why)) < 0);
	CHECK_STR(why, "it does not begin with zcTS");
	free(table);
	/* Slots out of order are refused. */
	ranges[1].from = 4000;
	table = turns_table_encode(&s, ranges, &len);
	CHECK(turns_table_decode(table, len, &r, &got, &n, why, sizeof(why)) < 0);
	CHECK_STR(why, "slot 2: arm 1, bytes 4000 to 9000, out of order or range");
	free(table);

	slots[0].bytes = 4900;
	slots[0].fig = (struct soak_figures){ .load = 0.25, .time_lost = 0.1, .kernel = NAN, .ns = 30000000 };
	slots[2].bytes = 77;
	slots[2].fig = (struct soak_figures){ .load = -0.01, .time_lost = 0, .kernel = 0.5, .ns = 1 };
	answer = turns_answer_encode(slots, measured, 3, 4, NULL, NULL, &len);
	CHECK(turns_answer_decode(answer, len, &s, &back, why, sizeof(why)) == 0);
	CHECK_EQ_U64(back.n_slots, 2);
	CHECK_EQ_U64(back.n_cpus, 4);
	CHECK_EQ_U64(back.slots[0].arm, 2);
	CHECK_EQ_U64(back.slots[0].at, 0);
	CHECK(back.slots[0].fig.load == 0.25 && isnan(back.slots[0].fig.kernel));
	CHECK_EQ_U64(back.slots[1].at, 2);
	CHECK_EQ_U64(back.slots[1].bytes, 77);
	CHECK(back.slots[1].fig.kernel == 0.5);
	turns_free(&back);
	/* An answer for another table is refused. */
	CHECK(turns_answer_decode(answer, len - 44, &s, &back, why, sizeof(why)) < 0);
	CHECK_STR(why, "3 slots in 88 bytes, for a table of 3");
	free(answer);
	turns_free(&s);
}

/* A sender's turns of two slots, one an arm, and the receiver's figures of both. */
static void two_slots(struct turns *s, struct turns_slot slots[2], double load, double kernel)
{
	static const char *modes[] = { "send", "write" };

	turns_init(s, TURNS_SENDER, modes, 2, 100);
	for (int i = 0; i < 2; i++) {
		struct turns_slot sl = { .arm = i, .cycle = 0, .at = i, .bytes = 1000 };

		turns_add(s, &sl);
		slots[i] = (struct turns_slot){ .bytes = 1000,
						.fig = { .load = load, .time_lost = 0.1, .kernel = kernel,
							 .ns = 75000000 } };
	}
}

/* An answer whose figures no meter gives: refused, saying which slot and what. */
static void an_answer_out_of_range_is_refused(void)
{
	struct turns s, back;
	struct turns_slot slots[2];
	int measured[2] = { 1, 1 };
	unsigned char *answer;
	char why[200];
	size_t len;

	two_slots(&s, slots, 0.2, 0.1);
	slots[1].fig.kernel = INFINITY;
	answer = turns_answer_encode(slots, measured, 2, 2, NULL, NULL, &len);
	CHECK(turns_answer_decode(answer, len, &s, &back, why, sizeof(why)) < 0);
	CHECK_STR(why, "slot 2's figures are out of range: load 0.2, time lost 0.1, kernel inf, 75000000 ns");
	free(answer);
	slots[1].fig.kernel = NAN;
	slots[1].fig.load = 1e308;
	answer = turns_answer_encode(slots, measured, 2, 2, NULL, NULL, &len);
	CHECK(turns_answer_decode(answer, len, &s, &back, why, sizeof(why)) < 0);
	CHECK_STR(why, "slot 2's figures are out of range: load 1e+308, time lost 0.1, kernel nan, 75000000 ns");
	free(answer);
	slots[1].fig.load = -0.05;
	answer = turns_answer_encode(slots, measured, 2, 2, NULL, NULL, &len);
	CHECK(turns_answer_decode(answer, len, &s, &back, why, sizeof(why)) == 0);
	CHECK(isnan(back.slots[1].fig.kernel) && back.slots[1].fig.load == -0.05);
	turns_free(&back);
	free(answer);
	turns_free(&s);
}

/*
 * An answer with each slot's load on each of the meter's CPUs ("zcTC")
 * comes back with them, in their order; one a CPU's load out of range is
 * refused, and an older answer ("zcTA") still reads, with no CPU's.
 */
static void an_answer_brings_each_cpus_load(void)
{
	struct turns s, back;
	struct turns_slot slots[2];
	int measured[2] = { 1, 1 }, cpus[2] = { 3, 5 };
	double loads[4] = { 0.10, 0.90, NAN, 0.25 };
	unsigned char *answer;
	char why[200];
	size_t len;

	two_slots(&s, slots, 0.5, 0.4);
	answer = turns_answer_encode(slots, measured, 2, 2, cpus, loads, &len);
	CHECK(memcmp(answer, "zcTC", 4) == 0);
	CHECK_EQ_U64(len, 12 + 2 * 4 + 2 * (44 + 2 * 8));
	CHECK(turns_answer_decode(answer, len, &s, &back, why, sizeof(why)) == 0);
	CHECK_EQ_U64(back.n_cpu, 2);
	CHECK(back.cpu[0] == 3 && back.cpu[1] == 5);
	CHECK(turns_slot_loads(&back, 0)[0] == 0.10 && turns_slot_loads(&back, 0)[1] == 0.90);
	CHECK(isnan(turns_slot_loads(&back, 1)[0]) && turns_slot_loads(&back, 1)[1] == 0.25);
	turns_free(&back);
	free(answer);
	loads[3] = INFINITY;
	answer = turns_answer_encode(slots, measured, 2, 2, cpus, loads, &len);
	CHECK(turns_answer_decode(answer, len, &s, &back, why, sizeof(why)) < 0);
	CHECK_STR(why, "slot 2's figures are out of range: load 0.5, time lost 0.1, kernel 0.4, "
		       "75000000 ns, a CPU's load");
	free(answer);
	answer = turns_answer_encode(slots, measured, 2, 2, NULL, NULL, &len);
	CHECK(memcmp(answer, "zcTA", 4) == 0);
	CHECK(turns_answer_decode(answer, len, &s, &back, why, sizeof(why)) == 0);
	CHECK_EQ_U64(back.n_cpu, 0);
	CHECK_EQ_U64(back.n_slots, 2);
	turns_free(&back);
	free(answer);
	turns_free(&s);
}

/* A table of n slots of two arms ("send", "write"), into a buffer of *len bytes. */
static unsigned char *a_table(size_t n, size_t *len)
{
	const char *modes[] = { "send", "write" };
	struct turns_range *ranges = calloc(n ? n : 1, sizeof(*ranges));
	struct turns t;
	unsigned char *table;

	turns_init(&t, TURNS_SENDER, modes, 2, 100);
	for (size_t i = 0; i < n; i++) {
		struct turns_slot sl = { .arm = i % 2, .cycle = i / 2, .at = i };

		ranges[i] = (struct turns_range){ i % 2, i / 2, 1000 * i, 1000 * i + 500 };
		turns_add(&t, &sl);
	}
	table = turns_table_encode(&t, ranges, len);
	free(ranges);
	turns_free(&t);
	return table;
}

/* A table's head says what the table will need, as it comes; what is none is said at once. */
static void a_table_says_its_size_as_its_head_comes(void)
{
	size_t len, head = 4 + 4 + 4 + 4 + 4 + 4 + 5 + 4;
	unsigned char *table = a_table(10, &len);
	char why[200];

	CHECK_EQ_U64(len, head + 10 * 24);
	CHECK_EQ_U64(turns_table_want(table, 0, 100, why, sizeof(why)), 4);
	CHECK_EQ_U64(turns_table_want(table, 4, 100, why, sizeof(why)), 12);
	CHECK_EQ_U64(turns_table_want(table, 12, 100, why, sizeof(why)), 16);
	CHECK_EQ_U64(turns_table_want(table, 16, 100, why, sizeof(why)), 24);
	CHECK_EQ_U64(turns_table_want(table, 24, 100, why, sizeof(why)), head);
	CHECK_EQ_U64(turns_table_want(table, 30, 100, why, sizeof(why)), head);
	CHECK_EQ_U64(turns_table_want(table, head, 100, why, sizeof(why)), len);
	CHECK_EQ_U64(turns_table_want(table, len, 10, why, sizeof(why)), len);
	CHECK_EQ_U64(turns_table_want(table, head, 9, why, sizeof(why)), 0);
	CHECK_STR(why, "10 slots, more than the 9 the stream had time for");
	CHECK_EQ_U64(turns_table_want((const unsigned char *)"zcTN", 4, 100, why, sizeof(why)), 0);
	CHECK_STR(why, "it does not begin with zcTS");
	proto_put_u32(table + 4, 5);
	CHECK_EQ_U64(turns_table_want(table, 12, 100, why, sizeof(why)), 0);
	CHECK_STR(why, "slots of 5 ms (20 to 60000)");
	proto_put_u32(table + 4, 100);
	proto_put_u32(table + 8, 9);
	CHECK_EQ_U64(turns_table_want(table, 12, 100, why, sizeof(why)), 0);
	CHECK_STR(why, "9 arms (2 to 8)");
	proto_put_u32(table + 8, 2);
	proto_put_u32(table + 12, 40);
	CHECK_EQ_U64(turns_table_want(table, 16, 100, why, sizeof(why)), 0);
	CHECK_STR(why, "arm 1's mode is longer than 39 bytes");
	CHECK_EQ_U64(turns_table_want(table, 16, 100, NULL, 0), 0);
	free(table);
	/* A stream of 1 s had time for 50 slots of 20 ms: twice that, and one more twice. */
	CHECK_EQ_U64(turns_table_max_slots(1000000000ULL), 102);
	CHECK_EQ_U64(turns_table_max_slots(0), 2);
	CHECK_EQ_U64(turns_table_max_slots(~0ULL), TURNS_MAX_SLOTS);
}

/* proto_rx's keep, as zcs keeps what follows a stream: no more than a table, if one. */
static size_t keep_a_table(const unsigned char *kept, size_t len, void *arg)
{
	return turns_table_want(kept, len, *(uint32_t *)arg, NULL, 0);
}

/* After a stream of one loop of no files: what comes, fed in pieces of `piece`; what is kept. */
static size_t kept_after(const unsigned char *after, size_t len, size_t piece, uint32_t max_slots,
			 struct proto_rx *rx)
{
	unsigned char stream[8];

	proto_rx_init(rx);
	rx->keep = keep_a_table;
	rx->keep_arg = &max_slots;
	proto_put_u32(stream, 1);
	proto_put_u32(stream + 4, 0);
	proto_rx_feed(rx, stream, sizeof(stream));
	for (size_t at = 0; at < len; at += piece)
		proto_rx_feed(rx, after + at, len - at < piece ? len - at : piece);
	return rx->after_len;
}

static void what_follows_the_stream_is_kept_only_as_a_table(void)
{
	size_t len, junk_len = 1 << 20, pieces[] = { 1, 7, 4096, 1 << 20 };
	unsigned char *table = a_table(40, &len), *junk = calloc(junk_len, 1), *both;
	struct proto_rx rx;

	both = malloc(len + junk_len);
	memcpy(both, table, len);
	memcpy(both + len, junk, junk_len);
	for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		size_t p = pieces[i];

		/* A table: kept whole, and what follows it not kept. */
		CHECK_EQ_U64(kept_after(table, len, p, 100, &rx), len);
		CHECK(memcmp(rx.after, table, len) == 0);
		CHECK_EQ_U64(rx.extra_bytes, len);
		proto_rx_free(&rx);
		CHECK_EQ_U64(kept_after(both, len + junk_len, p, 100, &rx), len);
		CHECK_EQ_U64(rx.extra_bytes, len + junk_len);
		proto_rx_free(&rx);
		/* Not a table: its first 4 bytes, and no more. */
		CHECK_EQ_U64(kept_after(junk, junk_len, p, 100, &rx), 4);
		CHECK_EQ_U64(rx.extra_bytes, junk_len);
		proto_rx_free(&rx);
		/* More slots than the stream had time for: its head, and no more. */
		CHECK_EQ_U64(kept_after(both, len + junk_len, p, 39, &rx), len - 40 * 24);
		proto_rx_free(&rx);
	}
	free(both);
	free(junk);
	free(table);
}

int main(void)
{
	RUN(the_table_and_the_answer_come_back_whole);
	RUN(an_answer_out_of_range_is_refused);
	RUN(an_answer_brings_each_cpus_load);
	RUN(a_table_says_its_size_as_its_head_comes);
	RUN(what_follows_the_stream_is_kept_only_as_a_table);
	return CHECK_EXIT();
}
