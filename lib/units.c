#include <stdio.h>
#include <string.h>

#include "opt.h"
#include "timing.h"
#include "units.h"

static const struct {
	char letter;
	const char *name;
	double per_byte;	/* units a byte */
} units[] = {
	{ 'K', "kbytes/sec", 1.0 / 1024 },
	{ 'M', "Mbytes/sec", 1.0 / (1024 * 1024) },
	{ 'G', "Gbytes/sec", 1.0 / (1024 * 1024 * 1024) },
	{ 'k', "Kbits/sec", 8 / 1e3 },
	{ 'm', "Mbits/sec", 8 / 1e6 },
	{ 'g', "Gbits/sec", 8 / 1e9 },
	{ 't', "Tbits/sec", 8 / 1e12 },
};

int units_valid(const char *f)
{
	return f[0] && !f[1] && strchr(UNITS_LETTERS, f[0]);
}

char units_option(int c, const char *arg)
{
	if (!units_valid(arg))
		opt_fail(c, arg, "not a unit: k, m, g, t (bits a second) or K, M, G (bytes)");
	return arg[0];
}

const char *units_rate(char *buf, size_t len, uint64_t bytes, uint64_t ns, char f)
{
	double per_sec = ns ? (double)bytes * 1e9 / ns : 0;

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (units[i].letter != f)
			continue;
		if (f == UNITS_DEFAULT)
			snprintf(buf, len, "%llu %s",
				 (unsigned long long)timing_kbytes_per_sec(bytes, ns), units[i].name);
		else
			snprintf(buf, len, "%.2f %s", per_sec * units[i].per_byte, units[i].name);
		return buf;
	}
	snprintf(buf, len, "? %c", f);
	return buf;
}
