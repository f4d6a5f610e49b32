# records.awk: what differs between two runs' records (zc-matrix-system.txt, "key: value"
# lines), old | new, for zc-report --compare.
FNR == 1 { side++ } { k = $1; sub(/^[^:]*: /, ""); v[side, k] = $0; if (!(k in seen)) { seen[k] = 1; keys[++n] = k } }
END {
	for (i = 1; i <= n; i++) {
		a = ((1, keys[i]) in v) ? v[1, keys[i]] : "-"
		b = ((2, keys[i]) in v) ? v[2, keys[i]] : "-"
		if (a != b)
			diff = diff sprintf("\n#   %s: %s | %s", keys[i], a, b)
	}
	print diff == "" ? "# the two runs' records agree" : "# what differs between the two runs' records (old | new):" diff
}
