/*
 * fuzz_opt: a coverage-guided fuzz target (libFuzzer) for lib/opt's number
 * parsing. Each input is a candidate option value, parsed by opt_parse_long
 * and opt_parse_size into two ranges, and by an independent parser written
 * here with 128-bit arithmetic; status and value must agree, or it aborts.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/opt.h"

/*
 * A value: an optional sign followed by at least one digit, then, for a
 * size, an optional k/K, m/M or g/G, then nothing. In range or not; never wrapped.
 */
static enum opt_status parse_independently(const char *s, int size, long min, long max, long *out)
{
	__int128 v = 0, mult = 1;
	int neg = 0;

	if (*s == '\0')
		return OPT_EMPTY;
	if ((*s == '-' || *s == '+') && s[1] >= '0' && s[1] <= '9')
		neg = *s++ == '-';
	if (!(*s >= '0' && *s <= '9'))
		return OPT_NOT_A_NUMBER;
	for (; *s >= '0' && *s <= '9'; s++)
		if (v <= (__int128)LONG_MAX + 1)
			v = v * 10 + (*s - '0');
	if (neg)
		v = -v;
	if (v > LONG_MAX)
		return OPT_TOO_LARGE;
	if (v < LONG_MIN)
		return OPT_TOO_SMALL;
	if (size && (*s == 'k' || *s == 'K'))
		mult = 1024, s++;
	else if (size && (*s == 'm' || *s == 'M'))
		mult = 1024 * 1024, s++;
	else if (size && (*s == 'g' || *s == 'G'))
		mult = 1024 * 1024 * 1024, s++;
	if (*s != '\0')
		return OPT_TRAILING;
	v *= mult;
	if (v < min)
		return OPT_TOO_SMALL;
	if (v > max)
		return OPT_TOO_LARGE;
	*out = (long)v;
	return OPT_OK;
}

static void check(const char *s, int size, long min, long max)
{
	long got = 0, want = 0;
	enum opt_status a = size ? opt_parse_size(s, min, max, &got) : opt_parse_long(s, min, max, &got);
	enum opt_status b = parse_independently(s, size, min, max, &want);

	if (a != b || (a == OPT_OK && got != want))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	char s[64];

	if (n >= sizeof(s) || memchr(in, '\0', n))
		return 0;
	memcpy(s, in, n);
	s[n] = '\0';
	check(s, 0, 1, 65535);
	check(s, 0, LONG_MIN, LONG_MAX);
	check(s, 1, 1, 1L << 30);
	check(s, 1, LONG_MIN, LONG_MAX);
	return 0;
}
