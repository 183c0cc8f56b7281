#!/usr/bin/env bash
# Command-line contract of rocecheck: a table of {expected exit code, args}
# cases, plus checks that errors are one line and JSON parses.
set -u
rck=${ROCECHECK:?ROCECHECK not set}
# Under `meson test --setup valgrind` the tool runs under valgrind.
wrap=${ROCECHECK_WRAP:-}
fix=${ROCECHECK_FIXTURES:?ROCECHECK_FIXTURES not set}/sysfs
fails=0 n=0

# expected-rc | arguments (word-split)
cases=(
	"2|"
	"2|bogus"
	"2|dev"
	"2|Devices"
	"0|--help"
	"0|help"
	"0|-V"
	"2|--nope devices"
	"2|--timeout 0 devices"
	"2|--timeout abc devices"
	"2|--timeout -5 devices"
	"2|--sysfs-root"
	"2|-j help"
	"2|--sysfs-root $fix/mlx5 devices extra"
	"0|--sysfs-root $fix/mlx5 devices"
	"0|--sysfs-root $fix/mlx5 -j devices"
	"0|-p --sysfs-root $fix/broken devices"
	"0|--sysfs-root $fix/empty devices"
	"2|--sysfs-root /nonexistent/tree -j devices"
)

for c in "${cases[@]}"; do
	want=${c%%|*}
	args=${c#*|}
	n=$((n + 1))
	# shellcheck disable=SC2086
	timeout 60 $wrap "$rck" $args >/tmp/rck-cli.$$.out 2>/tmp/rck-cli.$$.err </dev/null
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: rocecheck $args: exit $got, want $want"
		sed 's/^/    /' /tmp/rck-cli.$$.err
		fails=$((fails + 1))
	fi
	# An error is a usage text or one line naming the input, never a crash.
	if [ "$got" -ge 128 ]; then
		echo "FAIL: rocecheck $args: killed by signal $((got - 128))"
		fails=$((fails + 1))
	fi
done

check() {
	n=$((n + 1))
	if ! eval "$2"; then
		echo "FAIL: $1"
		fails=$((fails + 1))
	fi
}

"$rck" --sysfs-root "$fix/mlx5" -j devices >/tmp/rck-cli.$$.out
check "JSON of devices parses and names mlx5_0" \
	"python3 -c 'import json,sys; d=json.load(open(\"/tmp/rck-cli.$$.out\")); sys.exit(d[\"devices\"][0][\"name\"]!=\"mlx5_0\")'"
"$rck" --sysfs-root "$fix/empty" devices >/tmp/rck-cli.$$.out 2>/tmp/rck-cli.$$.err
check "no devices: a clear message on stderr" "grep -q 'no RDMA devices' /tmp/rck-cli.$$.err"
"$rck" --sysfs-root "$fix/empty" -j devices >/tmp/rck-cli.$$.out 2>/dev/null
check "no devices: an empty JSON list" "[ \"\$(cat /tmp/rck-cli.$$.out)\" = '{\"devices\":[]}' ]"
"$rck" bogus >/dev/null 2>/tmp/rck-cli.$$.err
check "unknown word: named on stderr with usage" \
	"grep -q \"unknown command 'bogus'\" /tmp/rck-cli.$$.err && grep -q '^Usage:' /tmp/rck-cli.$$.err"
"$rck" --timeout abc devices >/dev/null 2>/tmp/rck-cli.$$.err
check "bad option value: one line naming it" \
	"[ \$(wc -l </tmp/rck-cli.$$.err) -eq 1 ] && grep -q \"'abc'\" /tmp/rck-cli.$$.err"
"$rck" --sysfs-root "$fix/mlx5" devices >/tmp/rck-cli.$$.out
check "text table shows the degraded PCIe link" "grep -q 'x8 (max 16.0 GT/s x16) DEGRADED' /tmp/rck-cli.$$.out"

rm -f /tmp/rck-cli.$$.out /tmp/rck-cli.$$.err
echo "$((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
