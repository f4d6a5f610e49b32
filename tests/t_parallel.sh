#!/bin/bash
# zcc -P: several streams at once, each a whole stream of the protocol, each
# counted at both ends, served by zcs at the same time, and a total.
. "$(dirname "$0")/lib.sh"

STREAM_LINE="sent [0-9]+ bytes in [0-9]+\\.[0-9]{3} s, [0-9]+ kbytes/sec, mode sendfile$CPU_TIMES"

test_P_sends_every_stream_whole_and_zcs_counts_each() {
	local want out
	make_files "$T/f"
	start_zcs
	want=$(stream_bytes 3 "$T"/f/*)
	out=$("$ROOT/zcc" -P 4 -n 3 -p "$PORT" -s 127.0.0.1 "$T"/f/*)
	expect_eq "$(echo "$out" | sed -E 's/ in .*//')" "stream 1: sent $want bytes
stream 2: sent $want bytes
stream 3: sent $want bytes
stream 4: sent $want bytes
all 4 streams: sent $((4 * want)) bytes" "zcc's lines"
	echo "$out" | grep -v -E "^(stream [1-4]|all 4 streams): $STREAM_LINE\$" && fail "malformed line"
	wait_summaries 4
	expect_eq "$(zcs_summaries | awk '{ print $2 }' | sort -u)" "$want" "every stream's count at zcs"
	expect_eq "$(grep -c 'connection from' "$T/zcs.err")" 4 "connections"
}

# Every stream connects before any sends, so zcs has a child per stream at once.
test_zcs_serves_the_streams_at_the_same_time() {
	local most=0 n zcc
	make_files "$T/f"
	start_zcs
	"$ROOT/zcc" -P 4 -n 3000 -p "$PORT" -s 127.0.0.1 "$T/f/350k" >"$T/out" 2>"$T/err" &
	zcc=$!
	started "$zcc"
	for _ in $(seq 1 200); do
		n=$(pgrep -P "$ZCS_PID" | wc -l)
		[ "$n" -gt "$most" ] && most=$n
		kill -0 "$zcc" 2>/dev/null || break
		sleep 0.02
	done
	wait "$zcc" || fail "zcc failed: $(cat "$T/err")"
	expect_eq "$most" 4 "zcs children at once"
	wait_summaries 4
	expect_eq "$(zcs_summaries | awk '{ print $2 }' | sort -u)" "$(stream_bytes 3000 "$T/f/350k")"
}

test_a_B_list_pins_each_stream_to_its_cpu() {
	local zcc kids cpus
	[ "$(allowed_cpus)" -ge 2 ] || skip "needs two CPUs"
	make_files "$T/f"
	start_zcs
	"$ROOT/zcc" -P 2 -B 0,1 -n 20000 -p "$PORT" -s 127.0.0.1 "$T/f/350k" >"$T/out" 2>"$T/err" &
	zcc=$!
	started "$zcc"
	wait_until 5 eval '[ "$(pgrep -P '"$zcc"' | wc -l)" = 2 ]' || fail "no two streams"
	sleep 0.1
	kids=$(pgrep -P "$zcc")
	cpus=$(for k in $kids; do taskset -pc "$k" | sed 's/.*: //'; done | sort | tr '\n' ' ')
	expect_eq "$cpus" "0 1 " "the streams' CPUs"
	expect_eq "$(taskset -pc "$zcc" | sed 's/.*: //')" "$(taskset -pc $$ | sed 's/.*: //')" "zcc itself, unpinned"
	kill "$zcc"
}

test_P_with_c_puts_the_meter_on_the_total() {
	local out
	make_files "$T/f"
	calibrate_here
	start_zcs
	out=$(cd "$T" && "$ROOT/zcc" -c -T 200 -P 2 -n 20 -p "$PORT" -s 127.0.0.1 "$T"/f/*)
	expect_eq "$(echo "$out" | grep -c -E "^stream [12]: $STREAM_LINE\$")" 2 "stream lines: $out"
	expect_match "$(echo "$out" | tail -n 1)" \
		"^all 2 streams: sent [0-9]+ bytes in [0-9.]+ s, [0-9]+ kbytes/sec, mode sendfile, cpu -?[0-9]+\\.[0-9]%, -?[0-9]+\\.[0-9]{3} us/KB, kernel (-?[0-9]+\\.[0-9]%|unknown)$CPU_TIMES\$"
}

test_streams_that_fail_are_counted_and_exit_1() {
	local rc=0 zcc
	make_files "$T/f"
	start_zcs
	"$ROOT/zcc" -P 3 -n 1000000 -p "$PORT" -s 127.0.0.1 "$T/f/350k" >"$T/out" 2>"$T/err" &
	zcc=$!
	started "$zcc"
	wait_until 5 eval '[ "$(pgrep -P '"$ZCS_PID"' | wc -l)" = 3 ]' || fail "no three connections"
	sleep 0.2
	kill -9 $(pgrep -P "$ZCS_PID")
	wait_until 10 eval '! kill -0 '"$zcc"' 2>/dev/null' || fail "zcc still running"
	wait "$zcc" || rc=$?
	expect_eq "$rc" 1 "exit code"
	# One whole line from each stream, naming it: none interleaved with another's.
	expect_eq "$(grep -E '^zcc: stream [1-3]: connection (reset after [0-9]+ bytes: Connection reset by peer|closed after [0-9]+ bytes: Broken pipe)$' "$T/err" |
		cut -d' ' -f3 | sort | tr '\n' ' ')" "1: 2: 3: " "each stream's error: $(cat "$T/err")"
	expect_eq "$(wc -l <"$T/err")" 4 "lines on stderr: $(cat "$T/err")"
	expect_eq "$(tail -n 1 "$T/err")" "zcc: 3 of 3 streams failed: the total above counts the others"
	expect_match "$(tail -n 1 "$T/out")" "^all 3 streams: sent 0 bytes in "
}

test_P_and_B_lists_are_checked() {
	usage_error zcc "zcc: -P '0': must be at least 1" -P 0 -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -P '65': must be at most 64" -P 65 -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -B 0,...: a list of CPUs is for -P streams, one CPU each in turn" \
		-B 0,1 -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -B 'x': not a number" -P 2 -B 0,x -s 127.0.0.1 /etc/hostname
}

run_tests "$@"
