# offloads.awk: the two offload states of a runs CSV compared cell by cell. For zc-report,
# after stats.awk and runs.awk.
{
	key = $c["placement"] " " $c["recv"] " " $c["mode"] " " $c["bufsize"] (rate() == "-" ? "" : " " rate())
	st = $c["offload"]
	if (st ~ /^sg:on/) on_state = st; else off_state = st
	d[key, st, $c["round"]] = $c["demand_us_per_kb"]
	tx[key, st] = tx[key, st] " " $c["tx_pps"]
	if (!(key in seen)) { seen[key] = 1; keys[++n] = key }
	rounds[$c["round"]] = 1
}
END {
	printf "Offloads: the service demand (zcc -c) with %s against %s, the median of the\n", off_state, on_state
	print "rounds' paired ratios with its interval, and the sender's tx pps in each state:"
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && keys[j - 1] > keys[j]; j--) { t = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = t }
	for (i = 1; i <= n; i++) {
		# A round with a demand of 0 or below in either state (a load within
		# the meter's noise) has no ratio: then the rounds' paired
		# differences, in us/KB.
		both = ""
		for (r in rounds)
			if ((keys[i], on_state, r) in d && (keys[i], off_state, r) in d)
				both = both " " d[keys[i], on_state, r] " " d[keys[i], off_state, r]
		by = nonpositive(both) ? "diff" : "ratio"
		list = ""
		for (r in rounds)
			if ((keys[i], on_state, r) in d && (keys[i], off_state, r) in d)
				list = list " " (by == "diff" ? d[keys[i], off_state, r] - d[keys[i], on_state, r] : \
					100 * (d[keys[i], off_state, r] / d[keys[i], on_state, r] - 1))
		split(stats(list), s, " ")
		split(stats(tx[keys[i], on_state]), a, " ")
		split(stats(tx[keys[i], off_state]), b, " ")
		split(keys[i], id, " ")
		printf "  %-56s %s  tx pps %.0f -> %.0f\n",
			"placement " id[1] ", zcs -m " id[2] ", " id[3] (id[4] == "-" ? "" : (id[3] ~ /^udp-/ ? " -l " : " -b ") id[4]) \
				(id[5] == "" ? "" : ", paced at " id[5]),
			change_fmt(by, s[1], 1) " [" change_fmt(by, s[2]) ", " change_fmt(by, s[3]) "]",
			a[1], b[1]
		if (by == "diff")
			shifted = 1
	}
	if (shifted)
		print "  (us/KB: a round's demand was 0 or below, a load within the meter's noise: the paired differences, not ratios)"
}
