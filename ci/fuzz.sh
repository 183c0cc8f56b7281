#!/usr/bin/env bash
# Builds the libFuzzer targets with clang under ASan/UBSan in build-fuzz and
# runs each for a bounded number of executions (meson suite 'fuzz'),
# two at a time (each libFuzzer run is one process on one core).
# usage: ci/fuzz.sh [RUNS]   (default 400000 per target, or 8 s where
# tests/fuzz/meson.build caps it: CI's 45-minute budget)
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-400000}
dir=build-fuzz
opts=(-Dfuzzing=true -Dfuzz_runs="$runs" -Db_sanitize=address,undefined -Db_lundef=false
	-Dwerror=true -Dtests=enabled -Dlldpctl=enabled -Dmicrohttpd=enabled)
if [ -f "$dir/build.ninja" ]; then
	meson setup --reconfigure "$dir" "${opts[@]}" || exit 1
else
	CC=clang meson setup "$dir" "${opts[@]}" || exit 1
fi
# Only the fuzz targets (and the library under them): the unit suite runs
# in the gcc builds, and the rest of this tree took minutes to build.
targets=$(meson introspect "$dir" --targets | python3 -c '
import json, os, sys
for t in json.load(sys.stdin):
    n = t["name"]
    if n.startswith("fuzz-") and not n.startswith("fuzz-replay-") and n != "fuzz-seeds":
        print(os.path.relpath(t["filename"][0], sys.argv[1]))' "$(cd "$dir" && pwd)") || exit 1
[ -n "$targets" ] || { echo "ci/fuzz.sh: no fuzz targets in $dir" >&2; exit 1; }
# shellcheck disable=SC2086
ninja -C "$dir" $targets || exit 1
meson test -C "$dir" --no-rebuild --suite fuzz --print-errorlogs --num-processes 2 --logbase testlog-fuzz
