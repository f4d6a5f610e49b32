#!/bin/bash
# -J: zcc, zcs and cyclesoak print JSON objects, one a line, that an
# independent parser (python3's json module) reads, with the figures the text
# summaries give.
. "$(dirname "$0")/lib.sh"

# jq_py FILE EXPR: EXPR (Python, over the list `objs` of every object in FILE)
# printed; every line of FILE must parse as one JSON object.
jq_py() {
	python3 - "$1" "$2" <<'PY'
import json, sys
objs = []
for n, line in enumerate(open(sys.argv[1]), 1):
    try:
        o = json.loads(line)
    except ValueError as e:
        sys.exit("line %d is not JSON: %s: %r" % (n, e, line))
    if not isinstance(o, dict):
        sys.exit("line %d is not an object" % n)
    objs.append(o)
print(eval(sys.argv[2]))
PY
}

need_python() {
	command -v python3 >/dev/null && python3 -c 'import json' 2>/dev/null ||
		skip "python3 is not installed (apt-get install python3)"
}

# The scripts' reader (scripts/json.awk) reads each member by its path:
# with -P a stream's "bytes" and "sends" come before the transfer's, and
# are never taken for them. Python's json reads the same object as it.
test_the_scripts_json_reader_takes_each_member_by_its_path() {
	local got want
	need_python
	make_files "$T/f"
	start_zcs
	"$ROOT/zcc" -J -P 2 -m zerocopy -n 3 -p "$PORT" -s 127.0.0.1 "$T"/f/* >"$T/out" || fail "zcc -P 2 failed"
	got=$(awk "$JSON_AWK"'{
		print json_get($0, "result.bytes"), json_get($0, "result.zerocopy.sends"),
			json_get($0, "streams.1.bytes"), json_get($0, "streams.0.zerocopy.sends"),
			json_get($0, "settings.mode"), json_count($0, "streams"),
			"[" json_get($0, "settings.cpu") "]", "[" json_get($0, "result") "]", "[" json_get($0, "no.such") "]"
	}' "$T/out")
	want=$(jq_py "$T/out" '" ".join(str(x) for x in (objs[0]["result"]["bytes"], objs[0]["result"]["zerocopy"]["sends"],
		objs[0]["streams"][1]["bytes"], objs[0]["streams"][0]["zerocopy"]["sends"], objs[0]["settings"]["mode"],
		len(objs[0]["streams"]), "[]", "[]", "[]"))')
	expect_eq "$got" "$want" "json_get against python"
	expect_eq "$(jq_py "$T/out" 'objs[0]["result"]["bytes"] == objs[0]["streams"][0]["bytes"] + objs[0]["streams"][1]["bytes"]')" \
		True "the transfer's bytes, the streams' sum"
	got=$(printf '%s\n' '{"a":[],"b":[1,[2,3],{"c":null,"d":"x.y"}],"e":{"f":true,"g":-1.5e3}}' | awk "$JSON_AWK"'{
		print json_count($0, "a"), json_count($0, "b"), json_count($0, "b.1"), json_get($0, "b.1.1"),
			json_get($0, "b.2.d"), "[" json_get($0, "b.2.c") "]", json_get($0, "e.f"), json_get($0, "e.g")
	}')
	expect_eq "$got" "0 3 2 3 x.y [] true -1.5e3" "json_get of nested arrays and objects"
}

test_zcc_J_prints_the_summary_as_one_object() {
	local want out
	need_python
	make_files "$T/f"
	start_zcs
	want=$(stream_bytes 2 "$T"/f/*)
	"$ROOT/zcc" -J -n 2 -m zerocopy -b 64k -p "$PORT" -s 127.0.0.1 "$T"/f/* >"$T/out"
	expect_eq "$(wc -l <"$T/out")" 1 "lines"
	out=$(jq_py "$T/out" '[objs[0][k] for k in ("program", "host", "kernel")] + [objs[0]["settings"][k] for k in ("server", "port", "mode", "bufsize", "depth", "loops", "files", "cpu", "mss")]')
	# The default depth at 64 KiB: 4 MiB in flight.
	expect_eq "$out" "['zcc', '$(uname -n)', '$(uname -r)', '127.0.0.1', $PORT, 'zerocopy', 65536, 64, 2, 7, None, None]"
	expect_eq "$(jq_py "$T/out" 'objs[0]["result"]["bytes"], objs[0]["result"]["confirmed"]')" "($want, True)"
	n=$(chunks 65536 2 "$T"/f/*)
	expect_eq "$(jq_py "$T/out" 'objs[0]["result"]["zerocopy"]')" "{'sends': $n, 'zerocopy': 0, 'copied': $n}"
	expect_eq "$(jq_py "$T/out" 'objs[0]["meter"]')" None "the meter without -c"
	expect_match "$(jq_py "$T/out" 'objs[0]["time"]')" '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'
	wait_summaries 1
	expect_eq "$(zcs_summaries | awk '{ print $2 }')" "$want" "zcs's count"
}

# What each end ran on: zc's version, the CPUs, the sysctls as /proc/sys has
# them and every CPU vulnerability's line, in both ends' objects alike.
test_zcc_and_zcs_J_record_what_they_ran_on() {
	local want
	make_files "$T/f"
	start_zcs -J
	"$ROOT/zcc" -J -s 127.0.0.1 -p "$PORT" "$T/f/350k" >"$T/out" || fail "zcc failed"
	wait_summaries 1
	zcs_summaries >"$T/zcs.json"
	want="($(nproc), '$(tr -s ' \t' '  ' </proc/sys/net/ipv4/tcp_wmem)', '$(cat /proc/sys/net/core/optmem_max)', '$(cat /proc/sys/net/ipv4/tcp_congestion_control)', $(ls /sys/devices/system/cpu/vulnerabilities 2>/dev/null | wc -l))"
	for f in "$T/out" "$T/zcs.json"; do
		expect_eq "$(jq_py "$f" 'objs[0]["system"]["cpus"], objs[0]["system"]["sysctls"]["net.ipv4.tcp_wmem"], objs[0]["system"]["sysctls"]["net.core.optmem_max"], objs[0]["system"]["sysctls"]["net.ipv4.tcp_congestion_control"], len(objs[0]["system"]["mitigations"])')" \
			"$want" "$(basename "$f")'s system"
		expect_match "$(jq_py "$f" 'objs[0]["system"]["zc_version"]')" '^([0-9a-f]{7,}|v?[0-9].*)(-dirty)?$|^unknown$'
	done
}

test_zcc_J_with_c_has_the_meters_figures() {
	need_python
	make_files "$T/f"
	calibrate_here
	start_zcs
	(cd "$T" && "$ROOT/zcc" -J -c -T 200 -n 20 -p "$PORT" -s 127.0.0.1 "$T"/f/* >"$T/out")
	expect_eq "$(jq_py "$T/out" 'sorted(objs[0]["meter"])')" \
		"['cpus', 'demand_us_per_kb', 'kernel_pct', 'load_before_pct', 'load_pct', 'note', 'seconds', 'slowdown_pct', 'steal_flagged', 'steal_pct', 'tare_ms', 'time_lost_pct']"
	expect_eq "$(jq_py "$T/out" 'objs[0]["meter"]["cpus"], objs[0]["meter"]["tare_ms"]')" "($(allowed_cpus), 200)"
	# Each metered CPU's figures, in the order of the CPUs, and the busiest, the one of the highest load.
	expect_eq "$(jq_py "$T/out" '[c["cpu"] for c in objs[0]["cpus"]], sorted(objs[0]["cpus"][0])')" \
		"($(affinity_cpus | paste -sd, - | sed 's/^/[/; s/,/, /g; s/$/]/'), ['cpu', 'irq', 'load', 'softirq', 'steal', 'system', 'user'])"
	expect_eq "$(jq_py "$T/out" 'objs[0]["busiest"]["load"] == max(c["load"] for c in objs[0]["cpus"]) and objs[0]["busiest"]["cpu"] in [c["cpu"] for c in objs[0]["cpus"] if c["load"] == objs[0]["busiest"]["load"]]')" True \
		"the busiest: $(cat "$T/out")"
	# The whole's load is the CPUs' weighed by their rates, which differ little: near their mean.
	expect_eq "$(jq_py "$T/out" 'abs(objs[0]["meter"]["load_pct"] - sum(c["load"] for c in objs[0]["cpus"]) / len(objs[0]["cpus"])) < 2')" True \
		"the whole against its CPUs: $(cat "$T/out")"
	jq_py "$T/out" '-100 < objs[0]["meter"]["load_pct"] <= 100 and objs[0]["meter"]["demand_us_per_kb"] is not None' |
		grep -qx True || fail "meter figures: $(cat "$T/out")"
	# The load's two parts add up to it (each rounded to 0.1).
	jq_py "$T/out" 'abs(objs[0]["meter"]["time_lost_pct"] + objs[0]["meter"]["slowdown_pct"] - objs[0]["meter"]["load_pct"]) <= 0.15' |
		grep -qx True || fail "time lost and slowdown do not add up to the load: $(cat "$T/out")"
	# How busy the host was before, by the tare: a share, null without one.
	jq_py "$T/out" '-100 < objs[0]["meter"]["load_before_pct"] <= 100' | grep -qx True ||
		fail "load_before_pct: $(cat "$T/out")"
	(cd "$T" && "$ROOT/zcc" -J -c -T 0 -n 2 -p "$PORT" -s 127.0.0.1 "$T"/f/* >"$T/out")
	expect_eq "$(jq_py "$T/out" 'objs[0]["meter"]["load_before_pct"]')" "None" "load_before_pct with -T 0"
}

# zcs -c -J: the meter's object, as zcc's, and whether the window was shared.
test_zcs_J_with_c_has_the_meters_figures_per_connection() {
	need_python
	make_files "$T/f"
	calibrate_here
	start_zcs -J -c -T 300
	"$ROOT/zcc" -n 20 -p "$PORT" -s 127.0.0.1 "$T"/f/* >/dev/null || fail "zcc failed"
	wait_summaries 1
	expect_eq "$(jq_py "$T/zcs.out" 'sorted(objs[0]["meter"])')" \
		"['cpus', 'demand_us_per_kb', 'kernel_pct', 'load_before_pct', 'load_pct', 'note', 'seconds', 'shared', 'slowdown_pct', 'steal_flagged', 'steal_pct', 'tare_ms', 'time_lost_pct']"
	expect_eq "$(jq_py "$T/zcs.out" 'objs[0]["meter"]["cpus"], 250 <= objs[0]["meter"]["tare_ms"] <= 450, objs[0]["meter"]["shared"]')" \
		"($(allowed_cpus), True, False)"
	jq_py "$T/zcs.out" '-100 < objs[0]["meter"]["load_pct"] <= 100 and abs(objs[0]["meter"]["seconds"] - objs[0]["result"]["seconds"]) < 0.05' |
		grep -qx True || fail "meter figures: $(cat "$T/zcs.out")"
}

test_zcs_J_prints_one_object_per_connection_with_its_intervals() {
	need_python
	start_zcs -J -t 1
	{ u32be 1; u32be 1; u32be 100; sleep 2.4; head -c 100 /dev/zero; } >"/dev/tcp/127.0.0.1/$PORT"
	{ u32be 1; u32be 1; u32be 1000; head -c 10 /dev/zero; } >"/dev/tcp/127.0.0.1/$PORT"
	{ u32be 1; u32be 0; printf 'junk'; } >"/dev/tcp/127.0.0.1/$PORT"
	wait_until 10 eval '[ "$(wc -l <"$T/zcs.out")" -ge 3 ]' || fail "zcs printed: $(cat "$T/zcs.out")"
	grep -q 'kbytes/sec$' "$T/zcs.out" && fail "-J printed text interval lines"
	# The children print as each connection ends, not always in turn.
	expect_eq "$(jq_py "$T/zcs.out" 'sorted([(o["result"]["bytes"], o["result"]["complete"], o["result"]["waiting_for"], o["result"]["extra_bytes"], o["result"]["files"]) for o in objs], reverse=True)')" \
		"[(112, True, None, 0, 1), (22, False, 'file data', 0, 0), (12, True, None, 4, 0)]"
	expect_eq "$(jq_py "$T/zcs.out" '[len(o["intervals"]) for o in objs][0] >= 2 and [iv["bytes"] for iv in objs[0]["intervals"]][:2] == [12, 0]')" \
		True "the first connection's intervals: $(jq_py "$T/zcs.out" 'objs[0]["intervals"]')"
	expect_eq "$(jq_py "$T/zcs.out" 'objs[0]["settings"]')" \
		"{'protocol': 'tcp', 'mode': 'read', 'bufsize': 1048576, 'rcvlowat': 262144, 'report_secs': 1, 'cpu': None, 'rcvbuf': 0, 'sndbuf': 0, 'nodelay': False, 'quickack': False}"
	expect_match "$(jq_py "$T/zcs.out" 'objs[0]["peer"]')" '^(::ffff:)?127\.0\.0\.1 port [0-9]+$'
}

test_cyclesoak_J_prints_an_object_per_sample() {
	need_python
	calibrate_here
	# Three samples, however long a loaded host takes to give them; then
	# SIGTERM (stop_pid), which ends it between samples.
	(cd "$T" && exec "$ROOT/cyclesoak" -J -m 200 >"$T/out" 2>"$T/err") &
	local cs=$!
	started "$cs"
	wait_until 10 eval '[ "$(wc -l <"$T/out")" -ge 3 ]' || fail "samples: $(cat "$T/out" "$T/err")"
	stop_pid "$cs"
	expect_eq "$(jq_py "$T/out" 'set(o["program"] for o in objs), set(o["n_cpus"] for o in objs), set(len(o["free_pct"]) for o in objs), set(len(o["cpus"]) for o in objs)')" \
		"({'cyclesoak'}, {$(allowed_cpus)}, {$(allowed_cpus)}, {$(allowed_cpus)})"
	# A CPU's free share is 100 less its load; the busiest is the CPU of the highest load.
	expect_eq "$(jq_py "$T/out" 'all(abs(f["pct"] + c["load"] - 100) <= 0.11 for o in objs for f, c in zip(o["free_pct"], o["cpus"])) and all(o["busiest"]["load"] == max(c["load"] for c in o["cpus"]) for o in objs)')" True \
		"each CPU's figures: $(cat "$T/out")"
	expect_eq "$(jq_py "$T/out" 'all(0.15 < o["seconds"] < 0.5 and -50 < o["load_pct"] <= 100 for o in objs)')" True
	expect_eq "$(jq_py "$T/out" 'all(abs(o["time_lost_pct"] + o["slowdown_pct"] - o["load_pct"]) <= 0.15 for o in objs)')" True \
		"the load's two parts: $(cat "$T/out")"
	(cd "$T" && "$ROOT/cyclesoak" -J -1 >"$T/one" 2>"$T/err") || fail "cyclesoak -J -1: $(cat "$T/err")"
	expect_eq "$(jq_py "$T/one" 'len(objs), objs[0]["n_cpus"], 0.9 < objs[0]["seconds"] < 1.5')" \
		"(1, $(allowed_cpus), True)" "one sample with -1"
	# Its objects fit the one schema (test_every_programs_J_fits_the_one_schema's).
	schema_check "$T/out" "$T/one" || fail "the objects that do not fit the schema are above"
}

test_cyclesoak_J_with_C_is_a_usage_error() {
	usage_error cyclesoak "cyclesoak: -J is for load samples: -C writes ./counts_per_sec and prints text" -J -C
}

# -P -J: a failed stream carries what it sent before failing (the count its
# error line gives) and says it failed; -B's list is in the settings whole.
test_zcc_J_gives_a_failed_streams_bytes_and_every_B_cpu() {
	local rc=0 zcc k said
	need_python
	[ "$(allowed_cpus)" -ge 2 ] || skip "needs two CPUs"
	start_streams 2 -- -J -B 0,1
	zcc=$ZCC_PID
	kill -9 $(pgrep -P "$ZCS_PID")
	wait_until 10 eval '! kill -0 '"$zcc"' 2>/dev/null' || fail "zcc still running"
	wait "$zcc" || rc=$?
	expect_eq "$rc" 1 "exit code"
	expect_eq "$(jq_py "$T/out" 'objs[0]["settings"]["cpu"], objs[0]["result"]["failed_streams"], [s["failed"] for s in objs[0]["streams"]]')" \
		"([0, 1], 2, [True, True])"
	for k in 1 2; do
		said=$(sed -nE "s/^zcc: stream $k: connection (reset|closed) after ([0-9]+) bytes: .*/\\2/p" "$T/err")
		[ -n "$said" ] || fail "no error line from stream $k: $(cat "$T/err")"
		expect_eq "$(jq_py "$T/out" "objs[0]['streams'][$((k - 1))]['bytes']")" "$said" "stream $k's bytes"
	done
}

# A receiver that never closes: the meter's window ends at the last byte, as
# the time does, and does not take in the -W wait.
test_zcc_J_meter_window_ends_at_the_last_byte_without_zcs_close() {
	local rc=0 port
	need_python
	calibrate_here
	head -c 8388608 /dev/urandom >"$T/file"
	start_capture -H 0 "$T/wire"
	port=$CAPTURE_PORT
	(cd "$T" && "$ROOT/zcc" -J -c -T 200 -W 2 -p "$port" -s 127.0.0.1 "$T/file" >"$T/out" 2>"$T/err") ||
		rc=$?
	expect_eq "$rc" 1 "exit code: $(cat "$T/err")"
	expect_eq "$(jq_py "$T/out" 'objs[0]["result"]["confirmed"], abs(objs[0]["meter"]["seconds"] - objs[0]["result"]["seconds"]) < 0.05')" \
		"(False, True)" "the window against the time: $(cat "$T/out")"
}

# schema_check FILE...: every line of each FILE read against
# docs/zc-json.schema.json by a reader of the schema's words that it uses
# ($ref, oneOf, const, enum, type, properties, required, additionalProperties,
# items); one line for each way an object does not fit, naming the member.
schema_check() {
	python3 - "$ROOT/docs/zc-json.schema.json" "$@" <<'PY'
import json, sys
schema = json.load(open(sys.argv[1]))
def kind(v, t):
    return {"null": v is None, "boolean": isinstance(v, bool), "string": isinstance(v, str),
            "integer": isinstance(v, int) and not isinstance(v, bool),
            "number": isinstance(v, (int, float)) and not isinstance(v, bool),
            "array": isinstance(v, list), "object": isinstance(v, dict)}[t]
def errors(s, v, path):
    if "$ref" in s:
        return errors(schema["$defs"][s["$ref"].split("/")[-1]], v, path)
    if "oneOf" in s:
        fits = [errors(x, v, path) for x in s["oneOf"]]
        if sum(1 for e in fits if not e) == 1:
            return []
        return min(fits, key=len) or [path + ": fits more than one of oneOf"]
    if "const" in s and v != s["const"]:
        return ["%s: %r, not %r" % (path, v, s["const"])]
    if "enum" in s and v not in s["enum"]:
        return ["%s: %r, not one of %r" % (path, v, s["enum"])]
    types = s.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(kind(v, t) for t in types):
            return ["%s: %s is not %s" % (path, json.dumps(v)[:40], " or ".join(types))]
    out = []
    if isinstance(v, dict):
        props = s.get("properties", {})
        out += ["%s: no %s" % (path, k) for k in s.get("required", []) if k not in v]
        for k, x in v.items():
            if k in props:
                out += errors(props[k], x, path + "." + k)
            elif s.get("additionalProperties", True) is False:
                out.append("%s: %s is not in the schema" % (path, k))
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            out += errors(s["items"], x, "%s[%d]" % (path, i))
    return out
bad = 0
for f in sys.argv[2:]:
    for n, line in enumerate(open(f), 1):
        for e in errors(schema, json.loads(line), "%s:%d" % (f.split("/")[-1], n)):
            print(e)
            bad = 1
sys.exit(bad)
PY
}

# schema_runs: zcs and zcc with the arguments of each line of standard input
# (zcs's|zcc's) over loopback, their -J objects in $T/zcs-N.json and
# $T/zcc-N.json.
schema_runs() {
	local n=0 zargs cargs
	make_files "$T/f"
	while IFS='|' read -r zargs cargs; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		start_zcs -J -t 1 $zargs
		# shellcheck disable=SC2086
		(cd "$T" && "$ROOT/zcc" -J -p "$PORT" -s 127.0.0.1 $cargs "$T"/f/*) >"$T/zcc-$n.json" 2>"$T/zcc-$n.err" ||
			fail "zcc $cargs failed: $(cat "$T/zcc-$n.err")"
		wait_until 10 eval '[ "$(grep -c "^{" "$T/zcs.out")" -ge '"$(case "$cargs" in *-P*) echo 2 ;; *) echo 1 ;; esac)"' ]' ||
			fail "zcs $zargs wrote no object: $(cat "$T/zcs.err")"
		stop_pid "$ZCS_PID"
		grep '^{' "$T/zcs.out" >"$T/zcs-$n.json"
	done
}

# The members whose names could mislead say what they hold, in the schema:
# kbytes_per_sec is KiB, a buffer of 0 the default, settings' cpu null
# unpinned, snd_cwnd in segments, link.interrupts softirqs where the device
# has no interrupts of its own, and how the meter's load, time lost and
# slowdown add up.
test_the_schema_says_what_the_misleading_members_hold() {
	local schema=$ROOT/docs/zc-json.schema.json m n
	for m in kbytes_per_sec rcvbuf sndbuf snd_cwnd interrupts counted time_lost_pct slowdown_pct; do
		n=$(grep -o "\"$m\": {[^{}]*\(\[[^]]*\][^{}]*\)*}" "$schema" | wc -l)
		[ "$n" -gt 0 ] || fail "no member $m in the schema"
		expect_eq "$(grep -o "\"$m\": {[^{}]*\(\[[^]]*\][^{}]*\)*}" "$schema" | grep -vc '"description": ' || true)" 0 \
			"$m's members without a description"
	done
	expect_match "$(grep -o '"snd_cwnd": {[^}]*}' "$schema")" 'segments'
	expect_match "$(grep -o '"kbytes_per_sec": {[^}]*}' "$schema" | head -n 1)" 'KiB a second'
	expect_match "$(grep -o '"interrupts": {[^}]*}' "$schema")" 'softirqs'
	expect_match "$(grep -o '"rcvbuf": {[^}]*}' "$schema" | head -n 1)" "0: not set, the kernel's default"
}

# Every program's -J, over TCP and UDP, with no meter, with -P and
# intervals, fits the one schema: every member always there, null where it
# does not apply (cyclesoak's in its own test above, in the meter's turn:
# these runs, 3.5 s, need no meter). The reader finds a member missing, a
# member not in the schema and a wrong type.
test_every_programs_J_fits_the_one_schema() {
	need_python
	schema_runs <<'EOF'
|-n 2
|-P 2 -m zerocopy -n 2
-u|-u -R 50m
|-R 50m -t 2.2 -I
EOF
	schema_check "$T"/*.json || fail "the objects that do not fit the schema are above"
	# The reader fails what does not fit.
	sed -e 's/"meter":null,//' -e 's/"program":"zcc",/&"extra":1,/' -e 's/"mode":"sendfile"/"mode":7/' "$T/zcc-1.json" >"$T/bad"
	expect_eq "$(schema_check "$T/bad")" "bad:1: no meter
bad:1: extra is not in the schema
bad:1.settings.mode: 7 is not string or null" "the reader's words for an object that does not fit"
}

# The same with a meter at either end, with -P, turns at either end and
# the slots zcs follows. Tares of 100 ms: their length is not what the
# schema checks.
test_every_programs_J_with_a_meter_fits_the_one_schema() {
	runs_alone # zcc -c and zcs -c, their options in variables: a tare needs idle time
	need_python
	calibrate_here
	schema_runs <<'EOF'
|-c -T 100 -n 2
-c -T 100|-n 2
-u|-P 2 -c -T 100 -u -m gso -R 50m
-u -c -T 100|-u -m sendmmsg -R 50m -t 1.2
|-c -T 100 -E -m sendfile,write -A 50 -t 1
-c -T 100|-E -m sendfile,write -A 50 -t 1
-c -T 100 -m read,trunc -A 50|-t 1.2
EOF
	schema_check "$T"/*.json || fail "the objects that do not fit the schema are above"
}

run_tests "$@"
