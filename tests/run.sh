#!/bin/bash
# Runs the unit test programs given as arguments, then every tests/t_*.sh,
# and ends with the line "N passed, N failed" (", N skipped" when any were).
# TESTS=pattern limits the shell tests to files whose name contains it.
set -u

cd "$(dirname "$0")/.." || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for prog in "$@"; do
	"$prog" | tee -a "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && ! grep -q "^FAIL" "$log"; then
		echo "FAIL $prog: exited with status $rc" | tee -a "$log"
	fi
done

shopt -s nullglob
for script in tests/t_*.sh; do
	case "$script" in *"${TESTS:-}"*) ;; *) continue ;; esac
	bash "$script" | tee -a "$log"
done

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^skip ' "$log")
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ]
