#!/usr/bin/env bash
# Builds examples/preflight.c the way a scheduler would: against the
# *installed* library (meson install into a stage), with the flags of
# `pkg-config --cflags --libs rocecheck` and nothing else (no private header).
# Usage: build-example.sh BUILD OUTDIR -> OUTDIR/preflight-example and
# OUTDIR/run (a wrapper that finds the staged librocecheck.so).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$1 out=$2
mkdir -p "$out"
stage="$out/stage"
rm -rf "$stage"
bash "$here/stage-install.sh" "$build" "$stage" || exit 1
flags=$(PKG_CONFIG_PATH=$stage/pc pkg-config --cflags --libs rocecheck) ||
	{ echo "FAIL: pkg-config --cflags --libs rocecheck"; exit 1; }
# The example's source is copied away from the tree so that no include path
# of the source tree can help it.
cp "$here/../examples/preflight.c" "$out/preflight.c"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror "$out/preflight.c" -o "$out/preflight-example" $flags ||
	{ echo "FAIL: examples/preflight.c does not build against the installed library ($flags)"; exit 1; }
libdir=$(dirname "$(find "$stage" -name 'librocecheck.so.0' | head -1)")
# A sanitizer build's library needs its runtime loaded first.
asan=$(ldd "$libdir/librocecheck.so.0" | awk '/libasan/ {print $3}')
cat >"$out/run" <<RUN
#!/bin/sh
LD_PRELOAD=$asan ASAN_OPTIONS=\${ASAN_OPTIONS:-detect_leaks=0} LD_LIBRARY_PATH=$libdir exec "$out/preflight-example" "\$@"
RUN
chmod +x "$out/run"
# Linked to the staged library, not to the build tree's.
LD_LIBRARY_PATH=$libdir ldd "$out/preflight-example" | grep -q "$libdir/librocecheck.so.0" ||
	{ echo "FAIL: the example does not load the installed librocecheck"; exit 1; }
echo "built against the installed library: $flags"
