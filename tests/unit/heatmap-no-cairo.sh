#!/usr/bin/env bash
# --heatmap FILE.png where libcairo.so.2 cannot be loaded (not an ELF file)
# or lacks cairo functions (CAIRO_STUB): one line naming it, exit non-zero,
# nothing written; an SVG needs no cairo. LD_LIBRARY_PATH puts the broken
# library first: the dynamic loader stops at the first libcairo.so.2 found.
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

mkdir "$tmp/notelf" "$tmp/partial" "$tmp/out"
echo 'not a library' >"$tmp/notelf/libcairo.so.2"
cp "$stub" "$tmp/partial/libcairo.so.2"
msg="^rocecheck: (mesh|preflight): cannot write --heatmap '$tmp/out/m.png': PNG heatmap needs libcairo.so.2: not found or incomplete \(install libcairo2, or draw an .svg\)$"

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
		run "$dir" "$name" "$opt" "$sample" --heatmap "$tmp/out/m.png"
		rc=$?
		if [ $rc -eq "$want" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -Eq "$msg" "$tmp/err"; then
			ok "$dir libcairo.so.2, $name: exit $rc, one line"
		else
			bad "$dir libcairo.so.2, $name: exit $rc (want $want), stderr: $(head -3 "$tmp/err")"
		fi
		[ -z "$(ls "$tmp/out")" ] && ok "nothing written" || bad "left: $(ls "$tmp/out")"
	done
	run "$dir" mesh --from "$sample" --heatmap "$tmp/out/m.svg"
	rc=$?
	[ $rc -eq 3 ] && [ -s "$tmp/out/m.svg" ] && [ ! -s "$tmp/err" ] &&
		ok "$dir libcairo.so.2: the SVG is drawn" || bad "SVG: exit $rc, $(head -3 "$tmp/err")"
	rm -f "$tmp/out/m.svg"
done
[ $fails -eq 0 ]
