# shellcheck shell=bash
# Shared by the fabric tests (sourced): prerequisites, a lab per test that is
# always torn down, bounded perftest runs and small assertions.

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROCELAB=${ROCELAB:-$HERE/../../tools/rocelab}
BUILD_DIR=${ROCECHECK_BUILD_DIR:-}
T0=$(date +%s%N)

say() { echo "# $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

# Missing qemu, kernel, root...: a skip for a developer, an error in CI.
need() {
	if [ "${CI:-}" = true ]; then
		echo "FATAL: fabric test cannot run in CI: $*" >&2
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

fabric_prereqs() {
	[ -x "$ROCELAB" ] || need "rocelab not found at $ROCELAB"
	[ "$(id -u)" -eq 0 ] || need "not root"
	local out
	out=$("$ROCELAB" check 2>&1) || need "$out"
	command -v python3 >/dev/null || need "python3 not found"
}

# Seconds since $1 (date +%s%N), one decimal.
since() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

# lab_up NAME NODES [up options...]: a fresh lab, removed when the test exits.
# ROCELAB_LAB_PREFIX lets several checkouts on one machine run fabric tests
# at once without sharing a lab (each lab has its own namespace).
lab_up() {
	local name=${ROCELAB_LAB_PREFIX:-}$1 nodes=$2
	shift 2
	export ROCELAB_NAME=$name
	# A crashed earlier run may have left this lab behind.
	"$ROCELAB" down >/dev/null 2>&1
	# Only the script itself tears the lab down, never a job it forked that
	# is signalled before its exec (bash runs the EXIT trap on a fatal signal).
	trap '[ "$BASHPID" = "$$" ] && lab_down' EXIT
	local t
	t=$(date +%s%N)
	"$ROCELAB" up --nodes "$nodes" ${BUILD_DIR:+--build-dir "$BUILD_DIR"} "$@" || fail "rocelab up --nodes $nodes"
	BOOT_SECS=$(since "$t")
}

# Called from EXIT traps: it must not exit itself, so the script ends with
# its own status (a trap's "[ ... ] && lab_down" or "rm ...; lab_down" has
# already overwritten $? with its first command's).
lab_down() {
	"$ROCELAB" down >/dev/null 2>&1 || echo "warning: rocelab down failed" >&2
	say "total $(since "$T0") s"
}

rx() { "$ROCELAB" exec "$@"; }

# perf SERVER CLIENT TOOL ARGS...: output in PERF_OUT, wall time in PERF_SECS.
perf() {
	local s=$1 c=$2 t
	shift 2
	t=$(date +%s%N)
	PERF_OUT=$("$ROCELAB" perf "$s" "$c" -t 120 -- "$@")
	local rc=$?
	PERF_SECS=$(since "$t")
	return "$rc"
}

# Average Gb/s of an ib_*_bw report (needs --report_gbits).
bw_gbps() { awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 4 { v = $4 } END { if (v == "") exit 1; print v }'; }
# Typical and average microseconds of an ib_*_lat report.
lat_typical() { awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 6 { v = $5 } END { if (v == "") exit 1; print v }'; }

# bw SERVER CLIENT ITERS: Gb/s of a 64 KiB ib_write_bw run, in BW.
# Under TCG ib_write_bw now and then reports 0 Gb/s for a run that moved
# data (its clock sampling): one more run, bounded, before failing.
bw() {
	local try
	for try in 1 2; do
		perf "$1" "$2" ib_write_bw -s 65536 -n "$3" -F --report_gbits || fail "ib_write_bw $2 -> $1: $PERF_OUT"
		BW=$(bw_gbps <<<"$PERF_OUT") || fail "no bandwidth in: $PERF_OUT"
		awk -v b="$BW" 'BEGIN { exit !(b > 0) }' && return 0
		say "ib_write_bw $2 -> $1 reported $BW Gb/s (run $try)"
	done
	fail "ib_write_bw $2 -> $1 reported $BW Gb/s twice"
}

# ratio A B: A/B with three decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# Nothing of lab NAME may remain: namespace, taps (inside it), qemu, state.
assert_gone() {
	local name=$1
	ip netns list | awk '{print $1}' | grep -qxF "rocelab-$name" && fail "namespace rocelab-$name remains"
	[ -e "/run/rocelab/$name" ] && fail "/run/rocelab/$name remains"
	local p
	for p in /proc/[0-9]*; do
		tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -q -- "-name rocelab-$name-n" &&
			fail "qemu of lab $name remains: pid ${p#/proc/}"
	done
	return 0
}

# probe_listen NODE LOG ARGS...: starts `rocecheck ARGS` (a probe listener)
# in the background on NODE, logging to LOG there, and waits (bounded) until
# it listens on the probe's default port 18520.
probe_listen() {
	local n=$1 log=$2 out i
	shift 2
	out=$(rx "$n" --bg --log "$log" -- rocecheck "$@") || fail "cannot start the probe server on $n: $out"
	for i in $(seq 50); do
		rx "$n" -- sh -c 'grep -q ":4858 0*:0000 0A" /proc/net/tcp /proc/net/tcp6' && return 0
		sleep 0.2
	done
	fail "probe server not listening on $n: $(rx "$n" -- cat "$log")"
}
