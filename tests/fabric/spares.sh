#!/usr/bin/env bash
# Fabric test: hot spares (issue 13) on 6 guests with agents: 4 job hosts
# n1-n4 and 2 spares n5, n6; job node n2 rate-limited, spare n6 losing 1%
# of what it sends. The preflight names n2 and proposes n5 for it, never n6.
# (Both rate-limited, the sweep's concurrent probes queue each one's ACKs
# behind its data: their links both ways, 18 of 30, were slow in a CI run,
# the fabric median fell to theirs and the wrong hosts were named.) Then the example
# program (examples/preflight.c), built against the installed library with
# pkg-config only, runs a preflight through the public API on the healed lab.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
command -v pkg-config >/dev/null && command -v cc >/dev/null || need "pkg-config or cc missing"
RCK=${ROCECHECK_BUILD_DIR:?}/tools/rocecheck
tmp=$(mktemp -d)
bash "$HERE/../build-example.sh" "$ROCECHECK_BUILD_DIR" "$tmp/example" >"$tmp/build.log" 2>&1 ||
	fail "example build: $(cat "$tmp/build.log")"
ok "example built against the installed library"
lab_up spares 6 --agents
say "boot of 6 nodes with agents: $BOOT_SECS s"
cp "$HERE/tcg.thresholds" "$tmp/lab.conf"
"$ROCELAB" impair n2 rate=5mbit >/dev/null || fail "impair n2"
"$ROCELAB" impair n6 loss=1 >/dev/null || fail "impair n6"

# run NAME HOSTS_OPTION PROGRAM-AND-ARGS: hosts n1-n4 (after HOSTS_OPTION, or
# as the last word when it is "-"), spares n5,n6, from ROCELAB_NODES
# (blank-separated); stdout in $tmp/NAME.txt, exit code in $rc; bounded.
run() {
	local name=$1 hopt=$2 t
	shift 2
	t=$(date +%s%N)
	# The command line is split into words on purpose (no blanks in its paths).
	timeout 400 "$ROCELAB" host -- sh -c '
		hopt=$0 prog=$1
		set -- $ROCELAB_NODES
		hosts=$1,$2,$3,$4 spares=$5,$6
		if [ "$hopt" = - ]; then exec $prog --spares "$spares" "$hosts"; fi
		exec $prog --spares "$spares" "$hopt" "$hosts"' "$hopt" "$*" \
		>"$tmp/$name.txt" 2>"$tmp/$name.err"
	rc=$?
	say "$name: exit $rc in $(since "$t") s: $(head -c 120 "$tmp/$name.txt" | head -1)"
}
addr() { "$ROCELAB" host -- sh -c "set -- \$ROCELAB_NODES; eval echo \\\${$1}"; }
n2=$(addr 2) n5=$(addr 5) n6=$(addr 6)
[ -n "$n2" ] && [ -n "$n5" ] && [ -n "$n6" ] || fail "no node addresses"

run tool --hosts "$RCK -t 20000 preflight --config $tmp/lab.conf --size 65536 --iters 10 --retest-passes 4 --deadline 300 -j"
[ "$rc" = 1 ] || fail "preflight with spares: exit $rc, want 1: $(cat "$tmp/tool.err")"
python3 - "$tmp/tool.txt" "$n2" "$n5" "$n6" <<'PY' || { sed 's/^/  | /' "$tmp/tool.txt" | cut -c1-300 | head -40; fail "preflight with spares: wrong plan"; }
import json, sys
d = json.load(open(sys.argv[1]))
n2, n5, n6 = sys.argv[2:5]
plan = [(r["host"], r["spare"]) for r in d["replacements"]]
bad = [b["host"] for b in d["bad_hosts"]]
spares = {s["host"]: s["healthy"] for s in d["spares"]}
print("plan", plan, "bad", bad, "spares", spares)
assert n2 in bad, "n2 not a bad host"
assert plan == [(n2, n5)], "plan is not n2 -> n5"
assert spares.get(n5) is True and spares.get(n6) is False, "spare health"
PY
ok "rocecheck preflight --spares: n2 degraded, replaced by n5; n6 (degraded spare) not proposed"

# The example on the same lab, healthy again: exit 0, no plan needed.
"$ROCELAB" impair n2 clear >/dev/null && "$ROCELAB" impair n6 clear >/dev/null || fail "impair clear"
run example - "$tmp/example/run --config $tmp/lab.conf --size 65536 --iters 10 --timeout 20000"
[ "$rc" = 0 ] || fail "example: exit $rc, want 0: $(cat "$tmp/example.txt" "$tmp/example.err")"
grep -qx "verdict: healthy" "$tmp/example.txt" || fail "example: not healthy: $(cat "$tmp/example.txt")"
grep -q "^summary: 6 hosts, 30 probes" "$tmp/example.txt" || fail "example: summary: $(grep summary "$tmp/example.txt")"
grep -q "^replace: \|^drain: " "$tmp/example.txt" && fail "example: a plan on a healthy fabric"
grep -q '^progress: sweep ' "$tmp/example.err" || fail "example: no progress callback"
ok "example program (installed library) on the fabric: verdict healthy, 30 probes, $(grep -c '^progress' "$tmp/example.err") progress lines"
rm -rf "$tmp"
