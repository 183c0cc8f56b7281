#!/usr/bin/env bash
# rocedcb peer --lldpad against a real lldpad: in private network and IPC
# namespaces, a veth pair dA/dB with lldpad on both ends; lldptool turns on
# the system name and port description on dA; our client reads lldpad's
# view of dB's neighbor (dA) and finds that name and description. (DCBX
# TLVs lldpad sends only on a netdev with dcbnl: "Device not capable" on
# a veth; the dcb fabric suite has such netdevs.)
# Every wait is bounded; the namespaces go away with the test.
set -u
rdcb=${ROCECHECK_BUILD_DIR:?}/tools/rocedcb
skip() {
	echo "SKIP: $*"
	[ "${CI:-}" = true ] && exit 1
	exit 77
}
command -v lldpad >/dev/null && command -v lldptool >/dev/null || skip "lldpad/lldptool not installed"
[ "$(id -u)" = 0 ] || skip "needs root (network namespace, veth)"
unshare -n -i true 2>/dev/null || skip "cannot unshare network and IPC namespaces"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/inner.sh" <<'INNER'
set -u
fail() { echo "FAIL: $*"; kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; exit 1; }
ip link add dA type veth peer name dB && ip link set dA up && ip link set dB up || exit 1
# lldpad in the foreground of a bounded child: gone when the test is.
timeout 60 lldpad -p -t -f "$W/lldpad.conf" >"$W/lldpad.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do lldptool ping >/dev/null 2>&1 && break; sleep 0.1; done
lldptool ping >/dev/null 2>&1 || fail "lldpad did not come up"
# Before any neighbor: refused with a reason, not a crash.
"$RDCB" peer nosuch --lldpad 2>"$W/err"; rc=$?
[ $rc = 1 ] && grep -q "does not manage this interface" "$W/err" || fail "unknown interface: rc $rc $(cat "$W/err")"
for i in dA dB; do lldptool set-lldp -i $i adminStatus=rxtx >/dev/null || fail "set-lldp $i"; done
lldptool -T -i dA -V sysName enableTx=yes >/dev/null || fail "sysName enableTx"
lldptool -T -i dA -V portDesc enableTx=yes >/dev/null || fail "portDesc enableTx"
ok=0
for _ in $(seq 1 100); do
	if "$RDCB" -j peer dB --lldpad >"$W/peer.json" 2>"$W/err" &&
	   grep -q '"system_name"' "$W/peer.json"; then ok=1; break; fi
	sleep 0.1
done
[ $ok = 1 ] || fail "no neighbor through lldpad: $(cat "$W/err")"
python3 - "$W/peer.json" "$(hostname)" "$SCHEMA" <<'PY' || fail "peer.json: $(cat "$W/peer.json")"
import json, sys
import jsonschema
d = json.load(open(sys.argv[1]))
assert d["interface"] == "dB" and d["source_mac"] is None, d
# What lldptool turned on at dA: its system name and port description.
assert d["system_name"] == sys.argv[2], ("system name", d["system_name"])
assert d["port_description"].endswith(" dA"), ("port description", d["port_description"])
assert d["ttl"] == 120 and d["chassis_id"]["subtype"] == 4, d
s = json.load(open(sys.argv[3]))
jsonschema.Draft202012Validator({"$ref": "#/$defs/peer", "$defs": s["$defs"]}).validate(d)
PY
"$RDCB" peer dB --lldpad >"$W/peer.txt" || fail "text form"
kill "$pid"; wait "$pid" 2>/dev/null
echo "ok: lldpad's view of dA read through our client: $(cat "$W/peer.txt" | tr '\n' ' ')"
INNER
SCHEMA=$(cd "$(dirname "$0")/../.." && pwd)/schemas/rocedcb.schema.json W=$work RDCB=$rdcb timeout 90 unshare -n -i bash "$work/inner.sh"
