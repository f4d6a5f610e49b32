/*
 * counts: the calibration file, ./counts_per_sec, read and written. The
 * total steps a second is on its first line (the 2001 format), "cpus N" on
 * the second, "spread P%" on the third and each CPU's own rate on the
 * fourth ("per_cpu 0:R0 1:R1 ..."); a 2001 file has the first line only.
 * The file is input from anywhere: every line is checked, and a file that
 * is wrong gets one line saying what, and how to make a good one.
 */
#ifndef ZC_COUNTS_H
#define ZC_COUNTS_H

#include <sched.h>
#include <stddef.h>
#include <stdio.h>

#define SOAK_COUNTS_FILE "./counts_per_sec"

/*
 * A calibration of the CPUs a meter soaks: the idle system's rate over them
 * all, how far its samples spread, and each CPU's own rate, in the order of
 * the CPUs it was read for. per_cpu_known is 0 where the file gave no rate a
 * CPU (a 2001 file, or an older zc's): each is then the total's share.
 */
struct soak_counts {
	double per_sec;
	double spread;	/* (max - min) / median of the samples; NAN if not known */
	int per_cpu_known;
	double cpu_per_sec[CPU_SETSIZE];
};

/*
 * Parse a calibration for the n_cpus CPUs cpus[] from f, naming it path in
 * errors: 0, or -1 with a one-line message in err. A file with a rate a CPU
 * serves any set of the CPUs it names (its total over all of them, a set's
 * the sum of its CPUs'); one without serves its own count of CPUs alone.
 */
int counts_parse(FILE *f, const char *path, const int *cpus, int n_cpus, struct soak_counts *c,
		 char *err, size_t errlen);
/* The same, from the file at path. */
int counts_read(const char *path, const int *cpus, int n_cpus, struct soak_counts *c, char *err,
		size_t errlen);

/* Write it, whole or not at all, each cpus[i]'s rate c->cpu_per_sec[i]: 0, or -1 with errno. */
int counts_write(const char *path, const struct soak_counts *c, const int *cpus, int n_cpus);
/* Whether counts_write() could put a file in path's place: 0, or -1 with errno. */
int counts_check_writable(const char *path);

#endif
