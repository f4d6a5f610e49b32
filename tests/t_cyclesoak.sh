#!/bin/bash
# cyclesoak: calibration, the load lines, the counts file's errors, the
# soakers' scheduling, signal hygiene, and (loosely) accuracy.
. "$(dirname "$0")/lib.sh"

# A load line, with what a load below 0 means when it is below 0.
BELOW_0=' \((below 0: the meter.s noise, or a calibration made on a busier system|below 0, within the calibration.s spread of [0-9]+\.[0-9] points|below 0 by more than the calibration.s spread of [0-9]+\.[0-9] points: recalibrate on an idle system)\)'
LOAD_LINE="^System load: {0,4}(-[0-9]+\\.[0-9]%$BELOW_0|[0-9]+\\.[0-9]%)"

test_calibration_prints_each_period_and_writes_the_median() {
	local n median
	n=$(allowed_cpus)
	own_calibration
	expect_eq "$(head -n 1 "$T/calibration")" "using $n CPU$([ "$n" = 1 ] || echo s)"
	expect_eq "$(grep -c -E '^calibrating: [0-9]+ loops/sec$' "$T/calibration")" 7 "calibrating lines"
	median=$(grep '^calibrating:' "$T/calibration" | tail -n 5 | awk '{ print $2 }' | sort -n | sed -n 3p)
	expect_eq "$(tail -n 1 "$T/calibration")" "calibrated OK.  $median loops/sec"
	expect_counts "$T/counts_per_sec" "$T/calibration" "$n"
	ls "$T" | grep -q 'counts_per_sec\.tmp' && fail "temporary file left behind"
	return 0
}

# counts_error CONTENT EXPECTED_MESSAGE [ARGS]: cyclesoak refuses the file, exit 1.
counts_error() {
	local rc=0
	printf '%b' "$1" >"$T/counts_per_sec"
	(cd "$T" && "$ROOT/cyclesoak" -1 -m 100 ${3:-} >"$T/out" 2>"$T/err") || rc=$?
	expect_eq "$rc" 1 "exit code for '$1'"
	expect_eq "$(cat "$T/err")" "$2"
}

test_bad_counts_files_are_each_a_clear_error() {
	local rc=0 n
	n=$(allowed_cpus)
	(cd "$T" && "$ROOT/cyclesoak" -1 2>"$T/err") || rc=$?
	expect_eq "$rc" 1 "exit code with no counts_per_sec"
	expect_eq "$(cat "$T/err")" "cyclesoak: ./counts_per_sec: No such file or directory: run 'cyclesoak -C' on an idle system"
	counts_error '' "cyclesoak: ./counts_per_sec is empty: run 'cyclesoak -C' on an idle system"
	counts_error '0\ncpus 1\n' "cyclesoak: ./counts_per_sec: the calibrated rate is 0: run 'cyclesoak -C' on an idle system" "-N 1"
	counts_error 'fast\n' "cyclesoak: ./counts_per_sec: the first line is not a count of loops/sec: run 'cyclesoak -C' on an idle system"
	counts_error '123abc\n' "cyclesoak: ./counts_per_sec: the first line is not a count of loops/sec: run 'cyclesoak -C' on an idle system"
	counts_error '-5\n' "cyclesoak: ./counts_per_sec: the first line is not a count of loops/sec: run 'cyclesoak -C' on an idle system"
	counts_error '1000000\nprocessors 2\n' "cyclesoak: ./counts_per_sec: the second line is not 'cpus N': run 'cyclesoak -C' on an idle system"
	counts_error '1000000\ncpus 7\n' "cyclesoak: ./counts_per_sec was calibrated on 7 CPUs and this run uses 1: calibrate with 'cyclesoak -C -N 1' or measure with -N 7" "-N 1"
	counts_error '1000000\ncpus 1\nspread 2\n' "cyclesoak: ./counts_per_sec: the third line is not 'spread P%': run 'cyclesoak -C' on an idle system" "-N 1"
	counts_error '1000000\ncpus 1\nspread -1%\n' "cyclesoak: ./counts_per_sec: the third line is not 'spread P%': run 'cyclesoak -C' on an idle system" "-N 1"
}

test_a_2001_counts_file_without_cpus_line_is_read() {
	echo 1000000000 >"$T/counts_per_sec"
	(cd "$T" && "$ROOT/cyclesoak" -1 -m 100 >"$T/out") || fail "refused a one-line file"
	expect_match "$(cat "$T/out")" '^-?[0-9]+\.[0-9]$'
}

test_load_lines_every_period() {
	calibrate_here
	start_cyclesoak -m 100
	wait_until 10 eval '[ "$(grep -c "^System load:" "$T/out")" -ge 5 ]' || fail "no load lines"
	kill -INT "$CS_PID"
	wait "$CS_PID" || true
	expect_match "$(head -n 1 "$T/out")" '^using [0-9]+ CPUs?$'
	sed 1d "$T/out" | grep -v -E -e "${LOAD_LINE}\$" -e "$BUSIEST_LINE" -e "$STEAL_LINE" && fail "bad load line"
	# Each load line, and after it its busiest CPU, and a steal line where there was some.
	expect_eq "$(sed 1d "$T/out" | grep -v -E "$STEAL_LINE" | awk 'NR % 2 && !/^System load:/ || !(NR % 2) && !/^busiest CPU / { bad++ } END { print bad + 0 ":" NR % 2 }')" 0:0 \
		"a busiest line after each load line: $(cat "$T/out")"
	return 0
}

# three_load_lines ARGS...: cyclesoak ARGS, stopped once it has printed three load lines.
three_load_lines() {
	start_cyclesoak "$@"
	wait_until 10 eval '[ "$(grep -c "^System load:" "$T/out")" -ge 3 ]' || fail "no load lines"
	kill -INT "$CS_PID"
	wait "$CS_PID" || true
}

test_B_appends_free_capacity_per_cpu() {
	local n
	n=$(allowed_cpus)
	calibrate_here
	three_load_lines -B -m 100
	grep '^System load:' "$T/out" | grep -v -E "${LOAD_LINE} \|\| Free:( +-?[0-9]+\.[0-9]%\([0-9]+\)){$n}\$" &&
		fail "bad -B line"
	return 0
}

test_k_adds_the_kernel_view_of_each_period() {
	calibrate_here
	three_load_lines -k -m 200
	grep '^System load:' "$T/out" | grep -v -E "${LOAD_LINE}, kernel -?[0-9]+\\.[0-9]%\$" &&
		fail "bad -k line"
	(cd "$T" && "$ROOT/cyclesoak" -1 -k -m 200 >"$T/out" 2>/dev/null) || fail "-1 -k failed"
	expect_match "$(cat "$T/out")" '^-?[0-9]+\.[0-9] -?[0-9]+\.[0-9]$'
}

# rate_now: the soakers' rate on the system as it is (a load line taken with
# the calibration in $T/counts_per_sec, which it scales), so that a test's
# calibration can be set relative to what the soakers get now, whatever
# steady load the machine carries besides.
rate_now() {
	local rate load
	rate=$(head -n 1 "$T/counts_per_sec")
	load=$(cd "$T" && "$ROOT/cyclesoak" -1 -m 500 2>/dev/null) || fail "cyclesoak -1 failed"
	awk -v r="$rate" -v l="$load" 'BEGIN { printf "%d\n", r * (100 - l) / 100 }'
}

# With every CPU taken by tasks above idle priority (80% of it, in each of
# the three tries) the soakers get too little of it: the calibration is
# made again twice, then refused, and nothing is written (it wrote "calibrated
# OK.  0 loops/sec", which every later load divided by).
test_C_on_a_host_with_no_cpu_to_spare_is_refused() {
	local c hogs=()
	for c in $(affinity_cpus); do
		"$HELPERS/loadgen" -c "$c" -f 80 -t 30 >/dev/null &
		hogs+=("$!")
		started "$!"
	done
	sleep 0.2
	(cd "$T" && "$ROOT/cyclesoak" -C -m 100 >"$T/out" 2>"$T/err") && fail "calibrated: $(cat "$T/out")"
	# Made three times, and then refused.
	expect_match "$(sed -n 1p "$T/err")" "^cyclesoak: a soaker had only [0-9]+\\.[0-9]% of its CPU in a period \\(other tasks were running\\): calibrating again \\(2 of 3\\)\$"
	expect_match "$(sed -n 2p "$T/err")" "^cyclesoak: a soaker had only [0-9]+\\.[0-9]% of its CPU in a period \\(other tasks were running\\): calibrating again \\(3 of 3\\)\$"
	expect_match "$(sed -n '3,$p' "$T/err")" "^cyclesoak: calibration refused: a soaker had only [0-9]+\\.[0-9]% of its CPU in a period \\(less than 50%: other tasks were running\\); calibrate on an idle system\$"
	expect_eq "$(grep -c '^calibrating:' "$T/out")" 21 "periods: 3 calibrations of 7"
	[ ! -e "$T/counts_per_sec" ] || fail "it wrote $(cat "$T/counts_per_sec")"
	kill "${hogs[@]}" 2>/dev/null || true
}

# A calibration more than 5% below the one it would replace is refused,
# naming both, and the file is left as it was; one more than 5% above it
# replaces it, saying so.
test_C_below_the_calibration_it_would_replace_is_refused() {
	local rate n rc=0
	calibrate_here
	rate=$(head -n 1 "$T/counts_per_sec")
	n=$(sed -n 's/^cpus //p' "$T/counts_per_sec")
	printf '%s\ncpus %s\nspread 0.50%%\n' $((rate * 2)) "$n" >"$T/counts_per_sec"
	cp "$T/counts_per_sec" "$T/before"
	(cd "$T" && "$ROOT/cyclesoak" -C -m 100 >"$T/out" 2>"$T/err") || rc=$?
	expect_eq "$rc" 1 "exit"
	expect_match "$(grep -v '^cyclesoak: warning: ' "$T/err")" "^cyclesoak: calibration refused: [0-9]+ loops/sec is [0-9]+\\.[0-9]% below \\./counts_per_sec's $((rate * 2)): the host is busier, or slower, than when that was made; calibrate on an idle system, or remove \\./counts_per_sec to keep this one\$"
	cmp -s "$T/before" "$T/counts_per_sec" || fail "the file changed: $(cat "$T/counts_per_sec")"
	printf '%s\ncpus %s\nspread 0.50%%\n' $((rate / 2)) "$n" >"$T/counts_per_sec"
	(cd "$T" && "$ROOT/cyclesoak" -C -m 100 >"$T/out" 2>"$T/err") || fail "the calibration above the file's failed: $(cat "$T/err")"
	expect_match "$(grep -v '^cyclesoak: warning: ' "$T/err")" "^cyclesoak: note: [0-9]+ loops/sec is [0-9]+\\.[0-9]% above \\./counts_per_sec's $((rate / 2)), which it replaces: that one was made on a busier, or slower, host\$"
	[ "$(head -n 1 "$T/counts_per_sec")" -gt $((rate * 3 / 4)) ] || fail "not replaced: $(cat "$T/counts_per_sec")"
}

# A calibration lower than the soakers' rate now gives loads below 0: each
# says what it means, measured against the spread the calibration recorded.
# Calibrations at 1/2 and 4/5 of the rate now give loads near -100% and -25%.
test_a_load_below_0_says_what_it_means() {
	local rate n
	runs_alone
	n=$(allowed_cpus)
	calibrate_here
	rate=$(rate_now)
	printf '%s\ncpus %s\nspread 0.50%%\n' $((rate / 2)) "$n" >"$T/counts_per_sec"
	three_load_lines -m 200
	# The first period takes in the soakers' start; the rest are the system as it is.
	grep '^System load:' "$T/out" | sed 1d | grep -v -E '^System load: *-[0-9.]+% \(below 0 by more than the calibration.s spread of 0\.5 points: recalibrate on an idle system\)$' &&
		fail "bad line for a load far below 0"
	printf '%s\ncpus %s\n' $((rate * 4 / 5)) "$n" >"$T/counts_per_sec"
	one_shot_below_0
	expect_eq "$(cat "$T/err")" "cyclesoak: $(cat "$T/out")% is below 0: the meter's noise, or a calibration made on a busier system"
	printf '%s\ncpus %s\nspread 50.00%%\n' $((rate * 4 / 5)) "$n" >"$T/counts_per_sec"
	one_shot_below_0
	expect_eq "$(cat "$T/err")" "cyclesoak: $(cat "$T/out")% is below 0, within the calibration's spread of 50.0 points"
}

# one_shot_below_0: cyclesoak -1 against a calibration a fifth above the
# rate now, until it reads below 0 (three tries): a shared machine once
# took a quarter of the soakers' rate away for a 200 ms window, and the
# load read +7.3%.
one_shot_below_0() {
	local try
	for try in 1 2 3; do
		(cd "$T" && "$ROOT/cyclesoak" -1 -m 200 >"$T/out" 2>"$T/err") || fail "-1 failed: $(cat "$T/err")"
		grep -qE '^-[0-9]+\.[0-9]$' "$T/out" && return
	done
	fail "three windows read $(cat "$T/out")%, not below 0, against a calibration a fifth above the rate"
}

test_one_shot_prints_only_the_number() {
	local start
	calibrate_here
	start=$(date +%s%N)
	(cd "$T" && "$ROOT/cyclesoak" -1 -m 300 >"$T/out") || fail "exit code $?"
	expect_match "$(cat "$T/out")" '^-?[0-9]+\.[0-9]$'
	expect_eq "$(wc -l <"$T/out")" 1 "lines"
	# A warm-up period, then the sample: at least 600 ms.
	[ $(($(date +%s%N) - start)) -ge 600000000 ] || fail "-1 did not wait two periods"
}

test_options_that_would_be_ignored_are_usage_errors() {
	usage_error cyclesoak "cyclesoak: -B is for the load lines: -1 prints the load alone (-J has each CPU's share)" -1 -B
	usage_error cyclesoak "cyclesoak: -B is for load samples: -C writes ./counts_per_sec" -C -B
	usage_error cyclesoak "cyclesoak: -k is for load samples: -C writes ./counts_per_sec" -C -k
	usage_error cyclesoak "cyclesoak: -1 is for load samples: -C writes ./counts_per_sec" -1 -C
}

# A calibration that could not be written fails before it starts, not after
# seconds of soaking.
test_C_in_a_directory_it_cannot_write_fails_at_once() {
	local rc=0 start
	as_nobody_or_skip
	start=$(date +%s%N)
	# shellcheck disable=SC2086 # the wrapper's words
	(cd "$T" && $AS_NOBODY "$ROOT/cyclesoak" -C -m 300 \
		>"$T/out" 2>"$T/err") || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" "cyclesoak: writing ./counts_per_sec: Permission denied"
	[ $(($(date +%s%N) - start)) -lt 500000000 ] || fail "it soaked before failing"
	grep -q calibrating "$T/out" && fail "it calibrated: $(cat "$T/out")"
	return 0
}

# Two meters on one host count each other's soakers: while cyclesoak runs, a
# second cyclesoak, a calibration and zcc -c each refuse with one line naming
# it, and zcc sends nothing; once it is gone, a meter starts.
test_a_second_meter_on_the_host_is_refused_naming_the_first() {
	local prog rc why
	# Refused at once, not waited for.
	export ZC_METER_WAIT=0
	calibrate_here
	start_cyclesoak -m 100
	why="another meter is running on this host: pid $CS_PID (cyclesoak, user $(id -un)) holds /tmp/zc-meter.lock $(held_cpus); two meters count each other's soakers, and both would be wrong"
	for prog in "cyclesoak -m 100" "cyclesoak -C -m 100"; do
		rc=0
		(cd "$T" && timeout 10 $ROOT/$prog >"$T/second.out" 2>"$T/second.err") || rc=$?
		expect_eq "$rc" 1 "exit code of $prog"
		expect_eq "$(cat "$T/second.err")" "cyclesoak: $why" "$prog"
	done
	start_zcs
	rc=0
	(cd "$T" && timeout 10 "$ROOT/zcc" -c -s 127.0.0.1 -p "$PORT" /etc/hostname >"$T/second.out" 2>"$T/second.err") ||
		rc=$?
	expect_eq "$rc" 1 "exit code of zcc -c"
	expect_eq "$(cat "$T/second.err")" "zcc: $why" "zcc -c"
	grep -q "connection from" "$T/zcs.err" && fail "zcc -c connected: $(cat "$T/zcs.err")"
	kill -9 "$CS_PID"
	wait "$CS_PID" 2>/dev/null || true
	(cd "$T" && timeout 10 "$ROOT/zcc" -c -T 100 -s 127.0.0.1 -p "$PORT" /etc/hostname >"$T/second.out" 2>"$T/second.err") ||
		fail "zcc -c after the first meter died: $(cat "$T/second.err")"
}

# A meter that finds the host's meter taken waits its turn (ZC_METER_WAIT
# seconds at most), saying once who holds it, and runs once it is free; a
# wait that runs out ends with the holder named and the wait; a bad
# ZC_METER_WAIT is an error that names it.
test_a_second_meter_waits_its_turn_saying_who_holds_the_meter() {
	local pid rc=0
	calibrate_here
	start_cyclesoak -m 100
	(cd "$T" && ZC_METER_WAIT=20 exec "$ROOT/cyclesoak" -1 -m 100 >"$T/out2" 2>"$T/err2") &
	pid=$!
	started "$pid"
	wait_until 5 test -s "$T/err2" || fail "the second meter said nothing"
	expect_eq "$(head -n 1 "$T/err2")" "cyclesoak: waiting for the host's meter: pid $CS_PID (cyclesoak, user $(id -un)) holds /tmp/zc-meter.lock $(held_cpus) (at most 20 s in all; ZC_METER_WAIT sets it, 0 to not wait)" \
		"the waiting line"
	sleep 0.3
	kill -0 "$pid" 2>/dev/null || fail "the second meter did not wait: $(cat "$T/out2" "$T/err2")"
	kill "$CS_PID"
	wait_until 10 eval '! kill -0 '"$pid"' 2>/dev/null' || fail "the second meter did not run once the first ended"
	wait "$pid" || fail "the second meter failed: $(cat "$T/err2")"
	expect_match "$(cat "$T/out2")" '^-?[0-9]+\.[0-9]$'
	# The waiting line once, then how long it waited; a busy host may add a
	# measurement's warning, or the note on a load below 0 (-1 of an idle host).
	expect_eq "$(grep -c -F "cyclesoak: waiting for the host's meter" "$T/err2")" 1 "waiting lines: $(cat "$T/err2")"
	expect_eq "$(grep -c -E "^cyclesoak: took the host's meter after [0-9]+\.[0-9] s of waiting\$" "$T/err2")" 1 \
		"the line of the meter taken: $(cat "$T/err2")"
	expect_eq "$(grep -v -c -e '^cyclesoak: warning: ' -e "^cyclesoak: waiting for the host's meter" \
		-e "^cyclesoak: took the host's meter after" \
		-e '^cyclesoak: -[0-9.]*% is below 0' "$T/err2")" 0 "other lines on stderr: $(cat "$T/err2")"
	start_cyclesoak -m 100
	(cd "$T" && ZC_METER_WAIT=1 "$ROOT/cyclesoak" -1 -m 100 >"$T/out2" 2>"$T/err2") || rc=$?
	expect_eq "$rc" 1 "exit once the wait ran out"
	expect_eq "$(tail -n 1 "$T/err2")" "cyclesoak: another meter is running on this host: pid $CS_PID (cyclesoak, user $(id -un)) holds /tmp/zc-meter.lock $(held_cpus); two meters count each other's soakers, and both would be wrong (waited 1 s for it: ZC_METER_WAIT)" \
		"the wait that ran out"
	rc=0
	(cd "$T" && ZC_METER_WAIT=soon "$ROOT/cyclesoak" -1 -m 100 >"$T/out2" 2>"$T/err2") || rc=$?
	expect_eq "$rc:$(cat "$T/err2")" "1:cyclesoak: ZC_METER_WAIT 'soon': not a number of seconds from 0 to 86400" "a bad ZC_METER_WAIT"
}

# cyclesoak_in_private_tmp_or_skip: cyclesoak and a calibration of this
# host in $T/ft, the /tmp of in_private_tmp (root's: a mount namespace).
cyclesoak_in_private_tmp_or_skip() {
	[ "$(id -u)" = 0 ] || skip "needs root (a mount namespace of its own)"
	unshare --mount true 2>/dev/null || skip "cannot make a mount namespace here"
	calibrate_here
	mkdir -p "$T/ft"
	cp "$ROOT/cyclesoak" "$T/counts_per_sec" "$T/ft/"
}

# cyclesoak -H COMMAND holds the host's meter while COMMAND runs, with no
# soakers: a meter outside waits (here refused, ZC_METER_WAIT=0, naming the
# holder), one inside takes its turn, and cyclesoak ends as COMMAND did.
# Inside is what the holder runs, or what was started by whoever started
# the holder (a script holds the meter beside its own meters); outside here
# is a meter whose parent has gone. A hold whose parent has gone already
# (started from `( ... & )`) holds the meter for its command alone. Away
# from make check's own hold: in a /tmp of its own.
test_H_holds_the_meter_while_its_command_runs() {
	local rc=0
	cyclesoak_in_private_tmp_or_skip
	timeout 30 bash -c "$(declare -f in_private_tmp); T='$T'; in_private_tmp '
		./cyclesoak -H sh -c \"touch held; exec sleep 3\" & h=\$!
		for i in \$(seq 1 50); do [ -e held ] && break; sleep 0.1; done
		sh -c \"(sleep 0.3; ZC_METER_WAIT=0 ./cyclesoak -1 -m 100 2>outside.err; echo \\\$? >outside.rc) &\"
		for i in \$(seq 1 50); do [ -e outside.rc ] && break; sleep 0.1; done
		echo \"outside \$(cat outside.rc) holder \$h\"; cat outside.err >&2
		./cyclesoak -H ./cyclesoak -1 -m 100 >/dev/null 2>&1 || echo \"a nested hold failed\"
		wait \$h; echo \"held \$?\"
		./cyclesoak -H ./cyclesoak -1 -m 100 >inside && echo \"inside \$(cat inside)\"
		./cyclesoak -H sh -c \"exit 3\"; echo \"status \$?\"
		(./cyclesoak -H sh -c \"touch orphan\" 2>orphan.err &)
		for i in \$(seq 1 50); do [ -e orphan ] && break; sleep 0.1; done
		echo \"orphaned: \$(ls orphan 2>/dev/null)\$(cat orphan.err)\"'" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 0 "the script's exit"
	expect_match "$(sed -n 1p "$T/out")" '^outside 1 holder [0-9]+$'
	expect_eq "$(sed -n 1p "$T/err")" "cyclesoak: another meter is running on this host: pid $(sed -n 's/.* holder //p' "$T/out") (cyclesoak, user $(id -un)) holds /tmp/zc-meter.lock $(held_cpus); two meters count each other's soakers, and both would be wrong" \
		"the meter outside the hold"
	expect_eq "$(sed -n 2p "$T/out")" "held 0" "the holder's exit"
	expect_match "$(sed -n 3p "$T/out")" '^inside -?[0-9]+\.[0-9]$'
	expect_eq "$(sed -n 4p "$T/out")" "status 3" "the command's status, passed on"
	expect_eq "$(sed -n 5p "$T/out")" "orphaned: orphan" "a hold started with no parent left runs its command"
	usage_error cyclesoak "cyclesoak: -H needs a command to run holding the host's meter" -H
	usage_error cyclesoak "cyclesoak: -H takes no other option: cyclesoak -H command [arg...]" -k -H true
}

# A meter started outside the hold's processes (as ssh to this machine
# starts one) is let in by the token the hold handed its command, and by
# nothing else: ZC_METER_INSIDE naming this boot and the holder's pid (what
# let anyone in before), another token and none leave it outside, refused
# with ZC_METER_WAIT=0 and naming the holder. Away from make check's hold.
test_H_lets_in_only_a_meter_it_handed_its_token() {
	local rc=0 holder who
	cyclesoak_in_private_tmp_or_skip
	# The hold lasts until the end (killed there), and each meter outside it
	# has 10 s to end: beside make check's other tests, one took more than
	# the 5 s that both were (no .rc yet, and the hold then ended at 5 s).
	timeout 60 bash -c "$(declare -f in_private_tmp); T='$T'; in_private_tmp '
		./cyclesoak -H sh -c \"umask 077; printf %s \\\"\\\$ZC_METER_INSIDE\\\" >tok.new && mv tok.new tok; exec sleep 60\" & h=\$!
		for i in \$(seq 1 50); do [ -e tok ] && break; sleep 0.1; done
		echo \"holder \$h token \$(cat tok)\"
		outside() {
			sh -c \"(ZC_METER_INSIDE=\\\"\$1\\\" ZC_METER_WAIT=0 ./cyclesoak -1 -m 100 >\$2.out 2>\$2.err; echo \\\$? >\$2.rc) &\"
			for i in \$(seq 1 100); do [ -e \$2.rc ] && break; sleep 0.1; done
			echo \"\$2 \$(cat \$2.rc) \$(cat \$2.out)\"; sed \"s/^/\$2: /\" \$2.err >&2
		}
		outside \"\$(cat /proc/sys/kernel/random/boot_id):\$h\" claimed
		outside 0123456789abcdef0123456789abcdef wrong
		outside \"\" none
		outside \"\$(cat tok)\" handed
		kill \$h; wait \$h'" >"$T/out" 2>"$T/err" || rc=$?
	holder=$(sed -n 's/^holder \([0-9]*\) .*/\1/p' "$T/out")
	expect_match "$(sed -n 1p "$T/out")" '^holder [0-9]+ token [0-9a-f]{32}$' "the token the hold handed its command"
	expect_eq "$(sed -n 2,4p "$T/out")" "claimed 1 
wrong 1 
none 1 " "the meters without the token"
	expect_match "$(sed -n 5p "$T/out")" '^handed 0 -?[0-9]+\.[0-9]$' "the meter handed the token"
	for who in claimed wrong none; do
		expect_eq "$(grep "^$who: " "$T/err")" "$who: cyclesoak: another meter is running on this host: pid $holder (cyclesoak, user $(id -un)) holds /tmp/zc-meter.lock $(held_cpus); two meters count each other's soakers, and both would be wrong" \
			"what the meter with the word '$who' was told"
	done
}

# A meter in another network namespace (a second host played on this one) is
# the same host's: it is refused too.
test_a_meter_in_another_network_namespace_is_seen() {
	local ns=zc-lock-$$ rc=0
	export ZC_METER_WAIT=0
	[ "$(id -u)" = 0 ] || skip "needs root (ip netns add)"
	ip netns add "$ns" 2>/dev/null || skip "cannot create network namespaces here"
	calibrate_here
	(cd "$T" && exec ip netns exec "$ns" "$ROOT/cyclesoak" -m 100 >"$T/out" 2>"$T/err") &
	CS_PID=$!
	started "$CS_PID"
	wait_until 10 grep -q '^System load:' "$T/out" || { ip netns del "$ns"; fail "no load line: $(cat "$T/err")"; }
	(cd "$T" && timeout 10 "$ROOT/cyclesoak" -1 -m 100 >"$T/second.out" 2>"$T/second.err") || rc=$?
	kill -9 "$CS_PID"
	wait "$CS_PID" 2>/dev/null || true
	ip netns del "$ns"
	expect_eq "$rc" 1 "exit code"
	expect_match "$(cat "$T/second.err")" "^cyclesoak: another meter is running on this host: pid $CS_PID \\(cyclesoak, user $(id -un)\\) holds "
}

test_period_options_are_checked() {
	local rc=0
	usage_error cyclesoak "cyclesoak: -p and -m both set the period: give one of them" -p 1 -m 100
	usage_error cyclesoak "cyclesoak: -m '5': must be at least 10" -m 5
	usage_error cyclesoak "cyclesoak: -N '0': must be at least 1" -N 0
	"$ROOT/cyclesoak" -N 1000 2>"$T/err" || rc=$?
	expect_eq "$rc" 2
	expect_match "$(head -n 1 "$T/err")" '^cyclesoak: -N 1000: only [0-9]+ CPUs? (is|are) available to this process$'
}

test_soakers_are_pinned_idle_and_share_one_group_at_nice_19() {
	local kid cpus="" groups="" n
	n=$(allowed_cpus)
	calibrate_here
	start_cyclesoak -d -m 200
	expect_eq "$(children_of "$CS_PID" | wc -l)" "$n" "soakers"
	for kid in $(children_of "$CS_PID"); do
		chrt -p "$kid" | grep -q 'SCHED_IDLE' || fail "soaker $kid: $(chrt -p "$kid")"
		cpus="$cpus $(taskset -pc "$kid" | awk '{ print $NF }')"
		if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
			grep -q 'nice 19$' "/proc/$kid/autogroup" || fail "autogroup: $(cat "/proc/$kid/autogroup")"
			groups="$groups $(awk '{ print $1 }' "/proc/$kid/autogroup")"
			grep -q "soaker $kid on CPU [0-9]*: SCHED_IDLE, in the soakers' session group at nice 19" "$T/err" ||
				fail "-d did not say so: $(cat "$T/err")"
		fi
	done
	expect_eq "$(echo $cpus | tr ' ' '\n' | sort -u | wc -l)" "$n" "distinct soaker CPUs"
	if [ -n "$groups" ]; then
		expect_eq "$(echo $groups | tr ' ' '\n' | sort -u | wc -l)" 1 "session groups of the soakers"
		[ "$(awk '{ print $1 }' "/proc/$CS_PID/autogroup")" != "${groups# }" ] ||
			fail "cyclesoak itself is in the soakers' group"
	fi
	return 0
}

# A soaker killed or stopped under cyclesoak ends the run with an error naming
# its CPU, instead of its silence being printed as load.
soaker_fails_with() {
	local kid cpu rc=0
	calibrate_here
	start_cyclesoak -m 100
	kid=$(children_of "$CS_PID" | head -n 1)
	cpu=$(taskset -pc "$kid" | awk '{ print $NF }')
	kill "-$1" "$kid"
	wait_until 5 all_dead "$CS_PID" || fail "cyclesoak kept running"
	wait "$CS_PID" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(cat "$T/err")" "cyclesoak: the soaker on CPU $cpu $2"
	all_dead $(children_of "$CS_PID") || fail "soakers left"
}

test_a_killed_soaker_is_an_error_not_a_load() {
	soaker_fails_with KILL "died (Killed)"
}

test_a_stopped_soaker_is_an_error_not_a_load() {
	soaker_fails_with STOP "was stopped (Stopped (signal)): its count is no measurement"
}

# cyclesoak stopped for a second (as by Ctrl-Z) skips that period with a
# warning, then goes on at its own pace: no catch-up burst of short samples.
test_a_stalled_period_is_skipped_not_printed() {
	local before after
	calibrate_here
	start_cyclesoak -m 200
	kill -STOP "$CS_PID"
	sleep 1.5
	before=$(grep -c '^System load:' "$T/out")
	kill -CONT "$CS_PID"
	sleep 1
	after=$(grep -c '^System load:' "$T/out")
	kill -INT "$CS_PID"
	expect_match "$(cat "$T/err")" '^cyclesoak: 1\.[5-9][0-9]{2} s passed in a 0\.200 s period \(stopped or stalled\): that period is not a sample$'
	[ $((after - before)) -ge 3 ] && [ $((after - before)) -le 6 ] ||
		fail "$((after - before)) load lines in the second after the stall"
}

# stop_with SIGNAL: no soaker outlives cyclesoak stopped by that signal.
stop_with() {
	local kids
	calibrate_here
	start_cyclesoak -m 100
	kids=$(children_of "$CS_PID")
	[ -n "$kids" ] || fail "no soakers found"
	kill "-$1" "$CS_PID"
	wait_until 5 all_dead "$CS_PID" || fail "cyclesoak still running after SIG$1"
	wait_until 5 all_dead $kids || fail "soakers outlived cyclesoak after SIG$1: $kids"
}

test_sigint_leaves_no_soaker() {
	stop_with INT
}

test_sigterm_leaves_no_soaker() {
	stop_with TERM
}

test_sighup_leaves_no_soaker() {
	stop_with HUP
}

# Started under nohup (SIGHUP ignored), a hangup leaves cyclesoak measuring,
# as it leaves any program nohup starts; SIGTERM still ends it and its soakers.
test_a_hangup_ignored_by_nohup_stays_ignored() {
	local kids lines
	calibrate_here
	trap '' HUP
	start_cyclesoak -m 100
	trap - HUP
	kids=$(children_of "$CS_PID")
	kill -HUP "$CS_PID"
	lines=$(grep -c '^System load:' "$T/out")
	wait_until 5 eval '[ "$(grep -c "^System load:" "$T/out")" -ge $((lines + 3)) ]' ||
		fail "no load lines after the hangup: $(cat "$T/err")"
	all_dead "$CS_PID" && fail "cyclesoak died of the hangup nohup ignores"
	kill -TERM "$CS_PID"
	wait_until 5 all_dead "$CS_PID" || fail "cyclesoak still running after SIGTERM"
	wait_until 5 all_dead $kids || fail "soakers outlived cyclesoak after SIGTERM: $kids"
}

test_sigkill_leaves_no_soaker() {
	stop_with KILL
}

test_normal_exit_leaves_no_soaker() {
	calibrate_here
	(cd "$T" && exec "$ROOT/cyclesoak" -1 -m 300 >"$T/out") &
	local pid=$! kids
	started "$pid"
	wait_until 5 eval '[ -n "$(children_of '"$pid"')" ]' || fail "no soakers"
	kids=$(children_of "$pid")
	wait "$pid" || fail "cyclesoak -1 failed"
	all_dead $kids || fail "soakers left: $kids"
}

# A known load in another session: the meter sees it on top of what the
# machine was doing just before (loosely, on a busy machine), and the load
# gets the CPU it asks for despite the soakers. It spins, waking 100 times a
# second: the load is CPU time the soakers lost (time_lost_pct, near what
# was injected), not a slowdown of theirs, for it leaves their caches alone.
# A sample before and one during, seconds apart, can fall in different
# phases of this shared VM (5.4% busy before once, and the load read 8.2
# points short): a second try must then agree.
test_known_load_is_measured_and_not_starved() {
	local n want before got try
	n=$(allowed_cpus)
	calibrate_here -N "$n"
	want=$(awk -v n="$n" 'BEGIN { printf "%.1f", 50 / n }')
	for try in 1 2; do
		(cd "$T" && "$ROOT/cyclesoak" -J -1 -m 500 >"$T/before")
		setsid "$HELPERS/loadgen" -c "$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')" -f 50 -t 3 >"$T/loadgen" &
		started $!
		sleep 0.5
		(cd "$T" && "$ROOT/cyclesoak" -J -1 -m 750 >"$T/during")
		wait_until 10 eval '! kill -0 '"$!"' 2>/dev/null' || fail "loadgen did not finish"
		before=$(sed 's/.*"load_pct":\([-0-9.]*\),"kernel_pct":[-0-9.]*,"time_lost_pct":\([-0-9.]*\),"slowdown_pct":\([-0-9.]*\).*/\1 \2 \3/' "$T/before")
		got=$(sed 's/.*"load_pct":\([-0-9.]*\),"kernel_pct":[-0-9.]*,"time_lost_pct":\([-0-9.]*\),"slowdown_pct":\([-0-9.]*\).*/\1 \2 \3/' "$T/during")
		expect_match "$before $got" '^(-?[0-9]+\.[0-9] ){5}-?[0-9]+\.[0-9]$'
		awk -v got="$got" -v before="$before" -v want="$want" 'BEGIN {
			split(got, g, " "); split(before, b, " ")
			exit !(g[1] - b[1] - want < 8 && g[1] - b[1] - want > -8 &&
				g[2] - b[2] - want < 8 && g[2] - b[2] - want > -8 && g[3] - b[3] < 6 && g[3] - b[3] > -6) }' && break
		echo "# try $try: measured $got (load, time lost, slowdown; and $before before) for an injected $want%" >&2
		[ "$try" = 2 ] && fail "measured $got (load, time lost, slowdown; and $before before) for an injected $want%"
	done
	sed 's/.*(\([0-9.]*\)% of target).*/\1/' "$T/loadgen" | awk '{ exit !($1 + 0 >= 99) }' ||
		fail "the load was starved: $(cat "$T/loadgen")"
}

# The meter and the kernel's count of the same period agree: near 0 on an
# idle machine, and on the load of a busy one.
test_the_meter_agrees_with_the_kernel_on_the_system_as_it_is() {
	local got try
	runs_alone
	# A calibration of 100 ms periods can fall in one of this VM's noisy
	# phases: a second calibration and sample must then agree.
	for try in 1 2; do
		calibrate_here
		got=$(cd "$T" && "$ROOT/cyclesoak" -1 -k -m 1000)
		expect_match "$got" '^-?[0-9]+\.[0-9] -?[0-9]+\.[0-9]$'
		awk -v load="${got% *}" -v kernel="${got#* }" 'BEGIN { d = load - kernel; exit !(d < 8 && d > -8) }' &&
			return 0
		echo "# try $try: the meter measured ${got% *}%, the kernel ${got#* }%" >&2
	done
	fail "the meter measured ${got% *}%, the kernel ${got#* }%, twice"
}

run_tests "$@"
