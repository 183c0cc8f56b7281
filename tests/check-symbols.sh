#!/usr/bin/env bash
# The library's exports must equal the version script, and every function the
# public headers declare must be exported: a symbol missing from either fails.
set -u
so=$1 map=$2 incdir=$3
fail=0

mapped=$(grep -oE '^[[:space:]]*rck_[A-Za-z0-9_]+;' "$map" | tr -d ' \t;' | sort)
exported=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//' | sort)
unversioned=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | grep -v '@@ROCECHECK_' || true)
declared=$(cat "$incdir"/rocecheck/*.h | perl -0pe 's{/\*.*?\*/}{}gs' | tr '\n' ' ' | grep -oE '[A-Za-z_][A-Za-z0-9_ *]*[ *]rck_[a-z0-9_]+[[:space:]]*\(' |
	   grep -oE 'rck_[a-z0-9_]+[[:space:]]*\($' | tr -d ' (' | sort -u)

if [ -z "$mapped" ] || [ -z "$exported" ]; then
	echo "FAIL: no symbols read (map: $map, library: $so)"
	exit 1
fi
d=$(comm -3 <(echo "$mapped") <(echo "$exported"))
if [ -n "$d" ]; then
	echo "FAIL: exports differ from $map (left: only in the map; right: only exported):"
	echo "$d"
	fail=1
fi
if [ -n "$unversioned" ]; then
	echo "FAIL: exported without a ROCECHECK_ version: $unversioned"
	fail=1
fi
d=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [ -n "$d" ]; then
	echo "FAIL: declared in public headers but not exported:"
	echo "$d"
	fail=1
fi
[ $fail -eq 0 ] && echo "ok: $(echo "$exported" | wc -l) symbols, all in $(basename "$map")"
exit $fail
