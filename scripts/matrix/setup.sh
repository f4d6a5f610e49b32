# scripts/zc-matrix's set-up, sourced by it: what runs that are gone left
# behind, removed; with --netns, the two namespaces and their veth pair;
# with --offload, the sending interface and its offloads as they are
# (set_offload switches them per cell). It reads and sets zc-matrix's
# variables: work, netns, host, offload (read); ns_a, ns_b, in_a, remote,
# remote_cmd, server, offload_if, offload_saved (set).

# What a run killed with SIGKILL left behind (its exit trap never ran): its
# scratch directory and, with --netns, its two namespaces (their veth pair
# goes with them), each named for a pid that is no longer a zc-matrix.
gone_run() {
	! { tr '\0' ' ' <"/proc/$1/cmdline" | grep -q zc-matrix; } 2>/dev/null
}
stale=()
for d in "${TMPDIR:-/tmp}"/zc-matrix.*.*; do
	p=${d#"${TMPDIR:-/tmp}"/zc-matrix.}
	p=${p%%.*}
	case "$p" in '' | *[!0-9]*) continue ;; esac
	[ -d "$d" ] && [ "$d" != "$work" ] && gone_run "$p" || continue
	# Its zcs, zcc and meter first, by the pids it recorded, if they are still those.
	for k in $(bench_stale_pids "$d"); do
		stale+=("pid $k")
	done
	rm -rf "$d" && stale+=("$d")
done
if [ "$netns" = 1 ]; then
	for ns in $(ip netns list | awk '$1 ~ /^zc-[ab]-[0-9]+$/ { print $1 }'); do
		gone_run "${ns##*-}" && ip netns del "$ns" 2>/dev/null && stale+=("$ns")
	done
fi
[ ${#stale[@]} -eq 0 ] || echo "# removed what zc-matrix runs that are gone left behind: ${stale[*]}"

in_a=()
server=${host:-127.0.0.1}
if [ "$netns" = 1 ]; then
	ns_a=zc-a-$$
	ns_b=zc-b-$$
	# With each end's CPUs, each end's received packets handled on them.
	netns_pair "$ns_a" "$ns_b" "zcva$$" "zcvb$$" 10.250.0 "$sender_cpus" "$receiver_cpus" ||
		bench_die "--netns: cannot make network namespaces here"
	in_a=(ip netns exec "$ns_a")
	remote=(ip netns exec "$ns_b")
	remote_cmd="ip netns exec $ns_b"
	server=10.250.0.2
	echo "# netns: zcc in $ns_a (10.250.0.1), zcs in $ns_b (10.250.0.2), joined by a veth pair"
fi

# read_offloads: "TX SG", the sending interface's tx-checksumming and
# scatter-gather as ethtool -k reads them (on or off); nothing if it shows none.
read_offloads() {
	"${in_a[@]}" ethtool -k "$offload_if" |
		awk -F': ' '$1 == "tx-checksumming" { tx = $2 } $1 == "scatter-gather" { sg = $2 }
			END { sub(/ .*/, "", tx); sub(/ .*/, "", sg); if (tx != "" && sg != "") print tx, sg }'
}

# --offload: the interface zcc sends from, its offloads as they are (to put
# back on exit), and a state set and read back per cell.
if [ -n "$offload" ]; then
	offload_if=$("${in_a[@]}" ip route get "$server" | sed -n 's/.* dev \([^ ]*\).*/\1/p' | head -n 1)
	[ -n "$offload_if" ] || bench_die "--offload: no route to $server"
	read -r tx sg < <(read_offloads) || true
	[ -n "${sg:-}" ] && offload_saved="tx $tx sg $sg"
	[ -n "$offload_saved" ] || bench_die "--offload: ethtool -k $offload_if shows no scatter-gather or tx-checksumming"
	echo "# offload: ${offload//,/ and } on $offload_if (ethtool -K $offload_if sg STATE tx STATE; it was: $offload_saved)"
fi

# set_offload on|off: switch the sending interface's scatter-gather and
# transmit checksum offload, and print what ethtool -k reads back
# ("sg:on/tx:on"): the state the cell was measured in.
set_offload() {
	local tx sg
	"${in_a[@]}" ethtool -K "$offload_if" sg "$1" tx "$1" >/dev/null 2>&1 || true
	read -r tx sg < <(read_offloads) || true
	echo "sg:${sg:-}/tx:${tx:-}"
}
