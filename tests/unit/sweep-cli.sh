#!/usr/bin/env bash
# `rocecheck sweep` on the recorded fixtures: exit codes, the NPD line (one
# line, <= 80 characters), hysteresis across runs through a state file, a
# reboot through a recorded boot id, hostile state files, and every
# Prometheus textfile through `promtool check metrics`.
set -u
rck=$(realpath "${ROCECHECK:?ROCECHECK not set}")
wrap=${ROCECHECK_WRAP:-}
fix=${ROCECHECK_FIXTURES:?ROCECHECK_FIXTURES not set}/sysfs
t=$(mktemp -d /tmp/rck-sweep.XXXXXX)
trap 'rm -rf "$t"' EXIT
fails=0 n=0
tmo=10
[ -n "$wrap" ] && tmo=60

check() {
	n=$((n + 1))
	if ! eval "$2"; then
		echo "FAIL: $1"
		[ -s "$t/err" ] && sed 's/^/    stderr: /' "$t/err" | head -n 5
		[ -s "$t/out" ] && sed 's/^/    stdout: /' "$t/out" | head -n 5
		fails=$((fails + 1))
	fi
}

# rc of rocecheck --sysfs-root TREE sweep ARGS..., output in $t/out, $t/err.
sw() {
	local tree=$1
	shift
	# shellcheck disable=SC2086
	timeout -k 1 $tmo $wrap "$rck" --sysfs-root "$tree" sweep "$@" >"$t/out" 2>"$t/err" </dev/null
	rc=$?
	return $rc
}

# Exactly one line of at most 80 characters, starting "rocecheck: ".
npd_ok() {
	[ "$(wc -l <"$t/out")" -eq 1 ] && [ "$(head -c 4096 "$t/out" | head -n 1 | wc -L)" -le 80 ] &&
		grep -q '^rocecheck: ' "$t/out"
}

promtool=$(command -v promtool || true)
if [ -z "$promtool" ]; then
	if [ "${CI:-}" = true ]; then
		echo "FAIL: promtool not installed (Debian package prometheus)"
		exit 1
	fi
	echo "promtool not installed: the textfiles are not checked by it"
fi

# Every fixture: exit 0 healthy / 1 degraded, a valid NPD line, a textfile
# promtool accepts (the -j form of each is tests/unit/check-schemas.py's).
for tree in "$fix"/*/; do
	name=$(basename "$tree")
	sw "$tree" --format npd --prom "$t/$name.prom"
	npd_rc=$rc
	check "$name: npd exit $npd_rc" '[ $npd_rc -eq 0 ] || [ $npd_rc -eq 1 ]'
	check "$name: npd line" npd_ok
	check "$name: npd healthy iff exit 0" \
		'[ $npd_rc -eq 0 ] && grep -qx "rocecheck: healthy" "$t/out" || { [ $npd_rc -eq 1 ] && ! grep -q healthy "$t/out"; }'
	check "$name: textfile written" '[ -s "$t/$name.prom" ] && ! ls "$t/$name.prom".tmp.* >/dev/null 2>&1'
	check "$name: rocecheck_health" \
		'grep -qx "rocecheck_health $((1 - npd_rc))" "$t/$name.prom"'
	if [ -n "$promtool" ]; then
		check "$name: promtool check metrics" \
			'"$promtool" check metrics <"$t/$name.prom" >"$t/err" 2>&1'
	fi
done

sw "$fix/bnxt" --format npd
check "healthy tree: exit 0" '[ $rc -eq 0 ] && grep -qx "rocecheck: healthy" "$t/out"'
sw "$fix/down" --format npd
check "port DOWN tree: exit 1, port_down named" \
	'[ $rc -eq 1 ] && grep -qx "rocecheck: port_down bnxt_re0/1 port state DOWN, physical state Disabled" "$t/out"'

# Hysteresis across runs: the trees switch under one state file (2/3).
st="$t/state.json"
expect=(0 0 1 1 1 0)
trees=(down bnxt down down bnxt bnxt)
for i in "${!trees[@]}"; do
	sw "$fix/${trees[$i]}" --state "$st" --format npd
	check "hysteresis run $i (${trees[$i]}): exit ${expect[$i]}" '[ $rc -eq ${expect[$i]} ]'
done
sw "$fix/bnxt" --state "$st" -j
check "state: 3 runs remembered" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d[\"hold\"][\"runs\"] != 3)" "$t/out"'
sw "$fix/bnxt" --state "$st" --hold 1/1 -j
check "--hold 1/1" \
	'[ $rc -eq 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d[\"hold\"] != {\"k\":1,\"n\":1,\"runs\":1})" "$t/out"'

# Runs sharing a state file take turns (FILE.lock): 10 pairs at once, 20 runs kept.
cst="$t/shared.json"
for i in $(seq 10); do
	timeout -k 1 60 $wrap "$rck" --sysfs-root "$fix/bnxt" sweep --state "$cst" --hold 1/32 >/dev/null 2>&1 </dev/null &
	timeout -k 1 60 $wrap "$rck" --sysfs-root "$fix/down" sweep --state "$cst" --hold 1/32 >/dev/null 2>&1 </dev/null &
	wait
done
sw "$fix/bnxt" --state "$cst" --hold 1/32 -j
check "concurrent runs: none lost (21 remembered)" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d[\"hold\"][\"runs\"] != 21)" "$t/out"'
# A run that cannot get the lock in time says so, and leaves the state alone.
if command -v flock >/dev/null; then
	# This shell holds the lock until the run is over, however slow the
	# run (valgrind): no holder on a timer.
	exec 9>>"$cst.lock"
	flock -n 9
	before=$(md5sum <"$cst")
	timeout -k 1 $((tmo + 30)) $wrap "$rck" --sysfs-root "$fix/bnxt" sweep --state "$cst" --format npd \
		>"$t/out" 2>"$t/err" </dev/null 9>&-
	rc=$?
	exec 9>&-
	check "state locked by another run: exit 2, said so, state untouched" \
		'[ $rc -eq 2 ] && grep -q "held .*lock" "$t/err" && npd_ok && [ "$(md5sum <"$cst")" = "$before" ]'
else
	check "flock(1) for the lock test" false
fi

# A reboot: a copy of the tree with a recorded boot id that changes.
cp -a "$fix/bnxt" "$t/tree"
mkdir -p "$t/tree/rocecheck"
echo 11111111-2222-3333-4444-555555555555 >"$t/tree/rocecheck/boot_id"
rm -f "$st"
sw "$t/tree" --state "$st" -j
check "boot id kept" 'grep -q 11111111-2222 "$st"'
echo 99999999-2222-3333-4444-555555555555 >"$t/tree/rocecheck/boot_id"
sw "$t/tree" --state "$st" -j
check "reboot: counter_reset, no error counter, exit 0" \
	'[ $rc -eq 0 ] && python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
codes = [f[\"code\"] for f in d[\"findings\"]]
sys.exit(not d[\"rebooted\"] or codes != [\"counter_reset\"])" "$t/out"'

# Hostile state files: one line, exit 2, the file left alone.
printf '{"version": 1, "time_ns": ' >"$t/trunc.json"
sw "$fix/bnxt" --state "$t/trunc.json" --format npd
check "truncated state: exit 2, unknown line" \
	'[ $rc -eq 2 ] && npd_ok && grep -q "^rocecheck: unknown" "$t/out" && [ "$(wc -c <"$t/trunc.json")" -eq 26 ]'
echo '{"version": 7, "time_ns": 1, "hold": {"k": 2, "n": 3}, "runs": [], "findings": []}' >"$t/v7.json"
sw "$fix/bnxt" --state "$t/v7.json"
check "other version: exit 2, named" '[ $rc -eq 2 ] && grep -q "v7.json" "$t/err"'
echo '{"schema": "something.else/1", "version": 1, "time_ns": 1, "hold": {"k": 2, "n": 3}, "runs": [], "findings": []}' >"$t/other.json"
sw "$fix/bnxt" --state "$t/other.json"
check "another schema: exit 2, one line naming the schema" \
	'[ $rc -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q "other.json.*schema" "$t/err"'
sw "$fix/bnxt" --state "$t/trunc.json"
check "a refused state: one line on stderr" '[ $rc -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ]'
ln -s "$st" "$t/link.json"
sw "$fix/bnxt" --state "$t/link.json"
check "symlinked state: exit 2" '[ $rc -eq 2 ] && [ -L "$t/link.json" ]'
truncate -s 17M "$t/huge.json"
sw "$fix/bnxt" --state "$t/huge.json"
check "huge state: exit 2" '[ $rc -eq 2 ] && grep -q "16 MiB" "$t/err"'
mkfifo "$t/fifo.json"
sw "$fix/bnxt" --state "$t/fifo.json"
check "FIFO state: exit 2 at once" '[ $rc -eq 2 ]'
ln -s "$t/elsewhere.prom" "$t/link.prom"
sw "$fix/bnxt" --prom "$t/link.prom"
check "symlinked textfile refused" '[ $rc -eq 2 ] && [ ! -e "$t/elsewhere.prom" ]'

# Arguments.
for bad in "--hold 3/2" "--hold 0/3" "--hold 2" "--hold 1/33" "--probe slow" "--format xml" \
	"-j --format npd" "--state" "extra"; do
	# shellcheck disable=SC2086
	sw "$fix/bnxt" $bad
	check "bad arguments '$bad': exit 2, one line" '[ $rc -eq 2 ] && grep -q "^rocecheck: sweep: " "$t/err"'
done
sw "$fix/bnxt" --help
check "--help: exit 0, usage" '[ $rc -eq 0 ] && grep -q -- "--hold" "$t/out"'
echo 'no_such_key = 1' >"$t/th.conf"
sw "$fix/bnxt" --config "$t/th.conf" --format npd
check "bad thresholds file: exit 2, named" '[ $rc -eq 2 ] && grep -q "th.conf:1" "$t/err" && npd_ok'

# The quick probe: TCP on loopback with a recorded tree.
sw "$fix/bnxt" --probe quick -j
check "--probe quick: a tcp probe that measured" \
	'[ $rc -eq 0 ] && python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))[\"probes\"]
sys.exit(len(p) != 1 or p[0][\"transport\"] != \"tcp\" or not p[0][\"ok\"])" "$t/out"'

echo "$n checks, $fails failed"
[ $fails -eq 0 ]
