#!/bin/bash
# scripts/zc-matrix (make bench) in a tiny configuration: the table's and the
# CSV's shape, numbers where numbers belong, and its own option errors.
. "$(dirname "$0")/lib.sh"

NUM='-?[0-9]+\.[0-9]+'
ROW="^(send|sendfile|write) +([0-9]+|-) +(none|separate|same) +\| +$NUM +$NUM +$NUM +\| +$NUM +$NUM +$NUM +\| +[-+][0-9]+\.[0-9]%$"

# matrix ARGS...: run it in $T (where its calibration goes) with quick periods.
matrix() {
	(cd "$T" && bash "$ROOT/scripts/zc-matrix" --calibrate-ms 100 --out "$T/out" "$@") >"$T/table" 2>"$T/err" ||
		fail "zc-matrix failed: $(cat "$T/err")"
}

check_csv() {
	local rows=$1
	expect_eq "$(head -n 1 "$T/out/zc-matrix.csv")" "mode,bufsize,placement,mbytes_per_sec,busy_pct_proc_stat,demand_proc_stat_us_per_kb,mbytes_per_sec_metered,load_pct_cyclesoak,demand_cyclesoak_us_per_kb,meter_throughput_change_pct"
	expect_eq "$(sed 1d "$T/out/zc-matrix.csv" | wc -l)" "$rows" "CSV rows"
	sed 1d "$T/out/zc-matrix.csv" | grep -v -E "^[a-z]+,([0-9]+|-),[a-z]+(,$NUM){7}\$" &&
		fail "malformed CSV row"
	# Throughputs and demands are positive; loads are percentages.
	awk -F, 'NR > 1 && !($4 > 0 && $6 > 0 && $7 > 0 && $9 > 0 && $5 > 0 && $5 <= 100 && $8 > -5 && $8 <= 100) { bad = 1 }
		END { exit bad }' "$T/out/zc-matrix.csv" || fail "implausible figures: $(cat "$T/out/zc-matrix.csv")"
}

test_tiny_matrix_prints_a_row_per_configuration_and_a_csv() {
	matrix --modes send --bufsizes 4096,65536 --loops 10 --placements none
	expect_eq "$(grep -c -E "$ROW" "$T/table")" 2 "table rows"
	grep -E "$ROW" "$T/table" | awk '{ print $2 }' | tr '\n' ' ' | grep -qx '4096 65536 ' ||
		fail "buffer sizes: $(cat "$T/table")"
	grep -q '^mode  *buf placement |' "$T/table" || fail "no header"
	grep -q "^# .*/zcc -c -m send -b 4096 -s 127.0.0.1 -p [0-9]* -n 10 <60 files>$" "$T/table" ||
		fail "the zcc command line is not printed"
	grep -q "^# .*/zcs -d -p [0-9]* *$" "$T/table" || fail "the zcs command line is not printed"
	grep -q '^# cyclesoak -C -m 100' "$T/table" || fail "calibration not announced"
	check_csv 2
	! grep -v -E "^(#|mode |  |send )" "$T/table" || fail "unexpected lines"
}

test_matrix_sends_given_files_and_places_processes() {
	make_files "$T/f"
	matrix --modes sendfile --files "$T/f" --loops 300 --placements same
	expect_eq "$(grep -c -E "$ROW" "$T/table")" 1 "table rows"
	grep -q "/zcs -d -p [0-9]* -B [0-9]*$" "$T/table" || fail "zcs not pinned: $(cat "$T/table")"
	grep -q "/zcc -c -m sendfile -B [0-9]* .* <7 files>$" "$T/table" || fail "zcc not pinned"
	check_csv 1
}

test_matrix_netns_runs_across_a_veth_pair() {
	[ "$(id -u)" = 0 ] || skip "--netns needs root"
	ip netns add "zc-probe-$$" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns del "zc-probe-$$"
	matrix --netns --modes sendfile --loops 10 --placements none
	grep -q '^# netns: zcc in zc-a-[0-9]* (10.250.0.1), zcs in zc-b-[0-9]* (10.250.0.2)' "$T/table" ||
		fail "no netns line: $(cat "$T/table")"
	grep -q "^# ip netns exec zc-a-[0-9]* .*/zcc -c -m sendfile -s 10.250.0.2 " "$T/table" ||
		fail "zcc was not run in the namespace"
	check_csv 1
	! ip netns list | grep -q 'zc-[ab]-' || fail "namespaces left behind: $(ip netns list)"
}

test_matrix_rejects_bad_options() {
	local rc=0
	bash "$ROOT/scripts/zc-matrix" --modes splice 2>"$T/err" || rc=$?
	expect_eq "$rc" 1
	expect_eq "$(cat "$T/err")" "zc-matrix: --modes: unknown mode 'splice'"
	rc=0
	bash "$ROOT/scripts/zc-matrix" --loops 2x 2>"$T/err" || rc=$?
	expect_eq "$rc" 1
	expect_eq "$(cat "$T/err")" "zc-matrix: --loops '2x': not a number"
	rc=0
	bash "$ROOT/scripts/zc-matrix" --loops 2>"$T/err" || rc=$?
	expect_eq "$rc" 1
	expect_eq "$(cat "$T/err")" "zc-matrix: --loops needs a value"
	rc=0
	bash "$ROOT/scripts/zc-matrix" --frobnicate >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc" 2
	grep -q '^usage: scripts/zc-matrix' "$T/err" || fail "no usage"
}

run_tests "$@"
