#!/usr/bin/env bash
# Fabric test: the project's own rocecheck inside a guest, checked against the
# kernel: devices lists rxe0 with its RoCE v2 GID, counters match `rdma statistic`.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
[ -n "$BUILD_DIR" ] && [ -x "$BUILD_DIR/tools/rocecheck" ] ||
	fail "no built rocecheck (ROCECHECK_BUILD_DIR=${BUILD_DIR:-unset}): build the project first"
lab_up fab-rocecheck 2

# rocecheck takes its output options before the command.
RC="rocecheck -j"

addr=$(rx n1 -- sh -c 'echo $ROCELAB_ADDR')
out=$(rx n1 -t 30 -- $RC devices) || fail "rocecheck devices: $out"
python3 - "$addr" "$out" <<'EOF' || fail "rocecheck devices JSON: $out"
import ipaddress, json, sys
addr, doc = sys.argv[1], json.loads(sys.argv[2])
dev = [d for d in doc["devices"] if d["name"] == "rxe0"]
assert dev, "no rxe0 in devices"
port = [p for p in dev[0]["ports"] if p["port"] == 1]
assert port, "rxe0 has no port 1"
want = ipaddress.IPv6Address("::ffff:" + addr)
hits = [g for g in port[0]["gids"]
        if g["type"] == "RoCE v2" and ipaddress.IPv6Address(g["gid"]) == want]
assert hits, "no RoCE v2 GID for %s in %s" % (addr, port[0]["gids"])
g = hits[0]
assert g.get("ipv4") == addr, "GID %s: ipv4 %r, not %s" % (g["gid"], g.get("ipv4"), addr)
assert g.get("netdev"), "GID %s has no netdev" % g["gid"]
assert isinstance(g.get("index"), int), "GID index %r" % g.get("index")
print("rxe0/1 gid[%d] %s %s %s" % (g["index"], g["gid"], g["type"], g["netdev"]))
EOF
ok "rocecheck devices: rxe0 with a RoCE v2 GID carrying $addr"

# counters: grown by an ib_write_bw run, and equal to what the kernel's own
# tool reports. Both are read in one exec: nothing runs on the idle fabric in
# between (rxe counts only RoCE packets).
snap() {
	rx "$1" -t 30 -- sh -c "$RC counters rxe0/1 && echo '@@' && rdma -j statistic show link rxe0/1"
}
before=$(snap n1) || fail "counters before: $before"
bw n1 n2 100
after=$(snap n1) || fail "counters after: $after"
python3 - "$before" "$after" <<'EOF' || fail "counters check failed"
import json, sys
def parse(text):
    ours, kernel = text.split("@@", 1)
    port = [p for d in json.loads(ours)["devices"] if d["name"] == "rxe0"
            for p in d["ports"] if p["port"] == 1]
    assert port, "rocecheck counters has no rxe0/1"
    raw = port[0]["raw"]
    k = [e for e in json.loads(kernel) if e.get("ifname") == "rxe0" and e.get("port") == 1]
    assert k, "rdma statistic has no rxe0/1"
    return raw, k[0]
b_raw, b_k = parse(sys.argv[1])
a_raw, a_k = parse(sys.argv[2])
for name in ("sent_pkts", "rcvd_pkts"):
    key = "hw_counters/" + name
    assert key in a_raw, "rocecheck raw has no %s" % key
    assert a_raw[key] == a_k[name], "%s: rocecheck %d, rdma statistic %d" % (name, a_raw[key], a_k[name])
    assert b_raw[key] == b_k[name], "%s before: rocecheck %d, rdma statistic %d" % (name, b_raw[key], b_k[name])
    assert a_raw[key] > b_raw[key], "%s did not grow: %d -> %d" % (name, b_raw[key], a_raw[key])
    print("%s %d -> %d (rdma statistic %d)" % (name, b_raw[key], a_raw[key], a_k[name]))
# 100 writes of 64 KiB at MTU 1024 are at least 6400 packets sent by the client
# and received by the server (n1 here).
assert a_raw["hw_counters/rcvd_pkts"] - b_raw["hw_counters/rcvd_pkts"] >= 6400, "too few packets received"
EOF
ok "rocecheck counters: sent_pkts/rcvd_pkts grew and equal rdma statistic"
