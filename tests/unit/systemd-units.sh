#!/usr/bin/env bash
# The systemd units in contrib/systemd: `systemd-analyze verify` without a
# word of complaint, the timer's service present, the sweep's ExecStart run.
set -u
rck=${ROCECHECK:?ROCECHECK not set}
fixtures=${ROCECHECK_FIXTURES:?ROCECHECK_FIXTURES not set}
src=$(cd "$(dirname "$0")/../.." && pwd)
units=$src/contrib/systemd
fails=0 n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # check NAME COND-EXIT-STATUS
	n=$((n + 1))
	if [ "$2" -ne 0 ]; then
		echo "FAIL: $1"
		fails=$((fails + 1))
	else
		echo "ok: $1"
	fi
}

if ! command -v systemd-analyze >/dev/null; then
	if [ "${CI:-}" = true ]; then
		echo "FAIL: systemd-analyze missing (ci/install-deps.sh installs systemd)"
		exit 1
	fi
	echo "skip: systemd-analyze not installed"
	exit 77
fi

# Every unit, with ExecStart pointing at this build. verify exits 0 on an
# unknown key (only a warning), so any output at all fails.
for f in "$units"/*.service "$units"/*.timer; do
	sed "s#/usr/sbin/rocecheck#$rck#" "$f" >"$tmp/${f##*/}"
done
for f in "$tmp"/*.service "$tmp"/*.timer; do
	systemd-analyze verify --man=no "$f" >"$tmp/sd.txt" 2>&1
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$tmp/sd.txt" ]
	check "systemd-analyze verify ${f##*/} ($rc: $(cat "$tmp/sd.txt"))" $?
done

# verify does not look for a timer's service: it must be beside it.
for f in "$units"/*.timer; do
	want=$(sed -n 's/^Unit=//p' "$f")
	want=${want:-$(basename "$f" .timer).service}
	[ -f "$units/$want" ]
	check "${f##*/} starts $want, which is in contrib/systemd" $?
done
grep -qx 'Type=oneshot' "$units/rocecheck-sweep.service" &&
	grep -qx 'Persistent=yes' "$units/rocecheck-sweep.timer" &&
	grep -q '^RandomizedDelaySec=' "$units/rocecheck-sweep.timer"
check "sweep: oneshot service, persistent timer with a randomized delay" $?

# How exposed each service is (systemd's own score; lower is better).
for f in "$tmp"/*.service; do
	score=$(systemd-analyze security --offline=yes "$f" 2>/dev/null |
		sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
	echo "exposure ${f##*/}: ${score:-?}"
done
score=$(systemd-analyze security --offline=yes "$tmp/rocecheck-sweep.service" 2>/dev/null |
	sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
awk -v s="${score:-10}" 'BEGIN { exit !(s < 4.0) }'
check "rocecheck-sweep.service exposure below 4.0 (${score:-none})" $?

# The sweep's ExecStart as written, on a recorded tree, its paths in $tmp.
if "$rck" help sweep >/dev/null 2>&1; then
	cmd=$(sed -n 's/^ExecStart=//p' "$units/rocecheck-sweep.service")
	cmd=${cmd//\/usr\/sbin\/rocecheck/$rck}
	cmd=${cmd//\/var\/lib\/node_exporter\/textfile_collector/$tmp}
	cmd=${cmd//\/var\/lib\/rocecheck/$tmp}
	read -r -a argv <<<"${ROCECHECK_WRAP:-} $cmd"
	"${argv[@]}" --sysfs-root "$fixtures/sysfs/mlx5" >"$tmp/out.txt" 2>&1
	rc=$?
	[ $rc -le 1 ] && [ -s "$tmp/rocecheck.prom" ] && [ -s "$tmp/sweep.state" ] &&
		grep -q '^rocecheck_health' "$tmp/rocecheck.prom"
	check "ExecStart on the mlx5 tree: exit $rc, textfile and state written ($(head -c 300 "$tmp/out.txt"))" $?
	if command -v promtool >/dev/null; then
		promtool check metrics <"$tmp/rocecheck.prom" >"$tmp/pt.txt" 2>&1
		check "promtool accepts the textfile ($(cat "$tmp/pt.txt"))" $?
	fi
elif [ "${CI:-}" = true ]; then
	check "rocecheck sweep missing (branch cronsweep)" 1
else
	echo "skip: rocecheck sweep not built yet, ExecStart not run"
fi

echo "$((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
