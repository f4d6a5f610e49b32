#!/bin/bash
# scripts/zc-fleet: many pairs at once over ssh, one report. A plan's
# errors, every one named before anything starts; a fleet of four hosts,
# each a network namespace with an OpenSSH server of its own, joined by a
# bridge, running three pairs at once under one meter (the four are one
# machine); a host unreachable at the start; a host lost mid-run; and
# SIGTERM. Nothing of ours may be left running on any host.
. "$(dirname "$0")/lib.sh"
. "$ROOT/scripts/bench-lib.sh"

# fleet_running: what runs in the fleet's namespaces besides their sshds, one
# a line (a zombie has ended: harness.sh's session_running).
fleet_running() {
	local i ns p
	for i in 1 2 3 4; do
		eval "ns=\${FLEET_NS_$i:-}"
		[ -n "$ns" ] || continue
		for p in $(ip netns pids "$ns"); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sshd ] || [ "$(ps -o stat= -p "$p")" = Z ] ||
				{ printf '%s: ' "$ns"; tr '\0' ' ' <"/proc/$p/cmdline"; echo; } 2>/dev/null || true
		done
	done
}

# fleet_dir: where the hosts find zc, $T/zc: the programs, and a calibration of their own.
fleet_dir() {
	mkdir -p "$T/zc"
	ln -s "$ROOT/zcc" "$ROOT/zcs" "$ROOT/cyclesoak" "$T/zc/"
	calibrate_here
	cp "$T/counts_per_sec" "$T/zc/"
}

# fleet PLAN ARGS...: zc-fleet driven from the hub, over the test's sshds, zc in $T/zc.
fleet() {
	local plan=$1
	shift
	ip netns exec "$FLEET_HUB" bash "$ROOT/scripts/zc-fleet" --ssh "$FLEET_SSH" --dir "$T/zc" "$@" "$plan"
}

test_a_plans_errors_are_each_named_before_anything_starts() {
	local rc=0
	starts_no_meter
	cat >"$T/plan" <<'EOF'
# pairs, a line each
root@10.0.0.1 root@10.0.0.2 10.0.0.2 -m sendfile

root@10.0.0.1
bad!host root@10.0.0.2 10.0.0.2
root@10.0.0.1 root@10.0.0.2 10.0.0.2 -m bogus
root@10.0.0.1 root@10.0.0.2 10.0.0.2 -t 5
root@10.0.0.1 root@10.0.0.2 10.0.0.2 -m write
root@10.0.0.3 root@10.0.0.2 10.0.0.2 -p 5201
root@10.0.0.3 root@10.0.0.4 10.0.0.4; rm -rf /
root@10.0.0.5 root@10.0.0.2 10.0.0.2 -Dp5201
root@10.0.0.6 root@10.0.0.7 10.0.0.7 -Dc
EOF
	"$ROOT/scripts/zc-fleet" "$T/plan" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 2 "exit code"
	expect_eq "$(cat "$T/err")" "zc-fleet: $T/plan: line 4: 1 field(s): a pair is SENDER RECEIVER ADDRESS [zcc options...]
zc-fleet: $T/plan: line 5: SENDER 'bad!host': not an ssh destination ([user@]host)
zc-fleet: $T/plan: line 6: zcc options: zcc: -m 'bogus': unknown mode ($("$ROOT/zcc" -m '?' | paste -sd, - | sed 's/,/, /g; s/, \([^,]*\)$/ or \1/'))
zc-fleet: $T/plan: line 7: zcc -t: the fleet sets it (-s is ADDRESS, -t is --secs; the meters are the fleet's, one a machine; TCP only)
zc-fleet: $T/plan: line 8: the same pair as line 2 (root@10.0.0.1 to root@10.0.0.2 at 10.0.0.2)
zc-fleet: $T/plan: line 9: RECEIVER root@10.0.0.2 is in line 2's pair with port 5201 too: give one of them another (-p)
zc-fleet: $T/plan: line 10: ADDRESS '10.0.0.4;': not an address or a host name
zc-fleet: $T/plan: line 11: RECEIVER root@10.0.0.2 is in line 2's pair with port 5201 too: give one of them another (-p)
zc-fleet: $T/plan: line 12: zcc -c: the fleet sets it (-s is ADDRESS, -t is --secs; the meters are the fleet's, one a machine; TCP only)" "the plan's errors"
	[ -s "$T/out" ] && fail "wrote to stdout: $(cat "$T/out")"
	printf '# nothing yet\n\n' >"$T/empty"
	rc=0
	"$ROOT/scripts/zc-fleet" "$T/empty" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 2 "exit code of an empty plan"
	expect_eq "$(cat "$T/err")" "zc-fleet: $T/empty: no pairs (a line a pair: SENDER RECEIVER ADDRESS [zcc options...])" "an empty plan"
	rc=0
	"$ROOT/scripts/zc-fleet" --secs 0 "$T/empty" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc $(cat "$T/err")" "2 zc-fleet: --secs '0': out of range (1 to 86400)" "--secs 0"
	rc=0
	"$ROOT/scripts/zc-fleet" --install --calibrate-ms 5 "$T/empty" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc $(cat "$T/err")" "2 zc-fleet: --calibrate-ms '5': out of range (10 to 600000)" "--calibrate-ms 5"
	rc=0
	"$ROOT/scripts/zc-fleet" --calibrate-ms 1000 "$T/empty" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc $(cat "$T/err")" "2 zc-fleet: --calibrate-ms is the period of --install's calibrations: give --install too" \
		"--calibrate-ms without --install"
	return 0
}

# The report from saved ends' output, every figure known: the window runs
# from the last sender's start (pair 2's, 1000.10 s on this clock: its
# host's 1000.30 less its offset 0.20) to the first receiver's end (pair
# 1's, 1005.00): 4.90 s, the senders 100 ms apart. Pair 3 ran before the
# others began: it did not overlap them, and is named. A pair's MB/s is its
# receiver's seconds inside the window (those ending 1002 to 1005 for pair
# 1: 1000 to 1003 kB/s, their mean 1001.5 kB/s, 1.0255 MB/s; pair 2's
# ending 1001.2 to 1004.2 on this clock, 2000 kB/s, 2.048 MB/s); the
# machine's load the mean of its 9 samples inside it (20%, not the 90% on
# either side), and its kernel view the mean of the 8 that have one (10%,
# a null not taken as 0); its demand that load's CPU time over the KB both
# pairs moved: 0.20 x 2 CPUs x 1e6 us / 3001.5 KB/s = 133.267 us/KB.
test_the_report_takes_the_window_every_pair_ran_in() {
	local d=$T/saved json t
	mkdir -p "$d"
	printf '%s\n' "pair sender receiver address port machine_s machine_r offset_s offset_r cpus_s cpus_r" \
		"1 a b 10.0.0.2 5201 m1 m1 0.0 0.0 2 2" "2 c d 10.0.0.4 5202 m1 m1 0.2 -0.1 2 2" "3 e f 10.0.0.6 5203 m1 m1 0.0 0.0 2 2" >"$T/pairs"
	echo "m1 0.0 2" >"$T/machines"
	json='{"settings":{"mode":"write","bufsize":65536,"rate_bytes_per_sec":null},"result":{"bytes":1,"tcp_info":{"retrans_segments":3,"rwnd_limited_pct":1.5,"sndbuf_limited_pct":2.5}},"link":{"tx_bytes_per_packet":1448}}'
	echo "start 1000.0" >"$d/r1-pair1-zcc.err"
	echo "start 1000.3" >"$d/r1-pair2-zcc.err"
	echo "start 990.0" >"$d/r1-pair3-zcc.err"
	for i in 1 2 3; do echo "$json" >"$d/r1-pair$i-zcc.out"; done
	printf '%s\n' "1000.0 zcs: listening on :: port 5201" "1001.0 999 kbytes/sec" "1002.0 1000 kbytes/sec" "1003.0 1001 kbytes/sec" \
		"1004.0 1002 kbytes/sec" "1005.0 1003 kbytes/sec" "1005.0 received 5000 bytes in 5.0 s, 1000 kbytes/sec" >"$d/r1-pair1-zcs.out"
	printf '%s\n' "1000.0 zcs: listening on :: port 5202" "1001.1 2000 kbytes/sec" "1002.1 2000 kbytes/sec" "1003.1 2000 kbytes/sec" \
		"1004.1 2000 kbytes/sec" "1005.1 2000 kbytes/sec" "1005.2 received 10000 bytes in 5.0 s, 2000 kbytes/sec" >"$d/r1-pair2-zcs.out"
	printf '%s\n' "991.0 500 kbytes/sec" "995.0 received 2000 bytes in 5.0 s, 500 kbytes/sec" >"$d/r1-pair3-zcs.out"
	for t in 999.5 1000.5 1001.0 1001.5 1002.0 1002.5 1003.0 1003.5 1004.0 1004.5 1005.0 1006.0; do
		echo "$t {\"seconds\":0.5,\"load_pct\":$([ "$t" = 999.5 ] || [ "$t" = 1006.0 ] && echo 90.0 || echo 20.0),\"kernel_pct\":$([ "$t" = 1002.5 ] && echo null || echo 10.0)}"
	done >"$d/r1-meter-m1.out"
	awk -v out="$d" -v prefix=r1- -v round=1 -v secs=5 -v run=x -v columns="$BENCH_RUNS_COLUMNS" \
		-f "$ROOT/scripts/json.awk" -f "$ROOT/scripts/report/fleet.awk" "$T/pairs" "$T/machines" >"$T/report" ||
		fail "fleet.awk failed: $(cat "$T/report")"
	expect_eq "$(cat "$T/report")" "the window: every pair running for 4.90 s of the 5 asked, from the last sender's start; the senders started within 100.0 ms of each other (each by its clock, less its offset)
pair  sender -> receiver (address:port)       MB/s  load S%   us/KB S  load R%   us/KB R  retrans rwnd-lim% sndbuf-lim%  B/pkt
1     a -> b (10.0.0.2:5201)                   1.0     20.0   133.267     20.0   133.267        3       1.5         2.5   1448
2     c -> d (10.0.0.4:5202)                   2.0     20.0   133.267     20.0   133.267        3       1.5         2.5   1448
3     e -> f (10.0.0.6:5203)             apart: it did not overlap the others (it ran from -10.10 s to -5.10 s of the last sender's start)
host                     machine   sent MB/s  recv MB/s
a                        m1              1.0        0.0
b                        m1              0.0        1.0
c                        m1              2.0        0.0
d                        m1              0.0        2.0
e                        m1              0.0        0.0
f                        m1              0.0        0.0
machine  samples  cpus    load%  kernel% MB/s moved     us/KB  hosts
m1             9     2     20.0     10.0        3.1   133.267  a b c d e f
aggregate: 2 of 3 pairs, 3.1 MB/s in all over the window
pairs not in the window:
  pair 3 (e -> f (10.0.0.6:5203)): it did not overlap the others (it ran from -10.10 s to -5.10 s of the last sender's start)" "the report"
	expect_eq "$(awk -F, 'NR > 0 { print $1 "," $2 "," $3 "," $6 "," $12 "," $13 "," $(NF - 2) }' "$d/zc-fleet-runs.csv" | tr '\n' '|')" \
		"1,write,65536,1.0,20.00,133.2667,1|1,write,65536,2.0,20.00,133.2667,2|" "the CSV's rows"
	# Long names and addresses widen their columns: every row as long as its heading.
	sed -i 's/^2 c d 10.0.0.4 /2 root@sender-with-a-long-name.example.org root@receiver-with-a-long-name.example.org fd00:1234:5678:9abc:def0::4 /' "$T/pairs"
	rm -f "$d/zc-fleet-runs.csv"
	awk -v out="$d" -v prefix=r1- -v round=1 -v secs=5 -v run=x -v columns="$BENCH_RUNS_COLUMNS" \
		-f "$ROOT/scripts/json.awk" -f "$ROOT/scripts/report/fleet.awk" "$T/pairs" "$T/machines" >"$T/report" ||
		fail "fleet.awk failed: $(cat "$T/report")"
	expect_eq "$(sed -n 2,4p "$T/report" | awk '{ print length($0) }' | sort -u | wc -l)" 1 "the pairs' rows against their heading: $(sed -n 2,4p "$T/report")"
	expect_eq "$(sed -n '/^host /,/^machine /p' "$T/report" | sed '$d' | awk '{ print length($0) }' | sort -u | wc -l)" 1 \
		"the hosts' rows against their heading: $(sed -n '/^host /,/^machine /p' "$T/report")"
}

# --install, then three pairs at once among four hosts (one host in two
# pairs: receiver of one, sender of another), 4 s. zc is copied to a
# directory of the hosts' own, built there once (the four hosts are
# namespaces of one machine, sharing the directory: the other three find it
# built), calibrated once; the hosts found one machine, metered once; every
# pair in the window with its throughput; the machine's row; the CSV; and
# nothing left running anywhere. (--install had a test of its own, of one
# pair and 1 s: a fleet's set-up and round more, 9 s of make check's tests
# alone.)
test_three_pairs_run_at_once_on_four_hosts_under_one_meter() {
	local report line
	fleet_hosts 4
	quiet_or_skip
	cat >"$T/plan" <<'EOF'
root@10.253.0.1 root@10.253.0.2 10.253.0.2 -m sendfile -R 100m
root@10.253.0.3 root@10.253.0.4 10.253.0.4 -m write -b 64k -R 100m
root@10.253.0.2 root@10.253.0.3 10.253.0.3 -m send -R 50m
EOF
	ip netns exec "$FLEET_HUB" bash "$ROOT/scripts/zc-fleet" --ssh "$FLEET_SSH" --dir "$T/inst" --install \
		--calibrate-ms 100 --secs 4 --out "$T/run" "$T/plan" >"$T/out" 2>"$T/err" || fail "zc-fleet --install failed: $(cat "$T/err")"
	expect_eq "$(grep -cE "^# root@10\.253\.0\.[1-4]: zc copied to $T/inst and built\$" "$T/out")" 1 "hosts that built zc"
	expect_eq "$(grep -cE "^# root@10\.253\.0\.[1-4]: zc in $T/inst, built there for another host \(the same directory\)\$" "$T/out")" 3 "hosts that found it built"
	expect_eq "$(grep -cE "^# root@10\.253\.0\.[1-4]: cyclesoak -C -m 100 in $T/inst: calibrated OK\.  [0-9]+ loops/sec\$" "$T/out")" 1 "calibrations"
	[ -x "$T/inst/zcc" ] && [ -x "$T/inst/zcs" ] && [ -x "$T/inst/cyclesoak" ] && [ -s "$T/inst/counts_per_sec" ] ||
		fail "zc is not built in $T/inst: $(ls "$T/inst" | head)"
	report=$(cat "$T/run/report.txt")
	expect_eq "$(grep -cE '^# host root@10\.253\.0\.[1-4]: boot [0-9a-f]{8}, [0-9]+ CPUs, clock [-+][0-9]+\.[0-9] ms from here \(within [0-9]+\.[0-9]: half the round trip over ssh\)$' "$T/out")" 4 "the hosts' lines"
	grep -qE '^# reached 4 hosts in [0-9]+\.[0-9]{2} s \(at most 8 logins at once\), and read their clocks in [0-9]+\.[0-9]{2} s$' "$T/out" ||
		fail "no logins' line: $(grep '^#' "$T/out")"
	grep -qE "^# machine [0-9a-f]{8}: root@10\.253\.0\.1 root@10\.253\.0\.3 root@10\.253\.0\.2 root@10\.253\.0\.4, metered once, by cyclesoak on root@10\.253\.0\.1\$" "$T/out" ||
		fail "no one machine: $(grep '^#' "$T/out")"
	expect_match "$(sed -n 1p <<<"$report")" '^the window: every pair running for [3-4]\.[0-9]{2} s of the 4 asked, from the last sender.s start; the senders started within [0-9]+\.[0-9] ms of each other \(each by its clock, less its offset\)$'
	# The senders start together: within 100 ms (a few here).
	awk '{ exit !($0 ~ /within [0-9.]+ ms/ && $(NF - 9) + 0 < 100) }' <<<"$(sed -n 1p <<<"$report")" ||
		fail "the senders did not start together: $(sed -n 1p <<<"$report")"
	# The name column as wide as the longest name, "root@10.253.0.1 -> root@10.253.0.2 (10.253.0.2:5201)".
	expect_eq "$(sed -n 2p <<<"$report")" "pair  sender -> receiver (address:port)                         MB/s  load S%   us/KB S  load R%   us/KB R  retrans rwnd-lim% sndbuf-lim%  B/pkt" "the pairs' heading"
	ROW='+-?[0-9]+\.[0-9] +-?[0-9]+\.[0-9]{3} +-?[0-9]+\.[0-9] +-?[0-9]+\.[0-9]{3} +[0-9]+ +[0-9]+\.[0-9] +[0-9]+\.[0-9] +[0-9]+$'
	expect_match "$(sed -n 3p <<<"$report")" "^1 +root@10\\.253\\.0\\.1 -> root@10\\.253\\.0\\.2 \\(10\\.253\\.0\\.2:5201\\) +10[0-9]\\.[0-9] $ROW"
	expect_match "$(sed -n 4p <<<"$report")" "^2 +root@10\\.253\\.0\\.3 -> root@10\\.253\\.0\\.4 \\(10\\.253\\.0\\.4:5202\\) +10[0-9]\\.[0-9] $ROW"
	expect_match "$(sed -n 5p <<<"$report")" "^3 +root@10\\.253\\.0\\.2 -> root@10\\.253\\.0\\.3 \\(10\\.253\\.0\\.3:5203\\) +5[0-9]\\.[0-9] $ROW"
	expect_eq "$(sed -n 6p <<<"$report")" "host                     machine   sent MB/s  recv MB/s" "the hosts' heading"
	# Each host's MB/s sent and received: 10.253.0.2 receives pair 1's and sends pair 3's.
	expect_match "$(sed -n 7,10p <<<"$report" | tr '\n' '|')" '^root@10\.253\.0\.1 +[0-9a-f]{8} +10[0-9]\.[0-9] +0\.0\|root@10\.253\.0\.2 +[0-9a-f]{8} +5[0-9]\.[0-9] +10[0-9]\.[0-9]\|root@10\.253\.0\.3 +[0-9a-f]{8} +10[0-9]\.[0-9] +5[0-9]\.[0-9]\|root@10\.253\.0\.4 +[0-9a-f]{8} +0\.0 +10[0-9]\.[0-9]\|$'
	expect_eq "$(sed -n 11p <<<"$report")" "machine  samples  cpus    load%  kernel% MB/s moved     us/KB  hosts" "the machines' heading"
	expect_match "$(sed -n 12p <<<"$report")" '^[0-9a-f]{8} +[0-9]+ +[0-9]+ +-?[0-9.]+ +-?[0-9.]+ +2[0-9]{2}\.[0-9] +-?[0-9.]+  root@10\.253\.0\.1 root@10\.253\.0\.2 root@10\.253\.0\.3 root@10\.253\.0\.4$'
	# Every sample the meter took inside the window (3 s at least, a sample
	# each 0.5 s): the run waited for the last of them before it stopped
	# the meter.
	awk '{ exit !($2 >= 5) }' <<<"$(sed -n 12p <<<"$report")" || fail "the meter's samples in the window: $(sed -n 12p <<<"$report")"
	expect_match "$(sed -n 13p <<<"$report")" '^aggregate: 3 of 3 pairs, 2[0-9]{2}\.[0-9] MB/s in all over the window$'
	# The moment: twice the slowest zcs's login ahead (2 s at least), and 0.1 s a pair.
	line=$(grep '^# round 1: ' "$T/out")
	expect_match "$line" '^# round 1: the pairs start at [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} by this clock, each sender by its own less its offset: [0-9]+\.[0-9]{2} s ahead \(the slowest zcs listened [0-9]+\.[0-9]{3} s after the first login\)$'
	awk '{ l = $(NF - 5); want = (2 * l > 2 ? 2 * l : 2) + 0.3; exit !($(NF - 12) - want < 0.006 && want - $(NF - 12) < 0.006) }' <<<"$line" ||
		fail "the lead is not twice the slowest login (2 s at least) and 0.1 s a pair: $line"
	expect_eq "$(wc -l <<<"$report")" 13 "the report's lines"
	# One machine: each end's load is the machine's, the same in every row.
	expect_eq "$(sed -n 3,5p <<<"$report" | awk '{ print $7, $9 }' | sort -u | wc -l)" 1 "one machine's load in every row"
	expect_eq "$(awk -F, 'NR > 1 { print $2 "," $(NF - 2) "," $(NF - 1) "," $NF }' "$T/run/zc-fleet-runs.csv" | tr '\n' '|')" \
		"sendfile,1,root@10.253.0.1,root@10.253.0.2|write,2,root@10.253.0.3,root@10.253.0.4|send,3,root@10.253.0.2,root@10.253.0.3|" "the CSV's pairs"
	expect_eq "$(head -n 1 "$T/run/zc-fleet-runs.csv")" "${BENCH_RUNS_COLUMNS// /,},pair,sender,receiver" "the CSV's header"
	# The plot, where gnuplot is: its title and a panel each.
	if command -v gnuplot >/dev/null; then
		[ -s "$T/run/zc-fleet.png" ] || fail "no plot"
		grep -q 'zc-fleet: 3 pairs, 4 s, 1 round(s)' "$T/run/zc-fleet-plot.txt" &&
			grep -q 'MB/s of each pair, over the window every pair ran in' "$T/run/zc-fleet-plot.txt" &&
			grep -q "us/KB of each end's machine" "$T/run/zc-fleet-plot.txt" || fail "the plot's text: $(cat "$T/run/zc-fleet-plot.txt")"
	fi
	wait_until 5 eval '[ -z "$(fleet_running)" ]' || fail "left running: $(fleet_running)"
}

# --rounds: the pairs run together again, each time a round of the CSV, the
# report a section each; zc-report --compare takes a fleet's CSV, each pair
# a cell of its own (here one run against itself: too few rounds to judge).
# The pairs are paced at 200 MiB/s, for 2 s: at 50 MiB/s a pair added so
# little load that the meter's noise put its demand below 0 in one round and
# above in the other (-0.0585 and +0.0390 us/KB), and the comparison of the
# run with itself read -125.0%, not +0.0% (a ratio: such a cell is now
# compared by its difference in us/KB). A window of 2 s holds three
# samples of the meter's or more, where one of 1 s held one or two.
test_rounds_make_a_csv_that_zc_report_compares_pair_by_pair() {
	local out
	fleet_hosts 2
	fleet_dir
	printf '%s\n' "root@10.253.0.1 root@10.253.0.2 10.253.0.2 -m write -R 200m" "root@10.253.0.2 root@10.253.0.1 10.253.0.1 -R 200m" >"$T/plan"
	fleet "$T/plan" --secs 2 --rounds 2 --out "$T/run" >"$T/out" 2>"$T/err" || fail "zc-fleet failed: $(cat "$T/err")"
	expect_eq "$(grep -c '^round [12] of 2:$' "$T/run/report.txt")" 2 "the rounds' sections"
	expect_eq "$(grep -c '^aggregate: 2 of 2 pairs, ' "$T/run/report.txt")" 2 "each round's aggregate"
	expect_eq "$(awk -F, 'NR > 1 { print $1 "," $2 "," $(NF - 2) }' "$T/run/zc-fleet-runs.csv" | tr '\n' '|')" \
		"1,write,1|1,sendfile,2|2,write,1|2,sendfile,2|" "the CSV's rounds and pairs"
	out=$("$ROOT/scripts/zc-report" --compare "$T/run/zc-fleet-runs.csv" "$T/run/zc-fleet-runs.csv") || fail "zc-report failed: $out"
	expect_match "$(grep '^pair 1 ' <<<"$out")" '^pair 1 root@10\.253\.0\.1>root@10\.253\.0\.2 write 1048576 none read, at 209715200 bytes/s +-?[0-9.]+ \+- +[0-9]+% +-?[0-9.]+ \+- +[0-9]+% +too few rounds, 4\+4 at least \(\+0\.0%, range [-+0-9.]+ to [-+0-9.]+\) 2\+2$'
	expect_match "$(grep '^pair 2 ' <<<"$out")" '^pair 2 root@10\.253\.0\.2>root@10\.253\.0\.1 sendfile - none read, at 209715200 bytes/s '
	grep -q "in one run only" <<<"$out" && fail "a pair in one run only: $out"
	wait_until 5 eval '[ -z "$(fleet_running)" ]' || fail "left running: $(fleet_running)"
}

# A host that cannot be reached at the start (its sshd is not running):
# the fleet fails before it starts anything, naming the host and why.
test_a_host_unreachable_at_the_start_fails_the_fleet_before_anything_runs() {
	local rc=0 pid
	starts_no_meter
	fleet_hosts 3
	fleet_dir
	# The third host's sshd gone: a host that refuses the connection.
	pid=$(cat "$T/sshd-$FLEET_NS_3.pid")
	kill "$pid"
	wait_until 5 eval '! kill -0 '"$pid"' 2>/dev/null' || fail "sshd did not stop"
	printf '%s\n' "root@10.253.0.1 root@10.253.0.2 10.253.0.2" "root@10.253.0.2 root@10.253.0.3 10.253.0.3" >"$T/plan"
	fleet "$T/plan" --secs 2 --out "$T/run" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_match "$(sed -n 1p "$T/err")" '^zc-fleet: host root@10\.253\.0\.3: ssh: connect to host 10\.253\.0\.3 port [0-9]+: Connection refused$'
	expect_eq "$(sed -n 2p "$T/err")" "zc-fleet: nothing was started" "the last line"
	[ ! -e "$T/run/report.txt" ] || fail "a report of a run that did not start"
	expect_eq "$(fleet_running)" "" "what runs on the hosts"
}

# A host lost mid-run (its link down, as a machine that died): the other
# pair ends as it would have, the lost pair is named, nothing of ours is
# left on the hosts that stayed; and once the host is back, the next run
# stops what was left there first, saying so, and leaves nothing. The lost
# pair's zcc gives up 1 s after its receiver stops taking data (-W 1; the
# fleet's own is 5), within the other pair's 3 s. The pairs' MB/s are the
# three pairs' test's to judge: here the host is shared.
test_a_host_lost_mid_run_is_named_and_the_next_run_cleans_it() {
	local began if4 report
	fleet_hosts 4
	fleet_dir
	if4=zcf4-$$
	printf '%s\n' "root@10.253.0.1 root@10.253.0.2 10.253.0.2 -R 50m" "root@10.253.0.3 root@10.253.0.4 10.253.0.4 -R 50m -W 1" >"$T/plan"
	began=$(date +%s)
	fleet "$T/plan" --secs 3 --out "$T/run" >"$T/out" 2>"$T/err" &
	started $!
	wait_until 20 eval 'grep -q "kbytes/sec" "$T/run/r1-pair2-zcs.out" 2>/dev/null' || fail "pair 2 did not start: $(cat "$T/err")"
	ip -n "$FLEET_NS_4" link set "$if4" down
	wait $! || fail "zc-fleet failed: $(cat "$T/err")"
	[ $(($(date +%s) - began)) -le 40 ] || fail "the fleet took $(($(date +%s) - began)) s with a host lost"
	report=$(cat "$T/run/report.txt")
	expect_match "$(sed -n 3p <<<"$report")" '^1 +root@10\.253\.0\.1 -> root@10\.253\.0\.2 \(10\.253\.0\.2:5201\) +[1-9][0-9]*\.[0-9] '
	expect_match "$(sed -n 4p <<<"$report")" '^2 +root@10\.253\.0\.3 -> root@10\.253\.0\.4 \(10\.253\.0\.4:5202\) lost: '
	expect_match "$(grep '^aggregate' <<<"$report")" '^aggregate: 1 of 2 pairs, [1-9][0-9]*\.[0-9] MB/s in all over the window$'
	expect_match "$(tail -n 1 <<<"$report")" '^  pair 2 \(root@10\.253\.0\.3 -> root@10\.253\.0\.4 \(10\.253\.0\.4:5202\)\): '
	# Nothing of ours on the hosts that stayed; on the lost one, its zcs.
	wait_until 10 eval '[ -z "$(fleet_running | grep -v "^$FLEET_NS_4:")" ]' || fail "left running: $(fleet_running)"
	fleet_running | grep -q "^$FLEET_NS_4: .*zcs" || fail "nothing left on the lost host to clean: $(fleet_running)"
	ip -n "$FLEET_NS_4" link set "$if4" up
	fleet "$T/plan" --secs 1 --out "$T/run2" >"$T/out2" 2>"$T/err2" || fail "the next run failed: $(cat "$T/err2")"
	grep -qE '^# root@10\.253\.0\.4: what an earlier run left there: stopped [0-9]+$' "$T/out2" ||
		fail "the next run did not say what it stopped: $(grep '^#' "$T/out2")"
	wait_until 10 eval '[ -z "$(fleet_running)" ]' || fail "left running after the next run: $(fleet_running)"
}

# SIGTERM mid-run: every pair and the meter stop within seconds, on every
# host, and the fleet says so and exits 143.
test_sigterm_stops_every_pair_on_every_host() {
	local pid rc=0
	fleet_hosts 4
	fleet_dir
	printf '%s\n' "root@10.253.0.1 root@10.253.0.2 10.253.0.2 -R 50m" "root@10.253.0.3 root@10.253.0.4 10.253.0.4 -R 50m" >"$T/plan"
	fleet "$T/plan" --secs 60 --out "$T/run" >"$T/out" 2>"$T/err" &
	pid=$!
	started "$pid"
	# Both senders started (each says so as its zcc begins).
	wait_until 20 eval '[ "$(cat "$T/run/r1-pair1-zcc.err" "$T/run/r1-pair2-zcc.err" 2>/dev/null | grep -c "^start ")" = 2 ]' ||
		fail "the pairs did not start: $(cat "$T/err")"
	kill -TERM "$(pgrep -P "$pid" -f zc-fleet || echo "$pid")"
	wait_until 10 eval '! kill -0 '"$pid"' 2>/dev/null' || fail "zc-fleet did not stop within 10 s of SIGTERM"
	wait "$pid" || rc=$?
	expect_eq "$rc" 143 "exit code"
	grep -qx "zc-fleet: stopped by SIGTERM: every pair and meter stopped; what was measured is in $T/run" "$T/err" ||
		fail "no word of the stop: $(cat "$T/err")"
	wait_until 10 eval '[ -z "$(fleet_running)" ]' || fail "left running: $(fleet_running)"
}

run_tests "$@"
