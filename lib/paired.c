#include <math.h>
#include <stdlib.h>

#include "paired.h"

size_t paired_rank(size_t n)
{
	size_t max = n * (n + 1) / 2, k = 1;
	double *p, below = 0;

	if (n < PAIRED_MIN_N)
		return 1;
	/* P(W = s) for s = 0..max, rank by rank: each rank is in the sum or not, at 1/2 each. */
	p = calloc(max + 1, sizeof(*p));
	if (!p)
		return 1;
	p[0] = 1;
	for (size_t r = 1; r <= n; r++)
		for (size_t s = r * (r + 1) / 2 + 1; s-- > 0;)
			p[s] = (p[s] + (s >= r ? p[s - r] : 0)) / 2;
	for (size_t s = 0; s < max && below + p[s] <= 0.025; s++) {
		below += p[s];
		k = s + 1;
	}
	free(p);
	return k;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int paired_estimate(const double *v, size_t n, struct paired *p)
{
	size_t m = n * (n + 1) / 2, k = paired_rank(n), i, j, at = 0;
	double *w;

	p->n = n;
	if (n == 0) {
		p->estimate = p->lo = p->hi = NAN;
		return 0;
	}
	w = malloc(m * sizeof(*w));
	if (!w)
		return -1;
	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			w[at++] = (v[i] + v[j]) / 2;
	qsort(w, m, sizeof(*w), cmp_double);
	/* + 0.0: no difference is 0, never -0.0, which prints as "-0.0". */
	p->estimate = (m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2) + 0.0;
	p->lo = w[k - 1] + 0.0;
	p->hi = w[m - k] + 0.0;
	free(w);
	return 0;
}

enum paired_verdict paired_verdict(const struct paired *p, double same)
{
	if (p->n < PAIRED_MIN_N)
		return PAIRED_UNRESOLVED;
	if (p->lo > 0 || p->hi < 0)
		return PAIRED_DIFFERS;
	if (p->lo >= -same && p->hi <= same)
		return PAIRED_SAME;
	return PAIRED_UNRESOLVED;
}

const char *paired_verdict_name(enum paired_verdict v)
{
	return v == PAIRED_DIFFERS ? "differs" : v == PAIRED_SAME ? "same" : "unresolved";
}

double paired_within(const struct paired *p)
{
	double w = -p->lo > p->hi ? -p->lo : p->hi;

	/* + 0.0: a bound of 0 is 0, never -0.0 ("within +--0.0%"). */
	return ceil(w * 10 - 1e-9) / 10 + 0.0;
}
