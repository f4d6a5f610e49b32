# check.awk: the first row of a runs CSV that is not as zc-matrix writes it, "line N: why",
# or nothing (zc-report's check_runs_csv; -v modes, recvs: the names a row may have).
NR == 1 { n = NF; for (i = 1; i <= NF; i++) name[i] = $i; next }
function bad(why) { printf "line %d: %s", NR, why; exit }
function listed(list, x) { return index("," list ",", "," x ",") > 0 }
{
	if (index($0, "\"")) bad("a quoted field (zc-matrix writes none)")
	if (NF != n) bad(NF " fields, where the header has " n)
	for (i = 1; i <= NF; i++) {
		v = $i; k = name[i]
		if (k == "round") ok = v ~ /^[0-9]+$/ && length(v) <= 6 && v > 0
		else if (k == "mode") ok = listed(modes, v)
		else if (k == "bufsize") ok = v == "-" || v ~ /^[0-9]+$/ && length(v) <= 10
		else if (k == "placement") ok = listed("none,separate,same", v)
		else if (k == "recv") ok = listed(recvs, v)
		else if (k == "offload") ok = v == "" || v ~ /^sg:(on|off)\/tx:(on|off)$/
		else ok = v == "" || v ~ /^-?[0-9]+(\.[0-9]+)?$/ && length(v) <= 16
		if (!ok) bad(k " is '" v "'")
	}
}
