#!/usr/bin/env bash
# Fabric test (suite dcb): rocedcb against the kernel's real dcbnl code on the
# dcbtest netdev module, cross-checked both ways with iproute2's dcb; apply,
# check, injected failures that must leave the port exactly as it was, restore.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
[ -d "/lib/modules/$(ls /lib/modules | sort -V | tail -1)/build" ] || need "no kernel headers (linux-headers-amd64)"
SCHEMA=$HERE/../../schemas/rocedcb.schema.json
VALIDATE=$HERE/../validate-json.py
lab_up dcb 1 --dcb-netdev
say "boot of 1 node with dcbtest: $BOOT_SECS s"

DCB=/usr/sbin/dcb
IF=dcbtest0
g() { rx n1 -t 60 -- "$@"; }
gsh() { rx n1 -t 60 -- sh -c "$*"; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"; lab_down' EXIT

# An RDMA device on the DCB netdev, so the rdma_cm defaults belong to it.
gsh "ip link set $IF up && /usr/bin/rdma link add rxe1 type rxe netdev $IF" || fail "rxe1 on $IF"
out=$(g rocedcb show $IF) || fail "show: $out"
grep -q "^$IF (RDMA rxe1/1)" <<<"$out" || fail "show does not name rxe1: $out"
grep -q 'requests    1000 1001' <<<"$out" || fail "PFC request counters not shown: $out"
ok "show $IF: backs rxe1/1, PFC counters from the driver"

# JSON of show and check against the schema, for a port with every feature.
g rocedcb show -j $IF >"$TMP/show.json" || fail "show -j"
python3 "$VALIDATE" "$SCHEMA" "$TMP/show.json" >/dev/null || fail "show -j does not validate"
g rocedcb check roce-lossless $IF -j >"$TMP/check.json"
[ $? = 1 ] || fail "check on a fresh port should drift (exit 1)"
python3 "$VALIDATE" "$SCHEMA" "$TMP/check.json" >/dev/null || fail "check -j does not validate"
ok "show -j and check -j validate against rocedcb.schema.json"

# Everything iproute2's dcb and rocedcb can say about the port, for "same as before".
snapshot() {
	gsh "$DCB -j pfc show dev $IF; $DCB -j ets show dev $IF; $DCB -j app show dev $IF;" \
		"$DCB -j buffer show dev $IF; $DCB -j maxrate show dev $IF; $DCB -j dcbx show dev $IF;" \
		"rocedcb show -j $IF"
}
jqv() { python3 -c "import json,sys; d=json.load(open('$1')); print(json.dumps(eval('d' + sys.argv[1])))" "$2"; }

before=$(snapshot) || fail "snapshot"

# 1. What rocedcb sets, iproute2 reads back.
out=$(g rocedcb apply roce-lossless $IF) || fail "apply: $out"
grep -q 'pfc: enabled none -> 3' <<<"$out" || fail "apply did not print the PFC change: $out"
grep -q "previous state saved in /run/rocedcb/$IF.json" <<<"$out" || fail "no state file: $out"
pfc=$(g $DCB -j pfc show dev $IF)
[ "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["prio_pfc"])' <<<"$pfc")" = \
	"[False, False, False, True, False, False, False, False]" ] || fail "dcb pfc after apply: $pfc"
app=$(g $DCB -j app show dev $IF)
[ "$app" = '{"dscp_prio":[[26,3],[48,6]]}' ] || fail "dcb app after apply: $app"
ets=$(g $DCB -j ets show dev $IF)
python3 - "$ets" <<'PY' || fail "dcb ets after apply: $ets"
import json, sys
e = json.loads(sys.argv[1])
assert e["prio_tc"] == list(range(8)), e
assert e["tc_bw"] == [10, 10, 10, 40, 10, 10, 0, 10], e
assert e["tc_tsa"][6] == "strict" and e["tc_tsa"][3] == "ets", e
PY
[ "$(g cat /sys/kernel/config/rdma_cm/rxe1/ports/1/default_roce_tos 2>/dev/null)" = "" ] ||
	fail "apply left the rdma_cm/rxe1 configfs folder behind"
tos=$(g rocedcb show -j $IF | python3 -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["rdma_cm"]["default_roce_tos"])')
[ "$tos" = 106 ] || fail "rdma_cm default_roce_tos after apply: $tos"
g rocedcb check roce-lossless $IF >"$TMP/chk" || fail "check after apply: $(cat "$TMP/chk")"
grep -q '0 field(s) differ' "$TMP/chk" || fail "check after apply: $(cat "$TMP/chk")"
out=$(g rocedcb apply roce-lossless $IF) || fail "second apply: $out"
grep -q "already matches" <<<"$out" || fail "second apply changed something: $out"
ok "apply: dcb reads back PFC 3, DSCP 26:3 48:6, ETS; ToS 106 in configfs; check clean; apply again is a no-op"

# 2. What iproute2 sets, rocedcb shows, and check reports as drift.
gsh "$DCB pfc set dev $IF prio-pfc 3:on 4:on && $DCB app replace dev $IF dscp-prio 26:5 &&" \
	"$DCB buffer set dev $IF prio-buffer 3:1 buffer-size 1:64K && $DCB maxrate set dev $IF tc-maxrate 2:1gbit" ||
	fail "dcb set"
g rocedcb show -j $IF >"$TMP/after-dcb.json" || fail "show after dcb"
[ "$(jqv "$TMP/after-dcb.json" '["ports"][0]["pfc"]["enabled"]')" = "[3, 4]" ] || fail "show: PFC after dcb set"
entries=$(jqv "$TMP/after-dcb.json" '["ports"][0]["app"]["entries"]')
grep -q '"protocol": 26, "priority": 5' <<<"$entries" || fail "show: app after dcb replace: $entries"
grep -q '"protocol": 26, "priority": 3' <<<"$entries" && fail "dcb app replace left 26:3: $entries"
[ "$(jqv "$TMP/after-dcb.json" '["ports"][0]["buffer"]["prio_buffer"][3]')" = 1 ] || fail "show: prio_buffer"
[ "$(jqv "$TMP/after-dcb.json" '["ports"][0]["buffer"]["buffer_size"][1]')" = 65536 ] || fail "show: buffer_size"
# The raw kernel value is the same number dcb prints (see rocedcb(8) NOTES on units).
mr=$(g $DCB -j maxrate show dev $IF | python3 -c 'import json,sys; print(json.load(sys.stdin)["tc_maxrate"][2])')
[ "$(jqv "$TMP/after-dcb.json" '["ports"][0]["maxrate"]["tc_maxrate_kbps"][2]')" = "$mr" ] || fail "show: maxrate vs dcb $mr"
g rocedcb check roce-lossless $IF >"$TMP/chk"
rc=$?
[ $rc = 1 ] || fail "check after dcb changes: exit $rc, expected 1: $(cat "$TMP/chk")"
grep -Eq 'DRIFT pfc.enabled +want 3, have 3,4' "$TMP/chk" || fail "check misses the PFC drift: $(cat "$TMP/chk")"
grep -Eq 'DRIFT app.dscp.26 +want 3, have 5' "$TMP/chk" || fail "check misses the DSCP drift: $(cat "$TMP/chk")"
grep -Eq 'DRIFT roce_priority|DRIFT ets' "$TMP/chk" && fail "check reports drift that is not there: $(cat "$TMP/chk")"
ok "dcb pfc/app/buffer/maxrate set: rocedcb shows them, check reports exactly the PFC and DSCP drift"

# 3. restore returns the original state, buffer and maxrate included.
out=$(g rocedcb restore $IF) || fail "restore: $out"
grep -q "restored from /run/rocedcb/$IF.json" <<<"$out" || fail "restore: $out"
g test -e /run/rocedcb/$IF.json && fail "restore left the state file"
after=$(snapshot) || fail "snapshot"
[ "$before" = "$after" ] || fail "restore did not return the original state: $(diff <(echo "$before") <(echo "$after"))"
ok "restore: every dcb view and rocedcb show are as before the apply"

# 4. A failure injected at each step leaves the port exactly as it was.
for knob in fail_setets fail_setpfc fail_setapp; do
	gsh "echo 1 >/sys/module/dcbtest/parameters/$knob" || fail "set $knob"
	g rocedcb apply roce-lossless $IF >"$TMP/out" 2>"$TMP/err"
	rc=$?
	gsh "echo 0 >/sys/module/dcbtest/parameters/$knob"
	[ $rc = 1 ] || fail "$knob: apply exit $rc, expected 1"
	grep -q 'Input/output error' "$TMP/err" || fail "$knob: no error named: $(cat "$TMP/err")"
	if [ $knob = fail_setets ]; then
		grep -q 'nothing was changed' "$TMP/err" || fail "$knob: $(cat "$TMP/err")"
	else
		grep -q 'restored everything it had changed' "$TMP/err" || fail "$knob: $(cat "$TMP/err")"
		grep -q '(restored)' "$TMP/out" || fail "$knob: changes not listed as restored: $(cat "$TMP/out")"
	fi
	now=$(snapshot) || fail "snapshot"
	[ "$before" = "$now" ] || fail "$knob: port changed: $(diff <(echo "$before") <(echo "$now"))"
	g test -e /run/rocedcb/$IF.json && fail "$knob: a state file remains after a full rollback"
done
ok "failures injected in ETS, PFC and APP: apply exit 1, the port exactly as before"

# 5. Without CAP_NET_ADMIN (a user namespace has none over the host's netlink).
g unshare -U -r rocedcb apply roce-lossless $IF --state-dir /tmp/rdcb >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 1 ] || fail "apply without CAP_NET_ADMIN: exit $rc"
grep -q 'needs CAP_NET_ADMIN' "$TMP/err" || fail "no clear error without CAP_NET_ADMIN: $(cat "$TMP/err")"
now=$(snapshot) || fail "snapshot"
[ "$before" = "$now" ] || fail "port changed without CAP_NET_ADMIN"
ok "without CAP_NET_ADMIN: '$(head -1 "$TMP/err")'"

# 6. A port without dcbnl (virtio): reported unsupported, apply refused before writing.
out=$(g rocedcb show eth0) || fail "show eth0: $out"
grep -q 'pfc      not supported by this driver' <<<"$out" || fail "eth0 PFC: $out"
g rocedcb apply roce-lossless eth0 >"$TMP/out" 2>"$TMP/err" && fail "apply on virtio succeeded"
grep -q 'nothing was changed' "$TMP/err" || fail "apply on virtio: $(cat "$TMP/err")"
ok "virtio eth0: 'not supported by this driver', apply refused"
