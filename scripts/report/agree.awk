# agree.awk: at one rate (-v want), whether each arm's us/KB in the turns (the turns CSV, the
# second file: the sender's rows) lies within its cell's interval in the table (the runs CSV,
# the first file), widened by -v slack_pct percent of its median; where one does not, one
# sentence that names them and says why the two can differ. Nothing where all agree. For
# zc-report, after stats.awk and runs.awk.
FILENAME == ARGV[1] {
	if (rate() != want || $c["demand_us_per_kb"] == "")
		next
	k = $c["mode"] " " $c["bufsize"] " " $c["placement"] " " $c["recv"]
	v[k] = v[k] " " $c["demand_us_per_kb"]
	next
}
rate() != want || (col("end") != "" && col("end") != "sender") { next }
$c["demand_us_per_kb"] == "" { next }
{
	k = $c["mode"] " " $c["bufsize"] " " $c["placement"] " " $c["recv"]
	# sendfile's cell has no buffer size ("-"); its turns have the group's.
	if (!(k in v))
		k = $c["mode"] " - " $c["placement"] " " $c["recv"]
	if (!(k in v))
		next
	split(stats(v[k]), s, " ")
	# A tenth of the median's size: a median below 0 widens the interval too.
	slack = (s[1] < 0 ? -s[1] : s[1]) * slack_pct / 100
	if ($c["demand_us_per_kb"] < s[2] - slack || $c["demand_us_per_kb"] > s[3] + slack)
		off = off sprintf("%s%s (table %.3f [%.3f, %.3f], turns %.3f)", off == "" ? "" : ", ", $c["mode"],
			s[1], s[2], s[3], $c["demand_us_per_kb"])
}
END {
	if (off == "")
		exit
	print "# The table's us/KB and the turns' disagree for " off ":"
	print "# the table's are separate runs, each against its own tare, and the turns one stream under one"
	print "# meter after them, so a host whose other load changed between them (a ! in the table: a run"
	print "# began busy) moves one and not the other; the verdict's differences come from the turns, whose"
	print "# arms shared every moment of the host's."
}
