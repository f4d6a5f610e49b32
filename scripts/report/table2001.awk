# table2001.awk: the 2001 study's table from a runs CSV, at the paced phase's rate (-v want)
# or full speed. For zc-report --table 2001, after stats.awk and runs.awk.
col("rate_bytes_per_sec") != want { next }
{
	st = col("offload") ~ /^sg:off/ ? "off" : "on"
	k = $c["mode"] SUBSEP $c["placement"] SUBSEP st
	v[k, "load"] = v[k, "load"] " " $c["load_pct"]
	# The kernel's view is empty where its window held no tick of
	# /proc/stat: no figure then, and no gap (not the load less 0).
	if ($c["kernel_pct"] != "") {
		v[k, "kernel"] = v[k, "kernel"] " " $c["kernel_pct"]
		v[k, "gap"] = v[k, "gap"] " " ($c["load_pct"] - $c["kernel_pct"])
	}
	if ($c["recv_load_pct"] != "" && $c["recv_kernel_pct"] != "") {
		v[k, "recv_kernel"] = v[k, "recv_kernel"] " " $c["recv_kernel_pct"]
		v[k, "recv_gap"] = v[k, "recv_gap"] " " ($c["recv_load_pct"] - $c["recv_kernel_pct"])
	}
	v[k, "mbs"] = v[k, "mbs"] " " $c["mbytes_per_sec"]
	v[k, "recv_mbs"] = v[k, "mbs"]
	v[k, "demand"] = v[k, "demand"] " " $c["demand_us_per_kb"]
	v[k, "recv_demand"] = v[k, "recv_demand"] " " $c["recv_demand_us_per_kb"]
	v[k, "recv_load"] = v[k, "recv_load"] " " $c["recv_load_pct"]
	v[k, "ints"] = v[k, "ints"] " " $c["ints_per_sec"]
	v[k, "rx"] = v[k, "rx"] " " $c["rx_pps"]
	v[k, "tx"] = v[k, "tx"] " " $c["tx_pps"]
	v[k, "recv_ints"] = v[k, "recv_ints"] " " $c["recv_ints_per_sec"]
	v[k, "recv_rx"] = v[k, "recv_rx"] " " $c["recv_rx_pps"]
	v[k, "recv_tx"] = v[k, "recv_tx"] " " $c["recv_tx_pps"]
	states[st] = 1
}
function med(k, f,   s) {
	if (v[k, f] ~ /^ *$/)
		return ""
	split(stats(v[k, f]), s, " ")
	return s[1]
}
function pct(x) { return x == "" ? "-" : sprintf("%.1f%%", x) }
function pts(x) { return x == "" ? "-" : sprintf("%+.1f", x) }
function num(x) { return x == "" ? "-" : sprintf("%.0f", x) }
# The load, the kernel's view of the same window, and the gap, in points.
function load3(k, pre) {
	return sprintf("%7s %7s %5s", pct(med(k, pre "load")), pct(med(k, pre "kernel")), pts(med(k, pre "gap")))
}
function row(label, mode, st, pre,   k, a) {
	k = mode SUBSEP "none" SUBSEP st; a = mode SUBSEP "separate" SUBSEP st
	printf "  %-36s %s %s %9s %8s %8s %8s %6s\n", label, load3(k, pre), load3(a, pre),
		num(med(k, pre "ints")), num(med(k, pre "rx")), num(med(k, pre "tx")), num(med(k, pre "mbs")),
		med(k, pre "demand") == "" ? "-" : sprintf("%.3f", med(k, pre "demand"))
}
END {
	printf "  %-36s %7s %7s %5s %7s %7s %5s %9s %8s %8s %8s %6s\n", "", "CPU", "kernel", "gap", "affine", "kernel",
		"gap", "ints/s", "rx pps", "tx pps", "MB/s", "us/KB"
	row("sendfile():", "sendfile", "on", "")
	row("send():", "send", "on", "")
	row("receiving (sendfile's stream):", "sendfile", "on", "recv_")
	if ("off" in states) {
		print ""
		row("sendfile(), no xsum/SG:", "sendfile", "off", "")
		row("send(), no xsum/SG:", "send", "off", "")
		row("receiving, no xsum/SG at the sender:", "sendfile", "off", "recv_")
	}
}
