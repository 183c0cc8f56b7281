#!/usr/bin/env bash
# Fabric scorecard: a seeded random series of faults (node rate limit, path
# rate limit, 1% loss on a node, a port bounced during the run, a CPU hog,
# healthy) across 8 preflights on one boot of 4 guests; each must name
# exactly the injected part, and the healthy and noisy ones drain nothing.
# SCORECARD_SEED picks the series (printed); absolute rates under TCG mean
# nothing, so tcg.thresholds loosens the floors as in the other tests.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
SEED=${SCORECARD_SEED:-17}
[[ $SEED =~ ^[0-9]+$ ]] || fail "SCORECARD_SEED must be a number, got '$SEED'"
RANDOM=$SEED
say "seed $SEED (SCORECARD_SEED)"
lab_up scorecard 4 --agents
say "boot of 4 nodes with agents: $BOOT_SECS s"
RCK=${ROCECHECK_BUILD_DIR:?}/tools/rocecheck
tmp=$(mktemp -d)
cp "$HERE/tcg.thresholds" "$tmp/lab.conf"

# preflight NAME [PROBE ARGS]: JSON in $tmp/NAME.json, text in $tmp/NAME.txt,
# exit in $rc. Probes of 10 messages of 64 KiB unless told.
preflight() {
	local name=$1 t probe=${2:---iters 10}
	t=$(date +%s%N)
	timeout 200 "$ROCELAB" host -- sh -c "exec \"$RCK\" -t 20000 preflight --hosts \"\$ROCELAB_NODES\" \
		--config '$tmp/lab.conf' --size 65536 $probe --retest-passes 8 --deadline 150 --report '$tmp/$name.json'" \
		>"$tmp/$name.txt" 2>"$tmp/$name.err"
	rc=$?
	secs=$(since "$t")
	say "$name: exit $rc in $secs s: $(head -1 "$tmp/$name.txt")"
}

# check NAME 'python expression': over d (the preflight JSON), bad (degraded
# or critical findings, suspects left out), drained (host names), host().
check() {
	python3 - "$tmp/$1.json" "$2" <<'PY' || { sed 's/^/  | /' "$tmp/$1.txt"; return 1; }
import json, sys
d = json.load(open(sys.argv[1]))
r = d["report"]
bad = [f for f in r["findings"] if f["severity"] in ("degraded", "critical")
       and not f.get("suspect") and f["code"] != "drain_held"]
def host(a):  # 10.77.x.3 -> n3; n3 stays
    return ("n" + a.rsplit(".", 1)[-1] if "." in a else a) if a else None
drained = sorted({host(x["host"]) for x in r.get("drain", [])} | {host(x["host"]) for x in d.get("bad_hosts", [])})
def about(f, n):  # the finding names node n: its host, its NIC, or a link at it
    return n in (host(f.get("host")), host(f.get("peer_host")))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

# The series: every kind once, two more drawn, in a seeded order; victims drawn.
kinds=(healthy node_rate path_rate node_loss port_bounce cpu_hog)
extra=(healthy node_rate path_rate node_loss)
series=("${kinds[@]}" "${extra[RANDOM % 4]}" "${extra[RANDOM % 4]}")
for ((i = ${#series[@]} - 1; i > 0; i--)); do
	j=$((RANDOM % (i + 1)))
	x=${series[i]} series[i]=${series[j]} series[j]=$x
done
say "series: ${series[*]}"
passed=0
for ((k = 0; k < ${#series[@]}; k++)); do
	kind=${series[k]} v=n$((RANDOM % 4 + 1)) p=n$((RANDOM % 3 + 1))
	[ "${p#n}" -ge "${v#n}" ] && p=n$((${p#n} + 1))
	name=$k-$kind
	case $kind in
	healthy)
		preflight "$name"
		[ "$rc" = 0 ] || fail "$name: exit $rc, want 0: $(cat "$tmp/$name.err")"
		check "$name" 'not bad and not drained and d["timings"]["probes"] == 12' ||
			fail "$name: findings or drains on a healthy fabric (or not 12 probes)"
		ok "$name: exit 0, nothing named, nothing drained ($secs s)" ;;
	node_rate)
		"$ROCELAB" impair "$v" rate=5mbit >/dev/null || fail "impair $v rate"
		preflight "$name"
		"$ROCELAB" impair "$v" clear >/dev/null
		[ "$rc" = 1 ] || fail "$name ($v at 5 Mbit/s): exit $rc, want 1: $(cat "$tmp/$name.err")"
		check "$name" "bad and all(f['entity'] in ('nic', 'host') and host(f['host']) == '$v' for f in bad) and drained in ([], ['$v'])" ||
			fail "$name: $v not named alone (or its links listed, or another host drained)"
		ok "$name: $v at 5 Mbit/s named alone, drained: $(check "$name" "print(drained) or True") ($secs s)" ;;
	path_rate)
		"$ROCELAB" impair "$v" --to "$p" rate=5mbit >/dev/null || fail "impair $v --to $p"
		preflight "$name"
		"$ROCELAB" impair "$v" clear >/dev/null
		[ "$rc" = 1 ] || fail "$name ($v -> $p at 5 Mbit/s): exit $rc, want 1: $(cat "$tmp/$name.err")"
		check "$name" "bad and all(f['entity'] == 'link' and host(f['host']) == '$v' and host(f['peer_host']) == '$p' for f in bad) and not drained" ||
			fail "$name: not exactly the link $v -> $p, or a host drained"
		check "$name" 'd["timings"]["retests"] >= 1' || fail "$name: the link was never retested"
		ok "$name: exactly the link $v -> $p, nothing drained ($secs s)" ;;
	node_loss)
		"$ROCELAB" impair "$v" loss=1 >/dev/null || fail "impair $v loss"
		preflight "$name"
		"$ROCELAB" impair "$v" clear >/dev/null
		[ "$rc" = 1 ] || fail "$name (1% loss on $v): exit $rc, want 1: $(cat "$tmp/$name.err")"
		check "$name" "[f for f in bad if f['code'] == 'loss_on_lossless'] and all(about(f, '$v') for f in bad) and drained in ([], ['$v'])" ||
			fail "$name: loss not named on $v alone, or another host drained"
		ok "$name: 1% loss on $v named on $v only ($secs s)" ;;
	port_bounce)
		# The port goes down (qemu set_link off: the guest's carrier, rxe
		# counts link_downed) for 2 s while the probes run, and comes back.
		# Probes of 10 messages last 0.05 s and the sweep 1 s, after 1.5 to
		# 5 s of setup: probes of 2 s make it 12 s, and 6 s in falls inside.
		# rxe fails the probe that meets the fall (retry exceeded); its
		# retest passes, and the counters the failed probe still read
		# show v's link_downed. So a fall that met a probe of v must name
		# v's port (error_counter); the run must never name or drain
		# another part.
		( sleep 6; "$ROCELAB" impair "$v" down >/dev/null; sleep 2; "$ROCELAB" impair "$v" up >/dev/null ) &
		bouncer=$!
		preflight "$name" "--duration 2"
		wait "$bouncer"
		"$ROCELAB" impair "$v" up >/dev/null 2>&1
		check "$name" "all(about(f, '$v') for f in bad) and drained in ([], ['$v'])" ||
			fail "$name: a part other than $v named or drained"
		met="$(check "$name" "print(sum(1 for p in d['mesh']['probes'] if p['result']['status'] != 'ok' and
			'$v' in [host(x['name']) for x in d['mesh']['hosts'] if {n['id'] for n in x['nics']} & {p['src'], p['dst']}])) or True")"
		[ "${met:-0}" = 0 ] || check "$name" "[f for f in bad if f['code'] == 'error_counter' and host(f['host']) == '$v']" ||
			fail "$name: $met probes of $v failed as its port fell, but its port (link_downed) was not named"
		if check "$name" "bad" >/dev/null; then seen="named: $(check "$name" "print(sorted({f['code'] for f in bad})) or True") after $met failed probes"
		else seen="not seen (the fall missed the probes)"; fi
		ok "$name: $v's port bounced: exit $rc, $seen, nothing else named ($secs s)" ;;
	cpu_hog)
		# A busy loop in the guest (bounded by timeout), its pid kept to end it.
		rx "$v" --bg -- sh -c 'echo $$ >/tmp/hog.pid; exec timeout 300 sh -c "while :; do :; done"' >/dev/null ||
			fail "cannot start the CPU hog on $v"
		preflight "$name"
		rx "$v" -t 20 -- sh -c 'kill "$(cat /tmp/hog.pid)"' || fail "cannot stop the CPU hog on $v"
		[ "$rc" = 0 ] || [ "$rc" = 3 ] || [ "$rc" = 1 ] || fail "$name: exit $rc: $(cat "$tmp/$name.err")"
		check "$name" 'not drained' || fail "$name: a host drained under a CPU hog on $v"
		ok "$name: CPU hog on $v: exit $rc, nothing drained ($secs s)" ;;
	esac
	passed=$((passed + 1))
done
ok "scorecard: $passed of ${#series[@]} preflights named exactly the injected part (seed $SEED)"
rm -rf "$tmp"
