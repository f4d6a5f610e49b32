#!/bin/bash
# make layers: no circle among the programs' objects as the linker sees
# them (a lower file never calls back into the file above it); and the
# check itself finds a circle where there is one, and names its symbols.
# make check-quick runs this file.
. "$(dirname "$0")/lib.sh"

test_the_programs_objects_have_no_circle() {
	local out
	command -v nm >/dev/null || skip "nm (binutils) not installed"
	out=$(make -s -C "$ROOT" layers 2>&1) || fail "make layers: $out"
	expect_match "$out" '^layers: [0-9]+ objects, no circle among them$' "make layers says"
	[ "$(echo "$out" | tr -cd 0-9)" -ge 40 ] || fail "make layers read too few objects: $out"
}

# Two files that call each other, and a third below both.
test_layers_finds_a_circle_and_names_what_closes_it() {
	local out rc=0
	command -v nm >/dev/null || skip "nm (binutils) not installed"
	command -v cc >/dev/null || skip "no C compiler"
	printf 'int low(void) { return 1; }\n' >"$T/low.c"
	printf 'int low(void); int down(void); int up(void) { return down() + low(); }\n' >"$T/a.c"
	printf 'int up(void); int down(void) { return 0; } int back(void) { return up(); }\n' >"$T/b.c"
	for f in low a b; do cc -c -o "$T/$f.o" "$T/$f.c" || fail "cc $f.c"; done
	out=$(cd "$T" && bash "$ROOT/scripts/layers" a.o b.o low.o) || rc=$?
	expect_eq "$rc" 1 "exit status with a circle"
	expect_eq "$(sed -n 1p <<<"$out" | tr ' ' '\n' | sed 1d | sort | tr '\n' ' ')" "a.o b.o " \
		"the circle's members"
	grep -qx '  a.o -> b.o (down)' <<<"$out" || fail "a.o's edge not named: $out"
	grep -qx '  b.o -> a.o (up)' <<<"$out" || fail "b.o's edge not named: $out"
	! grep -q low <<<"$out" || fail "low.o is in no circle: $out"
	out=$(cd "$T" && bash "$ROOT/scripts/layers" a.o low.o) || fail "no circle, but exit $?"
	expect_eq "$out" "layers: 2 objects, no circle among them" "layers of a.o and low.o"
	out=$(bash "$ROOT/scripts/layers" "$T/missing.o" 2>&1) && fail "a missing object passed"
	expect_eq "$out" "layers: $T/missing.o: no such object (make first)" "missing object"
}

run_tests "$@"
