#include <limits.h>
#include <stdio.h>

#include "../lib/opt.h"
#include "check.h"

static void plain_numbers_parse(void)
{
	long v = -1;

	CHECK(opt_parse_long("0", 0, 10, &v) == OPT_OK && v == 0);
	CHECK(opt_parse_long("2222", 1, 65535, &v) == OPT_OK && v == 2222);
	CHECK(opt_parse_long("-3", -5, 5, &v) == OPT_OK && v == -3);
	CHECK(opt_parse_long("65535", 1, 65535, &v) == OPT_OK && v == 65535);
}

static void junk_is_refused_not_zero(void)
{
	long v = 42;

	CHECK(opt_parse_long("", 0, 10, &v) == OPT_EMPTY);
	CHECK(opt_parse_long("abc", 0, 10, &v) == OPT_NOT_A_NUMBER);
	CHECK(opt_parse_long(" 5", 0, 10, &v) == OPT_NOT_A_NUMBER);
	CHECK(opt_parse_long("5 ", 0, 10, &v) == OPT_TRAILING);
	CHECK(opt_parse_long("12x", 0, 100, &v) == OPT_TRAILING);
	CHECK(opt_parse_long("0x10", 0, 100, &v) == OPT_TRAILING);
	CHECK(opt_parse_long("-", 0, 100, &v) == OPT_NOT_A_NUMBER);
	CHECK(opt_parse_long("1.5", 0, 100, &v) == OPT_TRAILING);
	CHECK(v == 42);
}

static void range_is_enforced(void)
{
	long v = 42;

	CHECK(opt_parse_long("0", 1, 65535, &v) == OPT_TOO_SMALL);
	CHECK(opt_parse_long("65536", 1, 65535, &v) == OPT_TOO_LARGE);
	CHECK(opt_parse_long("-1", 0, 10, &v) == OPT_TOO_SMALL);
	CHECK(opt_parse_long("99999999999999999999", 0, LONG_MAX, &v) == OPT_TOO_LARGE);
	CHECK(opt_parse_long("-99999999999999999999", LONG_MIN, 0, &v) == OPT_TOO_SMALL);
	CHECK(v == 42);
}

static void size_suffixes_multiply_by_1024(void)
{
	long v = 0;

	CHECK(opt_parse_size("64k", 1, LONG_MAX, &v) == OPT_OK && v == 65536);
	CHECK(opt_parse_size("8K", 1, LONG_MAX, &v) == OPT_OK && v == 8192);
	CHECK(opt_parse_size("4m", 1, LONG_MAX, &v) == OPT_OK && v == 4194304);
	CHECK(opt_parse_size("2M", 1, LONG_MAX, &v) == OPT_OK && v == 2097152);
	CHECK(opt_parse_size("1g", 1, LONG_MAX, &v) == OPT_OK && v == 1073741824);
	CHECK(opt_parse_size("3G", 1, LONG_MAX, &v) == OPT_OK && v == 3221225472);
	CHECK(opt_parse_size("512", 1, LONG_MAX, &v) == OPT_OK && v == 512);
}

static void size_suffix_errors(void)
{
	long v = 7;

	CHECK(opt_parse_size("64kb", 1, LONG_MAX, &v) == OPT_TRAILING);
	CHECK(opt_parse_size("4t", 1, LONG_MAX, &v) == OPT_TRAILING);
	CHECK(opt_parse_size("4gb", 1, LONG_MAX, &v) == OPT_TRAILING);
	CHECK(opt_parse_size("8589934592g", 1, LONG_MAX, &v) == OPT_TOO_LARGE);
	CHECK(opt_parse_size("k", 1, LONG_MAX, &v) == OPT_NOT_A_NUMBER);
	CHECK(opt_parse_size("0k", 1, LONG_MAX, &v) == OPT_TOO_SMALL);
	CHECK(opt_parse_size("2048m", 1, 1L << 30, &v) == OPT_TOO_LARGE);
	/* Overflow in the multiplication, not only in strtol. */
	CHECK(opt_parse_size("9007199254740993m", 1, LONG_MAX, &v) == OPT_TOO_LARGE);
	CHECK(v == 7);
}

static void status_texts_name_the_problem(void)
{
	CHECK_STR(opt_status_text(OPT_NOT_A_NUMBER), "not a number");
	CHECK_STR(opt_status_text(OPT_TRAILING), "trailing characters after the number");
	CHECK_STR(opt_status_text(OPT_EMPTY), "empty value");
}

/* Lists for messages: "a", "a or b", "a, b or c"; cut short, never past the buffer. */
static void names_join_as_a_sentence_says_them(void)
{
	const char *names[] = { "read", "trunc", "splice", "zerocopy" };
	char out[64], tiny[8];

	CHECK_STR(opt_join_names(out, sizeof(out), names, 0), "");
	CHECK_STR(opt_join_names(out, sizeof(out), names, 1), "read");
	CHECK_STR(opt_join_names(out, sizeof(out), names, 2), "read or trunc");
	CHECK_STR(opt_join_names(out, sizeof(out), names, 4), "read, trunc, splice or zerocopy");
	CHECK_STR(opt_join_names(tiny, sizeof(tiny), names, 4), "read, t");
}

/* A rate: bytes as a size, or bits with tc's units spelt out, 1000 apart, to the nearest byte. */
static void rates_take_bytes_or_bits_with_their_unit(void)
{
	long v = 0;

	CHECK(opt_parse_rate("500m", 1024, LONG_MAX, &v) == OPT_OK && v == 524288000);
	CHECK(opt_parse_rate("1048576", 1024, LONG_MAX, &v) == OPT_OK && v == 1048576);
	CHECK(opt_parse_rate("500mbit", 1024, LONG_MAX, &v) == OPT_OK && v == 62500000);
	CHECK(opt_parse_rate("4gbit", 1024, LONG_MAX, &v) == OPT_OK && v == 500000000);
	CHECK(opt_parse_rate("4Gbit", 1024, LONG_MAX, &v) == OPT_OK && v == 500000000);
	CHECK(opt_parse_rate("2.5gbit", 1024, LONG_MAX, &v) == OPT_OK && v == 312500000);
	CHECK(opt_parse_rate("64kbit", 1024, LONG_MAX, &v) == OPT_OK && v == 8000);
	CHECK(opt_parse_rate("100000bit", 1024, LONG_MAX, &v) == OPT_OK && v == 12500);
	CHECK(opt_parse_rate("1tbit", 1024, LONG_MAX, &v) == OPT_OK && v == 125000000000);
	CHECK(opt_parse_rate("12bit", 1, LONG_MAX, &v) == OPT_OK && v == 2);
	CHECK(opt_parse_rate("8kbit", 1024, LONG_MAX, &v) == OPT_TOO_SMALL);
	CHECK(opt_parse_rate("99999999tbit", 1024, LONG_MAX, &v) == OPT_TOO_LARGE);
	CHECK(opt_parse_rate("5mbps", 1024, LONG_MAX, &v) == OPT_NOT_A_RATE);
	CHECK(opt_parse_rate("5 mbit", 1024, LONG_MAX, &v) == OPT_NOT_A_RATE);
	CHECK(opt_parse_rate("-5mbit", 1024, LONG_MAX, &v) == OPT_NOT_A_NUMBER);
	CHECK(opt_parse_rate(".5gbit", 1024, LONG_MAX, &v) == OPT_NOT_A_NUMBER);
	CHECK(opt_parse_rate("0x10mbit", 1024, LONG_MAX, &v) == OPT_NOT_A_RATE);
	CHECK(opt_parse_rate("1e3kbit", 1024, LONG_MAX, &v) == OPT_NOT_A_RATE);
	CHECK(opt_parse_rate("", 1024, LONG_MAX, &v) == OPT_EMPTY);
	/* The unit of bits a rate was given in, as -f's letter: the summary says the rate in it. */
	CHECK(opt_rate_bits_letter("400mbit") == 'm' && opt_rate_bits_letter("2.5Gbit") == 'g');
	CHECK(opt_rate_bits_letter("64kbit") == 'k' && opt_rate_bits_letter("1tbit") == 't');
	CHECK(opt_rate_bits_letter("100000bit") == 0 && opt_rate_bits_letter("500m") == 0);
	CHECK(opt_rate_bits_letter("5mbps") == 0 && opt_rate_bits_letter("") == 0);
	CHECK_STR(opt_status_text(OPT_NOT_A_RATE), "not a rate: bytes a second (k, m, g: x1024) or "
		  "bits with their unit (bit, kbit, mbit, gbit, tbit: x1000)");
}

/* Seconds, a fraction or not, to the millisecond; nothing else. */
static void seconds_take_a_fraction_and_nothing_else(void)
{
	long ms = 0;

	CHECK(opt_parse_secs("10", 1, 86400000, &ms) == OPT_OK && ms == 10000);
	CHECK(opt_parse_secs("0.5", 1, 86400000, &ms) == OPT_OK && ms == 500);
	CHECK(opt_parse_secs("2.25", 1, 86400000, &ms) == OPT_OK && ms == 2250);
	CHECK(opt_parse_secs("0.0004", 1, 86400000, &ms) == OPT_TOO_SMALL);
	/* The least as given: half of it is refused, though it rounds up to it. */
	CHECK(opt_parse_secs("0.0005", 1, 86400000, &ms) == OPT_TOO_SMALL);
	CHECK(opt_parse_secs("0.0009", 1, 86400000, &ms) == OPT_TOO_SMALL);
	CHECK(opt_parse_secs("0.001", 1, 86400000, &ms) == OPT_OK && ms == 1);
	CHECK(opt_parse_secs("0.0015", 1, 86400000, &ms) == OPT_OK && ms == 2);
	CHECK(opt_parse_secs("0", 1, 86400000, &ms) == OPT_TOO_SMALL);
	CHECK(opt_parse_secs("86401", 1, 86400000, &ms) == OPT_TOO_LARGE);
	CHECK(opt_parse_secs("", 1, 86400000, &ms) == OPT_EMPTY);
	CHECK(opt_parse_secs("-1", 1, 86400000, &ms) == OPT_NOT_A_NUMBER);
	CHECK(opt_parse_secs(".5", 1, 86400000, &ms) == OPT_NOT_A_NUMBER);
	CHECK(opt_parse_secs("5s", 1, 86400000, &ms) == OPT_TRAILING);
	CHECK(opt_parse_secs("1e3", 1, 86400000, &ms) == OPT_TRAILING);
	CHECK(opt_parse_secs(" 5", 1, 86400000, &ms) == OPT_NOT_A_NUMBER);
}

int main(void)
{
	RUN(plain_numbers_parse);
	RUN(junk_is_refused_not_zero);
	RUN(range_is_enforced);
	RUN(size_suffixes_multiply_by_1024);
	RUN(size_suffix_errors);
	RUN(rates_take_bytes_or_bits_with_their_unit);
	RUN(seconds_take_a_fraction_and_nothing_else);
	RUN(status_texts_name_the_problem);
	RUN(names_join_as_a_sentence_says_them);
	return CHECK_EXIT();
}
