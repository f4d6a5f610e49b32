# held.awk: at one rate (-v want), the cells something other than the CPU held back, by zcc's
# TCP_INFO (the median of the rounds): the receive window or the send buffer limiting more than
# -v held_pct percent of the time the stream was busy sending, or retransmissions past -v
# retrans_pct percent of the bytes. Nothing where no cell was. For zc-report, after stats.awk,
# runs.awk and cells.awk.
function med(list,   s) {
	split(stats(list), s, " ")
	return s[1]
}
rate() != want { next }
{
	k = cell_note()
	if (col("rwnd_limited_pct") != "")
		rwnd[k] = rwnd[k] " " col("rwnd_limited_pct")
	if (col("sndbuf_limited_pct") != "")
		sndbuf[k] = sndbuf[k] " " col("sndbuf_limited_pct")
	if (col("retrans_pct") != "")
		retrans[k] = retrans[k] " " col("retrans_pct")
}
END {
	n = cells_in_order(cellv)
	for (j = 1; j <= n; j++) {
		k = cellv[j]
		split(k, id, " ")
		if (id[5] != want)
			continue
		why = ""
		if ((k in rwnd) && med(rwnd[k]) > held_pct)
			why = sprintf("the receive window limited it %.0f%% of its busy time", med(rwnd[k]))
		if ((k in sndbuf) && med(sndbuf[k]) > held_pct)
			why = why (why == "" ? "" : "; ") sprintf("the send buffer limited it %.0f%% of its busy time", med(sndbuf[k]))
		if ((k in retrans) && med(retrans[k]) > retrans_pct)
			why = why (why == "" ? "" : "; ") sprintf("it retransmitted %.2f%% of its bytes", med(retrans[k]))
		if (why == "")
			continue
		if (!said++) {
			print "Held back by something other than the CPU (zcc's TCP_INFO, the median of the rounds: a window or"
			print "the send buffer limiting more than " held_pct "% of the busy time, or retransmissions past " retrans_pct "% of"
			print "the bytes): its MB/s is not the CPU's limit, and its us/KB includes that work."
		}
		printf "  %s%s, placement %s, zcs %s: %s\n", id[1], id[2] == "-" ? "" : (id[1] ~ /^udp-/ ? " -l " : " -b ") id[2],
			id[3], id[4] ~ /^udp-/ ? "-u -m " substr(id[4], 5) : "-m " id[4], why
	}
}
