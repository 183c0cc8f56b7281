#!/usr/bin/env bash
# Fabric test of the verbs probes between two guests: bw, lat and send-lat in
# both connection modes with both ports' counters, GID auto-selection, the
# traffic class and UDP source port on the wire, rdma_cm's configfs ToS.

. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || need "jq not found"
fabric_prereqs
lab_up probe-verbs 2
say "boot of 2 nodes: $BOOT_SECS s"

A1=$(rx n1 -- sh -c 'echo $ROCELAB_ADDR')
A2=$(rx n2 -- sh -c 'echo $ROCELAB_ADDR')
[ -n "$A1" ] && [ -n "$A2" ] || fail "no guest addresses ($A1, $A2)"

# The server serves every session of this test, and exits when idle.
out=$(rx n1 --bg --log /tmp/probe-srv.log -- rocecheck -j probe --listen --idle 300) ||
	fail "cannot start the probe server: $out"
for i in $(seq 50); do
	rx n1 -- sh -c 'grep -q ":4858 0*:0000 0A" /proc/net/tcp /proc/net/tcp6' && break
	[ "$i" = 50 ] && fail "probe server not listening: $(rx n1 -- cat /tmp/probe-srv.log)"
	sleep 0.2
done

# probe ARGS...: JSON of a probe from n2 to n1 in OUT, exit code in RC.
probe() {
	OUT=$(rx n2 -t 120 -- rocecheck -j probe "$A1" "$@" 2>/tmp/probe-verbs.err)
	RC=$?
}
jv() { jq -r "$1" <<<"$OUT"; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
# The RDMA results (counters, GIDs) validate against schemas/probe.schema.json.
SCHEMA=$HERE/../../schemas/probe.schema.json
valid() {
	python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.loads(sys.argv[2]), json.load(open(sys.argv[1])))' "$SCHEMA" "$OUT" 2>&1 | tail -3
}
expect_ok() {
	[ "$RC" = 0 ] || fail "probe $*: exit $RC: $(cat /tmp/probe-verbs.err) $OUT; server log: $(rx n1 -- tail -n 20 /tmp/probe-srv.log)"
	[ "$(jv .status)" = ok ] || fail "probe $*: status $(jv .status): $(jv .error)"
	local why
	why=$(valid) || fail "probe $*: JSON does not follow probe.schema.json: $why"
}

# --- every test, both connection modes, with the counters showing the traffic
for mode in oob cm; do
	marg=
	conn=out-of-band
	[ $mode = cm ] && marg=--cm && conn=rdma_cm
	for t in bw lat send-lat; do
		probe --test $t --iters 200 --size 4096 --window 0.01 $marg
		expect_ok $t $marg
		[ "$(jv .connection)" = $conn ] || fail "$t $marg: connection $(jv .connection)"
		[ "$(jv .messages)" = 200 ] || fail "$t $marg: $(jv .messages) messages, not 200"
		ge "$(jv .seconds)" 0.000001 || fail "$t $marg: seconds $(jv .seconds)"
		# 4 KiB at the guests' MTU of 1024: at least 4 packets a message.
		want=800
		ge "$(jv .counters.local.tx_packets)" $want ||
			fail "$t $marg: local tx_packets $(jv .counters.local.tx_packets) < $want"
		ge "$(jv .counters.remote.rx_packets)" $want ||
			fail "$t $marg: remote rx_packets $(jv .counters.remote.rx_packets) < $want"
		if [ $t = bw ]; then
			ge "$(jv .gbps)" 0.0001 || fail "$t $marg: $(jv .gbps) Gb/s"
			[ "$(jv .worst_window_gbps)" != null ] || fail "$t $marg: no worst window"
			say "$t $marg: $(jv .gbps) Gb/s (worst window $(jv .worst_window_gbps)), tx_packets $(jv .counters.local.tx_packets)"
		else
			ge "$(jv .latency_us.p50)" 0.01 || fail "$t $marg: p50 $(jv .latency_us.p50)"
			[ "$(jv .latency_us.samples)" = 200 ] || fail "$t $marg: $(jv .latency_us.samples) samples"
			say "$t $marg: p50 $(jv .latency_us.p50) us, p99 $(jv .latency_us.p99) us"
		fi
	done
	ok "bw, lat, send-lat $marg: measured, counters of both ports moved"
done
probe --bidir --qps 2 --iters 100 --size 4096
expect_ok --bidir
[ "$(jv .tx.messages)" = 100 ] && [ "$(jv .rx.messages)" = 100 ] ||
	fail "bidir: tx $(jv .tx.messages), rx $(jv .rx.messages) messages"
ok "bidirectional bw over 2 QPs: $(jv .gbps) Gb/s"
for t in lat send-lat; do
	probe --test $t --qps 3 --iters 90 --size 100
	expect_ok $t --qps 3
	[ "$(jv .messages)" = 90 ] || fail "$t over 3 QPs: $(jv .messages) messages"
done
ok "lat and send-lat round-robin over 3 QPs"
probe --test lat --duration 1
expect_ok lat --duration 1
ge "$(jv .seconds)" 1 || fail "lat --duration 1 ran $(jv .seconds) s"
probe --duration 1 --cm
expect_ok bw --duration 1 --cm
ge "$(jv .seconds)" 1 || fail "bw --duration 1 --cm ran $(jv .seconds) s"
ok "duration mode: lat $(jv .messages) messages, bw --cm ran $(jv .seconds) s"

# --- GID auto-selection: the RoCE v2 GID of n2's own address
devs=$(rx n2 -- rocecheck -j devices) || fail "rocecheck devices on n2"
want=$(jq -r --arg a "$A2" '[.devices[].ports[].gids[] | select(.type == "RoCE v2" and .ipv4 == $a)][0].index' <<<"$devs")
[ -n "$want" ] && [ "$want" != null ] || fail "n2 has no RoCE v2 GID of $A2: $devs"
probe --iters 20 --size 4096
expect_ok gid
[ "$(jv .local.gid_index)" = "$want" ] || fail "auto GID index $(jv .local.gid_index), want $want"
[ "$(jv .local.gid)" = "::ffff:$A2" ] || fail "auto GID $(jv .local.gid), want ::ffff:$A2"
ok "GID auto-selection: index $want, $(jv .local.gid): $(jv .local.gid_choice)"

# --- the wire: tcpdump on n1's NIC while n2 probes
# capture ARGS...: run a probe with ARGS while n1 captures RoCE v2; the
# captured IP header lines end up in CAP.
NCAP=0
capture() {
	local pid log=/tmp/probe-td-$((++NCAP)).log
	pid=$(rx n1 --bg --log $log -- tcpdump -i eth0 -n -v -l udp port 4791) ||
		fail "cannot start tcpdump"
	pid=${pid%% *}
	sleep 2
	probe "$@"
	sleep 1
	rx n1 -- kill -INT "$pid"
	sleep 1
	CAP=$(rx n1 -- cat $log)
	expect_ok "$@"
}
tos_only() { # HEX: every captured packet carries this TOS byte
	local n bad
	n=$(grep -c 'IP (tos ' <<<"$CAP")
	bad=$(grep 'IP (tos ' <<<"$CAP" | grep -vc "tos $1[,)]")
	[ "$n" -ge 20 ] || fail "only $n RoCE packets captured: $CAP"
	[ "$bad" = 0 ] || fail "$bad of $n packets without tos $1: $(awk -v t="tos $1" '/IP \(tos / && !index($0, t ",") && !index($0, t ")") { print; getline; print }' <<<"$CAP" | head -8)"
	echo "$n"
}
capture --iters 20 --size 4096
n=$(tos_only 0x6a) || exit 1
grep -q 'tos 0x6a,ECT(0)' <<<"$CAP" || fail "default traffic class is not ECT(0): $CAP"
ok "default traffic class 106 (DSCP 26, ECT(0)) on all $n captured packets"
capture --iters 20 --size 4096 --tclass 72 --udp-sport 50000 --qps 2
n=$(tos_only 0x48) || exit 1
for p in 50000 50001; do
	grep -q "$A2\.$p > $A1\.4791:" <<<"$CAP" || fail "no packet from UDP port $p: $CAP"
done
ok "--tclass 72 on all $n packets; --udp-sport 50000 pins QP 0 to 50000, QP 1 to 50001"

# --- rdma_cm: the port's configfs default_roce_tos is what goes out
for n in n1 n2; do
	rx $n -- sh -c 'd=/sys/kernel/config/rdma_cm/rxe0; mkdir -p $d && echo 40 > $d/ports/1/default_roce_tos' ||
		fail "$n: cannot set default_roce_tos"
done
capture --cm --iters 20 --size 4096
n=$(tos_only 0x28) || exit 1
[ "$(jv .local.tclass)" = 40 ] || fail "cm: QP traffic class $(jv .local.tclass), not 40"
ok "--cm: configfs default_roce_tos 40 on all $n packets and in the result"
capture --cm --tclass 106 --iters 20 --size 4096
n=$(tos_only 0x6a) || exit 1
ok "--cm --tclass 106 overrides the port default on all $n packets"
