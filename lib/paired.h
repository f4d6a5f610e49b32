/*
 * paired: two arms measured in turns, under one meter, compared. Each block
 * of turns gives one difference between them; the differences' median and
 * its distribution-free 95% interval (the order statistics x(j) and
 * x(n+1-j), as scripts/stats.awk computes them), and what the interval
 * says: the arms differ (it leaves out 0), they are the same within a
 * bound (it lies inside it), or neither.
 */
#ifndef ZC_PAIRED_H
#define ZC_PAIRED_H

#include <stddef.h>

/* The fewest differences whose median has a 95% interval; below it, the range. */
#define PAIRED_MIN_N 6

struct paired {
	double median, lo, hi;
	size_t n;
};

enum paired_verdict { PAIRED_DIFFERS, PAIRED_SAME, PAIRED_UNRESOLVED };

/* j of the interval [x(j), x(n+1-j)] for n values (1-based), or 1 (the range) below PAIRED_MIN_N. */
size_t paired_ci_rank(size_t n);

/* The median of v[0..n) and its interval, into p; v is sorted in place. n 0: all NAN. */
void paired_median(double *v, size_t n, struct paired *p);

/*
 * What p says, its bound the `same` figure (5 for +-5%): DIFFERS when the
 * interval leaves out 0, SAME when it lies within +-same, else UNRESOLVED;
 * always UNRESOLVED with fewer than PAIRED_MIN_N differences.
 */
enum paired_verdict paired_verdict(const struct paired *p, double same);

/* The verdict as -J says it: "differs", "same" or "unresolved". */
const char *paired_verdict_name(enum paired_verdict v);

/* The bound an interval lies within, the larger of -lo and hi, rounded up to a tenth. */
double paired_within(const struct paired *p);

#endif
