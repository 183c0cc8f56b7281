#!/usr/bin/env bash
# The live ETHTOOL_GSTRINGS/GSTATS reader against `ethtool -S`, value by
# value, on a veth pair in a network namespace of its own, after traffic.
set -u
build=${ROCECHECK_BUILD_DIR:?ROCECHECK_BUILD_DIR not set}
dumper=$build/tests/unit/test-counters-ethtool
ns=rck-ethtool-$$
tmp=$(mktemp -d /tmp/rck-ethtool.XXXXXX)

cleanup() {
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# Without root or netns support: skip (77), except in CI where it must run.
cannot() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $* (CI=true: this test must run)"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

[ -x "$dumper" ] || { echo "FAIL: $dumper not built"; exit 1; }
command -v ethtool >/dev/null || cannot "no ethtool"
command -v ip >/dev/null || cannot "no ip (iproute2)"
[ "$(id -u)" -eq 0 ] || cannot "needs root for a network namespace"
ip netns add "$ns" 2>"$tmp/err" || cannot "ip netns add: $(cat "$tmp/err")"
in_ns() { ip netns exec "$ns" "$@"; }
ip -n "$ns" link add veth0 type veth peer name veth1 2>"$tmp/err" || cannot "no veth: $(cat "$tmp/err")"
ip -n "$ns" link set lo up
ip -n "$ns" addr add 10.213.0.1/24 dev veth0
ip -n "$ns" addr add 10.213.0.2/24 dev veth1
ip -n "$ns" link set veth0 up
ip -n "$ns" link set veth1 up

# Some traffic across the pair (bounded): ping if there is one, else UDP.
if command -v ping >/dev/null; then
	in_ns ping -c 3 -i 0.2 -W 1 -I veth0 10.213.0.2 >/dev/null 2>&1
else
	in_ns timeout 5 python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 25, b"veth0")  # SO_BINDTODEVICE
for i in range(5):
    s.sendto(b"rocecheck", ("10.213.0.2", 9))
' 2>/dev/null
fi
sleep 0.2

fails=0
for dev in veth0 veth1; do
	# ours, theirs, ours again: a counter may differ only if it moved.
	in_ns "$dumper" --dump "$dev" >"$tmp/ours1" || { echo "FAIL: reader on $dev"; fails=$((fails + 1)); continue; }
	in_ns ethtool -S "$dev" >"$tmp/theirs.raw" || { echo "FAIL: ethtool -S $dev"; fails=$((fails + 1)); continue; }
	in_ns "$dumper" --dump "$dev" >"$tmp/ours2"
	sed -n 's/^ *\(.*\): \([0-9]*\)$/ethtool\/\1: \2/p' "$tmp/theirs.raw" | LC_ALL=C sort >"$tmp/theirs"
	grep '^ethtool/' "$tmp/ours1" | LC_ALL=C sort >"$tmp/ours1.e"
	grep '^ethtool/' "$tmp/ours2" | LC_ALL=C sort >"$tmp/ours2.e"
	n=$(wc -l <"$tmp/theirs")
	if [ "$n" -lt 3 ]; then
		echo "FAIL: $dev: ethtool -S gave only $n statistics"
		fails=$((fails + 1))
		continue
	fi
	declare -A o1=() o2=()
	while IFS= read -r l; do o1[${l%: *}]=${l##*: }; done <"$tmp/ours1.e"
	while IFS= read -r l; do o2[${l%: *}]=${l##*: }; done <"$tmp/ours2.e"
	if [ "${#o1[@]}" -ne "$n" ]; then
		echo "FAIL: $dev: ${#o1[@]} statistics read, ethtool -S has $n"
		fails=$((fails + 1))
	fi
	# Same names and values, unless our two reads disagree (it moved).
	while IFS= read -r line; do
		name=${line%: *}
		want=${line##*: }
		got1=${o1[$name]-missing}
		got2=${o2[$name]-missing}
		if [ "$got1" != "$want" ] && [ "$got1" = "$got2" ]; then
			echo "FAIL: $dev: $name: ours $got1, ethtool -S $want"
			fails=$((fails + 1))
		fi
	done <"$tmp/theirs"
	echo "ok: $dev: $n statistics match ethtool -S"
	# veth has no pause settings: no pause statistics, and no error.
	if in_ns ethtool -I -a "$dev" >/dev/null 2>&1; then
		grep -q '^pause/' "$tmp/ours1" || echo "note: $dev has pause settings but no pause statistics"
	elif grep -q '^pause/' "$tmp/ours1"; then
		echo "FAIL: $dev: pause statistics where ethtool has none"
		fails=$((fails + 1))
	fi
done

# The peer's index is a statistic of veth: it proves we read the right device.
idx=$(in_ns cat /sys/class/net/veth1/ifindex)
if ! grep -q "^ethtool/peer_ifindex: $idx\$" "$tmp/ours1" 2>/dev/null &&
   ! in_ns "$dumper" --dump veth0 | grep -q "^ethtool/peer_ifindex: $idx\$"; then
	echo "FAIL: veth0's peer_ifindex is not veth1's index $idx"
	fails=$((fails + 1))
fi
[ $fails -eq 0 ]
