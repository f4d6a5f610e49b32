#include <math.h>
#include <stdlib.h>
#include <inttypes.h>
#include <sys/utsname.h>
#include <time.h>

#include "json.h"

/*
 * Bytes of a valid UTF-8 sequence starting at s (1 to 4), or 0 if s does not
 * start one: no overlong forms, no surrogates, nothing past U+10FFFF.
 */
static int utf8_length(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		unsigned lo = s[0] == 0xe0 ? 0xa0 : 0x80, hi = s[0] == 0xed ? 0x9f : 0xbf;

		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		unsigned lo = s[0] == 0xf0 ? 0x90 : 0x80, hi = s[0] == 0xf4 ? 0x8f : 0xbf;

		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 &&
		       (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

/* A JSON string: quotes, backslashes and control characters escaped; bytes that are not UTF-8 become U+FFFD. */
static void put_string(FILE *out, const char *value)
{
	const unsigned char *s = (const unsigned char *)value;

	fputc('"', out);
	while (*s) {
		int n = utf8_length(s);

		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '\t')
			fputs("\\t", out);
		else if (*s < 0x20 || *s == 0x7f)
			fprintf(out, "\\u%04x", *s);
		else if (n == 0)
			fputs("\\ufffd", out);
		else
			fwrite(s, 1, n, out);
		s += n ? n : 1;
	}
	fputc('"', out);
}

/* The comma before an item, and the key of a member. */
static void item(struct json *j, const char *key)
{
	if (j->has_items[j->depth])
		fputc(',', j->out);
	j->has_items[j->depth] = 1;
	if (key) {
		put_string(j->out, key);
		fputc(':', j->out);
	}
}

static void open_level(struct json *j, char opener, char closer)
{
	if (j->depth + 1 >= JSON_MAX_DEPTH)
		abort();
	fputc(opener, j->out);
	j->depth++;
	j->closer[j->depth] = closer;
	j->has_items[j->depth] = 0;
}

void json_begin(struct json *j, FILE *out)
{
	*j = (struct json){ .out = out, .closer = { '}' } };
	fputc('{', out);
}

void json_end(struct json *j)
{
	while (j->depth > 0)
		json_close(j);
	fputs("}\n", j->out);
	fflush(j->out);
}

void json_object(struct json *j, const char *key)
{
	item(j, key);
	open_level(j, '{', '}');
}

void json_array(struct json *j, const char *key)
{
	item(j, key);
	open_level(j, '[', ']');
}

void json_close(struct json *j)
{
	if (j->depth == 0)
		abort();
	fputc(j->closer[j->depth--], j->out);
}

void json_string(struct json *j, const char *key, const char *value)
{
	item(j, key);
	if (value)
		put_string(j->out, value);
	else
		fputs("null", j->out);
}

void json_int(struct json *j, const char *key, int64_t value)
{
	item(j, key);
	fprintf(j->out, "%" PRId64, value);
}

void json_uint(struct json *j, const char *key, uint64_t value)
{
	item(j, key);
	fprintf(j->out, "%" PRIu64, value);
}

void json_double(struct json *j, const char *key, double value, int decimals)
{
	item(j, key);
	if (isfinite(value))
		fprintf(j->out, "%.*f", decimals, value);
	else
		fputs("null", j->out);
}

void json_bool(struct json *j, const char *key, int value)
{
	item(j, key);
	fputs(value ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *key)
{
	item(j, key);
	fputs("null", j->out);
}

void json_ratio(struct json *j, const char *key, uint64_t num, uint64_t den, int decimals)
{
	if (den)
		json_double(j, key, (double)num / den, decimals);
	else
		json_null(j, key);
}

void json_host(struct json *j)
{
	struct utsname u;
	char when[32] = "";
	time_t now = time(NULL);
	struct tm tm;

	if (uname(&u) == 0) {
		json_string(j, "host", u.nodename);
		json_string(j, "kernel", u.release);
	} else {
		json_null(j, "host");
		json_null(j, "kernel");
	}
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_string(j, "time", when[0] ? when : NULL);
}

void json_pct(struct json *j, const char *key, double share, int decimals)
{
	if (isnan(share))
		json_null(j, key);
	else
		json_double(j, key, share * 100, decimals);
}
