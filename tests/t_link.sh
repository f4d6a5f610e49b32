#!/bin/bash
# The link's counters: the interface each end's connection went through, its
# packets and its interrupts (or softirqs) over the transfer, in -J always and
# on the -c line; checked against /sys read independently around the run.
# make check-quick runs this file.
. "$(dirname "$0")/lib.sh"

# jq_py FILE EXPR: EXPR over `objs`, every line of FILE as a JSON object.
jq_py() {
	python3 -c 'import json, sys; objs = [json.loads(l) for l in open(sys.argv[1])]; print(eval(sys.argv[2]))' "$1" "$2"
}

need_python() {
	command -v python3 >/dev/null || skip "python3 is not installed (apt-get install python3)"
}

test_J_counts_lo_by_softirqs_on_loopback() {
	need_python
	make_files "$T/f"
	start_zcs -J
	# Long enough (about 600 MB) that the ends of a window, a millisecond or
	# two apart from the summary's, are far inside 5% of it.
	"$ROOT/zcc" -J -n 400 -s 127.0.0.1 -p "$PORT" "$T"/f/* >"$T/zcc.json" || fail "zcc failed"
	wait_summaries 1
	zcs_summaries >"$T/zcs.json"
	for f in zcc zcs; do
		expect_eq "$(jq_py "$T/$f.json" 'objs[0]["link"]["interface"], objs[0]["link"]["counted"]')" \
			"('lo', 'softirqs')" "$f's link"
		# Every packet on lo is sent and received on lo: the two counts
		# differ by what was in flight at the window's ends, sent and not
		# yet taken from the backlog (5 of some 18,750 once, under the
		# sanitizers; never more than a few dozen).
		expect_eq "$(jq_py "$T/$f.json" '[objs[0]["link"][k] > 0 for k in ("rx_packets", "tx_packets", "interrupts")] + [abs(objs[0]["link"]["rx_packets"] - objs[0]["link"]["tx_packets"]) <= 32]')" \
			"[True, True, True, True]" "$f's counts: $(cat "$T/$f.json")"
		# The rates are the counts over the summary's time, to within 5%.
		expect_eq "$(jq_py "$T/$f.json" 'abs(objs[0]["link"]["rx_pps"] * objs[0]["result"]["seconds"] / objs[0]["link"]["rx_packets"] - 1) < 0.05')" \
			True "$f's rate against its count: $(cat "$T/$f.json")"
	done
}

test_P_total_counts_the_link_once() {
	need_python
	make_files "$T/f"
	start_zcs
	"$ROOT/zcc" -J -P 2 -n 20 -s 127.0.0.1 -p "$PORT" "$T"/f/* >"$T/zcc.json" || fail "zcc failed"
	expect_eq "$(jq_py "$T/zcc.json" 'objs[0]["link"]["interface"], objs[0]["link"]["tx_packets"] > 0, ["link" in st for st in objs[0]["streams"]]')" \
		"('lo', True, [False, False])"
}

# link_against_sys NAME BEFORE AFTER: NAME's -J link counts (packets and
# bytes each way) lie within what /sys counted around the run (BEFORE and
# AFTER from packets), at least 95% of it less 8 packets' worth.
link_against_sys() {
	local name=$1
	set -- $2 $3
	expect_eq "$(jq_py "$T/$name.json" "[($5 - $1) * 0.95 - 8 <= objs[0]['link']['rx_packets'] <= $5 - $1, ($6 - $2) * 0.95 - 8 <= objs[0]['link']['tx_packets'] <= $6 - $2, ($7 - $3) * 0.95 - 8 * 65536 <= objs[0]['link']['rx_bytes'] <= $7 - $3, ($8 - $4) * 0.95 - 8 * 65536 <= objs[0]['link']['tx_bytes'] <= $8 - $4]")" \
		"[True, True, True, True]" "$name's counts against /sys ($2 -> $3): $(cat "$T/$name.json")"
}

# Between two hosts (two namespaces and a veth pair), each end counts its own
# interface, and its counts are those /sys shows around the run, less what
# passed outside its window: the packets that open and close the connection,
# and for zcs the data that arrived before accept() returned (a few of the
# veth's 64 KiB packets): at least 95% of them, less 8.
test_each_end_counts_its_own_interface_as_sys_does() {
	local before_a before_b after_a after_b
	need_python
	two_hosts
	head -c $((16 << 20)) /dev/urandom >"$T/f16m"
	ip netns exec "$NS_B" "$ROOT/zcs" -J -d >"$T/zcs.out" 2>"$T/zcs.err" &
	started $!
	wait_until 5 grep -q "listening on" "$T/zcs.err" || fail "zcs did not start: $(cat "$T/zcs.err")"
	before_a=$(packets "$NS_A" "$IF_A")
	before_b=$(packets "$NS_B" "$IF_B")
	ip netns exec "$NS_A" "$ROOT/zcc" -J -n 4 -s 10.251.0.2 "$T/f16m" >"$T/zcc.json" || fail "zcc failed"
	wait_summaries 1
	after_a=$(packets "$NS_A" "$IF_A")
	after_b=$(packets "$NS_B" "$IF_B")
	zcs_summaries >"$T/zcs.json"
	expect_eq "$(jq_py "$T/zcc.json" 'objs[0]["link"]["interface"], objs[0]["link"]["counted"]')" "('$IF_A', 'softirqs')"
	expect_eq "$(jq_py "$T/zcs.json" 'objs[0]["link"]["interface"]')" "$IF_B"
	link_against_sys zcc "$before_a" "$after_a"
	link_against_sys zcs "$before_b" "$after_b"
	# zcc's packets are the veth's super-packets: far more than 1500 bytes
	# each (up to 64 KiB), what the receiver sends back are ACKs.
	expect_eq "$(jq_py "$T/zcc.json" "[objs[0]['link']['tx_bytes_per_packet'] > 8000, abs(objs[0]['link']['tx_bytes_per_packet'] - objs[0]['link']['tx_bytes'] / objs[0]['link']['tx_packets']) <= 0.5]")" \
		"[True, True]" "zcc's bytes a packet: $(cat "$T/zcc.json")"
	expect_eq "$(jq_py "$T/zcs.json" "objs[0]['link']['tx_bytes_per_packet'] < 200")" True "zcs's ACKs' bytes a packet: $(cat "$T/zcs.json")"
	set -- $before_b $after_b
	# What one end sent, the other received.
	[ $(($6 - $2)) -gt 100 ] || fail "zcs sent $(($6 - $2)) packets (ACKs) for 64 MiB"
}

run_tests "$@"
