/* The median of paired differences, its interval, and what the interval says. */
#include <math.h>

#include "../lib/paired.h"
#include "check.h"

static void the_interval_is_the_order_statistics_of_the_binomial(void)
{
	/* P(Binomial(n, 1/2) < j) <= 0.025 at the largest j: 6 -> 1, 9 -> 2, 20 -> 6, 37 -> 13. */
	CHECK(paired_ci_rank(5) == 1);
	CHECK(paired_ci_rank(6) == 1);
	CHECK(paired_ci_rank(8) == 1);
	CHECK(paired_ci_rank(9) == 2);
	CHECK(paired_ci_rank(20) == 6);
	CHECK(paired_ci_rank(37) == 13);
}

static void the_median_and_its_interval_come_from_the_sorted_values(void)
{
	double v[9] = { 5, -1, 3, 9, 2, 8, 4, 7, 6 };
	double even[4] = { 4, 1, 3, 2 };
	struct paired p;

	paired_median(v, 9, &p);
	CHECK(p.n == 9 && p.median == 5 && p.lo == 2 && p.hi == 8);
	paired_median(even, 4, &p);
	CHECK(p.median == 2.5 && p.lo == 1 && p.hi == 4);
	paired_median(v, 0, &p);
	CHECK(p.n == 0 && isnan(p.median) && isnan(p.lo) && isnan(p.hi));
}

static void the_verdict_says_differs_same_or_not_resolved(void)
{
	struct paired differs = { 3, 1, 5, 20 }, below = { -3, -5, -1, 20 };
	struct paired same = { 0.5, -2, 4.9, 20 }, wide = { 1, -2, 6, 20 }, few = { 3, 1, 5, 5 };

	CHECK(paired_verdict(&differs, 5) == PAIRED_DIFFERS);
	CHECK(paired_verdict(&below, 5) == PAIRED_DIFFERS);
	CHECK(paired_verdict(&same, 5) == PAIRED_SAME);
	CHECK(paired_verdict(&wide, 5) == PAIRED_UNRESOLVED);
	CHECK(paired_verdict(&few, 5) == PAIRED_UNRESOLVED);
	CHECK_STR(paired_verdict_name(PAIRED_SAME), "same");
	CHECK_STR(paired_verdict_name(PAIRED_DIFFERS), "differs");
	CHECK_STR(paired_verdict_name(PAIRED_UNRESOLVED), "unresolved");
}

static void within_is_the_wider_side_rounded_up_to_a_tenth(void)
{
	struct paired a = { 0, -2.01, 1.5, 20 }, b = { 0, -1, 3.2, 20 };

	CHECK(fabs(paired_within(&a) - 2.1) < 1e-9);
	CHECK(fabs(paired_within(&b) - 3.2) < 1e-9);
}

int main(void)
{
	RUN(the_interval_is_the_order_statistics_of_the_binomial);
	RUN(the_median_and_its_interval_come_from_the_sorted_values);
	RUN(the_verdict_says_differs_same_or_not_resolved);
	RUN(within_is_the_wider_side_rounded_up_to_a_tenth);
	return CHECK_EXIT();
}
