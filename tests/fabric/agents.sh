#!/usr/bin/env bash
# Fabric test: `rocelab up --rails 2 --agents --ssh` — an agent with the
# lab's key in every guest, `rocelab host -- rocecheck mesh --hosts
# "$ROCELAB_NODES"` as is (rail with rail), a wrong key refused, agents
# started over the lab's ssh by the launch API.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
RC=${BUILD_DIR:+$BUILD_DIR/tools/rocecheck}
[ -n "$RC" ] && [ -x "$RC" ] || need "no rocecheck build (ROCECHECK_BUILD_DIR)"
"$RC" agent --help >/dev/null 2>&1 || need "$RC has no agent command"
command -v dropbear >/dev/null || need "dropbear not found (dropbear-bin)"
LAUNCH_RUN=${LAUNCH_RUN:-$BUILD_DIR/tests/fabric/launch-run}
TMPD=$(mktemp -d)
lab_up agents 2 --rails 2 --agents --ssh
L=$ROCELAB
say "booted 2 nodes x 2 rails with agents and ssh in $BOOT_SECS s"

# "rxe0-rxe0 ok" per probe of a mesh result: which device sent to which, and
# how it went (the reason of the first one that failed in FIRST_FAIL).
probe_pairs() {
	jq -r '([.hosts[].nics[] | {key: (.id | tostring), value: .device}] | from_entries) as $d
		| .probes[] | "\($d[.src | tostring])-\($d[.dst | tostring]) \(.result.status)"' | sort | uniq -c |
		awk '{ printf "%s%s %s x%s", sep, $2, $3, $1; sep = ", " }'
}
first_fail() { jq -r '[.probes[].result | select(.status != "ok") | .reason][0] // ""'; }

# --- the key: 0600 on the host, the same bytes 0600 in every guest.
kf=$("$L" host -- sh -c 'echo "$ROCECHECK_KEY_FILE"')
[ -f "$kf" ] && [ "$(stat -c '%a %U' "$kf")" = "600 root" ] || fail "key file '$kf': $(ls -l "$kf" 2>&1)"
for n in n1 n2; do
	g=$(rx "$n" -- sh -c 'stat -c "%a" /etc/rocelab/agent.key; cat /etc/rocelab/agent.key') || fail "$n: no key"
	[ "$g" = "600"$'\n'"$(cat "$kf")" ] || fail "$n: key differs or is not 0600"
	rx "$n" -- pgrep -f 'rocecheck agent --listen 0.0.0.0:18530' >/dev/null || fail "$n: no agent running"
done
grep -q 'agents on port 18530, ssh' <<<"$("$L" status --name "$ROCELAB_NAME")" || fail "status does not show agents and ssh"
ok "agent key 0600 in the lab's state and in both guests; agents listening on 18530"

# --- rocecheck mesh with the defaults rocelab host exports, on rxe0.
t=$(date +%s%N)
out=$("$L" host -- sh -c 'exec "$0" -j mesh --hosts "$ROCELAB_NODES" -d rxe0 --iters 50 --size 4096' "$RC" 2>"$TMPD/err") ||
	fail "mesh over the lab's agents: $(cat "$TMPD/err") $(probe_pairs <<<"$out") ($(first_fail <<<"$out"))"
pairs=$(probe_pairs <<<"$out")
say "mesh -d rxe0 over 2 agents in $(since "$t") s: $pairs"
[ "$pairs" = "rxe0-rxe0 ok x2" ] || fail "mesh -d rxe0: probes $pairs ($(first_fail <<<"$out"))"
ok "rocelab host -- rocecheck mesh --hosts \"\$ROCELAB_NODES\" (key and port from rocelab host): $pairs"

# --- both rails: the sweep pairs rail with rail (--rails same, the default).
# Which probes are planned is the lab's and the planner's part; how they end
# (two probes at once on each agent) is reported.
t=$(date +%s%N)
out=$("$L" host -- sh -c 'exec "$0" -j mesh --hosts "$ROCELAB_NODES" --iters 50 --size 4096' "$RC" 2>"$TMPD/err")
pairs=$(probe_pairs <<<"$out")
say "mesh on 2 rails in $(since "$t") s: $pairs ($(first_fail <<<"$out"))"
[ "$(sed 's/ [a-z]* x/ x/g' <<<"$pairs")" = "rxe0-rxe0 x2, rxe1-rxe1 x2" ] ||
	fail "mesh on 2 rails: probes $pairs, want rxe0-rxe0 x2, rxe1-rxe1 x2"
ok "2 guests x 2 rails: rail with rail ($pairs)"

# --- a wrong key is refused.
(umask 077 && echo 0123456789abcdef0123456789abcdef >"$TMPD/wrong.key")
out=$("$L" host -- sh -c 'exec "$0" mesh --hosts "$ROCELAB_NODES" --iters 10 --key-file "$1"' "$RC" "$TMPD/wrong.key" 2>&1) &&
	fail "mesh with a wrong key succeeded: $out"
grep -q 'refused our key' <<<"$out" || fail "wrong key: $out"
ok "a wrong key is refused ($(grep -c 'refused our key' <<<"$out") hosts)"

# left_agents PATTERN: 0 once no process matching PATTERN runs in either
# guest (5 s at most), else 1 with LEFT naming where.
left_agents() {
	local i n
	for i in $(seq 10); do
		LEFT=
		for n in n1 n2; do
			rx "$n" -- pgrep -f "$1" >/dev/null 2>&1
			case $? in
			0) LEFT="$LEFT $n" ;;
			1) ;;
			*) LEFT="$LEFT $n (pgrep failed)" ;;
			esac
		done
		[ -z "$LEFT" ] && return 0
		sleep 0.5
	done
	return 1
}

# --- agents started over ssh by the launch API: rocecheck agent --once.
if [ -x "$LAUNCH_RUN" ]; then
	out=$("$L" host -- sh -c 'exec "$0" "ssh -F $ROCELAB_SSH_CONFIG {host}" 60000 $ROCELAB_NODES -- rocecheck agent --once --idle 5' \
		"$LAUNCH_RUN" 2>&1) || fail "launch over ssh: $out"
	say "launch over ssh: $(tr '\n' ';' <<<"$out")"
	[ "$(grep -cE '^[0-9.]+ ready [0-9]+ [0-9a-f]{32} ' <<<"$out")" = 2 ] || fail "launch over ssh: $out"
	ok "rocecheck agent --once on both guests over ssh: PORT TOKEN read, stopped"
	# Control: without --lifeline those agents wait out their 5 s idle time.
	if rx n1 -- pgrep -f 'agent --once --idle 5' >/dev/null 2>&1; then
		say "control: agents without --lifeline still run on n1 after the launcher stopped"
	else
		say "control: no agent without --lifeline seen on n1 (already past its idle time?)"
	fi
	# With --lifeline, agents that never had a session end when the
	# launcher closes their standard input (ssh passes the end of file on),
	# not after their 60 s idle time.
	out=$("$L" host -- sh -c 'exec "$0" "ssh -F $ROCELAB_SSH_CONFIG {host}" 60000 $ROCELAB_NODES -- rocecheck agent --once --lifeline --idle 60' \
		"$LAUNCH_RUN" 2>&1) || fail "launch over ssh with --lifeline: $out"
	[ "$(grep -cE '^[0-9.]+ ready [0-9]+ [0-9a-f]{32} ' <<<"$out")" = 2 ] || fail "launch over ssh with --lifeline: $out"
	left_agents 'agent --once --lifeline --idle 60' ||
		fail "agents with --lifeline still run 5 s after the launcher stopped: $LEFT"
	ok "agents started over ssh with --lifeline and never used are gone once the launcher stopped"
fi

# --- rocecheck mesh --launcher ssh, where the tool has it.
if "$RC" mesh --help 2>&1 | grep -q -- '--launcher'; then
	out=$("$L" host -- sh -c 'exec "$0" -j mesh --hosts "$ROCELAB_NODES" --launcher ssh -d rxe0 --iters 50 --size 4096' \
		"$RC" 2>"$TMPD/err") || fail "mesh --launcher ssh: $(cat "$TMPD/err") $(probe_pairs <<<"$out") ($(first_fail <<<"$out"))"
	pairs=$(probe_pairs <<<"$out")
	[ "$pairs" = "rxe0-rxe0 ok x2" ] || fail "mesh --launcher ssh: probes $pairs ($(first_fail <<<"$out"))"
	left_agents 'rocecheck agent --once --lifeline' ||
		fail "agents of mesh --launcher ssh still run 5 s after the sweep:$LEFT"
	ok "rocecheck mesh --launcher ssh over the lab's ssh: $pairs; no agent left on the guests"
else
	say "rocecheck mesh has no --launcher yet: that part is skipped"
fi
rm -rf "$TMPD"
