#!/bin/bash
# Defects an audit and a fuzz found, each held to what the manual promises:
# no hang on a FIFO, calibration files read in full, interval lines that count
# what was read, one deadline for zcs's close, exit codes that survive a
# closed stderr, a reset named as a reset, buffer sizes the kernel can grant,
# a server that outlives running out of descriptors, a calibration written
# without following links, and no empty host.
. "$(dirname "$0")/lib.sh"

# Under strace, LeakSanitizer (SANITIZE=1) cannot run: it needs ptrace itself.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

test_zcc_skips_a_fifo_or_a_device_without_opening_it() {
	local rc=0
	make_files "$T/f"
	mkfifo "$T/fifo"
	start_zcs
	timeout 10 "$ROOT/zcc" -s 127.0.0.1 -p "$PORT" "$T/fifo" /dev/null "$T/f/350k" >"$T/out" 2>"$T/err" ||
		rc=$?
	expect_eq "$rc" 0 "exit code (124: zcc hung)"
	expect_eq "$(cat "$T/err")" "zcc: skipping $T/fifo: not a regular file
zcc: skipping /dev/null: not a regular file"
	expect_eq "$(awk '{ print $2 }' "$T/out")" "$(stream_bytes 1 "$T/f/350k")" "bytes sent"
	command -v strace >/dev/null || skip "strace is not installed (the FIFO part passed)"
	strace -f -e trace=open,openat -o "$T/trace" "$ROOT/zcc" -s 127.0.0.1 -p "$PORT" \
		/dev/null "$T/f/one" >/dev/null 2>&1 || fail "zcc under strace failed"
	! grep -q '"/dev/null"' "$T/trace" || fail "zcc opened the device: $(grep /dev/null "$T/trace")"
}

# counts_refused CONTENT MESSAGE: cyclesoak -N 1 refuses that counts_per_sec.
counts_refused() {
	local rc=0
	printf '%b' "$1" >"$T/counts_per_sec"
	(cd "$T" && "$ROOT/cyclesoak" -N 1 -1 -m 100 >"$T/out" 2>"$T/err") || rc=$?
	expect_eq "$rc" 1 "exit code for '$1'"
	expect_eq "$(cat "$T/err")" "cyclesoak: ./counts_per_sec: $2: run 'cyclesoak -C' on an idle system"
}

test_a_corrupt_counts_file_is_refused_line_by_line() {
	local first="the first line is not a count of loops/sec" second="the second line is not 'cpus N'"
	counts_refused ' -5\ncpus 1\n' "$first"
	counts_refused '-5\ncpus 1\n' "$first"
	counts_refused '+5\ncpus 1\n' "$first"
	counts_refused ' 5\ncpus 1\n' "$first"
	counts_refused '5 \ncpus 1\n' "$first"
	counts_refused '18446744073709551616\ncpus 1\n' "$first"
	counts_refused "$(printf '%0100d' 5)\ncpus 1\n" "$first"
	counts_refused '5000000\ncpus 1abc\n' "$second"
	counts_refused '5000000\ncpus  1\n' "$second"
	counts_refused '5000000\ncpus -1\n' "$second"
	counts_refused '5000000\ncpus 99999999999999999999\n' "$second"
	counts_refused '5000000\ncpus 1\nspread 1.00%\nmore\n' "the fourth line is not 'per_cpu CPU:RATE ...', a rate for each of its CPUs"
	counts_refused '5000000\ncpus 1\nspread 1.00%\nper_cpu 0:5000000\nmore\n' "it has more than four lines"
}

# A sender trickling 100 KiB in the first second, below zcs's 256 KiB
# SO_RCVLOWAT: the first interval line counts them, it does not lag a period.
test_zcs_first_interval_line_counts_what_arrived_in_it() {
	start_zcs -t 1
	exec 5<>"/dev/tcp/127.0.0.1/$PORT"
	{ u32be 1; u32be 1; u32be 204800; head -c 102400 /dev/zero; } >&5
	wait_until 5 grep -q 'kbytes/sec' "$T/zcs.out" || fail "no interval line"
	head -c 102400 /dev/zero >&5
	exec 5>&-
	wait_summaries 1
	expect_match "$(head -n 1 "$T/zcs.out")" '^(9[5-9]|100) kbytes/sec$' "first interval line"
}

# A receiver that reads everything but never closes, and one that trickles a
# byte back every half second: zcc waits -W seconds in all, prints its summary
# (every byte was sent) and says the receiver did not confirm.
check_unconfirmed_end() {
	local rc=0 start
	make_files "$T/f"
	start_capture -H "$1" "$T/captured"
	start=$SECONDS
	"$ROOT/zcc" -W 2 -s 127.0.0.1 -p "$(cat "$T/port")" "$T/f/350k" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code"
	[ $((SECONDS - start)) -le 5 ] || fail "zcc waited $((SECONDS - start)) s"
	expect_match "$(cat "$T/out")" "^sent $(stream_bytes 1 "$T/f/350k") bytes in [0-9.]+ s, [0-9]+ kbytes/sec, mode sendfile$CPU_TIMES\$"
	expect_eq "$(cat "$T/err")" "zcc: zcs did not close the connection within 2 s of the last byte: the time above runs to the last byte sent, unconfirmed"
}

test_zcc_gives_up_on_a_receiver_that_never_closes() {
	check_unconfirmed_end 0
}

test_zcc_gives_up_on_a_receiver_that_trickles_and_never_closes() {
	check_unconfirmed_end 500
}

# after_the_stream [COMMAND...]: a peer of this suite (the opening exchange)
# sends a whole stream of no files, then what COMMAND writes and 100 MiB of
# zeros; zcs, its data held to 64 MiB (ulimit -d), gives the summary.
# Before, zcs kept up to 128 MiB of whatever followed, and died.
after_the_stream() {
	local answer
	exec 3<>"/dev/tcp/127.0.0.1/$PORT"
	printf 'zcEX' >&3
	read -r -t 5 -N 4 answer <&3 || fail "no answer to the exchange: '$answer'"
	{ u32be 1; u32be 0; "$@"; head -c $((100 << 20)) /dev/zero; } >&3
	exec 3>&-
}

# A slot table's head: 100 ms slots, two arms, and 4 million slots.
table_head_of_4_million_slots() {
	printf zcTS
	u32be 100
	u32be 2
	u32be 4
	printf send
	u32be 5
	printf write
	u32be 4194304
}

# What follows the stream is kept only while it may be a slot table, and
# no more than the table's slot count, itself no more than the stream had
# time for: bytes that do not begin as a table are counted, not kept; a
# head that claims 4 million slots after a stream of an instant, too.
test_zcs_keeps_no_more_after_the_stream_than_a_table_can_hold() {
	local extra=$((100 << 20))
	! grep -q __asan_init "$ROOT/zcs" || skip "AddressSanitizer's shadow memory does not fit a data limit"
	ulimit -d 65536
	start_zcs
	after_the_stream true
	wait_summaries 1
	after_the_stream table_head_of_4_million_slots
	wait_summaries 2
	expect_match "$(zcs_summaries | sed -n 1p)" "^received $((extra + 8)) bytes in [0-9.]+ s, [0-9]+ kbytes/sec, $extra bytes after the end of the stream$CPU_TIMES\$"
	expect_match "$(zcs_summaries | sed -n 2p)" "^received $((extra + 8 + 33)) bytes in [0-9.]+ s, [0-9]+ kbytes/sec, $((extra + 33)) bytes after the end of the stream$CPU_TIMES\$"
	expect_match "$(grep 'after the stream' "$T/zcs.err" | sed -n 1p)" "^zcs: .+ port [0-9]+: what came after the stream is not a slot table \(it does not begin with zcTS\): counted as bytes after the end\$"
	expect_match "$(grep 'after the stream' "$T/zcs.err" | sed -n 2p)" "^zcs: .+ port [0-9]+: what came after the stream is not a slot table \(4194304 slots, more than the [0-9]+ the stream had time for\): counted as bytes after the end\$"
}

test_W_is_checked() {
	usage_error zcc "zcc: -W '0': must be at least 1" -W 0 -s localhost /etc/hostname
	usage_error zcc "zcc: -W '3601': must be at most 3600" -W 3601 -s localhost /etc/hostname
}

test_run_rr_exits_127_for_a_missing_command_with_stderr_closed() {
	local rc=0
	[ "$(id -u)" = 0 ] || skip "needs root (SCHED_RR)"
	"$ROOT/run_rr" /nonexistent/command 2>&- || rc=$?
	expect_eq "$rc" 127 "exit code"
}

# The receiver reads every byte and resets the connection while zcc, held in
# shutdown() by strace for 0.3 s, has not yet said it is done.
test_a_reset_before_shutdown_is_reported_as_a_reset() {
	local want rc=0
	command -v strace >/dev/null || skip "strace is not installed"
	make_files "$T/f"
	want=$(stream_bytes 1 "$T/f/one")
	start_capture -z -c "$want" "$T/captured"
	strace -o /dev/null -e inject=shutdown:delay_enter=300000 \
		"$ROOT/zcc" -s 127.0.0.1 -p "$(cat "$T/port")" "$T/f/one" >"$T/out" 2>"$T/err" || rc=$?
	grep -q 'inject' "$T/err" && skip "this strace cannot delay a system call"
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" "zcc: connection reset after $want bytes: Connection reset by peer"
}

# Linux caps SO_RCVBUF and SO_SNDBUF at INT_MAX / 2 before doubling them, so
# a larger size could never be granted: it is a usage error.
test_buffer_sizes_stop_where_the_kernel_does() {
	usage_error zcc "zcc: -i '1024m': must be at most 1073741823" -i 1024m -s localhost /etc/hostname
	usage_error zcc "zcc: -o '1024m': must be at most 1073741823" -o 1024m -s localhost /etc/hostname
	usage_error zcs "zcs: -i '1024m': must be at most 1073741823" -i 1024m
	usage_error zcs "zcs: -o '1073741824': must be at most 1073741823" -o 1073741824
}

# zcs out of file descriptors (a soft RLIMIT_NOFILE of 4: its listening socket is the
# last) warns and goes on; given more, it serves the connection that waited.
test_zcs_outlives_running_out_of_descriptors() {
	local zcc rc=0
	command -v prlimit >/dev/null || skip "prlimit is not installed"
	make_files "$T/f"
	PORT=$(free_port)
	# Standard input, output and error only (make check's make hands its
	# jobserver's pipes down), and room for the listening socket alone.
	(
		exec >"$T/zcs.out" 2>"$T/zcs.err"
		for fd in $(ls "/proc/$BASHPID/fd"); do
			[ "$fd" -le 2 ] || eval "exec $fd>&-"
		done
		ulimit -S -n 4 && exec "$ROOT/zcs" -p "$PORT"
	) &
	ZCS_PID=$!
	started "$ZCS_PID"
	wait_until 5 eval '[ -n "$(ss -Htln "sport = :$PORT")" ]' || fail "zcs did not start: $(cat "$T/zcs.err")"
	"$ROOT/zcc" -W 20 -s 127.0.0.1 -p "$PORT" "$T/f/350k" >"$T/out" 2>"$T/err" &
	zcc=$!
	started "$zcc"
	wait_until 5 grep -q 'accept' "$T/zcs.err" || fail "zcs said nothing"
	sleep 0.5
	kill -0 "$ZCS_PID" 2>/dev/null || fail "zcs died: $(cat "$T/zcs.err")"
	expect_eq "$(head -n 1 "$T/zcs.err")" "zcs: accept: Too many open files (waiting, and trying again)"
	prlimit --pid "$ZCS_PID" --nofile=64 || fail "prlimit failed"
	wait "$zcc" || rc=$?
	expect_eq "$rc" 0 "zcc's exit code: $(cat "$T/err")"
	wait_summaries 1
	expect_eq "$(zcs_summaries | awk '{ print $2 }')" "$(stream_bytes 1 "$T/f/350k")" "bytes zcs received"
}

# The calibration is written to a temporary file created afresh (O_EXCL: a
# link planted in its place is not followed), readable by all, then renamed.
test_calibration_writes_a_fresh_temporary_file() {
	command -v strace >/dev/null || skip "strace is not installed"
	(cd "$T" && umask 022 && strace -f -e trace=openat -o "$T/trace" "$ROOT/cyclesoak" -C -m 50 >/dev/null 2>&1) ||
		fail "calibration failed"
	grep 'counts_per_sec' "$T/trace" | grep -q 'O_CREAT' || fail "no temporary file: $(grep counts "$T/trace")"
	grep 'counts_per_sec' "$T/trace" | grep 'O_CREAT' | grep -v -q 'O_EXCL' &&
		fail "created without O_EXCL: $(grep counts_per_sec "$T/trace")"
	expect_eq "$(stat -c %a "$T/counts_per_sec")" 644 "mode"
	expect_eq "$(ls "$T" | grep -c '^counts_per_sec')" 1 "files left"
}

test_an_empty_host_or_address_is_a_usage_error() {
	usage_error zcc "zcc: -s '': empty value" -s '' /etc/hostname
	usage_error zcs "zcs: -a '': empty value" -a ''
}


# The meter's lock is a fixed name in a directory every user can write: a
# symbolic link there (to a file of root's, say), a FIFO, or a file of
# another user's that others cannot open is refused in one line that says
# whose it is, and the link's target is left alone; a meter that holds the
# lock is named with its user.
test_the_meter_lock_cannot_be_planted() {
	local rc
	export ZC_METER_WAIT=0
	[ "$(id -u)" = 0 ] || skip "needs root (a mount namespace of its own, and another user)"
	unshare --mount true 2>/dev/null || skip "cannot make a mount namespace here"
	mkdir -p "$T/ft"
	chmod 1777 "$T/ft"
	cp "$ROOT/cyclesoak" "$T/ft/"
	printf 'keep\n' >"$T/ft/target"
	ln -s /tmp/target "$T/ft/zc-meter.lock"
	rc=0
	timeout 20 bash -c "$(declare -f in_private_tmp); T='$T'; in_private_tmp './cyclesoak -C -m 10'" \
		>"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:cyclesoak: /tmp/zc-meter.lock (the lock that keeps two meters apart) is a symbolic link; it is user root's: they or root can remove it"
	expect_eq "$(cat "$T/ft/target")" "keep" "the link's target"
	rm "$T/ft/zc-meter.lock"
	mkfifo "$T/ft/zc-meter.lock"
	rc=0
	timeout 20 bash -c "$(declare -f in_private_tmp); T='$T'; in_private_tmp './cyclesoak -C -m 10'" \
		>"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:cyclesoak: /tmp/zc-meter.lock (the lock that keeps two meters apart) is not a regular file; it is user root's: they or root can remove it"
	rm "$T/ft/zc-meter.lock"
	install -m 600 /dev/null "$T/ft/zc-meter.lock"
	rc=0
	timeout 20 bash -c "$(declare -f in_private_tmp); T='$T'; in_private_tmp 'setpriv --reuid=65534 --regid=65534 --clear-groups ./cyclesoak -C -m 10'" \
		>"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:cyclesoak: /tmp/zc-meter.lock (the lock that keeps two meters apart) cannot be opened: Permission denied; it is user root's: they or root can remove it"
	# A meter of another user's holds the lock: the second is told whose.
	rm "$T/ft/zc-meter.lock"
	rc=0
	timeout 30 bash -c "$(declare -f in_private_tmp); T='$T'; in_private_tmp '
		setpriv --reuid=65534 --regid=65534 --clear-groups ./cyclesoak -C -m 3000 >/dev/null 2>&1 & p=\$!
		for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do [ -s zc-meter.lock ] || [ -e zc-meter.lock ] && break; sleep 0.1; done
		sleep 0.3
		./cyclesoak -C -m 10; rc=\$?
		{ kill \$p; wait \$p; } 2>/dev/null
		echo \"pid \$p\"
		exit \$rc'" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:cyclesoak: another meter is running on this host: $(tail -n 1 "$T/out") (cyclesoak, user nobody) holds /tmp/zc-meter.lock $(held_cpus); two meters count each other's soakers, and both would be wrong"
}

# A peer cannot hold zcs for as long as it likes: with -L 2, two connections
# that send nothing are served (two children) and the next two wait, said
# once; each ends after -W 2 s with its summary saying so, what had come
# counted (2 bytes of a header, below -l, sent while it waited); and a child
# waiting for data has not taken its buffer (-b 1g).
test_zcs_bounds_its_connections_and_ends_idle_ones() {
	local kids pid
	start_zcs -L 2 -W 2 -b 1g
	exec 5<>"/dev/tcp/127.0.0.1/$PORT" 6<>"/dev/tcp/127.0.0.1/$PORT"
	exec 7<>"/dev/tcp/127.0.0.1/$PORT" 8<>"/dev/tcp/127.0.0.1/$PORT"
	printf 'ab' >&7
	wait_until 5 eval '[ "$(pgrep -P "$ZCS_PID" | wc -l)" -ge 2 ]' || fail "no children"
	sleep 0.5
	kids=$(pgrep -P "$ZCS_PID")
	expect_eq "$(echo "$kids" | wc -l)" 2 "children serving (-L 2)"
	# Against the parent's size, which the child was forked with (under
	# AddressSanitizer both are some terabytes of shadow).
	for pid in $kids; do
		awk -v p="$(awk '/^VmSize:/ { print $2 }' "/proc/$ZCS_PID/status")" \
			'/^VmSize:/ { exit !($2 - p < 256 * 1024) }' "/proc/$pid/status" ||
			fail "a child with nothing received has $(grep VmSize "/proc/$pid/status"), zcs $(grep VmSize "/proc/$ZCS_PID/status")"
	done
	wait_summaries 4
	exec 5>&- 6>&- 7>&- 8>&-
	expect_eq "$(grep -c 'connections at once' "$T/zcs.err")" 1 "lines about -L"
	grep -qx 'zcs: 2 connections at once (-L 2): the next wait to be accepted until one ends' "$T/zcs.err" ||
		fail "no -L line: $(cat "$T/zcs.err")"
	# The 2 bytes, below -l, are read when -W runs out, and -W counts from
	# when they came, not from that read (it said 4 to 5 s, and 8.2 s at -W 4).
	zcs_summaries | grep -v -E '^received 0 bytes in [2-3]\.[0-9]{3} s, 0 kbytes/sec, incomplete: waiting for header, closed after 2 s with nothing received \(-W\), cpu [0-9.]+u [0-9.]+s$' |
		grep -v -E '^received 2 bytes in [2-3]\.[0-9]{3} s, [0-9]+ kbytes/sec, incomplete: waiting for header, closed after 2 s with nothing received \(-W\), cpu [0-9.]+u [0-9.]+s$' &&
		fail "summaries: $(zcs_summaries)"
	expect_eq "$(zcs_summaries | grep -c '^received 2 bytes')" 1 "the partial header counted"
}

# -W is "sends nothing for this long": a client that trickles a byte every
# half second, below SO_RCVLOWAT, for 3 s is not ended by -W 2, and ends
# when it closes, every byte counted.
test_W_leaves_a_client_that_trickles() {
	start_zcs -W 2
	{ for _ in 1 2 3 4 5 6; do printf 'x'; sleep 0.5; done; } >"/dev/tcp/127.0.0.1/$PORT"
	wait_summaries 1
	expect_match "$(zcs_summaries)" '^received 6 bytes in 3\.[0-9]{3} s, 0 kbytes/sec, incomplete: waiting for header, cpu '
}

# -W ends a connection that stops in the middle of a file too, with -t's
# ticks going on meanwhile, and -J says so.
test_zcs_W_ends_a_connection_that_stops_mid_file() {
	start_zcs -J -W 1 -t 1 -l 1
	exec 5<>"/dev/tcp/127.0.0.1/$PORT"
	# One loop of one file of 100 bytes, of which 10 come.
	printf '\0\0\0\1\0\0\0\1\0\0\0\144abcdefghij' >&5
	wait_summaries 1
	exec 5>&-
	zcs_summaries | grep -q '"bytes":22,.*"complete":false,"waiting_for":"file data".*"idle_closed":true' ||
		fail "summary: $(zcs_summaries)"
}

run_tests "$@"
