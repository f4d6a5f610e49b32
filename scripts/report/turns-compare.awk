# turns-compare.awk: two turns CSVs side by side (zc-report --compare on
# turns CSVs), for an awk program run with -F, on OLD then NEW, after
# runs.awk. For each arm, its difference from the arm it was set against in
# each run's turns, and the change between the two differences, with its
# interval. Within a run the difference is measured side by side, slot
# against slot, so what moved the whole host between the runs (another
# boot, another guest, a warmer machine) cancels out of it; the change
# compares two such differences, as precisely as the turns measured them.
#
# Each side's interval is its turns' own (the Hodges-Lehmann interval of
# its blocks' differences). The change, new less old, takes the two sides
# as independent, each interval as it is (MOVER, Zou and Donner 2008):
#   lo = d - sqrt((new - new_lo)^2 + (old_hi - old)^2)
#   hi = d + sqrt((new_hi - new)^2 + (old - old_lo)^2)
# A pair of arms set the other way round in one run (the cheapest changed)
# is turned to the other's: the load's points by their sign, the demand's
# percent by 100 / (100 + p) - 1, its interval's ends swapped. A pair that
# one run set each against a third arm, its cheapest (a run with other
# modes had another), is taken through it: the load's points x - y, the
# demand's ratio (1 + x/100) / (1 + y/100), their intervals again by MOVER
# as if independent (on the ratio's log), which the shared third arm only
# widens, and the line says which arm it went through.
#
# The verdict (-v same_pct, same_points): changed where the change's
# interval leaves out 0; no change where it holds 0 and lies within
# +-same_pct points of percent (demand) or +-same_points points (load);
# else not resolved.
{
	# A new file: FNR starts again (runs.awk took its header). The same
	# path given twice is read twice, the old side then the new.
	if (!side || FNR <= last_fnr)
		side++
	last_fnr = FNR
	if ($c["against"] == "")
		next
	cell = (rate() == "-" ? "full speed" : rate_words(rate())) ", placement " $c["placement"] \
		", zcs -m " $c["recv"] ", -b " $c["bufsize"] (col("offload") == "" ? "" : ", offload " col("offload")) \
		", " (col("end") == "" ? "sender" : col("end")) "'s meter"
	# Arms that are a setting's values (zcc -X: "b=64k") are the mode's: the mode is part of the cell.
	if (index($c["arm"], $c["mode"]) != 1)
		cell = "-m " $c["mode"] ", " cell
	if (!(cell in seen_cell)) { seen_cell[cell] = 1; cells[++ncells] = cell }
	arm = $c["arm"]
	if (!((cell, arm) in seen_arm)) { seen_arm[cell, arm] = 1; arms[cell, ++narms[cell]] = arm }
	against[side, cell, arm] = $c["against"]
	dem[side, cell, arm] = $c["demand_pct"] " " $c["demand_pct_lo"] " " $c["demand_pct_hi"]
	lod[side, cell, arm] = $c["load_points"] " " $c["load_points_lo"] " " $c["load_points_hi"]
}
# turned_pct(P): the demand's difference of B against A, from A's against B, in percent.
function turned_pct(p) {
	return 100 * (100 / (100 + p) - 1)
}
# side_of(S, CELL, X, Y, KIND): "est lo hi" of X against Y on side S, by
# KIND ("demand", "load"), turned where that side set Y against X; "" where
# it has neither, or a figure is missing.
function side_of(s, cell, x, y, kind,   v, t) {
	if ((s, cell, x) in against && against[s, cell, x] == y) {
		split(kind == "demand" ? dem[s, cell, x] : lod[s, cell, x], v, " ")
		return v[3] == "" ? "" : v[1] " " v[2] " " v[3]
	}
	if ((s, cell, y) in against && against[s, cell, y] == x) {
		split(kind == "demand" ? dem[s, cell, y] : lod[s, cell, y], v, " ")
		if (v[3] == "")
			return ""
		if (kind == "load")
			return (-v[1]) " " (-v[3]) " " (-v[2])
		if (v[2] <= -100)
			return ""
		return turned_pct(v[1]) " " turned_pct(v[3]) " " turned_pct(v[2])
	}
	return through(s, cell, x, y, kind)
}
# through(S, CELL, X, Y, KIND): X against Y on side S from X's and Y's
# against one arm Z, where the side has both; Z in via[S]; "" else.
function through(s, cell, x, y, kind,   z, a, b, d, lo, hi, la, lb, i) {
	if (!((s, cell, x) in against) || !((s, cell, y) in against))
		return ""
	z = against[s, cell, x]
	if (z != against[s, cell, y] || z == x || z == y)
		return ""
	split(kind == "demand" ? dem[s, cell, x] : lod[s, cell, x], a, " ")
	split(kind == "demand" ? dem[s, cell, y] : lod[s, cell, y], b, " ")
	if (a[3] == "" || b[3] == "")
		return ""
	via[s] = z
	if (kind == "load") {
		d = a[1] - b[1]
		return d " " (d - sqrt((a[1] - a[2]) ^ 2 + (b[3] - b[1]) ^ 2)) " " (d + sqrt((a[3] - a[1]) ^ 2 + (b[1] - b[2]) ^ 2))
	}
	if (a[2] <= -100 || b[2] <= -100)
		return ""
	for (i = 1; i <= 3; i++) { la[i] = log(1 + a[i] / 100); lb[i] = log(1 + b[i] / 100) }
	d = la[1] - lb[1]
	lo = d - sqrt((la[1] - la[2]) ^ 2 + (lb[3] - lb[1]) ^ 2)
	hi = d + sqrt((la[3] - la[1]) ^ 2 + (lb[1] - lb[2]) ^ 2)
	return (100 * (exp(d) - 1)) " " (100 * (exp(lo) - 1)) " " (100 * (exp(hi) - 1))
}
# line(LABEL, OLD, NEW, SAME, FMT): one measure's line: each side, and the change with its verdict.
function line(label, o, n, same, fmt,   a, b, d, lo, hi, within, words) {
	split(o, a, " "); split(n, b, " ")
	d = b[1] - a[1]
	lo = d - sqrt((b[1] - b[2]) ^ 2 + (a[3] - a[1]) ^ 2)
	hi = d + sqrt((b[3] - b[1]) ^ 2 + (a[1] - a[2]) ^ 2)
	within = -lo > hi ? -lo : hi
	if (lo > 0 || hi < 0)
		words = sprintf("changed: " fmt " [" fmt ", " fmt "]", d, lo, hi)
	else if (within <= same)
		words = sprintf("no change: within +-%" substr(fmt, 3) " (" fmt " [" fmt ", " fmt "])", within, d, lo, hi)
	else
		words = sprintf("not resolved: " fmt " [" fmt ", " fmt "]", d, lo, hi)
	printf "  %-16s old %-26s new %-26s %s\n", label, sprintf(fmt " [" fmt ", " fmt "]", a[1], a[2], a[3]),
		sprintf(fmt " [" fmt ", " fmt "]", b[1], b[2], b[3]), words
}
END {
	if (side < 2) {
		print "zc-report: --compare: the new turns CSV has no rows" > "/dev/stderr"
		exit 1
	}
	print "# each side: an arm's difference from the arm it was set against in that run's turns, the"
	print "# blocks' median with its 95% interval; the change: new less old, its 95% interval from both"
	print "# sides' (taken as independent); the demand in % of the other arm's, the load in points of the host"
	for (i = 1; i <= ncells; i++) {
		cell = cells[i]
		for (j = 1; j <= narms[cell]; j++) {
			x = arms[cell, j]
			# The pair as the old run set it, else as the new did.
			y = (1, cell, x) in against ? against[1, cell, x] : against[2, cell, x]
			if ((cell, x, y) in done || (cell, y, x) in done)
				continue
			done[cell, x, y] = 1
			delete via
			od = side_of(1, cell, x, y, "demand"); nd = side_of(2, cell, x, y, "demand")
			ol = side_of(1, cell, x, y, "load"); nl = side_of(2, cell, x, y, "load")
			if (od == "" && ol == "" || nd == "" && nl == "") {
				apart = apart "\n  " x " against " y ", " cell ": " why_apart(cell, x, y)
				continue
			}
			print x " against " y ", " cell ((1 in via) ? " (the old run's through " via[1] ", its cheapest)" : "") \
				((2 in via) ? " (the new run's through " via[2] ", its cheapest)" : "") ":"
			if (od != "" && nd != "")
				line("demand (%)", od, nd, same_pct, "%+.1f")
			if (ol != "" && nl != "")
				line("load (points)", ol, nl, same_points, "%+.2f")
		}
	}
	if (apart != "")
		print "arms not compared:" apart
}
# why_apart(CELL, X, Y): why X against Y is on one side only.
function why_apart(cell, x, y,   s, other) {
	for (s = 1; s <= 2; s++) {
		if (side_of(s, cell, x, y, "demand") != "" || side_of(s, cell, x, y, "load") != "")
			continue
		other = (s, cell, x) in against ? against[s, cell, x] : ""
		if (other != "")
			return "the " (s == 1 ? "old" : "new") " run set " x " against " other ", not " y \
				", and " y " against no arm with it: run both with the same arms"
		return "in the " (s == 1 ? "new" : "old") " run only"
	}
	return "no figures"
}
