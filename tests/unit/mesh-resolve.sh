#!/usr/bin/env bash
# Agents' names resolved inside the deadline and the cancel, with no real
# DNS traffic: a private network and mount namespace whose resolv.conf
# names a local UDP socket that never answers, and whose hosts file is the
# only source of names that resolve.
. "$(dirname "$0")/agents-lib.sh"

cannot() {
	echo "FAIL: $*"
	exit 1
}
[ "$(id -u)" = 0 ] || cannot "needs root (network and mount namespaces)"
unshare -n -m true 2>/dev/null || cannot "cannot unshare network and mount namespaces"
command -v python3 >/dev/null || cannot "python3 missing"
command -v jq >/dev/null || cannot "jq missing"

printf '127.0.0.1 localhost\n127.0.0.1 agent-in-hosts\n' >"$tmp/hosts"
printf 'nameserver 127.0.0.1\noptions attempts:2 timeout:5\n' >"$tmp/resolv.conf"
printf 'hosts: files dns\n' >"$tmp/nsswitch.conf"
# The silent server: logs each question's name, answers none but those
# for nx* (NXDOMAIN, at once).
cat >"$tmp/silent.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
log = open(sys.argv[1], "a", buffering=1)
open(sys.argv[2], "w").close()
while True:
    b, peer = s.recvfrom(4096)
    i, parts = 12, []
    while i < len(b) and b[i]:
        parts.append(b[i + 1:i + 1 + b[i]].decode("ascii", "replace"))
        i += 1 + b[i]
    log.write(".".join(parts) + "\n")
    if parts and parts[0].startswith("nx"):
        # Same id and question, QR and RD and RA set, RCODE 3.
        s.sendto(b[:2] + b"\x81\x83" + b[4:6] + b"\0\0\0\0\0\0" + b[12:i + 5], peer)
PY
cat >"$tmp/inner.sh" <<'SH'
set -u
ip link set lo up
for f in hosts resolv.conf nsswitch.conf; do mount --bind "$T/$f" "/etc/$f" || exit 90; done
python3 "$T/silent.py" "$T/queries" "$T/ready" &
echo $! >"$T/silent.pid"
for _ in $(seq 50); do [ -e "$T/ready" ] && break; sleep 0.1; done
[ -e "$T/ready" ] || exit 91
ms() { echo $(( $(date +%s%N) / 1000000 )); }

# 1. Six names the silent server never answers, under -t 1000: given up
# together within the timeout, one reason line each.
t0=$(ms)
$WRAP "$RC" -j mesh --hosts s1,s2,s3,s4,s5,s6 --transport tcp -t 1000 >"$T/six.json" 2>"$T/six.err"
echo "six $? $(( $(ms) - t0 ))" >>"$T/results"

# 2. A name from the hosts file and an IP literal: no question asked; the
# same name twice (two hosts, one address) asked once.
$WRAP "$RC" -j mesh --hosts agent-in-hosts:1,127.0.0.1:1,dup:7001,dup:7002,one:7003 --transport tcp \
	-t 1000 >"$T/files.json" 2>"$T/files.err"
echo "files $?" >>"$T/results"

# 2b. Names that do not exist: one reason each at once, not the timeout.
t0=$(ms)
$WRAP "$RC" -j mesh --hosts nx1,nx2,nx3 --transport tcp -t 10000 >"$T/nx.json" 2>"$T/nx.err"
echo "nx $? $(( $(ms) - t0 ))" >>"$T/results"

# 3. SIGINT while the names are out: the sweep ends promptly.
t0=$(ms)
$WRAP "$RC" -j mesh --hosts c1,c2,c3 --transport tcp -t 30000 >"$T/cancel.json" 2>"$T/cancel.err" &
pid=$!
sleep "$PAUSE"
kill -INT $pid
wait $pid
echo "cancel $? $(( $(ms) - t0 ))" >>"$T/results"

# 4. A host whose launcher fails is not looked up at all.
printf '%s\n' '#!/bin/sh' 'h=$1; shift' 'if [ "$h" = ghost ]; then echo "cannot reach $h" >&2; exit 1; fi' \
	'exec "$@"' >"$T/l"
chmod +x "$T/l"
t0=$(ms)
$WRAP "$RC" -j mesh --hosts 127.0.0.1,ghost --launcher "$T/l {host}" --transport tcp --iters 10 \
	-t 5000 >"$T/launch.json" 2>"$T/launch.err"
echo "launch $? $(( $(ms) - t0 ))" >>"$T/results"
kill "$(cat "$T/silent.pid")"
SH
# Under valgrind a process takes seconds to start: the SIGINT waits for
# the tool to be running and every bound is ten times as loose.
slack=1 PAUSE=0.5
[ -n "$WRAP" ] && slack=10 PAUSE=5
export T=$tmp RC WRAP PAUSE
timeout 120 unshare -n -m bash "$tmp/inner.sh"
rc=$?
[ "$rc" = 0 ] || fail "the namespace script: exit $rc (90: mount, 91: the silent server)"
res() { awk -v k="$1" '$1 == k {print $'"$2"'}' "$tmp/results"; }
q() { grep -cx "$1" "$tmp/queries" 2>/dev/null; }

[ "$(res six 2)" = 3 ] || fail "six silent names: exit $(res six 2), want 3: $(cat "$tmp/six.err")"
[ "$(res six 3)" -lt $((2500 * slack)) ] || fail "six silent names took $(res six 3) ms under -t 1000"
n=$(jq '[.hosts[] | select(.unreachable == "cannot connect to its agent: name did not resolve in time")] | length' "$tmp/six.json")
[ "$n" = 6 ] || fail "six silent names: $n with the reason, want 6: $(jq -c '[.hosts[].unreachable]' "$tmp/six.json")"
for i in 1 2 3 4 5 6; do [ "$(q "s$i")" -ge 1 ] || fail "s$i never asked"; done
echo "ok: six silent names given up together in $(res six 3) ms under -t 1000, one reason each"

[ "$(q agent-in-hosts)" = 0 ] || fail "a name in the hosts file went to DNS"
[ "$(q 127.0.0.1)" = 0 ] || fail "an IP literal went to DNS"
r=$(jq -r '.hosts[] | select(.name == "agent-in-hosts:1") | .unreachable' "$tmp/files.json")
[[ $r == "cannot connect to its agent: Connection refused" ]] || fail "agent-in-hosts: $r"
r=$(jq -r '.hosts[] | select(.name == "127.0.0.1:1") | .unreachable' "$tmp/files.json")
[[ $r == "cannot connect to its agent: Connection refused" ]] || fail "127.0.0.1: $r"
if [ "$(q dup)" -lt 1 ] || [ "$(q dup)" != "$(q one)" ]; then
	fail "a name of two hosts asked $(q dup) times, a name of one host $(q one) times"
fi
echo "ok: hosts-file names and literals asked nothing; a name of two hosts asked as often as one ($(q one))"

[ "$(res nx 2)" = 3 ] || fail "names that do not exist: exit $(res nx 2), want 3: $(cat "$tmp/nx.err")"
[ "$(res nx 3)" -lt $((2000 * slack)) ] || fail "names that do not exist took $(res nx 3) ms under -t 10000"
n=$(jq '[.hosts[] | select(.unreachable == "cannot connect to its agent: name does not resolve")] | length' "$tmp/nx.json")
[ "$n" = 3 ] || fail "names that do not exist: $n with the reason, want 3: $(jq -c '[.hosts[].unreachable]' "$tmp/nx.json")"
echo "ok: three names that do not exist: one reason each in $(res nx 3) ms under -t 10000"

[ "$(res cancel 3)" -lt $((2000 * slack)) ] || fail "SIGINT during resolution: the sweep ended after $(res cancel 3) ms"
n=$(jq '[.hosts[] | select(.unreachable == "cancelled")] | length' "$tmp/cancel.json")
[ "$n" = 3 ] || fail "SIGINT: $n hosts cancelled, want 3: $(cat "$tmp/cancel.json" "$tmp/cancel.err")"
echo "ok: SIGINT while resolving ends the sweep in $(res cancel 3) ms"

[ "$(res launch 2)" = 3 ] || fail "launcher failure: exit $(res launch 2), want 3: $(cat "$tmp/launch.err")"
[ "$(q ghost)" = 0 ] || fail "a host whose launcher failed was looked up"
r=$(jq -r '.hosts[] | select(.name == "ghost") | .unreachable' "$tmp/launch.json")
[[ $r == *"exit status 1"*"cannot reach ghost"* ]] || fail "launcher failure reason: $r"
echo "ok: a host whose launcher failed is not looked up ($r)"
