# The shapes of zc-matrix's and zc-report's tables and CSVs, and rows to
# build CSVs from: shared by t_bench.sh (zc-matrix runs) and t_report.sh
# (zc-report of saved files).

NUM='-?[0-9]+\.[0-9]+'
# "median [lo, hi]", the form of every figure in the table.
FIG="$NUM \\[$NUM, $NUM\\]"
PCT="[-+][0-9]+\\.[0-9]% \\[[-+][0-9]+\\.[0-9]%, [-+][0-9]+\\.[0-9]%\\]"
# The gap, in points: the meter's load less the kernel's view.
GAP='[-+][0-9]+\.[0-9]'
MODES=$(send_modes | paste -sd '|' -)
# A table row: the cell, MB/s, then the rest; a paced section's rows have
# the share of the rate reached between the two.
# The mode may carry the table's marks: ! a run began busy, ~ a run had steal.
ROW_CELL="^($MODES)!?~? +([0-9]+|-) +(none|separate|same) +($(recv_modes | paste -sd '|' -)) +\\| +$FIG +"
ROW_REST="$FIG +$FIG +$NUM +$GAP \\| +$NUM +($NUM|-) +\\| +$PCT +\\| ([0-9]+%|-) +\\| ([0-9]+%|-) +\\| +([0-9]+|-) +([0-9]+|-) +([0-9]+|-) +[0-9]+ \\| +$NUM +$NUM +$NUM \\| (-|$NUM  $FIG)\$"
ROW="$ROW_CELL$ROW_REST"
PACED_ROW="$ROW_CELL([0-9]+%|-) +$ROW_REST"
RUNS_HEADER=round,mode,bufsize,placement,recv,mbytes_per_sec,busy_pct_proc_stat,demand_proc_stat_us_per_kb,zcc_us_per_kb,zcs_us_per_kb,mbytes_per_sec_metered,load_pct,demand_us_per_kb,kernel_pct,meter_throughput_change_pct,copied_pct,mapped_pct,ints_per_sec,rx_pps,tx_pps,recv_load_pct,recv_demand_us_per_kb,recv_kernel_pct,recv_ints_per_sec,recv_rx_pps,recv_tx_pps,offload,rate_bytes_per_sec,rate_reached_pct,rate_reached_pct_metered,time_lost_pct,slowdown_pct,dgrams_per_sec,calls_per_sec,loss_pct,tx_bytes_per_packet,recv_tx_bytes_per_packet,retrans_segments,retrans_pct,rwnd_limited_pct,sndbuf_limited_pct,host_autocorking,host_delayed_acks,host_pure_acks,load_before_pct,run,steal_pct
TURNS_HEADER=rate_bytes_per_sec,placement,recv,bufsize,offload,slot_ms,seconds,arm,mode,slots,mbytes_per_sec,load_pct,demand_us_per_kb,kernel_pct,against,verdict,carried_by,blocks,block_cycles,demand_pct,demand_pct_lo,demand_pct_hi,kernel_demand_pct,kernel_demand_pct_lo,kernel_demand_pct_hi,load_points,load_points_lo,load_points_hi,end,run
# A change in percent and its interval in the turns' verdict.
TPCT='[-+][0-9]+\.[0-9]% \[[-+][0-9]+\.[0-9], [-+][0-9]+\.[0-9]\]'
# The cells CSV's figures: the runs CSV's, and the gap the report derives.
CELL_FIGS="$(echo "$RUNS_HEADER" | cut -d, -f6-26,29-32 | tr ',' ' ') meter_gap_pts $(echo "$RUNS_HEADER" | cut -d, -f33-41 | tr ',' ' ')"

# offloads IF: the interface's scatter-gather and tx-checksumming lines, in $NS_A.
offloads() {
	ip netns exec "$NS_A" ethtool -k "$1" | grep -E '^(scatter-gather|tx-checksumming):'
}

# csv_row ROUND MODE RATE DEMAND LOAD KERNEL REACHED REACHED_METERED [RWND
# SNDBUF RETRANS BUSY_BEFORE STEAL]: a runs CSV row, separate CPUs, zcs
# reading, -b 1048576, the other figures fixed; RWND and SNDBUF the shares
# limited, RETRANS the share retransmitted (empty: 0), BUSY_BEFORE the
# host's load before the metered run, STEAL the hypervisor's share in it.
csv_row() {
	echo "$1,$2,1048576,separate,read,900.0,40.0,0.900,0.300,0.200,890.0,$5,$4,$6,-1.1,,,1000,2000,2000,,,,,,,,$3,$7,$8,$6,0.0,,,,30000,,0,${11:-0.00},${9:-0.0},${10:-0.0},0,12,300,${12:-},${CSV_RUN:-},${13:-}"
}

# turns_row RATE ARM DEMAND LOAD MBS AGAINST VERDICT CARRIED PCT LO HI: a turns CSV row, separate,
# read, -b 1048576, of the sender (TURNS_END: another end).
turns_row() {
	local against=${6:-} cmp=
	[ -z "$against" ] || cmp="$against,$7,$8,20,1,$9,${10},${11},${12:-5.0},${13:--1.0},${14:-9.0},1.000,0.500,1.500"
	echo "$1,separate,read,1048576,,100,3.0,$2,$2,30,$5,$4,$3,$4,${cmp:-,,,,1,,,,,,,,,},${TURNS_END:-sender},${CSV_RUN:-}"
}

# turns_verdict: zc-report of $T's CSVs, and its verdict from the turns at
# turns_row's rate: the lines of its group and arms.
turns_verdict() {
	bash "$ROOT/scripts/zc-report" --out "$T/out" "$T/zc-matrix-runs.csv" >"$T/report" 2>"$T/err" ||
		fail "zc-report failed: $(cat "$T/err")"
	sed -n '/^Verdict at one rate, zcc -R 100m (104.9 MB\/s), from the turns/,/^$/p' "$T/report" | grep '^  '
}
