#!/bin/bash
# scripts/zc-matrix (make bench) in tiny configurations: the table's, the
# verdict's and the CSVs' shape, numbers where numbers belong, the rounds and
# their intervals, and its own option errors.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bench-rows.sh"

# The meters' tare (-T) and calibration periods, short: these tests check
# the tables' shape, and at full speed a transfer's load is far above what
# a short tare or calibration gets wrong. The paced tests, whose loads are a
# few percent, take PACED_METER's longer ones.
TARE=50
CAL_MS=50
# The turns (--turns) have tests of their own: the rest compare the rounds.
QUICK_METER=(--calibrate-ms "$CAL_MS" --tare-ms "$TARE" --turns 0)
PACED_TARE=100
PACED_METER=(--calibrate-ms 100 --tare-ms "$PACED_TARE" --turns 0)

# Under make check, each test begins with make check's calibration in $T,
# where zc-matrix finds it and makes none of its own. A test of zc-matrix's
# own calibration removes it.
before_each() {
	[ -z "${ZC_CHECK_CALIBRATION:-}" ] || calibrate_here
}

# matrix ARGS: zc-matrix to $T/out, a new run's directory (an earlier
# run's is refused).
matrix() {
	rm -rf "$T/out"
	(cd "$T" && bash "$ROOT/scripts/zc-matrix" "${QUICK_METER[@]}" --out "$T/out" "$@") >"$T/table" 2>"$T/err" ||
		fail "zc-matrix failed: $(cat "$T/err")"
}

# check_csvs CELLS ROUNDS INTERVAL [RATE]: a row per cell and round in the
# runs CSV, a row per cell in the cells CSV, each figure's median inside its
# interval; every cell at full speed, or paced at RATE (bytes a second).
check_csvs() {
	local cells=$1 rounds=$2 interval=$3 rate=${4:-} hdr=mode,bufsize,placement,recv,rate_bytes_per_sec,rounds,interval f
	expect_eq "$(head -n 1 "$T/out/zc-matrix-runs.csv")" "$RUNS_HEADER"
	expect_eq "$(sed 1d "$T/out/zc-matrix-runs.csv" | wc -l)" $((cells * rounds)) "runs CSV rows"
	sed 1d "$T/out/zc-matrix-runs.csv" | grep -v -E "^[0-9]+,($MODES),([0-9]+|-),[a-z]+,[a-z]+(,$NUM){10},($NUM)?,($NUM)?(,[0-9]+){3}(,(-?[0-9]+(\.[0-9]+)?)?){6},(sg:(on|off)/tx:(on|off))?,$rate,${rate:+$NUM},${rate:+$NUM},$NUM,$NUM,,,,[0-9]+,([0-9]+)?,[0-9]+,$NUM,$NUM,$NUM(,[0-9]+){3},(-?$NUM)?,[0-9]{8}T[0-9]{6}Z-[0-9]+,($NUM)?\$" &&
		fail "malformed runs CSV row"
	expect_eq "$(sed 1d "$T/out/zc-matrix-runs.csv" | cut -d, -f1 | sort -u | tr '\n' ' ')" \
		"$(seq -s ' ' 1 "$rounds") " "rounds in the runs CSV"
	# Throughputs and demands are positive; loads are percentages; zcc's own
	# CPU time can round to 0.00 s in a paced run, and there the load, a few
	# percent, can come out below 0 on a busy machine, and its demand with it
	# (paced runs of 0.3 s against a 100 ms calibration read -7.5% and -12.6%,
	# -3.883 us/KB, the soakers 14% faster than calibrated: here that is
	# the meter's noise, which the turns are for, not a broken figure).
	# The sender's link moved packets both ways, and softirqs or interrupts.
	awk -F, -v paced="$rate" 'NR > 1 && !($6 > 0 && $8 > 0 && ($9 > 0 || paced && $9 == 0) && $10 >= 0 && $11 > 0 && ($13 > 0 || paced && $13 > -8) && $7 > 0 && $7 <= 100 && ($12 > -5 || paced && $12 > -25) && $12 <= 100 && $18 > 0 && $19 > 0 && $20 > 0) { bad = 1 }
		END { exit bad }' "$T/out/zc-matrix-runs.csv" || fail "implausible figures: $(cat "$T/out/zc-matrix-runs.csv")"
	for f in $CELL_FIGS; do
		hdr="$hdr,$f,${f}_lo,${f}_hi"
	done
	expect_eq "$(head -n 1 "$T/out/zc-matrix.csv")" "$hdr"
	expect_eq "$(sed 1d "$T/out/zc-matrix.csv" | wc -l)" "$cells" "cells CSV rows"
	awk -F, -v r="$rounds" -v i="$interval" -v rate="$rate" 'NR > 1 {
		if ($5 != rate || $6 != r || $7 != i) bad = 1
		for (c = 8; c <= NF; c += 3) if ($c != "" && !($(c + 1) <= $c && $c <= $(c + 2))) bad = 1
	} END { exit bad }' "$T/out/zc-matrix.csv" || fail "cells CSV: $(cat "$T/out/zc-matrix.csv")"
}

# check_verdict "PLACEMENT, zcs -m RECV" N: the verdict ranks N methods there,
# cheapest first, and says "within the noise" exactly where the interval of
# the difference takes in 0.
check_verdict() {
	local block
	grep -q '^Verdict: the transmit methods by service demand (zcc -c, us/KB), cheapest first;$' "$T/table" ||
		fail "no verdict: $(cat "$T/table")"
	block=$(sed -n "/^  placement $1:\$/,/^  placement\\|^#/p" "$T/table" | grep -E '^    [a-z-]+( -b [0-9]+)? +-?[0-9]+\.[0-9]{3} us/KB')
	expect_eq "$(echo "$block" | wc -l)" "$2" "methods ranked for $1"
	echo "$block" | head -n 1 | grep -q -E ' -?[0-9]+\.[0-9]{3} us/KB  cheapest$' || fail "first: $block"
	# (A round's demand of 0 or below sets the rows by differences in us/KB.)
	echo "$block" | sed 1d | grep -v -E " -?[0-9]+\\.[0-9]{3} us/KB  [-+][0-9.]+(%| us/KB) \\[[-+][0-9.]+, [-+][0-9.]+\\](  within the noise( of [a-z-]+( -b [0-9]+)?)?)?\$" &&
		fail "verdict lines: $block"
	echo "$block" | sed 1d | sed 's/.*\[\(.*\), \(.*\)\].*/\1 \2 &/' |
		awk '{ noise = ($1 <= 0 && $2 >= 0); said = ($0 ~ /within the noise$/); if (noise && !said || said && !noise) bad = 1 }
			END { exit bad }' || fail "within the noise where it should not be: $block"
	echo "$block" | grep -o -E '^ +[a-z-]+( -b [0-9]+)? +-?[0-9]+\.[0-9]{3} us/KB' | awk '{ v = $(NF - 1); if (NR > 1 && v < last) bad = 1; last = v } END { exit bad }' ||
		fail "not cheapest first: $block"
}

test_tiny_matrix_prints_medians_intervals_a_verdict_and_csvs() {
	rm -f "$T/counts_per_sec"
	matrix --modes sendfile,send --bufsizes 4096,65536 --placements none --rounds 2 --loops 10 --seed 7
	expect_eq "$(grep -c -E "$ROW" "$T/table")" 3 "table rows: $(cat "$T/table")"
	expect_eq "$(grep -E "$ROW" "$T/table" | awk '{ sub(/!?~?$/, "", $1); print $1 "/" $2 }' | tr '\n' ' ')" "sendfile/- send/4096 send/65536 " "rows in order"
	grep -q '^mode  *buf placement recv  *| MB/s  *load%  *us/KB (zcc -c)  *kernel%  *gap | us/KB: zcc  zcs  *| meter effect on MB/s  *| copied *| mapped *|  *ints\/s  *rx pps  *tx pps  *B\/pkt |  *retr%  *rwnd%  *sndbuf% | receiver (zcs -c): load%  us\/KB$' "$T/table" ||
		fail "no header"
	grep -qx '# 2 rounds; each figure is the median of the rounds and its interval (min-max)' "$T/table" || fail "no rounds line"
	grep -qx '# 3 cells; each round runs them in a shuffled order: seed 7 (--seed 7 repeats it)' "$T/table" || fail "no seed line"
	# What the runs ran on, beside them, for zc-report --compare.
	expect_eq "$(cut -d: -f1 "$T/out/zc-matrix-system.txt" | grep -v '^mitigation\.' | tr '\n' ' ')" \
		"zc_version kernel cpu_model cpus net.ipv4.tcp_autocorking net.ipv4.tcp_wmem net.ipv4.tcp_rmem net.core.optmem_max net.core.wmem_max net.core.rmem_max net.ipv4.tcp_congestion_control interface offloads qdisc " "the record's keys"
	expect_eq "$(sed -n 's/^kernel: //p; s/^cpus: //p; s/^interface: //p' "$T/out/zc-matrix-system.txt" | tr '\n' ' ')" "$(uname -r) $(nproc) lo " "the record's kernel, CPUs and interface"
	grep -q "^# .*/zcc -J -c -T $TARE -m send -b 4096 -s 127.0.0.1 -p [0-9]* -n 10 <60 files>$" "$T/table" ||
		fail "the zcc command line is not printed"
	grep -q "^# .*/zcs -d -p [0-9]* -t 3600 -J -m read$" "$T/table" || fail "the zcs command line is not printed"
	grep -q "^# cyclesoak -C -m $CAL_MS" "$T/table" || fail "calibration not announced"
	check_csvs 3 2 min-max
	check_verdict "none, zcs -m read" 3
	if command -v gnuplot >/dev/null; then
		grep -qx "# plot written to $T/out/zc-matrix.png" "$T/table" || fail "no plot line"
		expect_eq "$(head -c 8 "$T/out/zc-matrix.png" | od -An -tx1 | tr -d ' ')" 89504e470d0a1a0a "PNG signature"
		grep -q 'service demand per method: the median of 2 rounds, with its min-max' "$T/out/zc-matrix-plot.txt" ||
			fail "text plot has no demand panel"
		# Two sizes draw no lines against the size (three or more do: t_report).
		expect_eq "$(grep -c 'zcc -b buffer size (bytes)' "$T/out/zc-matrix-plot.txt")" 0 "text plot axes"
	else
		grep -qx '# no plot: gnuplot is not installed (apt-get install gnuplot-nox)' "$T/table" ||
			fail "no word about the missing plot"
	fi
}

# The same seed runs the cells in the same order; the order is shuffled.
test_seed_repeats_the_order_of_the_cells() {
	local first
	# Only the order counts here: the tares can be short.
	matrix --modes sendfile,send,write --bufsizes 4096,8192 --placements none --rounds 1 --loops 2 --seed 11 --tare-ms 50
	first=$(grep '^# .*/zcc -J -m' "$T/table" | sed 's/ -p [0-9]*//')
	matrix --modes sendfile,send,write --bufsizes 4096,8192 --placements none --rounds 1 --loops 2 --seed 11 --tare-ms 50
	expect_eq "$(grep '^# .*/zcc -J -m' "$T/table" | sed 's/ -p [0-9]*//')" "$first" "order with the same seed"
	[ "$(echo "$first" | grep -o -- '-m [a-z]* -b [0-9]*\|-m sendfile' | tr '\n' ' ')" != \
		"-m sendfile -m send -b 4096 -m send -b 8192 -m write -b 4096 -m write -b 8192 " ] ||
		fail "seed 11 left the cells in their natural order"
}

# --width adds rounds until every demand interval is narrow enough, or says
# which cells it gave up on.
test_width_adds_rounds_and_names_what_did_not_converge() {
	matrix --modes sendfile --placements none --rounds 2 --width 1 --max-rounds 3 --loops 5
	# Two rounds can agree within 1%: then the cell converged.
	if grep -qx '# 2 rounds; each figure is the median of the rounds and its interval (min-max)' "$T/table"; then
		awk -F, 'NR > 1 && ($31 - $30) > $29 / 100 { bad = 1 } END { exit bad }' "$T/out/zc-matrix.csv" ||
			fail "stopped at 2 rounds with a demand interval wider than 1%: $(cat "$T/out/zc-matrix.csv")"
	else
		grep -qx '# 3 rounds; each figure is the median of the rounds and its interval (min-max)' "$T/table" ||
			fail "rounds: $(grep '^# [0-9]* rounds' "$T/table")"
		grep -q -E '^# not converged to --width 1% after 3 rounds: sendfile - none read \(demand interval [0-9.]+% wide\)$' "$T/table" ||
			fail "no word of the unconverged cell: $(cat "$T/table")"
	fi
	matrix --modes sendfile --placements none --rounds 1 --width 1000 --loops 5
	grep -qx '# 1 rounds; each figure is the median of the rounds and its interval (min-max)' "$T/table" ||
		fail "a converged cell took more rounds"
	! grep -q 'not converged' "$T/table" || fail "converged cell reported as not"
}

# The zero-copy modes' copies are a column of the table and of both CSVs, and
# so is the share zcs -m zerocopy mapped; the receive mode is a column and a
# verdict group of its own; --mss reaches zcc.
test_matrix_counts_the_kernels_copies_and_runs_each_receive_mode() {
	local modes=splice,zerocopy,uring-zc n
	"$ROOT/zcc" -m uring-zc -s 127.0.0.1 -p "$(free_port)" /dev/null 2>&1 | grep -q -- '-m uring-zc: ' &&
		modes=splice,zerocopy
	n=$(echo "$modes" | tr ',' '\n' | wc -l)
	matrix --modes "$modes" --recv trunc,zerocopy --mss 4108 --bufsizes 65536 --placements none \
		--rounds 1 --loops 5
	expect_eq "$(grep -c -E "$ROW" "$T/table")" $((2 * n)) "rows: $(cat "$T/table")"
	# A row's parts between its bars, from the end: the receiver, what held
	# the stream back, the link, mapped, copied.
	expect_eq "$(grep -E "^splice[ !]" "$T/table" | awk -F' *[|] *' '{ split($1, id, " "); print id[4], $(NF - 4), $(NF - 3) }' | tr '\n' '|')" \
		"trunc - -|zerocopy - 0%|" "splice rows: recv, copied, mapped"
	expect_eq "$(grep -E "^zerocopy[ !]" "$T/table" | awk -F' *[|] *' '{ split($1, id, " "); print id[4], $(NF - 4) }' | tr '\n' '|')" \
		"trunc 100%|zerocopy 100%|" "zerocopy rows: on loopback the kernel copies every send"
	grep -E "^zerocopy[ !].* zerocopy " "$T/table" | awk -F' *[|] *' '{ exit !($(NF - 3) + 0 >= 90) }' ||
		fail "zcs -m zerocopy mapped less than 90% of zcc -m zerocopy -M 4108: $(grep -E "^zerocopy[ !]" "$T/table")"
	expect_eq "$(awk -F, '$2 == "zerocopy" { print $5, $16, ($17 >= 90) }' "$T/out/zc-matrix-runs.csv" | sort | tr '\n' '|')" \
		"trunc 100.0 0|zerocopy 100.0 1|" "copied_pct and mapped_pct in the runs CSV"
	expect_eq "$(awk -F, '$1 == "splice" { print $4 "[" $38 "][" $41 "]" }' "$T/out/zc-matrix.csv" | tr '\n' '|')" \
		"trunc[][]|zerocopy[][0.0]|" "copied_pct and mapped_pct of splice in the cells CSV"
	grep -q "^# .*/zcs -d -p [0-9]* -t 3600 -J -m trunc$" "$T/table" || fail "no zcs -m trunc"
	grep -q "^# .*/zcc -J -m zerocopy -b 65536 -M 4108 -s 127.0.0.1 " "$T/table" || fail "no zcc -M 4108"
	check_csvs $((2 * n)) 1 min-max
	check_verdict "none, zcs -m trunc" "$n"
	check_verdict "none, zcs -m zerocopy" "$n"
}

test_matrix_sends_given_files_and_places_processes() {
	make_files "$T/f"
	matrix --modes sendfile --files "$T/f" --loops 300 --placements same --rounds 1
	expect_eq "$(grep -c -E "$ROW" "$T/table")" 1 "table rows"
	grep -q "/zcs -d -p [0-9]* -t 3600 -J -m read -B [0-9]*$" "$T/table" || fail "zcs not pinned: $(cat "$T/table")"
	grep -q "/zcc -J -c -T $TARE -m sendfile -B [0-9]* .* <7 files>$" "$T/table" || fail "zcc not pinned"
	check_csvs 1 1 min-max
}

# expect_receiver_figures: a --remote run's verdict says which end paid for
# sendfile, and its runs CSV has zcs's own CPU and the receiver's load,
# demand and packets.
expect_receiver_figures() {
	grep -q -E '^      sendfile +sender [0-9.]+, receiver [0-9.]+: the (sender|receiver) paid [0-9]+%$' "$T/table" ||
		fail "no verdict on which end paid: $(cat "$T/table")"
	sed 1d "$T/out/zc-matrix-runs.csv" | awk -F, '{ exit !($10 > 0 && $21 > 0 && $22 > 0 && $25 > 0 && $26 > 0) }' ||
		fail "no receiver figures in the runs CSV: $(cat "$T/out/zc-matrix-runs.csv")"
}

test_matrix_netns_runs_across_a_veth_pair() {
	[ "$(id -u)" = 0 ] || skip "--netns needs root"
	ip netns add "zc-probe-$$" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns del "zc-probe-$$"
	matrix --netns --modes sendfile --loops 10 --placements none --rounds 1
	grep -q '^# netns: zcc in zc-a-[0-9]* (10.250.0.1), zcs in zc-b-[0-9]* (10.250.0.2)' "$T/table" ||
		fail "no netns line: $(cat "$T/table")"
	grep -q "^# ip netns exec zc-a-[0-9]* .*/zcc -J -c -T $TARE -m sendfile -s 10.250.0.2 " "$T/table" ||
		fail "zcc was not run in the namespace"
	# --netns is --remote over its namespace: zcs -c there measures the receiver.
	grep -q "^# ip netns exec zc-b-[0-9]* .*/zcs -d -p [0-9]* -t 3600 -J -c -T $TARE -m read  (in $T)\$" "$T/table" ||
		fail "no zcs -c in the far namespace: $(cat "$T/table")"
	grep -q '^# one host: the far end (ip netns exec zc-b-[0-9]*) is this machine' "$T/table" ||
		fail "no word that one host cannot separate the ends"
	check_csvs 1 1 min-max
	expect_receiver_figures
	! ip netns list | grep -q 'zc-[ab]-' || fail "namespaces left behind: $(ip netns list)"
}

# Each end on CPUs of its own (--sender-cpus, --receiver-cpus): zcc and its
# meter on the first, zcs and its meter on the second, their received
# packets there too (RPS), one placement named for them; on one host the
# two meters run at once, so the turns give the receiver's block and both
# ends' for real, and the verdict says which CPUs each end had.
test_matrix_gives_each_end_cpus_of_its_own() {
	local first second ns
	[ "$(id -u)" = 0 ] || skip "--netns needs root"
	[ "$(allowed_cpus)" -ge 2 ] || skip "needs two CPUs"
	ip netns add "zc-probe-$$" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns del "zc-probe-$$"
	first=$(affinity_cpus | sed -n 1p)
	second=$(affinity_cpus | sed -n 2p)
	matrix --netns --sender-cpus "$first" --receiver-cpus "$second" --modes sendfile,write --loops 5 \
		--rounds 1 --turns 2 --rate none
	grep -qxF "# one host, each end on CPUs of its own: zcc and its meter on CPUs $first, zcs and its meter on CPUs $second; both ends metered at once in the turns" "$T/table" ||
		fail "no line of each end's CPUs: $(cat "$T/table")"
	grep -q "^# ip netns exec zc-a-[0-9]* .*/zcc -J -c -T $TARE -E -m sendfile,write -A 100 -b 1048576 -U $first -B $first -s 10.250.0.2 " "$T/table" ||
		fail "no turns metered on the sender's CPUs: $(grep zcc "$T/table")"
	grep -q "^# ip netns exec zc-b-[0-9]* .*/zcs -d -p [0-9]* -t 3600 -J -c -T $TARE -U $second -m read -B $second  (in $T)\$" "$T/table" ||
		fail "no zcs metered on the receiver's CPUs: $(grep zcs "$T/table")"
	expect_eq "$(grep -c "^  placement s$first/r$second (zcc and its meter on CPUs $first, zcs and its meter on CPUs $second), zcs -m read, -b 1048576: " "$T/table")" 1 \
		"the verdict's placement: $(cat "$T/table")"
	grep -q '^   the receiver (the far end.s meter, over the same slots): [0-9]* blocks$' "$T/table" &&
		grep -q '^   both ends (the sender.s and the receiver.s us/KB added): [0-9]* blocks$' "$T/table" ||
		fail "no receiver's or both ends' block: $(cat "$T/table")"
	expect_eq "$(awk -F, 'NR > 1 { print $8 "," $29 "," ($12 != "") }' "$T/out/zc-matrix-turns.csv" | sort | tr '\n' '|')" \
		"sendfile,both,0|sendfile,receiver,1|sendfile,sender,1|write,both,0|write,receiver,1|write,sender,1|" "the turns CSV's rows"
	! ip netns list | grep -q 'zc-[ab]-' || fail "namespaces left behind: $(ip netns list)"
}

# The far end's command line holds the working directory's name and zcs's
# path quoted: a name with a space, quotes, a semicolon and a $(...) is a
# name, never code.
test_matrix_netns_from_a_directory_with_shell_in_its_name() {
	local dir found
	[ "$(id -u)" = 0 ] || skip "--netns needs root"
	ip netns add "zc-probe-$$" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns del "zc-probe-$$"
	dir="$T/a b;touch PWNED;c \$(touch PWNED2) 'q' \"d\""
	mkdir -p "$dir"
	(cd "$dir" && bash "$ROOT/scripts/zc-matrix" --netns "${QUICK_METER[@]}" --modes sendfile \
		--placements none --rounds 1 --loops 5 --out "$T/out") >"$T/table" 2>"$T/err" ||
		fail "zc-matrix failed in '$dir': $(cat "$T/err")"
	found=$(find "$T" -name 'PWNED*'; find / -maxdepth 1 -name 'PWNED*')
	[ -z "$found" ] || fail "the directory's name ran as a command: $found"
	grep -qF "(in $dir)" "$T/table" || fail "no zcs line in '$dir': $(cat "$T/table")"
	[ -s "$dir/counts_per_sec" ] || fail "no calibration in '$dir'"
	check_csvs 1 1 min-max
	expect_receiver_figures
}

# A run killed with SIGKILL cannot clean up: the next run removes its
# namespaces and its scratch directory, since its pid is gone, and says so.
# It is killed as its first metered run begins: 100 loops of the files take
# about 0.7 s here, each run before it as long (400 took 3 s).
test_matrix_removes_what_a_killed_run_left() {
	local pid left k
	[ "$(id -u)" = 0 ] || skip "--netns needs root"
	ip netns add "zc-probe-$$" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns del "zc-probe-$$"
	cd "$T"
	# Its own tare, 300 ms: at the tests' 50, one killed run in six here
	# left no zcc to stop (at 100 and at 300, none in eight).
	setsid bash "$ROOT/scripts/zc-matrix" --netns "${QUICK_METER[@]}" --tare-ms 300 --modes sendfile \
		--placements none --rounds 1000 --loops 100 --out "$T/out1" >"$T/t1" 2>"$T/e1" &
	pid=$!
	started "$pid"
	NETNS+=("zc-a-$pid" "zc-b-$pid")
	wait_until 60 eval 'pgrep -s '"$pid"' -f "$ROOT/zcc -J -c " >/dev/null' || fail "no zcc -c running: $(cat "$T/e1")"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	# What it started goes on: the zcc of the moment, a run of some seconds
	# (its meter's hold dies with it, its far zcs once its FIFO is closed).
	left=$(pgrep -s "$pid" | sort -n | tr '\n' ' ')
	for k in $left; do
		started "$k"
	done
	pgrep -s "$pid" -f "$ROOT/zcc" >/dev/null || fail "no zcc left to stop: $(pgrep -a -s "$pid")"
	ip netns list | grep -q "^zc-a-$pid" || fail "no namespace left to clean up: $(ip netns list)"
	ls -d "${TMPDIR:-/tmp}/zc-matrix.$pid."* >/dev/null 2>&1 || fail "no scratch directory left to clean up"
	matrix --netns --modes sendfile --placements none --rounds 1 --loops 5
	grep -q "^# removed what zc-matrix runs that are gone left behind: pid [0-9].*${TMPDIR:-/tmp}/zc-matrix\.$pid\..*zc-[ab]-$pid zc-[ab]-$pid" "$T/table" ||
		fail "no line of what was removed: $(cat "$T/table")"
	grep -q "/proc/.*cmdline" "$T/err" && fail "it said: $(cat "$T/err")"
	! ip netns list | grep -q -- "-$pid\b" || fail "namespaces left: $(ip netns list)"
	! ls -d "${TMPDIR:-/tmp}/zc-matrix.$pid."* >/dev/null 2>&1 || fail "scratch directory left"
	# Zombies aside: their parent, the killed run, is what should reap them.
	[ -z "$(session_running "$pid")" ] || fail "processes of the killed run left: $(session_running "$pid")"
}

# SIGTERM stops a run within a second, in the middle of a zcc run, with
# nothing of it left running, and the rounds measured reported.
test_matrix_stops_within_a_second_of_SIGTERM() {
	local pid began took
	cd "$T"
	setsid bash "$ROOT/scripts/zc-matrix" "${QUICK_METER[@]}" --modes sendfile \
		--placements none --rounds 1000 --loops 200 --out "$T/out1" >"$T/t1" 2>"$T/e1" &
	pid=$!
	started "$pid"
	wait_until 60 eval '[ "$({ wc -l <"$T/out1/zc-matrix-runs.csv"; } 2>/dev/null || echo 0)" -ge 2 ]' ||
		fail "the run measured nothing: $(cat "$T/e1")"
	wait_until 10 eval 'pgrep -s '"$pid"' -f "$ROOT/zcc" >/dev/null' || fail "no zcc running"
	began=$(date +%s%N)
	kill -TERM "$pid"
	wait_until 10 eval '! pgrep -s '"$pid"' -f "$ROOT/zc[cs]" >/dev/null' ||
		fail "still running 10 s after SIGTERM: $(pgrep -a -s "$pid")"
	took=$((($(date +%s%N) - began) / 1000000))
	[ "$took" -lt 1000 ] || fail "zcc and zcs stopped $took ms after SIGTERM"
	wait "$pid" 2>/dev/null || true
	grep -q "^zc-matrix: stopped early: what it measured is in $T/out1/zc-matrix-runs.csv" "$T/e1" ||
		fail "no word of the stop: $(cat "$T/e1")"
	# A stop on purpose is no failure of zcc's (it said "zcc failed: connection reset").
	! grep -q 'zcc failed' "$T/e1" || fail "a stop on purpose: $(cat "$T/e1")"
}

# What zc-matrix is given to read, write and reach is checked before it
# waits for the host's meter or calibrates, each with a line naming it.
test_matrix_checks_files_out_host_and_remote_before_the_meter() {
	local args
	starts_no_meter
	rm -f "$T/counts_per_sec"
	: >"$T/afile"
	mkdir "$T/empty"
	for args in "--files $T/none|--files '$T/none': not a directory" \
		"--files $T/empty|--files '$T/empty': no regular file in it with anything to send" \
		"--out $T/afile|--out '$T/afile': it exists and is not a directory" \
		"--host no-such-host.invalid|--host 'no-such-host.invalid': it has no address (getent ahosts)"; do
		(cd "$T" && bash "$ROOT/scripts/zc-matrix" ${args%%|*}) >"$T/out" 2>"$T/err" && fail "${args%%|*} passed"
		expect_eq "$(cat "$T/err")" "zc-matrix: ${args#*|}" "${args%%|*}"
		[ ! -s "$T/out" ] || fail "${args%%|*}: it began: $(cat "$T/out")"
	done
	(cd "$T" && bash "$ROOT/scripts/zc-matrix" --remote "false" --host 127.0.0.1) >"$T/out" 2>"$T/err" &&
		fail "an unreachable far end passed"
	expect_eq "$(cat "$T/err")" "zc-matrix: the far end (false) cannot be reached: it exited non-zero"
	[ ! -e "$T/counts_per_sec" ] || fail "it calibrated first"
}

# With --netns too, SIGTERM to the run or SIGINT to its group (Ctrl-C)
# leaves nothing of it running: zcc, a grandchild, went on sending after
# SIGTERM, and the far listening zcs, whose shell SIGINT ended, ignored it
# and lived on in a namespace whose name was gone.
test_matrix_netns_stops_everything_on_SIGTERM_and_SIGINT() {
	local pid sig
	[ "$(id -u)" = 0 ] || skip "--netns needs root"
	ip netns add "zc-probe-$$" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns del "zc-probe-$$"
	cd "$T"
	for sig in TERM INT; do
		# SIGINT as a terminal's Ctrl-C finds it: not ignored, as a
		# background job's is (perl puts it back to the default).
		setsid perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die "exec: $!"' \
			bash "$ROOT/scripts/zc-matrix" "${QUICK_METER[@]}" --netns --modes sendfile \
			--placements none --rounds 1000 --loops 100 --out "$T/out-$sig" >"$T/t-$sig" 2>"$T/e-$sig" &
		pid=$!
		started "$pid"
		# In the middle of a metered run, its soakers running.
		wait_until 60 eval 'pgrep -s '"$pid"' -f "$ROOT/zcc -J -c " >/dev/null' || fail "no zcc -c running: $(cat "$T/e-$sig")"
		if [ "$sig" = INT ]; then
			kill -INT -- "-$pid"
		else
			kill -TERM "$pid"
		fi
		wait_until 10 eval '[ -z "$(session_running '"$pid"')" ]' ||
			fail "still running 10 s after SIG$sig: $(session_running "$pid")"
		wait "$pid" 2>/dev/null || true
	done
}

# A calibration refused (every CPU 80% taken by tasks above idle priority,
# each try of three) ends the run there, in its words: it went on through a pipe, and failed
# later at its meter.
test_matrix_stops_where_the_calibration_is_refused() {
	local c
	rm -f "$T/counts_per_sec"
	for c in $(affinity_cpus); do
		"$HELPERS/loadgen" -c "$c" -f 80 -t 30 >/dev/null &
		started "$!"
	done
	sleep 0.2
	(cd "$T" && bash "$ROOT/scripts/zc-matrix" --calibrate-ms 100 --modes sendfile --placements none \
		--rounds 1 --loops 1 --out "$T/out") >"$T/table" 2>"$T/err" && fail "it ran: $(cat "$T/table")"
	expect_match "$(tail -n 1 "$T/err")" "^zc-matrix: the calibration failed: cyclesoak: calibration refused: a soaker had only [0-9.]+% of its CPU in a period"
	[ ! -s "$T/out/zc-matrix-runs.csv" ] || [ "$(wc -l <"$T/out/zc-matrix-runs.csv")" = 1 ] ||
		fail "it measured: $(cat "$T/out/zc-matrix-runs.csv")"
}

# --remote CMD starts zcs through CMD (here ip netns exec, from the other
# namespace), reads its summaries back through it, and adds the receiver's
# meter; a far end that cannot be reached, or prints something else than
# zcs's summaries, stops the run with one line, keeping what was measured.
test_matrix_remote_runs_zcs_through_a_command() {
	two_hosts
	remote_matrix() {
		rm -rf "$T/out"
		(cd "$T" && ip netns exec "$NS_A" bash "$ROOT/scripts/zc-matrix" "${QUICK_METER[@]}" \
			--modes sendfile --placements none --rounds 1 --loops 5 --out "$T/out" "$@") >"$T/table" 2>"$T/err"
	}
	# Two placements: two far zcs at once, each stopped at the end.
	remote_matrix --remote "ip netns exec $NS_B" --host 10.251.0.2 --placements none,separate ||
		fail "zc-matrix failed: $(cat "$T/err")"
	pgrep -f -- "-t 3600 -J -m read" >/dev/null && fail "a far zcs outlived the run: $(pgrep -af -- '-t 3600 -J -m read')"
	grep -q "^# ip netns exec $NS_B $ROOT/zcs -d -p [0-9]* -t 3600 -J -m read  (in $T)\$" "$T/table" ||
		fail "no far zcs line: $(cat "$T/table")"
	expect_receiver_figures
	# A far end that is not there.
	! remote_matrix --remote "ip netns exec zc-none-$$" --host 10.251.0.2 || fail "no namespace, and zc-matrix passed"
	expect_eq "$(wc -l <"$T/err")" 1 "lines on stderr: $(cat "$T/err")"
	expect_match "$(cat "$T/err")" "^zc-matrix: the far end \\(ip netns exec zc-none-$$\\) cannot be reached: .*zc-none-$$"
	# A far end that says something of its own on stdout, as a login banner would.
	printf '#!/bin/sh\necho "Welcome to the far host"\nexec "$@"\n' >"$T/banner"
	chmod +x "$T/banner"
	! remote_matrix --remote "$T/banner ip netns exec $NS_B" --host 10.251.0.2 || fail "junk, and zc-matrix passed"
	expect_match "$(grep -v '^zc-matrix: warning' "$T/err")" "^zc-matrix: zcs on the far end \\($T/banner ip netns exec $NS_B\\) printed what is not its -J summary: 'Welcome to the far host'; the runs measured so far are in $T/out/zc-matrix-runs.csv\$"
	# A far zcs that dies two seconds in: the run stops at the next zcc, in
	# one line, and the rows measured before are in the runs CSV. The line
	# is zcc's failure, or, when zcs died between zcc's end and its own
	# summary, that zcs did not report the run.
	printf '#!/bin/sh\nexec timeout -s KILL 2 %s "$@"\n' "$ROOT/zcs" >"$T/dying-zcs"
	chmod +x "$T/dying-zcs"
	! remote_matrix --remote "ip netns exec $NS_B" --remote-zcs "$T/dying-zcs" --host 10.251.0.2 --rounds 20 ||
		fail "zcs died, and zc-matrix passed"
	expect_match "$(grep -v '^zc-matrix: warning' "$T/err" | head -n 1)" "^zc-matrix: (zcc failed: .*|zcs did not report the run) \\(is zcs still running on the far end, ip netns exec $NS_B\\?\\); the runs measured so far are in $T/out/zc-matrix-runs.csv\$"
	[ "$(sed 1d "$T/out/zc-matrix-runs.csv" | wc -l)" -ge 1 ] || fail "no runs kept: $(cat "$T/out/zc-matrix-runs.csv")"
	# Stopped early, it reports the rounds it has, and says where they are.
	grep -qx "zc-matrix: stopped early: what it measured is in $T/out/zc-matrix-runs.csv; its report follows (scripts/zc-report $T/out/zc-matrix-runs.csv)" "$T/err" ||
		fail "no word of the early stop: $(cat "$T/err")"
	grep -q '^sendfile[ !]' "$T/table" && grep -q '^# every run: ' "$T/table" ||
		fail "no report of the rounds measured: $(cat "$T/table")"
}

# far_host_sshd: the far host as a user has it: an OpenSSH server of the
# test's own in $NS_B (two_hosts), on 10.251.0.2 and a port of its own, its
# own config and host key, and a key made for the test, key-only. Sets
# SSH_CMD (the ssh command that logs in there) and SSHD_PID.
far_host_sshd() {
	local port
	port=$(free_port)
	ns_sshd "$NS_B" 10.251.0.2 "$port"
	wait_until 5 eval 'ip netns exec "$NS_A" bash -c "exec 3<>/dev/tcp/10.251.0.2/'"$port"'" 2>/dev/null' ||
		fail "sshd did not start: $(cat "$T/sshd-$NS_B.err")"
	SSH_CMD="$(ns_ssh_options "$port") -o BatchMode=yes root@10.251.0.2"
}

# far_running: what runs in $NS_B besides sshd (the far host's zc), one a line.
far_running() {
	local p
	for p in $(ip netns pids "$NS_B"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sshd ] ||
			{ tr '\0' ' ' <"/proc/$p/cmdline"; echo; } 2>/dev/null || true
	done
}

# ssh_masters: the shared connections to the far host still open here, a
# line each (ssh's own session: not in zc-matrix's).
ssh_masters() {
	pgrep -af -- "$T/key .*-o ControlMaster=yes" || true
}

# far_matrix_in_background OUT ARGS...: zc-matrix in its own session in
# $NS_A, zcs on the far host through ssh, into $T/OUT; sets MATRIX_PID once
# it has measured a run.
far_matrix_in_background() {
	local o=$1
	shift
	setsid bash -c 'cd "$1" && exec ip netns exec "$2" bash "$3/scripts/zc-matrix" "${@:4}"' sh "$T" "$NS_A" "$ROOT" \
		"${QUICK_METER[@]}" --modes sendfile --placements none --loops 5 --rounds 1000 --remote-dir "$T/far" \
		--remote "$SSH_CMD" --out "$T/$o" "$@" >"$T/$o.table" 2>"$T/$o.err" &
	MATRIX_PID=$!
	started "$MATRIX_PID"
	wait_until 60 eval '[ "$({ wc -l <"$T/'"$o"'/zc-matrix-runs.csv"; } 2>/dev/null || echo 0)" -ge 2 ]' ||
		fail "the run measured nothing: $(cat "$T/$o.err")"
}

# The ssh path that carries every two-host run, through a real sshd on the
# far host: the far host calibrates its meter, the far zcs are started and
# stopped, their summaries come back, the turns go to the far zcs (zcc -E)
# and its rows are in the turns CSV; nothing is left running there after
# the run, after a SIGTERM, or after the far sshd is killed mid-run.
test_matrix_remote_over_ssh() {
	local began
	two_hosts
	far_host_sshd
	mkdir "$T/far"
	(cd "$T" && exec ip netns exec "$NS_A" bash "$ROOT/scripts/zc-matrix" "${QUICK_METER[@]}" --turns 1 \
		--modes sendfile,write --placements none --loops 5 --rounds 1 --remote-dir "$T/far" \
		--remote "$SSH_CMD" --out "$T/out") >"$T/table" 2>"$T/err" || fail "zc-matrix over ssh failed: $(cat "$T/err")"
	grep -q "^# the far end: $ROOT/zcs -C -T $CAL_MS in $T/far: calibrated OK\\.  [0-9]* loops/sec\$" "$T/table" ||
		fail "no calibration on the far end: $(cat "$T/table")"
	[ -s "$T/far/counts_per_sec" ] || fail "no counts_per_sec on the far end"
	grep -qF "# one host: the far end ($SSH_CMD) is this machine" "$T/table" || fail "no one-host line: $(cat "$T/table")"
	grep -qF "# $SSH_CMD $ROOT/zcs -d -p " "$T/table" && grep -q -- " -t 3600 -J -c -T $TARE -m read  (in $T/far)\$" "$T/table" ||
		fail "no zcs -c over ssh: $(cat "$T/table")"
	grep -q "^# $ROOT/zcc -J -c -T $TARE -E -m sendfile,write -A 100 -b 1048576 -s 10.251.0.2 " "$T/table" ||
		fail "no turns to the far zcs: $(grep zcc "$T/table")"
	# The far meter's figures and packets (zcs's own CPU time of 5 loops, in
	# hundredths of a second, read 0.00 once in a sanitizer pass).
	sed 1d "$T/out/zc-matrix-runs.csv" | awk -F, '{ exit !($21 > 0 && $22 > 0 && $25 > 0 && $26 > 0) }' ||
		fail "no receiver figures in the runs CSV: $(cat "$T/out/zc-matrix-runs.csv")"
	expect_eq "$(awk -F, '{ print $8 "," $29 }' "$T/out/zc-matrix-turns.csv" | sort | tr '\n' '|')" \
		"arm,end|sendfile,receiver|sendfile,sender|write,receiver|write,sender|" "the turns CSV's rows"
	grep -q '^Verdict at full speed, from the turns' "$T/table" || fail "no verdict: $(cat "$T/table")"
	# Every far command through one connection, closed at the end.
	grep -qxF "# the far end's commands share one connection ($SSH_CMD -o ControlMaster=yes -f -N), closed at the end" "$T/table" ||
		fail "no shared connection: $(grep '^# ' "$T/table")"
	wait_until 5 eval '[ -z "$(far_running)" ] && [ -z "$(ssh_masters)" ]' ||
		fail "left running: on the far host: $(far_running); here: $(ssh_masters)"
	# SIGTERM mid-run: the far zcs stop with it.
	far_matrix_in_background out2
	kill -TERM "$MATRIX_PID"
	wait_until 10 eval '[ -z "$(far_running)" ] && [ -z "$(session_running '"$MATRIX_PID"')" ] && [ -z "$(ssh_masters)" ]' ||
		fail "still running 10 s after SIGTERM: far: $(far_running); here: $(session_running "$MATRIX_PID") $(ssh_masters)"
	wait "$MATRIX_PID" 2>/dev/null || true
	grep -q "^zc-matrix: stopped early: what it measured is in $T/out2/zc-matrix-runs.csv" "$T/out2.err" ||
		fail "no word of the stop: $(cat "$T/out2.err")"
	# The far sshd killed mid-run, its sessions too: the run ends in one
	# line, with what it measured kept, and nothing of zc is left there.
	far_matrix_in_background out3
	began=$SECONDS
	for p in $(ip netns pids "$NS_B"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" != sshd ] || kill -9 "$p" 2>/dev/null || true
	done
	wait_until 30 eval '! kill -0 '"$MATRIX_PID"' 2>/dev/null' || fail "zc-matrix still running 30 s after the far sshd died"
	wait "$MATRIX_PID" && fail "the far sshd died, and zc-matrix passed"
	expect_match "$(grep '^zc-matrix: ' "$T/out3.err" | grep -v -e '^zc-matrix: warning' -e '^zc-matrix: stopped early' | head -n 1)" \
		"^zc-matrix: .*the runs measured so far are in $T/out3/zc-matrix-runs.csv\$"
	[ "$(sed 1d "$T/out3/zc-matrix-runs.csv" | wc -l)" -ge 1 ] || fail "no runs kept"
	wait_until 5 eval '[ -z "$(far_running)" ] && [ -z "$(session_running '"$MATRIX_PID"')" ] && [ -z "$(ssh_masters)" ]' ||
		fail "left running after the far sshd died: far: $(far_running); here: $(session_running "$MATRIX_PID") $(ssh_masters)"
	echo "# the run ended $((SECONDS - began)) s after the far sshd died: $(grep '^zc-matrix: ' "$T/out3.err" | grep -v '^zc-matrix: warning' | head -n 1)"
}

# --table 2001: the 2001 study's rows and columns after the report, from the
# same runs: the senders' load, interrupts and packets, and the receiving
# host's; with the offloads switched (root and ethtool), the no xsum/SG rows.
test_matrix_table_2001_prints_the_2001_layout() {
	local fig='[0-9]+\.[0-9]%' rows=3 usage
	[ "$(id -u)" = 0 ] || skip "--netns needs root"
	ip netns add "zc-probe-$$" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns del "zc-probe-$$"
	usage=$(bash "$ROOT/scripts/zc-matrix" --table 2001 2>&1) && fail "--table 2001 on loopback passed"
	expect_eq "$usage" "zc-matrix: --table 2001 is a two-host table: give --netns, --remote or --host"
	matrix --netns --table 2001 --placements none --rounds 1 --loops 2
	grep -q "^# .*/zcc -J -c -T $TARE -m send -b 65536 -s 10.250.0.2 -p [0-9]* -n 2 <60 files>\$" "$T/table" ||
		fail "not send at 64 KiB: $(cat "$T/table")"
	grep -q '^  *CPU  *kernel  *gap  *affine  *kernel  *gap  *ints/s  *rx pps  *tx pps  *MB/s  *us/KB$' "$T/table" ||
		fail "no heading: $(cat "$T/table")"
	command -v ethtool >/dev/null && rows=6
	# A window of 2 loops may hold no tick of /proc/stat: then no kernel view, and no gap.
	expect_eq "$(grep -c -E "^  (sendfile\(\)|send\(\)|receiving)[^:]*: +$fig +(-?$fig +$GAP|- +-) +- +- +- +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]{3}\$" "$T/table")" "$rows" \
		"rows: $(cat "$T/table")"
	if [ "$rows" = 6 ]; then
		grep -q -E "^  sendfile\(\), no xsum/SG: +$fig " "$T/table" || fail "no sendfile without offloads"
	fi
}

# --offload switches the sending interface's offloads cell by cell, records
# the state ethtool reads back, reports each state and compares them, and
# puts the interface back as it was, also when the run is stopped.
test_matrix_offload_switches_records_and_restores() {
	local before pid
	[ "$(id -u)" = 0 ] || skip "--offload needs root"
	command -v ethtool >/dev/null || skip "ethtool is not installed (apt-get install ethtool)"
	two_hosts
	ip netns exec "$NS_B" "$ROOT/zcs" -d -t 3600 -J >"$T/zcs.out" 2>"$T/zcs.err" &
	started $!
	wait_until 5 grep -q "listening on" "$T/zcs.err" || fail "zcs did not start: $(cat "$T/zcs.err")"
	before=$(offloads "$IF_A")
	echo "$before" | grep -q 'scatter-gather: on' || fail "the veth starts without scatter-gather: $before"
	matrix() {
		(cd "$T" && ip netns exec "$NS_A" bash "$ROOT/scripts/zc-matrix" "${QUICK_METER[@]}" \
			--host 10.251.0.2 --out "$T/out" "$@") >"$T/table" 2>"$T/err"
	}
	matrix --offload on,off --modes sendfile,send --placements none --rounds 1 --loops 5 ||
		fail "zc-matrix failed: $(cat "$T/err")"
	grep -q "^# offload: on and off on $IF_A (ethtool -K $IF_A sg STATE tx STATE; it was: tx on sg on)\$" "$T/table" ||
		fail "no offload line: $(cat "$T/table")"
	expect_eq "$(awk -F, "$RUNS_AWK"'{ print $c["mode"] "=" $c["offload"] }' \
		"$T/out/zc-matrix-runs.csv" | sort | tr '\n' ' ')" \
		"send=sg:off/tx:off send=sg:on/tx:on sendfile=sg:off/tx:off sendfile=sg:on/tx:on " "each cell's state read back"
	for st in sg-off-tx-off sg-on-tx-on; do
		expect_eq "$(sed 1d "$T/out/offload-$st/zc-matrix-runs.csv" | wc -l)" 2 "runs in $st"
	done
	grep -q "^# offload sg:off/tx:off ($IF_A):\$" "$T/table" || fail "no report of the off state"
	grep -q "^# offload sg:on/tx:on ($IF_A):\$" "$T/table" || fail "no report of the on state"
	expect_eq "$(grep -c -E '^  placement none, zcs -m read, (sendfile|send -b 1048576) +[-+][0-9.]+% \[[-+][0-9.]+, [-+][0-9.]+\]  tx pps [0-9]+ -> [0-9]+$' "$T/table")" 2 \
		"comparison lines: $(cat "$T/table")"
	expect_eq "$(offloads "$IF_A")" "$before" "the offloads after the run"
	# Stopped half way, with the offloads off for a cell or on.
	(cd "$T" && exec ip netns exec "$NS_A" bash "$ROOT/scripts/zc-matrix" "${QUICK_METER[@]}" \
		--host 10.251.0.2 --out "$T/out2" --offload off --modes send --placements none --rounds 50 --loops 5) \
		>"$T/table2" 2>"$T/err2" &
	pid=$!
	started "$pid"
	wait_until 30 eval '[ "$(cat "$T/out2/zc-matrix-runs.csv" 2>/dev/null | wc -l)" -ge 3 ]' ||
		fail "the second run did not get going: $(cat "$T/err2")"
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
	expect_eq "$(offloads "$IF_A")" "$before" "the offloads after a stopped run"
}

# The report is made from the runs CSV alone: zc-report of a saved CSV prints
# exactly what zc-matrix printed after its runs, and the runner said where it
# was, cell by cell.
test_report_of_a_saved_runs_csv_is_the_runners_own() {
	matrix --modes sendfile,send --bufsizes 4096 --placements none --rounds 2 --loops 5
	expect_eq "$(grep -c '^# round [12] of 2, cell [1-2] of 2, ' "$T/table")" 4 "progress lines: $(cat "$T/table")"
	grep -qx '# round 1 of 2, cell 1 of 2, time left unknown' "$T/table" || fail "no first progress line"
	grep -q -E '^# round 2 of 2, cell 2 of 2, about [0-9]+ s left$' "$T/table" || fail "no time left"
	cp "$T/out/zc-matrix-runs.csv" "$T/saved.csv"
	bash "$ROOT/scripts/zc-report" --out "$T/out" "$T/out/zc-matrix-runs.csv" >"$T/report" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	# zc-matrix's report, less its two lines after it (the verdict's command, the repeat's).
	expect_eq "$(cat "$T/report")" "$(sed -n '/^# 2 rounds; /,$p' "$T/table" | sed '1i\\' | head -n -2)" "the report"
	cmp -s "$T/saved.csv" "$T/out/zc-matrix-runs.csv" || fail "the report changed the runs CSV"
	# Columns are read by name: the same runs in another column order report the same.
	awk -F, -v OFS=, '{ t = $2; $2 = $16; $16 = t; print }' "$T/saved.csv" >"$T/swapped.csv"
	bash "$ROOT/scripts/zc-report" --out "$T/out" "$T/swapped.csv" >"$T/report2" 2>"$T/err" ||
		fail "zc-report of the swapped CSV failed: $(cat "$T/err")"
	expect_eq "$(sed -e 's|out/swapped|out/zc-matrix|g' -e 's|zc-matrix-cells.csv|zc-matrix.csv|' -e 's|swapped.csv|out/zc-matrix-runs.csv|' "$T/report2")" \
		"$(cat "$T/report")" "the report of the swapped columns"
}

# A list that names nothing is a usage error before anything runs, and an
# --out that begins with '-' is a directory of that name, not an option.
test_empty_lists_and_dash_paths_are_taken_as_written() {
	local rc=0
	starts_no_meter
	bash "$ROOT/scripts/zc-matrix" --modes '' >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:zc-matrix: --modes '': an empty list names nothing"
	[ -s "$T/out" ] && fail "zc-matrix --modes '' ran: $(cat "$T/out")"
	rc=0
	bash "$ROOT/scripts/zc-matrix" --recv , >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:zc-matrix: --recv ',': an empty list names nothing"
	cp "$ROOT/tests/report-runs.csv" "$T/"
	(cd "$T" && bash "$ROOT/scripts/zc-report" --out -x report-runs.csv) >"$T/out" 2>&1 ||
		fail "zc-report --out -x: $(cat "$T/out")"
	[ -s "$T/-x/report.csv" ] || fail "no ./-x/report.csv: $(cat "$T/out")"
}

# scripts/compare-defaults, tiny: six tables (four where uring-zc cannot
# run), a row per setting with a median, a ratio to the first row and the
# rounds, and every zcs and zcc command line.
test_compare_defaults_prints_its_tables() {
	local row='^(send|write|sendfile|zerocopy|uring-zc), [-a-z0-9 ,]+ +[0-9]+\.[0-9] +[0-9]+\.[0-9]{2}x  ( [0-9]+\.[0-9]){1}$'
	local tables="chunk size (send, 8 MiB file)|chunk size (write, 8 MiB file)|zcs -l (sendfile)|zcs -l (send)|depth (zerocopy, -b 64k)|"
	bash "$ROOT/scripts/compare-defaults" --sizes 64k,1m --lowats 1,256k --depths 4,default --rounds 1 \
		--secs 0.5 --file-mb 8 >"$T/out" 2>"$T/err" || fail "compare-defaults failed: $(cat "$T/err")"
	if grep -q '^# no uring-zc table' "$T/out"; then
		expect_eq "$(grep -c -E "$row" "$T/out")" 10 "rows: $(cat "$T/out")"
	else
		expect_eq "$(grep -c -E "$row" "$T/out")" 12 "rows: $(cat "$T/out")"
		tables="${tables}depth (uring-zc, -b 64k)|"
	fi
	expect_eq "$(grep -E '^[a-z]' "$T/out" | grep -v -E "$row" | sed 's/  *MB.*//' | tr '\n' '|')" \
		"$tables" "table headings"
	expect_eq "$(grep -E "$row" "$T/out" | awk '{ print $(NF - 1) }' | sed -n '1p;3p;5p;7p;9p' | tr '\n' ' ')" \
		"1.00x 1.00x 1.00x 1.00x 1.00x " "first rows' ratios"
	expect_eq "$(grep -E "^zerocopy" "$T/out" | sed 's/  .*//' | tr '\n' '|')" \
		"zerocopy, -b 64k -q 4|zerocopy, -b 64k, default -q|" "depth rows"
	grep -q -x "# .*/zcs -d -p [0-9]* -t 3600 -J -b 1m" "$T/out" || fail "no zcs -b line"
	grep -q -x "# .*/zcs -d -p [0-9]* -t 3600 -J -l 256k" "$T/out" || fail "no zcs -l line"
	grep -q -x "# .*/zcc -s 127.0.0.1 -p [0-9]* -n [0-9]* -m write -b 64k <file, 8 MiB>" "$T/out" || fail "no zcc line"
	grep -q -x "# .*/zcc -s 127.0.0.1 -p [0-9]* -n [0-9]* -m sendfile <60 files>" "$T/out" || fail "no sendfile line"
	grep -q -x "# .*/zcc -s 127.0.0.1 -p [0-9]* -n [0-9]* -m zerocopy -b 64k -q 4 <file, 8 MiB>" "$T/out" ||
		fail "no zcc -q line"
	grep -q -x "# .*/zcc -s 127.0.0.1 -p [0-9]* -n [0-9]* -m zerocopy -b 64k <file, 8 MiB>" "$T/out" ||
		fail "no zcc line with the default depth"
	[ ! -s "$T/err" ] || fail "stderr: $(cat "$T/err")"
}

test_compare_defaults_rejects_bad_values() {
	local rc=0
	bash "$ROOT/scripts/compare-defaults" --file-mb 5000 2>"$T/err" || rc=$?
	expect_eq "$rc" 1
	expect_eq "$(cat "$T/err")" "compare-defaults: --file-mb must be 1 to 4095"
	for v in 0.05 x 1e3; do
		rc=0
		bash "$ROOT/scripts/compare-defaults" --secs "$v" 2>"$T/err" || rc=$?
		expect_eq "$rc:$(cat "$T/err")" "1:compare-defaults: --secs '$v': not a number of seconds, 0.1 or more"
	done
	rc=0
	bash "$ROOT/scripts/compare-defaults" --lowats 0 --sizes 64k --rounds 1 --secs 1 --file-mb 1 >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc" 1
	grep -q "^compare-defaults: zcs -l 0 did not start: zcs: -l '0': must be at least 1" "$T/err" || fail "$(cat "$T/err")"
}

# scripts/compare-iperf3, tiny: the sendfile pairs, each with both sides'
# medians, the ratio with its interval and one of the verdicts, both
# senders with the congestion control asked.
test_compare_iperf3_gives_each_pairs_ratio_interval_and_verdict() {
	local fig='[0-9]+\.[0-9]' r='[0-9]+\.[0-9]{3}' rc=0
	command -v iperf3 >/dev/null || skip "iperf3 is not installed (apt-get install iperf3)"
	bash "$ROOT/scripts/compare-iperf3" --rounds 2 --secs 1 --file-mb 16 --only sendfile --cc reno >"$T/out" 2>"$T/err" ||
		fail "compare-iperf3 failed: $(cat "$T/err")"
	expect_eq "$(grep -c '^# congestion control: reno (zcc -K reno, iperf3 -C reno)$' "$T/out")" 1 "the congestion control"
	expect_eq "$(grep -c -E '^# /.*/zcc -J -s 127\.0\.0\.1 -p [0-9]+ -t 1 -K reno -m sendfile ' "$T/out") $(grep -c '^# iperf3 -c 127.0.0.1 -p [0-9]* -t 1 -C reno -Z$' "$T/out")" \
		"4 4" "both sides with reno"
	expect_eq "$(grep -c -E "^zcc -m sendfile (-b 128k \(one 128 KiB\)|\(file set\)) +iperf3 -Z +$fig +$fig +$r"'x \['"$r, $r"'\] +(faster|slower|the same within \+-5%|not resolved)$' "$T/out")" 2 \
		"the sendfile pairs: $(cat "$T/out")"
	expect_eq "$(grep -c '^# round [12]: zc [0-9.]* MB/s, iperf3 [0-9.]* MB/s$' "$T/out")" 4 "the rounds"
	expect_eq "$(tail -n 1 "$T/out")" "# the ratio zcc / iperf3 of each round, its median and interval (the range: fewer than 6 rounds); MB/s of 10^6 bytes"
	bash "$ROOT/scripts/compare-iperf3" --only nothing >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:compare-iperf3: --only 'nothing': memory, sendfile, send or -P"
	rc=0
	bash "$ROOT/scripts/compare-iperf3" --rounds 0 >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:compare-iperf3: '0': a whole number from 1 expected"
	rc=0
	bash "$ROOT/scripts/compare-iperf3" --file-mb 4096 >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:compare-iperf3: --file-mb must be 1 to 4095"
}

# scripts/observer-effect, tiny: a row per configuration with throughput
# alone and soaked, the change, and the interrupts per GB both ways.
test_observer_effect_prints_a_row_per_configuration() {
	local row='^(sendfile|send|zerocopy) (none|same) (256k|1)( -q 2)? +\| +[0-9]+\.[0-9] +[0-9]+\.[0-9]  [-+][0-9]+\.[0-9]% \[[-+][0-9]+\.[0-9]%, [-+][0-9]+\.[0-9]%\] *\| +[0-9]+ +[0-9]+ \| +[0-9]+ +[0-9]+$'
	(cd "$T" && bash "$ROOT/scripts/observer-effect" --rounds 2 --loops 5 \
		--configs "sendfile none 256k;send same 1;zerocopy none 256k -q 2") >"$T/out" 2>"$T/err" ||
		fail "observer-effect failed: $(cat "$T/err")"
	expect_eq "$(grep -c -E "$row" "$T/out")" 3 "rows: $(cat "$T/out")"
	expect_eq "$(grep -E "$row" "$T/out" | sed 's/ *|.*//' | tr '\n' '|')" "sendfile none 256k|send same 1|zerocopy none 256k -q 2|"
	grep -q -E "^# zerocopy none 256k -q 2: alone" "$T/out" || fail "no rounds line for the zcc options"
	grep -q -x "# .*/zcs -d -p [0-9]* -t 3600 -J -l 1 -B [0-9]*" "$T/out" || fail "no pinned zcs line: $(cat "$T/out")"
	grep -q -x '# change: the median of the rounds. paired ratios, with its interval (min-max); the rest: medians of 2 rounds' "$T/out" ||
		fail "no closing line"
}

# scripts/meter-scale, one round: the sample here in its parts, a row for
# this host and for each size asked, each sample the sum of its parts; and
# a clear error for each bad option.
test_meter_scale_prints_a_row_a_size_and_refuses_bad_options() {
	local n rc
	n=$(nproc)
	bash "$ROOT/scripts/meter-scale" --rounds 1 --sizes 4,64 >"$T/out" 2>"$T/err" ||
		fail "meter-scale failed: $(cat "$T/err")"
	grep -q -x "# [0-9-]*, Linux .*, $n CPUs; medians of 1 rounds" "$T/out" || fail "no heading: $(cat "$T/out")"
	grep -q -E "^here \($n CPUs\): a sample [0-9.]+ us: /proc/stat [0-9.]+ us \(its parse [0-9.]+ us\), each soaker's count and clock [0-9.]+ us$" \
		"$T/out" || fail "no line for here: $(cat "$T/out")"
	expect_eq "$(awk '$1 ~ /^[0-9]+$/ && NF == 6 { print $1 }' "$T/out" | tr '\n' ' ')" "$n 4 64 " "rows"
	# Each row's sample: its parse, its counts, and the kernel's writing of /proc/stat (the same in each row).
	expect_eq "$(awk '$1 ~ /^[0-9]+$/ && NF == 6 { k = $4 - $2 - $3; if (!rows++) k0 = k
		if (k - k0 > 0.25 || k0 - k > 0.25) print "sum " $0
		if ($5 < $6 * 9.9 || $5 > $6 * 10.1) print "rates " $0 }' "$T/out")" "" \
		"rows not the sum of their parts: $(cat "$T/out")"
	for bad in "--rounds 0:--rounds '0': a number from 1 to 999" "--sizes 64,x:--sizes '64,x': CPU counts, as 64,192" \
		"--rounds:--rounds needs a value"; do
		rc=0
		# shellcheck disable=SC2086 # the option and its value, as a user types them
		bash "$ROOT/scripts/meter-scale" ${bad%%:*} >"$T/out" 2>"$T/err" || rc=$?
		expect_eq "$rc:$(cat "$T/err")" "2:meter-scale: ${bad#*:}" "meter-scale ${bad%%:*}"
	done
}

# The proofs of where the cost lands, scripts/known-difference's per-CPU
# options and scripts/cpu-ceiling: each bad option a line and exit 1,
# before anything is built or run.
test_the_per_cpu_proofs_refuse_bad_options() {
	local bad rc
	for bad in "known-difference --two-hosts --per-cpu:--two-hosts gives each end its meter of one CPU: not with --meter-cpus or --per-cpu" \
		"known-difference --two-hosts --meter-cpus 1:--two-hosts gives each end its meter of one CPU: not with --meter-cpus or --per-cpu" \
		"known-difference --meter-cpus 1-x:--meter-cpus '1-x': CPUs as taskset gives them (1,3 or 2-5)" \
		"known-difference --meter-cpus:--meter-cpus needs a value" \
		"cpu-ceiling --trials 0:--trials and --secs take a whole number from 1 to 999, not '0'" \
		"cpu-ceiling --secs 5s:--trials and --secs take a whole number from 1 to 999, not '5s'" \
		"cpu-ceiling --secs:--secs needs a value"; do
		rc=0
		# shellcheck disable=SC2086 # the script, the option and its value, as a user types them
		bash "$ROOT/scripts/"${bad%%:*} >"$T/out" 2>"$T/err" || rc=$?
		expect_eq "$rc:$(cat "$T/out" "$T/err")" "1:${bad%% *}: ${bad#*:}" "${bad%%:*}"
	done
}

# --rate R: every run paced at R, the rate and what each run reached in the
# runs CSV, a paced section with its "reached" column, and a verdict that
# says the rate first and ranks by demand with the load beside it.
test_matrix_rate_paces_every_cell_and_says_the_rate() {
	local block
	matrix --modes sendfile,send --placements none --rate-rounds 2 --loops 40 --rate 64m --rate-secs 0.3 --seed 3 "${PACED_METER[@]}"
	grep -qx '# paced at zcc -R 64m (67108864 bytes a second): zcc -t 0.3' "$T/table" ||
		fail "no line of the pace: $(cat "$T/table")"
	expect_eq "$(grep -c '^# .*/zcc -J .* -R 64m -s 127.0.0.1 -p [0-9]* -t 0.3 <60 files>$' "$T/table")" 8 "paced zcc lines"
	expect_eq "$(grep -c '^# .*/zcc -J ' "$T/table")" 8 "zcc lines"
	check_csvs 2 2 min-max 67108864
	awk -F, 'NR > 1 && !($29 > 50 && $29 < 105 && $30 > 50 && $30 < 105) { bad = 1 } END { exit bad }' \
		"$T/out/zc-matrix-runs.csv" || fail "implausible shares of the rate: $(cat "$T/out/zc-matrix-runs.csv")"
	grep -qx '# paced at one rate, zcc -R 64m (67.1 MB/s): every cell does the same work' "$T/table" ||
		fail "no paced heading: $(cat "$T/table")"
	! grep -q '^# at full speed' "$T/table" || fail "a full-speed heading with no full-speed cells"
	grep -q '^mode  *buf placement recv  *| MB/s  *reached load%  *us/KB (zcc -c)  *kernel%  *gap |' "$T/table" ||
		fail "no paced header: $(cat "$T/table")"
	expect_eq "$(grep -c -E "$PACED_ROW" "$T/table")" 2 "paced rows: $(cat "$T/table")"
	grep -qx 'Verdict at one rate, zcc -R 64m (67.1 MB/s): the transmit methods by service demand (zcc -c, us/KB)' "$T/table" ||
		fail "the verdict does not say the rate first: $(cat "$T/table")"
	# The methods' rows, without the note a round's demand of 0 or below
	# adds under them (a load within the meter's noise, set by differences).
	block=$(sed -n '/^  placement none, zcs -m read:$/,/^#/p' "$T/table" | grep -E '^    [a-z-]+( -b [0-9]+)? +(-?[0-9]+\.[0-9]{3} us/KB|missed)')
	expect_eq "$(echo "$block" | wc -l)" 2 "methods in the verdict: $block"
	# A load may read below 0 on a busy machine: it is printed as measured.
	echo "$block" | grep -v -E ' -?[0-9]+\.[0-9]{3} us/KB  load +-?[0-9]+\.[0-9]%  (cheapest|[-+][0-9.]+(%| us/KB) \[[-+][0-9.]+, [-+][0-9.]+\].*)$| missed the rate: reached [0-9]+% without the meter, [0-9]+% with it; not ranked$' &&
		fail "verdict lines: $block"
	return 0
}

# --rate auto: every cell at full speed, then a rate of 20% of the slowest
# cell's median there, in whole MiB a second, then every cell at it; the
# report has both sections, full speed first, each with its own rounds. Its
# last line repeats it comparably (--rate auto=RATE), and does.
test_matrix_rate_auto_paces_at_a_share_of_the_slowest_cell() {
	local want line again
	matrix --modes sendfile,send --placements none --rounds 1 --rate-rounds 2 --loops 5 --rate auto --rate-secs 0.3 "${PACED_METER[@]}"
	want=$(awk -F, 'NR > 1 && $28 == "" && (min == "" || $6 < min) { min = $6 }
		END { printf "%d", min * 1e6 * 20 / 100 / 1048576 }' "$T/out/zc-matrix-runs.csv")
	grep -q -E "^# --rate auto: 20% of the slowest cell's median at full speed, (sendfile|send -b 1048576) \(none, zcs -m read\) at [0-9]+\.[0-9] MB/s: zcc -R ${want}m \([0-9]+\.[0-9] MB/s\)\$" "$T/table" ||
		fail "no auto line for ${want}m: $(cat "$T/table")"
	expect_eq "$(awk -F, 'NR > 1 { print $28 == "" ? "full" : $28 }' "$T/out/zc-matrix-runs.csv" | sort | uniq -c | awk '{ print $1, $2 }' | tr '\n' '|')" \
		"4 $((want * 1048576))|2 full|" "the runs of each phase"
	grep -qx "# rounds: 1 at full speed, 2 at $((want * 1048576)) bytes a second; each figure is the median of its section's rounds and its interval (min-max)" "$T/table" ||
		fail "no line of each section's rounds: $(cat "$T/table")"
	expect_eq "$(awk -F, 'NR > 1 { print $5 == "" ? "full" : "paced", $6, $7 }' "$T/out/zc-matrix.csv" | sort | uniq -c | awk '{ print $1, $2, $3, $4 }' | tr '\n' '|')" \
		"2 full 1 min-max|2 paced 2 min-max|" "the cells CSV's rounds and intervals"
	expect_eq "$(grep -E '^(# at full speed|# paced at one rate|Verdict)' "$T/table" | cut -c1-22 | tr '\n' '|')" \
		"# at full speed: each |Verdict: the transmit |# paced at one rate, z|Verdict at one rate, z|" "the sections in order"
	expect_eq "$(grep -c -E "$ROW" "$T/table"):$(grep -c -E "$PACED_ROW" "$T/table")" "2:2" "rows: $(cat "$T/table")"
	# The last line repeats the run comparably: its modes, at the rate it chose; so it does.
	expect_eq "$(tail -n 2 "$T/table" | head -n 1)" "# the verdicts alone, in 100 columns: scripts/zc-report --verdict $T/out/zc-matrix-runs.csv" "the line before it"
	line=$(tail -n 1 "$T/table")
	expect_eq "$line" "# to repeat this run comparably, its modes at its rate (then scripts/zc-report --compare on the two runs' CSVs): scripts/zc-matrix --calibrate-ms $CAL_MS --tare-ms $TARE --turns 0 --placements none --rounds 1 --rate-rounds 2 --loops 5 --rate-secs 0.3 --calibrate-ms 100 --tare-ms $PACED_TARE --turns 0 --modes sendfile,send --rate auto=${want}m" "the line to repeat it"
	eval "again=(${line#*: scripts/zc-matrix })"
	(cd "$T" && bash "$ROOT/scripts/zc-matrix" "${again[@]}" --out "$T/again") >"$T/table2" 2>"$T/err" ||
		fail "the repeat failed: $(cat "$T/err")"
	grep -qx "# --rate auto=${want}m: zcc -R ${want}m ([0-9.]* MB/s), as given" "$T/table2" || fail "the repeat's rate: $(cat "$T/table2")"
	expect_eq "$(awk -F, 'NR > 1 { print $28 == "" ? "full" : $28 }' "$T/again/zc-matrix-runs.csv" | sort | uniq -c | awk '{ print $1, $2 }' | tr '\n' '|')" \
		"4 $((want * 1048576))|2 full|" "the repeat's runs of each phase"
}

# --turns: after each phase's rounds the modes take turns in one stream
# under one meter, a row for each arm in the turns CSV, and the verdict at
# each rate comes from them, not from the rounds.
test_matrix_turns_give_the_verdict_at_each_rate() {
	local rate
	matrix --modes sendfile,write --placements none --rounds 1 --rate-rounds 1 --loops 3 --rate auto \
		--rate-secs 0.2 "${PACED_METER[@]}" --turns 1 --slot-ms 50 --rate-slot-ms 30
	expect_eq "$(head -n 1 "$T/out/zc-matrix-turns.csv")" "$TURNS_HEADER"
	rate=$(awk -F, 'NR > 1 && $28 != "" { print $28; exit }' "$T/out/zc-matrix-runs.csv")
	# zcs, this suite's, followed the slots (zcc -E): its rows are the
	# receiver's, without a meter over loopback (zcc's has the host), so
	# with the throughput alone.
	expect_eq "$(awk -F, '$29 == "receiver" { print $1 "," $8 "," ($10 > 0) "," $12 $13 $16 }' "$T/out/zc-matrix-turns.csv" | sort | tr '\n' '|')" \
		",sendfile,1,|,write,1,|$rate,sendfile,1,|$rate,write,1,|" "the receiver's rows: $(cat "$T/out/zc-matrix-turns.csv")"
	grep -q '^# .*/zcc -J -c -T [0-9]* -E -m sendfile,write -A 50 ' "$T/table" || fail "no zcc -E for the turns: $(grep zcc "$T/table")"
	awk -F, '$29 != "receiver"' "$T/out/zc-matrix-turns.csv" >"$T/sender.csv"
	mv "$T/sender.csv" "$T/out/zc-matrix-turns.csv"
	expect_eq "$(sed 1d "$T/out/zc-matrix-turns.csv" | cut -d, -f1-6,8,9 | sort | tr '\n' '|')" \
		",none,read,1048576,,50,sendfile,sendfile|,none,read,1048576,,50,write,write|$rate,none,read,1048576,,30,sendfile,sendfile|$rate,none,read,1048576,,30,write,write|" \
		"the turns CSV's arms"
	# One arm of each run against the other, the cheapest with no comparison.
	# A run whose cheapest arm's demand came out at 0 or below (a short
	# paced run, a quick calibration) has no share of it to give: its row
	# says so, unresolved with its blocks and no figure, as zcc does.
	expect_eq "$(sed 1d "$T/out/zc-matrix-turns.csv" | awk -F, '$15 == "" { low[$1] = ($13 <= 0) } { row[NR] = $0 }
		END { for (i = 1; i in row; i++) { split(row[i], c, ",")
			print (c[15] == "") ? "cheapest" : (c[16] ~ /^(differs|same|unresolved)$/ && c[18] > 0 &&
				(c[20] != "" && c[21] <= c[20] && c[20] <= c[22] || c[16] == "unresolved" && c[20] c[21] c[22] == "" && low[c[1]])) } }' |
		sort | uniq -c | awk '{ print $1, $2 }' | tr '\n' '|')" \
		"2 1|2 cheapest|" "comparisons: $(cat "$T/out/zc-matrix-turns.csv")"
	expect_eq "$(grep -c '^# turns of sendfile,write (-b 1048576, none, zcs -m read), 1 s:$' "$T/table"):$(grep -c "^# paced at [0-9]*m: turns of sendfile,write" "$T/table")" "1:1" "turns lines"
	expect_eq "$(grep -E '^(# at full speed|# paced at one rate|Verdict)' "$T/table" | cut -d: -f1 | sed 's/ ([0-9.]* MB\/s)//' | tr '\n' '|')" \
		"# at full speed|Verdict at full speed, from the turns|# paced at one rate, zcc -R $((rate / 1048576))m|Verdict at one rate, zcc -R $((rate / 1048576))m, from the turns|" "the sections in order"
	expect_eq "$(grep -c -E '^  placement none, zcs -m read, -b 1048576: [0-9]+ blocks of 1 cycle of (50|30) ms slots$' "$T/table")" 2 "group lines"
	expect_eq "$(grep -c -E "^    (sendfile|write) +$NUM us/KB  load +$NUM%  +$NUM MB/s  (cheapest|costs $TPCT|the same within \\+-[0-9.]+% \\($TPCT\\)|not resolved \\($TPCT\\)|not resolved \\(no share: the cheapest's demand is 0 or below\\))" "$T/table")" 4 "arm lines: $(cat "$T/table")"
	grep -q '^Verdict: the transmit methods' "$T/table" && fail "the rounds' verdict too, for cells the turns measured"
	return 0
}

# A report reads the turns of its own run and no other's (the column "run"
# of both CSVs): the turns CSV beside it from another run is named and left
# out; a runs CSV renamed finds its run's turns in its directory; --turns
# of another run is refused. zc-matrix refuses an --out that holds an
# earlier run's results, and by default writes each run to a directory of
# its own, bench-out/latest naming the newest.
test_a_report_reads_its_own_runs_turns_and_a_run_its_own_directory() {
	local rc=0 first
	{
		echo "$RUNS_HEADER"
		CSV_RUN=20261127T040000Z-1 csv_row 1 send 104857600 1.000 20.0 15.0 99.0 98.4
		CSV_RUN=20261127T040000Z-1 csv_row 1 write 104857600 1.100 22.0 16.0 98.0 97.0
	} >"$T/zc-matrix-runs.csv"
	{
		echo "$TURNS_HEADER"
		CSV_RUN=20261127T035000Z-2 turns_row 104857600 write 0.900 18.0 104.8
		CSV_RUN=20261127T035000Z-2 turns_row 104857600 send 0.990 19.8 104.7 write differs slowdown 10.0 4.2 15.1
	} >"$T/zc-matrix-turns.csv"
	expect_eq "$(turns_verdict)" "" "the verdict from another run's turns"
	grep -qx "# $T/zc-matrix-turns.csv is another run's turns (run 20261127T035000Z-2; these runs are run 20261127T040000Z-1): the verdict is the rounds' alone" "$T/report" ||
		fail "another run's turns not named: $(cat "$T/report")"
	grep -q '^Verdict at one rate, zcc -R 100m (104.9 MB/s): the transmit methods' "$T/report" || fail "no rounds' verdict: $(cat "$T/report")"
	bash "$ROOT/scripts/zc-report" --turns "$T/zc-matrix-turns.csv" --out "$T/out" "$T/zc-matrix-runs.csv" >"$T/report" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:zc-report: --turns $T/zc-matrix-turns.csv: another run's turns (run 20261127T035000Z-2; $T/zc-matrix-runs.csv is run 20261127T040000Z-1)"
	# The same run's, under any name beside a runs CSV of any name.
	sed -i 's/20261127T035000Z-2/20261127T040000Z-1/' "$T/zc-matrix-turns.csv"
	mv "$T/zc-matrix-turns.csv" "$T/mine-turns.csv"
	mv "$T/zc-matrix-runs.csv" "$T/mine.csv"
	bash "$ROOT/scripts/zc-report" --out "$T/out" "$T/mine.csv" >"$T/report" 2>"$T/err" || fail "zc-report failed: $(cat "$T/err")"
	grep -q '^    send       0.990 us/KB  load  19.8%    104.7 MB/s  costs +10.0% \[+4.2, +15.1\]' "$T/report" ||
		fail "the renamed run's turns were not read: $(cat "$T/report")"
	[ -s "$T/out/mine-cells.csv" ] || fail "no cells CSV named for mine.csv: $(ls "$T/out")"
	# zc-matrix: an --out with a run in it is refused before anything runs.
	mkdir -p "$T/old" && cp "$T/mine.csv" "$T/old/zc-matrix-runs.csv"
	rc=0
	bash "$ROOT/scripts/zc-matrix" --out "$T/old" >"$T/out.txt" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:zc-matrix: --out '$T/old': it holds an earlier run's results ($T/old/zc-matrix-runs.csv): give a new directory, or remove them"
	# Two runs without --out: two directories (within one second, the
	# second's name ends in its pid); the second, without turns, has no
	# turns CSV and its report no turns' verdict.
	calibrate_here
	(cd "$T" && bash "$ROOT/scripts/zc-matrix" --calibrate-ms "$CAL_MS" --tare-ms "$TARE" --turns 1 --rate none \
		--modes sendfile,send --placements none --rounds 1 --loops 2) >"$T/table1" 2>"$T/err" || fail "the first run failed: $(cat "$T/err")"
	first=$(readlink "$T/bench-out/latest")
	[ -s "$T/bench-out/$first/zc-matrix-turns.csv" ] || fail "no turns in the first run's directory: $(ls -R "$T/bench-out")"
	(cd "$T" && bash "$ROOT/scripts/zc-matrix" "${QUICK_METER[@]}" --rate none \
		--modes sendfile,send --placements none --rounds 1 --loops 2) >"$T/table2" 2>"$T/err" || fail "the second run failed: $(cat "$T/err")"
	expect_eq "$(ls "$T/bench-out" | wc -l)" 3 "two run directories and latest: $(ls "$T/bench-out")"
	[ "$(readlink "$T/bench-out/latest")" != "$first" ] || fail "latest names the first run"
	[ ! -e "$T/bench-out/latest/zc-matrix-turns.csv" ] || fail "the second run has a turns CSV"
	grep -q 'from the turns' "$T/table2" && fail "the second run's report has a turns verdict: $(cat "$T/table2")"
	grep -q "^# every run: bench-out/$(readlink "$T/bench-out/latest")/zc-matrix-runs.csv" "$T/table2" ||
		fail "the report does not name the run's directory: $(tail -n 3 "$T/table2")"
}

# --proto udp: the datagram cells, paced at zcc -u's 64m, in a table of their
# own with datagrams and calls a second and the loss, their -l where -b is,
# and a verdict for each receive mode; both ends counted every datagram.
test_matrix_proto_udp_tables_the_datagram_modes() {
	local block
	# One receive mode and one round: the TCP tables' tests run several of
	# each, and each cell and round costs about a second here.
	matrix --proto udp --udp-modes sendmsg,gso --udp-recv gro --dgram-sizes 1472,9000 --placements none \
		--rate-rounds 1 --rate-secs 0.2 --seed 5 "${PACED_METER[@]}"
	grep -qx '# paced at zcc -R 64m (67108864 bytes a second): zcc -t 0.2' "$T/table" ||
		fail "no line of the pace: $(cat "$T/table")"
	grep -q "^# .*/zcc -J -c -T $PACED_TARE -u -m gso -l 9000 -R 64m -s 127.0.0.1 -p [0-9]* -t 0.2 <60 files>$" "$T/table" ||
		fail "no datagram zcc line: $(cat "$T/table")"
	grep -q "^# .*/zcs -d -p [0-9]* -t 3600 -J -u -m gro$" "$T/table" || fail "no zcs -u line"
	grep -q '^datagrams  *-l placement recv  *| MB/s  *reached load%  *us/KB (zcc -c)  *kernel%  *gap | us/KB: zcc  zcs   | meter effect on MB/s | copied |  dgrams/s   calls/s   loss |' "$T/table" ||
		fail "no datagram header: $(cat "$T/table")"
	expect_eq "$(grep -E '^udp-' "$T/table" | awk '{ sub(/!?~?$/, "", $1); print $1 "/" $2 "/" $4 }' | tr '\n' ' ')" \
		"udp-sendmsg/1472/udp-gro udp-sendmsg/9000/udp-gro udp-gso/1472/udp-gro udp-gso/9000/udp-gro " \
		"rows in order"
	grep -q '^mode ' "$T/table" && fail "a TCP table with no TCP cells"
	# Runs CSV: datagrams and calls a second, and the loss: none over loopback at 64m.
	awk -F, 'NR > 1 && !($2 ~ /^udp-(sendmsg|gso)$/ && $5 == "udp-gro" && $33 > 0 && $34 > 0 && $35 == "0.00") { bad = 1 }
		NR > 1 && $2 == "udp-sendmsg" && $33 != $34 { bad = 1 }
		NR > 1 && $2 == "udp-gso" && !($34 < $33 / 4) { bad = 1 } END { exit bad }' "$T/out/zc-matrix-runs.csv" ||
		fail "datagram figures: $(cat "$T/out/zc-matrix-runs.csv")"
	expect_eq "$(sed 1d "$T/out/zc-matrix-runs.csv" | wc -l)" 4 "runs CSV rows"
	block=$(sed -n "/^  placement none, zcs -u -m gro:\$/,/^  placement\|^#/p" "$T/table" | grep '^    udp-')
	expect_eq "$(echo "$block" | wc -l)" 4 "methods ranked for zcs -u -m gro: $block"
	# A host too busy for any cell to keep the pace has nothing to rank: said, and skipped.
	[ "$(grep -c ' missed the rate: ' <<<"$block")" -lt 4 ] ||
		skip "the host was too busy for the datagram cells to keep their rate: $(sed -n 's/.*missed the rate: \(.*\); not ranked$/\1/p' <<<"$block" | head -n 1)"
	# A round's demand of 0 or below (a load within the meter's noise) sets the rows by differences in us/KB.
	echo "$block" | grep -v -E '^    udp-(sendmsg|gso) -l (1472|9000) +(-?[0-9]+\.[0-9]{3} us/KB  load +-?[0-9]+\.[0-9]%  (cheapest|[-+][0-9.]+(%| us/KB) \[[-+][0-9.]+, [-+][0-9.]+\].*)|missed the rate: reached [0-9]+% without the meter, [0-9]+% with it; not ranked)$' &&
		fail "verdict lines: $block"
	return 0
}

# bad_option MESSAGE ARGS...: zc-matrix exits 2 with that one line, before it
# starts anything.
bad_option() {
	local want=$1 rc=0
	shift
	bash "$ROOT/scripts/zc-matrix" "$@" >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc" 2 "exit code of zc-matrix $*"
	expect_eq "$(cat "$T/err")" "zc-matrix: $want"
}

# scripts/dgram-sender-cost: a row per mode, zcc's and the minimal sender's
# median us/KB, their ratio and each round's pair; and its option errors.
test_dgram_sender_cost_gives_each_mode_against_the_minimal_sender() {
	local out row
	out=$("$ROOT/scripts/dgram-sender-cost" --rounds 2 --file-mb 1 --loops 2 --modes gso,sendmsg 2>"$T/err") ||
		fail "dgram-sender-cost: $(cat "$T/err")"
	expect_match "$(sed -n 1p <<<"$out")" "^# .*/zcs -d -p [0-9]+ -t 3600 -J -u\$" "zcs's line"
	expect_eq "$(sed -n 3p <<<"$out")" "# 1 MiB x 2, 1472-byte datagrams, 2 rounds; us/KB: the sender's CPU a KiB sent" "its line"
	expect_eq "$(sed -n 4p <<<"$out")" "mode                  zcc    minimal   ratio   rounds (zcc/minimal us/KB)" "its header"
	for row in gso sendmsg; do
		expect_match "$(grep "^$row " <<<"$out")" "^$row +$NUM +$NUM +$NUM  ( $NUM/$NUM){2}\$" "the $row row"
	done
	expect_eq "$(wc -l <<<"$out")" 6 "lines"
	grep -q "^# .*/zcc -u -m gso -l 1472 -n 2 -R 1000g -s 127.0.0.1 -p [0-9]* <file>\$" "$T/err" ||
		fail "zcc's command line not said: $(cat "$T/err")"
	out=$("$ROOT/scripts/dgram-sender-cost" --modes gso,peek 2>&1) && fail "an unknown mode passed"
	expect_eq "$out" "dgram-sender-cost: --modes: unknown datagram mode 'peek'" "unknown mode"
	out=$("$ROOT/scripts/dgram-sender-cost" --rounds 0 2>&1) && fail "--rounds 0 passed"
	expect_eq "$out" "dgram-sender-cost: --rounds must be at least 1" "--rounds 0"
	out=$("$ROOT/scripts/dgram-sender-cost" --len 2k 2>&1) && fail "--len 2k passed"
	expect_eq "$out" "dgram-sender-cost: '2k': --rounds, --file-mb, --loops and --len take whole numbers" "--len 2k"
	out=$("$ROOT/scripts/dgram-sender-cost" --zcc "$T/none" 2>&1) && fail "a missing --zcc passed"
	expect_eq "$out" "dgram-sender-cost: --zcc $T/none: not a program" "--zcc"
}

# A meter running on the host when zc-matrix starts: zc-matrix waits its
# turn, saying who holds the meter, and runs once it is free; its runs
# never go beside another meter's.
# stand_in_tree REFUSALS: a copy of this tree's scripts in $T/tree, beside
# zcs, cyclesoak and lib/marks.h as they are and a zcc that stands in for
# the real one: its first REFUSALS runs with a tare (-c -T N) fail as a
# tare fails where another task holds a CPU whole, every moment of it
# (which no test can make the kernel do on cue), and the rest are zcc's.
stand_in_tree() {
	rm -rf "$T/tree"
	mkdir -p "$T/tree/lib"
	cp -r "$ROOT/scripts" "$T/tree/"
	cp "$ROOT/lib/marks.h" "$T/tree/lib/"
	ln -s "$ROOT/zcs" "$ROOT/cyclesoak" "$T/tree/"
	printf '%%:\n\t@:\n' >"$T/tree/Makefile"
	echo 0 >"$T/tree/refused"
	cat >"$T/tree/zcc" <<EOF
#!/bin/bash
n=\$(cat "$T/tree/refused")
if [[ " \$* " == *" -c -T "[1-9]* ]] && [ "\$n" -lt $1 ]; then
	echo \$((n + 1)) >"$T/tree/refused"
	echo "zcc: the tare: the soaker on CPU 1 had no CPU time in $TARE ms, so there is no idle rate to measure against: the CPU was busy throughout (a longer -T may find it idle)" >&2
	exit 1
fi
exec "$ROOT/zcc" "\$@"
EOF
	chmod +x "$T/tree/zcc"
}

# A tare that finds a CPU taken whole is tried again, a tare's length apart,
# saying so; three refused, the run is measured against the calibration
# alone (-T 0), its cell marked ! with a CPU of the host busy, and the
# matrix goes on. With no tare had for --tare-wait seconds, it ends, saying so.
test_matrix_tries_a_refused_tare_again_then_marks_the_cell_and_goes_on() {
	local cpus refused other tare=100
	cpus=$(affinity_cpus | wc -l)
	stand_in_tree 5
	# Tares of 100 ms: the other cell must come out unmarked, and at the
	# tests' 50 ms one read the host 5.7% busy before its run, and was marked.
	(cd "$T" && bash "$T/tree/scripts/zc-matrix" "${QUICK_METER[@]}" --tare-ms "$tare" --out "$T/out" \
		--modes sendfile,write --placements none --rounds 1 --loops 5) >"$T/table" 2>"$T/err" || fail "zc-matrix failed: $(cat "$T/err")"
	expect_eq "$(grep '^# the tare found' "$T/table")" "# the tare found CPU 1 taken whole for $tare ms (another task had it): trying again in $tare ms (2 of 3)
# the tare found CPU 1 taken whole for $tare ms (another task had it): trying again in $tare ms (3 of 3)
# the tare found CPU 1 taken whole 3 times: this run is measured against the calibration alone (-T 0), and its cell marked ! (a run begun on a busy host)
# the tare found CPU 1 taken whole for $tare ms (another task had it): trying again in $tare ms (2 of 3)
# the tare found CPU 1 taken whole for $tare ms (another task had it): trying again in $tare ms (3 of 3)" "what zc-matrix said of the tares"
	expect_eq "$(cat "$T/tree/refused")" 5 "the tares refused"
	expect_eq "$(sed 1d "$T/out/zc-matrix-runs.csv" | wc -l)" 2 "the runs"
	# The cells go in a shuffled order: the first measured is the one refused three times.
	refused=$(awk -F, -v busy="$(awk -v n="$cpus" 'BEGIN { printf "%.1f", 100 / n }')" \
		'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["load_before_pct"] == busy { print $c["mode"] }' \
		"$T/out/zc-matrix-runs.csv")
	case "$refused" in sendfile) other=write ;; write) other=sendfile ;; *) fail "no run with a CPU busy: $(cat "$T/out/zc-matrix-runs.csv")" ;; esac
	grep -Eq "^$refused! +" "$T/table" || fail "the cell not marked: $(cat "$T/table")"
	grep -Eq "^$other +" "$T/table" || fail "the other cell marked: $(cat "$T/table")"
	# No tare had for --tare-wait 0 s: the first cell's third refusal ends the run.
	stand_in_tree 5
	rm -rf "$T/out"
	(cd "$T" && bash "$T/tree/scripts/zc-matrix" "${QUICK_METER[@]}" --out "$T/out" --modes sendfile \
		--placements none --rounds 1 --loops 5 --tare-wait 0) >"$T/table" 2>"$T/err" && fail "zc-matrix went on with no tare"
	expect_match "$(grep '^zc-matrix: ' "$T/err" | head -n 1)" \
		"^zc-matrix: no tare could be had for [0-9]+ s \\(--tare-wait 0\\): CPU 1 was taken whole by another task at each try; the runs measured so far are in $T/out/zc-matrix-runs.csv\$"
}

test_matrix_waits_for_the_hosts_meter_and_then_runs() {
	local pid
	calibrate_here
	start_cyclesoak -m 100
	(cd "$T" && ZC_METER_WAIT=60 exec bash "$ROOT/scripts/zc-matrix" "${QUICK_METER[@]}" --out "$T/mx" \
		--modes sendfile --placements none --rounds 1 --loops 5) >"$T/table" 2>"$T/err" &
	pid=$!
	started "$pid"
	wait_until 20 grep -q "waiting for the host's meter" "$T/err" || fail "zc-matrix did not wait: $(cat "$T/err")"
	expect_eq "$(grep "waiting for the host's meter" "$T/err")" \
		"cyclesoak: waiting for the host's meter: pid $CS_PID (cyclesoak, user $(id -un)) holds /tmp/zc-meter.lock $(held_cpus) (at most 60 s in all; ZC_METER_WAIT sets it, 0 to not wait)" \
		"the line of the wait"
	sleep 0.5
	[ ! -s "$T/mx/zc-matrix-runs.csv" ] || fail "zc-matrix measured beside the meter: $(cat "$T/mx/zc-matrix-runs.csv")"
	kill "$CS_PID"
	wait_until 60 eval '! kill -0 '"$pid"' 2>/dev/null' || fail "zc-matrix did not end once the meter was free"
	wait "$pid" || fail "zc-matrix failed: $(cat "$T/err")"
	expect_eq "$(sed 1d "$T/mx/zc-matrix-runs.csv" | wc -l)" 1 "runs"
	grep -q '^Verdict' "$T/table" || fail "no verdict: $(cat "$T/table")"
}

# The scripts' own make, run by a make under -j whose recipe did not hand
# down its jobserver (no '+'), builds what it must without a warning.
test_the_scripts_make_says_nothing_of_a_jobserver_it_was_not_given() {
	printf 'all:\n\t@bash -c ". %s/scripts/bench-lib.sh; ROOT=%s; bench_make zcs"\n' "$ROOT" "$ROOT" >"$T/Makefile"
	MAKEFLAGS= make -s -j2 -C "$T" >"$T/out" 2>"$T/err" || fail "the make failed: $(cat "$T/err")"
	expect_eq "$(cat "$T/out" "$T/err")" "" "what the make said"
	printf 'all:\n\t@bash -c "make -s -C %s zcs"\n' "$ROOT" >"$T/Makefile"
	MAKEFLAGS= make -s -j2 -C "$T" >"$T/out" 2>"$T/err" || fail "the plain make failed: $(cat "$T/err")"
	grep -q 'jobserver unavailable' "$T/err" || fail "a plain make did not warn: the test shows nothing here"
}

test_matrix_rejects_bad_options() {
	local rc=0
	starts_no_meter
	bad_option "--modes: unknown mode 'splic'" --modes sendfile,splic
	bad_option "--recv: unknown receive mode 'peek'" --recv read,peek
	bad_option "--loops '2x': not a number" --loops 2x
	bad_option "--mss '4k': not a number" --mss 4k
	bad_option "--mss '50': out of range (88 to 32767)" --mss 50
	bad_option "--loops needs a value" --loops
	bad_option "--sender-cpus and --receiver-cpus go together: each end's CPUs" --sender-cpus 0
	bad_option "--sender-cpus 0-1 and --receiver-cpus 1 share CPU 1: each end's meter must have its own" \
		--sender-cpus 0-1 --receiver-cpus 1
	bad_option "--placements and --sender-cpus both place zcc and zcs: give one of them" \
		--placements none --sender-cpus 0 --receiver-cpus 1
	bad_option "'0,x': not a list of CPUs (as 1,3 or 2-5)" --sender-cpus 0,x --receiver-cpus 1
	bad_option "--rounds '0': out of range (1 to 10000)" --rounds 0
	bad_option "--width '5%': not a number" --width 5%
	bad_option "--max-rounds must be at least --rounds" --rounds 6 --width 5 --max-rounds 3
	bad_option "--bufsizes '64k': not a number" --bufsizes 64k
	bad_option "--placements: unknown placement 'far'" --placements far
	bad_option "--rate 'fast': not none, auto, auto=RATE or a rate in bytes a second (k, m, g: x1024)" --rate fast
	bad_option "--rate '64mb': not none, auto, auto=RATE or a rate in bytes a second (k, m, g: x1024)" --rate 64mb
	bad_option "--rate 'auto=x': not none, auto, auto=RATE or a rate in bytes a second (k, m, g: x1024)" --rate auto=x
	bad_option "--rate '99999999999999999999': not none, auto, auto=RATE or a rate in bytes a second (k, m, g: x1024)" \
		--rate 99999999999999999999
	bad_option "--rate '512': zcc -R takes 1k (1024 bytes a second) or more" --rate 512
	bad_option "--rate-secs '0': not a number of seconds above 0" --rate-secs 0
	bad_option "--rate-secs '1s': not a number of seconds above 0" --rate-secs 1s
	bad_option "--rate needs a value" --rate
	bad_option "--rate-rounds '0': out of range (1 to 10000)" --rate-rounds 0
	bad_option "--rate-rounds 'x': not a number" --rate-rounds x
	bad_option "--max-rounds must be at least --rate-rounds" --rate 64m --width 5 --rounds 2 --max-rounds 3
	bad_option "--turns '-1': not a number" --turns -1
	bad_option "--turns '3601': out of range (0 to 3600)" --turns 3601
	bad_option "--slot-ms '19': out of range (20 to 60000)" --slot-ms 19
	bad_option "--rate-slot-ms 'x': not a number" --rate-slot-ms x
	bad_option "--turns needs a value" --turns
	bad_option "--port 'abc': not a number" --port abc
	bad_option "--port '-1': not a number" --port -1
	bad_option "--port '0': out of range (1 to 65535)" --host 127.0.0.1 --port 0
	bad_option "--port '70000': out of range (1 to 65535)" --host 127.0.0.1 --port 70000
	bad_option "--max-rounds '0': out of range (1 to 10000)" --max-rounds 0
	bad_option "--width '0': out of range (1 to 1000)" --width 0
	bad_option "--calibrate-ms '0': out of range (10 to 3600000)" --calibrate-ms 0
	bad_option "--seed '12345678901234567890': out of range (0 to 4294967295)" --seed 12345678901234567890
	bad_option "--bufsizes '0': out of range (1 to 1073741824)" --bufsizes 0
	bad_option "--bufsizes ',': no buffer size" --bufsizes ,
	bad_option "--loops '0': out of range (1 to 4294967295)" --loops 0
	bad_option "--loops '99999999999': out of range (1 to 4294967295)" --loops 99999999999
	bad_option "--rounds '99999999999999999999': out of range (1 to 10000)" --rounds 99999999999999999999
	bad_option "--tare-ms '60001': out of range (0 to 60000)" --tare-ms 60001
	bad_option "--proto 'sctp': tcp, udp or tcp,udp" --proto sctp
	bad_option "--udp-modes: unknown datagram mode 'sendfile'" --proto udp --udp-modes gso,sendfile
	bad_option "--udp-recv: unknown datagram receive mode 'splice'" --proto udp --udp-recv splice
	bad_option "--dgram-sizes '32': out of range (33 to 65507)" --proto udp --dgram-sizes 1472,32
	bad_option "--proto tcp,udp: the datagram cells run paced only: give --rate RATE or auto" --proto tcp,udp
	bad_option "--rate auto paces at a share of the TCP cells' full speed: with --proto udp alone, give a rate" \
		--proto udp --rate auto
	bash "$ROOT/scripts/zc-matrix" --frobnicate >/dev/null 2>"$T/err" || rc=$?
	expect_eq "$rc" 2
	grep -q '^usage: scripts/zc-matrix' "$T/err" || fail "no usage"
}

run_tests "$@"
