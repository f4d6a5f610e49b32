#include "options.h"

#include "cpu.h"
#include "net.h"
#include "opt.h"
#include "turns.h"

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

const struct option_limits *options_limits(enum option_value v)
{
	return &limits[v];
}

long options_value(enum option_value v, int opt, const char *arg)
{
	const struct option_limits *l = &limits[v];

	return l->size ? opt_size(opt, arg, l->min, l->max) : opt_long(opt, arg, l->min, l->max);
}

void options_cpu_list(int opt, const char *arg, struct cpu_list *l)
{
	const char *why;

	if (cpu_list_parse(arg, l, &why) < 0)
		opt_fail(opt, arg, why);
}
