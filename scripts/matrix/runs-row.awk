# A cell's row of zc-matrix's runs CSV, from its runs' -J summaries (with
# json.awk): the plain run's (plain: zcc's object, then zcs's), the metered
# one's (metered), and with --remote the receiving host's (recv); the
# columns BENCH_RUNS_COLUMNS (bench-lib.sh), each written by its name.
# Variables: r, mode, size, pl, rm, n (CPUs), busy and total (/proc/stat's
# ticks over the plain run), state (the offloads), rate, run, columns.
# own(OBJ): the user plus system seconds of a summary.
function own(obj) {
	return json_get(obj, "result.user_seconds") + json_get(obj, "result.system_seconds")
}
BEGIN {
	split(plain, p, "\n"); split(metered, m, "\n")
	bytes = json_get(p[1], "result.bytes"); secs = json_get(p[1], "result.seconds")
	kb = bytes / 1024
	mbs = bytes / secs / 1e6
	busy_pct = total ? 100 * busy / total : 0
	mmbs = json_mbs(m[1])
	v["round"] = sprintf("%d", r); v["mode"] = mode; v["bufsize"] = size; v["placement"] = pl; v["recv"] = rm
	v["offload"] = state; v["rate_bytes_per_sec"] = rate; v["run"] = run
	v["mbytes_per_sec"] = sprintf("%.1f", mbs)
	v["busy_pct_proc_stat"] = sprintf("%.1f", busy_pct)
	v["demand_proc_stat_us_per_kb"] = sprintf("%.3f", busy_pct / 100 * n * secs * 1e6 / kb)
	v["zcc_us_per_kb"] = sprintf("%.3f", own(p[1]) * 1e6 / kb)
	v["zcs_us_per_kb"] = p[2] ~ /remote/ ? "" : sprintf("%.3f", own(p[2]) * 1e6 / kb)
	v["mbytes_per_sec_metered"] = sprintf("%.1f", mmbs)
	v["load_pct"] = json_get(m[1], "meter.load_pct")
	v["load_before_pct"] = json_get(m[1], "meter.load_before_pct")
	if (v["load_before_pct"] == "null")
		v["load_before_pct"] = ""
	# The share of the metered CPUs' time a hypervisor took over the metered run.
	v["steal_pct"] = json_get(m[1], "meter.steal_pct")
	v["demand_us_per_kb"] = json_get(m[1], "meter.demand_us_per_kb")
	v["kernel_pct"] = json_get(m[1], "meter.kernel_pct")
	v["meter_throughput_change_pct"] = sprintf("%.1f", 100 * (mmbs - mbs) / mbs)
	# The share of the zero-copy sends the kernel copied anyway.
	sends = json_get(p[1], "result.zerocopy.sends"); copied = json_get(p[1], "result.zerocopy.copied")
	v["copied_pct"] = sends > 0 ? sprintf("%.1f", 100 * copied / sends) : ""
	# The share of the bytes zcs -m zerocopy received by mapping them.
	mapped = p[2] ~ /remote/ ? "" : json_get(p[2], "result.mapped_bytes")
	v["mapped_pct"] = mapped == "" ? "" : sprintf("%.1f", 100 * mapped / bytes)
	# What the sending host's link counted (zcc -J link: interrupts, or
	# for lo and veth NET_RX and NET_TX softirqs; packets each way).
	v["ints_per_sec"] = json_get(p[1], "link.ints_per_sec")
	v["rx_pps"] = json_get(p[1], "link.rx_pps"); v["tx_pps"] = json_get(p[1], "link.tx_pps")
	# The bytes a packet the sending interface was handed (lo counts
	# both ways: the ACKs bring its figure down).
	v["tx_bytes_per_packet"] = json_get(p[1], "link.tx_bytes_per_packet")
	# What held the stream back (zcc -J tcp_info, empty where the
	# kernel has no such field): retransmissions, their share of the
	# bytes, and the shares of the busy time the receive window and the
	# send buffer limited.
	v["retrans_segments"] = json_get(p[1], "result.tcp_info.retrans_segments")
	rb = json_get(p[1], "result.tcp_info.retrans_bytes")
	v["retrans_pct"] = rb == "" ? "" : sprintf("%.2f", 100 * rb / bytes)
	v["rwnd_limited_pct"] = json_get(p[1], "result.tcp_info.rwnd_limited_pct")
	v["sndbuf_limited_pct"] = json_get(p[1], "result.tcp_info.sndbuf_limited_pct")
	# The sending host's counters over the run (zcc -J netstat): writes
	# autocorked, delayed ACKs sent, pure ACKs taken in.
	v["host_autocorking"] = json_get(p[1], "netstat.autocorking")
	v["host_delayed_acks"] = json_get(p[1], "netstat.delayed_acks")
	v["host_pure_acks"] = json_get(p[1], "netstat.pure_acks")
	# With --remote, the receiving host's meter and link (zcs -c).
	split(recv, q, "\n")
	v["recv_load_pct"] = json_get(q[2], "meter.load_pct")
	v["recv_demand_us_per_kb"] = json_get(q[2], "meter.demand_us_per_kb")
	v["recv_kernel_pct"] = json_get(q[2], "meter.kernel_pct")
	v["recv_ints_per_sec"] = json_get(q[2], "link.ints_per_sec")
	v["recv_rx_pps"] = json_get(q[2], "link.rx_pps"); v["recv_tx_pps"] = json_get(q[2], "link.tx_pps")
	v["recv_tx_bytes_per_packet"] = json_get(q[2], "link.tx_bytes_per_packet")
	# Paced (zcc -R): the share of the rate each run reached. Then the
	# load's two parts: the CPU time the soakers lost, their slowdown.
	v["rate_reached_pct"] = json_get(p[1], "result.rate_reached_pct")
	v["rate_reached_pct_metered"] = json_get(m[1], "result.rate_reached_pct")
	v["time_lost_pct"] = json_get(m[1], "meter.time_lost_pct")
	v["slowdown_pct"] = json_get(m[1], "meter.slowdown_pct")
	# A datagram cell: its datagrams and calls a second, and the share
	# zcc sent that zcs did not receive (its ACK says how many came).
	d = json_get(p[1], "result.datagrams"); calls = json_get(p[1], "result.calls")
	got = json_get(p[1], "result.received_datagrams")
	v["dgrams_per_sec"] = d == "" ? "" : sprintf("%.0f", d / secs)
	v["calls_per_sec"] = calls == "" || d == "" ? "" : sprintf("%.0f", calls / secs)
	v["loss_pct"] = d == "" || got == "" || d == 0 ? "" : sprintf("%.2f", 100 * (d - got) / d)
	nc = split(columns, name, " ")
	for (i = 1; i <= nc; i++) {
		if (!(name[i] in v)) {
			print "zc-matrix: the runs CSV has no figure for its column " name[i] > "/dev/stderr"
			exit 1
		}
		line = line (i > 1 ? "," : "") v[name[i]]
	}
	print line
}
