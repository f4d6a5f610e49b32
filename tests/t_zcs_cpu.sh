#!/bin/bash
# zcs -c, -C, -N and -T: the receiving host's load, connection by
# connection, with the same meter and calibration file as zcc -c.
. "$(dirname "$0")/lib.sh"

# The fields of a metered zcs summary, in order.
METERED=', load -?[0-9]+\.[0-9]%, demand -?[0-9]+\.[0-9]{3} us/KB, kernel -?[0-9]+\.[0-9]%'

# send_big LOOPS [ZCC ARGS]: one unmetered zcc run of $T/big to zcs.
send_big() {
	local loops=$1
	shift
	"$ROOT/zcc" -n "$loops" "$@" -s 127.0.0.1 -p "$PORT" "$T/big" >>"$T/zcc.out" 2>>"$T/zcc.err" ||
		fail "zcc failed: $(cat "$T/zcc.err")"
}

test_c_puts_load_demand_and_kernel_view_before_own_cpu() {
	local line load kernel secs bytes
	runs_alone
	make_big_file "$T/big" 64
	calibrate_here
	start_zcs -c
	send_big 20
	wait_summaries 1
	line=$(zcs_summaries)
	bytes=$(stream_bytes 20 "$T/big")
	expect_match "$line" "^received $bytes bytes in [0-9]+\\.[0-9]{3} s, [0-9]+ kbytes/sec$METERED$CPU_TIMES$LO_LINK\$"
	load=$(field "$line" load)
	kernel=$(field "$line" kernel)
	secs=$(echo "$line" | awk '{ print $5 }')
	# Both ends are on this host: the soakers and /proc/stat see the same
	# transfer over the same window.
	awk -v l="$load" -v k="$kernel" 'BEGIN { exit !(l > 5 && l <= 100 && (l - k)^2 < 100) }' ||
		fail "cyclesoak $load%, kernel $kernel%"
	# The demand is the load's CPU time per KiB received: load x CPUs x the
	# window (accept to close, within a few ms of the summary's time).
	awk -v l="$load" -v d="$(echo "$line" | sed 's/.*, demand \([0-9.]*\) us\/KB.*/\1/')" -v s="$secs" \
		-v b="$bytes" -v n="$(allowed_cpus)" \
		'BEGIN { want = l / 100 * n * s * 1e6 / (b / 1024); exit !(d > want * 0.95 - 0.002 && d < want * 1.05 + 0.002) }' ||
		fail "the demand against $load% of $(allowed_cpus) CPUs for $secs s: $line"
	grep -q '^zcs: note: the load measured' "$T/zcs.err" && fail "a note: $(cat "$T/zcs.err")"
	return 0
}

# A connection's tare is the -T ms before it came; one that another
# connection was open in (or ended in) says so, and one alone does not.
test_c_says_when_another_connection_shared_the_window() {
	local n
	make_big_file "$T/big" 64
	calibrate_here
	start_zcs -c -T 300
	send_big 2
	wait_summaries 1
	send_big 4 &
	n=$!
	send_big 4
	wait "$n" || fail "the second zcc failed"
	wait_summaries 3
	sleep 0.6
	send_big 2
	wait_summaries 4
	zcs_summaries | sed -n 1p | grep -q shared && fail "the first connection: $(zcs_summaries)"
	zcs_summaries | sed -n 2,3p | grep -v -E "^received [0-9]+ bytes in [0-9.]+ s, [0-9]+ kbytes/sec$METERED, shared with another connection$CPU_TIMES$LO_LINK\$" &&
		fail "the two at once are not both marked: $(zcs_summaries)"
	zcs_summaries | sed -n 4p | grep -q -E "^received [0-9]+ bytes in [0-9.]+ s, [0-9]+ kbytes/sec$METERED$CPU_TIMES$LO_LINK\$" ||
		fail "the last one, alone 0.6 s after the others: $(zcs_summaries)"
}

test_C_N_and_T_are_checked() {
	usage_error zcs "zcs: -T needs -c or -C (it sets how long the meter takes its idle reference)" -T 500
	usage_error zcs "zcs: -T '9': must be at least 10" -C -T 9
	usage_error zcs "zcs: -T '3600001': must be at most 3600000" -C -T 3600001
	usage_error zcs "zcs: -N needs -c or -C (it sets how many CPUs the meter soaks)" -N 1
	usage_error zcs "zcs: -p is for receiving: -C calibrates the meter and listens for nothing" -C -p 5000
	usage_error zcs "zcs: -T '0': must be at least 1" -c -T 0
	usage_error zcs "zcs: -T '60001': must be at most 60000" -c -T 60001
	[ "$(allowed_cpus)" -ge 2 ] || return 0
	usage_error zcs "zcs: -N $(($(allowed_cpus) + 1)): only $(allowed_cpus) CPUs are available to this process" \
		-c -N $(($(allowed_cpus) + 1))
}

# zcs -C is zcc -C's calibration (lib/meter's), which t_zcc_cpu.sh follows to
# the file it writes: here, that zcs -C calibrates, a second a line, as the
# host's one meter.
test_C_calibrates_as_the_hosts_meter() {
	local pid rc=0
	export ZC_METER_WAIT=0
	(cd "$T" && exec "$ROOT/zcs" -C -N 1 >"$T/out" 2>"$T/err") &
	pid=$!
	started "$pid"
	wait_until 5 eval '[ "$(grep -c -E "^calibrating: [0-9]+ loops/sec\$" "$T/out")" -ge 2 ]' ||
		fail "zcs -C did not calibrate: $(cat "$T/out" "$T/err")"
	(cd "$T" && "$ROOT/cyclesoak" -C -m 100 >/dev/null 2>"$T/err2") || rc=$?
	expect_eq "$rc" 1 "cyclesoak beside zcs -C"
	expect_match "$(cat "$T/err2")" "^cyclesoak: another meter is running on this host: pid $pid \\(zcs, user $(id -un)\\) holds "
	[ ! -s "$T/err" ] || fail "zcs -C said: $(cat "$T/err")"
}

test_c_needs_a_calibration() {
	local rc=0
	(cd "$T" && "$ROOT/zcs" -c -p "$(free_port)" >"$T/out" 2>"$T/err") || rc=$?
	expect_eq "$rc" 1
	expect_eq "$(cat "$T/err")" "zcs: ./counts_per_sec: No such file or directory: run 'cyclesoak -C' on an idle system"
}

# zcs -c holds the host's meter for as long as it runs: zcc -c, cyclesoak and
# another zcs -c refuse, naming it.
test_c_is_the_one_meter_on_the_host() {
	local why rc
	export ZC_METER_WAIT=0
	make_files "$T/f"
	calibrate_here
	start_zcs -c
	why="another meter is running on this host: pid $ZCS_PID (zcs, user $(id -un)) holds /tmp/zc-meter.lock $(held_cpus); two meters count each other's soakers, and both would be wrong"
	rc=0
	(cd "$T" && "$ROOT/zcc" -c -s 127.0.0.1 -p "$PORT" "$T/f/one" >"$T/out" 2>"$T/err") || rc=$?
	expect_eq "$rc" 1 "zcc -c's exit"
	expect_eq "$(cat "$T/err")" "zcc: $why"
	rc=0
	(cd "$T" && "$ROOT/zcs" -c -p "$(free_port)" >"$T/out" 2>"$T/err") || rc=$?
	expect_eq "$rc" 1 "a second zcs -c's exit"
	expect_eq "$(cat "$T/err")" "zcs: $why"
	rc=0
	(cd "$T" && "$ROOT/cyclesoak" -1 -m 100 >"$T/out" 2>"$T/err") || rc=$?
	expect_eq "$rc" 1 "cyclesoak's exit"
	expect_eq "$(cat "$T/err")" "cyclesoak: $why"
	# The unmetered zcc still sends.
	"$ROOT/zcc" -s 127.0.0.1 -p "$PORT" "$T/f/one" >/dev/null || fail "zcc without -c failed"
	wait_summaries 1
}

test_c_leaves_no_soaker_when_zcs_is_stopped_or_killed() {
	local sig kids
	calibrate_here
	for sig in TERM KILL; do
		start_zcs -c -T 100
		kids=$(children_of "$ZCS_PID")
		expect_eq "$(echo "$kids" | wc -w)" "$(allowed_cpus)" "soakers"
		kill -"$sig" "$ZCS_PID"
		wait_until 5 all_dead $kids || fail "soakers outlived zcs (SIG$sig): $kids"
		wait "$ZCS_PID" 2>/dev/null || true
	done
}

run_tests "$@"
