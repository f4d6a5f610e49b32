/* The turns' figures at either end, and their sum. */
#include <math.h>
#include <stdlib.h>

#include "../lib/paired.h"
#include "../lib/turns.h"
#include "check.h"
#include "turnsfill.h"

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

/* The sum's demand is the sender's and the receiver's added, slot by slot, at the same places. */
static void both_ends_add_the_two_demands(void)
{
	struct turns s, r, both;

	/* Slot 3, which the receiver did not measure, is left out of the sum. */
	both_ends(&s, &r, &both);
	CHECK_EQ_U64(both.n_slots, 19);
	CHECK_EQ_U64(both.n_cpus, 2);
	/*
	 * Slot 0: the sender 0.10 of 2 CPUs over 1 MiB; the receiver 0.05 of 4
	 * CPUs over half a MiB, 0.2 of 2 CPUs a MiB: 0.3 of the sender's 2.
	 */
	CHECK(fabs(both.slots[0].fig.load - 0.3) < 1e-9);
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

/*
 * Each CPU's load, arm against arm block by block, in points of that CPU:
 * 2 points more of CPU 7 in arm 1's slots is found there, with the arm's
 * own load on it; CPU 4, the same in both, reads the same.
 */
static void a_known_difference_is_found_on_its_cpu(void)
{
	struct turns t;
	struct turns_comparison c;
	int cpus[2] = { 4, 7 };

	turns_init(&t, TURNS_SENDER, two, 2, 100);
	fill_cpus(&t, 20, cpus, 0.02, 1 << 20);
	turns_compare(&t, 1, 0, &c);
	CHECK(c.cpu_verdict[0] == PAIRED_SAME && fabs(c.cpu_points[0].estimate) < 1e-9);
	CHECK(c.cpu_verdict[1] == PAIRED_DIFFERS && fabs(c.cpu_points[1].estimate - 2.0) < 1e-9);
	CHECK_EQ_U64(c.cpu_points[1].n, 20);
	CHECK(fabs(turns_arm_cpu_load(&t, 1, 1) - 0.124) < 1e-9);
	turns_compare_free(&c);
	turns_free(&t);
}

int main(void)
{
	RUN(arms_named_twice_carry_their_place);
	RUN(both_ends_add_the_two_demands);
	RUN(a_known_difference_is_found_on_its_cpu);
	RUN(the_two_views_disagree_only_on_opposite_sides_of_0);
	return CHECK_EXIT();
}
