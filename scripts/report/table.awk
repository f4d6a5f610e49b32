# table.awk: a report's table of the cells at one rate (-v want; "-": full speed), of one kind
# (-v dg: the datagram cells), a row each with every figure and its interval, and the cells
# CSV's rows (appended to ENVIRON["ZC_CELLS_CSV"]). For zc-report, after stats.awk and runs.awk.
function fig(k, f, fmt,   s) {
	split(stats(v[k, f]), s, " ")
	lo[f] = s[2]; hi[f] = s[3]
	return sprintf(fmt, s[1])
}
# cell(k, f, fmt): "median [lo, hi]".
function cell(k, f, fmt,   m) {
	m = fig(k, f, fmt)
	return m " [" sprintf(fmt, lo[f]) ", " sprintf(fmt, hi[f]) "]"
}
rate() != want { next }
{
	cell_note()
	key = $c["mode"] SUBSEP $c["bufsize"] SUBSEP $c["placement"] SUBSEP $c["recv"]
	for (i = 1; i <= nf; i++)
		if ((f[i] in c) && $c[f[i]] != "")
			v[key, f[i]] = v[key, f[i]] " " $c[f[i]]
	# A metered run that began on a busy host (its tare: another load's share).
	if (col("load_before_pct") != "" && col("load_before_pct") + 0 > busy_pct) {
		busy[key] = busy[key] + 1
		if (!(key in busiest) || col("load_before_pct") + 0 > busiest[key])
			busiest[key] = col("load_before_pct") + 0
	}
	# A metered run a hypervisor took more than 1% of the CPUs' time from.
	if (col("steal_pct") != "" && col("steal_pct") + 0 > steal_pct) {
		stolen[key] = stolen[key] + 1
		if (!(key in most_stolen) || col("steal_pct") + 0 > most_stolen[key])
			most_stolen[key] = col("steal_pct") + 0
	}
	if ($c["load_pct"] != "" && $c["kernel_pct"] != "")
		v[key, "meter_gap_pts"] = v[key, "meter_gap_pts"] " " ($c["load_pct"] - $c["kernel_pct"])
}
# The cells CSV's path comes by the environment: -v would take its backslashes for escapes.
BEGIN { nf = split(figs, f, " "); csv = ENVIRON["ZC_CELLS_CSV"] }
END {
	paced = want != "-"
	if (heading && (paced || others))
		print (paced ? "# paced at one rate, " rate_words(want) ": every cell does the same work" \
			: "# at full speed: each cell as fast as it goes")
	if (dg)
		printf "%-16s %7s %-9s %-12s | %-24s ", "datagrams", "-l", "placement", "recv", "MB/s"
	else
		printf "%-9s %7s %-9s %-8s | %-24s ", "mode", "buf", "placement", "recv", "MB/s"
	if (paced)
		printf "%-7s ", "reached"
	printf "%-20s %-24s %7s %5s | %-17s | %-20s | %-6s | %s | %8s %8s %8s %6s | %6s %6s %7s | %s\n", "load%",
		"us/KB (zcc -c)", "kernel%", "gap", "us/KB: zcc  zcs", "meter effect on MB/s", "copied",
		dg ? sprintf("%9s %9s %6s", "dgrams/s", "calls/s", "loss") : sprintf("%-6s", "mapped"), "ints/s", "rx pps",
		"tx pps", "B/pkt", "retr%", "rwnd%", "sndbuf%", "receiver (zcs -c): load%  us/KB"
	n = cells_in_order(cellv)
	for (j = 1; j <= n; j++) {
		split(cellv[j], id, " ")
		if (id[5] != want || (id[1] ~ /^udp-/) != dg)
			continue
		k = id[1] SUBSEP id[2] SUBSEP id[3] SUBSEP id[4]
		name = id[1] ((k in busy) ? "!" : "") ((k in stolen) ? "~" : "")
		if (k in busy) {
			n_busy++
			marked = marked sprintf("\n#   %s: %d of its rounds, up to %.1f%% busy", id[1], busy[k], busiest[k])
		}
		if (k in stolen) {
			n_stolen++
			stolen_marks = stolen_marks sprintf("\n#   %s: %d of its rounds, up to %.1f%% stolen", id[1], stolen[k], most_stolen[k])
		}
		if (dg)
			printf "%-16s %7s %-9s %-12s | %-24s ", name, id[2], id[3], id[4], cell(k, "mbytes_per_sec", "%.1f")
		else
			printf "%-9s %7s %-9s %-8s | %-24s ", name, id[2], id[3], id[4], cell(k, "mbytes_per_sec", "%.1f")
		if (paced)
			printf "%-7s ", (k, "rate_reached_pct_metered") in v ? fig(k, "rate_reached_pct_metered", "%.0f%%") : "-"
		printf "%-20s %-24s %7s %5s | %6s %6s    | %-20s | %-6s | %s | %8s %8s %8s %6s | %6s %6s %7s | %s\n",
			cell(k, "load_pct", "%.1f"), cell(k, "demand_us_per_kb", "%.3f"),
			(k, "kernel_pct") in v ? fig(k, "kernel_pct", "%.1f") : "-",
			(k, "meter_gap_pts") in v ? fig(k, "meter_gap_pts", "%+.1f") : "-",
			fig(k, "zcc_us_per_kb", "%.3f"),
			(k, "zcs_us_per_kb") in v ? fig(k, "zcs_us_per_kb", "%.3f") : "-",
			cell(k, "meter_throughput_change_pct", "%+.1f%%"),
			(k, "copied_pct") in v ? fig(k, "copied_pct", "%.0f%%") : "-",
			dg ? sprintf("%9s %9s %6s", (k, "dgrams_per_sec") in v ? fig(k, "dgrams_per_sec", "%.0f") : "-",
				(k, "calls_per_sec") in v ? fig(k, "calls_per_sec", "%.0f") : "-",
				(k, "loss_pct") in v ? fig(k, "loss_pct", "%.2f%%") : "-") \
			: sprintf("%-6s", (k, "mapped_pct") in v ? fig(k, "mapped_pct", "%.0f%%") : "-"),
			(k, "ints_per_sec") in v ? fig(k, "ints_per_sec", "%.0f") : "-",
			(k, "rx_pps") in v ? fig(k, "rx_pps", "%.0f") : "-",
			(k, "tx_pps") in v ? fig(k, "tx_pps", "%.0f") : "-",
			(k, "tx_bytes_per_packet") in v ? fig(k, "tx_bytes_per_packet", "%.0f") : "-",
			(k, "retrans_pct") in v ? fig(k, "retrans_pct", "%.2f") : "-",
			(k, "rwnd_limited_pct") in v ? fig(k, "rwnd_limited_pct", "%.1f") : "-",
			(k, "sndbuf_limited_pct") in v ? fig(k, "sndbuf_limited_pct", "%.1f") : "-",
			(k, "recv_demand_us_per_kb") in v ? fig(k, "recv_load_pct", "%.1f") "  " \
				cell(k, "recv_demand_us_per_kb", "%.3f") : "-"
		line = id[1] "," id[2] "," id[3] "," id[4] "," (paced ? want : "") "," rounds "," interval
		for (i = 1; i <= nf; i++) {
			if ((k, f[i]) in v) {
				split(stats(v[k, f[i]]), s, " ")
				line = line "," s[1] "," s[2] "," s[3]
			} else {
				line = line ",,,"
			}
		}
		print line >> csv
	}
	if (n_stolen) {
		print "# ~: a hypervisor took more than " steal_pct "% of the metered CPUs' time (steal) in a metered run of"
		print "# the cell: the soakers lost it as they lose a load's, and its load% and us/KB hold time this"
		print "# host did not have; measure again where the host's neighbours are quieter:" stolen_marks
	}
	if (n_busy) {
		print "# !: the host was more than " busy_pct "% busy before a metered run of the cell began, by its tare"
		print "# (zcc's note \"the system was N% busy\"): another load ran beside it, and its load% and us/KB"
		print "# are what the transfer added to that load, with a wider spread; measure again on a quiet host:" marked
	}
}
