#!/bin/bash
# zcs -m zerocopy: received pages mapped with TCP_ZEROCOPY_RECEIVE, the rest
# read; every header decoded wherever it lies, the counts exact, the mapped
# share said. zcc -M, which makes segments of whole pages over loopback.
. "$(dirname "$0")/lib.sh"

PAGE=$(getconf PAGESIZE)
MAPPED_SUMMARY="^received ([0-9]+) bytes in [0-9.]+ s, [0-9]+ kbytes/sec$CPU_TIMES, mapped ([0-9]+) of ([0-9]+) bytes\$"

# mapped_fields: "bytes mapped complete files extra" of each -J summary zcs printed.
mapped_fields() {
	zcs_summaries | sed -E 's/.*"result":\{"bytes":([0-9]+),.*"complete":(true|false),.*"extra_bytes":([0-9]+),"files":([0-9]+),"mapped_bytes":([0-9]+),.*/\1 \5 \2 \4 \3/'
}

# send_pages STREAM: the stream in one MSG_ZEROCOPY send with TCP_MAXSEG
# PAGE + 12, so that every segment is one page of it, page boundaries at
# multiples of PAGE from its first byte.
send_pages() {
	timeout 10 "$HELPERS/pagesend" "$PORT" $((PAGE + 12)) <"$1" || fail "pagesend exited $?"
}

# straddling_files DIR: files whose headers, in the first loop, lie across the
# first three page boundaries by 2, 1 and 3 bytes, then 0, 1, PAGE-1, PAGE and
# PAGE+1 bytes, and 3 MiB + 5: a header at every offset in a page, over loops.
straddling_files() {
	mkdir -p "$1"
	head -c $((PAGE - 14)) /dev/urandom >"$1/a"
	head -c $((PAGE - 3)) /dev/urandom >"$1/b"
	head -c $((PAGE - 6)) /dev/urandom >"$1/c"
	: >"$1/d"
	head -c 1 /dev/urandom >"$1/e"
	head -c $((PAGE - 1)) /dev/urandom >"$1/f"
	head -c "$PAGE" /dev/urandom >"$1/g"
	head -c $((PAGE + 1)) /dev/urandom >"$1/h"
	head -c 3145733 /dev/urandom >"$1/i"
}

# The stream in page-sized segments: nearly all of it is mapped, and the
# headers that straddle mapped pages are decoded exactly (the file count and
# completeness say so), three times over. Besides the tail, at most 1 page
# in 100 goes unmapped: an odd page the kernel cannot map is read instead,
# and how many there are is the machine's timing (0-2 of the 2322 pages on
# a quiet machine, 0-1 with both CPUs busy; 3, then 4, in CI runs).
test_zcs_zerocopy_maps_page_segments_and_decodes_headers_across_pages() {
	local n size full
	straddling_files "$T/f"
	encode_stream 3 "$T"/f/* >"$T/stream"
	size=$(stat -c %s "$T/stream")
	full=$((size / PAGE * PAGE))
	start_zcs -m zerocopy -J
	for n in 1 2 3; do
		send_pages "$T/stream"
	done
	wait_summaries 3
	while read -r bytes mapped complete files extra; do
		expect_eq "$bytes $complete $files $extra" "$size true 27 0" "bytes, complete, files, extra"
		[ $((mapped % PAGE)) -eq 0 ] || fail "mapped $mapped: not whole pages"
		[ "$mapped" -ge $((full - full / PAGE / 100 * PAGE)) ] && [ "$mapped" -le "$full" ] ||
			fail "mapped $mapped of $size, expected all but the tail and at most 1 page in 100"
	done < <(mapped_fields)
}

# Each awkward size alone, in page segments: the count is exact, the tail read.
test_zcs_zerocopy_counts_small_files_exactly() {
	local size want=""
	start_zcs -m zerocopy -J
	for size in 0 1 $((PAGE - 1)) "$PAGE" $((PAGE + 1)); do
		head -c "$size" /dev/urandom >"$T/file"
		encode_stream 1 "$T/file" >"$T/stream"
		send_pages "$T/stream"
		want="$want$((size + 12)) true 1 0|"
	done
	wait_summaries 5
	expect_eq "$(mapped_fields | awk '{ print $1, $3, $4, $5 }' | tr '\n' '|')" "$want" \
		"bytes, complete, files, extra for 0, 1, PAGE-1, PAGE, PAGE+1"
	expect_eq "$(mapped_fields | awk '{ print $2 }' | tr '\n' ' ')" "0 0 $PAGE $PAGE $PAGE " \
		"mapped: the first page, where there is a whole one"
}

# A stream that stops short inside a mapped page, and one with pages of junk after its end.
test_zcs_zerocopy_reports_incomplete_and_extra_bytes_in_mapped_pages() {
	start_zcs -m zerocopy
	{ u32be 1; u32be 1; u32be 100000; head -c 50000 /dev/urandom; } >"$T/short"
	{ u32be 1; u32be 1; u32be 8192; head -c $((8192 + 3 * PAGE)) /dev/urandom; } >"$T/long"
	send_pages "$T/short"
	send_pages "$T/long"
	wait_summaries 2
	expect_eq "$(zcs_summaries | sed -E 's/ in .* s, [0-9]+ kbytes\/sec//; s/, cpu [^,]*//' | sed 's/, mapped [0-9]*/, mapped M/')" \
"received 50012 bytes, incomplete: waiting for file data, mapped M of 50012 bytes
received $((8204 + 3 * PAGE)) bytes, $((3 * PAGE)) bytes after the end of the stream, mapped M of $((8204 + 3 * PAGE)) bytes"
	zcs_summaries | sed -E 's/.*, mapped ([0-9]+) of.*/\1/' | while read -r mapped; do
		[ "$mapped" -ge $((PAGE * 2)) ] || fail "mapped $mapped, less than two pages"
	done
}

# What read mode says of a stream cut short or overlong, said alike when nothing maps.
test_zcs_zerocopy_reports_incomplete_and_extra_bytes_as_read_does() {
	start_zcs -m zerocopy
	{ u32be 1; u32be 1; u32be 1000; head -c 10 /dev/zero; } >"/dev/tcp/127.0.0.1/$PORT"
	{ u32be 1; u32be 1; u32be 3; printf 'abcjunk'; } >"/dev/tcp/127.0.0.1/$PORT"
	{ u32be 2; printf '\0'; } >"/dev/tcp/127.0.0.1/$PORT"
	wait_summaries 3
	expect_eq "$(zcs_summaries | sed -E 's/ in .* s, [0-9]+ kbytes\/sec//; s/, cpu [^,]*//' | sort)" \
"received 19 bytes, 4 bytes after the end of the stream, mapped 0 of 19 bytes
received 22 bytes, incomplete: waiting for file data, mapped 0 of 22 bytes
received 5 bytes, incomplete: waiting for header, mapped 0 of 5 bytes"
}

# zcc -M PAGE+12 with a zero-copy send: over loopback the kernel copies the
# pages into fresh ones, which can be mapped; most of the stream is. Every
# byte counted, and the files.
test_zcc_mss_to_zcs_zerocopy_maps_most_of_the_stream() {
	local sm want files line
	make_files "$T/f"
	straddling_files "$T/f"
	want=$(stream_bytes 2 "$T"/f/*)
	files=$(($(ls "$T/f" | wc -l) * 2))
	start_zcs -m zerocopy
	for sm in zerocopy uring-zc; do
		uring_or_skip "$sm"
		"$ROOT/zcc" -d -M $((PAGE + 12)) -m "$sm" -n 2 -p "$PORT" -s 127.0.0.1 "$T"/f/* \
			>"$T/zcc.out" 2>"$T/zcc.err" || fail "zcc -m $sm: $(cat "$T/zcc.err")"
		expect_eq "$(grep TCP_MAXSEG "$T/zcc.err")" \
			"zcc: TCP_MAXSEG $((PAGE + 12)) asked, $PAGE settled (data per segment, after TCP options)
zcc: TCP_MAXSEG $PAGE at the last byte (as the transfer settled it: before data, the kernel may say less)" \
			"zcc -d's MSS"
	done
	wait_summaries 2
	zcs_summaries | while read -r line; do
		[[ $line =~ $MAPPED_SUMMARY ]] || fail "not a summary: $line"
		expect_eq "${BASH_REMATCH[1]} ${BASH_REMATCH[3]}" "$want $want" "bytes, and the N of mapped M of N"
		[ "${BASH_REMATCH[2]}" -ge $((want * 9 / 10)) ] || fail "less than 90% mapped: $line"
	done
	expect_eq "$(grep -c ": $files files\$" "$T/zcs.err")" 2 "zcs -d's file counts ($files)"
}

# Without whole-page segments nothing maps, and zcs -d says why, once a connection.
test_zcs_zerocopy_says_why_nothing_maps() {
	local line
	head -c 3000000 /dev/urandom >"$T/file"
	start_zcs -m zerocopy
	"$ROOT/zcc" -M 1000 -m send -n 2 -p "$PORT" -s 127.0.0.1 "$T/file" >/dev/null ||
		fail "zcc -M 1000 failed"
	"$ROOT/zcc" -M $((PAGE + 12)) -m send -n 2 -p "$PORT" -s 127.0.0.1 "$T/file" >/dev/null ||
		fail "zcc -M $((PAGE + 12)) failed"
	wait_summaries 2
	zcs_summaries | while read -r line; do
		[[ $line =~ $MAPPED_SUMMARY ]] || fail "not a summary: $line"
		expect_eq "${BASH_REMATCH[2]}" 0 "mapped bytes of a send() stream over loopback"
	done
	expect_eq "$(grep -c 'could not be mapped' "$T/zcs.err")" 2 "reasons said (one a connection)"
	expect_match "$(grep 'could not be mapped' "$T/zcs.err" | head -n 1)" \
		"^zcs: [^ ]+ port [0-9]+: [0-9]+ bytes could not be mapped: the sender's segments carry 988 bytes \\(TCP_INFO rcv_mss\\), not whole $PAGE-byte pages \\(zcc -M $((PAGE + 12)) sends whole pages, with timestamps on\\)\$"
	expect_match "$(grep 'could not be mapped' "$T/zcs.err" | tail -n 1)" \
		"^zcs: [^ ]+ port [0-9]+: [0-9]+ bytes could not be mapped: the sender's segments carry whole pages \\($PAGE bytes, TCP_INFO rcv_mss\\), in memory the kernel cannot map \\(over loopback, only zcc -m zerocopy or uring-zc arrives in pages of its own\\)\$"
}

# Where nothing has mapped, a page or more that cannot be mapped is read with
# all that is queued, not a segment a call; once pages map, an odd one is
# read alone (the mapped test above holds the share).
test_zcs_zerocopy_reads_an_unmappable_stream_in_large_reads() {
	local reads
	command -v strace >/dev/null || skip "strace is not installed"
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	head -c 3000000 /dev/urandom >"$T/file"
	start_zcs -m zerocopy
	strace -f -e trace=read -e signal=none -o "$T/trace" -p "$ZCS_PID" 2>"$T/strace.err" &
	started $!
	wait_until 5 grep -q attached "$T/strace.err" || fail "strace did not attach to zcs"
	"$ROOT/zcc" -M $((PAGE + 12)) -m sendfile -n 2 -p "$PORT" -s 127.0.0.1 "$T/file" >/dev/null ||
		fail "zcc failed"
	wait_summaries 1
	expect_match "$(zcs_summaries)" ", mapped 0 of 6000020 bytes\$"
	# Read a segment (or the kernel's coalesced run of them, up to 64 KiB) a
	# call, it took 119 reads under strace; all that is queued, 18.
	reads=$(grep -E '^[0-9]+ +read\([0-9]+, .*, [0-9]+\) = [0-9]+$' "$T/trace" | grep -vc ' = 0$')
	[ "$reads" -lt $((6000020 / 65536)) ] || fail "$reads reads: less than 64 KiB a read"
	expect_eq "$(grep -E '^[0-9]+ +read\(' "$T/trace" | awk '$NF ~ /^[0-9]+$/ { s += $NF } END { print s }')" \
		6000020 "bytes read"
}

# -J: mapped_bytes beside bytes; null in the modes that do not map.
test_zcs_json_has_mapped_bytes() {
	head -c 100000 /dev/urandom >"$T/file"
	start_zcs -m zerocopy -J
	"$ROOT/zcc" -p "$PORT" -s 127.0.0.1 "$T/file" >/dev/null || fail "zcc failed"
	wait_summaries 1
	expect_match "$(zcs_summaries)" '"settings":\{"protocol":"tcp","mode":"zerocopy",.*"result":\{"bytes":100012,.*"mapped_bytes":0,'
	kill -9 "$ZCS_PID"
	start_zcs -J
	"$ROOT/zcc" -p "$PORT" -s 127.0.0.1 "$T/file" >/dev/null || fail "zcc failed"
	wait_summaries 1
	expect_match "$(zcs_summaries)" '"mapped_bytes":null,'
}

# zcc -M: the stream on the wire is unchanged, byte for byte; -J says the setting.
test_zcc_mss_stream_matches_independent_encoding() {
	make_files "$T/f"
	stream_matches_encoding 2 "$T/f" -M $((PAGE + 12)) -m zerocopy -b 64k
	stream_matches_encoding 2 "$T/f" -M 1000 -m send
}

test_zcc_mss_out_of_range_is_a_usage_error() {
	usage_error zcc "zcc: -M '87': must be at least 88" -M 87 -s 127.0.0.1 /dev/null
	usage_error zcc "zcc: -M '32768': must be at most 32767" -M 32768 -s 127.0.0.1 /dev/null
}

run_tests "$@"
