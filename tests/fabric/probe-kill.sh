#!/usr/bin/env bash
# Fabric test: a probe whose peer guest dies mid-run ends inside the probe
# timeout with exit 3 or 4 and a named reason, on the client side (server
# killed during a bandwidth run) and on the server side (client killed
# during an rdma_cm latency run). Never a hang. The runs ask for 120 s,
# above the listener's default --max-duration.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
lab_up probe-kill 3
say "boot of 3 nodes: $BOOT_SECS s"

TMO_MS=5000
# What "inside the timeout" allows on top: the kill itself, rocelab's exec
# round trips and a TCG guest's slowness.
SLACK=6
A1=$(rx n1 -- sh -c 'echo $ROCELAB_ADDR')
[ -n "$A1" ] || fail "no address of n1"

listening() {
	for i in $(seq 50); do
		rx n1 -- sh -c 'grep -q ":4858 0*:0000 0A" /proc/net/tcp /proc/net/tcp6' && return 0
		sleep 0.2
	done
	fail "probe server on n1 not listening"
}
within() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# --- the client dies: n1's server session must end by itself.
rx n1 --bg --log /tmp/kill-srv.log -- sh -c \
	"rocecheck -t $TMO_MS probe --listen --sessions 1 --idle 120 --max-duration 300; echo \$? > /tmp/kill-srv.rc" >/dev/null ||
	fail "cannot start the server"
listening
rx n2 --bg --log /tmp/kill-cli.log -- rocecheck -t $TMO_MS probe "$A1" --cm --test lat --duration 120 >/dev/null ||
	fail "cannot start the client"
sleep 4
rx n1 -- test -e /tmp/kill-srv.rc && fail "server ended before the kill: $(rx n1 -- cat /tmp/kill-srv.log)"
t=$(date +%s%N)
"$ROCELAB" kill n2 || fail "rocelab kill n2"
for i in $(seq 100); do
	rx n1 -- test -e /tmp/kill-srv.rc && break
	sleep 0.2
done
secs=$(since "$t")
rc=$(rx n1 -- cat /tmp/kill-srv.rc 2>/dev/null)
log=$(rx n1 -- cat /tmp/kill-srv.log)
[ "$rc" = 3 ] || [ "$rc" = 4 ] || fail "server after its client died: exit '${rc:-none}' after $secs s: $log"
within "$secs" $((TMO_MS / 1000 + SLACK)) || fail "server took $secs s to notice (timeout $TMO_MS ms): $log"
ok "client killed mid lat --cm: server session ended with exit $rc after $secs s: $(tail -n 1 <<<"$log")"

# --- the server dies: n3's client must end by itself.
rx n1 --bg --log /tmp/kill-srv2.log -- rocecheck probe --listen --sessions 1 --idle 120 --max-duration 300 >/dev/null ||
	fail "cannot start the second server"
listening
res=$(mktemp -d)
(
	rx n3 -t 120 -- rocecheck -t $TMO_MS probe "$A1" --duration 120 >"$res/out" 2>&1
	echo $? >"$res/rc"
) &
sleep 6
[ -e "$res/rc" ] && fail "client ended before the kill: $(cat "$res/out")"
t=$(date +%s%N)
"$ROCELAB" kill n1 || fail "rocelab kill n1"
wait
secs=$(since "$t")
rc=$(cat "$res/rc")
out=$(cat "$res/out")
rm -rf "$res"
[ "$rc" = 3 ] || [ "$rc" = 4 ] || fail "client after its server died: exit $rc after $secs s: $out"
within "$secs" $((TMO_MS / 1000 + SLACK)) || fail "client took $secs s to notice (timeout $TMO_MS ms): $out"
grep -q -e 'IBV_WC_' -e 'within' <<<"$out" || fail "client's reason names neither a completion status nor the timeout: $out"
ok "server killed mid bw: client ended with exit $rc after $secs s: $out"
