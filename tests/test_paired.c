/* The Hodges-Lehmann estimate of paired differences, its interval, and what the interval says. */
#include <math.h>

#include "../lib/paired.h"
#include "check.h"

/* Wilcoxon's signed-rank critical values: P(W <= k - 1) <= 0.025 < P(W <= k), as tables give them. */
static void the_rank_is_the_signed_rank_critical_value(void)
{
	CHECK(paired_rank(5) == 1);	/* below 6: the range */
	CHECK(paired_rank(6) == 1);	/* P(W = 0) = 1/64 */
	CHECK(paired_rank(7) == 3);	/* P(W <= 2) = 4/128 = 0.03125 > 0.025 >= P(W <= 1) */
	CHECK(paired_rank(10) == 9);	/* critical value 8 */
	CHECK(paired_rank(20) == 53);	/* critical value 52 */
	CHECK(paired_rank(30) == 138);	/* critical value 137 */
}

static void the_estimate_is_the_median_of_the_walsh_averages(void)
{
	/* Walsh averages of 0, 1, 10: 0, 0.5, 1, 5, 5.5, 10: median (1 + 5) / 2. */
	double three[3] = { 10, 0, 1 };
	double shift[7] = { 1, 2, 3, 4, 5, 6, 7 };
	struct paired p;

	CHECK(paired_estimate(three, 3, &p) == 0);
	CHECK(p.n == 3 && p.estimate == 3 && p.lo == 0 && p.hi == 10);
	/* Symmetric about 4: the estimate is 4, the interval w(3), w(26) of the 28 averages: 2 and 6. */
	CHECK(paired_estimate(shift, 7, &p) == 0);
	CHECK(p.estimate == 4 && p.lo == 2 && p.hi == 6);
	CHECK(paired_estimate(shift, 0, &p) == 0);
	CHECK(p.n == 0 && isnan(p.estimate) && isnan(p.lo) && isnan(p.hi));
}

/* One wild block moves the median of 20 differences no more than one value does. */
static void a_burst_moves_the_estimate_little(void)
{
	double v[20];
	struct paired calm, burst;

	for (int i = 0; i < 20; i++)
		v[i] = 2 + (i % 5 - 2) * 0.5;
	CHECK(paired_estimate(v, 20, &calm) == 0);
	v[7] = 400;
	CHECK(paired_estimate(v, 20, &burst) == 0);
	CHECK(fabs(calm.estimate - 2) < 1e-9);
	CHECK(burst.estimate - calm.estimate <= 0.25);
	CHECK(burst.hi < 10);
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

/* No difference at all is 0, not -0.0: printed with %+.1f, it reads "+0.0". */
static void no_difference_is_a_positive_0(void)
{
	double v[8] = { 0, -0.0, 0, -0.0, 0, 0, -0.0, 0 };
	struct paired p;

	CHECK(paired_estimate(v, 8, &p) == 0);
	CHECK(!signbit(p.estimate) && !signbit(p.lo) && !signbit(p.hi));
	CHECK(!signbit(paired_within(&p)));
	CHECK(paired_within(&p) == 0);
}

int main(void)
{
	RUN(the_rank_is_the_signed_rank_critical_value);
	RUN(the_estimate_is_the_median_of_the_walsh_averages);
	RUN(a_burst_moves_the_estimate_little);
	RUN(the_verdict_says_differs_same_or_not_resolved);
	RUN(within_is_the_wider_side_rounded_up_to_a_tenth);
	RUN(no_difference_is_a_positive_0);
	return CHECK_EXIT();
}
