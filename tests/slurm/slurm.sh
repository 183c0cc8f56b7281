#!/usr/bin/env bash
# contrib/slurm/ against a real Slurm on this machine: munged, slurmctld and
# slurmd on loopback ports, all in a temporary folder, torn down after.
#
# slurmd itself runs the health check (HealthCheckInterval) with the real
# rocecheck sweep on recorded sysfs trees (--sysfs-root); slurmctld runs
# rocecheck-prolog as PrologSlurmctld and as a batch job's first step,
# around a stand-in preflight (a real one needs a fabric). Needs
# root and the Debian packages slurm-wlm and munge; skips without them (fails
# with CI=true).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
HC=$SRC/contrib/slurm/rocecheck-healthcheck
rck=${ROCECHECK:?ROCECHECK not set (the built rocecheck)}
fix=${ROCECHECK_FIXTURES:-$SRC/tests/fixtures}/sysfs
# A tree the sweep judges healthy, and the same NIC with its port DOWN.
good=$fix/bnxt
bad=$fix/down
T0=$(date +%s)

say() { echo "# $*"; }
ok() { echo "ok: $*"; }
need() {
	if [ "${CI:-}" = true ]; then
		echo "FATAL: slurm test cannot run in CI: $*" >&2
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

[ "$(id -u)" -eq 0 ] || need "not root (slurmd runs jobs as their users)"
for p in munged slurmctld slurmd scontrol sinfo timeout ss; do
	command -v "$p" >/dev/null || need "$p not found (ci/install-deps.sh: slurm-wlm, munge)"
done
# The sweep contract (CONTRACTS.md): --format npd, one line, exit 0/1/2.
"$rck" sweep --help >/dev/null 2>&1 || need "$rck has no 'sweep' command"

tmp=$(mktemp -d /tmp/rocecheck-slurm.XXXXXX)
chmod 0700 "$tmp"
pids=()
cleanup() {
	local p
	# Only the script itself: a job forked by it and killed before its exec
	# would run this trap too (bash runs the EXIT trap on a fatal signal).
	[ "$BASHPID" = "$$" ] || return 0
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*" >&2
	local f
	for f in "$tmp"/log/*; do
		[ -f "$f" ] || continue
		echo "--- $f (last 25 lines)" >&2
		tail -n 25 "$f" >&2
	done
	exit 1
}

# until SECONDS WHAT CMD...: CMD succeeds within SECONDS, or the test fails.
until_ok() {
	local secs=$1 what=$2
	shift 2
	local end=$(($(date +%s) + secs))
	until "$@"; do
		[ "$(date +%s)" -lt $end ] || fail "waited ${secs}s for $what"
		sleep 0.3
	done
}

# Two free TCP ports on loopback, picked at random.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 30000))
		[ -z "$(ss -Hltn "sport = :$p" 2>/dev/null)" ] && [ "$p" != "${1:-}" ] && {
			echo "$p"
			return 0
		}
	done
	return 1
}

mkdir -p "$tmp"/{munge,state,spool,log,run}

# munge: a generated key, its own socket, pid and seed files.
head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
chmod 0400 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.socket
munged --foreground --force --key-file="$tmp/munge/munge.key" --socket="$sock" \
	--pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/munge.seed" \
	--log-file="$tmp/log/munged.log" --num-threads=2 >"$tmp/log/munged.out" 2>&1 &
pids+=($!)
until_ok 10 "munged's socket" test -S "$sock"

node=$(hostname -s)
ctld_port=$(free_port) || fail "no free port"
d_port=$(free_port "$ctld_port") || fail "no free port"
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=rocecheck
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdTimeout=60
HealthCheckProgram=$tmp/healthcheck
HealthCheckInterval=2
HealthCheckNodeState=ANY
PrologSlurmctld=$tmp/prolog
NodeName=$node NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

# What slurm.conf's HealthCheckProgram runs: the environment the README
# documents, then the script from contrib/.
cat >"$tmp/healthcheck" <<EOF
#!/bin/sh
SLURM_CONF=$SLURM_CONF
ROCECHECK_SLURM_CONF=$tmp/rocecheck-slurm.conf
ROCECHECK_SLURM_LOG=$tmp/log/healthcheck.log
export SLURM_CONF ROCECHECK_SLURM_CONF ROCECHECK_SLURM_LOG
exec "$HC"
EOF
chmod 0755 "$tmp/healthcheck"

# PrologSlurmctld: the same, for rocecheck-prolog. Its preflight is a stand-in
# (a real one needs a fabric): it records its arguments and, told to fail,
# drains through --drain-cmd split into words as preflight does (no shell).
cat >"$tmp/prolog" <<EOF
#!/bin/sh
SLURM_CONF=$SLURM_CONF
ROCECHECK_SLURM_CONF=$tmp/prolog.conf
ROCECHECK_SLURM_LOG=$tmp/log/prolog.log
export SLURM_CONF ROCECHECK_SLURM_CONF ROCECHECK_SLURM_LOG
exec "$SRC/contrib/slurm/rocecheck-prolog"
EOF
printf 'ROCECHECK=%s\nROCECHECK_PREFLIGHT_DEADLINE=10\n' "$tmp/preflight" >"$tmp/prolog.conf"
cat >"$tmp/preflight" <<EOF
#!/usr/bin/env bash
printf '%s\n' "\$@" >"$tmp/preflight.argv"
[ "\$(cat "$tmp/preflight.rc")" = 1 ] || exit 0
while [ \$# -gt 0 ]; do [ "\$1" = --drain-cmd ] && tmpl=\$2; shift; done
python3 -c 'import shlex, subprocess, sys
sys.exit(subprocess.run([w.replace("{host}", sys.argv[2]).replace("{reason}", sys.argv[3])
                         for w in shlex.split(sys.argv[1])]).returncode)' \\
	"\$tmpl" "\$(sed -n 3p "$tmp/preflight.argv")" "rocecheck: probe_bw slow to peers"
exit 1
EOF
chmod 0755 "$tmp/prolog" "$tmp/preflight"

# set_tree TREE [TIMEOUT [ROCECHECK]]: the health check's config file, replaced
# atomically so slurmd's next run reads either the old one or the new one.
set_conf() {
	cat >"$tmp/rocecheck-slurm.conf.new" <<EOF
# rocecheck-healthcheck settings for this test (see contrib/slurm/README.md)
ROCECHECK=${3:-$rck}
ROCECHECK_SWEEP_ARGS="--sysfs-root $1"
ROCECHECK_TIMEOUT=${2:-20}
EOF
	mv -f "$tmp/rocecheck-slurm.conf.new" "$tmp/rocecheck-slurm.conf"
}
set_conf "$good"

# Waits until slurmd has finished two more health checks: at least one of them
# started after the config changed.
two_more_runs() {
	local n0
	n0=$(grep -c '' "$tmp/log/healthcheck.log" 2>/dev/null) || n0=0
	local end=$(($(date +%s) + 40))
	while :; do
		# every run logs at least one line with its pid: two new pids, two runs
		if [ "$(tail -n +$((n0 + 1)) "$tmp/log/healthcheck.log" 2>/dev/null |
			sed -n 's/.*rocecheck-healthcheck\[\([0-9]*\)\].*/\1/p' | sort -u | wc -l)" -ge 2 ]; then
			return 0
		fi
		[ "$(date +%s)" -lt $end ] || fail "slurmd ran no two health checks in 40 s"
		sleep 0.3
	done
}

slurmctld -D -i -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
until_ok 30 "slurmctld to answer" sh -c 'scontrol ping 2>/dev/null | grep -q "is UP"'
slurmd -D -f "$SLURM_CONF" -N "$node" >"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)

# state: lower-case state of the node (idle, drained, draining, ...);
# reason: the reason sinfo -R shows for it, empty when none.
state() { sinfo -h -N -n "$node" -o '%T' 2>/dev/null | head -n 1; }
reason() { sinfo -h -R -n "$node" -o '%E' 2>/dev/null | head -n 1; }
is_state() { [ "$(state)" = "$1" ]; }

until_ok 40 "node $node to come up idle" is_state idle
say "slurm $(scontrol --version | awk '{print $2}') up on ports $ctld_port/$d_port, node $node, $(($(date +%s) - T0)) s"

# 1. A healthy sweep leaves the node idle.
two_more_runs
is_state idle || fail "healthy sweep: node is '$(state)', not idle"
grep -q 'healthy' "$tmp/log/healthcheck.log" || fail "no healthy run logged"
ok "healthy sweep: $node stays idle"

# 2. A port DOWN drains it; sinfo -R shows the sweep's own line.
want=$("$rck" sweep --format npd --sysfs-root "$bad")
case $want in rocecheck:*) ;; *) fail "sweep on $bad printed '$want'" ;; esac
set_conf "$bad"
until_ok 40 "a rocecheck drain" sh -c "sinfo -h -R -n '$node' -o '%E' | grep -q '^rocecheck:'"
[ "$(reason)" = "$want" ] || fail "drain reason '$(reason)', want '$want'"
case $(state) in drained | draining) ;; *) fail "state '$(state)' after a failing sweep" ;; esac
sinfo -R -o '%50E %19H %N'
ok "port DOWN: drained, sinfo -R: $(reason)"

# 3. The next healthy run resumes it.
set_conf "$good"
until_ok 40 "resume after a healthy sweep" is_state idle
[ -z "$(reason)" ] || fail "reason '$(reason)' left after resume"
ok "healthy again: resumed to idle"

# 4. Someone else's drain is never touched, healthy or degraded.
scontrol update nodename="$node" state=drain reason="maintenance" || fail "scontrol drain"
two_more_runs
[ "$(reason)" = maintenance ] || fail "healthy run changed 'maintenance' to '$(reason)'"
set_conf "$bad"
two_more_runs
[ "$(reason)" = maintenance ] || fail "degraded run changed 'maintenance' to '$(reason)'"
is_state drained || fail "state '$(state)' under maintenance"
grep -q "already [a-z+]* for: maintenance; left alone" "$tmp/log/healthcheck.log" ||
	fail "the degraded run did not log that it left the maintenance drain alone"
ok "maintenance drain left alone by healthy and degraded runs"
scontrol update nodename="$node" state=resume || fail "scontrol resume"

# 5. Unknown (the sweep hangs past its deadline, or cannot run): a rocecheck
# drain is neither lifted nor changed. The hang is a stand-in command, the
# one part of this test that is not the real rocecheck.
until_ok 40 "the degraded sweep to drain again" sh -c "sinfo -h -R -n '$node' -o '%E' | grep -q '^rocecheck:'"
printf '#!/bin/sh\nexec sleep 60\n' >"$tmp/hang"
chmod 0755 "$tmp/hang"
set_conf "$good" 1 "$tmp/hang"
two_more_runs
[ "$(reason)" = "$want" ] || fail "a timed-out sweep changed the drain to '$(reason)'"
grep -q 'timed out after 1s' "$tmp/log/healthcheck.log" || fail "no timeout logged"
set_conf "$good" 20 /nonexistent/rocecheck
two_more_runs
[ "$(reason)" = "$want" ] || fail "a sweep that could not run changed the drain to '$(reason)'"
grep -q 'could not run (exit 127)' "$tmp/log/healthcheck.log" || fail "no 'could not run' logged"
ok "unknown (timeout, missing binary): drain kept"

# Exit codes when run by hand, as an operator would.
ROCECHECK_SLURM_CONF=$tmp/rocecheck-slurm.conf ROCECHECK_SLURM_LOG=$tmp/log/healthcheck.log \
	ROCECHECK=$rck ROCECHECK_SWEEP_ARGS="--sysfs-root $good" "$HC" 2>/dev/null
rc=$?
[ $rc -eq 0 ] || fail "by hand, healthy: exit $rc"
until_ok 20 "resume by the hand-run check" is_state idle
ok "by hand: env overrides the config file, exit 0, resumed"

# 5b. With --state (the default hold 2/3) one bad sweep does not drain, the
# second does, and the drain ends the same way. Run by hand (slurmd's own
# runs meanwhile cannot run the sweep and leave the node alone).
hand() {
	ROCECHECK_SLURM_CONF=$tmp/rocecheck-slurm.conf ROCECHECK_SLURM_LOG=$tmp/log/healthcheck.log \
		ROCECHECK=$rck ROCECHECK_SWEEP_ARGS="--state $tmp/sweep.state --sysfs-root $1" "$HC" 2>/dev/null
}
steps=""
for t in "$good 0 idle" "$bad 0 idle" "$bad 1 drained" "$good 1 drained" "$good 0 idle"; do
	read -r tree want_rc want_state <<<"$t"
	hand "$tree"
	rc=$?
	[ $rc -eq "$want_rc" ] || fail "--state run on ${tree##*/}: exit $rc, want $want_rc"
	until_ok 20 "$want_state after a --state run on ${tree##*/}" is_state "$want_state"
	steps="$steps ${tree##*/}:$want_state"
done
ok "--state hysteresis:$steps"

# 6. The prolog's --drain-cmd callback drains for real, and leaves another
# reason alone (its argument handling: prolog.sh).
PROLOG=$SRC/contrib/slurm/rocecheck-prolog
ROCECHECK_SLURM_LOG=$tmp/log/prolog.log "$PROLOG" --drain "$node" rocecheck: probe_bw "$node" 3.1 Gb/s 2>/dev/null ||
	fail "prolog --drain: exit $?"
until_ok 20 "the prolog's drain" sh -c "sinfo -h -R -n '$node' -o '%E' | grep -q '^rocecheck: probe_bw'"
[ "$(reason)" = "rocecheck: probe_bw $node 3.1 Gb/s" ] || fail "prolog drain reason '$(reason)'"
scontrol update nodename="$node" state=drain reason="maintenance" || fail "scontrol drain"
ROCECHECK_SLURM_LOG=$tmp/log/prolog.log "$PROLOG" --drain "$node" "rocecheck: probe_bw $node 1 Gb/s" 2>/dev/null ||
	fail "prolog --drain: exit $?"
[ "$(reason)" = maintenance ] || fail "prolog --drain replaced maintenance with '$(reason)'"
ok "prolog --drain: drains with its reason, leaves maintenance alone"

# 7. rocecheck-prolog as PrologSlurmctld: the job's nodes reach preflight
# (launcher none: srun cannot start steps while a prolog runs); a degraded
# fabric drains the bad node and the job does not run.
scontrol update nodename="$node" state=resume || fail "scontrol resume"
until_ok 20 "idle before the prolog jobs" is_state idle
echo 0 >"$tmp/preflight.rc"
out=$(timeout 60 srun -N1 -n1 echo job-ran 2>&1) || fail "job with a healthy prolog: $out"
[ "$out" = job-ran ] || fail "job output '$out'"
want="preflight --hosts $node --launcher none --deadline 10 --drain-cmd '$SRC/contrib/slurm/rocecheck-prolog' --drain {host} {reason}"
[ "$(paste -sd' ' "$tmp/preflight.argv")" = "$want" ] ||
	fail "prolog ran '$(paste -sd' ' "$tmp/preflight.argv")', want '$want'"
ok "PrologSlurmctld healthy: job ran; $want"
echo 1 >"$tmp/preflight.rc"
out=$(timeout 60 srun -N1 -n1 echo job-ran 2>&1) && fail "job ran on a degraded fabric: $out"
case $out in *job-ran*) fail "job ran on a degraded fabric: $out" ;; esac
[ "$(reason)" = "rocecheck: probe_bw slow to peers" ] || fail "prolog drain reason '$(reason)'"
grep -q "fabric degraded" "$tmp/log/prolog.log" || fail "no 'fabric degraded' in the prolog log"
ok "PrologSlurmctld degraded: job refused ($(printf '%s' "$out" | tail -n 1)), drained: $(reason)"

# 8. rocecheck-prolog as the batch script's first step: launcher srun, which
# works there; the stand-in preflight starts its "agent" as rocecheck's srun
# launcher does (srun -N1 -n1 -w HOST).
scontrol update nodename="$node" state=resume || fail "scontrol resume"
until_ok 20 "idle before the batch job" is_state idle
echo 0 >"$tmp/preflight.rc"
cat >"$tmp/srun-preflight" <<EOF
#!/usr/bin/env bash
printf '%s\n' "\$@" >"$tmp/srun-preflight.argv"
timeout 30 srun -N1 -n1 -w "\$(sed -n 3p "$tmp/srun-preflight.argv")" echo agent-ran-on-\$(hostname -s) \\
	>"$tmp/srun-step.out" 2>&1
EOF
cat >"$tmp/job.sh" <<EOF
#!/bin/bash
ROCECHECK=$tmp/srun-preflight ROCECHECK_SLURM_LOG=$tmp/log/prolog.log "$SRC/contrib/slurm/rocecheck-prolog" || exit 1
echo job-body-ran
EOF
chmod 0755 "$tmp/srun-preflight" "$tmp/job.sh"
job=$(sbatch --parsable -N1 -o "$tmp/job.out" "$tmp/job.sh") || fail "sbatch"
until_ok 60 "batch job $job to end" sh -c "[ -z \"\$(squeue -h -j $job 2>/dev/null)\" ]"
grep -qx "agent-ran-on-$(hostname -s)" "$tmp/srun-step.out" ||
	fail "no srun step from the prolog: $(cat "$tmp/srun-step.out" "$tmp/job.out")"
grep -qx job-body-ran "$tmp/job.out" || fail "job body did not run: $(cat "$tmp/job.out")"
want="preflight --hosts $node --launcher srun --deadline 120 --drain-cmd '$SRC/contrib/slurm/rocecheck-prolog' --drain {host} {reason}"
[ "$(paste -sd' ' "$tmp/srun-preflight.argv")" = "$want" ] ||
	fail "in the job: '$(paste -sd' ' "$tmp/srun-preflight.argv")', want '$want'"
ok "batch job $job: the prolog's srun step ran, then the job body"

say "slurm test: $(($(date +%s) - T0)) s"
