# Shared start of TAP shell tests (sourced): a scratch directory $T,
# TAP lines (ok, bad), a missing tool (a skip for a developer, a failure in
# CI), Debian's python3 and jget FILE EXPR on a JSON file.
# shellcheck shell=bash disable=SC2034
W=${ROCECHECK_WRAP:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
missing() { if [ "${CI:-}" = true ]; then bad "$1 missing"; else echo "# SKIP: $1 missing"; fi; }
# Debian's python3 has python3-jsonschema (ci/install-deps.sh).
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
jget() { $PY -c "import json,sys; j=json.load(open('$1')); print($2)"; }
