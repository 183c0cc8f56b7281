#!/usr/bin/env bash
# examples/preflight.c built against the installed library, run on loopback
# agents (127.0.0.1-3, started through a launcher template, TCP probes):
# progress lines, a healthy verdict, exit 0; no hosts: exit 2 with usage.
set -u
build=$1
out=$(mktemp -d /tmp/rck-example.XXXXXX)
trap 'rm -rf "$out"' EXIT
bash "$(dirname "$0")/build-example.sh" "$build" "$out" || exit 1
# The launcher starts the built tool's `agent --once` as each "host".
export PATH="$build/tools:$PATH"
timeout 120 "$out/run" --tcp --size 4096 --iters 20 --timeout 20000 --launcher 'env H={host} {cmd}' \
	127.0.0.1,127.0.0.2,127.0.0.3 >"$out/stdout" 2>"$out/stderr"
rc=$?
fail() { echo "FAIL: $*"; sed 's/^/  | /' "$out/stdout" "$out/stderr"; exit 1; }
# Loopback rates vary a lot (too noisy to judge: exit 3, inconclusive);
# only exit 2 (could not run) is wrong here.
[ $rc = 0 ] || [ $rc = 1 ] || [ $rc = 3 ] || fail "exit $rc"
grep -q '^verdict: ' "$out/stdout" || fail "no verdict line"
grep -q '^summary: 3 hosts, 6 probes' "$out/stdout" || fail "summary: $(grep summary "$out/stdout")"
grep -q '^progress: sweep [0-9]*/6 probes' "$out/stderr" || fail "no sweep progress"
grep -q '^progress: done ' "$out/stderr" || fail "no done progress"
"$out/run" >/dev/null 2>"$out/usage"
[ $? = 2 ] && grep -q '^usage: ' "$out/usage" || fail "no hosts: not exit 2 with usage"
echo "ok: example built against the installed library ran a preflight: $(grep '^verdict' "$out/stdout"), $(grep -c '^progress' "$out/stderr") progress lines"
