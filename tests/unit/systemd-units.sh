#!/usr/bin/env bash
# The systemd units in contrib/systemd as meson configures them: ExecStart at
# the configured sbindir, `systemd-analyze verify` without a word of
# complaint, every service's exposure (`security --offline`) at most 3.0 with
# the agent still able to open the RDMA devices, the timer's service present,
# the sweep's ExecStart run.
set -u
rck=${ROCECHECK:?ROCECHECK not set}
fixtures=${ROCECHECK_FIXTURES:?ROCECHECK_FIXTURES not set}
src=$(cd "$(dirname "$0")/../.." && pwd)
units=$src/contrib/systemd
built=${ROCECHECK_BUILD_DIR:?ROCECHECK_BUILD_DIR not set}/contrib/systemd
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

# meson wrote the configured sbindir into each service: no path of its own.
sbindir=$(python3 -c '
import json, os, sys
o = {x["name"]: x["value"] for x in json.load(open(os.path.join(sys.argv[1], "meson-info", "intro-buildoptions.json")))}
print(os.path.join(o["prefix"], o["sbindir"]))' "$ROCECHECK_BUILD_DIR")
for f in "$units"/*.service.in; do
	u=${f##*/}
	u=${u%.in}
	grep -q '^ExecStart=@sbindir@/rocecheck ' "$f" && [ -f "$built/$u" ] &&
		grep -q "^ExecStart=$sbindir/rocecheck " "$built/$u" && ! grep -q '@sbindir@' "$built/$u"
	check "$u: ExecStart at the configured $sbindir" $?
done
[ -f "$units/rocecheck-agent.service.in" ] && [ -f "$units/rocecheck-monitor.service.in" ]
check "agent and monitor units exist" $?

# Every unit, with ExecStart pointing at this build. verify exits 0 on an
# unknown key (only a warning), so any output at all fails.
for f in "$built"/*.service "$units"/*.timer; do
	sed "s#$sbindir/rocecheck#$rck#" "$f" >"$tmp/${f##*/}"
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
	[ -f "$units/$want.in" ] && [ -f "$built/$want" ]
	check "${f##*/} starts $want, which is in contrib/systemd and configured" $?
done
grep -qx 'Type=oneshot' "$built/rocecheck-sweep.service" &&
	grep -qx 'Persistent=yes' "$units/rocecheck-sweep.timer" &&
	grep -q '^RandomizedDelaySec=' "$units/rocecheck-sweep.timer"
check "sweep: oneshot service, persistent timer with a randomized delay" $?

# How exposed each service is (systemd's own score; lower is better): at
# most 3.0 each. --offline came with systemd 250.
if systemd-analyze security --help 2>&1 | grep -q -- '--offline'; then
	for f in "$tmp"/*.service; do
		score=$(systemd-analyze security --offline=true "$f" 2>/dev/null |
			sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
		awk -v s="${score:-10}" 'BEGIN { exit !(s <= 3.0) }'
		check "${f##*/} exposure at most 3.0 (${score:-none})" $?
	done
elif [ "${CI:-}" = true ]; then
	check "systemd-analyze security --offline (systemd >= 250) in CI" 1
else
	echo "skip: this systemd-analyze has no security --offline: exposures not measured"
fi
# Hardened, yet the agent still reaches /dev/infiniband (verbs, rdma_cm).
a=$units/rocecheck-agent.service.in
! grep -q '^PrivateDevices=yes' "$a" && grep -q '^DeviceAllow=char-infiniband_verbs rw' "$a" &&
	grep -q '^DeviceAllow=/dev/infiniband/rdma_cm rw' "$a" && grep -q '^LimitMEMLOCK=infinity' "$a" &&
	grep -q '^RestrictAddressFamilies=.*AF_IB' "$a"
check "the agent can open the RDMA devices, pin memory and use AF_IB" $?

# The sweep's ExecStart as written, on a recorded tree, its paths in $tmp.
if "$rck" help sweep >/dev/null 2>&1; then
	cmd=$(sed -n 's/^ExecStart=//p' "$built/rocecheck-sweep.service")
	cmd=${cmd//$sbindir\/rocecheck/$rck}
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
