#include <limits.h>

#include "../lib/cpu.h"
#include "../lib/opt.h"
#include "../lib/options.h"
#include "check.h"

/* Every value has limits, a range that is not empty. */
static void every_value_has_limits(void)
{
	for (int v = 0; v < OPTION_VALUES; v++) {
		const struct option_limits *l = options_limits(v);

		CHECK(l->min <= l->max);
		CHECK(l->min >= 0);
	}
}

/* The limits each program's options had, now written once. */
static void the_limits_are_the_programs(void)
{
	long x;

	CHECK(opt_parse_long("0", options_limits(OPTION_PORT)->min, options_limits(OPTION_PORT)->max, &x) == OPT_TOO_SMALL);
	CHECK(opt_parse_long("65535", options_limits(OPTION_PORT)->min, options_limits(OPTION_PORT)->max, &x) == OPT_OK);
	CHECK(opt_parse_long("65536", options_limits(OPTION_PORT)->min, options_limits(OPTION_PORT)->max, &x) == OPT_TOO_LARGE);
	CHECK(options_limits(OPTION_SOAK_CPUS)->min == 1 && options_limits(OPTION_SOAK_CPUS)->max == CPU_MAX_INDEX + 1);
	CHECK(options_limits(OPTION_CPU)->min == 0 && options_limits(OPTION_CPU)->max == CPU_MAX_INDEX);
	CHECK(options_limits(OPTION_CHUNK)->size && options_limits(OPTION_SOCKBUF)->size);
	CHECK(!options_limits(OPTION_PORT)->size && !options_limits(OPTION_TARE_MS)->size);
	CHECK(opt_parse_size("1g", 1, options_limits(OPTION_CHUNK)->max, &x) == OPT_OK && x == 1L << 30);
	CHECK(opt_parse_size("2g", 1, options_limits(OPTION_CHUNK)->max, &x) == OPT_TOO_LARGE);
	/* cyclesoak -m's, which zcc -C -T and zcs -C -T take too. */
	CHECK(options_limits(OPTION_PERIOD_MS)->min == 10 && options_limits(OPTION_PERIOD_MS)->max == 3600L * 1000);
}

/* zcc's tare may be 0 (none); zcs's, a window of samples, may not. */
static void the_tares_differ_by_their_reason(void)
{
	CHECK(options_limits(OPTION_TARE_MS)->min == 0);
	CHECK(options_limits(OPTION_RING_TARE_MS)->min == 1);
	CHECK(options_limits(OPTION_TARE_MS)->max == options_limits(OPTION_RING_TARE_MS)->max);
}

/* A value within its limits is taken as it is. */
static void a_value_within_is_taken(void)
{
	CHECK(options_value(OPTION_PORT, 'p', "2222") == 2222);
	CHECK(options_value(OPTION_CHUNK, 'b', "64k") == 65536);
	CHECK(options_value(OPTION_TARE_MS, 'T', "0") == 0);
}

int main(void)
{
	RUN(every_value_has_limits);
	RUN(the_limits_are_the_programs);
	RUN(the_tares_differ_by_their_reason);
	RUN(a_value_within_is_taken);
	return CHECK_EXIT();
}
