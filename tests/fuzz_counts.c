/*
 * fuzz_counts: a coverage-guided fuzz target (libFuzzer) for lib/counts, the
 * reader of ./counts_per_sec, a file anyone may have written. Each input is
 * a file, its first byte choosing the CPU count asked for. A file accepted
 * must hold a rate of at least 1, a spread that is unknown or not negative,
 * and a first line of digits alone, checked here independently; a file
 * refused must get one line that names the file. Anything else aborts.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/counts.h"

/* The first line, up to its newline or the end: 1 to 20 digits, nothing else. */
static int first_line_is_a_count(const uint8_t *data, size_t size)
{
	size_t n = 0;

	while (n < size && data[n] != '\n') {
		if (data[n] < '0' || data[n] > '9')
			return 0;
		n++;
	}
	return n >= 1 && n <= 20;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int cpus[4] = { 0, 1, 2, 3 };
	static struct soak_counts c;
	char err[512] = "";
	int n_cpus = size ? data[0] % 4 + 1 : 1, rc;
	FILE *f;

	if (size == 0)
		return 0;
	c.per_sec = -1;
	c.spread = -1;
	f = fmemopen((void *)(data + 1), size - 1 ? size - 1 : 1, "r");
	if (!f)
		return 0;
	if (size == 1)
		fgetc(f); /* an empty file: fmemopen wants a size of 1 at least */
	rc = counts_parse(f, "counts_per_sec", cpus, n_cpus, &c, err, sizeof(err));
	fclose(f);
	if (rc == 0) {
		if (!(c.per_sec >= 1 && isfinite(c.per_sec)) || !(isnan(c.spread) || c.spread >= 0) ||
		    !first_line_is_a_count(data + 1, size - 1))
			abort();
		/* Each CPU's rate is 1 at least: a load is divided by it. */
		for (int i = 0; i < n_cpus; i++)
			if (!(c.cpu_per_sec[i] > 0) || !isfinite(c.cpu_per_sec[i]))
				abort();
	} else if (rc != -1 || strncmp(err, "counts_per_sec", 14) != 0 || strchr(err, '\n')) {
		abort();
	}
	return 0;
}
