#!/bin/bash
# Runs the unit test programs given as arguments, then every tests/t_*.sh,
# and ends with the line "N passed, N failed" (", N skipped" when any were).
# TESTS=pattern limits the shell tests to files whose name contains it.
set -u

cd "$(dirname "$0")/.." || exit 1
log=$(mktemp)
holder=
trap '[ -z "$holder" ] || { pkill -P "$holder"; kill "$holder"; } 2>/dev/null; rm -f "$log" "$log.one" "$log.held"' EXIT

# The host's meter, held for the whole check (cyclesoak -H): the tests'
# meters take their turns inside the hold, and another meter on the host
# waits until the check ends. One running now makes the check wait for it
# first, ZC_METER_WAIT seconds at most (120 here); if it is still busy then,
# the check runs, and a test whose meter then waits that long in vain skips.
export ZC_METER_WAIT=${ZC_METER_WAIT:-120}
if [ -x ./cyclesoak ]; then
	./cyclesoak -H sh -c 'touch "$1" && exec sleep 2147483647' sh "$log.held" &
	holder=$!
	until [ -e "$log.held" ] || ! kill -0 "$holder" 2>/dev/null; do
		sleep 0.1
	done
	[ -e "$log.held" ] || { holder=; echo "# the host's meter is busy: the tests that need it wait for it, or skip"; }
fi

for prog in "$@"; do
	"$prog" | tee "$log.one" | tee -a "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && ! grep -q "^FAIL" "$log.one"; then
		echo "FAIL $prog: exited with status $rc" | tee -a "$log"
	fi
done

# A test file that dies (a syntax error, a missing helper) or reports no test
# at all is a failure of its own, not a file with nothing to say.
shopt -s nullglob
for script in tests/t_*.sh; do
	case "$script" in *"${TESTS:-}"*) ;; *) continue ;; esac
	bash "$script" | tee "$log.one" | tee -a "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "FAIL $script: exited with status $rc" | tee -a "$log"
	elif ! grep -q -E '^(ok|FAIL|skip) ' "$log.one"; then
		echo "FAIL $script: ran no tests" | tee -a "$log"
	fi
done
rm -f "$log.one"

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^skip ' "$log")
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ]
