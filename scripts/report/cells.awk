# cells.awk: the cells of a runs CSV in their natural order, for zc-report's
# programs (after runs.awk; -v modes and recvs: the send and receive modes in
# the order zcc and zcs list them). A cell is "MODE BUFSIZE PLACEMENT RECV
# RATE"; the order is full speed before the rates, slowest first, then
# placement, receive mode, send mode, buffer size.
#
# cell_note(): the row's cell, noted with its place in the order.
function cell_note(   k) {
	k = $c["mode"] " " $c["bufsize"] " " $c["placement"] " " $c["recv"] " " rate()
	if (!(k in cell_place))
		cell_place[k] = sprintf("%020.0f %04d %04d %04d %015.0f", rate() + 0,
			cell_rank("none,separate,same", $c["placement"]), cell_rank(recvs, $c["recv"]),
			cell_rank(modes, $c["mode"]), $c["bufsize"] + 0)
	return k
}
# cells_in_order(OUT): the cells noted, in order, into OUT[1..n]; returns n.
function cells_in_order(out,   n, k, i, j, t) {
	split("", out)
	n = 0
	for (k in cell_place)
		out[++n] = k
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && cell_place[out[j - 1]] > cell_place[out[j]]; j--) {
			t = out[j]; out[j] = out[j - 1]; out[j - 1] = t
		}
	return n
}
# cell_rank(LIST, X): X's place in the comma-separated LIST, from 1; after them all if not in it.
function cell_rank(list, x,   n, a, i) {
	n = split(list, a, ",")
	for (i = 1; i <= n; i++)
		if (a[i] == x)
			return i
	return n + 1
}
