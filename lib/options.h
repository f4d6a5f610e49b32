/* options: the options that mean one thing in zcc, zcs and cyclesoak, and their limits. */
#ifndef ZC_OPTIONS_H
#define ZC_OPTIONS_H

#include "cpu.h"
#include "turns.h"

/*
 * Each a value of an option more than one program takes, under whatever
 * letter the program gives it. A program's getopt switch parses it with
 * options_value(), so that its limits are written once, here.
 */
enum option_value {
	OPTION_SOAK_CPUS,	/* -N (zcc, zcs, cyclesoak): the CPUs the meter soaks */
	OPTION_PORT,		/* -p (zcc, zcs): zcs's port */
	OPTION_SOCKBUF,		/* -i, -o (zcc, zcs): SO_RCVBUF, SO_SNDBUF */
	OPTION_CHUNK,		/* -b (zcc, zcs): the bytes a call sends or reads */
	OPTION_CPU,		/* -B (zcs; each of zcc's list): the CPU to run on */
	OPTION_SLOT_MS,		/* -A (zcc, zcs): a turn's slot */
	OPTION_TARE_MS,		/* -T (zcc): the tare before the transfer */
	OPTION_RING_TARE_MS,	/* -T (zcs): the tare, from the samples before each connection */
	OPTION_PERIOD_MS,	/* -m (cyclesoak), -T with -C (zcc, zcs): the meter's period */
	OPTION_VALUES
};

struct option_limits {
	long min, max;
	int size;	/* k, m, g suffixes taken (opt_size) */
};

/* The limits of a value. */
const struct option_limits *options_limits(enum option_value v);

/* Option opt's argument arg as value v: within its limits, or a usage error naming it. */
long options_value(enum option_value v, int opt, const char *arg);

/*
 * The help lines of the options that read the same in more than one
 * program's usage, word for word: string literals, joined to the rest of
 * each program's text where it lists them.
 */
#define OPTIONS_STR_(x) #x
#define OPTIONS_STR(x) OPTIONS_STR_(x)
#define OPTIONS_HELP_SLOT \
	"  -A msecs    with -m A,B,...: each mode's slot (default " OPTIONS_STR(TURNS_DEFAULT_SLOT_MS) ")\n"
#define OPTIONS_HELP_CALIBRATE "  -C          calibrate the soakers as cyclesoak -C does, and exit\n"
#define OPTIONS_HELP_HELP "  -h          this help (also --help)\n"
#define OPTIONS_HELP_RCVBUF "  -i rcvbuf   SO_RCVBUF\n"
#define OPTIONS_HELP_SNDBUF "  -o sndbuf   SO_SNDBUF\n"
#define OPTIONS_HELP_SOAK_CPUS "  -N cpus     with -c or -C, soak this many CPUs (default all)\n"
#define OPTIONS_HELP_SOAK_SET \
	"  -U cpus     with -c or -C, soak these CPUs alone (1,3 or 2-5): the load is\n" \
	"              their share, each other meter's CPUs its own\n"

/* -U's list of CPUs (taskset -c's form) into l, or a usage error naming it. */
void options_cpu_list(int opt, const char *arg, struct cpu_list *l);

#endif
