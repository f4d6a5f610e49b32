#!/bin/bash
# Runs the unit test programs given as arguments, TEST_JOBS at once, then
# the tests/t_*.sh files: first their tests that run alone, a file at a
# time, then the rest, TEST_JOBS files side by side (8; 1: one after
# another), and beside them the meter's tests, one file after another. It
# ends with the line "N passed, N failed" (", N skipped" when any were). A
# file's lines of each part come out whole as the part ends.
# TESTS=pattern limits the shell tests to files whose name contains it;
# QUICK=1 to the files that say "# make check-quick runs this file."
set -u

cd "$(dirname "$0")/.." || exit 1
work=$(mktemp -d)
log=$work/log
holder=
trap '[ -z "$holder" ] || { pkill -P "$holder"; kill "$holder"; } 2>/dev/null; rm -rf "$work"' EXIT

jobs=${TEST_JOBS:-8}
case "$jobs" in
'' | *[!0-9]* | 0*) echo "tests/run.sh: TEST_JOBS '$jobs': not a number of files at once (1 or more)" >&2; exit 2 ;;
esac

# The host's meter, held for the whole check (cyclesoak -H): the tests'
# meters take their turns inside the hold, and another meter on the host
# waits until the check ends. One running now makes the check wait for it
# first, ZC_METER_WAIT seconds at most (120 here); if it is still busy then,
# the check runs, and a test whose meter then waits that long in vain skips.
export ZC_METER_WAIT=${ZC_METER_WAIT:-120}
if [ -x ./cyclesoak ]; then
	# The hold's token, for the far ends a test starts through ssh on this
	# machine (not descendants of the hold), written where only this user reads.
	./cyclesoak -H sh -c 'umask 077 && printf "%s\n" "${ZC_METER_INSIDE-}" >"$1.new" && mv "$1.new" "$1" && exec sleep 2147483647' sh "$log.held" &
	holder=$!
	until [ -e "$log.held" ] || ! kill -0 "$holder" 2>/dev/null; do
		sleep 0.1
	done
	if [ -e "$log.held" ]; then
		ZC_METER_INSIDE=$(cat "$log.held")
		export ZC_METER_INSIDE
	else
		holder=
		echo "# the host's meter is busy: the tests that need it wait for it, or skip"
	fi
fi
: >"$log"

# The unit test programs, TEST_JOBS at once: they mostly wait (test_rx,
# test_hostlock and test_tx took 6 of their 7.5 s one after another). One
# that starts a meter (its source calls soak_open or meter_start) runs after
# the rest, one at a time: soakers count whatever else runs. Each program's
# lines come out whole, in the order given.
unit() {
	"$2" >"$work/unit.$1.out" 2>"$work/unit.$1.err"
	echo $? >"$work/unit.$1.rc"
}
unit_pids=()
metering=()
n=0
for prog in "$@"; do
	n=$((n + 1))
	if grep -qE '\<(soak_open|meter_start)\(' "tests/${prog##*/}.c" 2>/dev/null; then
		metering+=("$n")
		continue
	fi
	if [ "${#unit_pids[@]}" -ge "$jobs" ]; then
		wait -n "${unit_pids[@]}"
		for i in "${!unit_pids[@]}"; do
			kill -0 "${unit_pids[$i]}" 2>/dev/null || unset "unit_pids[$i]"
		done
	fi
	unit "$n" "$prog" &
	unit_pids+=("$!")
done
[ "${#unit_pids[@]}" -eq 0 ] || wait "${unit_pids[@]}"
for i in "${metering[@]}"; do
	unit "$i" "${!i}"
done
for i in $(seq 1 "$n"); do
	cat "$work/unit.$i.err" >&2
	tee -a "$log" <"$work/unit.$i.out"
	rc=$(cat "$work/unit.$i.rc")
	if [ "$rc" -ne 0 ] && ! grep -q "^FAIL" "$work/unit.$i.out"; then
		echo "FAIL ${!i}: exited with status $rc" | tee -a "$log"
	fi
done

# Side by side, a test that needs the host to itself (harness.sh's
# alone_tests) waits for the room whole, and the others share it; of
# those, the meter's (meter_tests) take the meter's turn, one at a time. One
# calibration, made while nothing else runs, serves every test that only
# needs one to meter with (lib.sh's calibrate_here).
if [ "$jobs" -gt 1 ]; then
	export ZC_CHECK_ROOM=$work/room
	if [ -x ./cyclesoak ] && mkdir "$work/calibration" &&
		(cd "$work/calibration" && exec "$OLDPWD/cyclesoak" -C -m 100 >calibration 2>&1); then
		export ZC_CHECK_CALIBRATION=$work/calibration
	fi
fi

# A test file that dies (a syntax error, a missing helper) or reports no test
# at all is a failure of its own, not a file with nothing to say.
shopt -s nullglob
files=()
for script in tests/t_*.sh; do
	case "$script" in *"${TESTS:-}"*) ;; *) continue ;; esac
	[ "${QUICK:-}" != 1 ] || grep -qx '# make check-quick runs this file.' "$script" || continue
	files+=("$script")
done

# report P.N: part P of file N: its lines and verdict; report meter: the
# meter's part of each file that has one, in the order they ran.
report() {
	local script out=$work/$1 i
	if [ "$1" = meter ]; then
		for i in "${metered[@]}"; do
			report "meter.$i"
		done
		return
	fi
	script=${files[${1#*.}]}
	# (A part the meter's shell did not reach, that shell killed: 137.)
	[ -e "$out.rc" ] || echo 137 >"$out.rc"
	cat "$out.err" >&2 2>/dev/null
	cat "$out.out" 2>/dev/null | tee -a "$log"
	if [ "$(cat "$out.rc")" -ne 0 ]; then
		echo "FAIL $script: exited with status $(cat "$out.rc")" | tee -a "$log"
	fi
}

# finish: wait for a part to end (its shell writes P.N.rc last), and give its lines.
finish() {
	local pid
	while :; do
		for pid in "${!running[@]}"; do
			[ -e "$work/${running[$pid]}.rc" ] || continue
			report "${running[$pid]}"
			unset "running[$pid]"
			return
		done
		# The next child to end; at once if none is left (a shell that was
		# killed before its verdict: given one here).
		wait -n 2>/dev/null && continue
		for pid in "${!running[@]}"; do
			kill -0 "$pid" 2>/dev/null || [ -e "$work/${running[$pid]}.rc" ] || echo 137 >"$work/${running[$pid]}.rc"
		done
		sleep 0.1
	done
}

# run P.N: part P of file N (harness.sh's ZC_CHECK_PART), its lines and
# seconds in $work/P.N.*, its status last.
run() {
	local began=$SECONDS
	ZC_CHECK_PART=${1%%.*} bash "${files[${1#*.}]}" >"$work/$1.out" 2>"$work/$1.err"
	echo $? >"$work/$1.rc.new"
	echo $((SECONDS - began)) >"$work/$1.secs"
	mv "$work/$1.rc.new" "$work/$1.rc"
}

# secs_of P.N: the seconds part P of file N took in the last make check
# here (last_secs, TIMES's lines read once: "SECS FILE" for the shared
# part, "SECS FILE PART" for the others); empty where none is known.
declare -A last_secs=()
secs_of() {
	local p=${1%%.*}
	echo "${last_secs["${files[${1#*.}]}${p/#shared/}"]:-}"
}

# progress WHAT K N P.N [ITEM...]: a line as part P of file N begins, the
# Kth of N of WHAT: how long it took in the last make check here, and how
# long it and the ITEMs after it took then, so that a long part says where
# it is.
progress() {
	local what=$1 k=$2 n=$3 item=$4 own left=0 untimed=0 s
	shift 3
	own=$(secs_of "$item")
	for s in "$@"; do
		s=$(secs_of "$s")
		if [ -n "$s" ]; then left=$((left + s)); else untimed=$((untimed + 1)); fi
	done
	if [ "$untimed" -eq $# ]; then
		s="no time of these known yet"
	else
		s="${own:+$own s last time; }about $left s of $what left"
		[ "$untimed" -eq 0 ] || s="$s, and $untimed part(s) not yet timed"
	fi
	echo "# $what, $k of $n: ${files[${item#*.}]} ($s)"
}

# run_part J ITEM...: the ITEMs, J at once, each in a shell of its own: P.N,
# part P of file N; or meter, the meter's part of every file in metered,
# one after another (the meter is one at a time: a file of the meter's that
# waited for it beside the others kept a place from them, and the part took
# 69 to 75 s here, where it now takes 64 s).
run_part() {
	local at_once=$1 item i k=0 n
	shift
	n=$#
	for item in "$@"; do
		[ "${#running[@]}" -lt "$at_once" ] || finish
		k=$((k + 1))
		if [ "$item" = meter ]; then
			(
				j=0
				for i in "${metered[@]}"; do
					j=$((j + 1))
					progress "the meter's tests" "$j" "${#metered[@]}" $(printf 'meter.%s ' "${metered[@]:j-1}")
					run "meter.$i"
				done
				: >"$work/meter.rc"
			) &
		else
			[ "$at_once" -gt 1 ] || progress "the tests alone" "$k" "$n" "${@:k}"
			run "$item" &
		fi
		running[$!]=$item
	done
	while [ "${#running[@]}" -gt 0 ]; do
		finish
	done
}

# Two parts. First the tests that need the host to themselves, one file
# after another: each file's at once, not one at a time between the others,
# where each would wait for every test running to end first (with 80 such
# tests, that waiting took a fifth of make check). Then the rest, side by
# side, the longest first, so that none starts last: the longest by the
# seconds its part took in the last make check here (TIMES,
# build/check-times), else by its lines (a new file, a fresh tree). By
# lines alone, two files of 16 s and 9 s, of 62 and 44 lines, started
# last, 45 s in, and the part ended 7 s after the meter's turn did.
declare -A running=()
TIMES=${ZC_CHECK_TIMES:-build/check-times}
if [ -r "$TIMES" ]; then
	while read -r t_secs t_file t_part; do
		last_secs["$t_file$t_part"]=$t_secs
	done <"$TIMES"
fi
order=$(for i in "${!files[@]}"; do echo "$i $(wc -l <"${files[$i]}") ${files[$i]}"; done |
	awk -v times="$TIMES" 'BEGIN { while ((getline l <times) > 0) { if (split(l, w, " ") == 2) secs[w[2]] = w[1] } }
		{ print secs[$3] + 0, $2, $1 }' |
	sort -k1,1rn -k2,2rn | awk '{ print $3 }')
alone=()
metered=()
shared=()
for i in $order; do
	parts=$(bash "${files[$i]}" --parts 2>/dev/null)
	case "$parts" in *alone*) alone+=("alone.$i") ;; esac
	case "$parts" in *meter*) metered+=("$i") ;; esac
	shared+=("shared.$i")
done
began=$SECONDS
run_part 1 "${alone[@]}"
alone_secs=$((SECONDS - began))
run_part "$jobs" ${metered[0]:+meter} "${shared[@]}"
# Where make check's time went, for whoever makes it longer or shorter.
[ "${#files[@]}" -eq 0 ] ||
	echo "# the tests alone took $alone_secs s; the rest, side by side with the meter's, $((SECONDS - began - alone_secs)) s"
# A file that reports no test in any part, and died in none, fails.
for i in "${!files[@]}"; do
	cat "$work"/{alone,meter,shared}."$i".rc 2>/dev/null | grep -qv '^0$' && continue
	cat "$work"/{alone,meter,shared}."$i".out 2>/dev/null | grep -q -E '^(ok|FAIL|skip) ' ||
		echo "FAIL ${files[$i]}: ran no tests" | tee -a "$log"
done
# Each file's part side by side, in seconds, for the next run's order (the
# files not run this time keep theirs).
if [ "$jobs" -gt 1 ] && mkdir -p "$(dirname "$TIMES")" 2>/dev/null; then
	for i in "${!files[@]}"; do
		[ ! -s "$work/shared.$i.secs" ] || echo "$(cat "$work/shared.$i.secs") ${files[$i]}"
		for p in alone meter; do
			[ ! -s "$work/$p.$i.secs" ] || echo "$(cat "$work/$p.$i.secs") ${files[$i]} $p"
		done
	done >"$work/times"
	[ -e "$TIMES" ] || : >"$TIMES"
	awk 'NR == FNR { ran[$2 " " $3] = 1; print; next } !(($2 " " $3) in ran)' "$work/times" "$TIMES" >"$TIMES.new" &&
		mv "$TIMES.new" "$TIMES"
fi

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^skip ' "$log")
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ]
