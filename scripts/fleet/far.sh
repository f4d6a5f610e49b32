#!/bin/sh
# zc-fleet's far end: what runs on each host, in zc's directory there (the
# current one), shipped by zc-fleet into .zc-fleet/far.sh at the start of
# every run; its arguments are arguments, never shell text.
#
#   far.sh preflight HOST [install]  zc found, what an earlier run left for
#                                    HOST stopped, the files to send made;
#                                    last, "boot ID cpus N"
#   far.sh calibrate MS              cyclesoak -C -m MS, unless calibrated
#   far.sh clock                     a line in, this host's time out, until
#                                    stdin ends
#   far.sh session HOST ROLE ARGS... ROLE as this session's process group:
#       meter                        cyclesoak -J -m 500, each line stamped
#       zcs PORT                     zcs -d -t 1 -p PORT, each line stamped
#       zcc AT SECS ADDRESS [OPT...] at AT (this host's clock), zcc -J -t
#                                    SECS -s ADDRESS OPT... the files
#     on record in .zc-fleet/pids-HOST with its start time, and stopped
#     whole when stdin ends, the session is lost (HUP), or on INT or TERM.
set -u

# stat_field PID N: field N of /proc/PID/stat, read after the command's
# name (which may hold spaces or parentheses).
stat_field() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk -v n="$2" '{ print $(n - 2) }'
}

# Each line its host's time first (seconds since the epoch), as it comes.
stamp() {
	while IFS= read -r l; do echo "$(date +%s.%N) $l"; done
}

preflight() {
	host=$1
	for p in zcc zcs cyclesoak; do
		[ -x "./$p" ] || { echo "no ./$p in '$PWD' (build zc there: make)"; exit 4; }
	done
	[ -r counts_per_sec ] || [ "${2:-}" = install ] ||
		{ echo "no calibration in '$PWD' (cyclesoak -C there, while the host is idle; or zc-fleet --install)"; exit 5; }
	mkdir -p .zc-fleet/files
	# "PGID STARTTIME" lines: a group whose leader still has that start time is ours.
	if [ -r ".zc-fleet/pids-$host" ]; then
		while read -r pid start; do
			[ "$(stat_field "$pid" 22)" = "$start" ] && kill -- "-$pid" 2>/dev/null && echo "stopped $pid"
		done <".zc-fleet/pids-$host"
		: >".zc-fleet/pids-$host"
	fi
	i=1
	while [ $i -le 60 ]; do
		[ -s .zc-fleet/files/f$i ] || head -c $((300000 + i * 1693 % 100000)) /dev/urandom >.zc-fleet/files/f$i
		i=$((i + 1))
	done
	echo "boot $(cat /proc/sys/kernel/random/boot_id) cpus $(nproc)"
}

role() {
	case "$1" in
	meter) ./cyclesoak -J -m 500 2>&1 | stamp ;;
	zcs) ./zcs -d -t 1 -p "$2" 2>&1 | stamp ;;
	zcc)
		at=$2 secs=$3 address=$4
		shift 4
		sleep "$(awk -v at="$at" -v now="$(date +%s.%N)" 'BEGIN { d = at - now; print (d > 0 ? d : 0) }')"
		echo "start $(date +%s.%N)" >&2
		./zcc -J -t "$secs" -s "$address" "$@" .zc-fleet/files/*
		;;
	*) echo "far.sh: no role '$1'" >&2; exit 2 ;;
	esac
}

session() {
	host=$1
	shift
	g=$(stat_field $$ 5)
	echo "$g $(stat_field "$g" 22)" >>".zc-fleet/pids-$host"
	trap 'trap - INT TERM HUP; kill 0' INT TERM HUP
	role "$@" &
	p=$!
	exec 3<&0
	{ cat <&3 >/dev/null 2>&1; kill $$; } &
	w=$!
	wait $p
	r=$?
	kill $w 2>/dev/null
	exit $r
}

case "${1:-}" in
preflight) shift; preflight "$@" ;;
calibrate)
	if [ -r counts_per_sec ]; then echo present; else ./cyclesoak -C -m "$2" 2>&1; fi
	;;
clock) while read -r x; do date +%s.%N; done ;;
session) shift; session "$@" ;;
*) echo "usage: far.sh preflight|calibrate|clock|session ..." >&2; exit 2 ;;
esac
