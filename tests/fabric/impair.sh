#!/usr/bin/env bash
# Fabric test: `rocelab impair` (rate both ways, one path with --to, down/up)
# and `rocelab kill` (a peer's running ib_write_bw fails, within a bound);
# first the monitor's RDMA UD prober on rxe beside its UDP one, then under loss.

. "$(dirname "$0")/lib.sh"
fabric_prereqs
lab_up fab-impair 3
L=$ROCELAB
net=$(rx n1 -- sh -c 'echo ${ROCELAB_ADDR%.*}')

# --- the monitor: n1 probes n2 at 20/s over RDMA UD (--transport rdma) and,
# at the same time, over UDP (another port). n2 answers, started first and
# running longer, so n1's totals count only what the path lost.
mon_pair() { # TAG PORT TRANSPORT N1_SECS: events in /tmp/mon-TAG.out, metrics in /tmp/mon-TAG.prom on n1
	local tag=$1 port=$2 tr=$3 secs=$4 out
	rx n1 -- sh -c "echo 'n2 $net.2:$port rate=20' >/tmp/mon-$tag.pl" || fail "pinglist on n1"
	rx n2 -- sh -c "echo 'n1 $net.1:$port rate=20' >/tmp/mon-$tag.pl" || fail "pinglist on n2"
	out=$(rx n2 --bg --log "/tmp/mon-$tag.out" -- rocecheck monitor --pinglist "/tmp/mon-$tag.pl" \
		--port "$port" --transport "$tr" --no-counters --window 4 --hold 1/2 --self n2 \
		--duration $((secs + 15))) || fail "monitor on n2: $out"
	out=$(rx n1 --bg --log "/tmp/mon-$tag.out" -- rocecheck monitor --pinglist "/tmp/mon-$tag.pl" \
		--port "$port" --transport "$tr" --no-counters --window 4 --hold 1/2 --self n1 \
		--duration "$secs" --textfile "/tmp/mon-$tag.prom") || fail "monitor on n1: $out"
}
mon_wait() { # TAG: n1's monitor stopped (bounded); its events and metrics copied to $MON/TAG.*
	local i
	for i in $(seq 120); do
		if rx n1 -- grep -q '"event":"stopped"' "/tmp/mon-$1.out"; then
			rx n1 -- cat "/tmp/mon-$1.out" >"$MON/$1.out"
			rx n1 -- cat "/tmp/mon-$1.prom" >"$MON/$1.prom"
			return 0
		fi
		sleep 0.5
	done
	fail "monitor $1 on n1 did not stop: $(rx n1 -- cat "/tmp/mon-$1.out")"
}
metric() { # TAG NAME [FILTER]: n1's series NAME for peer n2 (and FILTER)
	awk -v m="$2{" -v f="${3:-}" 'index($0, m) == 1 && /peer="n2"/ && index($0, f) { v = $NF } END { if (v == "") exit 1; print v }' "$MON/$1.prom"
}
rtt_us() { awk -v s="$1" 'BEGIN { printf "%.0f", s * 1e6 }'; }
MON=$(mktemp -d /tmp/fab-mon.XXXXXX)
mon_pair ud 18515 rdma 12
mon_pair udp 18516 udp 12
mon_wait ud
mon_wait udp
grep -qE '"event":"probe_path","peer":"n2","transport":"rdma-ud","timestamps":"(software|nic)","device":"rxe0"' "$MON/ud.out" ||
	fail "n1 did not probe n2 over rdma-ud: $(cat "$MON/ud.out")"
ts=$(sed -n 's/.*"transport":"rdma-ud","timestamps":"\([a-z]*\)".*/\1/p' "$MON/ud.out" | tail -1)
grep -q 'rocecheck_monitor_probe_path{device="rxe0",port="1",peer="n2",transport="rdma-ud"' "$MON/ud.prom" ||
	fail "no rdma-ud probe path in n1's metrics: $(cat "$MON/ud.prom")"
sent=$(metric ud rocecheck_monitor_probes_total) lost=$(metric ud rocecheck_monitor_probes_lost_total)
p50ud=$(metric ud rocecheck_monitor_rtt_seconds 'quantile="0.5"')
sentu=$(metric udp rocecheck_monitor_probes_total) lostu=$(metric udp rocecheck_monitor_probes_lost_total)
p50udp=$(metric udp rocecheck_monitor_rtt_seconds 'quantile="0.5"')
say "monitor n1->n2, 12 s at 20/s: rdma-ud ($ts timestamps) sent $sent lost $lost p50 $(rtt_us "${p50ud:-0}") us; udp sent $sentu lost $lostu p50 $(rtt_us "${p50udp:-0}") us; rdma-ud/udp p50 $(ratio "${p50ud:-0}" "${p50udp:-0}")"
# a loaded TCG guest sends fewer than 240 (141 seen under a load of 20), the
# probes before the hello's answer are not sent: many, not all
[ "${sent:-0}" -gt 50 ] || fail "rdma-ud: only ${sent:-0} probes sent in 12 s at 20/s"
[ "$lost" = 0 ] || fail "rdma-ud: $lost of $sent probes lost on a clean path"
[ -n "$p50ud" ] && lt 0 "$p50ud" || fail "rdma-ud: no RTT measured"
grep -q 'rocecheck_monitor_rtt_seconds{device="rxe0",port="1",peer="n2"' "$MON/ud.prom" || fail "rdma-ud RTT not on rxe0"
[ "$lostu" = 0 ] && [ -n "$p50udp" ] || fail "udp: lost $lostu, p50 '$p50udp' on a clean path"
ok "monitor: RTTs over rdma-ud ($ts timestamps) with no loss, beside udp"

# the same over a lossy path: 30% of what n1 sends to n2 dropped
"$L" impair n1 --to n2 loss=30 || fail "impair n1 --to n2 loss=30"
mon_pair udloss 18517 rdma 12
mon_wait udloss
"$L" impair n1 --to n2 clear >/dev/null || fail "impair n1 --to n2 clear"
sent=$(metric udloss rocecheck_monitor_probes_total) lost=$(metric udloss rocecheck_monitor_probes_lost_total)
frac=$(ratio "${lost:-0}" "${sent:-0}")
say "monitor under loss=30 n1->n2: rdma-ud sent $sent lost $lost ($frac)"
lt 0.1 "$frac" && lt "$frac" 0.6 || fail "rdma-ud under 30% loss counted $lost of $sent lost"
grep -qE '"state":"active","code":"probe_(loss|failed)".*"device":"rxe0".*"peer":"n2"' "$MON/udloss.out" ||
	fail "no probe loss finding on rxe0 for n2: $(cat "$MON/udloss.out")"
rm -rf "$MON"
ok "monitor: loss over rdma-ud counted ($frac) and named"

# --- rate: n3 limited, n1<->n2 the unimpaired pair of the same boot.
"$L" impair n3 rate=5mbit || fail "impair n3 rate=5mbit"
bw n1 n2 100; ref=$BW
bw n3 n1 20; to3=$BW
bw n1 n3 20; from3=$BW
r_to=$(ratio "$to3" "$ref") r_from=$(ratio "$from3" "$ref")
say "ib_write_bw unimpaired n2->n1 $ref Gb/s; to n3 $to3 ($r_to); from n3 $from3 ($r_from)"
# 5 Mbit/s against 30-130 Mbit/s unimpaired under TCG (other guests on the
# same cores make the reference vary): a clear drop both ways.
lt "$r_to" 0.5 || fail "rate=5mbit did not lower bandwidth to n3 (ratio $r_to)"
lt "$r_from" 0.5 || fail "rate=5mbit did not lower bandwidth from n3 (ratio $r_from)"
lt "$to3" 0.0075 || fail "to n3: $to3 Gb/s is above the 5 Mbit/s limit"
"$L" status --name "$ROCELAB_NAME" | grep -q 'n3 .*impaired: rate=5mbit' || fail "status does not show n3's rate"
"$L" impair n3 clear >/dev/null || fail "impair n3 clear"
bw n3 n1 40; after=$BW
r_after=$(ratio "$after" "$ref")
say "after clear: to n3 $after Gb/s ($r_after)"
lt "$(ratio "$to3" "$after")" 0.5 || fail "bandwidth to n3 did not recover after clear ($after Gb/s)"
ok "rate: impaired/unimpaired $r_to (to n3), $r_from (from n3); $r_after after clear"

# --- one bad path: delay only from n1 to n2, not from n1 to n3.
rtt() { # from to -> average ms
	rx "$1" -t 30 -- ping -c 4 -i 0.3 -W 2 "$net.${2#n}" | awk -F/ '/min\/avg/ { print $4 }'
}
"$L" impair n1 --to n2 delay=150 || fail "impair n1 --to n2 delay=150"
r12=$(rtt n1 n2) r13=$(rtt n1 n3)
say "with n1 --to n2 delay=150: rtt n1->n2 $r12 ms, n1->n3 $r13 ms"
[ -n "$r12" ] && [ -n "$r13" ] || fail "ping failed"
lt 150 "$r12" || fail "n1->n2 not delayed: $r12 ms"
lt "$r13" 100 || fail "n1->n3 delayed too: $r13 ms"
"$L" impair n1 --to n2 clear >/dev/null
r12=$(rtt n1 n2)
lt "$r12" 100 || fail "n1->n2 still delayed after clear: $r12 ms"
ok "--to: only the n1->n2 path was delayed"

# --- down / up: the port goes DOWN in the guest, traffic stops, both come back.
"$L" impair n2 down >/dev/null || fail "impair n2 down"
st=$(rx n2 -- cat /sys/class/infiniband/rxe0/ports/1/state)
[[ $st == *DOWN* ]] || fail "rxe0 on n2 is '$st' after down"
rx n1 -t 20 -- ping -c 2 -W 1 "$net.2" >/dev/null && fail "n1 still reaches n2 while it is down"
"$L" impair n2 up >/dev/null || fail "impair n2 up"
for i in $(seq 50); do
	st=$(rx n2 -- cat /sys/class/infiniband/rxe0/ports/1/state)
	[[ $st == *ACTIVE* ]] && break
	sleep 0.2
done
[[ $st == *ACTIVE* ]] || fail "rxe0 on n2 is '$st' after up"
rx n1 -t 20 -- ping -c 2 -W 2 "$net.2" >/dev/null || fail "n1 does not reach n2 after up"
bw n2 n1 40
ok "down/up: port DOWN and unreachable, then ACTIVE and $BW Gb/s"

# --- kill: n3 dies under a running ib_write_bw from n1. rxe retries forever
# with perftest's default retry count (7 means "infinite" to rxe), so the
# client uses rdma_cm with a finite one; the exec deadline bounds the rest.
sent() { rx n1 -- cat /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts; }
base=$(sent)
"$L" perf n3 n1 -t 90 -- ib_write_bw -R --retry_count=3 -s 65536 -n 20000 -F >/tmp/fab-kill.out 2>&1 &
perfpid=$!
for i in $(seq 100); do
	n=$(sent)
	[ $((${n:-0} - base)) -gt 2000 ] && break
	kill -0 "$perfpid" 2>/dev/null || fail "ib_write_bw n1 -> n3 ended early: $(cat /tmp/fab-kill.out)"
	sleep 0.3
done
[ $((${n:-0} - base)) -gt 2000 ] || fail "ib_write_bw n1 -> n3 did not start: $(cat /tmp/fab-kill.out)"
"$L" kill n3 || fail "rocelab kill n3"
tk=$(date +%s%N)
rc=
for i in $(seq 600); do
	if ! kill -0 "$perfpid" 2>/dev/null; then
		wait "$perfpid"
		rc=$?
		break
	fi
	sleep 0.1
done
if [ -z "$rc" ]; then
	kill "$perfpid" 2>/dev/null
	fail "ib_write_bw on n1 still running 60 s after n3 was killed"
fi
took=$(since "$tk")
say "ib_write_bw on n1 ended with $rc, $took s after n3 was killed"
[ "$rc" != 0 ] || fail "ib_write_bw succeeded although its peer died"
[ "$rc" != 124 ] || fail "ib_write_bw hung until the exec deadline instead of failing"
grep -qiE 'error|fail' /tmp/fab-kill.out || fail "no error reported: $(cat /tmp/fab-kill.out)"
sed -n '/[Ee]rror\|[Ff]ail/p' /tmp/fab-kill.out | head -3 | sed 's/^/# /'
"$L" status --name "$ROCELAB_NAME" | grep -q 'n3 .*dead' || fail "status does not show n3 dead"
rx n3 -- true 2>/dev/null
[ $? = 255 ] || fail "exec on the dead n3 did not fail with 255"
rx n1 -- true || fail "n1 does not answer after its peer died"
ok "kill: the peer's ib_write_bw failed ($rc) within $took s"
rm -f /tmp/fab-kill.out
