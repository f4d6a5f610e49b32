# Shared by the end-to-end tests: the harness (tests/harness.sh), and the
# helpers that start zcs and the capture peer, build files and streams
# independently of zc, and check zcc's and zcs's output and failures.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# random_port, free_port, affinity_cpus and encode_stream come from the
# benchmarks' library (which sourced alone only defines functions).
. "$ROOT/scripts/bench-lib.sh"
. "$ROOT/tests/harness.sh"
. "$ROOT/scripts/netns.sh"
HELPERS="$ROOT/build/tests"

# send_modes [-u] and recv_modes [-u]: zcc's and zcs's modes (or -u's), one
# a line, as the programs list them: a mode is tested the moment it is a row.
send_modes() {
	"$ROOT/zcc" "$@" -m '?'
}
recv_modes() {
	"$ROOT/zcs" "$@" -m '?'
}

# start_zcs [ARGS...]: start zcs -d on a free port; sets ZCS_PID, PORT, and
# $T/zcs.out and $T/zcs.err for its stdout and stderr. With ZCS_NETNS set,
# zcs runs in that network namespace (ip netns exec).
start_zcs() {
	local try
	for try in $(seq 1 20); do
		PORT=$(random_port)
		# Emptied here, not by the background redirection: a zcs started
		# again in the same test must not be taken for listening on the
		# line its predecessor left (zcc then met a refused connection).
		: >"$T/zcs.out" >"$T/zcs.err"
		# In $T, where zcs -c reads counts_per_sec.
		if [ -n "${ZCS_NETNS:-}" ]; then
			(cd "$T" && exec ip netns exec "$ZCS_NETNS" "$ROOT/zcs" -d -p "$PORT" "$@") >>"$T/zcs.out" 2>>"$T/zcs.err" &
		else
			(cd "$T" && exec "$ROOT/zcs" -d -p "$PORT" "$@") >>"$T/zcs.out" 2>>"$T/zcs.err" &
		fi
		ZCS_PID=$!
		started "$ZCS_PID"
		wait_until 5 eval 'grep -q -e "listening on" -e "in use" "$T/zcs.err" || all_dead '"$ZCS_PID" || true
		grep -q "listening on" "$T/zcs.err" && return 0
		kill -9 "$ZCS_PID" 2>/dev/null || true
		wait "$ZCS_PID" 2>/dev/null || true
		# Only a port in use is worth another try.
		grep -q "in use" "$T/zcs.err" || break
	done
	fail "zcs did not start: $(cat "$T/zcs.err")"
}

# stop_pid PID: SIGTERM, and the process waited for (5 s, then SIGKILL).
stop_pid() {
	kill "$1" 2>/dev/null || true
	wait_until 5 eval '! kill -0 '"$1"' 2>/dev/null' || kill -9 "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# chunks BUFSIZE LOOPS FILE...: how many chunks of BUFSIZE the files make, LOOPS times.
chunks() {
	local b=$1 loops=$2 n=0 f size
	shift 2
	for f in "$@"; do
		size=$(stat -c %s "$f")
		n=$((n + (size + b - 1) / b))
	done
	echo $((n * loops))
}

# start_capture [CAPTURE_ARGS...] OUTFILE: the capture peer, started and
# listening on the port it chose; sets CAPTURE_PID and CAPTURE_PORT.
start_capture() {
	rm -f "$T/port"
	"$HELPERS/capture" "$@" >"$T/port" &
	CAPTURE_PID=$!
	started "$CAPTURE_PID"
	wait_until 5 test -s "$T/port" || fail "capture did not start"
	CAPTURE_PORT=$(cat "$T/port")
}

# await_capture: until the capture peer has taken the whole stream and gone.
await_capture() {
	wait_until 5 eval '! kill -0 '"$CAPTURE_PID"' 2>/dev/null' || fail "capture did not finish"
}

# stream_matches_encoding LOOPS DIR ZCC_ARGS...: zcc -n LOOPS ZCC_ARGS DIR/* to
# the capture peer, which shares no code with zc; the bytes on the wire must be
# the stream built here by printf and cat (kept in DIR.stream), which pins the
# layout the 2001 zcs expects independently of lib/proto. CAPTURE_ARGS go to
# capture, and ZCC_WRAP (e.g. strace) runs zcc.
stream_matches_encoding() {
	local loops=$1 dir=$2
	shift 2
	start_capture ${CAPTURE_ARGS:-} "$T/wire"
	${ZCC_WRAP:-} "$ROOT/zcc" -n "$loops" -p "$CAPTURE_PORT" -s 127.0.0.1 "$@" "$dir"/* >"$T/out" ||
		fail "zcc $* exited $?: $(cat "$T/out")"
	await_capture
	[ -s "$dir.stream.$loops" ] || encode_stream "$loops" "$dir"/* >"$dir.stream.$loops"
	cmp "$dir.stream.$loops" "$T/wire" >"$T/cmp" 2>&1 ||
		fail "zcc $*: the stream differs from the independent encoding: $(cat "$T/cmp")"
	rm -f "$T/wire"
}

# check_stream_matches_independent_encoding ZCC_ARGS...: stream_matches_encoding
# over make_files's set, twice over.
check_stream_matches_independent_encoding() {
	make_files "$T/f"
	stream_matches_encoding 2 "$T/f" "$@"
}

# uring_refused MODE: this kernel refuses MODE (an io_uring one), and why, on stdout.
uring_refused() {
	local err
	case "$1" in uring*) ;; *) return 1 ;; esac
	err=$("$ROOT/zcc" -m "$1" -s 127.0.0.1 -p "$(free_port)" /dev/null 2>&1) || true
	case "$err" in *"-m $1: "*) echo "$err" ;; *) return 1 ;; esac
}

# uring_or_skip MODE: skip when this kernel refuses io_uring, saying why.
uring_or_skip() {
	local why
	! why=$(uring_refused "$1") || skip "$why"
}

# stream_bytes LOOPS FILE...: how many bytes that stream has.
stream_bytes() {
	local loops=$1 per_loop=4 f
	shift
	for f in "$@"; do
		per_loop=$((per_loop + 4 + $(stat -c %s "$f")))
	done
	echo $((4 + loops * per_loop))
}

# make_files DIR: a small set with awkward sizes: empty, one byte, around a page,
# and just past 64 KiB (the 2001 chunk) and 1 MiB (the default chunk), with
# random contents.
make_files() {
	mkdir -p "$1"
	: >"$1/empty"
	head -c 1 /dev/urandom >"$1/one"
	head -c 4095 /dev/urandom >"$1/page-1"
	head -c 4097 /dev/urandom >"$1/page+1"
	head -c 65537 /dev/urandom >"$1/buf+1"
	head -c 358400 /dev/urandom >"$1/350k"
	head -c 1048577 /dev/urandom >"$1/mib+1"
}

# The end of every zcc and zcs summary: that process's user and system CPU seconds.
CPU_TIMES=', cpu [0-9]+\.[0-9]{2}u [0-9]+\.[0-9]{2}s'
# With -c, what loopback counted: lo has no interrupts, so softirqs.
LO_LINK=', lo: rx [0-9]+ pps, tx [0-9]+ pps, 0 ints/s \(softirqs [0-9]+/s\)'

# With a meter, after the summary: the busiest CPU and what the kernel
# counted on it; and, where a hypervisor took more than 1%, the steal's line.
BUSIEST_LINE='^busiest CPU [0-9]+: load -?[0-9]+\.[0-9]% \(kernel: (unknown|[a-z]+ [0-9]+%(, [a-z]+ [0-9]+%)*)\)$'
STEAL_LINE='^steal: a hypervisor took [0-9]+\.[0-9]% of the metered CPUs. time \(more than 1%\): it ran no task of this host.s, and the load counts it$'
# With a meter or -I, the run's last line: what limited the flow at this end.
LIMIT_LINE='^limited by: (CPU [0-9]+ at its ceiling here, at the (sender|receiver) \([0-9]+\.[0-9]% busy(; most of it (the program|softirq|another task).s, [0-9]+%)?\)|the receiver.s window \([0-9]+% of the busy time\)|the send buffer \([0-9]+% of the busy time\)|the pace asked \(-R\), which it reached|nothing found \(.*\))$'

# With a meter of two CPUs or more, the turns' lines of each CPU: each arm's
# load on each, and each comparison on each.
ARM_CPUS_LINE='^(receiver: )?arm [^ ]+ on each CPU: CPU [0-9]+ (-?[0-9]+\.[0-9]%|-)(, CPU [0-9]+ (-?[0-9]+\.[0-9]%|-))*$'
CPU_CMP='([-+][0-9]+\.[0-9]{2} points on CPU [0-9]+ \[[-+][0-9]+\.[0-9]{2}, [-+][0-9]+\.[0-9]{2}\]|CPU [0-9]+ the same within \+-[0-9]+\.[0-9]{2}|CPU [0-9]+ not resolved \([-+][0-9]+\.[0-9]{2} \[[-+][0-9]+\.[0-9]{2}, [-+][0-9]+\.[0-9]{2}\]\))'
CMP_CPUS_LINE="^(receiver: )?[^ :]+: $CPU_CMP(; $CPU_CMP)*\$"

# without_cpu_lines: the lines on stdin but the turns' lines of each CPU,
# the busiest CPU's, the steal's and the limit's.
without_cpu_lines() {
	grep -v -E -e "$ARM_CPUS_LINE" -e "$CMP_CPUS_LINE" -e "$BUSIEST_LINE" -e "$STEAL_LINE" \
		-e "$LIMIT_LINE" || true
}

# expect_cpu_lines TEXT ARMS PREFIX: where the meter soaks two CPUs or
# more, TEXT has each of ARMS arms' line of each CPU, and the comparisons'
# (one fewer), each line beginning PREFIX; with one, none.
expect_cpu_lines() {
	local arms=$2 cmps=$(($2 - 1))
	[ "$(allowed_cpus)" -ge 2 ] || { arms=0; cmps=0; }
	expect_eq "$(grep -c -E "$ARM_CPUS_LINE" <<<"$1" | tr -d ' ')" "$arms" "$3arm lines of each CPU: $1"
	expect_eq "$(grep -c -E "$CMP_CPUS_LINE" <<<"$1")" "$cmps" "$3comparisons of each CPU: $1"
	[ "$arms" = 0 ] || expect_eq "$(grep -E -e "$ARM_CPUS_LINE" -e "$CMP_CPUS_LINE" <<<"$1" | grep -c -v "^$3")" 0 "$3lines of each CPU"
}

# field LINE NAME: the number after ", NAME " in a summary line (cpu, kernel).
field() {
	printf '%s\n' "$1" | sed -n "s/.*, $2 \(-\{0,1\}[0-9.]*\)%.*/\1/p"
}

# zcs_summaries: the summary lines zcs has printed so far, text or -J objects.
zcs_summaries() {
	grep -E '^(received |\{)' "$T/zcs.out" || true
}

# wait_summaries N: until zcs has printed N summaries (10 s at most).
wait_summaries() {
	wait_until 10 eval '[ "$(zcs_summaries | wc -l)" -ge '"$1"' ]' ||
		fail "zcs printed $(zcs_summaries | wc -l) summaries, expected $1"
}

# udp_full_buffer_drops: the kernel's count of datagrams it dropped for a
# full receive buffer, this namespace's (/proc/net/snmp's Udp RcvbufErrors).
udp_full_buffer_drops() {
	awk '/^Udp: [A-Z]/ { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") k = i }
		/^Udp: [0-9]/ && k { print $k }' /proc/net/snmp
}

# none_lost_or_skip SUMMARY: where zcs -u's summary (a line, or -J's object)
# counts datagrams lost, and the kernel dropped at least as many for a full
# receive buffer since UDP_DROPS_BEFORE (udp_full_buffer_drops, as the test
# began), zcs could not keep up on a host this busy: the test skips, saying
# so. Any other loss is for the test's own checks to find.
none_lost_or_skip() {
	local lost dropped
	lost=$(printf '%s\n' "$1" | sed -n 's/.* datagrams, \([0-9]*\) lost, .*/\1/p; s/.*"lost":\([0-9]*\),.*/\1/p')
	[ -n "$lost" ] && [ "$lost" -gt 0 ] && [ -n "${UDP_DROPS_BEFORE:-}" ] || return 0
	dropped=$(($(udp_full_buffer_drops) - UDP_DROPS_BEFORE))
	[ "$dropped" -ge "$lost" ] || return 0
	skip "the host was too busy for zcs -u to keep up: it lost $lost datagrams, and the kernel dropped $dropped for a full receive buffer (Udp RcvbufErrors) as the test ran"
}

# usage_error PROG "EXPECTED FIRST LINE" ARGS...: exit 2, that line, then the usage.
usage_error() {
	local prog=$1 want=$2 rc=0
	shift 2
	"$ROOT/$prog" "$@" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 2 "exit code of $prog $*"
	expect_eq "$(head -n 1 "$T/err")" "$want" "error line of $prog $*"
	sed -n 2p "$T/err" | grep -q "^usage: $prog " || fail "$prog $*: no usage after the error"
	[ -s "$T/out" ] && fail "$prog $*: wrote to stdout"
	return 0
}

# A receiver that sleeps 1 ms between reads of a 4 KiB buffer, about 3 MB a
# second: a 4 MiB file takes about 1.4 s to send.
start_slow_capture() {
	start_capture -r 4096 -s 1000 "$T/wire"
	head -c 4194304 /dev/urandom >"$T/file"
}

# check_shrink_is_an_error ZCC_ARGS...: the file shrinks while zcc sends it to a
# slow receiver: exit 1, naming the file and how far it got. It shrinks to
# 3 MiB 0.3 s into a send of about 1.4 s, before zcc gets there.
check_shrink_is_an_error() {
	local rc=0
	start_slow_capture
	"$ROOT/zcc" -o 4096 -s 127.0.0.1 -p "$(cat "$T/port")" "$@" "$T/file" 2>"$T/err" &
	local zcc=$!
	started "$zcc"
	sleep 0.3
	truncate -s 3M "$T/file"
	wait "$zcc" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_match "$(cat "$T/err")" "^zcc: $T/file: shrank while being sent \([0-9]+ of 4194304 bytes\)$"
}

# check_zcs_killed_mid_transfer ZCC_ARGS...: zcs's connection server is killed
# mid-transfer: zcc exits 1 with the count, no SIGPIPE.
check_zcs_killed_mid_transfer() {
	local rc=0 kid
	make_files "$T/f"
	start_zcs
	"$ROOT/zcc" -n 1000000 -s 127.0.0.1 -p "$PORT" "$@" "$T/f/350k" >"$T/out" 2>"$T/err" &
	local zcc=$!
	started "$zcc"
	wait_until 5 pgrep -P "$ZCS_PID" >/dev/null || fail "no connection server appeared"
	sleep 0.3
	kid=$(pgrep -P "$ZCS_PID")
	kill -9 "$kid"
	wait_until 10 eval '! kill -0 '"$zcc"' 2>/dev/null' || fail "zcc still running 10 s after zcs died"
	wait "$zcc" || rc=$?
	expect_eq "$rc" 1 "exit code (141 would be SIGPIPE)"
	expect_match "$(cat "$T/err")" \
		'^zcc: connection (reset after [1-9][0-9]* bytes: Connection reset by peer|closed after [1-9][0-9]* bytes: Broken pipe)$'
	[ -s "$T/out" ] && fail "zcc printed a summary after a failed transfer"
	return 0
}

# check_a_receiver_that_stops_reading ERR_REGEX ZCC_ARGS...: zcs is stopped
# before it accepts, so the stream stalls once the socket buffers are full;
# zcc -W 1 gives up within seconds (each trickle of progress restarts the
# wait) with the count so far, exit 1 and no summary.
check_a_receiver_that_stops_reading() {
	local rc=0 start want=$1
	shift
	make_files "$T/f"
	start_zcs
	kill -STOP "$ZCS_PID"
	start=$SECONDS
	timeout 30 "$ROOT/zcc" -W 1 -n 1000 -p "$PORT" -s 127.0.0.1 "$@" "$T/f/350k" >"$T/out" 2>"$T/err" ||
		rc=$?
	kill -CONT "$ZCS_PID"
	expect_eq "$rc" 1 "exit code (124: still blocked after 30 s): $(cat "$T/err")"
	expect_match "$(cat "$T/err")" "$want"
	[ $((SECONDS - start)) -le 15 ] || fail "took $((SECONDS - start)) s"
	[ -s "$T/out" ] && fail "a summary after a failed transfer"
	return 0
}

# The line zcc ends with when a blocking send queued nothing for -W seconds.
STOPPED_READING='^zcc: zcs took no data for 1 s \(-W\) after [1-9][0-9]* bytes: it has stopped reading$'

# start_streams N [ENV_WRAP...] -- ZCC_ARGS...: make_files and zcs, then zcc
# -P N -n 1000000 ZCC_ARGS of the 350k file in the background (stdout to
# $T/out, stderr to $T/err); returns once zcs serves all N streams and they
# have been sending 0.2 s. Sets ZCC_PID.
start_streams() {
	local n=$1 wrap=()
	shift
	while [ "$1" != -- ]; do
		wrap+=("$1")
		shift
	done
	shift
	make_files "$T/f"
	start_zcs
	"${wrap[@]}" "$ROOT/zcc" -P "$n" -n 1000000 -p "$PORT" -s 127.0.0.1 "$@" "$T/f/350k" \
		>"$T/out" 2>"$T/err" &
	ZCC_PID=$!
	started "$ZCC_PID"
	wait_until 5 eval '[ "$(pgrep -P '"$ZCS_PID"' | wc -l)" = '"$n"' ]' ||
		fail "zcs does not serve $n streams: $(cat "$T/err")"
	sleep 0.2
}

# as_nobody_or_skip: sets AS_NOBODY to the words that run a command as nobody
# (no capabilities), and opens $T to nobody; skips where that cannot be.
as_nobody_or_skip() {
	[ "$(id -u)" = 0 ] || skip "needs root, to run a program as nobody"
	command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
	chmod 755 "$T"
	AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
}

# Zombie children of a PID, as "pid stat" lines.
zombies_of() {
	ps -o pid=,stat= --ppid "$1" | awk '$2 ~ /^Z/' || true
}

# CPUs in this shell's affinity mask: what cyclesoak soaks by default.
allowed_cpus() {
	affinity_cpus | wc -l
}

# quiet_or_skip: the host's CPUs were at most 10% busy over 0.3 s
# (/proc/stat, steal counted as busy), or the test skips, saying so: a
# known load on a CPU that another task keeps busy takes that task's time,
# not the soakers', and no meter can find it there. (It read the meter,
# cyclesoak -1 -m 300, which saw the same and took 0.6 s to: its warm-up and
# its sample.)
quiet_or_skip() {
	local b0 t0 b1 t1 tenths
	read -r b0 t0 < <(host_cpu_ms)
	sleep 0.3
	read -r b1 t1 < <(host_cpu_ms)
	# In tenths of a percent.
	tenths=$((t1 > t0 ? 1000 * (b1 - b0) / (t1 - t0) : 0))
	[ "$tenths" -gt 100 ] || return 0
	skip "the host is too busy to judge: it was $((tenths / 10)).$((tenths % 10))% busy before the test"
}

# runs_alone: says that the test judges figures others' load would move (the
# meter's, or how long a paced stream waited): under make check's files side
# by side, it runs alone (harness.sh's ALONE_WORDS).
runs_alone() {
	:
}

# starts_no_meter: says that the test, though its code names a meter (a
# fleet, zc-matrix, make check's calibration copied for one), ends before
# any meter starts (a plan's errors, a host unreachable at the start, bad
# options): under make check it shares the host without taking the meter's
# turn (harness.sh's meter_tests), or the host whole (alone_tests) unless
# it says runs_alone.
starts_no_meter() {
	:
}

# calibrate_here [ARGS]: a quick calibration into $T/counts_per_sec
# (cyclesoak -C -m 100 ARGS), its output in $T/calibration; without ARGS,
# make check's own (tests/run.sh's ZC_CHECK_CALIBRATION), made while
# nothing else ran, where there is one. On a host too busy for one
# (cyclesoak refuses it), the test skips, saying so: a meter's test cannot
# judge a program there.
calibrate_here() {
	if [ $# = 0 ] && [ -n "${ZC_CHECK_CALIBRATION:-}" ]; then
		cp "$ZC_CHECK_CALIBRATION/counts_per_sec" "$ZC_CHECK_CALIBRATION/calibration" "$T/"
		return
	fi
	own_calibration "$@"
}

# own_calibration [ARGS]: calibrate_here's own calibration, always made
# here: what a test of the calibration judges.
own_calibration() {
	(cd "$T" && "$ROOT/cyclesoak" -C -m 100 "$@" >"$T/calibration" 2>&1) && return 0
	! grep -q 'calibration refused: ' "$T/calibration" ||
		skip "the host is too busy to judge: $(grep 'calibration refused' "$T/calibration")"
	fail "calibration failed: $(cat "$T/calibration")"
}

# expect_counts FILE OUTPUT CPUS: FILE is the counts_per_sec that calibration
# OUTPUT must have written: the median of the last five samples, the CPU
# count, and how far those samples spread, (max - min) / median, in percent,
# to within a hundredth of a point (the program takes it from the samples
# before they are rounded to the lines it prints).
expect_counts() {
	local want
	want=$(grep '^calibrating:' "$2" | tail -n 5 | awk '{ print $2 }' | sort -n |
		awk -v n="$3" '{ v[NR] = $1 } END { printf "%s\ncpus %s\n%.4f\n", v[3], n, 100 * (v[5] - v[1]) / v[3] }')
	expect_eq "$(head -n 2 "$1")" "$(head -n 2 <<<"$want")" "$1's rate and CPUs"
	awk -v got="$(sed -n 's/^spread \([0-9.]*\)%$/\1/p' "$1")" -v want="$(tail -n 1 <<<"$want")" \
		'BEGIN { exit !(got != "" && (got - want) ^ 2 <= 0.0001 + 1e-9) }' ||
		fail "$1's spread: got '$(sed -n 3p "$1")', expected about $(tail -n 1 <<<"$want")%"
}

# start_cyclesoak ARGS...: cyclesoak ARGS in $T (so it reads $T/counts_per_sec),
# stdout to $T/out and stderr to $T/err; sets CS_PID once a load line is out.
start_cyclesoak() {
	# Emptied first, as start_zcs's files are.
	: >"$T/out" >"$T/err"
	(cd "$T" && exec "$ROOT/cyclesoak" "$@" >>"$T/out" 2>>"$T/err") &
	CS_PID=$!
	started "$CS_PID"
	wait_until 10 grep -q '^System load:' "$T/out" || fail "no load line: $(cat "$T/err")"
}

# in_private_tmp SCRIPT: SCRIPT run by sh in a mount namespace of its own
# whose /tmp is $T/ft (the caller copies there what SCRIPT runs): the host's
# meter lock, a fixed name in /tmp, is made there and not in the real /tmp,
# outside make check's hold of the meter.
in_private_tmp() {
	unshare --mount --propagation private sh -c 'mount --bind "$1" /tmp && cd /tmp && eval "$2"' _ "$T/ft" "$1"
}

# json_member FILE PATH: a member of the -J object on FILE's last line, by
# its path (scripts/json.awk's: "meter.cpus", "cpus.1.load"; "" for null).
json_member() {
	tail -n 1 "$1" | awk -v p="$2" "$JSON_AWK"'{ print json_get($0, p) }'
}

# held_cpus: "for CPUs 0-1", the CPUs a meter of every CPU this shell may
# run on holds of the host's lock, as the waiting and refusing lines say.
held_cpus() {
	affinity_cpus | awk '{ if (NR > 1 && $1 == last + 1) { hi = $1 } else { if (NR > 1) out = out sep(lo, hi) ","; lo = hi = $1 } last = $1; n++ }
		function sep(a, b) { return a == b ? a : a "-" b }
		END { out = out sep(lo, hi); print (n == 1 ? "for CPU " : "for CPUs ") out }'
}

# PIDs of the soakers (children) of a process, one a line.
children_of() {
	pgrep -P "$1" || true
}

# all_dead PID...: every PID is gone or a zombie (no longer running).
all_dead() {
	local pid state
	for pid in "$@"; do
		state=$(ps -o stat= -p "$pid" 2>/dev/null || true)
		case "$state" in "" | Z*) ;; *) return 1 ;; esac
	done
}

# two_hosts [CPUS_A CPUS_B]: two network namespaces joined by a veth pair,
# as two hosts (scripts/netns.sh's netns_pair): $NS_A with 10.251.0.1 on
# $IF_A, and $NS_B with 10.251.0.2 on $IF_B; with CPU lists, each end's
# received packets handled on its own CPUs. They go when the test ends.
# Skips without root or namespaces.
two_hosts() {
	[ "$(id -u)" = 0 ] || skip "needs root (ip netns add)"
	NS_A=zc-ta-$$
	NS_B=zc-tb-$$
	IF_A=zcta$$
	IF_B=zctb$$
	netns_pair "$NS_A" "$NS_B" "$IF_A" "$IF_B" 10.251.0 "${1:-}" "${2:-}" ||
		skip "cannot create network namespaces here"
	NETNS+=("$NS_A" "$NS_B")
}

# ns_sshd NS ADDR PORT: an OpenSSH server of the test's own in namespace NS,
# on ADDR:PORT, with its own config and host key, taking the test's key
# ($T/key, made once) alone; its pid in SSHD_PID. Skips without
# openssh-server. A login there has a home of its own, empty: the far
# host's shell reads none of this machine's startup files (here root's
# ~/.bashrc took 0.08 s of each login through a shared connection, 0.3 s
# and more beside other work).
ns_sshd() {
	local ns=$1 addr=$2 port=$3 sshd cfg=$T/sshd-$1
	sshd=$(command -v sshd || echo /usr/sbin/sshd)
	[ -x "$sshd" ] && command -v ssh >/dev/null && command -v ssh-keygen >/dev/null ||
		skip "openssh-server is not installed (apt-get install openssh-server)"
	[ -s "$T/key" ] || { ssh-keygen -q -t ed25519 -N '' -f "$T/key" && cp "$T/key.pub" "$T/authorized_keys"; }
	ssh-keygen -q -t ed25519 -N '' -f "$cfg.host_key"
	mkdir -p "$cfg.home"
	printf '%s\n' "ListenAddress $addr" "Port $port" "HostKey $cfg.host_key" \
		"AuthorizedKeysFile $T/authorized_keys" "PasswordAuthentication no" \
		"KbdInteractiveAuthentication no" "PermitRootLogin prohibit-password" "StrictModes no" \
		"UsePAM no" "PidFile $cfg.pid" "MaxStartups 100" "SetEnv HOME=$cfg.home" >"$cfg"
	mkdir -p /run/sshd
	ip netns exec "$ns" "$sshd" -D -e -f "$cfg" 2>"$cfg.err" &
	SSHD_PID=$!
	started "$SSHD_PID"
}

# ns_ssh_options PORT: ssh's options to log in to the test's sshds with its key.
ns_ssh_options() {
	echo "ssh -p $1 -i $T/key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
}

# fleet_hosts N: N hosts, each a network namespace ($FLEET_NS_1...) with an
# sshd of its own on 10.253.0.I, joined by a bridge in a hub namespace
# ($FLEET_HUB, 10.253.0.254), from which the fleet is driven; FLEET_SSH
# logs in to any of them (root@10.253.0.I). Skips without root.
fleet_hosts() {
	local i ns port
	[ "$(id -u)" = 0 ] || skip "needs root (ip netns add)"
	FLEET_HUB=zc-fh-$$
	netns_hub "$FLEET_HUB" 10.253.0.254/24 || skip "cannot create network namespaces here"
	NETNS+=("$FLEET_HUB")
	port=$(free_port)
	for i in $(seq 1 "$1"); do
		ns=zc-f$i-$$
		NETNS+=("$ns")
		eval "FLEET_NS_$i=$ns"
		netns_on_hub "$ns" "$FLEET_HUB" "zcf$i-$$" "zch$i" "10.253.0.$i/24"
		ns_sshd "$ns" "10.253.0.$i" "$port"
	done
	for i in $(seq 1 "$1"); do
		wait_until 10 eval 'ip netns exec "$FLEET_HUB" bash -c "exec 3<>/dev/tcp/10.253.0.'"$i"'/'"$port"'" 2>/dev/null' ||
			fail "sshd on 10.253.0.$i did not start: $(cat "$T/sshd-zc-f$i-$$.err")"
	done
	FLEET_SSH=$(ns_ssh_options "$port")
}

# packets NS IF: "rx tx rxbytes txbytes", the interface's counts read from /sys in NS.
packets() {
	local d=/sys/class/net/$2/statistics
	ip netns exec "$1" cat "$d/rx_packets" "$d/tx_packets" "$d/rx_bytes" "$d/tx_bytes" |
		tr '\n' ' ' | sed 's/ $//'
}
