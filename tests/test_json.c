#include <math.h>
#include <stdlib.h>

#include "../lib/json.h"
#include "check.h"

static char *text;
static size_t text_len;

/* A writer into memory; done() returns what it wrote. */
static FILE *start(void)
{
	free(text);
	text = NULL;
	return open_memstream(&text, &text_len);
}

static const char *done(FILE *f)
{
	fclose(f);
	return text;
}

static void members_nest_with_commas_in_the_right_places(void)
{
	struct json j;
	FILE *f = start();

	json_begin(&j, f);
	json_string(&j, "a", "x");
	json_object(&j, "o");
	json_uint(&j, "n", 18446744073709551615ULL);
	json_int(&j, "m", -3);
	json_close(&j);
	json_array(&j, "l");
	json_double(&j, NULL, 1.25, 2);
	json_bool(&j, NULL, 0);
	json_null(&j, NULL);
	json_object(&j, NULL);
	json_close(&j);
	json_close(&j);
	json_array(&j, "empty");
	json_end(&j);
	CHECK_STR(done(f), "{\"a\":\"x\",\"o\":{\"n\":18446744073709551615,\"m\":-3},"
			   "\"l\":[1.25,false,null,{}],\"empty\":[]}\n");
}

static void strings_are_escaped(void)
{
	struct json j;
	FILE *f = start();

	json_begin(&j, f);
	json_string(&j, "q\"", "a\"b\\c\nd\te\x01\x1f\x7f");
	json_string(&j, "utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* Not UTF-8: a lone continuation byte, an overlong form, a surrogate, a cut sequence. */
	json_string(&j, "bad", "\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x82");
	json_string(&j, "none", NULL);
	json_end(&j);
	CHECK_STR(done(f), "{\"q\\\"\":\"a\\\"b\\\\c\\nd\\te\\u0001\\u001f\\u007f\","
			   "\"utf8\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\","
			   "\"bad\":\"\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\","
			   "\"none\":null}\n");
}

static void numbers_that_are_not_finite_are_null(void)
{
	struct json j;
	FILE *f = start();

	json_begin(&j, f);
	json_double(&j, "nan", NAN, 1);
	json_double(&j, "inf", INFINITY, 1);
	json_double(&j, "x", -0.125, 3);
	json_ratio(&j, "per", 8012, 503, 1);
	json_ratio(&j, "none", 5, 0, 1);
	json_end(&j);
	CHECK_STR(done(f), "{\"nan\":null,\"inf\":null,\"x\":-0.125,\"per\":15.9,\"none\":null}\n");
}

static void end_closes_what_is_left_open(void)
{
	struct json j;
	FILE *f = start();

	json_begin(&j, f);
	json_array(&j, "a");
	json_object(&j, NULL);
	json_uint(&j, "k", 1);
	json_end(&j);
	CHECK_STR(done(f), "{\"a\":[{\"k\":1}]}\n");
}

int main(void)
{
	RUN(members_nest_with_commas_in_the_right_places);
	RUN(strings_are_escaped);
	RUN(numbers_that_are_not_finite_are_null);
	RUN(end_closes_what_is_left_open);
	free(text);
	return CHECK_EXIT();
}
