#!/usr/bin/env bash
# Builds the libFuzzer targets with clang under ASan/UBSan in build-fuzz and
# runs each for a bounded number of executions (meson suite 'fuzz'),
# two at a time (each libFuzzer run is one process on one core).
# usage: ci/fuzz.sh [RUNS]   (default 400000 per target: CI's 45-minute budget;
# the new fabric-monitor and fabric-topology preflights took its time)
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
ninja -C "$dir" || exit 1
meson test -C "$dir" --suite fuzz --print-errorlogs --num-processes 2 --logbase testlog-fuzz
