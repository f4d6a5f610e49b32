/* opt: checked parsing of numeric option values, and the usage-error exit they share. */
#ifndef ZC_OPT_H
#define ZC_OPT_H

#include <stdio.h>

enum opt_status {
	OPT_OK,
	OPT_EMPTY,
	OPT_NOT_A_NUMBER,
	OPT_TRAILING,
	OPT_TOO_SMALL,
	OPT_TOO_LARGE,
	OPT_NOT_A_RATE,
};

/* Base-10 integer in [min, max]; no leading blanks, no trailing characters. */
enum opt_status opt_parse_long(const char *s, long min, long max, long *out);
/* As opt_parse_long, with an optional k/K (x1024), m/M (x1024^2) or g/G (x1024^3) suffix. */
enum opt_status opt_parse_size(const char *s, long min, long max, long *out);
/*
 * A rate: bytes a second as opt_parse_size takes them, or bits a second
 * with tc's units spelt out, 1000 apart (500mbit, 1.5gbit, 64kbit; any
 * case), rounded to whole bytes.
 */
enum opt_status opt_parse_rate(const char *s, long min, long max, long *out);
/*
 * Seconds, with a fraction or not (0.5, 10), in milliseconds in [min_ms,
 * max_ms]; no unit, sign or blank.
 */
enum opt_status opt_parse_secs(const char *s, long min_ms, long max_ms, long *ms);
const char *opt_status_text(enum opt_status st);

/*
 * The program's synopsis ("usage: prog ...\n") and its options, a line
 * each, given once before parsing (with the command line): every usage
 * error ends with the synopsis, and -h (opt_help) prints both. A first
 * argument of --help is -h, as other tools take it.
 */
void opt_init(const char *synopsis, const char *options, int argc, char **argv);
void opt_usage(FILE *to);
/* -h: the synopsis and the options on stdout, and exit 0. */
void opt_help(void) __attribute__((noreturn));

/* Print "prog: -X 'value': why" and the usage to stderr, then exit 2. */
void opt_fail(int opt, const char *arg, const char *why) __attribute__((noreturn));
void opt_failx(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/*
 * For getopt()'s '?' and ':' returns, with an optstring that starts with ':':
 * "unknown option -x" or "-x needs a value", then the usage, then exit 2.
 */
void opt_fail_getopt(int c, int optopt_char) __attribute__((noreturn));

/*
 * Note option c (a getopt() return) in given, a string of the options given,
 * each once, for the checks of what one option means for another.
 */
void opt_given(char *given, size_t size, int c);

/*
 * names[0..n) as a list for a message, "a, b or c", in out (size bytes,
 * cut short if it must be); returns out.
 */
const char *opt_join_names(char *out, size_t size, const char *const *names, size_t n);

/* Parse the argument of option opt, or fail with a usage error naming it. */
long opt_long(int opt, const char *arg, long min, long max);
long opt_size(int opt, const char *arg, long min, long max);
long opt_rate(int opt, const char *arg, long min, long max);
/*
 * -m A,B,...: the list's items, split in buf (bufsize bytes, a copy of
 * list), into items[], at most max; a list too long for buf, an empty
 * item or more than max of them is -m's usage error. The number of items.
 */
unsigned opt_mode_list(const char *list, char *buf, size_t bufsize, char **items, unsigned max);

/* A rate given in kbit, mbit, gbit or tbit: that unit's letter as -f takes it ('m'); 0 else. */
char opt_rate_bits_letter(const char *arg);
/* Seconds (opt_parse_secs), in milliseconds; the limits said in seconds. */
long opt_secs(int opt, const char *arg, long min_ms, long max_ms);

#endif
