#!/usr/bin/env bash
# `rocecheck mesh` text as an operator reads it: NICs numbered in host order
# and probes sorted by host whatever the answer order, scaled rates, no line
# for TCP pseudo NICs, and a closing summary (ok/failed, medians, worst, down).
set -u
rck=${ROCECHECK:?ROCECHECK not set}
wrap=${ROCECHECK_WRAP:-}
sample=${ROCECHECK_FIXTURES:?}/mesh/sample.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

# The sample as agents answering last-first would have numbered it: NIC ids
# reversed, probes in reverse order, one link at 627 Mb/s.
python3 - "$sample" "$tmp" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
n = sum(len(h["nics"]) for h in d["hosts"])
for h in d["hosts"]:
    for nic in h["nics"]:
        nic["id"] = n - 1 - nic["id"]
for p in d["probes"]:
    p["src"], p["dst"] = n - 1 - p["src"], n - 1 - p["dst"]
d["probes"].reverse()
for p in d["probes"]:
    if p["result"]["gbps"] == 96.25:
        p["result"]["gbps"] = 0.627
json.dump(d, open(sys.argv[2] + "/shuffled.json", "w"))
# A TCP sweep: one pseudo NIC per host, nothing known about it.
t = copy.deepcopy(d)
t["probes"] = [p for p in t["probes"] if p["test"] == "bw"][:1]
for i, h in enumerate(t["hosts"]):
    h["missing_rails"] = []
    h["nics"] = [{"id": i, "device": "tcp", "port": 1, "rail": 0, "netdev": None, "state": None,
                  "rate_gbps": 0, "active_mtu": 0, "netdev_mtu": 0, "fw_ver": None, "gid_index": -1,
                  "counters": []}]
t["probes"][0].update(src=0, dst=1, attempts=1, retest=None)
t["probes"][0].pop("later_retests", None)
json.dump(t, open(sys.argv[2] + "/tcp.json", "w"))
PY
$wrap "$rck" mesh --from "$sample" >"$tmp/a.txt" 2>"$tmp/err"
$wrap "$rck" mesh --from "$tmp/shuffled.json" >"$tmp/b.txt" 2>>"$tmp/err"
# NIC numbers follow host order: node01's first NIC is nic 0 in both.
[ "$(grep -m1 '  nic ' "$tmp/b.txt")" = "$(grep -m1 '  nic ' "$tmp/a.txt")" ] &&
	grep -A1 '^host node01' "$tmp/b.txt" | grep -q '^  nic 0 mlx5_0/1' &&
	ok "NIC numbers by host order" || bad "NIC numbers: $(grep '  nic ' "$tmp/b.txt")"
# Probe rows sorted by host: sources never go back to an earlier host.
sed -n '/^probes:/,/^summary:/p' "$tmp/b.txt" | sed '1d;$d' | awk '{print $2}' | cut -d/ -f1 >"$tmp/src"
sort -c "$tmp/src" 2>/dev/null && [ "$(wc -l <"$tmp/src")" -eq 5 ] &&
	ok "probe rows sorted by host" || bad "probe rows: $(tr '\n' ' ' <"$tmp/src")"
sed -n '/^probes:/,/^summary:/p' "$tmp/a.txt" | sed '1d;$d' | awk '{print $2, $4}' >"$tmp/pa"
sed -n '/^probes:/,/^summary:/p' "$tmp/b.txt" | sed '1d;$d' | awk '{print $2, $4}' >"$tmp/pb"
cmp -s "$tmp/pa" "$tmp/pb" && ok "same rows whatever the answer order" || bad "rows differ"
grep -q 'node01/mlx5_0/1 -> node02/mlx5_0/1 ok 627 Mb/s' "$tmp/b.txt" &&
	ok "627 Mb/s scaled" || bad "no 627 Mb/s: $(grep 'ok 0' "$tmp/b.txt")"
grep -q '^summary: 5 probes, 3 ok, 2 failed (1 unreachable, 0 skipped); median bandwidth' "$tmp/b.txt" &&
	ok "summary line" || bad "summary: $(grep -i summary "$tmp/b.txt")"
tail -n 4 "$tmp/b.txt" | grep -q '^  worst bw node01/mlx5_0/1 -> node02/mlx5_0/1: 627 Mb/s' &&
	ok "worst link named" || bad "worst: $(tail -n 4 "$tmp/b.txt")"
[ "$(tail -n 1 "$tmp/b.txt")" = "  unreachable hosts: node03" ] &&
	ok "unreachable hosts last" || bad "last line: $(tail -n 1 "$tmp/b.txt")"
# The JSON numbers NICs the same way.
$wrap "$rck" mesh --from "$tmp/shuffled.json" -j >"$tmp/b.json" 2>>"$tmp/err"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ids = [n["id"] for h in d["hosts"] for n in h["nics"]]
assert ids == list(range(len(ids))), ids
assert [(p["src"], p["dst"]) for p in d["probes"]] == [(3, 1), (0, 4), (1, 3), (2, 0), (0, 2)], d["probes"]
' "$tmp/b.json" && ok "JSON ids by host order" || bad "JSON ids"
$wrap "$rck" mesh --from "$tmp/tcp.json" >"$tmp/t.txt" 2>>"$tmp/err"
! grep -q '^  nic \|missing rail' "$tmp/t.txt" && grep -q '^bw  node0./tcp/1 -> ' "$tmp/t.txt" &&
	ok "no line for TCP pseudo NICs" || bad "TCP text: $(cat "$tmp/t.txt")"
[ ! -s "$tmp/err" ] || bad "stderr: $(cat "$tmp/err")"
[ $fails -eq 0 ]
