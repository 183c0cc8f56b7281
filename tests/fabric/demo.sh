#!/usr/bin/env bash
# Fabric test: the README's try-it command, `bash ci/demo.sh`, exactly as a
# newcomer runs it (on this build folder, in a lab named with
# ROCELAB_LAB_PREFIX): it must boot, measure, run the preflight with one
# node rate-limited (naming that node) and tear down.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
src=$(cd "$HERE/../.." && pwd)
lab=${ROCELAB_LAB_PREFIX:-}demo
"$ROCELAB" down --name "$lab" >/dev/null 2>&1
out=$(ROCECHECK_BUILD_DIR=$BUILD_DIR timeout 900 bash "$src/ci/demo.sh" 2>&1)
rc=$?
sed 's/^/  | /' <<<"$out"
[ "$rc" = 0 ] || fail "bash ci/demo.sh exited $rc"
grep -Eq '^  [0-9.]+ Gb/s average' <<<"$out" || fail "no ib_write_bw figure in the demo's output"
grep -Eq '^  [0-9.]+ us typical' <<<"$out" || fail "no ib_write_lat figure in the demo's output"
[ "$(grep -c 'rxe0 port 1 ACTIVE' <<<"$out")" = 4 ] || fail "the demo did not show 4 ACTIVE ports"
ok "ci/demo.sh: 4 nodes, bandwidth and latency measured"
# The main job: the preflight on the lab with n3 rate-limited names n3.
grep -Eq '^  4 hosts, 12 probes in [0-9.]+ s, drain [0-9.]+\.3 \([a-z_]+( rxe0/1)?: ' <<<"$out" ||
	fail "the demo's preflight summary does not name n3's NIC"
grep -q '^  exit status 1 (degraded, as expected)' <<<"$out" || fail "the demo's preflight did not exit 1"
report=$(sed -n 's/^  JSON report: \([^,]*\).*/\1/p' <<<"$out")
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["verdict"] == "degraded"' "$src/$report" ||
	fail "no JSON report at $src/$report"
rm -f "$src/$report"
# With the heatmap in the preflight, the demo draws it beside the report.
heat=$(sed -n 's/^  JSON report: .*, heatmap: \(.*\)$/\1/p' <<<"$out")
if [ -n "$heat" ]; then
	grep -q '<svg' "$src/$heat" || fail "no heatmap at $src/$heat"
	rm -f "$src/$heat"
	ok "the demo's heatmap: $heat"
fi
ok "the demo's preflight: n3 degraded, exit 1, JSON report written"
# The demo tears its lab down.
"$ROCELAB" status --name "$lab" >/dev/null 2>&1 && fail "lab $lab left behind"
ok "lab $lab removed"
say "total $(since "$T0") s"
