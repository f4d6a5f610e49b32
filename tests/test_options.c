#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "../lib/cpu.h"
#include "../lib/opt.h"
#include "../lib/options.h"
#include "check.h"

/* Every value has limits, a range that is not empty. */
static void every_value_has_limits(void)
{
	for (int v = OPTION_OWN + 1; v < OPTION_VALUES; v++) {
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

struct toy {
	int flag, count, small;
	long big, ms, called;
	const char *text, *name;
	struct cpu_list cpus;
};

static void toy_call(void *settings, int letter, const char *arg)
{
	((struct toy *)settings)->called = letter * 1000 + (long)strlen(arg);
}

#define TOY(member) OPTION_FIELD(struct toy, member)

static const struct option_row toy_rows[] = {
	{ 'v', OPTION_COUNT, TOY(count), .help = "more" },
	{ 'F', OPTION_FLAG, TOY(flag), .help = "a flag" },
	{ 'f', OPTION_NOTED, .help = "noted" },
	{ 'n', OPTION_NUMBER, "n", TOY(small), .min = 1, .max = 9, .help = "an int" },
	{ 'b', OPTION_NUMBER, "size", TOY(big), .min = 1, .max = 1L << 40, .suffix = 1,
	  .help = "a long, with k, m, g\nand a second line" },
	{ 'p', OPTION_NUMBER, "port", TOY(small), .value = OPTION_PORT, .either = 'P', .help = "shared" },
	{ 'P', OPTION_CALL, "thing", .parse = toy_call, .either = 'p', .help = "called" },
	{ 't', OPTION_SECS, "secs", TOY(ms), .min = 1, .max = 60000, .help = "seconds" },
	{ 'm', OPTION_TEXT, "mode", TOY(text), .synopsis_arg = "mode[,mode...]", .help = "text" },
	{ 's', OPTION_NAME, "server", TOY(name), .required = 1, .help = "required" },
	{ 'U', OPTION_CPUS, "cpus", TOY(cpus), .help = "cpus" },
	{ '1', OPTION_FLAG, TOY(flag), .help = "a digit" },
	OPTIONS_ROW_HELP,
	{ 0 }
};

static const struct option_table toy_table = {
	.about = "A toy.", .rows = toy_rows, .operands = "file...", .forms = "toy -x",
};

/* Each kind of row puts its value in its field, and given holds each letter once. */
static void a_table_parses_into_its_fields(void)
{
	char *argv[] = { "toy", "-vv", "-F", "-f", "-n", "7", "-b", "64k", "-p2222", "-Pabc",
			 "-t", "0.5", "-m", "a,b", "-s", "host", "-U", "1,3", "file", NULL };
	struct toy t = { 0 };
	char given[32];
	int first;

	optind = 0;
	first = options_parse(&toy_table, &t, 19, argv, given, sizeof(given));
	CHECK(first == 18 && strcmp(argv[first], "file") == 0);
	CHECK(t.count == 2 && t.flag == 1);
	CHECK(t.small == 2222);	/* -p after -n: the same field, the last value */
	CHECK(t.big == 65536 && t.ms == 500);
	CHECK(t.called == 'P' * 1000 + 3);
	CHECK(strcmp(t.text, "a,b") == 0 && strcmp(t.name, "host") == 0);
	CHECK(t.cpus.n == 2);
	CHECK(strcmp(given, "vFfnbpPtmsU") == 0);
}

/*
 * The synopsis: the flags in one group, then the options with a value,
 * each by letter (a lower case before its capital, digits last), a pair of
 * alternatives at the first, the required ones and the operands last,
 * wrapped within 80 columns under the first option; then the other forms.
 */
static void the_synopsis_is_made_from_the_table(void)
{
	const char *want = "usage: test_options [-fFhv1] [-b size] [-m mode[,mode...]] [-n n]\n"
			   "                    [-p port | -P thing] [-t secs] [-U cpus] -s server file...\n"
			   "       toy -x\n";

	CHECK(strcmp(options_synopsis(&toy_table), want) == 0);
}

int main(void)
{
	RUN(a_table_parses_into_its_fields);
	RUN(the_synopsis_is_made_from_the_table);
	RUN(every_value_has_limits);
	RUN(the_limits_are_the_programs);
	RUN(the_tares_differ_by_their_reason);
	RUN(a_value_within_is_taken);
	return CHECK_EXIT();
}
