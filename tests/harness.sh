# The end-to-end tests' harness. A test file defines functions named test_*
# and ends with `run_tests "$@"`. Each test runs in a fresh bash under a time
# limit, with set -eu, its own temporary directory in $T, and every process it
# started (and told `started` of) killed by PID when it ends.
#
# A test passes by returning 0, fails with `fail "why"` (or any failing
# command), and skips with `skip "why"`.

TEST_TIMEOUT=${TEST_TIMEOUT:-90}
PIDS=()
NETNS=()

fail() {
	echo "# $*" >&2
	exit 1
}

skip() {
	echo "# skip: $*" >&2
	exit 77
}

# Remember a PID to kill when the test ends.
started() {
	PIDS+=("$1")
}

cleanup() {
	local pid kid ns
	for pid in "${PIDS[@]}"; do
		# A zcs's children are its own connection servers: stop them too.
		for kid in $(pgrep -P "$pid" 2>/dev/null); do
			kill -9 "$kid" 2>/dev/null || true
		done
		kill -9 "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	# Namespaces the test made (two_hosts), once nothing runs in them.
	for ns in "${NETNS[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	rm -rf "$T"
}

# session_running SID: what still runs in session SID, a process a line
# (pid, state, command). A zombie has ended: an orphan's waits for PID 1 to
# reap it, which here takes a second or two.
session_running() {
	ps -o pid=,stat=,args= -s "$1" | awk '$2 !~ /^Z/'
}

# wait_until SECS COMMAND...: poll until COMMAND succeeds; 1 on timeout. Every
# 10 ms for the first 100 ms, where most waits end (a zcs starting, a
# summary written), then every 50 ms, so that a long wait stays light.
wait_until() {
	local deadline=$((SECONDS + $1)) polls=0
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		polls=$((polls + 1))
		if [ "$polls" -le 10 ]; then sleep 0.01; else sleep 0.05; fi
	done
}

expect_eq() {
	[ "$1" = "$2" ] || fail "${3:-value}: got '$1', expected '$2'"
}

expect_match() {
	printf '%s\n' "$1" | grep -Eq -- "$2" || fail "${3:-output} '$1' does not match /$2/"
}

# What in a test's code, or in any function it calls, makes it need the
# host to itself (ALONE_WORDS): a figure judged against a known one
# (quiet_or_skip, a known load, runs_alone, the scripts that prove the
# meter, small-writes's packets); zcc's and zcs's -c and zc-matrix, whose
# tare needs idle time (on a host kept busy for the whole tare, the meter
# has no idle rate, and the run ends); a calibration (cyclesoak's, zcc's
# or zcs's -C, own_calibration, zc-settings, which makes one where it
# finds none), which needs the CPU time no one else takes; or a setting
# every process on the host sees (a write to /proc/sys). Under
# tests/run.sh's files side by side, such a test runs alone.
ALONE_WORDS='quiet_or_skip|runs_alone|own_calibration|calibrate_here [^;&|]|/loadgen"|>[[:space:]]*/proc/sys/|(^[[:space:]]*|[;&|(][[:space:]]*|bash )"?\$ROOT/scripts/(zc-matrix|zc-settings|known-change|known-difference|observer-effect|meter-gap|small-writes)|(/cyclesoak"|/zcc"|/zcs"|start_zcs|start_streams)[^|;&]* -[cC]( |;|$)'

# calibrate_here calibrates only when given arguments under make check.
ALONE_OPAQUE=calibrate_here

# What makes a test one of the meter's (METER_WORDS): cyclesoak, the
# fleet (whose meters are cyclesoak's, with no tare) and meter-scale
# (whose soakers are a meter's, cyclesoak -H holding the host's meter). The meter is one at a
# time on the host: such a test takes the meter's turn, one at a time, and
# shares the host with the tests that have no meter. It judges what the
# meter prints, not how much, against make check's calibration.
# (compare-iperf3, which has no meter and judges no rate, shares the host
# as the other transfers at full speed do: in the meter's turn its 9 s
# were 9 s of the turn's 65.)
METER_WORDS='(^[[:space:]]*|[;&|(][[:space:]]*)calibrate_here([[:space:];]|$)|/cyclesoak"|start_cyclesoak|(^[[:space:]]*|[;&|(][[:space:]]*|bash )"?\$ROOT/scripts/(zc-fleet|meter-scale)'

# tests_saying WORDS [OPAQUE]: the tests of this file whose code says one
# of WORDS (an extended regular expression), or calls a function that
# does, however deep; a name a line. A call of the function OPAQUE counts
# only as WORDS say it (calibrate_here calibrates only when given
# arguments under make check).
tests_saying() {
	declare -f | awk -v words="$1" -v opaque="${2:-}" '
		/^[a-zA-Z_][a-zA-Z0-9_]* \(\) $/ { name = $1; next }
		/^}$/ { name = ""; next }
		name != "" && name != opaque { body[name] = body[name] "\n" $0; if ($0 ~ words) alone[name] = 1 }
		END {
			do {
				changed = 0
				for (f in body)
					if (!(f in alone))
						for (g in alone)
							if (body[f] ~ ("(^|[^a-zA-Z0-9_])" g "([^a-zA-Z0-9_]|$)")) {
								alone[f] = 1
								changed = 1
								break
							}
			} while (changed)
			for (f in alone)
				if (f ~ /^test_/)
					print f
		}' | sort
}

# alone_tests: the tests of this file that need the host to themselves;
# not one that says starts_no_meter (a zc-matrix that ends at its options),
# unless it needs the host for another reason than a meter (HOST_WORDS).
NO_METER_WORDS='(^|[;&|([:space:]])starts_no_meter([[:space:];]|$)'
HOST_WORDS='quiet_or_skip|runs_alone|/loadgen"|>[[:space:]]*/proc/sys/'
alone_tests() {
	{
		comm -23 <(tests_saying "$ALONE_WORDS" "$ALONE_OPAQUE") <(tests_saying "$NO_METER_WORDS")
		tests_saying "$HOST_WORDS" "$ALONE_OPAQUE"
	} | sort -u
}

# meter_tests [ALONE]: those that take the meter's turn and share the host
# (but for those that say starts_no_meter); ALONE, alone_tests's lines
# where the caller has them already.
meter_tests() {
	comm -23 <(tests_saying "$METER_WORDS") <({ if [ $# -gt 0 ]; then printf '%s\n' "$1"; else alone_tests; fi
		tests_saying "$NO_METER_WORDS"; } | sed '/^$/d' | sort -u)
}

# enter_room NAME [alone]: with ZC_CHECK_ROOM (tests/run.sh's lock file), wait for
# the host: the whole of it for a test in $ALONE (or where asked), a share otherwise, and
# for a test in $METERED the meter's turn first (ZC_CHECK_ROOM.meter,
# taken while holding nothing else). The gate in front, held only while
# taking the room, keeps a test that waits for the whole host from being
# passed for ever by those that share it. Every holder is a test under
# TEST_TIMEOUT, so the wait ends; ROOM_WAIT (1800 s) bounds it all the
# same: 1 if it ran out.
ROOM_WAIT=${ROOM_WAIT:-1800}
enter_room() {
	[ -n "${ZC_CHECK_ROOM:-}" ] || return 0
	local how=-s
	case "$ALONE" in *" $1 "*) how=-x ;; esac
	[ "${2:-}" != alone ] || how=-x
	METER_FD=
	case "$METERED" in *" $1 "*)
		exec {METER_FD}>>"$ZC_CHECK_ROOM.meter"
		if ! flock -x -w "$ROOM_WAIT" "$METER_FD"; then
			exec {METER_FD}>&-
			return 1
		fi
		;;
	esac
	exec {GATE_FD}>>"$ZC_CHECK_ROOM.gate" {ROOM_FD}>>"$ZC_CHECK_ROOM"
	if ! flock -w "$ROOM_WAIT" "$GATE_FD" || ! flock "$how" -w "$ROOM_WAIT" "$ROOM_FD"; then
		exec {GATE_FD}>&- {ROOM_FD}>&-
		leave_meter
		return 1
	fi
	exec {GATE_FD}>&-
}

leave_meter() {
	[ -z "${METER_FD:-}" ] || exec {METER_FD}>&-
	METER_FD=
}

CLK_TCK=$(getconf CLK_TCK)

# host_cpu_ms: the host's CPU time since boot, in ms over all its CPUs:
# "BUSY ALL", busy with a hypervisor's steal (time the host had not).
host_cpu_ms() {
	awk -v hz="$CLK_TCK" '/^cpu / {
		busy = $2 + $3 + $4 + $7 + $8 + $9
		printf "%d %d\n", busy * 1000 / hz, (busy + $5 + $6) * 1000 / hz
	}' /proc/stat
}

# own_cpu_ms: OWN_MS, the CPU time of this shell's children that were
# waited for, and of theirs, in ms (its cutime and cstime); in this shell,
# not a subshell, whose children are its own.
own_cpu_ms() {
	local f
	read -r -a f <"/proc/$BASHPID/stat"
	OWN_MS=$(((f[15] + f[16]) * 1000 / CLK_TCK))
}

# A test that times out while other tasks have this share of the host's
# CPUs or more (in %) met a busy host, and skips, saying so (ZC_BUSY_PCT).
BUSY_PCT=${ZC_BUSY_PCT:-25}

# others_pct "BUSY ALL" OWN0 OWN1: the share of the host's CPUs (%) other
# tasks than this shell's children had since host_cpu_ms said BUSY ALL,
# their own time OWN1 - OWN0 (own_cpu_ms's).
others_pct() {
	local busy0 all0 busy1 all1
	read -r busy0 all0 <<<"$1"
	read -r busy1 all1 <<<"$(host_cpu_ms)"
	awk -v b="$((busy1 - busy0 - ($3 - $2)))" -v a="$((all1 - all0))" \
		'BEGIN { p = a > 0 ? 100 * b / a : 0; printf "%d\n", p < 0 ? 0 : p }'
}

leave_room() {
	[ -z "${ZC_CHECK_ROOM:-}" ] || exec {ROOM_FD}>&-
	leave_meter
}

# run_one NAME [alone]: the test NAME in the room (enter_room's), its
# output in out and its exit status in rc, and the host's CPU time and its
# own as it began in host and own (others_pct's); 1, said, where the room
# was not had.
run_one() {
	if ! enter_room "$@"; then
		echo "FAIL $(basename "$0"): $1: waited $ROOM_WAIT s in vain for the host (tests/run.sh's room)"
		return 1
	fi
	host=$(host_cpu_ms)
	own_cpu_ms
	own=$OWN_MS
	# The test does not hold the room or the meter's turn (its subshell
	# closes them; this shell keeps them): what it leaves running cannot keep them.
	out=$(leave_room; timeout -k 5 "$TEST_TIMEOUT" bash "$0" --one "$1" 2>&1)
	rc=$?
	leave_room
	return 0
}

run_tests() {
	local name rc reason began part asked host own others
	# --alone, --meter: the tests that would run alone, or take the meter's
	# turn; --parts: "alone" and "meter" where the file has such tests, a
	# line each; and nothing run.
	if [ "${1:-}" = "--alone" ]; then
		alone_tests
		return
	fi
	if [ "${1:-}" = "--meter" ]; then
		meter_tests
		return
	fi
	if [ "${1:-}" = "--parts" ]; then
		asked=$(alone_tests)
		[ -z "$asked" ] || echo alone
		[ -z "$(meter_tests "$asked")" ] || echo meter
		return
	fi
	if [ "${1:-}" = "--one" ]; then
		set -eu
		T=$(mktemp -d)
		trap cleanup EXIT
		trap 'exit 143' TERM
		# A file's before_each, where it has one, sets up each of its tests.
		! declare -F before_each >/dev/null || before_each
		"$2"
		return
	fi
	# tests/run.sh's parts: ZC_CHECK_PART=alone, the tests alone; =meter,
	# the meter's; =shared, the rest. Not the tests' to see (t_harness runs
	# files of its own).
	asked=${ZC_CHECK_PART:-}
	unset ZC_CHECK_PART
	ALONE=$(alone_tests)
	METERED=" $(meter_tests "$ALONE" | tr '\n' ' ') "
	ALONE=" $(tr '\n' ' ' <<<"$ALONE") "
	for name in $(declare -F | awk '$3 ~ /^test_/ { print $3 }'); do
		case "$ALONE" in *" $name "*) part=alone ;; *) case "$METERED" in *" $name "*) part=meter ;; *) part=shared ;; esac ;; esac
		[ -z "$asked" ] || [ "$asked" = "$part" ] || continue
		began=$SECONDS
		run_one "$name" || continue
		# A test that timed out beside others (tests/run.sh's shared part) runs
		# once more with the host to itself; then, where other tasks than it
		# had BUSY_PCT of the host, it met a busy host, and skips.
		if { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && [ "$part" != alone ] && [ -n "${ZC_CHECK_ROOM:-}" ]; then
			echo "# $(basename "$0"): $name timed out after ${TEST_TIMEOUT}s beside other tests: once more, alone"
			run_one "$name" alone || continue
		fi
		# The CPU time of the test's processes, now they are waited for (OWN_MS).
		own_cpu_ms
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			others=$(others_pct "$host" "$own" "$OWN_MS")
			if [ "$others" -ge "$BUSY_PCT" ]; then
				rc=77
				out="# skip: the host was busy: other tasks had $others% of its CPUs while it ran, and it timed out after ${TEST_TIMEOUT}s"
			else
				out="$out
# other tasks had $others% of the host's CPUs while it ran"
			fi
		fi
		# TEST_TIMES=FILE: each test's seconds, and the CPU time its processes
		# took in ms (those waited for), to find what makes make check slow:
		# the tests alone by their seconds, the rest, which keep the host's
		# CPUs busy, by their CPU.
		[ -z "${TEST_TIMES:-}" ] || echo "$((SECONDS - began)) $(basename "$0") $name $((OWN_MS - own))" >>"$TEST_TIMES"
		# A meter that waited ZC_METER_WAIT for another on the host in vain: not a failure.
		if [ "$rc" != 0 ] && [ "$rc" != 77 ] && printf '%s\n' "$out" | grep -q 'for it: ZC_METER_WAIT)'; then
			rc=77
			out="# skip: the host's meter stayed busy: $(printf '%s\n' "$out" | grep -o 'another meter is running on this host: [^;]*' | head -n 1)"
		fi
		case "$rc" in
		0) echo "ok $(basename "$0"): $name" ;;
		77)
			reason=$(printf '%s\n' "$out" | grep '^# skip: ' | tail -n 1)
			echo "skip $(basename "$0"): $name: ${reason#\# skip: }"
			;;
		124 | 137) printf 'FAIL %s: %s: timed out after %ss\n%s\n' "$(basename "$0")" "$name" \
			"$TEST_TIMEOUT" "$(printf '%s\n' "$out" | sed 's/^/#   /')" ;;
		*) printf 'FAIL %s: %s (exit %s)\n%s\n' "$(basename "$0")" "$name" "$rc" \
			"$(printf '%s\n' "$out" | sed 's/^/#   /')" ;;
		esac
	done
}
