#!/usr/bin/env bash
# The README's test command: installs what is needed, builds with -Werror,
# runs every suite, then the unit suite under ASan/UBSan and under valgrind,
# then every fuzz target (clang, libFuzzer) for a bounded number of runs.
set -uo pipefail
cd "$(dirname "$0")/.."

bash ci/install-deps.sh all || { echo "ci/test.sh: installing dependencies failed" >&2; exit 1; }

status=0
T0=$(date +%s)
# Each step says its wall time and the run's so far: CI's budget is 45 minutes.
step() {
	local t=$(date +%s) rc=0
	echo "=== $*"
	"$@" || rc=$?
	[ $rc -eq 0 ] || { echo "=== FAILED: $*"; status=1; }
	echo "=== $(($(date +%s) - t)) s (at $(($(date +%s) - T0)) s): $1 ${*:2:3}"
}

# Configure a build folder, or reconfigure one a developer already has.
setup() {
	local dir=$1
	shift
	if [ -f "$dir/build.ninja" ]; then
		meson setup --reconfigure "$dir" "$@"
	else
		meson setup "$dir" "$@"
	fi
}

step setup build -Dwerror=true -Dtests=enabled -Dlldpctl=enabled -Dmicrohttpd=enabled
step ninja -C build
suites=$(meson test -C build --list 2>/dev/null | sed -n 's/^rocecheck:\([a-z]*\) .*/\1/p' | sort -u)
echo "=== suites: $(echo $suites)"
# Every suite CI expects must exist: a missing one is a failure, never a skip
# (ci/count-results.py also counts its missing log as failed).
for s in $(cat ci/suites); do
	if [ "$s" = unit ] && echo "$suites" | grep -qx unit; then
		# The unit suite runs below under ASan/UBSan (every test, -Werror
		# too) and under valgrind: a plain run besides checked nothing more
		# and took 236 s of CI's 45 minutes.
		echo "=== unit: run under ASan/UBSan and valgrind below"
	elif echo "$suites" | grep -qx "$s"; then
		step meson test -C build --suite "$s" --print-errorlogs --num-processes 2 \
			--logbase "testlog-$s"
	else
		echo "=== FAILED: suite $s is missing from the build"
		status=1
	fi
done

step setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true -Dtests=enabled -Dlldpctl=enabled -Dmicrohttpd=enabled
step ninja -C build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	step meson test -C build-asan --suite unit --print-errorlogs --num-processes 2 --logbase testlog-asan

step meson test -C build --setup valgrind --suite unit --no-suite no-valgrind --print-errorlogs --logbase testlog-valgrind

# libFuzzer targets with clang, each for a bounded number of executions.
step bash ci/fuzz.sh

exit $status
