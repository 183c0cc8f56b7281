#!/usr/bin/env bash
# Command-line contract of rocedcb on this machine's lo (no dcbnl, no root
# needed): exit codes, one-line errors, help in every command, JSON that
# validates against schemas/rocedcb.schema.json, profile errors with lines.
# (Man page options: tests/unit/check-man.py; schemas: check-schemas.py.)
set -u
rdcb=${ROCEDCB:?ROCEDCB not set}
wrap=${ROCECHECK_WRAP:-}
src=${ROCECHECK_SRC:?ROCECHECK_SRC not set}
schema=$src/schemas/rocedcb.schema.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0

printf 'name = bad\npfc = 3\n# fine so far\nroce_tos = 300\n' >"$tmp/bad.profile"
printf 'name = mine\npfc = 3\ndscp = 26:3\n' >"$tmp/good.profile"

# expected-rc | arguments (word-split) | stderr pattern (grep -E, optional)
cases=(
	"2||"
	"0|help|"
	"0|--help|"
	"0|show --help|"
	"0|show help|"
	"0|check -h|"
	"0|apply help|"
	"0|restore --help|"
	"2|bogus|^rocedcb: unknown command 'bogus'"
	"2|show --nope|^rocedcb: show: unknown option '--nope'"
	"2|show --dry-run lo|^rocedcb: show: unknown option '--dry-run'"
	"1|show rck-none0|^rocedcb: show: rck-none0: no such interface"
	"0|show lo|"
	"0|show lo -j|"
	"0|-j show lo|"
	"2|check|^rocedcb: check: a PROFILE is needed"
	"2|check no-such-profile lo|^rocedcb: check: no-such-profile: no built-in profile or readable file"
	"2|check $tmp/bad.profile lo|^rocedcb: check: $tmp/bad.profile:4: roce_tos: '300' is not a number 0-255"
	# lo has no dcbnl: every field unknown, exit 3 (not drift, not a match).
	"3|check roce-lossless lo|"
	"3|check $tmp/good.profile lo -j|"
	"2|check roce-lossless rck-none0|rck-none0: no such interface"
	"2|apply|^rocedcb: apply: a PROFILE is needed"
	"2|apply roce-lossless lo -j|^rocedcb: apply: no JSON output"
	"2|apply roce-lossless lo --state-dir|^rocedcb: apply: option '--state-dir' needs a value"
	"2|apply $tmp/bad.profile lo --dry-run|:4: roce_tos"
	# A dry run plans every part, unreadable ones as unknown: exit 3; a
	# real apply refuses the same profile before writing anything.
	"3|apply roce-lossless lo --dry-run|"
	"1|apply roce-lossless lo rck-none0 --dry-run|rck-none0"
	"1|apply roce-lossless lo --state-dir $tmp/st|^rocedcb: apply: lo: pfc failed: not supported by this driver"
	"1|restore --state-dir $tmp/none|^rocedcb: restore: no saved state in $tmp/none"
	"1|restore lo --state-dir $tmp|^rocedcb: restore: lo: no saved state"
	"0|peer --help|"
	"2|peer|^rocedcb: peer: an interface is needed"
	"2|peer lo eth0|^rocedcb: peer: one interface only"
	"2|peer lo --wait 0|^rocedcb: peer: invalid --wait '0'"
	"2|check roce-lossless lo --wait x|^rocedcb: check: invalid --wait 'x'"
	"2|check roce-lossless lo --wait 3|^rocedcb: check: --wait is the LLDP wait of --peer"
	"2|peer lo --timeout 5|^rocedcb: peer: -t/--timeout 5 is milliseconds"
	"2|-t 30 check roce-lossless lo --peer|^rocedcb: check: -t/--timeout 30 is milliseconds"
	"2|peer lo --timeout 0|^rocedcb: peer: invalid --timeout '0'"
	"0|help apply|"
	"2|help bogus|^rocedcb: help: unknown command 'bogus'"
	"2|peer lo --dry-run|^rocedcb: peer: unknown option '--dry-run'"
	"2|show lo --peer|^rocedcb: show: unknown option '--peer'"
	"2|apply roce-lossless lo --wait 3|^rocedcb: apply: unknown option '--wait'"
)

for c in "${cases[@]}"; do
	IFS='|' read -r want args pat <<<"$c"
	n=$((n + 1))
	# shellcheck disable=SC2086
	timeout 60 $wrap "$rdcb" $args >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	lines=$(grep -c . "$tmp/err")
	if [ "$got" != "$want" ]; then
		echo "FAIL: rocedcb $args: exit $got, expected $want; stderr: $(head -3 "$tmp/err")"
		fails=$((fails + 1))
	elif [ -n "$pat" ] && ! head -1 "$tmp/err" | grep -qE -- "$pat"; then
		echo "FAIL: rocedcb $args: stderr '$(head -1 "$tmp/err")' does not match '$pat'"
		fails=$((fails + 1))
	elif [ "$want" = 0 ] && [ "$lines" != 0 ] && [ -z "$wrap" ]; then
		echo "FAIL: rocedcb $args: exit 0 with stderr: $(cat "$tmp/err")"
		fails=$((fails + 1))
	elif [ "$want" = 0 ] && [ ! -s "$tmp/out" ]; then
		echo "FAIL: rocedcb $args: no output"
		fails=$((fails + 1))
	fi
	if [[ $args == *-j* ]] && [ "$got" != 2 ]; then
		python3 "$src/tests/validate-json.py" "$schema" "$tmp/out" >/dev/null ||
			{ echo "FAIL: rocedcb $args: JSON does not validate"; fails=$((fails + 1)); }
	fi
done

# An unreadable field is UNKNOWN with why, never DRIFT (exit 3 above).
out=$($wrap "$rdcb" check roce-lossless lo 2>/dev/null)
grep -qE '^  UNKNOWN pfc.enabled +want 3, have not supported by this driver$' <<<"$out" &&
	grep -q '^lo: profile roce-lossless, 0 field(s) differ, 11 unknown$' <<<"$out" &&
	! grep -q DRIFT <<<"$out" ||
	{ echo "FAIL: check on lo (no dcbnl) must say UNKNOWN, not DRIFT: $out"; fails=$((fails + 1)); }

# apply --dry-run where nothing can be read: the whole plan, each part
# "unknown -> X (why)", rdma_cm left out without an RDMA device.
out=$($wrap "$rdcb" apply --dry-run roce-lossless lo 2>&1)
for want in "lo: would change pfc: enabled unknown -> 3 (not supported by this driver)" \
	"lo: would change app: dscp 48 priority unknown -> 6 (not supported by this driver)" \
	"lo: would change ets: prio_tc unknown -> [0 1 2 3 4 5 6 7] tc_bw unknown -> [10 10 10 40 10 10 0 10]" \
	"lo: rdma_cm: default_roce_tos -> 106, default_roce_mode -> RoCE v2 left out: no RDMA device" \
	"lo: 4 part(s) of the plan start from a value that could not be read"; do
	grep -qF -- "$want" <<<"$out" || { echo "FAIL: apply --dry-run on lo: '$want' missing: $out"; fails=$((fails + 1)); }
done
out=$($wrap "$rdcb" --sysfs-root "${ROCECHECK_FIXTURES:?}/sysfs/mlx5" apply --dry-run roce-lossless mlx5_0 2>&1)
rc=$?
[ $rc = 3 ] && grep -qF "would change rdma_cm mlx5_0/1: default_roce_tos unknown -> 106, default_roce_mode unknown -> RoCE v2 (not in a recorded tree)" <<<"$out" ||
	{ echo "FAIL: apply --dry-run on the mlx5 tree: exit $rc: $out"; fails=$((fails + 1)); }

# Recorded trees: an RDMA device named instead of its netdev, and the vendor
# driver's knobs (qos/trust, ecn/roce_{np,rp}/enable/PRIO) found and shown.
fix=${ROCECHECK_FIXTURES:?}
out=$($wrap "$rdcb" --sysfs-root "$fix/sysfs/mlx5" show mlx5_0 2>&1)
[ "$(head -1 <<<"$out")" = "ens1f0np0 (RDMA mlx5_0/1)" ] ||
	{ echo "FAIL: show mlx5_0 on the mlx5 tree: $out"; fails=$((fails + 1)); }
grep -q 'pfc      not in a recorded tree' <<<"$out" ||
	{ echo "FAIL: a recorded tree must not claim the driver lacks PFC: $out"; fails=$((fails + 1)); }
out=$($wrap "$rdcb" --sysfs-root "$fix/dcb/sysfs-ofed" show ens1f0np0 2>&1)
for want in "trust    dscp (the vendor driver's qos/trust file)" "vendor   qos/trust: Priority trust state: dscp" \
	"ecn/roce_np/enable/3: 1" "ecn/roce_rp/enable/7: 0"; do
	grep -qF "$want" <<<"$out" || { echo "FAIL: vendor knobs: '$want' missing: $out"; fails=$((fails + 1)); }
done
if ! $wrap "$rdcb" --sysfs-root "$fix/dcb/sysfs-ofed" -j show ens1f0np0 >"$tmp/ofed.json" ||
	! python3 "$src/tests/validate-json.py" "$schema" "$tmp/ofed.json" >/dev/null; then
	echo "FAIL: vendor knobs JSON"
	fails=$((fails + 1))
fi

# The recorded state file of a dcbtest0 port validates too (a port document).
python3 "$src/tests/validate-json.py" "$schema" "$src/tests/fixtures/dcb/state-default.json" >/dev/null ||
	{ echo "FAIL: state-default.json does not validate"; fails=$((fails + 1)); }
# A document that must not validate: proves the schema can fail.
echo '{"schema":"rocedcb.show/1","ports":[{"interface":"x"}]}' >"$tmp/badshow.json"
python3 "$src/tests/validate-json.py" "$schema" "$tmp/badshow.json" >/dev/null 2>&1 &&
	{ echo "FAIL: an incomplete port validated"; fails=$((fails + 1)); }

echo "rocedcb cli: $n cases, $fails failed"
[ "$fails" = 0 ]
