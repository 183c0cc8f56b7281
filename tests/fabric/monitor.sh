#!/usr/bin/env bash
# Fabric test: `rocelab up --nodes 4 --monitor`, one boot: n2's link bounced
# is reported within 5 s, its GID table compared after; once those findings
# cleared, a healthy half minute gives no finding; 1% loss on n3 is named
# within 30 s and nothing else is; a PFC storm sent by n4 is named on n4
# within 20 s. Detection delays are measured and said.
# The bounce comes first: its measure does not depend on the probes.
#
# The healthy phase is 30 s, not a minute: a probe finding needs 2 of 3 of
# the lab's 5 s windows, so 30 s is six windows (four chances for a hold) and
# 30 counter polls per monitor; the loss phase then watches n1, n2 and n4 for
# 30 s more, so three of the four nodes are seen healthy for a minute.
#
# Load: a probe unanswered in 1 s is lost (the monitor's constant), so a
# guest not scheduled for over a second loses probes. On the project's
# 2-core machine at load 16-22 (other labs and a CI run at once) 15-17% of a
# healthy lab's probes went unanswered in 1 s (RTT p99 1.1-4.4 s) and this
# test failed in its healthy phase, saying those numbers: the lab cannot
# judge 1% loss on a host that starves its guests for seconds.
#
# PFC: last, n4 sends a storm of XOFF frames (`rocelab impair n4 pfc=3`).
# The monitor reads pause time from the NIC's counters (mlx5, bnxt, irdma;
# lib/counters_vendor.c); rxe on virtio_net has none, so for such ports it
# counts the PFC frames the host's own stack sends and receives
# (monitor/pfc_tap.c). The lab's bridges drop 802.3 MAC control frames
# (01:80:c2:00:00:01, link-local), so rocelab mirrors n4's to the other
# guests as a storm spreads through a switch: n4 is named the sender, each
# other guest's monitor sees itself paused, and --collect makes one finding
# of n4 naming the paused ports. The alert is checked by promtool
# (contrib/prometheus/tests/monitor.test.yml).

. "$(dirname "$0")/lib.sh"
fabric_prereqs
RC=${BUILD_DIR:+$BUILD_DIR/tools/rocecheck}
[ -n "$RC" ] && [ -x "$RC" ] || need "no rocecheck build (ROCECHECK_BUILD_DIR)"
"$RC" monitor --help >/dev/null 2>&1 || need "$RC has no monitor command"
command -v jq >/dev/null || need "jq not found"
command -v curl >/dev/null || need "curl not found"
TMPD=$(mktemp -d)
lab_up mon 4 --monitor
trap '[ "$BASHPID" = "$$" ] && { rm -rf "$TMPD"; lab_down; }' EXIT
L=$ROCELAB
NODES=(n1 n2 n3 n4)
say "booted 4 nodes with monitors in $BOOT_SECS s"
read -r -a ADDR <<<"$("$L" host -- sh -c 'echo $ROCELAB_NODES')"
MPORT=$("$L" host -- sh -c 'echo $ROCELAB_MONITOR_METRICS_PORT')
[ "$MPORT" = 9470 ] || fail "rocelab host exports ROCELAB_MONITOR_METRICS_PORT='$MPORT', want 9470"
GIDX=$(rx n2 -- sh -c 'echo $ROCELAB_GID_INDEX')

# A log read while the monitor writes may end in half a line: dropped.
# jq 1.6's -e answers 4 when the last input line selects nothing: test output.
jq_any() { [ -n "$(jq -c "$@" 2>/dev/null)" ]; }
whole_lines() { [ -z "$(tail -c 1 "$1")" ] || sed -i '$d' "$1"; }
# Every guest's event log in $TMPD/nI.jsonl (fetched in parallel, bounded).
fetch_logs() {
	local n pids=()
	for n in "${NODES[@]}"; do
		rx "$n" -t 10 -- cat /var/log/rocelab/monitor.log >"$TMPD/$n.jsonl.new" 2>"$TMPD/$n.fetch.err" &
		pids+=($!)
	done
	for n in "${!pids[@]}"; do
		wait "${pids[n]}" || fail "cannot read ${NODES[n]}'s monitor log: $(cat "$TMPD/${NODES[n]}.fetch.err")"
		whole_lines "$TMPD/${NODES[n]}.jsonl.new"
		mv "$TMPD/${NODES[n]}.jsonl.new" "$TMPD/${NODES[n]}.jsonl"
	done
}
# The localised findings of the four logs (rocecheck monitor --collect).
collect() {
	"$RC" monitor --collect "$TMPD"/n?.jsonl 2>"$TMPD/collect.err" ||
		fail "monitor --collect: $(cat "$TMPD/collect.err")"
}
# Finding events (one compact line each, "NODE code state device peer time").
# Since the last since_now (the lines each log had then).
declare -A SINCE=()
since_now() { local n; for n in "${NODES[@]}"; do SINCE[$n]=$(wc -l <"$TMPD/$n.jsonl"); done; }
findings() {
	local n
	for n in "${NODES[@]}"; do
		tail -n +"$((${SINCE[$n]:-0} + 1))" "$TMPD/$n.jsonl" | jq -r --arg n "$n" 'select(.event == "finding")
			| "\($n) \(.code) \(.state) \(.device)/\(.port) \(.peer // "-") \(.time)"'
	done
}
metrics() { # NODE: its /metrics, from the lab's namespace
	"$L" host -- curl -sS --max-time 5 "http://${ADDR[${1#n} - 1]}:$MPORT/metrics"
}
# Guest NODE's clock minus the host's, in CLOCK_OFF (seconds), CLOCK_ERR its
# bound (half the round trip): event times are the guest's.
# The shortest of three round trips (an exec takes seconds under load).
clock_off() {
	local a b g e
	CLOCK_ERR=1000
	for _ in 1 2 3; do
		a=$(date +%s.%N)
		g=$(rx "$1" -t 10 -- date +%s.%N) || fail "$1: date"
		b=$(date +%s.%N)
		e=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", (b - a) / 2 }')
		lt "$e" "$CLOCK_ERR" || continue
		CLOCK_ERR=$e
		CLOCK_OFF=$(awk -v a="$a" -v b="$b" -v g="$g" 'BEGIN { printf "%.3f", g - (a + b) / 2 }')
	done
}
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; } # T0ns T1ns
cpu_ticks() { # NODE: utime + stime of its monitor
	rx "$1" -t 10 -- sh -c 'p=$(pgrep -f "^rocecheck monitor") && awk "{ print \$14 + \$15 }" /proc/$p/stat'
}

# --- the monitors run: one per guest, 3 peers, metrics reachable from the host.
for n in "${NODES[@]}"; do
	rx "$n" -- pgrep -f '^rocecheck monitor --pinglist' >/dev/null || fail "$n: no monitor running"
	m=$(metrics "$n") || fail "$n: /metrics not reachable from rocelab host"
	grep -qx 'rocecheck_monitor_up 1' <<<"$m" || fail "$n: /metrics has no rocecheck_monitor_up 1"
	# the first counter poll's snapshot: a second after start, more on a
	# loaded host (bounded: 15 tries a second apart)
	for _ in $(seq 15); do
		grep -q "^rocecheck_monitor_link_up{device=\"rxe0\",port=\"1\"} 1" <<<"$m" && break
		sleep 1
		m=$(metrics "$n") || fail "$n: /metrics not reachable from rocelab host"
	done
	grep -q "^rocecheck_monitor_link_up{device=\"rxe0\",port=\"1\"} 1" <<<"$m" ||
		fail "$n: /metrics: rxe0 not up after 15 s: $(grep '^rocecheck_monitor_link_up' <<<"$m" || echo 'no link_up series')"
done
fetch_logs
for n in "${NODES[@]}"; do
	jq_any 'select(.event == "started" and .peers == 3)' "$TMPD/$n.jsonl" ||
		fail "$n: no started event with 3 peers: $(head -c 500 "$TMPD/$n.jsonl")"
done
ok "a monitor in each guest (3 peers), /metrics on each fabric address from rocelab host, events in the log"

# --- n2's link bounced (down ~2 s, up): reported within 5 s, GID table
# compared after (the monitor's state_compared, and the table read here).
gids() {
	# rxe has 1024 entries: one grep for the used ones, their types after
	rx n2 -t 20 -- sh -c 'cd /sys/class/infiniband/rxe0/ports/1 || exit 1
		grep -vH "^0000:0000:0000:0000:0000:0000:0000:0000$" gids/* | while IFS=: read -r g a; do
			i=${g#gids/}; echo "$i $a $(cat "gid_attrs/types/$i" 2>/dev/null)"; done' | sort -n
}
g0=$(gids) || fail "n2: GID table"
m=$(metrics n2) || fail "n2: /metrics"
grep -q '^rocecheck_monitor_link_flaps_total{device="rxe0",port="1"} 0' <<<"$m" || fail "n2: link_flaps_total not 0 before the bounce"
clock_off n2
off2=$CLOCK_OFF err2=$CLOCK_ERR
n2log0=$(wc -l <"$TMPD/n2.jsonl")
t0=$(date +%s%N)
t0s=$(awk -v t="$t0" 'BEGIN { printf "%.3f", t / 1e9 }')
"$L" impair n2 down >/dev/null || fail "impair n2 down"
seen=
for _ in $(seq 40); do
	rx n2 -t 10 -- cat /var/log/rocelab/monitor.log >"$TMPD/n2.jsonl" || fail "n2: monitor log"
	whole_lines "$TMPD/n2.jsonl"
	if tail -n +"$((n2log0 + 1))" "$TMPD/n2.jsonl" | jq_any 'select(.event == "finding" and .state == "active"
		and (.code == "link_flap" or .code == "port_down"))'; then
		seen=$(secs "$t0" "$(date +%s%N)")
		break
	fi
	sleep 0.2
done
tdown=$(secs "$t0" "$(date +%s%N)")
(( $(date +%s%N) - t0 < 2000000000 )) && sleep 1
"$L" impair n2 up >/dev/null || fail "impair n2 up"
tup=$(secs "$t0" "$(date +%s%N)")
[ -n "$seen" ] || fail "n2's bounce not reported in $tdown s: $(tail -n +"$((n2log0 + 1))" "$TMPD/n2.jsonl")"
# by the event's own time: guest clock minus the measured offset, its error added
read -r code ev < <(tail -n +"$((n2log0 + 1))" "$TMPD/n2.jsonl" | jq -r 'select(.event == "finding" and .state == "active"
	and (.code == "link_flap" or .code == "port_down")) | "\(.code) \(.time)"' | sort -k2 -n | head -1)
delay=$(awk -v e="$ev" -v o="$off2" -v t="$t0s" -v r="$err2" 'BEGIN { printf "%.2f", e - o - t + r }')
say "n2 bounced (down for ~$tup s): $code reported $delay s after the down (event time, clock error $err2 s included); seen from the host at $seen s"
awk -v d="$delay" 'BEGIN { exit !(d <= 5) }' || fail "n2's bounce reported after $delay s, bound 5 s"
# after up: the RDMA state read again and compared with the first one
cmp=
for _ in $(seq 60); do
	rx n2 -t 10 -- cat /var/log/rocelab/monitor.log >"$TMPD/n2.jsonl" || fail "n2: monitor log"
	whole_lines "$TMPD/n2.jsonl"
	cmp=$(tail -n +"$((n2log0 + 1))" "$TMPD/n2.jsonl" | jq -c 'select(.event == "state_compared" and .device == "rxe0")' | tail -1)
	[ -n "$cmp" ] && break
	sleep 0.25
done
tcmp=$(secs "$t0" "$(date +%s%N)")
[ -n "$cmp" ] || fail "no state_compared event on n2 within $tcmp s of the bounce"
jq -e --argjson g "$GIDX" '.same == true and .gid_index == $g' <<<"$cmp" >/dev/null ||
	fail "n2 after the bounce: $cmp (RoCE v2 GID index was $GIDX)"
g1=$(gids) || fail "n2: GID table after"
[ "$g0" = "$g1" ] || fail "n2's GID table differs after the bounce:"$'\n'"$g0"$'\n---\n'"$g1"
say "state compared at $tcmp s: $cmp; GID table read here the same ($(wc -l <<<"$g1") entries)"
# the bounce in /metrics within two windows; nobody else flapped
for _ in $(seq 20); do
	m=$(metrics n2) || fail "n2: /metrics"
	grep -q '^rocecheck_monitor_link_flaps_total{device="rxe0",port="1"} 1$' <<<"$m" && break
	sleep 0.5
done
grep -q '^rocecheck_monitor_link_flaps_total{device="rxe0",port="1"} 1$' <<<"$m" ||
	fail "n2: /metrics does not count the flap: $(grep flaps <<<"$m")"
fetch_logs
bad=$(findings | awk '$1 != "n2" && ($2 == "link_flap" || $2 == "port_down")')
[ -z "$bad" ] || fail "flaps reported on guests not bounced:"$'\n'"$bad"
ok "n2 bounced: $code in $delay s (bound 5 s), RDMA state compared after (same, GID index $GIDX), /metrics counts 1 flap"

# the bounce's findings (peers lost n2's probes) clear before the next
# phases, and stay clear for two windows: after the link came back, peers
# whose neighbour entry for n2 failed while it was down lose its probes
# for a few seconds more (a CI run saw probe_loss on n2 again 8 s after the
# bounce, once the first findings had cleared).
t=$(date +%s%N) tclear=
for _ in $(seq 90); do
	fetch_logs
	out=$(collect)
	if [ -n "$out" ]; then
		tclear=
	elif [ -z "$tclear" ]; then
		tclear=$(date +%s%N)
		say "after the bounce every finding cleared in $(secs "$t" "$tclear") s"
	elif (( $(date +%s%N) - tclear >= 10000000000 )); then
		break
	fi
	sleep 0.5
done
[ -z "$out" ] && [ -n "$tclear" ] || fail "findings after the bounce not cleared in $(secs "$t" "$(date +%s%N)") s: $out"
say "clear for 10 s, $(secs "$t" "$(date +%s%N)") s after the bounce"

# --- healthy: 30 s in which no finding becomes active.
c0=$(cpu_ticks n1)
since_now
t=$(date +%s%N)
sleep 30
fetch_logs
c1=$(cpu_ticks n1)
healthy=$(secs "$t" "$(date +%s%N)")
sent=0 lost=0
for n in "${NODES[@]}"; do
	m=$(metrics "$n") || fail "$n: /metrics"
	read -r s l < <(awk '/^rocecheck_monitor_probes_total\{/ { s += $2 } /^rocecheck_monitor_probes_lost_total\{/ { l += $2 }
		END { print s + 0, l + 0 }' <<<"$m")
	sent=$((sent + s)) lost=$((lost + l))
	grep '^rocecheck_monitor_rtt_seconds{' <<<"$m" >>"$TMPD/rtt"
done
rtt=$(awk '/quantile="0.99"/ { if ($2 > m99) m99 = $2 } END { printf "RTT p99 max %.1f ms", 1000 * m99 }' "$TMPD/rtt")
rtt="RTT p50 median $(awk '/quantile="0.5"/ { print $2 * 1000 }' "$TMPD/rtt" | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f ms", v[int((NR + 1) / 2)] }'), $rtt"
[ "$sent" -gt 0 ] || fail "no probe counted in /metrics"
cpu=$(awk -v a="$c0" -v b="$c1" -v s="$(secs "$t" "$(date +%s%N)")" 'BEGIN { printf "%.1f", (b - a) / s }')
f=$(findings | awk '$3 == "active"')
[ -z "$f" ] || fail "findings on a healthy lab ($healthy s; $sent probes, $lost unanswered; $rtt):"$'\n'"$f"
say "healthy $healthy s: no finding; $sent probes (/metrics at the last window), $lost unanswered; $rtt (last window); n1's monitor used $cpu% of a (TCG) core"
ok "healthy for $healthy s (6 windows of 5 s): no finding in any of the 4 monitors"

# --- 1% loss on n3 (netem on what it sends): named within 30 s, nothing else.
offs=
for n in "${NODES[@]}"; do clock_off "$n"; offs+="$n=$CLOCK_OFF "; done
since_now
t0=$(date +%s%N)
t0s=$(awk -v t="$t0" 'BEGIN { printf "%.3f", t / 1e9 }')
"$L" impair n3 loss=1 >/dev/null || fail "impair n3 loss=1"
named=
while :; do
	fetch_logs
	out=$(collect)
	now=$(date +%s%N)
	if jq_any 'select(.component == "n3")' <<<"$out"; then
		named=$(secs "$t0" "$now")
		break
	fi
	(((now - t0) / 1000000000 >= 30)) && break
	sleep 0.5
done
[ -n "$named" ] || fail "1% loss on n3 not named in 30 s; collect: $out"$'\n'"$(findings)"
# the first report involving n3, by the reporting guest's clock
first=$(findings | awk -v t0="$t0s" -v offs="$offs" 'BEGIN { n = split(offs, a, /[ =]/); for (i = 1; i < n; i += 2) off[a[i]] = a[i + 1] }
	$3 == "active" && ($1 == "n3" || $5 == "n3") {
	d = $6 - off[$1] - t0; if (m == "" || d < m) { m = d; w = $1 " " $2 " " $5 } } END { if (m != "") printf "%.1f s (%s)", m, w }')
say "1% loss on n3: named by collect at $named s (host polls every ~1-2 s); first finding on n3 after $first (the reporter's clock, offsets $offs); $(jq -c . <<<"$out" | head -3 | tr '\n' ' ')"
# Held to 30 s: over the whole bound, only n3 is named.
while (( ($(date +%s%N) - t0) / 1000000000 < 30 )); do sleep 1; done
fetch_logs
out=$(collect)
other=$(jq -r 'select(.component != "n3" and (.peer // "") != "n3") | tostring' <<<"$out")
[ -z "$other" ] || fail "with 1% loss on n3, collect names something else: $other"
jq_any 'select(.component == "n3")' <<<"$out" || fail "n3 no longer named at 30 s: $out"
bad=$(findings | awk '$3 == "active" && $1 != "n3" && $5 != "n3"')
[ -z "$bad" ] || fail "findings not about n3 during the loss:"$'\n'"$bad"
ok "1% loss on n3 named in $named s (bound 30 s); over 30 s nothing else named ($(wc -l <<<"$out") localised line(s))"

# loss cleared: every finding clears (K of N windows without it), bounded.
"$L" impair n3 clear >/dev/null || fail "impair n3 clear"
t=$(date +%s%N)
for _ in $(seq 60); do
	fetch_logs
	out=$(collect)
	[ -z "$out" ] && break
	sleep 0.5
done
[ -z "$out" ] || fail "findings not cleared $(secs "$t" "$(date +%s%N)") s after the loss ended: $out"
say "loss removed: every finding cleared after $(secs "$t" "$(date +%s%N)") s"


# --- a PFC storm from n4: `rocelab impair n4 pfc=3` sends an XOFF on
# priority 3 (65535 quanta) every 4 ms from n4's eth0 (lldp-beacon in the
# guest, a packet socket). rxe on virtio_net counts no pause time, so the
# monitor counts the PFC frames its own stack sends (monitor/pfc_tap.c) at
# the port's rate (2.5 Gb/s: 13.4 ms a frame, so the port would never
# resume; measured 36-68%, the guest not scheduled the rest, and the lab's
# monitors storm at 10%: rocelab's monitor.conf). Named on n4 as the sender
# within 20 s (2 of 3 polls of 1 s: 1.2 s after the impair on an idle 2-guest
# lab, 9.8-11.9 s with a CI run beside this test); the other guests, which
# receive the mirrored frames, each name their own port paused (a warning)
# and --collect names n4 with them, within 25 s; nothing else named;
# cleared once `impair n4 pfc=off` ends it.
since_now
t0=$(date +%s%N)
out=$("$L" impair n4 pfc=3) || fail "impair n4 pfc=3: $out"
[ "$out" = "n4: pfc=3" ] || fail "impair n4 pfc=3 printed '$out'"
named=
while :; do
	fetch_logs
	now=$(date +%s%N)
	if [ -n "$(findings | awk '$1 == "n4" && $2 == "pause_storm" && $3 == "active" && $4 == "rxe0/1"')" ]; then
		named=$(secs "$t0" "$now")
		break
	fi
	(((now - t0) / 1000000000 >= 20)) && break
	sleep 0.5
done
[ -n "$named" ] || fail "PFC storm from n4 not named in 20 s: $(rx n4 -t 10 -- sh -c 'pgrep -a lldp-beacon; ls -l /run/rocelab/pfc-storm0')"$'\n'"$(findings)"$'\n'"$(metrics n4 | grep pfc_pause | grep -v ' 0$')"
reason=$(jq -r 'select(.event == "finding" and .code == "pause_storm" and .state == "active") | .reason' "$TMPD/n4.jsonl" | tail -1)
grep -q "sends pauses on priority 3" <<<"$reason" || fail "n4's storm finding: '$reason'"
grep -q "the NIC counts none" <<<"$reason" || fail "n4's storm finding does not say its pause time came from the frames: '$reason'"
# the paused side: every other guest names its own port, and --collect
# makes one finding of n4 naming them
paused_ok=
while :; do
	fetch_logs
	now=$(date +%s%N)
	cs=$(collect | jq -r 'select(.code == "pause_storm") | "\(.component) \(.reason)"')
	if [ "$(findings | awk '$1 != "n4" && $2 == "pause_storm" && $3 == "active"' | awk '{print $1}' | sort -u | wc -l)" = 3 ] &&
		grep -q '^n4 rxe0/1 sends the pauses; paused: ' <<<"$cs" &&
		grep -q 'n1:rxe0/1' <<<"$cs" && grep -q 'n2:rxe0/1' <<<"$cs" && grep -q 'n3:rxe0/1' <<<"$cs"; then
		paused_ok=$(secs "$t0" "$now")
		break
	fi
	(((now - t0) / 1000000000 >= 25)) && break
	sleep 0.5
done
[ -n "$paused_ok" ] || fail "the paused side of n4's storm not named in 25 s; collect: '$cs'"$'\n'"$(findings)"$'\n'"$(metrics n1 | grep pfc_pause | grep -v ' 0$')"
wrong=$(for n in n1 n2 n3; do jq -r --arg n "$n" 'select(.event == "finding" and .code == "pause_storm" and .state == "active"
	and (.severity != "warning" or (.reason | startswith("paused by its peer") | not))) | "\($n): \(.severity) \(.reason)"' "$TMPD/$n.jsonl"; done)
[ -z "$wrong" ] || fail "a paused guest named as more than paused:"$'\n'"$wrong"
bad=$(findings | awk '$3 == "active" && $2 != "pause_storm"')
[ -z "$bad" ] || fail "during n4's PFC storm, other findings:"$'\n'"$bad"
say "the paused side: n1-n3 each name their port paused, collect after $paused_ok s: $cs"
# /metrics is the snapshot of the last window's end (5 s), the finding a
# poll's (1 s): on an idle runner the storm is named before a window closes.
for _ in $(seq 16); do
	m=$(metrics n4) || fail "n4: /metrics"
	ps=$(awk '/^rocecheck_monitor_pfc_pause_seconds_total\{/ && /priority="3"/ && /direction="tx"/ { print $2 }' <<<"$m")
	[ -n "$ps" ] && lt 0.5 "$ps" && break
	sleep 0.5
done
[ -n "$ps" ] && lt 0.5 "$ps" || fail "n4: /metrics tx pause seconds on priority 3 within 8 s of the finding: '$ps'"
say "n4's PFC storm: pause_storm on n4 rxe0/1 after $named s ($reason); /metrics: $ps s paused (tx, priority 3)"
out=$("$L" impair n4 pfc=off) || fail "impair n4 pfc=off: $out"
[ "$out" = "n4: not impaired" ] || fail "impair n4 pfc=off printed '$out'"
# the last pause_storm event of n4's log says cleared
storm_state() { findings | awk '$1 == "n4" && $2 == "pause_storm" { s = $3 } END { print s }'; }
t=$(date +%s%N)
for _ in $(seq 40); do
	fetch_logs
	[ "$(storm_state)" = cleared ] && [ -z "$(collect)" ] && break
	sleep 0.5
done
[ "$(storm_state)" = cleared ] || fail "n4's pause_storm not cleared $(secs "$t" "$(date +%s%N)") s after the storm ended"
out=$(collect)
[ -z "$out" ] || fail "findings not cleared $(secs "$t" "$(date +%s%N)") s after n4's storm ended: $out"
rx n4 -t 10 -- pgrep -f '^lldp-beacon' >/dev/null && fail "n4: lldp-beacon still runs after pfc=off"
left=$(findings | awk '$2 == "pause_storm" { s[$1] = $3 } END { for (n in s) if (s[n] != "cleared") print n }')
[ -z "$left" ] || fail "pause storms not cleared on: $left"
ok "PFC storm from n4 named on n4 (sender, rxe0/1) in $named s (bound 20 s), the paused n1-n3 with it by collect in $paused_ok s (bound 25 s), nothing else; cleared $(secs "$t" "$(date +%s%N)") s after it ended"
