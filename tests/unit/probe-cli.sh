#!/usr/bin/env bash
# Command-line contract of `rocecheck probe` on the host: argument errors
# (exit 2), a TCP-transport server and client over loopback (0), refused
# and idle peers (3), RDMA without a device (4); one-line errors, JSON; a
# listener whose stdout reader goes away, a busy server, the server's caps.
set -u
rck=${ROCECHECK:?ROCECHECK not set}
wrap=${ROCECHECK_WRAP:-}
fails=0 n=0
tmp=$(mktemp -d)
srv=
cleanup() {
	# Only the script itself: a job forked by it and killed before its exec
	# would run this trap too (bash runs the EXIT trap on a fatal signal).
	[ "$BASHPID" = "$$" ] || return 0
	[ -n "$srv" ] && kill "$srv" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

. "$(dirname "$0")/free-port.sh"

# listen OUT ARGS...: a TCP-transport listener on $port in the background
# ($srv), stdout to OUT, stderr to $tmp/srv.err; returns once it listens.
listen() {
	local out=$1
	shift
	# Not the last server's line: the redirection below may wait for a FIFO's reader.
	rm -f "$tmp/srv.err"
	$wrap "$rck" -v probe --listen --transport tcp --bind 127.0.0.1 --port "$port" "$@" \
		>"$out" 2>"$tmp/srv.err" &
	srv=$!
	for _ in $(seq 100); do
		grep -qs 'listening on port' "$tmp/srv.err" && break
		sleep 0.1
	done
}

# expect RC ARGS...: run the tool (bounded) and compare the exit code.
expect() {
	local want=$1 got
	shift
	n=$((n + 1))
	timeout 60 $wrap "$rck" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: rocecheck $*: exit $got, want $want"
		sed 's/^/  stderr: /' "$tmp/err" | head -5
		fails=$((fails + 1))
		return 1
	fi
	# One error line; an unknown word or option adds the usage after it.
	if [ "$want" != 0 ] && [ "$(sed '/^Usage: /,$d' "$tmp/err" | grep -vc '^==')" != 1 ]; then
		echo "FAIL: rocecheck $*: stderr is not one line:"
		sed 's/^/  /' "$tmp/err"
		fails=$((fails + 1))
		return 1
	fi
	return 0
}

cases=(
	"2|probe"
	"2|probe 127.0.0.1 extra"
	"2|probe 127.0.0.1 --test nope"
	"2|probe 127.0.0.1 --size 0"
	"2|probe 127.0.0.1 --size 2G"
	"2|probe 127.0.0.1 --size 12Q"
	"2|probe 127.0.0.1 --qps 0"
	"2|probe 127.0.0.1 --qps 257"
	"2|probe 127.0.0.1 --tclass 256"
	"2|probe 127.0.0.1 --mtu 1000"
	"2|probe 127.0.0.1 --udp-sport 80"
	"2|probe 127.0.0.1 --duration 1 --iters 5"
	"2|probe 127.0.0.1 --test lat --bidir"
	"2|probe 127.0.0.1 --cm --gid-index 1"
	"2|probe 127.0.0.1 --transport tcp --cm"
	"2|probe 127.0.0.1 --transport quic"
	"2|probe 127.0.0.1 --port 0"
	"2|probe 127.0.0.1 --sessions 3"
	"2|probe --listen 127.0.0.1"
	"2|probe 127.0.0.1 --max-qps 4"
	"2|probe --listen --max-qps 0"
	"2|probe --listen --max-qps 257"
	"2|probe --listen --max-size 1"
	"2|probe --listen --max-size 12Q"
	"2|probe --listen --max-duration 0"
	"2|probe --listen --max-duration nan"
	"2|probe --listen --hello-timeout -1"
	"2|probe -d bad/port/x 127.0.0.1"
	"0|probe --help"
)
for c in "${cases[@]}"; do
	# shellcheck disable=SC2086
	expect "${c%%|*}" ${c#*|}
done

# A server over loopback for the TCP transport, serving two sessions.
port=$(free_port)
listen "$tmp/srv.out" --sessions 2 --idle 60
if expect 0 probe 127.0.0.1 --port "$port" --transport tcp --iters 200; then
	grep -q 'TCP bandwidth' "$tmp/out" || { echo "FAIL: no TCP bandwidth heading"; cat "$tmp/out"; fails=$((fails + 1)); }
fi
if expect 0 -j probe 127.0.0.1 --port "$port" --transport tcp --test lat --iters 100; then
	python3 - "$tmp/out" <<'EOF' || fails=$((fails + 1))
import json, sys
j = json.load(open(sys.argv[1]))
assert j["transport"] == "tcp" and j["status"] == "ok", j
assert j["latency_us"]["samples"] == 100 and j["latency_us"]["p50"] > 0, j
EOF
fi
wait "$srv"
rc=$?
srv=
n=$((n + 1))
if [ "$rc" != 0 ] || [ "$(grep -c '^ TCP' "$tmp/srv.out")" != 2 ]; then
	echo "FAIL: server exit $rc (want 0), output:"
	cat "$tmp/srv.out" "$tmp/srv.err"
	fails=$((fails + 1))
fi

# The listener's stdout is a pipe whose reader leaves after one byte: the
# listener must not die of SIGPIPE, say so once, and serve every session.
port=$(free_port)
mkfifo "$tmp/fifo"
head -c 1 "$tmp/fifo" >/dev/null &
listen "$tmp/fifo" --sessions 3 --idle 30
for _ in 1 2 3; do
	expect 0 probe 127.0.0.1 --port "$port" --transport tcp --iters 50
done
wait "$srv"
rc=$?
srv=
n=$((n + 1))
if [ "$rc" != 1 ] || ! grep -q 'cannot write results to stdout' "$tmp/srv.err"; then
	echo "FAIL: listener with a vanished stdout reader: exit $rc (want 1, not 141 = SIGPIPE):"
	cat "$tmp/srv.err"
	fails=$((fails + 1))
fi

# A second client while a session runs: "server busy" at once, exit 3;
# a session above the operator's caps: refused, exit 2, naming the cap.
port=$(free_port)
# Under valgrind the second client's own start can outlast a 3 s session,
# which would then serve it: there the first session lasts 20 s and is cut.
first_s=3
[ -n "$wrap" ] && first_s=20
listen /dev/null --sessions 3 --idle 30 --max-qps 2 --max-duration 25
timeout 30 "$rck" probe 127.0.0.1 --port "$port" --transport tcp --test lat --duration "$first_s" >/dev/null 2>&1 &
first=$!
# The first client's connection must be queued before the second's (the
# listener accepts in order); a fixed sleep was too short for a listener
# under valgrind on a loaded runner, which then served the second client.
for _ in $(seq 100); do
	[ -n "$(ss -Htn state established "( dport = :$port )" 2>/dev/null)" ] && break
	sleep 0.1
done
sleep 0.2
t0=$(date +%s%N)
expect 3 probe 127.0.0.1 --port "$port" --transport tcp && grep -q 'server busy' "$tmp/err" ||
	{ echo "FAIL: second client: $(cat "$tmp/err")"; fails=$((fails + 1)); }
ms=$((($(date +%s%N) - t0) / 1000000))
n=$((n + 1))
# (Under valgrind the client's own start takes longer than that.)
[ "$ms" -lt 1000 ] || [ -n "$wrap" ] || { echo "FAIL: busy refusal took $ms ms"; fails=$((fails + 1)); }
if [ -n "$wrap" ]; then
	kill "$first" 2>/dev/null
	wait "$first"
else
	wait "$first" || { echo "FAIL: the first client: exit $?"; fails=$((fails + 1)); }
fi
expect 2 probe 127.0.0.1 --port "$port" --transport tcp --qps 3 && grep -q 'at most 2 (--max-qps)' "$tmp/err" ||
	{ echo "FAIL: --max-qps refusal: $(cat "$tmp/err")"; fails=$((fails + 1)); }
expect 2 probe 127.0.0.1 --port "$port" --transport tcp --duration 26 && grep -q '(--max-duration)' "$tmp/err" ||
	{ echo "FAIL: --max-duration refusal: $(cat "$tmp/err")"; fails=$((fails + 1)); }
wait "$srv"
srv=

# Nobody there; a server nobody calls.
port=$(free_port)
expect 3 probe 127.0.0.1 --port "$port" --transport tcp
expect 3 probe --listen --port "$port" --idle 0.3
expect 3 -t 300 probe no-such-host.invalid --transport tcp
# RDMA on a host without an RDMA device: named, exit 4 (skipped where there is one).
if [ ! -e /sys/class/infiniband ]; then
	port=$(free_port)
	$wrap "$rck" probe --listen --bind 127.0.0.1 --port "$port" --sessions 1 --idle 30 >/dev/null 2>&1 &
	srv=$!
	sleep 0.5
	expect 4 probe 127.0.0.1 --port "$port" && grep -q 'no RDMA device' "$tmp/err" ||
		{ echo "FAIL: RDMA without a device: $(cat "$tmp/err")"; fails=$((fails + 1)); }
	wait "$srv"
	srv=
fi

echo "$((n - fails))/$n probe CLI cases passed"
[ "$fails" = 0 ]
