/*
 * counts: the calibration file, ./counts_per_sec, read and written. The
 * total steps a second is on its first line (the 2001 format), "cpus N" on
 * the second and "spread P%" on the third; a 2001 file has the first line
 * only. The file is input from anywhere: every line is checked, and a file
 * that is wrong gets one line saying what, and how to make a good one.
 */
#ifndef ZC_COUNTS_H
#define ZC_COUNTS_H

#include <stddef.h>
#include <stdio.h>

#define SOAK_COUNTS_FILE "./counts_per_sec"

/* A calibration: the idle system's rate, and how far its samples spread. */
struct soak_counts {
	double per_sec;
	double spread;	/* (max - min) / median of the samples; NAN if not known */
};

/*
 * Parse a calibration for n_cpus CPUs from f, naming it path in errors:
 * 0, or -1 with a one-line message in err.
 */
int counts_parse(FILE *f, const char *path, int n_cpus, struct soak_counts *c, char *err,
		 size_t errlen);
/* The same, from the file at path. */
int counts_read(const char *path, int n_cpus, struct soak_counts *c, char *err, size_t errlen);

/* Write it, whole or not at all: 0, or -1 with errno. */
int counts_write(const char *path, const struct soak_counts *c, int n_cpus);
/* Whether counts_write() could put a file in path's place: 0, or -1 with errno. */
int counts_check_writable(const char *path);

#endif
