#!/usr/bin/env bash
# The loopback case of a new user: four agents on loopback, TCP probes of
# 1 s and 0.5 s, default thresholds: no drain, or one its retests confirm.
. "$(dirname "$0")/agents-lib.sh"

printf '#!/bin/sh\necho "$@" >>"%s"\n' "$tmp/drained" >"$tmp/drain"
chmod +x "$tmp/drain"
# Default thresholds but a short budget for sweeps again after noise.
printf 'noise_budget_s = 15\n' >"$tmp/budget.conf"
for d in 1 0.5; do
	rm -f "$tmp/drained"
	out=$(timeout 100 $WRAP "$RC" -j preflight --hosts '127.0.0.[1-4]' --launcher 'env H={host} {cmd}' \
		--transport tcp --duration "$d" --config "$tmp/budget.conf" --drain-cmd "$tmp/drain {host}" 2>"$tmp/err")
	rc=$?
	case $rc in 0|1|3) ;; *) fail "--duration $d: exit $rc: $(cat "$tmp/err")";; esac
	python3 -c '
import json, os, sys
d = json.loads(sys.stdin.read())
rc, drained = int(sys.argv[1]), sys.argv[2]
want = {0: "healthy", 1: "degraded", 3: "inconclusive"}[rc]
assert d["verdict"] == want, (d["verdict"], want)
ran = open(drained).read().split() if os.path.exists(drained) else []
bad = [b["host"] for b in d["bad_hosts"]]
assert sorted(ran) == sorted(bad), (ran, bad)
if d["verdict"] != "degraded":
    assert not bad, bad
# Every drained host rests on a confirmed finding whose retests agree.
for h in bad:
    fs = [f for f in d["report"]["findings"] if f["host"] == h and
          f["severity"] in ("degraded", "critical") and not f.get("suspect")]
    assert fs, (h, d["report"]["findings"])
    for f in fs:
        if f["code"] in ("nic_degraded", "host_degraded"):
            assert f["values"].get("retests", 0) >= 1, f
' "$rc" "$tmp/drained" <<<"$out" || fail "--duration $d: $(jq -r .summary <<<"$out")"
	echo "ok: --duration $d: exit $rc: $(jq -r .summary <<<"$out")"
done
