#!/bin/bash
# scripts/packet-sizes and scripts/small-writes in tiny configurations, each
# between two namespaces of its own: their tables' shape, numbers where
# numbers belong, the verdict's words, no namespace left behind, and their
# option errors.
. "$(dirname "$0")/lib.sh"

need_netns() {
	[ "$(id -u)" = 0 ] || skip "needs root (ip netns add)"
	ip netns add "zc-probe-$$" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns del "zc-probe-$$"
}

# The namespaces a script named by its pid (zc-pa-PID and the like) are gone.
no_namespace_left() {
	[ -z "$(ip netns list | grep -E "^zc-[ps][ab]-$1( |\$)")" ] || fail "namespaces left: $(ip netns list)"
}

test_packet_sizes_gives_bytes_a_packet_and_the_rates() {
	local num='[0-9]+' fig='[0-9]+\.[0-9]'
	need_netns
	bash "$ROOT/scripts/packet-sizes" --rounds 1 --secs 0.2 --sizes 64k --sndbufs -,64k --rates full,64m \
		>"$T/out" 2>"$T/err" & 
	started $!
	wait $! || fail "packet-sizes failed: $(cat "$T/err")"
	expect_eq "$(grep -c -E '^bytes a packet +full +full -o 64k +-R 64m +-R 64m -o 64k$' "$T/out")" 1 "the header: $(cat "$T/out")"
	expect_eq "$(grep -E "^(sendfile|send -b 64k|splice -b 64k|zerocopy -b 64k) +$num +$num +$num +$num\$" "$T/out" |
		awk '{ print $1 }' | tr '\n' ' ')" "sendfile send splice zerocopy " "the bytes-a-packet rows"
	expect_eq "$(grep -E "^(sendfile|send -b 64k|splice -b 64k|zerocopy -b 64k) +$fig +$fig +$fig +$fig\$" "$T/out" | wc -l)" 4 \
		"the MB/s rows"
	# Paced at 64m, no faster than 64 MiB/s (67.1 MB/s) and 10%: the pacing
	# holds. How near a paced stream comes to its rate from below is
	# t_rate's to judge, with the host to itself: beside make check's other
	# files, runs of 0.2 s here read 58.6 to 59.8 MB/s.
	grep -E "^(sendfile|send -b 64k|splice -b 64k|zerocopy -b 64k) +$fig +$fig +$fig +$fig\$" "$T/out" |
		awk '{ r = $(NF - 1); if (r > 74) bad = 1 } END { exit bad }' || fail "a paced rate above 64m: $(cat "$T/out")"
	no_namespace_left "$(grep -o -E 'zc-pa-[0-9]+' "$T/out" | head -n 1 | cut -d- -f3)"
}

test_small_writes_gives_the_table_and_the_exchanges_verdict() {
	local fig='[0-9]+\.[0-9]'
	need_netns
	bash "$ROOT/scripts/small-writes" --rounds 2 --mb 1 >"$T/out" 2>"$T/err" &
	started $!
	wait $! || fail "small-writes failed: $(cat "$T/err")"
	expect_eq "$(grep -c -E "^(no|yes \(-E\)) +(on|off) +(on|off) +$fig \[$fig, $fig\] +16\.0 +$fig +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\$" "$T/out")" 8 \
		"the configurations' rows: $(cat "$T/out")"
	expect_eq "$(grep -c -E "^  Nagle (on |off) autocorking (on |off) +[-+]$fig% \[[-+]$fig, [-+]$fig\]  (differs: [-+]$fig%|the same within \+-5%|not resolved)\$" "$T/out")" 4 \
		"the exchange's verdicts: $(cat "$T/out")"
	# With Nagle off each 16-byte write is a packet of its own: 16 bytes and 66 of headers.
	grep -E '^(no|yes \(-E\)) +off ' "$T/out" | awk '{ if ($(NF - 3) < 80 || $(NF - 3) > 90) bad = 1 } END { exit bad }' ||
		fail "Nagle off, not a write a packet: $(cat "$T/out")"
	no_namespace_left "$(grep -o -E 'zc-sa-[0-9]+' "$T/out" | head -n 1 | cut -d- -f3)"
}

test_the_scripts_refuse_bad_options() {
	local rc
	for args in "--rounds 0" "--rounds x" "--receiver 1999" "--mb" "--bogus"; do
		rc=0
		bash "$ROOT/scripts/small-writes" $args >"$T/out" 2>"$T/err" || rc=$?
		expect_eq "$rc" 2 "small-writes $args: $(cat "$T/err")"
		[ -s "$T/err" ] || fail "small-writes $args said nothing"
	done
	rc=0
	bash "$ROOT/scripts/small-writes" --receiver 1999 >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:small-writes: --receiver '1999': 2001 or zc"
	rc=0
	bash "$ROOT/scripts/packet-sizes" --rounds 0 >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:packet-sizes: --rounds '0': a whole number from 1"
	rc=0
	bash "$ROOT/scripts/packet-sizes" --sizes >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:packet-sizes: --sizes needs a value"
	rc=0
	bash "$ROOT/scripts/packet-sizes" --sizes 4k,lots >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:packet-sizes: 'lots': a size (4k, 1m) expected in --sizes and --sndbufs"
	rc=0
	bash "$ROOT/scripts/packet-sizes" --secs 0 >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:packet-sizes: --secs '0': seconds above 0 (0.5, 2)"
}

run_tests "$@"
