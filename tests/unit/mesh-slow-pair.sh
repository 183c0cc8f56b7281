#!/bin/bash
# rocecheck mesh --schedule agents on loopback: one slow pair costs only its
# own probe; the pairs that wait on its busy host all succeed.
. "$(dirname "$0")/agents-lib.sh"
hosts=127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4
slow=1
[ -n "$WRAP" ] && slow=5
# 127.0.0.2's agent waits 2 s (10 s under valgrind) before each probe it
# runs as a client (--test-client-delay: its queue busy, its listener not
# serving, as behind a 5 Mbit/s link with 2 MiB probes), and it runs one:
# with 127.0.0.3, first. 127.0.0.1 and 127.0.0.4 then run theirs against
# 127.0.0.2, whose only tasks after that one they are. Probes counted in
# messages wait a timeout (0.3 s) per probe ahead: both waits end long
# before 127.0.0.2 comes to them unless they start when it does.
printf '%s\n' '#!/bin/sh' 'h=$1; shift' 'echo $$ >"$T/$h.pid"' \
	'[ "$h" = 127.0.0.2 ] && exec "$@" --test-client-delay "$D"' 'exec "$@"' >"$tmp/l"
chmod +x "$tmp/l"
export T=$tmp D=$((2 * slow))
printf '%s\n' '127.0.0.2 127.0.0.3' '127.0.0.1 127.0.0.2' '127.0.0.4 127.0.0.2' '127.0.0.3 127.0.0.1' \
	>"$tmp/pairs"
t0=$(date +%s)
out=$(timeout 120 $WRAP "$RC" -t $((300 * slow)) -j mesh --hosts $hosts --launcher "$tmp/l {host} {cmd}" \
	--transport tcp --test bw --iters 20 --size 4096 --pattern pairs --pairs "$tmp/pairs" 2>"$tmp/err")
rc=$?
secs=$(( $(date +%s) - t0 ))
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "slow pair: exit $rc: $(cat "$tmp/err") $out"
id() { jq --arg h "$1" '.hosts[] | select(.name == $h) | .nics[0].id' <<<"$out"; }
h2=$(id 127.0.0.2)
h3=$(id 127.0.0.3)
total=$(jq '.probes | length' <<<"$out")
[ "$total" = 4 ] || fail "slow pair: $total cells, want 4: $out"
bad=$(jq -c --argjson a "$h2" --argjson b "$h3" \
	'[.probes[] | select((.src == $a and .dst == $b) | not) | select(.result.status != "ok") |
	  {src, dst, status: .result.status, why: .result.detail}]' <<<"$out")
[ "$bad" = "[]" ] || fail "slow pair: probes other than the slow pair's failed: $bad"
mine=$(jq -r --argjson a "$h2" --argjson b "$h3" \
	'.probes[] | select(.src == $a and .dst == $b) | .result.status' <<<"$out")
[ "$secs" -le $((30 * slow)) ] || fail "slow pair: the sweep took $secs s"
echo "ok: a slow pair ($mine) costs only its own probe: the 3 others ok, 2 of them after its busy host, $secs s"

# Its agent refuses a bad delay.
"$RC" agent --once --test-client-delay -1 >/dev/null 2>"$tmp/err" </dev/null
[ $? = 2 ] && grep -q "invalid --test-client-delay" "$tmp/err" || fail "--test-client-delay -1: $(cat "$tmp/err")"
echo "ok: a bad --test-client-delay refused"
