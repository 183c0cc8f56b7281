#!/usr/bin/env bash
# Fabric test: the README's try-it command, `bash ci/demo.sh`, exactly as a
# newcomer runs it (on this build folder, in a lab named with
# ROCELAB_LAB_PREFIX): it must boot, measure and tear down.

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
# The demo tears its lab down.
"$ROCELAB" status --name "$lab" >/dev/null 2>&1 && fail "lab $lab left behind"
ok "lab $lab removed"
say "total $(since "$T0") s"
