/* cpu: CPU placement: pinning a process to one CPU, and listing the CPUs it may use. */
#ifndef ZC_CPU_H
#define ZC_CPU_H

#include <sched.h>
#include <stddef.h>

/* The highest CPU number an affinity mask here can name, and as text. */
#define CPU_MAX_INDEX (CPU_SETSIZE - 1)
#define CPU_MAX_TEXT "1023"

/* Pin the calling process (and the children it forks later) to cpu; -1 with errno. */
int cpu_pin(int cpu);

/* The CPUs in this process's affinity mask, lowest first; returns how many (at most max). */
int cpu_allowed(int *cpus, int max);

/* A set of CPUs, each once, lowest first. */
struct cpu_list {
	int n;
	int cpu[CPU_SETSIZE];
};

/*
 * A list as taskset -c takes it ("1,3", "2-5", "0,4-7"): numbers and
 * ranges, each CPU at most CPU_MAX_INDEX. 0, or -1 with why (a few words,
 * for a usage error).
 */
int cpu_list_parse(const char *text, struct cpu_list *l, const char **why);
/* The list in that form, its ranges joined ("0,4-7"), into out (len bytes); returns out. */
const char *cpu_list_text(const int *cpus, int n, char *out, size_t len);

#endif
