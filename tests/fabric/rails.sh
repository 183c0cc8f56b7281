#!/usr/bin/env bash
# Fabric test: `rocelab up --rails 2 --ssh` — two NICs per guest on two
# bridges, rail-aligned perftest pairs at once, per-rail impairment, ssh.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
command -v dropbear >/dev/null || need "dropbear not found (dropbear-bin)"
TMPDIR_R=$(mktemp -d)
lab_up rails 2 --rails 2 --ssh
L=$ROCELAB
say "booted 2 nodes x 2 rails in $BOOT_SECS s"

# --- every port ACTIVE, each with the IPv4-mapped RoCE v2 GID of its rail.
for n in n1 n2; do
	for r in 0 1; do
		out=$(rx "$n" -- sh -c "p=/sys/class/infiniband/rxe$r/ports/1; i=\$ROCELAB_GID_INDEX_RAIL$r
			echo \$(cat \$p/state) \$(cat \$p/gids/\$i) \$(cat \$p/gid_attrs/types/\$i) \$ROCELAB_ADDR_RAIL$r \$ROCELAB_NETDEV_RAIL$r \$(cat /sys/class/infiniband/rxe$r/ports/1/gid_attrs/ndevs/\$i)") ||
			fail "$n rxe$r: $out"
		read -r _ st gid typ1 typ2 addr nd ndev <<<"$out"
		[ "$st" = ACTIVE ] || fail "$n rxe$r is $st"
		[ "$typ1 $typ2" = "RoCE v2" ] || fail "$n rxe$r GID type '$typ1 $typ2'"
		IFS=. read -r a b c d <<<"$addr"
		want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
		[ "$gid" = "$want" ] || fail "$n rxe$r GID $gid, want $want ($addr)"
		[ "$nd" = "eth$r" ] && [ "$ndev" = "eth$r" ] || fail "$n rxe$r on '$nd'/'$ndev', want eth$r"
	done
done
ok "rxe0 on eth0 and rxe1 on eth1 ACTIVE on both nodes, each with its rail's RoCE v2 GID"

st=$("$L" status --name "$ROCELAB_NAME") || fail "status"
grep -q '2 rails: 10\.77\.[0-9]*\.0/24 10\.78\.[0-9]*\.0/24' <<<"$st" || fail "status does not show the rails: $st"
grep -q 'n2 .*rxe1=10\.78\.[0-9]*\.2' <<<"$st" || fail "status does not show n2's rail-1 address: $st"
out=$("$L" host -- sh -c 'echo "$ROCELAB_RAILS|$ROCELAB_NODES|$ROCELAB_NODES_RAIL1"') || fail "host: $out"
[[ $out =~ ^2\|10\.77\.[0-9]+\.1\ 10\.77\.[0-9]+\.2\|10\.78\.[0-9]+\.1\ 10\.78\.[0-9]+\.2$ ]] || fail "host env: $out"
ok "status and host show both rails ($out)"

# --- rail-aligned traffic: one ib_write_bw per rail at the same time.
rcvd() { # node -> "rxe0 rxe1" rcvd_pkts
	rx "$1" -- sh -c 'echo $(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts) $(cat /sys/class/infiniband/rxe1/ports/1/hw_counters/rcvd_pkts)'
}
read -r a0 a1 <<<"$(rcvd n1)"
t=$(date +%s%N)
"$L" perf n1 n2 --rail 0 -t 120 -- ib_write_bw -s 65536 -n 200 -F --report_gbits -p 18515 >"$TMPDIR_R/r0" 2>&1 &
p0=$!
"$L" perf n1 n2 --rail 1 -t 120 -- ib_write_bw -s 65536 -n 200 -F --report_gbits -p 18516 >"$TMPDIR_R/r1" 2>&1 &
p1=$!
wait "$p0" || fail "rail 0 ib_write_bw: $(cat "$TMPDIR_R/r0")"
wait "$p1" || fail "rail 1 ib_write_bw: $(cat "$TMPDIR_R/r1")"
secs=$(since "$t")
read -r b0 b1 <<<"$(rcvd n1)"
g0=$(bw_gbps <"$TMPDIR_R/r0") g1=$(bw_gbps <"$TMPDIR_R/r1")
d0=$((b0 - a0)) d1=$((b1 - a1))
say "both rails at once ($secs s): rail 0 $g0 Gb/s, rail 1 $g1 Gb/s; n1 rcvd_pkts +$d0 (rxe0) +$d1 (rxe1)"
# 200 x 64 KiB at MTU 1024 is 12800 packets per rail, a few more for the handshake.
((d0 >= 12800 && d1 >= 12800)) || fail "a rail carried fewer packets than its writes: rxe0 +$d0, rxe1 +$d1"
ok "one ib_write_bw per rail at once: $g0 and $g1 Gb/s, +$d0 and +$d1 packets"

# --- rail 1 alone: its packets stay on rxe1 (rxe0 sees none of them).
read -r a0 a1 <<<"$(rcvd n1)"
"$L" perf n1 n2 --rail 1 -t 120 -- ib_write_bw -s 65536 -n 100 -F --report_gbits >"$TMPDIR_R/r1" 2>&1 ||
	fail "rail 1 ib_write_bw: $(cat "$TMPDIR_R/r1")"
read -r b0 b1 <<<"$(rcvd n1)"
d0=$((b0 - a0)) d1=$((b1 - a1))
say "rail 1 alone: n1 rcvd_pkts +$d0 (rxe0) +$d1 (rxe1)"
((d1 >= 6400)) || fail "rail 1 carried +$d1 packets, want >= 6400"
((d0 == 0)) || fail "rxe0 received $d0 packets while only rail 1 had traffic"
ok "rail 1 alone: +$d1 packets on rxe1, rxe0 untouched"

# --- rocecheck probe on rail 1 (rxe1 to rxe1): its packets stay on rxe1 too.
if [ -n "$BUILD_DIR" ] && [ -x "$BUILD_DIR/tools/rocecheck" ]; then
	probe_listen n1 /tmp/probe-srv.log probe --listen -d rxe1 --idle 120
	n1r1=$(rx n1 -- sh -c 'echo $ROCELAB_ADDR_RAIL1')
	read -r a0 a1 <<<"$(rcvd n1)"
	out=$(rx n2 -t 120 -- rocecheck probe "$n1r1" -d rxe1 --iters 200 --size 4096 2>&1) || fail "probe -d rxe1: $out"
	read -r b0 b1 <<<"$(rcvd n1)"
	d0=$((b0 - a0)) d1=$((b1 - a1))
	say "rocecheck probe -d rxe1: n1 rcvd_pkts +$d0 (rxe0) +$d1 (rxe1)"
	((d1 >= 200 && d0 == 0)) || fail "probe -d rxe1: rxe0 +$d0, rxe1 +$d1 packets"
	ok "rocecheck probe -d rxe1: +$d1 packets on rxe1, none on rxe0"
else
	say "no rocecheck build: the probe on rail 1 is skipped"
fi

# --- impair one rail: rail 1 of n2 down, rail 0 unaffected; then up.
"$L" impair n2 --rail 1 down >/dev/null || fail "impair n2 --rail 1 down"
st=$(rx n2 -- sh -c 'echo $(cut -d" " -f2 /sys/class/infiniband/rxe0/ports/1/state) $(cut -d" " -f2 /sys/class/infiniband/rxe1/ports/1/state)')
[ "$st" = "ACTIVE DOWN" ] || fail "after impair n2 --rail 1 down: rxe0 rxe1 are '$st'"
grep -q 'n2 .*impaired: rail 1: down' <<<"$("$L" status --name "$ROCELAB_NAME")" || fail "status does not show n2's rail 1 down"
n1r1=$(rx n1 -- sh -c 'echo $ROCELAB_ADDR_RAIL1')
rx n2 -t 20 -- ping -c 2 -W 1 "${n1r1%.*}.1" >/dev/null && fail "n2 still reaches n1 on rail 1 while it is down"
rx n2 -t 20 -- ping -c 2 -W 2 "$(rx n1 -- sh -c 'echo $ROCELAB_ADDR')" >/dev/null || fail "n2 lost rail 0 too"
"$L" impair n2 --rail 1 up >/dev/null || fail "impair n2 --rail 1 up"
for i in $(seq 50); do
	st=$(rx n2 -- cut -d" " -f2 /sys/class/infiniband/rxe1/ports/1/state)
	[ "$st" = ACTIVE ] && break
	sleep 0.2
done
[ "$st" = ACTIVE ] || fail "rxe1 on n2 is '$st' after up"
ok "impair --rail 1: rxe1 DOWN and unreachable while rxe0 stays ACTIVE, then ACTIVE again"

# --- ssh from the lab's namespace (dropbear in the guests).
out=$("$L" host -- sh -c 'timeout 60 ssh -F "$ROCELAB_SSH_CONFIG" n1 true && timeout 60 ssh -F "$ROCELAB_SSH_CONFIG" n2-r1 hostname' 2>&1) ||
	fail "ssh -F \$ROCELAB_SSH_CONFIG: $out"
[ "$out" = n2 ] || fail "ssh n2-r1 hostname said '$out'"
out=$("$L" host -- sh -c 'timeout 60 ssh -F "$ROCELAB_SSH_CONFIG" n1 rocecheck --version' 2>&1) || fail "ssh n1 rocecheck: $out"
ok "ssh -F \$ROCELAB_SSH_CONFIG n1 true, n2-r1 on rail 1, rocecheck on the ssh PATH ($out)"

# --- the launch API's ssh path for real: a template through the lab's ssh
# config starts a stand-in agent (prints PORT TOKEN, then waits) on both
# guests; a host ssh cannot resolve is unreachable with ssh's own words.
LAUNCH_RUN=${LAUNCH_RUN:-${BUILD_DIR:+$BUILD_DIR/tests/fabric/launch-run}}
if [ -n "$LAUNCH_RUN" ] && [ -x "$LAUNCH_RUN" ]; then
	for n in n1 n2; do
		printf '%s\n' '#!/bin/sh' 'h=$(hostname)' 'echo "$((20000 + ${h#n})) tok-$h"' 'exec sleep 120' |
			rx "$n" -i -- sh -c 'cat >/tmp/fake-agent && chmod 755 /tmp/fake-agent' || fail "$n: fake agent"
	done
	out=$("$L" host -- sh -c '"$0" "ssh -F $ROCELAB_SSH_CONFIG {host}" 30000 n1 n2-r1 n9 -- /tmp/fake-agent' "$LAUNCH_RUN" 2>&1)
	say "launch over ssh: $(tr '\n' ';' <<<"$out")"
	grep -q '^n1 ready 20001 tok-n1 ' <<<"$out" || fail "ssh launch on n1: $out"
	grep -q '^n2-r1 ready 20002 tok-n2 ' <<<"$out" || fail "ssh launch on n2 over rail 1: $out"
	grep -q '^n9 unreachable 0 - .*reason: launcher ended before PORT TOKEN (exit status 255).*n9' <<<"$out" ||
		fail "ssh launch on n9 is not unreachable with ssh's reason: $out"
	left=$(rx n1 -- sh -c 'sleep 1; pgrep -c -f "^sleep 120$" || true')
	say "stand-in agents left on n1 after the launcher was stopped: $left"
	ok "launch API over ssh: n1 and n2 (rail 1) ready with their PORT TOKEN, n9 unreachable with ssh's reason"
else
	say "no launch-run helper: the ssh launcher section is skipped"
fi
