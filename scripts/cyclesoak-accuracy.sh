#!/bin/bash
# How far cyclesoak's reading is from a known load, and whether the soakers
# take CPU from that load. Calibrates, then injects 0, 25, 50 and 100% of one
# CPU with tests/loadgen (in a session of its own, as a workload started from
# another terminal would be) and prints, for each, the injected system load,
# cyclesoak's reading, the error in percentage points and the share of its
# target CPU time the load got.
#
# usage: scripts/cyclesoak-accuracy.sh [-p secs]   (sample period, default 5)
# Run it on an otherwise idle machine.
set -eu

period=5
while getopts "p:" opt; do
	case "$opt" in
	p) period=$OPTARG ;;
	*) echo "usage: $0 [-p secs]" >&2; exit 2 ;;
	esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$root" cyclesoak build/tests/loadgen
work=$(mktemp -d)
loadgen_pid=
cleanup() {
	[ -n "$loadgen_pid" ] && kill "$loadgen_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

cpus=$(taskset -pc $$ | sed 's/.*: //')
ncpus=$(nproc)
first_cpu=${cpus%%[-,]*}
echo "# $(date -u '+%Y-%m-%d'), $(uname -sr), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $ncpus CPUs"
echo "# cyclesoak -C; then per row: loadgen -c $first_cpu -f LOAD in its own session, cyclesoak -1 -p $period"
(cd "$work" && "$root/cyclesoak" -C | tail -n 1 | sed 's/^/# /')

printf '%-14s %-14s %-10s %-10s %s\n' "one CPU" "injected" "measured" "error" "load got"
for load in 0 25 50 100; do
	setsid "$root/build/tests/loadgen" -c "$first_cpu" -f "$load" -t $((2 * period + 2)) >"$work/loadgen" &
	loadgen_pid=$!
	sleep 0.5
	measured=$(cd "$work" && "$root/cyclesoak" -1 -p "$period")
	timeout $((2 * period + 10)) tail --pid="$loadgen_pid" -f /dev/null
	loadgen_pid=
	got=$(sed 's/.*(\(.*\)% of target)/\1/' "$work/loadgen")
	awk -v l="$load" -v n="$ncpus" -v m="$measured" -v g="$got" 'BEGIN {
		inj = l / n
		printf "%-14s %-14s %-10s %-10s %s\n", l "%", sprintf("%.1f%%", inj),
			m "%", sprintf("%+.1f", m - inj), g "% of target"
	}'
done
