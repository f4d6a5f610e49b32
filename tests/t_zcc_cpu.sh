#!/bin/bash
# zcc -c, -C and -N: the load and service demand in the summary, the shared
# calibration file, and no soaker left behind.
. "$(dirname "$0")/lib.sh"

test_c_appends_cpu_load_and_service_demand() {
	local line load demand
	make_files "$T/f"
	calibrate_here
	start_zcs
	line=$(cd "$T" && "$ROOT/zcc" -c -n 50 -s 127.0.0.1 -p "$PORT" "$T"/f/*)
	expect_match "$line" '^sent [0-9]+ bytes in [0-9]+\.[0-9]{3} s, [0-9]+ kbytes/sec, mode sendfile, cpu -?[0-9]+\.[0-9]%, [0-9]+\.[0-9]{3} us/KB$'
	expect_eq "$(echo "$line" | awk '{ print $2 }')" "$(stream_bytes 50 "$T"/f/*)" "bytes"
	load=$(echo "$line" | sed 's/.*, cpu \(.*\)%, .*/\1/')
	demand=$(echo "$line" | sed 's/.* \([0-9.]*\) us\/KB$/\1/')
	awk -v l="$load" -v d="$demand" 'BEGIN { exit !(l >= -5 && l <= 100 && d > 0) }' ||
		fail "load $load%, demand $demand us/KB"
}

test_c_leaves_no_soaker_after_success_or_failure() {
	local zcc kids rc=0
	make_files "$T/f"
	calibrate_here
	start_zcs
	(cd "$T" && exec "$ROOT/zcc" -c -n 1000000 -s 127.0.0.1 -p "$PORT" "$T/f/350k" >/dev/null 2>"$T/err") &
	zcc=$!
	started "$zcc"
	wait_until 5 eval '[ -n "$(pgrep -P '"$ZCS_PID"')" ]' || fail "no connection"
	kids=$(children_of "$zcc")
	[ -n "$kids" ] || fail "zcc -c started no soakers"
	kill -9 $(pgrep -P "$ZCS_PID")
	wait "$zcc" || rc=$?
	expect_eq "$rc" 1 "zcc exit after zcs died"
	all_dead $kids || fail "soakers outlived zcc: $kids"
	(cd "$T" && exec "$ROOT/zcc" -c -n 1000000 -s 127.0.0.1 -p "$PORT" "$T/f/350k" >/dev/null 2>&1) &
	zcc=$!
	started "$zcc"
	wait_until 5 eval '[ -n "$(children_of '"$zcc"')" ]' || fail "no soakers"
	kids=$(children_of "$zcc")
	kill -9 "$zcc"
	wait_until 5 all_dead $kids || fail "soakers outlived a killed zcc: $kids"
}

test_c_needs_a_calibration_for_the_same_cpus() {
	local rc=0
	make_files "$T/f"
	(cd "$T" && "$ROOT/zcc" -c -s 127.0.0.1 -p "$(free_port)" "$T/f/one" 2>"$T/err") || rc=$?
	expect_eq "$rc" 1
	expect_eq "$(cat "$T/err")" "zcc: ./counts_per_sec: No such file or directory: run 'cyclesoak -C' on an idle system"
	printf '5000000\ncpus 3\n' >"$T/counts_per_sec"
	rc=0
	(cd "$T" && "$ROOT/zcc" -c -N 1 -s 127.0.0.1 -p "$(free_port)" "$T/f/one" 2>"$T/err") || rc=$?
	expect_eq "$rc" 1
	expect_eq "$(cat "$T/err")" "zcc: ./counts_per_sec was calibrated on 3 CPUs and this run uses 1: calibrate with 'cyclesoak -C -N 1' or measure with -N 3"
}

test_C_calibrates_the_file_cyclesoak_reads() {
	local median
	(cd "$T" && "$ROOT/zcc" -C -N 1 >"$T/out") || fail "zcc -C failed"
	expect_eq "$(grep -c -E '^calibrating: [0-9]+ loops/sec$' "$T/out")" 7 "calibrating lines"
	median=$(grep '^calibrating:' "$T/out" | tail -n 5 | awk '{ print $2 }' | sort -n | sed -n 3p)
	expect_eq "$(tail -n 1 "$T/out")" "calibrated OK.  $median loops/sec"
	expect_eq "$(cat "$T/counts_per_sec")" "$median
cpus 1"
	(cd "$T" && "$ROOT/cyclesoak" -N 1 -1 -m 100 >"$T/load") || fail "cyclesoak refused zcc's file"
	expect_match "$(cat "$T/load")" '^-?[0-9]+\.[0-9]$'
}

test_N_beyond_the_cpus_is_a_usage_error() {
	local rc=0
	"$ROOT/zcc" -c -N 1000 -s 127.0.0.1 /etc/hostname 2>"$T/err" || rc=$?
	expect_eq "$rc" 2
	expect_match "$(head -n 1 "$T/err")" '^zcc: -N 1000: only [0-9]+ CPUs? (is|are) available to this process$'
}

test_c_soaks_every_cpu_even_when_zcc_is_pinned() {
	local zcc n
	make_files "$T/f"
	calibrate_here
	start_zcs
	n=$(allowed_cpus)
	(cd "$T" && exec "$ROOT/zcc" -c -B 0 -n 1000000 -s 127.0.0.1 -p "$PORT" "$T/f/350k" >/dev/null 2>"$T/err") &
	zcc=$!
	started "$zcc"
	wait_until 5 eval '[ "$(children_of '"$zcc"' | wc -l)" -ge '"$n"' ]' ||
		fail "zcc -c -B 0 started $(children_of "$zcc" | wc -l) soakers for $n CPUs: $(cat "$T/err")"
	expect_eq "$(taskset -pc "$zcc" | awk '{ print $NF }')" 0 "zcc's own CPU"
}

run_tests "$@"
