# check.awk: the first row of a runs CSV that is not as zc-matrix writes it, "line N: why",
# or nothing (zc-report's check_runs_csv; -v modes, recvs: the names a row may have).
NR == 1 { n = NF; for (i = 1; i <= NF; i++) name[i] = $i; next }
function bad(why) { printf "line %d: %s", NR, why; exit }
# A field as an error shows it: at most 40 characters of it.
function shown(v) { return length(v) > 40 ? substr(v, 1, 40) "... (" length(v) " characters)" : v }
# What can never be below 0: rates, counts, shares of a whole; a load, a
# demand or a change may be (a load measured below the idle reference).
function never_negative(k) { return k ~ /^(mbytes_per_sec|rate_|dgrams_|calls_|loss_|copied_|mapped_|busy_|retrans_|host_)|(_pps|ints_per_sec|_per_packet|_limited_pct)$/ }
# Its digits, sign and point aside: past 15 a double no longer holds them all.
function digits(v) { gsub(/[^0-9]/, "", v); return length(v) }
function listed(list, x) { return index("," list ",", "," x ",") > 0 }
{
	if (index($0, "\r")) bad("a carriage return (a file with CRLF line ends: zc-matrix writes LF)")
	if (index($0, "\"")) bad("a quoted field (zc-matrix writes none)")
	if (NF != n) bad(NF " fields, where the header has " n)
	for (i = 1; i <= NF; i++) {
		v = $i; k = name[i]
		if (k == "round") ok = v ~ /^[0-9]+$/ && length(v) <= 6 && v > 0
		else if (k == "mode") ok = listed(modes, v)
		else if (k == "bufsize") ok = v == "-" || v ~ /^[0-9]+$/ && length(v) <= 10
		else if (k == "placement") ok = listed("none,separate,same", v) || v ~ /^s[0-9+-]+\/r[0-9+-]+$/
		else if (k == "recv") ok = listed(recvs, v)
		else if (k == "run") ok = v == "" || v ~ /^[0-9A-Za-z.-]+$/ && length(v) <= 64
		else if (k == "offload") ok = v == "" || v ~ /^sg:(on|off)\/tx:(on|off)$/
		# zc-fleet's: the pair's number and its two hosts, as the plan names them.
		else if (k == "pair") ok = v ~ /^[0-9]+$/ && length(v) <= 6
		else if (k == "sender" || k == "receiver") ok = v ~ /^[A-Za-z0-9._:@-]+$/ && length(v) <= 255
		else ok = v == "" || v ~ /^-?[0-9]+(\.[0-9]+)?$/ && digits(v) <= 15 && !(never_negative(k) && v < 0)
		if (!ok) bad(k " is '" shown(v) "'" (never_negative(k) && v ~ /^-/ ? ", below 0" : ""))
	}
}
