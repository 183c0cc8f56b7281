#!/usr/bin/env bash
# Heatmaps that read right: the axes named (rows send, columns receive), the
# preflight's own title, the drained host marked, and a NIC slow only to it
# marked on its column alone (a triangle below the grid, none beside it).
set -u
rck=${ROCECHECK:?ROCECHECK not set}
wrap=${ROCECHECK_WRAP:-}
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
# Triangles drawn: one in the legend, then one per marked row or column.
tris() { grep -o "<path d='M" "$1" | wc -l; }

python3 "$here/mkmesh.py" 6 nic:4:50 >"$t/nic.json"
python3 "$here/mkmesh.py" 6 >"$t/healthy.json"
# Every probe to h3 at 50 Gb/s, retested at 50: h3 is slow to it only.
python3 - "$t" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1] + "/healthy.json"))
for p in d["probes"]:
    if p["dst"] == 3:
        p["result"]["gbps"] = 50.0
        r = copy.deepcopy(p["result"])
        r["start_s"] = 40.0
        p["attempts"], p["retest"] = 2, r
json.dump(d, open(sys.argv[1] + "/to.json", "w"))
PY
$wrap "$rck" preflight --from-mesh "$t/nic.json" --heatmap "$t/nic.svg" >/dev/null 2>"$t/err"
$wrap "$rck" preflight --from-mesh "$t/to.json" --heatmap "$t/to.svg" >"$t/to.txt" 2>>"$t/err"
$wrap "$rck" mesh --from "$t/nic.json" --heatmap "$t/mesh.svg" >/dev/null 2>>"$t/err"
grep -q '>rocecheck preflight: bandwidth' "$t/nic.svg" && grep -q '>rocecheck mesh: bandwidth' "$t/mesh.svg" &&
	ok "each command its own title" || bad "titles"
for f in nic to mesh; do
	grep -q '>rows: sender' "$t/$f.svg" && grep -q '>columns: receiver' "$t/$f.svg" ||
		bad "$f.svg: no axis titles"
done
ok "axis titles checked"
grep -q '>host h4 drained<' "$t/nic.svg" && grep -q '>host h3 drained<' "$t/to.svg" &&
	grep -q "drained: 1 host;" "$t/nic.svg" && ok "drained host marked" || bad "drained host not marked"
grep -q '^nic_degraded .* h3 mlx5_0/1: median 9[0-9.]* Gb/s from it, 50.0 Gb/s to it' "$t/to.txt" ||
	bad "the fixture is not a NIC slow to it: $(cat "$t/to.txt")"
[ "$(tris "$t/nic.svg")" -eq 3 ] && ok "a NIC slow both ways: row and column" || bad "nic.svg: $(tris "$t/nic.svg") triangles"
[ "$(tris "$t/to.svg")" -eq 2 ] && grep -q 'NIC h3 mlx5_0/1 degraded (to it)' "$t/to.svg" &&
	ok "a NIC slow only to it: its column only" || bad "to.svg: $(tris "$t/to.svg") triangles"
[ ! -s "$t/err" ] || bad "stderr: $(cat "$t/err")"
[ $fails -eq 0 ]
