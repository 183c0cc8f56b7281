#!/usr/bin/env bash
# Fabric test: `rocelab up --agents --ssh` — an agent with the lab's key in
# every guest, `rocelab host -- rocecheck mesh --hosts "$ROCELAB_NODES"` as
# is, a wrong key refused, agents started over the lab's ssh by the launch API.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
RC=${BUILD_DIR:+$BUILD_DIR/tools/rocecheck}
[ -n "$RC" ] && [ -x "$RC" ] || need "no rocecheck build (ROCECHECK_BUILD_DIR)"
"$RC" agent --help >/dev/null 2>&1 || need "$RC has no agent command"
command -v dropbear >/dev/null || need "dropbear not found (dropbear-bin)"
LAUNCH_RUN=${LAUNCH_RUN:-$BUILD_DIR/tests/fabric/launch-run}
TMPD=$(mktemp -d)
lab_up agents 2 --agents --ssh
L=$ROCELAB
say "booted 2 nodes with agents and ssh in $BOOT_SECS s"

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

# --- rocecheck mesh with the defaults rocelab host exports.
t=$(date +%s%N)
out=$("$L" host -- sh -c 'exec "$0" -j mesh --hosts "$ROCELAB_NODES" --iters 50 --size 4096' "$RC" 2>"$TMPD/err") ||
	fail "mesh over the lab's agents: $(cat "$TMPD/err") $out"
n_ok=$(jq '[.. | objects | select(has("status")) | select(.status == "ok")] | length' <<<"$out")
say "mesh over 2 agents in $(since "$t") s: $n_ok ok results"
((n_ok >= 2)) || fail "mesh: fewer than 2 ok results: $out"
ok "rocelab host -- rocecheck mesh --hosts \"\$ROCELAB_NODES\": $n_ok ok probes"

# --- a wrong key is refused.
(umask 077 && echo 0123456789abcdef0123456789abcdef >"$TMPD/wrong.key")
out=$("$L" host -- sh -c 'exec "$0" mesh --hosts "$ROCELAB_NODES" --iters 10 --key-file "$1"' "$RC" "$TMPD/wrong.key" 2>&1) &&
	fail "mesh with a wrong key succeeded: $out"
grep -q 'refused our key' <<<"$out" || fail "wrong key: $out"
ok "a wrong key is refused ($(grep -c 'refused our key' <<<"$out") hosts)"

# --- agents started over ssh by the launch API: rocecheck agent --once.
if [ -x "$LAUNCH_RUN" ]; then
	out=$("$L" host -- sh -c 'exec "$0" "ssh -F $ROCELAB_SSH_CONFIG {host}" 60000 $ROCELAB_NODES -- rocecheck agent --once --idle 5' \
		"$LAUNCH_RUN" 2>&1) || fail "launch over ssh: $out"
	say "launch over ssh: $(tr '\n' ';' <<<"$out")"
	[ "$(grep -cE '^[0-9.]+ ready [0-9]+ [0-9a-f]{32} ' <<<"$out")" = 2 ] || fail "launch over ssh: $out"
	ok "rocecheck agent --once on both guests over ssh: PORT TOKEN read, stopped"
fi

# --- rocecheck mesh --launcher ssh, where the tool has it.
if "$RC" mesh --help 2>&1 | grep -q -- '--launcher'; then
	out=$("$L" host -- sh -c 'exec "$0" -j mesh --hosts "$ROCELAB_NODES" --launcher ssh --iters 50 --size 4096' "$RC" 2>"$TMPD/err") ||
		fail "mesh --launcher ssh: $(cat "$TMPD/err") $out"
	n_ok=$(jq '[.. | objects | select(has("status")) | select(.status == "ok")] | length' <<<"$out")
	((n_ok >= 2)) || fail "mesh --launcher ssh: $out"
	ok "rocecheck mesh --launcher ssh over the lab's ssh: $n_ok ok probes"
else
	say "rocecheck mesh has no --launcher yet: that part is skipped"
fi
rm -rf "$TMPD"
