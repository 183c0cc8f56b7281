#!/usr/bin/env bash
# Fabric test: two guests with rxe0 ACTIVE, the control channel's contract, and
# perftest ib_write_bw / ib_write_lat between them with their numbers parsed.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
lab_up fab-basic 2
say "boot of 2 nodes: $BOOT_SECS s"

for n in n1 n2; do
	out=$(rx "$n" -t 30 -- ibv_devinfo -d rxe0) || fail "$n: ibv_devinfo: $out"
	grep -q 'state:.*PORT_ACTIVE' <<<"$out" || fail "$n: rxe0 not PORT_ACTIVE: $out"
	grep -q 'link_layer:.*Ethernet' <<<"$out" || fail "$n: rxe0 not on Ethernet: $out"
done
ok "ibv_devinfo: rxe0 PORT_ACTIVE on n1 and n2"

# exec: stdout and stderr apart, the exit code, arguments verbatim, bare index.
out=$(rx 1 -- sh -c 'echo out; echo err >&2; exit 7' 2>/tmp/fab-basic.err)
rc=$?
[ "$rc" = 7 ] || fail "exec exit code $rc, not 7"
[ "$out" = out ] || fail "exec stdout '$out'"
[ "$(cat /tmp/fab-basic.err)" = err ] || fail "exec stderr '$(cat /tmp/fab-basic.err)'"
rm -f /tmp/fab-basic.err
out=$(rx n2 -- printf '<%s>' 'two words' '' "quote'\"\$x" 'back\slash')
[ "$out" = "<two words><><quote'\"\$x><back\\slash>" ] || fail "exec arguments came out as: $out"
out=$(printf 'line1\nline2\n' | rx n1 -i -- wc -l)
[ "$out" = 2 ] || fail "exec -i: wc -l said '$out'"
rx n1 -t 2 -- sleep 30
[ $? = 124 ] || fail "exec -t 2 of sleep 30 did not time out with 124"
ok "exec: output, stderr, exit code, arguments, stdin, timeout"

# --bg: a daemon that outlives the exec call.
out=$(rx n1 --bg --log /tmp/bg.log -- sh -c 'echo started; sleep 300') || fail "exec --bg: $out"
pid=${out%% *}
sleep 1
rx n1 -- kill -0 "$pid" || fail "background pid $pid is gone"
[ "$(rx n1 -- cat /tmp/bg.log)" = started ] || fail "background log"
rx n1 -- kill "$pid"
ok "exec --bg: pid $pid kept running, log written"

# The namespace side sees the fabric addresses.
out=$("$ROCELAB" host -- sh -c 'echo "$ROCELAB_NODES"; ip -br addr show rlbr0') || fail "host: $out"
grep -q '10\.77\.[0-9]*\.1 10\.77\.[0-9]*\.2' <<<"$out" || fail "host: ROCELAB_NODES: $out"
addr1=$(rx n1 -- sh -c 'echo $ROCELAB_ADDR')
# A closed port answers with a reset: proof the namespace reaches the guest.
out=$("$ROCELAB" host -- timeout 10 bash -c "exec 3<>/dev/tcp/$addr1/9" 2>&1)
grep -qi 'refused' <<<"$out" || fail "host cannot reach n1 at $addr1: $out"
rx n2 -- ping -c 2 -W 2 "$addr1" >/dev/null || fail "n2 cannot ping n1 at $addr1"
ok "host: ROCELAB_NODES set, reaches n1; n2 reaches n1"

perf n1 n2 ib_write_bw -s 65536 -n 200 -F --report_gbits || fail "ib_write_bw: $PERF_OUT"
gbps=$(bw_gbps <<<"$PERF_OUT") || fail "no bandwidth in: $PERF_OUT"
awk -v b="$gbps" 'BEGIN { exit !(b > 0) }' || fail "ib_write_bw reported $gbps Gb/s"
say "ib_write_bw n2 -> n1, 64 KiB x 200: $gbps Gb/s average; pair took $PERF_SECS s"

perf n2 n1 ib_write_lat -s 2 -n 200 -F || fail "ib_write_lat: $PERF_OUT"
usec=$(lat_typical <<<"$PERF_OUT") || fail "no latency in: $PERF_OUT"
awk -v u="$usec" 'BEGIN { exit !(u > 0) }' || fail "ib_write_lat reported $usec us"
say "ib_write_lat n1 -> n2, 2 B x 200: $usec us typical; pair took $PERF_SECS s"
ok "perftest pair: $gbps Gb/s, $usec us"
