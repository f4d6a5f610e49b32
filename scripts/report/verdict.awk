# verdict.awk: the rounds' verdict at one rate (-v want): per placement and receive mode not
# in -v turned, the cells by service demand, cheapest first, each against the cheapest by
# the rounds' paired ratios. For zc-report, after stats.awk and runs.awk.
# cell_label(MODE, SIZE): a cell's name in the verdict: its mode and -b, or a datagram cell's -l.
function cell_label(id1, id2) {
	return id1 (id2 == "-" ? "" : (id1 ~ /^udp-/ ? " -l " : " -b ") id2)
}
# paired(pl, a, b, by): the rounds' differences of cell a from cell b: in
# percent, or with by "diff" in us/KB (a less b).
function paired(pl, a, b, by,   r, list) {
	for (r in rounds)
		if ((pl, a, r) in d && (pl, b, r) in d && (by == "diff" || d[pl, b, r] > 0))
			list = list " " (by == "diff" ? d[pl, a, r] - d[pl, b, r] : 100 * (d[pl, a, r] / d[pl, b, r] - 1))
	return list
}
# by_of(pl, N): "diff" where a round of one of the group's first N cells
# (ks) had a demand of 0 or below, a load within the meter's noise, which
# no ratio describes; else "ratio".
function by_of(pl, n,   i) {
	for (i = 1; i <= n; i++)
		if (nonpositive(all[pl, ks[i]]))
			return "diff"
	return "ratio"
}
function med(list,   s) {
	split(stats(list), s, " ")
	return s[1]
}
rate() != want { next }
{
	cell_note()
	key = $c["mode"] " " $c["bufsize"]; pl = $c["placement"] " " $c["recv"]
	d[pl, key, $c["round"]] = $c["demand_us_per_kb"]
	all[pl, key] = all[pl, key] " " $c["demand_us_per_kb"]
	load[pl, key] = load[pl, key] " " $c["load_pct"]
	if (("rate_reached_pct" in c) && $c["rate_reached_pct"] != "")
		reach[pl, key] = reach[pl, key] " " $c["rate_reached_pct"]
	if (("rate_reached_pct_metered" in c) && $c["rate_reached_pct_metered"] != "")
		mreach[pl, key] = mreach[pl, key] " " $c["rate_reached_pct_metered"]
	if (("recv_demand_us_per_kb" in c) && $c["recv_demand_us_per_kb"] != "")
		rd[pl, key] = rd[pl, key] " " $c["recv_demand_us_per_kb"]
	if (col("loss_pct") != "")
		loss[pl, key] = loss[pl, key] " " col("loss_pct")
	rounds[$c["round"]] = 1
}
END {
	paced = want != "-"
	nc = cells_in_order(cellv)
	for (j = 1; j <= nc; j++) {
		split(cellv[j], id, " ")
		if (id[5] != want)
			continue
		grp = id[3] " " id[4]
		# A group the turns measured has its verdict from them.
		if (!(grp in pseen) && !index("|" turned "|", "|" grp "|")) { pseen[grp] = 1; pls[++npl] = grp }
		cells[grp] = cells[grp] "|" id[1] " " id[2]
	}
	if (!npl)
		exit
	if (paced) {
		print "Verdict at one rate, " rate_words(want) ": the transmit methods by service demand (zcc -c, us/KB)"
		print "and load, cheapest first; the difference from the cheapest is the median of the rounds' paired"
		print "ratios, with its interval (" interval "). A method that reached less than " reached_pct "% of the rate"
		print "(the median of its runs, with the meter or without) did not run at it, and is not ranked."
		paced_words()
	} else {
		print "Verdict: the transmit methods by service demand (zcc -c, us/KB), cheapest first;"
		print "the difference from the cheapest is the median of the rounds' paired ratios, with its interval (" interval ")."
	}
	for (p = 1; p <= npl; p++) {
		pl = pls[p]
		n = split(substr(cells[pl], 2), all_ks, "|")
		# At one rate, the cells that missed it are set aside, and
		# so are the datagram cells that lost more than their share.
		nk = nm = nl = 0
		for (i = 1; i <= n; i++) {
			r1 = (pl, all_ks[i]) in reach ? med(reach[pl, all_ks[i]]) : ""
			r2 = (pl, all_ks[i]) in mreach ? med(mreach[pl, all_ks[i]]) : ""
			lost = (pl, all_ks[i]) in loss ? med(loss[pl, all_ks[i]]) : ""
			if (paced && (r1 != "" && r1 < reached_pct || r2 != "" && r2 < reached_pct))
				missed[++nm] = all_ks[i] SUBSEP r1 SUBSEP r2
			else if (lost != "" && lost > loss_pct)
				lossy[++nl] = all_ks[i] SUBSEP lost
			else
				ks[++nk] = all_ks[i]
		}
		n = nk
		for (i = 1; i <= n; i++)
			dmed[i] = med(all[pl, ks[i]])
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && dmed[j - 1] > dmed[j]; j--) {
				t = dmed[j]; dmed[j] = dmed[j - 1]; dmed[j - 1] = t
				t = ks[j]; ks[j] = ks[j - 1]; ks[j - 1] = t
			}
		# The column of labels: 22 wide, or as wide as the longest.
		lwid = 22
		for (i = 1; i <= n + nm + nl; i++) {
			split(i <= n ? ks[i] : (i <= n + nm ? missed[i - n] : lossy[i - n - nm]), id, " ")
			split(id[2], size, SUBSEP)
			if (length(cell_label(id[1], size[1])) > lwid)
				lwid = length(cell_label(id[1], size[1]))
		}
		split(pl, where, " ")
		printf "  placement %s, zcs %s:\n", placement_words(where[1]),
			(where[2] ~ /^udp-/ ? "-u -m " substr(where[2], 5) : "-m " where[2])
		by = by_of(pl, n)
		for (i = 1; i <= n; i++) {
			split(ks[i], id, " ")
			label = cell_label(id[1], id[2])
			lw = paced ? sprintf("  load %5.1f%%", med(load[pl, ks[i]])) : ""
			if (i == 1) {
				printf "    %-*s %.3f us/KB%s  cheapest\n", lwid, label, dmed[i], lw
				prev = label
				continue
			}
			split(stats(paired(pl, ks[i], ks[1], by)), s, " ")
			noise = ""
			if (s[2] <= 0 && s[3] >= 0) {
				noise = "  within the noise"
			} else if (i > 2) {
				split(stats(paired(pl, ks[i], ks[i - 1], by)), u, " ")
				if (u[2] <= 0 && u[3] >= 0)
					noise = "  within the noise of " prev
			}
			printf "    %-*s %.3f us/KB%s  %s [%s, %s]%s\n", lwid, label, dmed[i], lw, change_fmt(by, s[1], 1),
				change_fmt(by, s[2]), change_fmt(by, s[3]), noise
			prev = label
		}
		if (n > 1 && by == "diff")
			print "    (a demand of 0 or below in a round, a load within the meter's noise: each set against the cheapest by\n" \
				"    the rounds' paired differences in us/KB, not ratios)"
		for (i = 1; i <= nm; i++) {
			split(missed[i], m, SUBSEP)
			split(m[1], id, " ")
			printf "    %-*s missed the rate: reached %s without the meter, %s with it; not ranked\n", lwid,
				cell_label(id[1], id[2]), m[2] == "" ? "-" : sprintf("%.0f%%", m[2]),
				m[3] == "" ? "-" : sprintf("%.0f%%", m[3])
		}
		for (i = 1; i <= nl; i++) {
			split(lossy[i], m, SUBSEP)
			split(m[1], id, " ")
			printf "    %-*s lost %.2f%% of its datagrams, more than %s%%: its load is not comparable; not ranked\n", lwid,
				cell_label(id[1], id[2]), m[2], loss_pct
		}
		if (n == 0)
			print "    no method ran at the rate: nothing to rank (a lower --rate may suit them all)"
		# --remote: which end paid, by the medians of each end's own runs.
		header = 0
		for (i = 1; i <= n; i++) {
			if (!((pl, ks[i]) in rd))
				continue
			if (!header++)
				print "    which end paid (us/KB: the sender by zcc -c, the receiver by zcs -c, each in runs of its own):"
			split(ks[i], id, " ")
			a = med(all[pl, ks[i]]); b = med(rd[pl, ks[i]])
			# A share of the two needs both above 0 (a demand of 0 or below is a
			# load within the meter's noise; and a + b could be 0).
			if (a <= 0 || b <= 0)
				printf "      %-20s sender %.3f, receiver %.3f: no share (a demand of 0 or below: a load within the meter's noise)\n",
					cell_label(id[1], id[2]), a, b
			else
				printf "      %-20s sender %.3f, receiver %.3f: the %s paid %.0f%%\n",
					cell_label(id[1], id[2]), a, b, (a >= b ? "sender" : "receiver"),
					(100 * (a >= b ? a : b) / (a + b))
		}
	}
}
