#!/bin/bash
# The manual pages: every option of each program's usage has its entry, and
# no entry names an option the program lacks; man renders each page without
# a warning; make install puts pages and programs where PREFIX and DESTDIR
# say, and make uninstall takes away exactly those.
# make check-quick runs this file.
. "$(dirname "$0")/lib.sh"

PROGRAMS="zcc zcs cyclesoak run_rr"

# synopsis PROG: the synopsis PROG -h begins with (up to its sentence of what
# PROG does, the first line that begins with a capital).
synopsis() {
	"$ROOT/$1" -h | sed '/^[A-Z]/,$d'
}

# usage_options PROG: the option letters in PROG's synopsis, one a line: a
# group such as [-cCdhkSw] gives each of its letters.
usage_options() {
	synopsis "$1" | grep -o -E '(^|[[ ])-[A-Za-z0-9]+' | sed -E 's/^[[ ]?-//' | grep -o . |
		LC_ALL=C sort -u
}

# -h and --help print the synopsis, a line of what the program does, and a
# line for every option, "  -X ...", each option once; and exit 0.
test_h_and_help_print_a_line_for_every_option() {
	local p out help x
	for p in $PROGRAMS; do
		out=$("$ROOT/$p" -h) || fail "$p -h exited $?"
		help=$("$ROOT/$p" --help) || fail "$p --help exited $?"
		expect_eq "$help" "$out" "$p --help against -h"
		expect_match "$(sed -n '/^[A-Z]/{p;q}' <<<"$out")" '^[A-Z].*\.$' "$p's sentence"
		expect_eq "$(sed -n 's/^  -\([A-Za-z0-9]\) .*/\1/p' <<<"$out" | LC_ALL=C sort | tr '\n' ' ')" \
			"$(usage_options "$p" | tr '\n' ' ')" "$p -h's option lines against its synopsis"
	done
}

# page_options PROG: the letters of the page's option entries (".It Fl X").
page_options() {
	sed -n 's/^\.It Fl \([A-Za-z0-9]\).*/\1/p' "$ROOT/man/$1.1" | LC_ALL=C sort -u
}

test_every_usage_option_has_an_entry_and_no_entry_is_extra() {
	local p
	for p in $PROGRAMS; do
		[ -f "$ROOT/man/$p.1" ] || fail "no man/$p.1"
		[ -n "$(usage_options "$p")" ] || fail "no options read from $p -h"
		expect_eq "$(page_options "$p" | tr '\n' ' ')" "$(usage_options "$p" | tr '\n' ' ')" \
			"options of $p: page against usage"
		grep -q "^\\.Nm $p\$" "$ROOT/man/$p.1" || fail "$p.1 names another program"
	done
}

test_man_renders_every_page_without_a_warning() {
	local p
	command -v man >/dev/null || skip "man is not installed (apt-get install man-db)"
	for p in $PROGRAMS; do
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$ROOT/man/$p.1" >"$T/out" 2>"$T/err" ||
			fail "man -l man/$p.1 failed: $(cat "$T/err")"
		[ ! -s "$T/err" ] || fail "man/$p.1: $(cat "$T/err")"
		grep -q "^SYNOPSIS" "$T/out" || fail "man/$p.1 rendered no SYNOPSIS"
		grep -q "^EXIT STATUS" "$T/out" || fail "man/$p.1 has no EXIT STATUS"
	done
}

# --options prints each option of the synopsis once, as getopt takes it (a
# colon after those that take a value), and exits 0: what zc-fleet reads
# zcc's options by.
test_options_prints_the_letters_as_getopt_takes_them() {
	local p out
	for p in $PROGRAMS; do
		out=$("$ROOT/$p" --options) || fail "$p --options exited $?"
		expect_eq "$(tr -d ':' <<<"$out" | grep -o . | LC_ALL=C sort | tr '\n' ' ')" \
			"$(usage_options "$p" | tr '\n' ' ')" "$p --options against its synopsis"
	done
	expect_eq "$("$ROOT/zcs" --options)" "a:A:b:B:cCdDe:f:hi:IJl:L:m:N:o:p:Qt:T:uU:W:" "zcs --options"
	expect_eq "$("$ROOT/cyclesoak" --options)" "BCdhHJkm:N:p:U:1" "cyclesoak --options"
	expect_eq "$("$ROOT/run_rr" --options)" "hp:" "run_rr --options"
}

# words FILE: FILE's text as words, a space apart, with "cpu ..." as "cpu..."
# (how a page sets what a synopsis writes without the space).
words() {
	tr -s ' \n' '  ' <"$1" | sed -E 's/ \.\.\./.../g; s/^ //; s/ $//'
}

# Each page's synopsis is its program's, as the option table makes it: the
# same options in the same order, with the same arguments and forms.
test_every_pages_synopsis_is_its_programs() {
	local p
	command -v man >/dev/null || skip "man is not installed (apt-get install man-db)"
	for p in $PROGRAMS; do
		LC_ALL=C.UTF-8 MANWIDTH=400 man -E UTF-8 -l "$ROOT/man/$p.1" 2>/dev/null |
			sed -n '/^SYNOPSIS/,/^[A-Z]/{/^[A-Z]/d;p}' >"$T/page"
		synopsis "$p" | sed 's/^usage: //' >"$T/usage"
		[ -s "$T/page" ] || fail "man/$p.1 rendered no synopsis"
		expect_eq "$(words "$T/page")" "$(words "$T/usage")" "$p's synopsis: page against $p -h"
	done
}

# What the pages promise where the programs cannot do better: -W bounds each
# wait, not a whole stall; the copy count is the kernel's, range by range;
# zcs reads headers exactly only where it does.
test_the_pages_say_what_W_bounds_and_what_the_counts_are() {
	grep -q "^It bounds each wait, not the whole stall" "$ROOT/man/zcc.1" || fail "zcc.1: what -W bounds"
	grep -q "^The count is at the kernel's granularity" "$ROOT/man/zcc.1" || fail "zcc.1: copies by range"
	grep -q "In every mode the headers are read with read()" "$ROOT/man/zcs.1" &&
		fail "zcs.1 says read mode reads headers exactly"
	grep -q "^In trunc and splice modes the headers are read with read(), exactly the" "$ROOT/man/zcs.1" ||
		fail "zcs.1: which modes read headers exactly"
}

# page_modes PROG stream|datagram: the page's mode entries (".It Cm"), those
# before its DATAGRAMS section or those in it.
page_modes() {
	local in=0
	[ "$2" = datagram ] && in=1
	awk -v want="$in" '/^\.Sh DATAGRAMS/ { d = 1 } /^\.Sh / && !/DATAGRAMS/ { if (d) d = 2 }
		/^\.It Cm / && ((want && d == 1) || (!want && !d)) { print $3 }' "$ROOT/man/$1.1" |
		paste -sd, | sed 's/,/, /g'
}

# zcc's table of modes (tx/) is the one list: `zcc -m '?'` prints it, the
# unknown-mode message says it, and zcc.1's -m entries and the benchmarks'
# modes must be the same list; and so for -u's modes.
test_every_list_of_send_modes_is_the_table() {
	local table
	table=$("$ROOT/zcc" -m '?' | paste -sd, | sed 's/,/, /g')
	[ "$(echo "$table" | wc -w)" -ge 7 ] || fail "no list of modes from zcc -m '?': $table"
	expect_eq "$("$ROOT/zcc" -m peek -s localhost /etc/hostname 2>&1 |
		sed -n "s/^zcc: -m 'peek': unknown mode (\(.*\))\$/\1/p" | sed 's/ or /, /')" "$table" \
		"the unknown-mode message's modes"
	expect_eq "$(page_modes zcc stream)" "$table" "zcc.1's modes"
	table=$("$ROOT/zcc" -u -m '?' | paste -sd, | sed 's/,/, /g')
	[ "$(echo "$table" | wc -w)" -ge 6 ] || fail "no list of modes from zcc -u -m '?': $table"
	expect_eq "$(page_modes zcc datagram)" "$table" "zcc.1's datagram modes"
	expect_eq "$(scripts_modes BENCH_UDP_SEND_MODES)" "$table" "zc-matrix --udp-modes's modes"
	table=$("$ROOT/zcc" -m '?' | paste -sd, | sed 's/,/, /g')
	expect_eq "$(scripts_modes BENCH_SEND_MODES)" "$table" "the benchmarks' modes"
	no_list_of_the_scripts_own zcc -m '?'
	no_list_of_the_scripts_own zcc -u -m '?'
}

# scripts_modes NAME: the list of modes the scripts have in NAME
# (bench-lib.sh's), ", " between them.
scripts_modes() {
	bash -c '. "$1/scripts/bench-lib.sh" && bench_mode_lists && echo "${!2}"' _ "$ROOT" "$1" | sed 's/,/, /g'
}

# no_list_of_the_scripts_own PROGRAM ARGS: no script in scripts/ writes down
# three of the modes PROGRAM ARGS lists in a row (a list of its own, which
# a new mode would pass by): they take them from the program.
no_list_of_the_scripts_own() {
	local modes three
	modes=$("$ROOT/$1" "${@:2}" | paste -sd' ' -)
	three=$(echo "$modes" | awk '{ for (i = 1; i + 2 <= NF; i++) printf "%s%s[, |]+%s[, |]+%s", (i > 1 ? "|" : ""), $i, $(i + 1), $(i + 2) }')
	! grep -n -E "(^|[^-a-z])($three)([^-a-z]|\$)" "$ROOT"/scripts/* "$ROOT"/scripts/report/* 2>/dev/null ||
		fail "a list of $1 ${*:2}'s modes of the scripts' own (above)"
}

# zcs's receive modes (rx/): `zcs -m '?'`, its unknown-mode message, zcs.1's
# -m entries and the modes zc-matrix --recv and zc-report take are one list;
# and -u's modes, zcs -u -m '?' and zcs.1's DATAGRAMS.
test_every_list_of_receive_modes_is_zcs_own() {
	local modes dgram_modes
	modes=$("$ROOT/zcs" -m '?' | paste -sd, | sed 's/,/, /g')
	[ "$(echo "$modes" | wc -w)" -ge 4 ] || fail "no list of modes from zcs -m '?': $modes"
	expect_eq "$("$ROOT/zcs" -m peek 2>&1 | sed -n "s/^zcs: -m 'peek': unknown mode (\(.*\))\$/\1/p" |
		sed 's/ or /, /')" "$modes" "the unknown-mode message's modes"
	expect_eq "$(page_modes zcs stream)" "$modes" "zcs.1's modes"
	dgram_modes=$("$ROOT/zcs" -u -m '?' | paste -sd, | sed 's/,/, /g')
	expect_eq "$(page_modes zcs datagram)" "$dgram_modes" "zcs.1's datagram modes"
	expect_eq "$(scripts_modes BENCH_UDP_RECV_MODES)" "$dgram_modes" "zc-matrix --udp-recv's modes"
	expect_eq "$(scripts_modes BENCH_RECV_MODES)" "$modes" "zc-matrix --recv's and zc-report's modes"
	no_list_of_the_scripts_own zcs -m '?'
	no_list_of_the_scripts_own zcs -u -m '?'
}

# -o keeps make from rebuilding the programs (a sanitized test run stays sanitized).
test_install_and_uninstall_honour_prefix_and_destdir() {
	local keep=() p
	for p in $PROGRAMS; do
		keep+=(-o "$p")
	done
	mkdir -p "$T/root/usr/share/man/man1"
	echo other >"$T/root/usr/share/man/man1/other.1"
	make -s -C "$ROOT" "${keep[@]}" install DESTDIR="$T/root" PREFIX=/usr >"$T/out" 2>&1 ||
		fail "make install: $(cat "$T/out")"
	for p in $PROGRAMS; do
		[ -x "$T/root/usr/bin/$p" ] || fail "no /usr/bin/$p under DESTDIR"
		cmp -s "$ROOT/man/$p.1" "$T/root/usr/share/man/man1/$p.1" || fail "no $p.1 under DESTDIR"
	done
	expect_eq "$(stat -c %a "$T/root/usr/share/man/man1/zcc.1")" 644 "mode of an installed page"
	make -s -C "$ROOT" uninstall DESTDIR="$T/root" PREFIX=/usr >"$T/out" 2>&1 ||
		fail "make uninstall: $(cat "$T/out")"
	expect_eq "$(cd "$T/root" && find . -type f | sort)" "./usr/share/man/man1/other.1" "files left"
}

run_tests "$@"
