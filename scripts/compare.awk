# compare.awk: two zc-matrix runs CSVs, cell by cell (scripts/zc-report
# --compare), for an awk program run with -F, on OLD.csv then NEW.csv, after
# stats.awk and runs.awk. Each side's median service demand and its interval, the change
# from old to new with its interval, and each side's rounds. The change is
# the Hodges-Lehmann estimate of the ratio (the median of every new round
# over every old one) with its distribution-free 95% interval: the order
# statistics k and nm+1-k of the nm ratios, k from the exact distribution
# of the Mann-Whitney U. Where no k reaches 95% (1 round against 5, 2
# against 3) the change is not judged: the line says so, with the range.
{
	# A new file: FNR starts again (runs.awk took its header), so that the
	# same path given twice is read as the old side, then the new.
	if (!side || FNR <= last_fnr)
		side++
	last_fnr = FNR
	# A fleet's pair is a cell of its own: its number and hosts first.
	k = (col("pair") == "" ? "" : "pair " col("pair") " " col("sender") ">" col("receiver") " ") \
		$c["mode"] " " $c["bufsize"] " " $c["placement"] " " $c["recv"] ((col("offload") == "") ? "" : " " col("offload")) \
		", " (rate() == "-" ? "full speed" : "at " rate() " bytes/s")
	if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
	d[side, k] = d[side, k] " " $c["demand_us_per_kb"]
}
# mw_rank(n, m): the largest k with P(U < k) <= 0.025, U Mann-Whitney's for
# samples of n and m; 0 where there is none.
function mw_rank(n, m,   i, j, u, total, below, k, f, g) {
	# f[j, u]: the ways for samples of i and j to give U = u, i growing.
	delete f
	for (j = 0; j <= m; j++)
		f[j, 0] = 1
	for (i = 1; i <= n; i++) {
		delete g
		for (j = 0; j <= m; j++)
			for (u = 0; u <= i * j; u++)
				g[j, u] = (u >= j ? f[j, u - j] : 0) + (j > 0 ? g[j - 1, u] : 0)
		delete f
		for (key in g)
			f[key] = g[key]
	}
	total = 0
	for (u = 0; u <= n * m; u++)
		total += f[m, u]
	k = 0; below = 0
	for (u = 0; u <= n * m; u++) {
		if ((below + f[m, u]) / total > 0.025)
			break
		below += f[m, u]
		k = u + 1
	}
	return k
}
# change(OLD, NEW): "estimate lo hi k ratio" of new over old, in percent (k
# 0: lo and hi are the range). Where a round of either side has a demand of
# 0 or below (a load the meter's noise outweighs), a ratio means nothing (a
# fleet run set against itself, its rounds -0.0585 and +0.0390 us/KB, read
# -125.0%): "estimate lo hi k diff", the shift, new less old, in us/KB, by
# the same order statistics.
function change(a, b,   na, nb, x, y, i, j, n, r, k, med, ratio) {
	na = split(a, x, " "); nb = split(b, y, " ")
	ratio = !nonpositive(a " " b)
	n = 0
	for (i = 1; i <= na; i++)
		for (j = 1; j <= nb; j++)
			r[++n] = ratio ? y[j] / x[i] - 1 : y[j] - x[i]
	sort_num(r, n)
	med = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
	k = mw_rank(na, nb)
	if (!ratio)
		return sprintf("%.3f %.3f %.3f %d diff", med, r[k > 0 ? k : 1], r[n + 1 - (k > 0 ? k : 1)], k)
	return sprintf("%.1f %.1f %.1f %d ratio", 100 * med, 100 * r[k > 0 ? k : 1], 100 * r[n + 1 - (k > 0 ? k : 1)], k)
}
# enough(): the fewest rounds a side, the same on both, that give a 95% interval.
function enough(   r) {
	if (!enough_rounds)
		for (enough_rounds = 2; enough_rounds < 20 && mw_rank(enough_rounds, enough_rounds) == 0; enough_rounds++)
			;
	return enough_rounds
}
# side_of(LIST): "median +-x%": the interval's wider side over the median;
# over a median of 0 or below, in us/KB.
function side_of(list,   s, w) {
	split(stats(list), s, " ")
	w = s[1] - s[2] > s[3] - s[1] ? s[1] - s[2] : s[3] - s[1]
	return s[1] > 0 ? sprintf("%.3f +-%3.0f%%", s[1], 100 * w / s[1]) : sprintf("%.3f +-%.3f", s[1], w)
}
END {
	printf "%-44s %-16s %-16s %-46s %s\n", "cell: service demand (zcc -c, us/KB)", "old", "new", "change", "rounds"
	for (i = 1; i <= nk; i++) {
		k = keys[i]
		if (!((1, k) in d) || !((2, k) in d)) {
			only = only "\n  " k " (" (((1, k) in d) ? "old" : "new") " only)"
			continue
		}
		split(change(d[1, k], d[2, k]), ch, " ")
		est = change_fmt(ch[5], ch[1], 1); lo = change_fmt(ch[5], ch[2]); hi = change_fmt(ch[5], ch[3])
		if (ch[5] == "diff")
			shifted = 1
		if (ch[4] == 0)
			delta = sprintf("too few rounds, %d+%d at least (%s, range %s to %s)", enough(), enough(), est, lo, hi)
		else if (ch[2] <= 0 && ch[3] >= 0)
			delta = sprintf("no change (%s [%s, %s])", est, lo, hi)
		else
			delta = sprintf("%s [%s, %s]", est, lo, hi)
		printf "%-44s %-16s %-16s %-46s %d+%d\n", k, side_of(d[1, k]), side_of(d[2, k]), delta,
			split(d[1, k], t1, " "), split(d[2, k], t2, " ")
	}
	if (only != "")
		print "cells in one run only, not compared:" only
	if (shifted)
		print "a change in us/KB: a round of that cell had a demand of 0 or below (the meter's noise outweighed the load), so\n" \
			"the change is every new round less every old one, not a ratio"
}
