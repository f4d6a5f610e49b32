/*
 * json: one JSON object per line (-J), written as it is built: objects and
 * arrays nest, commas and escapes are taken care of, and a number that is
 * not finite is written as null.
 */
#ifndef ZC_JSON_H
#define ZC_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 8

struct json {
	FILE *out;
	int depth;			/* 0: the top-level object */
	char closer[JSON_MAX_DEPTH];	/* per level: '}' or ']' */
	int has_items[JSON_MAX_DEPTH];	/* per level: a comma goes before the next item */
};

/* A new top-level object; json_end() closes it and ends the line. */
void json_begin(struct json *j, FILE *out);
void json_end(struct json *j);

/*
 * A member of the object open now: key, then its value; key NULL: an element
 * of the array open now. Nesting deeper than JSON_MAX_DEPTH is a bug (abort).
 */
void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_close(struct json *j);	/* the innermost object or array */
void json_string(struct json *j, const char *key, const char *value);	/* NULL: null */
void json_int(struct json *j, const char *key, int64_t value);
void json_uint(struct json *j, const char *key, uint64_t value);
void json_double(struct json *j, const char *key, double value, int decimals);
void json_bool(struct json *j, const char *key, int value);
void json_null(struct json *j, const char *key);
/* num / den with that many decimals, or null where den is 0 (bytes a packet, a call, a read). */
void json_ratio(struct json *j, const char *key, uint64_t num, uint64_t den, int decimals);
/* A share (0.25) as a percent (25.0) to decimals places; null where it is NAN. */
void json_pct(struct json *j, const char *key, double share, int decimals);

/* The host's name and kernel release, and the time now (UTC, ISO 8601), for every object. */
void json_host(struct json *j);

#endif
