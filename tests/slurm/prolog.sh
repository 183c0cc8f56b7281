#!/usr/bin/env bash
# contrib/slurm/rocecheck-prolog's argument handling: the nodelist expanded by
# the real `scontrol show hostnames`, the preflight command line it builds
# (checked against the real `rocecheck preflight --help`), the --drain-cmd
# template run both as words and through sh -c, and by the real preflight on
# a recorded sweep (--from-mesh), and the prolog contexts.
#
# rocecheck and scontrol are recording stand-ins here, except for
# `rocecheck preflight --help` and `scontrol show hostnames` (the real ones):
# a full preflight needs a fabric (tests/fabric/); slurm.sh drains for real.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
PROLOG=$SRC/contrib/slurm/rocecheck-prolog
rck=${ROCECHECK:?ROCECHECK not set (the built rocecheck)}
real_scontrol=$(command -v scontrol) || {
	[ "${CI:-}" = true ] && { echo "FATAL: scontrol not found (slurm-wlm)" >&2; exit 1; }
	echo "SKIP: scontrol not found (slurm-wlm)"
	exit 77
}
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
# scontrol show hostnames needs a slurm.conf, not a controller.
printf 'ClusterName=rck\nSlurmctldHost=localhost\n' >"$tmp/slurm.conf"

# The recording rocecheck: argv one per line; then, like preflight with a
# degraded host, runs --drain-cmd for bad01 both ways a template may be run.
cat >"$tmp/bin/rocecheck" <<EOF
#!/usr/bin/env bash
if [ "\$1 \${2:-}" = "preflight --help" ]; then exec "$rck" preflight --help; fi
printf '%s\n' "\$@" >"$tmp/argv"
tmpl=
while [ \$# -gt 0 ]; do [ "\$1" = --drain-cmd ] && tmpl=\$2; shift; done
if [ -n "\$tmpl" ] && [ "\${FAKE_RC:-0}" = 1 ]; then
	python3 - "\$tmpl" <<'PY'
import shlex, subprocess, sys
t = sys.argv[1]
host, reason = "bad01", "rocecheck: port_down mlx5_0/1 state DOWN"
# as words, like the --launcher templates: split, then substitute
subprocess.run([w.replace("{host}", host).replace("{reason}", reason) for w in shlex.split(t)])
# through a shell, substituted as text
subprocess.run(["sh", "-c", t.replace("{host}", host).replace("{reason}", reason)])
PY
fi
exit \${FAKE_RC:-0}
EOF
# The recording scontrol: show hostnames is the real one; show node answers
# with FAKE_NODE (a State= and Reason= tail); update and requeue are logged.
cat >"$tmp/bin/scontrol" <<EOF
#!/usr/bin/env bash
case "\$*" in
"show hostnames "*) SLURM_CONF=$tmp/slurm.conf exec "$real_scontrol" "\$@" ;;
"-o show node "*) echo "NodeName=\$4 Arch=x86_64 \${FAKE_NODE:-State=IDLE ThreadsPerCore=1}" ;;
*) (IFS='|'; echo "\$*") >>"$tmp/scontrol.log" ;;
esac
EOF
chmod 0755 "$tmp/bin/rocecheck" "$tmp/bin/scontrol"

# run EXPECTED_RC [VAR=value...]: the prolog with a clean Slurm environment.
run() {
	local want=$1
	shift
	rm -f "$tmp/argv" "$tmp/scontrol.log" "$tmp/log"
	env -u ROCECHECK -u SLURM_JOB_NODELIST -u SLURM_NODELIST -u SLURM_SCRIPT_CONTEXT -u SLURMD_NODENAME \
		PATH="$tmp/bin:$PATH" ROCECHECK_SLURM_CONF=/nonexistent ROCECHECK_SLURM_LOG="$tmp/log" \
		SLURM_JOB_ID=42 "$@" "$PROLOG" ${ARGS:+$ARGS} 2>/dev/null
	rc=$?
	[ "$rc" = "$want" ] || bad "$* $PROLOG ${ARGS:-}: exit $rc, want $want ($(cat "$tmp/log" 2>/dev/null))"
}
argv() { paste -sd' ' "$tmp/argv" 2>/dev/null; }
nl='node[01-03],gpu[1,3]'
hosts=node01,node02,node03,gpu1,gpu3
drain="'$PROLOG' --drain {host} {reason}"

# 1. In the job (batch script, salloc): srun launcher, Slurm's expansion.
run 0 SLURM_JOB_NODELIST="$nl"
want="preflight --hosts $hosts --launcher srun --deadline 120 --drain-cmd $drain"
[ "$(argv)" = "$want" ] || bad "argv '$(argv)', want '$want'"
[ ! -e "$tmp/scontrol.log" ] || bad "healthy run called scontrol: $(cat "$tmp/scontrol.log")"
tmpl=$(sed -n '/^--drain-cmd$/{n;p}' "$tmp/argv")
ok "job context: $(argv)"

# 2. Degraded: exit 1, the drain template drains bad01 the same way whether
# preflight runs it as words or through a shell.
run 1 SLURM_JOB_NODELIST="$nl" FAKE_RC=1
want='update|nodename=bad01|state=drain|reason=rocecheck: port_down mlx5_0/1 state DOWN'
n=$(grep -c . "$tmp/scontrol.log" 2>/dev/null)
if [ "$n" != 2 ] || [ "$(sort -u "$tmp/scontrol.log")" != "$want" ]; then
	bad "drains: '$(cat "$tmp/scontrol.log" 2>/dev/null)', want twice '$want'"
fi
grep -q 'fabric degraded' "$tmp/log" || bad "degraded not logged"
ok "degraded: exit 1, --drain-cmd as words and via sh -c: $want"
run 1 SLURM_JOB_NODELIST="$nl" FAKE_RC=1 ROCECHECK_PROLOG_REQUEUE=yes
grep -qx 'requeue|42' "$tmp/scontrol.log" || bad "no requeue of job 42: $(cat "$tmp/scontrol.log")"
ok "ROCECHECK_PROLOG_REQUEUE=yes requeues the job"

# 3. Someone else's drain is not replaced by the callback.
FAKE_NODE='State=IDLE+DRAIN ThreadsPerCore=1 Reason=maintenance [root@2026-01-01T00:00:00]' \
	run 1 SLURM_JOB_NODELIST="$nl" FAKE_RC=1
[ ! -e "$tmp/scontrol.log" ] || bad "maintenance drain replaced: $(cat "$tmp/scontrol.log")"
grep -q 'already idle+drain for: maintenance; left alone' "$tmp/log" || bad "not logged: $(cat "$tmp/log")"
ok "--drain leaves a maintenance drain alone"

# 4. Unknown (could not run): exit 0, the job is not held back.
run 0 SLURM_JOB_NODELIST="$nl" FAKE_RC=2
grep -q 'could not run (exit 2)' "$tmp/log" || bad "unknown not logged"
ok "preflight exit 2: job not held back"

# 4b. Inconclusive (too noisy to judge): exit 0, nothing drained, logged
# as such (not as "could not run").
run 0 SLURM_JOB_NODELIST="$nl" FAKE_RC=3
grep -q 'too noisy to judge (inconclusive)' "$tmp/log" || bad "inconclusive not logged: $(cat "$tmp/log")"
[ ! -e "$tmp/scontrol.log" ] || bad "inconclusive drained: $(cat "$tmp/scontrol.log")"
ok "preflight exit 3 (inconclusive): job not held back, nothing drained"

# 5. Settings: extra arguments, no drain, deadline; a bad deadline.
run 0 SLURM_JOB_NODELIST=a1 ROCECHECK_PREFLIGHT_ARGS="--test bw,lat --rails all" \
	ROCECHECK_PROLOG_DRAIN=no ROCECHECK_PREFLIGHT_DEADLINE=30 ROCECHECK_LAUNCHER=ssh
want="preflight --hosts a1 --launcher ssh --deadline 30 --test bw,lat --rails all"
[ "$(argv)" = "$want" ] || bad "argv '$(argv)', want '$want'"
run 0 SLURM_JOB_NODELIST=a1 ROCECHECK_PREFLIGHT_DEADLINE=soon
[ ! -e "$tmp/argv" ] || bad "ran with a bad deadline"
grep -q "bad ROCECHECK_PREFLIGHT_DEADLINE 'soon'" "$tmp/log" || bad "bad deadline not logged"
ok "settings: $want"

# 6. A list scontrol rejects goes to rocecheck's own nodelist parser as is.
run 0 SLURM_JOB_NODELIST='a[1-2]-ib'
case "$(argv)" in "preflight --hosts a[1-2]-ib --launcher srun "*) ok "raw nodelist: $(argv)" ;;
*) bad "raw nodelist: '$(argv)'" ;; esac

# 7. Slurm's prologs: no srun (steps wait for the prolog), launcher none by
# default, slurmd's Prolog sweeps from the first node only (SLURM_NODELIST).
run 0 SLURM_SCRIPT_CONTEXT=prolog_slurmctld SLURM_JOB_NODELIST="$nl"
case "$(argv)" in "preflight --hosts $hosts --launcher none "*) ok "PrologSlurmctld: launcher none" ;;
*) bad "PrologSlurmctld: '$(argv)'" ;; esac
run 0 SLURM_SCRIPT_CONTEXT=prolog_slurmctld SLURM_JOB_NODELIST="$nl" ROCECHECK_LAUNCHER=srun
[ ! -e "$tmp/argv" ] || bad "srun used inside PrologSlurmctld"
grep -q 'launcher srun cannot run inside' "$tmp/log" || bad "srun refusal not logged"
run 0 SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_NODELIST="$nl" SLURMD_NODENAME=node02
[ ! -e "$tmp/argv" ] || bad "Prolog ran on node02, not the first node"
run 1 SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_NODELIST="$nl" SLURMD_NODENAME=node01 FAKE_RC=1
case "$(argv)" in "preflight --hosts $hosts --launcher none "*) ok "Prolog: first node only" ;;
*) bad "Prolog on node01: '$(argv)'" ;; esac
run 0
[ ! -e "$tmp/argv" ] || bad "ran without a nodelist"

# 8. The callback's own usage.
ARGS="--drain" run 2
ARGS="--drain bad02 link flapping" run 0
[ "$(cat "$tmp/scontrol.log")" = 'update|nodename=bad02|state=drain|reason=rocecheck: link flapping' ] ||
	bad "--drain bad02: $(cat "$tmp/scontrol.log")"
ARGS="--bogus" run 2
ok "--drain usage"

# 9. The contract: every option the prolog and this test pass exists in the
# real `rocecheck preflight --help`.
if help=$("$rck" preflight --help 2>&1); then
	for o in --hosts --launcher --deadline --drain-cmd --test --rails; do
		printf '%s\n' "$help" | grep -q -- "$o" || bad "rocecheck preflight --help has no $o"
	done
	printf '%s\n' "$help" | grep -q -- 'srun' || bad "rocecheck preflight --help names no srun launcher"
	ok "options match rocecheck preflight --help"
	# The real preflight runs the prolog's template on a recorded sweep with
	# an unreachable node03: the callback drains it with preflight's reason.
	rm -f "$tmp/scontrol.log"
	mesh=${ROCECHECK_FIXTURES:-$SRC/tests/fixtures}/mesh/sample.json
	env -u ROCECHECK PATH="$tmp/bin:$PATH" ROCECHECK_SLURM_CONF=/nonexistent ROCECHECK_SLURM_LOG="$tmp/log" \
		"$rck" preflight --from-mesh "$mesh" --drain-cmd "$tmpl" >/dev/null 2>&1
	rc=$?
	[ $rc -eq 1 ] || bad "preflight --from-mesh $mesh: exit $rc, want 1"
	case $(cat "$tmp/scontrol.log" 2>/dev/null) in
	'update|nodename=node03|state=drain|reason=rocecheck: host_unreachable '*)
		ok "real preflight --drain-cmd: $(cat "$tmp/scontrol.log")" ;;
	*) bad "real preflight --drain-cmd drained '$(cat "$tmp/scontrol.log" 2>/dev/null)'" ;;
	esac
elif [ "${CI:-}" = true ]; then
	bad "$rck has no 'preflight' command: $help"
else
	echo "# rocecheck preflight missing: contract not checked"
	[ $fails -eq 0 ] && exit 77
fi

if command -v shellcheck >/dev/null; then
	(cd "$SRC/contrib/slurm" && shellcheck -x rocecheck-healthcheck rocecheck-prolog rocecheck-slurm.sh) ||
		bad "shellcheck contrib/slurm"
	ok "shellcheck clean"
fi
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
