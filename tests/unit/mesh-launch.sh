#!/usr/bin/env bash
# rocecheck mesh --launcher on loopback (TCP probes): two agents started
# with --once through a template, their PORT TOKEN used; a host whose
# launcher fails is unreachable with the launcher's reason; bad launchers
# are refused with exit 2.
set -u
RC=${ROCECHECK:?ROCECHECK not set}
WRAP=${ROCECHECK_WRAP:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# The template runs the agent here; rocecheck must be on PATH for {cmd}.
export PATH=${RC%/*}:$PATH

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
