/*
 * paired: two arms measured in turns, under one meter, compared. Each block
 * of turns gives one difference between them; their Hodges-Lehmann
 * estimate (the median of the averages of every pair of differences, each
 * with itself too) and its distribution-free 95% interval (Wilcoxon's
 * signed-rank interval: the Walsh averages' order statistics at the exact
 * critical rank), and what the interval says: the arms differ (it leaves
 * out 0), they are the same within a bound (it lies inside it), or neither.
 * Robust to a burst in a block or two, as the median is, and as efficient
 * as the mean on differences that are normal, nearly.
 */
#ifndef ZC_PAIRED_H
#define ZC_PAIRED_H

#include <stddef.h>

/* The fewest differences with a 95% interval; below it, the interval is their range. */
#define PAIRED_MIN_N 6

/* The most differences an estimate takes: their n(n+1)/2 averages are sorted. */
#define PAIRED_MAX_N 400

struct paired {
	double estimate, lo, hi;
	size_t n;
};

enum paired_verdict { PAIRED_DIFFERS, PAIRED_SAME, PAIRED_UNRESOLVED };

/*
 * k of the interval [w(k), w(M+1-k)] of the M = n(n+1)/2 Walsh averages
 * (1-based): the largest k with P(W < k) <= 0.025, W the signed-rank
 * statistic of n differences; 1 (the range) below PAIRED_MIN_N.
 */
size_t paired_rank(size_t n);

/*
 * The estimate and interval of v[0..n), n at most PAIRED_MAX_N, into p;
 * 0, or -1 if memory for the averages ran out. n 0: all NAN.
 */
int paired_estimate(const double *v, size_t n, struct paired *p);

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
