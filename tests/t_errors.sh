#!/bin/bash
# Every failure the manual lists: one clear line and the promised exit code,
# never a crash, a hang or a silent zero.
# make check-quick runs this file.
. "$(dirname "$0")/lib.sh"

test_zcc_rejects_bad_option_values() {
	local f=/etc/hostname
	usage_error zcc "zcc: -p '0': must be at least 1" -p 0 -s localhost "$f"
	usage_error zcc "zcc: -p '65536': must be at most 65535" -p 65536 -s localhost "$f"
	usage_error zcc "zcc: -p 'abc': not a number" -p abc -s localhost "$f"
	usage_error zcc "zcc: -p '': empty value" -p '' -s localhost "$f"
	usage_error zcc "zcc: -b '12x': trailing characters after the number" -b 12x -s localhost "$f"
	usage_error zcc "zcc: -b '-1': must be at least 1" -b -1 -s localhost "$f"
	usage_error zcc "zcc: -b '4g': must be at most 1073741824" -b 4g -s localhost "$f"
	usage_error zcc "zcc: -b '4t': trailing characters after the number" -b 4t -s localhost "$f"
	usage_error zcc "zcc: -b '99999999999999999999': must be at most 1073741824" \
		-b 99999999999999999999 -s localhost "$f"
	usage_error zcc "zcc: -n '0': must be at least 1" -n 0 -s localhost "$f"
	usage_error zcc "zcc: -n '4294967296': must be at most 4294967295" -n 4294967296 -s localhost "$f"
	usage_error zcc "zcc: -B '-1': must be at least 0" -B -1 -s localhost "$f"
	usage_error zcc "zcc: -i '0': must be at least 1" -i 0 -s localhost "$f"
	usage_error zcc "zcc: -o '1k1': trailing characters after the number" -o 1k1 -s localhost "$f"
	usage_error zcc "zcc: -m sendfile conflicts with -S" -m sendfile -S -s localhost "$f"
	usage_error zcc "zcc: unknown option -x" -x -s localhost "$f"
	usage_error zcc "zcc: -s needs a value" -s
	usage_error zcc "zcc: -s server is required" "$f"
	usage_error zcc "zcc: no files to send" -s localhost
}

test_zcc_w_without_S_is_a_usage_error() {
	usage_error zcc "zcc: -w needs -S (write() replaces send() in the read/send mode)" \
		-w -s localhost /etc/hostname
}

# -q x -b x -P is allocated (and pinned, in the queued modes) before anything
# is sent: more than half the host's memory is a usage error, not a host
# brought to its knees.
test_zcc_buffers_beyond_half_the_hosts_memory_are_a_usage_error() {
	local host gib
	host=$(($(getconf _PHYS_PAGES) * $(getconf PAGESIZE)))
	[ "$host" -lt $((128 << 30)) ] || skip "this host has 128 GiB or more"
	gib=$(awk -v b="$host" 'BEGIN { printf "%.1f", b / 1073741824 }')
	usage_error zcc "zcc: -q 64 x -b 1073741824 x -P 1 is 64.0 GiB of buffers, more than half of this host's $gib GiB of memory" \
		-m uring -q 64 -b 1024m -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -q 1 x -b 1073741824 x -P 64 is 64.0 GiB of buffers, more than half of this host's $gib GiB of memory" \
		-S -P 64 -b 1024m -s 127.0.0.1 /etc/hostname
	# sendfile holds no buffer: -b is not its chunk, and nothing is allocated.
	"$ROOT/zcc" -P 64 -b 1024m -p "$(free_port)" -s 127.0.0.1 /etc/hostname 2>&1 |
		grep -q 'GiB of buffers' && fail "sendfile's -b counted as buffers"
	return 0
}

# Options that would be ignored are usage errors instead: -C sends nothing,
# -N sets the meter's CPUs, and -B's list has no empty items.
test_zcc_options_that_would_be_ignored_are_usage_errors() {
	local f=/etc/hostname
	usage_error zcc "zcc: -J is for the transfer's summary: -C writes ./counts_per_sec and prints text" -J -C
	usage_error zcc "zcc: -s is for a transfer: -C calibrates the meter and sends nothing" -C -s localhost
	usage_error zcc "zcc: -P is for a transfer: -C calibrates the meter and sends nothing" -C -P 2
	usage_error zcc "zcc: -m is for a transfer: -C calibrates the meter and sends nothing" -m send -C
	usage_error zcc "zcc: unexpected argument '$f': -C calibrates the meter and sends nothing" -C -N 1 "$f"
	usage_error zcc "zcc: -N needs -c or -C (it sets how many CPUs the meter soaks)" -N 1 -s localhost "$f"
	usage_error zcc "zcc: -B '1,,0': an empty item in the list" -P 3 -B 1,,0 -s localhost "$f"
	usage_error zcc "zcc: -B ',0': an empty item in the list" -P 2 -B ,0 -s localhost "$f"
	usage_error zcc "zcc: -B '0,': an empty item in the list" -P 2 -B 0, -s localhost "$f"
	usage_error zcc "zcc: -B '': empty value" -B '' -s localhost "$f"
}

# A file of /proc says its size is 0 and has more: zcc sends 0 bytes, as the
# protocol's header says, and warns.
test_zcc_warns_about_a_file_whose_size_hides_its_data() {
	local out
	start_zcs
	out=$("$ROOT/zcc" -p "$PORT" -s 127.0.0.1 /proc/self/status /etc/hostname 2>"$T/err")
	expect_eq "$(cat "$T/err")" "zcc: warning: /proc/self/status: its size is 0 but it has data (a file of /proc or /sys?): it is sent as 0 bytes"
	expect_match "$out" "^sent $((4 + 4 + 4 + 4 + $(stat -c %s /etc/hostname))) bytes "
}

test_zcs_rejects_bad_option_values() {
	usage_error zcs "zcs: -t '0': must be at least 1" -t 0
	usage_error zcs "zcs: -t '1.5': trailing characters after the number" -t 1.5
	usage_error zcs "zcs: -p '70000': must be at most 65535" -p 70000
	usage_error zcs "zcs: -b '0': must be at least 1" -b 0
	usage_error zcs "zcs: -B 'x': not a number" -B x
	usage_error zcs "zcs: -i '2048m': must be at most 1073741823" -i 2048m
	usage_error zcs "zcs: -l '0': must be at least 1" -l 0
	usage_error zcs "zcs: -l '1q': trailing characters after the number" -l 1q
	usage_error zcs "zcs: unknown option -q" -q
	usage_error zcs "zcs: -p needs a value" -p
	usage_error zcs "zcs: unexpected argument 'extra'" extra
	usage_error zcs "zcs: -L '0': must be at least 1" -L 0
	usage_error zcs "zcs: -L '10001': must be at most 10000" -L 10001
	usage_error zcs "zcs: -W '0': must be at least 1" -W 0
	usage_error zcs "zcs: -W 'x': not a number" -W x
}

test_zcc_unknown_host() {
	local rc=0
	timeout 30 "$ROOT/zcc" -s no.such.host.invalid -p 2222 /etc/hostname 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_match "$(cat "$T/err")" '^zcc: no\.such\.host\.invalid port 2222: [A-Za-z].+$'
}

test_zcc_connection_refused() {
	local port rc=0
	port=$(free_port)
	"$ROOT/zcc" -s 127.0.0.1 -p "$port" /etc/hostname 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" "zcc: connect to 127.0.0.1 port $port: Connection refused"
}

test_zcs_port_in_use() {
	local rc=0
	start_zcs
	timeout 10 "$ROOT/zcs" -p "$PORT" 2>"$T/err2" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err2")" "zcs: bind to :: port $PORT: Address already in use"
}

test_zcc_skips_unreadable_and_exits_1_when_none_left() {
	local port rc=0
	port=$(free_port)
	mkdir "$T/dir"
	"$ROOT/zcc" -s 127.0.0.1 -p "$port" "$T/missing" "$T/dir" /dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" "zcc: skipping $T/missing: No such file or directory
zcc: skipping $T/dir: not a regular file
zcc: skipping /dev/null: not a regular file
zcc: no readable regular files to send"
}

# As 2001's zcc did, a file it cannot send is skipped and the rest sent, exit
# 0; the summary says how many were skipped, and -J's settings too.
test_zcc_sends_the_readable_files_and_warns_about_the_rest() {
	local out
	make_files "$T/f"
	start_zcs
	out=$("$ROOT/zcc" -s 127.0.0.1 -p "$PORT" "$T/missing" "$T/f/350k" 2>"$T/err") || fail "zcc exited $?"
	expect_eq "$(cat "$T/err")" "zcc: skipping $T/missing: No such file or directory"
	expect_eq "$(echo "$out" | awk '{ print $2 }')" "$(stream_bytes 1 "$T/f/350k")"
	expect_match "$out" "^sent [0-9]+ bytes in [0-9.]+ s, [0-9]+ kbytes/sec, mode sendfile, 1 file skipped, cpu "
	out=$("$ROOT/zcc" -J -s 127.0.0.1 -p "$PORT" "$T/missing" "$T/dir" "$T/f/350k" "$T/f/one" 2>/dev/null)
	expect_match "$out" '"files":2,"skipped_files":2,'
	out=$("$ROOT/zcc" -s 127.0.0.1 -p "$PORT" "$T/missing" /dev/null "$T/f/350k" 2>/dev/null)
	expect_match "$out" ", mode sendfile, 2 files skipped, cpu "
	out=$("$ROOT/zcc" -s 127.0.0.1 -p "$PORT" "$T/f/350k" 2>/dev/null)
	[[ "$out" != *skipped* ]] || fail "a run that skipped nothing says: $out"
}

test_zcc_refuses_a_file_of_4_GiB_before_connecting() {
	local port rc=0
	port=$(free_port)
	truncate -s 4G "$T/big" || skip "cannot make a sparse 4 GiB file here"
	"$ROOT/zcc" -s 127.0.0.1 -p "$port" /etc/hostname "$T/big" 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" \
		"zcc: $T/big: 4294967296 bytes is too large: the protocol's lengths stop below 4 GiB"
}

test_zcc_file_shrinking_in_sendfile_mode_is_an_error() {
	check_shrink_is_an_error
}

test_zcc_file_shrinking_in_send_mode_is_an_error() {
	check_shrink_is_an_error -S
}

# The file grows 0.3 s into a send of about 1.4 s; zcc finds it at the end.
test_zcc_file_growing_while_sent_is_an_error() {
	local rc=0
	start_slow_capture
	"$ROOT/zcc" -o 4096 -S -w -s 127.0.0.1 -p "$(cat "$T/port")" "$T/file" 2>"$T/err" &
	local zcc=$!
	started "$zcc"
	sleep 0.3
	head -c 1048576 /dev/zero >>"$T/file"
	wait "$zcc" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" "zcc: $T/file: changed size while being sent (4194304 bytes, now 5242880)"
}

test_zcc_survives_zcs_killed_in_sendfile_mode() {
	check_zcs_killed_mid_transfer
}

test_zcc_survives_zcs_killed_in_send_mode() {
	check_zcs_killed_mid_transfer -S
}

test_zcc_survives_zcs_killed_in_write_mode() {
	check_zcs_killed_mid_transfer -S -w
}

test_zcc_gives_up_on_a_receiver_that_stops_reading_in_sendfile_mode() {
	check_a_receiver_that_stops_reading "$STOPPED_READING"
}

test_zcc_gives_up_on_a_receiver_that_stops_reading_in_send_mode() {
	check_a_receiver_that_stops_reading "$STOPPED_READING" -S
}

test_zcc_gives_up_on_a_receiver_that_stops_reading_in_write_mode() {
	check_a_receiver_that_stops_reading "$STOPPED_READING" -S -w
}

test_zcs_reports_client_vanishing_mid_header() {
	start_zcs
	{ u32be 1; printf '\0\0'; } >"/dev/tcp/127.0.0.1/$PORT"
	wait_summaries 1
	expect_match "$(zcs_summaries)" \
		"^received 6 bytes in [0-9]+\\.[0-9]{3} s, [0-9]+ kbytes/sec, incomplete: waiting for header$CPU_TIMES\$"
}

test_zcs_reports_client_vanishing_mid_file() {
	start_zcs
	{ u32be 1; u32be 1; u32be 1000; head -c 10 /dev/zero; } >"/dev/tcp/127.0.0.1/$PORT"
	wait_summaries 1
	expect_match "$(zcs_summaries)" \
		"^received 22 bytes in [0-9]+\\.[0-9]{3} s, [0-9]+ kbytes/sec, incomplete: waiting for file data$CPU_TIMES\$"
}

test_zcs_reports_zcc_killed_mid_transfer() {
	make_files "$T/f"
	start_zcs
	"$ROOT/zcc" -n 1000000 -s 127.0.0.1 -p "$PORT" "$T/f/350k" >/dev/null 2>&1 &
	local zcc=$!
	started "$zcc"
	sleep 0.3
	kill -9 "$zcc"
	wait_summaries 1
	expect_match "$(zcs_summaries)" ", incomplete: waiting for (header|file data)$CPU_TIMES\$"
}

test_zcs_survives_random_bytes() {
	local i
	make_files "$T/f"
	start_zcs
	for i in 1 2 3 4 5; do
		head -c 1048576 /dev/urandom >"/dev/tcp/127.0.0.1/$PORT"
	done
	wait_summaries 5
	[ "$(zcs_summaries | grep -c '^received 1048576 bytes in ')" = 5 ] ||
		fail "not every random stream was counted: $(zcs_summaries)"
	kill -0 "$ZCS_PID" || fail "zcs died"
	"$ROOT/zcc" -s 127.0.0.1 -p "$PORT" "$T/f/350k" >/dev/null || fail "zcs stopped serving"
	wait_summaries 6
	expect_match "$(zcs_summaries | tail -n 1)" "^received $(stream_bytes 1 "$T/f/350k") bytes in [0-9.]+ s, [0-9]+ kbytes/sec$CPU_TIMES\$"
}

# -W bounds connect() too: a SYN that no one answers (an address on the
# pair's subnet that no host has) ends zcc -W 1 within about a second, said
# as such, where the kernel would wait seconds more.
test_W_bounds_the_connect() {
	local rc=0 began took
	two_hosts
	ip -n "$NS_A" addr add 10.251.1.1/24 dev "$IF_A"
	began=$(date +%s%N)
	ip netns exec "$NS_A" "$ROOT/zcc" -W 1 -s 10.251.1.9 -p 2222 /etc/hostname >"$T/out" 2>"$T/err" || rc=$?
	took=$((($(date +%s%N) - began) / 1000000))
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" "zcc: connect to 10.251.1.9 port 2222: no answer within 1 s (-W)"
	[ "$took" -ge 1000 ] && [ "$took" -lt 2500 ] || fail "zcc -W 1 gave up after $took ms"
}

run_tests "$@"
