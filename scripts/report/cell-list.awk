# cell-list.awk: every cell of a runs CSV, one a line, in the natural order
# (after runs.awk and cells.awk), for zc-report's rates, counts and plot.
{ cell_note() }
END {
	n = cells_in_order(cell)
	for (i = 1; i <= n; i++)
		print cell[i]
}
