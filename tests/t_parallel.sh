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

# With -P, zcs's interval lines begin with the peer each counts, so that
# the streams' lines can be told apart; a connection served alone keeps
# 2001's line.
test_zcs_tags_the_interval_lines_of_streams_served_together() {
	local peers
	make_files "$T/f"
	start_zcs -t 1
	"$ROOT/zcc" -P 2 -t 2.5 -R 40m -p "$PORT" -s 127.0.0.1 "$T"/f/* >"$T/out" || fail "zcc -P 2 failed"
	wait_summaries 2
	grep -v -E '^(.* port [0-9]+: [0-9]+ kbytes/sec|received .*)$' "$T/zcs.out" && fail "a line untagged"
	peers=$(sed -n -E 's/^(.* port [0-9]+): [0-9]+ kbytes\/sec$/\1/p' "$T/zcs.out" | sort | uniq -c |
		awk '$1 >= 2 && $1 <= 3 { n++ } END { print n + 0 }')
	expect_eq "$peers" 2 "peers with 2 or 3 interval lines each"
	grep -q -E '^received ' "$T/zcs.out" || fail "no summary"
	"$ROOT/zcc" -t 1.5 -R 40m -p "$PORT" -s 127.0.0.1 "$T"/f/* >"$T/out" || fail "zcc alone failed"
	wait_summaries 3
	expect_eq "$(sed -n '/^received /,$p' "$T/zcs.out" | grep -c -E '^[0-9]+ kbytes/sec$')" 1 \
		"2001's interval line of the connection alone"
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
	# shellcheck disable=SC2086 # the streams' PIDs
	wait_until 5 all_dead $kids || fail "a stream outlived zcc"
}

test_P_with_c_puts_the_meter_on_the_total() {
	local out
	make_files "$T/f"
	calibrate_here
	start_zcs
	out=$(cd "$T" && "$ROOT/zcc" -c -T 200 -P 2 -n 20 -p "$PORT" -s 127.0.0.1 "$T"/f/*)
	expect_eq "$(echo "$out" | grep -c -E "^stream [12]: $STREAM_LINE\$")" 2 "stream lines: $out"
	expect_match "$(echo "$out" | grep -v -E -e "$BUSIEST_LINE" -e "$STEAL_LINE" -e "$LIMIT_LINE" | tail -n 1)" \
		"^all 2 streams: sent [0-9]+ bytes in [0-9.]+ s, [0-9]+ kbytes/sec, mode sendfile, load -?[0-9]+\\.[0-9]%, demand -?[0-9]+\\.[0-9]{3} us/KB, kernel (-?[0-9]+\\.[0-9]%|unknown)$CPU_TIMES$LO_LINK\$"
	# The meter is the total's: the busiest CPU comes once, after it.
	expect_match "$(echo "$out" | grep -v -E -e "$STEAL_LINE" -e "$LIMIT_LINE" | tail -n 1)" "$BUSIEST_LINE"
	expect_eq "$(echo "$out" | grep -c -E "$BUSIEST_LINE")" 1 "busiest lines: $out"
}

test_streams_that_fail_are_counted_and_exit_1() {
	local rc=0 zcc
	start_streams 3 --
	zcc=$ZCC_PID
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

# A stream killed by a signal cannot say so itself: zcc says which, by what
# and after how many bytes (it said only "1 of 3 streams failed").
test_a_stream_killed_by_a_signal_is_named() {
	local rc=0 zcc kid
	start_streams 3 -- -R 30m
	zcc=$ZCC_PID
	kid=$(pgrep -P "$zcc" | sed -n 2p)
	[ -n "$kid" ] || fail "no second stream"
	kill -9 "$kid"
	# The others fail as zcs goes, each saying so itself.
	kill -9 $(pgrep -P "$ZCS_PID")
	wait_until 10 eval '! kill -0 '"$zcc"' 2>/dev/null' || fail "zcc still running"
	wait "$zcc" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_match "$(grep 'killed by' "$T/err")" "^zcc: stream 2 of 3 was killed by SIGKILL after [0-9]+ bytes\$"
	expect_eq "$(grep -c 'killed by' "$T/err")" 1 "lines naming a signal: $(cat "$T/err")"
	expect_eq "$(tail -n 1 "$T/err")" "zcc: 3 of 3 streams failed: the total above counts the others"
}

test_P_and_B_lists_are_checked() {
	usage_error zcc "zcc: -P '0': must be at least 1" -P 0 -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -P '65': must be at most 64" -P 65 -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -B 0,...: a list of CPUs is for -P streams, one CPU each in turn" \
		-B 0,1 -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -B 'x': not a number" -P 2 -B 0,x -s 127.0.0.1 /etc/hostname
}

# stopped_by SIG: zcc -P 2 is sent SIG mid-transfer: it stops and reaps both
# streams, says how many bytes they had sent, and exits 1; zcs sees both
# connections end.
stopped_by() {
	local sig=$1 rc=0 zcc kids
	# A background job starts with SIGINT ignored; zcc leaves an ignored SIGINT be.
	start_streams 2 env --default-signal=INT,HUP --
	zcc=$ZCC_PID
	kids=$(pgrep -P "$zcc")
	expect_eq "$(echo "$kids" | wc -w)" 2 "streams"
	kill -"$sig" "$zcc"
	wait_until 5 eval '! kill -0 '"$zcc"' 2>/dev/null' || fail "zcc still running 5 s after SIG$sig"
	wait "$zcc" || rc=$?
	expect_eq "$rc" 1 "exit code"
	# shellcheck disable=SC2086 # the streams' PIDs
	all_dead $kids || fail "a stream outlived zcc: $(ps -o pid=,stat=,args= -p "${kids//$'\n'/,}")"
	expect_match "$(cat "$T/err")" "^zcc: stopped by SIG$sig after [1-9][0-9]* bytes\$"
	[ -s "$T/out" ] && fail "a summary after a stop: $(cat "$T/out")"
	wait_summaries 2
	expect_eq "$(zcs_summaries | grep -c 'incomplete')" 2 "incomplete streams at zcs"
}

test_P_streams_stop_with_zcc_on_SIGTERM() {
	stopped_by TERM
}

test_P_streams_stop_with_zcc_on_SIGINT() {
	stopped_by INT
}

test_P_streams_stop_with_zcc_on_SIGHUP() {
	stopped_by HUP
}

test_P_streams_die_with_zcc_killed_by_SIGKILL() {
	local zcc kids
	start_streams 3 --
	zcc=$ZCC_PID
	kids=$(pgrep -P "$zcc")
	kill -KILL "$zcc"
	# shellcheck disable=SC2086 # the streams' PIDs
	wait_until 2 all_dead $kids || fail "a stream outlived zcc"
	wait_summaries 3
	expect_eq "$(zcs_summaries | grep -c 'incomplete')" 3 "incomplete streams at zcs"
}

# fork() fails for the third of six streams: zcc says so and exits 1, and the
# two streams already connected never send a file.
test_a_fork_failure_stops_the_streams_already_forked() {
	local rc=0 nobody
	as_nobody_or_skip
	make_files "$T/f"
	start_zcs
	nobody=$(pgrep -c -u nobody || true)
	# shellcheck disable=SC2086 # the wrapper's words
	$AS_NOBODY bash -c \
		'ulimit -u "$1" && exec "$2" -P 6 -n 1000 -p "$3" -s 127.0.0.1 "$4"' _ \
		$((nobody + 3)) "$ROOT/zcc" "$PORT" "$T/f/350k" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" "zcc: fork: Resource temporarily unavailable"
	wait_until 5 eval '[ -z "$(pgrep -P '"$ZCS_PID"')" ]' || fail "zcs still serving a stream"
	zcs_summaries | grep -v 'incomplete: waiting for header' && fail "a stream sent data"
	return 0
}

# A receiver that never closes: each stream's time, and the total's, run to
# the last byte; the -W wait is not counted.
test_P_total_without_zcs_close_runs_to_the_last_byte() {
	local rc=0 total
	head -c 1000000 /dev/urandom >"$T/file"
	start_zcs
	kill -STOP "$ZCS_PID"
	"$ROOT/zcc" -P 3 -W 1 -p "$PORT" -s 127.0.0.1 "$T/file" >"$T/out" 2>"$T/err" || rc=$?
	kill -CONT "$ZCS_PID"
	expect_eq "$rc" 1 "exit code"
	expect_match "$(tail -n 1 "$T/err")" "^zcc: zcs did not close the connection within 1 s"
	expect_match "$(tail -n 1 "$T/out")" "^all 3 streams: sent 3000036 bytes in "
	total=$(tail -n 1 "$T/out" | awk '{ print $8 }')
	awk -v t="$total" 'BEGIN { exit !(t < 0.5) }' || fail "the total counts the close wait: $total s"
}

run_tests "$@"
