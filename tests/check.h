/*
 * check: the unit tests' few macros. Each test is a function; RUN() prints
 * "ok FILE: name" or "FAIL FILE: name" lines that tests/run.sh counts.
 */
#ifndef ZC_CHECK_H
#define ZC_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failed_now, check_failed_total;
static const char *check_skip_now;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			printf("#   %s:%d: %s\n", __FILE__, __LINE__, #cond);                  \
			check_failed_now = 1;                                                \
		}                                                                            \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                   \
	do {                                                                                 \
		unsigned long long a_ = (a), b_ = (b);                                       \
		if (a_ != b_) {                                                              \
			printf("#   %s:%d: %s == %llu, expected %llu\n", __FILE__, __LINE__, #a, \
			       a_, b_);                                                      \
			check_failed_now = 1;                                                \
		}                                                                            \
	} while (0)

#define CHECK_STR(a, b)                                                                      \
	do {                                                                                 \
		const char *a_ = (a), *b_ = (b);                                             \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                     \
			printf("#   %s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, \
			       #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");                  \
			check_failed_now = 1;                                                \
		}                                                                            \
	} while (0)

/* Leave the test now and report it skipped, saying why (a string that outlives the test). */
#define SKIP(why)                                                                            \
	do {                                                                                 \
		check_skip_now = (why);                                                      \
		return;                                                                      \
	} while (0)

#define RUN(fn)                                                                              \
	do {                                                                                 \
		check_failed_now = 0;                                                        \
		check_skip_now = NULL;                                                       \
		fn();                                                                        \
		if (check_skip_now && !check_failed_now)                                     \
			printf("skip %s: %s: %s\n", __FILE__, #fn, check_skip_now);           \
		else                                                                         \
			printf("%s %s: %s\n", check_failed_now ? "FAIL" : "ok", __FILE__, #fn); \
		fflush(stdout);                                                              \
		check_failed_total += check_failed_now;                                      \
	} while (0)

#define CHECK_EXIT() (check_failed_total ? 1 : 0)

#endif
