#!/usr/bin/env bash
# `meson install` of BUILD into STAGE, and STAGE/pc/rocecheck.pc pointing at
# the stage: what a consumer sees after installing the package.
# Usage: stage-install.sh BUILD STAGE. Exit non-zero with one line on failure.
set -u
build=$1 stage=$2
if ! meson install -C "$build" --no-rebuild --destdir "$stage" >"$stage.log" 2>&1; then
	cat "$stage.log"; rm -f "$stage.log"
	echo "FAIL: meson install"; exit 1
fi
rm -f "$stage.log"
pc=$(find "$stage" -name rocecheck.pc -not -path "$stage/pc/*" | head -1)
[ -n "$pc" ] || { echo "FAIL: no rocecheck.pc installed"; exit 1; }
# pkg-config's --define-prefix cannot guess the prefix from a multiarch
# libdir: rewrite the prefix into the stage.
prefix=$(sed -n 's/^prefix=//p' "$pc")
mkdir -p "$stage/pc"
sed "s|^prefix=.*|prefix=$stage$prefix|" "$pc" >"$stage/pc/rocecheck.pc"
