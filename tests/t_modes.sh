#!/bin/bash
# The send modes beyond 2001 (splice, zerocopy, uring, uring-zc) and zcs's
# receive modes (trunc, splice): the stream byte for byte, the counts at both
# ends, the failures, and the kernel's copies counted rather than hidden.
. "$(dirname "$0")/lib.sh"

test_splice_stream_matches_independent_encoding() {
	check_stream_matches_independent_encoding -m splice -b 4k
}

test_zerocopy_stream_matches_independent_encoding() {
	check_stream_matches_independent_encoding -m zerocopy -b 4k -q 3
}

test_uring_stream_matches_independent_encoding() {
	uring_or_skip uring
	check_stream_matches_independent_encoding -m uring -b 4k -q 3
}

test_uring_zc_stream_matches_independent_encoding() {
	uring_or_skip uring-zc
	check_stream_matches_independent_encoding -m uring-zc -b 4k -q 3
}

test_memory_stream_matches_independent_encoding() {
	check_stream_matches_independent_encoding -m memory -b 4k
}

# memory reads every file before the run: one that changes while the stream
# goes to a slow receiver is sent as it was read, whole, where the other
# modes end the run on it; the stream is the one encoded from the old file.
test_memory_sends_the_files_as_read_before_the_run() {
	local port
	start_slow_capture
	cp "$T/file" "$T/file.before"
	port=$(cat "$T/port")
	"$ROOT/zcc" -o 4096 -m memory -n 2 -s 127.0.0.1 -p "$port" "$T/file" >"$T/out" 2>"$T/err" &
	local zcc=$!
	started "$zcc"
	wait_until 5 test -s "$T/wire" || fail "nothing came to the capture"
	head -c 3145728 /dev/urandom >"$T/file"
	wait "$zcc" || fail "zcc -m memory exited $?: $(cat "$T/err")"
	mkdir "$T/old"
	mv "$T/file.before" "$T/old/file"
	wait_until 5 eval '[ "$(stat -c %s "$T/wire")" = "$(stream_bytes 2 "$T/old/file")" ]' ||
		fail "the capture got $(stat -c %s "$T/wire") bytes"
	encode_stream 2 "$T/old/file" >"$T/want"
	cmp -s "$T/want" "$T/wire" || fail "the stream is not the file as it was read"
}

# Each stream holds the files: more than half of memory is refused before connecting.
test_memory_that_does_not_fit_is_refused() {
	local rc=0 p
	truncate -s 4000M "$T/sparse"
	# Streams enough that their copies pass half of this host's memory.
	p=$(awk '/^MemTotal/ { print int($2 / 2 / (4000 * 1024)) + 1 }' /proc/meminfo)
	[ "$p" -le 64 ] || skip "this host holds more than 64 copies of 4000 MiB"
	"$ROOT/zcc" -m memory -P "$p" -s 127.0.0.1 -p 9 "$T/sparse" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_match "$(cat "$T/err")" \
		"^zcc: -m memory holds the files in each stream's memory: 3\\.9 GiB x -P $p is more than half of this host's [0-9.]+ GiB\$"
}

# ipv6_with_loops MODE ARGS...: zcc -n 3 over ::1 to zcs; both ends count the stream.
ipv6_with_loops() {
	local mode=$1 want out
	shift
	ip -6 addr show lo 2>/dev/null | grep -q '::1' || skip "no IPv6 loopback"
	uring_or_skip "$mode"
	make_files "$T/f"
	start_zcs
	want=$(stream_bytes 3 "$T"/f/*)
	out=$("$ROOT/zcc" -n 3 -m "$mode" -p "$PORT" -s ::1 "$@" "$T"/f/*)
	expect_match "$out" "^sent $want bytes in [0-9]+\\.[0-9]{3} s, [0-9]+ kbytes/sec, mode $mode$CPU_TIMES"
	wait_summaries 1
	expect_match "$(zcs_summaries)" "^received $want bytes in [0-9.]+ s, [0-9]+ kbytes/sec$CPU_TIMES\$"
	grep -q "files\$" "$T/zcs.err" || fail "no file count from zcs -d"
	expect_match "$(grep ' files$' "$T/zcs.err")" ": $((3 * 7)) files\$" "files zcs counted"
}

test_splice_over_ipv6_with_loops_counts_every_byte() {
	ipv6_with_loops splice
}

test_zerocopy_over_ipv6_with_loops_counts_every_byte() {
	ipv6_with_loops zerocopy -b 64k
}

test_uring_over_ipv6_with_loops_counts_every_byte() {
	ipv6_with_loops uring -q 1
}

test_uring_zc_over_ipv6_with_loops_counts_every_byte() {
	ipv6_with_loops uring-zc -b 100k -q 5
}

# On loopback the receiver is local, so the kernel copies every zero-copy
# send; the summary says so, send by send.
kernel_copies_are_reported() {
	local mode=$1 n out
	shift
	uring_or_skip "$mode"
	make_files "$T/f"
	start_zcs
	n=$(chunks 65536 4 "$T"/f/*)
	out=$("$ROOT/zcc" -n 4 -b 64k -m "$mode" -p "$PORT" -s 127.0.0.1 "$@" "$T"/f/*)
	expect_match "$out" "^sent $(stream_bytes 4 "$T"/f/*) bytes in .*, mode $mode$CPU_TIMES, zerocopy 0 of $n sends \\(kernel copied $n\\)\$"
}

test_zerocopy_reports_the_kernels_copies_on_loopback() {
	kernel_copies_are_reported zerocopy
}

test_uring_zc_reports_the_kernels_copies_on_loopback() {
	kernel_copies_are_reported uring-zc -q 8
}

test_modes_that_copy_by_design_print_no_copy_count() {
	local mode out
	make_files "$T/f"
	start_zcs
	for mode in $(send_modes); do
		# The zero-copy modes' counts are the tests' above.
		case "$mode" in zerocopy | uring-zc) continue ;; esac
		case "$mode" in uring*) uring_or_skip "$mode" ;; esac
		out=$("$ROOT/zcc" -m "$mode" -p "$PORT" -s 127.0.0.1 "$T/f/350k")
		expect_match "$out" "mode $mode$CPU_TIMES\$" "summary of mode $mode"
	done
}

shrink_is_an_error() {
	uring_or_skip "$1"
	check_shrink_is_an_error -b 64k -m "$1"
}

test_zcc_file_shrinking_in_splice_mode_is_an_error() {
	shrink_is_an_error splice
}

test_zcc_file_shrinking_in_zerocopy_mode_is_an_error() {
	shrink_is_an_error zerocopy
}

test_zcc_file_shrinking_in_uring_mode_is_an_error() {
	shrink_is_an_error uring
}

test_zcc_file_shrinking_in_uring_zc_mode_is_an_error() {
	shrink_is_an_error uring-zc
}

zcs_killed_mid_transfer() {
	uring_or_skip "$1"
	check_zcs_killed_mid_transfer -m "$1"
}

test_zcc_survives_zcs_killed_in_splice_mode() {
	zcs_killed_mid_transfer splice
}

test_zcc_survives_zcs_killed_in_zerocopy_mode() {
	zcs_killed_mid_transfer zerocopy
}

test_zcc_survives_zcs_killed_in_uring_mode() {
	zcs_killed_mid_transfer uring
}

test_zcc_survives_zcs_killed_in_uring_zc_mode() {
	zcs_killed_mid_transfer uring-zc
}

# A receiver that stops reading: the blocking modes give up when a send has
# queued nothing for -W seconds, zerocopy when that or a completion takes -W,
# the io_uring modes when nothing completes for -W; each with the count so far.
test_splice_gives_up_on_a_receiver_that_stops_reading() {
	check_a_receiver_that_stops_reading "$STOPPED_READING" -m splice
}

test_zerocopy_gives_up_on_a_receiver_that_stops_reading() {
	check_a_receiver_that_stops_reading \
		"($STOPPED_READING|^zcc: the kernel completed no MSG_ZEROCOPY send within 1 s \\(-W\\) after [1-9][0-9]* bytes\$)" \
		-m zerocopy
}

uring_gives_up() {
	uring_or_skip "$1"
	check_a_receiver_that_stops_reading \
		'^zcc: io_uring completed nothing within 1 s \(-W\) after [1-9][0-9]* bytes$' -m "$1"
}

test_uring_gives_up_on_a_receiver_that_stops_reading() {
	uring_gives_up uring
}

test_uring_zc_gives_up_on_a_receiver_that_stops_reading() {
	uring_gives_up uring-zc
}

# With the socket's option memory nearly gone, MSG_ZEROCOPY sends fail with
# ENOBUFS until completions free it: zcc waits for them, and loses nothing.
test_zerocopy_waits_out_enobufs_and_loses_nothing() {
	[ -w /proc/sys/net/core/optmem_max ] || skip "cannot set net.core.optmem_max (not root)"
	command -v strace >/dev/null || skip "strace is not installed"
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	OLD_OPTMEM=$(cat /proc/sys/net/core/optmem_max)
	trap 'echo "$OLD_OPTMEM" >/proc/sys/net/core/optmem_max; cleanup' EXIT
	# Room for one zero-copy notification, not two (on 6.18: at 512 no send is
	# taken; at 1536 or 2048 two fit, completions in order coalesce into one,
	# and a send met ENOBUFS in about half the runs). So a send that needs a
	# notification of its own while the last is unread is refused, every time,
	# and zcc must wait it out. A reader that sleeps between reads keeps the
	# sends waiting.
	echo 1024 >/proc/sys/net/core/optmem_max
	CAPTURE_ARGS="-s 200"
	ZCC_WRAP="strace -f -e trace=sendto -e signal=none -o $T/trace"
	check_stream_matches_independent_encoding -m zerocopy -b 1k -q 64
	grep -q 'MSG_ZEROCOPY.*= -1 ENOBUFS' "$T/trace" || fail "no send met ENOBUFS"
}

# nobody_with_memlock BYTES: sets AS_NOBODY to the words that run a command as
# nobody, without CAP_IPC_LOCK, under RLIMIT_MEMLOCK of BYTES.
nobody_with_memlock() {
	as_nobody_or_skip
	command -v prlimit >/dev/null || skip "prlimit is not installed (util-linux)"
	AS_NOBODY="$AS_NOBODY prlimit --memlock=$1:$1"
}

# The kernel pins MSG_ZEROCOPY pages against the user's RLIMIT_MEMLOCK: a
# chunk as large as the limit is sent in sends of half of it, and streams
# that share the limit wait for each other's pages to come back.
test_zerocopy_sends_chunks_larger_than_the_memlock_limit() {
	nobody_with_memlock 8388608
	mkdir "$T/big"
	head -c 8388608 /dev/urandom >"$T/big/8m"
	ZCC_WRAP=$AS_NOBODY stream_matches_encoding 2 "$T/big" -m zerocopy -b 8m
	expect_match "$(cat "$T/out")" ", zerocopy 0 of 4 sends \(kernel copied 4\)$" "two sends of 4 MiB a loop"
}

test_zerocopy_streams_sharing_the_memlock_limit_all_finish() {
	local out
	nobody_with_memlock 8388608
	head -c 8388608 /dev/urandom >"$T/file"
	chmod 644 "$T/file"
	start_zcs
	# shellcheck disable=SC2086 # the wrapper's words
	out=$($AS_NOBODY "$ROOT/zcc" -P 8 -n 4 -m zerocopy -p "$PORT" -s 127.0.0.1 "$T/file") ||
		fail "zcc -P 8 failed: $out"
	expect_match "$(echo "$out" | tail -n 1)" "^all 8 streams: sent $((8 * $(stream_bytes 4 "$T/file"))) bytes "
}

test_zerocopy_refused_by_the_memlock_limit_names_it() {
	local rc=0
	nobody_with_memlock 0
	head -c 65536 /dev/urandom >"$T/file"
	chmod 644 "$T/file"
	start_zcs
	# shellcheck disable=SC2086 # the wrapper's words
	$AS_NOBODY "$ROOT/zcc" -W 1 -m zerocopy -p "$PORT" -s 127.0.0.1 "$T/file" >"$T/out" 2>"$T/err" ||
		rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" "zcc: send: No buffer space available for 1 s (-W) after 12 bytes, with no MSG_ZEROCOPY send outstanding: its pages count against RLIMIT_MEMLOCK (ulimit -l: 0 KiB, shared by all of this user's processes), its notification against net.core.optmem_max ($(cat /proc/sys/net/core/optmem_max) bytes)"
}

# io_uring switched off by the administrator: one line naming the sysctl, exit
# 1, and no connection made.
test_uring_disabled_by_sysctl_is_one_clear_error() {
	local rc=0
	[ -w /proc/sys/kernel/io_uring_disabled ] || skip "cannot set kernel.io_uring_disabled"
	OLD_DISABLED=$(cat /proc/sys/kernel/io_uring_disabled)
	trap 'echo "$OLD_DISABLED" >/proc/sys/kernel/io_uring_disabled; cleanup' EXIT
	start_zcs
	echo 2 >/proc/sys/kernel/io_uring_disabled
	"$ROOT/zcc" -m uring-zc -s 127.0.0.1 -p "$PORT" /etc/hostname >"$T/out" 2>"$T/err" || rc=$?
	echo "$OLD_DISABLED" >/proc/sys/kernel/io_uring_disabled
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" \
		"zcc: -m uring-zc: io_uring is disabled (/proc/sys/kernel/io_uring_disabled is 2)"
	[ -s "$T/out" ] && fail "zcc printed a summary"
	sleep 0.2
	grep -q 'connection from' "$T/zcs.err" && fail "zcc connected before failing"
	return 0
}

test_q_is_a_usage_error_outside_the_queued_modes() {
	usage_error zcc "zcc: -q needs -m zerocopy, uring or uring-zc (mode sendfile sends one chunk at a time)" \
		-q 4 -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -q needs -m zerocopy, uring or uring-zc (mode send sends one chunk at a time)" \
		-S -q 4 -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -q '0': must be at least 1" -m uring -q 0 -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -q '65': must be at most 64" -m uring -q 65 -s 127.0.0.1 /etc/hostname
}

# TCP_CORK holds a chunk's last partial segment up to 200 ms, and a zero-copy
# buffer waits for it: -k with those modes crawled (a 3 MB file in 10 s).
test_k_is_a_usage_error_with_the_zero_copy_modes() {
	usage_error zcc "zcc: -k conflicts with -m zerocopy: TCP_CORK holds each chunk's last partial segment for up to 200 ms, and the buffer under it until then" \
		-k -m zerocopy -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -k conflicts with -m uring-zc: TCP_CORK holds each chunk's last partial segment for up to 200 ms, and the buffer under it until then" \
		-m uring-zc -q 2 -k -s 127.0.0.1 /etc/hostname
}

test_unknown_modes_list_every_mode() {
	usage_error zcc "zcc: -m 'zero': unknown mode (sendfile, send, write, splice, zerocopy, uring, uring-zc or memory)" \
		-m zero -s 127.0.0.1 /etc/hostname
	usage_error zcs "zcs: -m 'peek': unknown mode (read, trunc, splice or zerocopy)" -m peek
}

# The syscalls each mode promises, traced: the file data never goes through
# sendto() or write() except as the mode says.
traced_zcc() {
	command -v strace >/dev/null || skip "strace is not installed"
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	uring_or_skip "$1"
	head -c 300000 /dev/urandom >"$T/file"
	start_zcs
	strace -f -e trace=sendto,sendmsg,write,splice,io_uring_enter -e signal=none \
		-o "$T/trace" "$ROOT/zcc" -b 64k -m "$1" -p "$PORT" -s 127.0.0.1 "$T/file" >/dev/null
	wait_summaries 1
	expect_match "$(zcs_summaries)" "^received 300012 bytes "
}

# Data bytes the trace shows going through sendto() or write() (headers are 4 bytes).
traced_copies() {
	grep -E '^[0-9]+ +(sendto|write)\(' "$T/trace" | grep -v '= 4$' | grep -vE '^[0-9]+ +write\([12],' || true
}

test_splice_mode_moves_the_data_with_splice_only() {
	traced_zcc splice
	[ -z "$(traced_copies)" ] || fail "data copied by sendto/write: $(traced_copies | head -n 2)"
	expect_eq "$(grep -cE 'splice\(.*= 65536$' "$T/trace")" 8 "64 KiB splices (4 full chunks, in and out)"
}

test_zerocopy_mode_sends_every_chunk_with_msg_zerocopy() {
	traced_zcc zerocopy
	expect_eq "$(traced_copies | grep -c MSG_ZEROCOPY)" 5 "MSG_ZEROCOPY sends of 64 KiB chunks"
	expect_eq "$(traced_copies | grep -vc MSG_ZEROCOPY)" 0 "other data sends"
}

test_uring_modes_send_the_data_through_the_ring() {
	traced_zcc uring
	[ -z "$(traced_copies)" ] || fail "data copied by sendto/write: $(traced_copies | head -n 2)"
	grep -q 'io_uring_enter' "$T/trace" || fail "no io_uring_enter in the trace"
}

# --- zcs's receive modes ---

# independent_stream MODE: a stream built by printf and cat, received whole and counted.
independent_stream() {
	make_files "$T/f"
	start_zcs -m "$1"
	grep -q "^zcs: receive mode $1, 1048576-byte chunks\$" "$T/zcs.err" ||
		fail "zcs -d did not name the mode: $(cat "$T/zcs.err")"
	encode_stream 3 "$T"/f/* >"$T/stream"
	cat "$T/stream" >"/dev/tcp/127.0.0.1/$PORT"
	wait_summaries 1
	expect_match "$(zcs_summaries)" "^received $(stat -c %s "$T/stream") bytes in [0-9.]+ s, [0-9]+ kbytes/sec$CPU_TIMES\$"
	wait_until 5 grep -q ' files$' "$T/zcs.err" || fail "no file count"
	expect_match "$(grep ' files$' "$T/zcs.err")" ": 21 files\$" "files zcs counted"
}

# zcs -m splice sizes a pipe per connection: one it may not have fails zcs at
# the start, not each connection after it.
test_zcs_splice_with_a_pipe_too_large_fails_at_the_start() {
	local rc=0
	as_nobody_or_skip
	[ "$(cat /proc/sys/fs/pipe-max-size)" -lt 2097152 ] || skip "pipe-max-size allows 2 MiB"
	# shellcheck disable=SC2086 # the wrapper's words
	timeout 10 $AS_NOBODY "$ROOT/zcs" -m splice -b 2m -p "$(free_port)" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code (124: zcs started)"
	expect_eq "$(cat "$T/err")" "zcs: -b 2097152: F_SETPIPE_SZ (a pipe may be at most /proc/sys/fs/pipe-max-size bytes without CAP_SYS_RESOURCE): Operation not permitted"
}

test_zcs_trunc_counts_an_independent_stream_exactly() {
	independent_stream trunc
}

test_zcs_splice_counts_an_independent_stream_exactly() {
	independent_stream splice
}

# receive_cut_short MODE: the incomplete and the overlong stream, said as in read mode.
receive_cut_short() {
	start_zcs -m "$1"
	{ u32be 1; u32be 1; u32be 1000; head -c 10 /dev/zero; } >"/dev/tcp/127.0.0.1/$PORT"
	{ u32be 1; u32be 1; u32be 3; printf 'abcjunk'; } >"/dev/tcp/127.0.0.1/$PORT"
	{ u32be 2; printf '\0'; } >"/dev/tcp/127.0.0.1/$PORT"
	wait_summaries 3
	expect_eq "$(zcs_summaries | sed 's/ in .* s, [0-9]* kbytes\/sec//; s/, cpu .*//' | sort)" \
"received 19 bytes, 4 bytes after the end of the stream
received 22 bytes, incomplete: waiting for file data
received 5 bytes, incomplete: waiting for header"
}

test_zcs_trunc_reports_incomplete_and_extra_bytes() {
	receive_cut_short trunc
}

test_zcs_splice_reports_incomplete_and_extra_bytes() {
	receive_cut_short splice
}

test_every_send_mode_to_every_receive_mode_counts_alike() {
	local rm sm want n
	make_files "$T/f"
	want=$(stream_bytes 2 "$T"/f/*)
	for rm in $(recv_modes); do
		start_zcs -m "$rm" -b 64k
		n=0
		for sm in $(send_modes); do
			case "$sm" in uring*) uring_or_skip "$sm" ;; esac
			expect_match "$("$ROOT/zcc" -n 2 -m "$sm" -p "$PORT" -s 127.0.0.1 "$T"/f/*)" \
				"^sent $want bytes " "zcc -m $sm to zcs -m $rm"
			n=$((n + 1))
		done
		wait_summaries "$n"
		expect_eq "$(zcs_summaries | awk '{ print $2 }' | sort -u)" "$want" "zcs -m $rm counts"
		kill -9 "$ZCS_PID"
	done
}

# zcs -m trunc reads only headers into its buffer: file data goes by MSG_TRUNC.
test_zcs_trunc_reads_headers_only() {
	command -v strace >/dev/null || skip "strace is not installed"
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	head -c 300000 /dev/urandom >"$T/file"
	start_zcs -m trunc
	strace -f -e trace=read,recvfrom -e signal=none -o "$T/trace" -p "$ZCS_PID" 2>"$T/strace.err" &
	started $!
	wait_until 5 grep -q attached "$T/strace.err" || fail "strace did not attach to zcs"
	"$ROOT/zcc" -n 2 -p "$PORT" -s 127.0.0.1 "$T/file" >/dev/null
	wait_summaries 1
	grep -E 'read\([0-9]+, .*, [0-9]+\) = [0-9]+$' "$T/trace" | grep -vE ', [1-4]\) = [0-4]$' &&
		fail "a read of more than a header's bytes"
	expect_eq "$(grep -E 'recvfrom\(.*MSG_TRUNC' "$T/trace" | awk '{ s += $NF } END { print s }')" \
		600000 "bytes dropped by MSG_TRUNC"
}

# The default depth keeps about 4 MiB in flight, within 1..64; a -q given
# is kept; zcc -d and -J say the depth used.
test_default_depth_follows_the_chunk_and_q_is_kept() {
	local b want
	head -c 100000 /dev/urandom >"$T/file"
	start_zcs
	for b in 64k:64 1m:4 300000:13 3m:1 32k:64; do
		want=${b#*:} b=${b%%:*}
		"$ROOT/zcc" -d -m zerocopy -b "$b" -p "$PORT" -s 127.0.0.1 "$T/file" >/dev/null 2>"$T/err" ||
			fail "zcc -b $b: $(cat "$T/err")"
		expect_match "$(grep 'chunks in flight' "$T/err")" ", mode zerocopy, $want chunks in flight" "-b $b"
	done
	"$ROOT/zcc" -J -q 3 -M 1000 -m uring -b 64k -p "$PORT" -s 127.0.0.1 "$T/file" >"$T/out" ||
		fail "zcc -q 3 failed"
	expect_match "$(cat "$T/out")" '"depth":3,.*"mss":1000[,}]' "-J's depth and mss"
}

run_tests "$@"
