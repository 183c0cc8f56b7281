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

# --- a cable moved, two cables swapped: the report follows.
out=$("$L" move n3 tor2) || fail "move n3 tor2: $out"
[ "$out" = "n3: leaf2 swp4" ] || fail "move said: $out"
out=$("$L" swap n1 n4) || fail "swap n1 n4: $out"
check "after move and swap" "n1 leaf2 swp1" "n2 leaf1 swp2" "n3 leaf2 swp4" "n4 leaf1 swp1" "n5 leaf2 swp2" "n6 leaf2 swp3"
rx n3 -t 20 -- ping -c 2 -W 3 "${ADDR[1]}" >/dev/null || fail "n3 (moved to leaf2) cannot reach n2 on leaf1"
ok "after move n3 tor2 and swap n1 n4 the agents report n3 on leaf2 swp4, n1 and n4 swapped; n3 still reaches n2"

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
