#!/bin/bash
# TCP_INFO at both ends: zcc's and zcs's -J always, -I's line after the
# summary, and the receive window seen to limit a sender whose receiver is
# slow.
. "$(dirname "$0")/lib.sh"

TCP_LINE='tcp_info: retrans [0-9]+ segments [0-9]+ bytes, rtt [0-9]+ us \(var [0-9]+\), cwnd [0-9]+ x [0-9]+ bytes, delivery [0-9]+\.[0-9] MB/s, busy ([0-9]+\.[0-9]{3} s: rwnd-limited [0-9]+\.[0-9]%, sndbuf-limited [0-9]+\.[0-9]%|0 s \(counted in jiffies\): no shares)'

# -I: a line of its own after each end's summary, the 2001 lines as they were.
test_I_gives_tcp_info_after_each_ends_summary() {
	make_files "$T/f"
	start_zcs -I
	"$ROOT/zcc" -I -n 3 -p "$PORT" -s 127.0.0.1 "$T"/f/* >"$T/out" || fail "zcc -I failed"
	expect_match "$(sed -n 1p "$T/out")" "^sent [0-9]+ bytes in [0-9.]+ s, [0-9]+ kbytes/sec, mode sendfile$CPU_TIMES\$"
	expect_match "$(sed -n 2p "$T/out")" "^$TCP_LINE\$" "zcc's tcp_info line"
	expect_eq "$(wc -l <"$T/out")" 2 "zcc's lines"
	wait_summaries 1
	expect_match "$(grep -A1 '^received ' "$T/zcs.out" | sed -n 2p)" "^$TCP_LINE\$" "zcs's tcp_info line"
	"$ROOT/zcc" -P 2 -I -n 3 -p "$PORT" -s 127.0.0.1 "$T"/f/* >"$T/out" || fail "zcc -P 2 -I failed"
	expect_eq "$(grep -c -E "^stream [12]: $TCP_LINE\$" "$T/out")" 2 "each stream's line"
	usage_error zcc "zcc: -I is for TCP: -u sends datagrams" -u -I -s 127.0.0.1 "$T/f/one"
	usage_error zcs "zcs: -I is for TCP (TCP_INFO): -u has no connection to ask" -u -I
}

# -J has it always, at both ends: every field a number, or null where the
# kernel does not give it (none is given as 0 in its place).
test_J_has_tcp_info_at_both_ends() {
	local j key
	make_files "$T/f"
	start_zcs -J
	j=$("$ROOT/zcc" -J -n 3 -p "$PORT" -s 127.0.0.1 "$T"/f/*) || fail "zcc -J failed"
	wait_summaries 1
	for key in retrans_segments retrans_bytes srtt_us rttvar_us snd_cwnd snd_mss \
		delivery_rate_bytes_per_sec busy_us rwnd_limited_us sndbuf_limited_us; do
		grep -q -E "\"tcp_info\":\{.*\"$key\":[0-9]+" <<<"$j" || fail "zcc -J: no $key: $j"
		grep -q -E "\"tcp_info\":\{.*\"$key\":[0-9]+" "$T/zcs.out" || fail "zcs -J: no $key: $(cat "$T/zcs.out")"
	done
	j=$("$ROOT/zcc" -u -J -p 9 -s 127.0.0.1 "$T/f/one" 2>/dev/null) || true
	grep -q tcp_info <<<"$j" && fail "a datagram run has tcp_info: $j"
	true
}

# A receiver that reads 4 KiB a millisecond: the sender's busy time is mostly
# limited by the receive window (about 60% here; more than 40% asked).
test_a_slow_receiver_limits_the_sender_by_its_window() {
	local pct
	head -c 300000 /dev/urandom >"$T/file"
	start_capture -r 4096 -s 1000 /dev/null
	"$ROOT/zcc" -I -t 1 -W 10 -p "$CAPTURE_PORT" -s 127.0.0.1 "$T/file" >"$T/out" || fail "zcc: $(cat "$T/out")"
	pct=$(sed -n 's/.*rwnd-limited \([0-9.]*\)%.*/\1/p' "$T/out")
	awk -v p="$pct" 'BEGIN { exit !(p > 40) }' || fail "rwnd-limited ${pct:-?}%: $(cat "$T/out")"
}

run_tests "$@"
