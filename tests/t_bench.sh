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
	if command -v gnuplot >/dev/null; then
		grep -qx "# plot written to $T/out/zc-matrix.png" "$T/table" || fail "no plot line"
		expect_eq "$(head -c 8 "$T/out/zc-matrix.png" | od -An -tx1 | tr -d ' ')" 89504e470d0a1a0a "PNG signature"
		expect_eq "$(grep -c 'zcc -b buffer size (bytes)' "$T/out/zc-matrix-plot.txt")" 2 "text plot axes"
		grep -q 'send, none' "$T/out/zc-matrix-plot.txt" || fail "text plot has no key"
	else
		grep -qx '# no plot: gnuplot is not installed (apt-get install gnuplot-nox)' "$T/table" ||
			fail "no word about the missing plot"
	fi
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

# scripts/compare-defaults, tiny: four tables, a row per setting with a median,
# a ratio to the first row and the rounds, and every zcs and zcc command line.
test_compare_defaults_prints_its_four_tables() {
	local row='^(send|write|sendfile), [-a-z0-9 ]+ +[0-9]+\.[0-9] +[0-9]+\.[0-9]{2}x  ( [0-9]+\.[0-9]){2}$'
	bash "$ROOT/scripts/compare-defaults" --sizes 64k,1m --lowats 1,256k --rounds 2 --secs 1 \
		--file-mb 8 >"$T/out" 2>"$T/err" || fail "compare-defaults failed: $(cat "$T/err")"
	expect_eq "$(grep -c -E "$row" "$T/out")" 8 "rows: $(cat "$T/out")"
	expect_eq "$(grep -E '^[a-z]' "$T/out" | grep -v -E "$row" | sed 's/  *MB.*//' | tr '\n' '|')" \
		"chunk size (send, 8 MiB file)|chunk size (write, 8 MiB file)|zcs -l (sendfile)|zcs -l (send)|" "table headings"
	expect_eq "$(grep -E "$row" "$T/out" | awk '{ print $(NF - 2) }' | sed -n '1p;3p;5p;7p' | tr '\n' ' ')" \
		"1.00x 1.00x 1.00x 1.00x " "first rows' ratios"
	grep -q -x "# .*/zcs -p [0-9]* -b 1m" "$T/out" || fail "no zcs -b line"
	grep -q -x "# .*/zcs -p [0-9]* -l 256k" "$T/out" || fail "no zcs -l line"
	grep -q -x "# .*/zcc -s 127.0.0.1 -p [0-9]* -n [0-9]* -m write -b 64k <file, 8 MiB>" "$T/out" || fail "no zcc line"
	grep -q -x "# .*/zcc -s 127.0.0.1 -p [0-9]* -n [0-9]* -m sendfile <60 files>" "$T/out" || fail "no sendfile line"
	[ ! -s "$T/err" ] || fail "stderr: $(cat "$T/err")"
}

test_compare_defaults_rejects_bad_values() {
	local rc=0
	bash "$ROOT/scripts/compare-defaults" --file-mb 5000 2>"$T/err" || rc=$?
	expect_eq "$rc" 1
	expect_eq "$(cat "$T/err")" "compare-defaults: --file-mb must be 1 to 4095"
	rc=0
	bash "$ROOT/scripts/compare-defaults" --lowats 0 --sizes 64k --rounds 1 --secs 1 --file-mb 1 >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc" 1
	grep -q "^compare-defaults: zcs -l 0 did not start: zcs: -l '0': must be at least 1" "$T/err" || fail "$(cat "$T/err")"
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
