/* The turns' figures at either end, their sum, and the slot table and answer on the wire. */
#include <math.h>
#include <stdlib.h>

#include "../lib/paired.h"
#include "../lib/turns.h"
#include "../lib/units.h"
#include "check.h"

static const char *const two[] = { "write", "sendfile" };

/* A run of cycles, each arm a slot a cycle, arm 1's load `extra` above arm 0's. */
static void fill(struct turns *t, unsigned cycles, double base, double extra, uint64_t bytes)
{
	for (uint32_t c = 0; c < cycles; c++)
		for (unsigned a = 0; a < 2; a++) {
			/* A little noise that differs by cycle, the same for both arms. */
			double noise = 0.002 * ((c * 7) % 5);
			struct turns_slot sl = { .arm = a, .cycle = c, .at = 2 * c + a, .bytes = bytes };

			sl.fig.ns = 75000000;
			sl.fig.load = base + noise + (a ? extra : 0);
			sl.fig.time_lost = sl.fig.load / 2;
			sl.fig.kernel = sl.fig.load / 2;
			turns_add(t, &sl);
		}
}

static char *printed(const struct turns *t)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	turns_print(t, f, UNITS_DEFAULT);
	fclose(f);
	return buf;
}

static void arms_named_twice_carry_their_place(void)
{
	const char *modes[] = { "send", "zerocopy", "send" };
	struct turns t;

	turns_init(&t, TURNS_SENDER, modes, 3, 100);
	CHECK_STR(t.arm[0], "send#1");
	CHECK_STR(t.arm[1], "zerocopy");
	CHECK_STR(t.arm[2], "send#3");
	CHECK_STR(t.mode[2], "send");
}

/* Arm 1 takes 2 points more of a 2-CPU host: found, with the kernel's view carrying half. */
static void a_known_difference_is_found_in_points(void)
{
	struct turns t;
	char *out;

	turns_init(&t, TURNS_RECEIVER, two, 2, 100);
	t.n_cpus = 2;
	fill(&t, 20, 0.20, 0.02, 30 << 20);
	out = printed(&t);
	CHECK(strstr(out, "receiver: arm write: 20 slots, 629145600 bytes in 1.500 s") == out);
	CHECK(strstr(out, "receiver: sendfile: costs +9.") != NULL);
	CHECK(strstr(out, "; load +2.00 points [+2.00, +2.00]; 20 blocks of 1 cycle\n") != NULL);
	turns_free(&t);
}

/* The sum's demand is the sender's and the receiver's added, slot by slot, at the same places. */
static void both_ends_add_the_two_demands(void)
{
	struct turns s, r, both;
	char *out;

	turns_init(&s, TURNS_SENDER, two, 2, 100);
	turns_init(&r, TURNS_RECEIVER, two, 2, 100);
	s.n_cpus = 2;
	r.n_cpus = 4;
	fill(&s, 10, 0.10, 0.0, 1 << 20);
	/* The receiver counted half the bytes in its windows: its KiB cost twice as much. */
	fill(&r, 10, 0.05, 0.005, 1 << 19);
	/* A slot the receiver did not measure: left out of the sum. */
	memmove(&r.slots[3], &r.slots[4], (r.n_slots - 4) * sizeof(r.slots[0]));
	r.n_slots--;
	turns_sum(&s, &r, &both);
	CHECK_EQ_U64(both.n_slots, 19);
	CHECK_EQ_U64(both.n_cpus, 2);
	/*
	 * Slot 0: the sender 0.10 of 2 CPUs over 1 MiB; the receiver 0.05 of 4
	 * CPUs over half a MiB, 0.2 of 2 CPUs a MiB: 0.3 of the sender's 2.
	 */
	CHECK(fabs(both.slots[0].fig.load - 0.3) < 1e-9);
	out = printed(&both);
	CHECK(strstr(out, "both ends: arm write: 10 slots, 10485760 bytes in 0.750 s, 13653 kbytes/sec, demand ") == out);
	/* Sendfile's receiver takes 0.005 of 4 CPUs more a half MiB: 0.04 on 0.6 a MiB, +6.7%. */
	CHECK(strstr(out, "both ends: sendfile: costs +6.") != NULL);
	CHECK(strstr(out, "against write; 9 blocks of 1 cycle\n") != NULL);
	CHECK(strstr(out, "load") == NULL);
	turns_free(&s);
	turns_free(&r);
	turns_free(&both);
	/* Without a meter at one end, no sum. */
	turns_init(&s, TURNS_SENDER, two, 2, 100);
	turns_init(&r, TURNS_RECEIVER, two, 2, 100);
	s.n_cpus = 2;
	fill(&s, 4, 0.1, 0, 1000);
	fill(&r, 4, 0.1, 0, 1000);
	turns_sum(&s, &r, &both);
	CHECK_EQ_U64(both.n_cpus, 0);
	CHECK_EQ_U64(both.n_slots, 0);
	turns_free(&s);
	turns_free(&r);
}

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
	answer = turns_answer_encode(slots, measured, 3, 4, &len);
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

/*
 * The meter's difference and the kernel's view disagree only where both
 * intervals leave out 0 on opposite sides.
 */
static void the_two_views_disagree_only_on_opposite_sides_of_0(void)
{
	struct paired up = { 6.5, 1.4, 11.4, 20 }, down = { -20.5, -36.5, -3.7, 20 };
	struct paired either = { -1.0, -5.0, 3.0, 20 }, none = { 0, 0, 0, 0 };

	CHECK(turns_views_disagree(&up, &down));
	CHECK(turns_views_disagree(&down, &up));
	CHECK(!turns_views_disagree(&up, &up));
	CHECK(!turns_views_disagree(&up, &either));
	CHECK(!turns_views_disagree(&either, &down));
	CHECK(!turns_views_disagree(&up, &none));
}

int main(void)
{
	RUN(arms_named_twice_carry_their_place);
	RUN(a_known_difference_is_found_in_points);
	RUN(both_ends_add_the_two_demands);
	RUN(the_table_and_the_answer_come_back_whole);
	RUN(the_two_views_disagree_only_on_opposite_sides_of_0);
	return CHECK_EXIT();
}
