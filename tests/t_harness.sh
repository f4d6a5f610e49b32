#!/bin/bash
# tests/run.sh itself: a test file that dies, or runs no test, fails the run.
. "$(dirname "$0")/lib.sh"

test_a_test_file_that_dies_or_runs_nothing_fails_the_run() {
	local rc=0
	mkdir -p "$T/tree/tests" "$T/tree/scripts"
	cp "$ROOT/tests/run.sh" "$ROOT/tests/lib.sh" "$ROOT/tests/harness.sh" "$T/tree/tests/"
	cp "$ROOT/scripts/bench-lib.sh" "$ROOT"/scripts/*.awk "$T/tree/scripts/"
	printf '. "$(dirname "$0")/lib.sh"\ntest_passes() { true; }\nrun_tests "$@"\n' >"$T/tree/tests/t_good.sh"
	printf '. "$(dirname "$0")/lib.sh"\ntest_x() { true; }\nif then\n' >"$T/tree/tests/t_broken.sh"
	printf '. "$(dirname "$0")/lib.sh"\nrun_tests "$@"\n' >"$T/tree/tests/t_empty.sh"
	printf '. "$(dirname "$0")/no-such-helper.sh"\ntest_y() { true; }\nrun_tests "$@"\n' >"$T/tree/tests/t_nohelper.sh"
	# Every file of the tree, whatever TESTS the outer run was given.
	env -u TESTS bash "$T/tree/tests/run.sh" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 1 "exit code of run.sh"
	expect_eq "$(grep -E '^(ok|FAIL|skip) ' "$T/out")" "FAIL tests/t_broken.sh: exited with status 2
FAIL tests/t_empty.sh: ran no tests
ok t_good.sh: test_passes
FAIL tests/t_nohelper.sh: exited with status 127" "result lines"
	expect_eq "$(tail -n 1 "$T/out")" "1 passed, 3 failed" "last line"
	expect_eq "$(grep -v -e '^tests/t_broken.sh: line 3: ' -e 'no-such-helper.sh' -e 'run_tests: command not found' "$T/err")" "" \
		"stderr beyond the broken files' own errors"
}

run_tests "$@"
