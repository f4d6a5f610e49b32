# netns.sh: hosts on one machine, for the scripts and the tests, sourced:
# two network namespaces joined by a veth pair, or a set of them on one
# bridge, made and taken down by the same names. Each end may keep its receive softirqs on CPUs of its own
# (receive packet steering on its veth), so that a meter of those CPUs
# (-U) sees that end's work and not the other's.

# cpu_list_each LIST: the CPUs of a list as taskset takes it ("0,4-7"), one a line.
cpu_list_each() {
	echo "$1" | tr ',' '\n' | awk -F- '{ for (c = $1; c <= (NF == 2 ? $2 : $1); c++) print c }'
}

# netns_rps_mask LIST: the hex mask rps_cpus takes for a CPU list ("1",
# "2-5", "0,4-7"): 32-bit words, the highest first, comma-separated.
netns_rps_mask() {
	echo "$1" | tr ',' '\n' | awk -F- '
		{ lo = $1; hi = (NF == 2 ? $2 : $1); for (c = lo; c <= hi; c++) set[c] = 1; if (hi > top) top = hi }
		END {
			words = int(top / 32) + 1
			for (w = words - 1; w >= 0; w--) {
				v = 0
				for (b = 31; b >= 0; b--)
					v = v * 2 + ((w * 32 + b) in set ? 1 : 0)
				out = out sprintf("%s%08x", w == words - 1 ? "" : ",", v)
			}
			print out
		}'
}

# netns_pair NS_A NS_B IF_A IF_B NET [CPUS_A CPUS_B]: namespaces NS_A and
# NS_B, joined by the veth pair IF_A (in NS_A, NET.1/30) and IF_B (in NS_B,
# NET.2/30), up, with lo up and no IPv6 on the pair (its neighbour
# discovery would add packets of its own); with CPUS_A and CPUS_B, each
# end's received packets steered to its own CPUs (RPS), whatever CPU sent
# them. Returns 1, having made nothing, where namespaces cannot be made.
netns_pair() {
	local a=$1 b=$2 if_a=$3 if_b=$4 net=$5 cpus_a=${6:-} cpus_b=${7:-}
	ip netns add "$a" 2>/dev/null || return 1
	ip netns add "$b" || { ip netns del "$a"; return 1; }
	ip link add "$if_a" netns "$a" type veth peer name "$if_b" netns "$b"
	ip -n "$a" addr add "$net.1/30" dev "$if_a"
	ip -n "$b" addr add "$net.2/30" dev "$if_b"
	ip -n "$a" link set "$if_a" up
	ip -n "$b" link set "$if_b" up
	ip -n "$a" link set lo up
	ip -n "$b" link set lo up
	ip netns exec "$a" sysctl -qw "net.ipv6.conf.$if_a.disable_ipv6=1"
	ip netns exec "$b" sysctl -qw "net.ipv6.conf.$if_b.disable_ipv6=1"
	if [ -n "$cpus_a" ] && [ -n "$cpus_b" ]; then
		netns_rps "$a" "$if_a" "$cpus_a"
		netns_rps "$b" "$if_b" "$cpus_b"
	fi
}

# netns_rps NS IF LIST: the packets IF (in NS) receives, handled on LIST's CPUs.
netns_rps() {
	ip netns exec "$1" sh -c 'echo "$1" >"/sys/class/net/$2/queues/rx-0/rps_cpus"' _ \
		"$(netns_rps_mask "$3")" "$2"
}

# netns_hub HUB ADDR/LEN: a namespace HUB holding a bridge, zcbr, at
# ADDR/LEN, up: the switch of a set of hosts (netns_on_hub). Returns 1,
# having made nothing, where namespaces cannot be made.
netns_hub() {
	ip netns add "$1" 2>/dev/null || return 1
	ip -n "$1" link add zcbr type bridge
	ip -n "$1" addr add "$2" dev zcbr
	ip -n "$1" link set zcbr up
	ip -n "$1" link set lo up
}

# netns_on_hub NS HUB IF PORT ADDR/LEN: a namespace NS, a host on HUB's
# bridge: the veth IF in NS at ADDR/LEN, its peer PORT on the bridge, both
# up, lo up, and no IPv6 on IF (its neighbour discovery would add packets
# of its own).
netns_on_hub() {
	local ns=$1 hub=$2 if=$3 port=$4 addr=$5
	ip netns add "$ns"
	ip link add "$if" netns "$ns" type veth peer name "$port" netns "$hub"
	ip -n "$hub" link set "$port" master zcbr up
	ip -n "$ns" addr add "$addr" dev "$if"
	ip -n "$ns" link set "$if" up
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$if.disable_ipv6=1"
}

# netns_unpair NS...: the namespaces gone, and their veths with them (a
# process left in one is killed first: an sshd, a zcs).
netns_unpair() {
	local ns pid
	for ns in "$@"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -9 "$pid" 2>/dev/null || true
		done
		ip netns del "$ns" 2>/dev/null || true
	done
}
