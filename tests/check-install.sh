#!/usr/bin/env bash
# `meson install` into a DESTDIR, then a program built against the staged
# headers and rocecheck.pc only: what a scheduler linking the library does.
set -u
build=$1
stage=$(mktemp -d /tmp/rck-stage.XXXXXX)
trap 'rm -rf "$stage"' EXIT

bash "$(dirname "$0")/stage-install.sh" "$build" "$stage" || exit 1
pc=$(find "$stage" -name rocecheck.pc -not -path "$stage/pc/*" | head -1)
for f in include/rocecheck/rocecheck.h include/rocecheck/inventory.h include/rocecheck/counters.h \
	include/rocecheck/cap.h; do
	find "$stage" -path "*/$f" | grep -q . || { echo "FAIL: $f not installed"; exit 1; }
done
find "$stage" -name 'librocecheck.so.0*' | grep -q . || { echo "FAIL: librocecheck.so.0 not installed"; exit 1; }
for m in rocecheck.8 rocecap.8; do
	find "$stage" -name "$m*" | grep -q . || { echo "FAIL: $m not installed"; exit 1; }
done
# Every installed page's version is the library's (meson fills in @VERSION@).
ver=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$(dirname "$0")/../meson.build" | head -1)
for m in $(find "$stage" -path '*/man/man*/*' -type f); do
	page=$(case $m in *.gz) zcat "$m" ;; *) cat "$m" ;; esac)
	grep -q "^\.TH .*\"rocecheck $ver\"" <<<"$page" ||
		{ echo "FAIL: $m does not say rocecheck $ver: $(grep '^\.TH' <<<"$page")"; exit 1; }
done

cat >"$stage/user.c" <<'C'
#include <rocecheck/rocecheck.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	struct rck_ctx *ctx;
	struct rck_cap *cap;
	if (rck_ctx_new(&ctx))
		return 1;
	if (rck_cap_new(NULL, &cap)) /* a ROCECHECK_0.2 symbol */
		return 1;
	rck_cap_free(cap);
	printf("%s\n", rck_version());
	rck_ctx_free(ctx);
	return strcmp(rck_version(), "") == 0;
}
C
prefix=$(sed -n 's/^prefix=//p' "$pc")
# The public headers include only libc: the cflags are our include
# directory and nothing else (no libnl, no other package's Requires).
cflags=$(PKG_CONFIG_PATH=$stage/pc pkg-config --cflags rocecheck) ||
	{ echo "FAIL: pkg-config --cflags rocecheck"; exit 1; }
for f in $cflags; do
	[ "$f" = "-I$stage$prefix/include" ] || { echo "FAIL: pkg-config --cflags rocecheck adds '$f' ($cflags)"; exit 1; }
done
grep -q '^Requires' "$pc" && { echo "FAIL: rocecheck.pc has $(grep '^Requires' "$pc")"; exit 1; }
find "$stage" -path '*/share/rocecheck/schemas/devices.schema.json' | grep -q . ||
	{ echo "FAIL: JSON Schemas not installed"; exit 1; }
tools=rocecheck
[ -x "$build/tools/rocecap" ] && tools="$tools rocecap"
for t in $tools; do
	comp=$(find "$stage" -path "*/bash-completion/completions/$t")
	[ -n "$comp" ] && grep -q "^complete -F _$t $t\$" "$comp" ||
		{ echo "FAIL: bash completion of $t not installed"; exit 1; }
done
flags=$(PKG_CONFIG_PATH=$stage/pc pkg-config --cflags --libs rocecheck) ||
	{ echo "FAIL: pkg-config cannot read the staged rocecheck.pc"; exit 1; }
# shellcheck disable=SC2086
if ! cc -std=c11 -Wall -Wextra -Werror "$stage/user.c" -o "$stage/user" $flags; then
	echo "FAIL: a program using only the installed files does not build ($flags)"; exit 1
fi
libdir=$(dirname "$(find "$stage" -name 'librocecheck.so.0' | head -1)")
# A sanitizer build's library needs its runtime loaded first.
asan=$(ldd "$libdir/librocecheck.so.0" | awk '/libasan/ {print $3}')
out=$(LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0 LD_LIBRARY_PATH=$libdir "$stage/user") || { echo "FAIL: the program does not run"; exit 1; }
echo "ok: installed and linked, version $out; cflags: $cflags"
