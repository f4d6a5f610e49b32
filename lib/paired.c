#include <math.h>
#include <stdlib.h>

#include "paired.h"

size_t paired_ci_rank(size_t n)
{
	double p, c;

	if (n < PAIRED_MIN_N)
		return 1;
	/* The largest j with P(Binomial(n, 1/2) < j) <= 0.025. */
	p = pow(0.5, (double)n);
	c = p;
	for (size_t j = 1; j < n; j++) {
		p = p * (double)(n - j + 1) / (double)j;
		if (c + p > 0.025)
			return j;
		c += p;
	}
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void paired_median(double *v, size_t n, struct paired *p)
{
	size_t j = paired_ci_rank(n);

	p->n = n;
	if (n == 0) {
		p->median = p->lo = p->hi = NAN;
		return;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	p->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	p->lo = v[j - 1];
	p->hi = v[n - j];
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

	return ceil(w * 10 - 1e-9) / 10;
}
