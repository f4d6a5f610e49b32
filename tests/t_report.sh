#!/bin/bash
# scripts/zc-report from saved files: the tables, verdicts, intervals and
# comparisons it gives of runs and turns CSVs whose figures are known, and
# what it says of input it cannot take. No meter, no benchmark: quick.
# make check-quick runs this file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bench-rows.sh"

# A runs CSV row as zc-matrix writes it (full speed).
GOOD_ROW=1,write,1048576,separate,read,2926.2,64.9,0.454,0.351,0.098,2229.5,53.3,0.490,60.7,-23.8,,,63958,88995,88995,,,,,,,,,,,59.8,-6.5,,,,45000,,12,0.01,1.2,0.0,3,40,2100,0.4,20261127T041500Z-1,0.0

# The interval of the median: min-max below 6 rounds, then the order
# statistics of the binomial distribution (n = 9: the 2nd and 8th).
test_interval_of_the_median_is_min_max_or_the_95_percent_ci() {
	local got
	got=$(awk -f "$ROOT/scripts/stats.awk" -f <(echo 'BEGIN {
		print stats("5 1 4 2 3"); print stats("7"); print stats("6 1 5 2 4 3")
		print stats("9 1 8 2 7 3 6 4 5"); print stats("20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1")
		print "[" stats("") "]"
	}'))
	expect_eq "$got" "3 1 5
7 7 7
3.5 1 6
5 2 8
10.5 6 15
[]" "stats"
}

# A saved run renders as it did: tests/report-runs.csv is a zc-matrix run
# (--modes sendfile,send,zerocopy --recv read,trunc --rate auto, two rounds
# of each), and tests/report-expected.txt and report-cells.csv are what
# zc-report made of it when it was saved. A change to the scripts that moves
# one figure, one column or one line of the report fails here.
test_report_of_a_saved_run_is_byte_for_byte_what_it_was() {
	cp "$ROOT/tests/report-runs.csv" "$T/"
	(cd "$T" && bash "$ROOT/scripts/zc-report" --out "$T/o" report-runs.csv >"$T/report" 2>&1) ||
		fail "zc-report failed: $(cat "$T/report")"
	grep -v '^# no plot\|^# plot written\|^# the same plot' "$T/report" | sed "s|$T/o/|OUT/|g" >"$T/got"
	diff -u "$ROOT/tests/report-expected.txt" "$T/got" >"$T/diff" || fail "the report moved: $(cat "$T/diff")"
	cmp -s "$ROOT/tests/report-cells.csv" "$T/o/report.csv" ||
		fail "the cells CSV moved: $(diff "$ROOT/tests/report-cells.csv" "$T/o/report.csv")"
}

# No path reaches a shell: an --out and a runs CSV whose names hold a
# space, a quote and a command give the report, the CSV and (with gnuplot)
# the plot where they were asked for, and run nothing.
test_report_paths_reach_no_shell() {
	local d="$T/a b;touch PWNED;\"q" out
	mkdir -p "$d"
	cp "$ROOT/tests/report-runs.csv" "$d/runs;touch PWNED2;.csv"
	out="$d/o;touch PWNED3;"
	# From $T, where a path run as a command would leave its file.
	(cd "$T" && bash "$ROOT/scripts/zc-report" --out "$out" "$d/runs;touch PWNED2;.csv") >"$T/report" 2>&1 ||
		fail "zc-report exited $?: $(cat "$T/report")"
	ls "$T"/PWNED* /tmp/PWNED* 2>/dev/null && fail "a path ran as a command"
	cmp -s "$ROOT/tests/report-cells.csv" "$out/runs;touch PWNED2;-cells.csv" || fail "no cells CSV at --out"
	grep -q "^Verdict" "$T/report" || fail "no verdict: $(cat "$T/report")"
	if command -v gnuplot >/dev/null; then
		[ -s "$out/runs;touch PWNED2;.png" ] && grep -q "service demand per method" "$out/runs;touch PWNED2;-plot.txt" ||
			fail "no plot at --out: $(cat "$T/report")"
	fi
	true
}

# runs_2001 RATE: a runs CSV (BENCH_RUNS_COLUMNS, written by name) of three
# rounds of sendfile and send -b 65536, unpinned and separate, offloads on
# and off, paced at RATE (empty: full speed), whose medians are known: load
# base+2, kernel base-6, gap +8, where base is 10 a mode, 20 a placement and
# 5 with the offloads off; send's demand 1.25 times sendfile's, and 1.25
# times again with the offloads off.
runs_2001() {
	awk -v columns="$BENCH_RUNS_COLUMNS" -v rate="$1" 'BEGIN {
		nc = split(columns, name, " ")
		line = name[1]; for (i = 2; i <= nc; i++) line = line "," name[i]; print line
		for (r = 1; r <= 3; r++) for (m = 1; m <= 2; m++) for (p = 1; p <= 2; p++) for (o = 0; o <= 1; o++) {
			delete v
			v["round"] = r; v["mode"] = m == 1 ? "sendfile" : "send"; v["bufsize"] = m == 1 ? "-" : 65536
			v["placement"] = p == 1 ? "none" : "separate"; v["recv"] = "read"
			v["offload"] = o ? "sg:off/tx:off" : "sg:on/tx:on"; v["rate_bytes_per_sec"] = rate
			base = 10 * m + 20 * p + 5 * o
			v["mbytes_per_sec"] = 900 + 10 * r + base; v["busy_pct_proc_stat"] = 50
			v["demand_proc_stat_us_per_kb"] = 1; v["zcc_us_per_kb"] = 0.5; v["zcs_us_per_kb"] = 0.5
			v["mbytes_per_sec_metered"] = 900; v["meter_throughput_change_pct"] = -1.0
			v["load_pct"] = base + r; v["kernel_pct"] = base - 10 + 2 * r
			v["demand_us_per_kb"] = sprintf("%.3f", (m == 1 ? 0.8 : 1.0) * (o ? 1.25 : 1) * (1 + r / 100))
			v["ints_per_sec"] = 1000 * r + base; v["rx_pps"] = 2000 * r + base; v["tx_pps"] = 3000 * r + base + 100 * o
			v["recv_load_pct"] = 30 + base + r; v["recv_kernel_pct"] = 25 + base + r
			v["recv_demand_us_per_kb"] = sprintf("%.3f", 0.5 + r / 10); v["recv_ints_per_sec"] = 4000 + r
			v["recv_rx_pps"] = 5000 + r; v["recv_tx_pps"] = 6000 + r
			line = v[name[1]]; for (i = 2; i <= nc; i++) line = line "," v[name[i]]; print line
		}
	}'
}

# The 2001 table and the offloads' comparison are the report's, so a saved
# run renders them again: each state's report in a directory of its own,
# headed with the interface; the states compared cell by cell; the table's
# medians, every one of them, where they belong; paced, the rate it was.
test_report_renders_the_2001_table_and_the_offloads_from_a_saved_csv() {
	runs_2001 "" >"$T/s.csv"
	bash "$ROOT/scripts/zc-report" --table 2001 --interface veth-a --out "$T/o" "$T/s.csv" >"$T/rep" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	for st in sg:off/tx:off sg:on/tx:on; do
		grep -qx "# offload $st (veth-a):" "$T/rep" || fail "no report of $st: $(cat "$T/rep")"
		expect_eq "$(sed 1d "$T/o/offload-$(echo "$st" | tr ':/' '--')/zc-matrix-runs.csv" | wc -l)" 12 "runs in $st"
	done
	expect_eq "$(sed -n '/^Offloads: /,/^$/p' "$T/rep")" "$(cat <<'EOF'
Offloads: the service demand (zcc -c) with sg:off/tx:off against sg:on/tx:on, the median of the
rounds' paired ratios with its interval, and the sender's tx pps in each state:
  placement none, zcs -m read, send -b 65536               +25.0% [+25.0, +25.0]  tx pps 6040 -> 6145
  placement none, zcs -m read, sendfile                    +25.0% [+25.0, +25.0]  tx pps 6030 -> 6135
  placement separate, zcs -m read, send -b 65536           +25.0% [+25.0, +25.0]  tx pps 6060 -> 6165
  placement separate, zcs -m read, sendfile                +25.0% [+25.0, +25.0]  tx pps 6050 -> 6155
EOF
)" "the offloads compared"
	expect_eq "$(sed -n '/^The 2001 table/,/^# CPU:/p' "$T/rep")" "$(cat <<'EOF'
The 2001 table (README 2001, "Results"), measured here; each figure is the median of the rounds
                                           CPU  kernel   gap  affine  kernel   gap    ints/s   rx pps   tx pps     MB/s  us/KB
  sendfile():                            32.0%   24.0%  +8.0   52.0%   44.0%  +8.0      2030     4030     6030      950  0.816
  send():                                42.0%   34.0%  +8.0   62.0%   54.0%  +8.0      2040     4040     6040      960  1.020
  receiving (sendfile's stream):         62.0%   57.0%  +5.0   82.0%   77.0%  +5.0      4002     5002     6002      950  0.700

  sendfile(), no xsum/SG:                37.0%   29.0%  +8.0   57.0%   49.0%  +8.0      2035     4035     6135      955  1.020
  send(), no xsum/SG:                    47.0%   39.0%  +8.0   67.0%   59.0%  +8.0      2045     4045     6145      965  1.275
  receiving, no xsum/SG at the sender:   67.0%   62.0%  +5.0   87.0%   82.0%  +5.0      4002     5002     6002      955  0.700
# CPU: the host's load, zcc -c for the senders, zcs -c for the receiving rows, unpinned; affine: each end
EOF
)" "the 2001 table"
	tail -n 1 "$T/rep" | grep -q 'here the rate differs' || fail "full speed, not said: $(tail -n 1 "$T/rep")"
	# Paced: the table says the rate, as zcc -R took it.
	runs_2001 536870912 >"$T/p.csv"
	bash "$ROOT/scripts/zc-report" --table 2001 --out "$T/p" "$T/p.csv" >"$T/rep" 2>"$T/err" ||
		fail "zc-report of the paced run failed: $(cat "$T/err")"
	grep -qx 'The 2001 table (README 2001, "Results"), measured here paced at zcc -R 512m; each figure is the median of the rounds' \
		"$T/rep" || fail "no rate in the table's heading: $(grep 2001 "$T/rep")"
	grep -qx '# offload sg:on/tx:on:' "$T/rep" || fail "a heading without --interface: $(grep '^# offload' "$T/rep")"
	tail -n 1 "$T/rep" | grep -q 'as this table does' || fail "paced, not said: $(tail -n 1 "$T/rep")"
}

# The kernel's view of a window that held no tick of /proc/stat is empty in
# the runs CSV: the 2001 table gives the median of the rounds that have one,
# and its gap from those rounds alone; with none, "-" for both, never the
# load less 0 (a run of 2 loops printed a receiving gap of +72.2, its load);
# and the table of the state "-" for its kernel%, not 0.0.
test_report_2001_table_leaves_out_an_empty_kernel_view() {
	runs_2001 "" | awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
		$c["placement"] == "none" && $c["offload"] == "sg:on/tx:on" &&
		($c["mode"] == "sendfile" || $c["round"] == 3) { $c["kernel_pct"] = ""; $c["recv_kernel_pct"] = "" }
		{ print }' >"$T/k.csv"
	bash "$ROOT/scripts/zc-report" --table 2001 --out "$T/o" "$T/k.csv" >"$T/rep" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	expect_eq "$(sed -n '/^The 2001 table/,/^$/p' "$T/rep" | sed -n '3,5p')" "$(cat <<'EOF'
  sendfile():                            32.0%       -     -   52.0%   44.0%  +8.0      2030     4030     6030      950  0.816
  send():                                42.0%   33.0%  +8.5   62.0%   54.0%  +8.0      2040     4040     6040      960  1.020
  receiving (sendfile's stream):         62.0%       -     -   82.0%   77.0%  +5.0      4002     5002     6002      950  0.700
EOF
)" "the rows with the kernel's view left out"
	# The table of the state: no kernel% and no gap for sendfile unpinned,
	# whose rounds have none (not 0.0).
	expect_match "$(sed -n '/^# offload sg:on\/tx:on:/,/^Verdict/p' "$T/rep" | grep '^sendfile  *- *none ')" \
		'^sendfile +- none +read +\| 950\.0 \[940\.0, 960\.0\] +32\.0 \[31\.0, 33\.0\] +0\.816 \[0\.808, 0\.824\] +- +- \| '
}

test_report_names_what_is_wrong_with_its_input() {
	local rc=0
	printf 'round,mode\n1,send\n' >"$T/bad.csv"
	bash "$ROOT/scripts/zc-report" "$T/bad.csv" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" "zc-report: $T/bad.csv: no column 'bufsize'"
	rc=0
	bash "$ROOT/scripts/zc-report" "$T/none.csv" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:zc-report: $T/none.csv: cannot be read"
	bad_csv 'line 3: a quoted field (zc-matrix writes none)' '"1",write,1048576,separate,read,2926.2'
	bad_csv 'line 3: 20 fields, where the header has 47' "$(echo "$GOOD_ROW" | cut -d, -f1-20)"
	bad_csv "line 3: mbytes_per_sec is '99999999999999999999'" "$(echo "$GOOD_ROW" | sed 's/,2926\.2,/,99999999999999999999,/')"
	# At most 15 digits, sign and point aside: 16 are refused, 15 taken.
	bad_csv "line 3: mbytes_per_sec is '1234567890123456'" "$(echo "$GOOD_ROW" | sed 's/,2926\.2,/,1234567890123456,/')"
	bad_csv "line 3: mbytes_per_sec is '1234567890.123456'" "$(echo "$GOOD_ROW" | sed 's/,2926\.2,/,1234567890.123456,/')"
	bad_csv "line 3: load_pct is 'nan'" "$(echo "$GOOD_ROW" | sed 's/,53\.3,/,nan,/')"
	bad_csv "line 3: kernel_pct is 'inf'" "$(echo "$GOOD_ROW" | sed 's/,60\.7,/,inf,/')"
	bad_csv "line 3: mode is 'sendfilez'" "$(echo "$GOOD_ROW" | sed 's/,write,/,sendfilez,/')"
	bad_csv "line 3: recv is 'udp-splice'" "$(echo "$GOOD_ROW" | sed 's/,read,/,udp-splice,/')"
	bad_csv "line 3: round is '0'" "$(echo "$GOOD_ROW" | sed 's/^1,/0,/')"
	bad_csv "line 3: mbytes_per_sec is '-100', below 0" "$(echo "$GOOD_ROW" | sed 's/,2926\.2,/,-100,/')"
	bad_csv "line 3: rwnd_limited_pct is '-1.2', below 0" "$(echo "$GOOD_ROW" | sed 's/,1\.2,0\.0,/,-1.2,0.0,/')"
	bad_csv "line 3: tx_bytes_per_packet is '-45000', below 0" "$(echo "$GOOD_ROW" | sed 's/,45000,/,-45000,/')"
	bad_csv "line 3: a carriage return (a file with CRLF line ends: zc-matrix writes LF)" "$GOOD_ROW"$'\r'
	bad_csv "line 3: mode is '$(printf 'x%.0s' $(seq 1 40))... (100000 characters)'" \
		"$(echo "$GOOD_ROW" | sed "s/,write,/,$(head -c 100000 /dev/zero | tr '\0' x),/")"
	# Runs without a demand figure: said, not ranked at 0.000 us/KB.
	printf '%s\n%s\n' "$RUNS_HEADER" "$(echo "$GOOD_ROW" | sed 's/,53\.3,0\.490,60\.7,/,,,,/')" >"$T/nodemand.csv"
	rc=0
	bash "$ROOT/scripts/zc-report" --out "$T/rep" "$T/nodemand.csv" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:zc-report: $T/nodemand.csv: no run has a service demand (demand_us_per_kb is empty in every row): nothing to rank or plot"
	# A FIFO would hang the report: only a regular file is read.
	mkfifo "$T/fifo.csv"
	rc=0
	timeout 10 bash "$ROOT/scripts/zc-report" "$T/fifo.csv" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:zc-report: $T/fifo.csv: not a regular file (a runs CSV is one)"
	rc=0
	bash "$ROOT/scripts/zc-report" --width 0 "$T/bad.csv" >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:zc-report: --width '0': out of range (1 to 1000)"
	rc=0
	bash "$ROOT/scripts/zc-report" --width 5x "$T/bad.csv" >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:zc-report: --width '5x': not a number"
	rc=0
	bash "$ROOT/scripts/zc-report" --table 1999 "$T/bad.csv" >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:zc-report: --table '1999': the one table is 2001"
	rc=0
	bash "$ROOT/scripts/zc-report" --interface 'veth a;b' "$T/bad.csv" >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:zc-report: --interface 'veth a;b': not an interface name"
	# Offload states on some runs only: not a run zc-matrix writes.
	runs_2001 "" | sed '2s|,sg:on/tx:on,|,,|' >"$T/mixed.csv"
	rc=0
	bash "$ROOT/scripts/zc-report" --out "$T/m" "$T/mixed.csv" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:zc-report: $T/mixed.csv: some runs have an offload state and some have none"
}

# bad_csv MESSAGE ROW: zc-report refuses a runs CSV with ROW after a good
# one, exit 1, naming the line and what is wrong in it; the good row alone
# makes a report (asked once a test: it is the same row each time).
bad_csv() {
	local rc=0
	if [ ! -e "$T/good.csv" ]; then
		printf '%s\n%s\n' "$RUNS_HEADER" "$GOOD_ROW" >"$T/good.csv"
		bash "$ROOT/scripts/zc-report" --out "$T/rep" "$T/good.csv" >/dev/null 2>"$T/err" ||
			fail "the good row was refused: $(cat "$T/err")"
	fi
	printf '%s\n%s\n%s\n' "$RUNS_HEADER" "$GOOD_ROW" "$2" >"$T/bad.csv"
	bash "$ROOT/scripts/zc-report" --out "$T/rep" "$T/bad.csv" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:zc-report: $T/bad.csv: $1"
	[ ! -s "$T/out" ] || fail "a report of a bad CSV: $(cat "$T/out")"
}

# Two runs each of send and write, at full speed and at -R 100m (98-99% of it reached).
send_and_write_at_two_rates() {
	csv_row 1 send "" 0.800 60.0 58.0 "" ""
	csv_row 2 send "" 0.810 61.0 58.0 "" ""
	csv_row 1 write "" 0.900 62.0 60.0 "" ""
	csv_row 2 write "" 0.910 63.0 60.0 "" ""
	csv_row 1 send 104857600 1.000 20.0 15.0 99.0 98.4
	csv_row 2 send 104857600 1.010 20.2 15.2 99.2 98.2
	csv_row 1 write 104857600 1.100 22.0 16.0 98.0 97.0
	csv_row 2 write 104857600 1.111 22.2 16.2 98.2 97.2
}

# The report, of runs made up for it: a section per rate; at one rate the
# gap, the share of the rate reached, the load beside the demand, and a
# method that missed the rate named instead of ranked, however cheap.
test_report_at_one_rate_sets_aside_a_method_that_missed_it() {
	{
		echo "$RUNS_HEADER"
		send_and_write_at_two_rates
		csv_row 1 zerocopy 104857600 0.500 10.0 9.0 80.2 79.0
		csv_row 2 zerocopy 104857600 0.510 10.2 9.2 80.0 79.2
	} >"$T/runs.csv"
	bash "$ROOT/scripts/zc-report" --out "$T/out" "$T/runs.csv" >"$T/report" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	expect_eq "$(grep -E '^(# at full speed|# paced at one rate|Verdict)' "$T/report" | tr '\n' '|')" \
		"# at full speed: each cell as fast as it goes|Verdict: the transmit methods by service demand (zcc -c, us/KB), cheapest first;|# paced at one rate, zcc -R 100m (104.9 MB/s): every cell does the same work|Verdict at one rate, zcc -R 100m (104.9 MB/s): the transmit methods by service demand (zcc -c, us/KB)|"
	expect_eq "$(grep -E '^(send|write|zerocopy) ' "$T/report" | awk -F'|' '{ print $2 }' | awk '{ print $(NF - 1), $NF }' | tr '\n' '|')" \
		"58.0 +2.5|60.0 +2.5|15.1 +5.0|16.1 +6.0|9.1 +1.0|" "kernel% and gap"
	expect_eq "$(grep -E '^(send|write|zerocopy) ' "$T/report" | tail -n 3 | awk '{ print $1, $9 }' | tr '\n' '|')" \
		"send 98%|write 97%|zerocopy 79%|" "the share reached, with the meter"
	expect_eq "$(sed -n '/^Verdict at one rate/,$p' "$T/report" | grep '^    ')" \
		"    send -b 1048576        1.005 us/KB  load  20.1%  cheapest
    write -b 1048576       1.105 us/KB  load  22.1%  +10.0% [+10.0, +10.0]
    zerocopy -b 1048576    missed the rate: reached 80% without the meter, 79% with it; not ranked"
	expect_eq "$(sed -n '/^Verdict: /,/^#/p' "$T/report" | grep '^    ')" \
		"    send -b 1048576        0.805 us/KB  cheapest
    write -b 1048576       0.905 us/KB  +12.4% [+12.3, +12.5]"
	expect_eq "$(cut -d, -f1,5 "$T/out/runs-cells.csv" | tr '\n' '|')" \
		"mode,rate_bytes_per_sec|send,|write,|send,104857600|write,104857600|zerocopy,104857600|" "the cells CSV's rates"
}

# What held a stream back, from zcc's TCP_INFO: the table's bytes a packet
# and retransmitted, window- and buffer-limited shares, and under the
# verdict the cells past HELD_PCT (20) or RETRANS_PCT (1), each for its
# reasons; nothing of the kind where no cell was.
test_report_names_the_cells_a_window_a_buffer_or_retransmissions_held_back() {
	{
		echo "$RUNS_HEADER"
		csv_row 1 send "" 0.800 60.0 58.0 "" "" 62.0 0.0 0.50
		csv_row 2 send "" 0.810 61.0 58.0 "" "" 58.0 0.0 0.70
		csv_row 1 write "" 0.900 62.0 60.0 "" "" 1.0 30.0 2.00
		csv_row 2 write "" 0.910 63.0 60.0 "" "" 3.0 24.0 3.00
		csv_row 1 zerocopy "" 0.900 62.0 60.0 "" "" 19.0 19.0 0.90
		csv_row 2 zerocopy "" 0.910 63.0 60.0 "" "" 21.0 0.0 1.00
	} >"$T/runs.csv"
	bash "$ROOT/scripts/zc-report" --out "$T/out" "$T/runs.csv" >"$T/report" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	expect_eq "$(grep -E '^(send|write|zerocopy) ' "$T/report" | awk -F'|' '{ print $(NF - 2) "|" $(NF - 1) }' | tr -s ' ' | tr '\n' '/')" \
		" 1000 2000 2000 30000 | 0.60 60.0 0.0 / 1000 2000 2000 30000 | 2.50 2.0 27.0 / 1000 2000 2000 30000 | 0.95 20.0 9.5 /" \
		"the link's and TCP_INFO's columns"
	expect_eq "$(sed -n '/^Held back/,$p' "$T/report" | grep -v '^#')" \
		"Held back by something other than the CPU (zcc's TCP_INFO, the median of the rounds: a window or
the send buffer limiting more than 20% of the busy time, or retransmissions past 1% of
the bytes): its MB/s is not the CPU's limit, and its us/KB includes that work.
  send -b 1048576, placement separate, zcs -m read: the receive window limited it 60% of its busy time
  write -b 1048576, placement separate, zcs -m read: the send buffer limited it 27% of its busy time; it retransmitted 2.50% of its bytes"
	# Below the marks, and where the CSV has no such figures: no note.
	awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 1 { $c["rwnd_limited_pct"] = $c["sndbuf_limited_pct"] = "0.0"; $c["retrans_pct"] = "0.00" } 1' \
		"$T/runs.csv" >"$T/quiet.csv"
	bash "$ROOT/scripts/zc-report" --out "$T/out2" "$T/quiet.csv" >"$T/report2" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	expect_eq "$(grep -c '^Held back' "$T/report2")" 0 "a note with nothing held back"
}

# A metered run a hypervisor took more than 1% of the CPUs' time from is
# marked "~" in the table (as "!" a run begun busy), with a note under it
# saying how many rounds and how much; a run under 1% is not.
test_report_marks_a_cell_whose_metered_run_had_steal() {
	{
		echo "$RUNS_HEADER"
		csv_row 1 send 104857600 0.540 6.3 5.0 99.0 98.4 "" "" "" 1.0 2.3
		csv_row 2 send 104857600 0.548 6.4 5.1 99.0 98.4 "" "" "" 1.0 0.4
		csv_row 1 write 104857600 0.900 9.0 8.0 98.0 97.0 "" "" "" 0.5 0.9
		csv_row 2 write 104857600 0.910 9.1 8.1 98.0 97.0 "" "" "" 0.8 ""
	} >"$T/zc-matrix-runs.csv"
	bash "$ROOT/scripts/zc-report" --out "$T/out" "$T/zc-matrix-runs.csv" >"$T/report" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	grep -Eq '^send~ +1048576 +separate +read ' "$T/report" || fail "send not marked: $(cat "$T/report")"
	grep -Eq '^write +1048576 +separate +read ' "$T/report" || fail "write marked: $(cat "$T/report")"
	expect_eq "$(grep -A3 '^# ~: ' "$T/report")" \
		"# ~: a hypervisor took more than 1% of the metered CPUs' time (steal) in a metered run of
# the cell: the soakers lost it as they lose a load's, and its load% and us/KB hold time this
# host did not have; measure again where the host's neighbours are quieter:
#   send: 1 of its rounds, up to 2.3% stolen" "the note under the table"
}

# A run at full speed and at one rate has two verdicts from the turns:
# the plot draws a panel for each (it drew none: two titles are two lines,
# and the check of their characters took the newline for one it refuses).
test_a_report_of_two_rates_plots_each_verdict() {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox)"
	{
		echo "$RUNS_HEADER"
		send_and_write_at_two_rates
	} >"$T/zc-matrix-runs.csv"
	{
		echo "$TURNS_HEADER"
		turns_row "" send 0.550 6.4 900.1
		turns_row "" write 0.920 9.2 900.0 send differs slowdown 67.0 60.0 74.0
		turns_row 104857600 send 0.550 6.4 104.8
		turns_row 104857600 write 0.920 9.2 104.7 send differs slowdown 67.0 60.0 74.0
	} >"$T/zc-matrix-turns.csv"
	bash "$ROOT/scripts/zc-report" --out "$T/out" "$T/zc-matrix-runs.csv" >"$T/report" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	! grep -q '^# no plot' "$T/report" || fail "no plot: $(grep '^# no plot' "$T/report")"
	grep -qx "# plot written to $T/out/zc-matrix.png" "$T/report" || fail "no plot line: $(cat "$T/report")"
	expect_eq "$(grep -c 'verdict, from the turns: separate, zcs -m read, -b 1048576' "$T/out/zc-matrix-plot.txt")" 2 \
		"the verdict's panels: $(grep 'verdict' "$T/out/zc-matrix-plot.txt")"
}

# Where the turns' us/KB of an arm lies outside its cell's interval in the
# table (widened by a tenth of its median), the report says so in one
# sentence, naming both figures and why; where they agree it says nothing.
# A cell whose metered run began on a busy host (load_before_pct past 5%)
# is marked "!" in the table, with a note under it.
test_report_says_where_the_table_and_the_turns_disagree_and_marks_a_busy_host() {
	{
		echo "$RUNS_HEADER"
		csv_row 1 send 104857600 0.540 6.3 5.0 99.0 98.4 "" "" "" 1.0
		csv_row 2 send 104857600 0.548 6.4 5.1 99.0 98.4 "" "" "" 12.2
		csv_row 1 write 104857600 0.900 9.0 8.0 98.0 97.0 "" "" "" 0.5
		csv_row 2 write 104857600 0.910 9.1 8.1 98.0 97.0 "" "" "" 0.8
	} >"$T/zc-matrix-runs.csv"
	{
		echo "$TURNS_HEADER"
		turns_row 104857600 write 0.960 9.6 104.8
		turns_row 104857600 send 4.411 52.6 104.7 write differs slowdown 10.0 4.2 15.1
	} >"$T/zc-matrix-turns.csv"
	turns_verdict >/dev/null
	expect_eq "$(grep -A4 "^# The table's us/KB and the turns' disagree" "$T/report")" \
		"# The table's us/KB and the turns' disagree for send (table 0.544 [0.540, 0.548], turns 4.411):
# the table's are separate runs, each against its own tare, and the turns one stream under one
# meter after them, so a host whose other load changed between them (a ! in the table: a run
# began busy) moves one and not the other; the verdict's differences come from the turns, whose
# arms shared every moment of the host's." "the sentence: $(cat "$T/report")"
	grep -Eq '^send! +1048576 +separate +read ' "$T/report" || fail "send not marked: $(cat "$T/report")"
	grep -Eq '^write +1048576 +separate +read ' "$T/report" || fail "write marked: $(cat "$T/report")"
	expect_eq "$(grep -A3 '^# !: ' "$T/report")" \
		"# !: the host was more than 5% busy before a metered run of the cell began, by its tare
# (zcc's note \"the system was N% busy\"): another load ran beside it, and its load% and us/KB
# are what the transfer added to that load, with a wider spread; measure again on a quiet host:
#   send: 1 of its rounds, up to 12.2% busy" "the note under the table"
	# The plot has the verdict: a panel of each method against the cheapest.
	if command -v gnuplot >/dev/null; then
		grep -q 'verdict, from the turns: separate, zcs -m read, -b 1048576, at 104.9 MB/s' \
			"$T/out/zc-matrix-plot.txt" || fail "no verdict in the plot: $(cat "$T/out/zc-matrix-plot.txt")"
		grep -q '^ *write  *send *$' "$T/out/zc-matrix-plot.txt" || fail "the verdict's arms not in order: $(cat "$T/out/zc-matrix-plot.txt")"
	fi
	# The turns within the table's intervals: no sentence.
	{
		echo "$TURNS_HEADER"
		turns_row 104857600 write 0.960 9.6 104.8
		turns_row 104857600 send 0.500 6.0 104.7 write differs slowdown -45.0 -50.0 -40.0
	} >"$T/zc-matrix-turns.csv"
	turns_verdict >/dev/null
	grep -q "disagree" "$T/report" && fail "a sentence where the two agree: $(cat "$T/report")"
	# A median of 0 or below widens its interval by a tenth of its size
	# too, not narrows it: write's -0.020 [-0.040, 0.000] takes in 0.001.
	{
		echo "$RUNS_HEADER"
		csv_row 1 send 104857600 0.540 6.3 5.0 99.0 98.4
		csv_row 2 send 104857600 0.548 6.4 5.1 99.0 98.4
		csv_row 1 write 104857600 -0.040 0.1 0.1 98.0 97.0
		csv_row 2 write 104857600 0.000 0.1 0.1 98.0 97.0
	} >"$T/zc-matrix-runs.csv"
	{
		echo "$TURNS_HEADER"
		turns_row 104857600 write 0.001 0.1 104.8
		turns_row 104857600 send 0.544 6.3 104.7 write differs slowdown 10.0 4.2 15.1
	} >"$T/zc-matrix-turns.csv"
	turns_verdict >/dev/null
	grep -q "disagree" "$T/report" && fail "a sentence where the two agree, below 0: $(grep -A1 disagree "$T/report")"
	true
}

# The report of a saved turns CSV: each verdict's words, which part carries
# the difference, a method short of the rate named, and the rounds' verdict
# kept for the cells no turns measured (here: zcs -m trunc).
test_report_gives_the_turns_verdict_from_the_turns_csv() {
	{
		echo "$RUNS_HEADER"
		csv_row 1 send 104857600 1.000 20.0 15.0 99.0 98.4
		csv_row 1 write 104857600 1.100 22.0 16.0 98.0 97.0
		csv_row 1 send 104857600 1.000 20.0 15.0 99.0 98.4 | sed 's/,read,/,trunc,/'
		csv_row 1 write 104857600 1.100 22.0 16.0 98.0 97.0 | sed 's/,read,/,trunc,/'
	} >"$T/zc-matrix-runs.csv"
	{
		echo "$TURNS_HEADER"
		turns_row 104857600 write 0.900 18.0 104.8
		turns_row 104857600 send 0.990 19.8 104.7 write differs slowdown 10.0 4.2 15.1
		turns_row 104857600 splice 0.920 18.4 104.9 write same "" 2.2 -1.3 3.6
		turns_row 104857600 zerocopy 1.500 30.0 90.0 write unresolved "" 40.5 -2.0 80.0
		turns_row 104857600 uring 1.200 24.0 104.8 write differs kernel 33.3 30.1 36.0
	} >"$T/zc-matrix-turns.csv"
	expect_eq "$(turns_verdict)" \
		"  placement separate, zcs -m read, -b 1048576: 20 blocks of 1 cycle of 100 ms slots
    write      0.900 us/KB  load  18.0%    104.8 MB/s  cheapest
    splice     0.920 us/KB  load  18.4%    104.9 MB/s  the same within +-3.6% (+2.2% [-1.3, +3.6])
    send       0.990 us/KB  load  19.8%    104.7 MB/s  costs +10.0% [+4.2, +15.1]: the slowdown carries it (the kernel's view +5.0% [-1.0, +9.0])
    uring      1.200 us/KB  load  24.0%    104.8 MB/s  costs +33.3% [+30.1, +36.0]: the kernel's view carries it, +5.0% [-1.0, +9.0]
    zerocopy   1.500 us/KB  load  30.0%     90.0 MB/s  not resolved (+40.5% [-2.0, +80.0]); reached 86% of the rate"
	# Each arm in the order of its difference from the cheapest, whatever its
	# us/KB; a difference the slowdown carries while the kernel's view goes
	# the other way is said so.
	{
		echo "$TURNS_HEADER"
		turns_row 104857600 write 0.900 18.0 104.8
		turns_row 104857600 send 0.920 18.4 104.7 write differs slowdown 10.0 4.2 15.1
		turns_row 104857600 splice 0.990 19.8 104.9 write differs slowdown 6.5 1.4 11.4 -20.5 -36.5 -3.7
	} >"$T/zc-matrix-turns.csv"
	expect_eq "$(turns_verdict | sed 1d)" \
		"    write      0.900 us/KB  load  18.0%    104.8 MB/s  cheapest
    splice     0.990 us/KB  load  19.8%    104.9 MB/s  costs +6.5% [+1.4, +11.4]: the slowdown carries it, not CPU time the kernel counted, which went the other way, -20.5% [-36.5, -3.7] (the soakers ran slower beside it: caches, memory, the hypervisor)
    send       0.920 us/KB  load  18.4%    104.7 MB/s  costs +10.0% [+4.2, +15.1]: the slowdown carries it (the kernel's view +5.0% [-1.0, +9.0])"
	# The receiver's rows (the far end's meter over the same slots) and both
	# ends' sum follow the sender's, in that order whatever the CSV's; a
	# receiver without a meter (one host) has no rows in the verdict.
	{
		echo "$TURNS_HEADER"
		TURNS_END=both turns_row 104857600 write 3.050 "" 104.8 send same "" 1.7 -2.0 4.1
		TURNS_END=receiver turns_row 104857600 send 2.000 20.0 104.7
		TURNS_END=receiver turns_row 104857600 write 2.100 21.0 104.8 send differs slowdown 5.0 1.0 9.0
		turns_row 104857600 write 0.900 18.0 104.8
		turns_row 104857600 send 0.990 19.8 104.7 write differs slowdown 10.0 4.2 15.1
		TURNS_END=both turns_row 104857600 send 2.990 "" 104.7
		TURNS_END=receiver turns_row 104857600 splice "" "" 104.7 | sed 's/,read,/,trunc,/'
	} >"$T/zc-matrix-turns.csv"
	expect_eq "$(turns_verdict)" \
		"  placement separate, zcs -m read, -b 1048576: 20 blocks of 1 cycle of 100 ms slots
    write      0.900 us/KB  load  18.0%    104.8 MB/s  cheapest
    send       0.990 us/KB  load  19.8%    104.7 MB/s  costs +10.0% [+4.2, +15.1]: the slowdown carries it (the kernel's view +5.0% [-1.0, +9.0])
   the receiver (the far end's meter, over the same slots): 20 blocks
    send       2.000 us/KB  load  20.0%    104.7 MB/s  cheapest
    write      2.100 us/KB  load  21.0%    104.8 MB/s  costs +5.0% [+1.0, +9.0]: the slowdown carries it (the kernel's view +5.0% [-1.0, +9.0])
   both ends (the sender's and the receiver's us/KB added): 20 blocks
    send       2.990 us/KB    104.7 MB/s  cheapest
    write      3.050 us/KB    104.8 MB/s  the same within +-4.1% (+1.7% [-2.0, +4.1])" "each end's verdict and the sum's: $(cat "$T/report")"
	expect_eq "$(sed -n '/^Verdict at one rate, zcc -R 100m (104.9 MB\/s): the transmit/,$p' "$T/report" | grep '^  ')" \
		"  placement separate, zcs -m trunc:
    send -b 1048576        1.000 us/KB  load  20.0%  cheapest
    write -b 1048576       1.100 us/KB  load  22.0%  +10.0% [+10.0, +10.0]" "the rounds' verdict of the cells without turns"
	# A cheapest arm whose demand came out at 0 or below leaves no share of it.
	{
		echo "$TURNS_HEADER"
		turns_row 104857600 write -0.100 -2.0 104.8
		turns_row 104857600 send 0.050 1.0 104.7 write unresolved "" 0 0 0 | awk -F, -v OFS=, '{ $20 = $21 = $22 = ""; print }'
	} >"$T/zc-matrix-turns.csv"
	expect_eq "$(turns_verdict)" \
		"  placement separate, zcs -m read, -b 1048576: 20 blocks of 1 cycle of 100 ms slots
    write      -0.100 us/KB  load  -2.0%    104.8 MB/s  cheapest
    send       0.050 us/KB  load   1.0%    104.7 MB/s  not resolved (no share: the cheapest's demand is 0 or below)" \
		"a comparison with no share of the cheapest's demand: $(cat "$T/report")"
	# No share where the cheapest's demand is above 0: no block had bytes from both arms.
	sed -i 's/^\(104857600,separate,read,1048576,,100,3.0,write,write,30,104.8,\)-2.0,-0.100,/\12.0,0.010,/' "$T/zc-matrix-turns.csv"
	expect_eq "$(turns_verdict | grep '^    ')" \
		"    write      0.010 us/KB  load   2.0%    104.8 MB/s  cheapest
    send       0.050 us/KB  load   1.0%    104.7 MB/s  not resolved (no share: no block had bytes from both arms)" \
		"a comparison with no share and a cheapest above 0: $(cat "$T/report") $(cat "$T/zc-matrix-turns.csv")"
	bash "$ROOT/scripts/zc-report" --turns "$T/none.csv" "$T/zc-matrix-runs.csv" >/dev/null 2>"$T/err" &&
		fail "a missing --turns CSV passed"
	expect_eq "$(cat "$T/err")" "zc-report: $T/none.csv: cannot be read"
}

# --verdict: the verdicts alone, each the full report's, in lines of 100
# columns at most (a long row broken at a space, its rest indented 4 more),
# no table, and nothing written beside the CSV.
test_report_verdict_alone_fits_100_columns() {
	local full rc
	{
		echo "$RUNS_HEADER"
		csv_row 1 send 104857600 1.000 20.0 15.0 99.0 98.4
		csv_row 1 write 104857600 1.100 22.0 16.0 98.0 97.0
	} >"$T/zc-matrix-runs.csv"
	{
		echo "$TURNS_HEADER"
		turns_row 104857600 write 0.900 18.0 104.8
		turns_row 104857600 send 0.920 18.4 104.7 write differs slowdown 10.0 4.2 15.1
		turns_row 104857600 splice 0.990 19.8 104.9 write differs slowdown 6.5 1.4 11.4 -20.5 -36.5 -3.7
	} >"$T/zc-matrix-turns.csv"
	mkdir "$T/v"
	cp "$T/zc-matrix-runs.csv" "$T/zc-matrix-turns.csv" "$T/v/"
	"$ROOT/scripts/zc-report" --verdict "$T/v/zc-matrix-runs.csv" >"$T/verdict" 2>"$T/err" || fail "zc-report --verdict: $(cat "$T/err")"
	expect_eq "$(ls "$T/v" | tr '\n' ' ')" "zc-matrix-runs.csv zc-matrix-turns.csv " "what --verdict left beside the CSVs"
	expect_eq "$(awk 'length($0) > 100' "$T/verdict")" "" "lines over 100 columns"
	grep -q '^mode  ' "$T/verdict" && fail "a table in the verdict: $(cat "$T/verdict")"
	expect_eq "$(grep -A3 '^    splice ' "$T/verdict")" "    splice     0.990 us/KB  load  19.8%    104.9 MB/s  costs +6.5% [+1.4, +11.4]: the slowdown
        carries it, not CPU time the kernel counted, which went the other way, -20.5% [-36.5, -3.7]
        (the soakers ran slower beside it: caches, memory, the hypervisor)
    send       0.920 us/KB  load  18.4%    104.7 MB/s  costs +10.0% [+4.2, +15.1]: the slowdown" "a long row, broken"
	# The same verdict as the full report's, word for word.
	full=$("$ROOT/scripts/zc-report" "$T/zc-matrix-runs.csv" 2>&1 | sed -n '/^Verdict/,$p' | grep -v '^#' | tr -s ' \n' '  ')
	expect_eq "$(sed -n '/^Verdict/,$p' "$T/verdict" | grep -v '^#' | tr -s ' \n' '  ')" "$full" "the verdict's words against the full report's"
	rc=0
	bash "$ROOT/scripts/zc-report" --verdict --width 5 "$T/zc-matrix-runs.csv" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:zc-report: --verdict is the verdicts alone: not with --compare, --width, --out, --table or --interface" \
		"--verdict with --width"
}

# The plot: a bar's label its room (60 pixels a bar, 900 at least); lines
# against zcc -b only where three sizes or more were run, a panel a group
# (placement, receive mode, rate) and a line a mode, a paced group named by
# its MB/s; two sizes, no lines (they were a line a mode and group between
# two points, 18 of them in one panel).
test_report_plots_the_buffer_sizes_a_panel_a_group_where_there_are_three() {
	local b m
	command -v gnuplot >/dev/null || skip "gnuplot is not installed (apt-get install gnuplot-nox)"
	{
		echo "$RUNS_HEADER"
		for b in 4096 65536 1048576; do
			for m in send zerocopy; do
				csv_row 1 "$m" 104857600 1.000 20.0 15.0 99.0 98.4 | sed "s/,1048576,separate,/,$b,separate,/"
			done
		done
	} >"$T/zc-matrix-runs.csv"
	bash "$ROOT/scripts/zc-report" --out "$T/out" "$T/zc-matrix-runs.csv" >"$T/report" 2>&1 || fail "zc-report: $(cat "$T/report")"
	expect_eq "$(grep -c 'against the buffer size: placement separate, zcs -m read, paced at 104.9 MB/s' "$T/out/zc-matrix-plot.txt")" 1 \
		"the sizes' panel: $(cat "$T/out/zc-matrix-plot.txt")"
	expect_eq "$(file -b "$T/out/zc-matrix.png" | sed 's/, 8-bit.*//')" "PNG image data, 900 x 750" "the picture: 2 panels, 6 bars"
	grep "^round\|,65536," "$T/zc-matrix-runs.csv" >"$T/two.csv"
	grep ",1048576," "$T/zc-matrix-runs.csv" >>"$T/two.csv"
	mkdir "$T/two" && mv "$T/two.csv" "$T/two/zc-matrix-runs.csv"
	bash "$ROOT/scripts/zc-report" "$T/two/zc-matrix-runs.csv" >"$T/report" 2>&1 || fail "zc-report: $(cat "$T/report")"
	grep -q 'against the buffer size' "$T/two/zc-matrix-plot.txt" && fail "lines between two sizes: $(cat "$T/two/zc-matrix-plot.txt")"
	return 0
}

# Paths are files, whatever they hold: a '=' (awk took rate=400m/x.csv
# for an assignment and read standard input), a backslash (awk's escapes
# made --out 'o\tx' o<TAB>x), a leading '-' (head took it for an option).
test_report_takes_any_path_as_a_path() {
	mkdir "$T/rate=400m"
	{
		echo "$RUNS_HEADER"
		csv_row 1 send 104857600 1.000 20.0 15.0 99.0 98.4
		csv_row 1 write 104857600 1.100 22.0 16.0 98.0 97.0
	} >"$T/rate=400m/zc-matrix-runs.csv"
	(cd "$T" && bash "$ROOT/scripts/zc-report" --out 'o\tx' rate=400m/zc-matrix-runs.csv </dev/null) >"$T/report" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	grep -q '^Verdict at one rate' "$T/report" || fail "no verdict: $(cat "$T/report")"
	[ -s "$T/o\tx/zc-matrix.csv" ] || fail "no cells CSV in o\\tx: $(ls "$T")"
	(cd "$T" && bash "$ROOT/scripts/zc-report" --compare rate=400m/zc-matrix-runs.csv -dash-runs.csv) >"$T/report" 2>"$T/err" &&
		fail "a missing CSV passed"
	expect_eq "$(cat "$T/err")" "zc-report: ./-dash-runs.csv: cannot be read"
}

# --compare: two saved runs, cell by cell, the figures worked out by hand
# (scripts/compare.awk's exact Mann-Whitney ranks: 1 for 4 rounds against
# 4, 6 for 6 against 6, none for 1 against 4), and the records' differences.
test_report_compares_two_saved_runs_cell_by_cell() {
	local i
	{
		echo "$RUNS_HEADER"
		i=0; for d in 1.00 1.02 1.04 1.06; do i=$((i + 1)); csv_row $i send "" $d 60.0 58.0 "" ""; done
		i=0; for d in 0.90 0.91 0.92 0.93; do i=$((i + 1)); csv_row $i write "" $d 60.0 58.0 "" ""; done
		i=0; for d in 0.50 0.51 0.52 0.53 0.54 0.55; do i=$((i + 1)); csv_row $i sendfile "" $d 60.0 58.0 "" ""; done
		csv_row 1 zerocopy "" 1.500 60.0 58.0 "" ""
	} >"$T/old-runs.csv"
	{
		echo "$RUNS_HEADER"
		i=0; for d in 1.10 1.12 1.14 1.16; do i=$((i + 1)); csv_row $i send "" $d 60.0 58.0 "" ""; done
		i=0; for d in 0.905 0.915 0.925 0.935; do i=$((i + 1)); csv_row $i write "" $d 60.0 58.0 "" ""; done
		i=0; for d in 0.46 0.47 0.48 0.49 0.50 0.51; do i=$((i + 1)); csv_row $i sendfile "" $d 60.0 58.0 "" ""; done
		i=0; for d in 1.40 1.41 1.42 1.43; do i=$((i + 1)); csv_row $i zerocopy "" $d 60.0 58.0 "" ""; done
	} >"$T/new-runs.csv"
	printf 'kernel: 6.18.1\nnet.ipv4.tcp_autocorking: 1\ncpus: 2\n' >"$T/old-system.txt"
	printf 'kernel: 6.19.0\nnet.ipv4.tcp_autocorking: 1\ncpus: 2\nqdisc: fq\n' >"$T/new-system.txt"
	bash "$ROOT/scripts/zc-report" --compare "$T/old-runs.csv" "$T/new-runs.csv" >"$T/report" 2>"$T/err" ||
		fail "zc-report --compare failed: $(cat "$T/err")"
	expect_eq "$(cat "$T/report")" "# old: $T/old-runs.csv; new: $T/new-runs.csv
# what differs between the two runs' records (old | new):
#   kernel: 6.18.1 | 6.19.0
#   qdisc: - | fq
# each side: the median of its rounds, +- the wider side of its interval; the change: the median
# of every new round over every old one, with its 95% interval (Mann-Whitney); \"no change\" where it holds 0
cell: service demand (zcc -c, us/KB)         old              new              change                                         rounds
send 1048576 separate read, full speed       1.030 +-  3%     1.130 +-  3%     +9.7% [+3.8, +16.0]                            4+4
write 1048576 separate read, full speed      0.915 +-  2%     0.920 +-  2%     no change (+0.5% [-2.7, +3.9])                 4+4
sendfile 1048576 separate read, full speed   0.525 +-  5%     0.485 +-  5%     -7.6% [-12.7, -2.0]                            6+6
zerocopy 1048576 separate read, full speed   1.500 +-  0%     1.415 +-  1%     too few rounds, 4+4 at least (-5.7%, range -6.7 to -4.7) 1+4"
	# The same runs with no records beside them: said once, then the cells.
	cp "$T/old-runs.csv" "$T/a.csv"
	bash "$ROOT/scripts/zc-report" --compare "$T/a.csv" "$T/new-runs.csv" | sed -n 2p >"$T/line"
	expect_eq "$(cat "$T/line")" "# no record beside one run or both (zc-matrix-system.txt): what they ran on is not compared"
	bash "$ROOT/scripts/zc-report" --compare "$T/a.csv" >/dev/null 2>&1 && fail "--compare with one CSV passed"
	bash "$ROOT/scripts/zc-report" --compare "$T/a.csv" "$T/none.csv" >/dev/null 2>"$T/err" && fail "a missing CSV passed"
	expect_eq "$(cat "$T/err")" "zc-report: $T/none.csv: cannot be read"
}

# --compare where a round's demand is 0 or below (a paced load the meter's
# noise outweighs): a ratio means nothing there (-0.0585 against +0.0390
# us/KB read -250%), so the change is the median of every new round less
# every old one, in us/KB, with the same order statistics (4 against 4: the
# least and the most of the 16), and said under the table; a side whose
# median is 0 or below gives its interval in us/KB. Worked by hand: send's
# 16 differences run 0.01 to 0.14, their median 0.05; write's -0.02 to
# 0.04, their median 0.01.
test_report_compares_a_demand_of_0_or_below_by_its_difference() {
	local i d
	{
		echo "$RUNS_HEADER"
		i=0; for d in -0.060 0.040 0.010 0.020; do i=$((i + 1)); csv_row $i send "" $d 1.0 1.0 "" ""; done
		i=0; for d in -0.030 -0.020 -0.010 0.000; do i=$((i + 1)); csv_row $i write "" $d 1.0 1.0 "" ""; done
	} >"$T/old-runs.csv"
	{
		echo "$RUNS_HEADER"
		i=0; for d in 0.050 0.060 0.070 0.080; do i=$((i + 1)); csv_row $i send "" $d 1.0 1.0 "" ""; done
		i=0; for d in -0.020 -0.010 0.000 0.010; do i=$((i + 1)); csv_row $i write "" $d 1.0 1.0 "" ""; done
	} >"$T/new-runs.csv"
	bash "$ROOT/scripts/zc-report" --compare "$T/old-runs.csv" "$T/new-runs.csv" >"$T/report" 2>"$T/err" ||
		fail "zc-report --compare failed: $(cat "$T/err")"
	# Each row's change and rounds (the columns from the 80th), then the note.
	expect_eq "$(sed -n '/^cell: /,$p' "$T/report" | sed -n '2,3s/^.\{79\}//p; 4,$p')" "+0.050 us/KB [+0.010, +0.140]                  4+4
no change (+0.010 us/KB [-0.020, +0.040])      4+4
a change in us/KB: a round of that cell had a demand of 0 or below (the meter's noise outweighed the load), so
the change is every new round less every old one, not a ratio"
	expect_match "$(grep '^write ' "$T/report")" '^write 1048576 separate read, full speed +-0\.015 \+-0\.[0-9]{3} +-0\.005 \+-0\.[0-9]{3} '
	expect_match "$(grep '^send ' "$T/report")" '^send 1048576 separate read, full speed +0\.015 \+- *[0-9]+% +0\.065 \+- *[0-9]+% '
}

# The verdict where a round's demand is 0 or below (a paced load within the
# meter's noise): the cells set against the cheapest by the rounds' paired
# differences in us/KB, said so, not by ratios (over the rounds whose
# cheapest was above 0 alone: +425.0% [+150.0, +700.0] here); and which end
# paid gives no share where an end's demand is 0 or below (it read "the
# sender paid 200%", and over a sum of 0, "inf%"). Worked by hand: write
# less send, round by round, 0.040, 0.030 and 0.035.
test_report_verdict_on_a_demand_of_0_or_below_takes_differences() {
	local i d
	{
		echo "$RUNS_HEADER"
		i=0; for d in -0.010 0.020 0.005; do i=$((i + 1)); csv_row $i send 1048576 $d 1.0 1.0 100.0 100.0; done
		i=0; for d in 0.030 0.050 0.040; do i=$((i + 1)); csv_row $i write 1048576 $d 2.0 2.0 100.0 100.0; done
	} | awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
		{ $c["recv_demand_us_per_kb"] = ($c["mode"] == "send" ? "0.100" : "-0.020"); print }' >"$T/runs.csv"
	bash "$ROOT/scripts/zc-report" --out "$T/o" "$T/runs.csv" >"$T/report" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	expect_eq "$(sed -n '/^  placement separate, zcs -m read:$/,/^#/p' "$T/report" | sed '$d')" "  placement separate, zcs -m read:
    send -b 1048576        0.005 us/KB  load   1.0%  cheapest
    write -b 1048576       0.040 us/KB  load   2.0%  +0.035 us/KB [+0.030, +0.040]
    (a demand of 0 or below in a round, a load within the meter's noise: each set against the cheapest by
    the rounds' paired differences in us/KB, not ratios)
    which end paid (us/KB: the sender by zcc -c, the receiver by zcs -c, each in runs of its own):
      send -b 1048576      sender 0.005, receiver 0.100: the receiver paid 95%
      write -b 1048576     sender 0.040, receiver -0.020: no share (a demand of 0 or below: a load within the meter's noise)"
}

# The offloads compared where a round's demand is 0 or below: that cell by
# the rounds' paired differences in us/KB, said so, the others by ratios.
# Worked by hand: sendfile unpinned, off less on, 1.010 - -0.010, 1.020 -
# 0.816 and 1.030 - 0.824.
test_report_offloads_on_a_demand_of_0_or_below_take_differences() {
	runs_2001 "" | awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
		$c["mode"] == "sendfile" && $c["placement"] == "none" && $c["offload"] == "sg:on/tx:on" && $c["round"] == 1 {
			$c["demand_us_per_kb"] = "-0.010" }
		{ print }' >"$T/d.csv"
	bash "$ROOT/scripts/zc-report" --table 2001 --out "$T/o" "$T/d.csv" >"$T/rep" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	expect_eq "$(sed -n '/^Offloads: /,/^$/p' "$T/rep" | sed -n '3,$p')" "  placement none, zcs -m read, send -b 65536               +25.0% [+25.0, +25.0]  tx pps 6040 -> 6145
  placement none, zcs -m read, sendfile                    +0.206 us/KB [+0.204, +1.020]  tx pps 6030 -> 6135
  placement separate, zcs -m read, send -b 65536           +25.0% [+25.0, +25.0]  tx pps 6060 -> 6165
  placement separate, zcs -m read, sendfile                +25.0% [+25.0, +25.0]  tx pps 6050 -> 6155
  (us/KB: a round's demand was 0 or below, a load within the meter's noise: the paired differences, not ratios)" "the offloads compared"
}

# A datagram cell that lost more than 1% did less work: named, not ranked.
test_report_sets_aside_a_datagram_cell_that_lost_too_much() {
	udp_row() {
		echo "$1,udp-$2,1472,none,udp-read,67.0,20.0,5.000,2.000,1.000,67.0,$3,$4,$3,0.0,,,40000,40000,40000,,,,,,,,67108864,100.0,100.0,$3,0.0,45000,$5,$6,1500,,,,,,,,,,,"
	}
	{
		echo "$RUNS_HEADER"
		udp_row 1 gso 5.0 1.500 1100 0.00
		udp_row 2 gso 5.2 1.520 1100 0.00
		udp_row 1 sendmsg 25.0 7.500 45000 0.10
		udp_row 2 sendmsg 25.5 7.600 45000 0.20
		udp_row 1 sendmmsg 20.0 6.000 1100 3.50
		udp_row 2 sendmmsg 20.2 6.100 1100 4.50
	} >"$T/runs.csv"
	bash "$ROOT/scripts/zc-report" --out "$T/out" "$T/runs.csv" >"$T/report" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	expect_eq "$(sed -n '/^Verdict at one rate/,$p' "$T/report" | grep '^  ')" \
		"  placement none, zcs -u -m read:
    udp-gso -l 1472        1.510 us/KB  load   5.1%  cheapest
    udp-sendmsg -l 1472    7.550 us/KB  load  25.2%  +400.0% [+400.0, +400.0]
    udp-sendmmsg -l 1472   lost 4.00% of its datagrams, more than 1%: its load is not comparable; not ranked"
	expect_eq "$(grep -E '^udp-' "$T/report" | awk -F'|' '{ print $6 }' | tr -s ' ' | tr '\n' '|')" \
		" 45000 45000 0.15% | 45000 1100 4.00% | 45000 1100 0.00% |" "dgrams/s, calls/s and loss: sendmsg, sendmmsg, gso"
}

run_tests "$@"
