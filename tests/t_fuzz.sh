#!/bin/bash
# The fuzz targets (make fuzz), for a second each: the stream decoder
# against an independent decoder, whole and in chunks, the datagram decoder
# and its count against independent ones, the option parser
# against an independent parser, the calibration file's reader, and the
# turns' slot table and answer against independent readers (and what zcs
# keeps of a table as it comes). Skipped where clang cannot build libFuzzer
# programs.
. "$(dirname "$0")/lib.sh"

# fuzz_briefly TARGET: build it and run it FUZZ_SECS (default 1) seconds: the
# seeds and some thousands of inputs; make fuzz runs them for minutes.
fuzz_briefly() {
	local rc=0
	command -v "${FUZZ_CC:-clang}" >/dev/null || skip "clang is not installed (apt-get install clang)"
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }\n' >"$T/probe.c"
	"${FUZZ_CC:-clang}" -fsanitize=fuzzer -o "$T/probe" "$T/probe.c" 2>/dev/null ||
		skip "${FUZZ_CC:-clang} cannot build libFuzzer programs here"
	make -s -C "$ROOT" "build/fuzz/fuzz_$1" >"$T/build" 2>&1 || fail "build: $(cat "$T/build")"
	mkdir "$T/corpus"
	(cd "$T" && "$ROOT/build/fuzz/fuzz_$1" -max_total_time="${FUZZ_SECS:-1}" -print_final_stats=1 \
		"$T/corpus" "$ROOT/tests/fuzz-corpus/$1" >"$T/out" 2>&1) || rc=$?
	expect_eq "$rc" 0 "fuzz_$1's exit code: $(grep -E 'ERROR|SUMMARY|runtime error' "$T/out" | head -n 3)"
	grep -q '^Done [0-9]* runs' "$T/out" || fail "no runs: $(tail -n 5 "$T/out")"
	[ -z "$(ls "$T" | grep '^crash-')" ] || fail "a crash was written"
	# Every seed is read: the corpus count starts from them.
	grep -q "INITED.*corp: [0-9]*/" "$T/out" || fail "the seed corpus was not read"
}

test_stream_decoder_agrees_with_an_independent_decoder() {
	fuzz_briefly proto
}

test_datagram_decoder_and_count_agree_with_independent_ones() {
	fuzz_briefly dgram
}

test_option_parser_agrees_with_an_independent_parser() {
	fuzz_briefly opt
}

test_calibration_reader_accepts_only_well_formed_files() {
	fuzz_briefly counts
}

test_slot_table_and_answer_decoders_agree_with_independent_ones() {
	fuzz_briefly turnswire
}

run_tests "$@"
