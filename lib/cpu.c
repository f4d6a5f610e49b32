#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

int cpu_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

int cpu_allowed(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -1;
	for (int cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	return n;
}

_Static_assert(CPU_SETSIZE == 1024, "CPU_MAX_TEXT is CPU_MAX_INDEX");

/* A CPU's number at *p, moving p past it: 0, or -1 if there is none or it is too high. */
static int cpu_number(const char **p, int *cpu)
{
	long v = 0;

	if (**p < '0' || **p > '9')
		return -1;
	while (**p >= '0' && **p <= '9') {
		v = v * 10 + (*(*p)++ - '0');
		if (v > CPU_MAX_INDEX)
			return -1;
	}
	*cpu = v;
	return 0;
}

int cpu_list_parse(const char *text, struct cpu_list *l, const char **why)
{
	static unsigned char seen[CPU_SETSIZE];
	const char *p = text;

	memset(seen, 0, sizeof(seen));
	l->n = 0;
	if (!*p) {
		*why = "an empty list";
		return -1;
	}
	for (;;) {
		int lo, hi;

		if (cpu_number(&p, &lo) < 0) {
			*why = "not a list of CPUs (as 1,3 or 2-5, each 0 to " CPU_MAX_TEXT ")";
			return -1;
		}
		hi = lo;
		if (*p == '-') {
			p++;
			if (cpu_number(&p, &hi) < 0 || hi < lo) {
				*why = "not a range of CPUs (as 2-5, the first no more than the last)";
				return -1;
			}
		}
		for (int c = lo; c <= hi; c++) {
			if (seen[c]) {
				*why = "a CPU named twice";
				return -1;
			}
			seen[c] = 1;
		}
		if (*p == '\0')
			break;
		if (*p++ != ',' || !*p) {
			*why = "not a list of CPUs (as 1,3 or 2-5, each 0 to " CPU_MAX_TEXT ")";
			return -1;
		}
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (seen[c])
			l->cpu[l->n++] = c;
	return 0;
}

const char *cpu_list_text(const int *cpus, int n, char *out, size_t len)
{
	size_t at = 0;

	out[0] = '\0';
	for (int i = 0; i < n && at < len; i++) {
		int j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j > i)
			at += snprintf(out + at, len - at, "%s%d-%d", at ? "," : "", cpus[i], cpus[j]);
		else
			at += snprintf(out + at, len - at, "%s%d", at ? "," : "", cpus[i]);
		i = j;
	}
	return out;
}
