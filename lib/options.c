#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"

#include "cpu.h"
#include "net.h"
#include "opt.h"
#include "turns.h"
#include "units.h"

/* Where two programs' limits differ, the reason is beside them. */
static const struct option_limits limits[OPTION_VALUES] = {
	[OPTION_SOAK_CPUS] = { 1, CPU_MAX_INDEX + 1, 0 },
	[OPTION_PORT] = { 1, 65535, 0 },
	[OPTION_SOCKBUF] = { 1, NET_MAX_BUFSIZE, 1 },
	[OPTION_CHUNK] = { 1, 1L << 30, 1 },
	[OPTION_CPU] = { 0, CPU_MAX_INDEX, 0 },
	[OPTION_SLOT_MS] = { TURNS_MIN_SLOT_MS, TURNS_MAX_SLOT_MS, 0 },
	/* zcc -T 0: no tare, the load measured against the calibration alone. */
	[OPTION_TARE_MS] = { 0, 60000, 0 },
	/*
	 * zcs -T: the tare is the meter's samples over the last T ms before
	 * each connection (a ring kept while zcs waits), and an empty window
	 * holds none: 1 at least.
	 */
	[OPTION_RING_TARE_MS] = { 1, 60000, 0 },
	/* A period of the soakers' counts: a sample of load, or one of a calibration's. */
	[OPTION_PERIOD_MS] = { 10, 3600L * 1000, 0 },
};

/* The synopsis's lines: this many columns at most, the further ones under the first option. */
#define SYNOPSIS_COLUMNS 80
/* -h's help lines begin in this column, after "  -X arg". */
#define HELP_COLUMN 14

const struct option_limits *options_limits(enum option_value v)
{
	return &limits[v];
}

/* Option opt's argument arg within min..max, a size (k, m, g) where size says so. */
static long within(int opt, const char *arg, long min, long max, int size)
{
	return size ? opt_size(opt, arg, min, max) : opt_long(opt, arg, min, max);
}

long options_value(enum option_value v, int opt, const char *arg)
{
	const struct option_limits *l = &limits[v];

	return within(opt, arg, l->min, l->max, l->size);
}

/* -U's list of CPUs (taskset -c's form) into l, or a usage error naming it. */
static void cpu_list(int opt, const char *arg, struct cpu_list *l)
{
	const char *why;

	if (cpu_list_parse(arg, l, &why) < 0)
		opt_fail(opt, arg, why);
}

static int takes_arg(const struct option_row *r)
{
	return r->kind != OPTION_FLAG && r->kind != OPTION_COUNT && r->kind != OPTION_NOTED &&
	       r->kind != OPTION_REST && r->kind != OPTION_HELP;
}

/* The synopsis's order: by letter, a lower case before its capital, digits last. */
static int synopsis_rank(char c)
{
	unsigned char u = (unsigned char)c;

	return isdigit(u) ? 1000 + u : tolower(u) * 2 + !!isupper(u);
}

static int by_letter(const void *a, const void *b)
{
	return synopsis_rank((*(const struct option_row *const *)a)->letter) -
	       synopsis_rank((*(const struct option_row *const *)b)->letter);
}

static const struct option_row *row_of(const struct option_table *t, char letter)
{
	for (const struct option_row *r = t->rows; r->letter; r++)
		if (r->letter == letter)
			return r;
	return NULL;
}

/* A word of the synopsis onto out, on a new line under the first option where it would run past. */
static void put_word(char *out, size_t size, size_t *line_start, size_t indent, const char *word)
{
	size_t len = strlen(out);

	if (len - *line_start + 1 + strlen(word) > SYNOPSIS_COLUMNS && len - *line_start > indent) {
		snprintf(out + len, size - len, "\n%*s%s", (int)indent, "", word);
		*line_start = len + 1;
	} else {
		snprintf(out + len, size - len, " %s", word);
	}
}

static void option_words(const struct option_row *r, char *word, size_t size)
{
	snprintf(word, size, "-%c %s", r->letter, r->synopsis_arg ? r->synopsis_arg : r->arg);
}

const char *options_synopsis(const struct option_table *t)
{
	static char out[2048];
	const struct option_row *sorted[128];
	char flags[80] = "", word[200], a[96], b[96];
	size_t n = 0, line_start = 0, indent;

	for (const struct option_row *r = t->rows; r->letter && n < 128; r++)
		sorted[n++] = r;
	qsort(sorted, n, sizeof(sorted[0]), by_letter);
	snprintf(out, sizeof(out), "usage: %s", program_invocation_short_name);
	indent = strlen(out) + 1;
	for (size_t i = 0; i < n; i++)
		if (!takes_arg(sorted[i]) && sorted[i]->kind != OPTION_REST)
			flags[strlen(flags)] = sorted[i]->letter;
	if (flags[0]) {
		snprintf(word, sizeof(word), "[-%s]", flags);
		put_word(out, sizeof(out), &line_start, indent, word);
	}
	for (size_t i = 0; i < n; i++) {
		const struct option_row *r = sorted[i], *other = r->either ? row_of(t, r->either) : NULL;

		if (!takes_arg(r) || r->required)
			continue;
		/* A pair of alternatives, at the first of them. */
		if (other && synopsis_rank(other->letter) < synopsis_rank(r->letter))
			continue;
		option_words(r, a, sizeof(a));
		if (other) {
			option_words(other, b, sizeof(b));
			snprintf(word, sizeof(word), "[%s | %s]", a, b);
		} else {
			snprintf(word, sizeof(word), "[%s]", a);
		}
		put_word(out, sizeof(out), &line_start, indent, word);
	}
	for (size_t i = 0; i < n; i++)
		if (takes_arg(sorted[i]) && sorted[i]->required) {
			option_words(sorted[i], word, sizeof(word));
			put_word(out, sizeof(out), &line_start, indent, word);
		}
	if (t->operands)
		put_word(out, sizeof(out), &line_start, indent, t->operands);
	snprintf(out + strlen(out), sizeof(out) - strlen(out), "\n");
	if (t->forms)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%*s%s\n", (int)strlen("usage: "),
			 "", t->forms);
	return out;
}

/* -h's text after the synopsis: the sentence, then a row's lines an option. */
static const char *help_text(const struct option_table *t)
{
	static char out[8192];
	size_t len;

	snprintf(out, sizeof(out), "%s\n", t->about);
	for (const struct option_row *r = t->rows; r->letter; r++) {
		const char *help = r->help_of ? r->help_of() : r->help, *line = help, *nl;
		char head[64];

		snprintf(head, sizeof(head), "  -%c%s%s", r->letter, r->arg ? " " : "", r->arg ? r->arg : "");
		len = strlen(out);
		snprintf(out + len, sizeof(out) - len, "%-*s", HELP_COLUMN - 1, head);
		do {
			nl = strchr(line, '\n');
			len = strlen(out);
			snprintf(out + len, sizeof(out) - len, "%*s%.*s\n", line == help ? 1 : HELP_COLUMN, "",
				 nl ? (int)(nl - line) : (int)strlen(line), line);
			line = nl + 1;
		} while (nl);
	}
	return out;
}

static void store_number(const struct option_row *r, void *settings, long v)
{
	char *field = (char *)settings + r->offset;

	if (r->size == sizeof(int))
		*(int *)field = (int)v;
	else
		*(long *)field = v;
}

static void apply(const struct option_row *r, void *settings, int c, const char *arg)
{
	char *field = (char *)settings + r->offset;

	switch (r->kind) {
	case OPTION_FLAG:
		*(int *)field = 1;
		break;
	case OPTION_COUNT:
		++*(int *)field;
		break;
	case OPTION_NOTED:
	case OPTION_REST:
		break;
	case OPTION_NAME:
		if (*arg == '\0')
			opt_fail(c, arg, opt_status_text(OPT_EMPTY));
		/* fall through */
	case OPTION_TEXT:
		*(const char **)field = arg;
		break;
	case OPTION_NUMBER:
		if (r->value != OPTION_OWN)
			store_number(r, settings, options_value(r->value, c, arg));
		else
			store_number(r, settings, within(c, arg, r->min, r->max, r->suffix));
		break;
	case OPTION_SECS:
		*(long *)field = opt_secs(c, arg, r->min, r->max);
		break;
	case OPTION_CPUS:
		cpu_list(c, arg, (struct cpu_list *)field);
		break;
	case OPTION_UNIT:
		*field = units_option(c, arg);
		break;
	case OPTION_CALL:
		r->parse(settings, c, arg);
		break;
	case OPTION_HELP:
		opt_help();
	}
}

int options_parse(const struct option_table *t, void *settings, int argc, char **argv,
		  char *given, size_t size)
{
	char letters[160] = "";
	size_t n = 0;
	int c;

	/* ':' first: getopt returns ':' for a missing value, and says nothing itself. */
	if (t->stop_at_operand)
		letters[n++] = '+';
	letters[n++] = ':';
	for (const struct option_row *r = t->rows; r->letter && n + 2 < sizeof(letters); r++) {
		letters[n++] = r->letter;
		if (takes_arg(r))
			letters[n++] = ':';
	}
	letters[n] = '\0';
	if (argc > 1 && strcmp(argv[1], "--options") == 0) {
		printf("%s\n", letters + 1 + !!t->stop_at_operand);
		exit(0);
	}
	opt_init(options_synopsis(t), help_text(t), argc, argv);
	given[0] = '\0';
	while ((c = getopt(argc, argv, letters)) != -1) {
		const struct option_row *r = c == '?' || c == ':' ? NULL : row_of(t, (char)c);

		if (!r)
			opt_fail_getopt(c, optopt);
		opt_given(given, size, c);
		apply(r, settings, c, optarg);
	}
	return optind;
}
