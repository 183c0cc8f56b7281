#!/usr/bin/env bash
# Fabric test: `rocecheck preflight` over the agents of 4 guests (verbs
# transport), one boot for every case: no impairment -> exit 0; one node
# rate-limited -> exit 1 naming that node and not its links; one path
# impaired -> exactly that link; 1% loss on one node -> a loss finding on
# its links. Absolute rates under TCG mean nothing: lab.conf below turns the
# floors against line rate off and loosens the relative one; the verdicts
# are still the analysis's own.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
lab_up preflight 4 --agents
say "boot of 4 nodes with agents: $BOOT_SECS s"
RCK=${ROCECHECK_BUILD_DIR:?}/tools/rocecheck
tmp=$(mktemp -d)
cp "$HERE/tcg.thresholds" "$tmp/lab.conf"

# preflight NAME ARGS...: JSON in $tmp/NAME.json, text summary from the
# report file, exit code in $rc. Every run is bounded (--deadline, timeout).
preflight() {
	local name=$1 t
	shift
	t=$(date +%s%N)
	timeout 200 "$ROCELAB" host -- sh -c "exec \"$RCK\" -t 20000 preflight --hosts \"\$ROCELAB_NODES\" \
		--config '$tmp/lab.conf' --size 65536 --iters 10 --retest-passes 4 --deadline 150 --report '$tmp/$name.json' $*" \
		>"$tmp/$name.txt" 2>"$tmp/$name.err"
	rc=$?
	secs=$(since "$t")
	say "$name: exit $rc in $secs s: $(head -1 "$tmp/$name.txt")"
}

# check NAME 'python expression over d, findings, hosts (addresses -> nN)'
check() {
	python3 - "$tmp/$1.json" "$2" <<'PY' || { sed 's/^/  | /' "$tmp/$1.txt"; return 1; }
import json, sys
d = json.load(open(sys.argv[1]))
findings = d["report"]["findings"]
bad = [f for f in findings if f["severity"] in ("degraded", "critical")]
def host(a):  # 10.77.x.3 -> n3; n3 stays
    return ("n" + a.rsplit(".", 1)[-1] if "." in a else a) if a else None
def codes(**kw):
    return [f["code"] for f in bad if all(host(f.get(k)) == v for k, v in kw.items())]
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

# --- a healthy fabric: exit 0, every probe measured.
preflight healthy
[ "$rc" = 0 ] || fail "healthy fabric: exit $rc: $(cat "$tmp/healthy.txt" "$tmp/healthy.err")"
check healthy 'd["verdict"] == "healthy" and d["timings"]["probes"] == 12 and not bad' || fail "healthy fabric: findings"
ok "no impairment: exit 0, 12 probes, no finding ($secs s)"

# --- n3 rate-limited: exit 1, the node (its NIC or host), none of its links.
"$ROCELAB" impair n3 rate=5mbit >/dev/null || fail "impair n3"
preflight slow_node
"$ROCELAB" impair n3 clear >/dev/null
[ "$rc" = 1 ] || fail "n3 rate-limited: exit $rc, want 1: $(cat "$tmp/slow_node.err")"
# The node itself (its NIC or host: slow, lossy through the shaper's drops,
# or failing), never one of its links, and nothing about another node.
check slow_node 'any(f["entity"] in ("nic", "host") and host(f["host"]) == "n3" for f in bad) and not [f for f in bad if f["entity"] == "link"] and all(host(f.get("host")) == "n3" for f in bad)' ||
	fail "n3 rate-limited: not named alone, or its links listed"
ok "n3 at 5 Mbit/s: exit 1, $(python3 -c 'import json,sys; print([f["code"] for f in json.load(open(sys.argv[1]))["report"]["findings"]])' "$tmp/slow_node.json") on n3 only"

# --- the path n1 -> n2 impaired: exactly that link, confirmed by retests.
"$ROCELAB" impair n1 --to n2 rate=5mbit >/dev/null || fail "impair n1 --to n2"
preflight slow_path
"$ROCELAB" impair n1 clear >/dev/null
[ "$rc" = 1 ] || fail "n1 -> n2 impaired: exit $rc, want 1: $(cat "$tmp/slow_path.err")"
# That link slow (the shaper's drops may add loss evidence on it), nothing else.
check slow_path '"link_slow" in [f["code"] for f in bad] and all(f["entity"] == "link" and host(f["host"]) == "n1" and host(f["peer_host"]) == "n2" for f in bad)' ||
	fail "n1 -> n2 impaired: not exactly that link"
check slow_path 'd["timings"]["retests"] >= 1 and d["timings"]["passes"] >= 1' || fail "n1 -> n2: never retested"
ok "path n1 -> n2 impaired: exactly link_slow n1 -> n2 (retests $(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["timings"]; print(t["retests"], "in", t["passes"], "passes")' "$tmp/slow_path.json"))"

# --- 1% loss on n2: retransmission evidence on its links, none elsewhere.
"$ROCELAB" impair n2 loss=1 >/dev/null || fail "impair n2 loss"
preflight lossy
"$ROCELAB" impair n2 clear >/dev/null
[ "$rc" = 1 ] || fail "1% loss on n2: exit $rc, want 1: $(cat "$tmp/lossy.err")"
check lossy '[f for f in bad if f["code"] == "loss_on_lossless"] and all("n2" in (host(f["host"]), host(f["peer_host"])) for f in bad if f["code"] == "loss_on_lossless")' ||
	fail "1% loss on n2: no loss finding on its links, or one elsewhere"
ok "1% loss on n2: $(python3 -c 'import json,sys; print(len([f for f in json.load(open(sys.argv[1]))["report"]["findings"] if f["code"] == "loss_on_lossless"]))' "$tmp/lossy.json") loss_on_lossless findings, all on n2's links"
rm -rf "$tmp"
