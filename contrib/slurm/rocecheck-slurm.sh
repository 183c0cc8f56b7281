# shellcheck shell=bash
# Shared by rocecheck-healthcheck and rocecheck-prolog (sourced, bash): the
# settings, the log, and the drain/resume rules (only "rocecheck:" reasons).

# rck_settings NAME...: each setting from the environment, else from the
# config file ($ROCECHECK_SLURM_CONF, default /etc/rocecheck/slurm.conf, a
# shell fragment of NAME=value lines), else left for the caller's default.
rck_settings() {
	local _rck_v _rck_conf=${ROCECHECK_SLURM_CONF:-/etc/rocecheck/slurm.conf}
	declare -A _rck_env=()
	for _rck_v in "$@"; do
		[ -n "${!_rck_v+x}" ] && _rck_env[$_rck_v]=${!_rck_v}
	done
	if [ -r "$_rck_conf" ]; then
		# shellcheck source=/dev/null
		. "$_rck_conf"
	elif [ -e "$_rck_conf" ]; then
		rck_log "cannot read $_rck_conf; built-in defaults"
	fi
	for _rck_v in "${!_rck_env[@]}"; do
		printf -v "$_rck_v" '%s' "${_rck_env[$_rck_v]}"
	done
}

# slurmd throws away a script's output: a log file if configured, else syslog;
# stderr as well (slurmd quotes it when the script fails).
rck_log() {
	if [ -n "${ROCECHECK_SLURM_LOG:-}" ]; then
		printf '%s %s[%d]: %s\n' "$(date '+%Y-%m-%dT%H:%M:%S')" "$RCK_PROG" "$$" "$*" \
			>>"$ROCECHECK_SLURM_LOG"
	else
		logger -t "$RCK_PROG" -- "$*" 2>/dev/null || true
	fi
	printf '%s: %s\n' "$RCK_PROG" "$*" >&2
}

# rck_seconds VALUE NAME: VALUE is whole seconds > 0, or a logged complaint.
rck_seconds() {
	case $1 in
	'' | *[!0-9]* | 0)
		rck_log "bad $2 '$1' (whole seconds > 0)"
		return 1
		;;
	esac
}

rck_scontrol() {
	timeout 20 "${ROCECHECK_SCONTROL:-scontrol}" "$@"
}

# rck_node_status NODE: sets rck_state (lower case: idle, idle+drain, down*,
# ...), rck_reason (without "[user@time]"), rck_ours (reason "rocecheck:...")
# and rck_held (drained, draining, down or failing).
rck_node_status() {
	local out
	out=$(rck_scontrol -o show node "$1" 2>&1) || {
		rck_log "scontrol show node $1 failed: $out"
		return 1
	}
	rck_state=$(printf '%s\n' "$out" | sed -n 's/.* State=\([^ ]*\).*/\1/p' | tr '[:upper:]' '[:lower:]')
	# The reason may hold blanks; Slurm appends " [user@time]" to it.
	rck_reason=$(printf '%s\n' "$out" | sed -n 's/.* Reason=\(.*\) \[[^]]*\].*/\1/p')
	[ -n "$rck_state" ] || {
		rck_log "no State= for $1 in: $out"
		return 1
	}
	rck_ours=false
	case $rck_reason in rocecheck:*) rck_ours=true ;; esac
	rck_held=false
	case $rck_state in *drain* | *down* | *fail*) rck_held=true ;; esac
}

rck_update() {
	local node=$1 out
	shift
	if out=$(rck_scontrol update nodename="$node" "$@" 2>&1); then
		rck_log "node $node: $*"
		return 0
	fi
	rck_log "scontrol update nodename=$node $* failed: $out"
	return 1
}

# rck_drain NODE REASON: drains NODE with REASON (which starts "rocecheck:")
# unless someone else holds it with a reason of their own. 0 done or left
# alone on purpose, 1 scontrol failed.
rck_drain() {
	local node=$1 reason=$2
	rck_node_status "$node" || return 1
	if $rck_held && ! $rck_ours && [ -n "$rck_reason" ]; then
		rck_log "degraded ($reason), but $node is already $rck_state for: $rck_reason; left alone"
	elif $rck_held && [ "$rck_reason" = "$reason" ]; then
		rck_log "degraded, $node already $rck_state: $reason"
	else
		rck_update "$node" state=drain reason="$reason" || return 1
	fi
}

# rck_resume NODE: resumes NODE only if our own reason holds it.
rck_resume() {
	local node=$1
	rck_node_status "$node" || return 1
	if $rck_held && $rck_ours; then
		rck_update "$node" state=resume || return 1
		rck_log "healthy: resumed $node (was: $rck_reason)"
	elif $rck_held; then
		rck_log "healthy; $node stays $rck_state for someone else's reason: ${rck_reason:-none}"
	else
		rck_log "healthy; $node $rck_state"
	fi
}
