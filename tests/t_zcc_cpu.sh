#!/bin/bash
# zcc -c, -C and -N: the load and service demand in the summary, the shared
# calibration file, and no soaker left behind.
. "$(dirname "$0")/lib.sh"

test_c_appends_load_demand_kernel_view_and_own_cpu() {
	local out line load kernel secs own
	runs_alone
	make_big_file "$T/big" 64
	calibrate_here
	start_zcs
	out=$(cd "$T" && "$ROOT/zcc" -c -n 20 -s 127.0.0.1 -p "$PORT" "$T/big")
	line=$(echo "$out" | sed -n 1p)
	# After the summary, the busiest CPU: its load no less than the whole's, a weighted mean of the CPUs'.
	expect_match "$(echo "$out" | sed -n 2p)" "$BUSIEST_LINE"
	awk -v b="$(echo "$out" | sed -n '2s/.*: load \(-\{0,1\}[0-9.]*\)%.*/\1/p')" -v l="$(field "$line" load)" \
		'BEGIN { exit !(b >= l - 0.1) }' || fail "the busiest CPU's load below the whole's: $out"
	expect_match "$(echo "$out" | grep -v -E "$STEAL_LINE" | sed -n 3p)" "$LIMIT_LINE"
	expect_eq "$(echo "$out" | sed 1,2d | grep -v -E -e "$STEAL_LINE" -e "$LIMIT_LINE")" "" "the lines after the busiest"
	expect_match "$line" "^sent [0-9]+ bytes in [0-9]+\\.[0-9]{3} s, [0-9]+ kbytes/sec, mode sendfile, load -?[0-9]+\\.[0-9]%, demand -?[0-9]+\\.[0-9]{3} us/KB, kernel -?[0-9]+\\.[0-9]%$CPU_TIMES$LO_LINK\$"
	expect_eq "$(echo "$line" | awk '{ print $2 }')" "$(stream_bytes 20 "$T/big")" "bytes"
	load=$(field "$line" load)
	kernel=$(field "$line" kernel)
	secs=$(echo "$line" | awk '{ print $5 }')
	own=$(echo "$line" | sed 's/.*, cpu \([0-9.]*\)u \([0-9.]*\)s, lo: .*$/\1 \2/')
	# The two meters see the same run; zcc, one thread, is busy at most all of it.
	awk -v l="$load" -v k="$kernel" 'BEGIN { exit !(l > 5 && l <= 100 && (l - k)^2 < 100) }' ||
		fail "cyclesoak $load%, kernel $kernel%"
	echo "$own" | awk -v s="$secs" '{ exit !($1 + $2 > 0 && $1 + $2 <= s * 1.1 + 0.05) }' ||
		fail "zcc's own CPU ($own) against $secs s"
	# zcs's child, one thread too, served the same connection.
	wait_summaries 1
	own=$(zcs_summaries | sed 's/.*, cpu \([0-9.]*\)u \([0-9.]*\)s$/\1 \2/')
	secs=$(zcs_summaries | awk '{ print $5 }')
	echo "$own" | awk -v s="$secs" '{ exit !($1 + $2 > 0 && $1 + $2 <= s * 1.1 + 0.05) }' ||
		fail "zcs's CPU ($own) against $secs s"
}

test_T_is_checked() {
	usage_error zcc "zcc: -T needs -c or -C (it sets how long the meter takes its idle reference)" \
		-T 500 -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -T '-1': must be at least 0" -c -T -1 -s 127.0.0.1 /etc/hostname
	usage_error zcc "zcc: -T '60001': must be at most 60000" -c -T 60001 -s 127.0.0.1 /etc/hostname
	# With -C, each period of the calibration, as cyclesoak -m takes it.
	usage_error zcc "zcc: -T '9': must be at least 10" -C -T 9
	usage_error zcc "zcc: -T '3600001': must be at most 3600000" -T 3600001 -C
	usage_error zcc "zcc: -s is for a transfer: -C calibrates the meter and sends nothing" -C -T 100 -s 127.0.0.1
}

# With a calibration file that is twice the real rate, the tare still gives
# the transfer's load (and says the file is off); -T 0 trusts the file.
test_c_measures_against_the_tare_and_says_when_the_file_is_off() {
	local rate tared untared cpus
	runs_alone
	[ "$(allowed_cpus)" -ge 2 ] || skip "needs two CPUs"
	cpus=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
		awk -F- '{ for (c = $1; c <= (NF == 2 ? $2 : $1); c++) print c }')
	make_big_file "$T/big" 64
	calibrate_here
	rate=$(head -n 1 "$T/counts_per_sec")
	printf '%s\ncpus %s\n' $((rate * 2)) "$(allowed_cpus)" >"$T/counts_per_sec"
	start_zcs -B "$(echo "$cpus" | sed -n 2p)"
	tared=$(cd "$T" && "$ROOT/zcc" -c -B "$(echo "$cpus" | sed -n 2p)" -n 10 -s 127.0.0.1 -p "$PORT" "$T/big" 2>"$T/err")
	expect_match "$(cat "$T/err")" "^zcc: warning: the tare \\([0-9]+ loops/sec\\) is -[0-9]+\\.[0-9]% off \\./counts_per_sec \\($((rate * 2))\\): the calibration has drifted; the load is measured against the tare, and this run's figures stand; if it persists, calibrate again \\(cyclesoak -C, the host idle\\), which runs without a tare \\(-T 0\\) need$"
	# The share is the tare's against the file's, and far off: about -50%,
	# less where the quick calibration itself ran low on a busy machine.
	sed 's/.*tare (\([0-9]*\) loops\/sec) is \(-[0-9.]*\)% off.*/\1 \2/' "$T/err" |
		awk -v file=$((rate * 2)) '{ want = 100 * ($1 / file - 1); exit !($2 - want < 0.06 && want - $2 < 0.06 && $2 < -25) }' ||
		fail "the tare's share off the file: $(cat "$T/err")"
	untared=$(cd "$T" && "$ROOT/zcc" -c -T 0 -B "$(echo "$cpus" | sed -n 2p)" -n 10 -s 127.0.0.1 -p "$PORT" "$T/big" 2>"$T/err")
	[ ! -s "$T/err" ] || fail "-T 0 warned: $(cat "$T/err")"
	# Against the tare the load is what the kernel counted for the same
	# window (on an idle machine, the one busy CPU's share: 100/n); against
	# the doubled file the soakers seem to have lost half of their time more:
	# (100 + L) / 2 for a load L, which the kernel's view of that run gives
	# (each run's own: two runs' loads differed by 12 points in CI).
	awk -v t="$(field "$tared" load)" -v k="$(field "$tared" kernel)" -v u="$(field "$untared" load)" \
		-v ku="$(field "$untared" kernel)" -v n="$(allowed_cpus)" \
		'BEGIN { want = k == "" ? 100 / n : k; want_u = (100 + (ku == "" ? 100 / n : ku)) / 2
			exit !(t > want - 10 && t < want + 10 && u > want_u - 10 && u < want_u + 10) }' ||
		fail "tared: $tared; -T 0: $untared"
}

# A steady background load (loadgen, 25% of one CPU) is running through the tare
# and the transfer: the load zcc -c prints is what the transfer adds, so the
# background's 12.5 points move it by less than 3. The transfer runs on
# another CPU than the background (both ends pinned there), so that the two
# do not compete for a CPU and the transfer itself is the same with and
# without it; the background
# runs in this session, as zcc and zcs do (docs/programs.txt says why a load in
# another session shifts the soakers' own share by a fraction of a point).
# A loopback run varies by itself, so rounds alternate, each a run without
# the background and one with it, and the median of the rounds' differences
# is compared. This VM has phases in which some runs lose a tenth of a CPU
# for seconds; a set of rounds that falls in one is measured once more.
# Built with the sanitizers, zcc's instrumented work per byte swings the
# rounds further still: the meter's accuracy is the plain build's to show.
# median_of N...: the median of the numbers (the middle one of an odd count).
median_of() {
	printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"
}

test_c_tares_away_a_steady_background_load() {
	local cpus bg_cpu xfer_cpu attempt r with withs without diffs median untared lg
	[ "$(allowed_cpus)" -ge 2 ] || skip "needs two CPUs"
	! grep -q __asan_init "$ROOT/zcc" ||
		skip "zcc is built with AddressSanitizer: its instrumented copies are not the load to measure to a point"
	cpus=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
		awk -F- '{ for (c = $1; c <= (NF == 2 ? $2 : $1); c++) print c }')
	bg_cpu=$(echo "$cpus" | sed -n 1p)
	xfer_cpu=$(echo "$cpus" | sed -n 2p)
	make_big_file "$T/big" 64
	calibrate_here
	start_zcs -B "$xfer_cpu"
	run_zcc() {
		(cd "$T" && "$ROOT/zcc" -c -T 300 "$@" -B "$xfer_cpu" -n 12 -s 127.0.0.1 -p "$PORT" \
			"$T/big" 2>>"$T/zcc.err") || fail "zcc failed: $(cat "$T/zcc.err")"
	}
	# The background is 25% of one CPU: 12.5 points of the load on two.
	# With the tare it must drop out to within 3 points, a quarter of
	# itself: a tighter bound fails on a shared two-CPU machine, where
	# one transfer's load moves by 6 points from round to round.
	"$HELPERS/loadgen" -c "$bg_cpu" -f 25 -t 85 >/dev/null &
	lg=$!
	started "$lg"
	kill -STOP "$lg"
	for attempt in 1 2; do
		diffs="" withs="" untared=""
		for r in 1 2 3 4 5; do
			without=$(field "$(run_zcc)" load)
			kill -CONT "$lg"
			sleep 0.3
			with=$(field "$(run_zcc)" load)
			diffs="$diffs $(awk -v w="$with" -v o="$without" 'BEGIN { print w - o }')"
			withs="$withs $with"
			[ "$r" -ge 3 ] && untared="$untared $(field "$(run_zcc -T 0)" load)"
			kill -STOP "$lg"
			sleep 0.1
		done
		median=$(median_of $diffs)
		awk -v d="$median" 'BEGIN { exit !(d^2 < 9) }' && break
		echo "# attempt $attempt: with the background minus without, by round:$diffs" >&2
	done
	grep -q '^zcc: note: the system was [0-9.]*% busy before the transfer; the load shown is what the transfer added$' "$T/zcc.err" ||
		fail "no word about the background: $(cat "$T/zcc.err")"
	awk -v d="$median" 'BEGIN { exit !(d^2 < 9) }' ||
		fail "the background moved the load by a median $median points"
	# Without the tare the background is load too: the median of three -T 0
	# runs against the median of the tared ones, all with the background.
	awk -v u="$(median_of $untared)" -v w="$(median_of $withs)" -v n="$(allowed_cpus)" 'BEGIN { exit !(u > w + 25 / n - 5) }' ||
		fail "-T 0 with the background:$untared%; with the tare:$withs%"
}

test_c_leaves_no_soaker_after_success_or_failure() {
	local zcc kids rc=0
	make_files "$T/f"
	calibrate_here
	start_zcs
	(cd "$T" && exec "$ROOT/zcc" -c -n 1000000 -s 127.0.0.1 -p "$PORT" "$T/f/350k" >/dev/null 2>"$T/err") &
	zcc=$!
	started "$zcc"
	wait_until 5 eval '[ -n "$(pgrep -P '"$ZCS_PID"')" ]' || fail "no connection"
	kids=$(children_of "$zcc")
	[ -n "$kids" ] || fail "zcc -c started no soakers"
	kill -9 $(pgrep -P "$ZCS_PID")
	wait "$zcc" || rc=$?
	expect_eq "$rc" 1 "zcc exit after zcs died"
	all_dead $kids || fail "soakers outlived zcc: $kids"
	(cd "$T" && exec "$ROOT/zcc" -c -n 1000000 -s 127.0.0.1 -p "$PORT" "$T/f/350k" >/dev/null 2>&1) &
	zcc=$!
	started "$zcc"
	wait_until 5 eval '[ -n "$(children_of '"$zcc"')" ]' || fail "no soakers"
	kids=$(children_of "$zcc")
	kill -9 "$zcc"
	wait_until 5 all_dead $kids || fail "soakers outlived a killed zcc: $kids"
}

test_c_needs_a_calibration_for_the_same_cpus() {
	local rc=0
	make_files "$T/f"
	(cd "$T" && "$ROOT/zcc" -c -s 127.0.0.1 -p "$(free_port)" "$T/f/one" 2>"$T/err") || rc=$?
	expect_eq "$rc" 1
	expect_eq "$(cat "$T/err")" "zcc: ./counts_per_sec: No such file or directory: run 'cyclesoak -C' on an idle system"
	printf '5000000\ncpus 3\n' >"$T/counts_per_sec"
	rc=0
	(cd "$T" && "$ROOT/zcc" -c -N 1 -s 127.0.0.1 -p "$(free_port)" "$T/f/one" 2>"$T/err") || rc=$?
	expect_eq "$rc" 1
	expect_eq "$(cat "$T/err")" "zcc: ./counts_per_sec was calibrated on 3 CPUs and this run uses 1: calibrate with 'cyclesoak -C -N 1' or measure with -N 3"
}

# -T 100: seven periods of 100 ms, where the default's take seven seconds.
test_C_calibrates_the_file_cyclesoak_reads() {
	local median began=$EPOCHREALTIME
	(cd "$T" && "$ROOT/zcc" -C -N 1 -T 100 >"$T/out") || fail "zcc -C failed"
	awk -v a="$began" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a < 3.5) }' ||
		fail "zcc -C -T 100 took $(awk -v a="$began" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }') s: not periods of 100 ms"
	expect_eq "$(grep -c -E '^calibrating: [0-9]+ loops/sec$' "$T/out")" 7 "calibrating lines"
	median=$(grep '^calibrating:' "$T/out" | tail -n 5 | awk '{ print $2 }' | sort -n | sed -n 3p)
	expect_eq "$(tail -n 1 "$T/out")" "calibrated OK.  $median loops/sec"
	expect_counts "$T/counts_per_sec" "$T/out" 1
	(cd "$T" && "$ROOT/cyclesoak" -N 1 -1 -m 100 >"$T/load") || fail "cyclesoak refused zcc's file"
	expect_match "$(cat "$T/load")" '^-?[0-9]+\.[0-9]$'
}

# A load below 0 is not left bare: zcc says what it means after the summary.
# A calibration at a hundredth of the real rate puts any transfer that leaves
# the soakers more than 1% of their CPUs far below 0.
test_c_says_what_a_load_below_0_means() {
	local rate
	make_big_file "$T/big" 64
	calibrate_here
	rate=$(head -n 1 "$T/counts_per_sec")
	printf '%s\ncpus %s\nspread 1.00%%\n' $((rate / 100)) "$(allowed_cpus)" >"$T/counts_per_sec"
	start_zcs
	(cd "$T" && "$ROOT/zcc" -c -T 0 -n 8 -s 127.0.0.1 -p "$PORT" "$T/big" >"$T/out" 2>"$T/err") ||
		fail "zcc failed: $(cat "$T/err")"
	expect_match "$(cat "$T/err")" "^zcc: note: the load measured, $(field "$(cat "$T/out")" load)%, is below 0 by more than the calibration's spread of 1\\.0 points: recalibrate on an idle system\$"
}

test_N_beyond_the_cpus_is_a_usage_error() {
	local rc=0
	"$ROOT/zcc" -c -N 1000 -s 127.0.0.1 /etc/hostname 2>"$T/err" || rc=$?
	expect_eq "$rc" 2
	expect_match "$(head -n 1 "$T/err")" '^zcc: -N 1000: only [0-9]+ CPUs? (is|are) available to this process$'
}

test_c_soaks_every_cpu_even_when_zcc_is_pinned() {
	local zcc n
	make_files "$T/f"
	calibrate_here
	start_zcs
	n=$(allowed_cpus)
	(cd "$T" && exec "$ROOT/zcc" -c -B 0 -n 1000000 -s 127.0.0.1 -p "$PORT" "$T/f/350k" >/dev/null 2>"$T/err") &
	zcc=$!
	started "$zcc"
	wait_until 5 eval '[ "$(children_of '"$zcc"' | wc -l)" -ge '"$n"' ]' ||
		fail "zcc -c -B 0 started $(children_of "$zcc" | wc -l) soakers for $n CPUs: $(cat "$T/err")"
	wait_until 5 eval '[ "$(taskset -pc '"$zcc"' | awk "{ print \$NF }")" = 0 ]' ||
		fail "zcc's own CPU: $(taskset -pc "$zcc")"
}

# A process spinning on the second CPU all through a run, zcc pinned
# beside it there and zcs on the first: the busiest CPU is the second, at
# 95% or more (-T 0: the load against the calibration, the spinner's with
# the transfer's), and what limited the flow is that CPU at its ceiling,
# at the sender; -J says the same, and the text as it is written.
test_a_cpu_taken_by_a_spinner_is_the_busiest_and_the_limit() {
	local cpus first second
	[ "$(allowed_cpus)" -ge 2 ] || skip "needs two CPUs"
	runs_alone
	make_files "$T/f"
	calibrate_here
	cpus=$(affinity_cpus)
	first=$(echo "$cpus" | sed -n 1p)
	second=$(echo "$cpus" | sed -n 2p)
	start_zcs -B "$first"
	"$HELPERS/loadgen" -c "$second" -f 100 -t 6 >"$T/loadgen" &
	started $!
	sleep 0.2
	(cd "$T" && "$ROOT/zcc" -J -c -T 0 -B "$second" -t 1 -s 127.0.0.1 -p "$PORT" "$T"/f/* >"$T/json") ||
		fail "zcc -J failed"
	(cd "$T" && "$ROOT/zcc" -c -T 0 -B "$second" -t 1 -s 127.0.0.1 -p "$PORT" "$T"/f/* >"$T/out") ||
		fail "zcc failed"
	expect_eq "$(json_member "$T/json" busiest.cpu) $(json_member "$T/json" limit.by) $(json_member "$T/json" limit.cpu) $(json_member "$T/json" limit.end)" \
		"$second cpu $second sender" "the busiest and the limit: $(cat "$T/json")"
	awk -v b="$(json_member "$T/json" busiest.load)" 'BEGIN { exit !(b >= 95) }' ||
		fail "the busiest CPU at $(json_member "$T/json" busiest.load)%"
	expect_match "$(grep '^busiest CPU' "$T/out")" "^busiest CPU $second: load (9[5-9]|1[0-9][0-9])\\.[0-9]% \\(kernel: "
	expect_match "$(tail -n 1 "$T/out")" "^limited by: CPU $second at its ceiling here, at the sender \\((9[5-9]|1[0-9][0-9])\\.[0-9]% busy; most of it (another task|the program|softirq)'s, [0-9]+%\\)\$"
}

run_tests "$@"
