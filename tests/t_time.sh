#!/bin/bash
# zcc -t SECS: the file set round and round for a time, the last file whole,
# on the 2001 wire protocol; its length, its bytes, and its errors.
. "$(dirname "$0")/lib.sh"

# u32 FILE OFFSET: the big-endian 32-bit number at OFFSET.
u32() {
	od -An -tu4 --endian=big -j "$2" -N 4 "$1" | tr -d ' '
}

# timed_wire_matches WIRE FILE...: WIRE is what zcc -t must send, read here
# without zc's code: the loop count 65536; loops of one file or more, the
# files in the order given, round and round, each its length and its bytes;
# then, from the first empty loop, every loop left empty (4 zero bytes
# each) to the end. Prints "FILES LOOPS": the files sent and the loops that
# carried them.
timed_wire_matches() {
	local wire=$1 off=4 used=0 n=0 count len f size total
	shift
	local files=("$@")
	total=$(stat -c %s "$wire")
	[ "$(u32 "$wire" 0)" = 65536 ] || fail "the loop count is $(u32 "$wire" 0), not 65536"
	while [ "$off" -lt "$total" ]; do
		count=$(u32 "$wire" "$off")
		off=$((off + 4))
		[ "$count" = 0 ] && break
		used=$((used + 1))
		for ((i = 0; i < count; i++)); do
			f=${files[n % ${#files[@]}]}
			size=$(stat -c %s "$f")
			len=$(u32 "$wire" "$off")
			[ "$len" = "$size" ] || fail "file $n of the stream: length $len, not $f's $size"
			off=$((off + 4))
			cmp -s -i "$off:0" -n "$size" "$wire" "$f" || fail "file $n of the stream ($f) differs"
			off=$((off + size))
			n=$((n + 1))
		done
	done
	[ "$used" -ge 1 ] || fail "no loop carried a file"
	# The empty loop read, and the rest: 4 zero bytes each, to the end.
	expect_eq "$total" $((off + 4 * (65536 - used - 1))) "bytes on the wire after $used loops"
	cmp -s -i "$off:0" -n $((total - off)) "$wire" /dev/zero ||
		fail "the empty loops after loop $used are not all zeros"
	echo "$n $used"
}

# make_timed_files DIR: four files, among them an empty one, unlike in size.
make_timed_files() {
	mkdir -p "$1"
	head -c 32769 /dev/urandom >"$1/a"
	: >"$1/b"
	head -c 1 /dev/urandom >"$1/c"
	head -c 12289 /dev/urandom >"$1/d"
}

# Every mode: what goes on the wire is the files in order, round and round,
# then empty loops; zcc's bytes are the wire's, its files the ones read.
test_t_sends_the_files_round_and_round_then_empty_loops() {
	local m got json
	make_timed_files "$T/f"
	for m in $(send_modes); do
		rm -f "$T/wire"
		start_capture "$T/wire"
		json=$("$ROOT/zcc" -J -m "$m" -t 0.2 -R 1m -p "$CAPTURE_PORT" -s 127.0.0.1 "$T"/f/a "$T"/f/b \
			"$T"/f/c "$T"/f/d) || fail "zcc -m $m -t 0.2 exited $?"
		await_capture
		got=$(timed_wire_matches "$T/wire" "$T"/f/a "$T"/f/b "$T"/f/c "$T"/f/d) || exit 1
		[ "${got% *}" -ge 8 ] || fail "-m $m: $got: fewer than two rounds of the files"
		expect_eq "$(jget "$json" result.files_sent)" "${got% *}" "-m $m: files_sent"
		expect_eq "$(jget "$json" result.bytes)" "$(stat -c %s "$T/wire")" "-m $m: bytes"
		expect_eq "$(jget "$json" settings.time_secs)" 0.200 "-m $m: time_secs"
		expect_eq "$(jget "$json" settings.loops)" "" "-m $m: loops"
	done
}

# Files of several MiB, at several chunks and depths: every byte in order,
# each file whole, the last one too. The byte's file first: the time may
# run out in the big one, whatever the pace (beside make check's other
# files, a build with the sanitizers sent 4 KiB zero-copy chunks slower
# than 3 MiB in 0.3 s, and its run was the big file alone).
test_t_sends_files_of_several_mib_whole_at_every_shape() {
	local got args m
	mkdir -p "$T/big"
	head -c $((3 * 1048576 + 5)) /dev/urandom >"$T/big/a"
	head -c 1 /dev/urandom >"$T/big/b"
	for args in "-m sendfile" "-m send -b 4k" "-m write -b 1000" "-m memory -b 65536" \
		"-m splice -b 12345" "-m zerocopy -b 4k -q 3" "-m uring -b 64k -q 8"; do
		rm -f "$T/wire"
		start_capture "$T/wire"
		"$ROOT/zcc" $args -t 0.3 -R 20m -p "$CAPTURE_PORT" -s 127.0.0.1 "$T/big/b" "$T/big/a" >"$T/out" 2>&1 ||
			{ m=${args#-m } && uring_refused "${m%% *}" >/dev/null && continue
				fail "zcc $args -t 0.3: $(cat "$T/out")"; }
		await_capture
		got=$(timed_wire_matches "$T/wire" "$T/big/b" "$T/big/a") || exit 1
		[ "${got% *}" -ge 2 ] || fail "$args: $got: not one whole round"
	done
}

# jget OBJECT PATH: a member of a -J object, by its path ("" for null).
jget() {
	printf '%s\n' "$1" | awk -v p="$2" "$JSON_AWK"'{ print json_get($0, p) }'
}

# A run lasts the time asked (the last file whole, the socket's buffer
# drained), at full speed and paced, and zcs takes it as any stream: the
# same bytes at both ends.
test_t_lasts_the_time_asked() {
	local json secs rate sent=""
	make_files "$T/f"
	start_zcs
	for rate in "" 40m; do
		json=$("$ROOT/zcc" -J -t 1 ${rate:+-R $rate} -p "$PORT" -s 127.0.0.1 "$T"/f/*) ||
			fail "zcc -t 1 ${rate:+-R $rate} exited $?"
		secs=$(jget "$json" result.seconds)
		awk -v s="$secs" 'BEGIN { exit !(s >= 1.0 && s < 1.4) }' ||
			fail "zcc -t 1 ${rate:+-R $rate}: $secs s"
		expect_eq "$(jget "$json" result.confirmed)" true "zcs closed"
		sent="$sent $(jget "$json" result.bytes)"
	done
	wait_summaries 2
	expect_eq " $(zcs_summaries | awk '{ print $2 }' | paste -sd ' ')" "$sent" "zcs's bytes"
}

# -P: every stream for the time, started together.
test_t_times_each_of_P_streams() {
	local json i secs
	make_files "$T/f"
	start_zcs
	json=$("$ROOT/zcc" -J -P 2 -t 0.5 -p "$PORT" -s 127.0.0.1 "$T"/f/*) || fail "zcc -P 2 -t 0.5 exited $?"
	for i in 0 1; do
		secs=$(jget "$json" "streams.$i.seconds")
		awk -v s="$secs" 'BEGIN { exit !(s >= 0.5 && s < 0.9) }' || fail "stream $i: $secs s"
		[ "$(jget "$json" "streams.$i.files_sent")" -ge 7 ] || fail "stream $i sent less than the set"
	done
	expect_eq "$(jget "$json" result.files_sent)" \
		$(($(jget "$json" streams.0.files_sent) + $(jget "$json" streams.1.files_sent))) "the files, both streams'"
}

# -m A,B: the arms take turns for the time, and the stream is whole.
test_t_times_the_turns() {
	local json secs
	make_files "$T/f"
	start_zcs
	json=$("$ROOT/zcc" -J -m write,sendfile -A 40 -t 1 -p "$PORT" -s 127.0.0.1 "$T"/f/*) ||
		fail "zcc -m write,sendfile -t 1 exited $?"
	secs=$(jget "$json" result.seconds)
	awk -v s="$secs" 'BEGIN { exit !(s >= 1.0 && s < 1.4) }' || fail "turns for 1 s: $secs s"
	wait_summaries 1
	expect_eq "$(zcs_summaries | awk '{ print $2 }')" "$(jget "$json" result.bytes)" "zcs's bytes"
}

# -u: datagrams for the time, ending at a file's end, every one of them as
# the format has it (udppeer -t), in each mode.
test_t_times_datagrams_and_ends_at_a_files_end() {
	local m port pid json secs
	make_timed_files "$T/f"
	for m in $(send_modes -u); do
		rm -f "$T/port"
		"$HELPERS/udppeer" check -t 1000 200 "$T"/f/a "$T"/f/b "$T"/f/c "$T"/f/d >"$T/port" 2>"$T/peer.err" &
		pid=$!
		started "$pid"
		wait_until 5 test -s "$T/port" || fail "udppeer did not start: $(cat "$T/peer.err")"
		port=$(head -n 1 "$T/port")
		json=$("$ROOT/zcc" -J -u -m "$m" -l 1000 -t 0.3 -R 4m -p "$port" -s 127.0.0.1 \
			"$T"/f/a "$T"/f/b "$T"/f/c "$T"/f/d 2>"$T/err") || fail "zcc -u -m $m -t 0.3: $(cat "$T/err")"
		wait "$pid" || fail "zcc -u -m $m -t 0.3: udppeer: $(tail -n 1 "$T/port") $(cat "$T/peer.err")"
		expect_match "$(tail -n 1 "$T/port")" ", out of order 0, duplicated 0, wrong 0, end " "-m $m: udppeer's count"
		secs=$(jget "$json" result.seconds)
		awk -v s="$secs" 'BEGIN { exit !(s >= 0.3 && s < 0.6) }' || fail "-u -m $m -t 0.3: $secs s"
		[ "$(jget "$json" result.files_sent)" -ge 8 ] || fail "-u -m $m: fewer than two rounds of the files"
	done
}

# -d says the run is by time; -t is checked, and -n beside it refused.
test_t_is_checked() {
	make_files "$T/f"
	usage_error zcc "zcc: -t and -n both say how long to send: give one" -t 1 -n 2 -s 127.0.0.1 "$T/f/one"
	usage_error zcc "zcc: -t '0': must be at least 0.001 s" -t 0 -s 127.0.0.1 "$T/f/one"
	usage_error zcc "zcc: -t '0.0005': must be at least 0.001 s" -t 0.0005 -s 127.0.0.1 "$T/f/one"
	usage_error zcc "zcc: -t '5s': trailing characters after the number" -t 5s -s 127.0.0.1 "$T/f/one"
	usage_error zcc "zcc: -t 'soon': not a number" -t soon -s 127.0.0.1 "$T/f/one"
	usage_error zcc "zcc: -t '86401': must be at most 86400 s" -t 86401 -s 127.0.0.1 "$T/f/one"
	start_zcs
	"$ROOT/zcc" -d -t 0.2 -p "$PORT" -s 127.0.0.1 "$T"/f/* >/dev/null 2>"$T/err" || fail "zcc -d -t 0.2: $(cat "$T/err")"
	expect_match "$(grep 'files, ' "$T/err")" \
		"^zcc: 7 files, [0-9]+ bytes of file data a loop, round and round for 0\.200 s, mode sendfile\$"
}

run_tests "$@"
