#!/bin/bash
# tests/run.sh itself: a test file that dies, or runs no test, fails the run.
# make check-quick runs this file.
. "$(dirname "$0")/lib.sh"

# tree: a copy of run.sh and what it needs in $T/tree, with no test file.
tree() {
	mkdir -p "$T/tree/tests" "$T/tree/scripts"
	cp "$ROOT/tests/run.sh" "$ROOT/tests/lib.sh" "$ROOT/tests/harness.sh" "$T/tree/tests/"
	cp "$ROOT/scripts/bench-lib.sh" "$ROOT/scripts/netns.sh" "$ROOT"/scripts/*.awk "$T/tree/scripts/"
}

test_a_test_file_that_dies_or_runs_nothing_fails_the_run() {
	local rc=0
	tree
	printf '. "$(dirname "$0")/lib.sh"\ntest_passes() { true; }\nrun_tests "$@"\n' >"$T/tree/tests/t_good.sh"
	printf '. "$(dirname "$0")/lib.sh"\ntest_x() { true; }\nif then\n' >"$T/tree/tests/t_broken.sh"
	printf '. "$(dirname "$0")/lib.sh"\nrun_tests "$@"\n' >"$T/tree/tests/t_empty.sh"
	printf '. "$(dirname "$0")/no-such-helper.sh"\ntest_y() { true; }\nrun_tests "$@"\n' >"$T/tree/tests/t_nohelper.sh"
	# Every file of the tree, whatever TESTS the outer run was given.
	env -u TESTS -u QUICK bash "$T/tree/tests/run.sh" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code of run.sh"
	expect_eq "$(grep -E '^(ok|FAIL|skip) ' "$T/out" | sort)" "FAIL tests/t_broken.sh: exited with status 2
FAIL tests/t_empty.sh: ran no tests
FAIL tests/t_nohelper.sh: exited with status 127
ok t_good.sh: test_passes" "result lines"
	expect_eq "$(tail -n 1 "$T/out")" "1 passed, 3 failed" "last line"
	expect_eq "$(grep -v -e '^tests/t_broken.sh: line 3: ' -e 'no-such-helper.sh' -e 'run_tests: command not found' "$T/err")" "" \
		"stderr beyond the broken files' own errors"
}

# The shared part starts the files longest first: by the seconds each took
# in the last run (ZC_CHECK_TIMES), else by its lines; a run side by side
# writes each file's seconds there, and keeps those of the files it did not run.
test_the_shared_part_starts_the_file_that_took_longest_last_time() {
	local i
	tree
	printf '. "$(dirname "$0")/lib.sh"\ntest_s() { echo short >>"$LOG"; }\nrun_tests "$@"\n' >"$T/tree/tests/t_short.sh"
	{
		echo '. "$(dirname "$0")/lib.sh"'
		for i in $(seq 1 20); do echo "# line $i"; done
		printf 'test_l() { echo long >>"$LOG"; }\nrun_tests "$@"\n'
	} >"$T/tree/tests/t_long.sh"
	one_at_a_time() {
		: >"$T/log"
		(cd "$T/tree" && env -u TESTS -u QUICK TEST_JOBS=1 ZC_CHECK_TIMES="$T/times" LOG="$T/log" bash tests/run.sh) >"$T/out" 2>&1 ||
			fail "run.sh failed: $(cat "$T/out")"
	}
	one_at_a_time
	expect_eq "$(cat "$T/log" | tr '\n' ' ')" "long short " "the order by lines"
	printf '%s\n' "9 tests/t_short.sh" "5 tests/t_gone.sh" >"$T/times"
	one_at_a_time
	expect_eq "$(cat "$T/log" | tr '\n' ' ')" "short long " "the order by the last run's seconds"
	(cd "$T/tree" && env -u TESTS -u QUICK TEST_JOBS=2 ZC_CHECK_TIMES="$T/times" LOG="$T/log" bash tests/run.sh) >"$T/out" 2>&1 ||
		fail "run.sh failed: $(cat "$T/out")"
	expect_eq "$(sed 's/^[0-9]* //' "$T/times" | sort | tr '\n' ' ')" "tests/t_gone.sh tests/t_long.sh tests/t_short.sh " "the files on record"
	grep -qx '[0-9]* tests/t_long.sh' "$T/times" && grep -qx '5 tests/t_gone.sh' "$T/times" || fail "the record: $(cat "$T/times")"
}

# As each file's tests alone begin, a line says which, of how many, and
# how long it and the rest of the part took last time (ZC_CHECK_TIMES),
# which the run then keeps for each part.
test_a_line_says_which_file_of_the_tests_alone_begins_and_the_time_left() {
	tree
	printf '. "$(dirname "$0")/lib.sh"\ntest_a() { runs_alone; }\nrun_tests "$@"\n' >"$T/tree/tests/t_a.sh"
	printf '. "$(dirname "$0")/lib.sh"\n# a longer file\ntest_b() { runs_alone; }\nrun_tests "$@"\n' >"$T/tree/tests/t_b.sh"
	printf '%s\n' "7 tests/t_b.sh alone" "3 tests/t_a.sh alone" >"$T/times"
	(cd "$T/tree" && env -u TESTS -u QUICK TEST_JOBS=2 ZC_CHECK_TIMES="$T/times" bash tests/run.sh) >"$T/out" 2>&1 ||
		fail "run.sh failed: $(cat "$T/out")"
	expect_eq "$(grep '^# the tests alone, ' "$T/out")" "# the tests alone, 1 of 2: tests/t_b.sh (7 s last time; about 10 s of the tests alone left)
# the tests alone, 2 of 2: tests/t_a.sh (3 s last time; about 3 s of the tests alone left)" "the progress lines"
	grep -qx '[0-9]* tests/t_a.sh alone' "$T/times" && grep -qx '[0-9]* tests/t_b.sh alone' "$T/times" ||
		fail "the record: $(cat "$T/times")"
	printf '%s\n' "7 tests/t_b.sh alone" >"$T/times"
	(cd "$T/tree" && env -u TESTS -u QUICK TEST_JOBS=2 ZC_CHECK_TIMES="$T/times" bash tests/run.sh) >"$T/out" 2>&1 ||
		fail "run.sh failed: $(cat "$T/out")"
	expect_eq "$(grep '^# the tests alone, 2 of 2' "$T/out")" "# the tests alone, 2 of 2: tests/t_a.sh (no time of these known yet)" "a file not yet timed"
}

# The unit programs run side by side; one that starts a meter (its source
# calls soak_open or meter_start) runs after the rest, one at a time. Each
# program's lines come out whole, in the order given; one that exits
# non-zero without a FAIL line of its own is a failure, with its status.
test_unit_programs_run_side_by_side_and_a_meters_after_the_rest() {
	local p
	tree
	mkdir "$T/tree/u"
	unit_program() {
		printf '#!/bin/bash\n%s\n' "$2" >"$T/tree/u/$1"
		chmod +x "$T/tree/u/$1"
	}
	# slow waits (5 s at most) for quick, given after it, to have run.
	unit_program slow 'for i in $(seq 50); do [ -e "$LOG.quick" ] && break; sleep 0.1; done
echo "slow saw quick: $([ -e "$LOG.quick" ] && echo yes || echo no)" >>"$LOG"; echo "ok slow"'
	unit_program quick 'touch "$LOG.quick"; echo "ok quick"'
	unit_program dies 'echo "# about to die"; exit 3'
	for p in meter1 meter2; do
		unit_program "$p" "echo '$p start' >>\"\$LOG\"; sleep 0.3; echo '$p end' >>\"\$LOG\"; echo 'ok $p'"
	done
	echo 'soak_open(&m, 1, 0);' >"$T/tree/tests/meter1.c"
	echo 'meter_start(&m, 1, 0);' >"$T/tree/tests/meter2.c"
	echo 'int main(void) { return 0; }' >"$T/tree/tests/slow.c"
	(cd "$T/tree" && env -u TESTS -u QUICK LOG="$T/log" bash tests/run.sh u/meter1 u/slow u/quick u/dies u/meter2) >"$T/out" 2>"$T/err" &&
		fail "run.sh passed with a unit program that failed: $(cat "$T/out")"
	expect_eq "$(cat "$T/out")" "ok meter1
ok slow
ok quick
# about to die
FAIL u/dies: exited with status 3
ok meter2
4 passed, 1 failed" "run.sh's lines"
	expect_eq "$(cat "$T/log")" "slow saw quick: yes
meter1 start
meter1 end
meter2 start
meter2 end" "what the programs did, in order"
}

# A test that needs the host to itself is one whose code, or a function it
# calls however deep, judges a figure, meters with a tare (zcc's and zcs's
# -c, zc-matrix), calibrates, or sets what the host's every process sees;
# one that meters the host with cyclesoak alone takes the meter's turn,
# unless it says (however deep) that it starts no meter; and a zc-matrix
# that says so shares the host, unless it says it judges. A usage error of
# the meter's, a -c that is grep's, or a longer word that holds a
# function's name are neither.
test_the_tests_that_run_alone_are_found_through_what_they_call() {
	tree
	cat >"$T/tree/tests/t_w.sh" <<'EOS'
. "$(dirname "$0")/lib.sh"
judge() { quiet_or_skip; }
deeper() { judge; }
test_calls_a_judge_two_deep() { deeper; }
test_meters() { "$ROOT/zcc" -s 127.0.0.1 -c /etc/hostname; }
test_meters_the_receiver() { start_zcs -c; }
test_counts_with_grep() { grep -c x /etc/hostname; }
test_a_usage_error_of_the_meter() { usage_error cyclesoak "cyclesoak: -B is for load samples" -C -B; }
test_its_own_calibration() { (cd "$T" && "$ROOT/cyclesoak" -C -m 100); }
test_sets_a_sysctl() { echo 1 >/proc/sys/net/ipv4/tcp_autocorking; }
test_reads_a_sysctl() { cat /proc/sys/net/ipv4/tcp_autocorking; }
test_names_a_longer_word() { echo judgement; }
test_says_so() { runs_alone; }
test_known_change() { bash "$ROOT/scripts/known-change" --trials 1; }
test_greps_a_script() { grep -c x "$ROOT/scripts/known-change"; }
test_runs_a_matrix() { bash "$ROOT/scripts/zc-matrix" --secs 1; }
test_calibrates_zcc() { "$ROOT/zcc" -C; }
test_uses_the_checks_calibration() { calibrate_here; start_zcs; }
test_calibrates_with_arguments() { calibrate_here -N 1; }
test_a_meter_that_judges() { runs_alone; start_zcs -c; }
test_load_lines() { "$ROOT/cyclesoak" -m 100 & sleep 1; }
test_runs_a_fleet() { bash "$ROOT/scripts/zc-fleet" plan; }
ends_early() { starts_no_meter; }
test_a_fleet_that_ends_before_its_meter() { ends_early; calibrate_here; bash "$ROOT/scripts/zc-fleet" plan; }
test_a_matrix_that_ends_at_its_options() { ends_early; bash "$ROOT/scripts/zc-matrix" --bogus; }
test_a_matrix_that_ends_early_and_judges() { ends_early; runs_alone; bash "$ROOT/scripts/zc-matrix" --bogus; }
run_tests "$@"
EOS
	expect_eq "$(bash "$T/tree/tests/t_w.sh" --alone | tr '\n' ' ')" \
		"test_a_matrix_that_ends_early_and_judges test_a_meter_that_judges test_calibrates_with_arguments test_calibrates_zcc test_calls_a_judge_two_deep test_its_own_calibration test_known_change test_meters test_meters_the_receiver test_runs_a_matrix test_says_so test_sets_a_sysctl " "the tests that run alone"
	expect_eq "$(bash "$T/tree/tests/t_w.sh" --meter | tr '\n' ' ')" \
		"test_load_lines test_runs_a_fleet test_uses_the_checks_calibration " "the tests that take the meter's turn"
}

# What makes a test of the files below run alone, or take the meter's
# turn, held outside any function, where tests_saying does not find it:
# this file's own tests share the host, and have no meter.
SAYS_ALONE=runs_alone
SAYS_METER='"$ROOT/cyclesoak"'

# Side by side, the tests that share the host run at once, and one that
# runs alone overlaps none of them: it runs first. The meter's run one at a
# time, beside the others.
test_files_run_side_by_side_and_a_test_alone_runs_alone() {
	local f
	tree
	for f in s1 s2 al; do
		printf '. "$(dirname "$0")/lib.sh"\ntest_%s() { %s echo "%s $(date +%%s%%N) $(sleep 2; date +%%s%%N)" >>"%s/times"; }\nrun_tests "$@"\n' \
			"$f" "$([ "$f" = al ] && echo "$SAYS_ALONE;")" "$f" "$T" >"$T/tree/tests/t_$f.sh"
	done
	# The two that share, alone in the run: at once.
	env -u QUICK TESTS=t_s TEST_JOBS=3 bash "$T/tree/tests/run.sh" >"$T/out" 2>"$T/err" || fail "run.sh failed: $(cat "$T/out" "$T/err")"
	expect_eq "$(tail -n 1 "$T/out")" "2 passed, 0 failed" "last line"
	expect_eq "$(overlaps s1 s2)" "s1 s2 overlap" "the tests that share the host"
	# All three: the one alone overlaps neither.
	: >"$T/times"
	env -u TESTS -u QUICK TEST_JOBS=3 bash "$T/tree/tests/run.sh" >"$T/out" 2>"$T/err" || fail "run.sh failed: $(cat "$T/out" "$T/err")"
	expect_eq "$(tail -n 1 "$T/out")" "3 passed, 0 failed" "last line"
	expect_eq "$(overlaps s1 al; overlaps s2 al)" "s1 al apart
s2 al apart" "the test alone against the others"
	# The tests alone run first, all of them before the files side by side.
	awk '{ s[$1] = $2; e[$1] = $3 } END { exit !(e["al"] < s["s1"] && e["al"] < s["s2"]) }' "$T/times" ||
		fail "the test alone did not run first: $(cat "$T/times")"
	# Two of the meter's: one at a time, each beside the one that shares.
	rm "$T/tree/tests/t_al.sh"
	for f in m1 m2; do
		printf '. "$(dirname "$0")/lib.sh"\nmeters() { %s -1 "$@"; }\ntest_%s() { [ -n "${ZC_CHECK_ROOM:-}" ] || meters; echo "%s $(date +%%s%%N) $(sleep 2; date +%%s%%N)" >>"%s/times"; }\nrun_tests "$@"\n' \
			"$SAYS_METER" "$f" "$f" "$T" >"$T/tree/tests/t_$f.sh"
	done
	: >"$T/times"
	env -u TESTS -u QUICK TEST_JOBS=3 bash "$T/tree/tests/run.sh" >"$T/out" 2>"$T/err" || fail "run.sh failed: $(cat "$T/out" "$T/err")"
	expect_eq "$(tail -n 1 "$T/out")" "4 passed, 0 failed" "last line"
	expect_eq "$(overlaps m1 m2)" "m1 m2 apart" "the meter's two"
	case "$(overlaps s1 m1; overlaps s1 m2)" in
	*overlap*) ;;
	*) fail "neither of the meter's shared the host with s1: $(cat "$T/times")" ;;
	esac
	# Two at once: the meter's tests take one place, one file after
	# another, and the others the other place, each beside one of the
	# meter's (the meter's files first, by the last run's seconds: one that
	# waited its turn kept a place, and s2 ran after both).
	: >"$T/times"
	printf '%s\n' "9 tests/t_m1.sh" "8 tests/t_m2.sh" >"$T/last"
	env -u TESTS -u QUICK TEST_JOBS=2 ZC_CHECK_TIMES="$T/last" bash "$T/tree/tests/run.sh" >"$T/out" 2>"$T/err" ||
		fail "run.sh failed: $(cat "$T/out" "$T/err")"
	expect_eq "$(tail -n 1 "$T/out")" "4 passed, 0 failed" "last line"
	expect_eq "$(overlaps m1 m2)" "m1 m2 apart" "the meter's two, two at once"
	for f in s1 s2; do
		case "$(overlaps "$f" m1; overlaps "$f" m2)" in
		*overlap*) ;;
		*) fail "$f ran beside none of the meter's: $(cat "$T/times")" ;;
		esac
	done
	env -u QUICK TEST_JOBS=x bash "$T/tree/tests/run.sh" >"$T/out" 2>"$T/err" && fail "TEST_JOBS=x passed"
	expect_eq "$(cat "$T/err")" "tests/run.sh: TEST_JOBS 'x': not a number of files at once (1 or more)"
}

# A test that cannot have the host within ROOM_WAIT fails, saying so, and
# the file goes on to the next.
test_a_test_that_waits_in_vain_for_the_host_fails_saying_so() {
	local holder
	tree
	printf '. "$(dirname "$0")/lib.sh"\ntest_meters() { %s; }\ntest_shares() { true; }\nrun_tests "$@"\n' "$SAYS_ALONE" >"$T/tree/tests/t_w.sh"
	: >"$T/room"
	flock -s "$T/room" sleep 30 &
	holder=$!
	started "$holder"
	wait_until 5 eval '! flock -n "$T/room" true' || fail "the room was not taken"
	ZC_CHECK_ROOM=$T/room ROOM_WAIT=1 bash "$T/tree/tests/t_w.sh" >"$T/out" 2>&1
	expect_eq "$(cat "$T/out")" "FAIL t_w.sh: test_meters: waited 1 s in vain for the host (tests/run.sh's room)
ok t_w.sh: test_shares" "the lines"
}

# overlaps A B: "A B overlap" where the tests A and B ran at once by
# $T/times (a test's name, start and end, a line each), "A B apart" else.
overlaps() {
	awk -v a="$1" -v b="$2" '{ s[$1] = $2; e[$1] = $3 } END {
		print a, b, ((s[a] > s[b] ? s[a] : s[b]) < (e[a] < e[b] ? e[a] : e[b]) ? "overlap" : "apart")
	}' "$T/times"
}

# A test that times out beside others runs once more alone; one that times
# out while other tasks had a quarter of the host's CPUs or more met a busy
# host, and skips, saying so; otherwise it fails, saying how busy it was.
test_a_test_that_times_out_on_a_busy_host_skips_saying_so() {
	local i
	tree
	printf '. "$(dirname "$0")/lib.sh"\ntest_sleeps() { sleep 20; }\nrun_tests "$@"\n' >"$T/tree/tests/t_x.sh"
	: >"$T/room"
	ZC_CHECK_ROOM=$T/room TEST_TIMEOUT=1 ZC_BUSY_PCT=101 bash "$T/tree/tests/t_x.sh" >"$T/out" 2>&1
	expect_eq "$(sed -n 1,2p "$T/out")" "# t_x.sh: test_sleeps timed out after 1s beside other tests: once more, alone
FAIL t_x.sh: test_sleeps: timed out after 1s" "a timeout beside others, then alone"
	expect_match "$(tail -n 1 "$T/out")" "^#   # other tasks had [0-9]+% of the host's CPUs while it ran\$" "the last line"
	# Every CPU kept busy by tasks of another tree (at the lowest priority: the tests beside this one come first).
	for i in $(seq "$(allowed_cpus)"); do
		nice -n 19 sh -c 'while :; do :; done' &
		started "$!"
	done
	env -u ZC_CHECK_ROOM TEST_TIMEOUT=1 bash "$T/tree/tests/t_x.sh" >"$T/out" 2>&1
	expect_match "$(cat "$T/out")" "^skip t_x.sh: test_sleeps: the host was busy: other tasks had [0-9]+% of its CPUs while it ran, and it timed out after 1s\$"
}

# A test that judges a figure (quiet_or_skip) skips on a host whose CPUs
# other tasks keep busy, saying how busy it found them.
test_a_judge_on_a_busy_host_skips_saying_how_busy() {
	local i
	tree
	printf '. "$(dirname "$0")/lib.sh"\ntest_judges() { quiet_or_skip; }\nrun_tests "$@"\n' >"$T/tree/tests/t_q.sh"
	for i in $(seq "$(allowed_cpus)"); do
		nice -n 19 sh -c 'while :; do :; done' &
		started "$!"
	done
	env -u ZC_CHECK_ROOM bash "$T/tree/tests/t_q.sh" >"$T/out" 2>&1
	expect_match "$(cat "$T/out")" '^skip t_q\.sh: test_judges: the host is too busy to judge: it was ([1-9][0-9]|100)\.[0-9]% busy before the test$'
}

run_tests "$@"
