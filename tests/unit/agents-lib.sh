# Shared start of the loopback agent tests (sourced): $RC, $WRAP, a scratch
# $tmp whose *.pid agents are killed on exit, fail(), rocecheck on PATH.
set -u
RC=${ROCECHECK:?ROCECHECK not set}
WRAP=${ROCECHECK_WRAP:-}
tmp=$(mktemp -d)
cleanup() {
	# Only the script itself: a job forked by it and killed before its exec
	# would run this trap too (bash runs the EXIT trap on a fatal signal).
	[ "$BASHPID" = "$$" ] || return 0
	for f in "$tmp"/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Launcher templates run the agent by name ({cmd}).
export PATH=${RC%/*}:$PATH
