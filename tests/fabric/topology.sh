#!/usr/bin/env bash
# Fabric test: `rocelab up --nodes 6 --tors 2 --agents`: the agents hear each
# leaf port's LLDP and `rocecheck topology --from-agents` puts every NIC on
# the leaf and port the lab cabled; after `rocelab move` and `swap` it follows.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
RC=${BUILD_DIR:+$BUILD_DIR/tools/rocecheck}
[ -n "$RC" ] && [ -x "$RC" ] || need "no rocecheck build (ROCECHECK_BUILD_DIR)"
[ -x "$BUILD_DIR/tools/lldp-beacon" ] || need "no lldp-beacon in $BUILD_DIR/tools"
command -v jq >/dev/null || need "jq not found"
TMPD=$(mktemp -d)
lab_up topo 6 --tors 2 --agents
L=$ROCELAB
say "booted 6 nodes on 2 leaves with agents in $BOOT_SECS s"
read -r -a ADDR <<<"$("$L" host -- sh -c 'echo $ROCELAB_NODES')"

# "ADDR NIC SWITCH PORT" per NIC the agents reported, sorted, in GOT.
topo() {
	"$L" host -- sh -c 'exec "$0" -t 20000 -j topology --from-agents "$ROCELAB_NODES" --lldp-capture 3000' \
		"$RC" >"$TMPD/topo.json" 2>"$TMPD/topo.err"
	TOPO_RC=$?
	GOT=$(jq -r '.hosts[] | .name as $h | .nics[] | "\($h) \(.nic) \(.switch) \(.port)"' "$TMPD/topo.json" | sort)
}
# expect "n1 leaf1 swp1" ...: the same lines with addresses and eth0.
expect() {
	local w n
	for w in "$@"; do
		read -r n sw p <<<"$w"
		echo "${ADDR[${n#n} - 1]} eth0 $sw $p"
	done | sort
}
check() { # what lines...
	local what=$1 want
	shift
	topo
	want=$(expect "$@")
	[ "$TOPO_RC" = 0 ] || fail "$what: topology exit $TOPO_RC: $(cat "$TMPD/topo.err")"
	[ "$GOT" = "$want" ] || fail "$what: the agents report"$'\n'"$GOT"$'\n'"instead of"$'\n'"$want"$'\n'"$(cat "$TMPD/topo.err")"
}

# --- as booted: n1-n3 on leaf1, n4-n6 on leaf2, each in order.
st=$("$L" status)
grep -q '2 leaves' <<<"$st" && grep -q 'n3 .* leaf1 swp3' <<<"$st" && grep -q 'n4 .* leaf2 swp1' <<<"$st" ||
	fail "status does not show the leaves: $st"
t=$(date +%s%N)
check "as booted" "n1 leaf1 swp1" "n2 leaf1 swp2" "n3 leaf1 swp3" "n4 leaf2 swp1" "n5 leaf2 swp2" "n6 leaf2 swp3"
jq -e '[.switches[] | select(.chassis_id == null)] | length == 0' "$TMPD/topo.json" >/dev/null ||
	fail "a leaf without its chassis ID: $(cat "$TMPD/topo.json")"
ok "agents report every NIC's leaf and port as cabled ($(since "$t") s)"

# --- traffic crosses the spine: n1 (leaf1) reaches n6 (leaf2).
rx n1 -t 20 -- ping -c 2 -W 3 "${ADDR[5]}" >/dev/null || fail "n1 cannot reach n6 across the spine"
ok "n1 on leaf1 reaches n6 on leaf2 through the spine"

# --- preflight --topology agents: the model from the agents' LLDP with the
# spine implied. Healthy first (its median Gb/s), then leaf1's uplink at
# 5 Mbit/s (one uplink finding, no drain, exit 1), then n2's own link (its
# NIC and leaf port named). Short probes: 64 KiB x 10, tcg.thresholds.
cp "$HERE/tcg.thresholds" "$TMPD/lab.conf"
pf() { # NAME: JSON in $TMPD/NAME.json, exit in PF_RC, wall in PF_S
	local t
	t=$(date +%s%N)
	rm -f "$TMPD"/drained-*
	timeout 240 "$L" host -- sh -c 'exec "$0" -t 20000 preflight --hosts "$ROCELAB_NODES" --topology agents \
		--lldp-capture 3000 --config "$1" --size 65536 --iters 10 --retest-passes 2 --deadline 150 \
		--drain-cmd "touch $2/drained-{host}" --report "$2/$3.json"' \
		"$RC" "$TMPD/lab.conf" "$TMPD" "$1" >"$TMPD/$1.txt" 2>"$TMPD/$1.err"
	PF_RC=$?
	PF_S=$(since "$t")
	[ -s "$TMPD/$1.json" ] || fail "$1: no report (exit $PF_RC): $(tail -5 "$TMPD/$1.err")"
}
# q NAME EXPR: python over d (the report), bad (degraded/critical, suspects
# and drain_held left out), med (median Gb/s of the bw probes).
q() {
	python3 - "$TMPD/$1.json" "$2" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
f = d["report"]["findings"]
bad = [x for x in f if x["severity"] in ("degraded", "critical") and not x.get("suspect") and x["code"] != "drain_held"]
# Switch-side: what localisation names. A lone probe_failed (rxe under TCG
# answered IBV_WC_REM_INV_REQ_ERR once on a healthy lab) is a link's, never these.
side = [x for x in bad if x["code"] in ("uplink_degraded", "switch_down", "switch_degraded", "cable_bad", "rail_crossed")]
g = [p["result"]["gbps"] for p in d["mesh"]["probes"] if p["test"] == "bw" and p["result"]["gbps"]]
med = statistics.median(g) if g else 0
r = eval(sys.argv[2])
if r is not True:
    print(r)
sys.exit(0 if r else 1)
PY
}
drained() { ls "$TMPD" | grep -c '^drained-'; }
t_pf=$(date +%s%N)
pf healthy
q healthy 'd["mesh"]["pattern"] == "topo" and not side and not d["bad_hosts"]' >/dev/null && [ "$(drained)" = 0 ] ||
	fail "healthy preflight --topology agents: exit $PF_RC, not topo, or named/drained: $(q healthy '[(x["code"], x["reason"]) for x in bad]')"
HEALTHY=$(q healthy '"%.4f" % med')
ok "preflight --topology agents, healthy: exit $PF_RC ($(q healthy 'len(bad)') link findings), topo pattern, nothing switch-side, median $HEALTHY Gb/s ($PF_S s)"

"$L" impair --uplink tor1 rate=5mbit >/dev/null || fail "impair --uplink tor1 rate=5mbit"
pf uplink
"$L" impair --uplink tor1 clear >/dev/null || fail "impair --uplink tor1 clear"
found=$(q uplink '"; ".join(x["code"] + ": " + x["reason"] for x in side)')
[ "$PF_RC" = 1 ] || fail "leaf1's uplink at 5 Mbit/s: exit $PF_RC (1 expected): $found"
q uplink '[x["code"] for x in side] == ["uplink_degraded"] and side[0]["host"] == "leaf1" and side[0]["peer_host"] == "spine"' >/dev/null ||
	fail "leaf1's uplink at 5 Mbit/s: not exactly one uplink finding naming leaf1: $found"
q uplink 'not d["bad_hosts"]' >/dev/null && [ "$(drained)" = 0 ] || fail "leaf1's uplink slow drained a host: $(ls "$TMPD")"
ok "leaf1's uplink at 5 Mbit/s (median $(q uplink '"%.4f" % med') Gb/s vs $HEALTHY): exactly one finding: $found; nothing drained ($PF_S s)"

"$L" impair n2 rate=5mbit >/dev/null || fail "impair n2 rate=5mbit"
pf host
"$L" impair n2 clear >/dev/null || fail "impair n2 clear"
found=$(q host '"; ".join(x["code"] + ": " + x["reason"] for x in side)')
[ "$PF_RC" = 1 ] || fail "n2 at 5 Mbit/s: exit $PF_RC (1 expected): $found"
q host "[x['code'] for x in side] == ['cable_bad'] and side[0]['host'] == '${ADDR[1]}' and side[0]['peer_host'] == 'leaf1' and side[0]['peer_nic'] == 'swp2'" >/dev/null ||
	fail "n2 at 5 Mbit/s: no finding naming n2's NIC and leaf1 swp2 alone: $found"
ok "n2's link at 5 Mbit/s: $found ($PF_S s)"
say "the three preflights added $(since "$t_pf") s"

# The fabric as cabled now, recorded to compare after the swap below.
"$L" host -- sh -c 'exec "$0" -t 20000 -j topology --from-agents "$ROCELAB_NODES" --lldp-capture 3000' \
	"$RC" >"$TMPD/before.json" 2>"$TMPD/before.err" || fail "topology before the swap: $(cat "$TMPD/before.err")"

# --- a cable moved, two cables swapped: the report follows.
out=$("$L" move n3 tor2) || fail "move n3 tor2: $out"
[ "$out" = "n3: leaf2 swp4" ] || fail "move said: $out"
out=$("$L" swap n1 n4) || fail "swap n1 n4: $out"
check "after move and swap" "n1 leaf2 swp1" "n2 leaf1 swp2" "n3 leaf2 swp4" "n4 leaf1 swp1" "n5 leaf2 swp2" "n6 leaf2 swp3"
rx n3 -t 20 -- ping -c 2 -W 3 "${ADDR[1]}" >/dev/null || fail "n3 (moved to leaf2) cannot reach n2 on leaf1"
ok "after move n3 tor2 and swap n1 n4 the agents report n3 on leaf2 swp4, n1 and n4 swapped; n3 still reaches n2"

# --- the swap against the topology recorded before it: topology_conflict
# findings name both guests (n1 and n4), exit 1.
"$L" host -- sh -c 'exec "$0" -t 20000 -j topology --topology "$1" --from-agents "$ROCELAB_NODES" --lldp-capture 3000' \
	"$RC" "$TMPD/before.json" >"$TMPD/swapped.json" 2>/dev/null
rc=$?
[ "$rc" = 1 ] || fail "topology against the recording after the swap: exit $rc (1 expected)"
for n in 0 3; do
	jq -e --arg h "${ADDR[n]}" '[.findings[] | select(.code == "topology_conflict" and (.reason | contains($h)))] | length >= 1' \
		"$TMPD/swapped.json" >/dev/null || fail "no topology_conflict naming ${ADDR[n]}: $(jq -c .findings "$TMPD/swapped.json")"
done
ok "after swap n1 n4 the topology recorded before conflicts: $(jq -r '[.findings[] | select(.code == "topology_conflict") | .reason] | join("; ")' "$TMPD/swapped.json" | cut -c1-300)"

# --- a topology file that disagrees: a conflict finding, exit 1.
cat >"$TMPD/fabric.json" <<JSON
{"schema":"rocecheck.topology/1","switches":[{"name":"leaf1","tier":"leaf","ports":[{"name":"swp9"}]}],
 "hosts":[{"name":"${ADDR[1]}","nics":[{"nic":"eth0","switch":"leaf1","port":"swp9"}]}]}
JSON
"$L" host -- sh -c 'exec "$0" -t 20000 -j topology --topology "$1" --from-agents "$ROCELAB_NODES" --lldp-capture 3000' \
	"$RC" "$TMPD/fabric.json" >"$TMPD/conflict.json" 2>/dev/null
rc=$?
[ "$rc" = 1 ] || fail "topology with a disagreeing file: exit $rc (1 expected)"
jq -e --arg h "${ADDR[1]}" '[.findings[] | select(.code == "topology_conflict" and (.reason | test("swp9")))] | length >= 1' \
	"$TMPD/conflict.json" >/dev/null || fail "no topology_conflict naming swp9: $(jq -c .findings "$TMPD/conflict.json")"
ok "a topology file that puts n2 on leaf1 swp9 is a topology_conflict finding"

# --- an uplink impaired: TBF on both ends of leaf1's uplink, then cleared.
out=$("$L" impair --uplink tor1 rate=20mbit) || fail "impair --uplink tor1: $out"
[ "$out" = "uplink of leaf1: rate=20mbit" ] || fail "impair --uplink said: $out"
for d in rlup0l1 rlup0s1; do
	"$L" host -- tc qdisc show dev "$d" | grep -q 'tbf .*rate 20Mbit' || fail "no TBF on $d"
done
grep -q 'uplink of leaf1 impaired: rate=20mbit' <<<"$("$L" status)" || fail "status does not show the uplink"
if out=$("$L" impair --uplink tor1 loss=5 2>&1); then
	"$L" host -- tc qdisc show dev rlup0l1 | grep -q netem || fail "uplink loss without netem: $out"
else
	grep -q 'need sch_netem' <<<"$out" || fail "uplink loss on a host without netem: $out"
fi
"$L" impair --uplink tor1 clear >/dev/null || fail "impair --uplink tor1 clear"
# Down: leaf1's nodes (n2, n4 since the swap) keep each other, lose leaf2.
"$L" impair --uplink tor1 down >/dev/null || fail "impair --uplink tor1 down"
rx n2 -t 20 -- ping -c 2 -W 3 "${ADDR[3]}" >/dev/null || fail "n2 cannot reach n4 on its own leaf with the uplink down"
rx n2 -t 20 -- ping -c 1 -W 2 "${ADDR[4]}" >/dev/null && fail "n2 reaches n5 on leaf2 with leaf1's uplink down"
"$L" impair --uplink tor1 up >/dev/null || fail "impair --uplink tor1 up"
rx n2 -t 20 -- ping -c 2 -W 3 "${ADDR[4]}" >/dev/null || fail "n2 cannot reach n5 once leaf1's uplink is up"
"$L" host -- tc qdisc show dev rlup0l1 | grep -q tbf && fail "TBF left on rlup0l1 after clear"
ok "impair --uplink tor1: TBF both ways on leaf1's uplink, shown by status, cleared; down cuts leaf1 from leaf2 only"

rm -rf "$TMPD"
ok "all checks passed"
