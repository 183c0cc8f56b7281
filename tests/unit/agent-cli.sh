#!/usr/bin/env bash
# `rocecheck agent` and `rocecheck mesh` on loopback (TCP transport): key
# file checks, the --once PORT TOKEN flow, a 3-agent sweep validated against
# schemas/mesh.schema.json, a wrong key (its systemd unit: systemd-units.sh).
set -u
rck=${ROCECHECK:?ROCECHECK not set}
src=$(cd "$(dirname "$0")/../.." && pwd)
fails=0 n=0
tmp=$(mktemp -d)
pids=()
cleanup() {
	# Only the script itself: a job forked by it and killed before its exec
	# would run this trap too (bash runs the EXIT trap on a fatal signal).
	[ "$BASHPID" = "$$" ] || return 0
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

check() { # check NAME COND-EXIT-STATUS
	n=$((n + 1))
	if [ "$2" -ne 0 ]; then
		echo "FAIL: $1"
		fails=$((fails + 1))
	else
		echo "ok: $1"
	fi
}

. "$(dirname "$0")/free-port.sh"

printf 'agent-cli-test-key-0123456789\n' >"$tmp/key"
chmod 600 "$tmp/key"
printf 'another-key-altogether-98765\n' >"$tmp/bad"
chmod 600 "$tmp/bad"

# Key files readable by others are refused, naming the file.
cp "$tmp/key" "$tmp/open"
chmod 644 "$tmp/open"
out=$("$rck" agent --key-file "$tmp/open" --listen 127.0.0.1:0 2>&1)
rc=$?
[ $rc -eq 1 ] && grep -q "open: mode 0644" <<<"$out"
check "group-readable key file refused ($rc: $out)" $?
"$rck" agent --listen nonsense:x >/dev/null 2>&1
check "bad --listen is a usage error" $(( $? != 2 ))
"$rck" agent --once --key-file "$tmp/key" >/dev/null 2>&1
check "--once with --key-file is a usage error" $(( $? != 2 ))

# --once: PORT TOKEN on stdout, exit 3 when nobody comes within --idle.
line=$(timeout 10 "$rck" agent --once --listen 127.0.0.1:0 --idle 0.5)
rc=$?
[ $rc -eq 3 ] && [[ $line =~ ^[0-9]+\ [0-9a-f]{32}$ ]]
check "--once prints PORT TOKEN and gives up when idle ($rc: $line)" $?

# --once serves a coordinator proving the token: the token is the key.
timeout 20 "$rck" agent --once --listen 127.0.0.1:0 --idle 10 >"$tmp/once.out" &
once=$!
for _ in $(seq 50); do [ -s "$tmp/once.out" ] && break; sleep 0.1; done
read -r oport otoken <"$tmp/once.out"
printf '%s' "$otoken" >"$tmp/token"
chmod 600 "$tmp/token"
port=$(free_port)
"$rck" agent --listen "127.0.0.1:$port" --key-file "$tmp/token" 2>/dev/null &
pids+=($!)
sleep 0.3
timeout 30 "$rck" -t 3000 mesh --hosts "127.0.0.1:$oport,127.0.0.1:$port" --transport tcp \
	--iters 20 --key-file "$tmp/token" >"$tmp/once.txt" 2>&1
check "a sweep through a --once agent ($(tr '\n' ' ' <"$tmp/once.txt"))" $?
wait "$once"
check "the --once agent exits after its session" $?

# Three agents with the key; a full sweep: 6 directed results, valid JSON.
ports=()
for i in 1 2 3; do
	p=$(free_port)
	"$rck" agent --listen "127.0.0.1:$p" --key-file "$tmp/key" 2>/dev/null &
	pids+=($!)
	ports+=("$p")
done
sleep 0.3
hosts=$(IFS=,; echo "${ports[*]/#/127.0.0.1:}")
timeout 60 "$rck" -t 3000 mesh --hosts "$hosts" --transport tcp --iters 50 --test bw,lat \
	--key-file "$tmp/key" --output "$tmp/mesh.json" --heatmap "$tmp/mesh.svg" -j >"$tmp/stdout.json" \
	2>"$tmp/err"
check "sweep of 3 agents ($(cat "$tmp/err"))" $?
python3 - "$tmp/mesh.json" "$src/schemas/mesh.schema.json" <<'PY'
import json, sys, jsonschema
doc, schema = (json.load(open(p)) for p in sys.argv[1:3])
jsonschema.validate(doc, schema)
probes = doc["probes"]
assert len(probes) == 12, len(probes)
assert all(p["result"]["status"] == "ok" for p in probes), probes
PY
check "6 directed pairs x 2 tests, all ok, schema-valid" $?
cmp -s "$tmp/mesh.json" "$tmp/stdout.json"
check "--output holds what -j printed" $?
python3 -c '
import sys, xml.etree.ElementTree as ET
texts = ["".join(t.itertext()) for t in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}text")]
assert any("6 ok, 0 failed" in t for t in texts), texts
' "$tmp/mesh.svg"
check "--heatmap drew the bandwidth matrix of the sweep" $?

# ROCECHECK_KEY_FILE is the default key; a wrong key: every host unreachable.
ROCECHECK_KEY_FILE="$tmp/bad" timeout 30 "$rck" -t 2000 mesh --hosts "$hosts" --transport tcp \
	--iters 10 -j >"$tmp/bad.json" 2>/dev/null
rc=$?
[ $rc -eq 3 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert all("refused our key" in h["unreachable"] for h in d["hosts"]), d["hosts"]
assert all(p["result"]["status"] == "unreachable" for p in d["probes"])' "$tmp/bad.json"
check "a wrong key (from ROCECHECK_KEY_FILE): hosts unreachable, exit 3 ($rc)" $?

# The probe listener with the same key file: right key, wrong key, none.
port=$(free_port)
"$rck" probe --listen --transport tcp --bind 127.0.0.1 --port "$port" --key-file "$tmp/key" \
	--sessions 1 >/dev/null 2>"$tmp/psrv.err" &
pids+=($!)
sleep 0.3
"$rck" probe 127.0.0.1 --port "$port" --transport tcp --key-file "$tmp/bad" --iters 10 >/dev/null 2>"$tmp/p.err"
rc=$?
[ $rc -eq 3 ] && grep -q "refused our key" "$tmp/p.err"
check "probe with a wrong key: exit 3, refused ($rc: $(cat "$tmp/p.err"))" $?
"$rck" probe 127.0.0.1 --port "$port" --transport tcp --iters 10 >/dev/null 2>"$tmp/p.err"
rc=$?
[ $rc -eq 3 ] && grep -q "wants a key" "$tmp/p.err"
check "probe without a key against a keyed listener: exit 3 ($rc: $(cat "$tmp/p.err"))" $?
"$rck" probe 127.0.0.1 --port "$port" --transport tcp --qps 2 --key-file "$tmp/key" --iters 50 >/dev/null 2>"$tmp/p.err"
check "probe with the key, 2 TCP streams ($(cat "$tmp/p.err"))" $?

# mesh --dcb: one agent answers from a recorded state (--dcb-file), one
# reads this machine; the result keeps both, schema-valid.
dports=()
for f in "${ROCECHECK_FIXTURES:?}/dcb/state-default.json" ""; do
	p=$(free_port)
	"$rck" agent --listen "127.0.0.1:$p" --key-file "$tmp/key" ${f:+--dcb-file "$f"} 2>/dev/null &
	pids+=($!)
	dports+=("$p")
done
sleep 0.3
hosts=$(IFS=,; echo "${dports[*]/#/127.0.0.1:}")
timeout 60 "$rck" -t 3000 mesh --hosts "$hosts" --transport tcp --iters 10 --dcb \
	--key-file "$tmp/key" -j >"$tmp/dcb.json" 2>"$tmp/dcb.err"
check "mesh --dcb sweep ($(cat "$tmp/dcb.err"))" $?
python3 - "$tmp/dcb.json" "$src/schemas/mesh.schema.json" <<'PY'
import json, sys, jsonschema
doc, schema = (json.load(open(p)) for p in sys.argv[1:3])
jsonschema.validate(doc, schema)
rec = [x for x in doc["hosts"] if x["dcb"]["ports"] and x["dcb"]["ports"][0]["interface"] == "dcbtest0"]
assert len(rec) == 1, doc["hosts"]
assert rec[0]["dcb"]["ports"][0]["trust"]["mode"] == "dscp", rec[0]
assert all("dcb" in x and x["dcb"]["error"] is None for x in doc["hosts"]), doc["hosts"]
PY
check "mesh --dcb: the recorded host's state kept, the other host's read" $?
"$rck" agent --dcb-file "$tmp/nonexistent" >/dev/null 2>"$tmp/df.err"
rc=$?
[ $rc -eq 2 ] && grep -q "invalid --dcb-file" "$tmp/df.err"
check "agent --dcb-file missing: exit 2 ($rc: $(cat "$tmp/df.err"))" $?

# Idle peers at the door, then SIGTERM: the agent ends within a second.
p=$(free_port)
"$rck" agent --listen "127.0.0.1:$p" --key-file "$tmp/key" 2>/dev/null &
ag=$!
pids+=($ag)
p2=$(free_port)
"$rck" agent --listen "127.0.0.1:$p2" --key-file "$tmp/key" 2>/dev/null &
pids+=($!)
sleep 0.3
exec 7<>"/dev/tcp/127.0.0.1/$p" 8<>"/dev/tcp/127.0.0.1/$p" 9<>"/dev/tcp/127.0.0.1/$p"
# A coordinator gets in past them.
timeout 20 "$rck" -t 3000 mesh --hosts "127.0.0.1:$p,127.0.0.1:$p2" --transport tcp --iters 20 \
	--key-file "$tmp/key" >"$tmp/door.txt" 2>&1
rc=$?
[ $rc -eq 0 ]
check "three idle connections: the coordinator is served ($rc: $(tr '\n' ' ' <"$tmp/door.txt" | head -c 300))" $?
t0=$(date +%s%N)
kill -TERM "$ag"
for _ in $(seq 40); do kill -0 "$ag" 2>/dev/null || break; sleep 0.05; done
t1=$(date +%s%N)
! kill -0 "$ag" 2>/dev/null && [ $(( (t1 - t0) / 1000000 )) -lt 1000 ]
check "SIGTERM with peers waiting at the door: gone in $(( (t1 - t0) / 1000000 )) ms" $?
exec 7>&- 8>&- 9>&-
# No key: a warning that any peer can make the host probe; --insecure: none.
p=$(free_port)
timeout 1 "$rck" agent --listen "127.0.0.1:$p" 2>"$tmp/nokey.err"
grep -q "warning: no --key-file: any peer" "$tmp/nokey.err"
check "an agent without a key warns" $?
p=$(free_port)
timeout 1 "$rck" agent --listen "127.0.0.1:$p" --insecure 2>"$tmp/nokey.err"
# The warning alone is checked: a slow start (ASan) may add other lines.
! grep -q "warning: no --key-file" "$tmp/nokey.err"
check "--insecure: no warning ($(head -c 200 "$tmp/nokey.err"))" $?
# Without -v, as sshd and slurmd: one line when it listens, one per failed
# authentication with the peer's address (at most 10 a minute, then one
# line saying the rest are counted); the command line reads as typed in ps
# (parsing "-t" once left "-" in /proc/PID/cmdline).
p=$(free_port) q=$(free_port)
"$rck" agent --listen "127.0.0.1:$p" -t 5000 --key-file "$tmp/key" 2>"$tmp/log.err" &
ag=$!
for _ in $(seq 50); do grep -q "listening on port" "$tmp/log.err" && break; sleep 0.1; done
cmdline=$(tr '\0' ' ' <"/proc/$ag/cmdline")
[ "$cmdline" = "$rck agent --listen 127.0.0.1:$p -t 5000 --key-file $tmp/key " ]
check "ps shows the agent as typed ($cmdline)" $?
for _ in $(seq 12); do
	timeout 20 "$rck" -t 2000 mesh --hosts "127.0.0.1:$p,127.0.0.1:$q" --transport tcp --iters 10 \
		--key-file "$tmp/bad" >/dev/null 2>&1
done
sleep 0.2
kill "$ag" && wait "$ag"
grep -qx "rocecheck: agent: listening on port $p at 127.0.0.1 (peers must prove the key)" "$tmp/log.err"
check "the listen line without -v ($(head -1 "$tmp/log.err"))" $?
[ "$(grep -cE "^rocecheck: agent: authentication failed from 127\.0\.0\.1 port [0-9]+: wrong key$" "$tmp/log.err")" = 10 ] &&
	grep -q "^rocecheck: agent: 10 failed authentications in 60 s: the next are counted, not logged$" "$tmp/log.err" &&
	[ "$(wc -l <"$tmp/log.err")" = 12 ]
check "failed authentications: 10 lines with the peer, then one saying the rest are counted ($(cat "$tmp/log.err"))" $?
"$rck" agent --key-file "$tmp/key" --key-file "$tmp/bad" --key-file "$tmp/key" >/dev/null 2>&1
check "a third key is a usage error" $(( $? != 2 ))

echo "$((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
