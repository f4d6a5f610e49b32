/* The turns' schedule: each cycle every arm once, shuffled; a slot's guard and end; short slots. */
#include "../lib/schedule.h"
#include "check.h"

#define MS 1000000ULL

/* Every cycle gives each arm one slot, the cycles counted from 0. */
static void each_cycle_gives_every_arm_one_slot(void)
{
	struct schedule s;
	uint64_t now = 1000 * MS;

	schedule_init(&s, 3, 100, NULL);
	for (uint32_t cycle = 0; cycle < 20; cycle++) {
		int seen[3] = { 0, 0, 0 };

		for (int i = 0; i < 3; i++) {
			unsigned arm = schedule_next(&s, now);

			CHECK(arm < 3);
			if (arm < 3)
				seen[arm]++;
			CHECK_EQ_U64(s.cycle, cycle);
			now += 100 * MS;
		}
		CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
	}
	CHECK_EQ_U64(s.slots, 60);
	schedule_free(&s);
}

/* The order is shuffled afresh: 3 arms over 60 cycles take more than one order. */
static void the_order_is_shuffled_cycle_by_cycle(void)
{
	struct schedule s;
	unsigned first[60];
	int orders = 0;

	schedule_init(&s, 3, 100, NULL);
	for (int c = 0; c < 60; c++) {
		first[c] = schedule_next(&s, 0);
		schedule_next(&s, 0);
		schedule_next(&s, 0);
	}
	for (unsigned arm = 0; arm < 3; arm++)
		for (int c = 0; c < 60; c++)
			if (first[c] == arm) {
				orders++;
				break;
			}
	CHECK(orders >= 2);
	schedule_free(&s);
}

/* The guard is the slot's first quarter, then its end; a slot ended in its guard measured nothing. */
static void the_guard_then_the_end_and_short_slots(void)
{
	struct schedule s;
	struct turns_slot sl;
	struct turns t = { .n_slots = 7 };
	uint64_t t0 = 5000 * MS;

	schedule_init(&s, 2, 40, NULL);
	CHECK_EQ_U64(s.guard_ns, 10 * MS);
	schedule_next(&s, t0);
	CHECK(schedule_due(&s, t0) == SCHEDULE_NOTHING);
	CHECK(schedule_due(&s, t0 + 10 * MS - 1) == SCHEDULE_NOTHING);
	CHECK(schedule_due(&s, t0 + 10 * MS) == SCHEDULE_GUARD_ENDS);
	/* Ended in its guard: nothing to measure, counted. */
	CHECK(schedule_slot_ends(&s, 123, &t, &sl) == 0);
	CHECK_EQ_U64(s.short_slots, 1);
	schedule_next(&s, t0);
	schedule_guard_ends(&s);
	CHECK(s.measuring);
	CHECK(schedule_due(&s, t0 + 39 * MS) == SCHEDULE_NOTHING);
	CHECK(schedule_due(&s, t0 + 40 * MS) == SCHEDULE_SLOT_ENDS);
	CHECK(schedule_slot_ends(&s, 4096, &t, &sl) == 1);
	CHECK_EQ_U64(sl.arm, s.cur);
	CHECK_EQ_U64(sl.cycle, 0);
	CHECK_EQ_U64(sl.bytes, 4096);
	CHECK_EQ_U64(sl.fig.ns, s.b.ns - s.a.ns);
	CHECK(!schedule_metered(&s));
	CHECK_EQ_U64(s.short_slots, 1);
	/* The next slot begins unmeasured. */
	schedule_next(&s, t0 + 40 * MS);
	CHECK(!s.measuring);
	CHECK_EQ_U64(s.cycle, 1);
	schedule_free(&s);
}

int main(void)
{
	RUN(each_cycle_gives_every_arm_one_slot);
	RUN(the_order_is_shuffled_cycle_by_cycle);
	RUN(the_guard_then_the_end_and_short_slots);
	return CHECK_EXIT();
}
