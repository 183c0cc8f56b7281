#!/usr/bin/env bash
# Fabric test: `rocecheck sweep` inside a guest with Soft-RoCE: the quick
# loopback probe runs over RDMA on rxe0/1 and measures; the host is healthy;
# with its netdev down the port is DOWN: exit 1 and a port_down NPD line;
# the real boot id is kept in the state file.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
[ -n "$BUILD_DIR" ] && [ -x "$BUILD_DIR/tools/rocecheck" ] ||
	fail "no built rocecheck (ROCECHECK_BUILD_DIR=${BUILD_DIR:-unset}): build the project first"
lab_up fab-sweep 1

out=$(rx n1 -t 60 -- rocecheck -t 20000 sweep --probe quick --state /tmp/sweep.json -j) ||
	fail "rocecheck sweep --probe quick: $out"
python3 - "$out" <<'EOF2' || fail "sweep JSON: $out"
import json, sys
d = json.loads(sys.argv[1])
assert d["schema"] == "rocecheck.sweep/1", d["schema"]
p = [x for x in d["probes"] if x["device"] == "rxe0"]
assert p, "no probe of rxe0: %s" % d["probes"]
assert p[0]["transport"] == "rdma", p[0]
assert p[0]["ok"] and p[0]["gbps"] > 0, p[0]
assert d["verdict"] == "healthy", d["findings"]
assert d["boot_id"], "no boot id read"
print("probe rxe0/%d over %s: %.3f Gb/s" % (p[0]["port"], p[0]["transport"], p[0]["gbps"]))
EOF2
ok "sweep --probe quick: an RDMA loopback probe on rxe0/1, healthy"
out=$(rx n1 -t 30 -- sh -c 'grep -q "$(cat /proc/sys/kernel/random/boot_id)" /tmp/sweep.json && echo same') ||
	fail "boot id: $out"
[ "$out" = same ] || fail "the state file does not hold the guest's boot id"
ok "state file holds the guest's boot id"

# The netdev down: rxe0/1 goes DOWN.
out=$(rx n1 -t 60 -- sh -c '/usr/sbin/ip link set eth0 down; sleep 1;
	rocecheck sweep --hold 1/1 --format npd; echo "rc=$?"; /usr/sbin/ip link set eth0 up') ||
	fail "sweep with the port down: $out"
echo "$out"
line=$(echo "$out" | head -n 1)
echo "$out" | grep -qx 'rc=1' || fail "sweep with the port down: not exit 1: $out"
[ "$line" = "rocecheck: port_down rxe0/1 port state DOWN, physical state Disabled" ] ||
	fail "NPD line does not name port_down rxe0/1 as expected: $line"
[ "${#line}" -le 80 ] || fail "NPD line longer than 80: $line"
ok "port down: exit 1, '$line'"
