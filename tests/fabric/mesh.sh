#!/usr/bin/env bash
# Fabric test: `rocecheck mesh` over agents in 4 guests with the verbs
# transport: a full sweep gives 12 directed results (also incast:2 and
# --bidir); a node rate-limited
# with `rocelab impair` is the slowest of its row and column; a wrong key is
# refused; a guest killed mid-sweep is reported unreachable while every
# pair without it is still measured. One boot for all of it.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
lab_up mesh 4
say "boot of 4 nodes: $BOOT_SECS s"
RCK=${ROCECHECK_BUILD_DIR:?}/tools/rocecheck
KEY=mesh-fabric-test-key-$(date +%s%N)
tmp=$(mktemp -d)
umask 077
printf '%s\n' "$KEY" >"$tmp/key"
printf 'a-wrong-key-for-the-fabric-test\n' >"$tmp/bad"

for n in n1 n2 n3 n4; do
	rx "$n" -- sh -c "umask 077; printf '%s\n' '$KEY' > /tmp/agent.key" || fail "key on $n"
	rx "$n" --bg --log /tmp/agent.log -- rocecheck -v agent --key-file /tmp/agent.key >/dev/null ||
		fail "cannot start the agent on $n"
done
listening() {
	for i in $(seq 50); do
		rx "$1" -- sh -c 'grep -q ":4862 0*:0000 0A" /proc/net/tcp /proc/net/tcp6' && return 0
		sleep 0.2
	done
	fail "agent on $1 not listening: $(rx "$1" -- cat /tmp/agent.log)"
}
for n in n1 n2 n3 n4; do listening "$n"; done

# mesh OUT ARGS...: a sweep from the host namespace, JSON in OUT, exit code in $rc.
mesh() {
	local out=$1
	shift
	"$ROCELAB" host -- sh -c "exec \"$RCK\" -t 10000 mesh --hosts \"\$ROCELAB_NODES\" -j $*" \
		>"$out" 2>"$out.err"
	rc=$?
}

# Python checks on a sweep's JSON: check FILE 'python expression over d, probes, hosts'.
check() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hosts = d["hosts"]
probes = d["probes"]
host_of = {nic["id"]: h["name"] for h in hosts for nic in h["nics"]}
def cell(p):
    return host_of[p["src"]], host_of[p["dst"]]
ok = eval(sys.argv[2])
if not ok:
    # one line per probe: what a failed check is about, never cut
    for p in probes:
        try:
            s, t = cell(p)
        except KeyError:
            s, t = p["src"], p["dst"]
        r = p["result"]
        print(s, "->", t, p["test"], r["status"], r.get("gbps"), r.get("reason"))
sys.exit(0 if ok else 1)
PY
}
N1=$(rx n1 -- sh -c 'echo $ROCELAB_ADDR')
N3=${N1%.*}.3
N4=${N1%.*}.4

# --- the full sweep over the verbs transport.
t=$(date +%s%N)
mesh "$tmp/full.json" --key-file "$tmp/key" --size 65536 --iters 50
[ "$rc" = 0 ] || fail "full sweep: exit $rc: $(cat "$tmp/full.json.err")"
check "$tmp/full.json" 'len(probes) == 12 and all(p["result"]["status"] == "ok" and p["result"]["gbps"] > 0 for p in probes) and len({cell(p) for p in probes}) == 12' ||
	fail "full sweep: not 12 measured directed pairs"
check "$tmp/full.json" 'all(n["device"].startswith("rxe") for h in hosts for n in h["nics"])' ||
	fail "full sweep: the NICs are not the guests' rxe devices"
ok "full sweep of 4 agents: 12 directed results over rxe in $(since "$t") s"

# --- incast:2: each guest receives from the next two at once.
t=$(date +%s%N)
mesh "$tmp/incast.json" --key-file "$tmp/key" --size 65536 --iters 50 --pattern incast:2
[ "$rc" = 0 ] || fail "incast:2: exit $rc: $(cat "$tmp/incast.json.err")"
check "$tmp/incast.json" 'len(probes) == 8 and all(p["result"]["status"] == "ok" and p["result"]["gbps"] > 0 for p in probes) and len({cell(p) for p in probes}) == 8' ||
	fail "incast:2: not 8 measured directed pairs"
ok "incast:2 over 4 agents: 8 directed results over rxe in $(since "$t") s"

# --- --bidir: both directions of each pair at once, 12 results in 3 steps.
t=$(date +%s%N)
mesh "$tmp/bidir.json" --key-file "$tmp/key" --size 65536 --iters 50 --bidir
[ "$rc" = 0 ] || fail "--bidir: exit $rc: $(cat "$tmp/bidir.json.err")"
check "$tmp/bidir.json" 'len(probes) == 12 and all(p["result"]["status"] == "ok" and p["result"]["gbps"] > 0 for p in probes) and len({cell(p) for p in probes}) == 12' ||
	fail "--bidir: not 12 measured directed pairs"
ok "bidirectional full mesh over 4 agents: 12 directed results over rxe in $(since "$t") s"

# --- n3 rate-limited: the slowest of its row and its column.
"$ROCELAB" impair n3 rate=5mbit || fail "impair n3"
# Probes of 320 KiB (0.5 s at 5 Mbit/s): with 2 MiB ones the peers' handshakes
# queue behind n3's bulk and time out (a known limit of the engine's waits,
# noted on issue 18), which this check is not about.
mesh "$tmp/slow.json" --key-file "$tmp/key" --size 16384 --iters 20
"$ROCELAB" impair n3 clear >/dev/null
[ "$rc" = 0 ] || fail "impaired sweep: exit $rc: $(cat "$tmp/slow.json.err")"
# Measured probes only: one can fail on a loaded TCG host (reason in the JSON).
# Under TCG one probe can be an outlier either way: n3's median is below
# every probe of the others, and the slowest probe of all is one of n3's.
check "$tmp/slow.json" "len([p for p in probes if p['result']['status'] == 'ok']) >= 10 and sorted(p['result']['gbps'] for p in probes if '$N3' in cell(p) and p['result']['status'] == 'ok')[len([p for p in probes if '$N3' in cell(p) and p['result']['status'] == 'ok']) // 2] < min(p['result']['gbps'] for p in probes if '$N3' not in cell(p) and p['result']['status'] == 'ok') and min((p['result']['gbps'], '$N3' in cell(p)) for p in probes if p['result']['status'] == 'ok')[1]" ||
	fail "impaired n3 is not the slowest in its row and column"
ok "n3 at 5 Mbit/s is the slowest of its row and column"

# --- a wrong key: refused by every agent, exit 3, nothing measured.
mesh "$tmp/bad.json" --key-file "$tmp/bad" --iters 10
[ "$rc" = 3 ] || fail "wrong key: exit $rc, not 3"
check "$tmp/bad.json" 'all("refused our key" in (h["unreachable"] or "") for h in hosts) and not probes' ||
	fail "wrong key: hosts not refused"
rx n1 -- grep -q "authentication failed" /tmp/agent.log || fail "n1's agent did not log the refused key"
ok "wrong key refused by every agent"

# --- n4 killed mid-sweep: unreachable, every pair without it measured.
(mesh "$tmp/kill.json" --key-file "$tmp/key" --size 65536 --duration 2; echo "$rc" >"$tmp/kill.rc") &
sleep 4
"$ROCELAB" kill n4 || fail "rocelab kill n4"
wait
[ "$(cat "$tmp/kill.rc")" = 3 ] || fail "sweep with n4 killed: exit $(cat "$tmp/kill.rc"): $(cat "$tmp/kill.json.err")"
check "$tmp/kill.json" "[h['unreachable'] is not None for h in hosts] == [h['name'] == '$N4' for h in hosts]" ||
	fail "n4 not (alone) unreachable"
check "$tmp/kill.json" "all(p['result']['status'] == 'ok' for p in probes if '$N4' not in cell(p)) and len([p for p in probes if '$N4' not in cell(p)]) == 6" ||
	fail "pairs without n4 not all measured"
ok "n4 killed mid-sweep: unreachable ($(python3 -c 'import json,sys; print([h["unreachable"] for h in json.load(open(sys.argv[1]))["hosts"] if h["unreachable"]][0])' "$tmp/kill.json")), the 6 other pairs measured"
rm -rf "$tmp"
