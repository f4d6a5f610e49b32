/*
 * options: each program's command line as one table, a row an option
 * (letter, argument, where its value goes, its limits, its help line), from
 * which getopt's string, the synopsis, -h's text and the usage errors come;
 * and the values several programs take, with their limits written once.
 */
#ifndef ZC_OPTIONS_H
#define ZC_OPTIONS_H

#include <stddef.h>

#include "cpu.h"
#include "turns.h"

/*
 * Each a value of an option more than one program takes, under whatever
 * letter the program gives it: its limits are written once, here.
 */
enum option_value {
	OPTION_OWN,		/* none of these: the row's own min and max */
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

/* What an option does with its argument, or with being given. */
enum option_kind {
	OPTION_FLAG,	/* the field, an int, is 1 */
	OPTION_COUNT,	/* the field, an int, one more each time (-d, -dd) */
	OPTION_NOTED,	/* no field: given says it came, for the checks after (-S, -w) */
	OPTION_TEXT,	/* the field, a const char *, the argument as given (read once all are) */
	OPTION_NAME,	/* as TEXT, and not empty (-s server, -a addr) */
	OPTION_NUMBER,	/* the field, an int or a long, the argument within its limits */
	OPTION_SECS,	/* the field, a long, seconds (0.5, 10) in milliseconds, within min..max ms */
	OPTION_CPUS,	/* the field, a struct cpu_list, a list of CPUs (1,3 or 2-5) */
	OPTION_UNIT,	/* the field, a char, a rate's unit (lib/units: -f) */
	OPTION_CALL,	/* parse(settings, letter, argument) */
	OPTION_REST,	/* no field: the operands are its argument (cyclesoak -H command...) */
	OPTION_HELP,	/* -h: the synopsis and the help, and exit 0 */
};

struct option_row {
	char letter;
	enum option_kind kind;
	const char *arg;		/* the argument's name in the help; NULL: a flag */
	const char *synopsis_arg;	/* the synopsis's, where it says more (cpu[,cpu...]) */
	size_t offset, size;		/* the field in the settings (OPTION_FIELD) */
	enum option_value value;	/* NUMBER: shared limits, or OWN and these: */
	long min, max;
	int suffix;			/* NUMBER: k, m, g taken */
	void (*parse)(void *settings, int letter, const char *arg);	/* CALL */
	const char *help;		/* -h's lines after the letter and argument, "\n" between */
	const char *(*help_of)(void);	/* the help, where it is made as the program runs */
	char either;			/* the synopsis's alternative: [-N cpus | -U cpus] */
	int required;			/* in the synopsis without brackets, before the operands */
};

#define OPTION_FIELD(type, member) \
	.offset = offsetof(type, member), .size = sizeof(((type *)0)->member)

struct option_table {
	const char *about;		/* -h's sentence of what the program does */
	const struct option_row *rows;	/* in -h's order, up to a row of letter 0 */
	const char *operands;		/* the synopsis's after the options ("file...") */
	const char *forms;		/* further synopsis lines, whole ("cyclesoak -H command [arg...]") */
	int stop_at_operand;		/* the options end at the first operand (a command's own) */
};

/*
 * The options of argv into settings, by the table; in given (size bytes)
 * the letters that came, each once. A usage error is its one line, the
 * synopsis and exit 2; -h and --help print the synopsis and the help and
 * exit 0, and --options the letters as getopt takes them (for scripts).
 * Returns the index of the first operand.
 */
int options_parse(const struct option_table *t, void *settings, int argc, char **argv,
		  char *given, size_t size);

/* The table's synopsis, as -h begins ("usage: prog ...\n"). */
const char *options_synopsis(const struct option_table *t);

/*
 * Rows that read the same in more than one program, word for word: TYPE is
 * the program's struct of settings, and the field each fills is named the
 * same in each (slot_ms, calibrate_only, sockopts, n_cpus, soak_set, unit).
 */
#define OPTIONS_STR_(x) #x
#define OPTIONS_STR(x) OPTIONS_STR_(x)
#define OPTIONS_ROW_SLOT(type)                                                                \
	{ 'A', OPTION_NUMBER, "msecs", OPTION_FIELD(type, slot_ms), .value = OPTION_SLOT_MS, \
	  .help = "with -m A,B,...: each mode's slot (default " OPTIONS_STR(TURNS_DEFAULT_SLOT_MS) ")" }
#define OPTIONS_ROW_CALIBRATE(type) \
	{ 'C', OPTION_FLAG, OPTION_FIELD(type, calibrate_only), \
	  .help = "calibrate the soakers as cyclesoak -C does, and exit" }
#define OPTIONS_ROW_HELP { 'h', OPTION_HELP, .help = "this help (also --help)" }
#define OPTIONS_ROW_UNIT(type)                                                             \
	{ 'f', OPTION_UNIT, "unit", OPTION_FIELD(type, unit),                              \
	  .help = "the rates in k, m, g, t (bits a second, x1000) or K (kbytes/sec,\n" \
		  "the default), M, G (bytes a second, x1024)" }
#define OPTIONS_ROW_RCVBUF(type)                                                     \
	{ 'i', OPTION_NUMBER, "rcvbuf", OPTION_FIELD(type, sockopts.rcvbuf_bytes), \
	  .value = OPTION_SOCKBUF, .help = "SO_RCVBUF" }
#define OPTIONS_ROW_SNDBUF(type)                                                     \
	{ 'o', OPTION_NUMBER, "sndbuf", OPTION_FIELD(type, sockopts.sndbuf_bytes), \
	  .value = OPTION_SOCKBUF, .help = "SO_SNDBUF" }
#define OPTIONS_ROW_SOAK_CPUS(type)                                                          \
	{ 'N', OPTION_NUMBER, "cpus", OPTION_FIELD(type, n_cpus), .value = OPTION_SOAK_CPUS, \
	  .help = "with -c or -C, soak this many CPUs (default all)" }
#define OPTIONS_ROW_SOAK_SET(type)                                                            \
	{ 'U', OPTION_CPUS, "cpus", OPTION_FIELD(type, soak_set),                             \
	  .help = "with -c or -C, soak these CPUs alone (1,3 or 2-5): the load is\n"          \
		  "their share, each other meter's CPUs its own" }

#endif
