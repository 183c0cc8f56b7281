#!/usr/bin/env bash
# Libraries that must never be DT_NEEDED by librocecheck or the tools: cairo
# is loaded with dlopen() for a PNG heatmap only (analysis/cairo_dl.c), so an
# idle agent does not map it and its dozens of libraries (issue 9: RSS).
set -u -o pipefail
[ $# -gt 0 ] || { echo "usage: $0 ELF..."; exit 2; }
fail=0
for elf in "$@"; do
	if ! needed=$(readelf -d "$elf" | awk '$2 == "(NEEDED)" {print $5}' | tr -d '[]'); then
		echo "FAIL: cannot read $elf"
		fail=1
		continue
	fi
	if [ -z "$needed" ]; then
		echo "FAIL: no NEEDED entry read from $elf"
		fail=1
	elif grep -Eq "^libcairo" <<<"$needed"; then
		echo "FAIL: $elf needs cairo (load it with analysis/cairo_dl.c instead)"
		fail=1
	else
		echo "ok: $(basename "$elf") needs no cairo ($(paste -sd ' ' <<<"$needed"))"
	fi
done
exit $fail
