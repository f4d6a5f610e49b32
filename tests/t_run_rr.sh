#!/bin/bash
# run_rr: the policy it sets, the exit codes of exec failures, the error
# without privilege, and the privilege drop when installed set-user-ID.
# make check-quick runs this file.
. "$(dirname "$0")/lib.sh"

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root (SCHED_RR, setpriv)"
}

test_command_runs_under_sched_rr_at_max_priority() {
	need_root
	"$ROOT/run_rr" sh -c 'chrt -p $$' >"$T/out"
	grep -q "current scheduling policy: SCHED_RR$" "$T/out" || fail "$(cat "$T/out")"
	grep -q "current scheduling priority: $(chrt -m | awk '/SCHED_RR/ { sub(/.*\//, "", $NF); print $NF }')$" "$T/out" ||
		fail "not at the maximum: $(cat "$T/out")"
}

test_p_sets_the_priority() {
	need_root
	"$ROOT/run_rr" -p 7 sh -c 'chrt -p $$' >"$T/out"
	grep -q "current scheduling priority: 7$" "$T/out" || fail "$(cat "$T/out")"
}

test_no_command_starts_an_interactive_shell_under_sched_rr() {
	need_root
	echo 'chrt -p $$; exit 3' | SHELL=/bin/sh "$ROOT/run_rr" >"$T/out" 2>&1 && fail "exit status lost"
	grep -q "current scheduling policy: SCHED_RR$" "$T/out" || fail "$(cat "$T/out")"
}

test_command_not_found_exits_127() {
	need_root
	local rc=0
	"$ROOT/run_rr" "$T/nosuch" 2>"$T/err" || rc=$?
	expect_eq "$rc" 127
	expect_eq "$(cat "$T/err")" "run_rr: $T/nosuch: No such file or directory"
}

test_command_not_executable_exits_126() {
	need_root
	local rc=0
	printf 'true\n' >"$T/plain"
	chmod 644 "$T/plain"
	"$ROOT/run_rr" "$T/plain" 2>"$T/err" || rc=$?
	expect_eq "$rc" 126
	expect_eq "$(cat "$T/err")" "run_rr: $T/plain: Permission denied"
}

test_without_privilege_says_so_and_exits_1() {
	local rc=0
	if [ "$(id -u)" = 0 ]; then
		chmod 755 "$T"
		cp "$ROOT/run_rr" "$T/run_rr"
		setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
			"$T/run_rr" true 2>"$T/err" || rc=$?
	else
		"$ROOT/run_rr" true 2>"$T/err" || rc=$?
	fi
	expect_eq "$rc" 1
	expect_eq "$(cat "$T/err")" "run_rr: SCHED_RR needs root or CAP_SYS_NICE: Operation not permitted"
}

test_bad_priority_is_a_usage_error() {
	usage_error run_rr "run_rr: -p '0': must be at least 1" -p 0 true
	usage_error run_rr "run_rr: -p '100': must be at most 99" -p 100 true
}

test_setuid_copy_drops_to_the_real_user_before_exec() {
	need_root
	chmod 755 "$T"
	cp "$ROOT/run_rr" "$T/run_rr"
	chown root:root "$T/run_rr"
	chmod 4755 "$T/run_rr"
	case ",$(findmnt -no OPTIONS --target "$T")," in
	*,nosuid,*) skip "$T is on a nosuid file system" ;;
	esac
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$T/run_rr" sh -c 'grep -E "^(Uid|Gid):" /proc/self/status; chrt -p $$' >"$T/out" 2>&1 ||
		fail "set-uid run_rr failed: $(cat "$T/out")"
	local uid gid
	uid=$(id -u nobody)
	gid=$(getent group nogroup | cut -d: -f3)
	grep -qE "^Uid:\s+$uid\s+$uid\s+$uid\s+$uid$" "$T/out" || fail "uids: $(cat "$T/out")"
	grep -qE "^Gid:\s+$gid\s+$gid\s+$gid\s+$gid$" "$T/out" || fail "gids: $(cat "$T/out")"
	grep -q "current scheduling policy: SCHED_RR$" "$T/out" || fail "policy: $(cat "$T/out")"
}

run_tests "$@"
