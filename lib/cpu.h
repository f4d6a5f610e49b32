/* cpu: CPU placement: pinning a process to one CPU, and listing the CPUs it may use. */
#ifndef ZC_CPU_H
#define ZC_CPU_H

#include <sched.h>

/* The highest CPU number an affinity mask here can name. */
#define CPU_MAX_INDEX (CPU_SETSIZE - 1)

/* Pin the calling process (and the children it forks later) to cpu; -1 with errno. */
int cpu_pin(int cpu);

/* The CPUs in this process's affinity mask, lowest first; returns how many (at most max). */
int cpu_allowed(int *cpus, int max);

#endif
