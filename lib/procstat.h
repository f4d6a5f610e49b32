/* procstat: the kernel's count of the CPUs' time, from /proc/stat. */
#ifndef ZC_PROCSTAT_H
#define ZC_PROCSTAT_H

#include <stdint.h>
#include <stdio.h>

/* One CPU's line, "cpuN user nice system idle iowait irq softirq steal", in ns. */
struct procstat_cpu {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* A CPU's busy time (user, nice, system, irq, softirq) and all of it (with idle, iowait, steal). */
uint64_t procstat_busy(const struct procstat_cpu *c);
uint64_t procstat_all(const struct procstat_cpu *c);

/*
 * The lines of /proc/stat for the CPUs listed, in ns: each into each[i]
 * for cpus[i] (each may be NULL), and summed, busy and all. A CPU with no
 * line is all 0. -1 if ticks_per_sec is not positive.
 */
int procstat_parse(FILE *f, const int *cpus, int n_cpus, long ticks_per_sec,
		   struct procstat_cpu *each, uint64_t *busy_ns, uint64_t *all_ns);

/* The same of /proc/stat now; all 0 if it cannot be read. */
void procstat_read(const int *cpus, int n_cpus, struct procstat_cpu *each, uint64_t *busy_ns,
		   uint64_t *all_ns);

#endif
