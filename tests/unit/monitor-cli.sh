#!/usr/bin/env bash
# `rocecheck monitor` on loopback: three monitors probing each other over
# UDP, one stopped (named by the others within K windows), SIGTERM ends them
# cleanly, the textfile and NPD line, counters of a recorded tree, bad input.
set -u
rck=$(realpath "${ROCECHECK:?ROCECHECK not set}")
wrap=${ROCECHECK_WRAP:-}
fix=${ROCECHECK_FIXTURES:?ROCECHECK_FIXTURES not set}/sysfs
t=$(mktemp -d /tmp/rck-monitor.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$t"
}
trap cleanup EXIT
fails=0 n=0

check() {
	n=$((n + 1))
	if ! eval "$2"; then
		echo "FAIL: $1"
		fails=$((fails + 1))
	fi
}

# three ports in a range other loopback tests do not use, from the pid
base=$((20000 + ($$ % 2000) * 3))
pa=$base pb=$((base + 1)) pc=$((base + 2))
printf 'b 127.0.0.1:%s rate=10\nc 127.0.0.1:%s rate=10\n' "$pb" "$pc" >"$t/a.pl"
printf 'a 127.0.0.1:%s rate=10\nc 127.0.0.1:%s rate=10\n' "$pa" "$pc" >"$t/b.pl"
printf 'a 127.0.0.1:%s rate=10\nb 127.0.0.1:%s rate=10\n' "$pa" "$pb" >"$t/c.pl"

start() { # NAME PORT EXTRA... : a monitor in the background, probes only
	local name=$1 port=$2
	shift 2
	# shellcheck disable=SC2086
	timeout 60 $wrap "$rck" monitor --pinglist "$t/$name.pl" --listen 127.0.0.1 --port "$port" \
		--window 1 --hold 2/3 --no-counters --self "$name" "$@" >"$t/$name.out" 2>"$t/$name.err" &
	pids+=($!)
}

start a "$pa" --textfile "$t/a.prom" --npd "$t/a.npd"
pid_a=$!
start b "$pb" --metrics 127.0.0.1:0
pid_b=$!
start c "$pc"
pid_c=$!
# healthy for 4 windows: no finding anywhere. The probes a monitor sends
# before a later one has bound its port are lost (counted 1 s after): the
# count is taken once that is over and must not grow after it.
lost_c() { sed -n "s/^rocecheck_monitor_probes_lost_total{device=\"udp\",port=\"$pa\",peer=\"c\"} //p" "$t/a.prom"; }
# Started first: under valgrind on a loaded host a monitor took over 4 s to
# write its first textfile and its started event (bounded: 40 s).
for _ in $(seq 200); do
	[ -s "$t/a.prom" ] && grep -q '"event":"started"' "$t/b.out" "$t/c.out" 2>/dev/null &&
		[ "$(grep -c '"event":"started"' "$t/b.out" "$t/c.out" | grep -c ':1$')" = 2 ] && break
	sleep 0.2
done
sleep 2.5
lost_c0=$(lost_c)
sleep 2
# no RDMA device serves 127.0.0.1: UDP, said per peer
check "probe path: udp, software timestamps" 'grep -q "\"event\":\"probe_path\",\"peer\":\"b\",\"transport\":\"udp\",\"timestamps\":\"software\",\"device\":\"udp\"" "$t/a.out" &&
	grep -q "rocecheck_monitor_probe_path{device=\"udp\",port=\"$pa\",peer=\"b\",transport=\"udp\",timestamps=\"software\"} 1" "$t/a.prom"'
check "healthy: no finding" '! grep -q "\"event\":\"finding\"" "$t/a.out" "$t/b.out" "$t/c.out"'
check "textfile: up, sw timestamps" 'grep -q "^rocecheck_monitor_up 1$" "$t/a.prom" &&
	grep -q "rocecheck_monitor_timestamping{device=\"udp\",port=\"$pa\",kind=\"sw\"} 1" "$t/a.prom"'
check "textfile: RTT quantiles per peer" 'grep -q "rocecheck_monitor_rtt_seconds{device=\"udp\",port=\"$pa\",peer=\"b\",quantile=\"0.99\"}" "$t/a.prom"'
# Under valgrind a slowed monitor can miss a pong's deadline: the count is
# then only checked to be there (the healthy check above still holds).
if [ -z "$wrap" ]; then
	check "textfile: no probe lost once all run" '[ -n "$lost_c0" ] && [ "$(lost_c)" = "$lost_c0" ]'
else
	check "textfile: probes lost counted" 'grep -q "rocecheck_monitor_probes_lost_total{device=\"udp\",port=\"$pa\",peer=\"c\"} [0-9]" "$t/a.prom"'
fi
# b serves /metrics (a free port, named in its started event); other paths 404
mport=$(sed -n 's/.*"event":"started".*"metrics_port":\([0-9]*\).*/\1/p' "$t/b.out")
check "metrics: a port in the started event" '[ -n "$mport" ] && [ "$mport" -gt 0 ]'
scrape() { python3 -c 'import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen("http://127.0.0.1:%s%s" % (sys.argv[1], sys.argv[2]), timeout=5)
    sys.stdout.write(r.read().decode())
except urllib.error.HTTPError as e:
    print("HTTP", e.code)' "$mport" "$1"; }
check "metrics: /metrics served, promtool accepts it" 'scrape /metrics >"$t/b.http" && grep -q "^rocecheck_monitor_up 1$" "$t/b.http" &&
	promtool check metrics <"$t/b.http"'
check "metrics: other paths 404" '[ "$(scrape /)" = "HTTP 404" ]'
check "npd: healthy" 'grep -qx "rocecheck monitor: healthy" "$t/a.npd"'
# c stops: a and b name c (probe_failed) within K windows plus the timeout
kill -TERM "$pid_c"
wait "$pid_c"
rc=$?
check "SIGTERM: exit 0" '[ $rc -eq 0 ]'
check "SIGTERM: stopped event" 'tail -n 1 "$t/c.out" | grep -q "\"event\":\"stopped\""'
sleep 5
check "a names c" 'grep -q "\"state\":\"active\",\"code\":\"probe_failed\",.*\"peer\":\"c\"" "$t/a.out"'
check "b names c" 'grep -q "\"code\":\"probe_failed\",.*\"peer\":\"c\"" "$t/b.out"'
check "nothing about b" '! grep -q "\"event\":\"finding\".*\"peer\":\"b\"" "$t/a.out"'
check "npd names it" 'grep -q "rocecheck monitor: probe_failed udp/$pa c" "$t/a.npd"'
check "npd: one line of at most 80, with its reason" '[ "$(wc -l <"$t/a.npd")" = 1 ] && [ "$(head -n 1 "$t/a.npd" | wc -L)" -le 80 ] && grep -q "rocecheck monitor: probe_failed udp/$pa c: [a-z]" "$t/a.npd"'
check "finding gauge" 'grep -q "rocecheck_monitor_finding{code=\"probe_failed\",device=\"udp\",port=\"$pa\",peer=\"c\",severity=\"degraded\"} 1" "$t/a.prom"'
check "promtool is installed (ci/install-deps.sh)" 'command -v promtool >/dev/null'
check "promtool accepts the textfile" 'promtool check metrics <"$t/a.prom" >"$t/promtool" 2>&1 || { cat "$t/promtool"; false; }'
# c back: cleared
start c "$pc"
pid_c=$!
sleep 5
check "c back: cleared" 'grep -q "\"state\":\"cleared\",\"code\":\"probe_failed\",.*\"peer\":\"c\"" "$t/a.out"'
kill -TERM "$pid_a" "$pid_b" "$pid_c"
wait "$pid_a" "$pid_b" "$pid_c" 2>/dev/null

# counters of a recorded tree: link state and the state gauges per port
timeout 30 $wrap "$rck" --sysfs-root "$fix/mlx5" monitor --port 0 --listen 127.0.0.1 --duration 2.5 \
	--window 1 --textfile "$t/m.prom" >"$t/m.out" 2>"$t/m.err"
rc=$?
check "recorded tree: exit 0" '[ $rc -eq 0 ]'
check "recorded tree: link_up" 'grep -q "^rocecheck_monitor_link_up{device=\"mlx5_0\",port=\"1\"} 1" "$t/m.prom"'
check "recorded tree: no state change" '! grep -q "rocecheck_monitor_state_changed{.*} 1" "$t/m.prom"'
check "recorded tree: no finding" '! grep -q "\"event\":\"finding\"" "$t/m.out"'
check "recorded tree: pause time from the NIC's counters, said once" '[ "$(grep -c "\"event\":\"pause_source\"" "$t/m.out")" -eq 1 ] && grep -q "\"pause_source\",\"device\":\"mlx5_0\",\"port\":1,\"source\":\"nic\"" "$t/m.out"'
# rxe has no PFC counters; a recorded tree has no frames to count either
timeout 30 $wrap "$rck" --sysfs-root "$fix/rxe" monitor --port 0 --listen 127.0.0.1 --duration 1.5 \
	>"$t/r.out" 2>"$t/r.err"
rc=$?
check "recorded rxe: exit 0" '[ $rc -eq 0 ]'
check "recorded rxe: pause source none, said why" 'grep -q "\"pause_source\",\"device\":\"rxe0\",\"port\":1,\"source\":\"none\",\"reason\":\"the NIC has no PFC counters (a recorded tree" "$t/r.out"'

# the pinglist built from a host list: same leaf at 10/s, a sample of others
printf 'h0 10.0.0.1 leaf=L0\nh1 10.0.0.2 leaf=L0\nh2 10.0.1.1 leaf=L1\nh3 10.0.1.2 leaf=L1\nh4 10.0.2.1 leaf=L2\n' >"$t/hosts"
"$rck" monitor --hosts "$t/hosts" --self h0 --sample 2 --round 1 --print-pinglist >"$t/out" 2>"$t/err"
check "built pinglist" 'grep -qx "h1 10.0.0.2 rate=10 leaf=L0" "$t/out" && [ "$(grep -c "rate=1 " "$t/out")" -eq 2 ] && ! grep -q "^h0 " "$t/out"'
# bad input: one line naming it, exit 2, nothing started
printf 'a 127.0.0.1 rate=1\na 10.0.0.1\n' >"$t/bad.pl"
"$rck" monitor --pinglist "$t/bad.pl" >"$t/out" 2>"$t/err"
rc=$?
check "bad pinglist: exit 2" '[ $rc -eq 2 ]'
check "bad pinglist: one line naming the file and line" '[ "$(wc -l <"$t/err")" -eq 1 ] && grep -q "bad.pl:2: peer listed twice" "$t/err" && [ ! -s "$t/out" ]'
"$rck" monitor --pinglist /nonexistent >"$t/out" 2>"$t/err"
rc=$?
check "missing pinglist: exit 2, named" '[ $rc -eq 2 ] && grep -q "/nonexistent" "$t/err"'
"$rck" monitor --hosts "$t/hosts" --self nobody --print-pinglist >"$t/out" 2>"$t/err"
rc=$?
check "--self not listed: exit 2" '[ $rc -eq 2 ] && grep -q "nobody" "$t/err"'
"$rck" monitor --hold 3/2 >"$t/out" 2>"$t/err"
rc=$?
check "--hold 3/2: exit 2" '[ $rc -eq 2 ]'
"$rck" monitor --no-counters --port 0 --listen 127.0.0.1 --metrics localhost:9100 --duration 1 >"$t/out" 2>"$t/err"
rc=$?
check "--metrics with a name, not an address, fails loudly" '[ $rc -eq 1 ] && grep -q "metrics" "$t/err"'

# --transport: a bad word is refused; rdma without a device for the peer fails loudly
"$rck" monitor --transport infiniband --duration 1 >"$t/out" 2>"$t/err"
rc=$?
check "--transport infiniband: exit 2, named" '[ $rc -eq 2 ] && grep -q "transport" "$t/err"'
"$rck" monitor --transport rdma --pinglist "$t/a.pl" --no-counters --port 0 --listen 127.0.0.1 --duration 1 >"$t/out" 2>"$t/err"
rc=$?
check "--transport rdma, no RDMA device: exit 1, said" '[ $rc -eq 1 ] && grep -q "RoCE v2 GID" "$t/err" && [ "$(wc -l <"$t/err")" -eq 1 ]'

# --collect: the recorded events of four monitors, grouped
ev=${ROCECHECK_FIXTURES}/monitor
"$rck" monitor --collect "$ev"/events-h1.jsonl "$ev"/events-h2.jsonl "$ev"/events-h3.jsonl \
	"$ev"/events-h4.jsonl >"$t/out" 2>"$t/err"
rc=$?
check "collect: exit 0, three groups" '[ $rc -eq 0 ] && [ "$(wc -l <"$t/out")" -eq 3 ]'
check "collect: h6 explains three pairs" 'grep -q "\"code\":\"nic_degraded\",\"component\":\"h6\"" "$t/out"'
printf 'not json\n' >"$t/bad.jsonl"
"$rck" monitor --collect "$t/bad.jsonl" >"$t/out" 2>"$t/err"
rc=$?
check "collect: a bad line, exit 2, named" '[ $rc -eq 2 ] && grep -q "bad.jsonl:1: not a monitor event line" "$t/err"'

echo "monitor-cli: $((n - fails))/$n passed"
[ "$fails" -eq 0 ]
