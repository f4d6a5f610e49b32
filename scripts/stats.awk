# stats.awk: the median of a set of rounds and an interval for it, for
# scripts/zc-matrix. With n >= 6 values the interval is the distribution-free
# 95% confidence interval of the median: the order statistics x(j) and
# x(n+1-j), j the largest rank with P(Binomial(n, 1/2) < j) <= 0.025. With
# fewer values no such interval reaches 95% (with 5 it would be min to max at
# 93.75%), so it is the range, min to max.
function sort_num(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
}
# ci_rank(n): the j of the 95% interval of the median, or 1 (min-max) below 6.
function ci_rank(n,   j, p, c) {
	if (n < 6)
		return 1
	p = 0.5 ^ n; c = p
	for (j = 1; j < n; j++) {
		p = p * (n - j + 1) / j
		if (c + p > 0.025)
			return j
		c += p
	}
	return 1
}
# stats(list): "median lo hi" of the numbers in the blank-separated list.
function stats(list,   a, n, j, med) {
	n = split(list, a, " ")
	if (n == 0)
		return ""
	sort_num(a, n)
	med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	j = ci_rank(n)
	return med " " a[j] " " a[n + 1 - j]
}
# nonpositive(list): 1 where a number of the blank-separated list is 0 or
# below: a demand within the meter's noise, which no ratio describes; the
# reports then compare by the difference in us/KB.
function nonpositive(list,   a, n, i) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++)
		if (a[i] <= 0)
			return 1
	return 0
}
# change_fmt(by, x, unit): a change x as the reports give it: by "diff", in
# us/KB ("%+.3f", " us/KB" after it with unit); else in percent ("%+.1f",
# "%" after it with unit).
function change_fmt(by, x, unit) {
	return by == "diff" ? sprintf("%+.3f", x) (unit ? " us/KB" : "") : sprintf("%+.1f", x) (unit ? "%" : "")
}
