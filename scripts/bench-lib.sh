# The benchmark scripts' library, shared by scripts/zc-matrix, zc-report,
# order-check, compare-iperf3, compare-defaults and observer-effect (and by
# the tests): free ports, the CPUs and host a run has, the protocol's stream
# built independently of zc, zcs started, waited for and stopped by PID, the
# 2001 file set and a large file in the page cache, one zcc run measured as
# zcs counted it, medians, and the runs CSV's columns. Sourcing it only
# defines functions and names (among them the text of the awk libraries,
# STATS_AWK, RUNS_AWK and JSON_AWK, to put before an awk program); a script
# calls bench_init (after `set -eu`) for the scratch directory, the clean-up
# and the build, and defines bench_on_exit if it has more to undo on exit.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The checkout this library is in: its programs and lib/.
BENCH_ROOT=$(dirname "$BENCH_DIR")
STATS_AWK=$(cat "$BENCH_DIR/stats.awk")$'\n'
RUNS_AWK=$(cat "$BENCH_DIR/runs.awk")$'\n'
JSON_AWK=$(cat "$BENCH_DIR/json.awk")$'\n'

# bench_make TARGET...: make -s of zc's TARGETs, quietly. A make above
# that ran this script without handing down its jobserver (a recipe
# without '+', under -j) leaves its --jobserver-auth in MAKEFLAGS with the
# pipes closed, and each make here would warn "jobserver unavailable":
# then it runs without the jobserver.
bench_make() {
	local flags=${MAKEFLAGS:-} fds r w
	fds=$(sed -n 's/.*--jobserver-auth=\([0-9]*,[0-9]*\).*/\1/p' <<<"$flags")
	r=${fds%,*} w=${fds#*,}
	if [ -n "$fds" ] && { [ ! -e "/proc/$BASHPID/fd/$r" ] || [ ! -e "/proc/$BASHPID/fd/$w" ]; }; then
		flags=$(sed 's/ *--jobserver-auth=[0-9]*,[0-9]*//' <<<"$flags")
	fi
	MAKEFLAGS=$flags make -s -C "$ROOT" "$@"
}

# bench_init: sets ROOT and work, builds zcs and zcc, and cleans up on exit.
bench_init() {
	# A failed zcc inside $(...) must stop the run, not leave an old figure behind.
	shopt -s inherit_errexit
	ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	bench_make zcs zcc
	# Named for the script and its pid, so that a later zc-matrix can tell
	# the scratch of a run killed with SIGKILL from a live one's.
	work=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0").$$.XXXXXX")
	bench_pids=()
	bench_zcs_prefix=()
	trap bench_cleanup EXIT
}

# bench_track PID: a process the script started, stopped at its exit, and
# on record in $work/pids ("PID STARTTIME", its start from /proc) for a run
# that finds this one's scratch after a SIGKILL (bench_stale_pids).
bench_track() {
	bench_pids+=("$1")
	bench_record "$1"
}

# bench_record PID: on record in $work/pids only (one the script stops its own way).
bench_record() {
	echo "$1 $(bench_starttime "$1")" >>"$work/pids"
}

# bench_tree PID: the process and every descendant, each before its own.
bench_tree() {
	local kid
	echo "$1"
	for kid in $(pgrep -P "$1"); do
		bench_tree "$kid"
	done
}

# bench_kill_tree PID: the process and every descendant, all found first
# and then killed at once, each before its own: a parent killed after its
# child would say the child failed.
bench_kill_tree() {
	local tree
	tree=$(bench_tree "$1")
	# shellcheck disable=SC2086
	kill -9 $tree 2>/dev/null || true
}

# bench_starttime PID: the process's start time, in ticks since boot (field 22
# of /proc/PID/stat, read after the command name, which may hold anything).
bench_starttime() {
	{ sed 's/.*) //' "/proc/$1/stat" | awk '{ print $20 }'; } 2>/dev/null
}

# bench_stale_pids DIR: the processes a run killed with SIGKILL left (those
# on record in DIR/pids that are still the same processes), stopped with
# all their descendants; prints their pids.
bench_stale_pids() {
	local pid start
	[ -f "$1/pids" ] || return 0
	while read -r pid start; do
		case "$pid" in '' | *[!0-9]*) continue ;; esac
		[ -n "$start" ] && [ "$(bench_starttime "$pid")" = "$start" ] || continue
		bench_kill_tree "$pid" && echo "$pid"
	done <"$1/pids"
}

bench_cleanup() {
	# The script's exit status, for bench_on_exit.
	bench_exit_rc=$?
	local i p
	# Each with all its descendants: a zcc in a command substitution is a
	# grandchild, which outlived its parent's killing and went on sending.
	# The latest first: a run's zcc goes before its zcs, whose going would
	# have it say "zcc failed: connection reset" of a run stopped on purpose.
	for ((i = ${#bench_pids[@]} - 1; i >= 0; i--)); do
		p=${bench_pids[i]}
		bench_kill_tree "$p" || true
		wait "$p" 2>/dev/null || true
	done
	if declare -F bench_on_exit >/dev/null; then
		bench_on_exit
	fi
	rm -rf "$work"
}

# bench_mark NAME: the value of a mark the programs judge by, read from
# lib/marks.h.
bench_mark() {
	local v
	v=$(sed -n "s/^#define $1 \([0-9.]*\)\$/\1/p" "$BENCH_ROOT/lib/marks.h")
	[ -n "$v" ] || { echo "bench-lib.sh: no mark $1 in $BENCH_ROOT/lib/marks.h" >&2; return 1; }
	# As a person writes it: 95, not 95.0.
	awk -v v="$v" 'BEGIN { print v + 0 }'
}

# bench_modes PROGRAM [-u]: the modes PROGRAM (zcc or zcs) lists with -m '?'
# (with -u, its datagram ones), comma-separated, in its order: the lists are
# the programs' tables (tx/, rx/), written down nowhere else. The program is
# built first where it is not.
bench_modes() {
	[ -x "$BENCH_ROOT/$1" ] || ROOT=$BENCH_ROOT bench_make "$1" >&2 || return 1
	"$BENCH_ROOT/$1" ${2:+"$2"} -m '?' | paste -sd, -
}

# bench_mode_lists: BENCH_SEND_MODES, BENCH_RECV_MODES and the datagram
# modes, BENCH_UDP_SEND_MODES and BENCH_UDP_RECV_MODES, set from the
# programs (a runs CSV names the datagram modes udp-MODE, so that uring,
# read and their namesakes stay apart).
bench_mode_lists() {
	BENCH_SEND_MODES=$(bench_modes zcc) && BENCH_RECV_MODES=$(bench_modes zcs) &&
		BENCH_UDP_SEND_MODES=$(bench_modes zcc -u) && BENCH_UDP_RECV_MODES=$(bench_modes zcs -u)
}
# udp_names LIST: LIST with udp- before each name.
udp_names() {
	echo "$1" | sed 's/\([^,]*\)/udp-\1/g'
}

# A zc-matrix runs CSV: one row per cell and round, these columns in this
# order (zc-matrix writes them by these names, runs.awk reads them by name).
# The cell: round, mode (zcc -m), bufsize (zcc -b, "-" for none), placement,
# recv (zcs -m), offload (the sending interface's state, empty when it was
# not switched), rate_bytes_per_sec (zcc -R, empty at full speed). A
# datagram cell's mode and recv are udp-MODE (zcc -u -m MODE, zcs -u -m),
# its bufsize zcc -l. The figures: docs/programs.txt says what each is; the
# last three are the datagram cells' alone.
BENCH_RUNS_COLUMNS="round mode bufsize placement recv mbytes_per_sec busy_pct_proc_stat
	demand_proc_stat_us_per_kb zcc_us_per_kb zcs_us_per_kb mbytes_per_sec_metered load_pct demand_us_per_kb
	kernel_pct meter_throughput_change_pct copied_pct mapped_pct ints_per_sec rx_pps tx_pps recv_load_pct
	recv_demand_us_per_kb recv_kernel_pct recv_ints_per_sec recv_rx_pps recv_tx_pps offload rate_bytes_per_sec
	rate_reached_pct rate_reached_pct_metered time_lost_pct slowdown_pct dgrams_per_sec calls_per_sec loss_pct
	tx_bytes_per_packet recv_tx_bytes_per_packet retrans_segments retrans_pct rwnd_limited_pct sndbuf_limited_pct
	host_autocorking host_delayed_acks host_pure_acks load_before_pct run steal_pct"
BENCH_RUNS_COLUMNS=$(echo $BENCH_RUNS_COLUMNS)

# The turns CSV's columns (zc-matrix --turns): a row for each arm of each
# turns run (zcc -m A,B,... -c), the run's cell but for the mode, its slots
# and figures, and against the cheapest arm (empty on the cheapest's row)
# the verdict, which part carries the difference, the blocks of cycles the
# changes come from, and each change's estimate with its interval: demand
# and the kernel's view of it in percent, the load in points.
BENCH_TURNS_COLUMNS="rate_bytes_per_sec placement recv bufsize offload slot_ms seconds arm mode slots
	mbytes_per_sec load_pct demand_us_per_kb kernel_pct against verdict carried_by blocks block_cycles
	demand_pct demand_pct_lo demand_pct_hi kernel_demand_pct kernel_demand_pct_lo kernel_demand_pct_hi
	load_points load_points_lo load_points_hi end run"
BENCH_TURNS_COLUMNS=$(echo $BENCH_TURNS_COLUMNS)

# bench_turns_rows JSON PLACEMENT RECV OFFLOAD SIZE RATE RUN: zcc -J's turns (its arms and
# their comparisons) as rows of the turns CSV: the sender's (end "sender"),
# and where zcs answered, the receiver's and, with both meters, both ends'
# sum ("receiver", "both"); RATE the stream's (bytes a second, empty at
# full speed), RUN the run's id, on every row (OFFLOAD "-": none switched).
bench_turns_rows() {
	awk -v pl="$2" -v rm="$3" -v off="$4" -v size="$5" -v rate="$6" -v run="$7" -v columns="$BENCH_TURNS_COLUMNS" "$JSON_AWK"'
	# interval(C, KEY): of comparison C, the median, lo and hi of KEY into v[KEY...]; its n.
	function interval(c, key,   p) {
		p = t "comparisons." c "." key "."
		v[key] = json_get($0, p "estimate"); v[key "_lo"] = json_get($0, p "lo"); v[key "_hi"] = json_get($0, p "hi")
		return json_get($0, p "n")
	}
	# rows(T, END): the rows of the turns object at T ("turns.", "turns.receiver.", ...).
	function rows(end,   i, k, o, c, line) {
		split("", against)
		for (i = 0; i < json_count($0, t "comparisons"); i++)
			against[json_get($0, t "comparisons." i ".arm")] = i
		for (i = 0; i < json_count($0, t "arms"); i++) {
			o = t "arms." i "."
			split("", v)
			v["rate_bytes_per_sec"] = rate; v["placement"] = pl; v["recv"] = rm; v["bufsize"] = size
			v["offload"] = off == "-" ? "" : off
			v["end"] = end; v["run"] = run
			v["slot_ms"] = json_get($0, t "slot_ms"); v["block_cycles"] = json_get($0, t "block_cycles")
			v["seconds"] = json_get($0, o "seconds")
			v["arm"] = json_get($0, o "arm"); v["mode"] = json_get($0, o "mode"); v["slots"] = json_get($0, o "slots")
			v["mbytes_per_sec"] = sprintf("%.1f", json_get($0, o "kbytes_per_sec") * 1024 / 1e6)
			v["load_pct"] = json_get($0, o "load_pct"); v["demand_us_per_kb"] = json_get($0, o "demand_us_per_kb")
			v["kernel_pct"] = json_get($0, o "kernel_pct")
			if (v["arm"] in against) {
				c = against[v["arm"]]
				v["against"] = json_get($0, t "comparisons." c ".against")
				v["verdict"] = json_get($0, t "comparisons." c ".verdict")
				v["carried_by"] = json_get($0, t "comparisons." c ".carried_by")
				interval(c, "demand_pct")
				interval(c, "kernel_demand_pct")
				# The blocks compared, as zcc counts them: those of the load,
				# where a demand of 0 or below leaves the share of it none
				# (both ends sum the demands alone: their blocks are the demand'"'"'s).
				v["blocks"] = interval(c, end == "both" ? "demand_pct" : "load_points")
				if (end == "both")
					v["load_points"] = v["load_points_lo"] = v["load_points_hi"] = ""
			}
			line = ""
			for (k = 1; k <= nk; k++)
				line = line (k > 1 ? "," : "") v[name[k]]
			print line
		}
	}
	{
		nk = split(columns, name, " ")
		t = "turns."; rows("sender")
		if (json_get($0, "turns.receiver") != "null") { t = "turns.receiver."; rows("receiver") }
		if (json_get($0, "turns.both_ends") != "null") { t = "turns.both_ends."; rows("both") }
	}' <<<"$1"
}

# column_of CSV NAME: the number of the CSV's column of that name, or nothing.
# Read in the shell (a report asks it of some 40 columns: a pipeline of
# four programs each time took 60 ms of every zc-report run).
column_of() {
	local cols i
	IFS=, read -r -a cols <"$1" || [ "${#cols[@]}" -gt 0 ] || return 0
	for i in "${!cols[@]}"; do
		[ "${cols[i]}" != "$2" ] || echo $((i + 1))
	done
}

# bench_unconverged RUNS_CSV WIDTH [RATE]: a line for each cell of a
# zc-matrix runs CSV whose service demand's interval is wider than WIDTH% of
# its median; nothing when every cell has converged. With RATE, only the
# cells paced at it (bytes a second; empty: at full speed). Columns are read
# by name.
bench_unconverged() {
	awk -F, -v width="$2" -v filter=$(($# >= 3)) -v want="${3:-}" "$STATS_AWK$RUNS_AWK"'
	{
		paced = col("rate_bytes_per_sec")
		if (filter && paced != want)
			next
		key = $c["mode"] " " $c["bufsize"] " " $c["placement"] " " $c["recv"] (col("offload") != "" ? " " col("offload") : "") \
			(paced == "" ? "" : " paced at " paced)
		d[key] = d[key] " " $c["demand_us_per_kb"]
	}
	END {
		for (k in d) {
			split(stats(d[k]), s, " ")
			w = s[1] ? 100 * (s[3] - s[2]) / s[1] : 0
			if (w > width)
				printf "%s (demand interval %.1f%% wide)\n", k, w
		}
	}' "$1"
}

# affinity_cpus: the CPUs in this shell's affinity mask, one a line.
affinity_cpus() {
	taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
		awk -F- '{ for (c = $1; c <= (NF == 2 ? $2 : $1); c++) print c }'
}

# bench_host_line [CPUS]: the "#" line of when and where a benchmark ran.
bench_host_line() {
	echo "# $(date -u '+%Y-%m-%d'), $(uname -sr), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), ${1:-$(nproc)} CPUs"
}

# bench_system_record IF [PREFIX...]: what a run ran on, a "key: value" line
# each, for zc-report --compare to set two runs' side by side: zc's version,
# the kernel, the CPU and how many, the sysctls that move these figures, the
# kernel's mitigations, and the sending interface's offloads and qdisc (read
# through PREFIX, as `ip netns exec NS`, where it lies elsewhere; "unknown"
# without ethtool or tc).
bench_system_record() {
	local ifc=$1 k v
	shift
	echo "zc_version: $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "kernel: $(uname -r)"
	echo "cpu_model: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
	echo "cpus: $(nproc)"
	for k in net.ipv4.tcp_autocorking net.ipv4.tcp_wmem net.ipv4.tcp_rmem net.core.optmem_max \
		net.core.wmem_max net.core.rmem_max net.ipv4.tcp_congestion_control; do
		v=$(tr -s ' \t' '  ' <"/proc/sys/${k//.//}" 2>/dev/null) || v=unknown
		echo "$k: $v"
	done
	for v in /sys/devices/system/cpu/vulnerabilities/*; do
		[ -r "$v" ] && echo "mitigation.$(basename "$v"): $(cat "$v")"
	done
	echo "interface: $ifc"
	v=$("$@" ethtool -k "$ifc" 2>/dev/null | awk -F': ' '/^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload|scatter-gather|tx-checksumming):/ { sub(/ .*/, "", $2); printf "%s%s=%s", sep, $1, $2; sep = " " }') || true
	echo "offloads: ${v:-unknown}"
	v=$("$@" tc qdisc show dev "$ifc" 2>/dev/null | head -n 1 | awk '{ print $2 }') || true
	echo "qdisc: ${v:-unknown}"
}

# u32be N: the protocol's big-endian 32-bit integer, written independently of lib/proto.
u32be() {
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) \
		$(($1 >> 8 & 255)) $(($1 & 255)))"
}

# encode_stream LOOPS FILE...: the whole stream a sender must put on the wire.
encode_stream() {
	local loops=$1 i f
	shift
	u32be "$loops"
	for ((i = 0; i < loops; i++)); do
		u32be $#
		for f in "$@"; do
			u32be "$(stat -c %s "$f")"
			cat "$f"
		done
	done
}

# bench_bytes SIZE: SIZE, a whole number with zcc's optional suffix (k, m,
# g: x1024), in bytes; fails for anything else, or for more than 2^62.
bench_bytes() {
	local n=${1%[kKmMgG]} mult=1
	case "$1" in *[kK]) mult=1024 ;; *[mM]) mult=1048576 ;; *[gG]) mult=1073741824 ;; esac
	case "$n" in '' | *[!0-9]*) return 1 ;; esac
	[ ${#n} -le 18 ] && [ $((10#$n)) -le $(((1 << 62) / mult)) ] || return 1
	echo $((10#$n * mult))
}

# bench_die MESSAGE: the script's name, the message, exit 1.
bench_die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# free_port: a TCP port no socket uses.
free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$(random_port)
		ss -Htan "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
	bench_die "no free port"
}

# random_port: a port below the ephemeral range, so that no outgoing
# connection (ours or anyone's) can take it between the check and the bind.
random_port() {
	local low=32768 rest
	read -r low rest </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
	[ "$low" -gt 11000 ] || low=32768
	echo $((10000 + RANDOM % (low - 10000)))
}

# bench_start_zcs PORT OUT [ARGS...]: a zcs -J on PORT writing its stdout (a
# -J summary a connection, read by name) to OUT and its stderr to OUT.err,
# run under bench_zcs_prefix (e.g. ip netns exec), and waited for until it
# listens; the command line is printed as a "#" line. A zcs that refuses its
# arguments or its port ends the script, with its words.
bench_start_zcs() {
	local port=$1 out=$2
	shift 2
	echo "# ${bench_zcs_prefix[*]}${bench_zcs_prefix:+ }$ROOT/zcs -d -p $port -t 3600 -J $*" | sed 's/ *$//'
	"${bench_zcs_prefix[@]}" "$ROOT/zcs" -d -p "$port" -t 3600 -J "$@" >"$out" 2>"$out.err" &
	bench_track $!
	bench_zcs_listening "$out.err" "${bench_pids[-1]}" 100 ||
		bench_die "zcs $* did not start: $(cat "$out.err")"
}

# bench_zcs_listening ERR PID TRIES: until the zcs -d writing ERR says it is
# listening (0), it is gone, or TRIES checks 50 ms apart have passed (1).
# The first 0.1 s is looked at each 10 ms: a zcs listens in a few ms, and
# each start waited 50 ms (a zc-matrix test starts up to a dozen).
bench_zcs_listening() {
	local n=0
	while [ "$n" -lt $(($3 + 8)) ]; do
		# (-s: the file is made by zcs's shell, which may not have run yet.)
		grep -qs 'listening on' "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		if [ $((n += 1)) -le 10 ]; then sleep 0.01; else sleep 0.05; fi
	done
	return 1
}

# make_file_set DIR: 60 files of about 350 KB, the 2001 working set, made
# at once (one after another, they took 0.13 s a run here; at once, 0.07 s).
make_file_set() {
	local i pids=()
	mkdir -p "$1"
	for i in $(seq 1 60); do
		head -c $((300000 + i * 1693 % 100000)) /dev/urandom >"$1/f$i" &
		pids+=("$!")
	done
	wait "${pids[@]}"
}

# make_big_file FILE MB: MB MiB of random bytes, read once into the page cache.
make_big_file() {
	head -c $(($2 * 1048576)) /dev/urandom >"$1"
	cat "$1" >/dev/null
}

# zcc_mbs PORT ZCS_OUT SECS ZCC_ARGS... -- FILES...: runs zcc against the zcs
# on PORT for about SECS seconds (a one-loop probe sets the loop count) and
# prints MB/s (10^6 bytes) as that zcs counted it, read from its -J summary.
# The zcc command line goes to fd 3 as a "#" line, with the files abbreviated.
zcc_mbs() {
	local port=$1 zcs_out=$2 secs=$3 loops n what
	local args=()
	shift 3
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	if [ $# = 1 ]; then what="<$(basename "$1"), $(($(stat -c %s "$1") / 1048576)) MiB>"; else what="<$# files>"; fi
	n=$(grep -c '^{' "$zcs_out" || true)
	"$ROOT/zcc" -J -s 127.0.0.1 -p "$port" -n 1 "${args[@]}" "$@" >"$work/probe"
	loops=$(awk -v s="$secs" "$JSON_AWK"'{ n = int(s / json_get($0, "result.seconds") + 0.999); print n < 1 ? 1 : n }' "$work/probe")
	echo "# $ROOT/zcc -s 127.0.0.1 -p $port -n $loops ${args[*]} $what" >&3
	"$ROOT/zcc" -s 127.0.0.1 -p "$port" -n "$loops" "${args[@]}" "$@" >/dev/null
	for _ in $(seq 1 100); do
		[ "$(grep -c '^{' "$zcs_out")" -ge $((n + 2)) ] && break
		sleep 0.05
	done
	# The probe and the run: two more summaries.
	[ "$(grep -c '^{' "$zcs_out")" -ge $((n + 2)) ] || bench_die "zcs did not report the run"
	grep '^{' "$zcs_out" | tail -n 1 | awk "$JSON_AWK"'{ printf "%.1f\n", json_mbs($0) }'
}

# median: the median of the numbers on stdin (separated by blanks or lines).
median() {
	tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# compare ROUNDS SECS FIRST_LABEL: runs zcc once per configuration per round,
# going through the configurations in turn and reversing the order every
# other round, so drift over the run favours none; then prints a row per
# configuration: its label, the median MB/s, the ratio to the first, and every
# round's figure. Configuration i is cfg_label[i] (a label), cfg_port[i] and
# cfg_out[i] (its zcs), cfg_args[i] (zcc's options, split on blanks) and
# cfg_files[i] (a glob of what to send).
compare() {
	local rounds=$1 secs=$2 r i m base= order
	local -a got=()
	for r in $(seq 1 "$rounds"); do
		order=("${!cfg_label[@]}")
		[ $((r % 2)) = 0 ] && order=($(printf '%s\n' "${order[@]}" | tac))
		for i in "${order[@]}"; do
			got[i]="${got[i]:-} $(zcc_mbs "${cfg_port[i]}" "${cfg_out[i]}" "$secs" \
				${cfg_args[i]} -- ${cfg_files[i]})"
		done
	done
	printf '%-34s %9s %7s   %s\n' "$3" "MB/s" ratio "rounds (MB/s)"
	for i in "${!cfg_label[@]}"; do
		m=$(echo "${got[i]}" | median)
		[ -n "$base" ] || base=$m
		awk -v l="${cfg_label[i]}" -v m="$m" -v b="$base" -v all="${got[i]}" \
			'BEGIN { printf "%-34s %9.1f %6.2fx  %s\n", l, m, m / b, all }'
	done
}
