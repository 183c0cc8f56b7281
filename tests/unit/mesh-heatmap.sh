#!/usr/bin/env bash
# `rocecheck mesh --from FILE --heatmap OUT`: a saved sweep drawn as SVG and
# PNG, atomically and deterministically; bad names and files refused.
set -u
rck=${ROCECHECK:?ROCECHECK not set}
wrap=${ROCECHECK_WRAP:-}
sample=${ROCECHECK_FIXTURES:?}/mesh/sample.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

# The sample has an unreachable host: exit 3, as the sweep itself would.
$wrap "$rck" mesh --from "$sample" --heatmap "$tmp/m.svg" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] && grep -q '^sweep: pattern full' "$tmp/out" && [ ! -s "$tmp/err" ] &&
	ok "--from prints the result, exit 3" || bad "--from: rc $rc, $(cat "$tmp/err")"
python3 - "$tmp/m.svg" <<'PY' && ok "SVG well-formed, names and outcomes drawn" || bad "SVG content"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
texts = ["".join(t.itertext()) for t in root.iter(ns + "text")]
assert root.tag == ns + "svg", root.tag
assert "node01 mlx5_0/1" in texts, texts
assert any("1 failed, 1 unreachable" in t for t in texts), texts
assert any(t.startswith("no analysis report") for t in texts), texts
PY
$wrap "$rck" mesh --from "$sample" --heatmap "$tmp/m.PNG" -j >"$tmp/out.json" 2>"$tmp/err"
[ $? -eq 3 ] && [ "$(head -c 8 "$tmp/m.PNG" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] &&
	ok "PNG written (-j, upper-case extension)" || bad "PNG: $(cat "$tmp/err")"
$wrap "$rck" mesh --from "$tmp/out.json" --heatmap "$tmp/m2.svg" >/dev/null 2>&1
cmp -s "$tmp/m.svg" "$tmp/m2.svg" && ok "the printed JSON loads back; same picture, same bytes" ||
	bad "not deterministic"
ls "$tmp" | grep -q '\.tmp\.' && bad "temporary file left: $(ls "$tmp")" || ok "no temporary file left"

# Refusals: one line, exit 2 (bad arguments, malformed file) or 1 (I/O).
expect() { # RC ERE ARGS...
	local want=$1 re=$2
	shift 2
	$wrap "$rck" mesh "$@" >"$tmp/o" 2>"$tmp/e"
	local rc=$?
	if [ $rc -eq "$want" ] && grep -Eq "$re" "$tmp/e"; then ok "$* -> $rc"
	else bad "$*: rc $rc (want $want), stderr: $(head -3 "$tmp/e")"; fi
}
expect 2 "^rocecheck: mesh: invalid --heatmap 'm.txt': a file name ending in .svg or .png$" \
	--from "$sample" --heatmap m.txt
expect 2 "invalid --heatmap 'svg'" --hosts a,b --heatmap svg
expect 2 "^rocecheck: mesh: --from loads a result: no --hosts" --from "$sample" --hosts a,b
expect 1 "^rocecheck: mesh: cannot read --from '$tmp/none.json': No such file" --from "$tmp/none.json"
printf '{"version":1}' >"$tmp/broken.json"
expect 2 "broken.json" --from "$tmp/broken.json" --heatmap "$tmp/b.svg"
[ ! -e "$tmp/b.svg" ] && ok "nothing drawn from a broken file" || bad "b.svg written"
expect 1 "^rocecheck: mesh: cannot write --heatmap '$tmp/no/dir/m.svg': No such file" --from "$sample" --heatmap "$tmp/no/dir/m.svg"
[ $fails -eq 0 ]
