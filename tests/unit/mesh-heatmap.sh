#!/usr/bin/env bash
# `rocecheck mesh --from FILE --heatmap OUT`: a saved sweep drawn as SVG and
# PNG, atomically and deterministically; bad names and files refused; a PNG
# where libcairo.so.2 is no library or lacks functions refused in one line.
set -u
rck=${ROCECHECK:?ROCECHECK not set}
stub=${CAIRO_STUB:?CAIRO_STUB not set}
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
# cairo is loaded on the first PNG (analysis/cairo_dl.c). LD_LIBRARY_PATH
# puts a broken libcairo.so.2 first: not an ELF file, or the CAIRO_STUB
# library with one cairo function; the dynamic loader stops at the first
# libcairo.so.2 it finds. mesh and preflight --from-mesh, and the SVG.
mkdir "$tmp/notelf" "$tmp/partial" "$tmp/pics"
echo 'not a library' >"$tmp/notelf/libcairo.so.2"
cp "$stub" "$tmp/partial/libcairo.so.2"
msg="^rocecheck: (mesh|preflight): cannot write --heatmap '$tmp/pics/m.png': PNG heatmap needs libcairo.so.2: not found or incomplete \(install libcairo2, or draw an .svg\)$"

# Runs the tool with @1's libcairo.so.2 found first.
run() { # DIR ARGS...
	local dir=$1
	shift
	LD_LIBRARY_PATH="$tmp/$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" $wrap "$rck" "$@" >/dev/null 2>"$tmp/err"
}

for dir in notelf partial; do
	# mesh: exit 1 (I/O), preflight: exit 2 (could not run).
	for cmd in "mesh --from 1" "preflight --from-mesh 2"; do
		read -r name opt want <<<"$cmd"
		run "$dir" "$name" "$opt" "$sample" --heatmap "$tmp/pics/m.png"
		rc=$?
		if [ $rc -eq "$want" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -Eq "$msg" "$tmp/err"; then
			ok "$dir libcairo.so.2, $name: exit $rc, one line"
		else
			bad "$dir libcairo.so.2, $name: exit $rc (want $want), stderr: $(head -3 "$tmp/err")"
		fi
		[ -z "$(ls "$tmp/pics")" ] && ok "nothing written" || bad "left: $(ls "$tmp/pics")"
	done
	run "$dir" mesh --from "$sample" --heatmap "$tmp/pics/m.svg"
	rc=$?
	[ $rc -eq 3 ] && [ -s "$tmp/pics/m.svg" ] && [ ! -s "$tmp/err" ] &&
		ok "$dir libcairo.so.2: the SVG is drawn" || bad "SVG: exit $rc, $(head -3 "$tmp/err")"
	rm -f "$tmp/pics/m.svg"
done
[ $fails -eq 0 ]
