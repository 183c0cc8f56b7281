#!/usr/bin/env bash
# rocecheck topology --lldp against a real lldpd: in a private network
# namespace a veth pair, dA in a second namespace with an lldpd playing a
# leaf switch ("leaf-r0-a", port ID the ifname), dB with this host's lldpd;
# our liblldpctl client reads dB's neighbour into the model, merges it with
# a topology file (agreeing, then disagreeing), and gives up on time on a
# socket that never answers. Every wait is bounded; no traffic leaves.
set -u
rck=${ROCECHECK:?}
skip() {
	echo "SKIP: $*"
	[ "${CI:-}" = true ] && exit 1
	exit 77
}
command -v lldpd >/dev/null && command -v lldpcli >/dev/null || skip "lldpd/lldpcli not installed"
[ "$(id -u)" = 0 ] || skip "needs root (network namespace, veth)"
unshare -n true 2>/dev/null || skip "cannot unshare a network namespace"
"$rck" topology --lldp --lldp-socket /nonexistent/sock --host h 2>&1 | grep -q "without liblldpctl" &&
	skip "rocecheck built without liblldpctl"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# lldpd runs lldpcli (its configuration) as its own unprivileged user.
chmod 755 "$work"
printf 'configure system hostname leaf-r0-a\nconfigure lldp tx-interval 1\nconfigure lldp portidsubtype ifname\n' >"$work/sw.conf"
printf 'configure lldp tx-interval 1\n' >"$work/host.conf"

cat >"$work/inner.sh" <<'INNER'
set -u
pids=()
fail() { echo "FAIL: $*"; kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; exit 1; }
ip link add dA type veth peer name dB || exit 1
# The switch's side in a namespace of its own, its lldpd in the foreground
# of a bounded child.
unshare -n bash -c 'for _ in $(seq 1 300); do ip link show dA >/dev/null 2>&1 && break; sleep 0.1; done
	ip link set dA up && exec timeout 60 lldpd -d -u "$W/sw.sock" -O "$W/sw.conf" -I dA' >"$W/sw.log" 2>&1 &
pids+=($!)
# Moved only once the child has its own namespace: moved before its
# unshare(), dA would stay here and the child wait for it in vain (CI saw it).
moved=0
for _ in $(seq 1 300); do
	[ "$(readlink "/proc/${pids[0]}/ns/net" 2>/dev/null)" != "$(readlink /proc/self/ns/net)" ] &&
		[ -n "$(readlink "/proc/${pids[0]}/ns/net" 2>/dev/null)" ] &&
		ip link set dA netns "${pids[0]}" 2>/dev/null && { moved=1; break; }
	sleep 0.1
done
[ $moved = 1 ] || fail "cannot move dA into the switch's namespace"
ip link set dB up || fail "dB up"
timeout 60 lldpd -d -u "$W/host.sock" -O "$W/host.conf" -I dB >"$W/host.log" 2>&1 &
pids+=($!)
ok=0
for _ in $(seq 1 300); do
	lldpcli -u "$W/host.sock" show neighbors 2>/dev/null | grep -q leaf-r0-a && { ok=1; break; }
	sleep 0.1
done
[ $ok = 1 ] || fail "lldpd heard no neighbour: $(cat "$W/sw.log" "$W/host.log")"

# The neighbour alone: the switch as heard, no finding.
"$RCK" -t 2000 -j topology --lldp --lldp-socket "$W/host.sock" --host node01 >"$W/lldp.json" 2>"$W/err"
rc=$?
[ $rc = 0 ] || fail "--lldp: exit $rc: $(cat "$W/err")"
python3 - "$W/lldp.json" "$SCHEMA" <<'PY' || fail "lldp.json: $(cat "$W/lldp.json")"
import json, sys
import jsonschema
d = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
(sw,) = d["switches"]
assert sw["name"] == "leaf-r0-a" and sw["declared"] is False, sw
assert sw["chassis_id"] and sw["ports"][0]["name"] == "dA", sw
(h,) = d["hosts"]
(nic,) = h["nics"]
assert h["name"] == "node01" and nic["nic"] == "dB", h
assert nic["switch"] == "leaf-r0-a" and nic["port"] == "dA" and nic["source"] == "lldpd:node01", nic
assert d["conflicts"] == [] and d["findings"] == [], d
PY

# A topology file that agrees (the NIC by its netdev): merged, clean.
cat >"$W/agree.json" <<'JSON'
{"schema": "rocecheck.topology/1",
 "switches": [{"name": "leaf-r0-a", "tier": "leaf"}],
 "hosts": [{"name": "node01", "nics": [{"nic": "mlx5_0/1", "netdev": "dB", "switch": "leaf-r0-a", "port": "dA"}]}]}
JSON
"$RCK" -t 2000 topology --topology "$W/agree.json" --lldp --lldp-socket "$W/host.sock" --host node01 >"$W/agree.txt" 2>"$W/err"
rc=$?
[ $rc = 0 ] || fail "agreeing file: exit $rc: $(cat "$W/agree.txt" "$W/err")"
grep -q "nic mlx5_0/1 (dB) -> leaf-r0-a port dA" "$W/agree.txt" || fail "agreeing file: $(cat "$W/agree.txt")"

# One that disagrees: a conflict naming both sources, exit 1.
sed 's/"port": "dA"/"port": "swp9"/' "$W/agree.json" >"$W/disagree.json"
"$RCK" -t 2000 topology --topology "$W/disagree.json" --lldp --lldp-socket "$W/host.sock" --host node01 >"$W/dis.txt" 2>"$W/err"
rc=$?
[ $rc = 1 ] || fail "disagreeing file: exit $rc: $(cat "$W/dis.txt" "$W/err")"
grep -q "topology_conflict.*node01 mlx5_0/1: cabled to leaf-r0-a port swp9 vs leaf-r0-a port dA.*disagree.json vs lldpd:node01" "$W/dis.txt" ||
	fail "disagreeing file: $(cat "$W/dis.txt")"

# A socket that accepts and never answers: exit 2 within the deadline.
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
c, _ = s.accept(); time.sleep(20)' "$W/mute.sock" &
pids+=($!)
for _ in $(seq 1 300); do [ -S "$W/mute.sock" ] && break; sleep 0.1; done
start=$(date +%s%N)
"$RCK" -t 500 topology --lldp --lldp-socket "$W/mute.sock" --host node01 >/dev/null 2>"$W/err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc = 2 ] && grep -q "no answer within 500 ms" "$W/err" || fail "mute lldpd: exit $rc: $(cat "$W/err")"
[ $ms -lt 5000 ] || fail "mute lldpd: took $ms ms"
# lldpd not running: one line, exit 2.
"$RCK" topology --lldp --lldp-socket "$W/absent.sock" --host node01 >/dev/null 2>"$W/err"
rc=$?
[ $rc = 2 ] && grep -q "lldpd ($W/absent.sock): not running" "$W/err" || fail "absent lldpd: exit $rc: $(cat "$W/err")"

kill "${pids[@]}" 2>/dev/null
wait 2>/dev/null
echo "ok: lldpd's neighbour read through liblldpctl, merged with a topology file, conflicts named, deadlines kept"
INNER
SCHEMA=$(cd "$(dirname "$0")/../.." && pwd)/schemas/topology.schema.json W=$work RCK=$rck timeout 120 unshare -n bash "$work/inner.sh"
