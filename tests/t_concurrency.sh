#!/bin/bash
# zcs serves each connection in its own child and reaps them all.
# make check-quick runs this file.
. "$(dirname "$0")/lib.sh"

test_ten_clients_at_once_each_counted_and_reaped() {
	local i want pids=()
	make_files "$T/f"
	start_zcs
	want=$(stream_bytes 20 "$T"/f/*)
	for i in $(seq 1 10); do
		"$ROOT/zcc" -n 20 -s 127.0.0.1 -p "$PORT" "$T"/f/* >"$T/zcc.$i" &
		pids+=($!)
		started $!
	done
	for i in "${pids[@]}"; do
		wait "$i" || fail "a zcc failed"
	done
	for i in $(seq 1 10); do
		expect_eq "$(awk '{ print $2 }' "$T/zcc.$i")" "$want" "bytes zcc $i sent"
	done
	wait_summaries 10
	[ "$(zcs_summaries | grep -c "^received $want bytes in ")" = 10 ] ||
		fail "zcs totals: $(zcs_summaries)"
	wait_until 5 eval '[ -z "$(ps -o pid= --ppid '"$ZCS_PID"')" ]' ||
		fail "children left: $(ps -o pid=,stat= --ppid "$ZCS_PID")"
}

test_hundred_clients_in_turn_leave_no_zombie() {
	local i want
	make_files "$T/f"
	start_zcs
	want=$(stream_bytes 1 "$T/f/page+1" "$T/f/one")
	for i in $(seq 1 100); do
		"$ROOT/zcc" -s 127.0.0.1 -p "$PORT" "$T/f/page+1" "$T/f/one" >"$T/zcc.out" ||
			fail "zcc run $i failed"
		expect_eq "$(awk '{ print $2 }' "$T/zcc.out")" "$want" "bytes sent by run $i"
	done
	wait_summaries 100
	[ "$(zcs_summaries | grep -c "^received $want bytes in ")" = 100 ] || fail "some totals wrong"
	wait_until 5 eval '[ -z "$(zombies_of '"$ZCS_PID"')" ]' || fail "zombies: $(zombies_of "$ZCS_PID")"
	[ -z "$(ps -o pid= --ppid "$ZCS_PID")" ] || fail "children left: $(ps -o pid=,stat= --ppid "$ZCS_PID")"
}

run_tests "$@"
