#!/bin/bash
# How far cyclesoak's reading is from a known load, and whether the soakers
# take CPU from that load. Calibrates, then injects 0, 25, 50 and 100% of one
# CPU with tests/loadgen (in a session of its own, as a workload started from
# another terminal would be) and prints, for each, the system load injected
# (what loadgen got, over all CPUs), cyclesoak's reading, the error in
# percentage points and the share of its target CPU time the load got: a
# soaker that takes CPU from the load shows there, not as an error. Beside
# them, the kernel's view of the same sample (cyclesoak -k): the injected load
# plus whatever else the machine was doing, and the reading's difference from
# it, which is the meter's own error.
#
# usage: scripts/cyclesoak-accuracy.sh [-c secs] [-p secs]
#   -c  the calibration's period (cyclesoak -C -p; default 3)
#   -p  the sample's period (cyclesoak -1 -p; default 10)
# Run it on an otherwise idle machine.
set -eu

cal_period=3
period=10
while getopts "c:p:" opt; do
	case "$opt" in
	c) cal_period=$OPTARG ;;
	p) period=$OPTARG ;;
	*) echo "usage: $0 [-c secs] [-p secs]" >&2; exit 2 ;;
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

. "$root/scripts/bench-lib.sh"
first_cpu=$(affinity_cpus | head -n 1)
bench_host_line
echo "# cyclesoak -C -p $cal_period; then per row: loadgen -c $first_cpu -f LOAD in its own session, cyclesoak -1 -k -p $period"
(cd "$work" && "$root/cyclesoak" -C -p "$cal_period" | tail -n 1 | sed 's/^/# /')

printf '%-9s %-10s %-10s %-8s %-9s %-11s %s\n' "one CPU" "injected" "measured" "error" "kernel" "vs kernel" "load got"
for load in 0 25 50 100; do
	setsid "$root/build/tests/loadgen" -c "$first_cpu" -f "$load" -t $((2 * period + 2)) >"$work/loadgen" &
	loadgen_pid=$!
	sleep 0.5
	read -r measured kernel < <(cd "$work" && "$root/cyclesoak" -1 -k -p "$period" 2>/dev/null)
	timeout $((2 * period + 10)) tail --pid="$loadgen_pid" -f /dev/null
	loadgen_pid=
	got=$(sed 's/.*(\([0-9.]*\)% of target).*/\1/' "$work/loadgen")
	awk -v l="$load" -v n="$ncpus" -v m="$measured" -v k="$kernel" -v g="$got" 'BEGIN {
		inj = l * g / 100 / n
		printf "%-9s %-10s %-10s %-8s %-9s %-11s %s\n", l "%", sprintf("%.1f%%", inj),
			m "%", sprintf("%+.1f", m - inj), k "%", sprintf("%+.1f", m - k), g "% of target"
	}'
done
