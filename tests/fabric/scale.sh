#!/usr/bin/env bash
# Fabric test: four nodes (boot time printed), a timed perftest pair, a second
# lab alongside that does not collide, and `down` leaving nothing behind.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
L=$ROCELAB
OTHER=fab-scale-b
"$L" down --name "$OTHER" >/dev/null 2>&1
trap '"$L" down --name "$OTHER" >/dev/null 2>&1; lab_down' EXIT

lab_up fab-scale 4 --boot-cmd 'echo booted-$ROCELAB_NODE >/tmp/boot-cmd.out; sleep 600'
trap '"$L" down --name "$OTHER" >/dev/null 2>&1; lab_down' EXIT
say "boot of 4 nodes: $BOOT_SECS s"

addrs=()
for i in 1 2 3 4; do
	out=$(rx "n$i" -t 30 -- sh -c 'cat /sys/class/infiniband/rxe0/ports/1/state; echo $ROCELAB_ADDR; cat /tmp/boot-cmd.out') ||
		fail "n$i: $out"
	grep -q ACTIVE <<<"$out" || fail "n$i: rxe0 not ACTIVE: $out"
	grep -qx "booted-n$i" <<<"$out" || fail "n$i: the boot command did not run: $out"
	addrs+=("$(sed -n 2p <<<"$out")")
done
[ "$(printf '%s\n' "${addrs[@]}" | sort -u | wc -l)" = 4 ] || fail "addresses not distinct: ${addrs[*]}"
ok "4 nodes ACTIVE at ${addrs[*]}, boot command ran in each"

perf n4 n3 ib_write_bw -s 65536 -n 200 -F --report_gbits || fail "ib_write_bw n3 -> n4: $PERF_OUT"
gbps=$(bw_gbps <<<"$PERF_OUT") || fail "no bandwidth in: $PERF_OUT"
say "2-node perftest pair (ib_write_bw 64 KiB x 200, n3 -> n4): $PERF_SECS s, $gbps Gb/s"
ok "perftest pair among 4 nodes"

# A second lab at the same time: its own subnet, namespace, state and sockets.
t=$(date +%s%N)
"$L" up --name "$OTHER" --nodes 1 ${BUILD_DIR:+--build-dir "$BUILD_DIR"} || fail "second lab up"
say "boot of a 1-node lab next to it: $(since "$t") s"
a2=$(rx --name "$OTHER" n1 -- sh -c 'echo $ROCELAB_ADDR')
[ -n "$a2" ] || fail "second lab: no address"
[ "${a2%.*}" != "${addrs[0]%.*}" ] || fail "both labs on ${a2%.*}.0/24"
[ "$(rx --name "$OTHER" n1 -- hostname)" = n1 ] || fail "second lab: exec"
rx n1 -t 20 -- ping -c 1 -W 1 "$a2" >/dev/null 2>&1 && fail "lab fab-scale reaches the other lab's $a2"
"$L" down --name "$OTHER" || fail "down of the second lab"
assert_gone "$OTHER"
rx n1 -- true || fail "fab-scale n1 stopped answering after the other lab went down"
ok "second lab on ${a2%.*}.0/24 apart, and its down left fab-scale running"

"$L" status --name fab-scale | grep -c running | grep -qx 4 || fail "status does not show 4 running nodes"
"$L" down || fail "down"
assert_gone fab-scale
ok "down: no namespace, tap, qemu or state left"
