#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "opt.h"

static enum opt_status check_range(long v, long min, long max, long *out)
{
	if (v < min)
		return OPT_TOO_SMALL;
	if (v > max)
		return OPT_TOO_LARGE;
	*out = v;
	return OPT_OK;
}

/* strtol() accepts leading blanks and reports overflow only through errno. */
static enum opt_status parse_prefix(const char *s, long *v, char **end)
{
	if (*s == '\0')
		return OPT_EMPTY;
	if (!isdigit((unsigned char)*s) && !((*s == '-' || *s == '+') && isdigit((unsigned char)s[1])))
		return OPT_NOT_A_NUMBER;
	errno = 0;
	*v = strtol(s, end, 10);
	if (errno == ERANGE)
		return *v < 0 ? OPT_TOO_SMALL : OPT_TOO_LARGE;
	return OPT_OK;
}

enum opt_status opt_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;
	enum opt_status st = parse_prefix(s, &v, &end);

	if (st != OPT_OK)
		return st;
	if (*end != '\0')
		return OPT_TRAILING;
	return check_range(v, min, max, out);
}

enum opt_status opt_parse_size(const char *s, long min, long max, long *out)
{
	char *end;
	long v, mult = 1;
	enum opt_status st = parse_prefix(s, &v, &end);

	if (st != OPT_OK)
		return st;
	if (*end == 'k' || *end == 'K')
		mult = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		mult = 1024 * 1024, end++;
	else if (*end == 'g' || *end == 'G')
		mult = 1024 * 1024 * 1024, end++;
	if (*end != '\0')
		return OPT_TRAILING;
	if (v > LONG_MAX / mult)
		return OPT_TOO_LARGE;
	if (v < LONG_MIN / mult)
		return OPT_TOO_SMALL;
	return check_range(v * mult, min, max, out);
}

const char *opt_status_text(enum opt_status st)
{
	switch (st) {
	case OPT_OK:
		return "ok";
	case OPT_EMPTY:
		return "empty value";
	case OPT_NOT_A_NUMBER:
		return "not a number";
	case OPT_TRAILING:
		return "trailing characters after the number";
	case OPT_NOT_A_RATE:
		return "not a rate: bytes a second (k, m, g: x1024) or bits with their unit "
		       "(bit, kbit, mbit, gbit, tbit: x1000)";
	case OPT_TOO_SMALL:
		return "too small";
	case OPT_TOO_LARGE:
		return "too large";
	}
	return "invalid";
}

static const char *opt_synopsis = "", *opt_options = "";

void opt_init(const char *synopsis, const char *options, int argc, char **argv)
{
	opt_synopsis = synopsis;
	opt_options = options;
	if (argc > 1 && strcmp(argv[1], "--help") == 0)
		opt_help();
}

void opt_help(void)
{
	fputs(opt_synopsis, stdout);
	fputs(opt_options, stdout);
	exit(0);
}

void opt_usage(FILE *to)
{
	fputs(opt_synopsis, to);
}

void opt_failx(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	opt_usage(stderr);
	exit(2);
}

void opt_fail(int opt, const char *arg, const char *why)
{
	opt_failx("-%c '%s': %s", opt, arg, why);
}

void opt_given(char *given, size_t size, int c)
{
	size_t n = strlen(given);

	if (c != '?' && c != ':' && !strchr(given, c) && n < size - 1) {
		given[n] = c;
		given[n + 1] = '\0';
	}
}

void opt_fail_getopt(int c, int optopt_char)
{
	if (c == ':')
		opt_failx("-%c needs a value", optopt_char);
	if (optopt_char > ' ' && optopt_char < 127)
		opt_failx("unknown option -%c", optopt_char);
	opt_failx("unknown option");
}

const char *opt_join_names(char *out, size_t size, const char *const *names, size_t n)
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += snprintf(out + len, size - len, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " or ",
				names[i]);
	return out;
}

static long parsed_or_fail(enum opt_status st, int opt, const char *arg, long min, long max,
			   long v)
{
	char why[160];

	if (st == OPT_OK)
		return v;
	if (st == OPT_TOO_SMALL)
		snprintf(why, sizeof(why), "must be at least %ld", min);
	else if (st == OPT_TOO_LARGE)
		snprintf(why, sizeof(why), "must be at most %ld", max);
	else
		snprintf(why, sizeof(why), "%s", opt_status_text(st));
	opt_fail(opt, arg, why);
}

long opt_long(int opt, const char *arg, long min, long max)
{
	long v = 0;
	enum opt_status st = opt_parse_long(arg, min, max, &v);

	return parsed_or_fail(st, opt, arg, min, max, v);
}

long opt_size(int opt, const char *arg, long min, long max)
{
	long v = 0;
	enum opt_status st = opt_parse_size(arg, min, max, &v);

	return parsed_or_fail(st, opt, arg, min, max, v);
}

/* tc's units of a rate in bits a second, 1000 apart, and the letter -f gives each (lib/units). */
static const struct {
	const char *name;
	double bits;
	char letter;
} bit_units[] = { { "bit", 1, 0 },     { "kbit", 1e3, 'k' },  { "mbit", 1e6, 'm' },
		  { "gbit", 1e9, 'g' }, { "tbit", 1e12, 't' } };

/*
 * A number at the start of s, digits with a fraction or not (no sign, no
 * blank): its length (0: none), and its value in *v.
 */
static size_t parse_decimal(const char *s, double *v)
{
	size_t n = strspn(s, "0123456789");
	char num[64];

	if (n > 0 && s[n] == '.')
		n += 1 + strspn(s + n + 1, "0123456789");
	if (n == 0 || n >= sizeof(num))
		return 0;
	memcpy(num, s, n);
	num[n] = '\0';
	*v = strtod(num, NULL);
	return n;
}

enum opt_status opt_parse_secs(const char *s, long min_ms, long max_ms, long *ms)
{
	double v = 0;
	size_t n = parse_decimal(s, &v);

	if (*s == '\0')
		return OPT_EMPTY;
	if (n == 0)
		return OPT_NOT_A_NUMBER;
	if (s[n] != '\0')
		return OPT_TRAILING;
	if (v * 1000 > (double)max_ms)
		return OPT_TOO_LARGE;
	/* Below the least as given, not as rounded: 0.0005 s is less than 1 ms. */
	if (v * 1000 < (double)min_ms - 1e-9)
		return OPT_TOO_SMALL;
	*ms = (long)(v * 1000 + 0.5);
	return OPT_OK;
}

long opt_secs(int opt, const char *arg, long min_ms, long max_ms)
{
	long ms = 0;
	enum opt_status st = opt_parse_secs(arg, min_ms, max_ms, &ms);
	char why[80];

	if (st == OPT_OK)
		return ms;
	if (st == OPT_TOO_SMALL)
		snprintf(why, sizeof(why), "must be at least %g s", min_ms / 1000.0);
	else if (st == OPT_TOO_LARGE)
		snprintf(why, sizeof(why), "must be at most %g s", max_ms / 1000.0);
	else
		snprintf(why, sizeof(why), "%s", opt_status_text(st));
	opt_fail(opt, arg, why);
}

enum opt_status opt_parse_rate(const char *s, long min, long max, long *out)
{
	enum opt_status st = opt_parse_size(s, min, max, out);
	size_t n;
	const char *end;
	double v = 0, bytes;

	if (st != OPT_TRAILING)
		return st;
	/* Digits, with a fraction or not, then a unit of bits: nothing else. */
	n = parse_decimal(s, &v);
	if (n == 0)
		return isdigit((unsigned char)*s) ? OPT_NOT_A_RATE : OPT_NOT_A_NUMBER;
	end = s + n;
	for (size_t i = 0; i < sizeof(bit_units) / sizeof(bit_units[0]); i++) {
		if (strcasecmp(end, bit_units[i].name) != 0)
			continue;
		bytes = v * bit_units[i].bits / 8;
		if (bytes > (double)max)
			return OPT_TOO_LARGE;
		if (bytes + 0.5 < (double)min)
			return OPT_TOO_SMALL;
		*out = (long)(bytes + 0.5);
		return OPT_OK;
	}
	return OPT_NOT_A_RATE;
}

unsigned opt_mode_list(const char *list, char *buf, size_t bufsize, char **items, unsigned max)
{
	char *rest = buf, *tok;
	unsigned n = 0;

	if (strlen(list) >= bufsize)
		opt_fail('m', list, "too long a list");
	strcpy(buf, list);
	while ((tok = strsep(&rest, ","))) {
		if (*tok == '\0')
			opt_fail('m', list, "an empty item in the list");
		if (n == max)
			opt_failx("-m %s: more than %u modes", list, max);
		items[n++] = tok;
	}
	return n;
}

char opt_rate_bits_letter(const char *arg)
{
	double v;
	size_t n = parse_decimal(arg, &v);

	for (size_t i = 0; n && i < sizeof(bit_units) / sizeof(bit_units[0]); i++)
		if (strcasecmp(arg + n, bit_units[i].name) == 0)
			return bit_units[i].letter;
	return 0;
}

long opt_rate(int opt, const char *arg, long min, long max)
{
	long v = 0;
	enum opt_status st = opt_parse_rate(arg, min, max, &v);

	return parsed_or_fail(st, opt, arg, min, max, v);
}
