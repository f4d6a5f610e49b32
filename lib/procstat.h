/* procstat: the kernel's count of the CPUs' time, from /proc/stat. */
#ifndef ZC_PROCSTAT_H
#define ZC_PROCSTAT_H

#include <stdint.h>
#include <stdio.h>

/*
 * The lines "cpuN user nice system idle iowait irq softirq steal" of
 * /proc/stat for the CPUs listed, summed, in ns: busy (user, nice, system,
 * irq, softirq) and all. -1 if ticks_per_sec is not positive.
 */
int procstat_parse(FILE *f, const int *cpus, int n_cpus, long ticks_per_sec,
		   uint64_t *busy_ns, uint64_t *all_ns);

/* The same of /proc/stat now; 0 and 0 if it cannot be read. */
void procstat_read(const int *cpus, int n_cpus, uint64_t *busy_ns, uint64_t *all_ns);

#endif
