#!/usr/bin/env bash
# contrib/prometheus: promtool checks the alerting rules and runs their unit
# tests on recorded series (every alert fires on its fault, none on health).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
promtool=$(command -v promtool || true)
if [ -z "$promtool" ]; then
	if [ "${CI:-}" = true ]; then
		echo "FAIL: promtool not installed (Debian package prometheus)"
		exit 1
	fi
	echo "SKIP: promtool not installed"
	exit 77
fi
cd "$src/contrib/prometheus" || exit 1
fails=0
out=$(timeout 60 "$promtool" check rules rocecheck-rules.yml 2>&1) || { echo "FAIL: promtool check rules: $out"; fails=1; }
echo "$out"
for t in tests/*.test.yml; do
	out=$(timeout 120 "$promtool" test rules "$t" 2>&1) || { echo "FAIL: promtool test rules $t: $out"; fails=1; }
	echo "$t: $(echo "$out" | tail -n 1)"
done
exit $fails
