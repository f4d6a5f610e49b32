#!/bin/bash
# zcc sends to zcs on loopback: every mode, both address families, and the
# byte counts and output lines the manual promises.
# make check-quick runs this file.
. "$(dirname "$0")/lib.sh"

SUMMARY_SENT="^sent [0-9]+ bytes in [0-9]+\\.[0-9]{3} s, [0-9]+ kbytes/sec, mode (sendfile|send|write)$CPU_TIMES\$"
SUMMARY_RECEIVED="^received [0-9]+ bytes in [0-9]+\\.[0-9]{3} s, [0-9]+ kbytes/sec$CPU_TIMES\$"

# send_and_compare MODE ARGS...: zcc -n 3 ARGS over the awkward file set; both
# summaries must count exactly the bytes of the stream, in mode MODE.
send_and_compare() {
	local mode=$1 want out
	shift
	make_files "$T/f"
	start_zcs
	want=$(stream_bytes 3 "$T"/f/*)
	out=$("$ROOT/zcc" -n 3 -p "$PORT" "$@" "$T"/f/*)
	expect_match "$out" "$SUMMARY_SENT" "zcc summary"
	expect_eq "$(echo "$out" | awk '{ print $2 }')" "$want" "bytes zcc sent"
	wait_summaries 1
	expect_match "$(zcs_summaries)" "$SUMMARY_RECEIVED" "zcs summary"
	expect_eq "$(zcs_summaries | awk '{ print $2 }')" "$want" "bytes zcs received"
	expect_eq "$(echo "$out" | sed -n 's/.*, mode \([a-z]*\),.*/\1/p')" "$mode" "mode"
}

test_sendfile_over_ipv4_counts_every_byte() {
	send_and_compare sendfile -s 127.0.0.1
}

test_send_over_ipv6_with_8k_buffer_counts_every_byte() {
	ip -6 addr show lo 2>/dev/null | grep -q '::1' || skip "no IPv6 loopback"
	send_and_compare send -S -b 8k -s ::1
}

test_write_mode_by_name_counts_every_byte() {
	send_and_compare write -m write -s localhost
}

test_S_w_is_write_mode() {
	send_and_compare write -S -w -b 1k -s localhost
}

test_cork_counts_every_byte() {
	send_and_compare send -k -S -b 64 -s 127.0.0.1
}

test_sendfile_stream_matches_independent_encoding() {
	check_stream_matches_independent_encoding
}

test_send_stream_matches_independent_encoding() {
	check_stream_matches_independent_encoding -S -b 1000
}

test_write_stream_matches_independent_encoding() {
	check_stream_matches_independent_encoding -S -w -b 4k
}

# zcc opens each file once for the stream: 7 files sent 3 times, 14 opens
# (7 to check them before connecting, 7 for the stream; opened each time
# they were 28), in the modes that read at an offset and in sendfile's.
test_each_file_is_opened_once_for_the_stream() {
	local args
	command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	make_files "$T/f"
	for args in "-m sendfile" "-m send -b 1000" "-m splice -b 4k"; do
		ZCC_WRAP="strace -qq -e trace=openat,open -o $T/trace" stream_matches_encoding 3 "$T/f" $args
		expect_eq "$(grep -c "\"$T/f/" "$T/trace")" 14 "zcc $args: its opens of the files: $(cat "$T/trace")"
	done
}

# Out of descriptors, zcc keeps none open and opens each file as it sends
# it: 7 files and 4 descriptors to spare, every byte in order.
test_a_stream_with_few_descriptors_opens_each_file_as_it_goes() {
	make_files "$T/f"
	ZCC_WRAP="prlimit --nofile=8:8" stream_matches_encoding 2 "$T/f"
	ZCC_WRAP="prlimit --nofile=8:8" stream_matches_encoding 2 "$T/f" -m send -b 4k
}

# A file renamed over while the loop before is being sent goes out as it
# is now in the next loop: its new length and its new bytes.
check_renamed_over_is_sent_anew() {
	local rc=0
	start_slow_capture
	cp "$T/file" "$T/old"
	head -c 3000000 /dev/urandom >"$T/new"
	"$ROOT/zcc" -o 4096 -n 2 -s 127.0.0.1 -p "$CAPTURE_PORT" "$@" "$T/file" >"$T/out" 2>"$T/err" &
	local zcc=$!
	started "$zcc"
	sleep 0.3
	mv "$T/new" "$T/file"
	wait "$zcc" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "0:" "zcc $*"
	await_capture
	{ u32be 2; u32be 1; u32be 4194304; cat "$T/old"; u32be 1; u32be 3000000; cat "$T/file"; } >"$T/want"
	cmp "$T/want" "$T/wire" >"$T/cmp" 2>&1 || fail "zcc $*: not the old file then the new: $(cat "$T/cmp")"
	rm -f "$T/wire"
}

test_a_file_renamed_over_is_sent_anew_in_sendfile_mode() {
	check_renamed_over_is_sent_anew
}

test_a_file_renamed_over_is_sent_anew_in_send_mode() {
	check_renamed_over_is_sent_anew -S
}

# What a 2001 zcc puts on the wire, built by printf, is received complete.
test_zcs_accepts_independently_encoded_stream() {
	make_files "$T/f"
	start_zcs
	encode_stream 4 "$T"/f/* >"$T/stream"
	cat "$T/stream" >"/dev/tcp/127.0.0.1/$PORT"
	wait_summaries 1
	expect_match "$(zcs_summaries)" "^received $(stat -c %s "$T/stream") bytes in [0-9.]+ s, [0-9]+ kbytes/sec$CPU_TIMES\$"
}

test_zcs_accepts_zero_loops() {
	start_zcs
	u32be 0 >"/dev/tcp/127.0.0.1/$PORT"
	wait_summaries 1
	expect_match "$(zcs_summaries)" "^received 4 bytes in [0-9.]+ s, [0-9]+ kbytes/sec$CPU_TIMES\$"
}

test_zcs_reports_bytes_after_the_end() {
	start_zcs
	{ u32be 1; u32be 0; printf 'junk'; } >"/dev/tcp/127.0.0.1/$PORT"
	wait_summaries 1
	expect_match "$(zcs_summaries)" "^received 12 bytes in [0-9.]+ s, [0-9]+ kbytes/sec, 4 bytes after the end of the stream$CPU_TIMES\$"
}

test_zcs_prints_rate_every_interval() {
	start_zcs -t 1
	{ u32be 1; u32be 1; u32be 100; sleep 2.6; head -c 100 /dev/zero; } >"/dev/tcp/127.0.0.1/$PORT"
	wait_summaries 1
	local lines
	lines=$(grep -c -E '^[0-9]+ kbytes/sec$' "$T/zcs.out")
	[ "$lines" -ge 2 ] && [ "$lines" -le 3 ] || fail "$lines interval lines in 2.6 s with -t 1"
	grep -v -E '^([0-9]+ kbytes/sec|received .*)$' "$T/zcs.out" && fail "unexpected zcs output"
	expect_match "$(zcs_summaries)" "^received 112 bytes in 2\\.[5-9][0-9]{2} s, 0 kbytes/sec$CPU_TIMES\$"
}

# The default chunk, traced: zcc -S reads (pread, at each chunk's offset) and
# sends 1 MiB at a time, the last read asks for what is left of the file, and
# zcs reads 1 MiB at a time.
test_default_chunk_is_one_mib() {
	local fd sizes
	command -v strace >/dev/null || skip "strace is not installed"
	# LeakSanitizer cannot run under ptrace; this only matters with SANITIZE=1.
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	head -c 2500000 /dev/urandom >"$T/big"
	start_zcs
	strace -f -e trace=read -e signal=none -o "$T/zcs.trace" -p "$ZCS_PID" 2>"$T/strace.err" &
	started $!
	wait_until 5 grep -q attached "$T/strace.err" || fail "strace did not attach to zcs"
	strace -e trace=openat,pread64,sendto -e signal=none -o "$T/zcc.trace" \
		"$ROOT/zcc" -S -p "$PORT" -s 127.0.0.1 "$T/big" >/dev/null
	wait_summaries 1
	fd=$(grep -F "\"$T/big\"" "$T/zcc.trace" | grep -o '= [0-9]*$' | tail -n 1 | tr -d '= ')
	[ -n "$fd" ] || fail "no open of the file in zcc's trace"
	sizes=$(grep "^pread64($fd, " "$T/zcc.trace" | sed -E 's/.*, ([0-9]+), ([0-9]+)\) += ([0-9]+)$/\1@\2:\3/' | tr '\n' ' ')
	expect_eq "$sizes" "1048576@0:1048576 1048576@1048576:1048576 402848@2097152:402848 " \
		"zcc pread() sizes and offsets, asked@offset:got"
	expect_eq "$(grep -c -E '^sendto\([0-9]+, .*, 1048576, [A-Z_0-9|]+, NULL, 0\) += 1048576$' "$T/zcc.trace")" 2 "1 MiB sends"
	grep -E ' read\(' "$T/zcs.trace" >"$T/zcs.reads" || fail "no reads in zcs's trace"
	grep -v -q -E ', 1048576\) += [0-9]+$' "$T/zcs.reads" &&
		fail "zcs read another size: $(grep -v -E ', 1048576\) += [0-9]+$' "$T/zcs.reads" | head -n 1)"
	true
}

test_loops_option_repeats_the_file_set() {
	local out
	make_files "$T/f"
	start_zcs
	out=$("$ROOT/zcc" -n 25 -p "$PORT" -s localhost "$T/f/350k" "$T/f/one")
	expect_eq "$(echo "$out" | awk '{ print $2 }')" "$(stream_bytes 25 "$T/f/350k" "$T/f/one")"
	wait_summaries 1
	grep -q ': 50 files$' "$T/zcs.err" || fail "zcs -d did not count 50 files"
}

test_buffer_sizes_are_reported_with_d() {
	make_files "$T/f"
	start_zcs -i 256k -o 128k
	grep -qx 'zcs: SO_RCVBUF 262144 (kernel reports 524288)' "$T/zcs.err" || fail "zcs -d -i"
	grep -qx 'zcs: SO_SNDBUF 131072 (kernel reports 262144)' "$T/zcs.err" || fail "zcs -d -o"
	"$ROOT/zcc" -d -i 64k -o 32k -p "$PORT" -s 127.0.0.1 "$T/f/350k" >/dev/null 2>"$T/zcc.err"
	grep -qx 'zcc: SO_RCVBUF 65536 (kernel reports 131072)' "$T/zcc.err" || fail "zcc -d -i"
	grep -qx 'zcc: SO_SNDBUF 32768 (kernel reports 65536)' "$T/zcc.err" || fail "zcc -d -o"
}

# zcs -l: SO_RCVLOWAT on each connection, 256 KiB unless told; the kernel
# keeps it below half a receive buffer fixed with -i, and every byte still
# arrives, the last ones with the end of the stream.
test_rcvlowat_is_set_on_each_connection() {
	make_files "$T/f"
	start_zcs
	"$ROOT/zcc" -p "$PORT" -s 127.0.0.1 "$T/f/one" >/dev/null
	wait_summaries 1
	grep -qx 'zcs: SO_RCVLOWAT 262144 (kernel reports 262144)' "$T/zcs.err" || fail "default: $(cat "$T/zcs.err")"
	expect_match "$(zcs_summaries)" "^received $(stream_bytes 1 "$T/f/one") bytes in "
}

test_rcvlowat_given_with_l_and_capped_by_i() {
	local want
	make_files "$T/f"
	start_zcs -l 1m -i 16k
	want=$(stream_bytes 20 "$T"/f/*)
	expect_eq "$("$ROOT/zcc" -n 20 -p "$PORT" -s 127.0.0.1 "$T"/f/* | awk '{ print $2 }')" "$want" "bytes zcc sent"
	wait_summaries 1
	grep -qx 'zcs: SO_RCVLOWAT 1048576 (kernel reports 16384)' "$T/zcs.err" || fail "-l 1m -i 16k: $(cat "$T/zcs.err")"
	expect_eq "$(zcs_summaries | awk '{ print $2 }')" "$want" "bytes zcs received"
}

test_buffer_size_beyond_rmem_max_names_the_limit() {
	local max err
	max=$(cat /proc/sys/net/core/rmem_max)
	[ "$max" -lt 536870912 ] || skip "rmem_max is already 512 MiB or more"
	err=$("$ROOT/zcs" -p "$(free_port)" -i 512m 2>&1) && fail "zcs accepted -i 512m"
	expect_eq "$err" "zcs: SO_RCVBUF: asked for 536870912 bytes, the kernel granted $max (raise /proc/sys/net/core/rmem_max)"
}

# -d says before connecting how many bytes the stream will carry, which is
# what the summary then counts.
test_d_says_the_bytes_the_stream_will_carry() {
	local want data=0 f out
	make_files "$T/f"
	start_zcs
	want=$(stream_bytes 3 "$T"/f/*)
	for f in "$T"/f/*; do
		data=$((data + $(stat -c %s "$f")))
	done
	out=$("$ROOT/zcc" -d -n 3 -m uring -p "$PORT" -s 127.0.0.1 "$T"/f/* 2>"$T/err" ||
		"$ROOT/zcc" -d -n 3 -p "$PORT" -s 127.0.0.1 "$T"/f/* 2>"$T/err")
	expect_match "$(grep 'files, ' "$T/err")" \
		"^zcc: 7 files, $data bytes of file data a loop, $want bytes in all, mode (uring, 4 chunks in flight|sendfile)\$"
	expect_eq "$(echo "$out" | awk '{ print $2 }')" "$want" "bytes sent"
}

# rate_of_line PER: the summary line on stdin ("... B bytes in S s, X unit")
# has X within what B bits over S give, S being rounded to a millisecond, in
# PER bits a second (and a hundredth, X's own rounding).
rate_of_line() {
	awk -v per="$1" '{ lo = $2 * 8 / ($5 + 0.0005) / per; hi = $5 > 0.0005 ? $2 * 8 / ($5 - 0.0005) / per : 1e30
		exit !($7 >= lo - 0.01 && $7 <= hi + 0.01) }'
}

# -f: each end's rates in the unit asked, bits a second (k, m, g, t: x1000,
# as iperf3 -f) or bytes (K, the 2001 default, M, G: x1024), the figure the
# bytes and seconds on the line give; a letter that is no unit is an error.
test_f_gives_the_rates_in_the_unit_asked() {
	local out line
	make_files "$T/f"
	start_zcs -f m
	out=$("$ROOT/zcc" -f g -n 4 -p "$PORT" -s 127.0.0.1 "$T"/f/*) || fail "zcc -f g failed"
	expect_match "$out" "^sent [0-9]+ bytes in [0-9.]+ s, [0-9]+\.[0-9]{2} Gbits/sec, mode sendfile$CPU_TIMES\$"
	rate_of_line 1e9 <<<"$out" || fail "the Gbits/sec are not the bytes over the seconds: $out"
	wait_summaries 1
	line=$(zcs_summaries | tail -n 1)
	expect_match "$line" "^received [0-9]+ bytes in [0-9.]+ s, [0-9]+\.[0-9]{2} Mbits/sec$CPU_TIMES\$"
	rate_of_line 1e6 <<<"$line" || fail "the Mbits/sec are not the bytes over the seconds: $line"
	out=$("$ROOT/zcc" -f K -p "$PORT" -s 127.0.0.1 "$T"/f/one) || fail "zcc -f K failed"
	expect_match "$out" "^sent [0-9]+ bytes in [0-9.]+ s, [0-9]+ kbytes/sec, mode sendfile"
	out=$("$ROOT/zcc" -f M -p "$PORT" -s 127.0.0.1 "$T"/f/one) || fail "zcc -f M failed"
	expect_match "$out" "^sent [0-9]+ bytes in [0-9.]+ s, [0-9]+\.[0-9]{2} Mbytes/sec, mode sendfile"
	usage_error zcc "zcc: -f 'x': not a unit: k, m, g, t (bits a second) or K, M, G (bytes)" -f x -s localhost /etc/hostname
	usage_error zcc "zcc: -f 'mb': not a unit: k, m, g, t (bits a second) or K, M, G (bytes)" -f mb -s localhost /etc/hostname
	usage_error zcs "zcs: -f 'T': not a unit: k, m, g, t (bits a second) or K, M, G (bytes)" -f T
}

# zcs -f's interval lines, and -u's summaries, in the unit asked.
test_f_gives_zcs_intervals_and_datagram_summaries_in_the_unit() {
	make_files "$T/f"
	start_zcs -f k -t 1
	{ u32be 1; u32be 1; u32be 100; sleep 1.3; head -c 100 /dev/zero; } >"/dev/tcp/127.0.0.1/$PORT"
	wait_summaries 1
	grep -qE '^[0-9]+\.[0-9]{2} Kbits/sec$' "$T/zcs.out" || fail "no interval line in Kbits/sec: $(cat "$T/zcs.out")"
	kill "$ZCS_PID"
	wait "$ZCS_PID" 2>/dev/null || true
	start_zcs -u -f g
	UDP_DROPS_BEFORE=$(udp_full_buffer_drops)
	"$ROOT/zcc" -u -p "$PORT" -s 127.0.0.1 "$T/f/one" >/dev/null || fail "zcc -u failed"
	wait_summaries 1
	none_lost_or_skip "$(zcs_summaries | tail -n 1)"
	expect_match "$(zcs_summaries | tail -n 1)" "^received [0-9]+ bytes in [0-9.]+ s, [0-9]+\.[0-9]{2} Gbits/sec, [0-9]+ datagrams, 0 lost"
}

test_h_prints_usage_and_exits_0() {
	local out
	out=$("$ROOT/zcc" -h | sed '/^[A-Z]/,$d') || fail "zcc -h exited $?"
	expect_eq "$out" "usage: zcc [-cCdDEhIJkQSuw] [-A msecs] [-b bufsize] [-B cpu[,cpu...]] [-e file]
           [-f unit] [-i rcvbuf] [-K cc] [-l bytes] [-m mode[,mode...]] [-M mss]
           [-n loops] [-N cpus] [-o sndbuf] [-p port] [-P streams] [-q depth]
           [-R rate] [-t secs] [-T msecs] [-U cpus] [-W secs]
           [-X name=value,value...] -s server file..."
	out=$("$ROOT/zcs" -h | sed '/^[A-Z]/,$d') || fail "zcs -h exited $?"
	expect_eq "$out" "usage: zcs [-cCdDhIJQu] [-a addr] [-A msecs] [-b bufsize] [-B cpu] [-e file]
           [-f unit] [-i rcvbuf] [-l lowat] [-L conns] [-m mode[,mode...]]
           [-N cpus] [-o sndbuf] [-p port] [-t secs] [-T msecs] [-U cpus]
           [-W secs]"
}

test_zcs_listens_on_one_address_with_a() {
	make_files "$T/f"
	start_zcs -a 127.0.0.1
	grep -q "listening on 127.0.0.1 port $PORT" "$T/zcs.err" || fail "not on 127.0.0.1"
	"$ROOT/zcc" -p "$PORT" -s 127.0.0.1 "$T/f/one" >/dev/null
	if "$ROOT/zcc" -p "$PORT" -s ::1 "$T/f/one" 2>"$T/err"; then
		fail "zcs -a 127.0.0.1 accepted a connection on ::1"
	fi
	grep -q "connect to ::1 port $PORT: Connection refused" "$T/err" || fail "$(cat "$T/err")"
}

test_pinning_with_B() {
	make_files "$T/f"
	start_zcs -B 0
	expect_eq "$(taskset -pc "$ZCS_PID" | awk '{ print $NF }')" "0" "zcs affinity"
	"$ROOT/zcc" -B 0 -p "$PORT" -s localhost "$T/f/350k" >/dev/null
}

run_tests "$@"
