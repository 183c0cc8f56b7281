#!/usr/bin/env bash
# The NPD and Slurm one-liners: the fact that matters within 80 columns
# (PCIe x8 of x16 at ADDR), never an empty line (a bad --sysfs-root says why
# on stdout), and a [clearing] finding never repeats its old reason as news.
set -u
rck=${ROCECHECK:?ROCECHECK not set}
wrap=${ROCECHECK_WRAP:-}
fix=${ROCECHECK_FIXTURES:?}/sysfs
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
sw() { timeout -k 1 60 $wrap "$rck" "$@" >"$t/out" 2>"$t/err" </dev/null; rc=$?; }

sw --sysfs-root "$fix/mlx5" sweep --format npd
line=$(head -n 1 "$t/out")
[ $rc -eq 1 ] && [ ${#line} -le 80 ] && [[ $line == *"PCIe x8 of x16 at 0000:3b:00.0"* ]] &&
	ok "PCIe fact kept: $line" || bad "PCIe line (rc $rc): '$line'"
sw --sysfs-root "$fix/mlx5" sweep
grep -q 'PCIe x8 of x16 at 0000:3b:00.0 (16.0 GT/s): bandwidth capped' "$t/out" &&
	ok "PCIe reason in full" || bad "PCIe reason: $(cat "$t/out")"

for args in "--sysfs-root $t/none sweep --format npd" "sweep --format=npd --sysfs-root $t/none"; do
	# shellcheck disable=SC2086
	sw $args
	line=$(cat "$t/out")
	[ $rc -eq 2 ] && [[ $line == "rocecheck: unknown: "?* ]] && [ "$(wc -l <"$t/out")" -eq 1 ] &&
		ok "bad --sysfs-root ($args): $line" || bad "bad --sysfs-root ($args): rc $rc, stdout '$line'"
done
sw --sysfs-root "$t/none" sweep
[ $rc -eq 2 ] && [ ! -s "$t/out" ] && ok "text: nothing on stdout" || bad "text: rc $rc, '$(cat "$t/out")'"

# A port down in two runs counts (2/3), then a good run: clearing.
st=$t/state.json
for tree in down down; do
	sw --sysfs-root "$fix/$tree" sweep --state "$st"
done
cp "$st" "$t/state2.json"
sw --sysfs-root "$fix/bnxt" sweep --state "$st"
if grep -q '\[clearing\]' "$t/out"; then
	! grep '\[clearing\]' "$t/out" | grep -q 'port state' &&
		grep -q '\[clearing\] not seen in this run' "$t/out" &&
		ok "clearing line without the old reason" || bad "clearing: $(grep clearing "$t/out")"
else
	bad "no clearing finding: $(cat "$t/out")"
fi
# The NPD line of that run: the finding still counts, its old reason is not news.
cp "$t/state2.json" "$t/state3.json"
sw --sysfs-root "$fix/bnxt" sweep --state "$t/state3.json" --format npd
line=$(cat "$t/out")
[ $rc -eq 1 ] && [[ $line == "rocecheck: port_down bnxt_re0/1 [clearing] not seen in this run"* ]] &&
	[[ $line != *"port state"* ]] && [ ${#line} -le 80 ] &&
	ok "NPD clearing line without the old reason: $line" || bad "NPD clearing (rc $rc): '$line'"
sw --sysfs-root "$fix/bnxt" sweep --state "$t/state2.json" -j
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert any(f["hold"] == "clearing" and f["reason"] for f in d["findings"]), d["findings"]
' "$t/out" && ok "JSON keeps the reason" || bad "JSON clearing"
[ $fails -eq 0 ]
