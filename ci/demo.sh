#!/usr/bin/env bash
# The README's "try it" command: installs what is needed, builds rocecheck,
# and runs the demo on a virtual RoCEv2 fabric of qemu guests (needs root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh all
if [ -f build/build.ninja ]; then meson setup --reconfigure build >/dev/null; else meson setup build >/dev/null; fi
ninja -C build
exec tools/rocelab demo --build-dir build "$@"
