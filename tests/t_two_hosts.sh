#!/bin/bash
# docs/two-hosts.txt (README.zc's "Between two hosts" step by step): the one-machine walk-through, run as
# written (the namespaces' and interfaces' names made unique), in two
# network namespaces joined by a veth pair.
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

run_tests "$@"
