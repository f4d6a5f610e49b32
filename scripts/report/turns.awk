# turns.awk: the verdict at one rate (-v want) from the turns CSV, per group of cells the turns
# measured together, each against the cheapest; the groups it covers on the last line,
# "turned: placement recv|...". For zc-report, after runs.awk.
# Each group's rows by end: the sender's (zcc's meter), the receiver's (zcs's, following the
# same slots) and both ends' sum; the last two only where they have a demand.
rate() != want { next }
{
	g = $c["placement"] " " $c["recv"] " " $c["bufsize"] ((col("offload") == "") ? "" : " " col("offload"))
	e = col("end") == "" ? "sender" : col("end")
	if (e != "sender" && $c["demand_us_per_kb"] == "")
		next
	if (!(g in seen)) { seen[g] = 1; gs[++ng] = g; pr[$c["placement"] " " $c["recv"]] = 1 }
	n[g, e]++
	row[g, e, n[g, e]] = $0
}
# f(ROW, NAME): a field of a saved row.
function f(r, name,   a) {
	split(r, a, ",")
	return a[c[name]]
}
END {
	if (!ng)
		exit
	if (want != "-")
		print "Verdict at one rate, " rate_words(want) ", from the turns: every method sending in turns"
	else
		print "Verdict at full speed, from the turns: every method sending in turns"
	print "in one stream under one meter (zcc -m A,B,... -c), the cheapest by service demand (us/KB) first,"
	print "then each by its difference from it;"
	print "each against the cheapest is the Hodges-Lehmann estimate of the blocks' differences (the median"
	print "of their pairwise averages) with its 95% interval (Wilcoxon's signed-rank): it"
	print "\"costs\" where that leaves out 0, is \"the same\" where it lies within +-5%, else \"not resolved\"."
	if (want != "-")
		paced_words()
	for (i = 1; i <= ng; i++) {
		g = gs[i]
		split(g, id, " ")
		for (ei = 1; ei <= 3; ei++) {
			e = ei == 1 ? "sender" : ei == 2 ? "receiver" : "both"
			if (n[g, e])
				print_end(g, e, id)
		}
	}
	for (p in pr)
		turned = turned "|" p
	print "turned: " substr(turned, 2)
}
# print_end(G, END, ID): one end's arms of group G, cheapest first, then by
# their difference from it.
function print_end(g, e, id,   k, j, m, r, d, o, t, blocks, cyc, line, v, kv) {
	k = n[g, e]
	for (j = 1; j <= k; j++) {
		r[j] = row[g, e, j]
		d[j] = f(r[j], "demand_us_per_kb") + 0
		o[j] = turns_order(f(r[j], "verdict"), f(r[j], "demand_pct"), d[j])
	}
	for (j = 2; j <= k; j++)
		for (m = j; m > 1 && o[m - 1] > o[m]; m--) {
			t = o[m]; o[m] = o[m - 1]; o[m - 1] = t
			t = d[m]; d[m] = d[m - 1]; d[m - 1] = t
			t = r[m]; r[m] = r[m - 1]; r[m - 1] = t
		}
	blocks = ""
	for (j = 1; j <= k && blocks == ""; j++)
		blocks = f(r[j], "blocks")
	cyc = f(r[1], "block_cycles")
	if (e == "sender")
		printf "  placement %s, zcs -m %s, -b %s%s: %s blocks of %s cycle%s of %s ms slots\n", placement_words(id[1]), id[2], id[3],
			(id[4] == "" ? "" : ", " id[4]), blocks, cyc, (cyc == 1 ? "" : "s"), f(r[1], "slot_ms")
	else if (e == "receiver")
		printf "   the receiver (the far end's meter, over the same slots): %s blocks\n", blocks
	else
		printf "   both ends (the sender's and the receiver's us/KB added): %s blocks\n", blocks
	for (j = 1; j <= k; j++) {
		line = sprintf("    %-10s %.3f us/KB  ", f(r[j], "arm"), d[j])
		if (e != "both")
			line = line sprintf("load %5.1f%%  ", f(r[j], "load_pct"))
		line = line sprintf("%7.1f MB/s  ", f(r[j], "mbytes_per_sec"))
		v = f(r[j], "verdict")
		if (v == "")
			line = line "cheapest"
		else if (f(r[j], "demand_pct") == "" && d[1] <= 0)
			line = line "not resolved (no share: the cheapest's demand is 0 or below)"
		else if (f(r[j], "demand_pct") == "")
			line = line "not resolved (no share: no block had bytes from both arms)"
		else if (v == "differs")
			line = line sprintf("costs %+.1f%% [%+.1f, %+.1f]", f(r[j], "demand_pct"),
				f(r[j], "demand_pct_lo"), f(r[j], "demand_pct_hi"))
		else
			line = line sprintf("%s (%+.1f%% [%+.1f, %+.1f])",
				v == "same" ? sprintf("the same within +-%.1f%%", within(f(r[j], "demand_pct_lo"), f(r[j], "demand_pct_hi"))) : "not resolved",
				f(r[j], "demand_pct"), f(r[j], "demand_pct_lo"), f(r[j], "demand_pct_hi"))
		kv = sprintf("%+.1f%% [%+.1f, %+.1f]", f(r[j], "kernel_demand_pct"), f(r[j], "kernel_demand_pct_lo"),
			f(r[j], "kernel_demand_pct_hi"))
		if (f(r[j], "carried_by") == "kernel")
			line = line ": the kernel's view carries it, " kv
		else if (f(r[j], "carried_by") == "slowdown" && disagree(r[j]))
			line = line ": the slowdown carries it, not CPU time the kernel counted, which went the other way, " kv \
				" (the soakers ran slower beside it: caches, memory, the hypervisor)"
		else if (f(r[j], "carried_by") == "slowdown")
			line = line ": the slowdown carries it (the kernel's view " kv ")"
		if (want != "-" && f(r[j], "mbytes_per_sec") * 1e6 < want * reached_pct / 100)
			line = line sprintf("; reached %.0f%% of the rate", 100 * f(r[j], "mbytes_per_sec") * 1e6 / want)
		print line
	}
}
# disagree(ROW): the soakers' difference and the kernel's view of it both
# leave out 0, on opposite sides (lib/turns, turns_views_disagree).
function disagree(r) {
	if (f(r, "demand_pct_lo") == "" || f(r, "kernel_demand_pct_lo") == "")
		return 0
	return (f(r, "demand_pct_lo") > 0 && f(r, "kernel_demand_pct_hi") < 0) ||
		(f(r, "demand_pct_hi") < 0 && f(r, "kernel_demand_pct_lo") > 0)
}
# within(LO, HI): the bound an interval lies within, rounded up to a tenth (lib/paired).
function within(lo, hi,   w) {
	w = -lo > hi ? -lo : hi
	return int(w * 10 + 0.999999) / 10
}
