#!/usr/bin/env bash
# Fabric test of rocecap on real rxe traffic: ib_write_bw with traffic class
# 106 (DSCP 26, ECT(0)) captured on a guest's NIC (tcpdump to a file and
# rocecap -i live in the guest), the same with netem loss in the guest
# (retransmissions and PSN gaps must show), and PFC/PAUSE frames injected
# with AF_PACKET; every file is also read by tshark on the host and the
# counts compared (tests/cap/tshark-compare.py).

. "$(dirname "$0")/lib.sh"
SRC=$(cd "$HERE/../.." && pwd)
ROCECAP=${ROCECAP:-$BUILD_DIR/tools/rocecap}
INJECT=${ROCECAP_PFC_INJECT:-$BUILD_DIR/tests/cap/pfc-inject}
fabric_prereqs
[ -n "$BUILD_DIR" ] && [ -x "$ROCECAP" ] || need "rocecap not built (ROCECHECK_BUILD_DIR=$BUILD_DIR)"
[ -x "$INJECT" ] || need "pfc-inject not built"
command -v tshark >/dev/null || need "tshark not installed"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
T=$(mktemp -d)
# ROCECAP_KEEP=DIR keeps the captures, JSON and plots for a look afterwards.
keep() { [ -z "${ROCECAP_KEEP:-}" ] || { mkdir -p "$ROCECAP_KEEP" && cp "$T"/* "$ROCECAP_KEEP"/; }; }
trap 'keep; rm -rf "$T"; lab_down' EXIT

lab_up cap 2 --add "$INJECT:/usr/local/bin/pfc-inject"
trap 'keep; rm -rf "$T"; lab_down' EXIT
say "boot of 2 nodes: $BOOT_SECS s"
rx n2 -- sh -c 'command -v rocecap && command -v tcpdump' >/dev/null || fail "rocecap or tcpdump missing in the guest"

jget() { $PY -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

# capture_start NODE NAME FILTER...: tcpdump in the guest to /tmp/NAME.pcap.
capture_start() {
	local n=$1 name=$2 out i
	shift 2
	out=$(rx "$n" --bg --log "/tmp/$name.log" -- tcpdump -i eth0 -s 256 -U --immediate-mode -w "/tmp/$name.pcap" "$@") ||
		fail "$n: tcpdump: $out"
	CAP_PID=${out%% *}
	for ((i = 0; i < 50; i++)); do
		rx "$n" -- grep -q 'listening on' "/tmp/$name.log" && return 0
		sleep 0.2
	done
	fail "$n: tcpdump did not start: $(rx "$n" -- cat "/tmp/$name.log")"
}

# capture_stop NODE NAME: stop tcpdump, copy the file to $T/NAME.pcap.
capture_stop() {
	local n=$1 name=$2 i
	# Immediate mode hands frames over as they come; a moment for the last.
	sleep 0.5
	rx "$n" -- kill -INT "$CAP_PID"
	for ((i = 0; i < 50; i++)); do
		rx "$n" -- kill -0 "$CAP_PID" 2>/dev/null || break
		sleep 0.2
	done
	# base64: the exec channel carries text; gzip shrinks the ~3 MB loss
	# capture tenfold. Once in CI the guest did not answer the copy for 210 s
	# though it had answered kill -0 just before (the channel itself moves
	# 4 MB in 0.3 s, loaded or not): show the guest's state, try once more.
	if ! rx "$n" -t 120 -- sh -c 'gzip -c "$1" | base64' sh "/tmp/$name.pcap" >"$T/$name.pcap.b64"; then
		say "$n: copying $name.pcap failed; the guest's state:"
		rx "$n" -t 20 -- sh -c 'ls -l /tmp; free; ps -eo pid,stat,time,args | tail -n 25; dmesg | tail -n 25' 2>&1 | sed 's/^/#   /' || true
		rx "$n" -t 120 -- sh -c 'gzip -c "$1" | base64' sh "/tmp/$name.pcap" >"$T/$name.pcap.b64" ||
			fail "$n: copying $name.pcap"
	fi
	base64 -d <"$T/$name.pcap.b64" | gzip -dc >"$T/$name.pcap" || fail "$n: $name.pcap did not decode"
	say "$name.pcap: $(stat -c %s "$T/$name.pcap") bytes, $(stat -c %s "$T/$name.pcap.b64") on the channel"
}

# analyse NAME: rocecap on the host into $T/NAME.json, and tshark's counts.
analyse() {
	"$ROCECAP" -r "$T/$1.pcap" -j --timeline --interval 0.01 --timeline-svg "$T/$1.svg" >"$T/$1.json" ||
		fail "rocecap -r $1.pcap"
	local out
	out=$($PY "$SRC/tests/cap/tshark-compare.py" "$T/$1.pcap" "$T/$1.json" 2>&1) || fail "$1: $out"
	ok "$1: $out"
}

# --- 1. Clean traffic, traffic class 106: every RoCE packet ECT(0), no loss.
rx n1 --bg --log /tmp/live.json -- rocecap -i eth0 -j -G 60 -c 4000 udp port 4791 >/dev/null ||
	fail "n1: rocecap -i eth0"
capture_start n2 clean udp port 4791
perf n1 n2 ib_write_bw -s 65536 -n 40 -F --tclass=106 --report_gbits || fail "ib_write_bw --tclass=106: $PERF_OUT"
say "ib_write_bw n2 -> n1 with tclass 106: $(bw_gbps <<<"$PERF_OUT") Gb/s in $PERF_SECS s"
capture_stop n2 clean
analyse clean
read -r pk ect ce gaps re flows < <(jget "$T/clean.json" \
	'j["roce"]["packets"], j["roce"]["ect_marked"], j["roce"]["ce_marked"], j["roce"]["psn_gaps"], j["roce"]["retransmissions"], len(j["flows"])')
say "clean: $pk RoCE packets, ECT $ect, CE $ce, gaps $gaps, retransmissions $re, $flows flows"
# 40 x 64 KiB at MTU 1024 or 4096: at least 640 WRITE packets.
[ "$pk" -ge 640 ] || fail "clean: only $pk RoCE packets"
[ "$ect" = "$pk" ] && [ "$ce" = 0 ] || fail "clean: ECT $ect of $pk, CE $ce (tclass 106 is ECT(0))"
# Nothing is lost, so no PSN is skipped; rxe's ACK timer may still fire on
# a loaded runner under TCG and resend (retransmissions, reported only).
[ "$gaps" = 0 ] || fail "clean: $gaps PSN gaps without loss"
[ "$flows" -ge 2 ] || fail "clean: $flows flows (WRITEs one way, ACKs the other)"
jget "$T/clean.json" '[f["dscp"] for f in j["flows"]]' | grep -qv '26' && fail "clean: DSCP other than 26"
ok "clean: $pk packets all ECT(0), DSCP 26, no PSN gaps ($re timer retransmissions), $flows flows"

# rocecap -i in the guest (live capture) saw the same run; wait for its -c or -G.
for ((i = 0; i < 100; i++)); do
	rx n1 -- sh -c 'pgrep -x rocecap >/dev/null' || break
	[ "$i" = 20 ] && rx n1 -- pkill -INT -x rocecap
	sleep 0.5
done
rx n1 -- cat /tmp/live.json >"$T/live.json"
lpk=$(jget "$T/live.json" 'j["roce"]["packets"]') || fail "live: no JSON: $(cat "$T/live.json")"
lect=$(jget "$T/live.json" 'j["roce"]["ect_marked"]')
[ "$lpk" -ge 640 ] && [ "$lect" = "$lpk" ] || fail "live: rocecap -i saw $lpk RoCE packets, ECT $lect"
ok "rocecap -i eth0 in the guest: $lpk RoCE packets, all ECT(0)"

# --- 2. netem loss in the sending guest: retransmissions must show.
"$ROCELAB" impair n2 loss=3 >/dev/null || fail "impair n2 loss=3"
capture_start n2 loss udp port 4791
perf n1 n2 ib_write_bw -s 65536 -n 40 -F --tclass=106 --report_gbits || say "ib_write_bw with loss: $PERF_OUT"
say "ib_write_bw n2 -> n1 with 3% loss: $(bw_gbps <<<"$PERF_OUT") Gb/s in $PERF_SECS s"
capture_stop n2 loss
"$ROCELAB" impair n2 clear >/dev/null || fail "impair n2 clear"
analyse loss
read -r pk gaps miss re seq < <(jget "$T/loss.json" \
	'j["roce"]["packets"], j["roce"]["psn_gaps"], j["roce"]["psn_missing"], j["roce"]["retransmissions"], j["roce"]["naks"]["psn_seq_err"]')
say "loss: $pk RoCE packets, PSN gaps $gaps ($miss missing), retransmissions $re, NAK seq err $seq"
[ "$re" -gt 0 ] || fail "loss: no retransmissions in $pk packets"
# netem drops after the capture point on egress: the sender's file shows the gap.
[ "$gaps" -gt 0 ] || fail "loss: no PSN gaps"
ok "loss: $re retransmissions, $gaps PSN gaps, $seq sequence-error NAKs"

# --- 3. PFC and PAUSE frames sent with AF_PACKET, captured on the sender.
capture_start n1 pfc ether proto 0x8808
rx n1 -- pfc-inject eth0 || fail "pfc-inject"
capture_stop n1 pfc
analyse pfc
got=$(jget "$T/pfc.json" 'j["pfc"]["frames"], j["pfc"]["priorities"][3]["frames"], j["pfc"]["priorities"][3]["xon"], j["pfc"]["priorities"][3]["pause_quanta"], j["pfc"]["priorities"][4]["pause_quanta"], j["pause"]["frames"], j["pause"]["pause_quanta"]')
[ "$got" = "4 4 1 132070 2000 1 500" ] || fail "pfc: got '$got', want '4 4 1 132070 2000 1 500'"
us=$(jget "$T/pfc.json" 'round(j["pfc"]["priorities"][3]["pause_us"], 1)')
grep -q 'priority 4' "$T/pfc.svg" || fail "pfc: the timeline plot has no line for priority 4"
ok "pfc: 4 PFC frames (priority 3: 132070 quanta = $us us at 100 Gb/s, one XON; priority 4: 2000), 1 PAUSE"
