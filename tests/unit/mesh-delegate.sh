#!/usr/bin/env bash
# rocecheck mesh (the agents run every probe) on loopback with real agents
# (TCP probes): every ordered pair ok, --schedule a no-op, an agent killed
# mid-sweep costs only its own pairs, incast groups, a chain of busy peers.
. "$(dirname "$0")/agents-lib.sh"
hosts=127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4
# Under valgrind (ROCECHECK_WRAP) the coordinator is many times slower.
slow=1
[ -n "$WRAP" ] && slow=5
cells='[.probes[] | "\(.test) \(.src) \(.dst)"] | sort | join(",")'

sweep() { # schedule, extra options...
	local s=$1
	shift
	timeout 120 $WRAP "$RC" -j mesh --hosts $hosts --launcher 'env H={host} {cmd}' --transport tcp \
		--test bw,lat --iters 20 --size 4096 --schedule "$s" "$@"
}

out=$(sweep agents 2>"$tmp/err") || fail "agents' schedule: $(cat "$tmp/err") $out"
n=$(jq '[.probes[] | select(.result.status == "ok")] | length' <<<"$out")
[ "$n" = 24 ] || fail "agents' schedule: $n ok probes, want 24 (4 hosts x 3 peers x bw,lat): $out"
# Every ordered pair of distinct NICs, each test once, with its measurement.
pairs=$(jq '[.probes[] | select(.src != .dst) | "\(.test) \(.src) \(.dst)"] | unique | length' <<<"$out")
[ "$pairs" = 24 ] || fail "agents' schedule: $pairs distinct (test, src, dst), want 24"
jq -e '[.probes[] | select(.test == "bw") | .result.gbps > 0] | all' <<<"$out" >/dev/null ||
	fail "a bw probe without a rate: $out"
jq -e '[.probes[] | select(.test == "lat") | .result.lat_p50_us > 0] | all' <<<"$out" >/dev/null ||
	fail "a lat probe without a latency: $out"
jq -e '[.probes[] | .result.counters | has("src") and has("dst")] | all' <<<"$out" >/dev/null ||
	fail "a probe without both ends' counters: $out"
a=$(jq -r "$cells" <<<"$out")
echo "ok: agents' schedule, 4 real agents: 24 of 24 probes ok"

out=$(sweep coordinator 2>"$tmp/err") || fail "coordinator's schedule: $(cat "$tmp/err")"
c=$(jq -r "$cells" <<<"$out")
[ "$a" = "$c" ] || fail "the schedules give different cells: agents $a, coordinator $c"
echo "ok: --schedule coordinator (a no-op now) gives the same 24 cells"

# An agent killed half-way: a launcher that records each agent's pid; the
# probes last 0.3 s (2 s under valgrind) so a sweep takes seconds;
# 127.0.0.3 dies 1 s (4 s) after it started.
printf '%s\n' '#!/bin/sh' 'h=$1; shift' 'echo $$ >"$T/$h.pid"' 'exec "$@"' >"$tmp/l"
chmod +x "$tmp/l"
export T=$tmp
t0=$(date +%s)
timeout 120 $WRAP "$RC" -t 2000 -j mesh --hosts $hosts --launcher "$tmp/l {host} {cmd}" --transport tcp \
	--test bw --duration $([ -n "$WRAP" ] && echo 2 || echo 0.3) --schedule agents >"$tmp/out" 2>"$tmp/err" &
sweep_pid=$!
for _ in $(seq $((50 * slow))); do [ -s "$tmp/127.0.0.3.pid" ] && break; sleep 0.1; done
sleep $([ -n "$WRAP" ] && echo 4 || echo 1)
kill -9 "$(cat "$tmp/127.0.0.3.pid")" 2>/dev/null || fail "the agent of 127.0.0.3 was not running"
wait $sweep_pid
rc=$?
secs=$(( $(date +%s) - t0 ))
[ "$rc" = 3 ] || [ "$rc" = 1 ] || fail "killed agent: exit $rc, want 1 or 3: $(cat "$tmp/err")"
out=$(cat "$tmp/out")
jq -e '.hosts[] | select(.name == "127.0.0.3") | .unreachable != null' <<<"$out" >/dev/null ||
	fail "the killed agent's host is not unreachable: $out"
# Probes name NICs; the host's one TCP pseudo NIC.
h3=$(jq '.hosts[] | select(.name == "127.0.0.3") | .nics[0].id' <<<"$out")
# Its pairs: not ok. Every other pair: ok.
bad=$(jq --argjson h "$h3" '[.probes[] | select(.src != $h and .dst != $h and .result.status != "ok")] | length' <<<"$out")
[ "$bad" = 0 ] || fail "killed agent: $bad pairs without it not ok: $out"
mine=$(jq --argjson h "$h3" '[.probes[] | select((.src == $h or .dst == $h) and .result.status == "unreachable")] | length' <<<"$out")
total=$(jq '.probes | length' <<<"$out")
[ "$total" = 12 ] || fail "killed agent: $total cells, want 12"
[ "$secs" -le $((40 * slow)) ] || fail "killed agent: the sweep took $secs s"
echo "ok: agent killed mid-sweep: the 6 pairs without it ok, $mine of its 6 unreachable (others ran before), $secs s"

# Cancelled (SIGINT) half-way: the agents stop, the rest is skipped.
t0=$(date +%s)
timeout 120 $WRAP "$RC" -j mesh --hosts $hosts --launcher 'env H={host} {cmd}' --transport tcp \
	--test bw --duration $([ -n "$WRAP" ] && echo 3 || echo 0.5) --schedule agents >"$tmp/out" 2>"$tmp/err" &
sweep_pid=$!
# The cancel must reach a sweep that runs: once it has launched its agents
# its handler is set (a CI run under ASan once got nothing on either stream
# from a SIGINT sent 2 s after the start). Bounded: 30 s.
for _ in $(seq 150); do
	rc_pid=$(pgrep -P $sweep_pid | head -1)
	[ -n "$rc_pid" ] && pgrep -P "$rc_pid" >/dev/null && break
	sleep 0.2
done
sleep $slow
kill -INT $sweep_pid
wait $sweep_pid
secs=$(( $(date +%s) - t0 ))
n=$(jq '[.probes[] | select(.result.status == "skipped" and .result.reason == "cancelled")] | length' "$tmp/out")
[ "${n:-0}" -gt 0 ] || fail "cancel: no probe skipped as cancelled: $(cat "$tmp/out" "$tmp/err")"
[ "$secs" -le $((15 * slow)) ] || fail "cancel: the sweep took $secs s"
echo "ok: cancelled: $n probes skipped, $secs s"

# incast:2 on the one engine: each host in turn receives from the next two
# at once; every member its own cell, all ok.
out=$(sweep agents --pattern incast:2 2>"$tmp/err") || fail "incast:2: $(cat "$tmp/err") $out"
n=$(jq '[.probes[] | select(.result.status == "ok")] | length' <<<"$out")
[ "$n" = 16 ] || fail "incast:2: $n ok probes, want 16 (4 receivers x 2 senders x bw,lat): $out"
echo "ok: incast:2 by the agents: 16 of 16 probes ok"

# A guest killed mid-incast costs only the groups it is in: incast:2 on 5
# hosts, receivers in turn (h1 <- h2,h3; h2 <- h3,h4; h3 <- h4,h5; ...);
# 127.0.0.5 dies while the third group runs, so the first two (receivers
# 127.0.0.1 and .2, without it) are all ok.
rm -f "$tmp"/*.pid
t0=$(date +%s)
timeout 120 $WRAP "$RC" -t 2000 -j mesh --hosts $hosts,127.0.0.5 --launcher "$tmp/l {host} {cmd}" \
	--transport tcp --test bw --duration $([ -n "$WRAP" ] && echo 2 || echo 0.4) --pattern incast:2 \
	>"$tmp/out" 2>"$tmp/err" &
sweep_pid=$!
for _ in $(seq $((50 * slow))); do [ -s "$tmp/127.0.0.5.pid" ] && break; sleep 0.1; done
sleep $([ -n "$WRAP" ] && echo 6 || echo 1.2)
kill -9 "$(cat "$tmp/127.0.0.5.pid")" 2>/dev/null || fail "the agent of 127.0.0.5 was not running"
wait $sweep_pid
secs=$(( $(date +%s) - t0 ))
out=$(cat "$tmp/out")
jq -e '.hosts[] | select(.name == "127.0.0.5") | .unreachable != null' <<<"$out" >/dev/null ||
	fail "mid-incast: the killed agent's host is not unreachable: $out"
first=$(jq '[.hosts[] | select(.name == "127.0.0.1" or .name == "127.0.0.2") | .nics[0].id] as $r |
	[.probes[] | select(.dst as $d | $r | index($d)) | select(.result.status == "ok")] | length' <<<"$out")
[ "$first" = 4 ] || fail "mid-incast: $first of the 4 probes of the groups without the killed host ok: $out"
[ "$secs" -le $((40 * slow)) ] || fail "mid-incast: the sweep took $secs s"
echo "ok: a host killed mid-incast: the groups without it ok (4 of 4), $secs s"

# --bidir: both directions of each pair at once, each its own cell; the
# two directions' probes overlap in time. On a starved runner (CI's ASan
# step: 0.3 s probes taking 1.1 s) a direction has been measured only
# after its reverse ended (cause not found; docs/mesh.md), so a sweep is
# run up to 3 times: every probe must be ok each time, and every pair
# must overlap in one of them.
for try in 1 2 3; do
	out=$(timeout 120 $WRAP "$RC" -j mesh --hosts $hosts --launcher 'env H={host} {cmd}' --transport tcp \
		--test bw --duration 0.3 --bidir 2>"$tmp/err") || fail "--bidir: $(cat "$tmp/err") $out"
	n=$(jq '[.probes[] | select(.result.status == "ok")] | length' <<<"$out")
	[ "$n" = 12 ] || fail "--bidir: $n ok probes, want 12: $out"
	apart=$(jq '[.probes[] as $p | .probes[] | select(.src == $p.dst and .dst == $p.src) |
		select(.result.start_s >= $p.result.start_s + $p.result.seconds or
		       $p.result.start_s >= .result.start_s + .result.seconds)] | length' <<<"$out")
	[ "$apart" = 0 ] && break
	echo "# --bidir, sweep $try: $apart directions did not overlap their reverse: $(jq -c '[.probes[] |
		[.src, .dst, .result.start_s, .result.seconds]]' <<<"$out")"
done
[ "$apart" = 0 ] || fail "--bidir: in 3 sweeps, directions did not overlap their reverse (last: $apart); stderr: $(cat "$tmp/err")"
echo "ok: --bidir: 12 of 12 directions ok, each pair's two at once"

# --bidir with a starved client: 127.0.0.2's agent waits 1 s (5 s under
# valgrind) before each probe it runs as a client, three times a probe's
# 0.3 s. Each serve end holds its client until the reverse direction's
# local client is connected (probes/task.h), so every pair still overlaps,
# in one sweep; before that, 127.0.0.2's reverses had ended first.
printf '%s\n' '#!/bin/sh' 'h=$1; shift' '[ "$h" = 127.0.0.2 ] && exec "$@" --test-client-delay "$D"' \
	'exec "$@"' >"$tmp/starve"
chmod +x "$tmp/starve"
out=$(D=$slow timeout 120 $WRAP "$RC" -t $((10000 * slow)) -j mesh --hosts $hosts --launcher "$tmp/starve {host} {cmd}" \
	--transport tcp --test bw --duration 0.3 --bidir 2>"$tmp/err") || fail "--bidir, starved: $(cat "$tmp/err") $out"
n=$(jq '[.probes[] | select(.result.status == "ok")] | length' <<<"$out")
[ "$n" = 12 ] || fail "--bidir, starved: $n ok probes, want 12: $out"
apart=$(jq '[.probes[] as $p | .probes[] | select(.src == $p.dst and .dst == $p.src) |
	select(.result.start_s >= $p.result.start_s + $p.result.seconds or
	       $p.result.start_s >= .result.start_s + .result.seconds)] | length' <<<"$out")
[ "$apart" = 0 ] || fail "--bidir, starved client: $apart directions did not overlap their reverse: $(jq -c '[.probes[] |
	[.src, .dst, .result.start_s, .result.seconds]]' <<<"$out")"
echo "ok: --bidir with a client starved 3 probes long: 12 of 12 ok, each pair's two at once"

# A chain of busy peers: 127.0.0.2 runs four probes with the others
# before its one with 127.0.0.1, whose only task it is; each lasts 0.4 s,
# longer together than one wait (0.3 s timeout + 2 probes), so 127.0.0.1's
# wait must start when its peer comes to it.
printf '%s\n' '127.0.0.2 127.0.0.3' '127.0.0.3 127.0.0.2' '127.0.0.4 127.0.0.2' '127.0.0.2 127.0.0.4' \
	'127.0.0.1 127.0.0.2' >"$tmp/chain"
out=$(timeout 120 $WRAP "$RC" -t $((300 * slow)) -j mesh --hosts $hosts --launcher 'env H={host} {cmd}' \
	--transport tcp --test bw --duration 0.4 --pattern pairs --pairs "$tmp/chain" 2>"$tmp/err") ||
	fail "chain of busy peers: $(cat "$tmp/err") $out"
n=$(jq '[.probes[] | select(.result.status == "ok")] | length' <<<"$out")
[ "$n" = 5 ] || fail "chain of busy peers: $n of 5 probes ok: $out"
echo "ok: a chain of busy peers: 5 of 5 probes ok"

# Bad uses: an unknown schedule; --schedule coordinator is a no-op now.
$WRAP "$RC" mesh --hosts a,b --schedule nobody >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "invalid --schedule" "$tmp/err" || fail "--schedule nobody: $(cat "$tmp/err")"
echo "ok: bad schedules refused"
