#!/usr/bin/env bash
# rocecheck mesh --launcher on loopback (TCP probes): two agents started
# with --once through a template, their PORT TOKEN used; a host whose
# launcher fails is unreachable with the launcher's reason; bad launchers
# are refused with exit 2.
. "$(dirname "$0")/agents-lib.sh"

out=$($WRAP "$RC" -j mesh --hosts 127.0.0.1,localhost --launcher 'env H={host} {cmd}' \
	--transport tcp --iters 10 --size 1024 2>"$tmp/err") || fail "mesh --launcher: $(cat "$tmp/err") $out"
n=$(jq '[.probes[] | select(.result.status == "ok")] | length' <<<"$out")
[ "$n" = 2 ] || fail "mesh --launcher: $n ok probes, want 2: $out"
echo "ok: two agents started through a template, 2 ok probes"

# A launcher that exits 1 for one host: that host unreachable with its stderr.
printf '%s\n' '#!/bin/sh' 'h=$1; shift' 'if [ "$h" = bad ]; then echo "no route to $h" >&2; exit 1; fi' 'exec "$@"' >"$tmp/l"
chmod +x "$tmp/l"
out=$($WRAP "$RC" -j mesh --hosts 127.0.0.1,bad --launcher "$tmp/l {host}" --transport tcp --iters 10 2>"$tmp/err")
rc=$?
[ "$rc" = 3 ] || fail "one host unreachable: exit $rc, want 3: $(cat "$tmp/err")"
r=$(jq -r '.hosts[] | select(.name == "bad") | .unreachable' <<<"$out")
[[ $r == *"exit status 1"*"no route to bad"* ]] || fail "unreachable reason: $r"
echo "ok: a host whose launcher fails is unreachable: $r"

for l in rsh 'ssh -F x' "ssh '{host}"; do
	$WRAP "$RC" mesh --hosts a,b --launcher "$l" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] || fail "--launcher '$l': exit $rc, want 2"
	grep -q "invalid --launcher" "$tmp/err" || fail "--launcher '$l': $(cat "$tmp/err")"
done
echo "ok: bad launchers refused with exit 2"

# Agents the launcher's signals cannot reach (their own session, as on the
# far side of ssh) end with the sweep: the two swept close their session;
# the third (its PORT line rewritten to port 1, so no coordinator reaches
# it) reads the end of its standard input (--lifeline) when rocecheck
# closes the pipe, long before its 60 s idle time.
export T=$tmp
printf '%s\n' '#!/bin/sh' 'h=$1; shift' 'if [ "$h" = 127.0.0.3 ]; then' \
	'	setsid -w sh -c '\''echo $$ >"$0"; exec "$@"'\'' "$T/$h.pid" "$@" | { read -r _ tok; echo "1 $tok"; cat; }' \
	'else' \
	'	exec setsid -w sh -c '\''echo $$ >"$0"; exec "$@"'\'' "$T/$h.pid" "$@"' \
	'fi' >"$tmp/detach"
chmod +x "$tmp/detach"
t0=$(date +%s%N)
out=$(timeout 60 $WRAP "$RC" -j mesh --hosts 127.0.0.1,localhost,127.0.0.3 --launcher "$tmp/detach {host} {cmd}" \
	--transport tcp --iters 10 --size 1024 2>"$tmp/err")
rc=$?
[ "$rc" = 3 ] || fail "detached agents: exit $rc, want 3 (one unreachable): $(cat "$tmp/err")"
n=$(jq '[.probes[] | select(.result.status == "ok")] | length' <<<"$out")
[ "$n" = 2 ] || fail "detached agents: $n ok probes, want 2"
for h in 127.0.0.1 localhost 127.0.0.3; do
	[ -s "$tmp/$h.pid" ] || fail "detached agent on $h never started"
	pid=$(cat "$tmp/$h.pid")
	for _ in $(seq 30); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
	[ -d "/proc/$pid" ] && fail "agent $pid of $h still runs 3 s after the sweep: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
done
echo "ok: detached agents exit with the sweep, one without a session (--lifeline), $(( ($(date +%s%N) - t0) / 1000000 )) ms in all"
