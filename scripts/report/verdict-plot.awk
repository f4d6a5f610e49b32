# verdict-plot.awk: the verdict's plot data from the turns CSV: for each group the turns measured
# (placement, receive mode, buffer size, offload, rate), the file -v dir "/vN.csv" with a row for
# each of the sender's arms, "arm,estimate,lo,hi" (the cheapest 0,0,0; an arm with no share,
# empty figures), the cheapest first, then by difference; and on stdout, a title for each, a
# line each. For zc-report, after runs.awk.
(col("end") != "" && col("end") != "sender") { next }
{
	g = $c["placement"] SUBSEP $c["recv"] SUBSEP $c["bufsize"] SUBSEP col("offload") SUBSEP rate()
	if (!(g in num)) {
		num[g] = ++ng
		title[ng] = $c["placement"] ", zcs -m " $c["recv"] ", -b " $c["bufsize"] \
			(col("offload") == "" ? "" : ", " col("offload")) (rate() == "-" ? "" : sprintf(", at %.1f MB/s", rate() / 1e6))
	}
	i = num[g]
	n[i]++
	# "#" begins a comment in a gnuplot data file: an arm named twice (send#2) is send-2 here.
	arm = $c["arm"]; gsub(/#/, "-", arm)
	cheapest = $c["verdict"] == ""
	line[i, n[i]] = arm "," (cheapest ? "0,0,0" : $c["demand_pct"] "," $c["demand_pct_lo"] "," $c["demand_pct_hi"])
	key[i, n[i]] = turns_order($c["verdict"], $c["demand_pct"], $c["demand_us_per_kb"])
}
END {
	for (i = 1; i <= ng; i++) {
		for (j = 2; j <= n[i]; j++)
			for (m = j; m > 1 && key[i, m - 1] > key[i, m]; m--) {
				t = key[i, m]; key[i, m] = key[i, m - 1]; key[i, m - 1] = t
				t = line[i, m]; line[i, m] = line[i, m - 1]; line[i, m - 1] = t
			}
		f = dir "/v" i ".csv"
		for (j = 1; j <= n[i]; j++)
			print line[i, j] > f
		close(f)
		print title[i]
	}
}
