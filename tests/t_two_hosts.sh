#!/bin/bash
# docs/two-hosts.txt (README.zc's "Between two hosts" step by step): the one-machine walk-through, run as
# written (the namespaces' and interfaces' names made unique), in two
# network namespaces joined by a veth pair; two metered hosts on one
# machine, each end on CPUs of its own (scripts/two-hosts).
. "$(dirname "$0")/lib.sh"

# walkthrough: docs/two-hosts.txt's "# " command lines.
walkthrough() {
	sed -n '/^Between two hosts$/,/^tests\/t_two_hosts.sh/p' "$ROOT/docs/two-hosts.txt" |
		sed -n 's/^    # //p'
}

test_the_readme_walkthrough_measures_each_end_in_its_own_run() {
	local ns_r=zc-r$$ ns_s=zc-s$$ if_r=zcr$$ if_s=zcs$$ bytes line
	# Each end's meter in turn, as a reader would run them on a quiet host.
	runs_alone
	[ "$(id -u)" = 0 ] || skip "needs root (ip netns add)"
	ip netns add "$ns_r" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns del "$ns_r"
	NETNS+=("$ns_r" "$ns_s")
	[ "$(walkthrough | wc -l)" -ge 10 ] || fail "no walk-through in docs/two-hosts.txt: $(walkthrough)"
	walkthrough | grep -qx 'ip netns exec zc-recv ./zcs -c &' || fail "the walk-through has no zcs -c"
	make_files "$T/files"
	mkdir -p "$T/bin"
	ln -s "$ROOT/zcs" "$ROOT/zcc" "$T/bin/"
	calibrate_here
	# The names, the programs (./ in $T/bin) and the files are the test's.
	walkthrough | sed -e "s/zc-recv/$ns_r/g" -e "s/zc-send/$ns_s/g" -e "s/zc-r /$if_r /g" \
		-e "s/zc-r\$/$if_r/" -e "s/zc-s /$if_s /g" -e "s/zc-s\$/$if_s/" \
		-e "s|\\./zc|$T/bin/zc|g" -e "s|files/\\*|$T/files/*|g" >"$T/steps.sh"
	(cd "$T" && timeout 60 bash "$T/steps.sh" >"$T/out" 2>"$T/err") || fail "the walk-through failed: $(cat "$T/err")"
	bytes=$(stream_bytes 50 "$T"/files/*)
	expect_eq "$(grep -c "^received $bytes bytes" "$T/out")" 2 "zcs's summaries: $(cat "$T/out" "$T/err")"
	expect_eq "$(grep -c "^sent $bytes bytes" "$T/out")" 2 "zcc's summaries: $(cat "$T/out" "$T/err")"
	# The first run measured the receiving end, the second the sending end;
	# each line's link is its own end of the pair, counted by softirqs.
	line=$(grep "^received $bytes bytes" "$T/out" | head -n 1)
	expect_match "$line" "^received $bytes bytes in [0-9.]+ s, [0-9]+ kbytes/sec, load -?[0-9.]+%, demand -?[0-9.]+ us/KB, kernel -?[0-9.]+%$CPU_TIMES, $if_r: rx [0-9]+ pps, tx [0-9]+ pps, 0 ints/s \\(softirqs [0-9]+/s\\)\$"
	line=$(grep "^sent $bytes bytes" "$T/out" | tail -n 1)
	expect_match "$line" "^sent $bytes bytes in [0-9.]+ s, [0-9]+ kbytes/sec, mode sendfile, load -?[0-9.]+%, demand -?[0-9.]+ us/KB, kernel -?[0-9.]+%$CPU_TIMES, $if_s: rx [0-9]+ pps, tx [0-9]+ pps, 0 ints/s \\(softirqs [0-9]+/s\\)\$"
	grep "^received $bytes bytes" "$T/out" | tail -n 1 | grep -q ' us/KB' && fail "the second zcs was metered: $(cat "$T/out")"
	grep "^sent $bytes bytes" "$T/out" | head -n 1 | grep -q ' us/KB' && fail "the first zcc was metered: $(cat "$T/out")"
	! ip netns list | grep -q -e "$ns_r" -e "$ns_s" || fail "the walk-through left its namespaces"
}

# bare_mask: a CPU mask on stdin as one hex number without its leading
# zeros (the kernel writes as many digits as the host's CPUs take).
bare_mask() {
	tr -d ',' | sed 's/^0*//; s/^$/0/'
}

# Two metered hosts on one machine (scripts/two-hosts' pair: each end's
# processes, received packets and meter on CPUs of its own): zcc -c -U on
# the sender's CPU in turns, -E, to zcs -c -U on the receiver's, both
# meters at once. tests/loadgen -g 2 spins 4% of the receiver's CPU in arm
# 2's slots: the receiver's block finds it (4 points of its one CPU, within
# its interval and half a point, and its estimate within a point), and the
# sender's, of another CPU, does not (its interval holds 0, within half a
# point); the both ends' block is there, the sum of the two.
test_two_metered_hosts_find_a_load_at_the_receiver_in_its_block_alone() {
	local cpus send recv json try
	[ "$(allowed_cpus)" -ge 2 ] || skip "needs two CPUs"
	cpus=$(affinity_cpus)
	send=$(echo "$cpus" | sed -n 1p)
	recv=$(echo "$cpus" | sed -n 2p)
	two_hosts "$send" "$recv"
	make_files "$T/f"
	calibrate_here
	quiet_or_skip
	expect_eq "$(ip netns exec "$NS_B" cat "/sys/class/net/$IF_B/queues/rx-0/rps_cpus" | bare_mask)" \
		"$(netns_rps_mask "$recv" | bare_mask)" "the receiver's packets on its CPU"
	for try in 1 2; do
		ZCS_NETNS=$NS_B start_zcs -J -c -U "$recv" -B "$recv" -T 200
		rm -f "$T/slots"
		mkfifo "$T/slots"
		"$HELPERS/loadgen" -g 2 -c "$recv" -f 4 -t 60 <"$T/slots" >"$T/loadgen" &
		started $!
		(cd "$T" && ip netns exec "$NS_A" "$ROOT/zcc" -J -e "$T/slots" -c -U "$send" -B "$send" -T 200 -E \
			-m write,write -A 40 -R 100m -t 4 -s 10.251.0.2 -p "$PORT" "$T"/f/* 2>"$T/zcc.err" >"$T/zcc.out") ||
			fail "zcc failed: $(cat "$T/zcc.out" "$T/zcc.err")"
		wait_until 5 eval '! kill -0 '"$!"' 2>/dev/null' || fail "loadgen did not end with the slot events"
		json=$(cat "$T/zcc.out")
		echo "$json" | awk -v want="$(sed -n 's/.*, got \([0-9.]*\)% of CPU.*/\1/p' "$T/loadgen")" "$JSON_AWK"'
			function fig(p) { return sprintf("%+.2f [%+.2f, %+.2f]", json_get($0, p "estimate"), json_get($0, p "lo"), json_get($0, p "hi")) }
			{
				r = "turns.receiver.comparisons.0."; s = "turns.comparisons.0."
				printf "# known load %.2f points of CPU: the receiver found %s (%s), the sender %s (%s); both ends: %s arms\n",
					want, fig(r "load_points."), json_get($0, r "arm"), fig(s "load_points."), json_get($0, s "arm"),
					json_count($0, "turns.both_ends.arms")
				if (json_get($0, "turns.receiver.arms.0.arm") == "") { print "no receiver block"; exit 1 }
				if (json_count($0, "turns.both_ends.arms") != 2) { print "no both ends block"; exit 1 }
				if (json_get($0, r "arm") != "write#2") { print "the receiver found write#1 the dearer"; exit 1 }
				m = json_get($0, r "load_points.estimate"); lo = json_get($0, r "load_points.lo"); hi = json_get($0, r "load_points.hi")
				if (!(lo - 0.5 <= want && want <= hi + 0.5) || m - want > 1 || want - m > 1) { print "the receiver missed it"; exit 1 }
				# The sender measured write#2 against write#1 or the other way: its difference holds 0.
				lo = json_get($0, s "load_points.lo"); hi = json_get($0, s "load_points.hi")
				if (!(lo - 0.5 <= 0 && 0 <= hi + 0.5)) { print "the sender found it too"; exit 1 }
			}' >"$T/found" && break
		stop_pid "$ZCS_PID"
		[ "$try" = 2 ] && fail "$(cat "$T/found")"
		echo "# missed once, tried again: $(cat "$T/found")"
	done
	cat "$T/found"
	expect_eq "$(json_member "$T/zcc.out" meter.cpus) $(json_member "$T/zcc.out" cpus.0.cpu)" "1 $send" "the sender's meter"
	wait_until 5 eval 'grep -q "\"program\":\"zcs\"" "$T/zcs.out"' || fail "no zcs summary"
	expect_eq "$(json_member "$T/zcs.out" meter.cpus) $(json_member "$T/zcs.out" cpus.0.cpu)" "1 $recv" "the receiver's meter"
}

# scripts/two-hosts makes the pair as docs/two-hosts.txt says, each end's
# packets on its CPUs, says how to run each end, and takes it down; its
# mistakes are said in a line.
test_the_two_hosts_script_makes_and_takes_down_the_pair() {
	local name=zh$$ rc=0
	[ "$(id -u)" = 0 ] || skip "needs root (ip netns add)"
	[ "$(allowed_cpus)" -ge 2 ] || skip "needs two CPUs"
	"$ROOT/scripts/two-hosts" up --name "$name" --net 10.249.0 >"$T/out" 2>"$T/err" ||
		{ grep -q 'cannot make network namespaces' "$T/err" && skip "cannot create network namespaces here"; fail "up failed: $(cat "$T/err")"; }
	NETNS+=("$name-send" "$name-recv")
	expect_eq "$(grep -c "^ip netns exec $name-recv ./zcs -c -U $(affinity_cpus | sed -n 2p) " "$T/out")" 1 "the receiver's line: $(cat "$T/out")"
	expect_eq "$(ip netns exec "$name-recv" cat "/sys/class/net/$name-r/queues/rx-0/rps_cpus" | bare_mask)" \
		"$(netns_rps_mask "$(affinity_cpus | sed -n 2p)" | bare_mask)" "the receiver's rps_cpus"
	expect_eq "$(ip netns exec "$name-send" cat "/sys/class/net/$name-s/queues/rx-0/rps_cpus" | bare_mask)" \
		"$(netns_rps_mask "$(affinity_cpus | sed -n 1p)" | bare_mask)" "the sender's rps_cpus"
	# A port nothing listens on: refused at once, across the pair.
	ip netns exec "$name-send" timeout 3 bash -c 'exec 3<>/dev/tcp/10.249.0.2/9' 2>&1 | grep -q 'refused' ||
		fail "the pair does not reach across"
	"$ROOT/scripts/two-hosts" up --name "$name" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:two-hosts: $name-send or $name-recv is there already (scripts/two-hosts down --name $name)"
	"$ROOT/scripts/two-hosts" down --name "$name" >"$T/out" || fail "down failed"
	! ip netns list | grep -q "^$name-" || fail "the pair is left: $(ip netns list)"
	rc=0
	"$ROOT/scripts/two-hosts" up --name "$name" --sender-cpus 0-1 --receiver-cpus 1 >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "1:two-hosts: the sender's CPUs (0-1) and the receiver's (1) share CPU 1: each end's meter must have its own"
	rc=0
	"$ROOT/scripts/two-hosts" up --name "Bad!" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc:$(cat "$T/err")" "2:two-hosts: --name 'Bad!': 1 to 10 lower-case letters and digits, a letter first"
}

run_tests "$@"
