# rounds.awk: the most rounds of the cells at one rate (-v want; "-": full
# speed; empty: every cell), after runs.awk; with -v last=1 instead, the
# last paced rate and its zcc -R form, or nothing at full speed only.
(want == "" || rate() == want) && $c["round"] > n { n = $c["round"] }
rate() != "-" { r = rate() }
END {
	if (last) {
		if (r != "")
			print r, rate_arg(r)
	} else {
		print n + 0
	}
}
