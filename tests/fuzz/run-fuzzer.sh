#!/usr/bin/env bash
# Runs one libFuzzer binary on a scratch copy of its corpus for RUNS
# executions, or for SECS seconds when given (whichever ends first); fails
# on a crash, a sanitizer report, or, without SECS, too few runs.
# usage: run-fuzzer.sh FUZZER CORPUS_DIR RUNS [SECS]
set -uo pipefail
fuzzer=$1 corpus=$2 runs=$3 secs=${4:-}
# Without SECS: enough for >= RUNS at the slowest target's rate on 2 cores.
max_secs=${secs:-${FUZZ_MAX_SECS:-600}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
cp -r "$corpus"/. "$work/corpus/" 2>/dev/null || true
log=$work/log
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
timeout -k 10 $((max_secs + 60)) "$fuzzer" -runs="$runs" -max_total_time="$max_secs" \
	-rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$work/corpus" >"$log" 2>&1
rc=$?
tail -n 25 "$log"
done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
if [ $rc -ne 0 ]; then
	for a in "$work"/artifacts/*; do
		[ -f "$a" ] && { echo "crash input ($a):"; od -A d -t x1 "$a" | head -n 20; }
	done
	echo "FAIL: $(basename "$fuzzer") exited $rc"
	exit 1
fi
if [ -z "$done_runs" ] || { [ -z "$secs" ] && [ "$done_runs" -lt "$runs" ]; }; then
	echo "FAIL: $(basename "$fuzzer") ran ${done_runs:-0} of $runs executions within ${max_secs}s"
	exit 1
fi
echo "ok: $(basename "$fuzzer"): $done_runs executions${secs:+ (at most $runs in ${secs}s)}, no crash"
