# runs.awk: the one reader of a zc-matrix runs CSV (its columns are
# BENCH_RUNS_COLUMNS in bench-lib.sh), for an awk program run with -F, that
# puts it first: each file's header row sets c[NAME] to the column of that
# name, and the program sees the runs only.
FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
# col(NAME): the row's field of that name, "" where an older CSV has no such column.
function col(name) {
	return (name in c) ? $c[name] : ""
}
# rate(): the row's rate (bytes a second), "-" at full speed.
function rate(   r) {
	r = col("rate_bytes_per_sec")
	return r == "" ? "-" : r
}
# rate_arg(R): a rate of bytes a second as zcc -R takes it, in the largest
# unit (g, m, k: x1024) that divides it; rate_words(R): that and its MB/s.
function rate_arg(r) {
	if (r % 1073741824 == 0) return sprintf("%.0fg", r / 1073741824)
	if (r % 1048576 == 0) return sprintf("%.0fm", r / 1048576)
	if (r % 1024 == 0) return sprintf("%.0fk", r / 1024)
	return sprintf("%.0f", r)
}
function rate_words(r) {
	return sprintf("zcc -R %s (%.1f MB/s)", rate_arg(r), r / 1e6)
}

# paced_words(): under a paced verdict, why its us/KB are above full
# speed's, and what each of the two meters answers.
function paced_words() {
	print "Paced, a KB costs more than at full speed: each wake-up's fixed cost (a timer, an ACK, a"
	print "schedule) is spread over fewer bytes; compare methods at one rate, not across rates. load% (the"
	print "soakers) is what the host paid in all, interrupts and a hypervisor's time included; kernel% is"
	print "what the kernel charged to tasks: the first says which method costs this host less, the"
	print "second where the kernel saw the time go."
}

# turns_order(VERDICT, DEMAND_PCT, US_KB): where an arm of the turns comes in
# the verdict and its plot: the cheapest (no verdict) first, then by its
# difference from the cheapest, then those with none, by us/KB.
function turns_order(verdict, pct, us_kb) {
	if (verdict == "")
		return -1e18
	if (pct != "")
		return pct + 0
	return 1e15 + us_kb
}

# placement_words(P): a placement as the verdict names it: its name, and
# for each end's CPUs (zc-matrix --sender-cpus, --receiver-cpus: sLIST/rLIST,
# commas as +) what ran where.
function placement_words(p,   s, r) {
	if (p !~ /^s[0-9+-]+\/r[0-9+-]+$/)
		return p
	s = substr(p, 2, index(p, "/") - 2); r = substr(p, index(p, "/") + 2)
	gsub(/\+/, ",", s); gsub(/\+/, ",", r)
	return p " (zcc and its meter on CPUs " s ", zcs and its meter on CPUs " r ")"
}
