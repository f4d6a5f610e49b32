#!/bin/bash
# Small writes and what decides them: each end's calls and bytes a call, the
# host's ACK and corking counters, TCP_NODELAY and TCP_QUICKACK (-D, -Q), and
# the opening exchange (zcc -E), which a zcs of 2001 does not answer and a
# stream of 2001 never sets off.
# make check-quick runs this file.
. "$(dirname "$0")/lib.sh"

# jget FILE PATH: a member of the JSON object on FILE's last line.
jget() {
	python3 -c 'import json, sys
o = json.loads(open(sys.argv[1]).read().splitlines()[-1])
for k in sys.argv[2].split("."):
    o = o[k]
print(json.dumps(o))' "$1" "$2"
}

need_python() {
	command -v python3 >/dev/null || skip "python3 is not installed (apt-get install python3)"
}

# 8000 bytes in 16-byte writes: 500 writes and the 3 headers' (loops, files,
# length), 503 calls of 8012 bytes; zcs reading 16 bytes at a time takes them
# in 501 reads (the last of 12). Each end says so in -J, and with -I on its
# line, beside the host's counters.
test_each_end_counts_its_calls_and_the_bytes_a_call() {
	need_python
	head -c 8000 /dev/urandom >"$T/file"
	start_zcs -J -b 16
	"$ROOT/zcc" -J -m write -b 16 -s 127.0.0.1 -p "$PORT" "$T/file" >"$T/zcc.json" || fail "zcc failed"
	wait_summaries 1
	zcs_summaries >"$T/zcs.json"
	expect_eq "$(jget "$T/zcc.json" result.bytes) $(jget "$T/zcc.json" result.calls) $(jget "$T/zcc.json" result.bytes_per_call)" \
		"8012 503 15.9" "zcc's bytes, calls and bytes a call"
	expect_eq "$(jget "$T/zcs.json" result.bytes) $(jget "$T/zcs.json" result.reads) $(jget "$T/zcs.json" result.bytes_per_read)" \
		"8012 501 16.0" "zcs's bytes, reads and bytes a read"
	for f in zcc zcs; do
		expect_match "$(jget "$T/$f.json" netstat)" '^\{"autocorking": [0-9]+, "delayed_acks": [0-9]+, "delayed_acks_locked": [0-9]+, "pure_acks": [0-9]+\}$' "$f's host counters"
	done
	# The same with -I, in words; sendfile's calls are its headers and one
	# sendfile() of the whole file.
	kill "$ZCS_PID"
	start_zcs -I -b 16
	"$ROOT/zcc" -I -m write -b 16 -s 127.0.0.1 -p "$PORT" "$T/file" >"$T/out" || fail "zcc -I failed"
	expect_match "$(sed -n 3p "$T/out")" '^calls: 503, 15\.9 bytes a call; host: autocorked [0-9]+, delayed ACKs [0-9]+ \([0-9]+ locked\), pure ACKs received [0-9]+$' "zcc's calls line"
	wait_summaries 1
	expect_match "$(grep -A2 '^received ' "$T/zcs.out" | sed -n 3p)" '^reads: 501, 16\.0 bytes a read; host: autocorked [0-9]+, delayed ACKs [0-9]+ \([0-9]+ locked\), pure ACKs received [0-9]+$' "zcs's reads line"
	"$ROOT/zcc" -I -s 127.0.0.1 -p "$PORT" "$T/file" >"$T/out" || fail "zcc -I sendfile failed"
	expect_match "$(sed -n 3p "$T/out")" '^calls: 4, 2003\.0 bytes a call; ' "sendfile's calls"
}

# -D and -Q are the socket options they name: zcc sets each once, as it
# connects; zcs sets TCP_NODELAY on each connection and TCP_QUICKACK again
# after every read (the kernel leaves quick-ACK mode by itself). -J says so.
test_D_and_Q_set_nodelay_and_quickack() {
	local reads
	need_python
	command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
	# LeakSanitizer cannot run under ptrace (make check SANITIZE=1).
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	head -c 100000 /dev/urandom >"$T/file"
	PORT=$(random_port)
	strace -f -qq -e trace=setsockopt -o "$T/zcs.trace" "$ROOT/zcs" -d -J -D -Q -b 4096 -p "$PORT" \
		>"$T/zcs.out" 2>"$T/zcs.err" &
	started $!
	wait_until 5 grep -q "listening on" "$T/zcs.err" || fail "zcs did not start: $(cat "$T/zcs.err")"
	strace -qq -e trace=setsockopt -o "$T/zcc.trace" "$ROOT/zcc" -J -D -Q -s 127.0.0.1 -p "$PORT" "$T/file" \
		>"$T/zcc.json" || fail "zcc failed"
	wait_summaries 1
	zcs_summaries >"$T/zcs.json"
	expect_eq "$(grep -c 'TCP_NODELAY, \[1\]' "$T/zcc.trace") $(grep -c 'TCP_QUICKACK, \[1\]' "$T/zcc.trace")" "1 1" \
		"zcc's setsockopt calls: $(cat "$T/zcc.trace")"
	reads=$(jget "$T/zcs.json" result.reads)
	expect_eq "$(grep -c 'TCP_NODELAY, \[1\]' "$T/zcs.trace") $(grep -c 'TCP_QUICKACK, \[1\]' "$T/zcs.trace")" "1 $((reads + 1))" \
		"zcs's setsockopt calls, $reads reads"
	expect_eq "$(jget "$T/zcc.json" settings.nodelay) $(jget "$T/zcc.json" settings.quickack) $(jget "$T/zcs.json" settings.nodelay) $(jget "$T/zcs.json" settings.quickack)" \
		"true true true true" "-J's settings"
	usage_error zcc "zcc: -D is for TCP: -u sends datagrams" -u -D -s 127.0.0.1 "$T/file"
	usage_error zcc "zcc: -Q is for TCP: -u sends datagrams" -u -Q -s 127.0.0.1 "$T/file"
	usage_error zcs "zcs: -D is for TCP: -u has no connection" -u -D
	usage_error zcs "zcs: -Q is for TCP: -u has no connection" -u -Q
}

# A file's length goes with MSG_MORE where its data follows by the socket
# (not an empty file's): the loop count, the file count and the empty file's
# length without it, the 1000-byte file's with it. -m write writes it.
test_a_files_length_is_sent_with_MSG_MORE_ahead_of_its_data() {
	local mode
	command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	: >"$T/empty"
	head -c 1000 /dev/urandom >"$T/file"
	start_zcs
	for mode in sendfile send splice zerocopy memory; do
		strace -qq -e trace=sendto,write -o "$T/trace" "$ROOT/zcc" -m "$mode" -s 127.0.0.1 -p "$PORT" \
			"$T/empty" "$T/file" >/dev/null || fail "zcc -m $mode failed"
		expect_eq "$(awk -F', ' '/^sendto\(.*, 4, / { printf "%s ", $4 }' "$T/trace")" \
			"MSG_NOSIGNAL MSG_NOSIGNAL MSG_NOSIGNAL MSG_NOSIGNAL|MSG_MORE " "-m $mode's 4-byte sends: $(cat "$T/trace")"
	done
	strace -qq -e trace=sendto,write -o "$T/trace" "$ROOT/zcc" -m write -s 127.0.0.1 -p "$PORT" \
		"$T/empty" "$T/file" >/dev/null || fail "zcc -m write failed"
	expect_eq "$(grep -c -E '^write\([0-9]+, ".*", 4\) += 4$' "$T/trace") $(grep -c '^sendto' "$T/trace")" "4 0" \
		"-m write's 4-byte writes: $(cat "$T/trace")"
}

# zcc -K sets the socket's congestion control before connecting and -J
# says which; a name the kernel has not got ends the run naming what it has.
test_K_sets_the_congestion_control() {
	local rc=0 cc
	need_python
	command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	head -c 100000 /dev/urandom >"$T/file"
	start_zcs
	# reno is built into every kernel.
	strace -qq -e trace=setsockopt,connect -o "$T/trace" "$ROOT/zcc" -J -K reno -s 127.0.0.1 -p "$PORT" "$T/file" \
		>"$T/zcc.json" || fail "zcc -K reno failed"
	expect_eq "$(awk '/TCP_CONGESTION, .*, 4\) += 0$/ { printf "set " } /^connect/ { printf "connect " }' "$T/trace")" \
		"set connect " "set before connecting: $(cat "$T/trace")"
	expect_eq "$(jget "$T/zcc.json" settings.congestion)" '"reno"' "-J's settings"
	"$ROOT/zcc" -J -s 127.0.0.1 -p "$PORT" "$T/file" >"$T/zcc.json" || fail "zcc failed"
	expect_eq "$(jget "$T/zcc.json" settings.congestion)" null "-J's settings without -K"
	"$ROOT/zcc" -K no-such-cc -s 127.0.0.1 -p "$PORT" "$T/file" >/dev/null 2>"$T/err" || rc=$?
	read -r cc </proc/sys/net/ipv4/tcp_available_congestion_control
	expect_eq "$rc:$(cat "$T/err")" \
		"1:zcc: -K no-such-cc: no such congestion control here (tcp_available_congestion_control: $cc)"
	usage_error zcc "zcc: -K 'abcdefghijklmnop': not a congestion control's name (bbr, cubic)" \
		-K abcdefghijklmnop -s 127.0.0.1 "$T/file"
	usage_error zcc "zcc: -K is for TCP: -u sends datagrams" -u -K reno -s 127.0.0.1 "$T/file"
}

# zcc -E: 4 bytes each way before the stream, which zcs counts apart (the
# stream's bytes are the same with it and without), says in -J, and answers
# only as a stream's first 4 bytes.
test_E_exchanges_4_bytes_each_way_before_the_stream() {
	need_python
	make_files "$T/f"
	start_zcs -J
	"$ROOT/zcc" -J -E -n 2 -s 127.0.0.1 -p "$PORT" "$T"/f/* >"$T/with.json" || fail "zcc -E failed"
	wait_summaries 1
	"$ROOT/zcc" -J -n 2 -s 127.0.0.1 -p "$PORT" "$T"/f/* >"$T/without.json" || fail "zcc failed"
	wait_summaries 2
	zcs_summaries >"$T/zcs.json"
	expect_eq "$(jget "$T/with.json" settings.exchange) $(jget "$T/without.json" settings.exchange)" "true false" "zcc's settings"
	expect_eq "$(head -n 1 "$T/zcs.json" >"$T/a.json"; jget "$T/a.json" result.exchange) $(jget "$T/zcs.json" result.exchange)" \
		"true false" "zcs's -J"
	expect_eq "$(jget "$T/a.json" result.bytes) $(jget "$T/a.json" result.complete)" "$(jget "$T/with.json" result.bytes) true" \
		"the stream after the exchange"
	expect_eq "$(jget "$T/zcs.json" result.bytes)" "$(jget "$T/with.json" result.bytes)" "the same stream without it"
	grep -q ': the opening exchange, answered$' "$T/zcs.err" || fail "zcs -d said nothing of it: $(cat "$T/zcs.err")"
}

# After the exchange the stream is the 2001 protocol's, byte for byte: an
# independent peer (capture -E) answers the exchange and keeps what follows,
# compared with the stream built by encode_stream, in every mode (the uring
# ones where this kernel has io_uring) at two chunk sizes, files of several
# MiB among them, twice.
test_E_is_followed_by_the_stream_byte_for_byte() {
	local m b round
	make_files "$T/f"
	head -c $((3 << 20)) /dev/urandom >"$T/f/3m"
	encode_stream 2 "$T"/f/* >"$T/want"
	for round in 1 2; do
		for m in $(send_modes); do
			uring_refused "$m" >/dev/null && continue
			for b in 4k 1m; do
				[ "$m" = sendfile ] && [ "$b" = 4k ] && continue
				start_capture -E "$T/got"
				"$ROOT/zcc" -E -m "$m" -b "$b" -n 2 -s 127.0.0.1 -p "$CAPTURE_PORT" "$T"/f/* >"$T/out" 2>&1 ||
					fail "zcc -E -m $m -b $b: $(cat "$T/out")"
				await_capture
				cmp -s "$T/want" "$T/got" || fail "zcc -E -m $m -b $b, round $round: the stream differs: $(cmp "$T/want" "$T/got" 2>&1)"
			done
		done
	done
}

# The exchange's 4 bytes may come apart: "zc", a pause, "EX"; zcs waits for
# the rest, answers, and reads the stream that follows (one loop of no files).
test_E_in_pieces_is_answered() {
	local answer
	need_python
	start_zcs -J
	exec 3<>"/dev/tcp/127.0.0.1/$PORT"
	printf 'zc' >&3
	sleep 0.3
	printf 'EX' >&3
	read -r -t 5 -N 4 answer <&3 || fail "no answer: '$answer'"
	{ u32be 1; u32be 0; } >&3
	exec 3>&-
	expect_eq "$answer" "zcEX" "zcs's answer"
	wait_summaries 1
	zcs_summaries >"$T/zcs.json"
	expect_eq "$(jget "$T/zcs.json" result.exchange) $(jget "$T/zcs.json" result.bytes) $(jget "$T/zcs.json" result.complete)" \
		"true 8 true" "zcs's reading of it"
}

# -W counts from the last bytes that came while zcs looks for the exchange
# too: "z", "c", "E", "X" 1.2 s apart at -W 3 are answered (they were
# closed after 3.02 s, no exchange), and the stream after them is read.
test_E_a_byte_at_a_time_within_W_is_answered() {
	local answer c
	need_python
	start_zcs -J -W 3
	exec 3<>"/dev/tcp/127.0.0.1/$PORT"
	for c in z c E X; do
		sleep 1.2
		printf '%s' "$c" >&3
	done
	read -r -t 5 -N 4 answer <&3 || fail "no answer: '$answer'"
	sleep 1.2
	{ u32be 1; u32be 0; } >&3
	exec 3>&-
	expect_eq "$answer" "zcEX" "zcs's answer"
	wait_summaries 1
	zcs_summaries >"$T/zcs.json"
	expect_eq "$(jget "$T/zcs.json" result.exchange) $(jget "$T/zcs.json" result.bytes) $(jget "$T/zcs.json" result.complete) $(jget "$T/zcs.json" result.idle_closed)" \
		"true 8 true false" "zcs's reading of it"
}

# A stream of 2001 whose first bytes begin as the exchange's do ("zcE" and
# then not "X": a loop count of 2,053,326,080) is a stream: zcs takes none
# of it for an exchange and answers nothing; it reads the loop count and
# waits for the rest.
test_a_stream_that_begins_like_the_exchange_is_a_stream() {
	need_python
	start_zcs -J -W 1
	{ printf 'zcE\0'; u32be 1; } >"/dev/tcp/127.0.0.1/$PORT"
	wait_summaries 1
	zcs_summaries >"$T/zcs.json"
	expect_eq "$(jget "$T/zcs.json" result.exchange) $(jget "$T/zcs.json" result.bytes) $(jget "$T/zcs.json" result.waiting_for)" \
		'false 8 "header"' "zcs's reading of it"
}

# A zcs of 2001 knows nothing of the exchange: it takes the 4 bytes as the
# stream's start and answers nothing, and zcc -E says so after -W and fails.
# (capture plays that zcs: it reads, and never writes.)
test_E_says_when_nothing_answers() {
	local rc=0
	start_capture -H 0 "$T/got"
	"$ROOT/zcc" -E -W 1 -s 127.0.0.1 -p "$CAPTURE_PORT" "$ROOT/zcc" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" \
		"1:zcc: the opening exchange (-E) with 127.0.0.1: no answer within 1 s (-W): a zcs of 2001 answers none, and one serving its -L connections answers this one only once another ends"
	kill "$CAPTURE_PID" 2>/dev/null || true
	wait "$CAPTURE_PID" 2>/dev/null || true
	expect_eq "$(cat "$T/got")" "zcEX" "what the peer got"
	usage_error zcc "zcc: -E is for TCP: -u sends datagrams" -u -E -s 127.0.0.1 "$ROOT/zcc"
}

run_tests "$@"
