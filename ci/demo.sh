#!/usr/bin/env bash
# The README's "try it" command: installs what is needed, builds rocecheck,
# and runs the demo on a virtual RoCEv2 fabric of qemu guests (needs root).
# Arguments go to `rocelab demo` (--name NAME); ROCELAB_LAB_PREFIX names the
# lab as in the fabric tests, ROCECHECK_BUILD_DIR picks the build folder
# (default build/). The fabric suite runs this very script (tests/fabric/demo.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bdir=${ROCECHECK_BUILD_DIR:-build}
bash ci/install-deps.sh all
# A configured folder is only brought up to date: ninja regenerates it when a
# meson.build changed, and its options stay as they were.
[ -f "$bdir/build.ninja" ] || meson setup "$bdir" >/dev/null
ninja -C "$bdir"
exec tools/rocelab demo --build-dir "$bdir" "$@"
