# fleet.awk: zc-fleet's report, from what each end wrote in -v out (each
# line stamped with its host's time), for awk -f after json.awk, on the
# pairs file then the machines file. Every time is put on this host's clock
# (a host's stamp less its offset). The window is from the last sender's
# start to the first receiver's end, over the pairs that ran to their end;
# each pair's throughput is the mean of its receiver's seconds inside it,
# each machine's load the mean of its meter's samples inside it. A machine's
# demand is its CPU time in the window (load x CPUs x length) over the bytes
# its pairs moved in it, each pair once; each end of a pair is given its
# machine's, not a share of it. Reads one round's files (-v prefix, "r1-"),
# appends its rows to out/zc-fleet-runs.csv (-v columns, the runs CSV's,
# then pair, sender and receiver; -v round) and prints the round's report.
FILENAME ~ /pairs$/ {
	if (FNR == 1)
		next
	n++
	id[n] = $1; snd[n] = $2; rcv[n] = $3; addr[n] = $4; port[n] = $5
	ms[n] = $6; mr[n] = $7; os[n] = $8; orr[n] = $9
	next
}
FILENAME ~ /machines$/ {
	nm++
	mid[nm] = $1; moff[$1] = $2; mcpus[$1] = $3
	next
}
# lines(FILE, A): FILE's lines into A[1..], their count (0: no such file).
function lines(file, a,   k, l) {
	k = 0
	while ((getline l < file) > 0)
		a[++k] = l
	close(file)
	return k
}
function max(a, b) { return a > b ? a : b }
function min(a, b) { return a < b ? a : b }
END {
	# Each pair: the sender's start and summary, the receiver's seconds and end.
	for (i = 1; i <= n; i++) {
		f = out "/" prefix "pair" i
		start[i] = ""; state[i] = "ran"
		k = lines(f "-zcc.err", e)
		for (j = 1; j <= k; j++)
			if (e[j] ~ /^start [0-9.]+$/) { split(e[j], w, " "); start[i] = w[2] - os[i] }
			else if (e[j] !~ /^[ \t]*$/) why[i] = e[j]
		k = lines(f "-zcc.out", e)
		summary[i] = ""
		for (j = 1; j <= k; j++)
			if (e[j] ~ /^\{/) summary[i] = e[j]
		ns[i] = lines(f "-zcs.out", e)
		nsec[i] = 0; end[i] = ""
		for (j = 1; j <= ns[i]; j++) {
			split(e[j], w, " ")
			t = w[1] - orr[i]
			if (w[3] == "kbytes/sec" && w[2] ~ /^[0-9]+$/) { nsec[i]++; sec_t[i, nsec[i]] = t; sec_kb[i, nsec[i]] = w[2] }
			else if (w[2] == "received") { end[i] = t; received[i] = w[3] }
		}
		if (start[i] == "")
			{ state[i] = "lost"; why[i] = why[i] != "" ? why[i] : "its sender never started" }
		else if (summary[i] == "" || end[i] == "")
			{ state[i] = "lost"; why[i] = (summary[i] == "" ? "no summary from zcc on " snd[i] : "no end from zcs on " rcv[i]) (why[i] != "" ? ": " why[i] : "") }
	}
	# The window over the pairs that ran; while it is empty, the pair that
	# ended first did not overlap the others: named, and left out.
	for (;;) {
		ran = 0
		for (i = 1; i <= n; i++) {
			if (state[i] != "ran")
				continue
			w0 = ran ? max(w0, start[i]) : start[i]
			w1 = ran ? min(w1, end[i]) : end[i]
			first = ran ? min(first, start[i]) : start[i]
			last = ran ? max(last, start[i]) : start[i]
			if (!ran || end[i] < end[early]) early = i
			ran++
		}
		if (ran < 2 || w1 > w0)
			break
		state[early] = "apart"
		why[early] = sprintf("it did not overlap the others (it ran from %+.2f s to %+.2f s of the last sender's start)", start[early] - w0, end[early] - w0)
	}
	if (!ran) {
		print "zc-fleet: no pair ran to its end: nothing to report" > "/dev/stderr"
		exit 1
	}
	win = w1 - w0
	# The pairs' bytes in the window, from the receivers' seconds inside it.
	for (i = 1; i <= n; i++) {
		kb[i] = 0; inside[i] = 0
		if (state[i] != "ran")
			continue
		for (j = 1; j <= nsec[i]; j++)
			if (sec_t[i, j] - 1 >= w0 - 0.05 && sec_t[i, j] <= w1 + 0.05) { kb[i] += sec_kb[i, j]; inside[i]++ }
		mbs[i] = inside[i] ? kb[i] / inside[i] * 1024 / 1e6 : 0
		moved_s[ms[i]] += mbs[i]
		if (mr[i] != ms[i])
			moved_s[mr[i]] += mbs[i]
	}
	# Each machine's load over the window, from its meter's samples inside it.
	for (m = 1; m <= nm; m++) {
		b = mid[m]
		k = lines(out "/" prefix "meter-" b ".out", e)
		cnt = 0; load = 0; kern = 0; kcnt = 0
		for (j = 1; j <= k; j++) {
			split(e[j], w, " ")
			t = w[1] - moff[b]
			o = substr(e[j], index(e[j], "{"))
			if (o !~ /^\{/) continue
			d = json_get(o, "seconds")
			if (t - d >= w0 - 0.05 && t <= w1 + 0.05) {
				cnt++; load += json_get(o, "load_pct")
				# A period with no tick of /proc/stat has no kernel view (null): not a 0.
				if ((kv = json_get(o, "kernel_pct")) != "") { kcnt++; kern += kv }
			}
		}
		mload[b] = cnt ? load / cnt : ""
		mkern[b] = kcnt ? kern / kcnt : ""
		msamples[b] = cnt
		# us/KB: the load's CPU microseconds a second over the KB a second moved.
		mdem[b] = cnt && moved_s[b] > 0 ? (mload[b] / 100) * mcpus[b] * 1e6 / (moved_s[b] * 1e6 / 1024) : ""
	}
	printf "the window: every pair running for %.2f s of the %s asked, from the last sender's start; the senders started within %.1f ms of each other (each by its clock, less its offset)\n", win, secs, (last - first) * 1000
	# The name columns as wide as their longest (long addresses kept the rest in line).
	namew = 34
	hostw = 24
	for (i = 1; i <= n; i++) {
		name = snd[i] " -> " rcv[i] " (" addr[i] ":" port[i] ")"
		if (length(name) > namew) namew = length(name)
		if (length(snd[i]) > hostw) hostw = length(snd[i])
		if (length(rcv[i]) > hostw) hostw = length(rcv[i])
	}
	pname = "%-5s %-" namew "s"
	printf pname " %9s %8s %9s %8s %9s %8s %9s %11s %6s\n", "pair", "sender -> receiver (address:port)", "MB/s", "load S%", "us/KB S", "load R%", "us/KB R", "retrans", "rwnd-lim%", "sndbuf-lim%", "B/pkt"
	ncol = split(columns, col, " ")
	csv = out "/zc-fleet-runs.csv"
	for (i = 1; i <= n; i++) {
		name = snd[i] " -> " rcv[i] " (" addr[i] ":" port[i] ")"
		if (state[i] != "ran") {
			printf pname " %s: %s\n", id[i], name, state[i] == "lost" ? "lost" : "apart", why[i]
			lost = lost "\n  pair " id[i] " (" name "): " why[i]
			continue
		}
		s = summary[i]
		rt = json_get(s, "result.tcp_info.retrans_segments"); rw = json_get(s, "result.tcp_info.rwnd_limited_pct")
		sb = json_get(s, "result.tcp_info.sndbuf_limited_pct"); bp = json_get(s, "link.tx_bytes_per_packet")
		printf pname " %9.1f %8s %9s %8s %9s %8s %9s %11s %6s\n", id[i], name, mbs[i], f1(mload[ms[i]]), f3(mdem[ms[i]]),
			f1(mload[mr[i]]), f3(mdem[mr[i]]), dash(rt), dash(rw), dash(sb), dash(bp)
		total += mbs[i]
		split("", v)
		v["round"] = round; v["mode"] = json_get(s, "settings.mode"); v["bufsize"] = json_get(s, "settings.bufsize")
		if (v["bufsize"] == "" || v["bufsize"] == "null") v["bufsize"] = "-"
		v["placement"] = "none"; v["recv"] = "read"; v["mbytes_per_sec"] = sprintf("%.1f", mbs[i])
		v["load_pct"] = nz(mload[ms[i]], "%.2f"); v["demand_us_per_kb"] = nz(mdem[ms[i]], "%.4f"); v["kernel_pct"] = nz(mkern[ms[i]], "%.2f")
		v["recv_load_pct"] = nz(mload[mr[i]], "%.2f"); v["recv_demand_us_per_kb"] = nz(mdem[mr[i]], "%.4f")
		v["recv_kernel_pct"] = nz(mkern[mr[i]], "%.2f")
		v["retrans_segments"] = num(rt); v["rwnd_limited_pct"] = num(rw); v["sndbuf_limited_pct"] = num(sb)
		v["tx_bytes_per_packet"] = num(bp); v["run"] = run
		v["rate_bytes_per_sec"] = num(json_get(s, "settings.rate_bytes_per_sec"))
		v["rate_reached_pct"] = num(json_get(s, "result.rate_reached_pct"))
		line = ""
		for (k = 1; k <= ncol; k++)
			line = line (k > 1 ? "," : "") v[col[k]]
		printf "%s,%s,%s,%s\n", line, id[i], snd[i], rcv[i] >> csv
	}
	close(csv)
	# Each host: its machine, and what its pairs in the window sent and received.
	phost = "%-" hostw "s"
	printf phost " %-8s %10s %10s\n", "host", "machine", "sent MB/s", "recv MB/s"
	for (i = 1; i <= n; i++) {
		if (!(snd[i] in hsent)) { hosts[++nh] = snd[i]; hmach[snd[i]] = ms[i]; hsent[snd[i]] = 0; hrecv[snd[i]] = 0 }
		if (!(rcv[i] in hsent)) { hosts[++nh] = rcv[i]; hmach[rcv[i]] = mr[i]; hsent[rcv[i]] = 0; hrecv[rcv[i]] = 0 }
		if (state[i] == "ran") { hsent[snd[i]] += mbs[i]; hrecv[rcv[i]] += mbs[i] }
	}
	for (k = 1; k <= nh; k++)
		printf phost " %-8s %10.1f %10.1f\n", hosts[k], hmach[hosts[k]], hsent[hosts[k]], hrecv[hosts[k]]
	printf "%-8s %7s %5s %8s %8s %10s %9s  %s\n", "machine", "samples", "cpus", "load%", "kernel%", "MB/s moved", "us/KB", "hosts"
	for (m = 1; m <= nm; m++) {
		b = mid[m]
		hl = ""
		for (i = 1; i <= n; i++) {
			if (ms[i] == b && index(" " hl " ", " " snd[i] " ") == 0) hl = hl (hl == "" ? "" : " ") snd[i]
			if (mr[i] == b && index(" " hl " ", " " rcv[i] " ") == 0) hl = hl (hl == "" ? "" : " ") rcv[i]
		}
		printf "%-8s %7d %5s %8s %8s %10.1f %9s  %s\n", b, msamples[b], mcpus[b], f1(mload[b]), f1(mkern[b]), moved_s[b], f3(mdem[b]), hl
	}
	printf "aggregate: %d of %d pairs, %.1f MB/s in all over the window\n", ran, n, total
	if (lost != "")
		print "pairs not in the window:" lost
}
function f1(x) { return x == "" ? "-" : sprintf("%.1f", x) }
function f3(x) { return x == "" ? "-" : sprintf("%.3f", x) }
function dash(x) { return x == "" || x == "null" ? "-" : x }
function num(x) { return x == "null" ? "" : x }
function nz(x, fmt) { return x == "" ? "" : sprintf(fmt, x) }
