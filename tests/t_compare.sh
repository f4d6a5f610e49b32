#!/bin/bash
# zc-report --compare on two turns CSVs: each arm's difference from the arm
# it was set against in each run, the change between the two with its
# interval and verdict, read from saved files whose every figure is known;
# and the runs CSV's --compare of one path given twice.
# make check-quick runs this file.
. "$(dirname "$0")/lib.sh"
. "$ROOT/scripts/bench-lib.sh"

# turns_row RATE ARM MODE AGAINST DEMAND LO HI LOAD LO HI: a row of a turns
# CSV, of placement "same", zcs -m read, -b 1048576, the sender's meter;
# AGAINST "-" for the cheapest (its figures empty).
turns_row() {
	local rate=$1 arm=$2 mode=$3 against=$4
	shift 4
	[ "$against" != - ] || { against= ; set -- "" "" "" "" "" ""; }
	awk -v columns="$BENCH_TURNS_COLUMNS" -v rate="$rate" -v arm="$arm" -v mode="$mode" -v against="$against" \
		-v d="$1" -v dl="$2" -v dh="$3" -v l="$4" -v ll="$5" -v lh="$6" 'BEGIN {
		v["rate_bytes_per_sec"] = rate; v["placement"] = "same"; v["recv"] = "read"; v["bufsize"] = 1048576
		v["slot_ms"] = 40; v["arm"] = arm; v["mode"] = mode; v["against"] = against; v["end"] = "sender"
		v["run"] = "20261127T000000Z-1"; v["demand_pct"] = d; v["demand_pct_lo"] = dl; v["demand_pct_hi"] = dh
		v["load_points"] = l; v["load_points_lo"] = ll; v["load_points_hi"] = lh
		n = split(columns, name, " ")
		for (k = 1; k <= n; k++)
			printf "%s%s", v[name[k]], k < n ? "," : "\n"
	}'
}

turns_header() {
	echo "${BENCH_TURNS_COLUMNS// /,}"
}

# Four groups: two arms whose cheapest changed between the runs (the new
# run's pair turned); three arms whose cheapest changed (one pair turned,
# one set against another arm, not compared); a pair that moved within the
# bound ("no change"); -X's arms, named for the mode; and a group in the new
# run only. Every figure below follows from the rows by hand:
#   sendfile: old +25.0 [+20.0, +30.0]; new write against sendfile -20.0
#   [-25.0, -15.0], turned 100/80-1 = +25.0, 100/85-1 = +17.6, 100/75-1 =
#   +33.3; the change 0, lo -sqrt(7.35^2+5^2) = -8.9, hi sqrt(8.33^2+5^2) =
#   +9.7: wider than +-5, not resolved. Its load: +2.00 [+1.60, +2.40],
#   new -1.00 [-1.30, -0.70] turned +1.00 [+0.70, +1.30]; the change -1.00,
#   lo -1 - sqrt(0.3^2+0.4^2) = -1.50, hi -1 + 0.5 = -0.50: changed.
#   uring against send: +10.0 [+8.0, +12.0]; new send against uring -10.0
#   [-12.0, -8.0], turned +11.1 [+8.7, +13.6]; the change +1.1, lo 1.1 -
#   sqrt(2.41^2+2^2) = -2.0, hi 1.1 + sqrt(2.53^2+2^2) = +4.3: within +-5,
#   no change; its load +1.00 [+0.80, +1.20] both times: 0 -+ sqrt(0.08).
#   splice against send: +3.0 [+2.0, +4.0], then against uring with send
#   against uring too: through uring, the ratio 0.94 / 0.90, +4.4 [+1.3,
#   +7.7] (the logs' MOVER), the change +1.4 [-1.9, +4.9]: within +-5, no
#   change; its load -0.45 - -1.00 = +0.55 -+ sqrt(0.1^2+0.2^2) = [+0.33,
#   +0.77], the change +0.05 [-0.19, +0.29].
#   b=64k against b=1m (-X's arms): +4.0 [+1.0, +7.0] then +24.0 [+21.0,
#   +27.0]: +20.0 -+ sqrt(18) = [+15.8, +24.2]: changed.
test_compare_of_two_turns_csvs_gives_each_change_with_its_interval() {
	local r=104857600 out
	{
		turns_header
		turns_row "" write write -
		turns_row "" sendfile sendfile write 25.0 20.0 30.0 2.00 1.60 2.40
		turns_row $r send send -
		turns_row $r splice splice send 3.0 2.0 4.0 0.50 0.40 0.60
		turns_row $r uring uring send 10.0 8.0 12.0 1.00 0.80 1.20
		turns_row $r b=64k write b=1m 4.0 1.0 7.0 0.40 0.10 0.70
		turns_row $r b=1m write -
	} >"$T/old-turns.csv"
	{
		turns_header
		turns_row "" sendfile sendfile -
		turns_row "" write write sendfile -20.0 -25.0 -15.0 -1.00 -1.30 -0.70
		turns_row $r uring uring -
		turns_row $r send send uring -10.0 -12.0 -8.0 -1.00 -1.20 -0.80
		turns_row $r splice splice uring -6.0 -8.0 -4.0 -0.45 -0.55 -0.35
		turns_row $r b=64k write b=1m 24.0 21.0 27.0 2.40 2.10 2.70
		turns_row $r b=1m write -
		turns_row 52428800 send send -
		turns_row 52428800 write write send 1.0 -1.0 3.0 0.10 -0.10 0.30
	} >"$T/new-turns.csv"
	out=$("$ROOT/scripts/zc-report" --compare "$T/old-turns.csv" "$T/new-turns.csv") || fail "zc-report failed: $out"
	expect_eq "$out" "# old: $T/old-turns.csv; new: $T/new-turns.csv
# no record beside one run or both (zc-matrix-system.txt): what they ran on is not compared
# each side: an arm's difference from the arm it was set against in that run's turns, the
# blocks' median with its 95% interval; the change: new less old, its 95% interval from both
# sides' (taken as independent); the demand in % of the other arm's, the load in points of the host
sendfile against write, full speed, placement same, zcs -m read, -b 1048576, sender's meter:
  demand (%)       old +25.0 [+20.0, +30.0]       new +25.0 [+17.6, +33.3]       not resolved: +0.0 [-8.9, +9.7]
  load (points)    old +2.00 [+1.60, +2.40]       new +1.00 [+0.70, +1.30]       changed: -1.00 [-1.50, -0.50]
splice against send, zcc -R 100m (104.9 MB/s), placement same, zcs -m read, -b 1048576, sender's meter (the new run's through uring, its cheapest):
  demand (%)       old +3.0 [+2.0, +4.0]          new +4.4 [+1.3, +7.7]          no change: within +-4.9 (+1.4 [-1.9, +4.9])
  load (points)    old +0.50 [+0.40, +0.60]       new +0.55 [+0.33, +0.77]       no change: within +-0.29 (+0.05 [-0.19, +0.29])
uring against send, zcc -R 100m (104.9 MB/s), placement same, zcs -m read, -b 1048576, sender's meter:
  demand (%)       old +10.0 [+8.0, +12.0]        new +11.1 [+8.7, +13.6]        no change: within +-4.3 (+1.1 [-2.0, +4.3])
  load (points)    old +1.00 [+0.80, +1.20]       new +1.00 [+0.80, +1.20]       no change: within +-0.28 (+0.00 [-0.28, +0.28])
b=64k against b=1m, -m write, zcc -R 100m (104.9 MB/s), placement same, zcs -m read, -b 1048576, sender's meter:
  demand (%)       old +4.0 [+1.0, +7.0]          new +24.0 [+21.0, +27.0]       changed: +20.0 [+15.8, +24.2]
  load (points)    old +0.40 [+0.10, +0.70]       new +2.40 [+2.10, +2.70]       changed: +2.00 [+1.58, +2.42]
arms not compared:
  write against send, zcc -R 50m (52.4 MB/s), placement same, zcs -m read, -b 1048576, sender's meter: in the new run only" "the comparison"
}
# One path given twice is both sides, old and new: each cell's rounds on
# both, every change 0; it was read as one side ("in one run only").
test_compare_of_one_path_given_twice_reads_it_as_both_sides() {
	local out cells
	out=$("$ROOT/scripts/zc-report" --compare "$ROOT/tests/report-runs.csv" "$ROOT/tests/report-runs.csv") ||
		fail "zc-report failed: $out"
	cells=$(grep -cE ' ([0-9]+)\+\1$' <<<"$out" || true)
	[ "$cells" -ge 8 ] || fail "$cells cells with as many rounds a side: $out"
	grep -q "in one run only" <<<"$out" && fail "a cell in one run only: $out"
	grep -E ' [0-9]+\+[0-9]+$' <<<"$out" | grep -vqE '\(\+0\.0%' && fail "a change other than 0: $out"
	{
		turns_header
		turns_row "" write write -
		turns_row "" sendfile sendfile write 25.0 20.0 30.0 2.00 1.60 2.40
	} >"$T/one-turns.csv"
	out=$("$ROOT/scripts/zc-report" --compare "$T/one-turns.csv" "$T/one-turns.csv") || fail "zc-report failed: $out"
	expect_eq "$(tail -n 3 <<<"$out")" "sendfile against write, full speed, placement same, zcs -m read, -b 1048576, sender's meter:
  demand (%)       old +25.0 [+20.0, +30.0]       new +25.0 [+20.0, +30.0]       not resolved: +0.0 [-7.1, +7.1]
  load (points)    old +2.00 [+1.60, +2.40]       new +2.00 [+1.60, +2.40]       no change: within +-0.57 (+0.00 [-0.57, +0.57])" "turns given twice"
}

# A turns CSV against a runs CSV is refused, naming which is not a turns CSV.
test_compare_of_a_turns_csv_and_a_runs_csv_is_refused() {
	local rc=0
	{
		turns_header
		turns_row "" write write -
	} >"$T/one-turns.csv"
	"$ROOT/scripts/zc-report" --compare "$T/one-turns.csv" "$ROOT/tests/report-runs.csv" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" "zc-report: --compare $ROOT/tests/report-runs.csv: not a turns CSV (no columns arm and against): compare two runs CSVs, or two turns CSVs" "the error"
	[ -s "$T/out" ] && fail "wrote to stdout: $(cat "$T/out")"
	return 0
}

run_tests "$@"
