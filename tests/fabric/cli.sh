#!/usr/bin/env bash
# Fabric test: rocelab's command line (usage, exit codes, bad arguments) and
# its cleanup: a failed `up` leaves nothing, a second `up` spares the first lab.

. "$(dirname "$0")/lib.sh"
L=$ROCELAB
[ -x "$L" ] || need "rocelab not found at $L"

expect_rc() { # rc args...
	local want=$1 rc
	shift
	"$L" "$@" >/tmp/fab-cli.out 2>&1
	rc=$?
	[ "$rc" = "$want" ] || fail "rocelab $* exited $rc, not $want: $(cat /tmp/fab-cli.out)"
}
expect_rc 2
grep -q '^usage: rocelab' /tmp/fab-cli.out || fail "no usage without arguments"
expect_rc 2 frobnicate
expect_rc 0 --help
grep -q 'impair NODE' /tmp/fab-cli.out || fail "--help does not describe impair"
expect_rc 0 -h
expect_rc 2 up --nodes 0
expect_rc 2 up --nodes x
expect_rc 2 up --bogus
expect_rc 2 up --subnet 10.1
expect_rc 2 exec
expect_rc 2 impair
expect_rc 2 kill
expect_rc 2 perf n1
expect_rc 1 up --name 'bad/name'
expect_rc 1 exec --name fab-cli-none n1 -- true
grep -q "no lab 'fab-cli-none'" /tmp/fab-cli.out || fail "exec on a missing lab: $(cat /tmp/fab-cli.out)"
ok "usage and exit codes"

fabric_prereqs
export ROCELAB_NAME=${ROCELAB_LAB_PREFIX:-}fab-cli
"$L" down >/dev/null 2>&1
trap 'lab_down' EXIT

# A boot that cannot finish in time fails, shows the console, and cleans up.
expect_rc 1 up --nodes 2 --timeout 1 ${BUILD_DIR:+--build-dir "$BUILD_DIR"}
grep -q 'not ready' /tmp/fab-cli.out || fail "failed up gave no reason: $(cat /tmp/fab-cli.out)"
grep -q 'console of n1' /tmp/fab-cli.out || fail "failed up did not show the console"
assert_gone fab-cli
ok "failed up: reason and console shown, nothing left"

lab_up fab-cli 1
expect_rc 1 up --nodes 1
grep -q 'exists' /tmp/fab-cli.out || fail "second up: $(cat /tmp/fab-cli.out)"
[ "$("$L" exec 1 -- hostname)" = n1 ] || fail "the first lab was hurt by the second up"
expect_rc 1 exec n2 -- true
expect_rc 2 exec n1 true
expect_rc 2 impair n1 rate=fast
expect_rc 2 impair n1 loss=200
expect_rc 2 impair n1 wobble
expect_rc 1 impair n1 --to n1 delay=5
expect_rc 0 status
grep -q "lab $ROCELAB_NAME: 1 nodes" /tmp/fab-cli.out || fail "status: $(cat /tmp/fab-cli.out)"
expect_rc 0 console n1
grep -q 'ROCELAB-READY n1' /tmp/fab-cli.out || fail "console: $(cat /tmp/fab-cli.out)"
ok "second up refused, first lab intact; bad NODE and impair arguments refused"
rm -f /tmp/fab-cli.out
